"""Every endpoint's address as numpy arrays, for the checks that compare addresses fabric-wide.

A Python pass over the million endpoints of a large fabric costs seconds per check; the same test
over arrays costs milliseconds. The checks use the arrays as an exact prefilter: they find the few
endpoints (or subnets) that can produce a finding, then run their plain per-endpoint logic on those
alone, so the findings are the ones that logic gives over every endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import NO_PLANE, NodeId, Topology

__all__ = ["NO_PLANE", "AddressTable", "address_table", "keys_in_several_planes"]

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]


@dataclass
class AddressTable:
    """Per endpoint, in Topology.endpoints order."""

    planes: list[str]  # a plane id below is an index into this list; NO_PLANE: none
    nodes: list[NodeId]  # the routing instances, numbered
    net: Ints  # network address
    length: Ints  # prefix length
    node: Ints  # index of the endpoint's routing instance in `nodes`
    is_server: Flags
    is_loopback: Flags
    owner_plane: Ints  # plane of the endpoint's routing instance (Topology.node_plane); servers: NO_PLANE
    address_plane: Ints  # plane whose pools hold the address (Snapshot.plane_of_net)
    instance_plane: Ints  # per routing instance (index into `nodes`): its plane (Topology.node_plane)

    @property
    def key(self) -> Ints:
        """One integer per (network, prefix length), ordered as the (network, length) tuples."""
        return (self.net << 6) | self.length


def address_table(snap: Snapshot, topo: Topology) -> AddressTable:
    """The topology's columns, with the plane of each endpoint's routing instance."""
    planes = list(topo.planes)
    for plane in topo.node_plane.values():
        if plane and plane not in planes:
            planes.append(plane)
    plane_id = {plane: i for i, plane in enumerate(planes)}
    node_plane = np.array([plane_id.get(topo.node_plane.get(n) or "", NO_PLANE) for n in topo.nodes], dtype=np.int64)
    owner_plane = np.where(topo.is_server, NO_PLANE, node_plane[topo.node])
    return AddressTable(planes, topo.nodes, topo.net, topo.length, topo.node, topo.is_server, topo.is_loopback,
                        owner_plane, topo.address_plane, node_plane)


def keys_in_several_planes(keys: Ints, planes: Ints) -> Ints:
    """The distinct keys (e.g. AddressTable.key) whose entries name two planes or more
    (NO_PLANE entries do not count)."""
    if not len(keys):
        return keys
    order = np.argsort(keys, kind="stable")
    keys, planes = keys[order], planes[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    none = np.iinfo(np.int64).max
    lowest = np.minimum.reduceat(np.where(planes != NO_PLANE, planes, none), starts)
    highest = np.maximum.reduceat(planes, starts)  # NO_PLANE is below every plane id
    result: Ints = keys[starts][(lowest != none) & (lowest < highest)]
    return result
