"""Dynamic neighbors: FRR's `bgp listen range PREFIX peer-group G` in a BGP instance, and EOS's
`bgp listen range PREFIX peer-group G remote-as N|peer-filter F` (the range gives the AS: every
peer as AS N, or the peers whose own AS the filter accepts, as that AS; ``ListenPeers``).

bgpd takes a connection from an address it has no neighbor for when a listen range holds that
address: the peer becomes a member of G (of the one range that holds the address: bgpd refuses
overlapping ranges), with everything G sets, and the member never opens a connection itself. An instance takes
at most `bgp listen limit N` (100) such members. So a session with a listening instance exists when
another device names one of the instance's addresses as its neighbor and opens the connection from
an address a range holds.

``expand_dynamic_neighbors`` turns those into ordinary neighbors of the listening instance
(``Neighbor.dynamic``, passive, their ``line`` the range's), once every device is read, so that the
pairing of sessions (verify/topology.py), their state (controlplane.session_state: a passive member
facing a passive peer never comes up) and route propagation judge them as any other neighbor.

Invariant: a listening instance gains members only for addresses it has no neighbor for (bgpd
prefers a configured neighbor), and only from statements of other devices that name one of its
own addresses (in the listening instance's VRF)."""

from __future__ import annotations

from collections.abc import Iterator

from dualrail_net.verify.controlplane import update_source_address
from dualrail_net.verify.ipfast import contains, ip_int, network_of
from dualrail_net.verify.model import BgpInstance, DeviceConfig, Neighbor
from dualrail_net.verify.parsers.frr import is_ip, listen_range_holding, take_group
from dualrail_net.verify.snapshot import Snapshot


def _listeners(snap: Snapshot) -> Iterator[tuple[DeviceConfig, str | None, BgpInstance]]:
    for dev in snap.devices.values():
        for vrf, inst in dev.bgp.items():
            if inst.listen_ranges:
                yield dev, vrf, inst


def connection_source(dev: DeviceConfig, vrf: str | None, n: Neighbor) -> str | None:
    """The address ``dev`` opens its connection to neighbor ``n`` from: its update-source's, else its
    own address on the longest connected subnet (in the instance's VRF) that holds the neighbor's
    address, as the kernel picks it; None: no such subnet (no connection from here)."""
    if n.update_source is not None:
        chosen = update_source_address(dev, n.update_source)
        if chosen is not None:
            return chosen
    target = ip_int(n.address)
    best: tuple[int, str] | None = None
    for iface in dev.interfaces.values():
        if iface.vrf != vrf or iface.down:
            continue
        for address in iface.addresses:
            net, length = network_of(address)
            if length >= 32 or not contains((net, length), target):
                continue
            if best is None or length > best[0]:
                best = (length, address.partition("/")[0])
    return best[1] if best is not None else None


def listen_range_for(inst: BgpInstance, source: str) -> tuple[str, int, int] | None:
    """(group, line, first address) of the listen range of ``inst`` that holds ``source`` when it
    names a group the instance defines; None otherwise."""
    held = listen_range_holding(inst, ip_int(source))
    if held is None or held[1] not in inst.dynamic_groups:
        return None
    return held[1], held[2], network_of(held[0])[0]


def expand_dynamic_neighbors(snap: Snapshot) -> None:
    """Add to every listening instance the members its ranges admit (in the order the devices and
    their neighbor statements come). What the model cannot decide is reported on the device
    (``unmodelled``): more peers than the listen limit (bgpd takes whichever connect first; the
    model takes the first in file order)."""
    # the listening instances' own addresses (a VRF is the device's own affair: a peer names the
    # address, whatever VRF either end puts it in)
    listening: dict[int, tuple[DeviceConfig, str | None, BgpInstance]] = {}
    for dev, vrf, inst in _listeners(snap):
        for iface in dev.interfaces.values():
            if iface.vrf == vrf:
                for address in iface.addresses:
                    listening.setdefault(ip_int(address.partition("/")[0]), (dev, vrf, inst))
    if not listening:
        return
    refused: dict[int, int] = {}  # id(inst) -> peers beyond the limit
    members: dict[int, int] = {}  # id(inst) -> members made

    def admit(listener: BgpInstance, source: str, peer_asn: int | None) -> None:
        if source in listener.neighbors or source in listener.shut_neighbors:
            return  # a configured neighbor (or a member already made for that address)
        chosen = listen_range_for(listener, source)
        if chosen is None:
            return
        group_name, line, start = chosen
        peers = listener.listen_peers.get(start)  # (EOS: the range's remote-as or peer-filter)
        if peers is not None and not peers.admits(peer_asn):
            return  # (its peer-filter refuses that AS: no session)
        if members.get(id(listener), 0) >= listener.listen_limit:
            refused[id(listener)] = refused.get(id(listener), 0) + 1
            return
        members[id(listener)] = members.get(id(listener), 0) + 1
        member = Neighbor(source, peer_group=group_name, line=line, passive=True, dynamic=True, defined=True)
        take_group(member, listener.dynamic_groups[group_name])
        if peers is not None:  # (the range's word on the AS wins over the group's)
            member.remote_asn, member.remote_kind = (peers.asn if peers.asn is not None else peer_asn), None
        if member.shutdown:
            listener.shut_neighbors.append(source)
        else:
            listener.neighbors[source] = member

    for dev in snap.devices.values():
        for vrf, inst in dev.bgp.items():
            for n in list(inst.neighbors.values()):
                if n.interface or n.dynamic or not is_ip(n.address):
                    continue
                target = listening.get(ip_int(n.address))
                if target is None or target[0] is dev:
                    continue
                source = connection_source(dev, vrf, n)
                if source is not None:
                    admit(target[2], source, n.local_as if n.local_as is not None else inst.asn)
    # a gateway's planned external peers (not rendered: the plan has them open the session from
    # their address on the gateway's port)
    for dev, vrf, inst in _listeners(snap):
        meta = snap.manifest.devices.get(dev.name)
        for address, peer in (meta.external.items() if meta is not None else ()):
            if peer.vrf == vrf:
                admit(inst, address, peer.asn)
    for dev, _vrf, inst in _listeners(snap):
        beyond = refused.get(id(inst), 0)
        if beyond:
            line = inst.listen_limit_line or next(iter(inst.listen_ranges.values()))[2]
            dev.unmodelled.append((line, f"bgp listen limit {inst.listen_limit}: {beyond} more peer(s) connect "
                                         "from its listen ranges; bgpd takes whichever connect first (the "
                                         "model takes the first in file order)"))
