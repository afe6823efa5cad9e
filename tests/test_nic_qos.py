"""Issue 20: the NIC QoS program every server runs at boot (servers/<name>/nic-qos.sh), against a
fake sysfs and a fake mlnx_qos: it sets what differs, only that, says what it did, and a dry run
changes nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.resolve.model import Fabric

FAKE_MLNX_QOS = """#!/bin/sh
# a stand-in for mlnx_qos (mlnx-tools) keeping each port's trust and PFC in $STATE/<if>.{trust,pfc}
if=$2
[ -f "$STATE/$if.trust" ] || echo pcp > "$STATE/$if.trust"
[ -f "$STATE/$if.pfc" ] || echo "0 0 0 0 0 0 0 0" > "$STATE/$if.pfc"
if [ $# -eq 2 ]; then
    echo "DCBX mode: OS controlled"
    echo "Priority trust state: $(cat "$STATE/$if.trust")"
    echo "PFC configuration:"
    echo "        priority    0   1   2   3   4   5   6   7"
    echo "        enabled     $(cat "$STATE/$if.pfc")"
    exit 0
fi
echo "$*" >> "$STATE/calls"
case "$3" in
    --trust) echo "$4" > "$STATE/$if.trust" ;;
    --pfc) echo "$4" | tr ',' ' ' > "$STATE/$if.pfc" ;;
esac
"""


@pytest.fixture
def host(tmp_path: Path, example_fabric: Fabric) -> tuple[Path, dict[str, str], list[str]]:
    """The example's gpu001 program, a fake /sys with its ports, and a fake mlnx_qos on PATH."""
    script = tmp_path / "nic-qos.sh"
    script.write_text(render_fabric(example_fabric).by_path()["servers/gpu001/nic-qos.sh"])
    root = tmp_path / "root"
    server = next(s for s in example_fabric.servers if s.name == "gpu001")
    for port in server.ports:
        net = root / "sys/class/net" / port.ifname
        for sub in ("ecn/roce_np/enable", "ecn/roce_rp/enable"):
            (net / sub).mkdir(parents=True)
            for prio in range(8):
                (net / sub / str(prio)).write_text("0\n")
        (net / "ecn/roce_np/cnp_dscp").write_text("0\n")
        (net / "ecn/roce_np/cnp_802p_prio").write_text("0\n")
        (net / "mtu").write_text("1500\n")
        tos = root / "sys/kernel/config/rdma_cm" / port.rdma_device / "ports/1"
        tos.mkdir(parents=True)
        (tos / "default_roce_tos").write_text("0\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mlnx_qos").write_text(FAKE_MLNX_QOS)
    (bin_dir / "mlnx_qos").chmod(0o755)
    # `ip link set` changes the fake MTU file the way the kernel would
    (bin_dir / "ip").write_text('#!/bin/sh\n[ "$1 $2 $3" = "link set dev" ] && echo "$6" > '
                                '"$DUALRAIL_NIC_QOS_ROOT/sys/class/net/$4/mtu"\n')
    (bin_dir / "ip").chmod(0o755)
    state = tmp_path / "state"
    state.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "DUALRAIL_NIC_QOS_ROOT": str(root),
           "STATE": str(state)}
    return script, env, [p.ifname for p in server.ports]


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
    assert _snapshot(root) == before and not (Path(env["STATE"]) / "calls").exists()
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
    state = Path(env["STATE"])
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
