"""A switch's routing part (parsers.ROUTING_FIELDS) as plain tuples, to cross from the parsing
child to this process (verify/snapshot.py).

Pickling the model objects calls a Python reducer per object: for the 800k BGP neighbors of a
100k-GPU fabric that took 6 s, longer than parsing them. Tuples of strings and integers go
through marshal in C; rebuilding the objects here costs a fraction of that. Field order is the
dataclasses' own, so a field added to the model is carried (or the round-trip test fails).
"""

from __future__ import annotations

import marshal
from dataclasses import fields
from operator import attrgetter
from typing import Any

from dualrail_net.verify.model import BgpInstance, DeviceConfig, Neighbor, PrefixListEntry, RouteMapEntry, StaticRoute

_NEIGHBORS = [f.name for f in fields(BgpInstance)].index("neighbors")
# each class's field values in field order, which is what its constructor takes positionally
_GETTERS = {cls: attrgetter(*(f.name for f in fields(cls)))
            for cls in (BgpInstance, Neighbor, PrefixListEntry, RouteMapEntry, StaticRoute)}


def _values(obj: Any) -> tuple[Any, ...]:
    """The field values in field order (each of these classes has several fields: a tuple)."""
    values: tuple[Any, ...] = _GETTERS[type(obj)](obj)
    return values


def _instance(inst: BgpInstance) -> tuple[Any, ...]:
    values = list(_values(inst))
    values[_NEIGHBORS] = list(map(_GETTERS[Neighbor], inst.neighbors.values()))  # C-level: 800k of them
    return tuple(values)


def encode(devices: list[DeviceConfig]) -> bytes:
    return marshal.dumps([
        (dev.name, dev.platform, dev.hostname, list(dev.vrfs),
         [_instance(inst) for inst in dev.bgp.values()],
         [(name, [_values(e) for e in entries]) for name, entries in dev.prefix_lists.items()],
         [(name, [_values(e) for e in entries]) for name, entries in dev.route_maps.items()],
         [_values(r) for r in dev.static_routes], dev.vrf_route_leaks)
        for dev in devices])


def decode(data: bytes) -> list[DeviceConfig]:
    out = []
    for name, platform, hostname, vrfs, instances, prefix_lists, route_maps, statics, leaks in marshal.loads(data):
        dev = DeviceConfig(name, platform, hostname)
        dev.vrfs = dict.fromkeys(vrfs)
        for values in instances:
            inst = BgpInstance(*values)
            inst.neighbors = {n[0]: Neighbor(*n) for n in values[_NEIGHBORS]}
            dev.bgp[inst.vrf] = inst
        dev.prefix_lists = {pl: [PrefixListEntry(*e) for e in entries] for pl, entries in prefix_lists}
        dev.route_maps = {rm: [RouteMapEntry(*e) for e in entries] for rm, entries in route_maps}
        dev.static_routes = [StaticRoute(*r) for r in statics]
        dev.vrf_route_leaks = leaks  # marshal keeps the (from, into) tuples
        out.append(dev)
    return out
