"""Addressing: duplicates, overlaps, /31 ends that do not pair, loopbacks nobody advertises."""

from __future__ import annotations


import numpy as np

from dualrail_net.verify.arrays import distinct
from dualrail_net.verify.checks import BASE, Context, ROUTING, SESSIONS, TOPOLOGY, check, finding
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.ipfast import net_str, network_array, parse_addresses
from dualrail_net.verify.parsers.ifupdown import NOT_AUTO
from dualrail_net.verify.topology import Endpoint


@check("ADDR-DUPLICATE-IP", "no IP address is configured twice",
       reads={TOPOLOGY})
def duplicate_ips(ctx: Context) -> list[Finding]:
    out = []
    for ip, eps in ctx.topo.duplicates.items():
        where = ", ".join(f"{e.device} {e.interface}" for e in eps)
        out.append(finding(sorted({e.device for e in eps}),
                           ctx.snap.plane_of_address(ip), f"{ip} is configured on {where}",
                           "two owners of one address black-hole or misdeliver traffic"))
    return out


@check("ADDR-OVERLAP", "no two different subnets overlap",
       reads={TOPOLOGY})
def overlapping_subnets(ctx: Context) -> list[Finding]:
    keys = ctx.addresses.key
    subnets = distinct(keys)  # sorted as the (network, length) tuples sort
    if not len(subnets):
        return []
    start, length = subnets >> 6, subnets & 63
    end = start + (np.int64(1) << (32 - length)) - 1
    # Sweep in that order: each subnet is compared with the one reaching furthest among those before
    # it (the first to reach that far). reach[i]: how far subnets 0..i reach; furthest[i]: which.
    reach = np.maximum.accumulate(end)
    grows = np.ones(len(end), dtype=bool)
    grows[1:] = end[1:] > reach[:-1]
    furthest = np.maximum.accumulate(np.where(grows, np.arange(len(end)), 0))
    hits = np.flatnonzero(start[1:] <= reach[:-1]) + 1
    if not len(hits):
        return []
    pairs = [(int(subnets[i]), int(subnets[furthest[i - 1]])) for i in hits]
    owners: dict[int, list[Endpoint]] = {}
    for i in np.flatnonzero(np.isin(keys, [k for pair in pairs for k in pair])):
        owners.setdefault(int(keys[i]), []).append(ctx.topo.endpoint(int(i)))

    def names(eps: list[Endpoint]) -> list[str]:
        return [f"{e.device} {e.interface}" for e in eps]

    out = []
    for mine, other in pairs:
        a, b = net_str((other >> 6, other & 63)), net_str((mine >> 6, mine & 63))
        out.append(finding(sorted({e.device for e in owners[other] + owners[mine]}),
                           ctx.snap.plane_of_address(b), f"{b} ({', '.join(names(owners[mine]))}) overlaps {a} "
                           f"({', '.join(names(owners[other]))})", "overlapping subnets make routing ambiguous"))
    return out


@check("ADDR-P2P-MISMATCH", "both ends of every cable hold the two addresses of one subnet, as planned",
       reads={BASE, TOPOLOGY})
def p2p_mismatch(ctx: Context) -> list[Finding]:
    out = []
    why = "ends on different subnets never come up; the BGP session and the path are lost"
    cables = ctx.cables
    plan = cables.plan
    a_first = [port.addresses[0] if port is not None and port.addresses else None for port in cables.a]
    b_first = [port.addresses[0] if port is not None and port.addresses else None for port in cables.b]
    # a gateway's external peer is outside the rendered files: its end is as planned
    for i, (kind, planned) in enumerate(zip(plan.column("kind"), plan.column("b_address"))):
        if kind == "external":
            b_first[i] = planned
    # over arrays: which cables have both ends addressed, on one subnet, with two IPs, as planned
    # (a missing end is parsed as 0.0.0.0/0 and masked out)
    a_value, a_length = parse_addresses([a or "0.0.0.0/0" for a in a_first])
    b_value, b_length = parse_addresses([b or "0.0.0.0/0" for b in b_first])
    addressed = np.array([a is not None and b is not None for a, b in zip(a_first, b_first)], dtype=np.bool_)
    paired = (a_length == b_length) & (network_array(a_value, a_length) == network_array(b_value, b_length))
    as_planned = np.array([a == x and b == y for a, b, x, y in zip(
        a_first, b_first, plan.column("a_address"), plan.column("b_address"))], dtype=np.bool_)
    # the same number may still be two texts ("10.0.0.01" is not "10.0.0.1"): the loop decides those
    clean = addressed & paired & (a_value != b_value) & as_planned

    def label(row: dict[str, str]) -> str:
        return f"{row['a_device']}:{row['a_port']} - {row['b_device']}:{row['b_port']}"

    for i in np.flatnonzero(~clean).tolist():
        a, b, row = a_first[i], b_first[i], plan[i]
        if a is None or b is None:
            unapplied = [f"{row[f'{s}_device']}:{row[f'{s}_port']}" for s, port in (("a", cables.a[i]), ("b", cables.b[i]))
                         if port is not None and port.down == NOT_AUTO]
            out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                               f"{label(row)}: {'both ends have' if a is None and b is None else 'one end has'} "
                               "no address in the rendered config" + (
                                   f" ({', '.join(unapplied)}: its stanza has no `auto` line, ifupdown2 never "
                                   "applies it)" if unapplied else ""), why))
        elif not paired[i] or a.partition("/")[0] == b.partition("/")[0]:
            out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                               f"{label(row)}: {a} and {b} do not pair", why))
        elif (row.get("a_address"), row.get("b_address")) != (a, b):
            out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                               f"{label(row)}: configs say {a} / {b}, the cabling plan says {row.get('a_address')} / "
                               f"{row.get('b_address')}", "the configs and the cabling plan disagree: one was edited"))
    # an address beside the planned one: its subnet is connected there and nothing plans it (an
    # overlap or another plane's space is ADDR-OVERLAP's and ISO-*'s error; this one is said)
    for side, _far, ports, _planes in cables.sides():
        for i, port in enumerate(ports):
            if port is None or len(port.addresses) < 2:
                continue
            row = plan[i]
            extra = port.addresses[1:]
            shown = ", ".join(extra[:6]) + (f" and {len(extra) - 6} more" if len(extra) > 6 else "")
            out.append(finding([row[f"{side}_device"]], row["plane"],
                               f"{row[f'{side}_device']}:{row[f'{side}_port']} holds {shown} beside "
                               f"its planned {port.addresses[0]}: not in the plan",
                               "an unplanned subnet on a fabric port: nothing routes to it, and an edit that put it "
                               "there may mean another one", Severity.WARNING))
    return out


@check("ADDR-PORT-VRF", "every cabled switch port is in the VRF its plane's routing runs in",
       reads={BASE, TOPOLOGY})
def port_vrf(ctx: Context) -> list[Finding]:
    """A port moved into a VRF that no plane instance of its switch runs in (a typo, the management
    VRF, one never defined) still holds its address, so the cable's ends pair; but its connected
    subnet and everything arriving on it are routed in that VRF, where the plane's routes are not:
    the server (or switch) behind it is cut off, while the plane still advertises the leaf's
    aggregate that covers it."""
    out: list[Finding] = []
    devices, plan = ctx.snap.devices, ctx.cables.plan
    # the VRFs each switch routes in: those of its BGP instances (their names cross from the
    # routing side); a switch with none is another check's finding
    routed = {name: set(dev.bgp) for name, dev in devices.items()}
    why = "traffic on the port is routed in a VRF without the plane's routes: the device behind it is cut off"
    for side, far, ports, _planes in ctx.cables.sides():
        names = plan.column(f"{side}_device")
        for i, iface in enumerate(ports):
            if iface is None or not iface.addresses:
                continue
            vrfs = routed.get(names[i])
            if not vrfs or iface.vrf in vrfs:
                continue
            row = plan[i]
            out.append(finding([names[i], row[f"{far}_device"]], row["plane"],
                               f"{names[i]} {iface.name} (to {row[f'{far}_device']} {row[f'{far}_port']}) is in VRF "
                               f"{iface.vrf or 'default'}, where {names[i]} runs no routing of its plane", why))
    return out


@check("ADDR-LOOPBACK-NOT-ADVERTISED", "every loopback is originated into BGP",
       reads={ROUTING, SESSIONS, TOPOLOGY})
def loopbacks_advertised(ctx: Context) -> list[Finding]:
    out = []
    idx, bits_of = ctx.origins
    # per instance, what it originates (not the index's one origin per prefix: a statement for
    # another device's loopback elsewhere must not take this one's away)
    originated = {node: {idx.prefixes[bit] for bit in node_bits} for node, node_bits in bits_of.items()}
    topo = ctx.topo
    for i in np.flatnonzero(topo.is_loopback).tolist():  # servers have none
        if not topo.address[i].endswith("/32"):
            continue
        ep = topo.endpoint(i)
        dev = ctx.snap.devices[ep.device]
        if ep.vrf not in dev.bgp and None not in dev.bgp and not dev.bgp:
            continue
        prefix = net_str(ep.net)
        if prefix in originated.get(ep.node, set()):
            continue
        where = f"{ep.device} loopback {ep.address}{' (VRF ' + ep.vrf + ')' if ep.vrf else ''}"
        entry = ctx.snap.manifest.devices.get(ep.device)
        planned = entry is None or any(prefix in prefixes for prefixes in entry.originates.values())
        if planned:
            out.append(finding([ep.device], ctx.topo.node_plane.get(ep.node), f"{where} is not advertised",
                               "the device is unreachable for management and probes"))
        else:
            # an address the plan does not have (a hand-added second loopback address): nothing of
            # the fabric depends on it, but nothing in the fabric can reach it either
            out.append(finding([ep.device], ctx.topo.node_plane.get(ep.node),
                               f"{where} is not in the plan and not advertised",
                               "only the device itself can use it: the fabric has no route to it",
                               severity=Severity.WARNING))
    return out
