"""The plain reference of the control-plane model (verify/controlplane.py): BGP as a path-vector
protocol, with explicit AS paths per prefix and per device, iterated until nothing changes.

``compute_plane`` propagates bitsets level by level for speed; this module says what it must
compute, the slow and obvious way: every device holds, per prefix, its candidate paths (one per
neighbor that offers the prefix), each an explicit tuple of ASNs; every round each device takes
its neighbors' best paths over every session (parallel links are sessions of their own) through
their outbound and its own inbound route-map (one prefix at a time, with ``route_map_outcome``)
and the receiver's neighbor weight, drops a path whose route-map-set next hop the receiver cannot
use, strips private ASNs (`remove-private-AS`, after the outbound route-map) and overrides the
receiver's (`as-override`), prepends, refuses a path that holds its own ASN (eBGP), keeps the
shortest, then the lowest ORIGIN (`set origin`; redistributed routes are incomplete, an aggregate
takes the highest of the routes under it), installs the equal ones (a redistributed route leaves
with its `metric` as MED; eBGP sends a learned route on without one) of the best path's neighbor AS (any AS with multipath-relax) up
to maximum-paths in router-ID order. Aggregates are re-derived until they settle. The result is
the installed next hops of every prefix at every routing instance; tests require it to equal the
model's on the example, on every routing mutation and on seeded random edits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from dualrail_net.verify.controlplane import (
    UNUSABLE,
    WORST_MED,
    _router_id,
    connected,
    diversions,
    external_paths,
    maximum_paths,
    originated,
    plane_nodes,
    SessionKey,
    receive_limit,
    session_key,
    next_hop_verdict,
    session_state,
    sends_communities,
    strip_private,
)
from dualrail_net.verify.aspaths import list_permits, path_text
from dualrail_net.verify.nopolicy import policy_stops
from dualrail_net.verify.ipfast import net_str, network_of
from dualrail_net.verify.model import ORIGIN_CODES, DeviceConfig, Neighbor, RouteMapEntry
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.routes import LOCAL_NEXT_HOP, RouteView, adjusted, explain_prefix_list, route_map_outcome
from dualrail_net.verify.topology import NodeId, Topology

MAX_ROUNDS = 256


@dataclass(frozen=True)
class Path:
    sender: NodeId
    as_path: tuple[int, ...]
    ibgp: bool
    rank: tuple[int, int] = (0, 100)  # (weight, local preference) the receiver set inbound
    med: int = 0
    gshut: bool = False  # it carries the GRACEFUL_SHUTDOWN community (`bgp graceful-shutdown`)
    origin: int = 0  # ORIGIN: 0 igp, 1 egp, 2 incomplete (model.ORIGIN_CODES); the lowest wins after the length
    # the ASNs a route-map prepended that were not on the path yet: (ASN, device, line), so that a
    # device of that ASN dropping the path by loop prevention can name the statement
    prepended: tuple[tuple[int, str, int], ...] = ()
    origin_at: tuple[str, int] = ("", 0)  # (device, line) that gave it its ORIGIN, when not igp by default
    # the LOCAL_PREF attribute's value as the receiver holds it (what `match local-preference`
    # compares; ``rank`` holds what best-path selection uses)
    local_pref: int = 0
    # its next hop as the receiver holds it: the sender's address, or what a route-map set (None:
    # unnumbered), which the receiver's outbound `match ip next-hop` compares
    next_hop: str | None = None


class _Inbound(NamedTuple):
    """One session direction as its receiver sees it."""

    sender: NodeId
    out_map: str | None  # the sender's outbound route-map
    in_map: str | None  # the receiver's inbound route-map
    allowas: int  # copies of its own ASN the receiver takes back
    weight: int  # the receiver's neighbor weight for the sender
    out_list: str | None  # the sender's `neighbor prefix-list ... out`
    in_list: str | None  # the receiver's `neighbor prefix-list ... in`
    unchanged: bool  # the sender's neighbor setting: next hop unchanged (a route-map's set wins)
    sender_address: str  # as the receiver names the sender
    receiver_address: str  # as the sender names the receiver
    unnumbered: bool
    strip: str  # the sender's `remove-private-AS` toward the receiver (Neighbor.remove_private)
    override: bool  # the sender's `as-override` toward the receiver
    sent_as: tuple[int, ...]  # what the sender puts in front: its ASN, or `local-as L` (and its ASN)
    taken_as: tuple[int, ...]  # what the receiver puts in front of what it takes in (`local-as L`)
    communities: bool  # the sender sends standard communities (``sends_communities``)
    out_filter: str | None  # the sender's `neighbor filter-list ... out` (an AS-path access list)
    in_filter: str | None  # the receiver's `neighbor filter-list ... in`
    # nothing crosses for want of a policy on one end (ebgp-requires-policy, EOS's missing-policy)
    withheld: bool


def _sent_as(n: Neighbor, own: int) -> tuple[int, ...]:
    """What a sender puts in front of a path it sends ``n`` over eBGP."""
    if n.local_as is None:
        return (own,)
    return (n.local_as,) if n.local_as_replace else (n.local_as, own)


def _taken_as(n: Neighbor) -> tuple[int, ...]:
    """What a receiver puts in front of a path it takes from ``n`` over eBGP (`local-as L`)."""
    return () if n.local_as is None or n.local_as_no_prepend else (n.local_as,)


def _filter_denial(dev: DeviceConfig, neighbor: str, name: str, way: str,
                   path: tuple[int, ...]) -> tuple[str, int, str]:
    """Why a neighbor's filter-list keeps a path out: (device, line, text). ``neighbor``: the
    address ``dev`` names the neighbor by."""
    n = next((nb for inst in dev.bgp.values() for nb in inst.neighbors.values()
              if nb.address == neighbor and getattr(nb, f"filter_list_{way}") == name), None)
    line = (getattr(n, f"filter_list_{way}_line") or n.line) if n else 0
    return dev.name, line, f"neighbor {neighbor} filter-list {name} {way} denies the AS path \"{path_text(path)}\""


def _map_denial(dev: DeviceConfig, name: str, prefix: str, path: tuple[int, ...],
                route: RouteView) -> tuple[str, int, str]:
    """Why a route-map keeps a path out that it lets through on its prefix alone: its `match
    as-path` clauses, or its `match` clauses on what the route carries (device, the first such
    clause's line, text)."""
    entries = dev.route_maps.get(name, [])
    if _policy(dev, name, prefix, path)[0]:  # the AS path passes: the route's attributes decided
        line, said = next(((at, f"match {kind} {value}") for e in entries for kind, value, at in e.attribute_clauses),
                          (0, "match"))
        carries = f"it carries ORIGIN {ORIGIN_CODES[route.origin]}, MED {route.med}, LOCAL_PREF {route.local_pref}" + (
            f", next hop {route.next_hop}" if route.next_hop is not None else "") + (
            f", from {route.peer}" if route.peer is not None else "; outbound, bgpd's `match peer` matches no peer")
        return dev.name, line, f"route-map {name}'s `{said}` leaves {prefix} out ({carries})"
    line = next((at for e in entries for _, at in e.as_path_clauses), 0)
    return dev.name, line, f"route-map {name}'s `match as-path` leaves the AS path \"{path_text(path)}\" out"


def _one_side(dev: DeviceConfig, neighbor: str, path_filter: str | None, route_map: str | None, way: str,
              prefix: str, path: tuple[int, ...], explain: bool, route: RouteView,
              ) -> tuple[bool, RouteMapEntry | None, tuple[str, int, str] | None]:
    """One side of a session direction after its prefix-list: the neighbor's filter-list, then its
    route-map, on the route's ``path`` and attributes (``route``) as that side sees it: (permitted,
    the route-map's deciding permit entry, and when ``explain`` and an AS-path filter or a match on
    the route's attributes is what kept it out: why)."""
    if path_filter is not None and not list_permits(dev, path_filter, path):
        return False, None, _filter_denial(dev, neighbor, path_filter, way, path) if explain else None
    ok, entry = _policy(dev, route_map, prefix, path, route)
    if ok or not explain or route_map is None or not _policy(dev, route_map, prefix, None)[0]:
        return ok, entry, None
    return False, None, _map_denial(dev, route_map, prefix, path, route)


def _policy(dev: DeviceConfig, name: str | None, prefix: str, as_path: tuple[int, ...] | None,
            route: RouteView | None = None) -> tuple[bool, RouteMapEntry | None]:
    """(permitted, the permit entry that decided) for one prefix, with the AS path the route-map
    sees (None: `match as-path` taken as matching) and what the route carries (None: the matches
    on it taken as matching), through one route-map (None: no route-map)."""
    if name is None:
        return True, None
    permitted, carried, _, _ = route_map_outcome(dev, name, prefix, as_path, route=route)
    return permitted, carried


def _within(prefix: str, aggregate: str) -> bool:
    net, length = network_of(prefix)
    agg, agg_len = network_of(aggregate)
    return length > agg_len and (net >> (32 - agg_len) if agg_len else 0) == (agg >> (32 - agg_len) if agg_len else 0)


# (sender, receiver, prefix) -> (device, line, why): an AS-path filter that keeps the path out
PathDenials = dict[tuple[NodeId, NodeId, str], tuple[str, int, str]]


def reference_rib(snap: Snapshot, topo: Topology, plane: str,
                  path_overrides: Mapping[str, int] | None = None,
                  denied: PathDenials | None = None) -> dict[NodeId, dict[str, tuple[NodeId, ...]]]:
    """Per routing instance of ``plane``: prefix -> the neighbors it installs as next hops, one per
    session (a neighbor over parallel links appears once per link; a prefix the instance originates
    itself maps to an empty tuple). A session whose receiver accepts more prefixes than its limit
    allows (``receive_limit``; FRR accepts the route that crosses it, EOS does not) is torn down,
    and the plane converges again without it, until no limit is crossed. ``denied`` (when given)
    receives the paths an AS-path filter keeps out in the converged plane (verify/aspaths.py)."""
    down: set[SessionKey] = set()
    while True:
        rib, accepted = _converged_plane(snap, topo, plane, path_overrides, down, denied)
        crossed = {key for key, count, limit, eos in accepted if count > (limit if eos else limit + 1)}
        if not crossed - down:
            return rib
        down |= crossed


def _converged_plane(snap: Snapshot, topo: Topology, plane: str, path_overrides: Mapping[str, int] | None,
                     down: set[SessionKey], denied: PathDenials | None = None) -> tuple[dict[NodeId, dict[str, tuple[NodeId, ...]]],
                                                     list[tuple[SessionKey, int, int, bool]]]:
    """The plane converged without the sessions in ``down``, and per session direction whose
    receiver has a limit: (session, prefixes the receiver accepts over it, the limit, EOS)."""
    nodes = plane_nodes(snap, topo, plane)
    in_plane = set(nodes)
    devices = snap.devices
    inst = {node: devices[node[0]].bgp[node[1]] for node in nodes}
    asn = {node: inst[node].asn for node in nodes}
    rid = {node: _router_id(inst[node]) for node in nodes}
    # session directions that carry IPv4 unicast: (sender, receiver, sender's neighbor entry, receiver's)
    links: list[tuple[NodeId, _Inbound]] = []  # (receiver, what crosses to it)
    limits: list[tuple[SessionKey, int, int, bool]] = []  # (session, receiver's link number, limit, EOS)
    diverted = diversions(snap, topo, nodes)
    for s in topo.sessions:
        if s.a not in in_plane or s.b not in in_plane or session_key(s) in down \
                or not session_state(snap, topo, s, None, diverted).up:
            continue
        a_nbr = inst[s.a].neighbors[s.a_neighbor]
        b_nbr = inst[s.b].neighbors[s.b_neighbor]
        for src, dst, out_nbr, in_nbr in ((s.a, s.b, a_nbr, b_nbr), (s.b, s.a, b_nbr, a_nbr)):
            limit = receive_limit(devices[dst[0]], in_nbr)
            if limit and asn[src] != asn[dst]:
                limits.append((session_key(s), len(links), limit, devices[dst[0]].platform == "eos"))
            links.append((dst, _Inbound(src, out_nbr.route_map_out, in_nbr.route_map_in, in_nbr.allowas_in,
                                        in_nbr.weight or 0, out_nbr.prefix_list_out, in_nbr.prefix_list_in,
                                        bool(out_nbr.next_hop_unchanged_line),
                                        in_nbr.address, out_nbr.address,
                                        a_nbr.interface or b_nbr.interface, out_nbr.remove_private,
                                        bool(out_nbr.as_override_line), _sent_as(out_nbr, asn[src]),
                                        _taken_as(in_nbr), sends_communities(devices[src[0]], out_nbr),
                                        out_nbr.filter_list_out, in_nbr.filter_list_in,
                                        policy_stops(devices[src[0]], inst[src], out_nbr, "out",
                                                     asn[src] != asn[dst]) is not None
                                        or policy_stops(devices[dst[0]], inst[dst], in_nbr, "in",
                                                        asn[src] != asn[dst]) is not None)))
    inbound: dict[NodeId, list[_Inbound]] = {node: [] for node in nodes}
    position: list[int] = []  # link number -> its place among its receiver's inbound links
    for dst, link in links:
        position.append(len(inbound[dst]))
        inbound[dst].append(link)
    originations = {node: originated(snap, topo, node) for node in nodes}
    base_origin = {node: set(o.prefixes) for node, o in originations.items()}
    incomplete = {node: {p: 2 for p in o.incomplete} for node, o in originations.items()}
    outside = {node: external_paths(snap, topo, node) for node in nodes}  # a gateway's external prefixes
    active_aggregates: dict[NodeId, set[str]] = {node: set() for node in nodes}
    rib: dict[NodeId, dict[str, list[Path]]] = {}
    for _ in range(8):  # aggregates appear or go with the more specific routes under them
        # an as-set aggregate with a learned route under it carries that route's ASes (the neighbor's
        # among them): taken as sent to nobody, as the fast model takes it
        withheld = {node: {net_str(network_of(agg.prefix)) for agg in inst[node].aggregates if agg.as_set
                           and any(_within(p, agg.prefix) for p in set(rib.get(node, {})) - base_origin[node])}
                    for node in nodes}
        origin = {node: base_origin[node] | (active_aggregates[node] - withheld[node]) for node in nodes}
        # ORIGIN of what each node originates: an aggregate takes the highest of the routes under it
        origin_code = {node: {**{agg: max((_origin_of(rib, incomplete, node, p) for p in _known(rib, origin, node)
                                          if _within(p, agg)), default=0)
                                 for agg in active_aggregates[node]}, **incomplete[node]} for node in nodes}
        suppressed = {node: {p for p in _known(rib, origin, node)
                             for agg in inst[node].aggregates
                             if agg.summary_only and net_str(network_of(agg.prefix)) in active_aggregates[node]
                             and _within(p, agg.prefix)} for node in nodes}
        rib, counts = _converge(snap, topo, nodes, inbound, origin, suppressed, asn, rid, path_overrides, outside,
                                denied, origin_code, {node: o.med for node, o in originations.items()})
        now = {node: {net_str(network_of(agg.prefix)) for agg in inst[node].aggregates
                      if any(_within(p, agg.prefix) for p in _known(rib, origin, node))} for node in nodes}
        if now == active_aggregates:
            break
        active_aggregates = now
    accepted = [(s, counts[links[number][0]][position[number]], limit, eos) for s, number, limit, eos in limits]
    return ({node: {p: tuple(sorted(path.sender for path in paths)) for p, paths in rib[node].items()}
             for node in nodes}, accepted)


def _origin_of(rib: Mapping[NodeId, Mapping[str, Sequence[Path]]], own: Mapping[NodeId, Mapping[str, int]],
               node: NodeId, prefix: str) -> int:
    paths = rib.get(node, {}).get(prefix)
    return paths[0].origin if paths else own[node].get(prefix, 0)


def _known(rib: Mapping[NodeId, Mapping[str, Sequence[Path]]], origin: Mapping[NodeId, set[str]],
           node: NodeId) -> set[str]:
    return set(rib.get(node, {})) | origin[node]


def _converge(snap: Snapshot, topo: Topology, nodes: list[NodeId], inbound: Mapping[NodeId, list[_Inbound]],
              origin: Mapping[NodeId, set[str]], suppressed: Mapping[NodeId, set[str]],
              asn: Mapping[NodeId, int], rid: Mapping[NodeId, int],
              path_overrides: Mapping[str, int] | None,
              outside: Mapping[NodeId, Mapping[str, tuple[int, ...]]],
              denied: PathDenials | None = None,
              origin_code: Mapping[NodeId, Mapping[str, int]] | None = None,
              origin_med: Mapping[NodeId, Mapping[str, int]] | None = None,
              ) -> tuple[dict[NodeId, dict[str, list[Path]]], dict[NodeId, list[int]]]:
    """Synchronous rounds until no device's installed paths change. Also: per receiver, per inbound
    link (in ``inbound``'s order), how many prefixes it accepts over it in the last round."""
    devices = snap.devices
    # per node: prefix -> installed paths, best first ([] for its own prefixes)
    rib: dict[NodeId, dict[str, list[Path]]] = {node: {p: [] for p in origin[node]} for node in nodes}
    counts: dict[NodeId, list[int]] = {}
    own_origin = origin_code or {}
    for _ in range(MAX_ROUNDS):
        if denied is not None:
            denied.clear()  # what the last round keeps out is what the converged plane keeps out
        new: dict[NodeId, dict[str, list[Path]]] = {}
        for dst in nodes:
            dst_dev = devices[dst[0]]
            dst_inst = dst_dev.bgp[dst[1]]
            candidates: dict[str, list[Path]] = {}
            counts[dst] = []
            nets: list[tuple[int, int]] | None = None
            for src, out_map, in_map, allowas, weight, out_list, in_list, unchanged, sender_address, \
                    receiver_address, unnumbered, strip, override, sent_as, taken_as, communities, out_filter, \
                    in_filter, unpoliced in inbound[dst]:
                counts[dst].append(0)
                src_dev = devices[src[0]]
                src_inst = src_dev.bgp[src[1]]
                ibgp = asn[src] == asn[dst]
                if unpoliced:
                    continue
                for prefix, paths in rib[src].items():
                    if prefix in suppressed[src]:
                        continue
                    best = paths[0] if paths else None
                    if best is not None and best.ibgp and ibgp:
                        continue  # iBGP split horizon
                    if out_list is not None and not explain_prefix_list(src_dev, out_list, prefix)[0]:
                        continue
                    held = best.as_path if best else outside[src].get(prefix, ())  # (before the sender's ASN)
                    if best is not None:  # what the sender holds (a MED value of 0 where none came)
                        held_route = RouteView(best.origin, 0 if best.med == WORST_MED else best.med, best.local_pref,
                                               next_hop=best.next_hop)
                    else:  # its own: the instance's default local preference
                        held_route = RouteView(own_origin.get(src, {}).get(prefix, 0),
                                               (origin_med or {}).get(src, {}).get(prefix, 0),
                                               src_inst.default_local_pref, next_hop=LOCAL_NEXT_HOP)
                    ok, out_entry, why = _one_side(src_dev, receiver_address, out_filter, out_map, "out", prefix, held,
                                                   denied is not None, held_route)
                    if not ok:
                        if why is not None and denied is not None:
                            denied[(src, dst, prefix)] = why
                        continue
                    prepended = best.prepended if best else ()
                    if out_entry is not None and out_entry.prepend:
                        prepended += _foreign(out_entry.prepend, held + (asn[src],), src_dev.name,
                                              out_entry.prepend_line)
                    as_path = (_prepend(out_entry, held) if out_entry else ()) + held
                    if not ibgp:
                        as_path = strip_private(as_path, strip, asn[src], asn[dst])
                        if override:  # `as-override`: the receiver's ASN becomes the sender's
                            as_path = tuple(asn[src] if a == asn[dst] else a for a in as_path)
                        as_path = sent_as + as_path
                        if as_path.count(asn[dst]) > allowas:
                            # eBGP loop prevention (`allowas-in N` takes N of its own ASN)
                            if denied is not None and any(a == asn[dst] for a, _, _ in prepended):
                                denied[(src, dst, prefix)] = _loop_denial(prepended, asn[dst], dst, as_path)
                            continue
                        as_path = taken_as + as_path
                    if in_list is not None and not explain_prefix_list(dst_dev, in_list, prefix)[0]:
                        continue
                    # the MED sent (None: none): a redistributed route's `metric`; over eBGP what
                    # the outbound map sets, max-med over it (a learned route leaves without one)
                    sent_med = origin_med[src][prefix] if best is None and origin_med and prefix in origin_med.get(
                        src, {}) else None
                    if not ibgp:
                        if out_entry is not None and out_entry.med is not None:
                            sent_med = out_entry.med
                        elif out_entry is not None and "metric" in out_entry.deltas:
                            # (added to the MED the route leaves with: a learned one has none by then)
                            sent_med = adjusted(sent_med or 0, out_entry.deltas["metric"][0])
                        if src_inst.max_med is not None:  # written into every UPDATE, over the map's
                            sent_med = src_inst.max_med
                    sent_origin = out_entry.origin if out_entry is not None and out_entry.origin is not None \
                        else held_route.origin
                    # LOCAL_PREF crosses iBGP only (the sender's, its default where it has none)
                    sent_pref = (held_route.local_pref or src_inst.default_local_pref) if ibgp else 0
                    sent_hop = out_entry.next_hop if out_entry is not None and out_entry.next_hop is not None \
                        and out_entry.next_hop[:1].isdigit() else None if unnumbered else sender_address
                    ok, in_entry, why = _one_side(dst_dev, sender_address, in_filter, in_map, "in", prefix, as_path,
                                                  denied is not None,
                                                  RouteView(sent_origin, sent_med or 0, sent_pref, sender_address,
                                                            sent_hop))
                    if not ok:
                        if why is not None and denied is not None:
                            denied[(src, dst, prefix)] = why
                        continue
                    counts[dst][-1] += 1  # accepted: it counts toward a receive limit, usable or not
                    # a next hop a route-map set (the receiver's own last) the receiver cannot use:
                    # the path is inaccessible
                    hop, outbound = (in_entry.next_hop, False) if in_entry and in_entry.next_hop else \
                        (out_entry.next_hop if out_entry and out_entry.next_hop else
                         "unchanged" if unchanged else None, True)
                    if hop is not None and not ibgp and not unnumbered:
                        if nets is None:
                            nets = [network_of(p) for p in connected(snap, topo, dst)]
                        # (the sender's own: originated there, not learned from a gateway's external peer)
                        if next_hop_verdict(hop, outbound, sender_address, receiver_address, nets,
                                            best is None and prefix not in outside[src]) == UNUSABLE:
                            continue
                    rank = (0, 100)
                    med = sent_med if sent_med is not None else WORST_MED if dst_inst.med_missing_as_worst_line else 0
                    local_pref = in_entry.local_pref if in_entry is not None and in_entry.local_pref is not None \
                        else adjusted(sent_pref, in_entry.deltas["local-preference"][0]) \
                        if in_entry is not None and "local-preference" in in_entry.deltas else sent_pref
                    # GRACEFUL_SHUTDOWN: sent on with the path it came with, or put on by a sender in
                    # graceful-shutdown (to eBGP peers), if the sender sends communities at all
                    gshut = communities and (best is not None and best.gshut
                                             or not ibgp and src_inst.graceful_shutdown_line > 0)
                    if not ibgp:  # over eBGP: weight and local preference as set inbound, MED as sent or set inbound
                        # the neighbor's weight, unless the route-map sets one; a path without a
                        # local preference ranks at the receiver's default
                        rank = (weight, dst_inst.default_local_pref)
                        if in_entry is not None:
                            # (a relative set adds to the LOCAL_PREF the route carries: none over eBGP)
                            rank = (weight if in_entry.weight is None else in_entry.weight,
                                    local_pref if in_entry.local_pref is not None
                                    or "local-preference" in in_entry.deltas else dst_inst.default_local_pref)
                        # after the inbound route-map, the community lowers local preference to 0;
                        # a receiver in graceful-shutdown tags what it takes in alike
                        gshut = gshut or dst_inst.graceful_shutdown_line > 0
                        if gshut:
                            rank, local_pref = (rank[0], 0), 0
                        if in_entry is not None and in_entry.med is not None:
                            med = in_entry.med
                        elif in_entry is not None and "metric" in in_entry.deltas:
                            med = adjusted(sent_med or 0, in_entry.deltas["metric"][0])
                    in_prepend = _prepend(in_entry, as_path) if in_entry else ()
                    if in_entry is not None and in_prepend:
                        prepended += _foreign(in_prepend, as_path + (asn[dst],), dst_dev.name, in_entry.prepend_line)
                    # ORIGIN: as the sender holds it, unless a route-map sets it (outbound, then inbound)
                    if best is not None:
                        code, origin_at = best.origin, best.origin_at
                    else:
                        code = own_origin.get(src, {}).get(prefix, 0)
                        # (what a node originates with another ORIGIN than igp, it redistributes)
                        origin_at = (src[0], min(src_inst.redistribute_lines.values(), default=src_inst.line)) \
                            if code else ("", 0)
                    for entry, by in ((out_entry, src_dev.name), (in_entry, dst_dev.name)):
                        if entry is not None and entry.origin is not None:
                            code, origin_at = entry.origin, (by, entry.origin_line)
                    if in_entry is not None and in_entry.next_hop is not None and in_entry.next_hop[:1].isdigit():
                        sent_hop = in_entry.next_hop
                    candidates.setdefault(prefix, []).append(Path(src, in_prepend + as_path, ibgp, rank, med, gshut,
                                                                  code, prepended, origin_at, local_pref, sent_hop))
            table: dict[str, list[Path]] = {p: [] for p in origin[dst]}
            cap = maximum_paths(dst_dev, dst_inst, path_overrides)
            for prefix, offered in candidates.items():
                if prefix in table:
                    continue  # its own prefix: a BGP path never replaces it
                top = max(p.rank for p in offered)  # weight, then local preference, outrank the path
                offered = [p for p in offered if p.rank == top]
                if not dst_inst.as_path_ignore_line:  # (`bgp bestpath as-path ignore`: the length decides nothing)
                    shortest = min(len(p.as_path) for p in offered)
                    offered = [p for p in offered if len(p.as_path) == shortest]
                lowest_origin = min(p.origin for p in offered)
                if denied is not None:
                    for p in offered:
                        if p.origin != lowest_origin:
                            denied[(p.sender, dst, prefix)] = _origin_denial(p, lowest_origin, dst)
                equal = sorted((p for p in offered if p.origin == lowest_origin), key=lambda p: rid[p.sender])
                if dst_inst.always_compare_med:  # MED across every AS decides before the router ID does
                    least = min(p.med for p in equal)
                    equal = [p for p in equal if p.med == least]
                best = equal[0]
                if not dst_inst.multipath_relax:
                    equal = [p for p in equal if asn[p.sender] == asn[best.sender]]
                # MED between the paths of one neighbor AS (of all, `bgp always-compare-med`): the lowest wins
                every_as = dst_inst.always_compare_med
                lowest: dict[int, int] = {}
                for p in equal:
                    g = 0 if every_as else asn[p.sender]
                    lowest[g] = min(lowest.get(g, p.med), p.med)
                equal = [p for p in equal if p.med == lowest[0 if every_as else asn[p.sender]]]
                table[prefix] = equal[:cap]
            new[dst] = table
        if new == rib:
            return rib, counts
        rib = new
    return rib, counts


def _prepend(entry: RouteMapEntry, path: tuple[int, ...]) -> tuple[int, ...]:
    """What ``entry`` puts in front of ``path`` (the path where its map sees it): its ASNs, and for
    `last-as N` the path's leftmost ASN N times (nothing on an empty path)."""
    return entry.prepend + (path[:1] * entry.prepend_last_as if entry.prepend_last_as else ())


def _foreign(prepend: tuple[int, ...], on_path: tuple[int, ...], device: str,
             line: int) -> tuple[tuple[int, str, int], ...]:
    """The ASNs of a prepend that were not on the path (nor the prepending side's own)."""
    return tuple((a, device, line) for a in dict.fromkeys(prepend) if a not in on_path)


def _loop_denial(prepended: tuple[tuple[int, str, int], ...], own: int, receiver: NodeId,
                 as_path: tuple[int, ...]) -> tuple[str, int, str]:
    """Why ``receiver`` drops a path by loop prevention that a route-map put its ASN on."""
    _, device, line = next(p for p in prepended if p[0] == own)
    return device, line, (f"set as-path prepend puts AS {own} on the path \"{path_text(as_path)}\": {receiver[0]} "
                          f"(AS {own}) drops it by eBGP loop prevention")


def _origin_denial(path: Path, lowest: int, receiver: NodeId) -> tuple[str, int, str]:
    """Why ``receiver`` leaves ``path`` out for one of a lower ORIGIN."""
    device, line = path.origin_at if path.origin_at[0] else (receiver[0], 0)
    return device, line, (f"the path arrives with ORIGIN {ORIGIN_CODES[path.origin]}, and {receiver[0]} has paths of "
                          f"ORIGIN {ORIGIN_CODES[lowest]}, which best-path selection prefers right after the AS "
                          "path's length")
