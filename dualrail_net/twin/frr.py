"""One FRR instance per namespace, with private paths (nothing under /etc/frr or /var/run/frr)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import time
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from dualrail_net.twin.shell import TwinError, in_ns, run
from dualrail_net.verify import vtysh
from dualrail_net.verify.parsers import frr_cli

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


# Every daemon's start-up file begins with the same number of lines of twin-only settings, so that
# its "config line N" is line N - PRELUDE_LINES of frr.conf whichever daemon reports it.
PRELUDE_LINES = max(len(text.splitlines()) for text in STARTUP.values())


def startup_prelude(daemon: str) -> str:
    lines = STARTUP.get(daemon, "").splitlines()
    return "".join(f"{line}\n" for line in lines + ["!"] * (PRELUDE_LINES - len(lines)))


def daemon_command(daemon: str, rundir: str | Path, conf: str | None = None) -> str:
    """The one command line of a twin daemon, shared by start() and the restart script. ``conf``:
    the start-up file it reads (default: its twin-only settings, the rest then comes from vtysh -b)."""
    if conf is None:
        conf = f"{rundir}/{daemon}-twin.conf" if daemon in STARTUP else "/dev/null"
    extra = " -s 90000000" if daemon == "zebra" else ""
    return (f"{FRR_DIR / daemon} -d -P 0 -f {conf} -i {rundir}/{daemon}.pid -z {rundir}/zserv.api "
            f"--vty_socket {rundir} --log file:{rundir}/{daemon}.log{extra}")


# Lines only vtysh understands: no daemon is sent them by `vtysh -b` either.
VTYSH_ONLY = ("service integrated-vtysh-config",)
# Top-level blocks whose command node exists in one daemon only (vtysh sends them there alone).
OWNED_BLOCKS = {"router bgp": "bgpd"}


def split_config(config: str) -> dict[str, list[str | None]]:
    """Each daemon's share of an integrated frr.conf, line for line: the line itself, or None where
    the line belongs to another daemon or to vtysh. Kept line-aligned so that a daemon's "config line
    N" is line N of frr.conf. The split follows vtysh's: a `router bgp` block goes to bgpd only,
    every other line to every daemon, each keeping what its command tree knows.

    A top-level `exit` closing a block no daemon owns (a route-map, an interface) is given to none:
    a daemon that does not know the block never entered it, and its `exit` would take it out of
    configuration mode, refusing every later line (a static route after a route-map, which vtysh
    sends to staticd alone). A daemon that did enter the block leaves it anyway: a line its node
    does not know is tried in the parent node (measured on FRR 8.4: the same running-config)."""
    shares: dict[str, list[str | None]] = {d: [] for d in DAEMONS}
    owner: str | None = None
    # a line is classified by what it means (`rou bgp 1` opens bgpd's block) and handed on as
    # written: each daemon completes an abbreviation itself, as it does when vtysh sends it
    full, _ = frr_cli.spelt_out(config)
    for line, meant in zip(config.splitlines(), full):
        if not meant.startswith((" ", "!")) and meant.strip():
            if owner is not None and meant.strip() in ("exit", "end"):
                for daemon in DAEMONS:
                    shares[daemon].append(line if daemon == owner else None)
                owner = None
                continue
            if meant.strip() == "exit":
                for daemon in DAEMONS:
                    shares[daemon].append(None)
                continue
            owner = next((o for block, o in OWNED_BLOCKS.items() if meant.startswith(block + " ")), None)
        for daemon in DAEMONS:
            keep = meant.strip() not in VTYSH_ONLY and (owner is None or daemon == owner)
            shares[daemon].append(line if keep else None)
    return shares


_CONFIG_ERROR = re.compile(r"\] .+? on config line (\d+): (.*)$", re.MULTILINE)


def config_rejections(config: str, logs: dict[str, str], offset: int = 0) -> list[str]:
    """The frr.conf lines FRR refused, from the daemons' start-up logs: a line every daemon given it
    reported (unknown to all of them, which vtysh -b calls "Unknown command", or known and refused).
    The kind FRR 8.4 logs is not per line (one kind is printed for all of a daemon's errors), so
    only the line numbers are used. ``offset``: lines each daemon read before frr.conf."""
    shares = split_config(config)
    reported: dict[int, set[str]] = {}
    refused: dict[int, str] = {}
    for daemon, log in logs.items():
        for match in _CONFIG_ERROR.finditer(log):
            number = int(match.group(1)) - offset
            if number < 1:
                refused[number] = f"{daemon} refused a twin start-up setting: {match.group(2)}"
            else:
                reported.setdefault(number, set()).add(daemon)
    lines = config.splitlines()
    for number, daemons in reported.items():
        given = {d for d in DAEMONS if number <= len(shares[d]) and shares[d][number - 1] is not None}
        if given and given <= daemons:
            refused[number] = f"line {number}: {lines[number - 1].strip()} (refused by {', '.join(sorted(given))})"
    return [refused[n] for n in sorted(refused)]


def start(ns: str, hostname: str, rundir: Path, config: str, prelude: Sequence[str] = ()) -> None:
    """Start zebra, bgpd and staticd in ``ns``, each reading its share of ``config`` (the integrated
    frr.conf) after the twin-only settings, and raise if FRR refused a line.

    Each daemon reads its share at start-up instead of `vtysh -b` sending it afterwards: vtysh
    loads every daemon's command tree first (~70 ms of CPU per switch, a tenth of a 144-switch
    bring-up on two cores); tests check both ways give the same running-config. The lines vtysh's
    reader refuses or never reads are asked of the real vtysh first, every time (verify/vtysh.py),
    and given to no daemon: its reader is what loads frr.conf on a switch (`vtysh -b`), and it
    differs from a daemon's own (an abbreviation of more than one command; every line after a
    top-level `exit`, which a daemon reading its share would still run; all after a second one).
    ``prelude``: shell commands run first in the same process chain (sysctls): every process
    start counts when a 144-switch twin comes up on two cores."""
    rundir.mkdir(parents=True, exist_ok=True)
    (rundir / "frr.conf").write_text(config)
    (rundir / "vtysh.conf").write_text("")
    for daemon, text in STARTUP.items():
        (rundir / f"{daemon}-twin.conf").write_text(text)
    by_vtysh = vtysh.refusals(config, rundir)
    for daemon, share in split_config(config).items():
        text = startup_prelude(daemon) + "".join(
            f"{line}\n" if line is not None and number not in by_vtysh else "!\n"
            for number, line in enumerate(share, 1))
        (rundir / f"{daemon}-start.conf").write_text(text)
    for daemon in DAEMONS:
        (rundir / f"{daemon}.log").unlink(missing_ok=True)
    _owned_by_frr(rundir)
    # unshare --uts: each switch has its own hostname (BGP's hostname capability shows it).
    # bgpd and staticd need not wait for zebra: they retry zserv.api until zebra listens.
    commands = (daemon_command(d, rundir, f"{rundir}/{d}-start.conf") for d in DAEMONS)
    script = "; ".join([f"hostname {hostname}", *prelude, *commands])
    in_ns(ns, ["unshare", "--uts", "sh", "-ec", script], timeout=120)
    for daemon in DAEMONS:
        _wait_for(rundir / f"{daemon}.vty", 10)
    check_startup(rundir, config, by_vtysh)
    script_path = rundir / "restart-routing.sh"
    script_path.write_text(restart_script(rundir))
    script_path.chmod(0o755)


def check_startup(rundir: Path, config: str, by_vtysh: dict[int, str] | None = None) -> None:
    """Raise when vtysh or a daemon refused part of the start-up config. A daemon reads its file in
    the first event of its loop, before it serves its vty: one vty round trip means the reading is
    over."""
    logs = {}
    for daemon in DAEMONS:
        vty_command(rundir, daemon, "show version")
        logs[daemon] = (rundir / f"{daemon}.log").read_text(errors="replace")
    by_vtysh = by_vtysh or {}
    rejected = [by_vtysh[n] for n in sorted(by_vtysh)] + config_rejections(config, logs, offset=PRELUDE_LINES)
    if rejected:
        raise TwinError(f"FRR rejected {rundir}/frr.conf: " + "; ".join(rejected)[:300])


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
