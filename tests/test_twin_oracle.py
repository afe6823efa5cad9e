"""The twin is the verifier's oracle: seeded random edits of the files the twin runs, real FRR's
sessions and RIBs against what verify's control-plane model predicts for the same files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dualrail_net.resolve.model import Fabric
from dualrail_net.twin import lifecycle, oracle
from conftest import NEEDS_TWIN, running_example_twin

pytestmark = NEEDS_TWIN


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Iterator[Path]:
    yield from running_example_twin(tmp_path_factory, example_fabric, "oracle", servers=False)


def _plan():  # type: ignore[no-untyped-def]
    state = lifecycle.load_state()
    assert state
    return lifecycle.plan_from_state(state)


def test_clean_fabric_prediction_equals_the_twin(twin: Path) -> None:
    switches = oracle.compared_devices(_plan())
    predicted = oracle.predict(twin, [sw.device for sw in switches])
    observed = oracle.settle(switches, lifecycle.rundir)
    assert oracle.disagreements(predicted, observed) == {}
    # not vacuous: every switch has sessions and BGP routes, leaves over several next hops
    assert all(p.sessions and p.routes for p in predicted.values())
    assert any(width > 1 for p in predicted.values() for _, width in p.routes)


def test_seeded_edits_agree_with_the_twin(twin: Path, tmp_path: Path) -> None:
    results = oracle.differential(twin, _plan(), lifecycle.rundir, seed=int(os.environ.get("ORACLE_SEED", "16")),
                                  count=int(os.environ.get("ORACLE_EDITS", "6")), restart=lifecycle.restart_switch,
                                  work=tmp_path)
    compared = [r for r in results if not r.rejected]
    assert len(compared) >= 4, [r.rejected for r in results]
    failures = {f"{r.edit.device}: {r.edit.description}": r.differences for r in compared if r.differences}
    assert failures == {}


def test_seeded_interfaces_edits_agree_with_the_twin(twin: Path, tmp_path: Path) -> None:
    """Edits of the switches' interfaces files, each booted with ifupdown2 (seed 37 includes the /30
    whose broadcast address silences the leaf's next uplink, the model's first disagreement here,
    and a policy rule of a reject type)."""
    # (the kinds this seed was chosen among: a kind added later would change what it draws)
    kinds = [oracle.edit_kind(e) for e in oracle.IFACE_EDITS if oracle.edit_kind(e) != "iface-route-delete"]
    results = oracle.differential(twin, _plan(), lifecycle.rundir, seed=int(os.environ.get("ORACLE_IFACE_SEED", "37")),
                                  count=int(os.environ.get("ORACLE_IFACE_EDITS", "5")),
                                  restart=lifecycle.restart_switch, work=tmp_path, kinds=kinds)
    assert [r.edit.file for r in results] == ["interfaces"] * len(results)
    assert all(not r.rejected for r in results)
    failures = {f"{r.edit.device}: {r.edit.description}": r.differences for r in results if r.differences}
    assert failures == {}


def test_deleted_connected_routes_agree_with_the_twin(twin: Path, tmp_path: Path) -> None:
    """A post-up `ip route del` of a link's connected /31 (seed 42: a spine's without `dev`, a
    leaf's with it) takes the link's session down on the twin as in the model; one of a prefix the
    switch has no route for changes nothing."""
    results = oracle.differential(twin, _plan(), lifecycle.rundir, seed=int(os.environ.get("ORACLE_DELETE_SEED", "42")),
                                  count=3, restart=lifecycle.restart_switch, work=tmp_path,
                                  kinds=["iface-route-delete"])
    assert [r.edit.kind for r in results] == ["iface-route-delete"] * 3 and all(not r.rejected for r in results)
    failures = {f"{r.edit.device}: {r.edit.description}": r.differences for r in results if r.differences}
    assert failures == {}
