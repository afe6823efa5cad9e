"""Resolve the InfiniBand planes: per plane, its switches, where each HCA port is cabled, and
each partition's members by port GUID."""

from __future__ import annotations

from dualrail_net.resolve.model import IbHostPort, IbMember, IbPartition, IbPlane
from dualrail_net.sot.schema import Inventory


def resolve_infiniband(inv: Inventory) -> dict[str, IbPlane]:
    ib = inv.infiniband
    if ib is None:
        return {}
    out: dict[str, IbPlane] = {}
    for plane, spec in ib.ib_planes.items():
        prefix = plane.lower()
        leaves = [f"{prefix}-leaf-{i + 1}" for i in range(spec.leaves)]
        spines = [f"{prefix}-spine-{i + 1}" for i in range(spec.spines)]
        guid_of = {h.server: h.guids[plane] for h in ib.hosts if plane in h.guids}
        hosts = [
            # Hosts fill leaves in inventory order: appending a host never moves an existing one.
            IbHostPort(h.server, h.guids[plane], leaves[i // spec.hosts_per_leaf], i % spec.hosts_per_leaf + 1)
            for i, h in enumerate(ib.hosts) if plane in h.guids
        ]
        partitions = [
            IbPartition(
                name=p.name, pkey=p.pkey, ipoib=p.ipoib, mtu=p.mtu, rate=p.rate, sl=p.sl,
                members=[IbMember(m.server, guid_of[m.server], m.membership) for m in p.members if m.server in guid_of],
            )
            for p in ib.partitions
        ]
        out[plane] = IbPlane(
            name=plane, subnet_prefix=spec.subnet_prefix.lower(), routing_engine=spec.routing_engine,
            sm_host=spec.sm_host, sm_guid=guid_of.get(spec.sm_host, ""), leaves=leaves, spines=spines,
            hosts=hosts, partitions=partitions, default_partition=ib.default_partition,
        )
    return out
