"""ECMP: enough paths for every equal-cost uplink, and multipath-relax where uplink ASNs differ."""

from __future__ import annotations

from collections import defaultdict

from dualrail_net.verify.checks import Context, ROUTING, SESSIONS, TOPOLOGY, check, finding
from dualrail_net.verify.controlplane import maximum_paths
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.topology import NodeId

TIER = {"leaf": 0, "spine": 1, "super_spine": 2, "gateway": -1}


def uplinks(ctx: Context) -> dict[NodeId, list[tuple[NodeId, int]]]:
    """Per routing instance, its sessions toward the tier above (for a gateway: all of them)."""
    tier = {name: TIER.get(meta.role, 0) for name, meta in ctx.snap.manifest.devices.items()}
    ups: dict[NodeId, list[tuple[NodeId, int]]] = defaultdict(list)
    for s in ctx.topo.sessions:
        a_tier, b_tier = tier.get(s.a[0], 0), tier.get(s.b[0], 0)
        if b_tier > a_tier or a_tier == -1:
            ups[s.a].append((s.b, s.b_asn))
        if a_tier > b_tier or b_tier == -1:
            ups[s.b].append((s.a, s.a_asn))
    return ups


@check("ECMP-MAX-PATHS", "maximum-paths covers every equal-cost uplink",
       reads={ROUTING, SESSIONS, TOPOLOGY})
def max_paths(ctx: Context) -> list[Finding]:
    out = []
    for node, ups in ctx.memo(uplinks).items():
        dev = ctx.snap.devices[node[0]]
        inst = dev.bgp.get(node[1])
        if inst is None or len(ups) < 2:
            continue
        paths = maximum_paths(dev, inst)  # without a statement: the platform's default, not 1
        if paths < len(ups):
            said = "maximum-paths" if inst.maximum_paths else f"the {dev.platform} default maximum-paths"
            out.append(finding([node[0]], ctx.topo.node_plane.get(node),
                               f"{node[0]}{' VRF ' + node[1] if node[1] else ''} {said} {paths} with "
                               f"{len(ups)} equal-cost uplinks",
                               "only part of the uplinks carry traffic; the rest of the bandwidth sits idle"))
    return out


@check("ECMP-MULTIPATH-RELAX", "multipath-relax is on wherever equal-cost uplinks have different ASNs",
       reads={ROUTING, SESSIONS, TOPOLOGY})
def multipath_relax(ctx: Context) -> list[Finding]:
    out = []
    for node, ups in ctx.memo(uplinks).items():
        inst = ctx.snap.devices[node[0]].bgp.get(node[1])
        asns = {asn for _, asn in ups}
        if inst is not None and len(asns) > 1 and not inst.multipath_relax:
            out.append(finding([node[0]], ctx.topo.node_plane.get(node),
                               f"{node[0]} uplinks are in {len(asns)} different ASNs but multipath-relax is off",
                               "without it BGP installs one path: no ECMP across the uplinks"))
    return out
