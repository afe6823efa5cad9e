"""Rolling deployment against the emulated twin (real SSH, real FRR, real packets), plus the EOS
driver against a recorded session transcript (no EOS can run here: RecordedEosConnection is the
test double, named as such)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import running_example_twin

from dualrail_net.platforms.eos.driver import EosDriver
from dualrail_net.deploy.drivers.base import PushRejected
from dualrail_net.deploy.journal import InvariantViolation, Journal
from dualrail_net.deploy.playbook import Playbook
from dualrail_net.deploy.runner import Runner, batches
from dualrail_net.deploy.session import connector, init_nornir
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.twin import lifecycle
from dualrail_net.twin.chaos import probe_jobs
from dualrail_net.twin.checks import TwinView, wait_converged
from dualrail_net.twin.traffic import Background

STATE = lifecycle.STATE_DIR / "state.json"


def render_variant(fabric: Fabric, dest: Path, max_paths: int) -> Path:
    import copy
    f = copy.deepcopy(fabric)
    for sw in f.switches.values():
        sw.maximum_paths = max_paths
    write_artifacts(render_fabric(f), dest)
    return dest


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("vtysh") is None or not Path("/usr/sbin/sshd").exists():
        pytest.skip("the twin needs root, frr and openssh-server")
    yield from running_example_twin(tmp_path_factory, example_fabric, "deploy")


def make_runner(output: Path, tmp: Path, book: Playbook) -> tuple[Runner, Journal, Any]:
    nr = init_nornir(output, STATE)
    journal = Journal(tmp / "journal.sqlite")
    return Runner(dict(nr.inventory.hosts), connector(nr), journal, book, tmp / "backups"), journal, nr


BOOK = Playbook(name="test-rollout", planes=["A", "B"], canary=1, batch_size=4, concurrency=4,
                drain_settle_seconds=2, post_check_timeout_seconds=30)


def test_config_rollout_through_both_planes_without_loss(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    """One change through everything a deploy reaches, with probes on both planes the whole time:
    the planes' switches (their frr.conf and their QoS file), the gateway's window, the servers'
    window, and both IB planes' subnet managers (on ibsim: the twin has no InfiniBand)."""
    new = render_variant(example_fabric, tmp_path / "new", 32)
    for qos in new.glob("plane-*/*/qos_features.conf"):  # a QoS change rides along
        qos.write_text(qos.read_text().replace("# Apply with", "# (changed) Apply with"))
    for server in ("gpu003", "gpu019"):
        _with_server_mtu(new / "servers" / server, 9100)
    view = TwinView(lifecycle.load_state() or {})
    stop = lifecycle.STATE_DIR / "deploy-stop"
    stop.unlink(missing_ok=True)
    bg = Background(probe_jobs(view), duration=900, interval=0.05, stop_file=str(stop))
    time.sleep(1)
    runner, journal, nr = make_runner(new, tmp_path, BOOK)
    t0 = time.monotonic()
    windows: dict[str, list[float]] = {}
    original = runner.journal.enter_maintenance

    def track(plane: str, run_id: int) -> None:
        windows[plane] = [time.monotonic() - t0]
        original(plane, run_id)
    runner.journal.enter_maintenance = track  # type: ignore[method-assign]
    report = runner.run(str(new))
    gateways = Runner(dict(nr.inventory.hosts), connector(nr), journal, BOOK, tmp_path / "backups",
                      scope="gateways").run(str(new)) if report.status == "ok" else None
    servers = Runner(dict(nr.inventory.hosts), connector(nr), journal, SERVER_BOOK, tmp_path / "backups",
                     scope="servers").run(str(new)) if gateways and gateways.status == "ok" else None
    stop.write_text("stop")
    results = bg.collect()
    nr.close_connections()
    assert report.status == "ok", report.detail
    assert report.planes_done == ["A", "B"]
    assert gateways is not None and gateways.status == "ok", gateways and gateways.detail
    assert servers is not None and servers.status == "ok", servers and servers.detail
    # the journal tells the truth: every device pushed and post-checked once, backups kept
    run = journal.run(report.run_id)
    pushed = [s["device"] for s in run["steps"] if s["step"] == "push" and s["status"] == "ok"]
    assert sorted(pushed) == sorted(n for n, s in example_fabric.switches.items() if s.plane)
    assert all(Path(s["backup"]).exists() for s in run["steps"] if s["step"] == "backup")
    assert "maximum-paths 64" in (Path(run["steps"][0]["backup"]) / "frr.conf").read_text()
    # the running configs now match the new render: routing, QoS, the gateway's VRFs, the servers
    for sw in ("a-leaf-su1-r0", "b-spine-2"):
        assert "maximum-paths 32" in (lifecycle.rundir(f"drt-{sw}") / "frr.conf").read_text()
    assert "(changed)" in (lifecycle.rundir("drt-a-leaf-su1-r0") / "qos_features.conf").read_text()
    assert all("maximum-paths 32" in text for text in _gateway_running().values())
    assert _server_mtus("gpu003")["ens1f0np0"] == 9100 and _server_mtus("gpu019")["ibp0s0"] == 9100
    lost = {"A": 0, "B": 0}
    for rows in results.values():
        for r in rows:
            lost[view.plane_of(r["dst"]) or "?"] += len(r["lost_at"])
    assert lost == {"A": 0, "B": 0}, f"probe loss during the rollout: {lost}"
    # both InfiniBand planes' subnet managers, one plane at a time (ibsim runs the real opensm),
    # each starting from files that lack gpu003 in tenant_a
    from dualrail_net.deploy.opensm import SimulatedSmHost, deploy_opensm, standby_files
    from dualrail_net.manifest import Manifest
    from dualrail_net.verify.ib.sim import SimulatedPlane, tools_missing
    if tools_missing():
        return
    old = tmp_path / "old-ib"
    shutil.copytree(new, old)
    manifest = Manifest.load(new)
    for plane, member in (("IBA", "0x0c42a10300a10003=full,\n"), ("IBB", "0x0c42a10300b10003=full,\n")):
        parts = old / manifest.ib_planes[plane].dir / "partitions.conf"
        assert member in parts.read_text()
        parts.write_text(parts.read_text().replace(member, "", 1))
    sims = {plane: SimulatedPlane(old, plane, manifest.ib_planes[plane], tmp_path / "ib") for plane in ("IBA", "IBB")}
    hosts: dict[str, SimulatedSmHost] = {}
    standbys: dict[str, SimulatedSmHost] = {}
    try:
        for plane, sim in sims.items():
            meta = manifest.ib_planes[plane]
            sim.prepare()
            sim.start_ibsim()
            hosts[plane] = SimulatedSmHost(f"sm-{plane}", sim, meta.config_dir)
            hosts[plane].start()
            assert hosts[plane].wait_up(0, 120), f"opensm did not bring {plane} up"
            # each plane's standby SM: a second opensm on the same simulated fabric, on the old files
            standbys[plane] = SimulatedSmHost(f"sm-{plane}-standby", sim, meta.config_dir,
                                              files_dir=tmp_path / "ib-standby" / plane, sim_host=meta.sm_standby)
            standbys[plane].write_files(standby_files(old, meta))
            # as on a settled fabric: the standby has found the master and stays standby
            standbys[plane].join_as_standby(hosts[plane])
        sm = deploy_opensm(new, hosts, ["IBA", "IBB"], journal=journal, run_id=servers.run_id,
                           standbys=standbys)
        logs = {p: f"master: {h.log()[-1500:]}\nstandby: {standbys[p].log()[-1500:]}" for p, h in hosts.items()}
    finally:
        for host in [*hosts.values(), *standbys.values()]:
            host.stop()
        for sim in sims.values():
            sim.__exit__(None, None, None)
    assert [(r.plane, r.status) for r in sm] == [("IBA", "ok"), ("IBB", "ok")], \
        f"{sm}\n" + "\n".join(logs[r.plane] for r in sm if r.status == "failed")
    assert all(standbys[p].read_files() == standby_files(new, manifest.ib_planes[p]) for p in standbys)


def _run_with(twin: Path, tmp_path: Path, fabric: Fabric, edit: Any, book: Playbook = BOOK,
              on_say: Any = None) -> tuple[Any, Journal]:
    new = render_variant(fabric, tmp_path / "new", 64)
    edit(new)
    runner, journal, nr = make_runner(new, tmp_path, book)
    if on_say:
        runner.say = on_say
    report = runner.run(str(new))
    nr.close_connections()
    return report, journal


def _assert_rolled_back_and_b_untouched(report: Any, journal: Journal, devices: list[str],
                                        released: bool = True) -> None:
    assert report.status == "failed" and report.failed_batch == devices
    run = journal.run(report.run_id)
    assert run["status"] == "failed" and run["detail"]
    assert not [s for s in run["steps"] if s["plane"] == "B"], "plane B must never be started"
    rolled = {s["device"] for s in run["steps"] if s["step"] == "rollback" and s["status"] == "ok"}
    assert rolled == set(devices)
    # a plane healthy again after the rollback leaves maintenance; one that is not stays locked
    assert journal.in_maintenance() == ({} if released else {"A": report.run_id})
    wait_converged()


def test_a_device_that_rejects_its_config(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    def edit(new: Path) -> None:
        frr = new / "plane-A/a-leaf-su1-r0/frr.conf"
        frr.write_text(frr.read_text().replace(" bgp router-id", " bgp bogus-knob 1\n bgp router-id"))
    report, journal = _run_with(twin, tmp_path, example_fabric, edit)
    _assert_rolled_back_and_b_untouched(report, journal, ["a-leaf-su1-r0"])
    assert "FRR rejected" in journal.run(report.run_id)["detail"]


def test_a_failed_post_check(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    def edit(new: Path) -> None:
        frr = new / "plane-A/a-leaf-su1-r0/frr.conf"
        frr.write_text(frr.read_text().replace("neighbor 10.11.0.0 remote-as 4200001000",
                                               "neighbor 10.11.0.0 remote-as 4200001999"))
    book = BOOK.model_copy(update={"post_check_timeout_seconds": 8})
    report, journal = _run_with(twin, tmp_path, example_fabric, edit, book)
    _assert_rolled_back_and_b_untouched(report, journal, ["a-leaf-su1-r0"])
    assert "10.11.0.0" in journal.run(report.run_id)["detail"]


def test_a_device_unreachable_mid_batch(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    rundir = lifecycle.rundir("drt-a-leaf-su1-r2")

    def cut_ssh(message: str) -> None:
        if message.startswith("plane A batch 1"):  # the canary went fine; now a batch member vanishes
            for pid in lifecycle.processes_of("drt-a-leaf-su1-r2"):  # the listener and open sessions
                try:
                    if Path(f"/proc/{pid}/comm").read_text().strip() == "sshd":
                        os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.5)

    try:
        report, journal = _run_with(twin, tmp_path, example_fabric, lambda new: None, on_say=cut_ssh)
        _assert_rolled_back_and_b_untouched(report, journal, ["a-leaf-su1-r1", "a-leaf-su1-r2", "a-leaf-su1-r3",
                                                              "a-leaf-su2-r0"], released=False)
        run = journal.run(report.run_id)
        assert any(s["device"] == "a-leaf-su1-r2" and s["status"] == "failed" for s in run["steps"])
    finally:
        state = lifecycle.load_state() or {}
        from dualrail_net.twin import sshd
        keys = sshd.Keys(lifecycle.STATE_DIR / "ssh", lifecycle.STATE_DIR / "ssh/ssh_host_ed25519_key",
                         lifecycle.STATE_DIR / "ssh/id_ed25519", lifecycle.STATE_DIR / "ssh/known_hosts")
        sshd.start("drt-a-leaf-su1-r2", "a-leaf-su1-r2", rundir, state["management"]["hosts"]["a-leaf-su1-r2"]["address"],
                   keys)


def test_two_planes_are_never_in_maintenance_together(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    runner, journal, nr = make_runner(twin, tmp_path, BOOK)
    journal.enter_maintenance("B", 999)  # another runner holds plane B
    with pytest.raises(InvariantViolation):
        journal.enter_maintenance("A", 1000)
    report = runner.run(str(twin))
    nr.close_connections()
    assert report.status == "failed" and "plane B is in maintenance" in report.detail
    assert not [s for s in journal.run(report.run_id)["steps"] if s["step"] == "push"]


def test_killed_mid_batch_then_resumed(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    new = render_variant(example_fabric, tmp_path / "new", 48)
    journal_path = tmp_path / "journal.sqlite"
    # the variant is neither verified nor the inventory's render: the gate is overridden, and journalled
    cmd = [sys.executable, "-m", "dualrail_net.cli", "deploy", "--twin", "-o", str(new), "--journal",
           str(journal_path), "--backups", str(tmp_path / "backups"), "--playbook", str(tmp_path / "book.yaml"),
           "--force", "--reason", "test: a variant build"]
    (tmp_path / "book.yaml").write_text("name: resume-test\nplanes: [A]\nroles: [leaf]\ncanary: 1\nbatch_size: 4\n"
                                        "concurrency: 4\npost_check_timeout_seconds: 30\n")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = Journal(journal_path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        steps = journal.run(1)["steps"] if journal.runs() else []
        if any(s["step"] == "push" and s["batch"] == 1 for s in steps):
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    half = [d for d, s in journal.device_state(1).items() if s["last_step"] in ("push", "backup")]
    assert half, "the kill should land mid-batch"
    resumed = subprocess.run([*cmd, "--resume", "1", "--json"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    steps = journal.run(1)["steps"]
    for device in half:
        mine = [s["step"] for s in steps if s["device"] == device]
        # restored from its backup before it was pushed again
        assert "rollback" in mine and mine.index("rollback") < len(mine) - 1 - mine[::-1].index("push")
    assert journal.run(1)["status"] == "ok"
    gate = [s for s in steps if s["step"] == "gate"]
    assert gate and gate[0]["status"] == "forced" and "test: a variant build" in gate[0]["detail"]
    wait_converged()


def test_batches_canary_then_leaves_then_spines_one_at_a_time() -> None:
    def host(name: str, role: str) -> Any:
        return SimpleNamespace(name=name, data={"role": role})
    hosts = [host(f"l{i}", "leaf") for i in range(6)] + [host("s1", "spine"), host("s2", "spine")]
    got = [[h.name for h in b] for b in batches(hosts, BOOK)]
    assert got == [["l0"], ["l1", "l2", "l3", "l4"], ["l5"], ["s1"], ["s2"]]


class RecordedEosConnection:
    """TEST DOUBLE: replays a recorded EOS CLI session (no EOS runs on this machine). It answers
    each command with the transcript's recorded output and records what the driver sent."""

    TRANSCRIPT = {
        "show session-config diffs": "--- system:/running-config\n+++ session:/dualrail-1-session-config\n"
                                     "@@ -10,7 +10,7 @@\n-   maximum-paths 64 ecmp 64\n+   maximum-paths 32 ecmp 32\n",
        "commit timer 00:05:00": "",
        "commit timer 00:01:30": "",
        "configure session dualrail-1 commit": "",
        "configure session dualrail-1 abort": "",
        "show running-config": "hostname a-spine-1\n",
        "show ip bgp summary vrf all | json": '{"vrfs": {"default": {"peers": {'
                                              '"10.11.0.1": {"peerState": "Established"}, '
                                              '"10.11.0.65": {"peerState": "Active"}}}}}',
    }

    def __init__(self, reject: bool = False) -> None:
        self.sent: list[str] = []
        self.reject = reject

    def send_command(self, command: str, **_: Any) -> str:
        self.sent.append(command)
        if command not in self.TRANSCRIPT and re.fullmatch(r"configure session \S+ (commit|abort)", command):
            return ""  # any session name: the runner names its sessions by time
        return self.TRANSCRIPT[command]

    def send_config_set(self, commands: list[str], **_: Any) -> str:
        self.sent.extend(commands)
        return "% Invalid input at line 3" if self.reject else ""


def _running_config(device: str) -> str:
    rundir = lifecycle.rundir(f"drt-{device}")
    return subprocess.run(["vtysh", "--vty_socket", str(rundir), "-c", "show running-config"],
                          capture_output=True, text=True, timeout=30, check=True).stdout


def test_commit_reverts_on_the_switch_unless_confirmed(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    """Real FRR in the twin: a commit that is not confirmed is put back by the switch itself when
    its timer ends (the runner's session is gone by then); a confirmed one stays."""
    runner, _journal, nr = make_runner(twin, tmp_path, BOOK)
    leaf = "a-leaf-su2-r3"
    drv = runner.driver(leaf)
    running = lifecycle.rundir(f"drt-{leaf}") / "frr.conf"
    original = running.read_text()
    changed = dict(drv.intended(), **{"frr.conf": drv.intended()["frr.conf"].replace("maximum-paths 64",
                                                                                   "maximum-paths 8")})
    try:
        assert "maximum-paths 8" in drv.load(changed)
        drv.commit(revert_after=4)
        assert "maximum-paths 8" in running.read_text()
        assert "maximum-paths 8" in _running_config(leaf)
        deadline = time.monotonic() + 30
        while "maximum-paths 8" in _running_config(leaf) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert "maximum-paths 8" not in _running_config(leaf)  # reverted by the switch: nobody confirmed
        assert running.read_text() == original
        drv.load(changed)
        drv.commit(revert_after=10)  # room for the confirm's round trip on a loaded machine
        drv.confirm()
        time.sleep(12)
        assert "maximum-paths 8" in running.read_text()  # confirmed: the timer is gone
        drv.load(drv.intended())
        drv.commit(revert_after=60)
        drv.discard()  # a failed post-check: revert now, not in a minute
        assert "maximum-paths 8" in running.read_text()
    finally:
        drv.rollback({"frr.conf": original})
        nr.close_connections()
    assert running.read_text() == original
    wait_converged()


def test_eos_driver_command_sequence_against_a_recorded_session(tmp_path: Path) -> None:
    (tmp_path / "running-config").write_text("! comment\nhostname a-spine-1\n!\nrouter bgp 4200001000\n"
                                             "   maximum-paths 32 ecmp 32\n!\nend\n")
    host = SimpleNamespace(name="a-spine-1", data={"device_dir": str(tmp_path)})
    conn = RecordedEosConnection()
    drv = EosDriver(host, conn, session_name="dualrail-1")
    diff = drv.load(drv.intended())
    drv.commit(300)
    drv.confirm()
    assert conn.sent == ["configure session dualrail-1", "rollback clean-config", "hostname a-spine-1",
                         "router bgp 4200001000", "   maximum-paths 32 ecmp 32", "show session-config diffs",
                         "commit timer 00:05:00", "configure session dualrail-1 commit"]
    assert "+   maximum-paths 32" in diff == drv.last_diff
    assert drv.health() == ["a-spine-1: 10.11.0.65 is Active"]
    # a failed post-check: the pending session is aborted (EOS rolls the change back now)
    conn.sent.clear()
    drv.load(drv.intended())
    drv.commit(90)
    drv.discard()
    assert conn.sent[-2:] == ["commit timer 00:01:30", "configure session dualrail-1 abort"]
    assert "configure session dualrail-1 commit" not in conn.sent
    rejecting = RecordedEosConnection(reject=True)
    with pytest.raises(PushRejected):
        EosDriver(host, rejecting, session_name="dualrail-1").load(drv.intended())
    assert rejecting.sent[-1] == "configure session dualrail-1 abort"
    assert not any(c.startswith("commit") for c in rejecting.sent)


class HealthyEosConnection(RecordedEosConnection):
    """TEST DOUBLE: the recorded session, with every BGP peer Established."""

    TRANSCRIPT = {**RecordedEosConnection.TRANSCRIPT, "commit timer 00:10:00": "",
                  "show ip bgp summary vrf all | json": '{"vrfs": {"default": {"peers": {'
                                                        '"10.11.0.1": {"peerState": "Established"}}}}}'}


def _eos_runner(tmp_path: Path, conn: RecordedEosConnection) -> tuple[Runner, Journal]:
    (tmp_path / "running-config").write_text("hostname b-leaf-1\nrouter bgp 4200001000\n   maximum-paths 32 ecmp 32\n")
    host = SimpleNamespace(name="b-leaf-1", data={"device_dir": str(tmp_path), "twin_dir": str(tmp_path),
                                                  "run_platform": "eos", "platform": "eos", "plane": "B",
                                                  "role": "leaf", "paths": {}})
    book = Playbook(name="cfg", planes=["B"], roles=["leaf"], canary=1, post_check_timeout_seconds=1,
                    drain_settle_seconds=0)
    journal = Journal(tmp_path / "j.sqlite")
    runner = Runner({"b-leaf-1": host}, lambda _h: conn, journal, book, tmp_path / "bk")
    return runner, journal


def test_the_runner_confirms_an_eos_change_only_after_its_post_check(tmp_path: Path) -> None:
    conn = HealthyEosConnection()
    runner, journal = _eos_runner(tmp_path, conn)
    report = runner.run(str(tmp_path))
    assert report.status == "ok", report.detail
    commit = conn.sent.index("commit timer 00:10:00")
    confirm = next(i for i, c in enumerate(conn.sent) if re.fullmatch(r"configure session \S+ commit", c))
    health = max(i for i, c in enumerate(conn.sent) if c == "show ip bgp summary vrf all | json" and i < confirm)
    assert commit < health < confirm  # load, commit with a timer, post-check, then confirm
    steps = [s["step"] for s in journal.run(report.run_id)["steps"]]
    assert steps == ["backup", "push", "post-check", "confirm"]


def test_the_runner_lets_a_failed_eos_change_revert(tmp_path: Path) -> None:
    conn = RecordedEosConnection()  # one peer stays Active: the post-check fails
    conn.TRANSCRIPT = {**RecordedEosConnection.TRANSCRIPT, "commit timer 00:10:00": ""}
    runner, journal = _eos_runner(tmp_path, conn)
    report = runner.run(str(tmp_path))
    assert report.status == "failed"
    assert not any(c.startswith("configure session") and c.endswith(" commit") for c in conn.sent)
    assert conn.sent.index("commit timer 00:10:00") < max(i for i, c in enumerate(conn.sent) if c.endswith(" abort"))
    steps = [s["step"] for s in journal.run(report.run_id)["steps"]]
    assert "rollback" in steps and "confirm" not in steps


def test_firmware_run_refuses_a_platform_without_an_image_url(tmp_path: Path) -> None:
    """A real EOS switch needs the playbook's image URL: without one the run is refused before
    anything is sent."""
    (tmp_path / "running-config").write_text("hostname b-spine-1\n")
    host = SimpleNamespace(name="b-spine-1", data={"device_dir": str(tmp_path), "twin_dir": str(tmp_path),
                                                   "run_platform": "eos", "platform": "eos", "plane": "B",
                                                   "role": "spine", "paths": {}})
    conn = RecordedEosConnection()
    book = Playbook(name="fw", kind="firmware", image="9.9.9", planes=["B"], roles=["spine"])
    runner = Runner({"b-spine-1": host}, lambda _h: conn, Journal(tmp_path / "j.sqlite"), book, tmp_path / "bk")
    report = runner.run(str(tmp_path))
    assert report.status == "failed" and "no image_urls for platform(s) eos" in report.detail
    assert conn.sent == []


def test_firmware_upgrade_of_both_planes(twin: Path, tmp_path: Path) -> None:
    """In the twin an image is a version marker and a reboot restarts the routing daemons (the
    sessions really drop); the runner must verify the version and the health after each batch, one
    plane at a time. A run that would leave a plane on the old image is refused before it starts."""
    one_plane = Playbook(name="fw", kind="firmware", image="9.9.9", planes=["A"], roles=["leaf"])
    runner, journal, nr = make_runner(twin, tmp_path / "one", one_plane)
    refused = runner.run(str(twin))
    nr.close_connections()
    assert refused.status == "failed" and "must cover every plane" in refused.detail
    # the twin starts every switch on its planned version; the refused run changed none
    assert (lifecycle.rundir("drt-a-leaf-su1-r0") / "firmware-version").read_text().strip() == "5.9.2"
    book = Playbook(name="fw", kind="firmware", image="9.9.9", planes=["A", "B"], roles=["leaf"], canary=1,
                    batch_size=4, concurrency=4, post_check_timeout_seconds=60)
    runner, journal, nr = make_runner(twin, tmp_path, book)
    report = runner.run(str(twin))
    nr.close_connections()
    assert report.status == "ok", report.detail
    run = journal.run(report.run_id)
    leaves = sorted({s["device"] for s in run["steps"]})
    assert leaves == sorted(f"{p}-leaf-su{su}-r{r}" for p in "ab" for su in (1, 2) for r in range(4))
    for leaf in leaves:
        steps = [s["step"] for s in run["steps"] if s["device"] == leaf]
        assert steps == ["backup", "install", "reboot", "post-check"]
        assert (lifecycle.rundir(f"drt-{leaf}") / "firmware-version").read_text().strip() == "9.9.9"
    order = [s["device"][0] for s in run["steps"] if s["step"] == "reboot"]
    assert order == sorted(order)  # every plane-A leaf before any plane-B leaf
    wait_converged()


# -- the gateways window: one plane's VRF at a time --------------------------------------------------
GATEWAY = "gw-storage-1"


def _vrf_block(config: str, vrf: str) -> str:
    lines = config.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("router bgp") and ln.endswith(f"vrf {vrf}"))
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "exit")
    return "\n".join(lines[start:end + 1])


def _gateway_vrf(vrf: str) -> str:
    """What the twin's namespace of one VRF of the gateway runs (its instance is the default one there)."""
    return _running_config(f"{GATEWAY}.{vrf}")


def _gateway_running() -> dict[str, str]:
    return {vrf: _gateway_vrf(vrf) for vrf in ("plane-a", "plane-b")}


def _gateway_run(new: Path, tmp_path: Path, snapshots: dict[str, str] | None = None) -> tuple[Any, Journal, Runner]:
    nr = init_nornir(new, STATE)
    journal = Journal(tmp_path / "journal.sqlite")
    runner = Runner(dict(nr.inventory.hosts), connector(nr), journal, BOOK, tmp_path / "backups", scope="gateways")
    if snapshots is not None:  # what the gateway runs when each plane's stage is confirmed
        original = runner._confirm

        def confirm(run_id: int, plane: str, batch: int, names: list[str]) -> list[str]:
            snapshots.update({f"{plane}:{vrf}": text for vrf, text in _gateway_running().items()})
            return original(run_id, plane, batch, names)
        runner._confirm = confirm  # type: ignore[method-assign]
    try:
        return runner.run(str(new)), journal, runner
    finally:
        nr.close_connections()


def _restore_gateway(runner: Runner, journal: Journal, report: Any) -> None:
    from dualrail_net.deploy.drivers.base import read_backup
    backup = next(Path(s["backup"]) for s in journal.run(report.run_id)["steps"] if s["step"] == "backup")
    nr = init_nornir(Path(runner.hosts[GATEWAY].data["device_dir"]).parents[1], STATE)
    try:
        Runner(dict(nr.inventory.hosts), connector(nr), journal, BOOK, Path(report.run_id and "."),
               scope="gateways").driver(GATEWAY).rollback(read_backup(backup))
    finally:
        nr.close_connections()
    wait_converged()


def test_gateway_window_changes_one_planes_vrf_at_a_time(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    new = render_variant(example_fabric, tmp_path / "new", 16)
    view = TwinView(lifecycle.load_state() or {})
    stop = lifecycle.STATE_DIR / "deploy-stop"
    stop.unlink(missing_ok=True)
    bg = Background(probe_jobs(view), duration=300, interval=0.05, stop_file=str(stop))
    time.sleep(1)
    snapshots: dict[str, str] = {}
    report, journal, runner = _gateway_run(new, tmp_path, snapshots)
    stop.write_text("stop")
    results = bg.collect()
    try:
        assert report.status == "ok", report.detail
        steps = journal.run(report.run_id)["steps"]
        assert {s["device"] for s in steps if s["step"] == "push"} == {GATEWAY}  # plane devices untouched
        order = [(s["plane"], s["step"]) for s in steps if s["device"] == GATEWAY and s["plane"] in ("A", "B")]
        assert order.index(("A", "confirm")) < order.index(("B", "drain"))  # never both planes at once
        drains = [s["backup"] for s in steps if s["step"] == "drain"]
        assert drains == ["plane-a", "plane-b"]
        # when plane A's stage was confirmed, only VRF plane-a had the change
        assert "maximum-paths 16" in snapshots["A:plane-a"] and "maximum-paths 16" not in snapshots["A:plane-b"]
        final = _gateway_running()
        assert "maximum-paths 16" in final["plane-a"] and "maximum-paths 16" in final["plane-b"]
        assert not any("prepend" in text for text in final.values())  # each stage's push took its drain away
        assert journal.in_maintenance() == {}
        lost = {"A": 0, "B": 0}
        for rows in results.values():
            for r in rows:
                lost[view.plane_of(r["dst"]) or "?"] += len(r["lost_at"])
        assert lost == {"A": 0, "B": 0}, f"probe loss during the gateway window: {lost}"
    finally:
        _restore_gateway(runner, journal, report)


def test_gateway_window_refuses_a_change_both_planes_share(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    new = render_variant(example_fabric, tmp_path / "new", 16)
    frr = new / "multi-plane" / GATEWAY / "frr.conf"
    frr.write_text(frr.read_text().replace("log syslog informational", "log syslog warnings"))
    before = _gateway_running()
    report, journal, _runner = _gateway_run(new, tmp_path)
    assert report.status == "failed" and "share" in report.detail and "log" in report.detail
    steps = journal.run(report.run_id)["steps"]
    assert not [s for s in steps if s["step"] in ("drain", "push")]
    assert _gateway_running() == before and journal.in_maintenance() == {}


def test_gateway_window_undoes_only_the_failed_planes_stage(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    new = render_variant(example_fabric, tmp_path / "new", 16)
    frr = new / "multi-plane" / GATEWAY / "frr.conf"
    text = frr.read_text()
    block = _vrf_block(text, "plane-b")
    frr.write_text(text.replace(block, block.replace(" bgp router-id", " neighbor 10.23.0.0 no-such-keyword\n bgp router-id")))
    report, journal, runner = _gateway_run(new, tmp_path)
    try:
        assert report.status == "failed" and "plane B" in report.detail
        steps = journal.run(report.run_id)["steps"]
        assert [(s["plane"], s["status"]) for s in steps if s["step"] == "rollback"] == [("B", "ok")]
        now = _gateway_running()
        assert "maximum-paths 16" in now["plane-a"]  # plane A's stage stays: it passed
        assert "maximum-paths 16" not in now["plane-b"] and "prepend" not in now["plane-b"]  # B as before, undrained
        assert journal.in_maintenance() == {}  # healthy after the undo: released
    finally:
        _restore_gateway(runner, journal, report)


# -- servers: in batches, one plane's NIC ports at a time, gated on every port ------------------------
def _server_mtus(server: str) -> dict[str, int]:
    import json
    out = subprocess.run(["ip", "netns", "exec", f"drt-{server}", "ip", "-j", "link", "show"],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    return {link["ifname"]: int(link["mtu"]) for link in json.loads(out)}


SERVER_BOOK = Playbook(name="test-servers", planes=["A", "B"], canary=1, batch_size=16, concurrency=8,
                       drain_settle_seconds=0, post_check_timeout_seconds=15)


def _server_run(new: Path, tmp_path: Path, hook: Any = None) -> tuple[Any, Journal]:
    nr = init_nornir(new, STATE)
    journal = Journal(tmp_path / "journal.sqlite")
    runner = Runner(dict(nr.inventory.hosts), connector(nr), journal, SERVER_BOOK, tmp_path / "backups", scope="servers")
    if hook is not None:
        original = runner._confirm

        def confirm(run_id: int, plane: str, batch: int, names: list[str]) -> list[str]:
            hook(plane, batch)
            return original(run_id, plane, batch, names)
        runner._confirm = confirm  # type: ignore[method-assign]
    try:
        return runner.run(str(new)), journal
    finally:
        nr.close_connections()


def _restore_servers(tmp_path: Path, journal: Journal, report: Any) -> None:
    from dualrail_net.deploy.drivers.base import read_backup
    nr = init_nornir(twin_output(), STATE)
    runner = Runner(dict(nr.inventory.hosts), connector(nr), journal, SERVER_BOOK, tmp_path / "backups", scope="servers")
    try:
        for step in journal.run(report.run_id)["steps"]:
            if step["step"] == "backup":
                runner.driver(step["device"]).rollback(read_backup(Path(step["backup"])))
    finally:
        nr.close_connections()


def _with_server_mtu(folder: Path, mtu: int) -> None:
    """A new MTU on every NIC port of a rendered server, as a render would write it: in the
    interfaces file and in the NIC QoS program's plan (which sets it too: the NIC double obeys it)."""
    for name, old, new in (("interfaces", "mtu 9214", f"mtu {mtu}"), ("nic-qos.sh", "mtu=9214", f"mtu={mtu}")):
        path = folder / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))


def twin_output() -> Path:
    return Path((lifecycle.load_state() or {})["output"])


def test_servers_change_one_planes_ports_at_a_time(twin: Path, tmp_path: Path, example_fabric: Fabric) -> None:
    new = render_variant(example_fabric, tmp_path / "new", 64)
    # the canary, and servers of both models in the next batches (the others already run their files:
    # their batches are planned and skipped, as `touch only what changes` wants)
    servers = ["gpu001", "gpu002", "gpu017", "gpu018"]
    for name in servers:
        _with_server_mtu(new / "servers" / name, 9000)
        env = new / "servers" / name / "nccl.env"
        env.write_text(env.read_text() + "NCCL_DEBUG=WARN\n")
    # what must change: the four edited servers, and any whose running files differ from this build
    # (an earlier test's change): every port of each, so a push per plane
    changed = sorted(p.name for p in (new / "servers").iterdir()
                     if (lifecycle.rundir(f"drt-{p.name}") / "interfaces").read_text() != (p / "interfaces").read_text())
    assert set(servers) <= set(changed)
    a_port, b_port = "ens1f0np0", "ens1f1np1"  # gpu001's first NIC: port 1 in plane A, port 2 in plane B
    seen: dict[tuple[str, int], dict[str, int]] = {}
    view = TwinView(lifecycle.load_state() or {})
    stop = lifecycle.STATE_DIR / "deploy-stop"
    stop.unlink(missing_ok=True)
    bg = Background(probe_jobs(view), duration=300, interval=0.05, stop_file=str(stop))
    time.sleep(1)
    report, journal = _server_run(new, tmp_path, hook=lambda plane, batch: seen.__setitem__((plane, batch),
                                                                                           _server_mtus("gpu001")))
    stop.write_text("stop")
    results = bg.collect()
    try:
        assert report.status == "ok", report.detail
        steps = journal.run(report.run_id)["steps"]
        pushes = [(s["device"], s["plane"]) for s in steps if s["step"] == "push" and s["status"] == "ok"]
        assert sorted(pushes) == sorted((n, p) for n in changed for p in ("A", "B"))
        # the canary alone first; when its plane-A stage was confirmed, only its plane-A ports had changed
        assert seen[("A", 0)][a_port] == 9000 and seen[("A", 0)][b_port] == 9214
        assert seen[("B", 0)][b_port] == 9000
        assert all(mtu == 9000 for name, mtu in _server_mtus("gpu001").items() if name.startswith("ens"))
        # nccl.env went with the first stage
        assert "NCCL_DEBUG=WARN" in (lifecycle.rundir("drt-gpu001") / "nccl.env").read_text()
        assert journal.in_maintenance() == {}
        lost = {"A": 0, "B": 0}
        for rows in results.values():
            for r in rows:
                lost[view.plane_of(r["dst"]) or "?"] += len(r["lost_at"])
        assert lost == {"A": 0, "B": 0}, f"probe loss while the servers changed: {lost}"
    finally:
        _restore_servers(tmp_path, journal, report)


def test_a_server_port_that_loses_its_leaf_is_undone_in_its_plane_only(twin: Path, tmp_path: Path,
                                                                       example_fabric: Fabric) -> None:
    new = render_variant(example_fabric, tmp_path / "new", 64)
    _with_server_mtu(new / "servers" / "gpu001", 9000)
    f = new / "servers" / "gpu001" / "interfaces"
    f.write_text(f.read_text().replace("default via 10.22.0.0 dev ens1f1np1 table", "default via 10.22.0.9 dev ens1f1np1 table"))
    report, journal = _server_run(new, tmp_path)
    try:
        assert report.status == "failed" and "plane B" in report.detail and "gpu001" in report.detail
        steps = journal.run(report.run_id)["steps"]
        assert [(s["device"], s["plane"]) for s in steps if s["step"] == "rollback"] == [("gpu001", "B")]
        mtus = _server_mtus("gpu001")
        assert mtus["ens1f0np0"] == 9000  # plane A's stage passed its gate and stays
        running = (lifecycle.rundir("drt-gpu001") / "interfaces").read_text()
        assert "via 10.22.0.9" not in running  # plane B's file is back
        assert not [s for s in steps if s["device"] != "gpu001" and s["step"] == "push"]  # the canary stopped it
    finally:
        _restore_servers(tmp_path, journal, report)
