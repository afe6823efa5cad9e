"""verify/partitioned.py parses and checks a folder in two processes that each read only what their
checks read. Its results must be run_checks' on the whole snapshot, on the clean example and on
every mutation; a check placed on the wrong side must fail loudly, not pass on what is not there."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import dataclasses

import pytest

from dualrail_net.resolve.model import Fabric
from dualrail_net.verify import partitioned
from dualrail_net.verify.partitioned import WorkerFailed
from dualrail_net.verify import checks as checks_module
from dualrail_net.verify.checks import BASE, ROUTING, TOPOLOGY, registered, run_checks
from dualrail_net.verify.findings import CheckResult
from dualrail_net.verify.snapshot import load_snapshot
from test_verify_mutations import MUTATIONS, clean  # noqa: F401  (the fixture)


def outcome(results: list[CheckResult]) -> list[tuple[str, list[dict[str, object]]]]:
    return [(r.check, [f.to_dict() for f in r.findings]) for r in results]


def test_the_clean_example_in_two_processes(clean: Path) -> None:  # noqa: F811
    timings: dict[str, float] = {}
    two = partitioned.check_folder(clean, workers=2, timings=timings)
    assert outcome(two) == outcome(run_checks(load_snapshot(clean)))
    assert len(two) > 20 and not any(r.findings for r in two) and timings["topology"] > 0


# one mutation per check: the split is by the data a check reads, so what can differ between the two
# paths is per check (its declaration is guarded below); every mutation through both paths took 130 s
ONE_PER_CHECK = list({m[1]: m for m in reversed(MUTATIONS)}.values())[::-1]


@pytest.mark.parametrize("desc,check_id,mutate", ONE_PER_CHECK, ids=[m[0] for m in ONE_PER_CHECK])
def test_every_mutation_gives_the_whole_snapshot_findings(clean: Path, tmp_path: Path, desc: str,  # noqa: F811
                                                         check_id: str, mutate: Callable[[Path], None]) -> None:
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    mutate(broken)
    two = outcome(partitioned.check_folder(broken, workers=2))
    assert two == outcome(run_checks(load_snapshot(broken)))
    assert any(findings for check, findings in two if check == check_id), desc


def _declare(monkeypatch: pytest.MonkeyPatch, check_id: str, reads: set[str]) -> None:
    """Make ``check_id`` declare ``reads`` (wrongly), as a careless edit of its decorator would."""
    registered()
    current = checks_module.REGISTRY
    assert any(spec.id == check_id for spec in current)
    monkeypatch.setattr(checks_module, "REGISTRY", [
        dataclasses.replace(spec, reads=frozenset(reads)) if spec.id == check_id else spec for spec in current])


def test_a_routing_check_declared_as_base_fails_loudly(clean: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _declare(monkeypatch, "ISO-CROSS-PLANE-BGP", {BASE, TOPOLOGY})
    with pytest.raises(partitioned.ElsewhereError, match="BGP configuration"):
        partitioned.check_folder(clean, workers=2)


def test_a_base_check_declared_as_routing_fails_loudly(clean: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _declare(monkeypatch, "QOS-DSCP-MAP", {ROUTING, TOPOLOGY})
    _declare(monkeypatch, "ISO-SERVER-PLANE", {ROUTING, TOPOLOGY})
    with pytest.raises(WorkerFailed, match="ElsewhereError"):
        partitioned.check_folder(clean, workers=2)


def test_a_check_cannot_declare_both_sides() -> None:
    from dualrail_net.verify.checks import check
    with pytest.raises(ValueError, match="split the check"):
        check("X-BOTH", "reads everything", reads={ROUTING, BASE})
    with pytest.raises(ValueError, match="subset"):
        check("X-TYPO", "reads a typo", reads={"routin"})


def test_a_file_the_routing_side_refuses_fails_as_in_one_process(clean: Path, tmp_path: Path) -> None:  # noqa: F811
    from dualrail_net.verify.parsers import UnreadableFile
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    frr = next(broken.glob("plane-A/*/frr.conf"))
    # a file that is not UTF-8 text: one line naming it, in both ways of checking (never a traceback)
    frr.write_bytes(b"router bgp 1\n\xff\xfe router bgp 1\n")
    with pytest.raises(UnreadableFile) as alone:
        load_snapshot(broken)
    with pytest.raises(UnreadableFile) as two:
        partitioned.check_folder(broken, workers=2)
    assert str(two.value) == str(alone.value) and str(alone.value).endswith(
        f"{frr}:2: error: not UTF-8 text (byte 0xff); verify reads text files only")


def test_small_folders_are_checked_in_one_process(clean: Path, example_fabric: Fabric) -> None:  # noqa: F811
    assert outcome(partitioned.check_folder(clean)) == outcome(run_checks(load_snapshot(clean)))


def test_the_base_side_refuses_every_routing_field() -> None:
    from dualrail_net.verify.model import DeviceConfig
    from dualrail_net.verify.parsers import ROUTING_FIELDS
    dev = DeviceConfig("leaf", "cumulus")
    partitioned._elsewhere_routing(dev, "leaf", [("leaf", "frr.conf", 3)], ["RED"], [None, "RED"])
    assert dev.hostname == "leaf" and list(dev.vrfs) == ["RED"] and set(dev.bgp) == {None, "RED"}
    assert dev.names == [("leaf", "frr.conf", 3)]
    for name in ROUTING_FIELDS:
        if name not in ("hostname", "routing_file", "frr_defaults", "acl_file", "api_port"):  # scalars cannot refuse
            value = getattr(dev, name)
            assert isinstance(value, partitioned.ElsewhereDict | partitioned.ElsewhereList), name
            with pytest.raises(partitioned.ElsewhereError):
                list(value.values()) if isinstance(value, dict) else list(value)


def test_the_plan_computed_before_the_servers_arrive_is_the_models(clean: Path, tmp_path: Path) -> None:  # noqa: F811
    """The routing side computes each plane's planned routes while the base side still parses the
    servers, over the planned prefixes' bits alone: they must be the bits the model gives them, and
    the plan the one the model's index gives, also when a config originates an unplanned prefix."""
    from dualrail_net.verify.checks import Context
    from dualrail_net.verify.checks.routing import plane_view
    from dualrail_net.verify.controlplane import expected_plane, planned_bits
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    frr = broken / "plane-A/a-leaf-su1-r0/frr.conf"
    frr.write_text(frr.read_text().replace(" address-family ipv4 unicast\n",
                                           " address-family ipv4 unicast\n  aggregate-address 10.12.0.0/16\n", 1))
    snap = load_snapshot(broken)
    for plane in snap.planes:
        view = plane_view(Context(snap), plane)
        bits = planned_bits(snap, plane)
        assert list(bits) == view.control.index.prefixes[:len(bits)]
        assert expected_plane(snap, plane, bits) == view.plan
        if plane == "A":
            assert "10.12.0.0/16" in view.control.index.prefixes[len(bits):]
    assert partitioned.check_folder(broken, workers=2) and partitioned._early_plans(
        broken, snap.manifest, snap.cabling, registered()).keys() == set(snap.planes)


def test_reading_ahead_changes_no_result_and_stays_in_the_folder(clean: Path, tmp_path: Path) -> None:  # noqa: F811
    """The kernel's read-ahead (verify/prefetch.py) is advice only: the results are the same with
    and without it, and it passes over what is not a regular file of the folder (a symbolic link
    out of it, a FIFO, a missing folder) without opening it or raising."""
    import os
    import threading
    from dualrail_net.verify import prefetch
    with_ahead = partitioned.check_folder(clean, workers=2)
    assert outcome(with_ahead) == outcome(partitioned.check_folder(clean, workers=2, read_ahead=False))
    folder = tmp_path / "dev"
    folder.mkdir()
    (folder / "frr.conf").write_text("x\n")
    (folder / "link").symlink_to("/etc/passwd")
    os.mkfifo(folder / "fifo")  # opening a FIFO for reading would block: it must not be opened
    for thread in threading.enumerate():  # the runs above read ahead in threads of their own
        if thread.name == "dualrail-read-ahead":
            thread.join(60)
    opened: list[str] = []
    real_open = os.open
    def spy(path: str, flags: int, *args: int) -> int:
        opened.append(os.path.basename(path))
        return real_open(path, flags, *args)
    prefetch.os.open = spy  # type: ignore[assignment]
    try:
        prefetch.read_ahead([folder, tmp_path / "missing"])  # (a FIFO opened would block here)
    finally:
        prefetch.os.open = real_open  # type: ignore[assignment]
    assert opened == ["frr.conf"]


def test_kernel_routes_cross_to_the_routing_side(clean: Path, tmp_path: Path) -> None:  # noqa: F811
    """A Cumulus switch's `ip route` commands are read with its base part (its interfaces file)
    and judged with its routing part: the two-process path sends them across, and finds what the
    whole snapshot finds."""
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    path = broken / "multi-plane/gw-storage-1/interfaces"
    text = path.read_text()
    assert "    vrf-table 1002\n" in text
    path.write_text(text.replace("    vrf-table 1002\n", "    vrf-table 1002\n"
                                 "    post-up ip route add 10.12.0.0/20 dev swp1 table 1002\n", 1))
    two = outcome(partitioned.check_folder(broken, workers=2))
    assert two == outcome(run_checks(load_snapshot(broken)))
    assert {check for check, findings in two if findings} >= {"ISO-VRF-LEAK", "ISO-ROUTE-LEAK"}


def test_a_server_port_without_an_mtu_line_runs_ifupdown2s_default(clean: Path, tmp_path: Path) -> None:  # noqa: F811
    """ifupdown2 sets a physical port whose stanza has no `mtu` to its default, 1500, on every ifup
    and ifreload (addons/address.py), whatever nic-qos.sh set at boot: the port then disagrees with
    its leaf's 9214 and with the boot script; both paths say so, the finding says why."""
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    path = broken / "servers/gpu001/interfaces"
    stanza = "iface ens1f0np0\n    address 10.12.0.1/31\n    mtu 9214\n"
    assert stanza in path.read_text()
    path.write_text(path.read_text().replace(stanza, stanza.replace("    mtu 9214\n", "")))
    two = outcome(partitioned.check_folder(broken, workers=2))
    assert two == outcome(run_checks(load_snapshot(broken)))
    said = {check: [str(f["message"]) for f in findings] for check, findings in two if findings}
    assert set(said) == {"HOST-MTU", "QOS-MTU"}, said
    assert said["HOST-MTU"] == ["servers/gpu001/nic-qos.sh:81: ens1f0np0 MTU 9214, its interfaces file sets none "
                                "(ifupdown2 sets its default, 1500)"], said
    assert any("gpu001:ens1f0np0 MTU 1500" in m or "MTU 1500 vs" in m for m in said["QOS-MTU"]), said
