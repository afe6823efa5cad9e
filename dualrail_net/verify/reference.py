"""Plain reference implementations: the specification each fast path in verify is tested against.

The checks and the topology take fast paths at scale (columns, array prefilters, integer joins);
what they must compute is written here the plain way, object by object and statement by statement,
so a reader finds the definition next to the fast code, and tests require both to agree (on the
example, on random extra addresses and neighbors, and on every mutation).
"""

from __future__ import annotations

from dualrail_net.verify.checks import Context, finding, running
from dualrail_net.verify.checks.isolation import _dedupe, foreign_endpoint
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.ipfast import ip_int, net_str, network_of, split_address
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import Endpoint, NodeId, Session, no_connected_subnet, no_neighbor


class PlainTopology:
    """The object-per-address topology, built and paired with plain loops."""

    def __init__(self, snap: Snapshot) -> None:
        self.endpoints: list[Endpoint] = []
        self.by_ip: dict[str, Endpoint] = {}
        self.duplicates: dict[str, list[Endpoint]] = {}
        self.subnets: dict[NodeId, dict[tuple[int, int], Endpoint]] = {}
        self.seen: dict[NodeId, set[str]] = {}
        self.port_up: list[bool] = []  # per endpoint: its port is not kept down
        for dev in snap.devices.values():
            undeclared = not snap.plane_of_device(dev.name)
            for iface in dev.interfaces.values():
                node = (dev.name, iface.vrf)
                for addr in iface.addresses:
                    ip, net = split_address(addr)
                    self.add(Endpoint(dev.name, iface.name, iface.vrf, addr, ip, net, node, False, iface.is_loopback),
                             not iface.down)
                    plane = snap.plane_of_net(net)
                    if undeclared and plane:
                        self.seen.setdefault(node, set()).add(plane)
        for srv in snap.servers.values():
            for iface in srv.interfaces.values():
                for addr in iface.addresses:
                    ip, net = split_address(addr)
                    self.add(Endpoint(srv.name, iface.name, None, addr, ip, net, (srv.name, None), True),
                             not iface.down)
        self.node_plane: dict[NodeId, str | None] = {}
        for dev in snap.devices.values():
            declared = snap.plane_of_device(dev.name)
            for vrf in {None} | set(dev.vrfs) | set(dev.bgp):
                planes = self.seen.get((dev.name, vrf), set())
                self.node_plane[(dev.name, vrf)] = declared or (next(iter(planes)) if len(planes) == 1 else None)
        self.sessions, self.one_sided = self.pair(snap)

    def add(self, ep: Endpoint, up: bool = True) -> None:
        self.endpoints.append(ep)
        self.port_up.append(up)
        first = self.by_ip.setdefault(ep.ip, ep)
        if first is not ep:
            self.duplicates.setdefault(ep.ip, [first]).append(ep)
        if ep.net[1] != 32:
            self.subnets.setdefault(ep.node, {}).setdefault(ep.net, ep)

    def route_to(self, node: NodeId, ip: str) -> Endpoint | None:
        """The node's endpoint on its longest subnet (not a /32) holding ``ip``: its connected route."""
        value = ip_int(ip)
        best: Endpoint | None = None
        for net, ep in self.subnets.get(node, {}).items():
            mask = ((1 << net[1]) - 1) << (32 - net[1]) if net[1] else 0
            if value & mask == net[0] and (best is None or net[1] > best.net[1]):
                best = ep
        return best

    def shadowed_by(self, ep: Endpoint) -> Endpoint | None:
        """The endpoint configured before ``ep`` in its instance, on a port that is up, whose subnet
        (shorter than /31) has ``ep``'s address as its broadcast address."""
        value = ip_int(ep.ip)
        for other, up in zip(self.endpoints, self.port_up):
            if other is ep:
                return None
            net, length = other.net
            if other.node == ep.node and up and length < 31 and net | ((1 << (32 - length)) - 1) == value:
                return other
        return None

    def pair(self, snap: Snapshot) -> tuple[list[Session], list[tuple[NodeId, str, str]]]:
        instances = {(dev.name, vrf): inst for dev in snap.devices.values() for vrf, inst in dev.bgp.items()}
        sessions: list[Session] = []
        one_sided: list[tuple[NodeId, str, str]] = []
        done: set[frozenset[int]] = set()
        for node, inst in instances.items():
            for addr, neighbor in inst.neighbors.items():
                peer = self.by_ip.get(addr)
                if peer is None:
                    one_sided.append((node, addr, "no interface in the fabric has this address"))
                    continue
                local = self.route_to(node, addr)
                if local is None:
                    where = f"VRF {node[1]}" if node[1] else "the default VRF"
                    one_sided.append((node, addr, no_connected_subnet(where, addr, peer.device, peer.interface,
                                                                      neighbor, inst)))
                    continue
                if any(ep.node == node and ep.ip == addr for ep in self.endpoints):
                    one_sided.append((node, addr, f"{addr} is an address of {node[0]} itself "
                                      f"(also configured on {peer.device} {peer.interface})"))
                    continue
                back_route = self.route_to(peer.node, local.ip)
                if back_route is None or (back_route.device, back_route.interface) != (peer.device, peer.interface):
                    one_sided.append((node, addr, f"{peer.node[0]} has no route back to {local.ip} over "
                                      f"{peer.interface} (the port with {addr}): {node[0]} {local.interface} is "
                                      f"{local.address}, {peer.node[0]} {peer.interface} is {peer.address}"))
                    continue
                hidden = peer if self.shadowed_by(peer) else local if self.shadowed_by(local) else None
                if hidden is not None:
                    by = self.shadowed_by(hidden)
                    assert by is not None
                    one_sided.append((node, addr, f"{hidden.ip} on {hidden.device} {hidden.interface} is the "
                                      f"broadcast address of {by.interface}'s {by.address}, configured before it: "
                                      "the kernel takes it as a broadcast and TCP to it is dropped"))
                    continue
                peer_inst = instances.get(peer.node)
                back = peer_inst.neighbors.get(local.ip) if peer_inst is not None else None
                if peer_inst is None or back is None:
                    one_sided.append((node, addr, no_neighbor(snap, peer.node, local.ip)))
                    continue
                link = frozenset((id(local), id(peer)))
                if link in done:
                    continue
                done.add(link)
                sessions.append(Session(node, peer.node, addr, local.ip, inst.asn, peer_inst.asn,
                                        neighbor.remote_asn, back.remote_asn))
        return sessions, one_sided


def plain_cross_plane_bgp(snap: Snapshot, plain: PlainTopology) -> list[Finding]:
    """ISO-CROSS-PLANE-BGP statement by statement (the check finds its suspects over arrays)."""
    with running("ISO-CROSS-PLANE-BGP"):
        out = []
        for dev in snap.devices.values():
            for vrf, inst in dev.bgp.items():
                mine = plain.node_plane.get((dev.name, vrf))
                for addr in inst.neighbors:
                    peer = plain.by_ip.get(addr)
                    their = plain.node_plane.get(peer.node) if peer and not peer.is_server else snap.plane_of_address(addr)
                    if mine and their and mine != their:
                        out.append(finding([dev.name] + ([peer.device] if peer else []), mine,
                                           f"{dev.name}{' VRF ' + vrf if vrf else ''} (plane {mine}) has BGP neighbor "
                                           f"{addr}" + (f" on {peer.device}" if peer else "") + f" in plane {their}",
                                           "a session between planes exchanges their routes"))
        return out


def plain_session_missing(snap: Snapshot, plain: PlainTopology) -> list[Finding]:
    """BGP-SESSION-MISSING cable by cable over text pairs (the check joins numbered pairs)."""
    with running("BGP-SESSION-MISSING"):
        pairs = {frozenset((s.a_neighbor, s.b_neighbor)) for s in plain.sessions}
        out = []
        for row in snap.cabling:
            a_dev, b_dev = snap.devices.get(row["a_device"]), snap.devices.get(row["b_device"])
            a_if = a_dev.interfaces.get(row["a_port"]) if a_dev else None
            b_if = b_dev.interfaces.get(row["b_port"]) if b_dev else None
            if not (a_if and b_if and a_if.addresses and b_if.addresses):
                continue
            if frozenset((a_if.addresses[0].partition("/")[0], b_if.addresses[0].partition("/")[0])) not in pairs:
                out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                                   f"no BGP session on {row['a_device']}:{row['a_port']} - {row['b_device']}:{row['b_port']}",
                                   "a cabled uplink without a session is capacity the fabric never uses"))
        return out


def reference_overlaps(ctx: Context) -> list[Finding]:
    with running("ADDR-OVERLAP"):
        nets: dict[tuple[int, int], list[Endpoint]] = {}
        for ep in ctx.topo.endpoints:
            nets.setdefault(ep.net, []).append(ep)
        out = []
        open_net: tuple[int, int, tuple[int, int]] | None = None
        for start, plen in sorted(nets):
            end = start + (1 << (32 - plen)) - 1
            if open_net and start <= open_net[1]:
                other, owners = open_net[2], nets[(start, plen)]
                a, b = net_str(other), net_str((start, plen))
                out.append(finding(sorted({e.device for e in nets[other] + owners}),
                                   ctx.snap.plane_of_address(b),
                                   f"{b} ({', '.join(f'{e.device} {e.interface}' for e in owners)}) overlaps {a} "
                                   f"({', '.join(f'{e.device} {e.interface}' for e in nets[other])})",
                                   "overlapping subnets make routing ambiguous"))
            if not open_net or end > open_net[1]:
                open_net = (start, end, (start, plen))
        return out


def reference_shared_subnets(ctx: Context) -> list[tuple[tuple[int, int], set[tuple[str, str | None]]]]:
    first: dict[tuple[int, int], tuple[str, str | None]] = {}
    mixed: dict[tuple[int, int], set[tuple[str, str | None]]] = {}
    for ep in ctx.topo.endpoints:
        if ep.is_loopback or ep.net[1] == 32:
            continue
        member = (ep.device, ctx.snap.plane_of_net(ep.net) if ep.is_server else ctx.topo.node_plane.get(ep.node))
        seen = first.get(ep.net)
        if seen is None:
            first[ep.net] = member
        elif ep.net in mixed:
            mixed[ep.net].add(member)
        elif seen[1] != member[1]:
            mixed[ep.net] = {seen, member}
    return [(net, members) for net, members in mixed.items() if len({p for _, p in members if p}) > 1]


def reference_foreign(ctx: Context) -> list[Finding]:
    """ISO-FOREIGN-SUBNET's per-endpoint logic over every switch endpoint (the check runs it over
    the candidates its arrays find)."""
    with running("ISO-FOREIGN-SUBNET"):
        return _dedupe([f for ep in ctx.topo.endpoints if not ep.is_server for f in foreign_endpoint(ctx, ep)])


def reference_p2p(ctx: Context) -> list[Finding]:
    with running("ADDR-P2P-MISMATCH"):
        out = []
        why = "ends on different subnets never come up; the BGP session and the path are lost"
        cables = ctx.cables
        for row, a_port, b_port in zip(cables.plan, cables.a, cables.b):
            a = a_port.addresses[0] if a_port is not None and a_port.addresses else None
            b = b_port.addresses[0] if b_port is not None and b_port.addresses else None
            if row["kind"] == "external":
                b = row["b_address"]  # outside the rendered files: as planned
            label = f"{row['a_device']}:{row['a_port']} - {row['b_device']}:{row['b_port']}"
            if a is None or b is None:
                out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                                   f"{label}: {'both ends have' if a is None and b is None else 'one end has'} "
                                   "no address in the rendered config", why))
            elif network_of(a) != network_of(b) or a.partition("/")[0] == b.partition("/")[0]:
                out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                                   f"{label}: {a} and {b} do not pair", why))
            elif (row.get("a_address"), row.get("b_address")) != (a, b):
                out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                                   f"{label}: configs say {a} / {b}, the cabling plan says {row.get('a_address')} / "
                                   f"{row.get('b_address')}", "the configs and the cabling plan disagree: one was edited"))
        return out
