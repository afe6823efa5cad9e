"""What-if failures: which devices a failure takes down, and what each plane and rail keeps.

A failure is written as a device name (`a-spine-1`), a whole plane (`plane:B`), a pod of a plane
(`pod:A:2`) or the first k devices of a role in a plane (`spines:A:3`, `leaves:B:1`,
`super-spines:A:2`). A scenario is a name and a list of failures; `default_scenarios` gives the
standard set the report shows.

Per plane the impact is: the server bandwidth still attached (a port whose leaf is down or cut off
from every other leaf is lost), the bandwidth each live leaf can still move across the fabric
(min of its live server ports and its uplinks to live spines), the bisection left, and the ECMP
width left on every live leaf (`reach.PlaneReach`). Per server: which (plane, rail) ports it loses,
and whether it loses both planes (then the job on it stops).
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass, field

from dualrail_net.capacity.figures import gbps
from dualrail_net.capacity.reach import PlaneGraph, PlaneReach, bits
from dualrail_net.resolve.model import Fabric, Link

_ROLES = {"spines": "spine", "leaves": "leaf", "super-spines": "super_spine", "gateways": "gateway"}
SPEC_HELP = ("a device name, plane:P, pod:P:N, spines|leaves|super-spines:P:K (the first K of that role), "
             "rack:NAME (every switch in it) or feed:NAME (the switches that lose all power with that PDU feed)")


class FailureSpecError(ValueError):
    """A failure that names nothing in the fabric (one line, with what would have been valid)."""


def expand_failure(fabric: Fabric, spec: str) -> list[str]:
    """The devices one failure takes down, in a stable order."""
    text = spec.strip()
    if text in fabric.switches:
        return [text]
    parts = text.split(":")
    if len(parts) == 2 and parts[0] == "plane":
        _plane(fabric, parts[1], spec)
        return sorted(s.name for s in fabric.switches.values() if s.plane == parts[1])
    if len(parts) == 3 and parts[0] == "pod":
        _plane(fabric, parts[1], spec)
        pod = _count(parts[2], spec)
        names = sorted(s.name for s in fabric.switches.values()
                       if s.plane == parts[1] and (s.pod or 1) == pod and s.role in ("leaf", "spine"))
        if not names:
            raise FailureSpecError(f"{spec}: plane {parts[1]} has no pod {pod}")
        return names
    if len(parts) == 2 and parts[0] == "rack":
        rack = fabric.racks.get(parts[1])
        if rack is None:
            raise FailureSpecError(f"{spec}: no rack {parts[1]!r} (fabric.yaml racks: "
                                   f"{', '.join(fabric.racks) or 'none'})")
        return sorted(n for n in rack.switches if n in fabric.switches)
    if len(parts) == 2 and parts[0] == "feed":
        if not any(parts[1] in r.feeds for r in fabric.racks.values()):
            raise FailureSpecError(f"{spec}: no rack draws from feed {parts[1]!r}")
        # a switch fails when every feed of its rack is down: one feed takes only single-fed racks
        return sorted(n for r in fabric.racks.values() if set(r.feeds) == {parts[1]}
                      for n in r.switches if n in fabric.switches)
    if len(parts) == 3 and parts[0] in _ROLES:
        _plane(fabric, parts[1], spec)
        k = _count(parts[2], spec)
        members = sorted((s for s in fabric.switches.values()
                          if s.role == _ROLES[parts[0]] and parts[1] in s.planes), key=lambda s: (s.pod, s.index))
        if k > len(members):
            raise FailureSpecError(f"{spec}: plane {parts[1]} has only {len(members)} {parts[0]}")
        return [s.name for s in members[:k]]
    close = difflib.get_close_matches(text, list(fabric.switches), n=1)
    hint = f" (did you mean {close[0]}?)" if close else f" (a failure is {SPEC_HELP})"
    raise FailureSpecError(f"{spec}: no such device or failure{hint}")


def _plane(fabric: Fabric, plane: str, spec: str) -> None:
    if plane not in fabric.planes:
        raise FailureSpecError(f"{spec}: no plane {plane!r} (planes: {', '.join(fabric.planes)})")


def _count(text: str, spec: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 9) or int(text) < 1:
        raise FailureSpecError(f"{spec}: {text!r} is not a positive count")
    return int(text)


@dataclass(frozen=True)
class Scenario:
    name: str
    failures: tuple[str, ...]


def default_scenarios(fabric: Fabric) -> list[Scenario]:
    """One spine, half the spines of pod 1, one leaf, one super-spine and one pod (three tiers), and
    the whole plane: for every plane."""
    out = []
    for plane in fabric.planes:
        members = defaultdict(list)
        for s in sorted(fabric.plane_switches(plane), key=lambda s: (s.pod, s.index)):
            members[s.role].append(s)
        spines = members["spine"]
        if spines:
            out.append(Scenario(f"one spine of plane {plane}", (spines[0].name,)))
            pod1 = [s for s in spines if s.pod == spines[0].pod]
            if len(pod1) > 2:
                half = len(pod1) // 2
                out.append(Scenario(f"{half} spines of plane {plane}", tuple(s.name for s in pod1[:half])))
        if members["leaf"]:
            out.append(Scenario(f"one leaf of plane {plane}", (members["leaf"][0].name,)))
        if members["super_spine"]:
            out.append(Scenario(f"one super-spine of plane {plane}", (members["super_spine"][0].name,)))
            out.append(Scenario(f"pod 1 of plane {plane}", (f"pod:{plane}:1",)))
        out.append(Scenario(f"plane {plane}", (f"plane:{plane}",)))
    return out


@dataclass(frozen=True)
class PlaneImpact:
    plane: str
    server_gbps: float  # server ports still attached to a leaf that reaches the fabric
    fabric_gbps: float  # what live leaves can move across the fabric: sum of min(down, up)
    rail_gbps: dict[int, float]
    healthy_server_gbps: float
    healthy_fabric_gbps: float
    healthy_rail_gbps: dict[int, float]
    bisection_gbps: float
    healthy_bisection_gbps: float
    leaf_ecmp: dict[str, tuple[int, int]]  # live leaf -> (narrowest width, leaves it cannot reach)
    healthy_ecmp: int  # the plan's width (narrowest over leaves with nothing failed)
    failed_leaves: int

    # a plane or rail that carried nothing (no servers yet) loses nothing: 100% of it is left
    @property
    def fabric_pct(self) -> float:
        return 100.0 * self.fabric_gbps / self.healthy_fabric_gbps if self.healthy_fabric_gbps else 100.0

    def rail_pct(self, rail: int) -> float:
        h = self.healthy_rail_gbps.get(rail, 0.0)
        return 100.0 * self.rail_gbps.get(rail, 0.0) / h if h else 100.0

    @property
    def min_ecmp(self) -> int:
        return min((w for w, _ in self.leaf_ecmp.values()), default=0)


@dataclass(frozen=True)
class ScenarioImpact:
    scenario: Scenario
    failed: tuple[str, ...]
    planes: dict[str, PlaneImpact]
    lost_ports: dict[str, dict[int, tuple[str, ...]]] = field(default_factory=dict)  # plane -> rail -> servers
    lost_both: tuple[str, ...] = ()  # servers left with no live port in every plane they attach to
    dead_servers: dict[str, frozenset[str]] = field(default_factory=dict)  # plane -> servers with no live port

    @property
    def servers_losing_a_rail(self) -> int:
        return len({s for rails in self.lost_ports.values() for names in rails.values() for s in names})


@dataclass
class _PlaneData:
    """What the impact of any scenario on one plane needs, read from the fabric once."""

    graph: PlaneGraph
    leaf_down: dict[str, float] = field(default_factory=dict)  # leaf -> server Gbit/s cabled to it
    leaf_up: dict[str, list[tuple[int, float]]] = field(default_factory=dict)  # leaf -> [(spine bit, Gbit/s)]
    spine_up: dict[int, list[tuple[int, float]]] = field(default_factory=dict)  # spine bit -> [(super bit, Gbit/s)]
    leaf_rail: dict[str, int] = field(default_factory=dict)
    leaf_ports: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # leaf -> [(server, rail)]
    server_ports: dict[str, int] = field(default_factory=dict)  # server -> its ports in this plane
    leaf_up_total: dict[str, float] = field(default_factory=dict)
    spine_up_total: dict[int, float] = field(default_factory=dict)
    spine_up_sum: float = 0.0


def _plane_data(fabric: Fabric, plane: str, links: list[Link]) -> _PlaneData:
    data = _PlaneData(PlaneGraph(fabric, plane, links))
    g = data.graph
    for sw in fabric.plane_switches(plane):
        if sw.role == "leaf":
            data.leaf_rail[sw.name] = sw.rail if sw.rail is not None else 0
            data.leaf_down[sw.name] = 0.0
            data.leaf_up[sw.name] = []
            data.leaf_ports[sw.name] = []
    for link in links:
        if link.kind == "server-leaf":
            data.leaf_down[link.b] += gbps(link.speed)
        elif link.kind == "leaf-spine":
            data.leaf_up[link.a].append((g.spine_bit[link.b], gbps(link.speed)))
        elif link.kind == "spine-super_spine":
            data.spine_up.setdefault(g.spine_bit[link.a], []).append((g.super_bit[link.b], gbps(link.speed)))
    data.leaf_up_total = {leaf: sum(g for _, g in ups) for leaf, ups in data.leaf_up.items()}
    data.spine_up_total = {bit: sum(g for _, g in ups) for bit, ups in data.spine_up.items()}
    data.spine_up_sum = sum(data.spine_up_total.values())
    for srv in fabric.servers:
        for port in srv.ports:
            if port.plane == plane:
                data.leaf_ports[port.leaf].append((srv.name, port.rail))
                data.server_ports[srv.name] = data.server_ports.get(srv.name, 0) + 1
    return data


def server_plane_counts(fabric: Fabric) -> dict[str, int]:
    """How many planes each server attaches to (a server is cut off when it loses all of them)."""
    return {srv.name: len({p.plane for p in srv.ports}) for srv in fabric.servers}


def merge_impacts(parts: list[ScenarioImpact], planes: list[str], server_planes: dict[str, int]) -> ScenarioImpact:
    """One scenario's impact from impacts computed on disjoint sets of planes (in ``planes`` order)."""
    first = parts[0]
    by_plane = {p: x for part in parts for p, x in part.planes.items()}
    lost = {p: r for part in parts for p, r in part.lost_ports.items()}
    dead = {p: d for part in parts for p, d in part.dead_servers.items()}
    count: dict[str, int] = defaultdict(int)
    for servers in dead.values():
        for s in servers:
            count[s] += 1
    return ScenarioImpact(first.scenario, first.failed, {p: by_plane[p] for p in planes if p in by_plane},
                          {p: lost[p] for p in planes if p in lost},
                          tuple(sorted(s for s, n in count.items() if n >= server_planes.get(s, 2))), dead)


class FailureModel:
    """Impact of failure scenarios on one resolved fabric (the fabric is read once). ``planes``:
    only these planes (the impact on the others is computed elsewhere and merged)."""

    def __init__(self, fabric: Fabric, planes: list[str] | None = None,
                 links: dict[str, list[Link]] | None = None) -> None:
        self.fabric = fabric
        self.planes = planes if planes is not None else list(fabric.planes)
        if links is None:
            links = defaultdict(list)
            for link in fabric.links:
                links[link.plane].append(link)
        self._data = {p: _plane_data(fabric, p, links[p]) for p in self.planes}
        self._healthy = {p: self._plane(p, frozenset(), None)[0] for p in self.planes}
        self._server_planes = server_plane_counts(fabric)

    def failed_devices(self, scenario: Scenario) -> tuple[str, ...]:
        names: dict[str, None] = {}
        for spec in scenario.failures:
            names.update(dict.fromkeys(expand_failure(self.fabric, spec)))
        return tuple(names)

    def impact(self, scenario: Scenario) -> ScenarioImpact:
        failed = self.failed_devices(scenario)
        dead = frozenset(failed)
        planes = {}
        lost: dict[str, dict[int, tuple[str, ...]]] = {}
        lost_planes: dict[str, int] = defaultdict(int)
        dead_by_plane = {}
        for plane in self.planes:
            touched = any(plane in self.fabric.switches[n].planes for n in failed)
            impact, lost_rails, dead_servers = (self._plane(plane, dead, self._healthy[plane]) if touched
                                                else (self._healthy[plane], {}, set[str]()))
            planes[plane] = impact
            if lost_rails:
                lost[plane] = lost_rails
            dead_by_plane[plane] = frozenset(dead_servers)
            for server in dead_servers:
                lost_planes[server] += 1
        # cut off: no live port in any plane the server has (a model of only some planes cannot know,
        # and leaves this to merge_impacts)
        both = tuple(sorted(s for s, n in lost_planes.items() if n >= self._server_planes.get(s, 2)))
        return ScenarioImpact(scenario, failed, planes, lost, both, dead_by_plane)

    def _plane(self, plane: str, dead: frozenset[str],
               healthy: PlaneImpact | None) -> tuple[PlaneImpact, dict[int, tuple[str, ...]], set[str]]:
        data = self._data[plane]
        reach = PlaneReach(self.fabric, plane, dead, data.graph)
        dead_spines, dead_supers = data.graph.dead_masks(dead)
        ecmp = reach.leaf_summary()
        # a live leaf that reaches no other leaf (while the plane has others) carries nothing across
        others = len(reach.live_leaves) > 1
        usable = [n for n, (w, _u) in ecmp.items() if not others or w]
        usable_set = set(usable)
        rail_moved: dict[int, float] = defaultdict(float)
        fabric_gbps = server_gbps = up_total = 0.0
        for leaf in usable:
            up = (sum(g for bit, g in data.leaf_up[leaf] if not dead_spines >> bit & 1) if dead_spines
                  else data.leaf_up_total[leaf])
            down = data.leaf_down[leaf]
            moved = min(down, up)
            fabric_gbps += moved
            server_gbps += down
            up_total += up
            rail_moved[data.leaf_rail[leaf]] += moved
        lost_rails: dict[int, set[str]] = defaultdict(set)
        lost_count: dict[str, int] = defaultdict(int)
        for leaf, ports in data.leaf_ports.items():
            if leaf not in usable_set:
                for server, rail in ports:
                    lost_rails[rail].add(server)
                    lost_count[server] += 1
        dead_servers = {s for s, n in lost_count.items() if n == data.server_ports[s]}
        if dead_supers:
            spine_up = sum(g for bit, ups in data.spine_up.items() if not dead_spines >> bit & 1
                           for sbit, g in ups if not dead_supers >> sbit & 1)
        else:
            spine_up = data.spine_up_sum - sum(data.spine_up_total.get(bit, 0.0) for bit in bits(dead_spines))
        crossings = [server_gbps, up_total] + ([spine_up] if data.spine_up else [])
        bis = min(crossings) / 2
        rails = {r: rail_moved.get(r, 0.0) for r in sorted(set(data.leaf_rail.values()))}
        h = healthy
        healthy_ecmp = h.healthy_ecmp if h else min((w for w, _ in ecmp.values()), default=0)
        impact = PlaneImpact(plane, server_gbps, fabric_gbps, rails,
                             h.server_gbps if h else server_gbps, h.fabric_gbps if h else fabric_gbps,
                             h.rail_gbps if h else rails, bis, h.bisection_gbps if h else bis, ecmp, healthy_ecmp,
                             sum(1 for n in data.leaf_rail if n in dead))
        return impact, {r: tuple(sorted(s)) for r, s in sorted(lost_rails.items())}, dead_servers
