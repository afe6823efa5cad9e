"""Link settings against the plan and the other end (LINK-CONFIG): a port forced to another speed
than its cable is planned at, two ends that force different FEC or autonegotiation, or FEC off
on PAM4 lanes, bring the link up at the wrong speed or not at all. What a platform leaves
automatic is not judged. A cabled switch port that is kept down or carries no IP (LINK-PORT-DOWN)
loses its link whatever else is right on it; one that does not forward what it receives
(LINK-NO-FORWARDING) blackholes what its peer sends through it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from dualrail_net.verify.checks import BASE, TOPOLOGY, Context, check, finding
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.model import Interface, LinkSettings, why_down
from dualrail_net.verify.parsers.link import planned_mbps


def _gbps(mbps: int) -> str:
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps}M"


# Links of 200G and more run 50G or 100G PAM4 lanes (the 100G and 50G links of the plans may still be
# NRZ lanes, where FEC is the optics' choice: not judged); PAM4 lanes need RS(544,514) FEC
PAM4_FROM_MBPS = 200_000
NOT_PAM4_FEC = frozenset({"none", "baser"})


def _fec(name: str | None) -> str:
    return {"rs": "RS (Reed-Solomon)", "baser": "BASE-R (Fire code)", "none": "off"}.get(name or "", "auto")


@check("LINK-PLAN", "the cabling plans the checks, the twin and the audit compare with are in the build",
       reads={TOPOLOGY})
def cabling_plans(ctx: Context) -> list[Finding]:
    """A plan read as empty (read_cabling reads a missing file so) would leave every check that
    compares with it silent: the Ethernet plan without rows while the build has switches, or an
    IB plane's plan missing, is an error of its own."""
    out: list[Finding] = []
    manifest, root = ctx.snap.manifest, ctx.snap.root
    why = "every check that compares cables, ports, addresses and speeds with the plan (and the twin, the " \
          "audit) reads this file: without it they find nothing to compare, whatever the configs say"
    if manifest.devices and not len(ctx.cables.plan):
        said = "missing" if not (root / manifest.cabling).exists() else "holds no cable"
        out.append(finding([], "", f"{manifest.cabling}: {said} (the build has {len(manifest.devices)} switches)", why))
    for plane, ib in manifest.ib_planes.items():
        rel = f"{ib.dir}/cabling.csv"
        if ib.switches and not (root / rel).is_file():
            out.append(finding([], plane, f"{rel}: missing (IB plane {plane} has {len(ib.switches)} switches)", why))
    return out


@check("LINK-CONFIG", "every cabled port runs its link's planned speed, and both ends agree on FEC and "
       "autonegotiation", reads={BASE, TOPOLOGY})
def link_config(ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    cables = ctx.cables
    plan = cables.plan
    speeds, a_devices, b_devices = plan.column("speed"), plan.column("a_device"), plan.column("b_device")
    a_ports, b_ports = plan.column("a_port"), plan.column("b_port")
    for i, (a, b) in enumerate(zip(cables.a, cables.b)):
        a_link = a.link if a is not None else None
        b_link = b.link if b is not None else None
        if a_link is None and b_link is None:
            continue  # the common case: nothing forced at either end
        plane = cables.a_plane[i] or cables.b_plane[i] or ""
        ends = [(a_devices[i], a_ports[i], a_link), (b_devices[i], b_ports[i], b_link)]
        planned = planned_mbps(speeds[i])
        for device, port, settings in ends:
            if settings is None or settings.speed_mbps is None or planned is None or settings.speed_mbps == planned:
                continue
            out.append(finding([device], plane, f"{_where(ctx, device, settings)}: {device} {port} is forced to "
                               f"{_gbps(settings.speed_mbps)}, the link to {_other(ends, device, port)} is planned "
                               f"at {speeds[i]}", "the ends cannot agree on a speed the cable was planned for: the "
                               "link stays down, or runs slower than the plan counts on"))
        for device, port, settings in ends:
            speed = settings.speed_mbps or planned if settings is not None else None
            if settings is None or settings.fec not in NOT_PAM4_FEC or speed is None or speed < PAM4_FROM_MBPS:
                continue
            out.append(finding([device], plane, f"{_where(ctx, device, settings)}: {device} {port} runs FEC "
                               f"{_fec(settings.fec)} on a {_gbps(speed)} link (to {_other(ends, device, port)})",
                               "lanes of 50G and more are PAM4, which needs Reed-Solomon FEC (IEEE 802.3 clauses "
                               "91, 134): without it the link does not come up, or runs with errors no retry hides"))
        if a_link is None or b_link is None:
            continue
        pairs: list[tuple[str, str | None, str | None]] = [
            ("FEC", a_link.fec and _fec(a_link.fec), b_link.fec and _fec(b_link.fec)),
            ("autonegotiation", None if a_link.autoneg is None else ("on" if a_link.autoneg else "off"),
             None if b_link.autoneg is None else ("on" if b_link.autoneg else "off"))]
        for what, left, right in pairs:
            if left is None or right is None or left == right:
                continue
            out.append(finding([a_devices[i], b_devices[i]], plane,
                               f"{_where(ctx, a_devices[i], a_link)}, {_where(ctx, b_devices[i], b_link)}: "
                               f"{a_devices[i]} {a_ports[i]} {what} {left} (the other end {b_devices[i]} "
                               f"{b_ports[i]}: {right})", f"two ends with different {what} do not bring the link up"))
    return out


def _where(ctx: Context, device: str, settings: LinkSettings) -> str:
    return ctx.snap.where(device, settings.file, settings.line) if device in ctx.snap.devices else device


def _other(ends: list[tuple[str, str, LinkSettings | None]], device: str, port: str) -> str:
    return next(f"{d} {p}" for d, p, _ in ends if (d, p) != (device, port))



class _CabledPort(NamedTuple):
    device: str
    iface: Interface
    peer: str  # the far end as the cabling plan has it
    peer_port: str
    plane: str


def _cabled_switch_ports(ctx: Context, picked: Callable[[Interface], bool]) -> Iterator[_CabledPort]:
    """Each cabled port of a rendered switch that ``picked`` takes, with its far end as planned."""
    cables, devices = ctx.cables, ctx.snap.devices
    plan = cables.plan
    for side, far, ports, planes in cables.sides():
        names = plan.column(f"{side}_device")
        for i, iface in enumerate(ports):
            if iface is None or not picked(iface) or names[i] not in devices:
                continue
            row = plan[i]
            yield _CabledPort(names[i], iface, row[f"{far}_device"], row[f"{far}_port"], planes[i] or row["plane"])


@check("LINK-PORT-DOWN", "every cabled switch port is up and routed", reads={BASE, TOPOLOGY})
def port_down(ctx: Context) -> list[Finding]:
    """An uplink kept down also loses its BGP session (the session checks say so); a server port
    has no session, and nothing else notices that the server lost its link into the plane."""
    return [finding([p.device, p.peer], p.plane, f"{p.device} {p.iface.name} (to {p.peer} {p.peer_port}) is "
                    f"{why_down(p.iface.down)}", f"the link to {p.peer} carries no traffic: it loses this plane")
            for p in _cabled_switch_ports(ctx, lambda iface: bool(iface.down))]


@check("LINK-NO-FORWARDING", "every cabled switch port routes what it receives", reads={BASE, TOPOLOGY})
def port_no_forwarding(ctx: Context) -> list[Finding]:
    """The kernel forwards a packet only when the port it arrived on forwards (Linux checks the
    input device's conf.<port>.forwarding, which `ip-forward off` or a sysctl sets): the port still
    answers, its BGP session stays up and every route through it is advertised and installed, but
    what arrives on it for anywhere else is dropped."""
    out: list[Finding] = []
    for p in _cabled_switch_ports(ctx, lambda iface: iface.forwarding is not None and not iface.forwarding[0]):
        assert p.iface.forwarding is not None
        _, line, statement, file = p.iface.forwarding
        out.append(finding([p.device, p.peer], p.plane,
                           f"{ctx.snap.where(p.device, file, line)}: {p.device} {p.iface.name} (from {p.peer} "
                           f"{p.peer_port}) does not forward what it receives ({statement})",
                           f"what {p.peer} sends through {p.device} is dropped there, while BGP still advertises and "
                           "installs the path: a blackhole"))
    return out
