"""Plane isolation: nothing connects, shares, peers, leaks or routes between planes."""

from __future__ import annotations

import ipaddress

import numpy as np

from dualrail_net.verify.address_table import NO_PLANE, keys_in_several_planes
from dualrail_net.verify.checks import BASE, Context, ROUTING, SESSIONS, TOPOLOGY, check, finding
from dualrail_net.verify.controlplane import static_at
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.ipfast import net_str
from dualrail_net.verify.kernelrules import L3MDEV_PRIORITY
from dualrail_net.verify.model import DeviceConfig, KernelLookup, leak_instance, static_kind
from dualrail_net.verify.nopolicy import policy_stops
from dualrail_net.verify.routes import bits, explain_prefix_list, explain_route_map
from dualrail_net.verify.topology import Endpoint

MAX_LEAK_FINDINGS = 50


@check("ISO-CROSS-PLANE-LINK", "no cable or shared subnet joins two planes",
       reads={BASE, TOPOLOGY})
def cross_plane_links(ctx: Context) -> list[Finding]:
    out = []
    why = "a cable or subnet between planes merges their failure domains: one plane's fault reaches the other"
    cables = ctx.cables
    for i, (a, b, listed) in enumerate(zip(cables.a_plane, cables.b_plane, cables.plan.column("plane"))):
        if a == b == listed:
            continue
        if len({p for p in (a, b, listed) if p}) > 1:
            row = cables.plan[i]
            out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                               f"cable {row['a_device']}:{row['a_port']} (plane {a}) - {row['b_device']}:"
                               f"{row['b_port']} (plane {b}) is listed in plane {row['plane']}", why))
    for key, members in subnets_spanning_planes(ctx):
        planes = {p for _, p in members if p}
        out.append(finding(sorted(d for d, _ in members), "",
                           f"subnet {net_str(key)} is shared by planes {', '.join(sorted(planes))} "
                           f"({', '.join(sorted(f'{d} ({p})' for d, p in members))})", why))
    return out


Member = tuple[str, str | None]  # (device or server, the plane its end of the subnet is in)


def subnets_spanning_planes(ctx: Context) -> list[tuple[tuple[int, int], set[Member]]]:
    """Every non-loopback subnet whose members are in more than one plane, with its members, in the
    order its first member appears. Defined plainly by reference.reference_shared_subnets (a loop
    over every endpoint); here the address table's arrays find the subnets with two planes among
    their members and only their members are looked at (the same result, tested)."""
    table = ctx.addresses
    shared = np.flatnonzero(~table.is_loopback & (table.length != 32))
    keys = table.key[shared]
    plane = np.where(table.is_server, table.address_plane, table.owner_plane)[shared]
    two_planes = keys_in_several_planes(keys, plane)
    first: dict[tuple[int, int], Member] = {}
    mixed: dict[tuple[int, int], set[Member]] = {}
    node_plane = ctx.topo.node_plane
    plane_of_net = ctx.snap.plane_of_net
    for i in shared[np.isin(keys, two_planes)].tolist():
        ep = ctx.topo.endpoint(i)
        net = ep.net
        member = (ep.device, plane_of_net(net) if ep.is_server else node_plane.get(ep.node))
        seen = first.get(net)
        if seen is None:
            first[net] = member
        elif net in mixed:
            mixed[net].add(member)
        elif seen[1] != member[1]:
            mixed[net] = {seen, member}
    return [(net, members) for net, members in mixed.items() if len({p for _, p in members if p}) > 1]


@check("ISO-FOREIGN-SUBNET", "every address on a plane's device comes from that plane's pools",
       reads={TOPOLOGY})
def foreign_subnets(ctx: Context) -> list[Finding]:
    out = []
    for i in foreign_subnet_candidates(ctx):
        out += foreign_endpoint(ctx, ctx.topo.endpoint(i))
    return _dedupe(out)


def foreign_subnet_candidates(ctx: Context) -> list[int]:
    """The switch endpoints (indices, in endpoint order) that foreign_endpoint can report: an
    address from another plane's pools than its instance's, or an undeclared instance that mixes
    planes. Every other endpoint gives no finding (reference.reference_foreign runs the logic over
    every endpoint; tested equal)."""
    table = ctx.addresses
    mixing = [i for i, node in enumerate(table.nodes)
              if len(ctx.topo.node_planes_seen.get(node, ())) > 1 and not ctx.snap.plane_of_device(node[0])]
    foreign = ((table.owner_plane != NO_PLANE) & (table.address_plane != NO_PLANE)
               & (table.owner_plane != table.address_plane))
    candidates: list[int] = np.flatnonzero(~table.is_server & (foreign | np.isin(table.node, mixing))).tolist()
    return candidates


def foreign_endpoint(ctx: Context, ep: Endpoint) -> list[Finding]:
    """What ISO-FOREIGN-SUBNET says of one switch endpoint."""
    out = []
    owner_plane = ctx.topo.node_plane.get(ep.node)
    addr_plane = ctx.snap.plane_of_net(ep.net)
    if owner_plane and addr_plane and addr_plane != owner_plane:
        out.append(finding([ep.device], owner_plane,
                           f"{ep.device} {ep.interface} has {ep.address} from plane {addr_plane}'s pools "
                           f"on a plane-{owner_plane} {'VRF ' + ep.vrf if ep.vrf else 'device'}",
                           "an address of another plane on this port makes that plane's prefix live here"))
    seen = ctx.topo.node_planes_seen.get(ep.node, set())
    if len(seen) > 1 and not ctx.snap.plane_of_device(ep.device):
        out.append(finding([ep.device], "",
                           f"{ep.device} VRF {ep.vrf or 'default'} mixes addresses of planes "
                           f"{', '.join(sorted(seen))}", "each plane needs its own VRF on a multi-plane device"))
    return out


@check("ISO-L2-DOMAIN", "no bridge (L2 domain) spans ports of different planes",
       reads={BASE, TOPOLOGY})
def l2_domains(ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    bridges = [(dev, iface) for dev in ctx.snap.devices.values() for iface in dev.interfaces.values()
               if iface.bridge_ports]
    if not bridges:
        return out
    # the plane of the far end of each cabled port
    cables = ctx.cables
    plan = cables.plan
    far_plane = dict(zip(zip(plan.column("a_device"), plan.column("a_port")), cables.b_plane))
    far_plane.update(zip(zip(plan.column("b_device"), plan.column("b_port")), cables.a_plane))
    for dev, iface in bridges:
        planes = set()
        for port in iface.bridge_ports:
            p = far_plane.get((dev.name, port))
            own = dev.interfaces.get(port)
            if own and own.vrf:
                p2 = ctx.topo.node_plane.get((dev.name, own.vrf))
                if p2:
                    planes.add(p2)
            if p:
                planes.add(p)
        if len(planes) > 1:
            out.append(finding([dev.name], "",
                               f"{dev.name} bridge {iface.name} joins ports of planes {', '.join(sorted(planes))}",
                               "a shared L2 domain carries broadcasts, loops and storms across planes"))
    return out


@check("ISO-CROSS-PLANE-BGP", "no BGP session (configured or established) between planes",
       reads={ROUTING, TOPOLOGY})
def cross_plane_bgp(ctx: Context) -> list[Finding]:
    out = []
    topo, st, table = ctx.topo, ctx.topo.statements, ctx.addresses
    # planes as numbers (the address table's): a statement whose address a switch owns takes that
    # switch instance's plane, any other (a server's, nobody's) the plane whose pools hold it
    owner = np.maximum(st.owner, 0)
    by_switch = (st.owner >= 0) & ~table.is_server[owner] if len(topo) else np.zeros(len(st.owner), dtype=np.bool_)
    mine = table.instance_plane[st.node]
    their = np.where(by_switch, table.owner_plane[owner] if len(topo) else NO_PLANE, NO_PLANE)
    suspects = np.flatnonzero((mine != NO_PLANE) & ((their != NO_PLANE) & (their != mine) | ~by_switch))
    for i in suspects.tolist():
        node, addr = topo.nodes[int(st.node[i])], st.address[i]
        mine_name = topo.node_plane.get(node)
        peer = topo.endpoint(int(st.owner[i])) if st.owner[i] >= 0 else None
        their_name = topo.node_plane.get(peer.node) if peer and not peer.is_server else ctx.snap.plane_of_address(addr)
        if mine_name and their_name and mine_name != their_name:
            device, vrf = node
            out.append(finding([device] + ([peer.device] if peer else []), mine_name,
                               f"{device}{' VRF ' + vrf if vrf else ''} (plane {mine_name}) has BGP neighbor "
                               f"{addr}" + (f" on {peer.device}" if peer else "") + f" in plane {their_name}",
                               "a session between planes exchanges their routes"))
    return out


@check("ISO-VRF-LEAK", "no route leaking between the plane VRFs of a multi-plane device",
       reads={ROUTING, TOPOLOGY})
def vrf_leaks(ctx: Context) -> list[Finding]:
    out = []
    for dev in ctx.snap.devices.values():
        for source, target in dev.vrf_route_leaks:
            a = ctx.topo.node_plane.get((dev.name, leak_instance(source)))
            b = ctx.topo.node_plane.get((dev.name, leak_instance(target)))
            exporter, importer = dev.bgp.get(leak_instance(source)), dev.bgp.get(leak_instance(target))
            if (exporter is not None and exporter.vpn_export_map) or (importer is not None and importer.vpn_import_map) \
                    or (source, target) in dev.vrf_leak_maps:
                continue  # a route-map decides what crosses: ISO-ROUTE-LEAK judges each prefix through it
            if a != b or a is None:
                out.append(finding([dev.name], "",
                                   f"{dev.name} imports VRF {source} (plane {a}) into VRF {target} (plane {b})",
                                   "an import between plane VRFs joins the planes' routing tables"))
        # VRFs are kernel routing tables: two VRFs on one table, or a VRF on the main/local table,
        # are one routing table whatever the configs say
        by_table: dict[int, list[str]] = {}
        for vrf, table in dev.vrfs.items():
            if table is not None:
                by_table.setdefault(table, []).append(vrf)
        for table, vrfs in by_table.items():
            shared = vrfs + (["default"] if table in (254, 255) else [])
            if len(shared) > 1:
                out.append(finding([dev.name], "", f"{dev.name}: VRFs {', '.join(shared)} share kernel table {table}",
                                   "one kernel table is one routing table: the VRFs' routes (and planes) mix"))
        for route in dev.static_routes:
            if route.nexthop_vrf and route.nexthop_vrf != route.vrf:
                a = ctx.topo.node_plane.get((dev.name, route.vrf))
                b = ctx.topo.node_plane.get((dev.name, route.nexthop_vrf))
                if a != b or a is None:
                    out.append(finding([dev.name], "",
                                       f"{dev.name} {static_kind(route)} {route.prefix} in VRF {route.vrf or 'default'} "
                                       f"(plane {a}) points into VRF {route.nexthop_vrf} (plane {b})",
                                       "a route of one VRF out of another forwards traffic between planes"))
        for rule in dev.kernel_lookups:
            table_plane = ctx.topo.node_plane.get((dev.name, rule.vrf))
            others = sorted(p for p in lookup_planes(ctx, dev, rule) if p != table_plane) if table_plane else []
            if others:
                out.append(finding([dev.name], "",
                                   f"{ctx.snap.where(dev.name, 'interfaces', rule.line)}: {dev.name} policy rule looks "
                                   f"up VRF {rule.vrf}'s table (plane {table_plane}) for packets of plane "
                                   f"{', '.join(others)}",
                                   "it resolves one plane's packets in another plane's table: what the switch sends "
                                   "itself and what its CPU forwards crosses between planes (switchd programs no "
                                   "policy rule into the ASIC)"))
    return out


def lookup_planes(ctx: Context, dev: DeviceConfig, rule: KernelLookup) -> set[str]:
    """The planes whose packets a `lookup` policy rule of ``dev`` can take: those of every VRF when
    the rule comes before the l3mdev rule (which resolves a VRF's packets in its table), else the
    default VRF's; narrowed by `iif` (a port: its VRF; the VRF's own device: that VRF; `lo`: the
    switch's own packets, of every VRF) and by `from` (the planes whose routed prefixes it
    overlaps). `not` is taken as matching every plane (what it leaves out is not followed); an
    `iif` the routing side knows no port of, as matching none."""
    vrfs: list[str | None] = [*dev.vrfs, None] if rule.priority < L3MDEV_PRIORITY else [None]
    if rule.iif not in (None, "lo") and not rule.invert:
        port = dev.interfaces.get(rule.iif) if rule.iif is not None else None
        owner = rule.iif if rule.iif in dev.vrfs else port.vrf if port is not None else False
        if owner is False:
            return set()
        vrfs = [vrf for vrf in vrfs if vrf == owner]
    planes = {plane for vrf in vrfs if (plane := ctx.topo.node_plane.get((dev.name, vrf)))}
    if rule.source_len and not rule.invert:
        source = ipaddress.IPv4Network((rule.source, rule.source_len))
        planes = {plane for plane in planes if any(source.overlaps(net) for net in ctx.snap.routed.get(plane, []))}
    return planes


@check("ISO-ROUTE-LEAK", "no plane's prefix is advertised to or learned by another plane (computed propagation)",
       reads={ROUTING, SESSIONS, TOPOLOGY})
def route_leaks(ctx: Context) -> list[Finding]:
    routes = ctx.foreign_routes
    idx = routes.index
    foreign: dict[str, int] = {}
    for column in range(len(routes.columns) if routes.columns is not None else len(idx.prefixes)):
        plane = idx.plane[routes.prefix_bit(column)]
        if plane:
            for other in ctx.snap.planes:
                if other != plane:
                    foreign[other] = foreign.get(other, 0) | (1 << column)
    out: list[Finding] = []
    hits = 0
    for node, rib in routes.rib.items():
        plane = ctx.topo.node_plane.get(node)
        if not plane:
            continue
        leaked = rib & foreign.get(plane, 0)
        if not leaked:
            continue
        hits += 1
        if len(out) >= MAX_LEAK_FINDINGS:
            continue
        leaked_bits = bits(leaked)
        first = routes.prefix_bit(leaked_bits[0])
        origin = idx.origin[first]
        own = tuple(origin) == tuple(node)
        # its own statement (a network or redistribution, with or without a route behind it today:
        # ROUTE-DEAD-NETWORK says which) is configured to originate it, not learned
        out.append(finding([node[0], origin[0]], plane,
                           f"{node[0]}{' VRF ' + node[1] if node[1] else ''} (plane {plane}) "
                           + (f"is configured to originate {len(leaked_bits)} prefix(es) of other planes itself, "
                              f"e.g. {idx.prefixes[first]} (plane {idx.plane[first]})" if own else
                              f"learns {len(leaked_bits)} prefix(es) of other planes, e.g. {idx.prefixes[first]} "
                              f"(plane {idx.plane[first]}, originated by {origin[0]})"),
                           "a route from another plane draws traffic across the plane boundary (a statement "
                           "with no route behind it today advertises the prefix as soon as one appears)" if own
                           else "a route from another plane draws traffic across the plane boundary"))
    if hits > MAX_LEAK_FINDINGS:
        out.append(finding([], "", f"... and {hits - MAX_LEAK_FINDINGS} more routing instances "
                           "learn other planes' prefixes", "see the first findings for the source"))
    for dev in ctx.snap.devices.values():
        for route in dev.static_routes:
            if not route.nexthop:
                continue
            mine = ctx.topo.node_plane.get((dev.name, route.vrf))
            dest = ctx.snap.plane_routed(route.prefix)
            via = ctx.snap.plane_of_address(route.nexthop) if route.nexthop[0].isdigit() else None
            for elsewhere in (dest, via):
                if mine and elsewhere and elsewhere != mine:
                    at = f"{static_at(ctx.snap, dev.name, route)}: " if route.line else ""
                    out.append(finding([dev.name], mine,
                                       f"{at}{dev.name} (plane {mine}) has a {static_kind(route)} {route.prefix} via "
                                       f"{route.nexthop} into plane {elsewhere}",
                                       "a route toward another plane forwards traffic across planes"))
                    break
    return out


def _dedupe(found: list[Finding]) -> list[Finding]:
    seen = set()
    out = []
    for f in found:
        key = (f.check, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


@check("ISO-EXTERNAL-POLICY", "a gateway takes nothing of another plane from an external peer of its plane",
       reads={ROUTING})
def external_policy(ctx: Context) -> list[Finding]:
    """The inbound route-map toward each planned external peer, evaluated on every other plane's
    routed prefixes: a peer of plane B that may hand plane A's addresses into B's VRF makes B reach
    them (outside is where the planes would meet). The peer's planned prefixes are the model's
    (BGP-EXTERNAL-DOWN, ROUTE-*); this judges what else the policy would let in."""
    out = []
    why = "what the outside sends in one plane's VRF must never be another plane's address space"
    routed = ctx.snap.manifest.routed_prefixes
    for name, meta in ctx.snap.manifest.devices.items():
        dev = ctx.snap.devices.get(name)
        if not meta.external or dev is None:
            continue
        for address, peer in meta.external.items():
            inst = dev.bgp.get(peer.vrf)
            n = inst.neighbors.get(address) if inst is not None else None
            if inst is None or n is None:
                continue  # no session: BGP-EXTERNAL-DOWN
            where = ctx.snap.where(name, dev.routing_file, n.line)
            if policy_stops(dev, inst, n, "in", peer.asn != inst.asn) is not None:
                continue  # it takes nothing (ebgp-requires-policy, EOS's missing-policy)
            if n.route_map_in is None and n.prefix_list_in is None:
                out.append(finding([name], peer.plane, f"{where}: {name} takes every route from external peer "
                                   f"{peer.name} ({address}) into VRF {peer.vrf}: no route-map in", why))
                continue
            # a neighbor's prefix-list, then its route-map: what both permit is taken
            taken = [prefix for plane, prefixes in routed.items() if plane != peer.plane for prefix in prefixes
                     if (n.prefix_list_in is None or explain_prefix_list(dev, n.prefix_list_in, prefix)[0])
                     and (n.route_map_in is None or explain_route_map(dev, n.route_map_in, prefix)[0])]
            if taken:
                _, line, verdict = (explain_route_map(dev, n.route_map_in, taken[0]) if n.route_map_in is not None
                                    else explain_prefix_list(dev, n.prefix_list_in or "", taken[0]))
                out.append(finding([name], peer.plane,
                                   f"{ctx.snap.where(name, dev.routing_file, line or n.line)}: {name} would take "
                                   f"{', '.join(taken[:4])} (of another plane) from external peer {peer.name} "
                                   f"({address}) into VRF {peer.vrf}: {verdict}", why))
    return out
