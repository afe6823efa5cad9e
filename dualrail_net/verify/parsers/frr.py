"""FRR integrated config (frr.conf) -> BGP, policy and static-route parts of DeviceConfig."""

from __future__ import annotations

from dualrail_net.verify.model import (
    BgpInstance,
    DeviceConfig,
    Neighbor,
    PrefixListEntry,
    RouteMapEntry,
    StaticRoute,
)
from dualrail_net.verify.parsers.tree import Node, parse_tree


def _int(word: str) -> int | None:
    return int(word) if word.isdigit() else None


def parse_prefix_list_line(words: list[str], start: int) -> PrefixListEntry | None:
    """words[start:] = 'seq N permit|deny PREFIX [ge N] [le N]' (or without 'seq N')."""
    rest = words[start:]
    seq = 0
    if rest and rest[0] == "seq":
        seq, rest = int(rest[1]), rest[2:]
    if len(rest) < 2:
        return None
    entry = PrefixListEntry(seq, rest[0], rest[1])
    for key, value in zip(rest[2::2], rest[3::2]):
        if key == "ge":
            entry.ge = int(value)
        elif key == "le":
            entry.le = int(value)
    return entry


def neighbor_statement(inst: BgpInstance, w: list[str]) -> None:
    """`neighbor ADDR remote-as|description|route-map ...`: the same words in FRR and EOS."""
    n = inst.neighbors.get(w[1])
    if n is None:  # not setdefault: that would build a throwaway Neighbor for each of its lines
        n = inst.neighbors[w[1]] = Neighbor(w[1])
    if w[2] == "remote-as":
        n.remote_asn = _int(w[3])
    elif w[2] == "description":
        n.description = " ".join(w[3:])
    elif w[2] == "route-map" and len(w) >= 5:
        if w[4] == "in":
            n.route_map_in = w[3]
        elif w[4] == "out":
            n.route_map_out = w[3]


def route_map_entry(node: Node, dev: DeviceConfig) -> None:
    """`route-map NAME permit|deny SEQ` with its `match ip address prefix-list` lines."""
    w = node.words
    entry = RouteMapEntry(int(w[3]), w[2])
    for child in node.children:
        cw = child.words
        if cw[:4] == ["match", "ip", "address", "prefix-list"] and len(cw) > 4:
            entry.match_prefix_lists.append(cw[4])
    dev.route_maps.setdefault(w[1], []).append(entry)


def _static(words: list[str], vrf: str | None) -> StaticRoute | None:
    # ip route PREFIX (blackhole|Null0|NEXTHOP|IFNAME) [nexthop-vrf X] [vrf X]
    if len(words) < 4:
        return None
    nexthop: str | None = words[3]
    if nexthop in ("blackhole", "Null0", "reject"):
        nexthop = None
    nh_vrf = None
    for key, value in zip(words[4:], words[5:]):
        if key == "nexthop-vrf":
            nh_vrf = value
        elif key == "vrf":
            vrf = value
    return StaticRoute(vrf, words[2], nexthop, nh_vrf)


def _bgp(node: Node, dev: DeviceConfig) -> None:
    words = node.words
    vrf = words[4] if len(words) >= 5 and words[3] == "vrf" else None
    inst = BgpInstance(vrf=vrf, asn=int(words[2]))

    def statement(w: list[str]) -> None:
        head = w[0]  # dispatch on the first word: neighbor lines are most of a big config
        if head == "neighbor":
            if len(w) >= 4:
                neighbor_statement(inst, w)
        elif head == "network":
            if len(w) >= 2:
                inst.networks.append(w[1])
        elif head == "bgp":
            if w[1:2] == ["router-id"] and len(w) > 2:
                inst.router_id = w[2]
            elif w[1:4] == ["bestpath", "as-path", "multipath-relax"]:
                inst.multipath_relax = True
        elif head == "redistribute" and len(w) >= 2:
            inst.redistribute.append(w[1])
        elif head == "maximum-paths" and len(w) >= 2 and w[1].isdigit():
            inst.maximum_paths = int(w[1])
        elif head == "import" and w[1:2] == ["vrf"] and len(w) >= 3 and w[2] != "route-map":
            inst.vrf_imports.append(w[2])
        elif head in ("route-target", "rt") and w[1:2] == ["vpn"] and len(w) >= 3:
            if w[2] in ("import", "both"):
                inst.rt_import.extend(w[3:])
            if w[2] in ("export", "both"):
                inst.rt_export.extend(w[3:])

    for child in node.children:
        cw = child.words
        if cw[0] == "address-family":
            if cw[1:3] == ["ipv4", "unicast"]:
                for grandchild in child.children:
                    statement(grandchild.words)
        else:
            statement(cw)
    dev.bgp[vrf] = inst


def parse_frr(text: str, dev: DeviceConfig) -> None:
    for node in parse_tree(text):
        w = node.words
        if w[0] == "hostname" and len(w) > 1:
            dev.hostname = w[1]
        elif w[0] == "vrf" and len(w) > 1:
            dev.vrfs.setdefault(w[1], None)
            for child in node.children:
                if child.words[:2] == ["ip", "route"]:
                    route = _static(child.words, w[1])
                    if route:
                        dev.static_routes.append(route)
        elif w[:2] == ["ip", "route"]:
            route = _static(w, None)
            if route:
                dev.static_routes.append(route)
        elif w[:2] == ["ip", "prefix-list"] and len(w) > 2:
            entry = parse_prefix_list_line(w, 3)
            if entry:
                dev.prefix_lists.setdefault(w[2], []).append(entry)
        elif w[0] == "route-map" and len(w) >= 4:
            route_map_entry(node, dev)
        elif w[:2] == ["router", "bgp"] and len(w) >= 3:
            _bgp(node, dev)
    for inst in dev.bgp.values():
        for source in inst.vrf_imports:
            dev.vrf_route_leaks.append((source, inst.vrf or "default"))
