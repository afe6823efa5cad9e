"""`dualrail capacity`: every figure of one fabric in one typed report, and its JSON form."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dualrail_net.capacity.failures import (FailureModel, Scenario, ScenarioImpact, default_scenarios, merge_impacts,
                                           server_plane_counts)
from dualrail_net.capacity.figures import (CapacityFigures, OversubscriptionIssue, PlaneFigures, links_by_plane,
                                           planes_figures, server_model_figures)
from dualrail_net.forked import Forked, can_fork
from dualrail_net.capacity.model import (Availability, JobEffect, ModelInputs, PlaneParts, ServerBandwidth,
                                         all_to_all_seconds, availability, job_effect, server_bandwidth)
from dualrail_net.gcpause import gc_paused
from dualrail_net.resolve.model import Fabric, Link
from dualrail_net.sot.schema import Inventory


@dataclass(frozen=True)
class ModelFigures:
    inputs: ModelInputs
    servers: list[ServerBandwidth]
    nodes: int
    single_seconds: float  # all-to-all on one plane, the fleet's weakest server model
    dual_seconds: float
    speedup: float
    job: JobEffect
    availability: Availability | None  # None with fewer than two planes
    job_servers: int


@dataclass(frozen=True)
class Guard:
    name: str
    bound: float
    value: float
    where: str

    @property
    def ok(self) -> bool:
        return self.value >= self.bound


@dataclass(frozen=True)
class CapacityReport:
    figures: CapacityFigures
    impacts: list[ScenarioImpact]
    model: ModelFigures
    guards: list[Guard] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.figures.over_bound and all(g.ok for g in self.guards)


def model_figures(inv: Inventory, fabric: Fabric, inputs: ModelInputs) -> ModelFigures:
    servers_models = inv.servers.server_models
    speed = {p: spec.link_speeds.server for p, spec in inv.fabric.planes.items()}
    used = sorted({s.model for s in fabric.servers})
    bandwidth = [server_bandwidth(m, servers_models[m], speed, inputs.pcie_efficiency) for m in used]
    nodes = inputs.nodes or max(len(fabric.servers), 2)
    weakest = min(bandwidth, key=lambda b: b.speedup(inputs.overhead), default=None)
    single = weakest.single_plane_gbps if weakest else 0.0
    dual = weakest.dual_plane_gbps * (1 - inputs.overhead) if weakest else 0.0
    speedup = weakest.speedup(inputs.overhead) if weakest else 1.0
    job_servers = min(inputs.job_servers or len(fabric.servers), len(fabric.servers))
    chosen = sorted(fabric.servers, key=lambda s: s.name)[:job_servers]
    gpus = sum(servers_models[s.model].gpu_count for s in chosen)
    job = job_effect(inputs.comm_share, speedup if speedup > 0 else 1.0, gpus * inputs.job_days * 24)
    avail = None
    planes = list(fabric.planes)
    if len(planes) >= 2:
        links = {p: 0 for p in planes[:2]}
        leaves: dict[str, set[str]] = {p: set() for p in planes[:2]}
        nics = {p: 0 for p in planes[:2]}
        shared = 0
        for srv in chosen:
            for port in srv.ports:
                if port.plane in links:
                    links[port.plane] += 1
                    leaves[port.plane].add(port.leaf)
            for nic in servers_models[srv.model].nics:
                nic_planes = {p.plane for p in nic.ports}
                if len(nic_planes) > 1:
                    shared += 1  # a NIC carrying both planes: its fault stops both
                elif nic_planes <= set(nics):
                    nics[next(iter(nic_planes))] += 1
        a, b = (PlaneParts(links[p], len(leaves[p]), nics[p]) for p in planes[:2])
        avail = availability(a, b, shared, inputs.job_days * 24, inputs.mtbf_hours, inputs.mttr_hours)
    return ModelFigures(inputs, bandwidth, nodes, all_to_all_seconds(nodes, inputs.message_bytes, single),
                        all_to_all_seconds(nodes, inputs.message_bytes, dual), speedup, job, avail, job_servers)


# Switches from which the planes are computed in two processes (below it one process, the reference;
# tests/test_capacity.py holds the two equal).
PARALLEL_FROM = 4000


def _planes_part(fabric: Fabric, planes: list[str], scenarios: list[Scenario], bound: float,
                 links: dict[str, list[Link]]) -> tuple[list[PlaneFigures], list[OversubscriptionIssue],
                                                        list[ScenarioImpact]]:
    """Everything that depends on ``planes`` only: their figures and their share of each scenario."""
    with gc_paused():  # millions of small acyclic objects at 100k GPUs (see gcpause)
        figures, issues = planes_figures(fabric, planes, bound, links)
        failures = FailureModel(fabric, planes, links)
        return figures, issues, [failures.impact(s) for s in scenarios]


def capacity_report(inv: Inventory, fabric: Fabric, inputs: ModelInputs | None = None,
                    scenarios: list[Scenario] | None = None, min_plane_gbps: float | None = None,
                    min_bisection_gbps: float | None = None, parallel_from: int = PARALLEL_FROM) -> CapacityReport:
    """Figures, the impact of ``scenarios`` (default: `default_scenarios`) and the model. From
    ``parallel_from`` switches the second half of the planes is computed in a forked child."""
    gpus = {name: m.gpu_count for name, m in inv.servers.server_models.items()}
    bound = inv.fabric.topology.max_oversubscription
    todo = scenarios if scenarios is not None else default_scenarios(fabric)
    planes = list(fabric.planes)
    with gc_paused():
        links = links_by_plane(fabric)  # before the fork: both processes read it
    split = len(planes) // 2 if len(fabric.switches) >= parallel_from and len(planes) > 1 and can_fork() else 0
    child = (Forked(lambda _tick: _planes_part(fabric, planes[split:], todo, bound, links),
                    f"capacity of planes {', '.join(planes[split:])}") if split else None)
    figures, issues, impacts = _planes_part(fabric, planes[:split] if split else planes, todo, bound, links)
    if child is not None:
        more_figures, more_issues, more_impacts = child.result()
        figures += more_figures
        issues += more_issues
        server_planes = server_plane_counts(fabric)
        impacts = [merge_impacts([a, b], planes, server_planes) for a, b in zip(impacts, more_impacts)]
    totals = CapacityFigures(fabric.name, fabric.tiers, figures, server_model_figures(fabric, gpus), issues)
    guards = []
    for p in totals.planes:
        if min_plane_gbps is not None:
            guards.append(Guard("min-plane-gbps", min_plane_gbps, p.server_gbps, f"plane {p.plane}"))
        if min_bisection_gbps is not None:
            guards.append(Guard("min-bisection-gbps", min_bisection_gbps, p.bisection_gbps, f"plane {p.plane}"))
    return CapacityReport(totals, impacts, model_figures(inv, fabric, inputs or ModelInputs()), guards)


# --- JSON -------------------------------------------------------------------------------------------


def _r(x: float) -> float | None:
    """A figure for JSON: rounded, and null where it has no finite value (an all-to-all over no
    bandwidth): JSON has no Infinity."""
    return round(x, 6) if math.isfinite(x) else None


def to_json(report: CapacityReport) -> dict[str, Any]:
    f = report.figures
    m = report.model
    return {
        "fabric": f.fabric, "tiers": f.tiers_count, "ok": report.ok,
        "total_server_gbps": _r(f.total_server_gbps), "total_bisection_gbps": _r(f.total_bisection_gbps),
        "planes": [{
            "plane": p.plane, "servers": p.servers, "server_ports": p.server_ports, "server_gbps": _r(p.server_gbps),
            "rail_gbps": {str(r): _r(g) for r, g in p.rail_gbps.items()}, "bisection_gbps": _r(p.bisection_gbps),
            "tiers": [{"tier": t.tier, "devices": t.devices, "down_gbps": _r(t.down_gbps), "up_gbps": _r(t.up_gbps),
                       "oversubscription": None if t.oversubscription is None else _r(t.oversubscription),
                       "worst_oversubscription": None if t.worst_oversubscription is None
                       else _r(t.worst_oversubscription), "worst_device": t.worst_device} for t in p.tiers],
        } for p in f.planes],
        "server_models": [{"model": s.model, "servers": s.servers, "gpus": s.gpus, "server_gbps": _r(s.server_gbps),
                           "gpu_gbps": _r(s.gpu_gbps), "plane_gbps": {k: _r(v) for k, v in s.plane_gbps.items()},
                           "rail_gbps": {p: {str(r): _r(g) for r, g in rails.items()}
                                         for p, rails in s.rail_gbps.items()}} for s in f.server_models],
        "over_max_oversubscription": [{"plane": o.plane, "tier": o.tier, "device": o.device, "ratio": _r(o.ratio),
                                       "bound": o.bound} for o in f.over_bound],
        "scenarios": [_impact_json(i) for i in report.impacts],
        "model": _model_json(m),
        "guards": [{"guard": g.name, "where": g.where, "bound": g.bound, "value": _r(g.value), "ok": g.ok}
                   for g in report.guards],
    }


def _impact_json(i: ScenarioImpact) -> dict[str, Any]:
    return {
        "scenario": i.scenario.name, "failures": list(i.scenario.failures), "failed_devices": list(i.failed),
        "servers_losing_a_rail": i.servers_losing_a_rail, "servers_losing_every_plane": list(i.lost_both),
        "planes": {p: {
            "server_gbps": _r(x.server_gbps), "fabric_gbps": _r(x.fabric_gbps), "fabric_pct": _r(x.fabric_pct),
            "rail_gbps": {str(r): _r(g) for r, g in x.rail_gbps.items()},
            "rail_pct": {str(r): _r(x.rail_pct(r)) for r in x.rail_gbps},
            "bisection_gbps": _r(x.bisection_gbps), "min_ecmp_width": x.min_ecmp, "planned_ecmp_width": x.healthy_ecmp,
            "failed_leaves": x.failed_leaves,
            "leaf_ecmp": {leaf: {"width": w, "unreachable_leaves": u} for leaf, (w, u) in sorted(x.leaf_ecmp.items())},
        } for p, x in i.planes.items()},
        "lost_rails": {p: {str(r): list(names) for r, names in rails.items()} for p, rails in i.lost_ports.items()},
    }


def _model_json(m: ModelFigures) -> dict[str, Any]:
    out: dict[str, Any] = {
        "inputs": m.inputs.model_dump(),
        "servers": [{"model": s.model, "single_plane_gbps": _r(s.single_plane_gbps),
                     "dual_plane_gbps": _r(s.dual_plane_gbps), "port_gbps": _r(s.port_gbps),
                     "speedup": _r(s.speedup(m.inputs.overhead)), "assumed_pcie": list(s.assumed_pcie)}
                    for s in m.servers],
        "all_to_all": {"nodes": m.nodes, "message_bytes": m.inputs.message_bytes,
                       "single_plane_seconds": _r(m.single_seconds), "dual_plane_seconds": _r(m.dual_seconds),
                       "speedup": _r(m.speedup)},
        "job": {"servers": m.job_servers, "comm_share": _r(m.job.comm_share), "new_comm_share": _r(m.job.new_comm_share),
                "iteration_time_ratio": _r(m.job.time_ratio), "iteration_change_pct": _r(m.job.iteration_change_pct),
                "gpu_hours": _r(m.job.gpu_hours), "gpu_hours_saved": _r(m.job.gpu_hours_saved)},
    }
    if m.availability:
        a = m.availability
        out["availability"] = {"job_hours": a.job_hours, "single_plane_faults_per_hour": a.single_rate,
                               "dual_plane_faults_per_hour": a.dual_rate,
                               "single_plane_outage_probability": a.single_outage_probability,
                               "dual_plane_outage_probability": a.dual_outage_probability,
                               "single_plane_unavailability": a.single_unavailability,
                               "dual_plane_unavailability": a.dual_unavailability}
    return out
