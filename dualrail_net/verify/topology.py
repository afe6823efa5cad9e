"""The L3 view computed from the parsed configs: which address lives where, which routing
instance (device + VRF) belongs to which plane, and the BGP sessions that would come up.

A 100k-GPU fabric has 1.2M addresses and 800k neighbor statements, so the per-address data is
held as columns (numpy arrays and plain lists, one entry per endpoint) rather than as an object
per address; ``endpoint(i)`` makes the object for the few that a finding names.

Glossary (also in ``dualrail_net/planes.py``, which answers "which plane holds this address"):
* **plane**: one of the separate fabrics (A, B, ...);
* **routing instance** (``NodeId`` = (device, VRF or None)): a device's default VRF or one VRF of a
  multi-plane device; each belongs to one plane (``node_plane``);
* **endpoint**: one configured address of a device or server port; its **owner** is the device or
  server that configures it (the first owner, when an address is duplicated);
* **statement**: one BGP ``neighbor`` line of an instance; a **session** is a pair of statements
  that point at each other across a shared subnet."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt

from dualrail_net.verify.arrays import distinct, first_of_each
from dualrail_net.verify.ipfast import network_array, parse_addresses
from dualrail_net.verify.model import BgpInstance, Interface, Neighbor
from dualrail_net.verify.snapshot import Snapshot

NodeId = tuple[str, str | None]  # (device, vrf); servers use (server, None)
Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]
NO_PLANE = -1
# room for the (network << 6 | length) key of a subnet beside a node number in one int64
_NODE_SHIFT = 38


@dataclass(slots=True)
class Endpoint:
    device: str
    interface: str
    vrf: str | None
    address: str  # "10.0.0.1/31"
    ip: str
    net: tuple[int, int]  # (network as int, prefix length)
    node: NodeId  # (device, vrf)
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
    """Endpoints in order: every device's addressed interfaces (in the snapshot's order), then the
    servers'. Columns indexed by endpoint: ``address``, ``ip``, ``value`` (the address as int),
    ``net``, ``length``, ``node`` (into ``nodes``), ``port`` (into the port columns), and
    ``is_server``, ``is_loopback``, ``address_plane`` (into ``planes``; the plane whose pools hold
    the address, as Snapshot.plane_of_net says)."""

    snap: Snapshot
    nodes: list[NodeId] = field(default_factory=list)  # every routing instance and server, numbered
    node_id: dict[NodeId, int] = field(default_factory=dict)
    planes: list[str] = field(default_factory=list)
    # per addressed interface ("port"): its holder, the Interface, its node, whether a server holds it
    port_holder: list[str] = field(default_factory=list)
    port_iface: list[Interface] = field(default_factory=list)
    port_node: list[int] = field(default_factory=list)
    port_is_server: list[bool] = field(default_factory=list)
    address: list[str] = field(default_factory=list)
    value: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    net: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    length: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    node: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    port: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    is_server: Flags = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    is_loopback: Flags = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    address_plane: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    duplicate_ips: dict[str, list[int]] = field(default_factory=dict)  # addresses with 2+ owners: all
    node_plane: dict[NodeId, str | None] = field(default_factory=dict)
    node_planes_seen: dict[NodeId, set[str]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # what building each part took

    def __len__(self) -> int:
        return len(self.address)

    def add_node(self, node: NodeId) -> int:
        number = self.node_id.get(node)
        if number is None:
            number = self.node_id[node] = len(self.nodes)
            self.nodes.append(node)
        return number

    @cached_property
    def ip(self) -> list[str]:
        """Each endpoint's IP address as written (the address without its length)."""
        return [a.partition("/")[0] for a in self.address]

    @cached_property
    def by_ip(self) -> dict[str, int]:
        """The first owner (endpoint index) of each IP address as written."""
        ips = self.ip
        # written from the last endpoint back, so the first stays
        return dict(zip(reversed(ips), range(len(ips) - 1, -1, -1)))

    def endpoint(self, i: int) -> Endpoint:
        port = int(self.port[i])
        iface = self.port_iface[port]
        server = self.port_is_server[port]
        return Endpoint(self.port_holder[port], iface.name, None if server else iface.vrf, self.address[i],
                        self.address[i].partition("/")[0],
                        (int(self.net[i]), int(self.length[i])), self.nodes[self.port_node[port]], server,
                        not server and iface.is_loopback)

    @cached_property
    def value_order(self) -> Ints:
        """The endpoints in the order of their addresses' values (stable: configuration order among equals)."""
        return np.argsort(self.value, kind="stable")

    @cached_property
    def endpoints(self) -> list[Endpoint]:
        """Every endpoint as an object (tests and small fabrics; the checks read the columns)."""
        return [self.endpoint(i) for i in range(len(self))]

    @property
    def duplicates(self) -> dict[str, list[Endpoint]]:
        return {ip: [self.endpoint(i) for i in owners] for ip, owners in self.duplicate_ips.items()}

    @cached_property
    def _by_node(self) -> dict[NodeId, list[int]]:
        by_node: dict[NodeId, list[int]] = {}
        for i, n in enumerate(self.node.tolist()):
            by_node.setdefault(self.nodes[n], []).append(i)
        return by_node

    def endpoints_of(self, node: NodeId) -> list[Endpoint]:
        """The endpoints of one routing instance, in order."""
        return [self.endpoint(i) for i in self._by_node.get(node, [])]

    @cached_property
    def statements(self) -> Statements:
        """Every BGP neighbor statement with the owner of its address (what the sessions and the
        cross-plane check read)."""
        return _statements(self.snap, self)

    # The sessions are paired on first use: the base side of verification runs no BGP, ECMP or
    # routing check and never pays for 800k neighbor statements.
    @property
    def sessions(self) -> list[Session]:
        return self._paired[0]

    @property
    def one_sided(self) -> list[tuple[NodeId, str, str]]:
        """(node, neighbor ip, reason) of every neighbor statement that makes no session."""
        return self._paired[1]

    @cached_property
    def _paired(self) -> tuple[list[Session], list[tuple[NodeId, str, str]]]:
        started = time.monotonic()
        paired = _sessions(self.snap, self)
        unnumbered = _interface_sessions(self.snap, self)
        paired = (paired[0] + unnumbered[0], paired[1] + unnumbered[1])
        self.seconds["sessions"] = time.monotonic() - started
        return paired


def pool_planes(snap: Snapshot, planes: list[str], net: Ints, length: Ints) -> Ints:
    """Snapshot.plane_of_net over arrays, as indices into ``planes`` (NO_PLANE: none): the pools in
    its lookup order, the first that holds the network wins. ``planes`` is extended with any plane
    only the pools name."""
    plane_id = {plane: i for i, plane in enumerate(planes)}
    found = np.full(len(net), NO_PLANE, dtype=np.int64)
    for pool_length, prefix, plane in snap.pool_lookup_order():
        if plane not in plane_id:
            plane_id[plane] = len(planes)
            planes.append(plane)
        hit = (found == NO_PLANE) & (length >= pool_length) & ((net >> (32 - pool_length)) == prefix)
        found[hit] = plane_id[plane]
    return found


def build_topology(snap: Snapshot) -> Topology:
    started = time.monotonic()
    topo = Topology(snap, planes=list(snap.planes))
    address, holders, ifaces, port_node, port_server = (topo.address, topo.port_holder, topo.port_iface,
                                                        topo.port_node, topo.port_is_server)
    counts: list[int] = []  # addresses per port

    def add(name: str, ports: list[Interface], vrfs: list[str | None]) -> list[int]:
        """The holder's addressed ports; its instances numbered in order of first endpoint."""
        numbers = {vrf: topo.add_node((name, vrf)) for vrf in dict.fromkeys(vrfs)}
        port_node.extend([numbers[vrf] for vrf in vrfs])
        holders.extend([name] * len(ports))
        ifaces.extend(ports)
        counts.extend([len(iface.addresses) for iface in ports])
        address.extend([a for iface in ports for a in iface.addresses])
        return list(numbers.values())

    undeclared_nodes: list[int] = []
    for dev in snap.devices.values():
        ports = [iface for iface in dev.interfaces.values() if iface.addresses]
        if ports:
            numbers = add(dev.name, ports, [iface.vrf for iface in ports])
            if not snap.plane_of_device(dev.name):
                undeclared_nodes += numbers
    switch_ports = len(holders)
    for srv in snap.servers.values():
        ports = [iface for iface in srv.interfaces.values() if iface.addresses]
        if ports:
            add(srv.name, ports, [None] * len(ports))
    port_server += [False] * switch_ports + [True] * (len(holders) - switch_ports)
    repeats = np.array(counts, dtype=np.int64)
    topo.port = np.repeat(np.arange(len(counts), dtype=np.int64), repeats)
    topo.node = np.repeat(np.array(port_node, dtype=np.int64), repeats)
    topo.is_server = np.repeat(np.array(port_server, dtype=np.bool_), repeats)
    loopback = np.array([iface.is_loopback for iface in ifaces], dtype=np.bool_)
    topo.is_loopback = np.repeat(loopback, repeats) & ~topo.is_server
    topo.value, topo.length = parse_addresses(address)
    topo.net = network_array(topo.value, topo.length)
    topo.address_plane = pool_planes(snap, topo.planes, topo.net, topo.length)
    # an IP written twice has one number twice (the converse needs the text: "10.0.0.01" is another)
    if len(distinct(topo.value)) < len(address):
        by_ip = topo.by_ip
        for i, ip in enumerate(topo.ip):
            first = by_ip[ip]
            if first != i:
                topo.duplicate_ips.setdefault(ip, [first]).append(i)
    # the planes an instance's addresses come from: what decides the plane of an instance of a
    # multi-plane device (a device declared in a plane is in that plane whatever it holds)
    seen = topo.node_planes_seen
    if undeclared_nodes:
        of_undeclared = np.isin(topo.node, undeclared_nodes) & (topo.address_plane != NO_PLANE)
        for number, plane in set(zip(topo.node[of_undeclared].tolist(), topo.address_plane[of_undeclared].tolist())):
            seen.setdefault(topo.nodes[number], set()).add(topo.planes[plane])
    # Plane of each routing instance: a single-plane device is in its plane; an instance of a
    # multi-plane device is in the plane its addresses come from (checked for mixing elsewhere).
    for dev in snap.devices.values():
        declared = snap.plane_of_device(dev.name)
        for vrf in {None} | set(dev.vrfs) | set(dev.bgp):
            node = (dev.name, vrf)
            topo.add_node(node)
            if declared:
                topo.node_plane[node] = declared
            else:
                planes = seen.get(node, set())
                topo.node_plane[node] = next(iter(planes)) if len(planes) == 1 else None
    topo.seconds["endpoints"] = time.monotonic() - started
    return topo


def _first_subnet_owner(topo: Topology) -> tuple[Ints, Ints]:
    """(sorted keys, endpoint) of each instance's first endpoint on each subnet other than a /32
    (where a BGP neighbor can be directly connected); key = node << 38 | network << 6 | length."""
    subnet = np.flatnonzero(topo.length != 32)
    keys = (topo.node[subnet] << _NODE_SHIFT) | (topo.net[subnet] << 6) | topo.length[subnet]
    unique, first = first_of_each(keys)  # first occurrence: the endpoint met first
    return unique, subnet[first]


@dataclass
class Statements:
    """Every BGP neighbor statement, in config order (devices, their instances, their neighbors)."""

    node: Ints  # the number of the statement's routing instance
    address: list[str]  # the neighbor address as written
    neighbor: list[Neighbor]  # what the statement configures
    owner: Ints  # the endpoint that first owns that address (Topology.by_ip); -1: none
    neighbors: list[dict[str, Neighbor] | None]  # per node number: its BGP instance's neighbors
    asn: list[int]  # per node number: its BGP instance's ASN (0: none)


def _statements(snap: Snapshot, topo: Topology) -> Statements:
    neighbors: list[dict[str, Neighbor] | None] = [None] * len(topo.nodes)
    asn: list[int] = [0] * len(topo.nodes)
    node: list[int] = []
    address: list[str] = []
    neighbor: list[Neighbor] = []
    for dev in snap.devices.values():
        for vrf, inst in dev.bgp.items():
            number = topo.node_id[(dev.name, vrf)]
            neighbors[number] = inst.neighbors
            asn[number] = inst.asn
            if inst.interface_neighbors:  # unnumbered neighbors are paired over their cable instead
                numbered = {a: n for a, n in inst.neighbors.items() if not n.interface}
                address += numbered
                neighbor += numbered.values()
                node += [number] * len(numbered)
                continue
            address += inst.neighbors
            neighbor += inst.neighbors.values()
            node += [number] * len(inst.neighbors)
    by_ip = topo.by_ip
    owner = np.array([by_ip.get(a, -1) for a in address], dtype=np.int64)
    return Statements(np.array(node, dtype=np.int64), address, neighbor, owner, neighbors, asn)


def _interface_sessions(snap: Snapshot, topo: Topology) -> tuple[list[Session], list[tuple[NodeId, str, str]]]:
    """Unnumbered neighbors (`neighbor PORT interface`): a session exists when the cabling plan
    joins PORT to a port of another switch whose instance (the VRF of that port) names that port as
    an unnumbered neighbor too. A, B ordered as the plan's first cable meets them."""
    wanted = [(dev, vrf, inst) for dev in snap.devices.values() for vrf, inst in dev.bgp.items()
              if inst.interface_neighbors]
    if not wanted:
        return [], []
    plan = snap.cabling
    far: dict[tuple[str, str], tuple[str, str]] = {}
    for a, a_port, b, b_port in zip(plan.column("a_device"), plan.column("a_port"), plan.column("b_device"),
                                    plan.column("b_port")):
        far[(a, a_port)] = (b, b_port)
        far[(b, b_port)] = (a, a_port)
    sessions: list[Session] = []
    one_sided: list[tuple[NodeId, str, str]] = []
    made: set[frozenset[tuple[str, str]]] = set()
    for dev, vrf, inst in wanted:
        for port in inst.interface_neighbors:
            node = (dev.name, vrf)
            other = far.get((dev.name, port))
            peer = snap.devices.get(other[0]) if other else None
            if other is None or peer is None:
                one_sided.append((node, port, "the cabling plan joins this port to no other switch"))
                continue
            peer_iface = peer.interfaces.get(other[1])
            peer_vrf = peer_iface.vrf if peer_iface is not None else None
            peer_inst = peer.bgp.get(peer_vrf)
            back = peer_inst.neighbors.get(other[1]) if peer_inst is not None else None
            if peer_inst is None or back is None or not back.interface:
                one_sided.append((node, port, f"{other[0]} has no unnumbered neighbor on {other[1]}"))
                continue
            key = frozenset(((dev.name, port), other))
            if key in made:
                continue
            made.add(key)
            mine = inst.neighbors[port]
            sessions.append(Session(node, (other[0], peer_vrf), port, other[1], inst.asn, peer_inst.asn,
                                    mine.remote_asn, back.remote_asn))
    return sessions, one_sided


def _longest_match(lengths: list[int], keys: Ints, first: Ints, node: Ints, ip: Ints) -> Ints:
    """Per (instance, IP): the instance's endpoint on the longest of its subnets (other than a /32)
    that holds the IP, as the kernel's connected routes choose; -1 when none holds it.
    ``lengths``: the subnet lengths the endpoints have, longest first."""
    out = np.full(len(ip), -1, dtype=np.int64)
    if not len(keys) or not len(ip):
        return out
    pending = np.arange(len(ip))
    for length in lengths:
        mask = ((1 << length) - 1) << (32 - length) if length else 0
        wanted = (node[pending] << _NODE_SHIFT) | ((ip[pending] & mask) << 6) | length
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        hit = keys[at] == wanted
        out[pending[hit]] = first[at[hit]]
        pending = pending[~hit]
        if not len(pending):
            break
    return out


def _shadowed(topo: Topology) -> Ints:
    """Per endpoint, the endpoint whose subnet's broadcast address is this endpoint's address, or -1.
    The kernel installs the last address of a subnet shorter than /31 as a broadcast route when its
    port comes up; an address of the same instance equal to it that is configured later is appended
    behind that route and never answers (TCP to a broadcast address is dropped). The endpoints are
    in configuration order (ifupdown2 applies stanzas in file order); a port kept down adds none."""
    out = np.full(len(topo), -1, dtype=np.int64)
    sub = np.flatnonzero(topo.length < 31)
    if not len(sub):
        return out
    up = np.array([not topo.port_iface[p].down for p in topo.port[sub].tolist()], dtype=np.bool_)
    sub = sub[up]
    if not len(sub):
        return out
    broadcast = topo.net[sub] | ((np.int64(1) << (32 - topo.length[sub])) - 1)
    unique, first = first_of_each((topo.node[sub] << 32) | broadcast)
    holder = sub[first]  # the first endpoint (configured earliest) whose subnet has that broadcast
    keys = (topo.node << 32) | topo.value
    at = np.minimum(np.searchsorted(unique, keys), len(unique) - 1)
    hit = (unique[at] == keys) & (holder[at] < np.arange(len(topo)))
    out[hit] = holder[at[hit]]
    return out


def _sessions(snap: Snapshot, topo: Topology) -> tuple[list[Session], list[tuple[NodeId, str, str]]]:
    """Pair up neighbor statements: a session exists when both ends name each other's interface
    address and each reaches the other over the port that holds it. Whether the ASNs agree is the
    BGP check's business.

    Each statement is tested in steps: the address's owner (by_ip); the instance's own endpoint the
    kernel sends from (its longest connected subnet holding the address: the two ends' subnets
    need not be equal, a /30 against a /31 still connects); the owner's route back to that
    endpoint's address leaving through the owner's port; neither address shadowed by a broadcast
    route (_shadowed) nor the instance's own; the owner's instance's statement back toward that
    endpoint. A statement passing all makes a session unless an earlier one already made one between
    the same two endpoints (the other end's statement back)."""
    st = topo.statements
    owner, own_node = st.owner, st.node
    has_owner = owner >= 0
    owned_at = np.flatnonzero(has_owner)
    owned = owner[owned_at]
    # step 2: this instance's endpoint toward the owner's address
    keys, first = _first_subnet_owner(topo)
    lengths = sorted(distinct(topo.length[topo.length != 32]).tolist(), reverse=True)
    local = np.full(len(owner), -1, dtype=np.int64)
    local[owned_at] = _longest_match(lengths, keys, first, own_node[owned_at], topo.value[owned])
    # what stops a statement that has an endpoint: 1 the address is the instance's own, 2 the owner
    # reaches this end's address through another port (or not at all), 3 an address is a broadcast
    blocked = np.zeros(len(owner), dtype=np.int64)
    reach = np.flatnonzero(local >= 0)
    peer_node = np.where(has_owner, topo.node[np.maximum(owner, 0)], -1)
    shadow = _shadowed(topo)
    if len(reach):
        own_keys = np.sort((topo.node << 32) | topo.value)
        mine = (own_node[reach] << 32) | topo.value[owner[reach]]
        at = np.minimum(np.searchsorted(own_keys, mine), len(own_keys) - 1)
        blocked[reach[own_keys[at] == mine]] = 1
        back_route = _longest_match(lengths, keys, first, peer_node[reach], topo.value[local[reach]])
        wrong_port = (back_route < 0) | (topo.port[np.maximum(back_route, 0)] != topo.port[owner[reach]])
        blocked[reach[wrong_port & (blocked[reach] == 0)]] = 2
        in_the_dark = (shadow[owner[reach]] >= 0) | (shadow[local[reach]] >= 0)
        blocked[reach[in_the_dark & (blocked[reach] == 0)]] = 3
    # step 3: the owner's instance's statement toward that endpoint's IP. Whatever the statement's
    # text, by_ip gave it an owner: the statement toward an IP is the one whose owner is that IP's
    # first owner, an integer join (node << 32 | owner) instead of 800k lookups in neighbor dicts.
    candidates = np.flatnonzero((local >= 0) & (blocked == 0))
    back = np.full(len(owner), -1, dtype=np.int64)
    if len(candidates):
        target = local[candidates]
        first_owner = np.zeros(len(topo), dtype=np.bool_)
        first_owner[list(topo.by_ip.values())] = True
        elsewhere = ~first_owner[target]  # an IP configured twice: the first owner's endpoint
        if elsewhere.any():
            ips, by_ip = topo.ip, topo.by_ip
            target[elsewhere] = [by_ip[ips[i]] for i in target[elsewhere].tolist()]
        counted = np.flatnonzero(has_owner)
        keys_of = (own_node[counted] << 32) | owner[counted]
        order = np.argsort(keys_of, kind="stable")
        statement_keys, statements = keys_of[order], counted[order]
        wanted = (peer_node[candidates] << 32) | target
        at = np.minimum(np.searchsorted(statement_keys, wanted), len(statement_keys) - 1)
        back[candidates] = np.where(statement_keys[at] == wanted, statements[at], -1)
    passed = np.flatnonzero(back >= 0)
    # one session per pair of endpoints (a link), whichever end's statement comes first: parallel
    # links between the same two instances are sessions of their own
    a, b = local[passed], owner[passed]
    _, first_of_pair = first_of_each(np.minimum(a, b) * len(topo) + np.maximum(a, b))
    made = passed[np.sort(first_of_pair)]
    nodes, asn, addresses, neighbor, ips = topo.nodes, st.asn, st.address, st.neighbor, topo.ip
    sessions = [Session(nodes[mine], nodes[peer], addresses[i], ips[at], asn[mine], asn[peer],
                        neighbor[i].remote_asn, neighbor[j].remote_asn)
                for i, mine, peer, at, j in zip(made.tolist(), own_node[made].tolist(), peer_node[made].tolist(),
                                                local[made].tolist(), back[made].tolist())]
    one_sided: list[tuple[NodeId, str, str]] = []
    failed = np.ones(len(owner), dtype=np.bool_)
    failed[passed] = False
    for i in np.flatnonzero(failed).tolist():
        node, addr = nodes[int(own_node[i])], addresses[i]
        if owner[i] < 0:
            one_sided.append((node, addr, "no interface in the fabric has this address"))
            continue
        peer_ep = topo.endpoint(int(owner[i]))
        peer = nodes[int(peer_node[i])]
        where = f"VRF {node[1]}" if node[1] else "the default VRF"
        if local[i] < 0:
            one_sided.append((node, addr, no_connected_subnet(where, addr, peer_ep.device, peer_ep.interface,
                                                              neighbor[i], snap.devices[node[0]].bgp[node[1]])))
        elif blocked[i] == 1:
            one_sided.append((node, addr, f"{addr} is an address of {node[0]} itself "
                              f"(also configured on {peer_ep.device} {peer_ep.interface})"))
        elif blocked[i] == 2:
            mine_ep = topo.endpoint(int(local[i]))
            one_sided.append((node, addr, f"{peer[0]} has no route back to {mine_ep.ip} over {peer_ep.interface} "
                              f"(the port with {addr}): {node[0]} {mine_ep.interface} is {mine_ep.address}, "
                              f"{peer[0]} {peer_ep.interface} is {peer_ep.address}"))
        elif blocked[i] == 3:
            dark_at = int(owner[i]) if shadow[int(owner[i])] >= 0 else int(local[i])
            hidden, by = topo.endpoint(dark_at), topo.endpoint(int(shadow[dark_at]))
            one_sided.append((node, addr, f"{hidden.ip} on {hidden.device} {hidden.interface} is the broadcast address "
                              f"of {by.interface}'s {by.address}, configured before it: the kernel takes it "
                              "as a broadcast and TCP to it is dropped"))
        else:
            one_sided.append((node, addr, no_neighbor(snap, peer, ips[int(local[i])])))
    return sessions, one_sided


def no_connected_subnet(where: str, address: str, owner: str, port: str, neighbor: Neighbor,
                        inst: BgpInstance) -> str:
    """Why a neighbor statement toward ``address`` (``owner``'s ``port``) has no session: no
    connected subnet of the instance holds it (multihop toward it, or a session the instance's
    `bgp disable-ebgp-connected-route-check` lets start, is not modelled: said so)."""
    multihop = (" (`ebgp-multihop`/`disable-connected-check`: a session to an address on no connected subnet "
                "is not modelled)" if neighbor.unconnected_ok_line or inst.ebgp_unconnected_ok_line else "")
    return f"no interface of {where} is on a subnet with {address} (it belongs to {owner} {port}){multihop}"


def no_neighbor(snap: Snapshot, peer: NodeId, address: str) -> str:
    """Why the other end of a one-sided session has no neighbor ``address``: not configured, shut
    down, or its whole BGP instance shut down (each with its line)."""
    said = f"{peer[0]} has no neighbor {address}" + (f" in VRF {peer[1]}" if peer[1] else "")
    dev = snap.devices.get(peer[0])
    inst = dev.bgp.get(peer[1]) if dev is not None else None
    if dev is None or inst is None:
        return said
    if inst.shutdown_line:
        return f"{said}: {snap.where(peer[0], dev.routing_file, inst.shutdown_line)}: its BGP is shut down"
    if address in inst.shut_neighbors:
        return f"{said} that is up: it is shut down (`neighbor {address} shutdown`)"
    return said
