"""Servers: each NIC port is addressed, routed and policy-routed inside its own plane only."""

from __future__ import annotations


from dualrail_net.verify.checks import BASE, Context, TOPOLOGY, check, finding
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.ipfast import contains, ip_int, net_str, network_of
from dualrail_net.verify.model import Interface


@check("ISO-SERVER-PLANE", "each server NIC port reaches its own plane only",
       reads={BASE, TOPOLOGY})
def server_planes(ctx: Context) -> list[Finding]:
    out = []
    why = "traffic of one plane would leave through another plane's NIC"
    device_plane = ctx.device_plane
    plan = ctx.snap.cabling
    leaf_of = {(a, a_port): (b, device_plane.get(b)) for kind, a, a_port, b in zip(
        plan.column("kind"), plan.column("a_device"), plan.column("a_port"), plan.column("b_device"))
        if kind == "server-leaf"}
    for srv in ctx.snap.servers.values():
        port_plane: dict[str, str | None] = {}
        port_net: dict[str, tuple[int, int]] = {}
        for name, iface in srv.interfaces.items():
            if not iface.addresses:
                continue
            plane = ctx.snap.plane_of_address(iface.addresses[0])
            port_plane[name] = plane
            port_net[name] = network_of(iface.addresses[0])
            leaf = leaf_of.get((srv.name, name))
            leaf_plane = leaf[1] if leaf else None
            if leaf_plane and plane != leaf_plane:
                out.append(finding([srv.name, leaf[0] if leaf else ""], leaf_plane,
                                   f"{srv.name} {name} has {iface.addresses[0]} (plane {plane}) but is cabled to "
                                   f"{leaf[0] if leaf else '?'} in plane {leaf_plane}", why))
            for extra in iface.addresses[1:]:  # every address makes a connected route and a source
                other = ctx.snap.plane_of_address(extra)
                if other and other != (leaf_plane or plane):
                    out.append(finding([srv.name], leaf_plane or plane or "",
                                       f"{srv.name} {name} (plane {leaf_plane or plane}) also has {extra} (plane "
                                       f"{other})", "its connected subnet sends that plane's addresses out through "
                                       "this port, and that plane's source address enters this plane"))
        table_dev: dict[int, str | None] = {}
        for route in srv.routes:
            if route.kind != "unicast" or route.verb == "delete":
                continue  # forwards into no plane (HOST-FORWARDING judges what it drops or takes out)
            # every next hop of a multipath route carries some flows: each is judged as a route
            for via, dev in ([(route.via, route.dev)] if not route.hops else [(v, d) for v, d, _ in route.hops]):
                dev_plane = port_plane.get(dev or "")
                if route.table is not None and route.prefix == "default" and table_dev.get(route.table) in (None, dev):
                    table_dev[route.table] = dev
                if route.prefix != "default":
                    dest = ctx.snap.plane_of_address(route.prefix)
                    if dest and dev_plane and dest != dev_plane:
                        out.append(finding([srv.name], dev_plane,
                                           f"{srv.name} routes {route.prefix} (plane {dest}) via {dev} (plane "
                                           f"{dev_plane})", why))
                if via and dev in port_net and not contains(port_net[dev], ip_int(via)):
                    out.append(finding([srv.name], dev_plane,
                                       f"{srv.name} route {route.prefix} via {via} is not on {dev}'s subnet "
                                       f"{net_str(port_net[dev])}", why))
        port_of_ip: dict[str, str] = {}
        for name, iface in srv.interfaces.items():
            for address in iface.addresses:
                port_of_ip.setdefault(address.partition("/")[0], name)
        for rule in srv.rules:
            if rule.delete or rule.action != "lookup":
                continue  # (HOST-FORWARDING judges what the rules left take, and where a reject rule ends)
            owner = port_of_ip.get(rule.source)
            dev = table_dev.get(rule.table)
            if owner and dev and owner != dev:
                out.append(finding([srv.name], port_plane.get(owner),
                                   f"{srv.name}: traffic from {rule.source} ({owner}) uses table {rule.table}, whose "
                                   f"default route leaves via {dev}", why))
            elif owner and dev is None:
                out.append(finding([srv.name], port_plane.get(owner),
                                   f"{srv.name}: table {rule.table} for {rule.source} has no default route",
                                   "the port's traffic falls back to the main table and may leave on another plane"))
        out += _bridged_ports(ctx, srv.name, srv.interfaces)
    return out


def _bridged_ports(ctx: Context, server: str, interfaces: dict[str, Interface]) -> list[Finding]:
    """A bridge on a server over its fabric ports: frames of one port are switched to the others
    (across planes when they are of two), and an enslaved port no longer holds its address."""
    entry = ctx.snap.manifest.servers.get(server)
    plane_of = {p.ifname: p.plane for p in entry.ports} if entry is not None else {}
    out = []
    for bridge in interfaces.values():
        fabric = [port for port in bridge.bridge_ports if port in plane_of]
        if not fabric:
            continue
        planes = sorted({plane_of[port] for port in fabric})
        if len(planes) > 1:
            out.append(finding([server], "", f"{server}: bridge {bridge.name} joins {', '.join(fabric)} of planes "
                               f"{' and '.join(planes)}", "frames of one plane are switched into the other: the "
                               "planes are one broadcast domain through this server"))
        else:
            out.append(finding([server], planes[0], f"{server}: bridge {bridge.name} enslaves fabric port(s) "
                               f"{', '.join(fabric)} (plane {planes[0]})", "an enslaved port no longer routes: its "
                               "address, rule and table stop working and its rail goes dark"))
    return out
