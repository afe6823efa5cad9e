"""The inventory schema: what a person may write in ``inventory/*.yaml``.

Every model forbids unknown keys so that a typo (``spines_per_pood``) is an error, not a silently
ignored setting. Cross-field rules that need the whole inventory live in ``validate.py``.

The inventory is hostile input (it arrives in pull requests), so values are strict:
* every model validates in pydantic's strict mode: no ``true`` for an integer, no ``"4"`` for 4;
* every name fullmatches its pattern (a trailing newline is not a name), and every other string is a
  ``Text``: printable characters only (no control, line-separator or format character), bounded length;
* every number has a physical bound (ports, bytes, counts), so an impossible size fails here with its
  file and line, never as a MemoryError in resolve or a crash of a simulator.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

PLANE_RE = re.compile(r"[A-Z][A-Z0-9]{0,3}")
NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
# Names of models, NICs and profiles: one token in every output format (no space, quote, comment or
# shell character).
LABEL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
VERSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
PCIE_RE = re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}(\.[0-7])?)?")
PCI_FUNCTION_RE = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
MAX_TEXT = 200
MAX_PORT = 1024  # front-panel ports of one switch, breakouts included
MAX_BUFFER_BYTES = 1 << 30  # no switch has a gigabyte of packet buffer per port group
SPEEDS_GBPS = {"10G": 10, "25G": 25, "40G": 40, "50G": 50, "100G": 100, "200G": 200, "400G": 400, "800G": 800}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _plane_name(value: str) -> str:
    if not PLANE_RE.fullmatch(value):
        raise ValueError(f"plane name {value!r} must be 1-4 upper-case letters/digits starting with a letter, e.g. A")
    return value


def _host_name(value: str) -> str:
    if not NAME_RE.fullmatch(value):
        raise ValueError(f"name {value!r} must be lower-case letters, digits and '-', at most 63 characters")
    return value


def _label(value: str) -> str:
    if not LABEL_RE.fullmatch(value):
        raise ValueError(f"name {value!r} must be letters, digits, '.', '_' and '-' (starting with a letter or "
                         "digit), at most 64 characters")
    return value


def _version(value: str) -> str:
    if not VERSION_RE.fullmatch(value):
        raise ValueError(f"version {value!r} must be letters, digits, '.', '_', '+' and '-', at most 64 characters")
    return value


def _pcie(value: str) -> str:
    if not PCIE_RE.fullmatch(value):
        raise ValueError(f"PCIe address {value!r} must look like '0000:1a' or '0000:1a:00.0' (quote it)")
    return value


def _pci_function(value: str) -> str:
    if not PCI_FUNCTION_RE.fullmatch(value):
        raise ValueError(f"PCI address {value!r} must be a full lower-case bus id like '0000:1b:00.0' (as lspci -D "
                         "prints it; quote it)")
    return value


PciAddress = Annotated[str, AfterValidator(_pci_function)]


def _text(value: str) -> str:
    if len(value) > MAX_TEXT:
        raise ValueError(f"text of {len(value)} characters is longer than {MAX_TEXT}")
    if not value.isprintable():
        raise ValueError("text must be printable: no newline, tab, control or format character")
    return value


def _ipv4_network(value: str) -> str:
    try:
        net = ipaddress.IPv4Network(value, strict=True)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an IPv4 prefix with host bits zero ({exc})") from exc
    return str(net)


def _speed(value: str) -> str:
    if value not in SPEEDS_GBPS:
        raise ValueError(f"speed {value!r} is not one of {', '.join(SPEEDS_GBPS)}")
    return value


def _port_range(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError("a port range is a number or a string such as '1-32' or '1-28,31'")
    text = str(value)
    if len(text) > MAX_TEXT:
        raise ValueError(f"port range of {len(text)} characters is too long")
    seen: set[int] = set()
    for part in text.split(","):
        bounds = part.strip().split("-")
        if len(bounds) > 2 or not all(re.fullmatch(r"[0-9]{1,4}", b.strip()) for b in bounds):
            raise ValueError(f"port range {text!r} must look like '1-32' or '1-28,31'")
        low, high = int(bounds[0]), int(bounds[-1])
        if low > high:
            raise ValueError(f"port range {part!r} runs backwards")
        if low < 1 or high > MAX_PORT:
            raise ValueError(f"port range {part!r} is outside 1-{MAX_PORT}")
        span = set(range(low, high + 1))
        if span & seen:
            raise ValueError(f"port {min(span & seen)} appears twice in {text!r}")
        seen |= span
    return text


GUID_ALL_ONES = (1 << 64) - 1  # (with 0: the two GUIDs the IBA reserves)


def _guid(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError("a GUID is a 64-bit hex number such as 0x0c42a10300a1b001 (quote it)")
    text = value if isinstance(value, str) else hex(value)
    if not re.fullmatch(r"0x[0-9a-fA-F]{1,16}", text):
        raise ValueError(f"GUID {text!r} must be a 64-bit hex number such as 0x0c42a10300a1b001 (quote it)")
    if int(text, 16) in (0, GUID_ALL_ONES):
        raise ValueError(f"GUID {text} is reserved (no port or switch has it): read the GUID from the hardware")
    return "0x" + text[2:].lower().zfill(16)


PlaneName = Annotated[str, AfterValidator(_plane_name)]
HostName = Annotated[str, AfterValidator(_host_name)]
Label = Annotated[str, AfterValidator(_label)]
Version = Annotated[str, AfterValidator(_version)]
Text = Annotated[str, AfterValidator(_text)]
Prefix = Annotated[str, AfterValidator(_ipv4_network)]
Speed = Annotated[str, AfterValidator(_speed)]
PortRange = Annotated[str, BeforeValidator(_port_range)]
Guid = Annotated[str, BeforeValidator(_guid)]
Asn = Annotated[int, Field(ge=1, le=4294967294)]


def _platform(value: str) -> str:
    # the registry is read at validation time, not import time: platform plug-ins import the stages
    from dualrail_net.platforms import platform_names
    names = platform_names()
    if value not in names:
        raise ValueError(f"platform {value!r} is not registered; registered: {', '.join(names)}")
    return value


# a platform registered through the ``dualrail.platforms`` entry point (dualrail_net/platforms)
PlatformName = Annotated[str, AfterValidator(_platform)]


def expand_ports(spec: str) -> list[int]:
    """'1-4,7' -> [1, 2, 3, 4, 7] (in the order written; the order is the allocation order)."""
    ports: list[int] = []
    for part in spec.split(","):
        bounds = [int(b) for b in part.strip().split("-")]
        ports.extend(range(bounds[0], bounds[-1] + 1))
    return ports


# ---------------------------------------------------------------------------------------------
# fabric.yaml


class ParallelLinks(Strict):
    """Cables between one pair of switches of adjacent tiers (each its own /31 and BGP session, so
    a leaf's ECMP width toward a spine's prefixes is spines x links). A leaf with U uplink ports then
    takes at most U / leaf_spine spines, and a spine at most its downlink ports / leaf_spine leaves."""

    leaf_spine: int = Field(default=1, ge=1, le=16, description="parallel links per leaf-spine pair")
    spine_super_spine: int = Field(default=1, ge=1, le=16, description="parallel links per spine-super-spine pair")


class Topology(Strict):
    """Shared structure of every plane. Counts that may differ per plane live in PlaneSpec."""

    tiers: Literal[2, 3] = 2
    rails: int = Field(ge=1, le=16, description="rail-optimized: one leaf per rail per scalable unit")
    scalable_units_per_pod: int = Field(ge=1, le=MAX_PORT, description="leaves per pod = scalable_units_per_pod x rails")
    pods: int = Field(default=1, ge=1, le=MAX_PORT, description="pods per plane; must be 1 for tiers: 2")
    max_oversubscription: float = Field(default=1.0, ge=1.0, le=64.0,
                                        description="leaf server bandwidth / uplink bandwidth")
    parallel_links: ParallelLinks = Field(default_factory=ParallelLinks)


class LeafHardware(Strict):
    model: Label
    server_ports: PortRange
    uplink_ports: PortRange


class SpineHardware(Strict):
    model: Label
    downlink_ports: PortRange
    uplink_ports: PortRange | None = None
    border_ports: PortRange | None = None


class SuperSpineHardware(Strict):
    model: Label
    downlink_ports: PortRange
    border_ports: PortRange | None = None


class GatewayHardware(Strict):
    model: Label
    ports: PortRange


class Hardware(Strict):
    leaf: LeafHardware
    spine: SpineHardware
    super_spine: SuperSpineHardware | None = None
    gateway: GatewayHardware | None = None


def _renders(role: str) -> Callable[[str], str]:
    """A validator: the platform can render ``role`` (a multi-plane gateway needs per-plane VRFs)."""
    def check(value: str) -> str:
        from dualrail_net.platforms import get_platform
        roles = get_platform(value).roles
        if role not in roles:
            raise ValueError(f"platform {value!r} does not render the {role.replace('_', '-')} role "
                             f"(it renders: {', '.join(sorted(roles))})")
        return value
    return check


class Platforms(Strict):
    leaf: Annotated[PlatformName, AfterValidator(_renders("leaf"))] = "cumulus"
    spine: Annotated[PlatformName, AfterValidator(_renders("spine"))] = "cumulus"
    super_spine: Annotated[PlatformName, AfterValidator(_renders("super_spine"))] = "cumulus"
    gateway: Annotated[PlatformName, AfterValidator(_renders("gateway"))] = "cumulus"


class Ecmp(Strict):
    # No hash_policy: it reached no rendered file (both platforms hash IP flows on the 5-tuple by
    # default, which RoCEv2's UDP source-port entropy needs). A field that changes nothing is refused.
    maximum_paths: int = Field(default=64, ge=1, le=256)


class Pools(Strict):
    loopbacks: Prefix
    fabric_links: Prefix = Field(description="/31 leaf-spine links")
    server_links: Prefix = Field(description="/31 server-leaf links, a block per leaf")
    super_spine_links: Prefix | None = None
    border_links: Prefix | None = None


class AsnPlan(Strict):
    """``rfc7938``: the spines of a pod share an ASN, the super-spines of a plane share one, every
    leaf has its own (``leaf_base`` + leaf slot). ``per-switch``: every switch has its own ASN
    (spines and super-spines count up from their base too), which needs multipath-relax."""

    scheme: Literal["rfc7938", "per-switch"] = "rfc7938"
    super_spine: Asn | None = None
    spine_base: Asn = Field(description="rfc7938: spines of pod N use spine_base + N - 1")
    leaf_base: Asn = Field(description="leaf ASNs are leaf_base + the leaf's slot")


class LinkSpeeds(Strict):
    server: Speed
    leaf_spine: Speed
    spine_super_spine: Speed | None = None
    border: Speed | None = None


class PlaneSpec(Strict):
    """Everything that is per plane. The symmetry rule says counts, speeds, MTU, QoS and firmware
    must be equal across planes; they are written per plane so a reviewer can see that they are."""

    spines_per_pod: int = Field(ge=1, le=MAX_PORT)
    super_spines_per_group: int | None = Field(default=None, ge=1, le=MAX_PORT)
    link_speeds: LinkSpeeds
    mtu: int = Field(ge=1500, le=9216)
    qos_profile: Label
    firmware: dict[PlatformName, Version] = Field(max_length=16, description="version each platform runs")
    pools: Pools
    asn: AsnPlan


class ExternalPeer(Strict):
    """One eBGP peering of a gateway toward storage or the outside, in one plane's VRF: a routed
    port on ``subnet`` (the gateway takes its first usable address, the peer the next), a session to
    ``asn``, and the prefixes the plane accepts from it (nothing else comes in; the plane's own
    prefixes go out)."""

    name: HostName = Field(description="the device on the other end (cabling plan, descriptions)")
    port: int = Field(ge=1, le=MAX_PORT, description="the gateway's front-panel port")
    subnet: Prefix = Field(description="a /31 or /30 for the link")
    asn: Asn
    prefixes: list[Prefix] = Field(min_length=1, max_length=256, description="what the plane learns from it")


class GatewaySpec(Strict):
    """A device that touches several planes (border or storage gateway). Each plane lives in its own
    VRF on it; nothing leaks between the VRFs. ``external``: per plane, its peerings toward storage
    or the outside, inside that plane's VRF."""

    name: HostName
    asn: Asn
    planes: list[PlaneName] = Field(min_length=1, max_length=16)
    external: dict[PlaneName, list[ExternalPeer]] = Field(default={}, max_length=16)


def _ipv4_address(value: str) -> str:
    try:
        return str(ipaddress.IPv4Address(value))
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an IPv4 address ({exc})") from exc


def _ssh_key(value: str) -> str:
    # a public key (never a secret): type, base64 body, optional comment; one line
    if not re.fullmatch(r"(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/]{16,8192}={0,3}"
                        r"( [A-Za-z0-9_.@:+=-]{1,64})?", value):
        raise ValueError("an SSH public key is one line: 'ssh-ed25519 AAAA... comment' (type, base64, optional comment)")
    return value


IPv4 = Annotated[str, AfterValidator(_ipv4_address)]
SshKey = Annotated[str, AfterValidator(_ssh_key)]


_Item = TypeVar("_Item", str, int)


def _distinct(values: list[_Item]) -> list[_Item]:
    """A list whose entries each appear once: a server, key or priority written twice is a duplicate
    key in the files that hold them as maps (NVUE's startup.yaml, SONiC's config_db.json), which
    their loaders refuse or collapse."""
    seen: set[_Item] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{str(value)[:60]} is listed twice: list each once")
        seen.add(value)
    return values


class ManagementUser(Strict):
    """A local user on every switch. Its password is never in the inventory: ``password_secret``
    names an entry of the secrets file's ``users`` map (a crypt(3) SHA-512 hash), put in at push time."""

    name: HostName
    role: Literal["admin", "operator", "read-only"] = "admin"
    password_secret: Label | None = None
    ssh_keys: Annotated[list[SshKey], AfterValidator(_distinct)] = Field(default=[], max_length=16)


def _distinct_users(users: list[ManagementUser]) -> list[ManagementUser]:
    """Each user once: a name twice is two `username` blocks on EOS (the second wins) and a duplicate
    key in NVUE's and SONiC's files."""
    _distinct([u.name for u in users])
    return users


class AaaServers(Strict):
    """TACACS+ or RADIUS servers; the shared key is a secret named here (secrets file ``aaa`` map)."""

    servers: Annotated[list[IPv4], AfterValidator(_distinct)] = Field(min_length=1, max_length=8)
    key_secret: Label


class Management(Strict):
    """Out-of-band management: how every switch is reached, whatever a push does to the fabric."""

    network: Prefix = Field(description="one address per switch, by the same stable slots as loopbacks")
    gateway: IPv4 = Field(description="default route of the management VRF")
    vrf: HostName = Field(default="mgmt", description="management VRF (Cumulus, NVUE and SONiC always call it mgmt: 'management_vrf_name' of their platform; EOS takes any name)")
    ntp: Annotated[list[IPv4], AfterValidator(_distinct)] = Field(default=[], max_length=8)
    syslog: Annotated[list[IPv4], AfterValidator(_distinct)] = Field(default=[], max_length=8)
    dns: Annotated[list[IPv4], AfterValidator(_distinct)] = Field(default=[], max_length=4)
    lldp: bool = True
    ssh: bool = True
    api: bool = Field(default=True, description="the platform's API (EOS eAPI, Cumulus NVUE REST) in the management VRF")
    users: Annotated[list[ManagementUser], AfterValidator(_distinct_users)] = Field(min_length=1, max_length=32)
    tacacs: AaaServers | None = None
    radius: AaaServers | None = None
    snmp_community_secret: Label | None = Field(default=None, description="SNMPv2c read-only community (a secret)")
    gnmi: bool = False


class RoleLabels(Strict):
    """The words device names use for the fixed roles (a design that says ToR/aggregation/core keeps
    its vocabulary: a-tor-su1-r0, a-agg-1, a-core-g1-1). Roles and their rules do not change."""
    leaf: str = Field(default="leaf", pattern=r"^[a-z][a-z0-9]{0,11}$")
    spine: str = Field(default="spine", pattern=r"^[a-z][a-z0-9]{0,11}$")
    super_spine: str = Field(default="ss", pattern=r"^[a-z][a-z0-9]{0,11}$")


class Rack(Strict):
    """A rack and the power feeds (PDUs) its switches draw from: the shared-fate rule reads it."""
    name: HostName
    feeds: list[HostName] = Field(min_length=1, max_length=4, description="PDU feeds of the rack's switches")
    switches: list[HostName] = Field(min_length=1, max_length=MAX_PORT, description="switches mounted in it")


class Fabric(Strict):
    name: HostName
    topology: Topology
    hardware: Hardware
    platforms: Platforms = Platforms()
    ecmp: Ecmp = Ecmp()
    planes: dict[PlaneName, PlaneSpec] = Field(min_length=2, max_length=16)
    gateways: list[GatewaySpec] = Field(default=[], max_length=MAX_PORT)
    management_network: Prefix | None = Field(
        default=None, description="out-of-band management addresses, one per switch (superseded by management)")
    management: Management | None = None
    role_labels: RoleLabels = RoleLabels()
    racks: list[Rack] = Field(default=[], max_length=65536,
                              description="optional: where switches are mounted and which power feeds they share")

    @property
    def mgmt_network(self) -> str | None:
        """The management addresses' network (the management section's, else the older field's)."""
        return self.management.network if self.management is not None else self.management_network


# ---------------------------------------------------------------------------------------------
# qos.yaml


class TrafficClassMark(Strict):
    dscp: int = Field(ge=0, le=63)
    priority: int = Field(ge=0, le=7, description="802.1p / switch priority")
    traffic_class: int = Field(ge=0, le=7)


Class8 = Annotated[int, Field(ge=0, le=7)]


class Ecn(Strict):
    traffic_classes: Annotated[list[Class8], AfterValidator(_distinct)] = Field(min_length=1, max_length=8)
    min_threshold_bytes: int = Field(gt=0, le=MAX_BUFFER_BYTES)
    max_threshold_bytes: int = Field(gt=0, le=MAX_BUFFER_BYTES)
    probability: int = Field(ge=1, le=100)


class Pfc(Strict):
    priorities: Annotated[list[Class8], AfterValidator(_distinct)] = Field(min_length=1, max_length=8)
    xoff_bytes: int = Field(default=18000, gt=0, le=MAX_BUFFER_BYTES)
    xon_delta_bytes: int = Field(default=18000, gt=0, le=MAX_BUFFER_BYTES)
    cable_length_m: int = Field(default=10, gt=0, le=10_000, description="metres; 10 km is the longest optic")


class QosProfile(Strict):
    trust: Literal["dscp", "pcp,dscp"] = "dscp"
    roce: TrafficClassMark
    cnp: TrafficClassMark
    pfc: Pfc
    ecn: Ecn
    roce_bandwidth_percent: int = Field(default=50, ge=1, le=99)


class QosFile(Strict):
    qos_profiles: dict[Label, QosProfile] = Field(min_length=1, max_length=64)


# ---------------------------------------------------------------------------------------------
# servers.yaml


class NicPort(Strict):
    port: int = Field(ge=1, le=4)
    plane: PlaneName
    rail: int = Field(ge=0, le=15)
    ifname: str = Field(pattern=r"^[a-zA-Z][a-zA-Z0-9_.-]{0,14}$", description="Linux netdev name")
    rdma_device: str = Field(pattern=r"^[a-z][a-z0-9_]{0,31}$", description="RDMA device, as NCCL_IB_HCA wants")
    speed: Speed | None = Field(
        default=None, description="this port's speed when it differs from the plane's link_speeds.server (a 2x200G "
                                  "split of a 400G NIC, a breakout, an older server generation); at most the plane's")


class Nic(Strict):
    name: Label
    pcie_root: Annotated[str, AfterValidator(_pcie)] | None = None
    numa: int | None = Field(default=None, ge=0, le=63)
    pcie_gen: int | None = Field(default=None, ge=1, le=6, description="PCIe generation of the NIC's host link "
                                                                       "(the capacity model caps the NIC at it)")
    pcie_lanes: Literal[1, 2, 4, 8, 16] | None = Field(default=None, description="PCIe lanes of the NIC's host link")
    pci_address: PciAddress | None = Field(
        default=None, description="bus id of the NIC's first function (port 1); the NCCL topology names it")
    ports: list[NicPort] = Field(min_length=1, max_length=4)


class Gpu(Strict):
    """Where one GPU sits: its bus id, the PCIe switch (root) above it and its socket."""
    pci_address: PciAddress
    pcie_root: Annotated[str, AfterValidator(_pcie)]
    numa: int = Field(ge=0, le=63)


class ServerModel(Strict):
    description: Text = ""
    gpus: Annotated[int, Field(ge=1, le=64)] | Annotated[list[Gpu], Field(min_length=1, max_length=64)] = Field(
        default=8, description="the GPU count, or the GPUs in CUDA order with their PCIe placement (then the "
                               "model gets an NCCL topology file and its GPU-NIC affinity is validated)")
    split: Literal["port", "nic"] | None = Field(
        default=None, description="how the planes are spread over the NICs: 'port' (each multi-port NIC has a "
                                  "port in every plane; each GPU finds every plane under its own PCIe switch), "
                                  "'nic' (each NIC is in one plane, the planes get equal NIC counts; each GPU has "
                                  "its own NIC under its PCIe switch). None: no split rule")
    bootstrap_ifname: str | None = Field(
        default=None, pattern=r"^[a-zA-Z][a-zA-Z0-9_.-]{0,14}$",
        description="the host interface NCCL and UCX bootstrap over (NCCL_SOCKET_IFNAME), e.g. the front-end NIC")
    nics: list[Nic] = Field(min_length=1, max_length=32)

    @property
    def gpu_count(self) -> int:
        return len(self.gpus) if isinstance(self.gpus, list) else self.gpus

    @property
    def gpu_places(self) -> list[Gpu]:
        return self.gpus if isinstance(self.gpus, list) else []


class Server(Strict):
    name: HostName
    model: Label
    pod: int = Field(default=1, ge=1, le=MAX_PORT)
    su: int = Field(ge=1, le=MAX_PORT, description="scalable unit within the pod")
    slot: int = Field(ge=1, le=MAX_PORT, description="position in the scalable unit = leaf server port index")
    mgmt_address: IPv4 | None = Field(
        default=None, description="out-of-band management address: how `deploy --scope servers` reaches it over "
                                  "SSH (a server without one is not deployed)")


class ServersFile(Strict):
    server_models: dict[Label, ServerModel] = Field(min_length=1, max_length=256)
    servers: list[Server] = []


# ---------------------------------------------------------------------------------------------
# infiniband.yaml


class IbPlane(Strict):
    subnet_prefix: str = Field(pattern=r"^0x[0-9a-fA-F]{16}$")
    routing_engine: Literal["ftree", "updn", "minhop", "dor", "lash", "dfsssp"] = "ftree"
    leaves: int = Field(ge=1, le=4096)
    spines: int = Field(ge=1, le=MAX_PORT)
    hosts_per_leaf: int = Field(ge=1, le=MAX_PORT)
    sm_host: HostName = Field(description="server whose HCA port runs this plane's subnet manager")
    sm_standby: HostName | None = Field(
        default=None, description="server running this plane's standby subnet manager (lower priority: it takes "
                                  "over when the master's host fails)")
    switch_guid_base: Guid | None = Field(
        default=None, description="node GUID of this plane's first switch; the others count up from it (for a "
                                  "lab: real switches have the GUIDs in switch_guids)")
    switch_guids: dict[HostName, Guid] = Field(
        default_factory=dict, max_length=8192,
        description="node GUID of each switch of the plane, as the hardware reports it (ibswitches): "
                    "root_guids.conf and the IB cabling plan name these")


class PartitionMember(Strict):
    server: HostName
    membership: Literal["full", "limited", "both"] = "full"


class Partition(Strict):
    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,31}$")
    pkey: int = Field(description="partition key, 0x0001-0x7ffe (the membership bit is added by OpenSM)")
    ipoib: bool = False
    mtu: Literal[256, 512, 1024, 2048, 4096] | None = None
    rate: int | None = Field(default=None, ge=2, le=22, description="IBTA rate code (man opensm), e.g. 16 = 100 Gb/s")
    sl: int | None = Field(default=None, ge=0, le=15)
    members: list[PartitionMember] = []


class IbHost(Strict):
    server: HostName
    guids: dict[PlaneName, Guid]
    devices: dict[PlaneName, Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")]] = Field(
        default_factory=dict, description="the RDMA device of the HCA port in each IB plane (e.g. mlx5_8): "
                                          "nccl.env names it per plane")


class InfinibandFile(Strict):
    ib_planes: dict[PlaneName, IbPlane] = Field(min_length=2, max_length=16)
    default_partition: Literal["limited", "full", "none"] = "limited"
    partitions: list[Partition] = []
    hosts: list[IbHost] = []


# ---------------------------------------------------------------------------------------------


class Inventory(Strict):
    """The whole source of truth, as loaded from the inventory directory."""

    fabric: Fabric
    qos: QosFile
    servers: ServersFile
    infiniband: InfinibandFile | None = None
