"""How big each plane can grow without renumbering, derived from the hardware port layout.

Addresses, ASNs and ports are allocated by *slot*: a device's position in a layout sized by what
the hardware could ever connect (a leaf has N uplinks, so a pod can never have more than N
spines). Slots never move when devices are added, which is what makes growth non-disruptive.
"""

from __future__ import annotations

from dataclasses import dataclass

from dualrail_net.sot.schema import Fabric, expand_ports


@dataclass(frozen=True)
class PlaneCapacity:
    pods: int
    spines_per_pod: int
    leaves_per_pod: int
    super_spine_groups: int
    super_spines_per_group: int
    gateways: int
    server_ports_per_leaf: int
    leaf_spine_links: int = 1  # parallel cables per leaf-spine pair
    spine_super_spine_links: int = 1  # parallel cables per spine-super-spine pair

    @property
    def spines(self) -> int:
        return self.pods * self.spines_per_pod

    @property
    def leaves(self) -> int:
        return self.pods * self.leaves_per_pod

    @property
    def super_spines(self) -> int:
        return self.super_spine_groups * self.super_spines_per_group

    @property
    def top_tier(self) -> int:
        """Slots of the tier gateways attach to (spines in two tiers, super-spines in three)."""
        return self.super_spines if self.super_spine_groups else self.spines

    @property
    def switches(self) -> int:
        return self.super_spines + self.spines + self.leaves

    @property
    def server_block_size(self) -> int:
        """Addresses in one leaf's server block: a /31 per server port, rounded up to a power of two."""
        need = 2 * self.server_ports_per_leaf
        size = 1
        while size < need:
            size *= 2
        return size

    # Slot layout of a plane's loopback/management range: super-spines, spines, leaves, gateways.
    def super_spine_slot(self, group: int, index: int) -> int:
        return group * self.super_spines_per_group + index

    def spine_slot(self, pod: int, index: int) -> int:
        return self.super_spines + pod * self.spines_per_pod + index

    def leaf_slot(self, pod: int, index: int) -> int:
        return self.super_spines + self.spines + pod * self.leaves_per_pod + index

    def gateway_slot(self, index: int) -> int:
        return self.switches + index

    @property
    def loopbacks(self) -> int:
        return self.switches + self.gateways


def plane_capacity(fabric: Fabric) -> PlaneCapacity:
    hw = fabric.hardware
    leaf_uplinks = len(expand_ports(hw.leaf.uplink_ports))
    spine_down = len(expand_ports(hw.spine.downlink_ports))
    three_tier = fabric.topology.tiers == 3
    spine_up = len(expand_ports(hw.spine.uplink_ports)) if hw.spine.uplink_ports else 0
    ss_down = len(expand_ports(hw.super_spine.downlink_ports)) if (three_tier and hw.super_spine) else 0
    if three_tier:
        border = hw.super_spine.border_ports if hw.super_spine else None
    else:
        border = hw.spine.border_ports
    # Parallel links divide the ports: a pair of switches takes that many consecutive ports on each
    # side (ports left over by the division stay unused).
    ls = fabric.topology.parallel_links.leaf_spine
    sss = fabric.topology.parallel_links.spine_super_spine
    return PlaneCapacity(
        pods=ss_down // sss if three_tier else 1,
        spines_per_pod=leaf_uplinks // ls,
        leaves_per_pod=spine_down // ls,
        super_spine_groups=leaf_uplinks // ls if three_tier else 0,
        super_spines_per_group=spine_up // sss if three_tier else 0,
        gateways=len(expand_ports(border)) if border else 0,
        server_ports_per_leaf=len(expand_ports(hw.leaf.server_ports)),
        leaf_spine_links=ls,
        spine_super_spine_links=sss,
    )
