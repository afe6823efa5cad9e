"""Resolve the InfiniBand planes: per plane, its switches, where each HCA port is cabled, and
each partition's members by port GUID."""

from __future__ import annotations

from dualrail_net.resolve import naming
from dualrail_net.resolve.model import IbHostPort, IbLink, IbMember, IbPartition, IbPlane, IbSwitch
from dualrail_net.sot.schema import IbPlane as IbPlaneSpec
from dualrail_net.sot.schema import Inventory

# Switch node GUIDs when the inventory gives no base: NVIDIA OUI, then the plane's subnet prefix low
# 16 bits, then the switch index. Deterministic, unique per plane.
DEFAULT_SWITCH_OUI = 0x0002C9 << 40
# the unicast LIDs a subnet manager gives out: 0x0001-0xBFFF (the LID space below the multicast
# range); every HCA port and switch of an IB plane takes at least one
UNICAST_LID_TOP = 0xBFFF


def _guid(value: int) -> str:
    return f"0x{value:016x}"


def switch_guids(plane: str, spec: IbPlaneSpec) -> dict[str, str]:
    """Each switch's node GUID, spines then leaves: the hardware's when the inventory has them
    (validation: all of the plane's switches), else counted up from the plane's base."""
    spines, leaves = naming.ib_switch_names(plane, spec.spines, spec.leaves)
    base = (int(spec.switch_guid_base, 16) if spec.switch_guid_base
            else DEFAULT_SWITCH_OUI | (int(spec.subnet_prefix, 16) & 0xFFFF) << 16)
    return {name: spec.switch_guids.get(name) or _guid(base + i) for i, name in enumerate(spines + leaves)}


def resolve_infiniband(inv: Inventory) -> dict[str, IbPlane]:
    ib = inv.infiniband
    if ib is None:
        return {}
    out: dict[str, IbPlane] = {}
    for plane, spec in ib.ib_planes.items():
        spines, leaves = naming.ib_switch_names(plane, spec.spines, spec.leaves)
        guid_of = {h.server: h.guids[plane] for h in ib.hosts if plane in h.guids}
        hosts = [
            # Hosts fill leaves in inventory order: appending a host never moves an existing one.
            IbHostPort(h.server, h.guids[plane], leaves[i // spec.hosts_per_leaf], i % spec.hosts_per_leaf + 1,
                       h.devices.get(plane, ""))
            for i, h in enumerate(ib.hosts) if plane in h.guids
        ]
        partitions = [
            IbPartition(
                name=p.name, pkey=p.pkey, ipoib=p.ipoib, mtu=p.mtu, rate=p.rate, sl=p.sl,
                members=[IbMember(m.server, guid_of[m.server], m.membership) for m in p.members if m.server in guid_of],
            )
            for p in ib.partitions
        ]
        sw_guid = switch_guids(plane, spec)
        switches = [IbSwitch(n, "spine", sw_guid[n]) for n in spines]
        switches += [IbSwitch(n, "leaf", sw_guid[n]) for n in leaves]
        # Leaf ports 1..hosts_per_leaf face hosts; the next ports go to spine 1, 2, ...; spine port
        # N goes to leaf N. Fixed positions, so adding a host or a leaf moves nothing.
        links = [IbLink(h.server, 1, h.guid, h.leaf, h.leaf_port, sw_guid[h.leaf]) for h in hosts]
        for li, leaf in enumerate(leaves):
            for si, spine in enumerate(spines):
                links.append(IbLink(leaf, spec.hosts_per_leaf + 1 + si, sw_guid[leaf], spine, li + 1, sw_guid[spine]))
        out[plane] = IbPlane(
            name=plane, subnet_prefix=spec.subnet_prefix.lower(), routing_engine=spec.routing_engine,
            sm_host=spec.sm_host, sm_guid=guid_of.get(spec.sm_host, ""), leaves=leaves, spines=spines,
            hosts=hosts, partitions=partitions, default_partition=ib.default_partition,
            switches=switches, links=links, sm_standby=spec.sm_standby,
            sm_standby_guid=guid_of.get(spec.sm_standby, "") if spec.sm_standby else "",
        )
    return out
