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

from dualrail_net.verify.ipfast import net_str, network_of
from dualrail_net.verify.model import DeviceConfig, PrefixListEntry, RouteMapEntry
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

    def freeze(self) -> None:
        rows = []
        for bit, p in enumerate(self.prefixes):
            net, length = network_of(p)
            rows.append((net, length, bit))
        rows.sort()
        self._sorted = rows
        self._keys = [r[0] for r in rows]

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


def _route_map_mask(dev: DeviceConfig, name: str | None, idx: PrefixIndex, full: int,
                    cache: dict[tuple[object, ...], int], undefined: list[tuple[str, str]]) -> int:
    if name is None:
        return full
    entries = dev.route_maps.get(name)
    if entries is None:
        undefined.append((dev.name, f"route-map {name}"))
        return 0
    signature = tuple((e.seq, e.action, tuple((pl, tuple((x.seq, x.action, x.prefix, x.ge, x.le)
                                                          for x in dev.prefix_lists.get(pl, []))
                                               if pl in dev.prefix_lists else (pl, None))
                                              for pl in e.match_prefix_lists))
                      for e in entries)
    if signature in cache:
        return cache[signature]
    remaining = full
    permitted = 0
    for entry in sorted(entries, key=lambda e: e.seq):
        matched = _entry_matches(dev, entry, idx, full, undefined)
        hit = matched & remaining
        if entry.action == "permit":
            permitted |= hit
        remaining &= ~hit
    cache[signature] = permitted
    return permitted


def _entry_matches(dev: DeviceConfig, entry: RouteMapEntry, idx: PrefixIndex, full: int,
                   undefined: list[tuple[str, str]]) -> int:
    if not entry.match_prefix_lists:
        return full
    matched = full
    for pl_name in entry.match_prefix_lists:
        pl = dev.prefix_lists.get(pl_name)
        if pl is None:
            undefined.append((dev.name, f"prefix-list {pl_name}"))
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


def compute_routes(snap: Snapshot, topo: Topology) -> RouteResult:
    idx = PrefixIndex()
    origins: dict[NodeId, list[int]] = defaultdict(list)
    for dev in snap.devices.values():
        for vrf, inst in dev.bgp.items():
            node = (dev.name, vrf)
            plane = topo.node_plane.get(node)
            for net in inst.networks:
                origins[node].append(idx.add(net, node, snap.plane_of_address(net) or plane))
            if "connected" in inst.redistribute:
                for ep in topo.node_endpoints.get(node, []):
                    net = net_str(ep.net)
                    origins[node].append(idx.add(net, node, snap.plane_of_address(net) or plane))
            if "static" in inst.redistribute:
                for route in dev.static_routes:
                    if route.vrf == vrf:
                        origins[node].append(idx.add(route.prefix, node, snap.plane_of_address(route.prefix) or plane))
    idx.freeze()
    full = (1 << len(idx.prefixes)) - 1
    rib: dict[NodeId, int] = {}
    for node, bits in origins.items():
        mask = 0
        for b in bits:
            mask |= 1 << b
        rib[node] = mask
    cache: dict[tuple[object, ...], int] = {}
    undefined: list[tuple[str, str]] = []
    edges: dict[NodeId, list[tuple[NodeId, int]]] = defaultdict(list)
    for s in topo.sessions:
        for src, dst, src_nbr, dst_nbr in ((s.a, s.b, s.a_neighbor, s.b_neighbor), (s.b, s.a, s.b_neighbor, s.a_neighbor)):
            src_dev, dst_dev = snap.devices[src[0]], snap.devices[dst[0]]
            out_rm = src_dev.bgp[src[1]].neighbors[src_nbr].route_map_out
            in_rm = dst_dev.bgp[dst[1]].neighbors[dst_nbr].route_map_in
            mask = (_route_map_mask(src_dev, out_rm, idx, full, cache, undefined)
                    & _route_map_mask(dst_dev, in_rm, idx, full, cache, undefined))
            edges[src].append((dst, mask))
    for dev in snap.devices.values():
        for source, target in dev.vrf_route_leaks:
            src = (dev.name, None if source == "default" else source)
            dst = (dev.name, None if target == "default" else target)
            edges[src].append((dst, full))
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
    return RouteResult(idx, rib, sorted(set(undefined)))


def bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
