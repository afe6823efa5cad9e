"""Synthetic inventories of any size, for benchmarks and property tests.

Builds a schema-valid Inventory directly (no YAML): N planes, two or three tiers, HPN-style servers
with one dual-plane NIC per rail. Pools are sized from the hardware port layout, as validation wants.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from dualrail_net.sot.capacity import plane_capacity
from dualrail_net.sot.schema import (
    AsnPlan,
    Fabric,
    GatewayHardware,
    GatewaySpec,
    Hardware,
    Inventory,
    LeafHardware,
    LinkSpeeds,
    Nic,
    NicPort,
    ParallelLinks,
    PlaneSpec,
    Pools,
    QosFile,
    QosProfile,
    Server,
    ServerModel,
    ServersFile,
    SpineHardware,
    SuperSpineHardware,
    Topology,
)

PLANE_NAMES = "ABCD"


@dataclass(frozen=True)
class Shape:
    planes: int = 2
    tiers: int = 2
    rails: int = 4
    sus_per_pod: int = 2
    pods: int = 1
    spines_per_pod: int = 4
    super_spines_per_group: int = 0
    servers_per_su: int = 16
    # hardware port counts (capacity): what the fabric could grow to without renumbering
    leaf_server_ports: int = 32
    leaf_uplinks: int = 32
    spine_downlinks: int = 60
    spine_uplinks: int = 0
    super_spine_downlinks: int = 0
    border_ports: int = 4
    gateways: int = 0
    # parallel cables per leaf-spine and per spine-super-spine pair
    leaf_spine_links: int = 1
    spine_super_spine_links: int = 1
    # out-of-band management addresses (one per switch; what the twin's sshd and a deploy need)
    management_network: str | None = None

    @property
    def gpus(self) -> int:
        return self.pods * self.sus_per_pod * self.servers_per_su * 8


def hundred_k_shape() -> Shape:
    """~100k GPUs, dual-plane, three tiers, 12.5k servers with 8 GPUs and 8 dual-plane NIC ports.

    Per plane: 98 pods x (4 SUs x 8 rails = 32 leaves) leaves, 32 spines per pod, 32 groups x 32 super-spines.
    """
    return Shape(planes=2, tiers=3, rails=8, sus_per_pod=4, pods=98, spines_per_pod=32, super_spines_per_group=32,
                 servers_per_su=32, leaf_server_ports=32, leaf_uplinks=32, spine_downlinks=32, spine_uplinks=32,
                 super_spine_downlinks=128, border_ports=0)


def thousand_switch_shape() -> Shape:
    """~1k switches, three tiers: the benchmarks' --quick fabric."""
    return Shape(tiers=3, rails=8, sus_per_pod=2, pods=12, spines_per_pod=16, super_spines_per_group=8,
                 servers_per_su=32, leaf_uplinks=32, spine_downlinks=32, spine_uplinks=32,
                 super_spine_downlinks=64, border_ports=0)


def small_three_tier_shape() -> Shape:
    """Two pods of two leaves and two spines, four super-spines a plane sharing one ASN: every tier
    present, small enough for the twin (24 switches)."""
    return Shape(tiers=3, rails=2, sus_per_pod=1, pods=2, spines_per_pod=2, super_spines_per_group=2,
                 servers_per_su=2, leaf_uplinks=2, spine_downlinks=4, spine_uplinks=2, super_spine_downlinks=4,
                 border_ports=0)


QOS = QosProfile.model_validate({
    "trust": "dscp", "roce": {"dscp": 26, "priority": 3, "traffic_class": 3},
    "cnp": {"dscp": 48, "priority": 6, "traffic_class": 6}, "pfc": {"priorities": [3]},
    "ecn": {"traffic_classes": [0, 3], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000,
            "probability": 100},
})


class _Carver:
    """Hands out aligned prefixes from a region, largest first."""

    def __init__(self, region: str) -> None:
        self.net = ipaddress.IPv4Network(region)
        self.next = int(self.net.network_address)

    def take(self, addresses: int) -> str:
        bits = max(1, (addresses - 1).bit_length())
        size = 1 << bits
        start = (self.next + size - 1) // size * size
        self.next = start + size
        return f"{ipaddress.IPv4Address(start)}/{32 - bits}"


def _ports(first: int, count: int) -> str:
    return f"{first}-{first + count - 1}"


def synthetic_inventory(shape: Shape) -> Inventory:
    three = shape.tiers == 3
    hardware = Hardware(
        leaf=LeafHardware(model="leaf", server_ports=_ports(1, shape.leaf_server_ports),
                          uplink_ports=_ports(shape.leaf_server_ports + 1, shape.leaf_uplinks)),
        spine=SpineHardware(
            model="spine", downlink_ports=_ports(1, shape.spine_downlinks),
            uplink_ports=_ports(shape.spine_downlinks + 1, shape.spine_uplinks) if three else None,
            border_ports=_ports(shape.spine_downlinks + shape.spine_uplinks + 1, shape.border_ports)
            if (shape.border_ports and not three) else None),
        super_spine=SuperSpineHardware(
            model="super-spine", downlink_ports=_ports(1, shape.super_spine_downlinks),
            border_ports=_ports(shape.super_spine_downlinks + 1, shape.border_ports) if shape.border_ports else None)
        if three else None,
        gateway=GatewayHardware(model="gw", ports=_ports(1, 512)) if shape.gateways else None,
    )
    topology = Topology(tiers=3 if three else 2, rails=shape.rails, scalable_units_per_pod=shape.sus_per_pod,
                        pods=shape.pods, max_oversubscription=64.0,
                        parallel_links=ParallelLinks(leaf_spine=shape.leaf_spine_links,
                                                     spine_super_spine=shape.spine_super_spine_links))
    probe = Fabric(name="synthetic", topology=topology, hardware=hardware,
                   planes={p: _plane(shape, i, {}) for i, p in enumerate(PLANE_NAMES[:2])})
    cap = plane_capacity(probe)
    needs = {
        "loopbacks": cap.loopbacks,
        "fabric_links": cap.leaves * cap.spines_per_pod * cap.leaf_spine_links * 2,
        "server_links": cap.leaves * cap.server_block_size,
        "super_spine_links": cap.spines * cap.super_spines_per_group * cap.spine_super_spine_links * 2 if three else 0,
        "border_links": cap.top_tier * max(cap.gateways, 1) * 2 if shape.gateways else 0,
    }
    planes = {}
    for i in range(shape.planes):
        carver = _Carver(f"10.{i * 64}.0.0/10")
        pools = {k: carver.take(v) for k, v in sorted(needs.items(), key=lambda kv: -kv[1]) if v}
        planes[PLANE_NAMES[i]] = _plane(shape, i, pools)
    names = list(planes)
    fabric = Fabric(
        name="synthetic", topology=topology, hardware=hardware, planes=planes,
        gateways=[GatewaySpec(name=f"gw-{g + 1}", asn=4100000000 + g, planes=names) for g in range(shape.gateways)],
        management_network=shape.management_network,
    )
    model = ServerModel(nics=[
        Nic(name=f"nic{r}", ports=[
            NicPort(port=pi + 1, plane=plane, rail=r, ifname=f"ens{r + 1}f{pi}", rdma_device=f"mlx5_{r * shape.planes + pi}")
            for pi, plane in enumerate(names)
        ]) for r in range(shape.rails)
    ])
    # Names follow the position so that growing a shape never renames an existing server.
    servers = [
        Server(name=f"gpu-p{pod + 1}-su{su + 1}-{slot + 1}", model="hpn", pod=pod + 1, su=su + 1, slot=slot + 1)
        for pod in range(shape.pods) for su in range(shape.sus_per_pod) for slot in range(shape.servers_per_su)
    ]
    return Inventory(fabric=fabric, qos=QosFile(qos_profiles={"roce": QOS}),
                     servers=ServersFile(server_models={"hpn": model}, servers=servers))


def _plane(shape: Shape, index: int, pools: dict[str, str]) -> PlaneSpec:
    three = shape.tiers == 3
    return PlaneSpec(
        spines_per_pod=shape.spines_per_pod,
        super_spines_per_group=shape.super_spines_per_group if three else None,
        link_speeds=LinkSpeeds(server="400G", leaf_spine="400G", spine_super_spine="400G" if three else None,
                               border="400G" if shape.gateways else None),
        mtu=9214, qos_profile="roce", firmware={"cumulus": "5.9.2", "eos": "4.32.2F"},
        pools=Pools.model_validate(pools or {"loopbacks": "10.0.0.0/8", "fabric_links": "10.0.0.0/8",
                                             "server_links": "10.0.0.0/8"}),
        asn=AsnPlan(super_spine=4200000000 + index * 10_000_000 if three else None,
                    spine_base=4200000000 + index * 10_000_000 + 1_000,
                    leaf_base=4200000000 + index * 10_000_000 + 100_000),
    )
