"""The checks on rendered artifacts. Each check has a stable id (a JUnit test case), a title
(what passing proves) and lives in the module of its domain. ``run_checks`` runs them all."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from dualrail_net.gcpause import gc_paused
from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.model import Interface
from dualrail_net.verify.routes import RouteResult, compute_routes
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import Topology, build_topology


@dataclass
class Context:
    snap: Snapshot

    @cached_property
    def topo(self) -> Topology:
        return build_topology(self.snap)

    @cached_property
    def routes(self) -> RouteResult:
        return compute_routes(self.snap, self.topo)

    @cached_property
    def switch_ports(self) -> list[tuple[str, str, Interface]]:
        """(plane, device, interface) for every addressed, non-loopback switch port."""
        out = []
        for dev in self.snap.devices.values():
            for iface in dev.interfaces.values():
                if iface.is_loopback or not iface.addresses:
                    continue
                plane = self.topo.node_plane.get((dev.name, iface.vrf))
                if plane:
                    out.append((plane, dev.name, iface))
        return out


CheckFn = Callable[[Context], list[Finding]]


@dataclass(frozen=True)
class CheckSpec:
    id: str
    title: str
    fn: CheckFn


REGISTRY: list[CheckSpec] = []


def check(check_id: str, title: str) -> Callable[[CheckFn], CheckFn]:
    def wrap(fn: CheckFn) -> CheckFn:
        REGISTRY.append(CheckSpec(check_id, title, fn))
        return fn
    return wrap


def finding(check_id: str, devices: list[str] | tuple[str, ...], plane: str | None, message: str, why: str,
            severity: Severity = Severity.ERROR) -> Finding:
    return Finding(check_id, severity, tuple(devices), plane or "", message, why)


def run_checks(snap: Snapshot, only: set[str] | None = None) -> list[CheckResult]:
    from dualrail_net.verify.checks import (  # noqa: F401  (registration on import)
        addressing,
        bgp,
        ecmp,
        isolation,
        qos,
        servers,
        symmetry,
    )
    ctx = Context(snap)
    results = []
    # millions of small acyclic objects (endpoints, sessions): the cyclic GC would rescan them all
    with gc_paused():
        for spec in REGISTRY:
            if only and spec.id not in only:
                continue
            started = time.monotonic()
            found = spec.fn(ctx)
            results.append(CheckResult(spec.id, spec.title, found, seconds=time.monotonic() - started))
    return results
