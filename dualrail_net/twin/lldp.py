"""lldpd in every namespace of the twin, so the live audit reads real LLDP frames over the veth
cables (NOTES.md: one lldpd per namespace with a private control socket and pid file; the system
name set explicitly, port ids as interface names, a one-second transmit interval)."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

from dualrail_net.twin.shell import MGMT_PORT, TwinError, in_ns

SOCKET, PIDFILE = "lldpd.socket", "lldpd.pid"


def available() -> bool:
    return shutil.which("lldpd") is not None and shutil.which("lldpcli") is not None


def socket_path(rundir: Path) -> Path:
    return rundir / SOCKET


def start(ns: str, system_name: str, rundir: Path) -> None:
    """One lldpd in ``ns`` on every port but the twin's management link."""
    rundir.mkdir(parents=True, exist_ok=True)
    sock = socket_path(rundir)
    in_ns(ns, ["lldpd", "-u", str(sock), "-p", str(rundir / PIDFILE), "-I", f"*,!{MGMT_PORT},!lo"])
    for _ in range(100):  # its control socket appears once it runs
        if sock.exists():
            break
        time.sleep(0.05)
    # lldpd starts paused and runs its own lldpcli (the system's /etc/lldpd.d) to resume: settings
    # made before that finishes can be lost, so they are made, checked and made again until they hold
    cli = ["lldpcli", "-u", str(sock)]
    for _ in range(50):
        in_ns(ns, [*cli, "configure", "system", "hostname", system_name], check=False)
        in_ns(ns, [*cli, "configure", "lldp", "portidsubtype", "ifname"], check=False)
        in_ns(ns, [*cli, "configure", "lldp", "tx-interval", "1"], check=False)
        in_ns(ns, [*cli, "resume"], check=False)
        chassis = in_ns(ns, [*cli, "-f", "json", "show", "chassis"], check=False)
        config = in_ns(ns, [*cli, "-f", "json", "show", "configuration"], check=False)
        if (f'"{system_name}"' in chassis and f'"hostname": "{system_name}"' in config
                and '"lldp-portid-type": "ifname"' in config and '"tx-delay": "1"' in config):
            return
        time.sleep(0.1)
    raise TwinError(f"lldpd in {ns} does not keep its settings (system name {system_name})")


def neighbors_command(rundir: Path) -> str:
    """The shell line a device's session runs for its LLDP table (the twin's private socket)."""
    return f"lldpcli -u {socket_path(rundir)} show neighbors -f json"


def stop(rundir: Path) -> None:
    try:
        pid = int((rundir / PIDFILE).read_text().strip())
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError):
        pass
    (rundir / PIDFILE).unlink(missing_ok=True)
