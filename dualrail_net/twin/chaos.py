"""``twin chaos``: faults while traffic runs on both planes, with loss per plane and recovery time.

A killed switch is emulated as a dead box: its ports go down (its neighbours see carrier loss, as
with a real power-off) and its FRR daemons are killed. Restore brings the ports up and starts FRR
again with the same rendered config; recovery is the time until every session is Established and
every leaf has full ECMP width again."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dualrail_net.twin import frr
from dualrail_net.twin.checks import TwinView, wait_converged
from dualrail_net.twin.lifecycle import STATE_DIR, load_state, rundir
from dualrail_net.twin.shell import TwinError, fabric_ports, in_ns
from dualrail_net.twin.traffic import Background, Pairs, probe_once

Say = Callable[[str], None]


@dataclass
class Phase:
    name: str
    targets: list[str]
    start: float = 0.0
    end: float = 0.0
    down: float = 0.0  # when the last target was down (taking several down takes a while under load)
    restored: float = 0.0
    recovery_seconds: float | None = None
    loss: dict[str, dict[str, int]] = field(default_factory=dict)  # plane -> {sent, lost}, whole phase
    outage_loss: dict[str, dict[str, int]] = field(default_factory=dict)  # while the targets were down

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.name, "targets": self.targets, "window": [round(self.start, 2), round(self.end, 2)],
                "outage_window": [round(self.down, 2), round(self.restored, 2)],
                "recovery_seconds": None if self.recovery_seconds is None else round(self.recovery_seconds, 2),
                "loss": _pct(self.loss), "outage_loss": _pct(self.outage_loss)}


def window_loss(results: dict[str, list[dict[str, Any]]], plane_of: Callable[[str], str | None], lo: float, hi: float,
                interval: float) -> dict[str, dict[str, int]]:
    """Per plane, the probes sent and lost between ``lo`` and ``hi`` (the system's monotonic clock).
    A prober counts from its own start, which comes a moment after the run's (a process started in a
    namespace: a second or more on a loaded machine); its losses are placed by that start (its row's
    ``started``), else a window slides off the outage it measures."""
    out: dict[str, dict[str, int]] = {}
    for rows in results.values():
        for r in rows:
            agg = out.setdefault(plane_of(r["dst"]) or "?", {"sent": 0, "lost": 0})
            agg["sent"] += int(round((hi - lo) / interval))
            agg["lost"] += sum(1 for t in r["lost_at"] if lo <= r["started"] + t < hi)
    return out


def _pct(loss: dict[str, dict[str, int]]) -> dict[str, dict[str, float]]:
    return {p: {**v, "loss_pct": round(100 * v["lost"] / v["sent"], 2) if v["sent"] else 0.0} for p, v in loss.items()}


def kill_switch(ns: str) -> None:
    for link in fabric_ports(ns):
        in_ns(ns, ["ip", "link", "set", link, "down"], check=False)
    frr.stop(rundir(ns), sig=signal.SIGKILL, wait=2)


def restore_switch(ns: str, device: str) -> None:
    for link in fabric_ports(ns):
        in_ns(ns, ["ip", "link", "set", link, "up"], check=False)
    d = rundir(ns)
    frr.start(ns, device, d, (d / "frr.conf").read_text())


def probe_jobs(view: TwinView) -> dict[str, Pairs]:
    """Every NIC port of every server probes a peer server over its own plane and rail position,
    so a dead leaf of any rail shows up, and every plane carries probes all the time."""
    jobs: dict[str, Pairs] = {}
    names = sorted(view.servers)
    for i, s in enumerate(names):
        pairs: Pairs = []
        for plane in view.plan.planes:
            mine = [p for p in view.server_ports(s) if p[2] == plane]
            for j, (_, src, _) in enumerate(mine):
                # half the fleet away: in another scalable unit, so the path crosses the spines
                peer = names[(i + len(names) // 2 + j) % len(names)]
                theirs = [p for p in view.server_ports(peer) if p[2] == plane]
                if theirs:
                    pairs.append((src, theirs[j % len(theirs)][1]))
        jobs[view.server_ns[s]] = pairs
    return jobs


def run_chaos(say: Say | None = None, settle: float = 2.0, outage: float = 3.0, leaf: bool = True) -> dict[str, Any]:
    log = say or (lambda _m: None)
    state = load_state()
    if not state:
        raise TwinError("no twin is running: `dualrail twin up` first")
    view = TwinView(state)
    if not view.servers_up:
        raise TwinError("chaos measures loss with probes between servers: bring the twin up with its servers "
                        "(without --no-servers)")
    wait_converged()
    switches = view.plan.switches
    first_plane = view.plan.planes[0]
    spines = [s for s in switches if s.plane == first_plane and s.role == "spine"]
    leaves = [s for s in switches if s.plane == first_plane and s.role == "leaf"]
    scenarios: list[tuple[str, list[Any]]] = [(f"one spine of plane {first_plane}", spines[:1]),
                                               (f"all spines of plane {first_plane}", spines)]
    if leaf and leaves:
        scenarios.append((f"one leaf of plane {first_plane}", leaves[:1]))
    # Upper bound of the probe run; probes stop early through the stop file.
    budget = (len(scenarios) + 1) * (settle + outage + 60)
    stop_file = STATE_DIR / "chaos-stop"
    stop_file.parent.mkdir(parents=True, exist_ok=True)
    stop_file.unlink(missing_ok=True)
    jobs = probe_jobs(view)
    probe_once(jobs, count=2)  # warm up ARP so the baseline measures the fabric, not first packets
    bg = Background(jobs, duration=budget, interval=0.05, stop_file=str(stop_file))
    t0 = time.monotonic()
    phases: list[Phase] = []
    time.sleep(settle)
    baseline = Phase("baseline", [], 0.0, time.monotonic() - t0)
    phases.append(baseline)
    try:
        for name, targets in scenarios:
            phase = Phase(name, [t.device for t in targets])
            log(f"chaos: killing {name} ({', '.join(phase.targets)})")
            phase.start = time.monotonic() - t0
            for t in targets:
                kill_switch(t.ns)
            phase.down = time.monotonic() - t0
            time.sleep(outage)
            log(f"chaos: restoring {name}")
            restored = time.monotonic()
            phase.restored = restored - t0
            for t in targets:
                restore_switch(t.ns, t.device)
            wait_converged()
            phase.recovery_seconds = time.monotonic() - restored
            phase.end = time.monotonic() - t0
            phases.append(phase)
            time.sleep(settle)
    finally:
        stop_file.write_text("stop")
        results = bg.collect()
        stop_file.unlink(missing_ok=True)
    for phase in phases:
        windows = [(phase.loss, phase.start, phase.end)]
        if phase.restored:  # "while the targets were down": from the last one down to the restore
            windows.append((phase.outage_loss, phase.down, phase.restored))
        for bucket, lo, hi in windows:
            bucket.update(window_loss(results, view.plane_of, t0 + lo, t0 + hi, 0.05))
    return {"phases": [p.to_dict() for p in phases], "pairs": sum(len(v) for v in jobs.values())}
