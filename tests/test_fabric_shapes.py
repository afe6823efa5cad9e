"""Fabric shapes of published dual-plane designs (issue 22): each builds clean end to end
(validate, resolve, render, verify with zero findings) and its capacity figures follow the shape."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
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


def test_parallel_uplinks(make_inventory: InventoryFactory, tmp_path: Path) -> None:
    """Two cables per leaf-spine pair (topology.parallel_links): consecutive ports on both ends, a
    /31 and an eBGP session each, so a leaf installs spines x 2 next hops; the uplink bandwidth
    the oversubscription rule and the capacity figures see doubles. Builds clean; one of a pair's
    sessions lost (shut, or its route-map denying) is a lost next hop, reported as such."""
    root = make_inventory({"fabric.yaml": [("  max_oversubscription: 1.0",
                                            "  max_oversubscription: 1.0\n  parallel_links: {leaf_spine: 2}")]})
    loaded = load_inventory(root)
    diags = validate(loaded)
    assert [d for d in diags if d.severity.value == "error"] == []
    fabric = resolve_fabric(loaded.inventory)
    leaf = fabric.switches["a-leaf-su1-r0"]
    ups = [(p.number, p.peer, p.peer_port) for p in leaf.ports if p.kind == "uplink"]
    assert ups[:4] == [(33, "a-spine-1", "Ethernet1"), (34, "a-spine-1", "Ethernet2"),
                       (35, "a-spine-2", "Ethernet1"), (36, "a-spine-2", "Ethernet2")]
    assert len(ups) == 8 and len({p.address for p in leaf.bgp_peers if p.kind == "uplink"}) == 8
    out = tmp_path / "build"
    write_artifacts(render_fabric(fabric), out)
    assert _findings(out) == []
    leaf_tier = next(t for t in capacity_report(loaded.inventory, fabric).figures.planes[0].tiers if t.tier == "leaf")
    assert leaf_tier.up_gbps == 8 * 8 * 800.0  # 8 leaves x 8 uplinks x 800G

    def mutated(name: str, edit: Callable[[str], str]) -> list[str]:
        broken = tmp_path / name
        shutil.copytree(out, broken)
        conf = broken / "plane-A" / "a-leaf-su1-r0" / "frr.conf"
        conf.write_text(edit(conf.read_text()))
        return _findings(broken)

    # the second cable to a-spine-1 (10.11.0.2): its session shut down
    found = mutated("shut", lambda t: t.replace(" neighbor 10.11.0.2 description",
                                                " neighbor 10.11.0.2 shutdown\n neighbor 10.11.0.2 description"))
    assert any(f.startswith("BGP-SESSION-MISSING") and "a-leaf-su1-r0:swp34" in f for f in found), found
    width = [f for f in found if f.startswith("ROUTE-ECMP-WIDTH")]
    assert any("a-leaf-su1-r0 installs" in f and "a-spine-1 (1 of 2 links)" in f and "only 1 of the 2 planned" in f
               for f in width), width
    # its inbound route-map swapped for one that denies everything: the other cable still carries
    found = mutated("deny", lambda t: t.replace("  neighbor 10.11.0.2 route-map PLANE-A-IN in",
                                                "  neighbor 10.11.0.2 route-map NOTHING in")
                    + "route-map NOTHING deny 10\n")
    width = [f for f in found if f.startswith("ROUTE-ECMP-WIDTH")]
    assert any("a-spine-1 (1 of 2 links)" in f and "route-map NOTHING" in f for f in width), width


EXTERNAL = '''    external:
      A:
        - {name: storage-a-1, port: 65, subnet: 100.64.0.0/31, asn: 65100, prefixes: [172.16.0.0/16]}
      B:
        - {name: storage-b-1, port: 66, subnet: 100.64.0.2/31, asn: 65100, prefixes: [172.17.0.0/16]}
'''


def _with_external(make_inventory: InventoryFactory, external: str = EXTERNAL) -> Path:
    """The example (whose storage gateway has this external side) with ``external`` instead."""
    return make_inventory({"fabric.yaml": [(EXTERNAL, external)]})


def test_gateway_external_side(make_inventory: InventoryFactory, tmp_path: Path) -> None:
    """A storage gateway with one external peering per plane, each in its plane's VRF: the port and
    the session render in that VRF, the plane accepts only the peer's prefixes (EXTERNAL-<plane>-IN)
    and passes them on to its spines; every switch of the plane learns them and no switch of the
    other plane does; servers route them through their NIC of that plane. Builds clean; breaking the
    peering or leaking the prefixes is reported."""
    loaded = load_inventory(_with_external(make_inventory))
    assert [d for d in validate(loaded) if d.severity.value == "error"] == []
    fabric = resolve_fabric(loaded.inventory)
    gw = fabric.switches["gw-storage-1"]
    ext = [(p.name, p.address, p.vrf, p.peer) for p in gw.ports if p.kind == "external"]
    assert ext == [("swp65", "100.64.0.0/31", "plane-a", "storage-a-1"), ("swp66", "100.64.0.2/31", "plane-b", "storage-b-1")]
    assert "172.16.0.0/16" in fabric.planes["A"].routed_prefixes and "172.16.0.0/16" not in fabric.planes["B"].routed_prefixes
    out = tmp_path / "build"
    write_artifacts(render_fabric(fabric), out)
    assert _findings(out) == []
    frr = (out / "multi-plane" / "gw-storage-1" / "frr.conf").read_text()
    assert "neighbor 100.64.0.1 route-map EXTERNAL-A-IN in" in frr and "neighbor 100.64.0.3 route-map EXTERNAL-B-IN in" in frr
    server = (out / "servers" / "gpu001" / "interfaces").read_text()
    assert "ip route replace 172.16.0.0/16 via 10.12.0.0" in server and "ip route replace 172.17.0.0/16 via 10.22.0.0" in server

    def mutated(name: str, edit: Callable[[str], str], file: str = "frr.conf") -> list[str]:
        broken = tmp_path / name
        shutil.copytree(out, broken)
        conf = broken / "multi-plane" / "gw-storage-1" / file
        text = conf.read_text()
        conf.write_text(edit(text))
        assert conf.read_text() != text
        return _findings(broken)

    found = mutated("no-peer", lambda t: t.replace(" neighbor 100.64.0.1 remote-as 65100\n", ""))
    assert any(f.startswith("BGP-EXTERNAL-DOWN") and "100.64.0.1" in f for f in found), found
    assert any(f.startswith("ROUTE-MISSING") and "172.16.0.0/16" in f for f in found), found
    found = mutated("wrong-as", lambda t: t.replace("neighbor 100.64.0.3 remote-as 65100", "neighbor 100.64.0.3 remote-as 65101"))
    assert any(f.startswith("BGP-EXTERNAL-DOWN") and "remote-as 65101" in f for f in found), found
    found = mutated("port-down", lambda t: t.replace("iface swp65\n", "iface swp65\n    link-down yes\n"), "interfaces")
    assert any(f.startswith("BGP-EXTERNAL-DOWN") and "no port up" in f for f in found), found
    # plane A's storage prefix let into plane B's VRF from B's peer: plane B would reach A's storage
    found = mutated("leak", lambda t: t.replace("ip prefix-list EXTERNAL-B seq 10 permit 172.17.0.0/16 le 32",
                                                "ip prefix-list EXTERNAL-B seq 10 permit 172.17.0.0/16 le 32\n"
                                                "ip prefix-list EXTERNAL-B seq 20 permit 172.16.0.0/16 le 32"))
    assert any(f.startswith("ISO-EXTERNAL-POLICY") and "172.16.0.0/16" in f and "storage-b-1" in f
               for f in found), found
    found = mutated("no-policy", lambda t: t.replace("  neighbor 100.64.0.3 route-map EXTERNAL-B-IN in\n", ""))
    assert any(f.startswith("ISO-EXTERNAL-POLICY") and "no route-map in" in f for f in found), found


@pytest.mark.parametrize("external,message", [
    (EXTERNAL.replace("port: 65", "port: 12"), "is in hardware.gateway.ports"),
    (EXTERNAL.replace("[172.17.0.0/16]", "[172.16.128.0/17]"), "overlaps 172.16.0.0/16 of plane A"),
    (EXTERNAL.replace("asn: 65100, prefixes: [172.16", "asn: 4200001000, prefixes: [172.16"), "is in the range of plane A spines"),
    (EXTERNAL.replace("100.64.0.0/31", "100.64.0.8/29"), "is not a /31 or /30"),
    (EXTERNAL.replace("[172.16.0.0/16]", "[10.12.0.0/24]"), "overlaps pool server_links"),
    (EXTERNAL.replace("100.64.0.2/31", "10.13.0.8/31"), "is inside pool border_links"),
    (EXTERNAL.replace("      B:\n", "      C:\n"), "which it does not serve"),
])
def test_gateway_external_side_is_validated(make_inventory: InventoryFactory, external: str, message: str) -> None:
    from dualrail_net.sot.load import InventoryError
    try:
        diags = validate(load_inventory(_with_external(make_inventory, external)))
    except InventoryError as exc:
        assert message in str(exc)
        return
    errors = [f"{d.file}:{d.line}: {d.message}" for d in diags if d.severity.value == "error"]
    assert any(message in e and "fabric.yaml:" in e for e in errors), errors


def test_two_storage_borders_with_their_storage_side(make_inventory: InventoryFactory, tmp_path: Path) -> None:
    """A second storage gateway beside the example's, each with one storage peering per plane: both
    gateways bring their plane's storage prefixes in (a switch of the plane reaches 172.16.0.0/16 over
    both gateways' paths), and the two planes stay apart. Builds clean."""
    second = ("  - name: gw-storage-2\n    asn: 4200000101\n    planes: [A, B]\n    external:\n      A:\n"
              "        - {name: storage-a-2, port: 65, subnet: 100.64.0.4/31, asn: 65100, prefixes: [172.16.0.0/16]}\n"
              "      B:\n"
              "        - {name: storage-b-2, port: 66, subnet: 100.64.0.6/31, asn: 65100, prefixes: [172.17.0.0/16]}\n")
    root = make_inventory({"fabric.yaml": [(EXTERNAL, EXTERNAL + second)]})
    loaded = load_inventory(root)
    assert [d.message for d in validate(loaded) if d.severity.value == "error"] == []
    fabric = resolve_fabric(loaded.inventory)
    assert {s.name for s in fabric.switches.values() if s.role == "gateway"} == {"gw-storage-1", "gw-storage-2"}
    out = tmp_path / "build"
    write_artifacts(render_fabric(fabric), out)
    assert _findings(out) == []
    snap = load_snapshot(out)
    from dualrail_net.verify.controlplane import compute_plane, planned_prefixes
    from dualrail_net.verify.topology import build_topology
    control = compute_plane(snap, build_topology(snap), "A", planned_prefixes(snap, "A"))
    bit = control.index.prefixes.index("172.16.0.0/16")
    spine = ("a-spine-1", None)
    assert sorted(n[0] for n in control.next_hops(spine, bit)) == ["gw-storage-1", "gw-storage-2"]
    assert "172.17.0.0/16" not in control.index.prefixes


def test_a_server_with_more_than_ten_rdma_ports(tmp_path: Path) -> None:
    """Eight rails over two planes: sixteen RDMA devices a server (mlx5_0 ... mlx5_15), whose names
    sort as text (mlx5_10 before mlx5_2): the clean render has no finding."""
    inv = synthetic_inventory(Shape(rails=8, sus_per_pod=1, servers_per_su=2, spines_per_pod=2, leaf_uplinks=2))
    fabric = resolve_fabric(inv)
    assert max(len(s.ports) for s in fabric.servers) == 16
    write_artifacts(render_fabric(fabric), tmp_path / "build")
    assert _findings(tmp_path / "build") == []
