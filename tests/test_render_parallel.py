"""Rendering in two processes (render/pipeline.py, PARALLEL_FROM) against the plain one-process
path: the same files in the same order, byte for byte, and the same manifest; what the child
raises reaches the caller as itself; the child's progress reaches the caller's callback."""

from __future__ import annotations

import copy
import os

import pytest

from dualrail_net.forked import Forked, ForkedFailed
from dualrail_net.render import render_fabric
from dualrail_net.render.escape import UnsafeValue
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.synthetic import Shape, synthetic_inventory

PLAIN = 10**9  # a threshold no fabric reaches: the one-process reference


def _pairs(fabric: Fabric, parallel_from: int) -> list[tuple[str, str]]:
    return [(a.path, a.content) for a in render_fabric(fabric, parallel_from=parallel_from).artifacts]


def test_two_processes_render_the_example_byte_for_byte(example_fabric: Fabric) -> None:
    assert _pairs(example_fabric, 1) == _pairs(example_fabric, PLAIN)


def test_two_processes_render_a_three_tier_fabric_byte_for_byte() -> None:
    shape = Shape(tiers=3, rails=4, sus_per_pod=2, pods=2, spines_per_pod=4, super_spines_per_group=2,
                  servers_per_su=8, leaf_uplinks=4, spine_downlinks=8, spine_uplinks=4,
                  super_spine_downlinks=8, border_ports=0)
    fabric = resolve_fabric(synthetic_inventory(shape))
    parallel, plain = _pairs(fabric, 1), _pairs(fabric, PLAIN)
    assert len(plain) > 100
    assert [p for p, _ in parallel] == [p for p, _ in plain]
    assert parallel == plain  # the manifest included: every device entry, in order


def test_the_childs_progress_reaches_the_callback(example_fabric: Fabric) -> None:
    seen: list[int] = []
    render_fabric(example_fabric, progress=seen.append, parallel_from=1)
    assert sum(seen) == len(example_fabric.switches) + len(example_fabric.servers)


def test_an_unsafe_value_in_the_childs_half_is_raised_as_itself(example_fabric: Fabric) -> None:
    fabric = copy.deepcopy(example_fabric)
    last = list(fabric.switches.values())[-2]  # rendered by the child
    last.router_id = "10.0.0.1 remote-as 1"
    with pytest.raises(UnsafeValue):
        render_fabric(fabric, parallel_from=1)
    with pytest.raises(UnsafeValue):  # the plain path says the same
        render_fabric(fabric, parallel_from=PLAIN)


class _Unpicklable(Exception):
    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("no")


def _raise_unpicklable(_tick: object) -> None:
    raise _Unpicklable("lost")


def test_forked_reports_a_child_that_dies_or_raises_what_cannot_cross() -> None:
    with pytest.raises(ForkedFailed, match="died"):
        Forked(lambda _tick: os._exit(3), "a dying child").result()
    with pytest.raises(ForkedFailed, match="_Unpicklable"):
        Forked(_raise_unpicklable, "an odd child").result()
    ticks: list[int] = []
    assert Forked(lambda tick: (tick(2), tick(3), "done")[-1], "a child", on_tick=ticks.append).result() == "done"
    assert ticks == [2, 3]
