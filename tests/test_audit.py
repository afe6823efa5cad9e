"""The live audit: the comparison on its own (LLDP and ibnetdiscover answers, the cabling plan), on
the ibsim fabric with a swapped and a missing IB cable, and end to end against the twin, whose
namespaces run real lldpd: recabled, on another firmware, hand-edited — each exactly its findings."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from typing import Any
from pathlib import Path

import pytest
from conftest import running_example_twin

from dualrail_net.audit.cabling import PlannedCable, compare_cabling
from dualrail_net.audit.metrics import openmetrics
from dualrail_net.audit.neighbors import (
    Neighbor,
    NeighborsUnreadable,
    PortState,
    eos_neighbors,
    ibnetdiscover_links,
    lldpcli_neighbors,
)
from dualrail_net.audit.run import ib_findings
from dualrail_net.manifest import Manifest
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.findings import Finding, Severity

PLAN = [PlannedCable(("leaf1", "swp1"), ("gpu1", "eth0"), "A", "400G"),
        PlannedCable(("leaf1", "swp2"), ("gpu2", "eth0"), "A", "400G"),
        PlannedCable(("leaf1", "swp49"), ("spine1", "swp1"), "A", "800G"),
        PlannedCable(("leafB", "swp1"), ("gpu1", "eth1"), "B", "400G")]
PLANES: dict[str, str | None] = {"leaf1": "A", "spine1": "A", "leafB": "B", "gpu1": None, "gpu2": None}
ALL = {"leaf1", "spine1", "leafB", "gpu1", "gpu2"}


def _both(a: tuple[str, str], b: tuple[str, str]) -> list[Neighbor]:
    return [Neighbor(a[0], a[1], b[0], b[1]), Neighbor(b[0], b[1], a[0], a[1])]


def _clean() -> list[Neighbor]:
    return [n for c in PLAN for n in _both(c.a, c.b)]


def _checks(found: list[Finding]) -> list[str]:
    return sorted(f.check for f in found)


def test_a_clean_fabric_has_no_finding() -> None:
    assert compare_cabling(PLAN, _clean(), ALL, device_plane=PLANES) == []


def test_two_swapped_cables_are_two_miswires_naming_both_ends() -> None:
    seen = [n for c in PLAN[2:] for n in _both(c.a, c.b)]
    seen += _both(("leaf1", "swp1"), ("gpu2", "eth0")) + _both(("leaf1", "swp2"), ("gpu1", "eth0"))
    found = compare_cabling(PLAN, seen, ALL, device_plane=PLANES)
    assert _checks(found) == ["CABLE-MISWIRED", "CABLE-MISWIRED"]
    one = next(f for f in found if f.message.startswith("found gpu2:eth0"))
    assert "found gpu2:eth0 <-> leaf1:swp1" in one.message
    assert "planned: gpu2:eth0 -> leaf1:swp2, leaf1:swp1 -> gpu1:eth0" in one.message


def test_a_server_port_on_the_other_planes_leaf_is_cross_plane() -> None:
    seen = [n for c in PLAN[1:3] for n in _both(c.a, c.b)] + _both(PLAN[3].a, PLAN[3].b)
    seen += _both(("leafB", "swp7"), ("gpu1", "eth0"))  # gpu1's plane-A port moved to leafB
    found = compare_cabling(PLAN, seen, ALL, device_plane=PLANES)
    assert _checks(found) == ["CABLE-CROSS-PLANE"]
    assert found[0].severity is Severity.ERROR and "(plane A)" in found[0].message and "(plane B)" in found[0].message


def test_unplugged_down_missing_unexpected_speed_and_unreachable() -> None:
    seen = [n for c in PLAN[1:] for n in _both(c.a, c.b)]
    ports = [PortState("leaf1", "swp1", False), PortState("leaf1", "swp49", True, 400_000)]
    found = compare_cabling(PLAN, seen, ALL, ports, device_plane=PLANES)
    assert _checks(found) == ["LINK-DOWN", "LINK-SPEED"]
    found = compare_cabling(PLAN, seen + _both(("leaf1", "swp30"), ("gpu9", "eth0")), ALL, device_plane=PLANES)
    assert _checks(found) == ["CABLE-MISSING", "CABLE-UNEXPECTED"]
    # gpu1 did not answer and leaf1 did not see it: still missing, asked at leaf1 only
    found = compare_cabling(PLAN, seen, ALL - {"gpu1"}, device_plane=PLANES)
    assert _checks(found) == ["CABLE-MISSING"] and "asked leaf1" in found[0].message
    # neither end answered: nothing to say about that cable here (AUDIT-UNREACHABLE says it)
    assert compare_cabling(PLAN, seen, ALL - {"gpu1", "leaf1"}, device_plane=PLANES) == []


def test_lldp_answers_are_read_and_bad_ones_refused() -> None:
    one = {"lldp": {"interface": {"swp1": {"chassis": {"gpu1": {"id": {}}}, "port": {"id": {"type": "ifname",
                                                                                           "value": "eth0"}}}}}}
    many = {"lldp": {"interface": [{"swp1": one["lldp"]["interface"]["swp1"]},
                                   {"swp2": {"chassis": {"gpu2": {}}, "port": {"id": {"value": "eth0"}}}}]}}
    assert lldpcli_neighbors("leaf1", json.dumps(one)) == [Neighbor("leaf1", "swp1", "gpu1", "eth0")]
    assert len(lldpcli_neighbors("leaf1", json.dumps(many))) == 2
    assert lldpcli_neighbors("leaf1", json.dumps({"lldp": {}})) == []
    eos = {"lldpNeighbors": {"Ethernet1": {"lldpNeighborInfo": [
        {"systemName": "leaf1", "neighborInterfaceInfo": {"interfaceId_v2": "swp49", "interfaceId": '"swp49"'}}]}}}
    assert eos_neighbors("spine1", json.dumps(eos)) == [Neighbor("spine1", "Ethernet1", "leaf1", "swp49")]
    for bad in ("not json", "[1, 2]x", '{"lldp": {"interface": 5}}'):
        try:
            lldpcli_neighbors("leaf1", bad)
        except NeighborsUnreadable as exc:
            assert "leaf1" in str(exc)
    with pytest.raises(NeighborsUnreadable):
        eos_neighbors("spine1", '{"lldpNeighbors": {"Ethernet1": 3}}')


def test_openmetrics_counts_findings_by_check_plane_and_severity() -> None:
    found = [Finding("CABLE-MISWIRED", Severity.ERROR, ("a",), "A", "x"),
             Finding("CABLE-MISWIRED", Severity.ERROR, ("b",), "A", "y"),
             Finding("FW-ASYMMETRIC", Severity.ERROR, ("c",), "", "z")]
    text = openmetrics(found, 24, 1.5, now=1000.0)
    assert 'dualrail_audit_findings{check="CABLE-MISWIRED",plane="A",severity="error"} 2' in text
    assert 'dualrail_audit_findings{check="FW-ASYMMETRIC",plane="-",severity="error"} 1' in text
    assert "dualrail_audit_devices 24" in text and text.endswith("# EOF\n")


def test_the_metrics_file_is_never_written_through_a_link(tmp_path: Path) -> None:
    """The textfile collector's folder is shared: a link planted at the temporary name (it is
    predictable) must not carry the metrics elsewhere; the file itself is replaced whole."""
    from dualrail_net.audit.metrics import write_metrics
    target, elsewhere = tmp_path / "dualrail.prom", tmp_path / "elsewhere"
    elsewhere.write_text("keep\n")
    (tmp_path / f".dualrail.prom.{os.getpid()}.tmp").symlink_to(elsewhere)
    write_metrics(target, "# EOF\n")
    write_metrics(target, "a 1\n# EOF\n")
    assert target.read_text() == "a 1\n# EOF\n" and elsewhere.read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dualrail.prom", "elsewhere"]


# -- InfiniBand: ibnetdiscover on the ibsim fabric --------------------------------------------------
def _ibnetdiscover(build: Path, plane: str, netfile_edit: object = None) -> str:
    from dualrail_net.verify.ib.sim import SimulatedPlane, tools_missing
    if tools_missing() or shutil.which("ibnetdiscover") is None:
        pytest.skip(f"needs ibsim and infiniband-diags: {tools_missing()}")
    manifest = Manifest.load(build)
    work = build.parent / f"ib-{plane}-{time.monotonic_ns()}"
    work.mkdir()
    with SimulatedPlane(build, plane, manifest.ib_planes[plane], work) as sim:
        sim.prepare()
        if callable(netfile_edit):
            net = sim.dir / "fabric.net"
            net.write_text(netfile_edit(net.read_text()))
        sim.start_ibsim()
        proc = subprocess.run(["ibnetdiscover"], env=dict(sim.env, SIM_HOST=manifest.ib_planes[plane].sm_host),
                              cwd=sim.dir, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("audit") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def test_ib_discovery_of_the_planned_fabric_has_no_finding(build: Path) -> None:
    text = _ibnetdiscover(build, "IBA")
    links = ibnetdiscover_links(text)
    assert Neighbor("iba-leaf-1", "1", "gpu001", "1") in links
    assert ib_findings(build, Manifest.load(build), "IBA", text) == []


def test_ib_discovery_finds_a_swapped_and_a_missing_cable(build: Path) -> None:
    def recable(net: str) -> str:
        # on iba-leaf-1: gpu001's and gpu002's cables swapped; gpu003's cable gone (both ends)
        swaps = {'[1] "gpu001"[1]': '[1] "gpu002"[1]', '[2] "gpu002"[1]': '[2] "gpu001"[1]',
                 'Hca 1 "gpu001"\n[1] "iba-leaf-1"[1]': 'Hca 1 "gpu001"\n[1] "iba-leaf-1"[2]',
                 'Hca 1 "gpu002"\n[1] "iba-leaf-1"[2]': 'Hca 1 "gpu002"\n[1] "iba-leaf-1"[1]',
                 '[3] "gpu003"[1]\n': "", 'Hca 1 "gpu003"\n[1] "iba-leaf-1"[3]\n': 'Hca 1 "gpu003"\n'}
        for old in swaps:
            assert old in net, old
        pattern = "|".join(map(re.escape, swaps))
        return re.sub(pattern, lambda m: swaps[m.group(0)], net)
    text = _ibnetdiscover(build, "IBA", recable)
    found = ib_findings(build, Manifest.load(build), "IBA", text)
    assert _checks(found) == ["CABLE-MISSING", "CABLE-MISWIRED", "CABLE-MISWIRED"], [f.message for f in found]
    assert all(f.plane == "IBA" for f in found if f.check == "CABLE-MISSING")
    assert any("gpu003" in f.message for f in found if f.check == "CABLE-MISSING")


class SimulatedSmShell:
    """A test double for the SSH session to an IB host: each command runs in a local shell against the
    ibsim fabric as that host (SIM_HOST), so ibnetdiscover really walks the simulated subnet."""

    def __init__(self, env: dict[str, str], host: str) -> None:
        self.env = dict(env, SIM_HOST=host)

    def send_command(self, command: str, read_timeout: float = 30, **_: Any) -> str:
        # in the simulation's folder: umad2sim leaves its fake sysfs (sys-<pid>) in the working directory
        proc = subprocess.run(["sh", "-c", command], env=self.env, cwd=Path(self.env["IBSIM_SOCKNAME"]).parent,
                              capture_output=True, text=True, timeout=read_timeout)
        return proc.stdout + proc.stderr


def test_ib_planes_are_discovered_from_their_sm_host_or_its_standby(build: Path) -> None:
    """audit --ib: ibnetdiscover on the SM host over its session; when the SM host does not answer,
    the standby's host is asked; when neither does, the plane is AUDIT-UNREACHABLE (never skipped)."""
    from dualrail_net.audit.ib import discover_ib
    from dualrail_net.verify.ib.sim import SimulatedPlane, tools_missing
    if tools_missing() or shutil.which("ibnetdiscover") is None:
        pytest.skip(f"needs ibsim and infiniband-diags: {tools_missing()}")
    manifest = Manifest.load(build)
    meta = manifest.ib_planes["IBA"]
    work = build.parent / f"ib-cli-{time.monotonic_ns()}"
    work.mkdir()
    asked: list[str] = []
    with SimulatedPlane(build, "IBA", meta, work) as sim:
        sim.prepare()
        sim.start_ibsim()

        def connect(server: str, down: frozenset[str] = frozenset()) -> SimulatedSmShell:
            asked.append(server)
            if server in down:
                raise ConnectionError("no route to host")
            return SimulatedSmShell(sim.env, server)
        texts, missing = discover_ib(manifest, ["IBA"], connect)
        assert missing == [] and asked == [meta.sm_host]
        assert ib_findings(build, manifest, "IBA", texts["IBA"]) == []
        asked.clear()
        texts, missing = discover_ib(manifest, ["IBA"], lambda s: connect(s, frozenset({meta.sm_host})))
        assert asked == [meta.sm_host, meta.sm_standby] and missing == [] and "IBA" in texts
        texts, missing = discover_ib(manifest, ["IBA"], lambda s: connect(s, frozenset({meta.sm_host, meta.sm_standby})))
        assert texts == {} and [(f.check, f.devices) for f in missing] == [
            ("AUDIT-UNREACHABLE", (meta.sm_host,)), ("AUDIT-UNREACHABLE", (str(meta.sm_standby),))]
    with pytest.raises(ValueError, match="no IB plane 'IBC'"):
        discover_ib(manifest, ["IBC"], lambda s: None)


def test_the_cli_refuses_an_unknown_ib_plane(build: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dualrail_net.cli import main
    assert main(["audit", "-o", str(build), "--ib", "IBA,IBX"]) == 2
    assert "no IB plane IBX" in capsys.readouterr().out


def test_live_route_tables_are_read_strictly_and_judged_against_the_plan() -> None:
    from dualrail_net.audit.neighbors import NeighborsUnreadable
    from dualrail_net.audit.routes import RouteTable, eos_route_widths, frr_route_widths, route_findings
    frr = json.dumps({"10.0.0.0/24": [{"selected": True, "nexthops": [{"ip": "a", "fib": True}, {"ip": "b", "fib": True},
                                                                       {"ip": "c", "fib": False}]}],
                      "10.0.1.0/24": [{"selected": False, "nexthops": [{"fib": True}]}]})
    assert frr_route_widths("x", frr) == {"10.0.0.0/24": 2}
    eos = json.dumps({"vrfs": {"default": {"routes": {"10.0.0.0/24": {"routeType": "eBGP", "vias": [{}, {}, {}]}}}}})
    assert eos_route_widths("x", eos) == {"10.0.0.0/24": 3}
    for bad in ("% Unknown command", "[]", json.dumps({"vrfs": {}})):
        with pytest.raises(NeighborsUnreadable):
            (eos_route_widths if "vrfs" in bad else frr_route_widths)("x", bad)
    eos_vrf = json.dumps({"vrfs": {"plane-b": {"routes": {"10.0.0.0/24": {"vias": [{}]}}}}})
    assert eos_route_widths("x", eos_vrf, "plane-b") == {"10.0.0.0/24": 1}
    with pytest.raises(NeighborsUnreadable):
        eos_route_widths("x", eos_vrf)  # the default VRF is not in that answer: never an empty table
    found = route_findings({RouteTable("x", "A", "default"): {"10.0.0.0/24": 4, "10.0.1.0/24": 2, "10.0.2.0/24": 1},
                            RouteTable("gw", "B", "plane-b"): {"10.1.0.0/24": 2},
                            RouteTable("gw", "A", "plane-a"): {"10.0.0.0/24": 2},
                            RouteTable("silent", "A", "default"): {"10.0.0.0/24": 2}},
                           {"x": {"A": {"10.0.0.0/24": 3, "10.0.1.0/24": 2}},
                            "gw": {"A": {"10.0.0.0/24": 2}, "B": {"10.1.0.0/24": 1}}})
    assert [(f.check, f.plane, f.devices) for f in found] == [
        ("ECMP-LIVE-WIDTH", "B", ("gw",)), ("ECMP-LIVE-WIDTH", "A", ("x",)), ("ROUTE-LIVE-MISSING", "A", ("x",))]
    assert found[0].message == "gw (VRF plane-b) reaches 10.1.0.0/24 over 1 of 2 planned next hops"
    assert "over 3 of 4 planned next hops" in found[1].message


def test_a_gateway_is_asked_one_table_per_plane_it_serves() -> None:
    from dualrail_net.audit.collect import _route_tables
    from dualrail_net.deploy.drivers.base import RouteReader, frr_route_command

    class Reader:
        route_format = "eos"

        def __init__(self) -> None:
            self.asked: list[str | None] = []

        def bgp_routes(self, vrf: str | None = None) -> str:
            self.asked.append(vrf)
            name = vrf or "default"
            return json.dumps({"vrfs": {name: {"routes": {f"10.{len(self.asked)}.0.0/24": {"vias": [{}, {}]}}}}})

    gateway = Reader()
    assert isinstance(gateway, RouteReader)
    tables = _route_tables(gateway, "gw", None, {"B": "plane-b", "A": "plane-a"})
    assert gateway.asked == ["plane-a", "plane-b"]
    assert tables == {"A": {"10.1.0.0/24": 2}, "B": {"10.2.0.0/24": 2}}
    leaf = Reader()
    assert _route_tables(leaf, "leaf", "A", {}) == {"A": {"10.1.0.0/24": 2}} and leaf.asked == [None]
    assert frr_route_command("plane-a") == "show ip route vrf plane-a bgp json"
    with pytest.raises(ValueError):
        frr_route_command("x'; reboot; '")  # a name never reaches the device's shell unchecked


def test_the_plan_gives_each_leaf_every_spine_as_a_next_hop(build: Path) -> None:
    from dualrail_net.audit.routes import RouteTable, planned_widths
    widths = planned_widths(build, Manifest.load(build))
    leaf = widths[RouteTable("a-leaf-su1-r0", "A", "default")]
    other = [p for p, n in leaf.items() if n == 4]
    assert other and set(leaf.values()) == {1, 4}  # other leaves over the 4 spines; spines' loopbacks direct
    # the gateway: one table per plane, in that plane's VRF, each prefix of the plane over its spines
    gateway = {key: table for key, table in widths.items() if key.device == "gw-storage-1"}
    assert sorted(gateway) == [RouteTable("gw-storage-1", "A", "plane-a"), RouteTable("gw-storage-1", "B", "plane-b")]
    a_side = gateway[RouteTable("gw-storage-1", "A", "plane-a")]
    own = set(Manifest.load(build).devices["gw-storage-1"].originates["A"])
    assert own and not own & set(a_side)  # what the gateway originates is not a route it learns
    assert {p for p, n in leaf.items() if n == 4} - own <= set(a_side) and max(a_side.values()) > 1
    assert not set(a_side) & set(gateway[RouteTable("gw-storage-1", "B", "plane-b")])  # nothing of the other plane


# -- the twin ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("vtysh") is None or shutil.which("lldpd") is None:
        pytest.skip("the twin audit needs root, frr and lldpd")
    yield from running_example_twin(tmp_path_factory, example_fabric, "audit")


def _audit(build: Path) -> tuple[int, dict[str, object]]:
    proc = subprocess.run(["python3", "-m", "dualrail_net.cli", "audit", "--twin", "-o", str(build), "--json"],
                          capture_output=True, text=True, timeout=600)
    return proc.returncode, json.loads(proc.stdout)


def _found(doc: dict[str, object]) -> list[tuple[str, tuple[str, ...]]]:
    return sorted((f["check"], tuple(sorted(f["devices"])))  # type: ignore[index]
                  for c in doc["checks"] for f in c["findings"])  # type: ignore[attr-defined,index]


def _settle_lldp() -> None:
    time.sleep(7)  # lldpd transmits every second; a neighbour ages out after 4 (tx-interval x hold)


def _ip(ns: str, *args: str) -> None:
    subprocess.run(["ip", "-n", f"drt-{ns}", *args], check=True, capture_output=True, timeout=30)


def test_the_clean_twin_audits_clean(twin: Path) -> None:
    code, doc = _audit(twin)
    assert _found(doc) == [] and code == 0, _found(doc)
    assert doc["devices"] == 25 + 32  # every switch (the gateway once) and every server with an address
    # the servers' NIC QoS was read, from their NIC doubles, which the program set at start-up
    from dualrail_net.twin import lifecycle, nic_double
    folder = lifecycle.rundir("drt-gpu007")
    double = nic_double.NicDouble(folder / nic_double.FOLDER)
    ports = nic_double.planned_ports((folder / "nic-qos.sh").read_text())
    assert ports and {double.trust(port) for port, _rdma in ports} == {"dscp"}


def test_two_swapped_server_cables_on_one_leaf(twin: Path) -> None:
    leaf = "a-leaf-su1-r0"
    for args in (("link", "set", "swp1", "down"), ("link", "set", "swp2", "down"), ("link", "set", "swp1", "name", "swpX"),
                 ("link", "set", "swp2", "name", "swp1"), ("link", "set", "swpX", "name", "swp2"),
                 ("link", "set", "swp1", "up"), ("link", "set", "swp2", "up")):
        _ip(leaf, *args)
    try:
        _settle_lldp()
        code, doc = _audit(twin)
        assert code == 1
        assert _found(doc) == [("CABLE-MISWIRED", ("a-leaf-su1-r0", "gpu001")),
                               ("CABLE-MISWIRED", ("a-leaf-su1-r0", "gpu002"))]
    finally:
        for args in (("link", "set", "swp1", "down"), ("link", "set", "swp2", "down"),
                     ("link", "set", "swp1", "name", "swpX"), ("link", "set", "swp2", "name", "swp1"),
                     ("link", "set", "swpX", "name", "swp2"), ("link", "set", "swp1", "up"), ("link", "set", "swp2", "up")):
            _ip(leaf, *args)


def test_a_server_port_moved_to_the_other_planes_leaf(twin: Path) -> None:
    _ip("a-leaf-su1-r1", "link", "set", "swp3", "down")
    _ip("a-leaf-su1-r1", "link", "set", "swp3", "name", "swp30")
    _ip("a-leaf-su1-r1", "link", "set", "swp30", "netns", "drt-b-leaf-su1-r1")
    _ip("b-leaf-su1-r1", "link", "set", "swp30", "up")
    try:
        _settle_lldp()
        code, doc = _audit(twin)
        assert code == 1
        assert _found(doc) == [("CABLE-CROSS-PLANE", ("b-leaf-su1-r1", "gpu003"))]
    finally:
        _ip("b-leaf-su1-r1", "link", "set", "swp30", "down")
        _ip("b-leaf-su1-r1", "link", "set", "swp30", "netns", "drt-a-leaf-su1-r1")
        _ip("a-leaf-su1-r1", "link", "set", "swp30", "name", "swp3")
        _ip("a-leaf-su1-r1", "addr", "flush", "dev", "swp3")
        subprocess.run(["ip", "netns", "exec", "drt-a-leaf-su1-r1", "ifup", "-i",
                        str(Path(os.environ.get("DUALRAIL_TWIN_RUN", "/run/dualrail-twin")) / "ns" / "drt-a-leaf-su1-r1"
                            / "interfaces"), "swp3"], capture_output=True, timeout=60)
        _ip("a-leaf-su1-r1", "link", "set", "swp3", "up")


def test_a_lost_uplink_narrows_ecmp_where_the_plan_says(twin: Path) -> None:
    """a-leaf-su1-r0's cable to a-spine-1 goes down: the leaf reaches every other leaf over 3 of its 4
    planned next hops, a-spine-1 loses the leaf's prefixes (and the leaf a-spine-1's loopback), and
    every other leaf of plane A reaches the leaf over 3 of 4 spines; plane B has no finding."""
    leaf = "a-leaf-su1-r0"
    _ip(leaf, "link", "set", "swp33", "down")
    try:
        deadline = time.monotonic() + 60
        while True:  # BGP notices the lost session (hold timer) and withdraws through the spine
            _settle_lldp()
            code, doc = _audit(twin)
            found = _found(doc)
            if any(c == "ROUTE-LIVE-MISSING" for c, _d in found) or time.monotonic() > deadline:
                break
        assert code == 1
        checks = {c for c, _d in found}
        assert checks == {"LINK-DOWN", "BGP-DOWN", "ECMP-LIVE-WIDTH", "ROUTE-LIVE-MISSING"}, found
        narrowed = {d[0] for c, d in found if c == "ECMP-LIVE-WIDTH"}
        plane_a_leaves = {f"a-leaf-su{su}-r{r}" for su in (1, 2) for r in range(4)}
        # the storage gateway's plane-A VRF reaches the leaf over 3 of its 4 spines too; its plane-B
        # VRF keeps full width (below: nothing in plane B)
        assert narrowed == plane_a_leaves | {"gw-storage-1"}, narrowed
        # a-spine-1 loses the leaf's prefixes; the leaf loses a-spine-1's loopback (leaves pass no routes on)
        assert {d for c, d in found if c == "ROUTE-LIVE-MISSING"} == {("a-spine-1",), (leaf,)}, found
        messages = [f["message"] for c in doc["checks"] for f in c["findings"]]  # type: ignore[attr-defined,index]
        assert any(m.startswith(f"{leaf} reaches ") and "over 3 of 4 planned next hops" in m for m in messages)
        assert any(m.startswith("gw-storage-1 (VRF plane-a) reaches ") and "over 3 of 4" in m for m in messages)
        assert not [f for c in doc["checks"] for f in c["findings"] if f["plane"] == "B"]  # type: ignore[attr-defined,index]
    finally:
        _ip(leaf, "link", "set", "swp33", "up")
    deadline = time.monotonic() + 90
    while _found(_audit(twin)[1]) and time.monotonic() < deadline:  # the next test starts from a clean twin
        time.sleep(3)


def test_an_unplugged_cable_firmware_off_plan_a_hand_edit_and_a_nic_reset(twin: Path) -> None:
    """Four faults at once, each exactly one finding; the NIC one is gpu007's first port back at
    PCP trust in its NIC double (as a firmware update or a driver reload leaves a real NIC)."""
    from dualrail_net.twin import lifecycle, nic_double
    leaf = "b-leaf-su2-r3"
    double = nic_double.NicDouble(lifecycle.rundir("drt-gpu007") / nic_double.FOLDER)
    port = nic_double.planned_ports((lifecycle.rundir("drt-gpu007") / "nic-qos.sh").read_text())[0][0]
    double.set_trust(port, "pcp")
    _ip(leaf, "link", "set", "swp5", "down")
    marker = lifecycle.rundir("drt-a-leaf-su2-r2") / "firmware-version"
    frr = lifecycle.rundir("drt-b-spine-3") / "frr.conf"
    original = frr.read_text()
    marker.write_text("5.9.3\n")
    frr.write_text(original.replace("maximum-paths 64", "maximum-paths 16", 1))
    try:
        _settle_lldp()
        code, doc = _audit(twin)
        assert code == 1
        assert _found(doc) == [("DRIFT-CONFIG", ("b-spine-3",)), ("FW-ASYMMETRIC", ("a-leaf-su2-r2",)),
                               ("FW-NOT-PLANNED", ("a-leaf-su2-r2",)), ("LINK-DOWN", ("b-leaf-su2-r3", "gpu021")),
                               ("QOS-LIVE-NIC", ("gpu007",))]
        drift = next(f for c in doc["checks"] for f in c["findings"] if f["check"] == "DRIFT-CONFIG")  # type: ignore[attr-defined,index]
        assert "-  maximum-paths 64" in drift["message"] or "maximum-paths 16" in drift["message"]
        nic = next(f for c in doc["checks"] for f in c["findings"] if f["check"] == "QOS-LIVE-NIC")  # type: ignore[attr-defined,index]
        assert nic["message"] == f"gpu007 {port}: trust in force is pcp, the plan says dscp"
    finally:
        double.set_trust(port, "dscp")
        _ip(leaf, "link", "set", "swp5", "up")
        marker.write_text("5.9.2\n")
        frr.write_text(original)


def test_a_live_qos_check_says_what_it_could_not_read() -> None:
    """QOS-LIVE-PFC reads no Cumulus switch: with none it reads it is skipped with the reason (a
    check that read nothing is not a check that found nothing); with some, the title names the rest."""
    from dualrail_net.audit.collect import DeviceReport
    from dualrail_net.audit.run import as_results, coverage
    unread = DeviceReport("a-spine-1", "spine", "A")
    sonic = DeviceReport("a-leaf-su1-r0", "leaf", "A")
    away = DeviceReport("a-leaf-su1-r1", "leaf", "A", error="unreachable: timeout")
    server = DeviceReport("gpu001", "server", None)
    server.nic_qos = []
    reports = {r.name: r for r in (unread, sonic, away, server)}
    by_check = {r.check: r for r in as_results([], 0.0, coverage(reports))}
    assert "Cumulus" in by_check["QOS-LIVE-PFC"].skipped and by_check["QOS-LIVE-NIC"].skipped == ""
    sonic.pfc = {"Ethernet0": (3,)}
    by_check = {r.check: r for r in as_results([], 0.0, coverage(reports))}
    assert by_check["QOS-LIVE-PFC"].skipped == ""
    assert by_check["QOS-LIVE-PFC"].title.endswith("(not read on 1: a-spine-1)")  # the unreachable one is AUDIT-UNREACHABLE's
