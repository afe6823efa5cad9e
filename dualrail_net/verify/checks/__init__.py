"""The checks on rendered artifacts. Each check has a stable id (a JUnit test case), a title
(what passing proves) and lives in the module of its domain. ``run_checks`` runs them all."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, cast

from dualrail_net.gcpause import gc_paused
from dualrail_net.verify.address_table import AddressTable, address_table
from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.cabling import CablingPlan
from dualrail_net.verify.model import DeviceConfig, EcnProfile, Interface, ServerConfig
from dualrail_net.verify.routes import (
    Origins,
    PrefixIndex,
    RouteResult,
    compute_foreign_routes,
    compute_routes,
    prefix_index,
)
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import Topology, build_topology

if TYPE_CHECKING:
    from dualrail_net.verify.controlplane import PlanePlan


@dataclass(slots=True)
class Cables:
    """The cabling plan with both ends of every cable looked up in the rendered configs once, as
    columns in the plan's order (five checks walk the 600k cables of a 100k-GPU fabric)."""

    plan: CablingPlan
    a: list[Interface | None]  # the port's interface in the rendered config (None: not there)
    b: list[Interface | None]
    a_plane: list[str | None]  # the plane the end is in (see Context.cables)
    b_plane: list[str | None]

    def sides(self) -> list[tuple[str, str, list[Interface | None], list[str | None]]]:
        """Each side of the cables as (its name in the plan's columns, the far side's, its ports,
        their planes): for the checks that judge every cable end alike."""
        return [("a", "b", self.a, self.a_plane), ("b", "a", self.b, self.b_plane)]


def port_interfaces(holders: Mapping[str, DeviceConfig | ServerConfig], names: list[str],
                    ports: list[str]) -> list[Interface | None]:
    """The interface of each (holder, port) in the rendered configs; None where either is not there."""
    return [holder.interfaces.get(port) if (holder := holders.get(name)) is not None else None
            for name, port in zip(names, ports)]


@dataclass(slots=True)
class PortGroup:
    """The addressed, non-loopback ports of one switch in one plane that share their QoS values and
    MTU: the ports of one qos_features.conf group share one PFC list and one ECN dict object
    (parsers/cumulus_qos.py), so a 100k-GPU fabric's 1M ports fall into ~15k groups and a QoS
    verdict is decided once per group."""

    plane: str
    device: str
    pfc_priorities: list[int] | None
    ecn: dict[int, EcnProfile] | None
    mtu: int | None
    ports: list[Interface]


T = TypeVar("T")


@dataclass
class Context:
    snap: Snapshot
    _memo: dict[Callable[..., Any], Any] = field(default_factory=dict)
    # plane -> the plan's routes (controlplane.expected_plane), when computed before the configs
    # were all read (verify/partitioned.py: while the other side still parses the servers)
    plans: dict[str, PlanePlan] = field(default_factory=dict)

    @cached_property
    def topo(self) -> Topology:
        return build_topology(self.snap)

    @cached_property
    def addresses(self) -> AddressTable:
        """The endpoints' addresses and planes as arrays (verify/address_table.py)."""
        return address_table(self.snap, self.topo)

    @cached_property
    def origins(self) -> Origins:
        """Every originated prefix, and which instance originates which."""
        return prefix_index(self.snap, self.topo)

    @cached_property
    def routes(self) -> RouteResult:
        """Every prefix to every instance it reaches (quadratic: for tests and small fabrics)."""
        return compute_routes(self.snap, self.topo, self.origins)

    @cached_property
    def foreign_routes(self) -> RouteResult:
        """The propagation of the prefixes that can cross planes (what the isolation check needs)."""
        return compute_foreign_routes(self.snap, self.topo, self.origins)

    @property
    def prefix_index(self) -> PrefixIndex:
        return self.origins[0]

    def memo(self, compute: Callable[[Context], T]) -> T:
        """``compute(self)``, once per context: for what two checks of one domain share."""
        if compute not in self._memo:
            self._memo[compute] = compute(self)
        return cast(T, self._memo[compute])

    @cached_property
    def device_plane(self) -> dict[str, str | None]:
        """The declared plane of each switch (None: a multi-plane device)."""
        return {name: meta.plane or None for name, meta in self.snap.manifest.devices.items()}

    @cached_property
    def cables(self) -> Cables:
        """Every cable with its two ends. The plane of an end: its device's plane; for a multi-plane
        device the plane of the VRF the port is in; for a server the plane its address comes from."""
        plan, devices, servers = self.snap.cabling, self.snap.devices, self.snap.servers
        device_plane, node_plane = self.device_plane, self.topo.node_plane
        plane_of_address = self.snap.plane_of_address

        def ends(side: str) -> tuple[list[Interface | None], list[str | None]]:
            names, ports = plan.column(f"{side}_device"), plan.column(f"{side}_port")
            ifaces = port_interfaces(devices, names, ports)
            planes = [device_plane.get(name) for name in names]
            for i in [i for i, plane in enumerate(planes) if plane is None]:  # servers, multi-plane devices
                name, iface = names[i], ifaces[i]
                if name in devices:
                    planes[i] = node_plane.get((name, iface.vrf if iface else None))
                    continue
                server = servers.get(name)
                ifaces[i] = iface = server.interfaces.get(ports[i]) if server is not None else None
                planes[i] = plane_of_address(iface.addresses[0]) if iface is not None and iface.addresses else None
            return ifaces, planes

        (a, a_plane), (b, b_plane) = ends("a"), ends("b")
        return Cables(plan, a, b, a_plane, b_plane)

    @cached_property
    def port_groups(self) -> list[PortGroup]:
        """Every addressed, non-loopback switch port whose plane is known, in groups (PortGroup),
        in the order of their first port."""
        out: list[PortGroup] = []
        node_plane = self.topo.node_plane
        for dev in self.snap.devices.values():
            groups: dict[tuple[str, int, int, int | None], PortGroup] = {}
            for iface in dev.interfaces.values():
                if iface.is_loopback or not iface.addresses:
                    continue
                plane = node_plane.get((dev.name, iface.vrf))
                if not plane:
                    continue
                # ids are safe keys: the lists and dicts stay alive in the snapshot meanwhile
                key = (plane, id(iface.pfc_priorities), id(iface.ecn), iface.mtu)
                group = groups.get(key)
                if group is None:
                    group = groups[key] = PortGroup(plane, dev.name, iface.pfc_priorities, iface.ecn, iface.mtu, [])
                    out.append(group)
                group.ports.append(iface)
        return out


CheckFn = Callable[[Context], list[Finding]]


# What a check reads, declared with the check; where it runs and what is built for it follow.
ROUTING = "routing"  # switches' routing parts: BGP, prefix lists, route maps, static routes, VRF imports
SESSIONS = "sessions"  # the BGP sessions paired from the routing parts (Topology.sessions)
BASE = "base"  # what only the base parts hold: QoS, server policy routes and rules, L2 bridges
TOPOLOGY = "topology"  # what every side holds: addresses and endpoints, the manifest, the cabling plan
PARTS = frozenset({ROUTING, SESSIONS, BASE, TOPOLOGY})


@dataclass(frozen=True)
class CheckSpec:
    id: str
    title: str
    fn: CheckFn
    reads: frozenset[str] = frozenset({TOPOLOGY})

    @property
    def side(self) -> str:
        """Where verify/partitioned.py runs it: "routing" (where the routing parts are parsed),
        "base", or "either" (it reads only what both hold)."""
        if self.reads & {ROUTING, SESSIONS}:
            return "routing"
        return "base" if BASE in self.reads else "either"

    @property
    def needs_sessions(self) -> bool:
        return SESSIONS in self.reads


REGISTRY: list[CheckSpec] = []


def check(check_id: str, title: str, reads: frozenset[str] | set[str] = frozenset({TOPOLOGY})) \
        -> Callable[[CheckFn], CheckFn]:
    """Register a check. ``reads``: the parts of the folder it reads (ROUTING, SESSIONS, BASE,
    TOPOLOGY); a check cannot read both routing parts and base-only parts (no side holds both)."""
    declared = frozenset(reads)
    if not declared or declared - PARTS:
        raise ValueError(f"{check_id}: reads must be a subset of {sorted(PARTS)}, not {sorted(declared)}")
    if declared & {ROUTING, SESSIONS} and BASE in declared:
        raise ValueError(f"{check_id} reads routing parts and base-only parts: no side of verification "
                         "holds both; split the check")

    def wrap(fn: CheckFn) -> CheckFn:
        @functools.wraps(fn)
        def run(ctx: Context) -> list[Finding]:
            with running(check_id):  # its findings carry its id, however it is called
                return fn(ctx)
        REGISTRY.append(CheckSpec(check_id, title, run, declared))
        return run
    return wrap


_RUNNING: ContextVar[str] = ContextVar("running_check")


@contextmanager
def running(check_id: str) -> Iterator[None]:
    """Findings made inside carry ``check_id`` (run_group wraps every check in it; a test that
    calls a check's logic directly does too)."""
    token = _RUNNING.set(check_id)
    try:
        yield
    finally:
        _RUNNING.reset(token)


def finding(devices: list[str] | tuple[str, ...], plane: str | None, message: str, why: str,
            severity: Severity = Severity.ERROR) -> Finding:
    """A finding of the running check (its id comes from the check, never from the call site)."""
    try:
        check_id = _RUNNING.get()
    except LookupError:
        raise RuntimeError("finding() outside a running check: wrap the call in checks.running(ID)") from None
    return Finding(check_id, severity, tuple(devices), plane or "", message, why)


def registered(only: set[str] | None = None) -> list[CheckSpec]:
    """The registered checks (or ``only`` those ids), in registry order."""
    from dualrail_net.verify.checks import (  # noqa: F401  (registration on import)
        addressing,
        bgp,
        ecmp,
        hostnccl,
        hosts,
        isolation,
        links,
        management,
        qos,
        routing,
        servers,
        symmetry,
        unmodelled,
    )
    return [spec for spec in REGISTRY if not only or spec.id in only]


def run_group(ctx: Context, group: list[CheckSpec]) -> tuple[list[CheckResult], dict[str, float]]:
    """Run ``group`` in this process: its results, and what building the topology took."""
    # nearly every check reads the topology: build it first, outside any check's time
    topo = ctx.topo
    if any(spec.needs_sessions for spec in group):
        _ = topo.sessions
    results = []
    for spec in group:
        started = time.monotonic()
        found = spec.fn(ctx)
        results.append(CheckResult(spec.id, spec.title, found, seconds=time.monotonic() - started))
    return results, dict(topo.seconds)


def run_checks(snap: Snapshot, only: set[str] | None = None,
               timings: dict[str, float] | None = None) -> list[CheckResult]:
    """Run the registered checks (or ``only`` those ids) on a parsed snapshot, in this process, in
    registry order (verify/partitioned.py runs a large folder's in two). ``timings`` receives the
    seconds spent on shared work no single check owns ("topology")."""
    # millions of small acyclic objects (endpoints, sessions): the cyclic GC would rescan them all
    with gc_paused():
        results, seconds = run_group(Context(snap), registered(only))
    if timings is not None:
        timings["topology"] = sum(seconds.values())
    return results
