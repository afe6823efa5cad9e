"""The L3 view computed from the parsed configs: which address lives where, which routing
instance (device + VRF) belongs to which plane, and the BGP sessions that would come up."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from dualrail_net.verify.ipfast import split_address
from dualrail_net.verify.snapshot import Snapshot

NodeId = tuple[str, str | None]  # (device, vrf); servers use (server, None)


@dataclass(slots=True)  # not frozen: a frozen dataclass is 5x slower to create (1.2M at 100k GPUs)
class Endpoint:
    device: str
    interface: str
    vrf: str | None
    address: str  # "10.0.0.1/31"
    ip: str
    net: tuple[int, int]  # (network as int, prefix length)
    node: NodeId  # (device, vrf): one tuple per routing instance, shared by its endpoints
    is_server: bool = False
    is_loopback: bool = False


@dataclass(slots=True)
class Session:
    """A BGP session both ends configure toward each other's address."""

    a: NodeId
    b: NodeId
    a_neighbor: str  # the address a configures (b's interface address)
    b_neighbor: str
    a_asn: int  # a's own ASN
    b_asn: int
    a_remote_as: int | None  # what a says b's ASN is
    b_remote_as: int | None


@dataclass
class Topology:
    snap: Snapshot
    endpoints: list[Endpoint] = field(default_factory=list)
    by_ip: dict[str, Endpoint] = field(default_factory=dict)  # the first owner of each address
    duplicates: dict[str, list[Endpoint]] = field(default_factory=dict)  # addresses with 2+ owners: all
    node_plane: dict[NodeId, str | None] = field(default_factory=dict)
    node_planes_seen: dict[NodeId, set[str]] = field(default_factory=dict)
    node_endpoints: dict[NodeId, list[Endpoint]] = field(default_factory=dict)
    # per node, its non-/32 endpoints (where a BGP neighbor can be directly connected)
    node_subnets: dict[NodeId, dict[tuple[int, int], Endpoint]] = field(default_factory=dict)
    _paired: tuple[list[Session], list[tuple[NodeId, str, str]]] | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # what building each part took

    def owner(self, ip: str) -> Endpoint | None:
        return self.by_ip.get(ip)

    # The sessions are paired on first use: a process that runs no BGP, ECMP or routing check
    # (verify runs the checks in two processes) never pays for 800k neighbor statements.
    @property
    def sessions(self) -> list[Session]:
        return self._pair()[0]

    @property
    def one_sided(self) -> list[tuple[NodeId, str, str]]:
        """(node, neighbor ip, reason) of every neighbor statement that makes no session."""
        return self._pair()[1]

    def _pair(self) -> tuple[list[Session], list[tuple[NodeId, str, str]]]:
        if self._paired is None:
            started = time.monotonic()
            self._paired = _sessions(self.snap, self)
            self.seconds["sessions"] = time.monotonic() - started
        return self._paired


def build_topology(snap: Snapshot) -> Topology:
    started = time.monotonic()
    topo = Topology(snap)
    endpoints, by_ip, duplicates = topo.endpoints, topo.by_ip, topo.duplicates
    node_endpoints, node_subnets = topo.node_endpoints, topo.node_subnets
    plane_of_net = snap.plane_of_net
    # the planes an instance's addresses come from: what decides the plane of an instance of a
    # multi-plane device (a device declared in a plane is in that plane whatever it holds)
    seen: dict[NodeId, set[str]] = {}

    def add(ep: Endpoint) -> None:
        endpoints.append(ep)
        first = by_ip.setdefault(ep.ip, ep)
        if first is not ep:
            duplicates.setdefault(ep.ip, [first]).append(ep)

    for dev in snap.devices.values():
        name = dev.name
        undeclared = not snap.plane_of_device(name)
        nodes: dict[str | None, NodeId] = {}
        for iface in dev.interfaces.values():
            if not iface.addresses:
                continue
            vrf = iface.vrf
            node = nodes.get(vrf)
            if node is None:
                node = nodes[vrf] = (name, vrf)
                node_endpoints[node] = []
                node_subnets[node] = {}
            own, subnets = node_endpoints[node], node_subnets[node]
            for addr in iface.addresses:
                ip, net = split_address(addr)
                ep = Endpoint(name, iface.name, vrf, addr, ip, net, node, False, iface.is_loopback)
                add(ep)
                own.append(ep)
                if net[1] != 32:
                    subnets.setdefault(net, ep)
                if undeclared:
                    plane = plane_of_net(net)
                    if plane:
                        seen.setdefault(node, set()).add(plane)
    for srv in snap.servers.values():
        node = (srv.name, None)
        for iface in srv.interfaces.values():
            for addr in iface.addresses:
                ip, net = split_address(addr)
                add(Endpoint(srv.name, iface.name, None, addr, ip, net, node, True))
    # Plane of each routing instance: a single-plane device is in its plane; an instance of a
    # multi-plane device is in the plane its addresses come from (checked for mixing elsewhere).
    for dev in snap.devices.values():
        declared = snap.plane_of_device(dev.name)
        for vrf in {None} | set(dev.vrfs) | set(dev.bgp):
            node = (dev.name, vrf)
            if declared:
                topo.node_plane[node] = declared
            else:
                planes = seen.get(node, set())
                topo.node_plane[node] = next(iter(planes)) if len(planes) == 1 else None
    topo.node_planes_seen = seen
    topo.seconds["endpoints"] = time.monotonic() - started
    return topo


def _sessions(snap: Snapshot, topo: Topology) -> tuple[list[Session], list[tuple[NodeId, str, str]]]:
    """Pair up neighbor statements: a session exists when both ends name each other's interface
    address on a subnet they share. Whether the ASNs agree is the BGP check's business."""
    instances = {(dev.name, vrf): inst for dev in snap.devices.values() for vrf, inst in dev.bgp.items()}
    by_ip, node_subnets = topo.by_ip, topo.node_subnets
    sessions: list[Session] = []
    one_sided: list[tuple[NodeId, str, str]] = []
    no_subnets: dict[tuple[int, int], Endpoint] = {}
    done: set[tuple[int, int]] = set()  # (id, id) of two instances already paired, both ways
    # ids of the statements known to pair back into a session already made: visiting them would
    # only end at the `done` test below, after four lookups
    answered: set[int] = set()
    # 800k neighbor statements at 100k GPUs: the peer's statements are looked up in its own small
    # neighbor dict, not in one fabric-wide index (measured 3x faster: the lookups are memory-bound)
    for node, inst in instances.items():
        subnets = node_subnets.get(node, no_subnets)
        for addr, neighbor in inst.neighbors.items():
            if answered and id(neighbor) in answered:
                continue
            peer_ep = by_ip.get(addr)
            if peer_ep is None:
                one_sided.append((node, addr, "no interface in the fabric has this address"))
                continue
            peer_node = peer_ep.node
            local = subnets.get(peer_ep.net)
            if local is None:
                where = f"VRF {node[1]}" if node[1] else "the default VRF"
                one_sided.append((node, addr, f"no interface of {where} is on a subnet with {addr} "
                                  f"(it belongs to {peer_ep.device} {peer_ep.interface})"))
                continue
            local_ip = local.ip
            peer_inst = instances.get(peer_node)
            back = peer_inst.neighbors.get(local_ip) if peer_inst is not None else None
            if peer_inst is None or back is None:
                one_sided.append((node, addr, f"{peer_node[0]} has no neighbor {local_ip}"
                                  + (f" in VRF {peer_node[1]}" if peer_node[1] else "")))
                continue
            # one session per pair of instances, whichever end is met first
            pair = (id(inst), id(peer_inst))
            if pair in done:
                continue
            done.add(pair)
            done.add((pair[1], pair[0]))
            # the peer's statement back toward local_ip: the owner of local_ip is local, and the
            # peer's endpoint on the shared subnet is peer_ep, so its lookups end at this session
            if by_ip.get(local_ip) is local and node_subnets.get(peer_node, no_subnets).get(peer_ep.net) is peer_ep:
                answered.add(id(back))
            sessions.append(Session(node, peer_node, addr, local_ip, inst.asn, peer_inst.asn, neighbor.remote_asn,
                                    back.remote_asn))
    return sessions, one_sided
