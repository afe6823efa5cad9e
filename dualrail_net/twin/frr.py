"""One FRR instance per namespace, with private paths (nothing under /etc/frr or /var/run/frr)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import time
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from dualrail_net.twin.shell import TwinError, in_ns, run

FRR_DIR = Path("/usr/lib/frr")
DAEMONS = ("zebra", "bgpd", "staticd")


def _owned_by_frr(path: Path) -> None:
    shutil.chown(path, "frr", "frr")
    for child in path.iterdir():
        shutil.chown(child, "frr", "frr")


# Twin-only settings, not part of the rendered config, read by each daemon at start-up (before any
# route exists; README "The emulated twin" says why each is there):
# - zebra, nexthop groups off: with kernel nexthop objects, a veth carrier loss removes the next hop
#   from the shared group and zebra 8.4 never puts it back when the link returns;
# - zebra work-queue 200 ms: a prefix is programmed once at its final ECMP width while 144 switches
#   converge on two cores, not once per next hop as the sessions come up one by one;
# - bgpd route-map delay 0: policies apply as vtysh -b sends them, so no session that came up in the
#   meantime is route-refreshed 5 s later (which re-sends every table once more).
STARTUP = {"zebra": "no zebra nexthop kernel enable\nzebra work-queue 200\n", "bgpd": "bgp route-map delay-timer 0\n"}


def daemon_command(daemon: str, rundir: str | Path) -> str:
    """The one command line of a twin daemon, shared by start() and the restart script."""
    conf = f"{rundir}/{daemon}-twin.conf" if daemon in STARTUP else "/dev/null"
    extra = " -s 90000000" if daemon == "zebra" else ""
    return (f"{FRR_DIR / daemon} -d -P 0 -f {conf} -i {rundir}/{daemon}.pid -z {rundir}/zserv.api "
            f"--vty_socket {rundir} --log file:{rundir}/{daemon}.log{extra}")


def start(ns: str, hostname: str, rundir: Path, config: str, prelude: Sequence[str] = ()) -> None:
    """Start zebra, bgpd and staticd in ``ns`` and apply ``config`` (the integrated frr.conf).

    ``prelude``: shell commands run first in the same process chain (sysctls): every process
    start counts when a 144-switch twin comes up on two cores."""
    rundir.mkdir(parents=True, exist_ok=True)
    (rundir / "frr.conf").write_text(config)
    (rundir / "vtysh.conf").write_text("")
    for daemon, text in STARTUP.items():
        (rundir / f"{daemon}-twin.conf").write_text(text)
    _owned_by_frr(rundir)
    # unshare --uts: each switch has its own hostname (BGP's hostname capability shows it).
    # bgpd and staticd need not wait for zebra: they retry zserv.api until zebra listens.
    script = "; ".join([f"hostname {hostname}", *prelude, *(daemon_command(d, rundir) for d in DAEMONS)])
    in_ns(ns, ["unshare", "--uts", "sh", "-ec", script], timeout=120)
    for daemon in DAEMONS:
        _wait_for(rundir / f"{daemon}.vty", 10)
    apply(rundir)
    script_path = rundir / "restart-routing.sh"
    script_path.write_text(restart_script(rundir))
    script_path.chmod(0o755)


def restart_script(rundir: Path) -> str:
    """A shell script that restarts this instance's routing daemons from inside its namespace: what
    a "reboot" is in the twin (run over SSH by the upgrade runner; it really drops the sessions)."""
    lines = ["#!/bin/sh", "# restart the routing daemons of this twin switch (written by dualrail twin up)", "set -e",
             f"D={rundir}"]
    lines += [f'[ -f $D/{d}.pid ] && kill $(cat $D/{d}.pid) 2>/dev/null || true' for d in DAEMONS]
    lines += ["sleep 1", "rm -f $D/*.vty $D/zserv.api"]
    lines += [daemon_command(daemon, "$D") for daemon in DAEMONS]
    lines += [f"for i in $(seq 100); do [ -S $D/{daemon}.vty ] && break; sleep 0.1; done" for daemon in DAEMONS]
    lines.append("vtysh --vty_socket $D --config_dir $D -b")
    return "\n".join(lines) + "\n"


def apply(rundir: Path) -> None:
    out = run(["vtysh", "--vty_socket", str(rundir), "--config_dir", str(rundir), "-b"], check=False, timeout=120)
    if "Error" in out or "Unknown command" in out:
        raise TwinError(f"FRR rejected {rundir}/frr.conf: {out.strip()[:300]}")


def _wait_for(path: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            raise TwinError(f"{path} did not appear within {seconds}s (see the daemon log next to it)")
        time.sleep(0.05)


def pids(rundir: Path) -> dict[str, int]:
    out = {}
    for daemon in DAEMONS:
        pidfile = rundir / f"{daemon}.pid"
        try:
            out[daemon] = int(pidfile.read_text().strip())
        except (OSError, ValueError):
            continue
    return out


def alive(pid: int) -> bool:
    """True while the process runs. A zombie counts as dead: in a container nobody may reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def stop(rundir: Path, sig: int = signal.SIGTERM, wait: float = 5) -> None:
    """Stop this instance's daemons only (by their own pid files)."""
    procs = pids(rundir)
    for pid in procs.values():
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + wait
    while any(alive(p) for p in procs.values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in procs.values():
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for daemon in DAEMONS:
        for suffix in (".pid", ".vty"):
            (rundir / f"{daemon}{suffix}").unlink(missing_ok=True)
    (rundir / "zserv.api").unlink(missing_ok=True)


def vty_command(rundir: Path, daemon: str, command: str, timeout: float = 30) -> str:
    """Run one show command on a daemon's vty socket, speaking vtysh's own protocol (the command
    NUL-terminated; the reply ends with three NULs and a status byte). vtysh itself builds every
    daemon's command tree first: ~60 ms per call against ~0.3 ms here, which matters when polling
    a 144-switch twin."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(rundir / f"{daemon}.vty"))
        sock.sendall(command.encode() + b"\0")
        reply = bytearray()
        while not (len(reply) >= 4 and reply[-4:-1] == b"\0\0\0"):
            chunk = sock.recv(1 << 16)
            if not chunk:
                raise TwinError(f"{daemon} in {rundir} closed the vty before answering {command!r}")
            reply += chunk
    if reply[-1] != 0:
        raise TwinError(f"{daemon} in {rundir} refused {command!r}: {reply[:-4].decode(errors='replace')[:200]}")
    return reply[:-4].decode()


def vtysh_json(rundir: Path, command: str, daemon: str = "bgpd") -> Any:
    """A show command's JSON answer; {} when the daemon is down or answers garbage."""
    try:
        return json.loads(vty_command(rundir, daemon, command))
    except (OSError, TwinError, json.JSONDecodeError):
        return {}
