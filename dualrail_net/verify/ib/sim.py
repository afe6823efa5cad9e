"""Run the real opensm once per IB plane against an ibsim fabric built from the rendered cabling
plan, with the rendered opensm.conf/partitions.conf/GUID files, and check what it did.

The rendered files name their deployment paths (/etc/opensm/<plane>/...); they are copied into a
private directory and those paths are relocated there, nothing else changes. P_Key tables are read
back from every HCA port with smpquery, in parallel (one query per port is the slow part)."""

from __future__ import annotations

import json
import os
import sys
import re
import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dualrail_net.manifest import IbPlaneEntry, IbSwitchEntry, Manifest
from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.ib.netfile import CablingPlanError, build_netfile
from dualrail_net.verify.parsers.files import UnreadableFile, read_text
from dualrail_net.verify.ib.pkeys import fmt
from dualrail_net.verify.ib.static import inactive_setting, read_opensm_conf

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
TOOLS = ("ibsim", "opensm", "smpquery")
# opensm.conf settings the simulation overrides (SimulatedPlane.prepare): `daemon TRUE` made opensm
# fork away and the run read a log not yet written; a console would wait on the terminal or a port
SIM_PROCESS = {"daemon": "FALSE", "console": "off", "log_max_size": "0", "accum_log_file": "TRUE"}


# opensm's log line when every routing engine it was given failed and no_fallback keeps it from
# minhop: it then sweeps again and again, the switches never configured (measured on ibsim)
NO_ENGINE = "No routing engine able to successfully configure"
# opensm's log line naming the engine that configured the switches' forwarding tables
_ENGINE_USED = re.compile(r"osm_ucast_mgr_process: (\S+) tables configured on all switches")


def _tail(path: Path, size: int = 65536) -> str:
    """The end of a file that may not exist yet."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - size))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def engine_used(log: str) -> str | None:
    """The routing engine opensm's log says configured the switches (its last sweep's), or None."""
    found = _ENGINE_USED.findall(log)
    return found[-1] if found else None


def strays(folder: Path) -> list[int]:
    """The processes (other than this one) whose command line names ``folder``."""
    mine = str(folder).encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"{entry.path}/cmdline", "rb") as f:
                if mine in f.read():
                    found.append(int(entry.name))
        except OSError:  # (gone meanwhile, or not ours to read)
            continue
    return found


class SimulatorRefused(RuntimeError):
    """ibsim would not build the plane's fabric from its topology file (its reason in the message)."""


def tools_missing() -> str:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if not Path(UMAD2SIM).exists():
        missing.append("libumad2sim0")
    return ", ".join(missing)


def _f(check: str, plane: str, message: str, why: str) -> Finding:
    return Finding(check, Severity.ERROR, (), plane, message, why)


def parse_pkey_table(text: str) -> dict[int, str]:
    """smpquery pkeys output -> {15-bit P_Key: 'full'|'limited'}."""
    out: dict[int, str] = {}
    for value in re.findall(r"0x[0-9a-fA-F]{4}", text):
        raw = int(value, 16)
        if raw & 0x7FFF == 0:
            continue
        key = raw & 0x7FFF
        out[key] = "full" if raw & 0x8000 or out.get(key) == "full" else "limited"
    return out


class SimulatedPlane:
    def __init__(self, out: Path, plane: str, meta: IbPlaneEntry, workdir: Path) -> None:
        self.out, self.plane, self.meta = out, plane, meta
        self.dir = workdir / plane
        self.dir.mkdir(parents=True)
        for sub in ("cache", "tmp"):
            (self.dir / sub).mkdir()
        # every process with umad2sim preloaded runs in this folder (cwd=self.dir): umad2sim writes a
        # fake sysfs, sys-<pid>, into its working directory and leaves it there when the process is
        # killed; it must never land in the caller's folder (a repository, a build)
        self.env = dict(os.environ, IBSIM_SOCKNAME=str(self.dir / "ibsim.sock"), LD_PRELOAD=UMAD2SIM,
                        OSM_CACHE_DIR=str(self.dir / "cache"), OSM_TMP_DIR=str(self.dir / "tmp"))
        self.ibsim: subprocess.Popen[bytes] | None = None
        self.log_path = self.dir / "ibsim.log"
        self.timings: dict[str, float] = {}
        self.unrouted = False  # opensm said no routing engine could configure the switches

    def __enter__(self) -> SimulatedPlane:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.ibsim and self.ibsim.poll() is None:
            self.ibsim.send_signal(signal.SIGTERM)
            try:
                self.ibsim.wait(5)
            except subprocess.TimeoutExpired:
                self.ibsim.kill()
        # a process that left the run and still names this folder: an opensm that forked away (a
        # setting SIM_PROCESS does not foresee); it would run on after verify, one per run. Killed
        # until none is left: a killed process still shows until the kernel has ended it, and a
        # daemon's child may be forking meanwhile (no run waits here unless one was found)
        deadline = time.monotonic() + 10
        while (found := strays(self.dir)) and time.monotonic() < deadline:
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)

    def prepare(self) -> None:
        src = self.out / self.meta.dir
        for name in ("opensm.conf", "partitions.conf", "root_guids.conf", "cn_guids.conf"):
            text = read_text(src / name)  # (never through a link planted in the folder)
            text = text.replace(self.meta.config_dir, str(self.dir))
            text = re.sub(r"^log_file .*$", f"log_file {self.dir / 'opensm.log'}", text, flags=re.MULTILINE)
            if name == "opensm.conf":
                # how the simulation's opensm runs as a process, whatever the file says (opensm takes a
                # key's last line): in the foreground, with no console, its whole log kept. None of
                # these decides anything about the subnet; the static checks read the file's own.
                text = text.rstrip("\n") + "\n" + "".join(f"{key} {value}\n" for key, value in SIM_PROCESS.items())
            (self.dir / name).write_text(text)
        netfile, _ = build_netfile(src / "cabling.csv", self.meta.switches)
        (self.dir / "fabric.net").write_text(netfile)

    def start_ibsim(self) -> None:
        size = len(self.meta.hosts) + len(self.meta.switches)
        args = ["ibsim", "-s", "-n", str(self.dir / "fabric.net")]
        if size > 1000:
            args[1:1] = ["-N", str(size * 2), "-S", str(max(1024, len(self.meta.switches) * 2)),
                         "-P", str(size * 40)]
        # ibsim's console output goes to a file, never to a pipe: once nobody reads a pipe (after
        # "ready"), enough warnings (dropped packets, dead clients) would fill it and block the
        # simulator, and with it every SM and tool on the fabric
        with open(self.log_path, "wb") as log:
            self.ibsim = subprocess.Popen(args, env={k: v for k, v in self.env.items() if k != "LD_PRELOAD"},
                                          stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.ibsim.poll() is None:
            if b"Network simulator ready" in self.log_path.read_bytes():
                return
            time.sleep(0.05)
        tail = self.log_path.read_text(errors="replace")[-400:].strip()
        # ibsim's own reason first (its panic on the topology), not its start-up chatter
        reasons = [line for line in tail.splitlines() if "ibpanic" in line or "not connected" in line]
        raise SimulatorRefused(f"ibsim did not start: {'; '.join(reasons[-2:]) or tail or 'no output'}")

    def run_opensm(self, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """One sweep of opensm (`-o`), its printed output in the result. Its output is read through
        pipes, so the run ends when every process holding them has (an opensm that daemonizes has
        let go of them once it has forked: the reaper then finds its child). opensm says in its log
        when no routing engine can configure the switches and then sweeps again for ever: the run
        is stopped at that line (``self.unrouted``) instead of at the timeout."""
        started = time.monotonic()
        log = self.dir / "opensm.log"
        proc = subprocess.Popen(
            ["opensm", "-o", "-e", "-D", "0x43", "-f", str(log),
             "--dump_files_dir", str(self.dir), "-F", str(self.dir / "opensm.conf")],
            env=dict(self.env, SIM_HOST=self.meta.sm_host), cwd=self.dir, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            while True:
                try:
                    out, err = proc.communicate(timeout=0.2)
                    break
                except subprocess.TimeoutExpired:
                    if NO_ENGINE in _tail(log):
                        self.unrouted = True
                        proc.kill()
                        out, err = proc.communicate(timeout=10)
                        break
                    if time.monotonic() - started > timeout:
                        raise subprocess.TimeoutExpired(proc.args, timeout) from None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.timings["opensm_s"] = time.monotonic() - started
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def guid2lid(self) -> dict[str, int]:
        out = {}
        path = self.dir / "cache" / "guid2lid"
        for line in path.read_text().splitlines() if path.exists() else []:
            parts = line.split()
            if len(parts) >= 2:
                out["0x" + parts[0][2:].lower().zfill(16)] = int(parts[1], 16)
        return out

    def read_pkeys(self, lids: dict[str, int]) -> dict[str, dict[int, str]]:
        """Every HCA port's P_Key table, read back with SubnGet(PKeyTable) SMPs from one process."""
        started = time.monotonic()
        hosts = [g for g in self.meta.hosts.values() if g in lids]
        # run in the simulation's folder, so the package is found by path, not by the caller's folder
        package_root = str(Path(__file__).resolve().parents[3])
        paths = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
        proc = subprocess.run([sys.executable, "-m", "dualrail_net.verify.ib.pkey_reader"],
                              input=json.dumps({"lids": [lids[g] for g in hosts]}), capture_output=True, text=True,
                              env=dict(self.env, SIM_HOST=self.meta.sm_host, PYTHONPATH=paths), cwd=self.dir,
                              timeout=600)
        self.timings["pkeys_s"] = time.monotonic() - started
        if proc.returncode != 0:
            raise RuntimeError(f"P_Key reader failed: {proc.stderr.strip()[-300:]}")
        answer = json.loads(proc.stdout)
        result: dict[str, dict[int, str]] = {}
        for guid in hosts:
            lid = str(lids[guid])
            if lid in answer["errors"]:
                result[guid] = {-1: answer["errors"][lid]}
                continue
            table: dict[int, str] = {}
            for raw in answer["tables"].get(lid, []):
                key = raw & 0x7FFF
                table[key] = "full" if raw & 0x8000 or table.get(key) == "full" else "limited"
            result[guid] = table
        return result

    def read_pkeys_one_port_at_a_time(self, lids: dict[str, int], workers: int = 8) -> dict[str, dict[int, str]]:
        """The reference method (one smpquery process per port); kept for the benchmark's ratio."""
        started = time.monotonic()
        env = dict(self.env, SIM_HOST=self.meta.sm_host)

        def one(guid: str) -> tuple[str, dict[int, str]]:
            # ibsim serves a bounded number of simulated clients at once: a refused attach is retried.
            for attempt in range(20):
                proc = subprocess.run(["smpquery", "pkeys", str(lids[guid]), "1"], env=env, cwd=self.dir, capture_output=True,
                                      text=True, timeout=60)
                if proc.returncode == 0:
                    return guid, parse_pkey_table(proc.stdout)
                if "connect failed" not in proc.stderr and "ctl error" not in proc.stderr:
                    break
                time.sleep(0.05 * (attempt + 1))
            return guid, {-1: proc.stderr.strip().splitlines()[-1][:100] if proc.stderr.strip() else "failed"}

        hosts = [g for g in self.meta.hosts.values() if g in lids]
        with ThreadPoolExecutor(workers) as pool:
            result = dict(pool.map(one, hosts))
        self.timings["pkeys_s"] = time.monotonic() - started
        return result




def route_findings(check: str, plane: str, lfts: str, switches: dict[str, IbSwitchEntry],
                   hca_lids: set[int]) -> list[Finding]:
    """IB-SIM-ROUTES on opensm's LFT dump: every leaf switch forwards to every HCA LID."""
    found = []
    for block in lfts.split("Unicast lids")[1:]:
        name_m = re.search(r"\('([^']+)'\)", block)
        name = name_m.group(1) if name_m else "?"
        entry = switches.get(name)
        if entry is None or entry.role != "leaf":
            continue
        routed = {int(m, 16) for m in re.findall(r"^(0x[0-9a-fA-F]+) \d+ # Channel Adapter", block, re.MULTILINE)}
        if hca_lids - routed:
            found.append(_f(check, plane, f"{name} has no route to {len(hca_lids - routed)} HCA LID(s)",
                            "those hosts are unreachable from this leaf"))
    if not lfts:
        found.append(_f(check, plane, "opensm wrote no LFT dump", "routing could not be checked"))
    return found


def run_simulation(out: Path, workers: int = 0) -> tuple[list[CheckResult], dict[str, Any]]:
    """``workers`` > 0 reads P_Keys with that many smpquery processes (the slow reference method);
    0 (the default) reads them all from one process."""
    manifest = Manifest.load(out)
    sm = CheckResult("IB-SIM-SM", "opensm parses every file (no PARSE ERROR, no fallback to the default config) "
                     "and brings the subnet up")
    pk = CheckResult("IB-SIM-PKEYS", "every HCA port's P_Key table holds exactly the partitions and membership "
                     "the inventory says")
    rt = CheckResult("IB-SIM-ROUTES", "routing is complete: every leaf switch has a route to every HCA")
    results = [sm, pk, rt]
    missing = tools_missing()
    stats: dict[str, Any] = {}
    if missing:
        for r in results:
            r.skipped = f"not installed: {missing} (apt-get install ibsim-utils opensm infiniband-diags libumad2sim0)"
        return results, stats
    with tempfile.TemporaryDirectory(prefix="dualrail-ib-") as tmp:
        for plane, meta in manifest.ib_planes.items():
            started = time.monotonic()
            with SimulatedPlane(out, plane, meta, Path(tmp)) as sim:
                try:
                    sim.prepare()
                    sim.start_ibsim()
                except (CablingPlanError, UnreadableFile, SimulatorRefused) as exc:
                    # a plan the simulator cannot build (a hand-edited cabling.csv): said, not raised
                    sm.findings.append(_f(sm.check, plane, f"the plane's simulated fabric was not built: {exc}",
                                          "opensm's run on the plan (subnet, P_Keys, routes) is not checked"))
                    continue
                settings, _ = read_opensm_conf((sim.dir / "opensm.conf").read_text())  # (the prepared copy)
                inactive = inactive_setting(settings)
                if inactive is not None:
                    # (an inactive SM never sweeps: `opensm -o` would wait for ever)
                    sm.findings.append(_f(sm.check, plane, f"{meta.dir}/opensm.conf:{inactive[0]}: sm_inactive "
                                          f"{inactive[1]}: opensm never sweeps, not run", "the plane has no master SM"))
                    continue
                try:
                    run = sim.run_opensm()
                except subprocess.TimeoutExpired as exc:
                    sm.findings.append(_f(sm.check, plane, f"opensm did not finish its sweep in {exc.timeout:.0f} s",
                                          "the subnet may never come up"))
                    continue
                for line in run.stdout.splitlines():
                    # opensm's own word on a value it refuses (printed, not logged): it runs its
                    # default in its place ("Invalid Cached Option Value:sm_priority = 16:Using Default:0");
                    # what that default does is the static checks' (they read values as opensm does)
                    if line.strip().startswith("Invalid Cached Option Value"):
                        sm.findings.append(Finding(sm.check, Severity.WARNING, (), plane, f"opensm: {line.strip()}",
                                                   "opensm runs its default for this setting, not the file's"))
                log_path = sim.dir / "opensm.log"
                if not log_path.exists():
                    sm.findings.append(_f(sm.check, plane, f"opensm wrote no log (exit {run.returncode}: "
                                          f"{(run.stderr or run.stdout).strip()[-200:] or 'no output'})",
                                          "whether the subnet came up is not known"))
                    continue
                log = log_path.read_text(errors="replace")
                for line in log.splitlines():
                    if "PARSE ERROR" in line or "retrying with default" in line or "Partition configuration in error" in line:
                        sm.findings.append(_f(sm.check, plane, f"opensm: {line.split('-> ', 1)[-1].strip()}",
                                              "opensm fell back to the default partition: the fabric is open"))
                if sim.unrouted:
                    rt.findings.append(_f(rt.check, plane, f"opensm: {NO_ENGINE} switch tables (stopped there: it "
                                          "sweeps again for ever)", "no switch forwards: the plane carries no traffic"))
                if "SUBNET UP" not in log:
                    sm.findings.append(_f(sm.check, plane, "opensm never reported SUBNET UP",
                                          "the plane would carry no traffic"))
                    continue
                used = engine_used(log)
                if used is not None and used != meta.routing_engine:
                    # (the static IB-ROUTING-FILES foresees which: a name opensm lacks, ftree under LMC > 0)
                    rt.findings.append(Finding(rt.check, Severity.WARNING, (), plane,
                                               f"opensm routed plane {plane} with {used}, the plan's engine is "
                                               f"{meta.routing_engine}", "the plane's routes are not the ones planned"))
                lids = sim.guid2lid()
                actual = (sim.read_pkeys_one_port_at_a_time(lids, workers) if workers
                          else sim.read_pkeys(lids))
                expected: dict[str, dict[str, str]] = meta.expected_pkeys
                host_of = {g: h for h, g in meta.hosts.items()}
                for guid, want in expected.items():
                    got = actual.get(guid)
                    if got is None:
                        pk.findings.append(_f(pk.check, plane, f"{host_of.get(guid, guid)} ({guid}) got no LID",
                                              "the port is not in the subnet"))
                        continue
                    want_int = {int(k, 16): ("full" if v == "both" else v) for k, v in want.items()}
                    if got != want_int:
                        pk.findings.append(_f(pk.check, plane, f"{host_of.get(guid, guid)} ({guid}): P_Keys {fmt(got)}"
                                              f", inventory says {fmt(want_int)}",
                                              "the port is in partitions it should not see, or cut off from its own"))
                lfts = (sim.dir / "opensm-lfts.dump").read_text() if (sim.dir / "opensm-lfts.dump").exists() else ""
                hca_lids = {lids[g] for g in meta.hosts.values() if g in lids}
                rt.findings += route_findings(rt.check, plane, lfts, meta.switches, hca_lids)
                stats[plane] = {"hosts": len(meta.hosts), "seconds": round(time.monotonic() - started, 2),
                                **{k: round(v, 2) for k, v in sim.timings.items()}}
    return results, stats
