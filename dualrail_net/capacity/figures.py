"""Bandwidth of every plane and tier, read off the resolved fabric's cabling plan.

Every figure is a sum over planned cables (`Fabric.links`), so it is what the built fabric carries,
not what the inventory's hardware could grow to. Units: Gbit/s.

Invariants: a tier's `down_gbps` is the bandwidth of its cables toward the tier below (servers for
leaves), `up_gbps` toward the tier above; a device's oversubscription is down/up (None with no
uplinks: the top tier). Bisection of a plane is half the narrowest tier total that traffic between
two halves of the plane must cross.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from dualrail_net.resolve.model import Fabric, Link
from dualrail_net.sot.schema import SPEEDS_GBPS

TIER_ORDER = ("leaf", "spine", "super_spine")
# cable kind -> (lower tier, upper tier)
_KIND_TIERS = {"server-leaf": ("server", "leaf"), "leaf-spine": ("leaf", "spine"),
               "spine-super_spine": ("spine", "super_spine")}


_GBPS = {name: float(value) for name, value in SPEEDS_GBPS.items()}


def gbps(speed: str) -> float:
    return _GBPS[speed]


@dataclass(frozen=True)
class TierFigures:
    tier: str  # leaf, spine, super_spine
    devices: int
    down_gbps: float
    up_gbps: float
    worst_oversubscription: float | None  # the most oversubscribed device of the tier (None: no uplinks)
    worst_device: str | None

    @property
    def oversubscription(self) -> float | None:
        return self.down_gbps / self.up_gbps if self.up_gbps else None


@dataclass(frozen=True)
class PlaneFigures:
    plane: str
    servers: int  # servers with at least one port in this plane
    server_ports: int
    server_gbps: float  # injection bandwidth: every server port of the plane
    rail_gbps: dict[int, float]  # the same per rail
    tiers: list[TierFigures]
    bisection_gbps: float


@dataclass(frozen=True)
class ServerModelFigures:
    model: str
    servers: int
    gpus: int  # per server
    plane_gbps: dict[str, float]  # one server's bandwidth into each plane
    rail_gbps: dict[str, dict[int, float]]  # plane -> rail -> one server's bandwidth

    @property
    def server_gbps(self) -> float:
        return sum(self.plane_gbps.values())

    @property
    def gpu_gbps(self) -> float:
        return self.server_gbps / self.gpus if self.gpus else 0.0


@dataclass(frozen=True)
class OversubscriptionIssue:
    plane: str
    tier: str
    device: str
    ratio: float
    bound: float

    def describe(self) -> str:
        return (f"plane {self.plane}: {self.tier} {self.device} is {self.ratio:.2f}:1 oversubscribed, above "
                f"max_oversubscription {self.bound:g}")


@dataclass(frozen=True)
class CapacityFigures:
    fabric: str
    tiers_count: int
    planes: list[PlaneFigures]
    server_models: list[ServerModelFigures]
    over_bound: list[OversubscriptionIssue] = field(default_factory=list)

    @property
    def total_server_gbps(self) -> float:
        return sum(p.server_gbps for p in self.planes)

    @property
    def total_bisection_gbps(self) -> float:
        return sum(p.bisection_gbps for p in self.planes)

    def plane(self, name: str) -> PlaneFigures:
        return next(p for p in self.planes if p.plane == name)


@dataclass
class _Device:
    down: float = 0.0
    up: float = 0.0


def links_by_plane(fabric: Fabric) -> dict[str, list[Link]]:
    out: dict[str, list[Link]] = {p: [] for p in fabric.planes}
    for link in fabric.links:
        out.setdefault(link.plane, []).append(link)
    return out


def device_bandwidth(fabric: Fabric, plane: str, links: list[Link] | None = None) -> dict[str, _Device]:
    """Down/up Gbit/s of every leaf, spine and super-spine of ``plane`` (cables to gateways excluded:
    they are the border, not part of the plane's Clos)."""
    out: dict[str, _Device] = defaultdict(_Device)
    for link in (links if links is not None else links_by_plane(fabric)[plane]):
        tiers = _KIND_TIERS.get(link.kind)
        if tiers is None:
            continue
        speed = _GBPS[link.speed]
        if tiers[0] != "server":
            out[link.a].up += speed
        out[link.b].down += speed
    for sw in fabric.plane_switches(plane):
        if sw.role != "gateway":
            out.setdefault(sw.name, _Device())
    return out


def plane_figures(fabric: Fabric, plane: str, links: list[Link] | None = None,
                  devices: dict[str, _Device] | None = None) -> PlaneFigures:
    links = links if links is not None else links_by_plane(fabric)[plane]
    devices = devices if devices is not None else device_bandwidth(fabric, plane, links)
    by_tier: dict[str, list[tuple[str, _Device]]] = defaultdict(list)
    for sw in fabric.plane_switches(plane):
        if sw.role in TIER_ORDER:
            by_tier[sw.role].append((sw.name, devices[sw.name]))
    tiers = []
    for tier in TIER_ORDER:
        members = by_tier.get(tier, [])
        if not members:
            continue
        worst: tuple[float, str] | None = None
        for name, dev in members:
            if dev.up:
                ratio = dev.down / dev.up
                if worst is None or ratio > worst[0] + 1e-12:
                    worst = (ratio, name)
        tiers.append(TierFigures(tier, len(members), sum(d.down for _, d in members), sum(d.up for _, d in members),
                                 worst[0] if worst else None, worst[1] if worst else None))
    servers: set[str] = set()
    rail: dict[int, float] = defaultdict(float)
    ports = 0
    speeds = {(l.a, l.a_port): gbps(l.speed) for l in links if l.kind == "server-leaf"}
    for srv in fabric.servers:
        for port in srv.ports:
            if port.plane == plane:
                servers.add(srv.name)
                ports += 1
                rail[port.rail] += speeds.get((srv.name, port.ifname), 0.0)
    server_gbps = sum(rail.values())
    return PlaneFigures(plane, len(servers), ports, server_gbps, dict(sorted(rail.items())), tiers,
                        bisection(server_gbps, tiers))


def bisection(server_gbps: float, tiers: list[TierFigures]) -> float:
    """Half the narrowest total a balanced cut must cross: the servers' injection and every tier's
    uplinks (the top tier has none and turns traffic around)."""
    crossings = [server_gbps] + [t.up_gbps for t in tiers if t.up_gbps]
    return min(crossings) / 2 if crossings else 0.0


def server_model_figures(fabric: Fabric, gpus: dict[str, int]) -> list[ServerModelFigures]:
    speeds = {(l.a, l.a_port): gbps(l.speed) for l in fabric.links if l.kind == "server-leaf"}
    seen: dict[str, ServerModelFigures] = {}
    counts: dict[str, int] = defaultdict(int)
    for srv in fabric.servers:
        counts[srv.model] += 1
        if srv.model in seen:
            continue
        plane: dict[str, float] = defaultdict(float)
        rail: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        for port in srv.ports:
            speed = speeds.get((srv.name, port.ifname), 0.0)
            plane[port.plane] += speed
            rail[port.plane][port.rail] += speed
        seen[srv.model] = ServerModelFigures(srv.model, 0, gpus.get(srv.model, 0), dict(sorted(plane.items())),
                                             {p: dict(sorted(r.items())) for p, r in sorted(rail.items())})
    return [ServerModelFigures(m.model, counts[m.model], m.gpus, m.plane_gbps, m.rail_gbps)
            for m in sorted(seen.values(), key=lambda m: m.model)]


def over_bound(fabric: Fabric, bound: float, bandwidth: dict[str, dict[str, _Device]] | None = None,
               planes: list[str] | None = None) -> list[OversubscriptionIssue]:
    """Every leaf, spine and super-spine above ``bound`` (the inventory's max_oversubscription)."""
    issues = []
    for plane in (planes if planes is not None else list(fabric.planes)):
        devices = bandwidth[plane] if bandwidth else device_bandwidth(fabric, plane)
        for sw in fabric.plane_switches(plane):
            dev = devices.get(sw.name)
            if sw.role in TIER_ORDER and dev and dev.up and dev.down / dev.up > bound + 1e-9:
                issues.append(OversubscriptionIssue(plane, sw.role, sw.name, dev.down / dev.up, bound))
    return issues


def planes_figures(fabric: Fabric, planes: list[str], max_oversubscription: float,
                   links: dict[str, list[Link]] | None = None) -> tuple[list[PlaneFigures], list[OversubscriptionIssue]]:
    """The figures of some planes (each plane's are independent of the others')."""
    links = links if links is not None else links_by_plane(fabric)
    bandwidth = {p: device_bandwidth(fabric, p, links[p]) for p in planes}
    return ([plane_figures(fabric, p, links[p], bandwidth[p]) for p in planes],
            over_bound(fabric, max_oversubscription, bandwidth, planes))


def capacity_figures(fabric: Fabric, gpus: dict[str, int], max_oversubscription: float) -> CapacityFigures:
    planes, issues = planes_figures(fabric, list(fabric.planes), max_oversubscription)
    return CapacityFigures(fabric.name, fabric.tiers, planes, server_model_figures(fabric, gpus), issues)
