"""Management: every rendered switch keeps the way in. A full-replace push (EOS) or an
`ifreload -a` of a replaced interfaces file (Cumulus) applies exactly what is rendered, so a
management address, route, SSH/API service or user missing from the files is an operator locked out
of the switch after the push. Checked against the plan (manifest: the management VRF, gateway,
services and users; each switch's management address)."""

from __future__ import annotations

from dataclasses import dataclass

from dualrail_net.manifest import ManagementEntry
from dualrail_net.verify.checks import BASE, ROUTING, TOPOLOGY, Context, check, finding
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.model import SSH_PORT, ManagementConfig, ManagementUser, StaticRoute
from dualrail_net.verify.controlplane import DISTANCE_INFINITY, acl_permits
from dualrail_net.verify.ipfast import contains, ip_int, network_of

WHY_LOCKOUT = "after the push nobody can reach the switch out of band: recovery needs the console"


@dataclass(frozen=True)
class _Switch:
    """One switch the plan gives a management address, with what its files say and the plan."""

    name: str
    plane: str
    address: str  # its planned management address
    mgmt: ManagementConfig  # what its files say
    vrf: str  # the planned management VRF
    plan: ManagementEntry


def _switches(ctx: Context) -> list[_Switch]:
    planned = ctx.snap.manifest.management_vrf
    if planned is None:
        return []
    vrf, entry = planned
    return [_Switch(name, ctx.device_plane.get(name) or "", meta.mgmt_address, ctx.snap.devices[name].management,
                    vrf, entry)
            for name, meta in ctx.snap.manifest.devices.items() if meta.mgmt_address and name in ctx.snap.devices]


@check("MGMT-ADDRESS", "every switch keeps its planned management address on a management port in the "
       "management VRF", reads={BASE, TOPOLOGY})
def mgmt_address(ctx: Context) -> list[Finding]:
    out = []
    for sw in _switches(ctx):
        have = {a: i for i in sw.mgmt.interfaces.values() for a in i.addresses}
        if sw.address not in have:
            out.append(finding([sw.name], sw.plane, f"{sw.name} has no management port with {sw.address}"
                               + (f" (it has {', '.join(sorted(have))})" if have else ""), WHY_LOCKOUT))
            continue
        iface = have[sw.address]
        if sw.mgmt.vrf != sw.vrf or iface.vrf != sw.vrf:
            out.append(finding([sw.name], sw.plane, f"{sw.name} {iface.name} ({sw.address}) is in VRF "
                               f"{iface.vrf or 'default'}, not the management VRF {sw.vrf}", WHY_LOCKOUT))
        elif iface.down:
            out.append(finding([sw.name], sw.plane, f"{sw.name} management port {iface.name} is down ({iface.down})",
                               WHY_LOCKOUT))
    return out


@check("MGMT-ROUTE", "every switch's management VRF has its default route via the planned gateway",
       reads={BASE, TOPOLOGY})
def mgmt_route(ctx: Context) -> list[Finding]:
    out = []
    for sw in _switches(ctx):
        gateway = sw.mgmt.default_gateway
        if gateway != sw.plan.gateway:
            out.append(finding([sw.name], sw.plane, f"{sw.name} management VRF {sw.vrf} default route: "
                               f"{'via ' + gateway if gateway else 'none'}, planned via {sw.plan.gateway}",
                               "the switch answers only hosts on the management subnet itself"))
            continue
        subnets = [network_of(a) for i in sw.mgmt.interfaces.values() for a in i.addresses]
        holding = [length for net, length in subnets if contains((net, length), ip_int(gateway))]
        if not holding:
            out.append(finding([sw.name], sw.plane, f"{sw.name}: management gateway {gateway} is on no management "
                               "port's subnet", "the default route cannot resolve its next hop"))
            continue
        # a static more specific than that subnet holding the gateway: the default route's next hop
        # resolves through it (into a blackhole, or toward another next hop), not over the port
        over = [r for r in sw.mgmt.routes if network_of(r.prefix)[1] > max(holding) and r.distance < DISTANCE_INFINITY
                and contains(network_of(r.prefix), ip_int(gateway)) and r.nexthop != gateway]
        if over:
            route = max(over, key=lambda r: network_of(r.prefix)[1])
            routing_file = ctx.snap.devices[sw.name].routing_file
            out.append(finding([sw.name], sw.plane, f"{ctx.snap.where(sw.name, routing_file, route.line)}: ip route "
                               f"vrf {sw.vrf} {route.prefix} {route.nexthop or 'Null0'} holds the management gateway "
                               f"{gateway}: the default route resolves through it",
                               "the switch answers only hosts on the management subnet itself"))
    return out


@check("MGMT-SERVER-ROUTE", "no blackhole static in a switch's management VRF takes the traffic to a planned "
       "NTP, syslog, DNS or TACACS+ server", reads={ROUTING, TOPOLOGY})
def mgmt_server_route(ctx: Context) -> list[Finding]:
    """A planned server whose longest match in the management VRF is a blackhole static (EOS `ip
    route vrf mgmt P Null0`, FRR `ip route P blackhole|reject|Null0 vrf mgmt`, a `vrf mgmt` block's):
    the longest prefix decides, the planned management subnet at its length (a static must be
    longer to win over it), the default route last. Read on the side that parses the routing
    files (Cumulus keeps its management statics in frr.conf, apart from the interfaces file)."""
    planned = ctx.snap.manifest.management_vrf
    if planned is None:
        return []
    vrf, plan = planned
    out = []
    for name, meta in ctx.snap.manifest.devices.items():
        dev = ctx.snap.devices.get(name)
        if dev is None or not meta.mgmt_address:
            continue
        # each static in force with its network, read once for every server
        in_vrf = [r for r in dev.static_routes if r.vrf == vrf] + dev.management.routes
        statics = [(network_of(r.prefix), r) for r in in_vrf if r.distance < DISTANCE_INFINITY]
        if not statics:
            continue
        subnet = network_of(meta.mgmt_address)
        dropped: dict[int, tuple[StaticRoute, list[str]]] = {}  # one finding per blackhole, every server it takes
        for what, servers in (("NTP", plan.ntp), ("syslog", plan.syslog), ("DNS", plan.dns),
                              ("TACACS+", plan.tacacs)):
            for server in servers:
                address = ip_int(server)
                connected = subnet[1] if contains(subnet, address) else -1
                best = max(((net, r) for net, r in statics if net[1] > connected and contains(net, address)),
                           key=lambda item: item[0][1], default=None)
                if best is not None and best[1].nexthop is None:
                    dropped.setdefault(id(best[1]), (best[1], []))[1].append(f"{what} server {server}")
        for route, taken in dropped.values():
            where = ctx.snap.where(name, route.file or dev.routing_file, route.line)
            out.append(finding([name], ctx.device_plane.get(name) or "",
                               f"{where}: a blackhole for {route.prefix} in the management VRF {vrf} drops what "
                               f"{name} sends to {', '.join(taken)}",
                               "the switch's time, logs, names or logins toward those servers go nowhere"
                               + (": operators' own accounts are refused" if any("TACACS+" in t for t in taken)
                                  else "")))
    return out


@check("MGMT-ACCESS", "every switch serves SSH (and its API where planned) in the management VRF",
       reads={BASE, TOPOLOGY})
def mgmt_access(ctx: Context) -> list[Finding]:
    out = []
    for sw in _switches(ctx):
        # None: the file says nothing and the platform serves it by itself (Cumulus: ssh@mgmt)
        if sw.plan.ssh and sw.mgmt.ssh is False:
            out.append(finding([sw.name], sw.plane, f"{sw.name} does not serve SSH in the management VRF {sw.vrf}",
                               WHY_LOCKOUT))
        elif sw.plan.ssh and sw.mgmt.ssh_port != SSH_PORT:
            out.append(finding([sw.name], sw.plane, f"{sw.name} serves SSH on TCP {sw.mgmt.ssh_port}, not {SSH_PORT}",
                               "deploy (netmiko) and operators connect to port 22: " + WHY_LOCKOUT))
        if sw.plan.api and sw.mgmt.api is False:
            out.append(finding([sw.name], sw.plane, f"{sw.name} does not serve its API in the management VRF {sw.vrf}",
                               "automation (deploy, audit) can no longer reach the switch"))
        elif sw.plan.api and sw.mgmt.api_default_port and (port := sw.mgmt.api_port) and \
                port != sw.mgmt.api_default_port:
            out.append(finding([sw.name], sw.plane, f"{sw.name} serves its API on TCP {port}, not the platform's "
                               f"{sw.mgmt.api_default_port}",
                               "automation that connects where the platform's API listens gets no answer"))
    return out


@check("MGMT-USER", "every switch keeps the planned local users and no others, each logging in with a "
       "password or key, at least one of them an administrator", reads={BASE, TOPOLOGY})
def mgmt_user(ctx: Context) -> list[Finding]:
    """The plan names every local account (inventory `management.users`); the files of a platform
    that carries its users (EOS, NVUE: a replace keeps exactly those) must hold the same ones. An
    account the plan does not know is a way in nobody reviews; one with no password at all (EOS
    `nopassword`) lets in whoever reaches the management address."""
    out = []
    for sw in _switches(ctx):
        if not sw.mgmt.users_in_file:
            continue  # the platform keeps its users outside the rendered files: a push does not touch them
        names = {u.name for u in sw.mgmt.users}
        for missing in [u for u in sw.plan.users if u not in names]:
            out.append(finding([sw.name], sw.plane, f"{sw.name} has no user {missing}",
                               "a full replace removes that user from the switch"))
        for user in sw.mgmt.users:
            file, line = sw.mgmt.located.get(("user", user.name), ("", 0))
            where = ctx.snap.where(sw.name, file, line) if file else sw.name
            if user.name not in sw.plan.users:
                out.append(finding([sw.name], sw.plane, f"{where}: user {user.name} is not in the plan (planned: "
                                   f"{', '.join(sw.plan.users) or 'none'})",
                                   "an account nobody reviews or rotates logs in to the switch"
                                   + (" with every privilege" if user.role == "admin" else "")))
            else:
                out += _keys_off_plan(ctx, sw, user, file)
            if user.passwordless:
                out.append(finding([sw.name], sw.plane, f"{where}: user {user.name} logs in without a password "
                                   "(nopassword)", "whoever reaches the management address logs in as "
                                   f"{user.name}" + (" with every privilege" if user.role == "admin" else "")))
        if not any(u.role == "admin" and u.credential for u in sw.mgmt.users):
            out.append(finding([sw.name], sw.plane, f"{sw.name} has no administrator with a password or SSH key",
                               WHY_LOCKOUT))
    return out


def _keys_off_plan(ctx: Context, sw: _Switch, user: ManagementUser, file: str) -> list[Finding]:
    """A planned user's SSH keys against the plan's: one more lets in whoever holds it, one fewer
    locks out whoever logs in with it (a replace keeps only the file's)."""
    out = []
    planned = sw.plan.ssh_keys.get(user.name, [])
    for key, line in user.ssh_keys.items():
        if key not in planned:
            where = ctx.snap.where(sw.name, file, line) if file else sw.name
            out.append(finding([sw.name], sw.plane, f"{where}: user {user.name} accepts SSH key {key[:40]}..., "
                               "which the plan does not name",
                               f"whoever holds that key logs in as {user.name}; nobody reviews or rotates it"))
    for key in planned:
        if key not in user.ssh_keys:
            out.append(finding([sw.name], sw.plane, f"{sw.name}: user {user.name} lacks its planned SSH key "
                               f"{key[:40]}...", "a full replace removes it: whoever logs in with it (deploy, "
                               "audit, an operator) is refused"))
    return out


@check("MGMT-SERVICES", "every switch whose config carries them has the planned NTP, syslog and DNS servers in "
       "the management VRF, and LLDP as planned", reads={BASE, TOPOLOGY})
def mgmt_services(ctx: Context) -> list[Finding]:
    out = []
    for sw in _switches(ctx):
        if not sw.mgmt.services_in_file:
            continue  # the platform keeps these outside the rendered files
        for what, planned, have in (("NTP", sw.plan.ntp, sw.mgmt.ntp), ("syslog", sw.plan.syslog, sw.mgmt.syslog),
                                    ("DNS", sw.plan.dns, sw.mgmt.dns)):
            astray = {server for _, _, server, _ in sw.mgmt.astray}
            missing = [server for server in planned if server not in have and server not in astray]
            if missing:
                out.append(finding([sw.name], sw.plane, f"{sw.name} lacks {what} server(s) {', '.join(missing)} in "
                                   f"the management VRF {sw.vrf}",
                                   "time, logs or names of the switch go missing: incidents cannot be traced"))
            out += _unplanned(ctx, sw, what, planned, have,
                              "the switch takes time from, sends its logs to or asks names of a host the plan "
                              "does not know: a wrong clock, logs outside the collector, names from anywhere")
        if sw.mgmt.resolver_hangs is not None:
            file, line, why = sw.mgmt.resolver_hangs
            out.append(finding([sw.name], sw.plane, f"{ctx.snap.where(sw.name, file, line)}: {why}: every name "
                               "lookup on the switch hangs",
                               "every program that resolves a name (NTP, the TACACS+ client, sudo, apt, an "
                               "operator's ping) blocks forever, spinning a core: logins and time go with it"))
        for file, line, server, how in sw.mgmt.astray:
            out.append(finding([sw.name], sw.plane, f"{ctx.snap.where(sw.name, file, line)}: {server} is {how}; "
                               f"planned: in the management VRF {sw.vrf}",
                               "the server is not reached (the default VRF is the fabric's, which has no route to "
                               "the management network) or not where it listens: time, logs or names go missing"))
        if sw.mgmt.lldp is not None and sw.mgmt.lldp != sw.plan.lldp:
            out.append(finding([sw.name], sw.plane, f"{sw.name} runs LLDP {'on' if sw.mgmt.lldp else 'off'}, planned "
                               f"{'on' if sw.plan.lldp else 'off'}",
                               "the live cabling audit reads LLDP neighbours: without them a miscabled port is not seen"))
        elif sw.plan.lldp and sw.mgmt.lldp is not False:
            dev = ctx.snap.devices[sw.name]
            for (port, _), (text, line) in sorted(sw.mgmt.lldp_ports_off.items()):
                if port in dev.interfaces:
                    out.append(finding([sw.name], sw.plane, f"{ctx.snap.where(sw.name, dev.routing_file, line)}: "
                                       f"{text} on {port}: LLDP is planned on every fabric port",
                                       "the live cabling audit reads the LLDP neighbours at both ends of every "
                                       "cable: without them a miscabled port on this link is not seen"))
    return out


@check("MGMT-AAA", "every switch keeps a local login when TACACS+ does not answer, and points at the planned "
       "TACACS+ servers in the management VRF", reads={BASE, TOPOLOGY})
def mgmt_aaa(ctx: Context) -> list[Finding]:
    out = []
    for sw in _switches(ctx):
        if sw.mgmt.login_local is False:
            out.append(finding([sw.name], sw.plane, f"{sw.name} lets nobody in without TACACS+ "
                               f"({sw.mgmt.login_methods}: no local method)",
                               "when no TACACS+ server answers (the management network or the servers down) "
                               "the local administrator cannot log in either: recovery needs the console"))
        if sw.mgmt.tacacs is None:
            continue  # the platform keeps TACACS+ outside the rendered files
        missing = [server for server in sw.plan.tacacs if server not in sw.mgmt.tacacs]
        if missing:
            out.append(finding([sw.name], sw.plane, f"{sw.name} lacks TACACS+ server(s) {', '.join(missing)} in the "
                               f"management VRF {sw.vrf}",
                               "operators' own accounts are refused (only local users log in) and commands "
                               "go unaccounted"))
        out += _unplanned(ctx, sw, "TACACS+", sw.plan.tacacs, sw.mgmt.tacacs,
                          "logins are decided and commands accounted by a host the plan does not know")
        if sw.plan.tacacs and sw.mgmt.tacacs and sw.mgmt.tacacs_key is False:
            out.append(finding([sw.name], sw.plane, f"{sw.name} gives its TACACS+ client no shared key (the plan "
                               "names one)",
                               "requests go unencrypted and a server that holds the key refuses them: operators' "
                               "own accounts are refused, and what is sent is readable on the wire"))
    return out


def _unplanned(ctx: Context, sw: _Switch, what: str, planned: list[str], have: list[str], why: str) -> list[Finding]:
    """A server the files point at that the plan does not name, at the line that names it."""
    out = []
    for server in sorted(set(have) - set(planned)):
        file, line = sw.mgmt.located.get((what, server), ("", 0))
        where = ctx.snap.where(sw.name, file, line) if file else sw.name
        out.append(finding([sw.name], sw.plane, f"{where}: {what} server {server} is not in the plan (planned: "
                           f"{', '.join(planned) or 'none'})", why))
    return out


@check("MGMT-SECRET", "no rendered file holds a credential's value: each names it as ${secret:NAME}",
       reads={BASE, TOPOLOGY})
def mgmt_secret(ctx: Context) -> list[Finding]:
    """The renderer writes every credential as ``${secret:NAME}``, filled in from the secrets file
    (outside the repository) when the file is pushed; a hand edit that writes the value itself puts
    a password, hash or key into git (rendered files are committed and reviewed in pull requests)."""
    out = []
    for name, dev in ctx.snap.devices.items():
        for file, line, what in dev.management.literal_secrets:
            out.append(finding([name], ctx.device_plane.get(name) or "",
                               f"{ctx.snap.where(name, file, line)}: {what} is written as a value, not as "
                               "${secret:NAME}",
                               "the rendered files are committed: the credential is now in the repository's "
                               "history; keep it in the secrets file and name it"))
    return out


@check("MGMT-ACL", "no switch's control-plane access list in the management VRF refuses every SSH (and planned "
       "API) connection to its management address", reads={ROUTING, TOPOLOGY})
def mgmt_acl(ctx: Context) -> list[Finding]:
    """EOS `system control-plane` `ip access-group NAME vrf MGMT in` replaces the platform's own
    list for what arrives for the switch in the management VRF: first match wins, an implicit deny
    ends it. A list that lets no source open TCP 22 (the API's port, where planned) to the
    management address locks everyone out after the push. SONiC's CTRLPLANE tables make the same
    kind of list (platforms/sonic/cacl.py: caclmgrd's chain, which drops everything no rule accepts
    once it has a rule; gNMI on 8080). A service's own list (EOS `management ssh` `ip access-group
    NAME [vrf V] in`) and one bound inbound on the management port must let the connection through too. Sources tried: the planned gateway, any
    address, and a few addresses of every permit entry's source range (a list that admits only a
    jump host is a valid edit). A list not defined or not read whole is not judged (reported)."""
    planned = ctx.snap.manifest.management_vrf
    if planned is None:
        return []
    vrf, plan = planned
    out: list[Finding] = []
    for name, meta in ctx.snap.manifest.devices.items():
        dev = ctx.snap.devices.get(name)
        if dev is None or not meta.mgmt_address:
            continue
        shared = [dev.control_plane_acls[vrf]] if vrf in dev.control_plane_acls else []
        # a list bound inbound on the management port itself (EOS `ip access-group NAME in` under
        # Management1) filters every connection that arrives there, the switch's own included
        shared += [dev.acl_in[port] for port in dev.management.interfaces if port in dev.acl_in]
        own = ip_int(meta.mgmt_address.partition("/")[0])
        for port, what, wanted, service in ((dev.management.ssh_port, "SSH", plan.ssh, "ssh"),
                                            (dev.api_port, "its API", plan.api, "api")):
            bound = shared + ([dev.service_acls[(service, vrf)]] if (service, vrf) in dev.service_acls else [])
            lists = [(acl, line, dev.acls.get(acl)) for acl, line in bound]
            if not wanted or not lists or any(entries is None for _, _, entries in lists):
                continue  # nothing in the way, or a list not defined or not read whole: not judged
            sources = {0x0A000001, ip_int(plan.gateway)} if plan.gateway else {0x0A000001}
            for _, _, entries in lists:
                for e in entries or []:
                    if e.action == "permit":
                        net, length = e.source
                        size = 1 << (32 - length)
                        sources |= {net + 1 if size > 2 else net, net + size // 2, net + max(size - 2, 0)}
            if any(all(acl_permits(entries or [], "tcp", src, 50000, own, port)[0] for _, _, entries in lists)
                   for src in sorted(sources)):
                continue
            # located at the first list that refuses the planned gateway (or any address)
            probe = ip_int(plan.gateway) if plan.gateway else 0x0A000001
            acl, line, _ = next((x for x in lists if not acl_permits(x[2] or [], "tcp", probe, 50000, own, port)[0]),
                                lists[-1])
            where = ctx.snap.where(name, dev.acl_file or dev.routing_file, line)
            names = " and ".join(x[0] for x in lists)
            out.append(finding([name], ctx.device_plane.get(name) or "",
                               f"{where}: access list{'s' if len(lists) > 1 else ''} {names} in the management VRF "
                               f"{vrf} let{'' if len(lists) > 1 else 's'} no source open {what} (TCP {port}) to "
                               f"{name}'s management address {meta.mgmt_address.partition('/')[0]}"
                               + (f" ({acl} refuses the planned gateway)" if len(lists) > 1 else ""), WHY_LOCKOUT))
    return out


@check("MGMT-HOSTNAME", "every switch's configuration names it as the plan does", reads={BASE, TOPOLOGY})
def mgmt_hostname(ctx: Context) -> list[Finding]:
    """A switch that calls itself another name (EOS's, NVUE's and SONiC's system name, the one LLDP
    advertises; FRR's, which bgpd sends its peers in the hostname capability) puts that name on
    every neighbour table, log line and accounting record: the cabling audit then sees its cables
    land on a switch the plan does not have, and operators look at the wrong switch."""
    out = []
    for name, dev in ctx.snap.devices.items():
        for named, file, line in dev.names:
            if named != name:
                out.append(finding([name], ctx.device_plane.get(name) or "",
                                   f"{ctx.snap.where(name, file, line)}: {name} is named {named}",
                                   "LLDP, BGP peers, logs and accounting show it under another name: the cabling "
                                   "audit reports its cables as miswired and operators act on the wrong switch"))
    return out
