"""AS-path filters judged on each route's AS path: FRR's AS-path access lists (`bgp as-path
access-list NAME [seq N] permit|deny REGEX`) as a neighbor's `filter-list NAME in|out` and a
route-map's `match as-path NAME` use them.

bgpd matches an entry's expression against the path written as text (the ASNs, a space between
two: "65001 65100"; an empty path is ""), `_` standing for a delimiter (``^``, ``$``, a space, a
comma or a brace: bgp_regcomp); the first entry in seq order that matches decides; none, or a
list nobody defined, denies (as_list_apply). Outbound, the filter and the route-map see the path
the sender holds (before its own ASN goes in front); inbound, the path as it arrives.

The bitset model (verify/controlplane.py) propagates sets of prefixes, not paths, so it cannot
say which path a route arrives with. On a plane where such a filter is in play the plane is
computed again by the plain reference (verify/reference_rib.py), which holds every path, and its
result replaces the installed routes of the bitset model (``judge_path_filters``). The reference
costs seconds where the bitset model costs milliseconds; above ``EXACT_LIMIT`` session directions
times prefixes the filters are reported (ROUTE-POLICY-UNMODELLED) and the plane's routes are the bitset
model's, as if the filters let everything through."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers.frr import bgp_regex

if TYPE_CHECKING:
    from dualrail_net.verify.controlplane import PlaneControl
    from dualrail_net.verify.snapshot import Snapshot
    from dualrail_net.verify.topology import NodeId, Topology

# session directions times prefixes above which a plane's AS-path filters are reported, not judged:
# the reference's cost grows with it (docs/performance.md, twentieth session)
EXACT_LIMIT = 600_000


def path_text(path: tuple[int, ...]) -> str:
    return " ".join(map(str, path))


def list_permits(dev: DeviceConfig, name: str, path: tuple[int, ...]) -> bool:
    """bgpd's as_list_apply: whether AS-path access list ``name`` of ``dev`` permits ``path``."""
    entries = dev.as_path_lists.get(name)
    if entries is None:
        return False  # a list nobody defined denies everything
    text = path_text(path)
    for _seq, action, expression in sorted(entries, key=lambda e: e[0]):
        pattern = bgp_regex(expression)  # (the reader keeps only expressions that compile)
        if pattern is not None and pattern.search(text):
            return action == "permit"
    return False


def filtered_directions(snap: Snapshot, control: PlaneControl) -> list[tuple[NodeId, str, int, str]]:
    """The AS-path filters of a plane's sessions: (instance, device, line, what) for every
    neighbor's `filter-list` and every `match as-path` in a route-map a neighbor applies, once."""
    out: dict[tuple[str, int], tuple[NodeId, str, int, str]] = {}
    for node in control.nodes:
        dev = snap.devices[node[0]]
        for n in dev.bgp[node[1]].neighbors.values():
            for way in ("in", "out"):
                listed = getattr(n, f"filter_list_{way}")
                if listed is not None:
                    line = getattr(n, f"filter_list_{way}_line") or n.line
                    out.setdefault((dev.name, line), (node, dev.name, line, f"neighbor {n.address} filter-list "
                                                                            f"{listed} {way}"))
            for name in (n.route_map_in, n.route_map_out):
                for entry in dev.route_maps.get(name or "", []):
                    for listed, line in entry.as_path_clauses:
                        out.setdefault((dev.name, line), (node, dev.name, line,
                                                          f"match as-path {listed} (route-map {name})"))
    return list(out.values())


def judge_path_filters(snap: Snapshot, topo: Topology, control: PlaneControl,
                       keys: Mapping[int, list[int]], path_overrides: Mapping[str, int] | None) -> None:
    """Where AS-path filters are in play on ``control``'s plane, its installed routes (``reach``,
    ``via_in``) become the plain reference's, which follows every path through them. ``keys``:
    per receiver number, the sender number of each session up toward it, in session order (a
    parallel session's alias: controlplane.PlaneControl.via_in)."""
    filters = filtered_directions(snap, control)
    if not filters:
        return
    directions = sum(len(k) for k in keys.values())
    if directions * len(control.index.prefixes) > EXACT_LIMIT:
        control.unmodelled = sorted(set(control.unmodelled) | {
            (device, line, f"{what}: not evaluated, the plane is too large to follow every AS path "
                           f"({directions} session directions)") for _, device, line, what in filters})
        return
    from dualrail_net.verify.reference_rib import PathDenials, reference_rib  # (it reads the model this module serves)

    denied: PathDenials = {}
    rib = reference_rib(snap, topo, control.plane, path_overrides, denied)
    bit_index = {p: i for i, p in enumerate(control.index.prefixes)}
    for (sender, receiver, prefix), why in denied.items():
        bit = bit_index.get(prefix)
        if bit is not None:
            control.path_denied.setdefault((sender, receiver), {})[bit] = why
    n = len(control.nodes)
    for r, node in enumerate(control.nodes):
        table = rib.get(node, {})
        reach = 0
        via: dict[int, int] = {}
        sessions: dict[int, list[int]] = {}  # sender -> its sessions' numbers toward this receiver
        for key in keys.get(r, []):
            sessions.setdefault(key if key < n else control.alias[key - n], []).append(key)
        for prefix, senders in table.items():
            bit = bit_index.get(prefix)
            if bit is None:
                continue
            reach |= 1 << bit
            taken: dict[int, int] = {}
            for sender in senders:
                s = control.number[sender]
                k = taken.get(s, 0)
                taken[s] = k + 1
                numbers = sessions.get(s, [s])
                key = numbers[min(k, len(numbers) - 1)]
                via[key] = via.get(key, 0) | 1 << bit
        control.reach[node] = reach
        control.via_in[r] = via
