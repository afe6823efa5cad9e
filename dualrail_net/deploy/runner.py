"""The rolling runner: one plane at a time, canary first, then batches, spines one at a time with a
drain; health gates before a plane and after every batch. A change is committed with a revert timer
the device enforces and confirmed only after the batch's post-checks pass; on any failure the batch
is discarded (reverted now, or by the devices' own timers if they cannot be reached) and the run
stops without starting the next plane. Every step goes to the journal first. The runner is typed
against the driver contract (deploy/drivers/base.py): no duck typing.

Multi-plane devices (gateways: one VRF per plane) are never part of a plane's rollout. They get
their own window (``scope="gateways"``): one gateway at a time, and within it one plane at a time,
each plane's stage holding that plane's maintenance lock, draining that VRF only and pushing a file
set in which only that VRF's part has changed (deploy/vrfstage.py); the other planes must stay
healthy throughout. A change to what the planes share is refused there.

Servers (``scope="servers"``) go in batches (canary first), and within a batch one plane at a time:
that plane's lock is taken, each server of the batch gets a file set in which only that plane's
NIC ports changed (its other files go with the first stage), and the gate is per port: every NIC
port of every server of the batch reaches its leaf from its own address, the other plane's too.
A server therefore never loses both planes at once."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.deploy.credentials import named_secrets, redact_secrets
from dualrail_net.deploy.drivers import Driver, FirmwareDriver, PushRejected, driver_for
from dualrail_net.deploy.drivers.base import keep_in_backup, read_backup, read_backup_file, write_backup
from dualrail_net.deploy.journal import InvariantViolation, Journal
from dualrail_net.deploy.playbook import Playbook
from dualrail_net.deploy.session import disconnect as close_session
from dualrail_net.deploy.vrfstage import SPLITTABLE, Stage, Unsplittable, plan_stages, port_units
from dualrail_net.render.servers import HOST_PATHS

Say = Callable[[str], None]
SCOPES = ("planes", "gateways", "servers")
Connect = Callable[[Any], Any]  # host -> netmiko connection
Disconnect = Callable[[Any], None]  # host -> None: closes the session Connect handed out
FIRMWARE_MARKER = "firmware-version"  # in a device's backup: the image it ran before a firmware run


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


# a server's files that are not per plane: they go with its first plane's stage
SERVER_CARRIED = tuple(name for name in HOST_PATHS if name not in SPLITTABLE)  # the others split by port


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


def _redacted(text: str) -> str:
    """``text`` without a secret's value (a device's or a library's words may hold one); nothing
    of it when the secrets cannot be read to take them out."""
    try:
        return redact_secrets(text, named_secrets())
    except Exception:  # noqa: BLE001  (the exception's type is still said)
        return ""


class Runner:
    # seconds between attempts to reach a device that does not answer during a post-check
    reconnect_interval: float = 2.0

    def __init__(self, hosts: dict[str, Any], connect: Connect, journal: Journal, book: Playbook,
                 backups: Path, say: Say | None = None, scope: str = "planes",
                 disconnect: Disconnect | None = None) -> None:
        """``disconnect`` closes what ``connect`` opened (default: a nornir host's netmiko session)."""
        if scope not in SCOPES:
            raise ValueError(f"scope {scope!r}: one of {', '.join(SCOPES)}")
        self.scope = scope
        self.hosts = hosts
        self.connect = connect
        self.disconnect = disconnect if disconnect is not None else close_session
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
        """Health problems of one device; an unreachable device is a problem, not a crash.

        With ``wait`` (a post-check) the device has the whole post-check timeout to become healthy,
        reachable or not: a switch that reboots (a firmware run) drops its session and refuses new
        ones until it is up, so a failed attempt drops the session and connects again until the
        deadline; the last attempt's problem is the answer."""
        deadline = time.monotonic() + self.book.post_check_timeout_seconds
        while True:
            try:
                drv = self.driver(name)
                if wait:
                    return drv.wait_healthy(max(0.0, deadline - time.monotonic()))
                return drv.health()
            except Exception as exc:
                self._forget(name)
                said = _redacted(str(exc)).strip()[:120]  # (journalled and printed)
                problem = f"{name}: unreachable ({type(exc).__name__}{': ' + said if said else ''})"
                remaining = deadline - time.monotonic()
                if not wait or remaining <= 0:
                    return [problem]
                time.sleep(min(self.reconnect_interval, remaining))  # then one more attempt at least

    def _forget(self, name: str) -> None:
        """Drop a device's driver and its session (a dead session would be handed back again)."""
        self._drivers.pop(name, None)
        try:
            self.disconnect(self.hosts[name])
        except Exception:  # noqa: BLE001  (closing a dead session may fail: it is gone either way)
            pass

    def plane_health(self, plane: str) -> list[str]:
        """Every device of the plane, asked concurrently (one SSH round trip each: asked one after
        the other, a 72-switch plane took ~18 s per gate), problems in the plane's order."""
        names = [h.name for h in self.hosts.values() if h.data["plane"] == plane]
        if not names:
            return []
        with ThreadPoolExecutor(min(self.book.health_concurrency, len(names))) as pool:
            found = list(pool.map(self.device_health, names))
        return [problem for problems in found for problem in problems]

    # -- one device ------------------------------------------------------------------------------
    def _others_healthy(self, plane: str, refusal: str) -> None:
        """Refuse to open `plane`'s window unless every other plane is healthy (it carries the traffic)."""
        for other in (p for p in self.book.planes if p != plane):
            problems = self.plane_health(other)
            if problems:
                raise RunFailed(f"plane {other} is not healthy, {refusal}: {'; '.join(problems[:3])}")

    def _change(self, run_id: int, plane: str, batch: int, host: Any, files: dict[str, str] | None = None) -> None:
        started = time.monotonic()
        drv = self.driver(host.name)
        backup_dir = self.backups / f"run-{run_id}" / host.name
        running: dict[str, str] | None = None
        if not backup_dir.exists():
            sid = self.journal.step(run_id, plane, batch, host.name, "backup", str(backup_dir))
            running = drv.fetch()
            write_backup(backup_dir, running, self.backups)
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
        self._push(run_id, plane, batch, host.name, intended, str(backup_dir))
        self.timings[host.name] = time.monotonic() - started

    def _push(self, run_id: int, plane: str, batch: int, name: str, files: dict[str, str], backup: str) -> None:
        """Load and commit (the device's revert timer armed), journalled; a rejected push is
        journalled as failed and raised."""
        drv = self.driver(name)
        sid = self.journal.step(run_id, plane, batch, name, "push", backup)
        try:
            diff = drv.load(files)
            drv.commit(self.book.confirm_timeout_seconds)
        except PushRejected as exc:
            exc.args = (redact_secrets(str(exc), named_secrets()),)  # journalled and printed: no secret
            self.journal.finish(sid, "failed", str(exc))
            raise
        self._committed.add(name)
        # the diff holds what the device echoed of the pushed files, their filled-in secrets too
        self.journal.finish(sid, "ok", redact_secrets(diff, named_secrets())[:20000])

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
        keep_in_backup(self.backups / f"run-{run_id}" / host.name, FIRMWARE_MARKER, previous + "\n", self.backups)
        sid = self.journal.step(run_id, plane, batch, host.name, "install")
        drv.install_image(image)
        self.journal.finish(sid, "ok", f"{previous or 'unknown'} -> {image}")
        sid = self.journal.step(run_id, plane, batch, host.name, "reboot")
        drv.reboot()
        self.journal.finish(sid, "ok")

    def _rollback(self, run_id: int, plane: str, batch: int, names: list[str]) -> None:
        if self.book.kind == "firmware":
            for name in names:
                folder = self.backups / f"run-{run_id}" / name
                sid = self.journal.step(run_id, plane, batch, name, "rollback", str(folder / FIRMWARE_MARKER))
                try:
                    drv = self.driver(name)
                    previous = read_backup_file(folder, FIRMWARE_MARKER, self.backups)
                    if previous is not None and isinstance(drv, FirmwareDriver):
                        drv.install_image(previous.strip() or "unknown")
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
                    self.driver(name).rollback(read_backup(backup_dir, self.backups))
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
            if self.scope != "planes" and self.book.kind == "firmware":
                raise RunFailed(f"firmware runs take planes; {self.scope} are not upgraded by this tool")
            if self.scope == "servers":
                self._servers(run_id)
                report.planes_done = list(self.book.planes)
                report.status = "ok"
                return report
            if self.scope == "gateways":
                for number, host in enumerate(self.gateway_hosts()):
                    self._gateway(run_id, number, host)
                report.planes_done = [p for p in self.book.planes if any(p in h.data.get("planes", [])
                                                                         for h in self.gateway_hosts())]
                report.status = "ok"
                return report
            for plane in self.book.planes:
                hosts = [h for h in self.plane_hosts(plane) if h.name not in done]
                if not hosts:
                    report.planes_done.append(plane)
                    continue
                self._others_healthy(plane, f"plane {plane} is not touched")
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

    # -- the gateways window ---------------------------------------------------------------------
    def gateway_hosts(self) -> list[Any]:
        return sorted((h for h in self.hosts.values() if h.data["plane"] is None and h.data.get("vrfs")),
                      key=lambda h: h.name)

    def _gateway(self, run_id: int, number: int, host: Any) -> None:
        """One gateway, one plane's VRF at a time. On a failure the stage is undone (the device is
        left with the planes before it changed and the others as they were) and the run stops."""
        name = host.name
        drv = self.driver(name)
        backup_dir = self.backups / f"run-{run_id}" / name
        sid = self.journal.step(run_id, "-", number, name, "backup", str(backup_dir))
        running = drv.fetch()
        if not backup_dir.exists():
            write_backup(backup_dir, running, self.backups)
        self.journal.finish(sid, "ok")
        intended = drv.intended()
        planes = [p for p in self.book.planes if p in host.data.get("vrfs", {})]
        sid = self.journal.step(run_id, "-", number, name, "stages")
        try:
            stages = plan_stages(running, intended, host.data["vrfs"], planes)
        except Unsplittable as exc:
            self.journal.finish(sid, "failed", str(exc))
            raise RunFailed(f"gateway {name} {exc}: nothing was changed on it") from None
        self.journal.finish(sid, "ok", ", ".join(f"{s.plane} ({s.vrf})" for s in stages) or "no change")
        if not stages:
            sid = self.journal.step(run_id, "-", number, name, "unchanged")
            self.journal.finish(sid, "ok", "already runs what is intended: not drained, not pushed")
            return
        started = time.monotonic()
        for stage in stages:
            plane = stage.plane
            self._others_healthy(plane, f"gateway {name} is not changed in plane {plane}")
            self.journal.enter_maintenance(plane, run_id)
            self.say(f"gateway {name}: plane {plane} (VRF {stage.vrf}) in maintenance")
            try:
                sid = self.journal.step(run_id, plane, number, name, "drain", stage.vrf)
                drv.drain(stage.vrf)
                time.sleep(self.book.drain_settle_seconds)
                self.journal.finish(sid, "ok")
                self._push(run_id, plane, number, name, stage.files, str(backup_dir))
                problems = self._post_check(run_id, plane, number, [name])
                for other in (p for p in self.book.planes if p != plane):
                    problems += self.plane_health(other)
                if not problems:
                    problems = self._confirm(run_id, plane, number, [name])
            except Exception as exc:
                problems = [str(exc)]
            if problems:
                self._undo_stage(run_id, plane, number, name, stage.vrf)
                raise RunFailed(f"gateway {name} in plane {plane} (VRF {stage.vrf}): {'; '.join(problems[:3])}; "
                                "this stage was undone, earlier planes keep their change")
            self.journal.leave_maintenance(plane)
        self.timings[name] = time.monotonic() - started

    # -- servers ----------------------------------------------------------------------------------
    def server_hosts(self) -> list[Any]:
        return sorted((h for h in self.hosts.values() if h.data.get("server")), key=lambda h: h.name)

    def _servers(self, run_id: int) -> None:
        hosts = self.server_hosts()
        if not hosts:
            raise RunFailed("no server to deploy: servers need a management address (servers.yaml mgmt_address)")
        groups = [[h] for h in hosts[:self.book.canary]]
        rest = hosts[self.book.canary:]
        groups += [rest[i:i + self.book.batch_size] for i in range(0, len(rest), self.book.batch_size)]
        for number, batch in enumerate(groups):
            # each server's backup and stages over its own session, concurrently (one SSH round trip
            # or two each: asked one after the other they were most of a batch's time)
            with ThreadPoolExecutor(max(1, min(self.book.concurrency, len(batch)))) as pool:
                stages = dict(zip((h.name for h in batch), pool.map(lambda h: self._server_stages(run_id, number, h),
                                                                      batch)))
            self.say(f"servers batch {number}: {', '.join(h.name for h in batch)}")
            for plane in self.book.planes:
                todo = [(h.name, s) for h in batch for s in stages[h.name] if s.plane == plane]
                if todo:
                    self._server_stage(run_id, plane, number, todo, [h.name for h in batch])

    def _server_stages(self, run_id: int, number: int, host: Any) -> list[Stage]:
        drv = self.driver(host.name)
        backup_dir = self.backups / f"run-{run_id}" / host.name
        sid = self.journal.step(run_id, "-", number, host.name, "backup", str(backup_dir))
        running = drv.fetch()
        if not backup_dir.exists():
            write_backup(backup_dir, running, self.backups)
        self.journal.finish(sid, "ok")
        ports: dict[str, str] = host.data["ports"]
        planes = sorted(set(ports.values()))
        sid = self.journal.step(run_id, "-", number, host.name, "stages")
        try:
            found = plan_stages(running, drv.intended(), {p: p for p in planes}, self.book.planes,
                                units=port_units(ports), carried=SERVER_CARRIED)
        except Unsplittable as exc:
            self.journal.finish(sid, "failed", str(exc))
            raise RunFailed(f"server {host.name} {exc}: nothing was changed on it") from None
        self.journal.finish(sid, "ok", ", ".join(s.plane for s in found) or "no change")
        return found

    def _server_stage(self, run_id: int, plane: str, number: int, todo: list[tuple[str, Stage]],
                      batch: list[str]) -> None:
        """One plane's ports of one batch of servers; the gate is every port of the batch."""
        workers = max(1, min(self.book.health_concurrency, len(batch)))
        with ThreadPoolExecutor(workers) as pool:
            before = [p for found in pool.map(self.device_health, batch) for p in found]
        if before:
            raise RunFailed(f"servers batch {number} is not healthy before plane {plane}'s ports change: "
                            f"{'; '.join(before[:3])}")
        self.journal.enter_maintenance(plane, run_id)

        def push(item: tuple[str, Stage]) -> None:
            name, stage = item
            started = time.monotonic()
            self._push(run_id, plane, number, name, stage.files, stage.plane)
            self.timings[name] = self.timings.get(name, 0.0) + time.monotonic() - started
        try:
            with ThreadPoolExecutor(min(self.book.concurrency, len(todo))) as pool:
                list(pool.map(push, todo))
            def gate(name: str) -> list[str]:  # every port of a server of the batch, both planes
                sid = self.journal.step(run_id, plane, number, name, "post-check")
                found = self.device_health(name, wait=True)
                self.journal.finish(sid, "failed" if found else "ok", "; ".join(found))
                return found
            with ThreadPoolExecutor(workers) as pool:
                problems = [p for found in pool.map(gate, batch) for p in found]
            if not problems:
                problems = self._confirm(run_id, plane, number, [name for name, _ in todo])
        except Exception as exc:
            problems = [str(exc)]
        if problems:
            for name, _stage in todo:
                self._undo_stage(run_id, plane, number, name, plane)
            raise RunFailed(f"servers batch {number}, plane {plane}'s ports: {'; '.join(problems[:3])}; "
                            "this plane's change was undone on the batch")
        self.journal.leave_maintenance(plane)

    def _undo_stage(self, run_id: int, plane: str, number: int, name: str, vrf: str) -> None:
        """Back to what ran before this stage: a committed push is discarded (the files before it
        return); one that never committed leaves only the drain to take back."""
        sid = self.journal.step(run_id, plane, number, name, "rollback", vrf)
        try:
            drv = self.driver(name)
            if name in self._committed:
                drv.discard()
                self._committed.discard(name)
            else:
                drv.undrain(vrf)
            self.journal.finish(sid, "ok")
        except Exception as exc:
            self.journal.finish(sid, "failed", str(exc))
        self._post_check(run_id, plane, number, [name], label="post-rollback")

    def _post_check(self, run_id: int, plane: str, batch: int, names: list[str], label: str = "post-check") -> list[str]:
        def one(name: str) -> list[str]:
            sid = self.journal.step(run_id, plane, batch, name, label)
            found = self.device_health(name, wait=True)
            if not found and self.book.kind == "firmware" and label == "post-check":
                drv = self.driver(name)
                version = drv.running_version() if isinstance(drv, FirmwareDriver) else ""
                if version != self.book.image:
                    found = [f"{name}: runs {version or 'unknown'}, expected {self.book.image}"]
            self.journal.finish(sid, "failed" if found else "ok", "; ".join(found))
            return found
        # the batch's devices converge together: waited for concurrently, the gate takes the slowest
        # device's time, not the sum (problems stay in the batch's order)
        with ThreadPoolExecutor(max(1, min(self.book.health_concurrency, len(names)))) as pool:
            problems = [p for found in pool.map(one, names) for p in found]
        if not problems:
            problems += self.plane_health(plane)
        return problems
