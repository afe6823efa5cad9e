"""The vendor-neutral device model every parser produces and every check reads.

It describes what a rendered file *says*, whichever platform wrote it: interfaces, addresses, VRFs,
BGP (sessions, origination, policy, ECMP, VRF imports), prefix lists, route maps, static routes, QoS.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class EcnProfile:
    min_bytes: int
    max_bytes: int
    probability: int


@dataclass(slots=True)
class Interface:
    name: str
    addresses: list[str] = field(default_factory=list)  # "10.0.0.1/31"
    mtu: int | None = None
    vrf: str | None = None
    description: str = ""
    bridge_ports: list[str] = field(default_factory=list)
    is_loopback: bool = False
    pfc_priorities: list[int] | None = None  # None: no PFC configured on the port
    ecn: dict[int, EcnProfile] | None = None  # traffic class -> thresholds
    strict_tcs: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Neighbor:
    address: str
    remote_asn: int | None = None
    route_map_in: str | None = None
    route_map_out: str | None = None
    description: str = ""
    shutdown: bool = False  # `neighbor X shutdown`: configured, but no session (see shut_neighbors)


@dataclass(slots=True)
class BgpInstance:
    vrf: str | None
    asn: int
    router_id: str | None = None
    neighbors: dict[str, Neighbor] = field(default_factory=dict)
    networks: list[str] = field(default_factory=list)
    redistribute: list[str] = field(default_factory=list)  # "connected", "static"
    maximum_paths: int | None = None
    multipath_relax: bool = False
    vrf_imports: list[str] = field(default_factory=list)  # VRFs whose routes this instance imports
    rt_import: list[str] = field(default_factory=list)
    rt_export: list[str] = field(default_factory=list)
    # neighbors configured with `shutdown`: taken out of ``neighbors`` (no session comes up with them)
    shut_neighbors: list[str] = field(default_factory=list)


@dataclass(slots=True)
class PrefixListEntry:
    seq: int
    action: str
    prefix: str
    ge: int | None = None
    le: int | None = None


@dataclass(slots=True)
class RouteMapEntry:
    seq: int
    action: str
    match_prefix_lists: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StaticRoute:
    vrf: str | None
    prefix: str
    nexthop: str | None  # None: blackhole / Null0
    nexthop_vrf: str | None = None


@dataclass(slots=True)
class Qos:
    dscp_to_tc: dict[int, int] = field(default_factory=dict)
    dscp_to_priority: dict[int, int] = field(default_factory=dict)


@dataclass(slots=True)
class DeviceConfig:
    name: str
    platform: str
    hostname: str = ""
    interfaces: dict[str, Interface] = field(default_factory=dict)
    vrfs: dict[str, int | None] = field(default_factory=dict)  # name -> table
    bgp: dict[str | None, BgpInstance] = field(default_factory=dict)
    prefix_lists: dict[str, list[PrefixListEntry]] = field(default_factory=dict)
    route_maps: dict[str, list[RouteMapEntry]] = field(default_factory=dict)
    static_routes: list[StaticRoute] = field(default_factory=list)
    qos: Qos = field(default_factory=Qos)
    vrf_route_leaks: list[tuple[str, str]] = field(default_factory=list)  # (from vrf, into vrf)
    # routing lines the parser does not model (their text): verify says what it cannot judge
    unmodelled: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ServerRoute:
    prefix: str  # "default" or a prefix
    via: str | None
    dev: str | None
    table: int | None


@dataclass(slots=True)
class ServerRule:
    source: str
    table: int


@dataclass(slots=True)
class ServerConfig:
    name: str
    interfaces: dict[str, Interface] = field(default_factory=dict)
    routes: list[ServerRoute] = field(default_factory=list)
    rules: list[ServerRule] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # nccl.env: variable -> value, as a shell sets it
    sysctl: dict[str, str] = field(default_factory=dict)  # sysctl.conf: key -> value (the last one wins)
    # lines of those files this model does not understand: (file, line number, text)
    unmodelled: list[tuple[str, int, str]] = field(default_factory=list)
