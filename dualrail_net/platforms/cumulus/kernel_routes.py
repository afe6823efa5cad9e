"""A Cumulus switch's routes put in the kernel by its interfaces file's commands (a stanza's
`post-up`/`up` ``ip route add|replace|append ...``, read as iproute2 reads them: the host model's
reader). Cumulus's switchd programs the kernel's tables (the main table and each VRF's) into the
ASIC, so such a route forwards the fabric's traffic as one of zebra's does; zebra reads it in as a
kernel route (distance 0: it wins the prefix over BGP and static routes), and BGP advertises it only
through a ``network`` statement or ``redistribute kernel``.

Invariants: a command becomes a route here only when its table is the main one or a VRF's table
the file numbers (an `auto` table's number is the kernel's choice), it is not a deletion and not a
multipath route, and it goes out of a fabric port (if it names one) from a stanza ifupdown2 brings
up; every other command stays reported as not modelled. A gateway's reachability is judged as for
static routes (on a connected subnet of the route's VRF), which the kernel also requires of a
gateway not marked onlink."""

from __future__ import annotations

from collections.abc import Mapping

from dualrail_net.verify.model import Interface, StaticRoute
from dualrail_net.verify.parsers.ifupdown import NOT_AUTO, InterfacesFile, server_policy

MAIN_TABLE = 254  # the kernel's main table: the default VRF's


def kernel_routes(parsed: InterfacesFile, pending: list[int], vrfs: Mapping[str, int | None],
                  interfaces: Mapping[str, Interface]) -> tuple[list[StaticRoute], set[int]]:
    """The kernel routes of the commands numbered ``pending`` (indexes into ``parsed.commands``: the
    ones no link reading took), and the numbers of the commands they came from."""
    if not pending:
        return [], set()
    routes, _ = server_policy([parsed.commands[n] for n in pending], [],
                              [parsed.command_ports[n] for n in pending])
    vrf_of_table = {table: vrf for vrf, table in vrfs.items() if table is not None}
    out: list[StaticRoute] = []
    taken: set[int] = set()
    for route in routes:
        if route.verb == "delete" or route.hops:
            continue
        if route.table is None or route.table == MAIN_TABLE:
            vrf: str | None = None
        elif route.table in vrf_of_table:
            vrf = vrf_of_table[route.table]
        else:
            continue  # a table no VRF of the file looks up
        prefix = "0.0.0.0/0" if route.prefix == "default" else route.prefix if "/" in route.prefix \
            else route.prefix + "/32"
        nexthop = None if route.kind != "unicast" else route.via or route.dev
        if route.kind == "unicast" and nexthop is None:
            continue  # (iproute2 refuses a unicast route with neither a gateway nor a port)
        port = interfaces.get(route.dev) if route.dev is not None else None
        if route.dev is not None and port is None:
            continue  # out of a port that is no fabric port (the management port, a typo): reported
        number = pending[route.order]
        stanza = parsed.interfaces.get(parsed.command_ports[number])
        if stanza is None or stanza.down == NOT_AUTO:
            continue  # (a stanza ifupdown2 never brings up runs none of its commands)
        nexthop_vrf = None
        if port is not None and port.vrf != vrf:
            nexthop_vrf = port.vrf or "default"  # a route of one table out of another VRF's port
        out.append(StaticRoute(vrf, prefix, nexthop, nexthop_vrf, distance=0, line=parsed.command_lines[number],
                               file="interfaces", kernel=True))
        taken.add(number)
    return out, taken
