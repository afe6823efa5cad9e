"""Addressing: duplicates, overlaps, /31 ends that do not pair, loopbacks nobody advertises."""

from __future__ import annotations


from dualrail_net.verify.checks import Context, check, finding
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.ipfast import net_str, network_of
from dualrail_net.verify.topology import Endpoint


@check("ADDR-DUPLICATE-IP", "no IP address is configured twice")
def duplicate_ips(ctx: Context) -> list[Finding]:
    out = []
    for ip, eps in ctx.topo.duplicates.items():
        where = ", ".join(f"{e.device} {e.interface}" for e in eps)
        out.append(finding("ADDR-DUPLICATE-IP", sorted({e.device for e in eps}),
                           ctx.snap.plane_of_address(ip), f"{ip} is configured on {where}",
                           "two owners of one address black-hole or misdeliver traffic"))
    return out


@check("ADDR-OVERLAP", "no two different subnets overlap")
def overlapping_subnets(ctx: Context) -> list[Finding]:
    nets: dict[tuple[int, int], list[Endpoint]] = {}
    for ep in ctx.topo.endpoints:
        owners = nets.get(ep.net)
        if owners is None:
            nets[ep.net] = [ep]
        else:
            owners.append(ep)

    def names(eps: list[Endpoint]) -> list[str]:
        return [f"{e.device} {e.interface}" for e in eps]

    out = []
    open_net: tuple[int, int, tuple[int, int]] | None = None  # (start, end, key)
    for start, plen in sorted(nets):
        end = start + (1 << (32 - plen)) - 1
        if open_net and start <= open_net[1]:
            other = open_net[2]
            a = net_str(other)
            b = net_str((start, plen))
            owners = nets[(start, plen)]
            out.append(finding("ADDR-OVERLAP", sorted({e.device for e in nets[other] + owners}),
                               ctx.snap.plane_of_address(b), f"{b} ({', '.join(names(owners))}) overlaps {a} "
                               f"({', '.join(names(nets[other]))})", "overlapping subnets make routing ambiguous"))
        if not open_net or end > open_net[1]:
            open_net = (start, end, (start, plen))
    return out


@check("ADDR-P2P-MISMATCH", "both ends of every cable hold the two addresses of one subnet, as planned")
def p2p_mismatch(ctx: Context) -> list[Finding]:
    out = []
    why = "ends on different subnets never come up; the BGP session and the path are lost"
    for cable in ctx.cables:
        row = cable.row
        a = cable.a.addresses[0] if cable.a is not None and cable.a.addresses else None
        b = cable.b.addresses[0] if cable.b is not None and cable.b.addresses else None
        devices = [row["a_device"], row["b_device"]]
        label = f"{row['a_device']}:{row['a_port']} - {row['b_device']}:{row['b_port']}"
        if a is None or b is None:
            out.append(finding("ADDR-P2P-MISMATCH", devices, row["plane"],
                               f"{label}: {'both ends have' if a is None and b is None else 'one end has'} "
                               "no address in the rendered config", why))
            continue
        if network_of(a) != network_of(b) or a.partition("/")[0] == b.partition("/")[0]:
            out.append(finding("ADDR-P2P-MISMATCH", devices, row["plane"], f"{label}: {a} and {b} do not pair", why))
        elif (row.get("a_address"), row.get("b_address")) != (a, b):
            out.append(finding("ADDR-P2P-MISMATCH", devices, row["plane"],
                               f"{label}: configs say {a} / {b}, the cabling plan says {row.get('a_address')} / "
                               f"{row.get('b_address')}", "the configs and the cabling plan disagree: one was edited"))
    return out


@check("ADDR-LOOPBACK-NOT-ADVERTISED", "every loopback is originated into BGP")
def loopbacks_advertised(ctx: Context) -> list[Finding]:
    out = []
    idx = ctx.prefix_index
    originated: dict[tuple[str, str | None], set[str]] = {}
    for bit, prefix in enumerate(idx.prefixes):
        originated.setdefault(idx.origin[bit], set()).add(prefix)
    for ep in ctx.topo.endpoints:
        if ep.is_server or not ep.is_loopback or not ep.address.endswith("/32"):
            continue
        dev = ctx.snap.devices[ep.device]
        if ep.vrf not in dev.bgp and None not in dev.bgp and not dev.bgp:
            continue
        if net_str(ep.net) not in originated.get(ep.node, set()):
            out.append(finding("ADDR-LOOPBACK-NOT-ADVERTISED", [ep.device], ctx.topo.node_plane.get(ep.node),
                               f"{ep.device} loopback {ep.address}{' (VRF ' + ep.vrf + ')' if ep.vrf else ''} "
                               "is not advertised", "the device is unreachable for management and probes"))
    return out
