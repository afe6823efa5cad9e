"""BGP: both ends agree on addresses and ASNs, and every cabled switch pair has its session."""

from __future__ import annotations

from collections import defaultdict

from dualrail_net.manifest import DeviceEntry
from dualrail_net.verify.checks import Context, ROUTING, SESSIONS, TOPOLOGY, check, finding, port_interfaces
from dualrail_net.verify.controlplane import remote_as_agrees
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.model import neighbor_named


@check("BGP-PEER-MISMATCH", "both ends of every session agree on each other's ASN",
       reads={ROUTING, SESSIONS, TOPOLOGY})
def peer_mismatch(ctx: Context) -> list[Finding]:
    out = []
    why = "a remote-as that does not match the peer's ASN keeps the session down"
    devices = ctx.snap.devices
    for s in ctx.topo.sessions:
        for me, peer, said, actual, nbr, own, back in (
                (s.a, s.b, s.a_remote_as, s.b_asn, s.a_neighbor, s.a_asn, s.b_neighbor),
                (s.b, s.a, s.b_remote_as, s.a_asn, s.b_neighbor, s.b_asn, s.a_neighbor)):
            if said == actual or said is not None and said == devices[peer[0]].bgp[peer[1]].neighbors[back].local_as:
                continue  # (the peer presents that ASN to it: `local-as`)
            neighbor = devices[me[0]].bgp[me[1]].neighbors[nbr]
            if not remote_as_agrees(neighbor, own, actual):  # `remote-as external|internal` included
                out.append(finding([me[0], peer[0]], ctx.topo.node_plane.get(me),
                                   f"{me[0]} {neighbor_named(neighbor)} remote-as {neighbor.remote_kind or said} but {peer[0]} "
                                   f"is AS {actual}" + (f" (its own AS is {own})" if neighbor.remote_kind else ""),
                                   why))
    return out


@check("BGP-ONE-SIDED", "every configured neighbor is configured back by a device on a shared subnet",
       reads={ROUTING, SESSIONS, TOPOLOGY})
def one_sided(ctx: Context) -> list[Finding]:
    devices = ctx.snap.manifest.devices
    return [finding([node[0]], ctx.topo.node_plane.get(node),
                    f"{node[0]}{' VRF ' + node[1] if node[1] else ''} neighbor {addr}: {reason}",
                    "a half-configured session never establishes")
            for node, addr, reason in ctx.topo.one_sided
            if not _planned_external(devices.get(node[0]), node[1], addr)]


def _planned_external(meta: DeviceEntry | None, vrf: str | None, address: str) -> bool:
    """A gateway's planned external peer (outside the fabric: its other end is not rendered here;
    BGP-EXTERNAL-DOWN judges it)."""
    peer = meta.external.get(address) if meta is not None else None
    return peer is not None and peer.vrf == vrf


@check("BGP-SESSION-MISSING", "every switch-to-switch cable in the cabling plan carries a BGP session",
       reads={ROUTING, SESSIONS, TOPOLOGY})
def session_missing(ctx: Context) -> list[Finding]:
    # the other end's address of each session address: one session per address but for broken
    # configs (those go to `more`); no 1.2M tuples of a set of pairs
    partner: dict[str, str] = {}
    more: dict[str, set[str]] = {}
    unnumbered: set[tuple[str, str]] = set()  # (device, port) of every unnumbered session's end
    for s in ctx.topo.sessions:
        if ctx.snap.devices[s.a[0]].bgp[s.a[1]].neighbors[s.a_neighbor].interface:
            unnumbered.update(((s.a[0], s.a_neighbor), (s.b[0], s.b_neighbor)))
            continue
        a, b = s.a_neighbor, s.b_neighbor
        if partner.setdefault(a, b) != b:
            more.setdefault(a, set()).add(b)
        if partner.setdefault(b, a) != a:
            more.setdefault(b, set()).add(a)
    devices, plan = ctx.snap.devices, ctx.snap.cabling
    out = []
    # its own port lookups, not Context.cables: this check runs with the BGP checks, in a process
    # that need not build the cable table at all
    a_ports, b_ports = plan.column("a_port"), plan.column("b_port")
    a_ends = port_interfaces(devices, plan.column("a_device"), a_ports)
    b_ends = port_interfaces(devices, plan.column("b_device"), b_ports)
    a_devices = plan.column("a_device")
    for i, (a_if, b_if) in enumerate(zip(a_ends, b_ends)):
        if not (a_if and b_if and a_if.addresses and b_if.addresses):
            continue  # not two switch ports; ADDR-P2P-MISMATCH reports missing addresses
        if unnumbered and (a_devices[i], a_ports[i]) in unnumbered:
            continue
        a_ip, b_ip = a_if.addresses[0].partition("/")[0], b_if.addresses[0].partition("/")[0]
        if partner.get(a_ip) != b_ip and b_ip not in more.get(a_ip, ()):
            row = plan[i]
            out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                               f"no BGP session on {row['a_device']}:{a_ports[i]} - {row['b_device']}:{b_ports[i]}",
                               "a cabled uplink without a session is capacity the fabric never uses"))
    return out


@check("BGP-ROUTER-ID-DUP", "router IDs are unique within a plane",
       reads={ROUTING, TOPOLOGY})
def router_id_dup(ctx: Context) -> list[Finding]:
    seen: dict[tuple[str | None, str], list[str]] = defaultdict(list)
    for dev in ctx.snap.devices.values():
        for vrf, inst in dev.bgp.items():
            if inst.router_id:
                seen[(ctx.topo.node_plane.get((dev.name, vrf)), inst.router_id)].append(
                    f"{dev.name}{'/' + vrf if vrf else ''}")
    return [finding([n.split("/")[0] for n in names], plane,
                    f"router-id {rid} is used by {', '.join(names)}", "duplicate router IDs break best-path selection")
            for (plane, rid), names in seen.items() if len(names) > 1]


@check("BGP-ASN-PLAN", "every device runs BGP, in each plane, as the AS the plan gives it",
       reads={ROUTING, TOPOLOGY})
def asn_plan(ctx: Context) -> list[Finding]:
    """The plan's ASNs are part of the design: eBGP loop prevention is what keeps a leaf's routes
    from coming back through another leaf, and the audit and the next render hold the devices to
    them. An AS changed by hand on a device and on every peer of it alike keeps the sessions up and
    the routes flowing (the routing checks judge that, on the files' own ASNs), so it is a warning,
    not an error: the file no longer says what the plan does, and nothing else would say so."""
    out = []
    planned = ctx.snap.manifest.devices
    for dev in ctx.snap.devices.values():
        meta = planned.get(dev.name)
        if meta is None or not meta.asn:
            continue  # a device the plan gives no AS (nothing to hold it to)
        for vrf, inst in dev.bgp.items():
            plane = ctx.topo.node_plane.get((dev.name, vrf))
            if plane is None or inst.asn == meta.asn:
                continue  # an instance in no plane (a management VRF's, say) is not the plan's
            out.append(finding([dev.name], plane,
                               f"{ctx.snap.where(dev.name, dev.routing_file, inst.line)}: {dev.name}"
                               f"{' VRF ' + vrf if vrf else ''} runs BGP as AS {inst.asn}; the plan gives it "
                               f"AS {meta.asn}",
                               "the file and the plan disagree on the device's AS: loop prevention no longer "
                               "follows the design, and the next render from the inventory changes the AS "
                               "back on one device at a time (its sessions drop until its peers follow)",
                               severity=Severity.WARNING))
    return out


@check("BGP-CONFIG-REFUSED", "the routing daemon accepts every statement of the file it loads",
       reads={ROUTING, TOPOLOGY})
def config_refused(ctx: Context) -> list[Finding]:
    # FRR's parser (vtysh --dryrun) takes these lines; bgpd refuses them when it applies them
    # (`route-reflector-client` on an eBGP neighbor): the line is not applied and the load fails
    out = []
    for dev in ctx.snap.devices.values():
        refused = [(vrf, line, statement, reason, "bgpd") for vrf, inst in dev.bgp.items()
                   for line, statement, reason in inst.refused]
        # lines FRR's reader refuses before any daemon sees them (an ambiguous abbreviation)
        refused += [(None, line, statement, reason, "FRR") for line, statement, reason in dev.refused_lines]
        for vrf, line, statement, reason, who in refused:
            out.append(finding([dev.name], ctx.topo.node_plane.get((dev.name, vrf)),
                               f"{ctx.snap.where(dev.name, dev.routing_file, line)}: {who} refuses "
                               f"`{statement}` ({reason})",
                               "the statement is not applied, and loading the file fails on it "
                               "(vtysh -b exits non-zero, frr-reload.py stops): the push fails"))
    return out


@check("BGP-SECRET", "no BGP session password is written into a rendered file as its value: each names it "
       "as ${secret:NAME}", reads={ROUTING, TOPOLOGY})
def bgp_secret(ctx: Context) -> list[Finding]:
    """The renderer writes no session password; one a hand edit adds must name a secret (the push
    fills it in from the secrets file, as it does the management credentials MGMT-SECRET holds to).
    A value written into frr.conf, startup.yaml or running-config (EOS's type-7 form too: anyone
    can reverse it) is a TCP MD5 key in the repository's history."""
    out = []
    for dev in ctx.snap.devices.values():
        for vrf, inst in dev.bgp.items():
            for line in inst.literal_passwords:
                out.append(finding([dev.name], ctx.topo.node_plane.get((dev.name, vrf)),
                                   f"{ctx.snap.where(dev.name, dev.routing_file, line)}: a BGP session password is "
                                   "written as a value, not as ${secret:NAME}",
                                   "the rendered files are committed: the session's key is now in the "
                                   "repository's history; keep it in the secrets file and name it"))
    return out
