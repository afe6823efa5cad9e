"""``twin check``: prove with real routing state and real packets that the rendered fabric works
and that the planes are isolated."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from dualrail_net.manifest import Manifest
from dualrail_net.planes import PlanePools
from dualrail_net.twin import frr, netlink
from dualrail_net.twin.lifecycle import load_state, plan_from_state, rundir
from dualrail_net.twin.plan import TwinPlan
from dualrail_net.twin.shell import TwinError
from dualrail_net.twin.traffic import Pairs, probe_once
from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.parsers import parse_server
from dualrail_net.verify.parsers.frr import parse_frr
from dualrail_net.verify.model import DeviceConfig


def _finding(check: str, devices: list[str], plane: str, message: str, why: str) -> Finding:
    return Finding(check, Severity.ERROR, tuple(devices), plane, message, why)


class TwinView:
    """What the checks need to know about the running twin, from its state and the rendered files."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.plan: TwinPlan = plan_from_state(state)
        self.output = Path(self.plan.output)
        self.manifest = Manifest.load(self.output)
        self.plane_pools = PlanePools.of_manifest(self.manifest.pools)
        # a twin brought up with --no-servers has no server namespaces to probe from
        self.servers_up = bool(state.get("servers_up", True))
        running = self.plan.servers if self.servers_up else []
        self.servers = {s.server: parse_server(s.server, Path(s.config_dir)) for s in running}
        self.server_ns = {s.server: s.ns for s in running}
        self.uplinks: dict[str, int] = defaultdict(int)
        for c in self.plan.cables:
            if c.kind != "server-leaf":
                self.uplinks[c.a_ns] += 1  # the lower tier is the a-end of every fabric cable
        self.frr: dict[str, DeviceConfig] = {}
        for sw in self.plan.switches:
            dev = DeviceConfig(sw.device, "cumulus")
            parse_frr((rundir(sw.ns) / "frr.conf").read_text(), dev)
            self.frr[sw.ns] = dev

    def plane_of(self, address: str) -> str | None:
        return self.plane_pools.plane_of_address(address)

    def server_ports(self, server: str) -> list[tuple[str, str, str]]:
        """(ifname, ip, plane) of a server's NIC ports."""
        out = []
        for name, iface in self.servers[server].interfaces.items():
            if iface.addresses:
                ip = iface.addresses[0].split("/")[0]
                out.append((name, ip, self.plane_of(ip) or ""))
        return out

    def loopbacks(self) -> dict[str, list[tuple[str, str]]]:
        """plane -> [(device, loopback ip)] from the switches' rendered BGP networks."""
        out: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for sw in self.plan.switches:
            for inst in self.frr[sw.ns].bgp.values():
                for net in inst.networks:
                    if net.endswith("/32"):
                        out[sw.plane].append((sw.ns, net[:-3]))
        return out


def check_bgp(view: TwinView, first_only: bool = False) -> CheckResult:
    result = CheckResult("TWIN-BGP-ESTABLISHED", "every configured BGP session is Established")
    for sw in view.plan.switches:
        if first_only and result.findings:
            break
        summary = frr.vtysh_json(rundir(sw.ns), "show bgp summary json")
        peers = summary.get("ipv4Unicast", {}).get("peers", {})
        expected = {a for inst in view.frr[sw.ns].bgp.values() for a in inst.neighbors}
        for addr in sorted(expected):
            state = peers.get(addr, {}).get("state", "missing")
            if state != "Established":
                result.findings.append(_finding(result.check, [sw.device], sw.plane,
                                                f"{sw.ns}: session to {addr} is {state}",
                                                "a down session removes a path; a never-up one means a config error"))
    return result


def _kernel_routes(ns: str) -> list[dict[str, Any]]:
    try:
        return netlink.routes(ns)
    except (TwinError, OSError):
        return []


def check_ecmp(view: TwinView, first_only: bool = False) -> CheckResult:
    result = CheckResult("TWIN-ECMP", "every leaf installs remote server prefixes over all its uplinks")
    blocks: dict[str, list[tuple[str, str]]] = defaultdict(list)  # plane -> [(leaf ns, block)]
    for sw in view.plan.switches:
        if sw.role == "leaf":
            for inst in view.frr[sw.ns].bgp.values():
                blocks[sw.plane] += [(sw.ns, n) for n in inst.networks if not n.endswith("/32")]
    for sw in view.plan.switches:
        if sw.role != "leaf" or (first_only and result.findings):
            continue
        table = {r["dst"]: r for r in _kernel_routes(sw.ns)}
        want = view.uplinks[sw.ns]
        for owner, block in blocks[sw.plane]:
            if owner == sw.ns:
                continue
            route = table.get(block)
            width = 0
            if route:
                width = len(route.get("nexthops", [])) or (1 if route.get("gateway") else 0)
            if width != want:
                result.findings.append(_finding(result.check, [sw.device], sw.plane,
                                                f"{sw.ns}: {block} has {width} next hops, expected {want}",
                                                "missing ECMP width means idle uplinks or a lost path"))
    return result


def reachability_jobs(view: TwinView) -> dict[str, Pairs]:
    """Every server pair over each plane (first port of the plane to the peer's port on the same
    rail position), plus every NIC port to one peer, so each port is exercised."""
    jobs: dict[str, Pairs] = defaultdict(list)
    names = sorted(view.servers)
    for i, s in enumerate(names):
        mine = view.server_ports(s)
        for t in names:
            if t == s:
                continue
            theirs = view.server_ports(t)
            for plane in view.plan.planes:
                src = [p for p in mine if p[2] == plane]
                dst = [p for p in theirs if p[2] == plane]
                if src and dst:
                    jobs[view.server_ns[s]].append((src[0][1], dst[0][1]))
        peer = view.server_ports(names[(i + 1) % len(names)])
        for k, (_, ip, plane) in enumerate(mine):
            same = [p for p in peer if p[2] == plane]
            if same:
                jobs[view.server_ns[s]].append((ip, same[k % len(same)][1]))
    return jobs


def check_reachability(view: TwinView) -> CheckResult:
    result = CheckResult("TWIN-REACH", "every server pair reaches each other over each plane's NICs")
    if not view.servers_up:
        result.skipped = "the twin runs without servers (twin up --no-servers)"
        return result
    for ns, rows in probe_once(reachability_jobs(view)).items():
        for r in rows:
            if r["received"] == 0:
                result.findings.append(_finding(result.check, [ns], view.plane_of(r["dst"]) or "",
                                                f"{ns}: {r['src']} -> {r['dst']} unreachable",
                                                "training traffic between these GPUs cannot use this plane"))
    return result


def check_isolation(view: TwinView) -> CheckResult:
    result = CheckResult("TWIN-ISOLATION", "no address of one plane is reachable from another plane's NIC or "
                         "switch, and no switch holds a route into another plane")
    loops = view.loopbacks()
    jobs: dict[str, Pairs] = defaultdict(list)
    names = sorted(view.servers)
    for i, s in enumerate(names):
        peers = [names[(i + k) % len(names)] for k in (1, 2)]
        for _, ip, plane in view.server_ports(s):
            for other, members in loops.items():
                if other != plane:
                    jobs[view.server_ns[s]] += [(ip, lo) for _, lo in members]
            for t in peers:
                jobs[view.server_ns[s]] += [(ip, dst) for _, dst, p in view.server_ports(t) if p != plane]
    for sw in view.plan.switches:
        for other, members in loops.items():
            if other != sw.plane:
                jobs[sw.ns] += [("", lo) for _, lo in members]
    for ns, rows in probe_once(jobs, count=2, timeout=0.5).items():
        for r in rows:
            if r["received"]:
                result.findings.append(_finding(result.check, [ns], "", f"{ns}: {r['src'] or 'switch'} reached "
                                                f"{r['dst']} of plane {view.plane_of(r['dst'])}",
                                                "the planes are not isolated: one plane's fault can reach the other"))
    for sw in view.plan.switches:
        for route in _kernel_routes(sw.ns):
            dst = route.get("dst", "")
            if dst in ("default", "") or route.get("protocol") == "kernel":
                continue
            route_plane = view.plane_of(dst if "/" in dst else dst + "/32")
            if route_plane and route_plane != sw.plane:
                result.findings.append(_finding(result.check, [sw.device], sw.plane,
                                                f"{sw.ns} has a route to {dst} of plane {route_plane}",
                                                "a route into another plane draws traffic across the boundary"))
    return result


def check_qos_file(view: TwinView) -> CheckResult:
    """The twin has no switchd: nothing applies qos_features.conf, so what is checked is that the
    rendered file is where a switch would read it (a deploy that leaves it out is caught here)."""
    result = CheckResult("TWIN-QOS-FILE", "every switch holds its rendered qos_features.conf where switchd reads it")
    for sw in view.plan.switches:
        rendered = Path(sw.config_dir) / "qos_features.conf"
        if sw.vrf or not rendered.exists():
            continue
        placed = rundir(sw.ns) / "qos_features.conf"
        if not placed.exists():
            result.findings.append(_finding(result.check, [sw.device], sw.plane, f"{sw.device}: no qos_features.conf "
                                            "on the switch", "the switch would run without the lossless RoCE profile"))
        elif placed.read_text() != rendered.read_text():
            result.findings.append(_finding(result.check, [sw.device], sw.plane, f"{sw.device}: its qos_features.conf "
                                            "differs from the rendered one", "the switch runs another QoS profile"))
    return result


def run_twin_checks() -> list[CheckResult]:
    state = load_state()
    if not state:
        raise TwinError("no twin is running: `dualrail twin up` first")
    view = TwinView(state)
    results = []
    for fn in (check_bgp, check_ecmp, check_reachability, check_isolation, check_qos_file):
        started = time.monotonic()
        res = fn(view)
        res.seconds = time.monotonic() - started
        results.append(res)
    return results


def wait_converged(timeout: float = 120, poll: float = 0.25) -> float:
    """Seconds until every session is Established and every leaf has full ECMP width."""
    state = load_state()
    if not state:
        raise TwinError("no twin is running")
    view = TwinView(state)
    start = time.monotonic()
    while True:
        # stop at the first unconverged device: polling 144 switches fully would itself load the CPU
        if not check_bgp(view, first_only=True).findings and not check_ecmp(view, first_only=True).findings:
            if not check_bgp(view).findings and not check_ecmp(view).findings:
                return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise TwinError(f"the twin did not converge within {timeout}s")
        time.sleep(poll)
