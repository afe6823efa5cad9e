"""The control plane of every plane, computed from the parsed configs as the devices would run it.

Per plane: which configured BGP sessions come up for IPv4 unicast (both ends agree on the ASN,
`remote-as external|internal` included; the address family is active on both ends; neither port is
down; IP routing is on), what each routing instance originates (a `network` only while its prefix is
in the RIB as a connected subnet or a usable static route, FRR's and EOS's import check;
redistribution; aggregates while a more specific route exists, `summary-only` suppressing those),
and the BGP RIB every instance ends with: for each prefix, the shortest AS path and the next hops
installed for it (eBGP AS-path loop prevention against the receiver's ASN, each side's route-map
with the platform's semantics incl. undefined names, `ebgp-requires-policy`, multipath only over
the best path's neighbor AS unless `multipath-relax`, and `maximum-paths` with the platform default).

The plan's side (``expected_plane``): the same propagation over the cabling plan's switch links with
no policy, originating what the manifest says each device originates: every planned prefix at every
switch of its plane, over every equal-cost neighbor. checks/routing.py compares the two.

Prefix sets are Python integers used as bitsets (one bit per prefix of the plane), so a level of the
propagation is a few big-int operations per session. Best-path ties between equal paths go to the
lowest router ID (a real device keeps the oldest path; the set of installed next hops is the same).
Not modelled (each reported by CONFIG-UNMODELLED where it appears): route-map `set` actions (AS-path
prepend, local preference ...), iBGP route reflection, VRF leaking inside a plane (the isolation
checks judge leaks between planes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from dualrail_net.platforms import PlatformError, get_platform
from dualrail_net.verify.ipfast import ip_int, net_str, network_of, split_address
from dualrail_net.verify.model import BgpInstance, DeviceConfig, Neighbor
from dualrail_net.verify.routes import PrefixIndex, _route_map_mask
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import _NODE_SHIFT, NodeId, Session, Topology

MAX_LEVELS = 64  # AS paths longer than this are not followed (a Clos fabric needs 4-6)
TRANSIT_ROLES = frozenset({"spine", "super_spine"})


@dataclass(frozen=True)
class SessionState:
    session: Session
    up: bool
    reason: str = ""  # why it does not carry IPv4 routes, with the config line


@dataclass
class PlaneControl:
    """One plane's computed control plane."""

    plane: str
    index: PrefixIndex  # bit i of every set = index.prefixes[i]
    nodes: list[NodeId]
    sessions: list[SessionState]
    origin: dict[NodeId, int]  # what each instance originates
    reach: dict[NodeId, int]  # what each instance has a BGP route for
    via: dict[tuple[NodeId, NodeId], int]  # (receiver, sender) -> prefixes installed over that session
    # why an edge carries less than the sender has: (sender, receiver) -> the mask it applies
    edge_mask: dict[tuple[NodeId, NodeId], int] = field(default_factory=dict)
    path_has_receiver_asn: dict[tuple[NodeId, NodeId], int] = field(default_factory=dict)
    suppressed: dict[NodeId, int] = field(default_factory=dict)  # summary-only: not advertised
    dead_networks: list[tuple[NodeId, str, int]] = field(default_factory=list)  # (node, prefix, line)
    undefined: list[tuple[str, str]] = field(default_factory=list)  # (device, "route-map X")

    def width(self, node: NodeId, bit: int) -> int:
        return sum(1 for (d, _), bits_ in self.via.items() if d == node and bits_ >> bit & 1)


def default_paths(platform: str, overrides: Mapping[str, int] | None = None) -> int:
    if overrides and platform in overrides:
        return overrides[platform]
    try:
        return get_platform(platform).default_maximum_paths
    except PlatformError:
        return 1


def maximum_paths(dev: DeviceConfig, inst: BgpInstance, overrides: Mapping[str, int] | None = None) -> int:
    return inst.maximum_paths or default_paths(dev.platform, overrides)


def requires_policy(dev: DeviceConfig, inst: BgpInstance) -> bool:
    if inst.ebgp_requires_policy is not None:
        return inst.ebgp_requires_policy
    return dev.frr_defaults == "traditional"


def active(inst: BgpInstance, n: Neighbor) -> bool:
    """Whether IPv4 unicast is active toward ``n`` (`activate`, else the instance's default)."""
    return n.activate if n.activate is not None else inst.default_ipv4_unicast


def remote_as_agrees(n: Neighbor, own_asn: int, peer_asn: int) -> bool:
    if n.remote_kind == "external":
        return peer_asn != own_asn
    if n.remote_kind == "internal":
        return peer_asn == own_asn
    return n.remote_asn == peer_asn


def _where(dev_dir: str, dev: DeviceConfig, line: int) -> str:
    return f"{dev_dir}/{dev.routing_file}:{line}" if line else f"{dev_dir}/{dev.routing_file}"


def session_state(snap: Snapshot, topo: Topology, s: Session,
                  with_down_ports: set[str] | None = None) -> SessionState:
    """Whether a configured session comes up and carries IPv4 unicast, and if not, why.
    ``with_down_ports``: the devices that have a port down (None: look at every device)."""
    devices = snap.devices
    for me, peer, nbr_ip, own_asn, peer_asn in ((s.a, s.b, s.a_neighbor, s.a_asn, s.b_asn),
                                                (s.b, s.a, s.b_neighbor, s.b_asn, s.a_asn)):
        dev = devices[me[0]]
        inst = dev.bgp[me[1]]
        n = inst.neighbors[nbr_ip]
        where = _where(_dir(snap, me[0]), dev, n.line)
        if not remote_as_agrees(n, own_asn, peer_asn):
            said = n.remote_kind or n.remote_asn
            return SessionState(s, False, f"{where}: {me[0]} neighbor {nbr_ip} remote-as {said}, but {peer[0]} "
                                          f"is AS {peer_asn}")
        if me[1] in dev.routing_off:
            return SessionState(s, False, f"{_dir(snap, me[0])}/{dev.routing_file}: IP routing is off on "
                                          f"{me[0]}{' VRF ' + me[1] if me[1] else ''} (no `ip routing`)")
        if not active(inst, n):
            return SessionState(s, False, f"{where}: IPv4 unicast is not activated toward {nbr_ip} on {me[0]}"
                                          + ("" if inst.default_ipv4_unicast else
                                             " (`no bgp default ipv4-unicast` without `neighbor ... activate`)"))
    for node, peer_ip in ((s.a, s.b_neighbor), (s.b, s.a_neighbor)):
        if with_down_ports is not None and node[0] not in with_down_ports:
            continue
        # the local port: the endpoint of this instance whose address the peer names
        i = topo.by_ip.get(peer_ip)
        if i is None:
            continue
        ep = topo.endpoint(i)
        iface = devices[node[0]].interfaces.get(ep.interface) if ep.device == node[0] else None
        if iface is not None and iface.down:
            return SessionState(s, False, f"{_dir(snap, node[0])}: port {ep.interface} of {node[0]} is "
                                          f"{'shut down' if iface.down == 'shutdown' else 'a switchport (no `no switchport`), so its IP address is not used'}")
    return SessionState(s, True)


def _dir(snap: Snapshot, device: str) -> str:
    meta = snap.meta(device)
    return meta.dir if meta else device


def connected(snap: Snapshot, topo: Topology, node: NodeId) -> dict[str, str]:
    """The instance's connected subnets (prefix -> interface) of ports that are up."""
    dev = snap.devices.get(node[0])
    out: dict[str, str] = {}
    if dev is None:
        return out
    for ep in topo.endpoints_of(node):
        iface = dev.interfaces.get(ep.interface)
        if iface is not None and not iface.down:
            out.setdefault(net_str(ep.net), ep.interface)
    return out


def static_in_rib(dev: DeviceConfig, vrf: str | None, conn: Mapping[str, str]) -> list[str]:
    """The instance's static routes the device installs: a blackhole always; a next hop only when it
    is on a connected subnet (or names a port that is up) of the VRF."""
    nets = [network_of(p) for p in conn]
    out = []
    for route in dev.static_routes:
        if route.vrf != vrf:
            continue
        if route.nexthop is None:
            out.append(net_str(network_of(route.prefix)))
            continue
        nh = route.nexthop
        if nh in dev.interfaces:
            if not dev.interfaces[nh].down:
                out.append(net_str(network_of(route.prefix)))
            continue
        try:
            value = ip_int(nh)
        except ValueError:
            continue
        if route.nexthop_vrf is not None and route.nexthop_vrf != (vrf or "default"):
            out.append(net_str(network_of(route.prefix)))  # resolved in another VRF: not judged here
            continue
        if any(value & (((1 << length) - 1) << (32 - length) if length else 0) == net for net, length in nets):
            out.append(net_str(network_of(route.prefix)))
    return out


@dataclass
class _Origination:
    prefixes: list[str]
    dead: list[tuple[str, int]]  # network statements without a route in the RIB


class ConnectedIndex:
    """Which instance has which subnet on a port that is up, answered by binary search over the
    topology's columns (a 100k-GPU fabric has 1.2M endpoints; an object per endpoint per question
    cost seconds)."""

    def __init__(self, topo: Topology) -> None:
        keys = (topo.node << _NODE_SHIFT) | (topo.net << 6) | topo.length
        order = np.argsort(keys, kind="stable")
        self.keys, self.endpoints, self.topo = keys[order], order, topo

    def has(self, node: NodeId, prefix: str) -> bool:
        number = self.topo.node_id.get(node)
        if number is None:
            return False
        net, length = network_of(prefix)
        key = (number << _NODE_SHIFT) | (net << 6) | length
        lo, hi = np.searchsorted(self.keys, [key, key + 1])
        topo = self.topo
        return any(not topo.port_iface[int(topo.port[i])].down for i in self.endpoints[lo:hi].tolist())


def originated(snap: Snapshot, topo: Topology, node: NodeId, index: ConnectedIndex | None = None) -> _Origination:
    """What the instance originates: `network` statements whose exact prefix is in its RIB (unless
    `no bgp network import-check`), and what it redistributes."""
    dev = snap.devices[node[0]]
    inst = dev.bgp[node[1]]
    if node[1] in dev.routing_off:
        return _Origination([], [])
    index = index or ConnectedIndex(topo)
    needs_connected = "connected" in inst.redistribute or any(r.nexthop is not None for r in dev.static_routes)
    conn = connected(snap, topo, node) if needs_connected else {}
    statics = static_in_rib(dev, node[1], conn)
    static_set = set(statics)
    out: list[str] = []
    dead: list[tuple[str, int]] = []
    for net in inst.networks:
        canonical = net_str(network_of(net))
        if not inst.network_import_check or canonical in static_set or canonical in conn \
                or (not needs_connected and index.has(node, canonical)):
            out.append(canonical)
        else:
            dead.append((net, inst.network_lines.get(net, 0)))
    if "connected" in inst.redistribute:
        out += list(conn)
    if "static" in inst.redistribute:
        out += statics
    return _Origination(list(dict.fromkeys(out)), dead)


def plane_nodes(snap: Snapshot, topo: Topology, plane: str) -> list[NodeId]:
    return [(dev.name, vrf) for dev in snap.devices.values() for vrf in dev.bgp
            if topo.node_plane.get((dev.name, vrf)) == plane]


def _router_id(inst: BgpInstance) -> int:
    try:
        return ip_int(inst.router_id) if inst.router_id else 1 << 32
    except ValueError:
        return 1 << 32


def compute_plane(snap: Snapshot, topo: Topology, plane: str, extra_prefixes: list[str] = (),  # type: ignore[assignment]
                  path_overrides: Mapping[str, int] | None = None) -> PlaneControl:
    """The control plane of one plane from the configs (module docstring)."""
    nodes = plane_nodes(snap, topo, plane)
    in_plane = set(nodes)
    devices = snap.devices
    index = ConnectedIndex(topo)
    origins = {node: originated(snap, topo, node, index) for node in nodes}
    idx = PrefixIndex()
    for prefix in extra_prefixes:
        idx.add(prefix, ("", None), plane)
    for node, o in origins.items():
        for prefix in o.prefixes:
            idx.add(prefix, node, plane)
        for agg in devices[node[0]].bgp[node[1]].aggregates:
            idx.add(agg.prefix, node, plane)
    idx.freeze()
    bit_of = {p: i for i, p in enumerate(idx.prefixes)}
    full = (1 << len(idx.prefixes)) - 1
    down = {dev.name for dev in devices.values() if any(i.down for i in dev.interfaces.values())}
    states = [session_state(snap, topo, s, down) for s in topo.sessions if s.a in in_plane and s.b in in_plane]
    cache: dict[tuple[object, ...], int] = {}
    undefined: list[tuple[str, str]] = []
    policy: dict[tuple[str, str | None], int] = {}

    def allowed(dev: DeviceConfig, name: str | None) -> int:
        key = (dev.name, name)
        hit = policy.get(key)
        if hit is None:
            hit = policy[key] = _route_map_mask(dev, name, idx, full, cache, undefined)
        return hit

    asn = {node: devices[node[0]].bgp[node[1]].asn for node in nodes}
    edges: dict[NodeId, list[tuple[NodeId, int, bool]]] = defaultdict(list)  # sender -> (receiver, mask, ibgp)
    edge_mask: dict[tuple[NodeId, NodeId], int] = {}
    for st in states:
        if not st.up:
            continue
        s = st.session
        for src, dst, src_nbr, dst_nbr in ((s.a, s.b, s.a_neighbor, s.b_neighbor), (s.b, s.a, s.b_neighbor, s.a_neighbor)):
            src_dev, dst_dev = devices[src[0]], devices[dst[0]]
            src_inst, dst_inst = src_dev.bgp[src[1]], dst_dev.bgp[dst[1]]
            out_nbr, in_nbr = src_inst.neighbors[src_nbr], dst_inst.neighbors[dst_nbr]
            ibgp = asn[src] == asn[dst]
            mask = allowed(src_dev, out_nbr.route_map_out) & allowed(dst_dev, in_nbr.route_map_in)
            if not ibgp and (requires_policy(src_dev, src_inst) and out_nbr.route_map_out is None
                             or requires_policy(dst_dev, dst_inst) and in_nbr.route_map_in is None):
                mask = 0
            edges[src].append((dst, mask, ibgp))
            edge_mask[(src, dst)] = mask
    counts: dict[int, int] = defaultdict(int)
    for node in nodes:
        counts[asn[node]] += 1
    shared = {a for a, c in counts.items() if c > 1}
    rid = {node: _router_id(devices[node[0]].bgp[node[1]]) for node in nodes}
    relax = {node: devices[node[0]].bgp[node[1]].multipath_relax for node in nodes}
    paths_cap = {node: maximum_paths(devices[node[0]], devices[node[0]].bgp[node[1]], path_overrides) for node in nodes}

    origin: dict[NodeId, int] = {}
    for node, o in origins.items():
        origin[node] = sum(1 << bit_of[p] for p in set(o.prefixes))
    dead = [(node, prefix, line) for node, o in origins.items() for prefix, line in o.dead]
    suppressed: dict[NodeId, int] = {}
    result: PlaneControl | None = None
    for _ in range(4):  # aggregates: originate, propagate, repeat while an aggregate appears or goes
        result = _propagate(plane, idx, nodes, states, origin, edges, edge_mask, asn, shared, rid, relax, paths_cap,
                            suppressed)
        changed = False
        for node in nodes:
            inst = devices[node[0]].bgp[node[1]]
            for agg in inst.aggregates:
                bit = bit_of[net_str(network_of(agg.prefix))]
                more = _more_specific(idx, agg.prefix) & result.reach.get(node, 0) & ~(1 << bit)
                want = bool(more)
                has = bool(origin[node] >> bit & 1)
                if want != has:
                    origin[node] ^= 1 << bit
                    changed = True
                if agg.summary_only and more and not suppressed.get(node, 0) & more == more:
                    suppressed[node] = suppressed.get(node, 0) | more
                    changed = True
        if not changed:
            break
    assert result is not None
    result.dead_networks = dead
    result.undefined = sorted(set(undefined))
    result.suppressed = suppressed
    return result


def _more_specific(idx: PrefixIndex, prefix: str) -> int:
    net, length = network_of(prefix)
    mask = 0
    for bit, p in enumerate(idx.prefixes):
        n, plen = network_of(p)
        if plen > length and (n >> (32 - length) if length else 0) == (net >> (32 - length) if length else 0):
            mask |= 1 << bit
    return mask


def path_through(node: NodeId | str, group: frozenset[object], bits_: int,
                 best_from: Mapping[object, Mapping[object, int]]) -> int:
    """Of ``bits_`` (prefixes ``node`` has), those whose path at ``node`` passes through a member of
    ``group``: walked back along the recorded best senders (each prefix has one per node, or, on
    the plan's side, every equal-cost sender). Only asked for prefixes some member already has."""
    if node in group:
        return bits_
    found = 0
    for sender, assigned in best_from.get(node, {}).items():
        part = bits_ & assigned
        if part:
            found |= path_through(sender, group, part, best_from)
    return found


def _propagate(plane: str, idx: PrefixIndex, nodes: list[NodeId], states: list[SessionState],
               origin: dict[NodeId, int], edges: dict[NodeId, list[tuple[NodeId, int, bool]]],
               edge_mask: dict[tuple[NodeId, NodeId], int], asn: dict[NodeId, int], shared: set[int],
               rid: dict[NodeId, int], relax: dict[NodeId, bool], paths_cap: dict[NodeId, int],
               suppressed: dict[NodeId, int]) -> PlaneControl:
    """Level by level (one AS hop per level): every sender offers what it learned at the last
    level; a receiver keeps what it does not have yet. eBGP loop prevention: a receiver whose ASN
    another device shares refuses prefixes whose best path at the sender crosses one of them; that
    is only possible for a prefix some member of the group had before this level, so only those
    are walked back (path_through), which keeps a 100k-GPU plane linear in its sessions."""
    reach = {node: origin.get(node, 0) for node in nodes}
    members: dict[int, list[NodeId]] = defaultdict(list)
    for node in nodes:
        if asn[node] in shared:
            members[asn[node]].append(node)
    group_of = {a: frozenset(m) for a, m in members.items()}
    best_from: dict[NodeId, dict[NodeId, int]] = defaultdict(dict)
    ibgp_learned: dict[NodeId, int] = defaultdict(int)
    via: dict[tuple[NodeId, NodeId], int] = {}
    loop_dropped: dict[tuple[NodeId, NodeId], int] = {}
    frontier = {node: bits_ for node, bits_ in reach.items() if bits_}
    for _level in range(MAX_LEVELS):
        if not frontier:
            break
        group_reach = {a: _or(reach[m] for m in group) for a, group in group_of.items()}
        offers: dict[NodeId, list[tuple[NodeId, int]]] = defaultdict(list)
        for src, have in frontier.items():
            send = have & ~suppressed[src] if src in suppressed else have
            for dst, mask, ibgp in edges.get(src, ()):
                offer = send & mask & ~reach[dst]
                if not offer:
                    continue
                if ibgp:
                    offer &= ~ibgp_learned[src]  # iBGP split horizon
                else:
                    a = asn[dst]
                    if a == asn[src]:
                        offer = 0
                    elif a in group_of:
                        candidates = offer & group_reach[a]
                        if candidates:
                            looped = path_through(src, group_of[a], candidates, best_from)
                            if looped:
                                loop_dropped[(src, dst)] = loop_dropped.get((src, dst), 0) | looped
                                offer &= ~looped
                if offer:
                    offers[dst].append((src, offer))
        frontier = {}
        for dst, senders in offers.items():
            if len(senders) > 1:
                senders.sort(key=lambda item: rid[item[0]])
            assigned = 0
            best_group: dict[int, int] = {}
            chosen = best_from[dst]
            for src, offer in senders:
                take = offer & ~assigned
                if not take:
                    continue
                best_group[asn[src]] = best_group.get(asn[src], 0) | take
                chosen[src] = chosen.get(src, 0) | take
                assigned |= take
            installed: list[tuple[NodeId, int]] = []
            for src, offer in senders:
                bits_ = offer if relax[dst] else offer & best_group.get(asn[src], 0)
                if asn[src] == asn[dst]:
                    ibgp_learned[dst] |= bits_
                installed.append((src, bits_))
            _cap(installed, paths_cap[dst])
            for src, bits_ in installed:
                if bits_:
                    key = (dst, src)
                    via[key] = via.get(key, 0) | bits_
            reach[dst] |= assigned
            frontier[dst] = assigned
    return PlaneControl(plane, idx, nodes, states, dict(origin), reach, via, dict(edge_mask), loop_dropped)


def _or(values: Iterable[int]) -> int:
    out = 0
    for v in values:
        out |= v
    return out


def _cap(installed: list[tuple[NodeId, int]], cap: int) -> None:
    """At most ``cap`` next hops per prefix, best first (the list is in tie-break order)."""
    if len([1 for _, b in installed if b]) <= cap:
        return
    counts: dict[int, int] = defaultdict(int)
    for i, (src, bits_) in enumerate(installed):
        keep = 0
        rest = bits_
        while rest:
            low = rest & -rest
            bit = low.bit_length() - 1
            if counts[bit] < cap:
                counts[bit] += 1
                keep |= low
            rest ^= low
        installed[i] = (src, keep)


# --- the plan's side -------------------------------------------------------------------------------

@dataclass
class PlanePlan:
    """What the plan says one plane's control plane must be (sets over the same bits as the
    computed PlaneControl's index)."""

    plane: str
    nodes: list[str]  # devices of the plane that run BGP in it
    origin: dict[str, int]  # device -> the prefixes it originates
    reach: dict[str, int]  # device -> every prefix it must have
    via: dict[tuple[str, str], int]  # (receiver, sender) -> prefixes expected over that link


def planned_prefixes(snap: Snapshot, plane: str) -> list[str]:
    return [net_str(network_of(p)) for meta in snap.manifest.devices.values() for p in meta.originates.get(plane, [])]


def expected_plane(snap: Snapshot, plane: str, bit_of: Mapping[str, int]) -> PlanePlan:
    """Shortest paths over the cabling plan's switch-to-switch links of the plane, every equal-cost
    neighbor a next hop, no policy: what the fabric is designed to do."""
    manifest = snap.manifest
    nodes = [name for name, meta in manifest.devices.items() if plane in (meta.planes or [meta.plane])]
    in_plane = set(nodes)
    links: dict[str, dict[str, None]] = defaultdict(dict)  # ordered sets: findings come in plan order
    plan = snap.cabling
    for a, b, row_plane in zip(plan.column("a_device"), plan.column("b_device"), plan.column("plane")):
        if row_plane == plane and a in in_plane and b in in_plane and a != b:
            links[a][b] = None
            links[b][a] = None
    origin = {name: sum(1 << bit_of[net_str(network_of(p))]
                        for p in set(manifest.devices[name].originates.get(plane, []))) for name in nodes}
    reach = dict(origin)
    via: dict[tuple[str, str], int] = defaultdict(int)
    # valley-free: leaves and gateways advertise only their own prefixes (the plan's LOCAL-*-OUT
    # policy); only spines and super-spines pass routes on
    transit = {name for name in nodes if manifest.devices[name].role in TRANSIT_ROLES}
    # eBGP loop prevention with the planned ASNs: a device never takes a path through its own ASN
    # (super-spines sharing one ASN do not learn each other's loopbacks, by design)
    asn = {name: manifest.devices[name].asn for name in nodes}
    members: dict[int, list[str]] = defaultdict(list)
    for name in nodes:
        if asn[name]:
            members[asn[name]].append(name)
    group_of = {a: frozenset(m) for a, m in members.items() if len(m) > 1}
    senders_of: dict[str, dict[str, int]] = defaultdict(dict)  # every equal-cost sender, per prefix
    frontier = {name: bits_ for name, bits_ in origin.items() if bits_}
    while frontier:
        group_reach = {a: _or(reach[m] for m in group) for a, group in group_of.items()}
        offers: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for src, have in frontier.items():
            if src not in transit and have != origin[src]:
                have &= origin[src]
            for dst in links.get(src, ()):
                new = have & ~reach[dst]
                a = asn[dst]
                if new and a in group_of and new & group_reach[a]:
                    new &= ~path_through(src, group_of[a], new & group_reach[a], senders_of)
                if new:
                    offers[dst].append((src, new))
        frontier = {}
        for dst, senders in offers.items():
            gained = 0
            chosen = senders_of[dst]
            for src, new in senders:
                via[(dst, src)] |= new
                chosen[src] = chosen.get(src, 0) | new
                gained |= new
            reach[dst] |= gained
            frontier[dst] = gained
    return PlanePlan(plane, nodes, origin, reach, dict(via))


def instance_of(topo: Topology, snap: Snapshot, device: str, plane: str) -> NodeId | None:
    """The routing instance of ``device`` that serves ``plane`` (None: it runs no BGP there)."""
    dev = snap.devices.get(device)
    if dev is None:
        return None
    for vrf in dev.bgp:
        if topo.node_plane.get((device, vrf)) == plane:
            return (device, vrf)
    return None


def split_ip(address: str) -> str:
    return split_address(address)[0]
