"""Management: every rendered switch keeps the way in. A full-replace push (EOS) or an
`ifreload -a` of a replaced interfaces file (Cumulus) applies exactly what is rendered, so a
management address, route, SSH/API service or user missing from the files is an operator locked out
of the switch after the push. Checked against the plan (manifest: the management VRF, gateway,
services and users; each switch's management address)."""

from __future__ import annotations

from dualrail_net.verify.checks import BASE, TOPOLOGY, Context, check, finding
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.ipfast import contains, ip_int, network_of

WHY_LOCKOUT = "after the push nobody can reach the switch out of band: recovery needs the console"


def _switches(ctx: Context):  # type: ignore[no-untyped-def]
    plan = ctx.snap.manifest.management_vrf
    if plan is None:
        return []
    vrf, entry = plan
    return [(name, meta, ctx.snap.devices[name], vrf, entry) for name, meta in ctx.snap.manifest.devices.items()
            if meta.mgmt_address and name in ctx.snap.devices]


@check("MGMT-ADDRESS", "every switch keeps its planned management address on a management port in the "
       "management VRF", reads={BASE, TOPOLOGY})
def mgmt_address(ctx: Context) -> list[Finding]:
    out = []
    for name, meta, dev, vrf, _ in _switches(ctx):
        m = dev.management
        plane = ctx.device_plane.get(name) or ""
        have = {a: i for i in m.interfaces.values() for a in i.addresses}
        if meta.mgmt_address not in have:
            out.append(finding([name], plane, f"{name} has no management port with {meta.mgmt_address}"
                               + (f" (it has {', '.join(sorted(have))})" if have else ""), WHY_LOCKOUT))
            continue
        iface = have[meta.mgmt_address]
        if m.vrf != vrf or iface.vrf != vrf:
            out.append(finding([name], plane, f"{name} {iface.name} ({meta.mgmt_address}) is in VRF "
                               f"{iface.vrf or 'default'}, not the management VRF {vrf}", WHY_LOCKOUT))
        elif iface.down:
            out.append(finding([name], plane, f"{name} management port {iface.name} is down ({iface.down})", WHY_LOCKOUT))
    return out


@check("MGMT-ROUTE", "every switch's management VRF has its default route via the planned gateway",
       reads={BASE, TOPOLOGY})
def mgmt_route(ctx: Context) -> list[Finding]:
    out = []
    for name, meta, dev, vrf, entry in _switches(ctx):
        m = dev.management
        plane = ctx.device_plane.get(name) or ""
        if m.default_gateway != entry.gateway:
            said = f"via {m.default_gateway}" if m.default_gateway else "none"
            out.append(finding([name], plane, f"{name} management VRF {vrf} default route: {said}, planned via "
                               f"{entry.gateway}", "the switch answers only hosts on the management subnet itself"))
            continue
        subnets = [network_of(a) for i in m.interfaces.values() for a in i.addresses]
        if not any(contains(net, ip_int(entry.gateway)) for net in subnets):
            out.append(finding([name], plane, f"{name}: management gateway {entry.gateway} is on no management "
                               "port's subnet", "the default route cannot resolve its next hop"))
    return out


@check("MGMT-ACCESS", "every switch serves SSH (and its API where planned) in the management VRF",
       reads={BASE, TOPOLOGY})
def mgmt_access(ctx: Context) -> list[Finding]:
    out = []
    for name, meta, dev, vrf, entry in _switches(ctx):
        m = dev.management
        plane = ctx.device_plane.get(name) or ""
        # None: the file says nothing and the platform serves it by itself (Cumulus: ssh@mgmt)
        if entry.ssh and m.ssh is False:
            out.append(finding([name], plane, f"{name} does not serve SSH in the management VRF {vrf}", WHY_LOCKOUT))
        if entry.api and m.api is False:
            out.append(finding([name], plane, f"{name} does not serve its API in the management VRF {vrf}",
                               "automation (deploy, audit) can no longer reach the switch"))
    return out


@check("MGMT-USER", "every switch keeps the planned local users, at least one of them an administrator who can "
       "log in", reads={BASE, TOPOLOGY})
def mgmt_user(ctx: Context) -> list[Finding]:
    out = []
    for name, meta, dev, vrf, entry in _switches(ctx):
        m = dev.management
        if not m.users_in_file:
            continue  # the platform keeps its users outside the rendered files: a push does not touch them
        plane = ctx.device_plane.get(name) or ""
        names = {u.name for u in m.users}
        for missing in [u for u in entry.users if u not in names]:
            out.append(finding([name], plane, f"{name} has no user {missing}",
                               "a full replace removes that user from the switch"))
        if not any(u.role == "admin" and u.credential for u in m.users):
            out.append(finding([name], plane, f"{name} has no administrator with a password or SSH key", WHY_LOCKOUT))
    return out
