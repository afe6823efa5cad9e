"""The dual-plane performance model: bandwidth, job time, availability (docs/performance-model.md).

Plain functions of plain numbers, each unit-tested on hand-computed cases; `ModelInputs` holds the
`--model` file's values (every one has a documented default) and `server_bandwidth` reads a server
model's NICs from the inventory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from dualrail_net.sot.schema import SPEEDS_GBPS, ServerModel

# PCIe data rate per lane, Gbit/s, after line encoding (8b/10b up to gen 2, 128b/130b for 3-5,
# 242/256 FLIT for 6). Protocol overhead (TLP headers, flow control) is `pcie_efficiency`.
PCIE_LANE_GBPS = {1: 2.0, 2: 4.0, 3: 8 * 128 / 130, 4: 16 * 128 / 130, 5: 32 * 128 / 130, 6: 64 * 242 / 256}
DEFAULT_PCIE = (5, 16)  # assumed for a NIC whose inventory entry says nothing (and reported as assumed)
HOURS_PER_YEAR = 8760.0


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reliability(_Strict):
    """Per component class: mean time between failures and mean time to repair, in hours."""

    link: float = Field(default=500_000.0, gt=0, description="a server or fabric cable with its two optics")
    switch: float = Field(default=200_000.0, gt=0)
    nic: float = Field(default=1_000_000.0, gt=0)
    plane: float = Field(default=4_380.0, gt=0, description="a fault that takes a whole plane: a bad push, the SM, "
                                                              "software (MTBF of twice a year)")


class Repair(_Strict):
    link: float = Field(default=4.0, gt=0)
    switch: float = Field(default=8.0, gt=0)
    nic: float = Field(default=24.0, gt=0)
    plane: float = Field(default=2.0, gt=0)


class ModelInputs(_Strict):
    """The `--model` file (YAML). Every field is optional."""

    message_bytes: int = Field(default=1 << 30, ge=1, description="bytes each node sends to each peer in the "
                                                                   "all-to-all")
    nodes: int | None = Field(default=None, ge=2, description="nodes in the all-to-all (default: every server)")
    overhead: float = Field(default=0.05, ge=0, lt=1, description="share of dual-plane bandwidth lost to splitting "
                                                                  "and reassembly across planes")
    pcie_efficiency: float = Field(default=0.9, gt=0, le=1, description="PCIe bandwidth left after TLP overhead")
    comm_share: float = Field(default=0.3, ge=0, le=1, description="share of a training iteration spent in "
                                                                  "communication that is not overlapped")
    job_servers: int | None = Field(default=None, ge=1, description="servers of the job (default: every server)")
    job_days: float = Field(default=30.0, gt=0)
    mtbf_hours: Reliability = Reliability()
    mttr_hours: Repair = Repair()


# --- bandwidth ---------------------------------------------------------------------------------------


def pcie_gbps(gen: int, lanes: int, efficiency: float) -> float:
    return PCIE_LANE_GBPS[gen] * lanes * efficiency


@dataclass(frozen=True)
class ServerBandwidth:
    model: str
    single_plane_gbps: float  # the weaker plane's ports, each NIC capped at its PCIe bandwidth
    dual_plane_gbps: float  # every port of every plane, each NIC capped at its PCIe bandwidth
    port_gbps: float  # every port's line rate summed (no PCIe cap)
    assumed_pcie: tuple[str, ...]  # NICs whose PCIe link is the default, not the inventory's

    def speedup(self, overhead: float) -> float:
        return dual_plane_speedup(self.single_plane_gbps, self.dual_plane_gbps, overhead)


def server_bandwidth(name: str, model: ServerModel, port_speed: dict[str, str], efficiency: float) -> ServerBandwidth:
    """``port_speed``: plane -> the server port speed of that plane (e.g. "200G")."""
    planes = sorted({p.plane for nic in model.nics for p in nic.ports})
    per_plane = dict.fromkeys(planes, 0.0)
    dual = 0.0
    ports_total = 0.0
    assumed = []
    for nic in model.nics:
        if nic.pcie_gen is None or nic.pcie_lanes is None:
            assumed.append(nic.name)
        cap = pcie_gbps(nic.pcie_gen or DEFAULT_PCIE[0], nic.pcie_lanes or DEFAULT_PCIE[1], efficiency)
        speeds: dict[str, float] = {}
        for port in nic.ports:
            speeds[port.plane] = speeds.get(port.plane, 0.0) + SPEEDS_GBPS[port.speed or port_speed[port.plane]]
        for plane, s in speeds.items():
            per_plane[plane] += min(s, cap)
        dual += min(sum(speeds.values()), cap)
        ports_total += sum(speeds.values())
    single = min(per_plane.values()) if per_plane else 0.0
    return ServerBandwidth(name, single, dual, ports_total, tuple(assumed))


def dual_plane_speedup(single_gbps: float, dual_gbps: float, overhead: float) -> float:
    """Effective speed-up of two planes over one: the dual-plane bandwidth (PCIe-capped) less the
    splitting overhead, over one plane's."""
    return dual_gbps * (1 - overhead) / single_gbps if single_gbps else 0.0


def all_to_all_seconds(nodes: int, message_bytes: int, gbps: float) -> float:
    """Lower bound of an all-to-all where each of ``nodes`` sends ``message_bytes`` to every other
    node through ``gbps`` of injection bandwidth: (N-1) * M / B."""
    return (nodes - 1) * message_bytes * 8 / (gbps * 1e9) if gbps else math.inf


# --- job level ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JobEffect:
    comm_share: float  # before
    new_comm_share: float
    time_ratio: float  # new iteration time / old
    gpu_hours: float  # the job's GPU-hours on one plane
    gpu_hours_saved: float

    @property
    def iteration_change_pct(self) -> float:
        return (self.time_ratio - 1) * 100


def job_effect(comm_share: float, speedup: float, gpu_hours: float) -> JobEffect:
    """Communication (share c of an iteration, not overlapped) runs ``speedup`` times faster:
    T'/T = (1 - c) + c / S; the communication share becomes (c / S) / (T'/T)."""
    if speedup <= 0:
        raise ValueError("speed-up must be positive")
    comm = comm_share / speedup
    ratio = (1 - comm_share) + comm
    return JobEffect(comm_share, comm / ratio if ratio else 0.0, ratio, gpu_hours, gpu_hours * (1 - ratio))


# --- availability --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaneParts:
    """What a job depends on in one plane (counts) besides shared parts."""

    links: int  # the job's server cables in this plane
    leaves: int  # leaves those cables land on
    nics: int  # NICs whose every port is in this plane


@dataclass(frozen=True)
class Availability:
    single_rate: float  # job-stopping faults per hour with one plane
    dual_rate: float  # with two planes (both down at once, or a part both planes share)
    single_outage_probability: float  # over the job's duration
    dual_outage_probability: float
    single_unavailability: float
    dual_unavailability: float
    job_hours: float


def _rate_and_repair(parts: PlaneParts, mtbf: Reliability, mttr: Repair) -> tuple[float, float]:
    terms = [(parts.links / mtbf.link, mttr.link), (parts.leaves / mtbf.switch, mttr.switch),
             (parts.nics / mtbf.nic, mttr.nic), (1 / mtbf.plane, mttr.plane)]
    rate = sum(r for r, _ in terms)
    repair = sum(r * t for r, t in terms) / rate if rate else 0.0
    return rate, repair


def availability(a: PlaneParts, b: PlaneParts, shared_nics: int, job_hours: float,
                 mtbf: Reliability, mttr: Repair) -> Availability:
    """A job stops when a part it depends on fails. On one plane (plane a) every part is in series,
    the shared NICs too: rate = sum(count / MTBF). With two planes it stops only when both planes
    are down at once, rate_a * rate_b * (repair_a + repair_b) (two independent repairable units,
    rate * repair << 1), or when a part both planes share fails (a dual-port NIC carrying both).
    Spine faults are not job-stopping in either case (ECMP keeps the plane up). Probability over
    the job: 1 - exp(-rate * hours); unavailability: rate * mean repair time."""
    ra, ta = _rate_and_repair(a, mtbf, mttr)
    rb, tb = _rate_and_repair(b, mtbf, mttr)
    shared = shared_nics / mtbf.nic
    single = ra + shared
    single_repair = (ra * ta + shared * mttr.nic) / single if single else 0.0
    both = ra * rb * (ta + tb)
    dual = both + shared
    return Availability(single, dual, 1 - math.exp(-single * job_hours), 1 - math.exp(-dual * job_hours),
                        single * single_repair, (ra * ta) * (rb * tb) + shared * mttr.nic, job_hours)
