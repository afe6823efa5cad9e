"""Fabric shapes of published dual-plane designs (issue 22): each builds clean end to end
(validate, resolve, render, verify with zero findings) and its capacity figures follow the shape."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import InventoryFactory
from dualrail_net.capacity.run import capacity_report
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.load import load_inventory
from dualrail_net.sot.synthetic import Shape, synthetic_inventory
from dualrail_net.sot.validate import validate
from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.snapshot import load_snapshot


def _findings(folder: Path) -> list[str]:
    return [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(folder)) for f in r.findings]


def test_four_planes_and_two_storage_borders(tmp_path: Path) -> None:
    """Four planes (a 4-plane NIC design) and two gateways, each with one VRF per plane."""
    inv = synthetic_inventory(Shape(planes=4, rails=2, sus_per_pod=1, servers_per_su=4, spines_per_pod=2, gateways=2,
                                    leaf_uplinks=2))
    fabric = resolve_fabric(inv)
    assert sorted(fabric.planes) == ["A", "B", "C", "D"]
    gateways = [sw for sw in fabric.switches.values() if sw.role == "gateway"]
    assert len(gateways) == 2 and all(sorted(v.plane for v in gw.vrfs) == ["A", "B", "C", "D"] for gw in gateways)
    write_artifacts(render_fabric(fabric), tmp_path / "build")
    assert _findings(tmp_path / "build") == []
    report = capacity_report(inv, fabric)
    assert sorted(p.plane for p in report.figures.planes) == ["A", "B", "C", "D"]
    assert len({p.server_gbps for p in report.figures.planes}) == 1  # the planes are symmetric


def test_a_mixed_speed_server_fleet(make_inventory: InventoryFactory, tmp_path: Path) -> None:
    """Two server generations on the same leaves: the NIC-split model's ports run 100G on the 200G
    leaf ports (per-port speed), the port-split model's at the plane's 200G."""
    root = make_inventory()
    path = root / "servers.yaml"
    text = path.read_text()
    start = text.index("  dgx-split-8x1:")
    head, tail = text[:start], text[start:]
    end = tail.index("\nservers:")
    model = re.sub(r"(rdma_device: mlx5_\d+)\}", r"\1, speed: 100G}", tail[:end])
    assert model.count("speed: 100G") == 8
    path.write_text(head + model + tail[end:])
    loaded = load_inventory(root)
    assert [d for d in validate(loaded) if d.severity.value == "error"] == []
    fabric = resolve_fabric(loaded.inventory)
    speeds = {(s.model, p.speed) for s in fabric.servers for p in s.ports
              for p in [next(q for q in fabric.switches[p.leaf].ports if q.name == p.leaf_port)]}
    assert speeds == {("hgx-hpn-4x2", "200G"), ("dgx-split-8x1", "100G")}
    write_artifacts(render_fabric(fabric), tmp_path / "build")
    assert _findings(tmp_path / "build") == []
    report = capacity_report(loaded.inventory, fabric)
    ports = {b.model: b.port_gbps for b in report.model.servers}
    assert ports == {"hgx-hpn-4x2": 8 * 200.0, "dgx-split-8x1": 8 * 100.0}
