"""The capacity model's ECMP prediction against the running twin: fail devices for real (ports
down, FRR killed, as `twin chaos` does), read every live leaf's kernel routes toward every other
leaf's server block, and compare the next-hop counts with `capacity.reach.PlaneReach`.

A width the twin shows and the model does not predict is a defect of the model (or of the twin's
emulation): the comparison names every (leaf, destination leaf) pair that differs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from dualrail_net.capacity.reach import PlaneReach
from dualrail_net.resolve.model import Fabric
from dualrail_net.twin import netlink
from dualrail_net.twin.chaos import kill_switch, restore_switch
from dualrail_net.twin.checks import TwinView, wait_converged
from dualrail_net.twin.lifecycle import load_state
from dualrail_net.twin.shell import TwinError

Pair = tuple[str, str]  # (leaf, destination leaf)


@dataclass(frozen=True)
class WidthComparison:
    failed: tuple[str, ...]
    predicted: dict[Pair, int]
    observed: dict[Pair, int]
    seconds: float  # until the twin showed the prediction (or the timeout)

    @property
    def disagreements(self) -> dict[Pair, tuple[int, int]]:
        """pair -> (predicted, observed) where they differ."""
        return {k: (v, self.observed.get(k, 0)) for k, v in self.predicted.items() if self.observed.get(k, 0) != v}


def _blocks(fabric: Fabric) -> dict[str, list[str]]:
    """Leaf -> its server blocks (what BGP carries for the servers behind it)."""
    return {s.name: [n for n in s.networks if not n.endswith("/32")]
            for s in fabric.switches.values() if s.role == "leaf"}


def observed_widths(view: TwinView, fabric: Fabric, failed: frozenset[str]) -> dict[Pair, int]:
    blocks = _blocks(fabric)
    out = {}
    for sw in view.plan.switches:
        if sw.role != "leaf" or sw.device in failed:
            continue
        try:
            table = {r["dst"]: r for r in netlink.routes(sw.ns)}
        except (TwinError, OSError):
            table = {}
        for other, nets in blocks.items():
            if other == sw.device or fabric.switches[other].plane != sw.plane:
                continue
            widths = []
            for net in nets:
                route = table.get(net)
                widths.append(len(route.get("nexthops", [])) or (1 if route.get("gateway") else 0) if route else 0)
            out[(sw.device, other)] = min(widths, default=0)
    return out


def predicted_widths(fabric: Fabric, failed: frozenset[str]) -> dict[Pair, int]:
    out = {}
    for plane in fabric.planes:
        reach = PlaneReach(fabric, plane, failed)
        for leaf in reach.live_leaves:
            for other in reach.leaves:
                if other != leaf:
                    out[(leaf, other)] = reach.width(leaf, other)
    return out


def compare_under_failure(fabric: Fabric, failed: list[str], timeout: float = 45.0) -> WidthComparison:
    """Fail ``failed`` in the running twin, wait until the leaves show the model's widths (or the
    timeout), restore the devices and wait for full convergence again."""
    state = load_state()
    if not state:
        raise TwinError("no twin is running: `dualrail twin up` first")
    view = TwinView(state)
    by_device = {sw.device: sw for sw in view.plan.switches}
    unknown = [n for n in failed if n not in by_device]
    if unknown:
        raise TwinError(f"not switches of the running twin: {', '.join(unknown)}")
    dead = frozenset(failed)
    predicted = predicted_widths(fabric, dead)
    wait_converged()
    started = time.monotonic()
    try:
        for name in failed:
            kill_switch(by_device[name].ns)
        while True:
            observed = observed_widths(view, fabric, dead)
            if observed == predicted or time.monotonic() - started > timeout:
                break
            time.sleep(0.5)
        seconds = time.monotonic() - started
    finally:
        for name in failed:
            restore_switch(by_device[name].ns, name)
        wait_converged()
    return WidthComparison(tuple(failed), predicted, observed, seconds)
