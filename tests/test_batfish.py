"""Batfish: the snapshot layout (golden files), the translation of answers shaped as pybatfish
returns them, connection failure handling, and an integration test that runs only with BATFISH_HOST.

Batfish cannot run on these machines (no Docker engine, not in the package registries): the
integration test is skipped here and nothing in this file claims a Batfish verdict."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
from pybatfish.datamodel.flow import Flow, Hop, Trace
from pybatfish.datamodel.primitives import Interface

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.batfish.client import BatfishUnavailable, connect
from dualrail_net.verify.batfish.questions import (
    PlaneMap,
    translate_bgp_sessions,
    translate_flows,
    translate_init_issues,
    translate_l3_edges,
    translate_parse_status,
    translate_undefined,
)
from dualrail_net.verify.batfish.snapshot import export_snapshot
from dualrail_net.verify.snapshot import load_snapshot

GOLDEN = Path(__file__).parent / "golden" / "batfish"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("bf") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


@pytest.fixture(scope="module")
def planes(rendered: Path) -> PlaneMap:
    return PlaneMap(load_snapshot(rendered))


def test_snapshot_layout(rendered: Path, tmp_path: Path) -> None:
    dest = tmp_path / "snap"
    counts = export_snapshot(rendered, dest)
    assert {k: v for k, v in counts.items() if v} == {"eos": 8, "cumulus": 17, "hosts": 32, "edges": 2 * 328}
    assert sorted(p.name for p in dest.iterdir() if p.name != ".dualrail-owned") == ["batfish", "configs", "hosts"]
    assert (dest / "configs/a-spine-1.cfg").read_text() == (rendered / "plane-A/a-spine-1/running-config").read_text()
    for rel in ("configs/a-leaf-su1-r0", "configs/gw-storage-1", "hosts/gpu001.json"):
        if os.environ.get("UPDATE_GOLDEN"):
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(dest / rel, GOLDEN / rel)
        assert (dest / rel).read_text() == (GOLDEN / rel).read_text(), rel
    leaf = (dest / "configs/a-leaf-su1-r0").read_text().splitlines()
    assert leaf[0] == "a-leaf-su1-r0"
    assert leaf[1].startswith("# This file describes the network interfaces")
    assert leaf.index("# ports.conf --") < leaf.index("frr version 8.4.4")
    l1 = json.loads((dest / "batfish/layer1_topology.json").read_text())["edges"]
    assert {"node1": {"hostname": "a-leaf-su1-r0", "interfaceName": "swp33"},
            "node2": {"hostname": "a-spine-1", "interfaceName": "Ethernet1"}} in l1
    assert {"node1": {"hostname": "a-spine-1", "interfaceName": "Ethernet1"},
            "node2": {"hostname": "a-leaf-su1-r0", "interfaceName": "swp33"}} in l1


def test_parse_status_and_init_issues() -> None:
    frame = pd.DataFrame([{"File_Name": "configs/a", "Status": "PASSED", "File_Format": "X", "Nodes": ["a"]},
                          {"File_Name": "configs/b", "Status": "PARTIALLY_UNRECOGNIZED", "File_Format": "X",
                           "Nodes": ["b"]}])
    found = translate_parse_status(frame)
    assert [(f.check, f.devices) for f in found] == [("BF-PARSE", ("b",))]
    issues = pd.DataFrame([{"Nodes": ["b"], "Source_Lines": None, "Type": "Parse warning", "Details": "x",
                            "Line_Text": "bogus", "Parser_Context": ""}])
    assert translate_init_issues(issues)[0].message == "Parse warning: x (bogus)"
    assert translate_parse_status(pd.DataFrame(columns=["File_Name", "Status"])) == []


def test_layer3_edge_between_planes(planes: PlaneMap) -> None:
    frame = pd.DataFrame([
        {"Interface": Interface("a-leaf-su1-r0", "swp33"), "IPs": ["10.11.0.1"],
         "Remote_Interface": Interface("a-spine-1", "Ethernet1"), "Remote_IPs": ["10.11.0.0"]},
        {"Interface": Interface("a-leaf-su1-r0", "swp34"), "IPs": ["10.11.0.3"],
         "Remote_Interface": Interface("b-spine-2", "Ethernet1"), "Remote_IPs": ["10.21.0.2"]},
    ])
    found = translate_l3_edges(frame, planes)
    assert len(found) == 1 and found[0].check == "BF-L3-CROSS-PLANE"
    assert found[0].devices == ("a-leaf-su1-r0", "b-spine-2") and "plane A" in found[0].message


def test_bgp_sessions(planes: PlaneMap) -> None:
    base = {"Node": "a-leaf-su1-r0", "VRF": "default", "Local_AS": 4200001100, "Local_Interface": None,
            "Remote_Node": "a-spine-1", "Remote_Interface": None, "Address_Families": ["IPV4_UNICAST"],
            "Session_Type": "EBGP_SINGLEHOP"}
    frame = pd.DataFrame([
        {**base, "Local_IP": "10.11.0.1", "Remote_AS": "4200001000", "Remote_IP": "10.11.0.0",
         "Established_Status": "ESTABLISHED"},
        {**base, "Local_IP": "10.11.0.3", "Remote_AS": "4200001999", "Remote_IP": "10.11.0.2",
         "Established_Status": "NOT_COMPATIBLE"},
        {**base, "Local_IP": "10.11.0.5", "Remote_AS": "4200002000", "Remote_IP": "10.21.0.4",
         "Remote_Node": "b-spine-3", "Established_Status": "ESTABLISHED"},
    ])
    found = translate_bgp_sessions(frame, planes)
    assert sorted(f.check for f in found) == ["BF-BGP-CROSS-PLANE", "BF-BGP-NOT-ESTABLISHED"]
    assert "NOT_COMPATIBLE" in next(f.message for f in found if f.check == "BF-BGP-NOT-ESTABLISHED")


def _flow() -> Flow:
    return Flow(dscp=0, dstIp="10.22.0.1", dstPort=0, ecn=0, fragmentOffset=0, icmpCode=0, icmpVar=8,
                ingressInterface=None, ingressNode="gpu001", ingressVrf="default", ipProtocol="ICMP",
                packetLength=512, srcIp="10.12.0.1", srcPort=0, tcpFlagsAck=0, tcpFlagsCwr=0, tcpFlagsEce=0,
                tcpFlagsFin=0, tcpFlagsPsh=0, tcpFlagsRst=0, tcpFlagsSyn=0, tcpFlagsUrg=0)


def test_reachability_flow_becomes_a_finding_with_the_example_flow() -> None:
    trace = Trace(disposition="ACCEPTED", hops=[Hop(node="gpu001", steps=[]), Hop(node="a-leaf-su1-r0", steps=[]),
                                                 Hop(node="b-leaf-su1-r0", steps=[])])
    frame = pd.DataFrame([{"Flow": _flow(), "Traces": [trace], "TraceCount": 1}])
    found = translate_flows("BF-REACH-CROSS-PLANE", frame, "A", "why")
    assert len(found) == 1 and found[0].devices == ("gpu001",) and found[0].plane == "A"
    assert "10.12.0.1" in found[0].message and "10.22.0.1" in found[0].message
    assert "gpu001 -> a-leaf-su1-r0 -> b-leaf-su1-r0" in found[0].message and "ACCEPTED" in found[0].message
    assert translate_flows("BF-LOOPS", pd.DataFrame(columns=["Flow", "Traces", "TraceCount"]), "", "w") == []


def test_undefined_references() -> None:
    frame = pd.DataFrame([{"File_Name": "configs/x", "Struct_Type": "route-map", "Ref_Name": "PLANE-A-IN",
                           "Context": "bgp inbound route-map", "Lines": None}])
    assert "route-map PLANE-A-IN" in translate_undefined(frame)[0].message


def test_connection_failure_is_fast_and_says_how_to_start_batfish() -> None:
    started = time.monotonic()
    with pytest.raises(BatfishUnavailable) as info:
        connect("127.0.0.1:1", timeout=1.0)
    assert time.monotonic() - started < 10
    assert "docker run" in str(info.value) and "batfish/allinone" in str(info.value)


@pytest.mark.batfish
@pytest.mark.skipif(not os.environ.get("BATFISH_HOST"), reason="needs a live Batfish service: set BATFISH_HOST")
def test_integration_with_a_live_batfish(rendered: Path, tmp_path: Path) -> None:
    from dualrail_net.verify.batfish.questions import run_suite
    session = connect(os.environ["BATFISH_HOST"])
    snap_dir = tmp_path / "snap"
    export_snapshot(rendered, snap_dir)
    results = run_suite(session, snap_dir, load_snapshot(rendered))
    assert all(r.findings == [] for r in results), [(r.check, r.findings[:2]) for r in results if r.findings]
    broken = tmp_path / "broken"
    shutil.copytree(rendered, broken)
    frr = broken / "multi-plane/gw-storage-1/frr.conf"
    frr.write_text(frr.read_text().replace("  network 10.20.0.92/32\n", "  network 10.20.0.92/32\n  import vrf plane-a\n"))
    export_snapshot(broken, tmp_path / "snap2")
    results = {r.check: r for r in run_suite(session, tmp_path / "snap2", load_snapshot(broken))}
    assert results["BF-REACH-CROSS-PLANE"].findings


@pytest.mark.parametrize("planted", ["plane-A/a-spine-1/running-config", "plane-A/a-leaf-su1-r0/frr.conf",
                                     "servers/gpu001/interfaces", "resolved/cabling.csv"])
def test_the_snapshot_never_carries_a_file_through_a_link(rendered: Path, tmp_path: Path, planted: str) -> None:
    """The snapshot leaves the machine (for a Batfish service): a link planted in the rendered
    folder is refused, never followed to the file it points at."""
    from dualrail_net.verify.parsers import UnreadableFile
    out = tmp_path / "build"
    shutil.copytree(rendered, out, symlinks=True)
    (out / planted).unlink()
    (out / planted).symlink_to("/etc/passwd")
    with pytest.raises(UnreadableFile, match="symlink"):
        export_snapshot(out, tmp_path / "snapshot")
    assert not (tmp_path / "snapshot").exists() or "root:" not in "".join(
        p.read_text(errors="replace") for p in (tmp_path / "snapshot").rglob("*") if p.is_file())
