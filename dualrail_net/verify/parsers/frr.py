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
from dualrail_net.verify.parsers.tree import LINE, SECTION_ENDS, Node


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


def neighbor_statement(inst: BgpInstance, w: list[str]) -> bool:
    """`neighbor ADDR remote-as|description|route-map ...`: the same words in FRR and EOS. False
    for a neighbor statement the model does not read (shutdown, peer-group, timers ...)."""
    n = inst.neighbors.get(w[1])
    if n is None:  # not setdefault: that would build a throwaway Neighbor for each of its lines
        n = inst.neighbors[w[1]] = Neighbor(w[1])
    if w[2] == "remote-as" and len(w) >= 4:
        n.remote_asn = _int(w[3])
    elif w[2] == "description":
        n.description = " ".join(w[3:])
    elif w[2] == "shutdown" and len(w) == 3:
        n.shutdown = True
    elif w[2] == "route-map" and len(w) >= 5 and w[4] in ("in", "out"):
        if w[4] == "in":
            n.route_map_in = w[3]
        else:
            n.route_map_out = w[3]
    else:
        return False
    return True


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


def bgp_statement(inst: BgpInstance, w: list[str]) -> bool:
    """One statement of a `router bgp` block or of its ipv4 unicast address family; False when the
    model does not read it."""
    head = w[0]  # dispatch on the first word: neighbor lines are most of a big config
    if head == "neighbor":
        return len(w) >= 3 and neighbor_statement(inst, w)
    if head == "network":
        if len(w) == 2:
            inst.networks.append(w[1])
            return True
        return False  # network X route-map/backdoor ...: not modelled
    if head == "bgp":
        if w[1:2] == ["router-id"] and len(w) > 2:
            inst.router_id = w[2]
        elif w[1:4] == ["bestpath", "as-path", "multipath-relax"]:
            inst.multipath_relax = True
        else:
            return False
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
    else:
        return False
    return True


# Top-level lines with nothing for the routing model to read: they neither add nor change a route.
KNOWN_TOP_LEVEL = ("frr version ", "frr defaults datacenter", "log ", "service integrated-vtysh-config",
                   "no ipv6 forwarding", "ipv6 forwarding", "line vty")


def parse_frr(text: str, dev: DeviceConfig) -> None:
    """One pass over the lines, without building a tree: a 100k-GPU fabric has ~5M FRR lines.
    Nesting is decided by indentation exactly as tree.parse_tree decides it (tests compare both):
    a line opens a new top-level block when it is indented no deeper than the current one, else it
    is a child of that block when no deeper than the current child, else a grandchild."""
    top_indent = child_indent = grand_indent = -1  # -1: none open
    block = ""  # what the open top-level block is: "bgp", "route-map", "vrf" or "" (nothing to read)
    inst: BgpInstance | None = None
    entry: RouteMapEntry | None = None
    vrf = ""
    in_af = False  # the current child of a bgp block is its `address-family ipv4 unicast`
    other_af = False  # ... or another address family (reported once, with its lines)
    for spaces, line in LINE.findall(text):
        stripped = line.rstrip()
        if stripped in SECTION_ENDS:
            continue
        depth = len(spaces)
        if top_indent < 0 or depth <= top_indent:
            top_indent, child_indent, grand_indent = depth, -1, -1
            block = ""
            w = stripped.split()
            head = w[0]
            if head == "router" and w[1:2] == ["bgp"] and len(w) >= 3:
                name = w[4] if len(w) >= 5 and w[3] == "vrf" else None
                inst = dev.bgp[name] = BgpInstance(vrf=name, asn=int(w[2]))  # a later block replaces
                block, in_af = "bgp", False
            elif head == "ip" and len(w) > 1:
                if w[1] == "route":
                    route = _static(w, None)
                    if route:
                        dev.static_routes.append(route)
                elif w[1] == "prefix-list" and len(w) > 2:
                    pl_entry = parse_prefix_list_line(w, 3)
                    if pl_entry:
                        dev.prefix_lists.setdefault(w[2], []).append(pl_entry)
            elif head == "route-map" and len(w) >= 4:
                entry = RouteMapEntry(int(w[3]), w[2])
                dev.route_maps.setdefault(w[1], []).append(entry)
                block = "route-map"
            elif head == "hostname" and len(w) > 1:
                dev.hostname = w[1]
            elif head == "vrf" and len(w) > 1:
                dev.vrfs.setdefault(w[1], None)
                vrf, block = w[1], "vrf"
            elif not stripped.startswith(KNOWN_TOP_LEVEL):
                dev.unmodelled.append(stripped)
                block = "unmodelled"  # its children belong to it: the block is what is reported
            continue
        if child_indent < 0 or depth <= child_indent:
            child_indent, grand_indent = depth, -1
            other_af = False
            if not block or block == "unmodelled":
                if not block:
                    dev.unmodelled.append(stripped)
                continue
            w = stripped.split()
            if block == "bgp":
                assert inst is not None
                if w[0] == "address-family":
                    in_af = w[1:] == ["ipv4", "unicast"]
                    other_af = not in_af
                    if other_af:
                        dev.unmodelled.append(stripped)
                else:
                    in_af = other_af = False
                    if not bgp_statement(inst, w):
                        dev.unmodelled.append(stripped)
            elif block == "route-map":
                assert entry is not None
                if w[:4] == ["match", "ip", "address", "prefix-list"] and len(w) > 4:
                    entry.match_prefix_lists.append(w[4])
                else:
                    dev.unmodelled.append(stripped)
            elif w[:2] == ["ip", "route"]:  # vrf block
                route = _static(w, vrf)
                if route:
                    dev.static_routes.append(route)
            else:
                dev.unmodelled.append(stripped)
            continue
        # a grandchild, or deeper: only an ipv4 unicast address family's statements are read; the
        # lines of a reported block (an unmodelled top-level block, another address family) are
        # covered by its report, every other one is reported itself
        if grand_indent < 0 or depth <= grand_indent:
            grand_indent = depth
            if in_af and block == "bgp":
                assert inst is not None
                if not bgp_statement(inst, stripped.split()):
                    dev.unmodelled.append(stripped)
                continue
        if block != "unmodelled" and not other_af:
            dev.unmodelled.append(stripped)
    finish_bgp(dev)
    for inst in dev.bgp.values():
        for source in inst.vrf_imports:
            dev.vrf_route_leaks.append((source, inst.vrf or "default"))


def finish_bgp(dev: DeviceConfig) -> None:
    """After a device is read (every platform): a neighbor that is shut down brings up no session,
    so it leaves ``neighbors`` (what pairing and propagation read) for ``shut_neighbors``."""
    for inst in dev.bgp.values():
        shut = [address for address, n in inst.neighbors.items() if n.shutdown]
        for address in shut:
            del inst.neighbors[address]
        inst.shut_neighbors.extend(shut)
