"""The plane-isolation question suite, and the translation of Batfish's answers into Findings with
the same ids and format as our own checks (the example flow Batfish gives goes into the message)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import build_topology

Rows = Iterable[dict[str, Any]]

TITLES = {
    "BF-PARSE": "Batfish parses every file (fileParseStatus all PASSED)",
    "BF-INIT-ISSUES": "Batfish reports no initialization issues",
    "BF-L3-CROSS-PLANE": "Batfish's layer3Edges have no edge between planes",
    "BF-BGP-NOT-ESTABLISHED": "Batfish's bgpSessionStatus: every session ESTABLISHED",
    "BF-BGP-CROSS-PLANE": "Batfish's bgpSessionStatus: no session between planes",
    "BF-REACH-CROSS-PLANE": "Batfish reachability: no flow from one plane's locations to another plane's addresses",
    "BF-REACH-INTRA-PLANE": "Batfish reachability: every server subnet of a plane reaches every other",
    "BF-MULTIPATH": "Batfish multipathConsistency is clean",
    "BF-LOOPS": "Batfish detectLoops is clean",
    "BF-UNDEFINED-REFS": "Batfish undefinedReferences is empty",
}


def _rows(frame: Any) -> list[dict[str, Any]]:
    if frame is None:
        return []
    if hasattr(frame, "to_dict"):
        records: list[dict[str, Any]] = frame.to_dict("records")
        return records
    return list(frame)


def _host(iface: Any) -> str:
    return str(getattr(iface, "hostname", None) or (iface.get("hostname") if isinstance(iface, dict) else iface))


def _first_ip(value: Any) -> str | None:
    if isinstance(value, (list, tuple)) and value:
        return str(value[0]).split("/")[0]
    if isinstance(value, str) and value:
        return value.split("/")[0]
    return None


def _f(check: str, devices: list[str], plane: str, message: str, why: str,
       severity: Severity = Severity.ERROR) -> Finding:
    return Finding(check, severity, tuple(devices), plane, message, why)


class PlaneMap:
    """Which plane a Batfish node, VRF or address is in, from our own reading of the rendered files."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        topo = build_topology(snap)
        self.node_plane = {(d.lower(), (v or "default")): p for (d, v), p in topo.node_plane.items()}

    def of_address(self, ip: str | None) -> str | None:
        return self.snap.plane_of_address(ip) if ip else None

    def of_node(self, node: str, vrf: str | None = None) -> str | None:
        return self.node_plane.get((node.lower(), vrf or "default")) or self.snap.plane_of_device(node)


def translate_parse_status(frame: Any) -> list[Finding]:
    return [_f("BF-PARSE", list(r.get("Nodes") or []), "", f"{r['File_Name']}: {r['Status']}",
               "Batfish ignores what it cannot parse: its answers would miss part of the config")
            for r in _rows(frame) if r.get("Status") != "PASSED"]


def translate_init_issues(frame: Any) -> list[Finding]:
    return [_f("BF-INIT-ISSUES", list(r.get("Nodes") or []), "",
               f"{r.get('Type')}: {r.get('Details')}" + (f" ({r.get('Line_Text')})" if r.get("Line_Text") else ""),
               "Batfish's model of these devices is incomplete or differs from the config")
            for r in _rows(frame)]


def translate_l3_edges(frame: Any, planes: PlaneMap) -> list[Finding]:
    out = []
    for r in _rows(frame):
        a, b = r["Interface"], r["Remote_Interface"]
        pa = planes.of_address(_first_ip(r.get("IPs"))) or planes.of_node(_host(a))
        pb = planes.of_address(_first_ip(r.get("Remote_IPs"))) or planes.of_node(_host(b))
        if pa and pb and pa != pb:
            out.append(_f("BF-L3-CROSS-PLANE", [_host(a), _host(b)], "", f"layer-3 edge {a} (plane {pa}) - {b} "
                          f"(plane {pb})", "an L3 adjacency between planes joins their failure domains"))
    return out


def translate_bgp_sessions(frame: Any, planes: PlaneMap) -> list[Finding]:
    out = []
    for r in _rows(frame):
        node, remote = str(r.get("Node")), str(r.get("Remote_Node") or "?")
        local_plane = planes.of_address(_first_ip(r.get("Local_IP"))) or planes.of_node(node, r.get("VRF"))
        remote_plane = planes.of_address(_first_ip(r.get("Remote_IP")))
        if r.get("Established_Status") != "ESTABLISHED":
            out.append(_f("BF-BGP-NOT-ESTABLISHED", [node, remote], local_plane or "",
                          f"{node} ({r.get('VRF')}) -> {r.get('Remote_IP')} AS {r.get('Remote_AS')}: "
                          f"{r.get('Established_Status')}", "Batfish predicts this session does not come up"))
        if local_plane and remote_plane and local_plane != remote_plane:
            out.append(_f("BF-BGP-CROSS-PLANE", [node, remote], "", f"{node} (plane {local_plane}) peers "
                          f"{r.get('Remote_IP')} (plane {remote_plane})", "a session between planes exchanges routes"))
    return out


def _flow_text(r: dict[str, Any]) -> str:
    flow = r.get("Flow")
    traces = r.get("Traces") or []
    first = traces[0] if isinstance(traces, (list, tuple)) and traces else None
    hops = getattr(first, "hops", None)
    path = " -> ".join(str(getattr(h, "node", h)) for h in hops) if hops else ""
    disposition = getattr(first, "disposition", "")
    return f"{flow}" + (f" via {path}" if path else "") + (f" [{disposition}]" if disposition else "")


def translate_flows(check: str, frame: Any, plane: str, why: str) -> list[Finding]:
    out = []
    for r in _rows(frame):
        flow = r.get("Flow")
        node = str(getattr(flow, "ingressNode", "") or "")
        out.append(_f(check, [node] if node else [], plane, f"example flow: {_flow_text(r)}", why))
    return out


def translate_undefined(frame: Any) -> list[Finding]:
    return [_f("BF-UNDEFINED-REFS", [], "", f"{r.get('File_Name')}: {r.get('Struct_Type')} {r.get('Ref_Name')} "
               f"({r.get('Context')}) is referenced but not defined", "an undefined policy changes what is allowed")
            for r in _rows(frame)]


def _nodes_of(planes: PlaneMap, plane: str) -> list[str]:
    return sorted({d for (d, _), p in planes.node_plane.items() if p == plane})


def run_suite(session: Any, snapshot_dir: Path, snap: Snapshot) -> list[CheckResult]:
    """Ask Batfish every question of the suite about ``snapshot_dir``; needs a live service."""
    from pybatfish.datamodel.flow import HeaderConstraints, PathConstraints

    planes = PlaneMap(snap)
    session.set_network("dualrail")
    session.init_snapshot(str(snapshot_dir), name="dualrail", overwrite=True)
    q = session.q
    results: dict[str, CheckResult] = {k: CheckResult(k, v) for k, v in TITLES.items()}

    def ask(check: str, fn: Callable[[], list[Finding]]) -> None:
        started = time.monotonic()
        results[check].findings.extend(fn())
        results[check].seconds += time.monotonic() - started

    ask("BF-PARSE", lambda: translate_parse_status(q.fileParseStatus().answer().frame()))
    ask("BF-INIT-ISSUES", lambda: translate_init_issues(q.initIssues().answer().frame()))
    ask("BF-L3-CROSS-PLANE", lambda: translate_l3_edges(q.layer3Edges().answer().frame(), planes))
    bgp = translate_bgp_sessions(q.bgpSessionStatus().answer().frame(), planes)
    for f in bgp:
        results[f.check].findings.append(f)
    servers = sorted(snap.servers)
    for plane in snap.planes:
        mine = ",".join(str(n) for n in snap.routed[plane])
        others = ",".join(str(n) for p, nets in snap.routed.items() if p != plane for n in nets)
        start = ",".join(_nodes_of(planes, plane) + servers)
        ask("BF-REACH-CROSS-PLANE", lambda: translate_flows(
            "BF-REACH-CROSS-PLANE", q.reachability(
                pathConstraints=PathConstraints(startLocation=start),
                headers=HeaderConstraints(srcIps=mine, dstIps=others), actions="SUCCESS").answer().frame(),
            plane, "a flow between planes means they are not isolated"))
        leaves = ",".join(n for n in _nodes_of(planes, plane) if (m := snap.meta(n)) is not None and m.role == "leaf")
        ask("BF-REACH-INTRA-PLANE", lambda: translate_flows(
            "BF-REACH-INTRA-PLANE", q.reachability(
                pathConstraints=PathConstraints(startLocation=leaves),
                headers=HeaderConstraints(srcIps=mine, dstIps=mine), actions="FAILURE").answer().frame(),
            plane, "servers of this plane cannot reach each other"))
    ask("BF-MULTIPATH", lambda: translate_flows("BF-MULTIPATH", q.multipathConsistency().answer().frame(), "",
                                                "paths of one flow disagree: some ECMP members drop it"))
    ask("BF-LOOPS", lambda: translate_flows("BF-LOOPS", q.detectLoops().answer().frame(), "",
                                            "a forwarding loop burns bandwidth until TTL expiry"))
    ask("BF-UNDEFINED-REFS", lambda: translate_undefined(q.undefinedReferences().answer().frame()))
    return list(results.values())
