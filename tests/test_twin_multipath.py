"""Multipath across spines of different ASNs, against real bgpd in the twin: without
`bgp bestpath as-path multipath-relax` a leaf installs only the paths of its best path's neighbor
AS (bgpd compares eBGP peers' AS for multipath), with it every spine. The model once kept every
spine whenever the first sender's AS was the only one with a best path (found by its plain
reference, confirmed here)."""

from __future__ import annotations

import time
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.schema import Inventory
from dualrail_net.sot.synthetic import Shape, synthetic_inventory
from dualrail_net.twin import lifecycle, oracle
from conftest import NEEDS_TWIN

pytestmark = NEEDS_TWIN

LEAF = "b-leaf-su1-r0"


def per_switch_fabric(out: Path) -> None:
    """Two leaves and two spines per plane, every switch its own ASN (rendered with multipath-relax)."""
    doc = synthetic_inventory(Shape(spines_per_pod=2, sus_per_pod=1, rails=2, servers_per_su=2)).model_dump()
    for plane in doc["fabric"]["planes"].values():
        plane["asn"]["scheme"] = "per-switch"
    write_artifacts(render_fabric(resolve_fabric(Inventory.model_validate(doc))), out)


def test_a_leaf_without_multipath_relax_installs_one_spine_as_bgpd_does(tmp_path: Path) -> None:
    out = tmp_path / "build"
    per_switch_fabric(out)
    path = next(out.rglob(f"{LEAF}/frr.conf"))
    assert " bgp bestpath as-path multipath-relax\n" in path.read_text()
    path.write_text(path.read_text().replace(" bgp bestpath as-path multipath-relax\n", ""))
    lifecycle.up(out, servers=False)
    try:
        switches = oracle.compared_devices(lifecycle.plan_from_state(lifecycle.load_state()))
        predicted = oracle.predict(out, [sw.device for sw in switches])
        deadline = time.monotonic() + 90
        while True:  # until bgpd agrees with the model; what still differs at the deadline fails
            differences = oracle.disagreements(predicted, oracle.observe(switches, lifecycle.rundir))
            if not differences or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert differences == {}
        widths = dict(predicted[LEAF].routes)
        # not vacuous: the other leaf's subnet by one spine here, by both on the leaf that kept relax
        assert 1 in widths.values() and max(dict(predicted["b-leaf-su1-r1"].routes).values()) == 2
    finally:
        lifecycle.down()
    assert not lifecycle.our_namespaces()
