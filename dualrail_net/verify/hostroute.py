"""A server's forwarding decision, as the Linux kernel makes it from the rendered interfaces file:
policy rules in priority order (local 0, the file's rules, main 32766, default 32767; a rule without a
priority gets the one below the previous rule's, as `ip rule add` numbers it), then the longest
matching route of the rule's table (the main table holds the connected subnets of every addressed
port and the routes without a table; a route with a gateway and no device leaves by the port whose
subnet holds the gateway). A table without a match passes on to the next rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from dualrail_net.verify.ipfast import ip_int, network_of
from dualrail_net.verify.model import ServerConfig

MAIN, LOCAL = 254, 255


@dataclass(frozen=True)
class Egress:
    dev: str | None  # None: delivered locally
    via: str | None
    table: int


@dataclass
class HostRouting:
    """One server's rules and tables, ready for lookups."""

    rules: list[tuple[int, int, int, int]]  # (priority, source network, source length, table)
    tables: dict[int, list[tuple[int, int, str | None, str | None]]]  # table -> (network, length, dev, via), longest first
    local: set[int]  # the server's own addresses

    def lookup(self, source: int, destination: int) -> Egress | None:
        """Where a packet from ``source`` to ``destination`` leaves (None: no route)."""
        if destination in self.local:
            return Egress(None, None, LOCAL)
        for _, net, length, table in self.rules:
            mask = ((1 << length) - 1) << (32 - length) if length else 0
            if source & mask != net:
                continue
            for r_net, r_len, dev, via in self.tables.get(table, ()):
                r_mask = ((1 << r_len) - 1) << (32 - r_len) if r_len else 0
                if destination & r_mask == r_net:
                    return Egress(dev, via, table)
        return None


def host_routing(srv: ServerConfig) -> HostRouting:
    connected: list[tuple[int, int, str]] = []
    local: set[int] = set()
    for name, iface in srv.interfaces.items():
        if iface.down:
            continue
        for address in iface.addresses:
            try:
                net, length = network_of(address)
                local.add(ip_int(address.partition("/")[0]))
            except ValueError:
                continue
            connected.append((net, length, name))
    tables: dict[int, list[tuple[int, int, str | None, str | None]]] = {MAIN: [(n, l, d, None) for n, l, d in connected]}
    for route in srv.routes:
        try:
            net, length = (0, 0) if route.prefix == "default" else network_of(route.prefix)
            via_ip = ip_int(route.via) if route.via else None
        except ValueError:
            continue
        dev = route.dev
        if dev is None and via_ip is not None:  # the port whose subnet holds the gateway
            dev = next((d for n, l, d in connected if via_ip & (((1 << l) - 1) << (32 - l) if l else 0) == n), None)
        table = tables.setdefault(route.table if route.table is not None else MAIN, [])
        # `ip route replace` of the same prefix replaces it
        table[:] = [r for r in table if (r[0], r[1]) != (net, length)] + [(net, length, dev, route.via)]
    for table in tables.values():
        table.sort(key=lambda r: -r[1])
    rules: list[tuple[int, int, int, int]] = [(0, 0, 0, LOCAL)]
    previous = 32766
    for rule in srv.rules:
        priority = rule.priority if rule.priority is not None else previous - 1
        previous = priority
        try:
            source = ip_int(rule.source)
        except ValueError:
            continue
        mask = ((1 << rule.source_len) - 1) << (32 - rule.source_len) if rule.source_len else 0
        rules.append((priority, source & mask, rule.source_len, rule.table))
    rules += [(32766, 0, 0, MAIN), (32767, 0, 0, 253)]
    rules.sort(key=lambda r: r[0])  # stable: equal priorities keep the order they were added in
    return HostRouting(rules, tables, local)
