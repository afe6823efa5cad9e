"""A Cumulus switch's routes put in the kernel by its interfaces file's commands (a stanza's
`post-up`/`up` ``ip route add|replace|append ...``, read as iproute2 reads them: the host model's
reader). Cumulus's switchd programs the kernel's tables (the main table and each VRF's) into the
ASIC, so such a route forwards the fabric's traffic as one of zebra's does; zebra reads it in as a
kernel route (distance 0: it wins the prefix over BGP and static routes), and BGP advertises it only
through a ``network`` statement or ``redistribute kernel``.

Invariants: a command becomes a route here only when its table is the main one or a VRF's table
the file numbers (an `auto` table's number is the kernel's choice), it is not a deletion (a deletion
of a port's connected route leaves the port without IP traffic: Interface.down, _connected_deleted;
any other deletion stays reported), and each
of its hops (one, or a multipath route's `nexthop` groups) goes out of a fabric port (if it names
one) from a stanza ifupdown2 brings up, with a gateway the kernel takes: on a subnet of the port it
names (the kernel refuses another: "Nexthop has invalid gateway"), anywhere with `onlink` (the
hop is then the port's). A multipath route is one route per hop, at the same distance (zebra reads
it in as one route of those hops); the kernel refuses it whole when one hop is refused. The
ports are taken as up when a command runs, as `ifreload -a` (a deploy) finds them on a running
switch; at a boot, a hop out of a port whose stanza comes later is refused (not followed). Every
other command stays reported as not modelled. A policy rule of a reject type (`ip rule add ...
prohibit|blackhole|unreachable`) is kept for the BGP sessions the switch's own packets carry
(verify/kernelrules.py); one that also meets forwarded traffic stays reported too. A gateway
without a port is judged as for static routes (on a connected subnet of the route's VRF), which
the kernel also requires of it."""

from __future__ import annotations

import bisect
from collections.abc import Mapping

from dualrail_net.verify.ipfast import MASKS, contains, ip_int, network_of
from dualrail_net.verify.kernelrules import L3MDEV_PRIORITY, LOCAL_PRIORITY, MAIN_PRIORITY, DEFAULT_PRIORITY
from dualrail_net.verify.model import (
    connected_deleted,
    Interface,
    KernelLookup,
    KernelRule,
    ServerRoute,
    ServerRule,
    StaticRoute,
)
from dualrail_net.verify.hostroute import kernel_takes_prefix
from dualrail_net.verify.parsers.ifupdown import NOT_AUTO, REJECT_KINDS, InterfacesFile, server_policy

MAIN_TABLE = 254  # the kernel's main table: the default VRF's


def kernel_routes(parsed: InterfacesFile, pending: list[int], vrfs: Mapping[str, int | None],
                  interfaces: Mapping[str, Interface]
                  ) -> tuple[list[StaticRoute], list[KernelRule], list[KernelLookup], set[int]]:
    """The kernel routes, reject rules and VRF-table lookup rules (_lookup_rules) of the commands
    numbered ``pending`` (indexes into ``parsed.commands``: the ones no link reading took), and the
    numbers of the commands the routes and reject rules came from (a lookup rule stays reported)."""
    if not pending:
        return [], [], [], set()
    routes, rules = server_policy([parsed.commands[n] for n in pending], [],
                                  [parsed.command_ports[n] for n in pending])
    vrf_of_table = {table: vrf for vrf, table in vrfs.items() if table is not None}
    numbered = _numbered(parsed, pending, rules) if rules else []
    rejecting, ruled = _reject_rules(parsed, rules, numbered)
    lookups = _lookup_rules(parsed, rules, numbered, vrf_of_table)
    out: list[StaticRoute] = []
    taken: set[int] = set()
    for route in routes:
        if route.verb == "delete":
            port = _connected_deleted(route, interfaces, vrf_of_table)
            number = pending[route.order]
            stanza = parsed.interfaces.get(parsed.command_ports[number])
            if port is not None and stanza is not None and stanza.down != NOT_AUTO:
                if not interfaces[port].down:
                    interfaces[port].down = connected_deleted(parsed.command_lines[number], route.prefix)
                taken.add(number)
            continue
        if route.table is None or route.table == MAIN_TABLE:
            vrf: str | None = None
        elif route.table in vrf_of_table:
            vrf = vrf_of_table[route.table]
        else:
            continue  # a table no VRF of the file looks up
        number = pending[route.order]
        stanza = parsed.interfaces.get(parsed.command_ports[number])
        if stanza is None or stanza.down == NOT_AUTO:
            continue  # (a stanza ifupdown2 never brings up runs none of its commands)
        prefix = "0.0.0.0/0" if route.prefix == "default" else route.prefix if "/" in route.prefix \
            else route.prefix + "/32"
        if not kernel_takes_prefix(route.prefix):
            continue  # the kernel refuses the command (bits beyond the prefix's length): reported
        given = route.hops or ((route.via, route.dev, route.onlink),)
        hops = [(None, None)] if route.kind != "unicast" else \
            [hop for via, dev, onlink in given if (hop := _hop(via, dev, onlink, interfaces)) is not None]
        if len(hops) < len(given):
            continue  # a hop the kernel refuses, or out of no fabric port (the management port, a typo): reported
        for nexthop, port_vrf in hops:
            nexthop_vrf = None
            if port_vrf is not None and port_vrf != (vrf or ""):
                nexthop_vrf = port_vrf or "default"  # a route of one table out of another VRF's port
            out.append(StaticRoute(vrf, prefix, nexthop, nexthop_vrf, distance=0,
                                   line=parsed.command_lines[number], file="interfaces", kernel=True))
        taken.add(number)
    return out, rejecting, lookups, taken | ruled


def _numbered(parsed: InterfacesFile, pending: list[int],
              rules: list[ServerRule]) -> list[tuple[ServerRule, int, int]]:
    """The rules ifupdown2 runs (their stanza comes up), each with its priority as the kernel holds
    it (a rule given none is numbered one below the second rule's, the first after local's 0: with
    a VRF device, below the l3mdev rule's 1000) and its command's number, in the file's order."""
    # (a VRF device of the file, the management VRF's included, brings the l3mdev rule)
    held = [LOCAL_PRIORITY, *([L3MDEV_PRIORITY] if parsed.vrfs else []), MAIN_PRIORITY, DEFAULT_PRIORITY]
    out = []
    for rule in rules:  # (in the file's order: server_policy keeps it)
        number = pending[rule.order]
        stanza = parsed.interfaces.get(parsed.command_ports[number])
        if stanza is None or stanza.down == NOT_AUTO:
            continue  # (a stanza ifupdown2 never brings up runs none of its commands)
        priority = rule.priority if rule.priority is not None else (held[1] - 1 if held[1] else 0)
        bisect.insort(held, priority)
        out.append((rule, priority, number))
    return out


def _reject_rules(parsed: InterfacesFile, rules: list[ServerRule],
                  numbered: list[tuple[ServerRule, int, int]]) -> tuple[list[KernelRule], set[int]]:
    """The `ip rule add` commands of reject types as the kernel holds them (``numbered``:
    _numbered's), and the commands whose whole effect that is: a rule only for the switch's own
    packets (`iif lo`). One that also meets traffic the switch forwards stays reported: switchd
    programs no policy rule into the ASIC, so forwarded traffic passes it while what the CPU
    forwards does not (not judged). Only when every rule command of the file is a reject (a rule
    that looks a table up, or a deletion, leaves them all reported: what a lookup before a reject
    resolves is not followed)."""
    if not rules or any(rule.delete or rule.action not in REJECT_KINDS for rule in rules):
        return [], set()
    out: list[KernelRule] = []
    taken: set[int] = set()
    for rule, priority, number in numbered:
        to, _, to_len = (rule.destination or "0.0.0.0/0").partition("/")
        out.append(KernelRule(priority, ip_int(rule.source) & MASKS[rule.source_len], rule.source_len,
                              ip_int(to) & MASKS[int(to_len or 32)], int(to_len or 32), rule.iif, rule.invert,
                              rule.fwmark is not None and rule.fwmark[0] & rule.fwmark[1] != 0, rule.action,
                              parsed.command_lines[number]))
        if rule.iif == "lo":
            taken.add(number)
    return out, taken


def _lookup_rules(parsed: InterfacesFile, rules: list[ServerRule], numbered: list[tuple[ServerRule, int, int]],
                  vrf_of_table: Mapping[int, str]) -> list[KernelLookup]:
    """The file's `ip rule add ... lookup T` commands whose T is a table the file gives a VRF, as
    the kernel numbers them (``numbered``: _numbered's). None when the file deletes a rule: which
    rule a deletion takes out is not followed (they all stay reported)."""
    if any(rule.delete for rule in rules):
        return []
    return [KernelLookup(priority, ip_int(rule.source) & MASKS[rule.source_len], rule.source_len, rule.iif,
                         rule.invert, vrf_of_table[rule.table], parsed.command_lines[number])
            for rule, priority, number in numbered
            if rule.action == "lookup" and rule.table in vrf_of_table and rule.fwmark is None]


def _connected_deleted(route: ServerRoute, interfaces: Mapping[str, Interface],
                       vrf_of_table: Mapping[int, str]) -> str | None:
    """The port whose connected route an `ip route del PREFIX [dev PORT] [table T]` takes out of
    the kernel (None: it deletes no connected route the model knows): PREFIX is the subnet of one
    of the port's addresses, no gateway is named, and the table is the port's VRF's (main for the
    default VRF). The kernel adds that route with the address and deletes it on command; nothing
    puts it back until the port goes down and up again or the address is set anew. As for the
    routes added, the port is taken as up when the command runs (`ifreload -a` on a running
    switch, what a deploy does; at a boot a command in an earlier stanza finds no route and fails,
    measured on the twin: the next deploy deletes it)."""
    if route.via is not None or route.hops or route.kind != "unicast" or "/" not in route.prefix \
            or not kernel_takes_prefix(route.prefix):
        return None
    wanted = network_of(route.prefix)
    table_vrf = None if route.table is None or route.table == MAIN_TABLE else vrf_of_table.get(route.table, "?")
    for name, iface in interfaces.items():
        if route.dev is not None and name != route.dev:
            continue
        if (iface.vrf or None) == table_vrf and any(network_of(a) == wanted for a in iface.addresses):
            return name
    return None


def _hop(via: str | None, dev: str | None, onlink: bool,
         interfaces: Mapping[str, Interface]) -> tuple[str | None, str | None] | None:
    """One hop of a kernel route as the model's next hop (a gateway, or the port it leaves by) and
    the VRF of the port it names ("" for the default VRF, None when it names none); None when the
    kernel refuses it or the port is no fabric port."""
    if dev is None:
        return (via, None) if via is not None else None  # (iproute2 refuses a hop with neither)
    port = interfaces.get(dev)
    if port is None:
        return None
    if via is None:
        return dev, port.vrf or ""
    address = ip_int(via)
    if any(contains(network_of(a), address) for a in port.addresses):
        return via, port.vrf or ""
    return (dev, port.vrf or "") if onlink else None
