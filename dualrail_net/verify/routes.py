"""Which prefixes each routing instance would learn, computed from the parsed configs.

Routes spread over the BGP sessions that would come up, through each side's route-map (out on the
sender, in on the receiver; a missing route-map permits, an undefined one denies, as FRR does),
and across VRFs of one device wherever the config imports or leaks between them. AS-path loop
prevention is ignored, which can only add routes: for an isolation check this errs on the side of
reporting. Sets of prefixes are Python integers used as bitsets, so a 100k-GPU fabric stays cheap.
"""

from __future__ import annotations

import bisect
from collections import defaultdict, deque
from dataclasses import dataclass, field

from dualrail_net.verify.aspaths import list_permits
from dualrail_net.verify.ipfast import net_str, network_of
from dualrail_net.verify.model import ORIGIN_CODES, DeviceConfig, PrefixListEntry, RouteMapEntry, leak_instance, list_label
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import NodeId, Topology


@dataclass
class PrefixIndex:
    prefixes: list[str] = field(default_factory=list)
    origin: list[NodeId] = field(default_factory=list)
    plane: list[str | None] = field(default_factory=list)
    _pos: dict[str, int] = field(default_factory=dict)
    _sorted: list[tuple[int, int, int]] = field(default_factory=list)  # (network, prefixlen, bit)
    _keys: list[int] = field(default_factory=list)

    def add(self, prefix: str, origin: NodeId, plane: str | None) -> int:
        net = net_str(network_of(prefix))
        if net in self._pos:
            return self._pos[net]
        self._pos[net] = len(self.prefixes)
        self.prefixes.append(net)
        self.origin.append(origin)
        self.plane.append(plane)
        return self._pos[net]

    def bit(self, prefix: str) -> int | None:
        """The bit of a prefix in its canonical form (net_str(network_of(...))); None: not indexed."""
        return self._pos.get(prefix)

    def freeze(self) -> None:
        rows = []
        for bit, p in enumerate(self.prefixes):
            net, length = network_of(p)
            rows.append((net, length, bit))
        rows.sort()
        self._sorted = rows
        self._keys = [r[0] for r in rows]

    def more_specific(self, prefix: str) -> int:
        """Bitset of indexed prefixes strictly inside ``prefix`` (an aggregate's contributors): a
        range of the sorted rows, as controlplane.more_specific_plain finds them by a scan."""
        if len(self._keys) != len(self.prefixes):
            self.freeze()
        lo, length = network_of(prefix)
        hi = lo + (1 << (32 - length)) - 1
        mask = 0
        for _, plen, bit in self._sorted[bisect.bisect_left(self._keys, lo):bisect.bisect_right(self._keys, hi)]:
            if plen > length:
                mask |= 1 << bit
        return mask

    def matching(self, entry: PrefixListEntry) -> int:
        """Bitset of indexed prefixes an ip prefix-list entry matches."""
        lo, entry_len = network_of(entry.prefix)
        hi = lo + (1 << (32 - entry_len)) - 1
        if entry.ge is None and entry.le is None:
            min_len = max_len = entry_len
        else:
            min_len = entry.ge if entry.ge is not None else entry_len
            max_len = entry.le if entry.le is not None else 32
        mask = 0
        start = bisect.bisect_left(self._keys, lo)
        end = bisect.bisect_right(self._keys, hi)
        for addr, plen, bit in self._sorted[start:end]:
            if min_len <= plen <= max_len and plen >= entry_len and addr + (1 << (32 - plen)) - 1 <= hi:
                mask |= 1 << bit
        return mask


@dataclass
class RouteResult:
    index: PrefixIndex
    rib: dict[NodeId, int]
    undefined_refs: list[tuple[str, str]]  # (device, name)
    # bit i of a rib value stands for prefix columns[i] of the index (None: the identity)
    columns: list[int] | None = None

    def prefix_bit(self, column: int) -> int:
        return column if self.columns is None else self.columns[column]


def _route_map_mask(dev: DeviceConfig, name: str | None, idx: PrefixIndex, full: int,
                    cache: dict[tuple[object, ...], int], undefined: list[tuple[str, str]]) -> int:
    if name is None:
        return full
    entries = dev.route_maps.get(name)
    if entries is None:
        undefined.append((dev.name, f"route-map {name}"))
        return 0
    if has_flow(entries):  # (what it calls is another map: not in the signature below)
        return _evaluate(dev, entries, idx, full, undefined)[0]
    signature = tuple((e.seq, e.action, tuple((pl, tuple((x.seq, x.action, x.prefix, x.ge, x.le)
                                                          for x in dev.prefix_lists.get(pl, []))
                                               if pl in dev.prefix_lists else (pl, None))
                                              for pl in e.match_prefix_lists), e.never_line)
                      for e in entries)
    if signature in cache:
        return cache[signature]
    permitted, _ = _evaluate(dev, entries, idx, full, undefined)
    cache[signature] = permitted
    return permitted


def route_map_prepends(dev: DeviceConfig, name: str | None, idx: PrefixIndex, full: int,
                       undefined: list[tuple[str, str]]) -> list[tuple[RouteMapEntry, int]]:
    """The permit entries of a route-map that prepend to the AS path, each with the prefixes it
    decides (first match wins, as in the mask above)."""
    entries = dev.route_maps.get(name) if name is not None else None
    if not entries or not any(e.prepend or e.call is not None for e in entries):  # (a called map may set it)
        return []
    return [(e, hit) for e, hit in _evaluate(dev, entries, idx, full, undefined)[1] if e.prepend]


def route_map_attributes(dev: DeviceConfig, name: str | None, idx: PrefixIndex, full: int,
                         undefined: list[tuple[str, str]]) -> list[tuple[RouteMapEntry, int]]:
    """The permit entries of a route-map that set local preference, weight or MED, each with the
    prefixes it decides."""
    entries = dev.route_maps.get(name) if name is not None else None
    if not entries or not any(_sets_attribute(e) or e.call is not None for e in entries):  # (a called map may set it)
        return []
    return [(e, hit) for e, hit in _evaluate(dev, entries, idx, full, undefined)[1] if _sets_attribute(e)]


def route_map_next_hops(dev: DeviceConfig, name: str | None, idx: PrefixIndex, full: int,
                        undefined: list[tuple[str, str]]) -> list[tuple[RouteMapEntry, int]]:
    """The permit entries of a route-map that set the next hop, each with the prefixes it decides."""
    entries = dev.route_maps.get(name) if name is not None else None
    if not entries or not any(e.next_hop or e.call is not None for e in entries):  # (a called map may set it)
        return []
    return [(e, hit) for e, hit in _evaluate(dev, entries, idx, full, undefined)[1] if e.next_hop]


def prefix_list_mask(dev: DeviceConfig, name: str | None, idx: PrefixIndex, full: int,
                     undefined: list[tuple[str, str]]) -> int:
    """What a neighbor's `prefix-list NAME in|out` lets through (every prefix without one; none
    through an undefined list)."""
    if name is None:
        return full
    return _entry_matches(dev, RouteMapEntry(0, "permit", [name]), idx, full, undefined)


def explain_prefix_list(dev: DeviceConfig, name: str, prefix: str) -> tuple[bool, int, str]:
    """One prefix through one prefix-list (a plain reference of prefix_list_mask): (permitted,
    the line that decided, why)."""
    entries = dev.prefix_lists.get(name)
    if entries is None:
        return False, 0, f"{list_label(name)} is not defined (an undefined list denies everything)"
    net, length = network_of(prefix)
    for e in sorted(entries, key=lambda x: x.seq):
        e_net, e_len = network_of(e.prefix)
        lo = e.ge if e.ge is not None else e_len
        hi = e.le if e.le is not None else 32 if e.ge is not None else e_len
        inside = length >= e_len and (net >> (32 - e_len) if e_len else 0) == (e_net >> (32 - e_len) if e_len else 0)
        if inside and lo <= length <= hi:
            return e.action == "permit", e.line, f"{list_label(name)} seq {e.seq} {'permits' if e.action == 'permit' else 'denies'} it"
    return False, entries[0].line if entries else 0, f"no entry of {list_label(name)} matches it (implicit deny)"


def _sets_attribute(entry: RouteMapEntry) -> bool:
    return entry.local_pref is not None or entry.weight is not None or entry.med is not None


def _sets_something(entry: RouteMapEntry) -> bool:
    return bool(entry.prepend or _sets_attribute(entry) or entry.next_hop or entry.community_set is not None)


def adjusted(value: int, delta: int) -> int:
    """bgpd's route_value_adjust for `set metric|local-preference +N|-N`: added, clamped to 0 and
    4294967295."""
    return max(0, min(4294967295, value + delta))


def has_flow(entries: list[RouteMapEntry]) -> bool:
    """Whether a route-map uses FRR's flow control (`on-match`, `continue N`, `call`)."""
    return any(e.exit_policy != "exit" or e.call is not None for e in entries)


# bgpd's RMAP_RECURSION_LIMIT: a chain of `call`s deeper than this denies the route
CALL_DEPTH = 10


def merge_sets(before: RouteMapEntry | None, entry: RouteMapEntry) -> RouteMapEntry:
    """What a route carries after ``entry``'s sets are applied on top of ``before``'s (entries an
    `on-match` chain or a `call` went through): each attribute the later one sets wins; prepends add
    up, the later one's ASNs in front. The result is ``entry`` itself when nothing came before."""
    if before is None:
        return entry
    merged = RouteMapEntry(entry.seq, "permit", line=entry.line)
    merged.prepend = entry.prepend + before.prepend
    merged.prepend_last_as = entry.prepend_last_as + before.prepend_last_as
    merged.prepend_line = entry.prepend_line or before.prepend_line
    merged.local_pref = before.local_pref if entry.local_pref is None else entry.local_pref
    merged.weight = before.weight if entry.weight is None else entry.weight
    merged.med = before.med if entry.med is None else entry.med
    merged.attribute_lines = {**before.attribute_lines, **entry.attribute_lines}
    # a relative set after an absolute one adds to it; an absolute one after a relative one replaces it
    merged.deltas = {k: v for k, v in before.deltas.items() if k not in entry.attribute_lines}
    for kind, (delta, line) in entry.deltas.items():
        absolute = merged.med if kind == "metric" else merged.local_pref
        if absolute is not None:
            setattr(merged, "med" if kind == "metric" else "local_pref", adjusted(absolute, delta))
        else:
            merged.deltas[kind] = (merged.deltas.get(kind, (0, 0))[0] + delta, line)
    merged.next_hop, merged.next_hop_line = (entry.next_hop, entry.next_hop_line) if entry.next_hop else \
        (before.next_hop, before.next_hop_line)
    merged.src = entry.src or before.src
    merged.origin, merged.origin_line = (entry.origin, entry.origin_line) if entry.origin is not None else \
        (before.origin, before.origin_line)
    merged.sets_community_line = entry.sets_community_line or before.sets_community_line
    if entry.community_set is None:
        merged.community_set, merged.community_additive = before.community_set, before.community_additive
    elif entry.community_additive and before.community_set is not None:
        merged.community_set = tuple(sorted(set(before.community_set) | set(entry.community_set)))
        merged.community_additive = before.community_additive
    else:
        merged.community_set, merged.community_additive = entry.community_set, entry.community_additive
    return merged


def route_map_communities(dev: DeviceConfig, name: str | None, idx: PrefixIndex, full: int,
                          undefined: list[tuple[str, str]]) -> list[tuple[RouteMapEntry, int]]:
    """The permit entries of a route-map that set communities (`set community`), each with the
    prefixes it decides."""
    entries = dev.route_maps.get(name) if name is not None else None
    if not entries or not any(e.community_set is not None or e.call is not None for e in entries):
        return []
    return [(e, hit) for e, hit in _evaluate(dev, entries, idx, full, undefined)[1] if e.community_set is not None]


def _flow_evaluate(dev: DeviceConfig, entries: list[RouteMapEntry], idx: PrefixIndex, full: int,
                   undefined: list[tuple[str, str]], depth: int = 0) -> tuple[int, list[tuple[RouteMapEntry, int]]]:
    """``_evaluate`` for a route-map with flow control, over sets of prefixes, as bgpd's
    route_map_apply_ext runs it for one route: the first entry that matches is where it starts; a
    permit entry that matches applies its sets (and calls its `call` map, whose deny ends it), then
    ends it (permit) or goes on (`on-match next`: the next entry; `goto N`: the first of seq >= N,
    none: permit); a deny entry that matches ends it (deny); an entry that does not match leaves the
    result "deny" until a later permit entry matches, and what falls off the end leaves with that
    result. Each group of prefixes that takes the same way carries the sets merged along it."""
    ordered = sorted(entries, key=lambda e: e.seq)
    matches = [_entry_matches(dev, e, idx, full, undefined) for e in ordered]
    permitted = 0
    acting: list[tuple[RouteMapEntry, int]] = []

    def finish(mask: int, carried: RouteMapEntry | None) -> None:
        nonlocal permitted
        permitted |= mask
        if carried is not None and _sets_something(carried):
            acting.append((carried, mask))

    def go_on(i: int, mask: int, carried: RouteMapEntry) -> None:
        """After permit entry ``i`` matched ``mask`` and its sets (and call) were applied."""
        policy = ordered[i].exit_policy
        if policy == "exit":
            finish(mask, carried)
            return
        k = i + 1
        if policy == "goto":
            while k < len(ordered) and ordered[k].seq < ordered[i].goto_seq:
                k += 1
            if k == len(ordered):
                finish(mask, carried)
                return
        walk(k, mask, True, carried, False)

    def walk(i: int, mask: int, permit: bool, carried: RouteMapEntry | None, known: bool) -> None:
        while mask and i < len(ordered):
            entry = ordered[i]
            hit = mask if known else mask & matches[i]
            known = False
            missed = mask & ~hit
            if missed:
                walk(i + 1, missed, False, carried, False)  # no match: "deny" until a permit matches
            if not hit or entry.action == "deny":
                return
            after = merge_sets(carried, entry)
            if entry.call is None:
                go_on(i, hit, after)
                return
            called = dev.route_maps.get(entry.call)
            if called is None:  # a map nobody defines: bgpd goes on as without the call
                go_on(i, hit, after)
                return
            if depth + 1 > CALL_DEPTH:
                return  # bgpd's recursion limit: denied
            through, sets = _flow_evaluate(dev, called, idx, full, undefined, depth + 1) if has_flow(called) \
                else _evaluate(dev, called, idx, full, undefined)
            hit &= through  # what the called map denies ends here, denied
            for called_sets, bits in sets:
                if hit & bits:
                    go_on(i, hit & bits, merge_sets(after, called_sets))
                    hit &= ~bits
            if hit:
                go_on(i, hit, after)
            return
        if mask and permit:
            finish(mask, carried)

    remaining = full
    for i, matched in enumerate(matches):
        first = matched & remaining
        remaining &= ~first
        if first:
            walk(i, first, True, None, True)
    return permitted, acting


def _evaluate(dev: DeviceConfig, entries: list[RouteMapEntry], idx: PrefixIndex, full: int,
              undefined: list[tuple[str, str]]) -> tuple[int, list[tuple[RouteMapEntry, int]]]:
    """(what the route-map permits, its permit entries that set something with the prefixes each
    decides; with flow control, the sets merged along each way: ``_flow_evaluate``)."""
    if has_flow(entries):
        return _flow_evaluate(dev, entries, idx, full, undefined)
    remaining = full
    permitted = 0
    acting: list[tuple[RouteMapEntry, int]] = []
    for entry in sorted(entries, key=lambda e: e.seq):
        matched = _entry_matches(dev, entry, idx, full, undefined)
        hit = matched & remaining
        if entry.action == "permit":
            permitted |= hit
            if hit and _sets_something(entry):
                acting.append((entry, hit))
        remaining &= ~hit
    return permitted, acting


def _entry_matches(dev: DeviceConfig, entry: RouteMapEntry, idx: PrefixIndex, full: int,
                   undefined: list[tuple[str, str]]) -> int:
    if entry.never_line:
        return 0  # a match on a list the device does not define (community, AS path, access list, next hops)
    if not entry.match_prefix_lists:
        return full
    matched = full
    for pl_name in entry.match_prefix_lists:
        pl = dev.prefix_lists.get(pl_name)
        if pl is None:
            undefined.append((dev.name, list_label(pl_name)))
            return 0
        remaining = full
        permitted = 0
        for e in sorted(pl, key=lambda x: x.seq):
            hit = idx.matching(e) & remaining
            if e.action == "permit":
                permitted |= hit
            remaining &= ~hit
        matched &= permitted
    return matched


def prefix_index(snap: Snapshot, topo: Topology) -> tuple[PrefixIndex, dict[NodeId, list[int]]]:
    """Every originated prefix (bits grouped by plane, so a plane is one contiguous block of bits)
    and, per routing instance, the bits it originates."""
    rows: list[tuple[str, NodeId, str | None]] = []
    for dev in snap.devices.values():
        for vrf, inst in dev.bgp.items():
            node = (dev.name, vrf)
            plane = topo.node_plane.get(node)
            for net in inst.networks:
                rows.append((net, node, _plane_of(snap, net, plane)))
            if "connected" in inst.redistribute:
                for ep in topo.endpoints_of(node):
                    net = net_str(ep.net)
                    rows.append((net, node, _plane_of(snap, net, plane)))
            feed = inst.static_feed  # (SONiC's bgpcfgd: only its own routes, whatever frr.conf says)
            statics, kernel = "static" in inst.redistribute or feed is not None, "kernel" in inst.redistribute
            if statics or kernel:
                for route in dev.static_routes:  # (zebra's, then the kernel's: parsers.add_routing)
                    if route.vrf == vrf and (kernel if route.kernel else statics and (
                            feed is None or net_str(network_of(route.prefix)) in feed)):
                        rows.append((route.prefix, node, _plane_of(snap, route.prefix, plane)))
    rows.sort(key=lambda r: r[2] or "")  # stable: keeps the config order within a plane
    idx = PrefixIndex()
    origins: dict[NodeId, list[int]] = defaultdict(list)
    for net, node, plane in rows:
        origins[node].append(idx.add(net, node, plane))
    idx.freeze()
    return idx, origins


def _plane_of(snap: Snapshot, prefix: str, origin_plane: str | None) -> str | None:
    """Whose prefix an originated one is: the plane whose pools hold it, or the one plane whose
    pools it holds (a supernet of another plane's block routes that plane's addresses), else its
    originator's plane."""
    return snap.plane_routed(prefix) or origin_plane


def _edges(snap: Snapshot, topo: Topology) -> list[tuple[NodeId, NodeId, DeviceConfig, str | None, DeviceConfig,
                                                         str | None]]:
    """(from, to, sender, its out route-map, receiver, its in route-map) for every direction of every
    session, and every VRF import (the exporter's `route-map vpn export` and the importer's
    `import vrf route-map` / `route-map vpn import`, or EOS's `subscribe-policy`; none: everything
    crosses)."""
    out: list[tuple[NodeId, NodeId, DeviceConfig, str | None, DeviceConfig, str | None]] = []
    devices = snap.devices
    for s in topo.sessions:
        for src, dst, src_nbr, dst_nbr in ((s.a, s.b, s.a_neighbor, s.b_neighbor), (s.b, s.a, s.b_neighbor, s.a_neighbor)):
            src_dev, dst_dev = devices[src[0]], devices[dst[0]]
            out.append((src, dst, src_dev, src_dev.bgp[src[1]].neighbors[src_nbr].route_map_out,
                        dst_dev, dst_dev.bgp[dst[1]].neighbors[dst_nbr].route_map_in))
    for dev in devices.values():
        for source, target in dev.vrf_route_leaks:
            src, dst = (dev.name, leak_instance(source)), (dev.name, leak_instance(target))
            exporter, importer = dev.bgp.get(src[1]), dev.bgp.get(dst[1])
            subscribed = dev.vrf_leak_maps.get((source, target)) if dev.vrf_leak_maps else None
            out.append((src, dst, dev, _map_name(exporter.vpn_export_map if exporter else None),
                        dev, _map_name(subscribed or (importer.vpn_import_map if importer else None))))
    return out


def _map_name(named: tuple[str, int] | None) -> str | None:
    return named[0] if named is not None else None


def _vrf_imports(dev: DeviceConfig) -> list[tuple[NodeId, NodeId]]:
    """(from, to) instances of the device's VRF imports."""
    return [((dev.name, leak_instance(source)), (dev.name, leak_instance(target))) for source, target in dev.vrf_route_leaks]


def _exposed_planes(snap: Snapshot, topo: Topology) -> set[str | None]:
    """The planes (None: no known plane) of the instances that some edge of _edges leaves for an
    instance of another plane or of no known plane; read off the sessions without building the
    edges (what the route-maps say does not matter here)."""
    plane_of = topo.node_plane
    exposed: set[str | None] = set()
    for s in topo.sessions:  # an edge each way
        a, b = plane_of.get(s.a), plane_of.get(s.b)
        if a != b:
            exposed.update((a, b))
        elif a is None:
            exposed.add(None)
    for dev in snap.devices.values():
        for src, dst in _vrf_imports(dev):
            a, b = plane_of.get(src), plane_of.get(dst)
            if a != b or a is None:
                exposed.add(a)
    return exposed


def _propagate(rib: dict[NodeId, int], edges: dict[NodeId, list[tuple[NodeId, int]]]) -> None:
    queue = deque(rib)
    queued = set(queue)
    while queue:
        node = queue.popleft()
        queued.discard(node)
        have = rib.get(node, 0)
        for dst, mask in edges.get(node, []):
            before = rib.get(dst, 0)
            after = before | (have & mask)
            if after != before:
                rib[dst] = after
                if dst not in queued:
                    queue.append(dst)
                    queued.add(dst)


Origins = tuple[PrefixIndex, dict[NodeId, list[int]]]


def compute_routes(snap: Snapshot, topo: Topology, origins: Origins | None = None) -> RouteResult:
    """Every prefix to every instance it reaches (bitsets as wide as the fabric's prefix count:
    sessions x prefixes, quadratic in the fabric's size)."""
    idx, originated = origins or prefix_index(snap, topo)
    return _propagated(idx, originated, _edges(snap, topo), None)


def compute_foreign_routes(snap: Snapshot, topo: Topology, origins: Origins | None = None) -> RouteResult:
    """The same propagation, restricted to the prefixes that can end up in another plane, which
    gives the same answer for them (bits propagate independently) at a fraction of the cost.

    A prefix of plane Q can reach an instance of another plane only if it is originated outside Q
    or if some session or VRF import leaves a Q instance (or an instance of no known plane) for an
    instance of another plane. On a clean fabric neither holds and nothing is propagated."""
    idx, originated = origins or prefix_index(snap, topo)
    plane_of = topo.node_plane
    exposed = _exposed_planes(snap, topo)
    if None in exposed:
        exposed = set(idx.plane)
    columns = [bit for bit, plane in enumerate(idx.plane) if plane in exposed]
    columns += [bit for node, bits_ in originated.items() for bit in bits_
                if idx.plane[bit] not in exposed and idx.plane[bit] != plane_of.get(node)]
    columns = sorted(set(columns))
    if not columns:
        return RouteResult(idx, {}, [], columns=[])
    return _propagated(idx, originated, _edges(snap, topo), columns)


def _propagated(idx: PrefixIndex, originated: dict[NodeId, list[int]], all_edges: list[tuple[
        NodeId, NodeId, DeviceConfig, str | None, DeviceConfig, str | None]], columns: list[int] | None) -> RouteResult:
    """Propagate the prefixes ``columns`` (all when None; bit i of the result = columns[i])."""
    blocks = _runs(columns) if columns is not None else [(0, len(idx.prefixes))]

    def compact(mask: int) -> int:
        out, offset = 0, 0
        for start, length in blocks:
            out |= ((mask >> start) & ((1 << length) - 1)) << offset
            offset += length
        return out

    position = {bit: i for i, bit in enumerate(columns)} if columns is not None else None
    rib: dict[NodeId, int] = {}
    for node, bits_ in originated.items():
        mine = sum(1 << (b if position is None else position[b]) for b in set(bits_)
                   if position is None or b in position)
        if mine:
            rib[node] = mine
    full = (1 << len(idx.prefixes)) - 1
    cache: dict[tuple[object, ...], int] = {}
    undefined: list[tuple[str, str]] = []
    policy: dict[tuple[str, str | None], int] = {}  # (device, route-map) -> compact mask

    def allowed(dev: DeviceConfig, name: str | None) -> int:
        # every session of a device usually shares one policy: evaluate it once per device
        key = (dev.name, name)
        hit = policy.get(key)
        if hit is None:
            hit = policy[key] = compact(_route_map_mask(dev, name, idx, full, cache, undefined))
        return hit

    edges: dict[NodeId, list[tuple[NodeId, int]]] = defaultdict(list)
    for src, dst, src_dev, out_rm, dst_dev, in_rm in all_edges:
        edges[src].append((dst, allowed(src_dev, out_rm) & allowed(dst_dev, in_rm)))
    _propagate(rib, edges)
    return RouteResult(idx, rib, sorted(set(undefined)), columns=columns)


def _runs(columns: list[int]) -> list[tuple[int, int]]:
    """Sorted bit positions -> (start, length) of each run of consecutive positions."""
    runs: list[tuple[int, int]] = []
    for bit in columns:
        if runs and runs[-1][0] + runs[-1][1] == bit:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((bit, 1))
    return runs


def bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def explain_route_map(dev: DeviceConfig, name: str, prefix: str,
                      as_path: tuple[int, ...] | None = None) -> tuple[bool, int, str]:
    """One prefix through one route-map, as the device evaluates it (a plain reference of
    routes._route_map_mask): (permitted, the line that decided, why). With ``as_path`` (the path
    the route has where the route-map sees it), `match as-path` clauses are judged on it; without,
    they are taken as matching, as the bitset model takes them (verify/aspaths.py)."""
    permitted, _, line, why = route_map_outcome(dev, name, prefix, as_path)
    return permitted, line, why


@dataclass(frozen=True, slots=True)
class RouteView:
    """What a route carries where a BGP neighbor's route-map sees it, for the `match` clauses on
    attributes (RouteMapEntry.attribute_clauses), as bgpd 8.4 compares them (read in bgp_routemap.c,
    held to the twin by the oracle's `match-attribute` edits):

    * ``origin``: the ORIGIN code (ORIGIN_CODES' index);
    * ``med``: the MED's value (0 when the route carries none: bgpd compares the stored value;
      outbound, the value the sender holds, before eBGP leaves it out);
    * ``local_pref``: the LOCAL_PREF attribute's value: 0 on a route learned over eBGP unless an
      inbound route-map set it, the instance's default (`bgp default local-preference`, 100) on one it
      originates;
    * ``peer``: inbound, the neighbor's address as the receiver names it; outbound None: bgpd
      evaluates an outbound map once per update group, on a peer without an address, so `match
      peer` matches nothing there (not even `match peer local`);
    * ``next_hop``: the route's next hop: inbound the sender's address (or what its outbound map
      set), outbound the address of the neighbor the sender learned it from (or what its inbound
      map set), "0.0.0.0" on a route the sender originates, which is what `match ip next-hop type
      blackhole` matches (bgpd: no next hop and no interface); None: none to compare (unnumbered).

    A route's tag is 0: tags do not cross BGP, and a device that sets them or redistributes has its
    `match tag` reported instead (parsers/frr.py)."""

    origin: int = 0
    med: int = 0
    local_pref: int = 0
    peer: str | None = None
    next_hop: str | None = None


LOCAL_NEXT_HOP = "0.0.0.0"  # the next hop of a route a device originates itself, as bgpd holds it


def attribute_clause_matches(kind: str, value: str, route: RouteView) -> bool:
    """One `match origin|metric|tag|local-preference|peer|ip next-hop address|ip next-hop type|
    probability` clause on ``route``."""
    if kind == "ip next-hop address":
        return route.next_hop == value
    if kind == "ip next-hop type":
        return route.next_hop == LOCAL_NEXT_HOP
    if kind == "probability":
        return value == "100"
    if kind == "origin":
        return ORIGIN_CODES[route.origin] == value
    if kind == "metric":
        return route.med == int(value)
    if kind == "local-preference":
        return route.local_pref == int(value)
    if kind == "peer":
        return route.peer is not None and value != "local" and route.peer == value
    return False  # `match tag N` (N >= 1) on a route of tag 0


def _one_entry_matches(dev: DeviceConfig, entry: RouteMapEntry, prefix: str, as_path: tuple[int, ...] | None,
                       route: RouteView | None = None) -> bool:
    if entry.never_line:
        return False
    if not all(explain_prefix_list(dev, pl_name, prefix)[0] for pl_name in entry.match_prefix_lists):
        return False  # undefined, denied or unmatched
    if route is not None and not all(attribute_clause_matches(kind, value, route)
                                     for kind, value, _ in entry.attribute_clauses):
        return False
    return as_path is None or all(list_permits(dev, listed, as_path) for listed, _ in entry.as_path_clauses)


def route_map_outcome(dev: DeviceConfig, name: str, prefix: str, as_path: tuple[int, ...] | None = None,
                      depth: int = 0, route: RouteView | None = None) -> tuple[bool, RouteMapEntry | None, int, str]:
    """One prefix through one route-map, one entry at a time as bgpd's route_map_apply_ext runs it
    (the plain reference of ``_evaluate`` and ``_flow_evaluate``): (permitted, what the route
    carries out of it: the deciding permit entry, or with flow control the sets merged along the
    way (``merge_sets``), the line that decided, why). ``route``: what the route carries, for the
    clauses on attributes (None: they are taken as matching, as the bitset model takes them)."""
    entries = dev.route_maps.get(name)
    if entries is None:
        return False, None, 0, f"route-map {name} is not defined (an undefined route-map denies everything)"
    ordered = sorted(entries, key=lambda e: e.seq)  # (without flow control the first match decides)
    i = next((k for k, entry in enumerate(ordered) if _one_entry_matches(dev, entry, prefix, as_path, route)), None)
    if i is None:
        return False, None, entries[0].line, f"no entry of route-map {name} matches it (implicit deny)"
    permit, carried, known = True, None, True
    decided = ordered[i]
    while i < len(ordered):
        entry = ordered[i]
        if not known and not _one_entry_matches(dev, entry, prefix, as_path, route):
            permit, i = False, i + 1  # "deny" until a later permit entry matches
            continue
        known = False
        if entry.action == "deny":
            return False, None, entry.line, f"route-map {name} deny {entry.seq} denies it"
        permit, carried, decided = True, merge_sets(carried, entry), entry
        if entry.call is not None and entry.call in dev.route_maps:
            if depth + 1 > CALL_DEPTH:
                return False, None, entry.flow_line, f"route-map {name} {entry.seq}: calls nested deeper than " \
                                                     f"{CALL_DEPTH} (bgpd denies the route)"
            ok, called, line, why = route_map_outcome(dev, entry.call, prefix, as_path, depth + 1, route)
            if not ok:
                return False, None, line, f"route-map {name} {entry.seq} calls {entry.call}: {why}"
            if called is not None:
                carried = merge_sets(carried, called)
        if entry.exit_policy == "exit":
            break
        i += 1
        if entry.exit_policy == "goto":
            while i < len(ordered) and ordered[i].seq < entry.goto_seq:
                i += 1
            if i == len(ordered):
                break
    if not permit:
        return False, None, decided.flow_line or decided.line, (
            f"route-map {name} permit {decided.seq} goes on (`on-match`) and no entry after it matches: bgpd "
            "denies it")
    return True, carried, decided.line, f"route-map {name} permit {decided.seq} permits it"

