"""The rolling runner: one plane at a time, canary first, then batches, spines one at a time with a
drain; health gates before a plane and after every batch. A change is committed with a revert timer
the device enforces and confirmed only after the batch's post-checks pass; on any failure the batch
is discarded (reverted now, or by the devices' own timers if they cannot be reached) and the run
stops without starting the next plane. Every step goes to the journal first. The runner is typed
against the driver contract (deploy/drivers/base.py): no duck typing."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.deploy.drivers import Driver, FirmwareDriver, PushRejected, driver_for
from dualrail_net.deploy.drivers.base import read_backup, write_backup
from dualrail_net.deploy.journal import InvariantViolation, Journal
from dualrail_net.deploy.playbook import Playbook

Say = Callable[[str], None]
Connect = Callable[[Any], Any]  # host -> netmiko connection


class RunFailed(Exception):
    pass


@dataclass
class RunReport:
    run_id: int
    status: str = "running"
    planes_done: list[str] = field(default_factory=list)
    failed_batch: list[str] = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0
    device_seconds: dict[str, float] = field(default_factory=dict)


def batches(hosts: list[Any], book: Playbook) -> list[list[Any]]:
    """Canary leaves alone, then leaves in batches, then spines (and super-spines) one at a time."""
    leaves = [h for h in hosts if h.data["role"] == "leaf"]
    upper = [h for h in hosts if h.data["role"] != "leaf"]
    out: list[list[Any]] = [[h] for h in leaves[:book.canary]]
    rest = leaves[book.canary:]
    out += [rest[i:i + book.batch_size] for i in range(0, len(rest), book.batch_size)]
    if book.spines_one_at_a_time:
        out += [[h] for h in upper]
    elif upper:
        out += [upper[i:i + book.batch_size] for i in range(0, len(upper), book.batch_size)]
    return out


class Runner:
    def __init__(self, hosts: dict[str, Any], connect: Connect, journal: Journal, book: Playbook,
                 backups: Path, say: Say | None = None) -> None:
        self.hosts = hosts
        self.connect = connect
        self.journal = journal
        self.book = book
        self.backups = backups
        self.say = say or (lambda _m: None)
        self._drivers: dict[str, Driver] = {}
        self._committed: set[str] = set()  # committed, not yet confirmed (their revert timers run)

    def driver(self, name: str) -> Driver:
        if name not in self._drivers:
            host = self.hosts[name]
            self._drivers[name] = driver_for(host, self.connect(host))
        return self._drivers[name]

    def plane_hosts(self, plane: str) -> list[Any]:
        return [h for h in self.hosts.values() if h.data["plane"] == plane and h.data["role"] in self.book.roles]

    def device_health(self, name: str, wait: bool = False) -> list[str]:
        """Health problems of one device; an unreachable device is a problem, not a crash."""
        try:
            drv = self.driver(name)
            if wait:
                return drv.wait_healthy(self.book.post_check_timeout_seconds)
            return drv.health()
        except Exception as exc:
            self._drivers.pop(name, None)  # reconnect next time
            return [f"{name}: unreachable ({type(exc).__name__})"]

    def plane_health(self, plane: str) -> list[str]:
        problems: list[str] = []
        for h in (h for h in self.hosts.values() if h.data["plane"] == plane):
            problems += self.device_health(h.name)
        return problems

    # -- one device ------------------------------------------------------------------------------
    def _change(self, run_id: int, plane: str, batch: int, host: Any, files: dict[str, str] | None = None) -> None:
        started = time.monotonic()
        drv = self.driver(host.name)
        backup_dir = self.backups / f"run-{run_id}" / host.name
        running: dict[str, str] | None = None
        if not backup_dir.exists():
            sid = self.journal.step(run_id, plane, batch, host.name, "backup", str(backup_dir))
            running = drv.fetch()
            write_backup(backup_dir, running)
            self.journal.finish(sid, "ok")
        # touch only what changes: a device already running what is intended is neither drained nor pushed
        intended = files or drv.intended()
        if self.book.kind == "firmware":
            unchanged = isinstance(drv, FirmwareDriver) and drv.running_version() == (self.book.image or "")
        else:
            current = running if running is not None else drv.fetch()
            unchanged = all(current.get(name) == text for name, text in intended.items())
        if unchanged:
            sid = self.journal.step(run_id, plane, batch, host.name, "unchanged")
            self.journal.finish(sid, "ok", "already runs what is intended: not drained, not pushed")
            self.timings[host.name] = time.monotonic() - started
            return
        if host.data["role"] != "leaf" and self.book.drain_spines:
            sid = self.journal.step(run_id, plane, batch, host.name, "drain")
            drv.drain()
            time.sleep(self.book.drain_settle_seconds)
            self.journal.finish(sid, "ok")
        if self.book.kind == "firmware":
            assert isinstance(drv, FirmwareDriver)  # checked for every device before the run started
            self._upgrade(run_id, plane, batch, host, drv)
            self.timings[host.name] = time.monotonic() - started
            return
        sid = self.journal.step(run_id, plane, batch, host.name, "push", str(backup_dir))
        try:
            diff = drv.load(intended)
            drv.commit(self.book.confirm_timeout_seconds)
        except PushRejected as exc:
            self.journal.finish(sid, "failed", str(exc))
            raise
        self._committed.add(host.name)
        self.journal.finish(sid, "ok", diff[:20000])
        self.timings[host.name] = time.monotonic() - started

    def _confirm(self, run_id: int, plane: str, batch: int, names: list[str]) -> list[str]:
        """Confirm every committed device of a batch that passed its post-checks."""
        problems = []
        for name in names:
            if name not in self._committed:
                continue
            sid = self.journal.step(run_id, plane, batch, name, "confirm")
            try:
                self.driver(name).confirm()
                self._committed.discard(name)
                self.journal.finish(sid, "ok")
            except Exception as exc:  # the timer will revert it: the batch has failed
                self.journal.finish(sid, "failed", str(exc))
                problems.append(f"{name}: confirm failed ({exc})")
        return problems

    def _upgrade(self, run_id: int, plane: str, batch: int, host: Any, drv: FirmwareDriver) -> None:
        image = self.book.image or ""
        previous = drv.running_version()
        (self.backups / f"run-{run_id}" / host.name / "firmware-version").write_text(previous + "\n")
        sid = self.journal.step(run_id, plane, batch, host.name, "install")
        drv.install_image(image)
        self.journal.finish(sid, "ok", f"{previous or 'unknown'} -> {image}")
        sid = self.journal.step(run_id, plane, batch, host.name, "reboot")
        drv.reboot()
        self.journal.finish(sid, "ok")

    def _rollback(self, run_id: int, plane: str, batch: int, names: list[str]) -> None:
        if self.book.kind == "firmware":
            for name in names:
                marker = self.backups / f"run-{run_id}" / name / "firmware-version"
                sid = self.journal.step(run_id, plane, batch, name, "rollback", str(marker))
                try:
                    drv = self.driver(name)
                    if marker.exists() and isinstance(drv, FirmwareDriver):
                        drv.install_image(marker.read_text().strip() or "unknown")
                        drv.reboot()
                    self.journal.finish(sid, "ok")
                except Exception as exc:
                    self.journal.finish(sid, "failed", str(exc))
            return
        for name in names:
            backup_dir = self.backups / f"run-{run_id}" / name
            sid = self.journal.step(run_id, plane, batch, name, "rollback", str(backup_dir))
            try:
                if name in self._committed:
                    # committed, never confirmed: discard reverts it now (else its own timer will)
                    self.driver(name).discard()
                    self._committed.discard(name)
                elif backup_dir.exists():
                    self.driver(name).rollback(read_backup(backup_dir))
                self.journal.finish(sid, "ok")
            except Exception as exc:  # keep rolling back the others; the journal says what failed
                self.journal.finish(sid, "failed", str(exc))

    # -- the run ---------------------------------------------------------------------------------
    def run(self, output: str, resume: int | None = None, note: str | None = None) -> RunReport:
        """``note``: why the pre-deploy gate was overridden (--force), recorded as the run's first step."""
        started = time.monotonic()
        self.timings: dict[str, float] = {}
        run_id = resume or self.journal.start_run(self.book.kind, self.book.name, output)
        report = RunReport(run_id)
        if note:
            sid = self.journal.step(run_id, "-", -1, "*", "gate")
            self.journal.finish(sid, "forced", note)
        if self.book.kind == "firmware":
            # what each platform's driver can do, known without connecting (an unreachable device is
            # found by the plane's health gate, not here)
            missing = sorted({h.data["platform"] for h in self.hosts.values()
                              if h.data["plane"] in self.book.planes and h.data["role"] in self.book.roles
                              and not isinstance(driver_for(h, None), FirmwareDriver)})
            if missing:
                report.status, report.detail = "failed", (f"no firmware driver for platform(s) {', '.join(missing)}: "
                                                          "nothing was changed")
                self.journal.end_run(run_id, report.status, report.detail)
                return report
            all_planes = {h.data["plane"] for h in self.hosts.values() if h.data.get("plane")}
            left_out = sorted(all_planes - set(self.book.planes))
            if left_out:
                report.status, report.detail = "failed", (
                    f"a firmware run must cover every plane; {', '.join(left_out)} would stay on the old image "
                    "after the run (the planes must not run different versions): nothing was changed")
                self.journal.end_run(run_id, report.status, report.detail)
                return report
            without_url = sorted({h.data["platform"] for h in self.hosts.values()
                                  if h.data["plane"] in self.book.planes and h.data["role"] in self.book.roles
                                  and not (h.data.get("paths") or {}).get("vty_socket")  # the twin needs none
                                  and h.data["platform"] not in self.book.image_urls})
            if without_url:
                report.status, report.detail = "failed", (f"the playbook has no image_urls for platform(s) "
                                                          f"{', '.join(without_url)}: nothing was changed")
                self.journal.end_run(run_id, report.status, report.detail)
                return report
            for h in self.hosts.values():  # where a real switch gets the image (drivers read it from here)
                h.data["image_urls"] = dict(self.book.image_urls)
        done: set[str] = set()
        if resume:
            state = self.journal.device_state(resume)
            done = {d for d, s in state.items() if s["last_step"] == "post-check" and s["status"] == "ok"}
            half = [d for d, s in state.items() if d not in done and s["last_step"] in ("push", "drain", "backup")]
            for name in half:
                # never re-enter a half-finished device blindly: put it back to its backup first
                self.say(f"resume: restoring {name} from its backup before continuing")
                self._rollback(run_id, state[name]["plane"], -1, [name])
        try:
            for plane in self.book.planes:
                hosts = [h for h in self.plane_hosts(plane) if h.name not in done]
                if not hosts:
                    report.planes_done.append(plane)
                    continue
                for other in (p for p in self.book.planes if p != plane):
                    problems = self.plane_health(other)
                    if problems:
                        raise RunFailed(f"plane {other} is not healthy, plane {plane} is not touched: "
                                        f"{'; '.join(problems[:3])}")
                self.journal.enter_maintenance(plane, run_id)
                self.say(f"plane {plane}: in maintenance, {len(hosts)} devices")
                for number, batch in enumerate(batches(hosts, self.book)):
                    names = [h.name for h in batch]
                    self.say(f"plane {plane} batch {number}: {', '.join(names)}")
                    try:
                        with ThreadPoolExecutor(min(self.book.concurrency, len(batch))) as pool:
                            list(pool.map(lambda h: self._change(run_id, plane, number, h), batch))
                        problems = self._post_check(run_id, plane, number, names)
                        if not problems:
                            problems = self._confirm(run_id, plane, number, names)
                    except Exception as exc:
                        problems = [str(exc)]
                    if problems:
                        self.say(f"plane {plane} batch {number} failed: rolling it back")
                        report.failed_batch = names
                        self._rollback(run_id, plane, number, names)
                        self._post_check(run_id, plane, number, names, label="post-rollback")
                        raise RunFailed(f"plane {plane} batch {number} ({', '.join(names)}): {'; '.join(problems[:3])}")
                remaining = self.plane_health(plane)
                if remaining:
                    raise RunFailed(f"plane {plane} not healthy after its last batch: {'; '.join(remaining[:3])}")
                self.journal.leave_maintenance(plane)
                report.planes_done.append(plane)
                self.say(f"plane {plane}: done and healthy")
            report.status = "ok"
        except (RunFailed, InvariantViolation) as exc:
            report.status = "failed"
            report.detail = str(exc)
        finally:
            self.journal.end_run(run_id, report.status, report.detail)
            maint = self.journal.in_maintenance()
            for plane, owner in maint.items():
                if owner == run_id and report.status == "failed" and not self.plane_health(plane):
                    self.journal.leave_maintenance(plane)  # rolled back and healthy: the plane is released
        report.seconds = time.monotonic() - started
        report.device_seconds = dict(self.timings)
        return report

    def _post_check(self, run_id: int, plane: str, batch: int, names: list[str], label: str = "post-check") -> list[str]:
        problems: list[str] = []
        for name in names:
            sid = self.journal.step(run_id, plane, batch, name, label)
            found = self.device_health(name, wait=True)
            if not found and self.book.kind == "firmware" and label == "post-check":
                drv = self.driver(name)
                version = drv.running_version() if isinstance(drv, FirmwareDriver) else ""
                if version != self.book.image:
                    found = [f"{name}: runs {version or 'unknown'}, expected {self.book.image}"]
            self.journal.finish(sid, "failed" if found else "ok", "; ".join(found))
            problems += found
        if not problems:
            problems += self.plane_health(plane)
        return problems
