"""Issue 20: the NIC QoS program every server runs at boot (servers/<name>/nic-qos.sh), against the
NIC double (twin/nic_double.py: a fake sysfs and a stand-in mlnx_qos): it sets what differs, only that, says what it did, and a dry run
changes nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.twin import nic_double

@pytest.fixture
def host(tmp_path: Path, example_fabric: Fabric) -> tuple[Path, dict[str, str], list[str]]:
    """The example's gpu001 program and a factory-fresh NIC double of its ports (a /sys tree, a
    stand-in mlnx_qos on PATH, MTU files with a stand-in ip: dualrail_net/twin/nic_double.py)."""
    script = tmp_path / "nic-qos.sh"
    script.write_text(render_fabric(example_fabric).by_path()["servers/gpu001/nic-qos.sh"])
    server = next(s for s in example_fabric.servers if s.name == "gpu001")
    ports = [(port.ifname, port.rdma_device) for port in server.ports]
    assert nic_double.planned_ports(script.read_text()) == ports  # the double reads the plan's ports
    double = nic_double.build(tmp_path / "double", ports, live_mtu=False)
    return script, {**os.environ, **double.env()}, [p.ifname for p in server.ports]


def _run(script: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", str(script), *args], env=env, capture_output=True, text=True, timeout=60)


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_dry_run_says_everything_and_changes_nothing(host: tuple[Path, dict[str, str], list[str]]) -> None:
    script, env, ports = host
    root = Path(env["DUALRAIL_NIC_QOS_ROOT"])
    before = _snapshot(root)
    dry = _run(script, env, "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert _snapshot(root) == before and (Path(env["DUALRAIL_NIC_DOUBLE_STATE"]) / "calls").read_text() == ""
    for port in ports:
        assert f"would set {port} mtu: 1500 -> 9214" in dry.stdout
        assert f"would set {port} trust: pcp -> dscp" in dry.stdout
        assert f"would set {port} pfc: 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0" in dry.stdout
        assert f"{root}/sys/class/net/{port}/ecn/roce_np/enable/3: 0 -> 1" in dry.stdout
        assert f"{root}/sys/class/net/{port}/ecn/roce_np/cnp_dscp: 0 -> 48" in dry.stdout


def test_apply_sets_what_differs_then_nothing(host: tuple[Path, dict[str, str], list[str]]) -> None:
    script, env, ports = host
    root = Path(env["DUALRAIL_NIC_QOS_ROOT"])
    first = _run(script, env)
    assert first.returncode == 0, first.stdout + first.stderr
    port = ports[0]
    net = root / "sys/class/net" / port
    assert (net / "mtu").read_text().strip() == "9214"
    assert (net / "ecn/roce_np/enable/3").read_text().strip() == "1"
    assert (net / "ecn/roce_rp/enable/3").read_text().strip() == "1"
    assert (net / "ecn/roce_np/enable/0").read_text().strip() == "0"  # ECN reaction on the RoCE priority only
    assert (net / "ecn/roce_np/cnp_dscp").read_text().strip() == "48"
    assert (net / "ecn/roce_np/cnp_802p_prio").read_text().strip() == "6"
    assert (root / "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos").read_text().strip() == "104"
    state = Path(env["DUALRAIL_NIC_DOUBLE_STATE"])
    assert (state / f"{port}.trust").read_text().strip() == "dscp"
    assert (state / f"{port}.pfc").read_text().strip() == "0 0 0 1 0 0 0 0"
    calls = (state / "calls").read_text().splitlines()
    assert len(calls) == 2 * len(ports)  # trust and PFC once per port
    again = _run(script, env)
    assert again.returncode == 0 and again.stdout.strip() == "nic-qos: every setting already in place"
    assert len((state / "calls").read_text().splitlines()) == len(calls)


def test_a_host_that_cannot_take_a_setting_fails_loudly(host: tuple[Path, dict[str, str], list[str]]) -> None:
    """No mlnx_qos (another NIC family, or mlnx-tools missing): applying exits 1 naming it."""
    script, env, _ports = host
    env = {**env, "PATH": "/usr/bin:/bin"}
    out = _run(script, env)
    assert out.returncode == 1 and "mlnx_qos not installed" in out.stdout
    dry = _run(script, env, "--dry-run")  # a dry run reports it and changes nothing: not a failure
    assert dry.returncode == 0 and "not possible here: mlnx_qos not installed" in dry.stdout
    assert _run(script, env, "--bogus").returncode == 2


def test_a_setting_the_program_does_not_take_fails_the_run_and_verify_knows_its_keys(
        host: tuple[Path, dict[str, str], list[str]]) -> None:
    """The keys verify takes for settings (hosts.NIC_QOS_SETTINGS) are the `port` function's own
    case arms; a plan line with another key is applied otherwise and the run exits 1 (what verify's
    HOST-NIC-QOS says of it)."""
    import re
    from dualrail_net.verify.checks.hosts import NIC_QOS_SETTINGS
    script, env, _ports = host
    text = script.read_text()
    body = text[text.index("port() {"):text.index("# RDMA-CM's per-device settings")]
    assert set(re.findall(r"^ {12}([a-z_]+)\)", body, re.M)) == NIC_QOS_SETTINGS
    script.write_text(text.replace("roce_tos=104\n", "roce_tos=104 pfc_wd=1\n", 1))
    out = _run(script, env)
    assert out.returncode == 1 and "unknown setting pfc_wd" in out.stdout
    assert _run(script, env).returncode == 1  # at every run, not only the first


def test_an_exit_in_the_plan_leaves_the_ports_below_it_unset_as_verify_reads_it(
        host: tuple[Path, dict[str, str], list[str]]) -> None:
    """`exit 0` pasted among the plan's lines: the shell stops there, so the ports below keep the
    NIC's defaults (PCP trust, no PFC) and the run still exits 0. verify's reader takes the same
    lines as applied (the ports above) and none below (HOST-NIC-QOS fires for them)."""
    from dualrail_net.verify.model import ServerConfig
    from dualrail_net.verify.parsers import read_nic_qos, read_nic_qos_plain
    script, env, ports = host
    text = script.read_text()
    cut = ports[3]
    script.write_text(text.replace(f"port {cut} ", f"exit 0\nport {cut} ", 1))
    out = _run(script, env)
    assert out.returncode == 0, out.stdout + out.stderr
    state = Path(env["DUALRAIL_NIC_DOUBLE_STATE"])
    set_by_the_shell = [p for p in ports if (state / f"{p}.trust").read_text().strip() == "dscp"]
    assert set_by_the_shell == ports[:3]
    for reader in (read_nic_qos, read_nic_qos_plain):
        srv = ServerConfig(name="gpu001")
        reader(script.read_text(), srv)
        assert list(srv.nic_qos) == set_by_the_shell, reader
        assert srv.nic_qos_exit is not None and srv.nic_qos_exit[1] == "exit 0"
        assert [u[2] for u in srv.unmodelled] == ["exit 0"]


class LocalHostShell:
    """TEST DOUBLE of a netmiko ``linux`` session: each command runs in a local ``sh`` with the
    fake NIC's environment (the driver's status marker and prompt as a real shell prints them)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def send_command(self, command: str, **_: object) -> str:
        done = subprocess.run(["sh", "-c", command], env=self.env, capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr + "$ "


def test_the_audit_reads_the_nic_qos_in_force(host: tuple[Path, dict[str, str], list[str]]) -> None:
    """The installed program's dry run is the reader: clean once applied; a NIC reset to PCP trust
    and a port that lost ECN notification are exactly two QOS-LIVE-NIC; without mlnx_qos each
    port's trust/PFC is QOS-LIVE-UNREADABLE (a warning), never a pass."""
    from types import SimpleNamespace

    from dualrail_net.audit.qos import QosGap, nic_findings, nic_qos_gaps
    from dualrail_net.deploy.drivers.server import ServerDriver
    script, env, ports = host
    assert _run(script, env).returncode == 0  # the NIC as planned
    folder = script.parent
    data = {"paths": {"nic-qos.sh": str(script)}, "device_dir": str(folder), "twin_dir": str(folder)}
    driver = ServerDriver(SimpleNamespace(name="gpu001", data=data), LocalHostShell(env))
    shown = driver.nic_qos_in_force()
    assert shown is not None and nic_qos_gaps("gpu001", shown) == []
    root, state = Path(env["DUALRAIL_NIC_QOS_ROOT"]), Path(env["DUALRAIL_NIC_DOUBLE_STATE"])
    (state / f"{ports[0]}.trust").write_text("pcp\n")
    (root / "sys/class/net" / ports[1] / "ecn/roce_np/enable/3").write_text("0\n")
    gaps = nic_qos_gaps("gpu001", driver.nic_qos_in_force() or "")
    assert gaps == [QosGap(ports[0], "trust", "pcp", "dscp"), QosGap(ports[1], "ecn/roce_np/enable/3", "0", "1")]
    found = nic_findings("gpu001", gaps)
    assert [f.check for f in found] == ["QOS-LIVE-NIC", "QOS-LIVE-NIC"]
    assert found[0].message == f"gpu001 {ports[0]}: trust in force is pcp, the plan says dscp"
    bare = ServerDriver(SimpleNamespace(name="gpu001", data=data), LocalHostShell({**env, "PATH": "/usr/bin:/bin"}))
    unread = nic_qos_gaps("gpu001", bare.nic_qos_in_force() or "")
    assert {(g.where, g.setting) for g in unread if g.unreadable} == {(p, "trust/pfc") for p in ports}
    assert {f.check for f in nic_findings("gpu001", unread) if f.devices == ("gpu001",)} == {"QOS-LIVE-NIC",
                                                                                           "QOS-LIVE-UNREADABLE"}
    gone = ServerDriver(SimpleNamespace(name="gpu001", data={**data, "paths": {"nic-qos.sh": str(folder / "none")}}),
                        LocalHostShell(env))
    assert [g.unreadable for g in nic_qos_gaps("gpu001", gone.nic_qos_in_force() or "")] == [
        "the program is not installed"]


def test_the_dry_run_reader_is_strict() -> None:
    from dualrail_net.audit.neighbors import NeighborsUnreadable
    from dualrail_net.audit.qos import nic_qos_gaps
    for bad in ("", "sh: dualrail-nic-qos: not found", "error: eth1: unknown setting foo",
                "nic-qos: every setting already in place\nwould set eth1 trust: pcp -> dscp"):
        with pytest.raises(NeighborsUnreadable):
            nic_qos_gaps("x", bad)
