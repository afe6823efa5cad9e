"""The command line: exit codes, --json, one-line file:line errors, no tracebacks, drift check."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLE, InventoryFactory, line_of
from dualrail_net.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_validate_ok_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", "-i", str(EXAMPLE), "--json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "diagnostics": []}


def test_validate_bad_inventory_exit_1_with_file_line(capsys: pytest.CaptureFixture[str],
                                                      make_inventory: InventoryFactory) -> None:
    root = make_inventory({"fabric.yaml": [("maximum_paths: 64", "maximum_paths: 2")]})
    code, out = run(capsys, "validate", "-i", str(root), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False
    diag = doc["diagnostics"][0]
    assert diag["line"] == line_of(root / "fabric.yaml", "maximum_paths: 2")
    assert diag["file"].endswith("fabric.yaml") and diag["fix"]


def test_usage_error_is_exit_2() -> None:
    with pytest.raises(SystemExit) as info:
        main(["render", "--no-such-flag"])
    assert info.value.code == 2


def test_console_script_never_prints_a_traceback(make_inventory: InventoryFactory) -> None:
    root = make_inventory({"servers.yaml": [("slot: 3,", "slot: [3,")]})
    exe = shutil.which("dualrail") or ""
    cmd = [exe] if exe else [sys.executable, "-m", "dualrail_net.cli"]
    proc = subprocess.run([*cmd, "validate", "-i", str(root)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "servers.yaml:" in proc.stdout


def test_help_teaches() -> None:
    proc = subprocess.run([sys.executable, "-m", "dualrail_net.cli", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    for word in ("validate", "render", "build", "Exit codes", "--check"):
        assert word in proc.stdout


def test_audit_help_names_every_audit_check() -> None:
    from dualrail_net.audit.run import CHECKS
    proc = subprocess.run([sys.executable, "-m", "dualrail_net.cli", "audit", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    flat = " ".join(proc.stdout.split())  # argparse may wrap a line anywhere
    assert [check for check in CHECKS if check not in flat] == []


def test_render_then_check_detects_drift(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "build"
    code, _ = run(capsys, "render", "-i", str(EXAMPLE), "-o", str(out))
    assert code == 0
    code, text = run(capsys, "render", "-i", str(EXAMPLE), "-o", str(out), "--check", "--json")
    assert code == 0 and json.loads(text)["ok"] is True
    cfg = out / "plane-B/b-spine-2/running-config"
    cfg.write_text(cfg.read_text() + "! hand edit\n")
    code, text = run(capsys, "render", "-i", str(EXAMPLE), "-o", str(out), "--check", "--json")
    assert code == 1
    assert json.loads(text)["changed"] == ["plane-B/b-spine-2/running-config"]


def test_render_refuses_invalid_inventory(capsys: pytest.CaptureFixture[str], make_inventory: InventoryFactory,
                                          tmp_path: Path) -> None:
    root = make_inventory({"qos.yaml": [("max_threshold_bytes: 1500000", "max_threshold_bytes: 1000")]})
    code, _ = run(capsys, "render", "-i", str(root), "-o", str(tmp_path / "out"))
    assert code == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.consumers
@pytest.mark.skipif(shutil.which("vtysh") is None or shutil.which("ifquery") is None, reason="needs frr, ifupdown2")
def test_build_example_end_to_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    code, out = run(capsys, "build", "-i", str(EXAMPLE), "-o", str(tmp_path / "build"), "--json", "--junit", str(junit))
    doc = json.loads(out)
    assert code == 0, doc
    statuses = {c["check"]: c["status"] for c in doc["checks"]}
    assert statuses["CONSUMER-FRR-PARSE"] == "passed"
    assert statuses["CONSUMER-IFUPDOWN2"] == "passed"
    assert "<testcase" in junit.read_text()


def test_verify_catches_a_hand_edit_and_writes_junit(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "build"
    assert main(["render", "-i", str(EXAMPLE), "-o", str(out)]) == 0
    capsys.readouterr()
    frr = out / "plane-A/a-leaf-su1-r2/frr.conf"
    frr.write_text(frr.read_text().replace("maximum-paths 64", "maximum-paths 1"))
    junit = tmp_path / "verify.xml"
    code, text = run(capsys, "verify", "-o", str(out), "--json", "--no-consumers", "--junit", str(junit))
    assert code == 1
    doc = json.loads(text)
    failed = [c for c in doc["checks"] if c["status"] == "failed"]
    # the statement (ECMP-MAX-PATHS) and its outcome in the computed RIB (ROUTE-ECMP-WIDTH)
    assert [c["check"] for c in failed] == ["ROUTE-ECMP-WIDTH", "ECMP-MAX-PATHS"] or \
        sorted(c["check"] for c in failed) == ["ECMP-MAX-PATHS", "ROUTE-ECMP-WIDTH"]
    assert all(f["devices"][0] == "a-leaf-su1-r2" or "a-leaf-su1-r2" in f["devices"]
               for c in failed for f in c["findings"])
    xml = junit.read_text()
    assert 'name="ECMP-MAX-PATHS"' in xml and "<failure" in xml and 'name="ISO-ROUTE-LEAK"' in xml


def test_verify_without_render_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, text = run(capsys, "verify", "-o", str(tmp_path / "nothing"), "--json")
    assert code == 1
    assert "run `dualrail render` first" in json.loads(text)["error"]


def test_validate_explain_shows_every_tier_and_shared_fate(make_inventory: InventoryFactory,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A 4:1 leaf within a bound of 4 is no warning, but --explain (and its JSON) says 4:1; the HPN
    model's dual-plane NICs are named as shared-fate points."""
    root = make_inventory({"fabric.yaml": [("max_oversubscription: 1.0", "max_oversubscription: 4.0"),
                                           ("spines_per_pod: 4", "spines_per_pod: 1"),
                                           ("spines_per_pod: 4", "spines_per_pod: 1"),
                                           ("a-spine-1, a-spine-2, a-spine-3, a-spine-4,", "a-spine-1,"),
                                           ("b-spine-1, b-spine-2, b-spine-3, b-spine-4]", "b-spine-1]")]})
    assert main(["validate", "-i", str(root), "--explain", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and not [d for d in doc["diagnostics"] if d["severity"] == "warning"]
    assert {(r["plane"], r["tier"], r["ratio"], r["bound"]) for r in doc["oversubscription"]} == {
        ("A", "leaf", 4.0, 4.0), ("B", "leaf", 4.0, 4.0)}
    assert len(doc["shared_fate"]) == 1 and "hgx-hpn-4x2: nic0, nic1, nic2, nic3 carry planes A, B" in doc["shared_fate"][0]
    assert main(["validate", "-i", str(root), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "info: plane A: leaf oversubscription 4.00:1 (16 x 200G down, 1 x 800G up; bound 4)" in out


@pytest.mark.parametrize("file,old,new,code", [
    ("fabric.yaml", "      A:\n        - {name: storage-a-1, port: 65, subnet: 100.64.0.0/31, asn: 65100, "
     "prefixes: [172.16.0.0/16]}\n", "      A: []\n", "SYM-EXTERNAL"),
    ("servers.yaml", "          - {port: 2, plane: B, rail: 0, ifname: ens1f1np1, rdma_device: mlx5_1}\n", "",
     "SYM-SERVER-BANDWIDTH"),
], ids=["no external peering in plane A", "a server model without its NIC0 plane-B port"])
def test_a_plan_validation_only_warns_of_builds_and_verifies(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                            file: str, old: str, new: str, code: str) -> None:
    """What validation warns of and lets the operator accept (planes unequal in external peerings
    or in a server model's ports) does not fail the build's verification: a plan that validates
    builds (found by a structural fuzz of the inventory: validate exit 0, build exit 1)."""
    inventory = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, inventory)
    text = (inventory / file).read_text()
    assert old in text
    (inventory / file).write_text(text.replace(old, new, 1))
    assert main(["validate", "-i", str(inventory), "--json"]) == 0
    assert code in capsys.readouterr().out
    assert main(["build", "-i", str(inventory), "-o", str(tmp_path / "build"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    sym = [f for c in doc["checks"] for f in c["findings"] if c["check"].startswith("SYM-")]
    assert sym and all(f["severity"] == "warning" for f in sym), sym
