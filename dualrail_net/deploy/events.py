"""What a run is doing, as it does it: typed events a person can follow (a live progress display
per plane with an ETA) and CI can parse (one JSON object per line).

The runner already tells the journal every step it starts and finishes; ``EventingJournal`` wraps
any journal (SQLite or PostgreSQL) and turns those calls into ``DeployEvent``s for its sinks, so the
events are exactly what the journal records, in the same order, with no second bookkeeping in the
runner."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from dualrail_net.deploy.journal import Journal

# steps after which a device counts as done for the progress figures
DONE_STEPS = {"confirm", "unchanged"}


@dataclass(frozen=True)
class DeployEvent:
    event: str  # run-start, plane-start, step, step-done, plane-done, run-end
    time: float
    run: int = 0
    plane: str = ""
    batch: int = -1
    device: str = ""
    step: str = ""
    status: str = ""
    detail: str = ""
    done: int = 0  # devices finished so far in this run
    total: int = 0  # devices this run changes (0: not known)
    eta_seconds: float | None = None  # at the pace so far

    def json_line(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if v not in ("", None)}, sort_keys=True)


Sink = Callable[[DeployEvent], None]


@dataclass
class EventingJournal:
    """A journal that also reports: every call goes to ``inner``; the ones that change the run's
    state become events for ``sinks``. ``total``: the devices the run will visit (for the ETA)."""

    inner: Journal
    sinks: list[Sink]
    total: int = 0
    _steps: dict[int, tuple[int, str, int, str, str]] = field(default_factory=dict)
    _done: set[str] = field(default_factory=set)
    _started: float = field(default_factory=time.monotonic)

    def __getattr__(self, name: str) -> Any:  # reading (runs, run, device_state, in_maintenance ...)
        return getattr(self.inner, name)

    def _emit(self, **values: Any) -> None:
        done = len(self._done)
        elapsed = time.monotonic() - self._started
        eta = elapsed / done * (self.total - done) if done and self.total >= done else None
        event = DeployEvent(time=time.time(), done=done, total=self.total,
                            eta_seconds=round(eta, 1) if eta is not None else None, **values)
        for sink in self.sinks:
            sink(event)

    def start_run(self, kind: str, playbook: str, output: str) -> int:
        run_id = self.inner.start_run(kind, playbook, output)
        self._started = time.monotonic()
        self._emit(event="run-start", run=run_id, detail=f"{kind} {playbook}")
        return run_id

    def end_run(self, run_id: int, status: str, detail: str = "") -> None:
        self.inner.end_run(run_id, status, detail)
        self._emit(event="run-end", run=run_id, status=status, detail=detail)

    def enter_maintenance(self, plane: str, run_id: int) -> None:
        self.inner.enter_maintenance(plane, run_id)
        self._emit(event="plane-start", run=run_id, plane=plane)

    def leave_maintenance(self, plane: str) -> None:
        self.inner.leave_maintenance(plane)
        self._emit(event="plane-done", plane=plane)

    def step(self, run_id: int, plane: str, batch: int, device: str, step: str, backup: str | None = None) -> int:
        step_id = self.inner.step(run_id, plane, batch, device, step, backup)
        self._steps[step_id] = (run_id, plane, batch, device, step)
        self._emit(event="step", run=run_id, plane=plane, batch=batch, device=device, step=step, status="started")
        return step_id

    def finish(self, step_id: int, status: str, detail: str = "") -> None:
        self.inner.finish(step_id, status, detail)
        run_id, plane, batch, device, step = self._steps.pop(step_id, (0, "", -1, "", ""))
        if status == "ok" and step in DONE_STEPS:
            self._done.add(device)
        self._emit(event="step-done", run=run_id, plane=plane, batch=batch, device=device, step=step,
                   status=status, detail=detail[:200])


def json_lines(stream: IO[str]) -> Sink:
    """One JSON object per event, flushed at once (CI reads them as they come)."""
    def write(event: DeployEvent) -> None:
        stream.write(event.json_line() + "\n")
        stream.flush()
    return write


class LiveProgress:
    """A rich progress bar per plane (devices done / to do, ETA), for a person at a terminal."""

    def __init__(self, console: Any, per_plane: dict[str, int]) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        self.progress = Progress(TextColumn("[bold]plane {task.fields[plane]}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[now]}"), TimeRemainingColumn(), console=console)
        self.tasks = {plane: self.progress.add_task("", total=count, plane=plane, now="waiting")
                      for plane, count in per_plane.items()}
        self.done: set[tuple[str, str]] = set()

    def __enter__(self) -> LiveProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, event: DeployEvent) -> None:
        task = self.tasks.get(event.plane)
        if task is None:
            return
        if event.event == "step":
            self.progress.update(task, now=f"batch {event.batch}: {event.device} {event.step}")
        elif event.event == "step-done" and event.status == "ok" and event.step in DONE_STEPS \
                and (event.plane, event.device) not in self.done:
            self.done.add((event.plane, event.device))
            self.progress.advance(task)
        elif event.event == "plane-done":
            self.progress.update(task, now="done")
