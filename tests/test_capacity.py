"""Issue 19: capacity per plane and tier, what-if failures, the dual-plane model, `dualrail capacity`.

Every expected figure below is computed by hand from the example: 32 servers, each with 4 ports of
200G in each plane; 8 leaves and 4 spines per plane, one 800G cable per leaf-spine pair.
"""

from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path

import pytest
from conftest import EXAMPLE

from dualrail_net.capacity.failures import FailureModel, FailureSpecError, Scenario, default_scenarios, expand_failure
from dualrail_net.capacity.figures import capacity_figures
from dualrail_net.capacity.inputs import CapacityInputError, load_model_inputs, load_scenarios
from dualrail_net.capacity.model import (PCIE_LANE_GBPS, ModelInputs, PlaneParts, Reliability, Repair,
                                         all_to_all_seconds, availability, dual_plane_speedup, job_effect,
                                         pcie_gbps, server_bandwidth)
from dualrail_net.capacity.reach import plane_reach, reference_widths
from dualrail_net.capacity.run import capacity_report, to_json
from dualrail_net.cli import main
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.load import load_inventory
from dualrail_net.sot.schema import Inventory
from dualrail_net.sot.synthetic import Shape, synthetic_inventory

# --- figures -------------------------------------------------------------------------------------


def test_example_figures_by_hand(example_fabric: Fabric) -> None:
    f = capacity_figures(example_fabric, {"hgx-hpn-4x2": 8, "dgx-split-8x1": 8}, 1.0)
    for p in f.planes:
        assert p.servers == 32 and p.server_ports == 128
        assert p.server_gbps == 128 * 200 and p.rail_gbps == {r: 32 * 200 for r in range(4)}
        leaf, spine = p.tiers
        assert (leaf.tier, leaf.devices, leaf.down_gbps, leaf.up_gbps) == ("leaf", 8, 25600, 8 * 4 * 800)
        assert leaf.worst_oversubscription == 1.0
        assert (spine.tier, spine.devices, spine.down_gbps, spine.up_gbps) == ("spine", 4, 25600, 0)
        assert spine.oversubscription is None  # the top tier turns traffic around
        assert p.bisection_gbps == 12800
    assert f.total_server_gbps == 51200 and f.total_bisection_gbps == 25600
    for m in f.server_models:
        assert m.servers == 16 and m.plane_gbps == {"A": 800, "B": 800} and m.gpu_gbps == 200
    assert f.over_bound == []


def _three_tier(scheme: str = "rfc7938", spines: int = 3, supers: int = 2, leaf_uplinks: int = 4) -> Inventory:
    inv = synthetic_inventory(Shape(tiers=3, rails=2, sus_per_pod=1, pods=3, spines_per_pod=spines,
                                    super_spines_per_group=supers, servers_per_su=2, leaf_uplinks=leaf_uplinks,
                                    spine_downlinks=4, spine_uplinks=4, super_spine_downlinks=8, border_ports=0))
    raw = inv.model_dump()
    for plane in raw["fabric"]["planes"].values():
        plane["asn"]["scheme"] = scheme
    return Inventory.model_validate(raw)


def test_every_tier_is_held_to_max_oversubscription() -> None:
    """A spine with 2 leaves below (2 x link) and one super-spine above is 2:1: above a bound of 1.5
    it is an error in the figures, and validation says so too (not only for leaves)."""
    from dualrail_net.sot.load import LoadedInventory
    from dualrail_net.sot.validate import validate
    from dualrail_net.sot.yamlsource import SourceMap

    inv = _three_tier(supers=1)
    raw = inv.model_dump()
    raw["fabric"]["topology"]["max_oversubscription"] = 1.5
    inv = Inventory.model_validate(raw)
    fabric = resolve_fabric(inv)
    f = capacity_figures(fabric, {}, 1.5)
    spines = [o for o in f.over_bound if o.tier == "spine"]
    assert spines and {o.ratio for o in spines} == {2.0}
    assert not [o for o in f.over_bound if o.tier == "leaf"]
    diags = [d.message for d in validate(LoadedInventory(inventory=inv, source=SourceMap(), root=EXAMPLE))]
    assert any("spine oversubscription 2.00:1" in m for m in diags), diags


# --- ECMP width: fast path against the reference ---------------------------------------------------------


def _agree(fabric: Fabric, plane: str, failed: list[str]) -> None:
    ref = reference_widths(fabric, plane, failed)
    fast = plane_reach(fabric, plane, failed)
    diff = {k: (v, fast.width(*k)) for k, v in ref.items() if v != fast.width(*k)}
    assert not diff, (failed, sorted(diff.items())[:4])


def test_fast_widths_equal_the_path_vector_reference_on_the_example(example_fabric: Fabric) -> None:
    names = sorted(s.name for s in example_fabric.plane_switches("A") if s.role != "gateway")
    rng = random.Random(7)
    for _ in range(40):
        _agree(example_fabric, "A", rng.sample(names, rng.randint(0, 5)))


@pytest.mark.parametrize("scheme", ["rfc7938", "per-switch"])
def test_fast_widths_equal_the_reference_in_three_tiers(scheme: str) -> None:
    fabric = resolve_fabric(_three_tier(scheme))
    names = sorted(s.name for s in fabric.plane_switches("A") if s.role != "gateway")
    rng = random.Random(11)
    for _ in range(60):
        _agree(fabric, "A", rng.sample(names, rng.randint(0, 8)))


@pytest.mark.parametrize("scheme", ["rfc7938", "per-switch"])
def test_fast_widths_count_parallel_links_as_the_reference_does(scheme: str) -> None:
    """Two cables per leaf-spine and spine-super-spine pair: every cable is a session and a next hop,
    so a leaf's width is twice its live spines; the fast path agrees with the path-vector walk."""
    inv = synthetic_inventory(Shape(tiers=3, rails=2, sus_per_pod=1, pods=3, spines_per_pod=3,
                                    super_spines_per_group=2, servers_per_su=2, leaf_uplinks=6, spine_downlinks=4,
                                    spine_uplinks=4, super_spine_downlinks=6, border_ports=0, leaf_spine_links=2,
                                    spine_super_spine_links=2))
    raw = inv.model_dump()
    for plane in raw["fabric"]["planes"].values():
        plane["asn"]["scheme"] = scheme
    fabric = resolve_fabric(Inventory.model_validate(raw))
    leaves = sorted(s.name for s in fabric.plane_switches("A") if s.role == "leaf")
    assert reference_widths(fabric, "A")[(leaves[0], leaves[-1])] == 6  # 3 spines x 2 links
    names = sorted(s.name for s in fabric.plane_switches("A") if s.role != "gateway")
    rng = random.Random(5)
    for _ in range(40):
        _agree(fabric, "A", rng.sample(names, rng.randint(0, 6)))


def test_reference_knows_loop_prevention_and_the_path_rule() -> None:
    """rfc7938: two leaves of one pod that lost every common spine cannot use a super-spine (the
    spines share an ASN); the fast path says 0 as the reference does. Across pods: every live spine."""
    fabric = resolve_fabric(_three_tier("rfc7938"))
    pod1 = sorted(s.name for s in fabric.plane_switches("A") if s.role == "spine" and s.pod == 1)
    leaves = sorted(s.name for s in fabric.plane_switches("A") if s.role == "leaf" and s.pod == 1)
    ref = reference_widths(fabric, "A", pod1)
    assert ref[(leaves[0], leaves[1])] == 0
    healthy = reference_widths(fabric, "A")
    other = next(s.name for s in fabric.plane_switches("A") if s.role == "leaf" and s.pod == 2)
    assert healthy[(leaves[0], other)] == 3 and healthy[(leaves[0], leaves[1])] == 3


# --- failures --------------------------------------------------------------------------------------------


def test_failure_specs_expand_and_refuse(example_fabric: Fabric) -> None:
    assert expand_failure(example_fabric, "a-spine-2") == ["a-spine-2"]
    assert len(expand_failure(example_fabric, "plane:B")) == 12
    assert expand_failure(example_fabric, "spines:A:2") == ["a-spine-1", "a-spine-2"]
    assert expand_failure(example_fabric, "leaves:B:1") == ["b-leaf-su1-r0"]
    assert len(expand_failure(example_fabric, "pod:A:1")) == 12
    for bad, said in (("a-spine-9", "did you mean a-spine-"), ("plane:C", "no plane 'C'"),
                      ("spines:A:5", "only 4 spines"), ("spines:A:x", "not a positive count"),
                      ("pod:A:2", "no pod 2")):
        with pytest.raises(FailureSpecError, match=said):
            expand_failure(example_fabric, bad)


def test_default_scenarios_by_hand(example_fabric: Fabric) -> None:
    model = FailureModel(example_fabric)
    impacts = {i.scenario.name: i for i in (model.impact(s) for s in default_scenarios(example_fabric))}
    one = impacts["one spine of plane A"].planes
    assert one["A"].fabric_pct == 75 and one["A"].min_ecmp == 3 and one["A"].healthy_ecmp == 4
    assert one["A"].bisection_gbps == 9600 and one["B"].fabric_pct == 100 and one["B"].min_ecmp == 4
    half = impacts["2 spines of plane A"].planes["A"]
    assert half.fabric_pct == 50 and half.min_ecmp == 2
    leaf = impacts["one leaf of plane A"]
    assert leaf.planes["A"].rail_pct(0) == 50 and leaf.planes["A"].rail_pct(1) == 100
    assert leaf.lost_ports == {"A": {0: tuple(sorted(s.name for s in example_fabric.servers if s.su == 1))}}
    assert leaf.servers_losing_a_rail == 16 and leaf.lost_both == ()
    plane = impacts["plane B"]
    assert plane.planes["B"].fabric_gbps == 0 and plane.planes["A"].fabric_pct == 100
    assert plane.servers_losing_a_rail == 32 and plane.lost_both == ()


def test_losing_both_planes_is_reported(example_fabric: Fabric) -> None:
    """Every leaf of scalable unit 1 in both planes: its 16 servers have no port left anywhere."""
    su1 = [s.name for s in example_fabric.switches.values() if s.role == "leaf" and s.su == 1]
    impact = FailureModel(example_fabric).impact(Scenario("su1 down", tuple(su1)))
    assert impact.lost_both == tuple(sorted(s.name for s in example_fabric.servers if s.su == 1))
    # with one plane's leaves only, nobody loses both
    only_a = FailureModel(example_fabric).impact(Scenario("a", tuple(n for n in su1 if n.startswith("a-"))))
    assert only_a.lost_both == ()


def test_an_isolated_leaf_loses_its_servers_though_it_is_alive(example_fabric: Fabric) -> None:
    spines = [f"a-spine-{i}" for i in range(1, 5)]
    impact = FailureModel(example_fabric).impact(Scenario("spines", tuple(spines)))
    a = impact.planes["A"]
    assert a.server_gbps == 0 and a.min_ecmp == 0
    assert all(u == 7 for _w, u in a.leaf_ecmp.values())  # each live leaf reaches none of the 7 others


# --- the model -------------------------------------------------------------------------------------------


def test_pcie_and_speedup_by_hand() -> None:
    assert PCIE_LANE_GBPS[5] == pytest.approx(31.5077, rel=1e-4)
    assert pcie_gbps(5, 16, 1.0) == pytest.approx(504.123, rel=1e-4)
    assert pcie_gbps(4, 16, 0.9) == pytest.approx(226.855, rel=1e-4)
    assert dual_plane_speedup(400, 800, 0.0) == 2.0
    assert dual_plane_speedup(400, 800, 0.25) == 1.5
    # 100 nodes, 1 GB to each peer over 400 Gbit/s: 99 * 8e9 / 400e9 = 1.98 s
    assert all_to_all_seconds(100, 10**9, 400) == pytest.approx(1.98)
    assert all_to_all_seconds(2, 1, 0) == math.inf


def test_a_nic_is_capped_at_its_pcie_link(example_loaded) -> None:  # type: ignore[no-untyped-def]
    """2 x 400G ports on a gen4 x16 NIC (226.9 Gbit/s at 0.9): one plane gets 226.9, both planes the
    same 226.9, so two planes buy nothing there (speed-up 0.95 with 5% overhead)."""
    model = example_loaded.inventory.servers.server_models["hgx-hpn-4x2"]
    raw = model.model_dump()
    for nic in raw["nics"]:
        nic["pcie_gen"] = 4
    capped = type(model).model_validate(raw)
    bw = server_bandwidth("m", capped, {"A": "400G", "B": "400G"}, 0.9)
    assert bw.single_plane_gbps == pytest.approx(4 * 226.855, rel=1e-4)
    assert bw.dual_plane_gbps == pytest.approx(4 * 226.855, rel=1e-4)
    assert bw.speedup(0.05) == pytest.approx(0.95)
    free = server_bandwidth("m", model, {"A": "200G", "B": "200G"}, 0.9)
    assert (free.single_plane_gbps, free.dual_plane_gbps, free.speedup(0.05)) == (800, 1600, pytest.approx(1.9))
    raw["nics"][0].pop("pcie_gen")
    assumed = server_bandwidth("m", type(model).model_validate(raw), {"A": "200G", "B": "200G"}, 0.9)
    assert assumed.assumed_pcie == ("nic0",)


def test_job_effect_by_hand() -> None:
    """c = 0.4, S = 2: T'/T = 0.6 + 0.2 = 0.8; new share 0.2 / 0.8 = 0.25; 1000 GPU-h -> 200 saved."""
    e = job_effect(0.4, 2.0, 1000)
    assert e.time_ratio == pytest.approx(0.8) and e.new_comm_share == pytest.approx(0.25)
    assert e.gpu_hours_saved == pytest.approx(200) and e.iteration_change_pct == pytest.approx(-20)
    assert job_effect(0.0, 2.0, 10).time_ratio == 1.0
    with pytest.raises(ValueError):
        job_effect(0.3, 0.0, 1)


def test_availability_by_hand() -> None:
    """One plane: 100 links / 1e5 h + 10 leaves / 1e4 h + plane 1 / 1e3 h = 0.001 + 0.001 + 0.001 = 3e-3/h.
    Repair: (0.001*2 + 0.001*4 + 0.001*6) / 0.003 = 4 h. Two such planes: 3e-3 * 3e-3 * (4 + 4) = 7.2e-5/h."""
    mtbf = Reliability(link=1e5, switch=1e4, nic=1e6, plane=1e3)
    mttr = Repair(link=2, switch=4, nic=24, plane=6)
    parts = PlaneParts(links=100, leaves=10, nics=0)
    a = availability(parts, parts, 0, 100.0, mtbf, mttr)
    assert a.single_rate == pytest.approx(3e-3) and a.dual_rate == pytest.approx(7.2e-5)
    assert a.single_outage_probability == pytest.approx(1 - math.exp(-0.3))
    assert a.dual_outage_probability == pytest.approx(1 - math.exp(-7.2e-3))
    assert a.single_unavailability == pytest.approx(3e-3 * 4)
    assert a.dual_unavailability == pytest.approx((3e-3 * 4) ** 2)
    # a NIC both planes share is in series in both cases: 5 of them add 5e-6/h to each
    shared = availability(parts, parts, 5, 100.0, mtbf, mttr)
    assert shared.dual_rate == pytest.approx(7.2e-5 + 5e-6) and shared.single_rate == pytest.approx(3e-3 + 5e-6)


def test_the_example_report_counts_shared_nics(example_loaded, example_fabric: Fabric) -> None:  # type: ignore[no-untyped-def]
    """hgx-hpn-4x2 has 4 dual-plane NICs (16 servers: 64 shared), dgx-split-8x1 8 single-plane NICs."""
    report = capacity_report(example_loaded.inventory, example_fabric)
    a = report.model.availability
    assert a is not None
    m = ModelInputs()
    plane = (128 / m.mtbf_hours.link + 8 / m.mtbf_hours.switch + 64 / m.mtbf_hours.nic + 1 / m.mtbf_hours.plane)
    assert a.single_rate == pytest.approx(plane + 64 / m.mtbf_hours.nic)
    assert a.dual_rate > 64 / m.mtbf_hours.nic and a.dual_rate < a.single_rate / 5


# --- input files -------------------------------------------------------------------------------------------


def test_scenario_file_errors_name_file_and_line(tmp_path: Path, example_fabric: Fabric) -> None:
    good = tmp_path / "s.yaml"
    good.write_text("scenarios:\n  - name: maintenance\n    fail: [a-spine-1, 'plane:B']\n")
    assert load_scenarios(good, example_fabric) == [Scenario("maintenance", ("a-spine-1", "plane:B"))]
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenarios:\n  - name: x\n    fail:\n      - a-spine-1\n      - a-spyne-2\n")
    with pytest.raises(CapacityInputError) as err:
        load_scenarios(bad, example_fabric)
    assert str(err.value).startswith(f"{bad}:5: error: a-spyne-2: no such device")
    extra = tmp_path / "extra.yaml"
    extra.write_text("scenarios:\n  - name: x\n    fail: [a-spine-1]\n    color: red\n")
    with pytest.raises(CapacityInputError, match=r":4: error: unknown key 'color'"):
        load_scenarios(extra, example_fabric)
    for text in ("[1, 2]", "scenarios: [", "\x00"):
        broken = tmp_path / "broken.yaml"
        broken.write_text(text)
        with pytest.raises(CapacityInputError, match=r"broken.yaml:\d+: error: "):
            load_scenarios(broken, example_fabric)


def test_model_file_is_strict(tmp_path: Path) -> None:
    f = tmp_path / "m.yaml"
    f.write_text("overhead: 0.1\nmtbf_hours: {plane: 1000}\n")
    m = load_model_inputs(f)
    assert m.overhead == 0.1 and m.mtbf_hours.plane == 1000 and m.mtbf_hours.link == Reliability().link
    f.write_text("overhead: 1.5\n")
    with pytest.raises(CapacityInputError, match=r"m.yaml:1: error: overhead = 1.5"):
        load_model_inputs(f)


# --- the command -------------------------------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["capacity", "-i", str(EXAMPLE), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_and_guards(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--json", "--fail", "a-spine-1", "--fail", "plane:B")
    doc = json.loads(out)
    assert code == 0 and doc["ok"]
    [scenario] = doc["scenarios"]
    assert scenario["scenario"] == "a-spine-1 + plane:B"
    assert scenario["planes"]["A"]["fabric_pct"] == 75 and scenario["planes"]["B"]["fabric_gbps"] == 0
    assert scenario["planes"]["A"]["leaf_ecmp"]["a-leaf-su1-r0"] == {"width": 3, "unreachable_leaves": 0}
    assert doc["planes"][0]["bisection_gbps"] == 12800
    code, out, _ = _run(capsys, "--json", "--min-plane-gbps", "30000", "--min-bisection-gbps", "12800")
    doc = json.loads(out)
    assert code == 1 and not doc["ok"]
    assert {(g["guard"], g["ok"]) for g in doc["guards"]} == {("min-plane-gbps", False), ("min-bisection-gbps", True)}


def test_cli_refuses_bad_input_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _run(capsys, "--fail", "a-spine-9")
    assert code == 2 and out.strip() == "capacity: error: --fail a-spine-9: no such device or failure (did you mean a-spine-4?)"
    code, out, _ = _run(capsys, "--fail", "plane:B")  # no markup or emoji codes eaten from user text
    assert code == 0 and "if plane:B:" in out


def test_report_file_is_never_written_over_a_foreign_file_or_through_a_link(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    mine = tmp_path / "report.html"
    code, _out, _ = _run(capsys, "--html", str(mine))
    assert code == 0 and mine.read_text().startswith("<!DOCTYPE html><!-- dualrail-net capacity report -->")
    code, _out, _ = _run(capsys, "--html", str(mine))  # our own report: replaced
    assert code == 0
    foreign = tmp_path / "notes.html"
    foreign.write_text("my notes")
    code, out, _ = _run(capsys, "--html", str(foreign))
    assert code == 2 and "was not written by dualrail-net" in out and foreign.read_text() == "my notes"
    target = tmp_path / "elsewhere.html"
    target.write_text("keep")
    link = tmp_path / "link.html"
    os.symlink(target, link)
    code, out, _ = _run(capsys, "--html", str(link))
    assert code == 2 and "symlink" in out and target.read_text() == "keep"


def test_every_json_figure_is_plain_data(example_loaded, example_fabric: Fabric) -> None:  # type: ignore[no-untyped-def]
    doc = to_json(capacity_report(example_loaded.inventory, example_fabric))
    assert json.loads(json.dumps(doc)) == doc
    assert doc["model"]["availability"]["dual_plane_outage_probability"] < doc["model"]["availability"][
        "single_plane_outage_probability"]
    assert len(doc["scenarios"]) == 8


def test_inventory_pcie_reaches_the_model(tmp_path: Path, make_inventory) -> None:  # type: ignore[no-untyped-def]
    root = make_inventory({"servers.yaml": [("pcie_gen: 5", "pcie_gen: 3")]})
    inv = load_inventory(root).inventory
    report = capacity_report(inv, resolve_fabric(inv))
    hpn = next(s for s in report.model.servers if s.model == "hgx-hpn-4x2")
    # the first NIC is now gen3 x16 (113.4 Gbit/s at 0.9): it caps its 2 x 200G; the other three carry 400G
    gen3 = 8 * 128 / 130 * 16 * 0.9
    assert hpn.dual_plane_gbps == pytest.approx(gen3 + 3 * 400) and hpn.single_plane_gbps == pytest.approx(gen3 + 600)


def test_planes_in_two_processes_equal_one_process(example_loaded, example_fabric: Fabric) -> None:  # type: ignore[no-untyped-def]
    """The forked path (one half of the planes in a child) against the one-process reference, with a
    scenario that takes servers off both planes (the merge must find them)."""
    su1 = tuple(s.name for s in example_fabric.switches.values() if s.role == "leaf" and s.su == 1)
    scenarios = default_scenarios(example_fabric) + [Scenario("su1", su1)]
    one = to_json(capacity_report(example_loaded.inventory, example_fabric, scenarios=scenarios,
                                  parallel_from=10**9))
    two = to_json(capacity_report(example_loaded.inventory, example_fabric, scenarios=scenarios, parallel_from=0))
    assert one == two
    assert len(two["scenarios"][-1]["servers_losing_every_plane"]) == 16


def test_a_fleet_without_servers_gives_plain_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No server yet (a fabric built ahead of its servers): every figure is finite or null (JSON has
    no Infinity), nothing is 'lost', the report still renders."""
    import shutil
    root = tmp_path / "inv"
    shutil.copytree(EXAMPLE, root)
    text = (root / "servers.yaml").read_text()
    (root / "servers.yaml").write_text(text[:text.index("\nservers:")] + "\nservers: []\n")
    (root / "infiniband.yaml").unlink()
    assert main(["capacity", "-i", str(root), "--json", "--html", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out

    def refuse(constant: str) -> None:
        raise ValueError(constant)
    doc = json.loads(out, parse_constant=refuse)
    assert doc["model"]["all_to_all"]["single_plane_seconds"] is None
    assert all(x["fabric_pct"] == 100 for s in doc["scenarios"] for x in s["planes"].values())
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_a_server_is_cut_off_only_when_it_loses_every_plane_it_has() -> None:
    """With three planes, losing two of them leaves a server reachable: "lost every plane" counts the
    server's own planes, not "two or more"."""
    from dualrail_net.capacity.failures import ScenarioImpact, merge_impacts
    scenario = Scenario("x", ("plane:A",))
    parts = [ScenarioImpact(scenario, (), {}, {}, (), {"A": frozenset({"s3", "s2"})}),
             ScenarioImpact(scenario, (), {}, {}, (), {"B": frozenset({"s3", "s2"}), "C": frozenset({"s3"})})]
    merged = merge_impacts(parts, ["A", "B", "C"], {"s2": 2, "s3": 3})
    assert merged.lost_both == ("s2", "s3")
    merged = merge_impacts(parts, ["A", "B", "C"], {"s2": 3, "s3": 3})
    assert merged.lost_both == ("s3",)  # s2 still has plane C
