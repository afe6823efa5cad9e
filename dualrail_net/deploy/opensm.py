"""OpenSM files to each InfiniBand plane's subnet manager, one plane at a time.

Per plane, in order: keep the SM host's current files, put the rendered ones in place, make the
running opensm re-read them (SIGHUP: it re-reads its partitions and sweeps), wait for the sweep to
bring the subnet up again, then read every HCA port's P_Key table back and compare it with what the
inventory says (the manifest's ``expected_pkeys``). Any difference, or no subnet after the sweep, is
a failed gate: the previous files go back, opensm re-reads them, and the run stops before the next
plane (the other plane is never touched while one is wrong).

``SmHost`` is what a plane's SM host must do. ``SimulatedSmHost`` runs the real opensm as a daemon on
an ibsim fabric built from the plane's cabling (tests and rehearsals); a real host is reached over
SSH by ``SshSmHost``.
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from dualrail_net.deploy.drivers.base import run_shell
from dualrail_net.deploy.journal import Journal
from dualrail_net.manifest import IbPlaneEntry, Manifest
from dualrail_net.render.infiniband import STANDBY_CONF

FILES = ("opensm.conf", "partitions.conf", "root_guids.conf", "cn_guids.conf")


class SmHost(Protocol):
    name: str

    def read_files(self) -> dict[str, str]: ...
    def write_files(self, files: dict[str, str]) -> None: ...
    def reread(self) -> int:
        """Make opensm re-read its files; returns a marker wait_up() waits past."""
        ...
    def wait_up(self, marker: int, timeout: float) -> bool: ...
    def pkeys(self) -> dict[str, dict[int, str]]: ...
    def sm_state(self) -> str:
        """What the SM is doing, for a failed gate: whether it runs, its last state and error."""
        ...


DEFAULT_LOG = "/var/log/opensm.log"  # opensm's own default when opensm.conf names no log_file


def log_path(conf: str) -> str:
    """The log an opensm.conf sends opensm's messages to (its last ``log_file`` line, as opensm
    reads the file top to bottom)."""
    found = re.findall(r"^[ \t]*log_file[ \t]+(\S+)", conf, re.MULTILINE)
    return found[-1] if found else DEFAULT_LOG


def describe_log(log: str) -> str:
    """The SM's last state change ("Entering STANDBY state") and last error line in its log."""
    states = re.findall(r"Entering (\w+) state", log)
    errors = [line for line in log.splitlines() if " ERR " in line]
    said = f"last state {states[-1]}" if states else "no state change logged"
    return said + (f"; last error: {errors[-1].split(' -> ', 1)[-1].strip()[:160]}" if errors else "")


@dataclass
class PlaneResult:
    plane: str
    status: str  # ok, unchanged, failed (rolled back)
    detail: str = ""
    seconds: float = 0.0


def expected_tables(meta: IbPlaneEntry) -> dict[str, dict[int, str]]:
    return {guid: {int(k, 16): ("full" if v == "both" else v) for k, v in want.items()}
            for guid, want in meta.expected_pkeys.items()}


def pkey_problems(meta: IbPlaneEntry, actual: dict[str, dict[int, str]]) -> list[str]:
    host_of = {g: h for h, g in meta.hosts.items()}
    problems = []
    for guid, want in expected_tables(meta).items():
        got = actual.get(guid)
        if got != want:
            problems.append(f"{host_of.get(guid, guid)}: P_Keys {sorted(got.items()) if got else 'none'}, "
                            f"inventory says {sorted(want.items())}")
    return problems


class SmHostUnknown(Exception):
    """An IB plane's SM host cannot be reached: it is not a server with a management address."""


def _address(manifest: Manifest, plane: str, host: str, what: str) -> tuple[str, str]:
    server = manifest.servers.get(host)
    if server is None or not server.mgmt_address:
        raise SmHostUnknown(f"IB plane {plane}: its {what} {host} has no management address (servers.yaml "
                            "mgmt_address)" + (": its files would fall behind the master's" if "standby" in what else ""))
    return host, server.mgmt_address.split("/")[0]


def _plane_meta(manifest: Manifest, plane: str) -> IbPlaneEntry:
    meta = manifest.ib_planes.get(plane)
    if meta is None:
        raise SmHostUnknown(f"no IB plane {plane!r} in the build (planes: {', '.join(manifest.ib_planes) or 'none'})")
    return meta


def sm_addresses(manifest: Manifest, planes: list[str]) -> dict[str, tuple[str, str]]:
    """IB plane -> (its SM host, that server's management address), for the planes given."""
    return {plane: _address(manifest, plane, _plane_meta(manifest, plane).sm_host, "SM host") for plane in planes}


def standby_addresses(manifest: Manifest, planes: list[str]) -> dict[str, tuple[str, str]]:
    """IB plane -> (its standby SM host, its management address), for the planes that have one."""
    return {plane: _address(manifest, plane, standby, "standby SM host") for plane in planes
            if (standby := _plane_meta(manifest, plane).sm_standby) is not None}


def standby_files(out: Path, meta: IbPlaneEntry) -> dict[str, str]:
    """What the standby SM host runs: the plane's files, with its own opensm.conf."""
    files = {name: (out / meta.dir / name).read_text() for name in FILES}
    files["opensm.conf"] = (out / meta.dir / STANDBY_CONF).read_text()
    return files


def deploy_opensm(out: Path, hosts: Mapping[str, SmHost], planes: list[str], timeout: float = 120,
                  say: Any = None, journal: Journal | None = None, run_id: int = 0,
                  standbys: Mapping[str, SmHost] | None = None) -> list[PlaneResult]:
    """Roll the rendered OpenSM files of ``planes`` (in that order) to their SM hosts (module text).
    With a ``journal`` every plane is a step of run ``run_id`` (device: the plane's SM host).
    A plane with a standby SM must have its host in ``standbys``: it gets the files only after the
    master passed its gate (a failed plane leaves the standby on the previous files, as the master)."""
    manifest = Manifest.load(out)
    results: list[PlaneResult] = []
    for plane in planes:
        if manifest.ib_planes[plane].sm_standby and plane not in (standbys or {}):
            results.append(PlaneResult(plane, "failed", f"no way to reach the standby SM "
                                       f"{manifest.ib_planes[plane].sm_standby}: nothing was changed"))
            break
        result = _one_plane(out, manifest, hosts[plane], plane, timeout, say, journal, run_id)
        if result.status != "failed" and standbys and plane in standbys:
            meta = manifest.ib_planes[plane]
            standby = standbys[plane]
            wanted = standby_files(out, meta)
            if standby.read_files() != wanted:
                standby.write_files(wanted)
                standby.reread()
                if standby.read_files() != wanted:
                    result = PlaneResult(plane, "failed", f"the standby SM {meta.sm_standby} did not keep its files "
                                         "(the master runs the new ones)", result.seconds)
                elif say:
                    say(f"IB plane {plane}: standby SM {meta.sm_standby} has the same files")
            result = PlaneResult(result.plane, result.status, result.detail + f"; standby {meta.sm_standby} in step",
                                 result.seconds) if result.status != "failed" else result
        results.append(result)
        if result.status == "failed":
            break  # the next plane is not touched
    return results


def _one_plane(out: Path, manifest: Manifest, host: SmHost, plane: str, timeout: float, say: Any,
               journal: Journal | None, run_id: int) -> PlaneResult:
    meta = manifest.ib_planes[plane]
    if journal is None:
        return _roll_plane(out, meta, host, plane, timeout, say)
    sid = journal.step(run_id, plane, 0, meta.sm_host, "opensm", meta.config_dir)
    result = _roll_plane(out, meta, host, plane, timeout, say)
    journal.finish(sid, "ok" if result.status != "failed" else "failed", f"{result.status}: {result.detail}")
    return result


def _roll_plane(out: Path, meta: IbPlaneEntry, host: SmHost, plane: str, timeout: float, say: Any) -> PlaneResult:
    started = time.monotonic()
    rendered = {name: (out / meta.dir / name).read_text() for name in FILES}
    previous = host.read_files()
    if previous == rendered:
        return PlaneResult(plane, "unchanged", "the SM already runs these files")
    host.write_files(rendered)
    marker = host.reread()
    problems = [] if host.wait_up(marker, timeout) else [f"no SUBNET UP after the re-read ({host.sm_state()})"]
    if not problems:
        problems = pkey_problems(meta, host.pkeys())
    if problems:
        host.write_files(previous)
        host.wait_up(host.reread(), timeout)
        return PlaneResult(plane, "failed", "; ".join(problems[:3]) + " (previous files restored)",
                           time.monotonic() - started)
    if say:
        say(f"IB plane {plane}: files in place, P_Keys read back as planned")
    return PlaneResult(plane, "ok", f"{len(meta.expected_pkeys)} ports hold their partitions",
                       time.monotonic() - started)


@dataclass
class SimulatedSmHost:
    """A plane's SM host as a rehearsal: the real opensm, as a daemon, on an ibsim fabric built from
    the plane's cabling. Paths in the files are relocated from the plane's config_dir to a private
    folder (as verify's simulation does); P_Keys are read back with SMPs. A second instance with its
    own ``files_dir`` and ``sim_host`` (the standby's server) runs on the same fabric as the standby SM."""

    name: str
    sim: Any  # verify.ib.sim.SimulatedPlane, prepared and with ibsim started
    config_dir: str
    files_dir: Path | None = None  # default: the simulated plane's folder (the master's files)
    sim_host: str | None = None  # the server whose HCA port it binds (default: the plane's SM host)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def home(self) -> Path:
        return self.files_dir or Path(self.sim.dir)

    def start(self) -> None:
        """Start opensm (one that runs is stopped first: a host runs one SM, and a process left
        behind would keep its port on the simulated fabric)."""
        self.stop()
        home = self.home
        for sub in ("cache", "tmp"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        # a start begins a new log (the last one kept beside it): the markers wait_up() and
        # wait_for() count from then hold whether opensm appends to its log or truncates it
        if (home / "opensm.log").exists():
            (home / "opensm.log").replace(home / "opensm.log.1")
        self.proc = subprocess.Popen(
            ["opensm", "-e", "-D", "0x43", "-f", str(home / "opensm.log"),
             "--dump_files_dir", str(home), "-F", str(home / "opensm.conf")],
            env=dict(self.sim.env, SIM_HOST=self.sim_host or self.sim.meta.sm_host, OSM_CACHE_DIR=str(home / "cache"),
                     OSM_TMP_DIR=str(home / "tmp")),
            cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def log(self) -> str:
        path = self.home / "opensm.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def read_files(self) -> dict[str, str]:
        return {name: self._unrelocate((self.home / name).read_text()) if (self.home / name).exists() else ""
                for name in FILES}

    def write_files(self, files: dict[str, str]) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (self.home / name).write_text(self._relocate(text))

    def _relocate(self, text: str) -> str:
        text = text.replace(self.config_dir, str(self.home))
        return re.sub(r"^log_file .*$", f"log_file {self.home / 'opensm.log'}", text, flags=re.MULTILINE)

    def _unrelocate(self, text: str) -> str:
        return text.replace(str(self.home / "opensm.log"), "@LOG@").replace(str(self.home), self.config_dir) \
            .replace("@LOG@", f"/var/log/opensm-{self.sim.plane}.log")

    def reread(self) -> int:
        marker = self.log().count("SUBNET UP")
        assert self.proc is not None
        self.proc.send_signal(signal.SIGHUP)
        return marker

    def wait_up(self, marker: int, timeout: float) -> bool:
        return self.wait_for("SUBNET UP", marker, timeout)

    def wait_for(self, text: str, marker: int, timeout: float) -> bool:
        """Wait until the log holds ``text`` more than ``marker`` times."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.log().count(text) > marker:
                return True
            time.sleep(0.2)
        return False

    def join_as_standby(self, master: SimulatedSmHost, settle: float = 30, attempts: int = 4) -> None:
        """Start this SM beside the running ``master`` on the same simulated fabric and return once
        both have settled: this one in STANDBY, and the master's sweep that its arrival starts (the
        trap 144 its IS_SM bit sends) finished with SUBNET UP.

        ibsim and umad2sim never time a MAD out; on a host the kernel's MAD layer does and opensm
        sends again. A MAD lost while the second SM starts up therefore stalls the master's sweep
        for ever (seen under load, about one start in seven: the master's log ends at the standby's
        trap 144 with one SMP outstanding, every socket queue of the simulator empty, no error; a
        master restarted beside that standby stalls again). A pair that does not settle within
        ``settle`` seconds is started again, master first, at most ``attempts`` times, so the
        rehearsal starts from a settled plane, as a real one would."""
        for _ in range(attempts):
            marker = master.log().count("SUBNET UP")
            self.start()
            if self.wait_for("Entering STANDBY state", 0, settle) and master.wait_up(marker, settle):
                return
            self.stop()
            master.stop()
            master.start()
            if not master.wait_up(0, 120):
                break
        raise RuntimeError(f"SM {master.name} and its standby {self.name} did not settle on the simulated fabric "
                           f"(master: {master.sm_state()}; standby: {self.sm_state()})")

    def pkeys(self) -> dict[str, dict[int, str]]:
        result: dict[str, dict[int, str]] = self.sim.read_pkeys(self.sim.guid2lid())
        return result

    def sm_state(self) -> str:
        if self.proc is None or self.proc.poll() is not None:
            return f"opensm is not running (exit status {self.proc.returncode if self.proc else None})"
        return describe_log(self.log())


@dataclass
class SshSmHost:
    """A real SM host over SSH (netmiko ``linux``): files under the plane's config_dir, opensm
    re-read with SIGHUP, P_Keys read back with ``smpquery pkeys`` from that host."""

    name: str
    conn: Any
    meta: IbPlaneEntry

    def _run(self, command: str, timeout: float = 60) -> tuple[int, str]:
        return run_shell(self.conn, command, timeout)

    def read_files(self) -> dict[str, str]:
        return {name: self._run(f"cat {self.meta.config_dir}/{name}")[1] for name in FILES}

    def write_files(self, files: dict[str, str]) -> None:
        for name, text in files.items():
            path = f"{self.meta.config_dir}/{name}"
            rc, out = self._run(f"cat > {path}.dualrail-new <<'DUALRAIL_EOF'\n{text}DUALRAIL_EOF\n"
                                f"mv {path}.dualrail-new {path}")
            if rc != 0:
                raise RuntimeError(f"{self.name}: cannot write {path}: {out.strip()[:200]}")

    def _log(self) -> str:
        """The log file the plane's opensm.conf names, read from the host each time (the file can
        change with each push)."""
        return log_path(self._run(f"cat {shlex.quote(self.meta.config_dir + '/opensm.conf')}")[1])

    def _count_up(self, log: str) -> int | None:
        _, out = self._run(f"grep -c 'SUBNET UP' {shlex.quote(log)} 2>/dev/null || echo 0")
        try:
            return int(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return None

    def _process(self) -> str:
        """pgrep/pkill's pattern for this plane's opensm. The ``[o]`` keeps the pattern from matching
        a shell whose own command line carries it (a wrapper, ``bash -c``)."""
        return shlex.quote("[o]pensm.*" + re.escape(self.meta.config_dir + "/opensm.conf"))

    def reread(self) -> int:
        marker = self._count_up(self._log()) or 0
        self._run(f"pkill -HUP -f {self._process()}")
        return marker

    def wait_up(self, marker: int, timeout: float) -> bool:
        log = self._log()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            count = self._count_up(log)
            if count is not None and count > marker:
                return True
            time.sleep(1)
        return False

    def sm_state(self) -> str:
        if self._run(f"pgrep -f {self._process()}")[0] != 0:
            return f"no opensm runs with {self.meta.config_dir}/opensm.conf on {self.name}"
        log = self._log()
        _, out = self._run(f"grep -E 'Entering [A-Z]+ state| ERR ' {shlex.quote(log)} 2>/dev/null | tail -n 200")
        return describe_log(out)

    def pkeys(self) -> dict[str, dict[int, str]]:
        from dualrail_net.verify.ib.sim import parse_pkey_table
        result: dict[str, dict[int, str]] = {}
        for guid in self.meta.hosts.values():
            rc, out = self._run(f"smpquery -G pkeys {guid} 1", timeout=60)
            result[guid] = parse_pkey_table(out) if rc == 0 else {-1: out.strip()[-100:]}
        return result
