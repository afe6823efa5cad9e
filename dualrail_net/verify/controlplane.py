"""The control plane of every plane, computed from the parsed configs as the devices would run it.

Per plane: which configured BGP sessions come up for IPv4 unicast (both ends agree on the ASN,
`remote-as external|internal` included; the address family is active on both ends; neither port is
down; IP routing is on; the access lists let one end open TCP 179), what each routing instance originates (a `network` only while its prefix is
in the RIB as a connected subnet or a usable static route, FRR's and EOS's import check;
redistribution; aggregates while a more specific route exists, `summary-only` suppressing those),
and the BGP RIB every instance ends with: for each prefix, the shortest AS path and the next hops
installed for it (eBGP AS-path loop prevention against the receiver's ASN, relaxed on a session
whose receiver has `allowas-in`, each side's route-map
with the platform's semantics incl. undefined names, `ebgp-requires-policy`, multipath only over
the best path's neighbor AS unless `multipath-relax`, and `maximum-paths` with the platform default).

The plan's side (``expected_plane``): the same propagation over the cabling plan's switch links with
no policy, originating what the manifest says each device originates: every planned prefix at every
switch of its plane, over every equal-cost neighbor. checks/routing.py compares the two.

Prefix sets are Python integers used as bitsets (one bit per prefix of the plane), so a level of the
propagation is a few big-int operations per session. Best-path ties between equal paths go to the
lowest router ID (a real device keeps the oldest path; the set of installed next hops is the same).
AS-path prepends in route-maps lengthen the path (an offer arrives as many levels later: the drain
of a switch). Weight and local preference set inbound outrank the path length, and MED decides
between the paths of one neighbor AS (`_propagate_preferring`: a fixpoint of propagations with the
outranked sessions blocked). Parallel links are a session and a next hop each. A gateway's planned
external peers bring in the planned prefixes (`external_routes`). Not modelled (each reported by
CONFIG-UNMODELLED where it appears): other route-map `set` actions (communities, relative or `igp`
metrics ...), best-path attributes on iBGP sessions, a prepend of an ASN neither end of the session
has (ROUTE-POLICY-UNMODELLED: the loop it causes is not followed), iBGP route reflection, VRF
leaking inside a plane (the isolation checks judge leaks between planes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

import numpy as np

from dualrail_net.platforms import PlatformError, get_platform
from dualrail_net.verify.aspaths import list_permits, path_text
from dualrail_net.verify.ipfast import contains, ip_int, net_str, network_of
from dualrail_net.verify.nopolicy import policy_stops, requires_policy
from dualrail_net.verify.model import DEFAULT_LOCAL_PREF, ORIGIN_CODES, AclEntry, BgpInstance, DeviceConfig, Neighbor, RouteMapEntry, StaticRoute, neighbor_named, why_down
from dualrail_net.verify.routes import (
    PrefixIndex,
    _route_map_mask,
    explain_prefix_list,
    explain_route_map,
    route_map_attributes,
    prefix_list_mask,
    route_map_next_hops,
    route_map_outcome,
    route_map_prepends,
)
from dualrail_net.verify.kernelrules import rejecting_rule
from dualrail_net.verify.parsers.frr import BGP_ROLES, is_ip
from dualrail_net.verify.snapshot import Snapshot
from dualrail_net.verify.topology import _NODE_SHIFT, Endpoint, NodeId, Session, Topology

MAX_LEVELS = 64  # AS paths longer than this are not followed (a Clos fabric needs 4-6)
Delays = tuple[tuple[int, int], ...]  # ((extra AS hops, prefixes), ...) a session's prepends add
# (receiver, what may cross or None: all, iBGP, delays, the sender's number on this session: its own,
# or an alias (>= the instance count) for the second and later of parallel sessions to one receiver)
Edge = tuple[int, int | None, bool, Delays | None, int]
TRANSIT_ROLES = frozenset({"spine", "super_spine"})


@dataclass(frozen=True)
class SessionState:
    session: Session
    up: bool
    reason: str = ""  # why it does not carry IPv4 routes, with the config line


@dataclass
class PlaneControl:
    """One plane's computed control plane. Instances are numbered (``nodes[i]``); what is kept per
    session direction is indexed by those numbers (a 100k-GPU plane has 400k of them)."""

    plane: str
    index: PrefixIndex  # bit i of every set = index.prefixes[i]
    nodes: list[NodeId]
    sessions: list[SessionState]
    origin: dict[NodeId, int]  # what each instance originates
    reach: dict[NodeId, int]  # what each instance has a BGP route for
    # per receiver: sender number -> prefixes installed over that session; a number >= len(nodes) is
    # a parallel session of sender alias[number - len(nodes)] (each session is a next hop of its own)
    via_in: list[dict[int, int]]
    edge_masks: dict[int, int] = field(default_factory=dict)  # sender * n + receiver -> what may cross
    looped: dict[int, int] = field(default_factory=dict)  # sender * n + receiver -> dropped by loop prevention
    suppressed: dict[NodeId, int] = field(default_factory=dict)  # summary-only: not advertised
    dead_networks: list[tuple[NodeId, str, int]] = field(default_factory=list)  # (node, prefix, line)
    undefined: list[tuple[str, str]] = field(default_factory=list)  # (device, "route-map X")
    # sender * n + receiver -> ((extra AS hops, prefixes), ...) the session's route-maps prepend
    edge_delays: dict[int, Delays] = field(default_factory=dict)
    unmodelled: list[tuple[str, int, str]] = field(default_factory=list)  # (device, line, what)
    alias: list[int] = field(default_factory=list)  # parallel session numbers -> their sender's number
    external_down: list[tuple[NodeId, str, str]] = field(default_factory=list)  # (gateway, peer, why)
    # sender * n + receiver -> (prefixes not installed over that session because another path is
    # preferred by weight, local preference or MED, the route-map entries that set them)
    preferred: dict[int, tuple[int, list[RouteMapEntry]]] = field(default_factory=dict)
    # sessions that stay up with more prefixes than their receiver's limit: (receiver, sender, why)
    over_limit: list[tuple[str, str, str]] = field(default_factory=list)
    # sender * n + receiver -> [(prefixes, why)]: what crosses the session with a next hop a
    # route-map set that the receiver cannot use (the path is neither installed nor advertised)
    unusable_next_hop: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    # receiver -> [(session number, prefixes, the address they are sent to, why)]: a next hop a
    # route-map moved to another address the receiver is connected to; its sessions' addresses
    # (receiver, session number) -> the address it names the sender by (kept only for receivers
    # with a moved next hop)
    moved_next_hops: dict[int, list[tuple[int, int, str, str]]] = field(default_factory=dict)
    session_addresses: dict[tuple[int, int], str] = field(default_factory=dict)
    # (sender, receiver) -> (sender's device, line) of a `remove-private-AS` the model follows: the
    # sender's paths arrive one AS long
    stripped: dict[tuple[NodeId, NodeId], tuple[str, int]] = field(default_factory=dict)
    # the devices in `bgp graceful-shutdown`, each with the entry that stands for it in ``preferred``
    graceful: list[tuple[str, RouteMapEntry]] = field(default_factory=list)
    # (sender, receiver) -> {prefix bit: (device, line, why)}: what an AS-path filter keeps out
    path_denied: dict[tuple[NodeId, NodeId], dict[int, tuple[str, int, str]]] = field(default_factory=dict)
    # network statements their route-map keeps from being advertised: (node, prefix, line, why)
    withheld_networks: list[tuple[NodeId, str, int, str]] = field(default_factory=list)
    # EOS sessions whose receiver keeps only part of what it is sent (maximum-accepted-routes):
    # (receiver, sender, why)
    truncated: list[tuple[str, str, str]] = field(default_factory=list)
    # as-set aggregates active on their device (installed, suppressing with summary-only) but sent to
    # no neighbor: a learned route under them puts its ASes in their path
    sent_nowhere: dict[NodeId, int] = field(default_factory=dict)

    def next_hop_unusable(self, sender: NodeId, receiver: NodeId, bit: int) -> str:
        """Why prefix ``bit`` from ``sender`` is unusable at ``receiver`` for its next hop ("": it is not)."""
        s, r = self.number.get(sender), self.number.get(receiver)
        if s is None or r is None:
            return ""
        return next((why for bits_, why in self.unusable_next_hop.get(s * len(self.nodes) + r, []) if bits_ >> bit & 1), "")

    def outranked(self, sender: NodeId, receiver: NodeId) -> tuple[int, list[RouteMapEntry]]:
        s, r = self.number.get(sender), self.number.get(receiver)
        if s is None or r is None:
            return 0, []
        return self.preferred.get(s * len(self.nodes) + r, (0, []))

    def __post_init__(self) -> None:
        self.number = {node: i for i, node in enumerate(self.nodes)}

    def _real(self, s: int) -> int:
        n = len(self.nodes)
        return s if s < n else self.alias[s - n]

    def sessions_via(self, receiver: NodeId, sender: NodeId) -> list[int]:
        """What ``receiver`` installs over each session with ``sender`` (one entry per parallel
        session that installs anything)."""
        r, s = self.number.get(receiver), self.number.get(sender)
        if r is None or s is None:
            return []
        return [bits_ for key, bits_ in self.via_in[r].items() if self._real(key) == s]

    def via(self, receiver: NodeId, sender: NodeId) -> int:
        """The prefixes ``receiver`` installs with ``sender`` as a next hop (over any session)."""
        r, s = self.number.get(receiver), self.number.get(sender)
        if r is None or s is None:
            return 0
        if not self.alias:
            return self.via_in[r].get(s, 0)
        return _or(self.sessions_via(receiver, sender))

    def senders(self, receiver: NodeId) -> dict[NodeId, int]:
        r = self.number.get(receiver)
        out: dict[NodeId, int] = {}
        for s, bits_ in ([] if r is None else self.via_in[r].items()):
            node = self.nodes[self._real(s)]
            out[node] = out.get(node, 0) | bits_
        return out

    def next_hops(self, node: NodeId, bit: int) -> list[NodeId]:
        """The neighbors ``node`` installs for prefix ``bit``, once per session (parallel links)."""
        r = self.number.get(node)
        return [] if r is None else [self.nodes[self._real(s)] for s, bits_ in self.via_in[r].items()
                                     if bits_ >> bit & 1]

    def width(self, node: NodeId, bit: int) -> int:
        """Next hops ``node`` installs for prefix ``bit``: one per session (parallel links count);
        paths a route-map sent to one address are one next hop (the FIB installs each address once)."""
        r = self.number.get(node)
        if r is None:
            return 0
        if r not in self.moved_next_hops:
            return sum(1 for bits_ in self.via_in[r].values() if bits_ >> bit & 1)
        return len({self._target(r, key, bit) for key, bits_ in self.via_in[r].items() if bits_ >> bit & 1})

    def _target(self, r: int, key: int, bit: int) -> str:
        """Where receiver ``r`` forwards prefix ``bit`` learned over session ``key``."""
        for k, bits_, target, _ in self.moved_next_hops.get(r, []):
            if k == key and bits_ >> bit & 1:
                return target
        return self.session_addresses.get((r, key), f"#{key}")

    def fib_via(self, receiver: NodeId, sender: NodeId) -> tuple[int, str]:
        """The prefixes ``receiver`` forwards to ``sender`` (``via``, with the next hops a route-map
        moved: a path over another neighbor sent to this one counts here, one of this one's sent
        elsewhere does not), and why one of its own paths goes elsewhere ("": none does)."""
        r, s = self.number.get(receiver), self.number.get(sender)
        if r is None or s is None or r not in self.moved_next_hops:
            return self.via(receiver, sender), ""
        mine = {address for (rr, key), address in self.session_addresses.items() if rr == r and self._real(key) == s}
        out, why = 0, ""
        for key, bits_ in self.via_in[r].items():
            moved = 0
            for k, b, target, said in self.moved_next_hops[r]:
                if k != key:
                    continue
                moved |= b
                if target in mine:
                    out |= bits_ & b
                elif self._real(key) == s and bits_ & b:
                    why = said
            if self._real(key) == s:
                out |= bits_ & ~moved
        return out, why

    def edge_mask(self, sender: NodeId, receiver: NodeId) -> int | None:
        """What the session lets cross from ``sender`` to ``receiver`` (None: no session up)."""
        s, r = self.number.get(sender), self.number.get(receiver)
        if s is None or r is None:
            return None
        return self.edge_masks.get(s * len(self.nodes) + r)

    def prepended(self, sender: NodeId, receiver: NodeId, bit: int) -> int:
        """How many AS hops the session's route-maps add to prefix ``bit`` (0: none)."""
        s, r = self.number.get(sender), self.number.get(receiver)
        if s is None or r is None:
            return 0
        return next((extra for extra, bits_ in self.edge_delays.get(s * len(self.nodes) + r, ()) if bits_ >> bit & 1), 0)

    def loop_dropped(self, sender: NodeId, receiver: NodeId) -> int:
        s, r = self.number.get(sender), self.number.get(receiver)
        return 0 if s is None or r is None else self.looped.get(s * len(self.nodes) + r, 0)


def default_paths(platform: str, overrides: Mapping[str, int] | None = None) -> int:
    if overrides and platform in overrides:
        return overrides[platform]
    try:
        return get_platform(platform).default_maximum_paths
    except PlatformError:
        return 1


def remove_private_word(platform: str) -> str:
    """How the platform spells `remove-private-AS` (for findings that quote it)."""
    return "remove-private-as" if platform == "eos" else "remove-private-AS"


def private_asn(asn: int) -> bool:
    """RFC 6996's private ranges (what `remove-private-AS` strips)."""
    return 64512 <= asn <= 65534 or 4200000000 <= asn <= 4294967294


def strip_private(as_path: tuple[int, ...], mode: str, own_asn: int, peer_asn: int) -> tuple[int, ...]:
    """The AS path bgpd sends a neighbor with `remove-private-AS` ``mode`` (Neighbor.remove_private),
    before its own ASN goes in front: the peer's own ASN is always kept (so loop prevention still
    works there); "plain" and "replace" act only on a path of private ASNs alone."""
    if not mode or mode in ("plain", "replace") and not (as_path and all(private_asn(a) for a in as_path)):
        return as_path
    if mode.endswith("replace"):
        return tuple(own_asn if private_asn(a) and a != peer_asn else a for a in as_path)
    return tuple(a for a in as_path if not private_asn(a) or a == peer_asn)


def receive_limit(dev: DeviceConfig, n: Neighbor) -> int:
    """The prefixes ``dev`` accepts from neighbor ``n`` before it tears the session down: the
    configured limit, else the platform's default (``default_receive_limit``); 0: no limit."""
    if n.max_prefix is not None:
        return n.max_prefix
    try:
        return int(getattr(get_platform(dev.platform), "default_receive_limit", 0))
    except PlatformError:
        return 0


# the hold time of FRR's two profiles (`frr defaults datacenter|traditional`: keepalive 3/60, hold 9/180)
FRR_PROFILE_HOLD_TIME = {"datacenter": 9, "traditional": 180}


def offered_hold_time(dev: DeviceConfig, inst: BgpInstance, n: Neighbor) -> tuple[int, int, str]:
    """The hold time ``dev`` offers neighbor ``n`` in its OPEN, the line that sets it (0: a default)
    and what sets it: the neighbor's `timers`, else the instance's `timers bgp`, else FRR's profile
    (`frr defaults`), else the platform's default (``default_hold_time``)."""
    if n.timers is not None:
        return n.timers[1], n.timers_line, f"neighbor {n.address} timers {n.timers[0]} {n.timers[1]}"
    if inst.timers is not None:
        return inst.timers[1], inst.timers_line, f"timers bgp {inst.timers[0]} {inst.timers[1]}"
    if dev.frr_defaults in FRR_PROFILE_HOLD_TIME:
        return FRR_PROFILE_HOLD_TIME[dev.frr_defaults], 0, f"`frr defaults {dev.frr_defaults}`"
    try:
        hold = int(getattr(get_platform(dev.platform), "default_hold_time", 180))
    except PlatformError:
        hold = 180
    return hold, 0, f"the {dev.platform} default"


def maximum_paths(dev: DeviceConfig, inst: BgpInstance, overrides: Mapping[str, int] | None = None) -> int:
    return inst.maximum_paths or default_paths(dev.platform, overrides)


def active(inst: BgpInstance, n: Neighbor) -> bool:
    """Whether IPv4 unicast is active toward ``n`` (`activate`, else the instance's default)."""
    return n.activate if n.activate is not None else inst.default_ipv4_unicast


def remote_as_agrees(n: Neighbor, own_asn: int, peer_asn: int) -> bool:
    if n.remote_kind == "external":
        return peer_asn != own_asn
    if n.remote_kind == "internal":
        return peer_asn == own_asn
    return n.remote_asn == peer_asn


AS_TRANS = 23456  # RFC 6793: what a 2-octet ASN field holds for an ASN above 65535


def shown_asn(n: Neighbor, own_asn: int) -> int:
    """The ASN an end puts in its OPEN toward ``n``'s peer: its instance's, or its `local-as`; AS_TRANS
    when that is above 65535 and the end sends no capabilities (`dont-capability-negotiate`: no
    4-octet AS capability to carry the real one)."""
    asn = own_asn if n.local_as is None else n.local_as
    return AS_TRANS if n.no_capabilities_line and asn > 65535 else asn


def rule_refusal(snap: Snapshot, s: Session) -> str:
    """Why an end's own policy rules stop it sending to the other ("" when none does): a reject
    rule (`ip rule add ... prohibit|blackhole|unreachable`) that its packets from its session
    address to the peer's meet before a table resolves them (the kernel refuses the send, so no TCP
    connection is made either way; the peer's packets to it are delivered by the local table
    first, its answers are what the rule stops)."""
    for node, source, destination in ((s.a, s.b_neighbor, s.a_neighbor), (s.b, s.a_neighbor, s.b_neighbor)):
        dev = snap.devices[node[0]]
        if not dev.kernel_rules or not is_ip(source) or not is_ip(destination):
            continue
        rule = rejecting_rule(dev.kernel_rules, node[1] is not None, ip_int(source), ip_int(destination))
        if rule is not None:
            where = snap.where(node[0], "interfaces", rule.line)
            return (f"{where}: a policy rule ({rule.action}, priority {rule.priority}) on {node[0]} ends the "
                    f"lookup of its own packets from {source} to {destination} before any table: it cannot "
                    "send to its neighbor, no TCP connection is made")
    return ""


def bound_elsewhere(snap: Snapshot, s: Session, a_end: Neighbor, b_end: Neighbor) -> str:
    """Why an end whose connection is bound to a port (`neighbor ADDRESS interface PORT`) cannot
    reach its peer ("" when the port is the one whose subnet holds the peer's address)."""
    for node, end, peer_address, peer in ((s.a, a_end, s.a_neighbor, s.b), (s.b, b_end, s.b_neighbor, s.a)):
        if end.bound_port is None or not is_ip(peer_address):
            continue
        dev = snap.devices[node[0]]
        port, line = end.bound_port
        value = ip_int(peer_address)
        holders = [iface.name for iface in dev.interfaces.values() if (iface.vrf or None) == (node[1] or None)
                   and any(contains(network_of(a), value) for a in iface.addresses)]
        if port in holders:
            continue
        where = snap.where(node[0], dev.routing_file, line)
        on = f"its subnet is on {holders[0]}" if holders else "no port of it holds that subnet"
        return (f"{where}: {node[0]} binds its connection to {peer[0]} ({peer_address}) to {port} "
                f"(`neighbor {peer_address} interface {port}`), but {on}: no TCP connection is made either way")
    return ""


def role_mismatch(snap: Snapshot, s: Session, a_end: Neighbor, b_end: Neighbor) -> str:
    """Why the two ends' BGP roles (RFC 9234, `neighbor X local-role`) refuse the session ("" when
    they do not): both send a role and the two do not form a pair, or a strict end's peer sends
    none. Either end refuses the OPEN with Role Mismatch."""
    for node, mine, other_node, theirs in ((s.a, a_end, s.b, b_end), (s.b, b_end, s.a, a_end)):
        if mine.local_role is None:
            continue
        where = snap.where(node[0], snap.devices[node[0]].routing_file, mine.local_role_line)
        if theirs.local_role is not None and BGP_ROLES[mine.local_role] != theirs.local_role:
            there = snap.where(other_node[0], snap.devices[other_node[0]].routing_file, theirs.local_role_line)
            return (f"{where}: {node[0]} takes the BGP role {mine.local_role} toward {other_node[0]}, which "
                    f"takes {theirs.local_role} ({there}); only {mine.local_role} and "
                    f"{BGP_ROLES[mine.local_role]} pair: the OPEN is refused (Role Mismatch)")
        if theirs.local_role is None and mine.local_role_strict:
            return (f"{where}: {node[0]} requires a BGP role from {other_node[0]} (`local-role "
                    f"{mine.local_role} strict-mode`) and {other_node[0]} sends none: the OPEN is refused "
                    "(Role Mismatch)")
    return ""


def session_state(snap: Snapshot, topo: Topology, s: Session,
                  with_down_ports: set[str] | None = None,
                  diverted: Mapping[NodeId, list[Diversion]] | None = None) -> SessionState:
    """Whether a configured session comes up and carries IPv4 unicast, and if not, why.
    ``with_down_ports``: the devices that have a port down (None: look at every device);
    ``diverted``: the instances' Diversions (None: found for the two ends here)."""
    devices = snap.devices
    a_inst, b_inst = devices[s.a[0]].bgp[s.a[1]], devices[s.b[0]].bgp[s.b[1]]
    ends: list[Neighbor] = [a_inst.neighbors[s.a_neighbor], b_inst.neighbors[s.b_neighbor]]
    # the ASN each end shows the other in its OPEN (shown_asn)
    shown = [shown_asn(ends[0], s.a_asn), shown_asn(ends[1], s.b_asn)]
    for me, peer, nbr_ip, n, own_asn, peer_asn, peer_end in (
            (s.a, s.b, s.a_neighbor, ends[0], shown[0], shown[1], ends[1]),
            (s.b, s.a, s.b_neighbor, ends[1], shown[1], shown[0], ends[0])):
        dev = devices[me[0]]
        inst = dev.bgp[me[1]]
        agrees = n.remote_asn == peer_asn if n.remote_kind is None else remote_as_agrees(n, own_asn, peer_asn)
        activated = active(inst, n)
        if agrees and activated and not dev.routing_off:
            continue  # the common case: nothing to explain (the message below costs more than the test)
        where = snap.where(me[0], dev.routing_file, n.line)
        if not agrees:
            said = n.remote_kind or n.remote_asn
            if peer_end.local_as is not None or peer_end.no_capabilities_line:
                # (not a remote-as typo: BGP-SESSION-DOWN reports it)
                trans = peer_end.no_capabilities_line and peer_asn == AS_TRANS
                at = snap.where(peer[0], devices[peer[0]].routing_file,
                                peer_end.no_capabilities_line if trans else peer_end.local_as_line)
                how = (" (`dont-capability-negotiate`: no 4-octet AS capability, so AS_TRANS in place of its ASN)"
                       if trans else "")
                return SessionState(s, False, f"{at}: {peer[0]} presents AS {peer_asn} to {me[0]}{how}, but "
                                              f"{me[0]} expects AS {said} ({where}): the OPEN is refused (bad peer AS)")
            return SessionState(s, False, f"{where}: {me[0]} {neighbor_named(n)} remote-as {said}, but {peer[0]} "
                                          f"is AS {peer_asn}")
        if me[1] in dev.routing_off:
            return SessionState(s, False, f"{snap.where(me[0], dev.routing_file)}: IP routing is off on "
                                          f"{me[0]}{' VRF ' + me[1] if me[1] else ''} (no `ip routing`)")
        if not activated:
            return SessionState(s, False, f"{where}: IPv4 unicast is not activated toward {nbr_ip} on {me[0]}"
                                          + ("" if inst.default_ipv4_unicast else
                                             " (`no bgp default ipv4-unicast` without `neighbor ... activate`)"))
    a_end, b_end = ends
    ibgp = s.a_asn == s.b_asn
    for node, mine, other_node, theirs in ((s.a, a_end, s.b, b_end), (s.b, b_end, s.a, a_end)):
        if mine.ttl_security is None:
            continue
        # GTSM on a directly connected session: what the other end sends arrives with its TTL as sent
        sent = 255 if theirs.ttl_security is not None or ibgp else (theirs.ebgp_multihop or 1)
        if sent < 256 - mine.ttl_security:
            where = snap.where(node[0], devices[node[0]].routing_file, mine.ttl_security_line)
            return SessionState(s, False, f"{where}: {node[0]} takes only packets that arrive with TTL >= "
                                          f"{256 - mine.ttl_security} (GTSM, {mine.ttl_security} hop(s)), and "
                                          f"{other_node[0]} sends with TTL {sent}: no TCP connection is accepted")
    signs = [end.password is not None or end.password_opaque for end in ends]
    if signs[0] != signs[1] or signs[0] and a_end.password != b_end.password \
            and not (a_end.password_opaque or b_end.password_opaque):
        # TCP MD5: a segment without the signature the receiver expects (or with another key) is
        # dropped; an opaque password (EOS's encrypted form) is compared only with none
        signing = [(node, end) for node, end in ((s.a, a_end), (s.b, b_end))
                   if end.password is not None or end.password_opaque]
        signer, signed = signing[0]
        other = s.b if signer == s.a else s.a
        where = snap.where(signer[0], devices[signer[0]].routing_file, signed.password_line)
        return SessionState(s, False, f"{where}: {signer[0]} signs the session with a TCP MD5 password "
                                      + ("that differs from its peer's" if len(signing) == 2 else
                                         f"and {other[0]} sets none")
                                      + ": no TCP connection is accepted")
    if a_end.passive and b_end.passive:
        where = snap.where(s.a[0], devices[s.a[0]].routing_file, a_end.line)
        return SessionState(s, False, f"{where}: both {s.a[0]} and {s.b[0]} wait passively for the other to "
                                      "connect (`neighbor ... passive` on both ends)")
    if a_end.bound_port is not None or b_end.bound_port is not None:
        unbound = bound_elsewhere(snap, s, a_end, b_end)
        if unbound:
            return SessionState(s, False, unbound)
    if a_end.local_role is not None or b_end.local_role is not None:
        mismatch = role_mismatch(snap, s, a_end, b_end)
        if mismatch:
            return SessionState(s, False, mismatch)
    for node, inst, other_node, other_inst, theirs in ((s.a, a_inst, s.b, b_inst, b_end),
                                                       (s.b, b_inst, s.a, a_inst, a_end)):
        least = inst.minimum_hold_time
        if not least:
            continue
        offered, _, source = offered_hold_time(devices[other_node[0]], other_inst, theirs)
        if offered < least:
            where = snap.where(node[0], devices[node[0]].routing_file, inst.minimum_hold_time_line)
            return SessionState(s, False, f"{where}: {node[0]} refuses an OPEN offering a hold time below {least} s "
                                          f"(`bgp minimum-holdtime`), and {other_node[0]} offers {offered} s "
                                          f"({source}): Unacceptable Hold Time")
    if a_end.update_source is not None or b_end.update_source is not None \
            or a_end.port is not None or b_end.port is not None:
        refused_source = _unopenable(snap, s, a_end, b_end)
        if refused_source:
            return SessionState(s, False, refused_source)
    if (devices[s.a[0]].acl_in or devices[s.a[0]].control_plane_acls or devices[s.b[0]].acl_in
            or devices[s.b[0]].control_plane_acls):
        refused = acl_refusal(snap, topo, s)
        if refused:
            return SessionState(s, False, refused)
    if devices[s.a[0]].kernel_rules or devices[s.b[0]].kernel_rules:
        refused = rule_refusal(snap, s)
        if refused:
            return SessionState(s, False, refused)
    if diverted is None:
        diverted = diversions(snap, topo, (s.a, s.b))
    for node, peer_ip in ((s.a, s.a_neighbor), (s.b, s.b_neighbor)):
        for d in diverted.get(node, ()):
            if topo.ip[d.victim] == peer_ip:
                where = static_at(snap, node[0], d.static)
                return SessionState(s, False, f"{where}: ip route {d.static.prefix} on {node[0]} is more specific than "
                                              f"the subnet of {d.port} and holds its neighbor's address {peer_ip}: "
                                              f"its BGP traffic to it goes to {d.to}")
    if topo.duplicate_ips:
        for node, peer_ip in ((s.a, s.b_neighbor), (s.b, s.a_neighbor)):
            owners = topo.duplicate_ips.get(peer_ip)
            held = [ep for i in owners or () if (ep := topo.endpoint(i)).node == node]
            if held:
                # its connection to that address never leaves the device (measured in the twin: a
                # leaf given its spine's address on a second port loses the session)
                return SessionState(s, False, f"{snap.device_folder(node[0])}: {node[0]} holds its neighbor's address "
                                              f"{peer_ip} itself (port {held[0].interface}): its BGP connection "
                                              "to that address stays on the device")
    for node, peer_ip in ((s.a, s.b_neighbor), (s.b, s.a_neighbor)):
        if with_down_ports is not None and node[0] not in with_down_ports:
            continue
        own = s.a_neighbor if node == s.a else s.b_neighbor
        if devices[node[0]].bgp[node[1]].neighbors[own].interface:  # unnumbered: the neighbor is the port
            port_name = own
        else:  # the local port: the endpoint of this instance whose address the peer names
            i = topo.by_ip.get(peer_ip)
            if i is None:
                continue
            ep = topo.endpoint(i)
            port_name = ep.interface if ep.device == node[0] else ""
        iface = devices[node[0]].interfaces.get(port_name)
        if iface is not None and iface.down:
            return SessionState(s, False, f"{snap.device_folder(node[0])}: port {port_name} of {node[0]} is "
                                          f"{why_down(iface.down)}")
    return SessionState(s, True)


def update_source_address(dev: DeviceConfig, source: str) -> str | None:
    """The address a neighbor's `update-source` opens connections from: the address itself, or
    the port's first IPv4 address (None: a port the files give no address: bgpd then binds to
    nothing and the kernel picks the address toward the peer, as without the statement)."""
    if is_ip(source):
        return source
    iface = dev.interfaces.get(source)
    if iface is None or not iface.addresses:
        return None
    return iface.addresses[0].split("/")[0]


def _unopenable(snap: Snapshot, s: Session, a_end: Neighbor, b_end: Neighbor) -> str | None:
    """Why neither end can open the session once `passive`, `port` and `update-source` are taken
    into account (None: one can). An end with `port N` connects to port N of its peer, where bgpd
    does not listen (it listens on 179). An end opens from its update-source address; its peer
    takes the connection only from the address it names that end by (bgpd's bgp_accept looks the
    peer up by the remote address: another one is "not configured" and closed). An end that cannot
    open still accepts its peer's connection (the twin: one end's `update-source lo` or `port N`
    leaves the session up)."""
    reasons: list[str] = []
    for node, end, own, peer in ((s.a, a_end, s.b_neighbor, s.b), (s.b, b_end, s.a_neighbor, s.a)):
        dev = snap.devices[node[0]]
        if end.passive:
            reasons.append(f"{snap.where(node[0], dev.routing_file, end.line)}: {node[0]} waits passively")
            continue
        if end.port is not None and end.port != BGP_PORT:
            reasons.append(f"{snap.where(node[0], dev.routing_file, end.port_line)}: {node[0]} connects to "
                           f"port {end.port} of {peer[0]}, where nothing listens (bgpd listens on {BGP_PORT})")
            continue
        if end.update_source is None or not is_ip(own):
            return None
        source = update_source_address(dev, end.update_source)
        if source is None or source == own or source in snap.devices[peer[0]].bgp[peer[1]].neighbors:
            return None  # (a neighbor of the peer for that address: another session, not judged here)
        reasons.append(f"{snap.where(node[0], dev.routing_file, end.update_source_line)}: {node[0]} opens from "
                       f"{source} (update-source {end.update_source}), and {peer[0]} has no neighbor {source} "
                       f"(it names {node[0]} {own})")
    return "; ".join(reasons) + ": neither end can open the BGP connection"


BGP_PORT = 179
CLIENT_PORT = 50000  # the side that opens the connection sends from an ephemeral port (32768-60999)


@dataclass(frozen=True)
class Diversion:
    """An installed static route of a routing instance more specific than one of its connected
    subnets, and an address another device holds on that subnet which it takes away from the
    port: the forwarding table takes the longest prefix, so the switch's traffic to that address
    (its BGP session to it too) goes where the static route says."""

    static: StaticRoute
    port: str  # the instance's port on the subnet
    victim: int  # the endpoint (topology index) whose address it takes
    to: str  # "a blackhole", "next hop X", "port P"


def diversions(snap: Snapshot, topo: Topology, nodes: Iterable[NodeId] | None = None) -> dict[NodeId, list[Diversion]]:
    """Per routing instance (of ``nodes``; None: all), its Diversions. The static routes whose range
    holds an endpoint address on a shorter subnet are found at once (the endpoints' addresses
    sorted, each range's shortest subnet by one reduction); only those are looked at one by one."""
    wanted = None if nodes is None else set(nodes)
    statics: list[tuple[int, StaticRoute]] = []
    for dev in snap.devices.values():
        for route in dev.static_routes:
            number = topo.node_id.get((dev.name, route.vrf))
            if number is not None and route.distance < DISTANCE_INFINITY \
                    and (wanted is None or (dev.name, route.vrf) in wanted):
                statics.append((number, route))
    if not statics or not len(topo):
        return {}
    order = topo.value_order
    values, lengths = topo.value[order], topo.length[order]
    spans = [network_of(r.prefix) for _, r in statics]
    starts = np.array([net for net, _ in spans], dtype=np.int64)
    sizes = np.array([length for _, length in spans], dtype=np.int64)
    ends = starts + (np.int64(1) << (32 - sizes)) - 1
    lo = np.searchsorted(values, starts, side="left")
    hi = np.searchsorted(values, ends, side="right")
    # the shortest subnet among the endpoints in each range (a sentinel of 99 closes the last one)
    bounds = np.empty(2 * len(statics), dtype=np.int64)
    bounds[0::2], bounds[1::2] = lo, hi
    shortest = np.minimum.reduceat(np.append(lengths, 99), bounds)[0::2]
    out: dict[NodeId, list[Diversion]] = {}
    for k in np.flatnonzero((hi > lo) & (shortest < sizes)).tolist():
        number, route = statics[k]
        node = topo.nodes[number]
        dev = snap.devices[node[0]]
        own = {ep.net: ep for ep in topo.endpoints_of(node)}
        for j in order[int(lo[k]):int(hi[k])].tolist():
            subnet = (int(topo.net[j]), int(topo.length[j]))
            mine = own.get(subnet)
            if mine is None or int(topo.length[j]) >= int(sizes[k]) or topo.node[j] == number:
                continue  # not on a subnet of this instance, or the static is no more specific
            iface = dev.interfaces.get(mine.interface)
            if iface is None or iface.down:
                continue
            if not _decides(dev, route, int(topo.value[j]), int(topo.length[j])):
                continue
            to = _static_elsewhere(dev, route, topo.ip[j], mine.interface, own)
            if to:
                out.setdefault(node, []).append(Diversion(route, mine.interface, j, to))
    return out


def _decides(dev: DeviceConfig, route: StaticRoute, address: int, subnet_len: int) -> bool:
    """Whether ``route`` is among the static routes the FIB takes for ``address`` (the longest
    prefix, then the lowest distance, among the instance's statics more specific than the
    subnet): a floating static behind another of the same prefix decides nothing."""
    mine = network_of(route.prefix)[1]
    for other in dev.static_routes:
        if other is route or other.vrf != route.vrf or other.distance >= DISTANCE_INFINITY:
            continue
        net, length = network_of(other.prefix)
        if length <= subnet_len or not contains((net, length), address):
            continue
        if length > mine or length == mine and other.distance < route.distance:
            return False
    return True


def address_diversion(snap: Snapshot, topo: Topology, node: NodeId, address: str) -> Diversion | None:
    """The Diversion of one address on one of the instance's connected subnets (an address no
    endpoint holds: a gateway's planned external peer), else None."""
    dev = snap.devices.get(node[0])
    if dev is None or not dev.static_routes:
        return None
    try:
        value = ip_int(address)
    except ValueError:
        return None
    own = {ep.net: ep for ep in topo.endpoints_of(node)}
    holding = [(length, ep) for (net, length), ep in own.items() if contains((net, length), value)]
    if not holding:
        return None
    length, ep = max(holding, key=lambda held: held[0])
    iface = dev.interfaces.get(ep.interface)
    if iface is None or iface.down:
        return None
    route = next((r for r in dev.static_routes
                  if r.vrf == node[1] and r.distance < DISTANCE_INFINITY and network_of(r.prefix)[1] > length
                  and contains(network_of(r.prefix), value) and _decides(dev, r, value, length)), None)
    if route is None:
        return None
    to = _static_elsewhere(dev, route, address, ep.interface, own)
    return Diversion(route, ep.interface, -1, to) if to else None


def _static_elsewhere(dev: DeviceConfig, route: StaticRoute, address: str, port: str,
                      own: Mapping[tuple[int, int], Endpoint]) -> str:
    """Where ``route`` sends traffic to ``address`` (on ``port``'s subnet) when that is not over the
    port to it ("": over the port to it, or the route is not installed: its next hop does not
    resolve, so the connected route still carries it)."""
    hop = route.nexthop
    if hop is None:
        return "a blackhole"
    if hop == port or hop == address:
        return ""
    if hop in dev.interfaces:
        return "" if dev.interfaces[hop].down else f"port {hop}"
    if route.nexthop_vrf is not None and route.nexthop_vrf != (route.vrf or "default"):
        return f"next hop {hop} in VRF {route.nexthop_vrf}"
    try:
        value = ip_int(hop)
    except ValueError:
        return ""
    on = next((ep for (net, length), ep in own.items() if contains((net, length), value)), None)
    if on is None:
        return ""  # not on a connected subnet: not installed (static_in_rib)
    iface = dev.interfaces.get(on.interface)
    return "" if iface is None or iface.down else f"next hop {hop}"


def acl_permits(entries: Sequence[AclEntry], protocol: str, source: int, source_port: int, destination: int,
                destination_port: int) -> tuple[bool, AclEntry | None]:
    """The verdict of an access list on one packet and the entry that gave it (None: the implicit
    deny at the end)."""
    for e in entries:
        if e.protocol not in ("ip", protocol):
            continue
        if not (_within_net(source, e.source) and _within_net(destination, e.destination)):
            continue
        if e.source_ports is not None and not any(lo <= source_port <= hi for lo, hi in e.source_ports):
            continue
        if e.destination_ports is not None and not any(lo <= destination_port <= hi for lo, hi in e.destination_ports):
            continue
        return e.action == "permit", e
    return False, None


def _within_net(address: int, net: tuple[int, int]) -> bool:
    network, length = net
    return not length or address >> (32 - length) == network >> (32 - length)


def acl_refusal(snap: Snapshot, topo: Topology, s: Session) -> str | None:
    """Why the access lists on the session's ports or the switches' control planes let no TCP
    connection through (None: one of the two ends can open it). The end that opens sends to port
    179 from an ephemeral port; every segment of the other end comes back from 179. Each end's
    arriving segments pass its port's `ip access-group ... in` and, being for the switch itself,
    its control-plane list. A list the model does not read whole, or one not defined, is not judged."""
    if not (is_ip(s.a_neighbor) and is_ip(s.b_neighbor)):
        return None  # an unnumbered session (neighbors named by port): its link-local addresses are not judged
    devices = snap.devices
    ends = {s.a: (s.b_neighbor, s.a_neighbor), s.b: (s.a_neighbor, s.b_neighbor)}  # node -> (own, peer address)
    denials: list[str] = []

    def arrives(node: NodeId, source_port: int, destination_port: int) -> bool:
        dev = devices[node[0]]
        own, peer = ends[node]
        i = topo.by_ip.get(own)
        ep = topo.endpoint(i) if i is not None else None
        port = ep.interface if ep is not None and ep.device == node[0] else None
        bound = [(f"port {port}", dev.acl_in[port])] if port in dev.acl_in else []
        if node[1] in dev.control_plane_acls:
            bound.append(("control plane", dev.control_plane_acls[node[1]]))
        for where, (name, line) in bound:
            entries = dev.acls.get(name)
            if entries is None:
                continue  # not defined, or not read whole: not judged (the unread lines are reported)
            ok, entry = acl_permits(entries, "tcp", ip_int(peer), source_port, ip_int(own), destination_port)
            if not ok:
                decided = f"line {entry.line}" if entry is not None else "its implicit deny"
                denials.append(f"{snap.where(node[0], dev.acl_file or dev.routing_file, line)}: access list {name} on {node[0]}'s "
                               f"{where} drops TCP from {peer} port {source_port} to port {destination_port} "
                               f"({decided})")
                return False
        return True

    a_opens = arrives(s.b, CLIENT_PORT, BGP_PORT) and arrives(s.a, BGP_PORT, CLIENT_PORT)
    b_opens = a_opens or (arrives(s.a, CLIENT_PORT, BGP_PORT) and arrives(s.b, BGP_PORT, CLIENT_PORT))
    if a_opens or b_opens:
        return None
    return "; ".join(dict.fromkeys(denials)) + ": neither end can open the BGP connection"


def connected(snap: Snapshot, topo: Topology, node: NodeId) -> dict[str, str]:
    """The instance's connected subnets (prefix -> interface) of ports that are up."""
    dev = snap.devices.get(node[0])
    out: dict[str, str] = {}
    if dev is None:
        return out
    for ep in topo.endpoints_of(node):
        iface = dev.interfaces.get(ep.interface)
        if iface is not None and not iface.down:
            out.setdefault(net_str(ep.net), ep.interface)
    return out


SAME, UNUSABLE, MOVED = "same", "unusable", "moved"


def _resolves_recursively(dev: DeviceConfig, node: NodeId, neighbor: Neighbor) -> str:
    """What lets the receiver's bgpd hand zebra a next hop on no connected subnet to resolve through
    other routes (ZEBRA_FLAG_ALLOW_RECURSION on an eBGP path): the neighbor's `ebgp-multihop` or
    `disable-connected-check`, or the instance's `bgp disable-ebgp-connected-route-check`; "" when
    nothing does (the path is inaccessible)."""
    if neighbor.unconnected_ok_line:
        return "`ebgp-multihop`/`disable-connected-check`"
    return "`bgp disable-ebgp-connected-route-check`" if dev.bgp[node[1]].ebgp_unconnected_ok_line else ""


def next_hop_verdict(next_hop: str, outbound: bool, sender_address: str, receiver_address: str,
                     receiver_nets: Sequence[tuple[int, int]], sender_originates: bool) -> str:
    """What the receiver of an eBGP route over a directly connected session makes of a next hop a
    route-map set (`set ip next-hop`; ``outbound``: the sender's map, else the receiver's):
    SAME (the session's own next hop: nothing changes), UNUSABLE (not on a subnet the receiver is
    connected to, or the receiver's own address: bgpd marks the path inaccessible or martian, so it
    is neither installed nor advertised), MOVED (another connected address: traffic goes there;
    not modelled). `peer-address` is the session's own next hop either way; `unchanged` on the
    way out keeps the next hop the sender learned the route with, the address of a neighbor the
    receiver is not connected to, unless the sender originates the route (then it is its own)."""
    if next_hop == "peer-address":
        return SAME
    if next_hop == "unchanged":
        return SAME if not outbound or sender_originates else UNUSABLE
    if next_hop == sender_address:
        return SAME
    if next_hop == receiver_address:
        return UNUSABLE
    try:
        value = ip_int(next_hop)
    except ValueError:
        return MOVED
    for net, length in receiver_nets:
        if length and value >> (32 - length) == net >> (32 - length):
            return MOVED
    return UNUSABLE


# the administrative distance of a route learned over eBGP when `distance bgp` does not say: a
# static route of a lower distance replaces it in the FIB for the same prefix (FRR 20; EOS gives
# every BGP route 200)
EBGP_DISTANCE = {"eos": 200}
NOT_INSTALLED = 255  # a route of this distance never enters the FIB (FRR and EOS)


def bgp_distance(dev: DeviceConfig, inst: BgpInstance) -> int:
    """The distance the instance's eBGP routes enter the FIB with."""
    return inst.distance[0] if inst.distance else EBGP_DISTANCE.get(dev.platform, 20)


def fib_restricted(dev: DeviceConfig, vrf: str | None) -> bool:
    """Whether anything can keep the instance's BGP routes out of its FIB (kept_out_of_fib can
    answer at all): a `distance bgp`, a `table-map` or zebra's `ip protocol` route-map."""
    inst = dev.bgp.get(vrf)
    return inst is not None and bool(inst.distance or inst.table_map) or vrf in dev.fib_filters


def kept_out_of_fib(dev: DeviceConfig, vrf: str | None, prefix: str,
                    sources: dict[str, bool] | None = None) -> tuple[int, str] | None:
    """Why a best BGP route for ``prefix`` in the instance of ``vrf`` is not installed in the
    forwarding table although BGP holds (and advertises) it, as (line, what): `distance bgp 255`,
    a `table-map` route-map that denies it (bgpd never hands it to zebra), zebra's `ip protocol
    bgp route-map` (zebra keeps it out of the kernel) or its `set src` of no local address; an
    undefined route-map denies everything. None: it is installed (a static or connected route of a
    lower distance aside). ``sources``: a caller asking for many prefixes of one instance passes
    one dict, so each `set src` address is looked up among the device's ports once."""
    inst = dev.bgp.get(vrf)
    if inst is None:
        return None
    if inst.distance is not None and inst.distance[0] >= NOT_INSTALLED:
        return inst.distance_line, f"distance bgp {inst.distance[0]} (a route of distance 255 is never installed)"
    if inst.table_map is not None and not explain_route_map(dev, inst.table_map[0], prefix)[0]:
        return inst.table_map[1], f"table-map {inst.table_map[0]} denies it (bgpd never hands it to zebra)"
    fib = dev.fib_filters.get(vrf)
    if fib is None:
        return None
    permitted, carried, _, _ = route_map_outcome(dev, fib[0], prefix)
    if not permitted:
        return fib[1], f"ip protocol bgp route-map {fib[0]} denies it (zebra keeps it out of the kernel)"
    if carried is not None and carried.src is not None and not _is_local(dev, vrf, carried.src[0], sources):
        return carried.src[1], (f"ip protocol bgp route-map {fib[0]} sets src {carried.src[0]}, no address of "
                                f"{dev.name}{' VRF ' + vrf if vrf else ''} (the kernel refuses the route: "
                                "Invalid prefsrc address)")
    return None


def _is_local(dev: DeviceConfig, vrf: str | None, address: str, known: dict[str, bool] | None) -> bool:
    """local_address, remembered in ``known`` (None: not remembered)."""
    if known is None:
        return local_address(dev, vrf, address)
    if address not in known:
        known[address] = local_address(dev, vrf, address)
    return known[address]


def local_address(dev: DeviceConfig, vrf: str | None, address: str) -> bool:
    """Whether ``address`` is one of the device's own in ``vrf`` (a port's or the loopback's)."""
    value = ip_int(address)
    return any(ip_int(a.split("/")[0]) == value for iface in dev.interfaces.values()
               if (iface.vrf or None) == (vrf or None) for a in iface.addresses)


def static_wins(dev: DeviceConfig, vrf: str | None, conn: Mapping[str, str]) -> set[str]:
    """The prefixes (normalized) for which an installed static route of the instance takes the
    FIB from BGP: its distance is below BGP's (a floating static loses; an equal one is left to
    the platform's tie-break and not counted)."""
    inst = dev.bgp.get(vrf)
    if inst is None or not dev.static_routes:
        return set()
    bgp = bgp_distance(dev, inst)
    installed = set(static_in_rib(dev, vrf, conn))
    return {net_str(network_of(r.prefix)) for r in dev.static_routes
            if r.vrf == vrf and r.distance < bgp and net_str(network_of(r.prefix)) in installed}


DISTANCE_INFINITY = 255  # a route of this administrative distance is never installed


def static_at(snap: Snapshot, device: str, route: StaticRoute) -> str:
    """FILE:LINE of a static route (the routing file's, or the file that says it: SONiC's STATIC_ROUTE)."""
    return snap.where(device, route.file or snap.devices[device].routing_file, route.line)


def static_in_rib(dev: DeviceConfig, vrf: str | None, conn: Mapping[str, str], kernel: bool | None = None) -> list[str]:
    """The instance's static routes the device installs: a blackhole always; a next hop only when it
    is on a connected subnet (or names a port that is up) of the VRF. None with distance 255: zebra
    and EOS alike take that distance as infinite (zebra's DISTANCE_INFINITY), never selected.
    ``kernel`` False: the configured ones only (what `redistribute static` takes); True: the kernel
    routes only (`redistribute kernel`); None: both."""
    nets = [network_of(p) for p in conn]
    out = []
    for route in dev.static_routes:
        if route.vrf != vrf or route.distance >= DISTANCE_INFINITY or kernel is not None and route.kernel != kernel:
            continue
        if route.nexthop is None:
            out.append(net_str(network_of(route.prefix)))
            continue
        nh = route.nexthop
        if nh in dev.interfaces:
            if not dev.interfaces[nh].down:
                out.append(net_str(network_of(route.prefix)))
            continue
        try:
            value = ip_int(nh)
        except ValueError:
            continue
        if route.nexthop_vrf is not None and route.nexthop_vrf != (vrf or "default"):
            out.append(net_str(network_of(route.prefix)))  # resolved in another VRF: not judged here
            continue
        if any(value & (((1 << length) - 1) << (32 - length) if length else 0) == net for net, length in nets):
            out.append(net_str(network_of(route.prefix)))
    return out


@dataclass
class _Origination:
    prefixes: list[str]
    dead: list[tuple[str, int]]  # network statements without a route in the RIB
    external_down: list[tuple[str, str]] = field(default_factory=list)  # (peer address, why no routes)
    # what only redistribution originates: ORIGIN incomplete (a `network` statement's route is igp)
    incomplete: list[str] = field(default_factory=list)
    # ... and the MED it leaves with (`redistribute ... metric N`): prefix -> N
    med: dict[str, int] = field(default_factory=dict)
    # network statements whose route-map denies their prefix: (statement's prefix, deciding line, why)
    withheld: list[tuple[str, int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ExternalPeerState:
    """One planned external peer of a gateway's instance as its configuration brings it up."""

    address: str
    established: bool  # the session comes up (it may still bring nothing: ``why``)
    prefixes: tuple[str, ...]  # the planned prefixes its inbound policy accepts
    why: str = ""  # why it brings nothing, with file:line ("": it brings ``prefixes``)


def external_peers(snap: Snapshot, topo: Topology, node: NodeId) -> list[ExternalPeerState]:
    """A gateway's instance's planned external peers (outside the rendered files: the plan says
    what they send): a session comes up when the neighbor is configured with the peer's ASN and
    activated on a port that is up; it brings the planned prefixes its inbound route-map permits,
    nothing when ebgp-requires-policy is on without an inbound policy (the session is up)."""
    meta = snap.manifest.devices.get(node[0])
    if meta is None or not meta.external:
        return []
    dev = snap.devices[node[0]]
    inst = dev.bgp[node[1]]
    out: list[ExternalPeerState] = []
    where = snap.where(node[0], dev.routing_file, inst.line)
    for address, peer in meta.external.items():
        if peer.vrf != node[1]:
            continue
        n = inst.neighbors.get(address)
        label = f"{node[0]}{' VRF ' + node[1] if node[1] else ''}"
        if n is None:
            why = ("is shut down" if address in inst.shut_neighbors else "is not configured")
            out.append(ExternalPeerState(address, False, (), f"{where}: {label} neighbor {address} ({peer.name}, "
                                                             f"AS {peer.asn}) {why}"))
            continue
        at = snap.where(node[0], dev.routing_file, n.line)
        agrees = remote_as_agrees(n, inst.asn, peer.asn) if n.remote_kind else n.remote_asn == peer.asn
        if not agrees:
            out.append(ExternalPeerState(address, False, (), f"{at}: {label} neighbor {address} remote-as "
                                                             f"{n.remote_kind or n.remote_asn}, but {peer.name} "
                                                             f"is AS {peer.asn}"))
            continue
        shown = shown_asn(n, inst.asn)
        if shown != inst.asn:
            # the planned peer is configured for the gateway's own ASN: it refuses the OPEN
            why, line = (("`dont-capability-negotiate`: AS_TRANS", n.no_capabilities_line)
                         if shown == AS_TRANS and n.no_capabilities_line else ("`local-as`", n.local_as_line))
            out.append(ExternalPeerState(address, False, (), f"{snap.where(node[0], dev.routing_file, line)}: {label} "
                                                             f"presents AS {shown} to {peer.name} ({why}), which "
                                                             f"expects AS {inst.asn}"))
            continue
        if not active(inst, n) or node[1] in dev.routing_off:
            out.append(ExternalPeerState(address, False, (), f"{at}: IPv4 unicast is not active toward {address} "
                                                             f"on {label}"))
            continue
        port = next((ep.interface for ep in topo.endpoints_of(node)
                     if _on_subnet(address, net_str(ep.net))), None)
        iface = dev.interfaces.get(port) if port else None
        if iface is None or iface.down:
            out.append(ExternalPeerState(address, False, (), f"{snap.device_folder(node[0])}: {label} has no port up "
                                                             f"on the subnet of {address} ({peer.name}, planned on "
                                                             f"{peer.port})"))
            continue
        taken = address_diversion(snap, topo, node, address)
        if taken is not None:
            out.append(ExternalPeerState(address, False, (), f"{static_at(snap, node[0], taken.static)}: "
                                                             f"ip route {taken.static.prefix} on {label} is more specific "
                                                             f"than the subnet of {taken.port} and holds {address} "
                                                             f"({peer.name}): its BGP traffic to it goes to {taken.to}"))
            continue
        stopped = policy_stops(dev, inst, n, "in", peer.asn != inst.asn)
        if stopped is not None:
            out.append(ExternalPeerState(address, True, (), f"{snap.where(node[0], dev.routing_file, stopped.line)}: "
                                                            f"{label} neighbor {address} {stopped.why}"))
            continue
        # the path as it arrives: the peer's ASN (a planned peer originates what it sends), behind
        # the gateway's `local-as` unless no-prepend
        path = ((n.local_as,) if n.local_as is not None and not n.local_as_no_prepend else ()) + (peer.asn,)
        if n.filter_list_in is not None and not list_permits(dev, n.filter_list_in, path):
            where_filter = snap.where(node[0], dev.routing_file, n.filter_list_in_line or n.line)
            out.append(ExternalPeerState(address, True, (), f"{where_filter}: {label} neighbor {address} filter-list "
                                                            f"{n.filter_list_in} in denies its AS path "
                                                            f"\"{path_text(path)}\""))
            continue
        out.append(ExternalPeerState(address, True, tuple(
            net_str(network_of(prefix)) for prefix in peer.prefixes
            if (n.prefix_list_in is None or explain_prefix_list(dev, n.prefix_list_in, prefix)[0])
            and (n.route_map_in is None or explain_route_map(dev, n.route_map_in, prefix, path)[0]))))
    return out


def external_paths(snap: Snapshot, topo: Topology, node: NodeId) -> dict[str, tuple[int, ...]]:
    """The AS path of each prefix a gateway's instance learns from its external peers, as the plan
    has it: the peer's own ASN (a planned peer originates what it sends). Paths through the plane
    are that much longer than the model's origin-at-the-gateway counts: it matters only where a
    `remove-private-AS` takes it off one session and not the others."""
    meta = snap.manifest.devices.get(node[0])
    if meta is None or not meta.external:
        return {}
    out: dict[str, tuple[int, ...]] = {}
    for peer in external_peers(snap, topo, node):
        for prefix in peer.prefixes:
            out.setdefault(prefix, (meta.external[peer.address].asn,))
    return out


def external_routes(snap: Snapshot, topo: Topology, node: NodeId) -> tuple[list[str], list[tuple[str, str]]]:
    """What a gateway's instance learns from its planned external peers (``external_peers``):
    (prefixes, one per peer that sends it; [(peer, why it brings nothing)])."""
    peers = external_peers(snap, topo, node)
    return ([prefix for peer in peers for prefix in peer.prefixes],
            [(peer.address, peer.why) for peer in peers if peer.why])


def _on_subnet(address: str, subnet: str) -> bool:
    net, length = network_of(subnet)
    mask = ((1 << length) - 1) << (32 - length) if length else 0
    try:
        return ip_int(address) & mask == net
    except ValueError:
        return False


class ConnectedIndex:
    """Which instance has which subnet on a port that is up, answered by binary search over the
    topology's columns (a 100k-GPU fabric has 1.2M endpoints; an object per endpoint per question
    cost seconds)."""

    def __init__(self, topo: Topology) -> None:
        keys = (topo.node << _NODE_SHIFT) | (topo.net << 6) | topo.length
        order = np.argsort(keys, kind="stable")
        self.keys, self.endpoints, self.topo = keys[order], order, topo

    def has(self, node: NodeId, prefix: str) -> bool:
        number = self.topo.node_id.get(node)
        if number is None:
            return False
        net, length = network_of(prefix)
        key = (number << _NODE_SHIFT) | (net << 6) | length
        lo, hi = np.searchsorted(self.keys, [key, key + 1])
        topo = self.topo
        return any(not topo.port_iface[int(topo.port[i])].down for i in self.endpoints[lo:hi].tolist())


def originated(snap: Snapshot, topo: Topology, node: NodeId, index: ConnectedIndex | None = None) -> _Origination:
    """What the instance originates: `network` statements whose exact prefix is in its RIB (unless
    `no bgp network import-check`), and what it redistributes."""
    dev = snap.devices[node[0]]
    inst = dev.bgp[node[1]]
    if node[1] in dev.routing_off:
        return _Origination([], [], external_routes(snap, topo, node)[1])
    index = index or ConnectedIndex(topo)
    needs_connected = "connected" in inst.redistribute or any(r.nexthop is not None for r in dev.static_routes)
    conn = connected(snap, topo, node) if needs_connected else {}
    statics = static_in_rib(dev, node[1], conn)
    static_set = set(statics)
    out: list[str] = []
    dead: list[tuple[str, int]] = []
    withheld: list[tuple[str, int, str]] = []
    for net in inst.networks:
        canonical = net_str(network_of(net))
        if inst.network_backdoor and net in inst.network_backdoor:
            withheld.append((net, inst.network_backdoor[net], f"network {net} backdoor: bgpd withdraws a backdoor "
                                                              "network, it never originates it"))
            continue
        if not inst.network_import_check or canonical in static_set or canonical in conn \
                or (not needs_connected and index.has(node, canonical)):
            mapped = inst.network_maps.get(net)
            if mapped is not None:  # through its route-map, on an empty AS path (an undefined map denies)
                permitted, line, why = explain_route_map(dev, mapped[0], canonical, ())
                if not permitted:
                    withheld.append((net, line or mapped[1], f"network {net} route-map {mapped[0]}: {why}"))
                    continue
            out.append(canonical)
        else:
            dead.append((net, inst.network_lines.get(net, 0)))
    networks = set(out)
    redistributed: list[str] = []
    med: dict[str, int] = {}
    # `redistribute static` takes zebra's static routes, `redistribute kernel` the kernel's
    kernel = any(r.kernel for r in dev.static_routes)
    configured = static_in_rib(dev, node[1], conn, False) if kernel else statics
    from_kernel = static_in_rib(dev, node[1], conn, True) if kernel else []
    for source, routes in (("connected", list(conn)), ("static", configured), ("kernel", from_kernel)):
        if source == "static" and inst.static_feed is not None:
            redistributed += [p for p in routes if p in inst.static_feed]  # (bgpcfgd's map: no metric)
            continue
        if source not in inst.redistribute:
            continue
        mapped = inst.redistribute_maps.get(source)
        # through its route-map (an undefined one passes nothing); a redistributed route's AS path is empty
        taken = routes if mapped is None else [p for p in routes if explain_route_map(dev, mapped[0], p, ())[0]]
        redistributed += taken
        if source in inst.redistribute_metrics:
            med.update((p, inst.redistribute_metrics[source][0]) for p in taken if p not in networks and p not in med)
    learned, external_down = external_routes(snap, topo, node)
    return _Origination(list(dict.fromkeys(out + redistributed + learned)), dead, external_down,
                        [p for p in dict.fromkeys(redistributed) if p not in networks], med, withheld)


def plane_nodes(snap: Snapshot, topo: Topology, plane: str) -> list[NodeId]:
    return [(dev.name, vrf) for dev in snap.devices.values() for vrf in dev.bgp
            if topo.node_plane.get((dev.name, vrf)) == plane]


def _router_id(inst: BgpInstance) -> int:
    try:
        return ip_int(inst.router_id) if inst.router_id else 1 << 32
    except ValueError:
        return 1 << 32


SessionKey = tuple[NodeId, NodeId, str, str]


def session_key(s: Session) -> SessionKey:
    """A session's identity (``Session`` is mutable: not a dict key)."""
    return s.a, s.b, s.a_neighbor, s.b_neighbor


def compute_plane(snap: Snapshot, topo: Topology, plane: str, extra_prefixes: Sequence[str] = (),
                  path_overrides: Mapping[str, int] | None = None,
                  torn_down: Mapping[SessionKey, str] | None = None) -> PlaneControl:
    """The control plane of one plane from the configs (module docstring). A session whose receiver
    would accept more prefixes than its limit (``receive_limit``) is torn down and the plane
    computed again without it (``torn_down``: session -> why, from the rounds before)."""
    torn_down = dict(torn_down or {})
    nodes = plane_nodes(snap, topo, plane)
    in_plane = set(nodes)
    devices = snap.devices
    index = ConnectedIndex(topo)
    origins = {node: originated(snap, topo, node, index) for node in nodes}
    idx = PrefixIndex()
    for prefix in extra_prefixes:
        idx.add(prefix, ("", None), plane)
    for node, o in origins.items():
        for prefix in o.prefixes:
            idx.add(prefix, node, plane)
        for agg in devices[node[0]].bgp[node[1]].aggregates:
            idx.add(agg.prefix, node, plane)
    idx.freeze()
    bit_of = {p: i for i, p in enumerate(idx.prefixes)}
    full = (1 << len(idx.prefixes)) - 1
    down = {dev.name for dev in devices.values() if any(i.down for i in dev.interfaces.values())}
    diverted = diversions(snap, topo, in_plane)
    states = [session_state(snap, topo, s, down, diverted) for s in topo.sessions if s.a in in_plane and s.b in in_plane]
    if torn_down:
        states = [SessionState(st.session, False, torn_down[session_key(st.session)])
                  if st.up and session_key(st.session) in torn_down else st for st in states]
    # session directions whose receiver has a limit: (session, sender, receiver, what may cross, limit, neighbor)
    limited: list[tuple[Session, int, int, int, int, Neighbor]] = []
    accepting: list[tuple[Session, int, int, int, int, Neighbor]] = []  # EOS maximum-accepted-routes
    sending: list[tuple[int, int, int, Neighbor]] = []  # FRR maximum-prefix-out: (sender, receiver, policy, neighbor)
    cache: dict[tuple[object, ...], int] = {}
    undefined: list[tuple[str, str]] = []

    prepending = _per_route_map(route_map_prepends, idx, full, undefined)
    attributes = _per_route_map(route_map_attributes, idx, full, undefined)
    # per (device, route-map): what it lets through, what it prepends, what it sets: one lookup per
    # side of a session direction (a 100k-GPU plane has 400k of them)
    side_of: dict[tuple[str, str | None], _MapSide] = {}

    def side(dev: DeviceConfig, name: str | None) -> _MapSide:
        key = (dev.name, name)
        hit = side_of.get(key)
        if hit is None:
            hit = side_of[key] = (_route_map_mask(dev, name, idx, full, cache, undefined), prepending(dev, name),
                                  attributes(dev, name))
        return hit

    next_hops = _per_route_map(route_map_next_hops, idx, full, undefined)
    plist = _per_route_map(prefix_list_mask, idx, full, undefined)  # a neighbor's prefix-list: what it lets through
    # devices with a route-map that sets a next hop (rare): only their sessions are looked at for it
    hop_setters = {dev.name for dev in devices.values()
                   if dev.route_maps and any(e.next_hop for es in dev.route_maps.values() for e in es)
                   or any(n.next_hop_unchanged_line for inst in dev.bgp.values() for n in inst.neighbors.values())}
    unusable_next_hop: dict[int, list[tuple[int, str]]] = {}
    moved_next_hops: dict[int, list[tuple[int, int, str, str]]] = {}
    session_addresses: dict[tuple[int, int], str] = {}
    moved_lines: list[tuple[int, str, str, int]] = []  # (receiver, address, device that set it, line)

    def unusable(src: int, dst: int, src_dev: DeviceConfig, dst_dev: DeviceConfig, out_nbr: Neighbor,
                 in_nbr: Neighbor, ibgp: bool) -> tuple[list[tuple[int, str]], list[tuple[int, str, str]]]:
        """The prefixes crossing src -> dst with a next hop a route-map set that dst cannot use,
        each with why (next_hop_verdict), and those sent to another address dst is connected to
        (prefixes, the address, why)."""
        out_maps = next_hops(src_dev, out_nbr.route_map_out) if src_dev.name in hop_setters else []
        in_maps = next_hops(dst_dev, in_nbr.route_map_in) if dst_dev.name in hop_setters else []
        if out_nbr.next_hop_unchanged_line:  # the neighbor's own setting, for what no route-map entry sets
            rest = full & ~_or(b for _, b in out_maps)
            out_maps = out_maps + [(RouteMapEntry(0, "permit", next_hop="unchanged",
                                                  next_hop_line=out_nbr.next_hop_unchanged_line), rest)]
        if not out_maps and not in_maps:
            return [], []
        if ibgp or out_nbr.interface or in_nbr.interface:
            for dev, entries in ((src_dev, out_maps), (dst_dev, in_maps)):
                unmodelled.extend((dev.name, e.next_hop_line, f"set ip next-hop {e.next_hop} on an iBGP or "
                                   "unnumbered session") for e, _ in entries)
            return [], []
        nets = [network_of(p) for p in connected(snap, topo, nodes[dst])]
        # what the sender originates itself: a gateway's prefixes learned from its external peers
        # keep the peer's next hop (`unchanged` passes it on, and the receiver is not on that link)
        learned_outside = external_paths(snap, topo, nodes[src])
        own = sum(1 << bit_of[p] for p in set(origins[nodes[src]].prefixes) if p not in learned_outside)
        replaced = _or(b for _, b in in_maps)  # the receiver's own `set ip next-hop` comes last
        found: list[tuple[int, str]] = []
        moved: list[tuple[int, str, str]] = []
        for dev, entries, outbound in ((dst_dev, in_maps, False), (src_dev, out_maps, True)):
            for e, b in entries:
                assert e.next_hop is not None
                if outbound:
                    b &= ~replaced
                said = (f"{snap.where(dev.name, dev.routing_file, e.next_hop_line)}: {dev.name} sets ip next-hop "
                        f"{e.next_hop} {'on the way out' if outbound else 'on the way in'}: {nodes[dst][0]}")
                if e.next_hop == "unchanged" and outbound:
                    bad = b & ~own
                else:
                    verdict = next_hop_verdict(e.next_hop, outbound, in_nbr.address, out_nbr.address, nets, False)
                    if verdict == MOVED and b:
                        moved_lines.append((dst, e.next_hop, dev.name, e.next_hop_line))
                        moved.append((b, e.next_hop, f"{said} forwards these paths to {e.next_hop}"))
                    bad = b if verdict == UNUSABLE else 0
                if bad:
                    found.append((bad, f"{said} cannot reach it over a connected subnet (or it is its own address), "
                                       "so the path is inaccessible: neither installed nor advertised"))
                    recursion = _resolves_recursively(dst_dev, nodes[dst], in_nbr)
                    if e.next_hop != out_nbr.address and recursion:
                        unmodelled.append((dev.name, e.next_hop_line, f"set ip next-hop {e.next_hop} toward "
                                           f"{nodes[dst][0]}, whose {recursion} lets zebra resolve a next hop on no "
                                           "connected subnet through its routes: taken as inaccessible, not followed"))
        return found, moved

    number = {node: i for i, node in enumerate(nodes)}
    n = len(nodes)
    asn = [devices[node[0]].bgp[node[1]].asn for node in nodes]
    edges: list[list[Edge]] = [[] for _ in nodes]  # sender -> (receiver, mask, ibgp, delays)
    edge_masks: dict[int, int] = {}
    edge_delays: dict[int, Delays] = {}
    unmodelled: list[tuple[str, int, str]] = []
    preferences: dict[tuple[int, int], _Preference] = {}  # (sender, edge position) -> what its maps set
    requires = [requires_policy(devices[node[0]], devices[node[0]].bgp[node[1]]) for node in nodes]
    alias: list[int] = []  # parallel session numbers (n + i) -> the sender's own number
    seen_pairs: set[tuple[int, int]] = set()
    allowas: set[tuple[int, int]] = set()  # (sender, receiver) whose receiver takes its own ASN back
    # `remove-private-AS` followed: (sender, receiver, session number, mask, the receiver's prepends)
    strips: list[tuple[int, int, int, int | None, Delays | None]] = []
    stripped: dict[tuple[NodeId, NodeId], tuple[str, int]] = {}
    all_private: bool | None = None  # whether every ASN a path of the plane can hold is private
    # `bgp graceful-shutdown`: the plane's devices in it, and (only when there is one) every eBGP
    # session direction as the GRACEFUL_SHUTDOWN community crosses it (_EbgpDirection)
    # only where a device of the plane defines an AS-path list, prepends or sets ORIGIN, or one
    # prefix is originated with different ORIGINs, can the plane need its paths followed: then each
    # receiver's sessions are kept in order (receiver -> sender numbers) for pathjudge.judge_by_paths,
    # with what needs the paths (path_triggers: (device, line, what))
    writes_paths = {node[0] for node in nodes if devices[node[0]].as_path_lists or _writes_path(devices[node[0]])}
    path_triggers: list[tuple[str, int, str]] = _origin_attributes(devices, origins)
    # `bgp bestpath as-path ignore`: paths of any length compete, which only the paths can say
    path_triggers += [(node[0], inst.as_path_ignore_line, "bgp bestpath as-path ignore") for node in nodes
                      if (inst := devices[node[0]].bgp[node[1]]).as_path_ignore_line]
    path_keys: dict[int, list[int]] | None = {} if writes_paths or path_triggers else None
    origin_read: set[tuple[str, str]] = set()  # (device, route-map) whose `set origin` entries are listed
    shared_masks: dict[int, int] = {}
    gshut_line = {i: devices[node[0]].bgp[node[1]].graceful_shutdown_line for i, node in enumerate(nodes)
                   if devices[node[0]].bgp[node[1]].graceful_shutdown_line}
    gshut = set(gshut_line)
    ebgp_dirs: list[_EbgpDirection] = []
    for st in states:
        if not st.up:
            continue
        s = st.session
        a, b = number[s.a], number[s.b]
        parallel = (a, b) in seen_pairs or (b, a) in seen_pairs
        seen_pairs.add((a, b))
        a_dev, b_dev = devices[s.a[0]], devices[s.b[0]]
        a_nbr = a_dev.bgp[s.a[1]].neighbors[s.a_neighbor]
        b_nbr = b_dev.bgp[s.b[1]].neighbors[s.b_neighbor]
        ibgp = asn[a] == asn[b]
        for src, dst, src_dev, dst_dev, out_nbr, in_nbr in ((a, b, a_dev, b_dev, a_nbr, b_nbr),
                                                           (b, a, b_dev, a_dev, b_nbr, a_nbr)):
            out_map, in_map = out_nbr.route_map_out, in_nbr.route_map_in
            out_mask, out_prepends, outbound = side(src_dev, out_map)
            in_mask, in_prepends, inbound = side(dst_dev, in_map)
            src_inst, dst_inst = src_dev.bgp[nodes[src][1]], dst_dev.bgp[nodes[dst][1]]
            unpoliced = (policy_stops(src_dev, src_inst, out_nbr, "out", not ibgp, requires[src]) is not None
                         or policy_stops(dst_dev, dst_inst, in_nbr, "in", not ibgp, requires[dst]) is not None)
            if unpoliced or out_nbr.filter_list_out is not None and out_nbr.filter_list_out not in src_dev.as_path_lists \
                    or in_nbr.filter_list_in is not None and in_nbr.filter_list_in not in dst_dev.as_path_lists:
                # no policy on one end where ebgp-requires-policy or EOS's missing-policy denies
                # then, or a filter-list on an AS-path list nobody defined: nothing crosses (a
                # defined list: aspaths.judge_path_filters)
                mask = 0
            else:
                mask = out_mask & in_mask
                if out_nbr.prefix_list_out is not None or in_nbr.prefix_list_in is not None:
                    # a neighbor's prefix-list is applied before its route-map: both must permit
                    mask &= plist(src_dev, out_nbr.prefix_list_out) & plist(dst_dev, in_nbr.prefix_list_in)
            policy_mask = mask  # what the receiver accepts (and counts toward its limit)
            moved: list[tuple[int, str, str]] = []
            if hop_setters and (src_dev.name in hop_setters or dst_dev.name in hop_setters):
                found, moved = unusable(src, dst, src_dev, dst_dev, out_nbr, in_nbr, ibgp)
                if found:
                    mask &= ~_or(b for b, _ in found)
                    unusable_next_hop.setdefault(src * n + dst, []).extend(found)
            if out_nbr.default_originate_line and not unpoliced and _takes_default(dst_dev, in_nbr):
                unmodelled.append((src_dev.name, out_nbr.default_originate_line,
                                   f"neighbor {out_nbr.address} default-originate: {dst_dev.name}'s inbound policy "
                                   "takes the default route; where it then sends traffic is not followed"))
            if out_nbr.addpath_tx_line and (ibgp or out_nbr.next_hop_unchanged_line
                                             or src_dev.name in hop_setters and next_hops(src_dev, out_map)):
                # paths that keep next hops of their own: the receiver's multipath could take several
                unmodelled.append((src_dev.name, out_nbr.addpath_tx_line,
                                   f"neighbor {out_nbr.address} addpath-tx with next hops other than the sender's "
                                   "(iBGP, or unchanged or set by a route-map): the extra paths are not followed"))
            strip = out_nbr.remove_private if not ibgp else ""
            if out_nbr.as_override_line and not ibgp:
                if strip:
                    unmodelled.append((src_dev.name, out_nbr.as_override_line,
                                       f"neighbor {out_nbr.address} as-override with remove-private-AS: not followed"))
                    strip = ""
                else:
                    # the receiver's ASN is replaced by the sender's: its loop prevention lets the
                    # paths through it in, as allowas-in does over that session (same length)
                    allowas.add((src, dst))
            if strip:
                if all_private is None:
                    all_private = _plane_all_private(devices, nodes)
                why_not = _strip_unmodelled(strip, all_private, in_nbr, bool(inbound or outbound or in_nbr.weight))
                if why_not:
                    unmodelled.append((src_dev.name, out_nbr.remove_private_line,
                                       f"neighbor {out_nbr.address} {remove_private_word(src_dev.platform)}: {why_not}"))
                    strip = ""
                else:
                    out_prepends = []  # private ASNs too: stripped with the rest of the path
            delays = None if not out_prepends and not in_prepends else _delays(
                [(e, bits_ & mask) for e, bits_ in out_prepends], [(e, bits_ & mask) for e, bits_ in in_prepends],
                (src_dev.name, {asn[src]}), (dst_dev.name, {asn[src], asn[dst]}), path_triggers)
            if not ibgp and (out_nbr.local_as is not None or in_nbr.local_as is not None):
                # `local-as L`: L in front of what the sender sends (before its real ASN, which
                # replace-as leaves out) and of what the receiver takes in (unless no-prepend)
                extra = (out_nbr.local_as is not None and not out_nbr.local_as_replace) + \
                    (in_nbr.local_as is not None and not in_nbr.local_as_no_prepend)
                if out_nbr.local_as is not None and out_nbr.local_as_replace and shared_asn(asn, src):
                    unmodelled.append((src_dev.name, out_nbr.local_as_line, f"neighbor {out_nbr.address} local-as "
                                       "... replace-as: the paths leave without an ASN other devices share; their "
                                       "loop prevention is not followed"))
                for _ in range(extra):
                    delays = _one_more(delays, mask)
            sender = src
            if parallel:
                sender = n + len(alias)
                alias.append(src)
            if path_keys is not None:
                path_keys.setdefault(dst, []).append(sender)
                for dev_, map_ in ((src_dev, out_map), (dst_dev, in_map)):
                    if map_ is not None and dev_.name in writes_paths and (dev_.name, map_) not in origin_read:
                        origin_read.add((dev_.name, map_))
                        path_triggers += [(dev_.name, line, f"{what} (route-map {used})")
                                          for used in _with_called(dev_, map_) for e in dev_.route_maps.get(used, [])
                                          for line, what in _needs_paths(e)]
            if hop_setters:
                session_addresses[(dst, sender)] = in_nbr.address
                for b, target, why in moved:
                    moved_next_hops.setdefault(dst, []).append((sender, b & mask, target, why))
            weight = in_nbr.weight or 0  # the receiver's `neighbor X weight N`
            if ibgp and dst_dev.bgp[nodes[dst][1]].maximum_paths_ibgp_line:
                unmodelled.append((dst_dev.name, dst_dev.bgp[nodes[dst][1]].maximum_paths_ibgp_line,
                                   "maximum-paths ibgp: the cap on paths learned over iBGP is not followed"))
            max_med = src_dev.bgp[nodes[src][1]].max_med_line
            if not inbound and not outbound and not weight and not max_med:
                pass  # no route-map sets a best-path attribute on this session (the common case)
            elif ibgp:  # iBGP carries local preference and more: not followed
                for device, entries in ((dst_dev.name, inbound), (src_dev.name, outbound)):
                    for e, _ in entries:
                        unmodelled.append((device, min(e.attribute_lines.values(), default=e.line),
                                           "a best-path attribute set on an iBGP session"))
                if weight:
                    unmodelled.append((dst_dev.name, in_nbr.weight_line, "a neighbor weight on an iBGP session"))
                if max_med:
                    unmodelled.append((src_dev.name, max_med, "bgp max-med administrative toward an iBGP peer"))
            else:
                # weight / local preference: the receiver's, inbound (eBGP does not carry them out);
                # a route-map's `set weight` overrides the neighbor's weight (bgpd applies it after);
                # MED: sent, or set inbound (which overrides the sent one)
                prefs = [(e, b) for e, b in inbound if e.weight is not None or e.local_pref is not None]
                default_pref = dst_dev.bgp[nodes[dst][1]].default_local_pref
                ranks = [((weight if e.weight is None else e.weight, default_pref if e.local_pref is None
                           else e.local_pref), b & mask, e) for e, b in prefs]
                if weight and full & ~_or(b for _, b in prefs):
                    ranks.append(((weight, default_pref), full & ~_or(b for _, b in prefs) & mask,
                                  neighbor_weight_entry(in_nbr)))
                meds = [(e, b) for e, b in inbound if e.med is not None]
                reset = _or(b for _, b in meds)
                if max_med:  # the sender writes its max-med into every UPDATE, over what its map set
                    if full & mask & ~reset:
                        meds.append((max_med_entry(src_dev.bgp[nodes[src][1]]), full & ~reset))
                else:
                    meds += [(e, b & ~reset) for e, b in outbound if e.med is not None and b & ~reset]
                if ranks or meds:
                    preferences[(src, len(edges[src]))] = _Preference(ranks, [(e.med or 0, b & mask, e)
                                                                              for e, b in meds])
            if in_nbr.allowas_in and not ibgp:
                allowas.add((src, dst))
            limit = receive_limit(dst_dev, in_nbr)
            if limit and not ibgp:  # (an iBGP receiver's count would need iBGP's own rules: not followed)
                limited.append((s, src, dst, policy_mask, limit, in_nbr))
            if in_nbr.accept_limit and not ibgp:
                accepting.append((s, src, dst, policy_mask, in_nbr.accept_limit, in_nbr))
            if out_nbr.send_limit and not unpoliced:
                # counted after the sender's own policy (the receiver's comes after the limit)
                sending.append((src, dst, out_mask & plist(src_dev, out_nbr.prefix_list_out), out_nbr))
            if strip:
                strips.append((src, dst, sender, None if mask == full else mask, delays))
                stripped[(nodes[src], nodes[dst])] = (src_dev.name, out_nbr.remove_private_line)
            if gshut and not ibgp:
                ebgp_dirs.append(_EbgpDirection(src, len(edges[src]), dst, sender,
                                                sends_communities(src_dev, out_nbr)))
            elif gshut:
                # bgpd sends an iBGP peer every route with local preference 0 (not the community),
                # and a tagged path crosses iBGP with its community: neither is followed (the
                # fixpoint runs over eBGP directions only)
                for g in sorted(gshut):
                    what = (f"it sends its iBGP peer {dst_dev.name} every route with local preference 0" if g == src
                            else f"its community crossing the iBGP session {src_dev.name} -> {dst_dev.name}")
                    unmodelled.append((nodes[g][0], gshut_line[g], f"bgp graceful-shutdown: {what}"))
            # equal masks share one int: a large plane has far fewer distinct masks than session
            # directions, and each is as long as the plane's prefixes (docs/performance.md, twentieth session)
            mask = shared_masks.setdefault(mask, mask)
            edges[src].append((dst, None if mask == full else mask, ibgp, delays, sender))
            key = src * n + dst  # parallel sessions: what crosses every one of them
            prior = edge_masks.get(key)
            edge_masks[key] = mask if prior is None else shared_masks.setdefault(prior & mask, prior & mask)
            if delays is not None:
                edge_delays[key] = edge_delays.get(key, ()) + delays
    if strips:
        # a stripping session takes the external peer's ASN off what a gateway learned outside:
        # on every other session those paths are one AS longer than an origin at the gateway
        stripping = {(src, dst) for src, dst, _, _, _ in strips}
        for i, node in enumerate(nodes):
            outside = _or(1 << bit_of[p] for p in external_paths(snap, topo, node) if p in bit_of)
            if outside:
                edges[i] = [(dst, mask, ibgp_, delays if (i, dst) in stripping else
                             _one_more(delays, outside if mask is None else outside & mask), sender_)
                            for dst, mask, ibgp_, delays, sender_ in edges[i]]
    # a next hop moved to an address that is none of the receiver's BGP neighbors (a server, a
    # management host ...): where those packets end is not followed
    neighbors_of: dict[int, set[str]] = defaultdict(set)
    for (r, _), address in session_addresses.items():
        neighbors_of[r].add(address)
    for r, target, device, line in moved_lines:
        if target not in neighbors_of[r]:
            unmodelled.append((device, line, f"set ip next-hop {target}: {nodes[r][0]} forwards to an address "
                               "that is none of its BGP neighbors"))
    members: dict[int, list[int]] = defaultdict(list)
    for i, a in enumerate(asn):
        members[a].append(i)
    group_of = {a: frozenset(m) for a, m in members.items() if len(m) > 1}
    insts = [devices[node[0]].bgp[node[1]] for node in nodes]
    rid = [_router_id(inst) for inst in insts]
    rank = [0] * n
    for position, i in enumerate(sorted(range(n), key=rid.__getitem__)):
        rank[i] = position
    relax = [inst.multipath_relax for inst in insts]
    for src in alias:  # a parallel session's sender ranks and counts as its device
        asn.append(asn[src])
        rank.append(rank[src])
    paths_cap = [maximum_paths(devices[node[0]], inst, path_overrides) for node, inst in zip(nodes, insts)]

    # one entry per device in graceful-shutdown: what ROUTE-ECMP-WIDTH names for the paths it outranks
    graceful = {i: RouteMapEntry(GRACEFUL_SHUTDOWN_SEQ, "permit", line=insts[i].graceful_shutdown_line, local_pref=0,
                                 attribute_lines={"local-preference": insts[i].graceful_shutdown_line})
                for i in sorted(gshut)}
    origin = [sum(1 << bit_of[p] for p in set(origins[node].prefixes)) for node in nodes]
    own = list(origin)  # each node's own prefixes, aggregates aside (an as-set aggregate's AS path)
    nowhere: dict[int, int] = {}  # as-set aggregates active but sent to no neighbor
    dead = [(node, prefix, line) for node, o in origins.items() for prefix, line in o.dead]
    suppressed: dict[int, int] = {}
    med_rules = _MedRules(frozenset(i for i, inst in enumerate(insts) if inst.always_compare_med),
                          frozenset(i for i, inst in enumerate(insts) if inst.med_missing_as_worst_line),
                          {i: inst.default_local_pref for i, inst in enumerate(insts)
                           if inst.default_local_pref != DEFAULT_LOCAL_PREF})
    core: _Core | None = None
    for _ in range(4):  # aggregates: originate, propagate, repeat while an aggregate appears or goes
        seeded: _Seeds = {}
        for _round in range(8):  # `remove-private-AS`: until what the strippers hold stops changing
            def propagate(prefs: dict[tuple[int, int], _Preference]) -> tuple[_Core, _Preferred]:
                return _propagate_preferring(origin, edges, asn, group_of, rank, relax, paths_cap, suppressed,
                                             alias, prefs, frozenset(allowas), med_rules, seeded)
            core, preferred = (_graceful_shutdown(gshut, ebgp_dirs, preferences, graceful, full, propagate) if gshut
                               else propagate(preferences))
            if not strips:
                break
            now = _strip_seeds(strips, core, suppressed, group_of, asn, rank, alias)
            if now == seeded:
                break
            seeded = now
        else:
            for device, line in stripped.values():
                unmodelled.append((device, line, "remove-private-AS: the plane does not settle within 8 rounds"))
        assert core is not None
        changed = False
        for i, node in enumerate(nodes):
            for agg in insts[i].aggregates:
                bit = bit_of[net_str(network_of(agg.prefix))]
                more = idx.more_specific(agg.prefix) & core.reach[i] & ~(1 << bit)
                # as-set: the AS path holds the ASes of the learned routes under it, among them the
                # neighbor's it came from: taken as sent on only while every route under it is its own
                want = bool(more) and not (agg.as_set and more & ~own[i])
                if agg.as_set and more and not want:
                    if not nowhere.get(i, 0) >> bit & 1:
                        nowhere[i] = nowhere.get(i, 0) | 1 << bit
                        unmodelled.append((node[0], agg.line, f"aggregate-address {agg.prefix} as-set: the ASes of "
                                           "the learned routes under it go in its path; taken as sent to no neighbor"))
                else:  # sent on, or no longer active (nothing under it)
                    nowhere[i] = nowhere.get(i, 0) & ~(1 << bit)
                has = bool(origin[i] >> bit & 1)
                if want != has:
                    origin[i] ^= 1 << bit
                    changed = True
                if agg.summary_only and more and not suppressed.get(i, 0) & more == more:
                    suppressed[i] = suppressed.get(i, 0) | more
                    changed = True
        if not changed:
            break
    assert core is not None
    memo_limits: dict[tuple[int, frozenset[int]], tuple[int, int]] = {}
    tripped: dict[SessionKey, str] = {}
    over_limit: list[tuple[str, str, str]] = []
    def offered(src: int, dst: int, mask: int, limit: int) -> int:
        """How many prefixes the sender advertises (its best routes, less what an aggregate
        suppresses) through both route-maps, less what the receiver refuses for its own ASN in the
        path (worked out only when the first count is over ``limit``)."""
        offer = core.reach[src]
        if src in suppressed:
            offer ^= offer & suppressed[src]
        offer &= mask
        if offer.bit_count() > limit and (src, dst) not in allowas:
            offer ^= offer & path_through(src, group_of.get(asn[dst], frozenset((dst,))), offer, core.via_in, rank,
                                          memo_limits, alias)
        return offer.bit_count()

    for s, src, dst, mask, limit, nbr in limited:
        count = offered(src, dst, mask, limit)
        if count <= limit or session_key(s) in tripped:
            continue
        receiver_name, sender_name = nodes[dst][0], nodes[src][0]
        receiver_dev = devices[receiver_name]
        eos = receiver_dev.platform == "eos"
        said = (f"maximum-routes {limit}" if eos else f"maximum-prefix {limit}") \
            if nbr.max_prefix is not None else f"no limit set, the platform's default is {limit}"
        where = snap.where(receiver_name, receiver_dev.routing_file, nbr.max_prefix_line or nbr.line)
        # FRR checks the count of the routes it holds before it adds the next one: the route that
        # takes it one over the limit is accepted, the one after tears the session down (measured
        # on the twin: 17 routes pass a limit of 16 at start-up, fail one of 15)
        if eos or count > limit + 1:
            tripped[session_key(s)] = (f"{where}: {receiver_name} accepts {count} prefixes from {sender_name} "
                                        f"({said}): the session is torn down")
        else:
            over_limit.append((receiver_name, sender_name,
                               f"{where}: {receiver_name} accepts {count} prefixes from {sender_name} ({said}): the "
                               "session comes up, and the next prefix it receives, or re-applying the limit, tears "
                               "it down"))
    truncated: list[tuple[str, str, str]] = []
    for src, dst, mask, nbr in sending:
        offer = core.reach[src] & ~suppressed.get(src, 0) & mask
        if nbr.send_limit is not None and offer.bit_count() > nbr.send_limit:
            sender_name = nodes[src][0]
            where = snap.where(sender_name, devices[sender_name].routing_file, nbr.send_limit_line)
            truncated.append((nodes[dst][0], sender_name,
                              f"{where}: {sender_name} sends {nodes[dst][0]} at most {nbr.send_limit} of the "
                              f"{offer.bit_count()} prefixes its policy lets through (maximum-prefix-out): the rest "
                              "are not sent, which ones depends on the order bgpd walks its table (the RIB model "
                              "sends them all)"))
    for s, src, dst, mask, limit, nbr in accepting:
        count = offered(src, dst, mask, limit)
        if count > limit:
            receiver_name = nodes[dst][0]
            where = snap.where(receiver_name, devices[receiver_name].routing_file, nbr.accept_limit_line)
            truncated.append((receiver_name, nodes[src][0],
                              f"{where}: {receiver_name} keeps at most {limit} of the {count} prefixes "
                              f"{nodes[src][0]} sends (maximum-accepted-routes): the rest are dropped, which ones "
                              "depends on the order they arrive (the RIB model keeps them all)"))
    if tripped and len(torn_down) < len(states):
        return compute_plane(snap, topo, plane, extra_prefixes, path_overrides, {**torn_down, **tripped})
    control = PlaneControl(plane, idx, nodes, states, {node: origin[i] for i, node in enumerate(nodes)},
                        {node: core.reach[i] for i, node in enumerate(nodes)}, core.via_in, edge_masks,
                        core.looped, {nodes[i]: bits_ for i, bits_ in suppressed.items()}, dead,
                        sorted(set(undefined)), edge_delays, sorted(set(unmodelled)), alias,
                        [(node, peer, why) for node, o in origins.items() for peer, why in o.external_down],
                        preferred, over_limit, unusable_next_hop, moved_next_hops,
                        {key: a for key, a in session_addresses.items() if key[0] in moved_next_hops}, stripped,
                        [(nodes[i][0], entry) for i, entry in graceful.items()],
                        withheld_networks=[(node, net, line, why) for node, o in origins.items()
                                           for net, line, why in o.withheld], truncated=truncated,
                        sent_nowhere={nodes[i]: bits_ for i, bits_ in nowhere.items() if bits_})
    if path_keys is not None:
        from dualrail_net.verify.pathjudge import judge_by_paths  # (it reads this module's PlaneControl)
        judge_by_paths(snap, topo, control, path_keys, path_overrides, sorted(set(path_triggers)))
    return control


def _with_called(dev: DeviceConfig, name: str) -> list[str]:
    """Route-map ``name`` and every map it calls (`call`), directly or through another."""
    seen = [name]
    for used in seen:
        seen += [e.call for e in dev.route_maps.get(used, []) if e.call is not None and e.call not in seen]
    return seen


def _writes_path(dev: DeviceConfig) -> bool:
    """Whether a route-map of ``dev`` prepends to the AS path, sets ORIGIN or matches on what a
    route carries (`match origin|metric|local-preference|peer|tag`: only the paths say)."""
    return any(e.prepend or e.prepend_last_as or e.origin is not None or e.attribute_clauses or e.deltas
               for entries in dev.route_maps.values() for e in entries)


def _needs_paths(entry: RouteMapEntry) -> list[tuple[int, str]]:
    """What of a route-map entry only the paths can judge, each with its line: ORIGIN, a relative
    set or a `last-as` prepend its permit writes, a match on what the route carries."""
    out = [(line, f"match {kind} {value}") for kind, value, line in entry.attribute_clauses]
    if entry.action != "permit":
        return out
    if entry.origin is not None:
        out.append((entry.origin_line, f"set origin {ORIGIN_CODES[entry.origin]}"))
    if entry.prepend_last_as:
        out.append((entry.prepend_line, f"set as-path prepend last-as {entry.prepend_last_as}"))
    return out + [(line, f"set {kind} {delta:+d}") for kind, (delta, line) in entry.deltas.items()]


def _origin_attributes(devices: Mapping[str, DeviceConfig],
                       origins: Mapping[NodeId, _Origination]) -> list[tuple[str, int, str]]:
    """Where a prefix that only redistribution originates (ORIGIN incomplete, and the MED of
    `redistribute ... metric N`) at one instance is also originated at another or may fall under an
    aggregate: the paths' ORIGINs and MEDs then differ where they meet (the bitset model takes every
    path's as equal; elsewhere a receiver holds one originator's paths, and eBGP sends a learned
    route on without its MED), (device, line of the redistribution, what)."""
    if not any(o.incomplete for o in origins.values()):
        return []
    count: dict[str, int] = defaultdict(int)
    for o in origins.values():
        for prefix in o.prefixes:
            count[prefix] += 1
    aggregates = any(devices[node[0]].bgp[node[1]].aggregates for node in origins)
    out = []
    for node, o in origins.items():
        inst = devices[node[0]].bgp[node[1]]
        line = min(inst.redistribute_lines.values(), default=inst.line)
        out += [(node[0], line, f"{prefix} is redistributed here (ORIGIN incomplete) and "
                                + ("originated elsewhere too" if count[prefix] > 1 else "may fall under an aggregate"))
                for prefix in o.incomplete if count[prefix] > 1 or aggregates]
    return out


_T = TypeVar("_T")
# one side of a session direction: (the prefixes its route-map lets through, its prepending entries,
# its attribute-setting entries), each entry with the prefixes it decides
_MapSide = tuple[int, list[tuple[RouteMapEntry, int]], list[tuple[RouteMapEntry, int]]]


def _per_route_map(reader: Callable[[DeviceConfig, str | None, PrefixIndex, int, list[tuple[str, str]]], _T],
                   idx: PrefixIndex, full: int, undefined: list[tuple[str, str]],
                   ) -> Callable[[DeviceConfig, str | None], _T]:
    """``reader`` remembered per (device, route-map or prefix-list name): every session of a device
    shares its maps."""
    cache: dict[tuple[str, str | None], _T] = {}

    def read(dev: DeviceConfig, name: str | None) -> _T:
        key = (dev.name, name)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = reader(dev, name, idx, full, undefined)
        return hit
    return read


def _delays(out: list[tuple[RouteMapEntry, int]], into: list[tuple[RouteMapEntry, int]],
            out_side: tuple[str, set[int]], in_side: tuple[str, set[int]],
            foreign_asns: list[tuple[str, int, str]]) -> Delays | None:
    """What a session's route-maps prepend: (extra AS hops, prefixes) per distinct length, the
    outbound and inbound prepends of a prefix added up. Prepending the sender's own ASN (out) or the
    sender's or receiver's ASN (in) changes only the path's length: those ASNs are already on it, or
    are the receiver's own, checked before the inbound policy. Any other ASN would also make its
    owners drop the route, which the bitset model does not follow: listed in ``foreign_asns`` (the plain
    reference then judges the plane: verify/pathjudge.py)."""
    if not out and not into:
        return None
    for entries, (device, allowed) in ((out, out_side), (into, in_side)):
        for entry, _ in entries:
            foreign = sorted(set(entry.prepend) - allowed)
            if foreign:
                foreign_asns.append((device, entry.prepend_line, f"set as-path prepend {' '.join(map(str, entry.prepend))}"
                                                                 f" (AS {', '.join(map(str, foreign))} is not on the "
                                                                 "path: its devices drop it)"))
    by_length: dict[int, int] = defaultdict(int)
    sides = [[(len(e.prepend), m) for e, m in entries] + [(0, ~_or(m for _, m in entries))] for entries in (out, into)]
    for k_out, m_out in sides[0]:
        for k_in, m_in in sides[1]:
            extra = k_out + k_in
            both = m_out & m_in
            if extra and both > 0:
                by_length[extra] |= both
    return tuple(sorted(by_length.items())) or None


def more_specific_plain(idx: PrefixIndex, prefix: str) -> int:
    """The plain reference of PrefixIndex.more_specific (tests hold the two equal): a scan of
    every indexed prefix."""
    net, length = network_of(prefix)
    mask = 0
    for bit, p in enumerate(idx.prefixes):
        n, plen = network_of(p)
        if plen > length and (n >> (32 - length) if length else 0) == (net >> (32 - length) if length else 0):
            mask |= 1 << bit
    return mask


def path_through(node: int, group: frozenset[int], bits_: int, via_in: list[dict[int, int]],
                 rank: list[int] | None, memo: dict[tuple[int, frozenset[int]], tuple[int, int]],
                 alias: Sequence[int] = ()) -> int:
    """Of ``bits_`` (prefixes ``node`` has), those whose path at ``node`` passes through a member of
    ``group``, walked back along the senders: with ``rank``, the best one per prefix (the lowest
    ranked installed sender, which is the best path's); without, every equal-cost sender (the
    plan's side). Asked only for prefixes some member of the group already has. ``memo``: per
    (node, group), the prefixes answered and the answer (a path never changes once learned).
    ``alias``: the senders of parallel sessions (numbers from len(via_in) on)."""
    if node >= len(via_in):
        node = alias[node - len(via_in)]
    if node in group:
        return bits_
    key = (node, group)
    covered, found = memo.get(key, (0, 0))
    missing = bits_ ^ (bits_ & covered)
    if missing:
        senders = via_in[node]
        order = sorted(senders, key=rank.__getitem__) if rank is not None else list(senders)
        left = missing
        for sender in order:
            part = left & senders[sender]
            if part:
                found |= path_through(sender, group, part, via_in, rank, memo, alias)
                if rank is not None:
                    left ^= part
                    if not left:
                        break
        memo[key] = (covered | missing, found)
    return bits_ & found


@dataclass
class _Core:
    reach: list[int]
    via_in: list[dict[int, int]]
    looped: dict[int, int]


def shared_asn(asn: Sequence[int], i: int) -> bool:
    """Whether instance ``i``'s ASN is another instance's too."""
    return asn.count(asn[i]) > 1


def _one_more(delays: Delays | None, extra_hop: int) -> Delays | None:
    """``delays`` with one more AS hop for the prefixes ``extra_hop``."""
    if not extra_hop:
        return delays
    by_length: dict[int, int] = defaultdict(int)
    covered = 0
    for extra, bits_ in delays or ():
        by_length[extra + 1] |= bits_ & extra_hop
        by_length[extra] |= bits_ & ~extra_hop
        covered |= bits_
    by_length[1] |= extra_hop & ~covered
    return tuple(sorted((k, v) for k, v in by_length.items() if v)) or None


# level -> receiver -> [(session number, prefixes)]: offers that arrive at that level whatever the
# sender's own path (`remove-private-AS`: the sender's paths reach the receiver one AS long)
_Seeds = dict[int, dict[int, list[tuple[int, int]]]]


DEFAULT_ROUTE = "0.0.0.0/0"


def _takes_default(receiver: DeviceConfig, in_nbr: Neighbor) -> bool:
    """Whether the default route a `default-originate` offers passes the receiver's inbound
    neighbor prefix-list and route-map (the sender sends it whatever its own outbound policy says;
    eBGP's `ebgp-requires-policy` is the caller's). A fabric's inbound policy takes only the
    plane's prefixes: then the statement changes nothing."""
    if in_nbr.prefix_list_in is not None and not explain_prefix_list(receiver, in_nbr.prefix_list_in,
                                                                      DEFAULT_ROUTE)[0]:
        return False
    return in_nbr.route_map_in is None or explain_route_map(receiver, in_nbr.route_map_in, DEFAULT_ROUTE)[0]


def _plane_all_private(devices: Mapping[str, DeviceConfig], nodes: Sequence[NodeId]) -> bool:
    """Whether every ASN a path in the plane can hold is private: the instances', their neighbors'
    (external peers included) and every route-map's prepends. Then a stripped path keeps only the
    receiver's own ASN, whatever way it came."""
    asns: set[int] = set()
    for name, vrf in nodes:
        inst = devices[name].bgp[vrf]
        asns.add(inst.asn)
        asns.update(n.remote_asn for n in inst.neighbors.values() if n.remote_asn is not None)
        asns.update(a for entries in devices[name].route_maps.values() for e in entries for a in e.prepend)
    return all(private_asn(a) for a in asns)


def _strip_unmodelled(mode: str, all_private: bool, receiver: Neighbor, attributes: bool) -> str:
    """Why a `remove-private-AS` on a session is not followed ("": it is)."""
    if mode not in ("plain", "all"):
        return "replace-AS rewrites the path without shortening it; its loop-prevention effects are not followed"
    if not all_private:
        return "the plane holds public ASNs: what is stripped depends on each path; not followed"
    if receiver.allowas_in:
        return "the receiver's allowas-in takes paths with its own ASN (which is kept); not followed"
    if attributes:
        return "the session's route-maps also set best-path attributes; not followed"
    return ""


def _strip_seeds(strips: Sequence[tuple[int, int, int, int | None, Delays | None]], core: _Core,
                 suppressed: Mapping[int, int], group_of: Mapping[int, frozenset[int]], asn: Sequence[int],
                 rank: list[int], alias: Sequence[int]) -> _Seeds:
    """What each stripping sender's paths deliver one AS long (at the level of its receiver's own
    prepends): everything it holds and advertises through the session's policy, less what its
    best path has through the receiver's ASN (the peer's ASN is kept: loop prevention refuses it)."""
    seeds: _Seeds = {}
    memo: dict[tuple[int, frozenset[int]], tuple[int, int]] = {}
    for src, dst, sender, mask, delays in strips:
        bits_ = core.reach[src]
        if src in suppressed:
            bits_ ^= bits_ & suppressed[src]
        if mask is not None:
            bits_ &= mask
        group = group_of.get(asn[dst], frozenset((dst,)))
        bits_ ^= bits_ & path_through(src, group, bits_, core.via_in, rank, memo, alias)
        for extra, part in delays or ():
            taken = bits_ & part
            if taken:
                bits_ ^= taken
                seeds.setdefault(extra, {}).setdefault(dst, []).append((sender, taken))
        if bits_:
            seeds.setdefault(0, {}).setdefault(dst, []).append((sender, bits_))
    return seeds


def _propagate(origin: list[int], edges: list[list[Edge]], asn: list[int],
               group_of: dict[int, frozenset[int]], rank: list[int], relax: list[bool], paths_cap: list[int],
               suppressed: dict[int, int], alias: Sequence[int] = (),
               allowas: frozenset[tuple[int, int]] = frozenset(), seeded: _Seeds | None = None) -> _Core:
    """Level by level (a level is one AS of path length): every sender offers what it learned at
    the last level; a receiver keeps what it does not have yet. An offer over a session whose
    route-maps prepend k ASNs arrives k levels later (so it loses to shorter paths and joins
    multipath only with paths of its own length). eBGP loop prevention: a receiver whose ASN
    another device shares refuses prefixes whose best path at the sender crosses one of them; that
    is only possible for a prefix some member of the group had before this level, so only those
    are walked back (path_through). Instances are numbers here: a 100k-GPU plane has 7k instances
    and 400k session directions, and tuple keys cost more than the set operations. A parallel
    session offers under its alias number (``asn`` and ``rank`` extended for it): each session is
    a path of its own. A receiver with `allowas-in` on a session (``allowas``: (sender, receiver))
    takes paths through its own ASN over it (how many times is not counted: a fabric's path crosses
    a shared ASN once; the plain reference counts). ``seeded``: offers that arrive at a given level
    whatever the sender's path (`remove-private-AS`, _strip_seeds)."""
    n = len(origin)
    reach = list(origin)
    via_in: list[dict[int, int]] = [{} for _ in range(n)]
    ibgp_learned = [0] * n
    looped: dict[int, int] = {}
    memo: dict[tuple[int, frozenset[int]], tuple[int, int]] = {}
    frontier = {i: bits_ for i, bits_ in enumerate(reach) if bits_}
    # level -> receiver -> delayed offers (and the seeded ones, copied: the lists grow)
    later: dict[int, dict[int, list[tuple[int, int]]]] = {
        level: {dst: list(offers) for dst, offers in by_dst.items()} for level, by_dst in (seeded or {}).items()}
    for level in range(MAX_LEVELS):
        group_reach = {a: _or(reach[m] for m in group) for a, group in group_of.items()} if frontier else {}
        offers: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for src, have in frontier.items():
            send = have ^ (have & suppressed[src]) if src in suppressed else have
            for dst, mask, ibgp, delays, sender in edges[src]:
                offer = send if mask is None else send & mask
                known = offer & reach[dst]  # (offer & ~reach, as cheap as the smaller of the two)
                if known:
                    offer ^= known  # (else the same int, not a copy)
                if not offer:
                    continue
                if ibgp:
                    offer ^= offer & ibgp_learned[src]  # iBGP split horizon
                else:
                    group = group_of.get(asn[dst])
                    if group is not None and not (allowas and (src, dst) in allowas):
                        candidates = offer & group_reach[asn[dst]]
                        if candidates:
                            dropped = path_through(src, group, candidates, via_in, rank, memo, alias)
                            if dropped:
                                looped[src * n + dst] = looped.get(src * n + dst, 0) | dropped
                                offer ^= dropped
                if delays is not None:
                    for extra, prepended in delays:
                        part = offer & prepended
                        if part:
                            offer ^= part
                            later.setdefault(level + extra, {}).setdefault(dst, []).append((sender, part))
                if offer:
                    offers[dst].append((sender, offer))
        arriving = later.pop(level, {})
        for dst, delayed in arriving.items():
            offers[dst].extend(delayed)
        if not offers and not later:
            break
        frontier = {}
        for dst, senders in offers.items():
            inbound = via_in[dst]
            if dst in arriving:  # a delayed offer may be for a prefix learned since it was sent
                have_now = reach[dst]
                senders = [(src, offer ^ (offer & have_now)) for src, offer in senders]
            if len(senders) == 1:
                src, offer = senders[0]
                if not offer:
                    continue
                before = inbound.get(src)
                inbound[src] = offer if before is None else before | offer
                if asn[src] == asn[dst]:
                    ibgp_learned[dst] |= offer
                reach[dst] |= offer
                frontier[dst] = offer
                continue
            senders.sort(key=lambda item: rank[item[0]])
            assigned = 0
            best_group: dict[int, int] = {}
            for src, offer in senders:
                take = offer ^ (offer & assigned)
                if take:
                    a = asn[src]
                    best_group[a] = best_group.get(a, 0) | take
                    assigned |= take
            if not assigned:
                continue
            # without multipath-relax a prefix's next hops are the senders of its best path's
            # neighbor AS only (bgpd: eBGP paths are equal for multipath when their peers' AS is);
            # every sender may stay only where they all share one AS (one best group is not
            # enough: a later sender of another AS offers the same prefixes and takes none)
            one_as = relax[dst] or len({asn[src] for src, _ in senders}) == 1
            if one_as:
                installed = senders
            else:
                installed = [(src, offer & best_group.get(asn[src], 0)) for src, offer in senders]
            if len(installed) > paths_cap[dst]:
                installed = _cap(installed, paths_cap[dst], one_as, asn)
            for src, bits_ in installed:
                if bits_:
                    before = inbound.get(src)
                    inbound[src] = bits_ if before is None else before | bits_
                    if asn[src] == asn[dst]:
                        ibgp_learned[dst] |= bits_
            reach[dst] |= assigned
            frontier[dst] = assigned
    return _Core(reach, via_in, looped)


NEIGHBOR_WEIGHT_SEQ = -1  # the seq of the entry that stands for a `neighbor X weight N` line
GRACEFUL_SHUTDOWN_SEQ = -2  # the seq of the entries that stand for a `bgp graceful-shutdown` line


_Preferred = dict[int, tuple[int, list[RouteMapEntry]]]  # PlaneControl.preferred


class _EbgpDirection(NamedTuple):
    """One eBGP session direction, as `bgp graceful-shutdown` needs it."""

    src: int
    pos: int  # its place among the sender's edges (the key of ``preferences``)
    dst: int
    sender: int  # as the receiver's ``via_in`` names it (a parallel session's alias)
    communities: bool  # the sender sends standard communities (``sends_communities``)


def sends_communities(dev: DeviceConfig, nbr: Neighbor) -> bool:
    """Whether ``dev`` sends the standard communities to ``nbr``: as configured, else the platform's
    default (bgpd sends them; EOS sends none without `neighbor X send-community`)."""
    return nbr.send_community if nbr.send_community is not None else dev.platform != "eos"


def _graceful_shutdown(gshut: set[int],
                       dirs: list[_EbgpDirection], base: dict[tuple[int, int], _Preference],
                       graceful: dict[int, RouteMapEntry], full: int,
                       propagate: Callable[[dict[tuple[int, int], _Preference]], tuple[_Core, _Preferred]],
                       ) -> tuple[_Core, _Preferred]:
    """FRR's `bgp graceful-shutdown` (bgpd's update and announce paths): a device in it sends every
    route to its eBGP peers with the GRACEFUL_SHUTDOWN community and tags every route it takes from
    them (local preference 0). A receiver gives local preference 0 to every eBGP route that arrives
    with the community, after its inbound route-map: bgpd does (bgp_update), and so does EOS, whose
    default maintenance receiver route-map is applied after the neighbor's inbound one (Arista's
    description of it). The community is transitive: a device whose best path carries it sends it
    on, over the sessions that send communities. Fixpoint: what each device's installed paths carry
    decides the next round's preferences, until it stops changing."""
    tagged: dict[int, dict[int, int]] = {g: {g: full} for g in gshut}  # device -> {origin: prefixes}
    rounds = 1
    while True:
        prefs = dict(base)
        for d in dirs:
            carried: dict[int, int] = dict(tagged.get(d.src, {})) if d.communities else {}
            if d.dst in gshut:  # the receiver in graceful-shutdown tags what it takes in
                carried[d.dst] = full
            carried = {g: b for g, b in carried.items() if b}
            if not carried:
                continue
            prefs[(d.src, d.pos)] = _lowered(base.get((d.src, d.pos)), carried, graceful, full)
        core, preferred = propagate(prefs)
        now: dict[int, dict[int, int]] = {g: {g: full} for g in gshut}
        for d in dirs:
            if d.dst in gshut or not d.communities or d.src not in tagged:
                continue
            installed = core.via_in[d.dst].get(d.sender, 0)
            for g, bits_ in tagged[d.src].items():
                if bits_ & installed:
                    mine = now.setdefault(d.dst, {})
                    mine[g] = mine.get(g, 0) | bits_ & installed
        if now == tagged or rounds == 16:
            return core, preferred
        tagged, rounds = now, rounds + 1


def _lowered(pref: _Preference | None, carried: dict[int, int], graceful: dict[int, RouteMapEntry],
             full: int) -> _Preference:
    """A session's preferences with local preference 0 on the prefixes that arrive with the
    GRACEFUL_SHUTDOWN community (``carried``: per device in graceful-shutdown, the prefixes it
    tagged), over what its route-maps set (bgpd lowers it after the inbound route-map)."""
    lowered = _or(carried.values())
    entry = graceful[min(carried, key=lambda g: -carried[g].bit_count())]
    ranks: list[tuple[tuple[int, int], int, RouteMapEntry]] = []
    covered = 0
    for key, bits_, e in pref.rank if pref else []:
        covered |= bits_
        if bits_ & ~lowered:
            ranks.append((key, bits_ & ~lowered, e))
        if bits_ & lowered:
            ranks.append(((key[0], 0), bits_ & lowered, entry))
    # what no entry ranks keeps weight 0 (a neighbor weight is one of ``pref``'s entries)
    rest = full & ~covered & lowered
    if rest:
        ranks.append(((0, 0), rest, entry))
    return _Preference(ranks, pref.med if pref else [])


def neighbor_weight_entry(nbr: Neighbor) -> RouteMapEntry:
    """A `neighbor X weight N` line as the route-map entry it acts like: weight N on every route of
    the session no inbound route-map entry sets a weight on (findings quote its line)."""
    return RouteMapEntry(NEIGHBOR_WEIGHT_SEQ, "permit", line=nbr.weight_line, weight=nbr.weight,
                         attribute_lines={"weight": nbr.weight_line})


MAX_MED_SEQ = -3  # the seq of the entry that stands for a `bgp max-med administrative` line


def max_med_entry(inst: BgpInstance) -> RouteMapEntry:
    """A sender's `bgp max-med administrative [N]` as the outbound route-map entry it acts like: MED
    N on every route it sends (findings quote its line)."""
    return RouteMapEntry(MAX_MED_SEQ, "permit", line=inst.max_med_line, med=inst.max_med,
                         attribute_lines={"metric": inst.max_med_line})


WORST_MED = 4294967295  # what a path without a MED compares as under `bgp bestpath med missing-as-worst`


class _MedRules(NamedTuple):
    """The receivers (node numbers) that compare MED across every neighbor AS (`bgp
    always-compare-med`), and those that take a missing MED as the worst."""

    always: frozenset[int] = frozenset()
    missing_as_worst: frozenset[int] = frozenset()
    # receivers whose `bgp default local-preference` is not bgpd's: what a path without one ranks at
    default_pref: Mapping[int, int] = {}


@dataclass
class _Preference:
    """What a session's route-maps set on the routes it carries: (weight, local preference) as the
    receiver sets them inbound, and the MED (sent by the sender, or set inbound), each with the
    prefixes it applies to (the rest keep the defaults: weight 0, local preference 100, MED 0)."""

    rank: list[tuple[tuple[int, int], int, RouteMapEntry]]
    med: list[tuple[int, int, RouteMapEntry]]


def _propagate_preferring(origin: list[int], edges: list[list[Edge]], asn: list[int],
                          group_of: dict[int, frozenset[int]], rank: list[int], relax: list[bool],
                          paths_cap: list[int], suppressed: dict[int, int], alias: Sequence[int],
                          preferences: dict[tuple[int, int], _Preference],
                          allowas: frozenset[tuple[int, int]] = frozenset(),
                          med_rules: _MedRules = _MedRules(), seeded: _Seeds | None = None,
                          ) -> tuple[_Core, dict[int, tuple[int, list[RouteMapEntry]]]]:
    """_propagate, with the best-path attributes route-maps set. BGP compares weight and local
    preference before the AS path, and MED (between paths from one neighbor AS) after it: a session
    whose routes are outranked is not installed for them, and what a device then advertises is its
    preferred path. Modelled as a fixpoint: propagate, find on each receiver the sessions outranked
    for prefixes a better session can deliver, block those, propagate again (a few rounds; a
    fabric without such attributes takes one). MED is compared among the installed sessions of one
    neighbor AS, or of every AS at a receiver with `bgp always-compare-med` (``med_rules``)."""
    core = _propagate(origin, edges, asn, group_of, rank, relax, paths_cap, suppressed, alias, allowas, seeded)
    if not preferences:
        return core, {}
    n = len(origin)
    blocked: dict[tuple[int, int], int] = {}
    why: dict[tuple[int, int], list[RouteMapEntry]] = {}
    incoming: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for src, outgoing in enumerate(edges):
        for pos, edge in enumerate(outgoing):
            incoming[edge[0]].append((src, pos))
    receivers = {edges[src][pos][0] for src, pos in preferences}
    for _ in range(8):
        new: dict[tuple[int, int], int] = {}
        memo: dict[tuple[int, frozenset[int]], tuple[int, int]] = {}
        for dst in receivers:
            # a sender cannot deliver what its own best path has through the receiver's AS
            through = group_of.get(asn[dst], frozenset((dst,)))
            _outranked(dst, incoming[dst], edges, preferences, core, n, asn, new, why,
                       lambda src, bits_: 0 if (src, dst) in allowas else
                       path_through(src, through, bits_, core.via_in, rank, memo, alias), blocked,
                       dst in med_rules.always, WORST_MED if dst in med_rules.missing_as_worst else 0,
                       med_rules.default_pref.get(dst, DEFAULT_LOCAL_PREF))
        if new == blocked:
            break
        blocked = new
        masked = [[(dst, _minus(mask, blocked.get((src, pos), 0)), ibgp, delays, sender)
                   for pos, (dst, mask, ibgp, delays, sender) in enumerate(outgoing)]
                  for src, outgoing in enumerate(edges)]
        core = _propagate(origin, masked, asn, group_of, rank, relax, paths_cap, suppressed, alias, allowas, seeded)
    out: dict[int, tuple[int, list[RouteMapEntry]]] = {}
    for (src, pos), bits_ in blocked.items():
        key = src * n + edges[src][pos][0]
        had = out.get(key, (0, []))
        out[key] = (had[0] | bits_, had[1] + why.get((src, pos), []))
    return core, out


def _minus(mask: int | None, blocked: int) -> int | None:
    """``mask`` (None: everything) without ``blocked`` (~blocked is negative: an infinite mask)."""
    if not blocked:
        return mask
    return ~blocked if mask is None else mask & ~blocked


def _outranked(dst: int, sessions: list[tuple[int, int]], edges: list[list[Edge]],
               preferences: dict[tuple[int, int], _Preference], core: _Core, n: int, asn: list[int],
               out: dict[tuple[int, int], int], why: dict[tuple[int, int], list[RouteMapEntry]],
               looping: Callable[[int, int], int], previous: dict[tuple[int, int], int],
               any_as: bool = False, missing_med: int = 0, default_pref: int = DEFAULT_LOCAL_PREF) -> None:
    """Into ``out``: per session into ``dst``, the prefixes it must not install because another
    session offers them with a higher (weight, local preference), or, among the sessions of one
    neighbor AS that install them, a lower MED (``previous``: the last round's blocks, so a session
    blocked for its MED still counts as offering what it can deliver). ``default_pref``: the
    receiver's local preference for a path that carries none (`bgp default local-preference`)."""
    default = (0, default_pref)
    available: dict[tuple[int, int], int] = defaultdict(int)
    parts: dict[tuple[int, int], list[tuple[tuple[int, int], int, RouteMapEntry | None]]] = {}
    can: dict[tuple[int, int], int] = {}
    for src, pos in sessions:
        _, mask, _, _, _ = edges[src][pos]
        deliverable = core.reach[src] & (-1 if mask is None else mask) & ~core.looped.get(src * n + dst, 0)
        deliverable &= ~looping(src, deliverable & core.reach[dst])
        can[(src, pos)] = deliverable
        pref = preferences.get((src, pos))
        ranked: list[tuple[tuple[int, int], int, RouteMapEntry | None]] = list(pref.rank) if pref else []
        rest = -1
        for _, bits_, _ in ranked:
            rest &= ~bits_
        mine = ranked + [(default, rest, None)]
        parts[(src, pos)] = mine
        for key, bits_, _ in mine:
            available[key] |= bits_ & deliverable
    keys = sorted(available)
    for src, pos in sessions:
        for key, bits_, entry in parts[(src, pos)]:
            better = 0
            for k in keys:
                if k > key:
                    better |= available[k]
            lost = bits_ & better & core.reach[dst]
            if lost:
                out[(src, pos)] = out.get((src, pos), 0) | lost
                # what raised the others, and what lowered this one (graceful-shutdown's local
                # preference 0, a route-map's low local preference)
                why[(src, pos)] = _setters(preferences, sessions, lambda p: [e for k, _, e in p.rank if k > key]) + \
                    ([entry] if entry is not None and key < default else [])
    # MED: among the sessions that install a prefix, per neighbor AS (all of them with
    # always-compare-med: ``any_as``), the lowest MED wins
    inbound = core.via_in[dst]
    by_as: dict[int, list[tuple[tuple[int, int], list[tuple[int, int]]]]] = defaultdict(list)
    for src, pos in sessions:
        pref = preferences.get((src, pos))
        sender = edges[src][pos][4]
        installed = (inbound.get(sender, 0) | previous.get((src, pos), 0) & can[(src, pos)]) & ~out.get((src, pos), 0)
        if not installed:
            continue
        meds = [(m, bits_ & installed) for m, bits_, _ in (pref.med if pref else [])]
        rest = installed
        for _, bits_ in meds:
            rest &= ~bits_
        by_as[-1 if any_as else asn[src]].append(((src, pos), meds + [(missing_med, rest)]))
    for members in by_as.values():
        if len(members) < 2 or not any(m for _, parts_ in members for m, b in parts_ if m and b):
            continue
        values = sorted({m for _, parts_ in members for m, _ in parts_})
        carried = {m: 0 for m in values}
        for _, parts_ in members:
            for m, bits_ in parts_:
                carried[m] |= bits_
        for session, parts_ in members:
            for m, bits_ in parts_:
                lower = 0
                for v in values:
                    if v < m:
                        lower |= carried[v]
                lost = bits_ & lower
                if lost:
                    out[session] = out.get(session, 0) | lost
                    why[session] = why.get(session, []) + _setters(
                        preferences, [sm for sm, _ in members], lambda p: [e for _, _, e in p.med])


def _setters(preferences: dict[tuple[int, int], _Preference], sessions: Iterable[tuple[int, int]],
             pick: Callable[[_Preference], list[RouteMapEntry]]) -> list[RouteMapEntry]:
    found: list[RouteMapEntry] = []
    for session in sessions:
        pref = preferences.get(session)
        if pref is not None:
            found += [e for e in pick(pref) if e not in found]
    return found


def _or(values: Iterable[int]) -> int:
    out = 0
    for v in values:
        out |= v
    return out


def _cap(installed: list[tuple[int, int]], cap: int, one_group: bool, asn: list[int]) -> list[tuple[int, int]]:
    """At most ``cap`` next hops per prefix, best first (the list is in tie-break order). Counts
    per prefix are kept bit-sliced (slice i = bit i of every prefix's count), so a sender costs a
    few big-int operations, not one per prefix."""
    if not one_group:  # per prefix only one ASN's senders are installed: no more than the largest group
        sizes: dict[int, int] = defaultdict(int)
        for src, bits_ in installed:
            if bits_:
                sizes[asn[src]] += 1
        if max(sizes.values(), default=0) <= cap:
            return installed
    width = cap.bit_length()
    slices = [0] * width
    out: list[tuple[int, int]] = []
    for src, bits_ in installed:
        if not bits_:
            out.append((src, bits_))
            continue
        full = -1  # prefixes whose count equals cap: every slice agrees with cap's bits
        for k in range(width):
            full &= slices[k] if cap >> k & 1 else ~slices[k]
        keep = bits_ & ~full
        out.append((src, keep))
        carry = keep
        for k in range(width):  # counter += keep (ripple carry across the slices)
            if not carry:
                break
            slices[k], carry = slices[k] ^ carry, slices[k] & carry
    return out


# --- the plan's side -------------------------------------------------------------------------------

@dataclass
class PlanePlan:
    """What the plan says one plane's control plane must be (sets over the same bits as the
    computed PlaneControl's index). Devices are numbered (``nodes[i]``)."""

    plane: str
    nodes: list[str]  # devices of the plane that run BGP in it
    origin: dict[str, int]  # device -> the prefixes it originates
    reach: dict[str, int]  # device -> every prefix it must have
    via_in: list[dict[int, int]]  # per receiver number: sender number -> prefixes expected over that link
    parallel: dict[int, int] = field(default_factory=dict)  # receiver * n + sender -> links, where > 1

    def links(self) -> Iterator[tuple[str, str, int, int]]:
        """(receiver, sender, prefixes expected from that sender, next hops each: the parallel
        links between the two) for every planned neighbor."""
        n = len(self.nodes)
        for dst, inbound in enumerate(self.via_in):
            for src, bits_ in inbound.items():
                yield self.nodes[dst], self.nodes[src], bits_, self.parallel.get(dst * n + src, 1)


def planned_prefixes(snap: Snapshot, plane: str) -> list[str]:
    return [net_str(network_of(p)) for meta in snap.manifest.devices.values() for p in meta.originates.get(plane, [])]


def planned_bits(snap: Snapshot, plane: str) -> dict[str, int]:
    """The planned prefixes' bits as ``compute_plane`` numbers them (it adds them first, in this
    order, once each): what ``expected_plane`` needs, known from the manifest alone."""
    return {net: bit for bit, net in enumerate(dict.fromkeys(planned_prefixes(snap, plane)))}


def expected_plane(snap: Snapshot, plane: str, bit_of: Mapping[str, int]) -> PlanePlan:
    """Shortest paths over the cabling plan's switch-to-switch links of the plane, every equal-cost
    neighbor a next hop, no policy: what the fabric is designed to do. Valley-free: leaves and
    gateways advertise only their own prefixes (the plan's LOCAL-*-OUT policy); only spines and
    super-spines pass routes on. eBGP loop prevention with the planned ASNs: a device never takes
    a path through its own ASN (super-spines sharing one ASN do not learn each other's loopbacks)."""
    manifest = snap.manifest
    nodes = [name for name, meta in manifest.devices.items() if plane in (meta.planes or [meta.plane or ""])]
    number = {name: i for i, name in enumerate(nodes)}
    n = len(nodes)
    # ordered: findings come in plan order; the value counts parallel links
    links: list[dict[int, int]] = [{} for _ in nodes]
    plan = snap.cabling
    for a_end, b_end, row_plane in zip(plan.column("a_device"), plan.column("b_device"), plan.column("plane")):
        if row_plane == plane and a_end != b_end:
            i, j = number.get(a_end), number.get(b_end)
            if i is not None and j is not None:
                links[i][j] = links[i].get(j, 0) + 1
                links[j][i] = links[j].get(i, 0) + 1
    origin = [sum(1 << bit_of[net_str(network_of(p))] for p in set(manifest.devices[name].originates.get(plane, [])))
              for name in nodes]
    transit = [manifest.devices[name].role in TRANSIT_ROLES for name in nodes]
    asn = [manifest.devices[name].asn for name in nodes]
    members: dict[int, list[int]] = defaultdict(list)
    for i, a in enumerate(asn):
        if a:
            members[a].append(i)
    group_of = {a: frozenset(m) for a, m in members.items() if len(m) > 1}
    reach = list(origin)
    via_in: list[dict[int, int]] = [{} for _ in range(n)]
    memo: dict[tuple[int, frozenset[int]], tuple[int, int]] = {}
    frontier = {i: bits_ for i, bits_ in enumerate(origin) if bits_}
    while frontier:
        group_reach = {a: _or(reach[m] for m in group) for a, group in group_of.items()}
        offers: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for src, have in frontier.items():
            if not transit[src]:
                have &= origin[src]
                if not have:
                    continue
            for dst in links[src]:
                known = have & reach[dst]
                new = have ^ known if known else have  # (the same int, not a copy: most offers are whole)
                if not new:
                    continue
                group = group_of.get(asn[dst])
                if group is not None:
                    candidates = new & group_reach[asn[dst]]
                    if candidates:
                        new ^= path_through(src, group, candidates, via_in, None, memo)
                if new:
                    offers[dst].append((src, new))
        frontier = {}
        for dst, senders in offers.items():
            gained = 0
            inbound = via_in[dst]
            for src, new in senders:
                before = inbound.get(src)
                inbound[src] = new if before is None else before | new  # (0 | new would copy new)
                gained |= new
            reach[dst] |= gained
            frontier[dst] = gained
    parallel = {dst * n + src: count for dst, ends in enumerate(links) for src, count in ends.items() if count > 1}
    return PlanePlan(plane, nodes, {name: origin[i] for i, name in enumerate(nodes)},
                     {name: reach[i] for i, name in enumerate(nodes)}, via_in, parallel)


def instance_of(topo: Topology, snap: Snapshot, device: str, plane: str) -> NodeId | None:
    """The routing instance of ``device`` that serves ``plane`` (None: it runs no BGP there)."""
    dev = snap.devices.get(device)
    if dev is None:
        return None
    for vrf in dev.bgp:
        if topo.node_plane.get((device, vrf)) == plane:
            return (device, vrf)
    return None

