"""AS-path filters judged on each route's AS path: FRR's AS-path access lists (`bgp as-path
access-list NAME [seq N] permit|deny REGEX`) as a neighbor's `filter-list NAME in|out` and a
route-map's `match as-path NAME` use them.

bgpd matches an entry's expression against the path written as text (the ASNs, a space between
two: "65001 65100"; an empty path is ""), `_` standing for a delimiter (``^``, ``$``, a space, a
comma or a brace: bgp_regcomp); the first entry in seq order that matches decides; none, or a
list nobody defined, denies (as_list_apply). Outbound, the filter and the route-map see the path
the sender holds (before its own ASN goes in front); inbound, the path as it arrives.

The bitset model (verify/controlplane.py) propagates sets of prefixes, not paths, so it cannot
say which path a route arrives with: where such a filter is in play, verify/pathjudge.py has the
plain reference follow every path (``filtered_directions`` lists the filters it names)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers.frr import bgp_regex

if TYPE_CHECKING:
    from dualrail_net.verify.controlplane import PlaneControl
    from dualrail_net.verify.snapshot import Snapshot
    from dualrail_net.verify.topology import NodeId

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
