"""OpenSM files reach each IB plane's SM one plane at a time: the real opensm, running as a daemon on
an ibsim fabric, re-reads the rendered files on SIGHUP; every HCA port's P_Key table read back is
the gate; a wrong file is put back and the next plane is not touched."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dualrail_net.deploy.opensm import FILES, SimulatedSmHost, deploy_opensm, expected_tables, standby_files
from dualrail_net.manifest import Manifest
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.ib.sim import SimulatedPlane, tools_missing

pytestmark = pytest.mark.skipif(bool(tools_missing()), reason=f"needs ibsim/opensm: {tools_missing()}")

MEMBER = "    0x0c42a10300a10003=full,\n"  # gpu003's plane-A port in tenant_a


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("sm")
    new = base / "new"
    write_artifacts(render_fabric(example_fabric), new)
    old, broken = base / "old", base / "broken"
    for folder in (old, broken):
        shutil.copytree(new, folder)
        path = folder / "ib-plane-IBA/partitions.conf"
        assert MEMBER in path.read_text()
        path.write_text(path.read_text().replace(MEMBER, "", 1))  # gpu003 out of tenant_a
    return {"new": new, "old": old, "broken": broken}


@pytest.fixture()
def sm(builds: dict[str, Path], tmp_path: Path) -> Iterator[SimulatedSmHost]:
    """Plane A's SM running the *old* files (gpu003 missing from tenant_a)."""
    meta = Manifest.load(builds["old"]).ib_planes["IBA"]
    with SimulatedPlane(builds["old"], "IBA", meta, tmp_path) as sim:
        sim.prepare()
        sim.start_ibsim()
        host = SimulatedSmHost("sm-a", sim, meta.config_dir)
        host.start()
        try:
            assert host.wait_up(0, 120), "opensm did not bring the simulated subnet up"
            yield host
        finally:
            host.stop()


@pytest.fixture()
def standby(builds: dict[str, Path], sm: SimulatedSmHost, tmp_path: Path) -> Iterator[SimulatedSmHost]:
    """Plane A's standby SM (gpu003's port, priority 14) on the same simulated fabric, on the old files."""
    meta = Manifest.load(builds["old"]).ib_planes["IBA"]
    assert meta.sm_standby == "gpu003"
    host = SimulatedSmHost("sm-a-standby", sm.sim, meta.config_dir, files_dir=tmp_path / "standby",
                           sim_host=meta.sm_standby)
    host.write_files(standby_files(builds["old"], meta))
    try:
        host.join_as_standby(sm)
        yield host
    finally:
        host.stop()


def _gpu003(host: SimulatedSmHost) -> dict[int, str]:
    return host.pkeys()["0x0c42a10300a10003"]


def test_new_partitions_reach_the_running_sm(builds: dict[str, Path], sm: SimulatedSmHost,
                                             standby: SimulatedSmHost) -> None:
    assert 0x0101 not in _gpu003(sm)  # before: not in tenant_a
    results = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    assert [(r.plane, r.status) for r in results] == [("IBA", "ok")], results
    # the standby holds the plane's new files with its own opensm.conf, and is still the standby
    meta_new = Manifest.load(builds["new"]).ib_planes["IBA"]
    assert standby.read_files() == standby_files(builds["new"], meta_new)
    assert "sm_priority 14" in standby.read_files()["opensm.conf"]
    assert standby.proc is not None and standby.proc.poll() is None
    assert "Entering MASTER state" not in standby.log()
    meta = Manifest.load(builds["new"]).ib_planes["IBA"]
    assert sm.pkeys() == {g: t for g, t in expected_tables(meta).items()}
    assert _gpu003(sm)[0x0101] == "full"
    rendered = {name: (builds["new"] / meta.dir / name).read_text() for name in FILES}
    assert sm.read_files() == rendered
    again = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    assert again[0].status == "unchanged"
    # a plane with a standby SM is not rolled without a way to reach it
    refused = deploy_opensm(builds["old"], {"IBA": sm}, ["IBA"])
    assert refused[0].status == "failed" and "standby" in refused[0].detail
    assert sm.read_files() == rendered


def test_a_wrong_file_is_put_back_and_the_next_plane_waits(builds: dict[str, Path], sm: SimulatedSmHost,
                                                            standby: SimulatedSmHost) -> None:
    deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    good, good_standby = sm.read_files(), standby.read_files()

    class Untouchable:
        name = "sm-b"

        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"plane IBB was touched ({name}) after plane IBA failed")

    results = deploy_opensm(builds["broken"], {"IBA": sm, "IBB": Untouchable()}, ["IBA", "IBB"],  # type: ignore[dict-item]
                            standbys={"IBA": standby, "IBB": Untouchable()})  # type: ignore[dict-item]
    assert [(r.plane, r.status) for r in results] == [("IBA", "failed")]
    assert "gpu003" in results[0].detail and "restored" in results[0].detail
    assert sm.read_files() == good
    assert standby.read_files() == good_standby  # the standby never saw the broken files
    assert _gpu003(sm)[0x0101] == "full"  # the previous, correct partitions are programmed again


def test_the_journal_records_each_plane(builds: dict[str, Path], sm: SimulatedSmHost, standby: SimulatedSmHost,
                                       tmp_path: Path) -> None:
    from dualrail_net.deploy.journal import Journal
    # the SM runs the new files; the broken ones differ (a failure here would leave the SM on the old
    # files, which the broken build equals: said here, not later as an 'unchanged' plane)
    first = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    assert first[0].status == "ok", first
    journal = Journal(tmp_path / "journal.sqlite")
    run_id = journal.start_run("opensm", "test", str(builds["broken"]))
    results = deploy_opensm(builds["broken"], {"IBA": sm}, ["IBA"], journal=journal, run_id=run_id,
                            standbys={"IBA": standby})
    assert results[0].status == "failed"
    steps = journal.run(run_id)["steps"]
    assert [(s["plane"], s["device"], s["step"], s["status"]) for s in steps] == [("IBA", "gpu001", "opensm", "failed")]
    assert "restored" in steps[0]["detail"]


def test_sm_hosts_are_reached_by_their_servers_management_address(builds: dict[str, Path]) -> None:
    import dataclasses

    from dualrail_net.deploy.opensm import SmHostUnknown, sm_addresses
    manifest = Manifest.load(builds["new"])
    assert sm_addresses(manifest, ["IBA", "IBB"]) == {"IBA": ("gpu001", "198.51.100.201"),
                                                      "IBB": ("gpu002", "198.51.100.202")}
    with pytest.raises(SmHostUnknown, match="no IB plane 'IBC'"):
        sm_addresses(manifest, ["IBC"])
    manifest.servers["gpu001"] = dataclasses.replace(manifest.servers["gpu001"], mgmt_address=None)
    with pytest.raises(SmHostUnknown, match="gpu001 has no management address"):
        sm_addresses(manifest, ["IBA"])
    from dualrail_net.deploy.opensm import standby_addresses
    assert standby_addresses(manifest, ["IBA", "IBB"]) == {"IBA": ("gpu003", "198.51.100.203"),
                                                           "IBB": ("gpu004", "198.51.100.204")}
    manifest.servers["gpu004"] = dataclasses.replace(manifest.servers["gpu004"], mgmt_address=None)
    with pytest.raises(SmHostUnknown, match="standby SM host gpu004"):
        standby_addresses(manifest, ["IBB"])


def test_the_cli_refuses_an_opensm_deploy_to_the_twin(builds: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from dualrail_net.cli import main
    code = main(["deploy", "--scope", "opensm", "--twin", "-o", str(builds["new"]), "--force", "--reason", "test"])
    assert code == 2
    assert "runs no subnet manager" in capsys.readouterr().out


class LocalShellConnection:
    """TEST DOUBLE of a netmiko ``linux`` session: each command runs in a local bash, with the
    ibsim environment, so ``SshSmHost``'s own command lines (cat, grep, pkill -HUP, smpquery) run
    for real against a real opensm."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def send_command(self, command: str, **_: object) -> str:
        import subprocess
        # in the simulation's folder: umad2sim leaves its fake sysfs (sys-<pid>) in the working directory
        done = subprocess.run(["bash", "-c", command], env=self.env, cwd=Path(self.env["IBSIM_SOCKNAME"]).parent,
                              capture_output=True, text=True, timeout=120)
        return done.stdout + done.stderr + "\nroot@sm:~# "


def _relocated(build: Path, into: Path, config_dir: Path, logs: Path) -> Path:
    """A copy of ``build`` whose plane-A SM files live under ``config_dir`` and log under ``logs``
    (and without a standby SM: one local shell stands for one host)."""
    import json
    shutil.copytree(build, into)
    manifest = json.loads((into / "manifest.json").read_text())
    old_dir = manifest["ib_planes"]["IBA"]["config_dir"]
    manifest["ib_planes"]["IBA"].update(config_dir=str(config_dir), sm_standby=None, sm_standby_guid="")
    (into / "manifest.json").write_text(json.dumps(manifest))
    for path in (into / "ib-plane-IBA").iterdir():
        path.write_text(path.read_text().replace(old_dir, str(config_dir)).replace("/var/log/", f"{logs}/"))
    return into


def test_a_real_sm_host_is_driven_through_its_shell(builds: dict[str, Path], tmp_path: Path) -> None:
    """SshSmHost's commands against a real opensm on ibsim: the log it waits on is the one the
    plane's opensm.conf names (not opensm's default), and a dead SM is named in the failure."""
    import subprocess

    from dualrail_net.deploy.opensm import SshSmHost, log_path
    etc, logs = tmp_path / "etc", tmp_path / "log"
    etc.mkdir()
    logs.mkdir()
    old = _relocated(builds["old"], tmp_path / "old", etc, logs)
    new = _relocated(builds["new"], tmp_path / "new", etc, logs)
    meta = Manifest.load(new).ib_planes["IBA"]
    for name in FILES:
        shutil.copy(old / meta.dir / name, etc / name)
    assert log_path((etc / "opensm.conf").read_text()) == f"{logs}/opensm-IBA.log"
    with SimulatedPlane(old, "IBA", meta, tmp_path / "ib") as sim:
        sim.prepare()
        sim.start_ibsim()
        env = dict(sim.env, SIM_HOST=meta.sm_host)
        proc = subprocess.Popen(["opensm", "-e", "-D", "0x43", "--dump_files_dir", str(etc), "-F",
                                 str(etc / "opensm.conf")], env=env, cwd=sim.dir, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            host = SshSmHost("gpu001", LocalShellConnection(env), meta)
            assert host.wait_up(0, 120), "opensm did not bring the subnet up"
            assert "last state MASTER" in host.sm_state()
            results = deploy_opensm(new, {"IBA": host}, ["IBA"])
            assert [(r.plane, r.status) for r in results] == [("IBA", "ok")], results
            assert host.read_files() == {name: (new / meta.dir / name).read_text() for name in FILES}
            assert host.pkeys()["0x0c42a10300a10003"][0x0101] == "full"
            # the SM dies: the next push fails its gate, says why, and puts the files back
            proc.terminate()
            proc.wait(10)
            broken = deploy_opensm(old, {"IBA": host}, ["IBA"], timeout=3)
            assert broken[0].status == "failed" and "no opensm runs" in broken[0].detail, broken
            assert host.read_files() == {name: (new / meta.dir / name).read_text() for name in FILES}
        finally:
            if proc.poll() is None:
                proc.kill()


def test_the_failure_names_the_sms_state() -> None:
    from dualrail_net.deploy.opensm import describe_log, log_path
    log = ("Dec 02 23:05:01 740168 [D91CB740] 0x80 -> Entering DISCOVERING state\n"
           "Dec 02 23:05:02 740168 [D91CB740] 0x01 -> osm_sm_mad_ctrl ERR 3120: Timeout while getting attribute\n"
           "Dec 02 23:05:03 951914 [F06936C0] 0x80 -> Entering STANDBY state\n")
    assert describe_log(log) == ("last state STANDBY; last error: osm_sm_mad_ctrl ERR 3120: Timeout while "
                                 "getting attribute")
    assert describe_log("") == "no state change logged"
    assert log_path("guid 0x1\n# log_file /nope\nlog_file /a\n  log_file /var/log/b.log\n") == "/var/log/b.log"
    assert log_path("guid 0x1\n") == "/var/log/opensm.log"


def test_a_pair_that_does_not_settle_is_started_again(builds: dict[str, Path], sm: SimulatedSmHost,
                                                      tmp_path: Path) -> None:
    """ibsim never times a MAD out, so a MAD lost while the standby starts stalls the master for ever
    (seen under load). The master's first wait for its sweep fails here (a stand-in for that loss,
    which cannot be produced on demand); the pair is started again, master first, and the plane then
    takes a rollout as a settled one does. A pair that never settles is an error naming both."""
    meta = Manifest.load(builds["old"]).ib_planes["IBA"]
    standby = SimulatedSmHost("sm-a-standby", sm.sim, meta.config_dir, files_dir=tmp_path / "standby",
                              sim_host=meta.sm_standby)
    standby.write_files(standby_files(builds["old"], meta))
    first_master = sm.proc
    real_wait_up = sm.wait_up
    waits: list[float] = []

    def stalled_once(marker: int, timeout: float) -> bool:
        waits.append(timeout)
        return False if len(waits) == 1 else real_wait_up(marker, timeout)

    sm.wait_up = stalled_once  # type: ignore[method-assign]
    try:
        standby.join_as_standby(sm, settle=5)
        assert waits[0] == 5 and sm.proc is not first_master and first_master is not None
        assert first_master.poll() is not None  # the stalled master was stopped, not left beside the new one
        assert "Entering MASTER state" in sm.log() and "Entering STANDBY state" in standby.log()
        assert (sm.home / "opensm.log.1").exists()  # the stalled run's log is kept
        results = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
        assert [(r.plane, r.status) for r in results] == [("IBA", "ok")], results

        settled = standby.proc
        sm.wait_up = lambda marker, timeout: False  # type: ignore[method-assign]
        with pytest.raises(RuntimeError, match="sm-a and its standby sm-a-standby did not settle"):
            standby.join_as_standby(sm, settle=1, attempts=2)
        assert standby.proc is not None and standby.proc.poll() is not None
        assert settled is not None and settled.poll() is not None  # a start stops the SM that ran (none is left behind)
    finally:
        standby.stop()


def test_simulated_processes_leave_nothing_in_the_callers_folder(builds: dict[str, Path], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """umad2sim writes a fake sysfs (sys-<pid>) into its process's working directory and leaves it when
    the process is killed; one was once committed from a repository's root. Every simulated process
    runs in the simulation's own folder."""
    import signal
    caller = tmp_path / "caller"
    caller.mkdir()
    monkeypatch.chdir(caller)
    meta = Manifest.load(builds["old"]).ib_planes["IBA"]
    with SimulatedPlane(builds["old"], "IBA", meta, tmp_path / "sim") as sim:
        sim.prepare()
        sim.start_ibsim()
        host = SimulatedSmHost("sm-a", sim, meta.config_dir)
        host.start()
        try:
            assert host.wait_up(0, 120)
            assert host.pkeys()
            assert host.proc is not None
            host.proc.send_signal(signal.SIGKILL)
            host.proc.wait(10)
        finally:
            host.stop()
    assert list(caller.iterdir()) == []
    assert list((tmp_path / "sim").rglob("sys-*"))  # where it went instead (the test sees what it guards)
