"""The resolved fabric: every name, address, ASN and cable decided. Later stages read only this.

Plain dataclasses (slots, no validation): the inventory was validated upstream, and resolution of a
100k-GPU fabric creates millions of these objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from dualrail_net.sot.schema import Management

Role = Literal["leaf", "spine", "super_spine", "gateway"]
PortKind = Literal["server", "uplink", "downlink", "border", "external"]  # external: a gateway's outside

# The BGP timers every session of the fabric is planned with (keepalive, hold time, in seconds): a
# link that dies without its carrier going down leaves its plane's paths when the hold time runs
# out. Rendered where a platform's default differs (EOS: 60/180); verify holds every session to it.
BGP_TIMERS = (3, 9)


@dataclass(slots=True)
class Port:
    """One routed switch port and what is on its other end."""

    name: str
    number: int
    kind: PortKind
    address: str  # "10.11.0.1/31"
    peer: str
    peer_port: str
    peer_address: str
    speed: str
    plane: str
    vrf: str | None = None


@dataclass(slots=True)
class BgpPeer:
    address: str
    remote_asn: int
    peer: str
    port: str
    kind: PortKind
    plane: str
    vrf: str | None = None
    accepts: tuple[str, ...] = ()  # an external peer: the prefixes the plane takes from it


@dataclass(slots=True)
class PlaneVrf:
    """One plane's routing instance on a device that touches several planes."""

    name: str
    plane: str
    table: int
    loopback: str  # "10.10.0.100/32"
    router_id: str
    networks: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Switch:
    name: str
    role: Role
    plane: str | None  # None for devices that touch several planes (they use vrfs)
    platform: str
    model: str
    firmware: str
    pod: int  # 1-based; 0 where pods do not apply
    index: int  # 1-based position within its role/pod/group
    asn: int
    router_id: str
    loopback: str
    mgmt_address: str | None
    mtu: int
    qos_profile: str
    maximum_paths: int
    multipath_relax: bool
    ports: list[Port] = field(default_factory=list)
    bgp_peers: list[BgpPeer] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)  # prefixes this device originates
    static_blackholes: list[str] = field(default_factory=list)  # anchors for aggregated server blocks
    vrfs: list[PlaneVrf] = field(default_factory=list)
    rail: int | None = None
    su: int | None = None

    @property
    def planes(self) -> list[str]:
        return [self.plane] if self.plane else [v.plane for v in self.vrfs]


@dataclass(slots=True)
class Link:
    """One cable of the cabling plan."""

    plane: str
    kind: str  # server-leaf, leaf-spine, spine-super_spine, border, external (b: a device outside the fabric)
    a: str
    a_port: str
    a_address: str
    b: str
    b_port: str
    b_address: str
    speed: str


@dataclass(slots=True)
class ServerPort:
    nic: str
    port: int
    ifname: str
    rdma_device: str
    plane: str
    rail: int
    address: str  # "10.12.0.1/31"
    gateway: str  # leaf side of the /31
    leaf: str
    leaf_port: str
    table: int  # per-NIC routing table
    mtu: int


@dataclass(slots=True)
class PlaneRoute:
    """A route in the server's main table steering a plane's addresses to a NIC of that plane."""

    prefix: str
    via: str
    dev: str


@dataclass(slots=True)
class ResolvedServer:
    name: str
    model: str
    pod: int
    su: int
    slot: int
    ports: list[ServerPort]
    plane_routes: list[PlaneRoute]
    model_description: str = ""  # the server model's free text, shown in the rendered files' headers
    mgmt_address: str | None = None  # "198.51.100.201/24": how the deploy reaches it (None: it is not deployed)


@dataclass(slots=True)
class Qos:
    trust: str
    roce_dscp: int
    roce_priority: int
    roce_tc: int
    cnp_dscp: int
    cnp_priority: int
    cnp_tc: int
    pfc_priorities: list[int]
    pfc_xoff_bytes: int
    pfc_xon_delta_bytes: int
    pfc_cable_length_m: int
    ecn_tcs: list[int]
    ecn_min_bytes: int
    ecn_max_bytes: int
    ecn_probability: int
    roce_bandwidth_percent: int


@dataclass(slots=True)
class Plane:
    name: str
    mtu: int
    qos_profile: str
    pools: dict[str, str]
    # What may be routed inside the plane: loopbacks and server blocks (never the /31 fabric links).
    routed_prefixes: list[str]
    firmware: dict[str, str]


@dataclass(slots=True)
class IbMember:
    server: str
    guid: str
    membership: str


@dataclass(slots=True)
class IbPartition:
    name: str
    pkey: int
    ipoib: bool
    mtu: int | None
    rate: int | None
    sl: int | None
    members: list[IbMember]


@dataclass(slots=True)
class IbHostPort:
    server: str
    guid: str
    leaf: str
    leaf_port: int
    device: str = ""  # its RDMA device on the server ("" when the inventory does not say)


@dataclass(slots=True)
class IbSwitch:
    name: str
    role: str  # leaf or spine
    guid: str  # node GUID


@dataclass(slots=True)
class IbLink:
    a: str  # host or switch name
    a_port: int
    a_guid: str  # port GUID of a host end; node GUID of a switch end
    b: str
    b_port: int
    b_guid: str


@dataclass(slots=True)
class IbPlane:
    name: str
    subnet_prefix: str
    routing_engine: str
    sm_host: str
    sm_guid: str
    leaves: list[str]
    spines: list[str]
    hosts: list[IbHostPort]
    partitions: list[IbPartition]
    default_partition: str
    switches: list[IbSwitch] = field(default_factory=list)
    links: list[IbLink] = field(default_factory=list)
    sm_standby: str | None = None  # the standby SM's host (lower priority), and its port GUID
    sm_standby_guid: str = ""


@dataclass(frozen=True, slots=True)
class GpuPlace:
    index: int  # CUDA order within the server
    pci_address: str
    pcie_root: str
    numa: int


@dataclass(frozen=True, slots=True)
class NicPortPlace:
    port: int
    rdma_device: str
    plane: str
    rail: int
    speed_gbps: int


@dataclass(frozen=True, slots=True)
class NicPlace:
    name: str
    pci_address: str | None
    pcie_root: str | None
    numa: int | None
    ports: tuple[NicPortPlace, ...]
    pcie_gen: int | None = None
    pcie_lanes: int | None = None


@dataclass(frozen=True, slots=True)
class HostLayout:
    """A server model's inside as NCCL sees it: GPUs and NICs under PCIe switches and sockets."""

    model: str
    gpus: tuple[GpuPlace, ...]  # empty: the model gives a GPU count only (no topology file)
    nics: tuple[NicPlace, ...]
    bootstrap_ifname: str | None = None

    @property
    def has_topology(self) -> bool:
        return bool(self.gpus)


@dataclass(frozen=True, slots=True)
class RackPlace:
    """A rack: the PDU feeds its switches draw from and the switches in it."""
    feeds: tuple[str, ...]
    switches: tuple[str, ...]


@dataclass(slots=True)
class Fabric:
    name: str
    tiers: int
    rails: int
    planes: dict[str, Plane]
    switches: dict[str, Switch]
    links: list[Link]
    servers: list[ResolvedServer]
    qos: dict[str, Qos]
    ib_planes: dict[str, IbPlane] = field(default_factory=dict)
    management: Management | None = None  # the inventory's section, validated (every switch renders it)
    host_layouts: dict[str, HostLayout] = field(default_factory=dict)  # server model -> its GPUs and NICs
    racks: dict[str, RackPlace] = field(default_factory=dict)  # rack -> its feeds and switches (optional)

    def plane_switches(self, plane: str) -> list[Switch]:
        return [s for s in self.switches.values() if plane in s.planes]
