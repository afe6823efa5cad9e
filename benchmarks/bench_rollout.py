#!/usr/bin/env python3
"""Benchmark the rolling runner's own cost: one plane of a synthetic twin (default 144 switches)
rolled with a config change, batches pushed concurrently. Per device, the time the runner spent on
the device (backup, diff, drain, push, post-check, confirm, journal) is split into the time inside
SSH calls (netmiko commands and SFTP transfers: the work the device and the network do) and the
rest (the runner's overhead: journal, backups on disk, diffs, parsing, thread hand-offs). Needs
root. Prints figures; asserts nothing.

    sudo python3 benchmarks/bench_rollout.py [--switches 144] [--concurrency 8] [--batch 8]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from dualrail_net.deploy.journal import Journal
from dualrail_net.deploy.playbook import Playbook
from dualrail_net.deploy.runner import Runner
from dualrail_net.deploy.session import connector, init_nornir
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.synthetic import Shape, synthetic_inventory
from dualrail_net.twin import lifecycle
from dualrail_net.twin.checks import wait_converged

SHAPES = {
    24: Shape(spines_per_pod=4, sus_per_pod=2, rails=4, servers_per_su=4, management_network="10.254.0.0/16"),
    144: Shape(spines_per_pod=8, sus_per_pod=8, rails=8, servers_per_su=1, spine_downlinks=64,
               management_network="10.254.0.0/16"),
}

SSH_SECONDS: dict[str, float] = defaultdict(float)  # every SSH call, per device
IN_CHANGE: dict[str, float] = defaultdict(float)  # SSH calls made while the runner changed the device
_LOCK = threading.Lock()


class MeasuredRunner(Runner):
    """The runner, with the SSH time spent inside each device's change (backup, diff, drain, load,
    commit) taken apart; device_seconds covers exactly that part."""

    def _change(self, run_id: int, plane: str, batch: int, host: Any, files: dict[str, str] | None = None) -> None:
        before = SSH_SECONDS[host.name]
        try:
            super()._change(run_id, plane, batch, host, files)
        finally:
            IN_CHANGE[host.name] += SSH_SECONDS[host.name] - before


class TimedConnection:
    """A netmiko connection whose calls (and SFTP sessions) are timed per device."""

    def __init__(self, name: str, conn: Any) -> None:
        self._name, self._conn = name, conn

    def _timed(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            with _LOCK:
                SSH_SECONDS[self._name] += time.perf_counter() - started

    def send_command(self, *args: Any, **kwargs: Any) -> Any:
        return self._timed(self._conn.send_command, *args, **kwargs)

    def send_config_set(self, *args: Any, **kwargs: Any) -> Any:
        return self._timed(self._conn.send_config_set, *args, **kwargs)

    @property
    def remote_conn_pre(self) -> Any:
        return _TimedTransport(self, self._conn.remote_conn_pre)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class _TimedTransport:
    def __init__(self, owner: TimedConnection, pre: Any) -> None:
        self._owner, self._pre = owner, pre

    def open_sftp(self) -> Any:
        return _TimedSftp(self._owner, self._owner._timed(self._pre.open_sftp))


class _TimedSftp:
    def __init__(self, owner: TimedConnection, sftp: Any) -> None:
        self._owner, self._sftp = owner, sftp

    def file(self, *args: Any, **kwargs: Any) -> Any:
        return _TimedFile(self._owner, self._owner._timed(self._sftp.file, *args, **kwargs))

    def posix_rename(self, *args: Any) -> Any:
        return self._owner._timed(self._sftp.posix_rename, *args)

    def close(self) -> Any:
        return self._owner._timed(self._sftp.close)


class _TimedFile:
    def __init__(self, owner: TimedConnection, fh: Any) -> None:
        self._owner, self._fh = owner, fh

    def __enter__(self) -> _TimedFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._owner._timed(self._fh.close)

    def write(self, data: Any) -> Any:
        return self._owner._timed(self._fh.write, data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--switches", type=int, default=144, choices=sorted(SHAPES))
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    lifecycle.require_root()
    fabric = resolve_fabric(synthetic_inventory(SHAPES[args.switches]))
    with tempfile.TemporaryDirectory() as tmp:
        base, new = Path(tmp) / "base", Path(tmp) / "new"
        write_artifacts(render_fabric(fabric), base)
        changed = copy.deepcopy(fabric)
        for sw in changed.switches.values():
            sw.maximum_paths = 32
        write_artifacts(render_fabric(changed), new)
        started = time.monotonic()
        lifecycle.up(base, servers=False, interfaces_mode="translate")
        wait_converged(timeout=600)
        print(f"twin: {len(fabric.switches)} switches up and converged in {time.monotonic() - started:.1f} s")
        try:
            nr = init_nornir(new, lifecycle.STATE_DIR / "state.json")
            connect = connector(nr)
            book = Playbook(name="bench", planes=["A"], canary=1, batch_size=args.batch, concurrency=args.concurrency,
                            drain_settle_seconds=0, post_check_timeout_seconds=60, confirm_timeout_seconds=3600)
            runner = MeasuredRunner(dict(nr.inventory.hosts), lambda host: TimedConnection(host.name, connect(host)),
                            Journal(Path(tmp) / "journal.sqlite"), book, Path(tmp) / "backups")
            report = runner.run(str(new))
            nr.close_connections()
        finally:
            lifecycle.down()
    if report.status != "ok":
        print(f"run failed: {report.detail}")
        return 1
    devices = sorted(report.device_seconds)
    ssh = [IN_CHANGE[d] for d in devices]
    total = [report.device_seconds[d] for d in devices]
    overhead = [t - s for t, s in zip(total, ssh)]
    print(f"plane A: {len(devices)} devices in {report.seconds:.1f} s (concurrency {args.concurrency}, batches of "
          f"{args.batch}; post-checks and plane health gates included); SSH calls in all: "
          f"{sum(SSH_SECONDS.values()):.1f} s")
    print(f"per device change (backup, diff, drain, load, commit): {statistics.mean(total):.2f} s, of which SSH "
          f"{statistics.mean(ssh):.2f} s, "
          f"runner overhead {statistics.mean(overhead) * 1000:.1f} ms "
          f"({100 * sum(overhead) / sum(ssh):.2f}% of the SSH work; worst device "
          f"{100 * max(o / s for o, s in zip(overhead, ssh) if s):.2f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
