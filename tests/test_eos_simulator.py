"""The EOS deploy path against EosSessionSimulator, a stateful TEST DOUBLE of an EOS switch's
configuration sessions (no EOS runs here): commit timers that really expire and roll back, confirm,
abort, session diffs, and the JSON BGP summary the driver reads. The whole runner rolls both
planes' EOS spines through it, and a change survives past its timer only when its post-checks
passed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dualrail_net.deploy.drivers.base import PushRejected, split_status
from dualrail_net.deploy.journal import Journal
from dualrail_net.deploy.playbook import Playbook
from dualrail_net.deploy.runner import Runner
from dualrail_net.manifest import Manifest
from dualrail_net.platforms.eos.driver import EosDriver
from dualrail_net.platforms.eos.parse_config import parse_eos
from dualrail_net.platforms.eos.simulator import EosSessionSimulator
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.model import DeviceConfig


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


OLD = ["hostname s1", "router bgp 65000", "   neighbor 10.0.0.1 remote-as 65001", "   maximum-paths 4"]


def test_a_commit_reverts_when_its_timer_runs_out_and_stays_when_confirmed() -> None:
    clock = Clock()
    sw = EosSessionSimulator("s1", list(OLD), peers={"10.0.0.1": 65001}, clock=clock)
    new = ["hostname s1", "router bgp 65000", "   neighbor 10.0.0.1 remote-as 65001", "   maximum-paths 8"]
    sw.send_config_set(["configure session t1", "rollback clean-config", *new])
    assert "+   maximum-paths 8" in sw.send_command("show session-config diffs")
    sw.send_command("commit timer 00:05:00")
    assert "maximum-paths 8" in sw.send_command("show running-config")
    clock.now += 301
    assert "maximum-paths 4" in sw.send_command("show running-config") and sw.reverted == 1
    assert sw.send_command("configure session t1 commit").startswith("%")  # too late to confirm
    sw.send_config_set(["configure session t2", "rollback clean-config", *new])
    sw.send_command("commit timer 00:05:00")
    clock.now += 200
    assert sw.send_command("configure session t2 commit") == ""
    clock.now += 1000
    assert "maximum-paths 8" in sw.send_command("show running-config") and sw.reverted == 1


def test_abort_rolls_back_at_once_and_invalid_input_is_refused() -> None:
    clock = Clock()
    sw = EosSessionSimulator("s1", list(OLD), clock=clock)
    sw.send_config_set(["configure session t1", "rollback clean-config", "hostname s1", "router bgp 65000"])
    sw.send_command("commit timer 00:10:00")
    assert "neighbor" not in sw.send_command("show running-config")
    sw.send_command("configure session t1 abort")
    assert sw.send_command("show running-config").splitlines() == OLD
    assert "% Invalid input" in sw.send_config_set(["configure session t3", "hostnme s1"])


def test_the_driver_reads_the_json_bgp_summary() -> None:
    sw = EosSessionSimulator("s1", list(OLD), peers={"10.0.0.1": 65002})
    drv = EosDriver(SimpleNamespace(name="s1", data={}), sw, session_name="x")
    assert drv.health() == ["s1: 10.0.0.1 is Active"]  # the router at 10.0.0.1 is AS 65002
    sw.peers["10.0.0.1"] = 65001
    assert drv.health() == []
    assert json.loads(sw.send_command("show ip bgp summary vrf all | json"))["vrfs"]["default"]["asn"] == "65000"


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("eos-sim") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


@pytest.fixture()
def secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "outside-the-repo" / "secrets.yaml"
    path.parent.mkdir()
    path.write_text("secrets:\n  netops-password: $6$x$y\n  tacacs-key: k\n")
    monkeypatch.setenv("DUALRAIL_SECRETS", str(path))


def _spines(build: Path, clock: Clock, folder: Path) -> tuple[dict[str, Any], dict[str, EosSessionSimulator]]:
    """Every EOS spine of both planes as a runner host, each with a simulated switch running an
    older config (maximum-paths 32) whose peers are the routers the cabling really puts there."""
    manifest = Manifest.load(build)
    hosts: dict[str, Any] = {}
    switches: dict[str, EosSessionSimulator] = {}
    for name, meta in manifest.devices.items():
        if meta.platform != "eos":
            continue
        text = (build / meta.dir / "running-config").read_text()
        dev = DeviceConfig(name, "eos")
        parse_eos(text, dev)
        peers = {addr: n.remote_asn for inst in dev.bgp.values() for addr, n in inst.neighbors.items()
                 if n.remote_asn is not None}
        old_text = text.replace("maximum-paths 64 ecmp 64", "maximum-paths 32 ecmp 32")
        old_text = old_text.replace("${secret:netops-password}", "$6$old$hash").replace("${secret:tacacs-key}", "old")
        old = [line for line in old_text.splitlines() if line.strip() and not line.startswith("!")]
        switches[name] = EosSessionSimulator(name, old, peers=peers, clock=clock)
        device_dir = folder / name
        device_dir.mkdir(parents=True)
        (device_dir / "running-config").write_text(text)
        hosts[name] = SimpleNamespace(name=name, data={"device_dir": str(device_dir), "twin_dir": str(device_dir),
                                                       "run_platform": "eos", "platform": "eos", "plane": meta.plane,
                                                       "role": meta.role, "paths": {}})
    return hosts, switches


BOOK = Playbook(name="spines", planes=["A", "B"], roles=["spine"], canary=0, post_check_timeout_seconds=0.2,
                drain_settle_seconds=0, confirm_timeout_seconds=600)


def test_the_runner_rolls_both_planes_of_eos_spines(build: Path, tmp_path: Path, secrets: None) -> None:
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    assert len(switches) == 8
    journal = Journal(tmp_path / "j.sqlite")
    runner = Runner(hosts, lambda h: switches[h.name], journal, BOOK, tmp_path / "bk")
    report = runner.run(str(build))
    assert report.status == "ok", report.detail
    clock.now += 3600  # far past every commit timer
    for name, sw in switches.items():
        running = sw.send_command("show running-config")
        assert "maximum-paths 64 ecmp 64" in running and sw.reverted == 0, name
        assert "secret sha512 $6$x$y" in running and "${secret:" not in running  # put in at push time
    steps = journal.run(report.run_id)["steps"]
    planes_in_order = [s["plane"] for s in steps if s["step"] == "confirm"]
    assert planes_in_order == ["A"] * 4 + ["B"] * 4  # one plane at a time


def test_a_change_that_fails_its_post_check_does_not_survive(build: Path, tmp_path: Path, secrets: None) -> None:
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    broken = Path(hosts["a-spine-2"].data["device_dir"]) / "running-config"
    # a typo in one neighbor's ASN: EOS accepts it, the session does not come up
    broken.write_text(broken.read_text().replace("remote-as 4200001101", "remote-as 4200001199", 1))
    journal = Journal(tmp_path / "j.sqlite")
    runner = Runner(hosts, lambda h: switches[h.name], journal, BOOK, tmp_path / "bk")
    report = runner.run(str(build))
    assert report.status == "failed" and "a-spine-2" in report.detail
    clock.now += 3600
    sw = switches["a-spine-2"]
    running = sw.send_command("show running-config")
    assert "remote-as 4200001199" not in running and "maximum-paths 32 ecmp 32" in running
    assert not any(c.endswith(" commit") and c.startswith("configure session") for c in sw.sent)
    # the run stopped: plane B was never touched
    assert all(not s.sent or all(c.startswith("show") for c in s.sent) for n, s in switches.items() if n.startswith("b-"))
    steps = [s["step"] for s in journal.run(report.run_id)["steps"] if s["device"] == "a-spine-2"]
    assert "confirm" not in steps and "rollback" in steps


def test_a_missing_secret_stops_the_push(build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DUALRAIL_SECRETS", raising=False)
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    journal = Journal(tmp_path / "j.sqlite")
    runner = Runner(hosts, lambda h: switches[h.name], journal, BOOK, tmp_path / "bk")
    report = runner.run(str(build))
    assert report.status == "failed" and "netops-password" in report.detail and "$6$" not in report.detail
    for sw in switches.values():  # nothing new reached any switch (at most its own backup went back)
        running = sw.send_command("show running-config")
        assert "${secret:" not in running and "maximum-paths 32 ecmp 32" in running


def test_a_run_reports_every_step_as_events_with_progress(build: Path, tmp_path: Path, secrets: None) -> None:
    import io

    from dualrail_net.deploy.events import DeployEvent, EventingJournal, json_lines
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    seen: list[DeployEvent] = []
    stream = io.StringIO()
    journal = EventingJournal(Journal(tmp_path / "j.sqlite"), [seen.append, json_lines(stream)], total=len(hosts))
    runner = Runner(hosts, lambda h: switches[h.name], journal, BOOK, tmp_path / "bk")  # type: ignore[arg-type]
    report = runner.run(str(build))
    assert report.status == "ok"
    kinds = [e.event for e in seen]
    assert kinds[0] == "run-start" and kinds[-1] == "run-end"
    assert [e.plane for e in seen if e.event == "plane-start"] == ["A", "B"]
    assert [e.plane for e in seen if e.event == "plane-done"] == ["A", "B"]
    confirms = [e for e in seen if e.event == "step-done" and e.step == "confirm"]
    assert [e.done for e in confirms] == list(range(1, 9)) and all(e.total == 8 for e in confirms)
    assert confirms[-1].eta_seconds == 0.0 and all(e.eta_seconds is not None for e in confirms)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert len(lines) == len(seen) and lines[-1]["event"] == "run-end" and lines[-1]["status"] == "ok"
    # the events are what the journal recorded, in its order
    recorded = [(s["device"], s["step"]) for s in journal.run(report.run_id)["steps"]]
    assert [(e.device, e.step) for e in seen if e.event == "step"] == recorded


def test_eos_firmware_rolls_through_both_planes(build: Path, tmp_path: Path, secrets: None) -> None:
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    book = Playbook(name="fw", kind="firmware", image="4.33.1F", planes=["A", "B"], roles=["spine"], canary=0,
                    post_check_timeout_seconds=0.2, drain_settle_seconds=0,
                    image_urls={"eos": "http://images.example/EOS-{version}.swi"})
    journal = Journal(tmp_path / "j.sqlite")
    # a reload ends the session: the runner's post-check must open a new one
    report = Runner(hosts, lambda h: switches[h.name].connect(), journal, book, tmp_path / "bk").run(str(build))
    assert report.status == "ok", report.detail
    assert {sw.version for sw in switches.values()} == {"4.33.1F"} and all(sw.reloads == 1 for sw in switches.values())
    sent = switches["a-spine-1"].sent
    assert sent.index("install source http://images.example/EOS-4.33.1F.swi") < sent.index("reload now")
    steps = [s["step"] for s in journal.run(report.run_id)["steps"] if s["device"] == "b-spine-4"]
    assert steps == ["backup", "drain", "install", "reboot", "post-check"]


class _Connections:
    """The runner's connect for simulated switches, counting every session opened and refused."""

    def __init__(self, switches: dict[str, EosSessionSimulator]) -> None:
        self.switches, self.opened, self.refused = switches, 0, 0

    def __call__(self, host: Any) -> EosSessionSimulator:
        try:
            sw = self.switches[host.name].connect()
        except ConnectionRefusedError:
            self.refused += 1
            raise
        self.opened += 1
        return sw


class _TickingClock(Clock):
    """The switches' clock moves on a step each time a switch reads it (each command, each connect):
    how long a boot lasts is counted in what is asked of the switch, not in seconds of this
    machine (a loaded one would otherwise let a boot pass before anyone asked)."""

    def __call__(self) -> float:
        self.now += 0.05
        return self.now


def _firmware_run(build: Path, tmp_path: Path, boot_seconds: float,
                  timeout: float) -> tuple[Any, dict[str, EosSessionSimulator], _Connections, Journal]:
    hosts, switches = _spines(build, _TickingClock(), tmp_path / "devices")
    for sw in switches.values():
        sw.boot_seconds = boot_seconds
    book = Playbook(name="fw", kind="firmware", image="4.33.1F", planes=["A", "B"], roles=["spine"], canary=0,
                    post_check_timeout_seconds=timeout, drain_settle_seconds=0,
                    image_urls={"eos": "http://images.example/EOS-{version}.swi"})
    connections, journal = _Connections(switches), Journal(tmp_path / "j.sqlite")
    runner = Runner(hosts, connections, journal, book, tmp_path / "bk")
    runner.reconnect_interval = 0.05
    return runner.run(str(build)), switches, connections, journal


def test_a_rebooting_switch_is_waited_for_and_reached_again(build: Path, tmp_path: Path, secrets: None) -> None:
    """A reload ends the session and the switch refuses new ones while it boots: the post-check
    keeps connecting until the switch answers (within its timeout), then checks it."""
    report, switches, connections, journal = _firmware_run(build, tmp_path, boot_seconds=0.3, timeout=10)
    assert report.status == "ok", report.detail
    assert all(sw.reloads == 1 and sw.version == "4.33.1F" for sw in switches.values())
    assert connections.refused >= len(switches)  # every switch was asked while it booted
    assert connections.opened == 2 * len(switches)  # the first session, and one after its reload


def test_a_switch_that_stays_down_fails_its_post_check(build: Path, tmp_path: Path, secrets: None) -> None:
    report, switches, connections, journal = _firmware_run(build, tmp_path, boot_seconds=60, timeout=0.5)
    assert report.status == "failed"
    assert "unreachable (ConnectionRefusedError" in report.detail and "booting" in report.detail
    assert sum(sw.reloads for sw in switches.values()) == 1  # the first spine; nothing after it started
    checks = [s for s in journal.run(report.run_id)["steps"] if s["step"] == "post-check"]
    assert checks[0]["status"] == "failed"


def test_a_dead_session_is_never_handed_back(build: Path, tmp_path: Path, secrets: None) -> None:
    """A connect that returns the session the reload ended (what nornir does until the session is
    closed) never reaches the switch again: the run fails on the closed socket."""
    hosts, switches = _spines(build, time.monotonic, tmp_path / "devices")  # type: ignore[arg-type]
    book = Playbook(name="fw", kind="firmware", image="4.33.1F", planes=["A", "B"], roles=["spine"], canary=0,
                    post_check_timeout_seconds=0.3, drain_settle_seconds=0,
                    image_urls={"eos": "http://images.example/EOS-{version}.swi"})
    runner = Runner(hosts, lambda h: switches[h.name], Journal(tmp_path / "j.sqlite"), book, tmp_path / "bk")
    runner.reconnect_interval = 0.05
    report = runner.run(str(build))
    assert report.status == "failed" and "unreachable (OSError: Socket is closed)" in report.detail


def test_eos_firmware_with_a_bad_image_stops(build: Path, tmp_path: Path, secrets: None) -> None:
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    book = Playbook(name="fw", kind="firmware", image="4.33.1F", planes=["A", "B"], roles=["spine"], canary=0,
                    post_check_timeout_seconds=0.2, drain_settle_seconds=0,
                    image_urls={"eos": "http://images.example/not-an-image-{version}.bin"})
    report = Runner(hosts, lambda h: switches[h.name], Journal(tmp_path / "j.sqlite"), book, tmp_path / "bk").run(
        str(build))
    assert report.status == "failed" and "install source failed" in report.detail
    assert all(sw.reloads == 0 and sw.version == "4.32.2F" for sw in switches.values())


class CumulusShellDouble:
    """TEST DOUBLE: a Cumulus switch's shell as netmiko's linux driver sees it, answering the
    recorded dialogue of an optimized image upgrade (each command followed by run_shell's status marker)."""

    def __init__(self, fail_install: bool = False) -> None:
        self.sent: list[str] = []
        self.release = "5.9.1"
        self.fail_install = fail_install

    def send_command(self, command: str, **_: Any) -> str:
        body, marker = split_status(command)
        self.sent.append(body)
        return self._answer(body).replace("__RC=", marker or "__RC=")

    def _answer(self, body: str) -> str:
        if body == "cat /etc/lsb-release":
            return f'DISTRIB_ID="Cumulus Linux"\nDISTRIB_RELEASE={self.release}\n__RC=0'
        if body.startswith("nv action fetch system image "):
            return "Fetching system image...\nAction succeeded\n__RC=0"
        if body.startswith("nv action install system image files "):
            if self.fail_install:
                return "Error: image verification failed\n__RC=1"
            return "Installing system image...\nAction succeeded\n__RC=0"
        if body.startswith("nv action reboot system"):
            self.release = "5.10.0"
            return "__RC=0"
        return f"unknown command\n__RC=127"


def test_cumulus_image_install_dialogue() -> None:
    from dualrail_net.platforms.cumulus.driver import CumulusDriver
    host = SimpleNamespace(name="a-leaf-1", data={"platform": "cumulus", "paths": {"frr_dir": "/etc/frr"},
                                                  "image_urls": {"cumulus": "http://images.example/cumulus-linux-"
                                                                            "{version}-mlx-amd64.bin"}})
    shell = CumulusShellDouble()
    drv = CumulusDriver(host, shell)
    assert drv.running_version() == "5.9.1"
    drv.install_image("5.10.0")
    drv.reboot()
    assert drv.running_version() == "5.10.0"
    assert shell.sent[1:3] == ["nv action fetch system image http://images.example/cumulus-linux-5.10.0-mlx-amd64.bin",
                               "nv action install system image files cumulus-linux-5.10.0-mlx-amd64.bin force"]
    failing = CumulusDriver(host, CumulusShellDouble(fail_install=True))
    with pytest.raises(PushRejected, match="image install failed"):
        failing.install_image("5.10.0")
    with pytest.raises(PushRejected, match="not an image version"):
        drv.install_image("5.10; reboot")


class _CountingSwitch(EosSessionSimulator):
    """The simulator, but its BGP summary takes a moment and the peak of summaries asked at once is kept
    (shared by every switch of the fabric): what the runner's gates do at a time."""

    def __init__(self, inner: EosSessionSimulator, peak: dict[str, int], lock: Any) -> None:
        self.__dict__.update(inner.__dict__)
        self._peak, self._lock = peak, lock

    def send_command(self, command: str, **kw: Any) -> str:
        if not command.startswith("show ip bgp summary"):
            return super().send_command(command, **kw)
        import time
        with self._lock:
            self._peak["now"] += 1
            self._peak["max"] = max(self._peak["max"], self._peak["now"])
        time.sleep(0.1)
        try:
            return super().send_command(command, **kw)
        finally:
            with self._lock:
                self._peak["now"] -= 1


@pytest.mark.parametrize("health_concurrency", [1, 3, 16])
def test_health_gates_ask_the_playbooks_number_of_devices_at_once(build: Path, tmp_path: Path, secrets: None,
                                                                   health_concurrency: int) -> None:
    """Gates are read-only and ask every device of a plane after every batch: they run
    `health_concurrency` sessions at once, apart from the batch's `concurrency` (here 1)."""
    import threading
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    peak, lock = {"now": 0, "max": 0}, threading.Lock()
    counting = {name: _CountingSwitch(sw, peak, lock) for name, sw in switches.items()}
    book = BOOK.model_copy(update={"planes": ["A"], "concurrency": 1, "health_concurrency": health_concurrency})
    runner = Runner(hosts, lambda h: counting[h.name], Journal(tmp_path / "j.sqlite"), book, tmp_path / "bk")
    report = runner.run(str(build))
    assert report.status == "ok", report.detail
    # never more than the playbook allows (4 spines per plane), and more than the batch's 1 when allowed
    # (exactly that many would depend on how fast threads start on a loaded machine)
    assert peak["max"] <= min(health_concurrency, 4)
    assert (peak["max"] > 1) == (health_concurrency > 1)


def test_a_playbook_refuses_a_gate_concurrency_out_of_range() -> None:
    for bad in (0, 257):
        with pytest.raises(ValueError, match="health_concurrency"):
            Playbook(name="x", planes=["A"], health_concurrency=bad)


def test_backups_never_go_through_a_symbolic_link(build: Path, tmp_path: Path, secrets: None) -> None:
    """A link planted in the backups folder (where the run's folder will be) would put every
    device's running config, secrets included, wherever it points: the backup is refused, the
    run stops before any device changes and nothing is written through the link."""
    clock = Clock()
    hosts, switches = _spines(build, clock, tmp_path / "devices")
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "bk").mkdir()
    (tmp_path / "bk" / "run-1").symlink_to(outside)
    before = {name: sw.send_command("show running-config") for name, sw in switches.items()}
    report = Runner(hosts, lambda h: switches[h.name], Journal(tmp_path / "j.sqlite"), BOOK, tmp_path / "bk").run(
        str(build))
    assert report.run_id == 1 and report.status == "failed" and "symbolic link" in report.detail
    assert list(outside.iterdir()) == []
    assert {name: sw.send_command("show running-config") for name, sw in switches.items()} == before


def test_a_backup_holding_a_link_is_never_restored(tmp_path: Path) -> None:
    from dualrail_net.deploy.drivers.base import BackupRefused, keep_in_backup, read_backup, write_backup
    root = tmp_path / "bk"
    folder = write_backup(root / "run-1" / "a-spine-1", {"running-config": "hostname a-spine-1\n"}, root)
    assert read_backup(folder, root) == {"running-config": "hostname a-spine-1\n"}
    with pytest.raises(FileExistsError):  # never overwritten
        write_backup(folder, {"running-config": "x"}, root)
    keep_in_backup(folder, "firmware-version", "4.32.2F\n", root)
    keep_in_backup(folder, "firmware-version", "4.33.1F\n", root)  # a resumed run keeps the first
    assert read_backup(folder, root)["firmware-version"] == "4.32.2F\n"
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$...\n")
    (folder / "startup-config").symlink_to(secret)
    with pytest.raises(BackupRefused, match="symbolic link"):
        read_backup(folder, root)
    (root / "run-2").symlink_to(root / "run-1")
    with pytest.raises(BackupRefused, match="symbolic link"):
        read_backup(root / "run-2" / "a-spine-1", root)


def test_an_unreachable_device_is_named_with_what_failed_and_no_secret(build: Path, tmp_path: Path,
                                                                       secrets: None) -> None:
    hosts, _switches = _spines(build, Clock(), tmp_path / "devices")

    def refuse(host: Any) -> Any:
        raise OSError(f"{host.name}: login as netops with $6$x$y refused")

    runner = Runner(hosts, refuse, Journal(tmp_path / "j.sqlite"), BOOK, tmp_path / "bk")
    assert runner.device_health("a-spine-1") == [
        "a-spine-1: unreachable (OSError: a-spine-1: login as netops with ${secret:netops-password} refused)"]
