"""A server's forwarding decision, as the Linux kernel makes it from the rendered interfaces file:
policy rules in priority order (local 0, the file's rules, main 32766, default 32767; a rule without a
priority gets one below the lowest non-zero priority in place, as the kernel numbers it), then the
longest matching route of the rule's table, the lowest metric among equal prefixes. The main table
holds the connected subnets of every addressed port that is up; the local table every address of
the server, a port kept down included. A route is installed as `ip route` would install it: its
port must be up, its gateway on a connected subnet of that port (or of any port up, when none is
named) unless `onlink`, its `src` (preferred source) an address of the server by then; `add` fails
where a route with the same prefix and metric exists, `replace` replaces it. A table without a match
passes on to the next rule. Traffic from a socket bound to no address takes the route's `src`, else
the port's first primary address on the gateway's subnet, else its first one, else the first address
of any port. ``tests/test_hostroute.py`` holds the model to the kernel's own decisions
(twin/host_oracle.py).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from dualrail_net.verify.ipfast import ip_int, network_of, split_address
from dualrail_net.verify.model import ServerConfig, ServerRoute, ServerRule

MAIN, LOCAL = 254, 255


Hop = tuple[str, str | None]  # (port, gateway) of one next hop


@dataclass(frozen=True)
class Egress:
    dev: str | None  # None: delivered locally
    via: str | None
    table: int
    src: int | None = None  # the route's preferred source (`src`; a connected route's own address)
    # a multipath route: every (port, gateway) a flow may be hashed onto (dev/via: the first);
    # empty: one next hop
    hops: tuple[Hop, ...] = ()

    def each(self) -> list[Egress]:
        """One Egress per next hop a flow may take (itself when there is one)."""
        return [Egress(dev, via, self.table, self.src) for dev, via in self.hops] if self.hops else [self]


Route = tuple[int, int, str | None, str | None, int | None]  # (network, length, dev, via, preferred source)
# (priority, source network, source length, table, destination network, destination length, whether
# the server's own traffic matches its `iif` and `fwmark`, `not`); a table below 0: a reject rule (_REJECT_RULES)
Rule = tuple[int, int, int, int, int, int, bool, bool]


@dataclass
class HostRouting:
    """One server's rules and tables, ready for lookups."""

    rules: list[Rule]  # in priority order
    # table -> routes, longest first, then the lowest metric, then the first added
    tables: dict[int, list[Route]]
    local: set[int]  # the server's own addresses
    # each port's primary addresses (address, network, length), in the order added; ports in file order
    primaries: dict[str, list[tuple[int, int, int]]]
    addresses: dict[str, list[int]]  # each port's addresses, secondaries included, in the order configured
    # (table, network, length) -> the next hops of the multipath route that wins for that prefix
    # there (only the first route of a prefix in a table is ever taken)
    multipath: dict[tuple[int, int, int], tuple[Hop, ...]] = field(default_factory=dict)

    def lookup(self, source: int, destination: int) -> Egress | None:
        """Where a packet from ``source`` to ``destination`` leaves (None: no route); ``source`` 0:
        a socket bound to no address (only rules from any source match it)."""
        if destination in self.local:
            return Egress(None, None, LOCAL)
        for _, net, length, table, to_net, to_len, arrives, invert in self.rules:
            mask = ((1 << length) - 1) << (32 - length) if length else 0
            if to_len or invert or not arrives:
                to_mask = ((1 << to_len) - 1) << (32 - to_len) if to_len else 0
                # the server's own traffic arrives on lo: a rule for another port never takes it
                if (source & mask == net and destination & to_mask == to_net and arrives) == invert:
                    continue
            elif source & mask != net:  # (the common rule: by source only)
                continue
            if table < 0:  # a blackhole, unreachable or prohibit rule: the lookup ends, nothing leaves
                return None
            for r_net, r_len, dev, via, src in self.tables.get(table, ()):
                r_mask = ((1 << r_len) - 1) << (32 - r_len) if r_len else 0
                if destination & r_mask == r_net:
                    # a blackhole, unreachable or prohibit route ends the lookup: nothing leaves
                    if dev == REJECT:
                        return None
                    return Egress(dev, via, table, src, self.multipath.get((table, r_net, r_len), ())
                                  if self.multipath else ())
        return None

    def address_inside(self, net: int, length: int) -> int:
        """An address of the prefix that is not the server's own (those are delivered locally);
        the network itself when its first 64 addresses all are: what a probe of the route sends to."""
        return next((a for a in range(net, net + min(1 << (32 - length), 64)) if a not in self.local), net)

    def source_for(self, egress: Egress) -> int | None:
        """The source address a socket bound to none sends with (the kernel's inet_select_addr): the
        route's `src`; else the port's first primary address on the gateway's subnet, else its first;
        else the first address of any port."""
        if egress.src is not None:
            return egress.src
        if egress.dev is None:
            return None
        own = self.primaries.get(egress.dev, [])
        if egress.via is not None:
            gateway = ip_int(egress.via)
            for address, net, length in own:
                if _holds(net, length, gateway):
                    return address
        if own:
            return own[0][0]
        return next((addresses[0][0] for addresses in self.primaries.values() if addresses), None)


def _holds(net: int, length: int, ip: int) -> bool:
    return ip & (((1 << length) - 1) << (32 - length) if length else 0) == net


# (network, length, metric, dev, via, src, a multipath route's hops)
Entry = tuple[int, int, int, str | None, str | None, int | None, tuple[Hop, ...]]


@dataclass(slots=True)
class _Table:
    """One routing table as its routes went in. ``entries``: in the order added (None: a route
    deleted since: positions stay, so a delete is no scan of the table); ``first``: where each
    (network, length, metric) first is among the routes left; ``at``: each (network, length)'s
    routes left, their positions in order (a hostile file's thousands of routes and deletes stay
    linear; a scan per delete was quadratic: docs/performance.md)."""

    entries: list[Entry | None] = field(default_factory=list)
    first: dict[tuple[int, int, int], int] = field(default_factory=dict)
    at: dict[tuple[int, int], list[int]] = field(default_factory=dict)

    def routes(self) -> list[Entry]:
        return [e for e in self.entries if e is not None]


LOOPBACK = 0x7F000001  # 127.0.0.1, on lo before any stanza comes up
# a rule of one of REJECT_KINDS' types, as the table it "looks up" (below 0: no table has that
# number; one per type, as `ip rule del ... TYPE` deletes only a rule of that type)
_REJECT_RULES = {"blackhole": -1, "unreachable": -2, "prohibit": -3}


def _looks_up(rule: ServerRule) -> int:
    return _REJECT_RULES.get(rule.action, rule.table)


_DEFAULT_RULES: tuple[Rule, ...] = ((0, 0, 0, LOCAL, 0, 0, True, False), (32766, 0, 0, MAIN, 0, 0, True, False),
                                    (32767, 0, 0, 253, 0, 0, True, False))
REJECT = "!reject"  # the device of a route that forwards nothing (no port has this name)


def kernel_takes_prefix(prefix: str) -> bool:
    """Whether the kernel takes ``prefix`` (an address, `A/N` or `default`) as a route's
    destination: not with bits set beyond its length (`10.12.0.2/30`): `ip route add|replace|del`
    fails, "Invalid prefix for given prefix length" (measured; a rule's `from A/N` takes them)."""
    if prefix == "default" or "/" not in prefix:
        return True
    address, _, _ = prefix.partition("/")
    try:
        return ip_int(address) == network_of(prefix)[0]
    except ValueError:
        return False


def _resolve(route: ServerRoute, up: dict[str, list[tuple[int, int]]], up_order: list[str],
             local: set[int], through: _GatewayRules | None = None) -> Entry | None:
    """The route as the kernel installs it, or None where `ip route` fails: its port missing or
    down ("Nexthop device is not up"), its gateway on no connected subnet of that port (of any port
    up, when none is named: the longest subnet holding it) unless `onlink` ("Nexthop has invalid
    gateway"), its `src` not an address of the server yet ("Invalid prefsrc address"). ``up``: the
    connected subnets of each port up so far, in the order they came up; ``local``: the addresses
    configured so far; ``through``: the rules in place so far, when one of them may take the
    gateway's lookup before the main table (_GatewayRules)."""
    try:
        net, length = (0, 0) if route.prefix == "default" else network_of(route.prefix)
        via_ip = ip_int(route.via) if route.via else None
        src = ip_int(route.src) if route.src else None
    except ValueError:
        return None
    if not kernel_takes_prefix(route.prefix):
        return None
    if route.kind != "unicast":
        return (net, length, route.metric, REJECT, None, None, ())  # needs no port: installed as it comes
    if src is not None and src not in local:
        return None
    if route.hops:  # every hop must resolve, or `ip route` refuses the whole route
        hops: list[Hop] = []
        for via, dev, onlink in route.hops:
            port = _hop_port(dev, ip_int(via) if via else None, onlink, up, up_order, through)
            if port is None:
                return None
            hops.append((port, via))
        return (net, length, route.metric, hops[0][0], hops[0][1], src, tuple(hops))
    dev = _hop_port(route.dev, via_ip, route.onlink, up, up_order, through)
    if dev is None:
        return None
    return (net, length, route.metric, dev, route.via, src, ())


def _hop_port(dev: str | None, via_ip: int | None, onlink: bool, up: dict[str, list[tuple[int, int]]],
              up_order: list[str], through: _GatewayRules | None = None) -> str | None:
    """The port a next hop leaves by (None: it does not resolve): the named port, up; a gateway on
    a connected subnet of it (of any port up, when none is named: the longest subnet holding it)
    unless `onlink`. ``through``: the gateway is looked up through those rules (else the main
    table's connected subnets answer, as the default rules leave it)."""
    if dev is not None and dev not in up:
        return None
    if via_ip is not None and not onlink:
        if through is not None:
            return through.gateway_port(dev, via_ip, up, up_order)
        return _connected_port(dev, via_ip, up, up_order)
    return dev


def _connected_port(dev: str | None, via_ip: int, up: dict[str, list[tuple[int, int]]],
                    up_order: list[str]) -> str | None:
    """The port whose connected subnet holds the gateway, the longest (only ``dev``'s when given)."""
    best, found = -1, None
    for port in (dev,) if dev is not None else up_order:
        for n, l in up[port]:
            if l > best and _holds(n, l, via_ip):
                best, found = l, port
    return found


@dataclass
class _GatewayRules:
    """The kernel looks a new route's gateway up (fib_check_nh) through the policy rules in place
    when the route is added, for a packet from no address and with no mark, and takes only routes
    of link scope (a port's connected subnet, a route with a port and no gateway): a rule that
    rejects (blackhole, unreachable, prohibit) ends it and `ip route` fails; a table without such a
    route passes it on to the next rule."""

    rules: list[Rule]
    added: dict[int, _Table]

    def gateway_port(self, dev: str | None, via_ip: int, up: dict[str, list[tuple[int, int]]],
                     up_order: list[str]) -> str | None:
        for _, net, _length, table, to_net, to_len, arrives, invert in self.rules:
            to_mask = ((1 << to_len) - 1) << (32 - to_len) if to_len else 0
            # (from no address: only a rule from any source, network 0, takes the packet)
            if (net == 0 and via_ip & to_mask == to_net and arrives) == invert:
                continue
            if table < 0:
                return None
            if table == MAIN:
                found = _connected_port(dev, via_ip, up, up_order)
            else:  # (the local table holds the server's own addresses: no gateway is one)
                found = _link_route_port(self.added.get(table), dev, via_ip, up)
            if found is not None:
                return found
        return None


def _link_route_port(table: _Table | None, dev: str | None, via_ip: int,
                     up: dict[str, list[tuple[int, int]]]) -> str | None:
    """The port of the longest link-scope route (a port, no gateway) of ``table`` that holds
    ``via_ip`` over a port that is up (and is ``dev`` when one is named); the first added of one
    length. One probe per length, not a scan of the table."""
    if table is None:
        return None
    for length in range(32, -1, -1):
        net = via_ip >> (32 - length) << (32 - length) if length else 0
        for i in table.at.get((net, length), ()):
            entry = table.entries[i]
            if entry is not None and entry[4] is None and not entry[6] and entry[3] in up \
                    and (dev is None or entry[3] == dev):
                return entry[3]
    return None


def link_route_port_plain(table: _Table | None, dev: str | None, via_ip: int,
                          up: dict[str, list[tuple[int, int]]]) -> str | None:
    """The plain reference of _link_route_port (tests hold the two equal): a scan of the table."""
    best, found = -1, None
    for n, l, _metric, port, via, _src, hops in table.routes() if table is not None else ():
        if via is None and not hops and port in up and (dev is None or port == dev) and l > best \
                and _holds(n, l, via_ip):
            best, found = l, port
    return found


def _install(table: _Table, entry: Entry, verb: str) -> None:
    """`ip route add|replace|append` into a table: add fails where a route with the same prefix
    and metric exists ("File exists"), replace replaces it, append goes behind it."""
    key = entry[:3]
    same = table.first.get(key)
    if same is not None and verb == "add":
        return
    if same is not None and verb == "replace":
        table.entries[same] = entry
        return
    position = len(table.entries)
    table.entries.append(entry)
    table.first.setdefault(key, position)
    table.at.setdefault(entry[:2], []).append(position)


def _delete(table: _Table, route: ServerRoute) -> None:
    """`ip route del`: the kernel's fib_table_delete takes the prefix's first route (lowest metric
    first) of at least the metric given whose gateway and port are those given (the ones not given
    match any); nothing when none does ("No such process")."""
    try:
        net, length = (0, 0) if route.prefix == "default" else network_of(route.prefix)
    except ValueError:
        return
    if not kernel_takes_prefix(route.prefix):
        return
    positions = table.at.get((net, length), [])
    best: int | None = None
    gone: Entry | None = None
    for i in positions:
        entry = table.entries[i]
        if entry is not None and entry[2] >= route.metric and (route.via is None or entry[4] == route.via) \
                and (route.dev is None or entry[3] == route.dev) and (gone is None or entry[2] < gone[2]):
            best, gone = i, entry
    if best is None or gone is None:
        return
    table.entries[best] = None
    positions.remove(best)
    key = gone[:3]
    if table.first.get(key) == best:
        after = next((i for i in positions if (e := table.entries[i]) is not None and e[:3] == key), None)
        if after is None:
            del table.first[key]
        else:
            table.first[key] = after


def _rule_fits(r: Rule, rule: ServerRule, looks_up: int, source: int, to_net: int, to_len: int) -> bool:
    """Whether rule ``r`` in place has every selector `ip rule del` ``rule`` gives."""
    priority, src, src_len, table, r_to, r_to_len, _own, invert = r
    return (rule.priority is None or priority == rule.priority) and (looks_up == 0 or table == looks_up) \
        and (rule.source_len == 0 or (src_len, src) == (rule.source_len, source)) \
        and (rule.destination is None or (r_to, r_to_len) == (to_net, to_len)) and invert == rule.invert


def _rule_deleted(rules: list[Rule], rule: ServerRule, looks_up: int, source: int, to_net: int, to_len: int,
                  by_source: dict[tuple[int, int], list[Rule]]) -> None:
    """`ip rule del`: the first rule in priority order that every selector given matches (kernel
    fib_nl_delrule; the default rules too). ``looks_up``: the rule's table as _looks_up gives it;
    ``source``: its source under its mask; ``by_source``: the rules in place by (length, source), in
    list order. A priority given is found by halving, a source in its bucket (a hostile file's
    thousands of deletions stay n log n); only a deletion naming neither scans the list."""
    if rule.priority is not None:
        first = bisect.bisect_left(rules, rule.priority, key=_priority)
        candidates: list[Rule] = rules[first:bisect.bisect_right(rules, rule.priority, lo=first, key=_priority)]
    elif rule.source_len:
        candidates = by_source.get((rule.source_len, source), [])
    else:
        candidates = rules
    gone = next((r for r in candidates if _rule_fits(r, rule, looks_up, source, to_net, to_len)), None)
    if gone is None:
        return
    first = bisect.bisect_left(rules, gone[0], key=_priority)
    del rules[next(at for at in range(first, len(rules)) if rules[at] is gone)]
    bucket = by_source[(gone[2], gone[1])]
    bucket.remove(gone)


def _rule_deleted_plain(rules: list[Rule], rule: ServerRule, looks_up: int, source: int, to_net: int,
                        to_len: int) -> None:
    """The plain reference of _rule_deleted: the list scanned in order."""
    for at, r in enumerate(rules):
        if _rule_fits(r, rule, looks_up, source, to_net, to_len):
            del rules[at]
            return


def host_routing(srv: ServerConfig) -> HostRouting:
    """The server's rules and tables as the kernel holds them once ifupdown2 has brought every
    stanza up in file order: a port's connected subnets enter the main table when its stanza comes
    up, and a stanza's routes are installed then, over the ports up by that time."""
    local: set[int] = set()
    subnets: dict[str, list[tuple[int, int]]] = {}
    addresses: dict[str, list[int]] = {}  # each port's addresses, in the order configured
    primaries: dict[str, list[tuple[int, int, int]]] = {}
    arriving: dict[str, list[tuple[str, tuple[int, int]]]] = {}  # stanza -> (port, subnet) it brings
    primary_of: dict[str, dict[tuple[int, int], int]] = {}  # port -> subnet -> its primary address
    for name, iface in srv.interfaces.items():
        for address in iface.addresses:
            try:
                ip, subnet = split_address(address)
                number = ip_int(ip)
            except ValueError:
                continue
            local.add(number)  # a down port's address stays in the local table
            addresses.setdefault(name, []).append(number)
            held = primary_of.setdefault(name, {})
            if subnet not in held:  # else a secondary address
                held[subnet] = number
                primaries.setdefault(name, []).append((number, *subnet))
            if iface.down:
                continue
            # a later stanza's command added it: its subnet comes up with that stanza
            adder = srv.added_later.get((name, address))
            if adder is not None:
                arriving.setdefault(adder, []).append((name, subnet))
            else:
                subnets.setdefault(name, []).append(subnet)
    by_port: dict[str | None, list[ServerRoute]] = {}
    for route in srv.routes:
        by_port.setdefault(route.port if route.port in srv.interfaces else None, []).append(route)
    # table -> its routes (network, length, metric, dev, via, source, hops) in the order added
    added: dict[int, _Table] = {MAIN: _Table()}
    up: dict[str, list[tuple[int, int]]] = {}  # the ports up so far, their connected subnets
    up_order: list[str] = []
    connected: dict[str, set[tuple[int, int]]] = {}  # up's subnets as sets, for the ports a later stanza adds to
    configured = {LOOPBACK}  # the addresses in place so far (a port kept down gets its own too)
    rules: list[Rule] = list(_DEFAULT_RULES)
    by_source: dict[tuple[int, int], list[Rule]] = {}  # the rules in place by (source length, source)
    for r in rules:
        by_source.setdefault((r[2], r[1]), []).append(r)
    pending = sorted(srv.rules, key=lambda r: r.order)
    taken = 0  # rules of ``pending`` in place
    # the gateways are looked up through the rules only once one of them may take a packet from no
    # address (the rendered rules each take one port's own source: the main table answers)
    through: _GatewayRules | None = None
    for stanza in [*srv.interfaces, None]:
        port = srv.interfaces.get(stanza) if stanza is not None else None
        if port is not None:
            configured.update(addresses.get(port.name, ()))
        if port is not None and not port.down and port.name not in up:
            up[port.name] = subnets.get(port.name, [])
            up_order.append(port.name)
            own_address = primary_of.get(port.name, {})
            for net, length in up[port.name]:
                _install(added[MAIN], (net, length, 0, port.name, None, own_address.get((net, length)), ()), "append")
        for name, (net, length) in arriving.get(stanza or "", ()):
            if name not in up:
                continue
            if name not in connected:
                connected[name] = set(up[name])
            if (net, length) not in connected[name]:
                up[name].append((net, length))
                connected[name].add((net, length))
                _install(added[MAIN], (net, length, 0, name, None, primary_of[name].get((net, length)), ()), "append")
        for route in by_port.get(stanza, ()):
            while taken < len(pending) and pending[taken].order < route.order:
                placed = _place_rule(rules, pending[taken], by_source)
                taken += 1
                # (a rule taken away never makes one take a packet from no address: the new one decides)
                if through is None and placed is not None and (placed[2] == 0 or placed[7]) \
                        and placed not in _DEFAULT_RULES:
                    through = _GatewayRules(rules, added)
            if route.verb == "delete":
                _delete(added.setdefault(route.table if route.table is not None else MAIN, _Table()), route)
                continue
            entry = _resolve(route, up, up_order, configured, through)
            if entry is not None:
                _install(added.setdefault(route.table if route.table is not None else MAIN, _Table()), entry, route.verb)
    ordered = {t: sorted(table.routes(), key=lambda r: (-r[1], r[2])) for t, table in added.items()}
    tables = {t: [(n, l, d, v, src) for n, l, _m, d, v, src, _hops in entries] for t, entries in ordered.items()}
    multipath: dict[tuple[int, int, int], tuple[Hop, ...]] = {}
    for t, entries in ordered.items():
        first: set[tuple[int, int]] = set()
        for n, l, *_rest, hops in entries:
            if (n, l) not in first and hops:
                multipath[(t, n, l)] = hops
            first.add((n, l))
    for rule in pending[taken:]:
        _place_rule(rules, rule, by_source)
    return HostRouting(rules, tables, local, primaries, addresses, multipath)


def _place_rule(rules: list[Rule], rule: ServerRule, by_source: dict[tuple[int, int], list[Rule]]) -> Rule | None:
    """`ip rule add|del` on the rules in place, in priority order (``rules`` stays sorted by
    priority; ``by_source`` holds them by source, in the same order); the rule added (None: none was)."""
    try:
        source = ip_int(rule.source)
        to_net, to_len = network_of(rule.destination) if rule.destination else (0, 0)
    except ValueError:
        return None
    if rule.priority is not None:
        priority = rule.priority
    else:  # the kernel: one below the second rule's priority (the first after local's 0), else 0
        second = rules[1][0] if len(rules) > 1 else 0  # (the kernel's fib_default_rule_pref)
        priority = second - 1 if second else 0
    mask = ((1 << rule.source_len) - 1) << (32 - rule.source_len) if rule.source_len else 0
    if rule.delete:
        _rule_deleted(rules, rule, _looks_up(rule), source & mask, to_net, to_len, by_source)
        return None
    # the server's own traffic arrives on lo and carries no mark (nothing in the rendered files
    # sets one): a fwmark selector matches it when the mark's bits under the mask are all 0
    takes_own = rule.iif in (None, "lo") and (rule.fwmark is None or rule.fwmark[0] & rule.fwmark[1] == 0)
    new = (priority, source & mask, rule.source_len, _looks_up(rule), to_net, to_len, takes_own, rule.invert)
    # after every rule of the same or a lower priority, as the kernel inserts it (found by halving:
    # a hostile file's thousands of rules stay n log n)
    first = bisect.bisect_left(rules, priority, key=_priority)
    at = bisect.bisect_right(rules, priority, lo=first, key=_priority)
    if new in rules[first:at]:
        return None  # `ip rule add` of a rule in place: "File exists"
    rules.insert(at, new)
    bucket = by_source.setdefault((new[2], new[1]), [])
    bucket.insert(bisect.bisect_right(bucket, priority, key=_priority), new)  # (after its equals, as in the list)
    return new


def _priority(rule: Rule) -> int:
    return rule[0]
