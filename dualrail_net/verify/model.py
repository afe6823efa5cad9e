"""The vendor-neutral device model every parser produces and every check reads.

It describes what a rendered file *says*, whichever platform wrote it: interfaces, addresses, VRFs,
BGP (sessions, origination, policy, ECMP, VRF imports), prefix lists, route maps, static routes, QoS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


@dataclass(slots=True)
class EcnProfile:
    min_bytes: int
    max_bytes: int
    probability: int
    # RED also early-drops on the same ramp what it cannot mark (packets that are not ECN-capable):
    # Cumulus's `red_enable` (Spectrum's WRED enable beside ECN)
    drops: bool = False


@dataclass(frozen=True, slots=True)
class LinkSettings:
    """What a port's configuration forces on its link (None: not said, the platform's default)."""

    speed_mbps: int | None = None  # a forced speed ("auto" is None)
    fec: str | None = None  # "rs" (Reed-Solomon), "baser" (Fire code), "none"; "auto" is None
    autoneg: bool | None = None
    line: int = field(default=0, compare=False)  # the first line that says one of them (for findings)
    file: str = field(default="", compare=False)  # the file of that line, in the device's folder


@dataclass(frozen=True, slots=True)
class PfcHeadroom:
    """The buffer a port keeps for what is still in flight after it sends a pause (None: not said)."""

    xoff_bytes: int | None = None
    cable_m: int | None = None  # the cable length the switch sizes the headroom for


# Interface.down's reasons, as a finding says them
_DOWN_REASONS = {"shutdown": "administratively down (shut down)", "link-down": "kept down (link-down yes)",
                 "switchport": "a switchport (no `no switchport`), so its IP address is not used",
                 "post-up down": "taken down by a post-up command (ip link set ... down)",
                 "not auto": "never brought up (no `auto` line: ifupdown2 configures only the auto stanzas)"}


def connected_deleted(line: int, prefix: str) -> str:
    """Interface.down of a port whose subnet's route a post-up command deletes (said as it is)."""
    return (f"left without its connected route by interfaces line {line} (`ip route del {prefix}`): the switch "
            "reaches no address on the link")


def neighbor_named(n: "Neighbor") -> str:
    """How a finding names a neighbor: as its statement is written, or, for a member a listen
    range made (verify/dynamic.py), as what the file says about it."""
    if n.dynamic:
        return f"dynamic neighbor {n.address} (peer-group {n.peer_group}, by its listen range)"
    return f"neighbor {n.address}"


def why_down(reason: str) -> str:
    return _DOWN_REASONS.get(reason, reason)


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
    # why the port carries no IP traffic although addressed ("shutdown", "switchport"); "": it does
    down: str = ""
    # what the port's own statements say about routing what it receives (ifupdown2 `ip-forward`, a
    # `sysctl net.ipv4.conf.PORT.forwarding=N` command, NVUE's `ip ipv4 forward`): (on, line,
    # statement, the file it is in); None: nothing said
    forwarding: tuple[bool, int, str, str] | None = None
    trust: str | None = None  # QoS trust source ("dscp", "cos", UNTRUSTED); None: not said in the file
    link: LinkSettings | None = None  # speed, FEC, autonegotiation as configured (None: none said)
    # each DWRR traffic class's share of the port under contention, in percent (weights turned into
    # shares by the parser; EOS and NVUE write percents); None: no DWRR scheduling configured
    dwrr_share: dict[int, int] | None = None
    pfc_headroom: PfcHeadroom | None = None  # the lossless priority's headroom (None: the platform sizes it)
    # the priorities a PFC watchdog watches on the port (SONiC: PORT_QOS_MAP pfcwd_sw_enable, for a port
    # PFC_WD has an entry for); None: the platform keeps no watchdog in the file (not judged)
    pfc_watchdog: list[int] | None = None
    pfc_watchdog_note: str = ""  # why it watches less than it could (for the finding)


@dataclass(slots=True)
class Neighbor:
    address: str
    remote_asn: int | None = None
    route_map_in: str | None = None
    route_map_out: str | None = None
    description: str = ""
    shutdown: bool = False  # `neighbor X shutdown`: configured, but no session (see shut_neighbors)
    remote_kind: str | None = None  # `remote-as external|internal` (remote_asn stays None)
    activate: bool | None = None  # `[no] neighbor X activate` in ipv4 unicast; None: the instance's default
    peer_group: str | None = None  # the peer-group it is bound to (its settings are copied in, see finish_bgp)
    interface: bool = False  # an unnumbered neighbor: `neighbor PORT interface`, paired over the cable on PORT
    line: int = 0  # where it is first configured in the routing file (1-based; 0: not known)
    # the prefixes accepted from it above which the session is torn down (FRR `maximum-prefix N`,
    # EOS `maximum-routes N`); 0: no limit (`warning-only`, EOS `maximum-routes 0`); None: not
    # configured, the platform's default applies (controlplane.receive_limit)
    max_prefix: int | None = None
    max_prefix_line: int = 0
    # TCP MD5 (`neighbor X password P`): both ends must agree, or no TCP connection is accepted
    password: str | None = None
    password_line: int = 0
    passive: bool = False  # `neighbor X passive`: never opens the connection itself
    # a member a listen range made (verify/dynamic.py): the range's line is its ``line``
    dynamic: bool = False
    # `neighbor X update-source IFNAME|A.B.C.D` (FRR, EOS): the address it opens its connection
    # from (a port's: its first IPv4 address); the peer takes only a connection from an address it
    # has a neighbor for, so an end whose source is not the address its peer names it by cannot
    # open the session (it still accepts the peer's connection); None: not configured
    update_source: str | None = None
    update_source_line: int = 0
    password_opaque: bool = False  # a password the model cannot compare (EOS's encrypted form): not judged
    # `neighbor X route-reflector-client` (FRR): its line; FRR refuses it on an eBGP neighbor (the
    # line is not applied and loading the file fails); on an iBGP one, route reflection (not modelled)
    rr_client_line: int = 0
    # FRR `neighbor X local-as N [no-prepend [replace-as]]`: the ASN the peer sees in the OPEN (its
    # remote-as must be N or the session never comes up); once up, N goes in front of what is
    # received from X (unless no-prepend) and of what is sent to X, before the real ASN (which
    # replace-as leaves out): each one AS more on that session
    local_as: int | None = None
    local_as_line: int = 0
    local_as_no_prepend: bool = False
    local_as_replace: bool = False
    # FRR `neighbor ADDRESS interface PORT` on a numbered neighbor: its TCP connection is bound to
    # PORT (SO_BINDTODEVICE, meant for IPv6 link-local peers); on another port than the one whose
    # subnet holds ADDRESS the session never comes up, either way (measured on the twin with `lo`
    # and another uplink; a port the files do not address: verify/bindings.py). (port, line); None:
    # not bound
    bound_port: tuple[str, int] | None = None
    # FRR `neighbor X local-role ROLE [strict-mode]` (BGP roles, RFC 9234): the role this end takes
    # toward X, sent as the Role capability. Two ends that both send one must form a pair
    # (provider-customer, rs-server-rs-client, peer-peer), and a strict end refuses a peer that
    # sends none: either way the OPEN is refused with Role Mismatch (measured on the twin, bgpd
    # 8.4). None: no role. What roles do to routes (the OTC attribute) changes no route while the
    # roles stand on one session; on more, verify/roles.py reports them (not evaluated)
    local_role: str | None = None
    local_role_strict: bool = False
    local_role_line: int = 0
    # FRR `neighbor X dont-capability-negotiate`: the OPEN carries no capabilities, so no 4-octet AS
    # one (RFC 6793): an ASN above 65535 goes in the OPEN's 2-octet field as AS_TRANS (23456), and a
    # peer expecting the real ASN refuses it (bad peer AS; measured on the twin, bgpd 8.4). Its line
    # (0: not configured)
    no_capabilities_line: int = 0
    # `neighbor X allowas-in [N|origin]`: routes from this neighbor whose AS path holds the
    # receiver's own ASN up to N times (default 3; `origin`: only as the origin AS, taken as 1) are
    # not dropped by loop prevention; 0: not configured
    allowas_in: int = 0
    # GTSM (`neighbor X ttl-security hops H`): packets go out with TTL 255 and only packets that
    # arrive with TTL >= 256-H are taken; `ebgp-multihop N` sends with TTL N (eBGP default: 1)
    ttl_security: int | None = None
    ttl_security_line: int = 0
    ebgp_multihop: int | None = None
    # `ebgp-multihop` or `disable-connected-check`: the session may reach an address on no connected
    # subnet (not modelled: such a statement stays one-sided, said so); between connected ends
    # nothing changes. Its line (0: neither)
    unconnected_ok_line: int = 0
    # `neighbor X weight N`: the weight every route from it starts with (an inbound route-map's `set
    # weight` overrides it); best-path compares weight first. None: not configured (0)
    weight: int | None = None
    weight_line: int = 0
    # `neighbor X prefix-list NAME in|out`: applied before the route-map of that direction; both
    # must permit (an undefined list denies everything, as an undefined route-map does)
    prefix_list_in: str | None = None
    prefix_list_out: str | None = None
    prefix_list_lines: dict[str, int] = field(default_factory=dict)  # "in"|"out" -> line
    # FRR `neighbor X filter-list NAME in|out`: an AS-path access list every route of that direction
    # must pass (on its AS path: verify/aspaths.py); an undefined list denies everything (bgpd's
    # as_list_apply on no list)
    filter_list_in: str | None = None
    filter_list_out: str | None = None
    filter_list_in_line: int = 0  # (ints, not a dict per neighbor: large fabrics hold many neighbors)
    filter_list_out_line: int = 0
    # FRR `neighbor X attribute-unchanged next-hop` (or without attributes: all of them), EOS
    # `neighbor X next-hop-unchanged`: routes go out with the next hop they were learned with, as a
    # route-map's `set ip next-hop unchanged` (which, set, wins); its line (0: not configured)
    next_hop_unchanged_line: int = 0
    # `neighbor X next-hop-self`: the sender's own address, what eBGP sends anyway (no effect there)
    next_hop_self: bool = False
    # FRR `neighbor X remove-private-AS [all] [replace-AS]`, EOS `neighbor X remove-private-as [all
    # [replace-as]]`: what bgpd does to the AS path of routes sent to X (eBGP only), after the
    # outbound route-map and before its own ASN goes in front: "plain" strips the private ASNs when
    # every ASN of the path is private, "all" strips them whatever else is there, "replace" and
    # "all-replace" put the sender's ASN in their place; the peer's own ASN is always kept ("": not
    # configured)
    remove_private: str = ""
    remove_private_line: int = 0
    # `neighbor X default-originate [always] [route-map M]`: a default route offered to X whatever
    # the sender's own table holds; what X's inbound policy does with it decides (0: not configured)
    default_originate_line: int = 0
    # FRR `neighbor X as-override`: X's own ASN in the paths sent to it is replaced by the sender's
    # (same length), so X's loop prevention lets them in; its line (0: not configured)
    as_override_line: int = 0
    # `[no] neighbor X send-community [standard|both|all]`: whether the standard communities (the
    # graceful-shutdown one among them) are sent to X; None: the platform's default (FRR sends them,
    # EOS does not: ``sends_communities``)
    send_community: bool | None = None
    # FRR `neighbor X addpath-tx-all-paths | addpath-tx-bestpath-per-AS`: more than the best path is
    # sent to X; over eBGP every one carries the sender's own address as next hop, and bgpd's
    # multipath takes one path per next hop, so what X installs is unchanged. Its line (0: not set)
    addpath_tx_line: int = 0
    # `neighbor X timers KEEPALIVE HOLD`: the hold time this end offers in its OPEN (the session
    # holds for the smaller of the two ends' offers; 0: no keepalives, a silent peer is never
    # declared dead), overriding the instance's `timers bgp`; None: not configured
    timers: tuple[int, int] | None = None
    timers_line: int = 0
    # EOS `neighbor X maximum-accepted-routes N [warning-limit ...]`: at most N routes from X are kept
    # (the session stays up; the rest are dropped in arrival order); None: no such limit (0 is none)
    accept_limit: int | None = None
    accept_limit_line: int = 0
    # FRR `neighbor X maximum-prefix-out N`: at most N prefixes are sent to X (the session stays up;
    # the rest are not sent, which ones depending on the order bgpd walks its table); None: no limit
    send_limit: int | None = None
    send_limit_line: int = 0
    # `neighbor X port N`: the TCP port it connects to on the peer (bgpd listens on 179): an end
    # connecting elsewhere cannot open the session, and still accepts the peer's. None: 179
    port: int | None = None
    port_line: int = 0
    # EOS `neighbor X missing-policy ...` (its own or its peer-group's): what X's routes of a
    # direction meet when X has no route-map that way (MissingPolicy); () where not configured
    missing_policies: tuple[MissingPolicy, ...] = ()
    # defined by `remote-as`, `interface` or a peer-group (FRR takes its other lines only after that)
    defined: bool = False


UNTRUSTED = "untrusted"  # Interface.trust of a port that trusts no marking (EOS `no qos trust`)
DEFAULT_LOCAL_PREF = 100  # bgpd's and EOS's local preference for a path that carries none


@dataclass(frozen=True, slots=True)
class MissingPolicy:
    """EOS `bgp missing-policy [include community-list|prefix-list|sub-route-map ...] direction
    in|out action deny|permit|deny-in-out` (under `router bgp`, its `address-family ipv4`, or per
    neighbor or peer-group): what happens to a neighbor's routes of ``direction`` when it has no
    route-map that way, or one the file does not define, or (``includes``) one that matches on a
    prefix-list or community-list the file does not define. `deny` drops them; `deny-in-out` drops
    the neighbor's routes both ways; `permit` (EOS's default) takes them as if permitted."""

    direction: str  # "in" | "out"
    action: str  # "deny" | "permit" | "deny-in-out"
    includes: frozenset[str]  # of "community-list", "prefix-list", "sub-route-map"
    line: int
    af: bool = False  # written under `address-family ipv4` (it wins over the router-level line)


@dataclass(frozen=True, slots=True)
class ListenPeers:
    """Which peers an EOS listen range takes and the AS each gets: `remote-as N` (every peer, as
    AS N: one that opens with another AS is refused in its OPEN), or `peer-filter F` (a peer whose
    AS F's first matching entry by sequence accepts, as the AS it opens with; a filter without
    entries accepts every AS, one nobody defined none: Batfish's reading of EOS, not measured)."""

    asn: int | None = None  # remote-as N
    filter: str = ""  # the peer-filter's name ("" with remote-as)
    accepts: tuple[tuple[int, int, bool], ...] = ()  # its entries (first AS, last AS, accept), by sequence
    defined: bool = True  # whether the file defines the filter

    def admits(self, asn: int | None) -> bool:
        if not self.filter:
            return True  # (remote-as: taken; the OPEN decides)
        if not self.defined:
            return False
        if not self.accepts:
            return True
        return asn is not None and next((ok for low, high, ok in self.accepts if low <= asn <= high), False)


@dataclass(slots=True)
class BgpInstance:
    vrf: str | None
    asn: int
    router_id: str | None = None
    neighbors: dict[str, Neighbor] = field(default_factory=dict)
    networks: list[str] = field(default_factory=list)
    redistribute: list[str] = field(default_factory=list)  # "connected", "static", "kernel" (FRR)
    redistribute_lines: dict[str, int] = field(default_factory=dict)  # source -> its line
    # `redistribute connected|static route-map NAME`: source -> (route-map, line); only the routes
    # the route-map permits are originated (an undefined one: none, bgpd's route_map_apply on no map)
    redistribute_maps: dict[str, tuple[str, int]] = field(default_factory=dict)
    # `redistribute connected|static metric N`: source -> (N, line): the MED the routes leave with
    # (eBGP sends a learned route on without it, so it counts only where paths of one prefix from
    # different originators meet: controlplane._origin_attributes)
    redistribute_metrics: dict[str, tuple[int, int]] = field(default_factory=dict)
    # SONiC's bgpcfgd: `redistribute static route-map STATIC_ROUTE_FILTER`, which passes only the
    # routes it installed from config_db's STATIC_ROUTE (its tag): their prefixes -> the entry's line
    # in config_db.json; it replaces any `redistribute static` of frr.conf (None: bgpcfgd feeds none)
    static_feed: dict[str, int] | None = None
    # `network PREFIX route-map NAME`: prefix (as written) -> (route-map, line); the prefix is
    # originated only when the route-map permits it (an undefined one: never, bgpd's route_map_apply
    # on no map denies; measured in the twin)
    network_maps: dict[str, tuple[str, int]] = field(default_factory=dict)
    # `network PREFIX backdoor` (FRR): prefix (as written) -> its line; bgpd withdraws a backdoor
    # network, it is never originated (measured in the twin); the statement's last form decides
    network_backdoor: dict[str, int] = field(default_factory=dict)
    maximum_paths: int | None = None
    # `bgp bestpath as-path multipath-relax`: paths of equal AS-path length through different ASNs
    # share ECMP (FRR: off unless said; EOS: on unless `no ...`, the EOS reader's default)
    multipath_relax: bool = False
    # `bgp bestpath as-path ignore`: best-path selection skips the AS path's length, so paths of
    # different lengths go on to ORIGIN and MED and may share ECMP (a prepend drains nothing); its
    # line (0: lengths compared, every platform's default)
    as_path_ignore_line: int = 0
    # `bgp disable-ebgp-connected-route-check` (FRR): every eBGP neighbor's
    # `disable-connected-check` (its line; 0: off); a session it lets start toward an address on no
    # connected subnet is not modelled (said so), and where the peer is connected it changes nothing
    ebgp_unconnected_ok_line: int = 0
    # `bgp always-compare-med`: MED decides between paths of any neighbor AS (else only of one)
    always_compare_med: bool = False
    # `bgp bestpath med missing-as-worst`: a path without a MED compares as the highest MED
    # (4294967295), not as 0; its line (0: not set)
    med_missing_as_worst_line: int = 0
    # `bgp minimum-holdtime N` (FRR): an OPEN offering a hold time below N (0 included) is refused
    # with "Unacceptable Hold Time" (bgp_open_receive; measured in the twin); 0: no minimum
    minimum_hold_time: int = 0
    minimum_hold_time_line: int = 0
    # `bgp max-med administrative [N]` (FRR): every route the instance sends carries MED N
    # (4294967294 unless given), whatever a route-map set; and its line
    max_med: int | None = None
    max_med_line: int = 0
    # `bgp default local-preference N` (FRR): the local preference of every path that carries none
    # (all it learns over eBGP but where an inbound map sets one) and of the routes it originates
    default_local_pref: int = DEFAULT_LOCAL_PREF
    default_local_pref_line: int = 0
    # `bgp confederation identifier N`: the AS the instance shows every peer outside its confederation
    # (and writes in AS paths in place of its own); `bgp confederation peers`: the member ASNs
    confederation: int | None = None
    confederation_line: int = 0
    confederation_peers: list[int] = field(default_factory=list)
    vrf_imports: list[str] = field(default_factory=list)  # VRFs whose routes this instance imports
    rt_import: list[str] = field(default_factory=list)
    rt_export: list[str] = field(default_factory=list)
    # neighbors configured with `shutdown`: taken out of ``neighbors`` (no session comes up with them)
    shut_neighbors: list[str] = field(default_factory=list)
    # statements the routing daemon refuses when it loads the file (line, statement, FRR's reason):
    # not applied, and the load fails (vtysh -b exits non-zero, frr-reload.py stops)
    refused: list[tuple[int, str, str]] = field(default_factory=list)
    default_ipv4_unicast: bool = True  # `no bgp default ipv4-unicast`: a neighbor needs `activate`
    # every `[no] bgp default ipv4-unicast` as (line, on): bgpd reads the default when it creates a
    # neighbor or a peer-group, so the lines above a neighbor's first line decide for it (FRR)
    default_ipv4_unicast_lines: list[tuple[int, bool]] = field(default_factory=list)
    network_import_check: bool = True  # a `network` is advertised only while its prefix is in the RIB
    # `[no] bgp ebgp-requires-policy`; None: the platform's default (FRR `defaults traditional`: on).
    # When on, an eBGP neighbor without a route-map in a direction carries nothing that way
    ebgp_requires_policy: bool | None = None
    # EOS `bgp missing-policy ...` under `router bgp` or its `address-family ipv4` (MissingPolicy)
    missing_policies: tuple[MissingPolicy, ...] = ()
    peer_groups: set[str] = field(default_factory=set)  # names defined with `neighbor NAME peer-group`
    interface_neighbors: list[str] = field(default_factory=list)  # the unnumbered ones (port names)
    aggregates: list[Aggregate] = field(default_factory=list)
    vpn_import: bool = False  # FRR `import vpn`: takes routes whose RT matches rt_import
    vpn_export: bool = False  # FRR `export vpn`: exports with rt_export
    # FRR `import vrf route-map NAME` / `route-map vpn import NAME`: the map routes leaked into this
    # instance pass (both set the one import map); `route-map vpn export NAME`: what it leaks out
    # passes. A map named but not defined stops that leaking altogether (bgpd: "route-map fromvpn
    # named but not defined"). (name, line)
    vpn_import_map: tuple[str, int] | None = None
    vpn_export_map: tuple[str, int] | None = None
    line: int = 0  # the `router bgp` line
    network_lines: dict[str, int] = field(default_factory=dict)  # network statement -> its line
    maximum_paths_line: int = 0
    # FRR `maximum-paths ibgp N`: the cap for routes learned over iBGP (none in a fabric of eBGP
    # sessions; where an iBGP session is up it is reported: iBGP multipath is not followed); its line
    maximum_paths_ibgp_line: int = 0
    # `bgp shutdown` (FRR) / `shutdown` under `router bgp` (EOS): the line (0: not shut down). Every
    # neighbor of the instance then goes to ``shut_neighbors``: no session comes up
    shutdown_line: int = 0
    # the lines of `neighbor X password P` statements whose password is written as its value (EOS's
    # encrypted form included: it is reversible) where the renderer writes ``${secret:NAME}``
    literal_passwords: list[int] = field(default_factory=list)
    # `distance bgp EXTERNAL INTERNAL LOCAL` (FRR; EOS `distance bgp EXTERNAL [INTERNAL LOCAL]`): the
    # administrative distance its routes enter the FIB with (platform default: FRR 20/200/200, EOS
    # 200/200/200); 255 keeps them out. None: not configured
    distance: tuple[int, int, int] | None = None
    distance_line: int = 0
    # `table-map NAME` (FRR): the route-map every best route passes on its way to zebra; what it
    # denies stays in BGP (and is advertised) but is not installed. (name, line); None: none
    table_map: tuple[str, int] | None = None
    # FRR `bgp graceful-shutdown`: every route sent to an eBGP peer carries the GRACEFUL_SHUTDOWN
    # community (65535:0) and every route taken from one gets it, with local preference 0; an FRR
    # eBGP receiver sets local preference 0 on any route that carries it. The line (0: not set)
    graceful_shutdown_line: int = 0
    # `timers bgp KEEPALIVE HOLD` (FRR, EOS): what every neighbor without its own `timers` offers;
    # None: the platform's default (controlplane.offered_hold_time). Its line (0: not set)
    timers: tuple[int, int] | None = None
    timers_line: int = 0
    # FRR dynamic neighbors: `bgp listen range PREFIX peer-group G`, by the range's first address:
    # (prefix as written, G, line, the range's last address), in file order, and the first
    # addresses sorted (bgpd refuses overlapping ranges, so an address is in one range at most,
    # found by halving); a peer that connects from an address in a range, with no neighbor of its
    # own here, becomes a passive member of G (verify/dynamic.py), up to `bgp listen limit N` of them
    # (FRR's default 100; its line, 0: not set)
    listen_ranges: dict[int, tuple[str, str, int, int]] = field(default_factory=dict)
    listen_starts: list[int] = field(default_factory=list)
    listen_limit: int = 100
    listen_limit_line: int = 0
    # the peer-groups a listen range names, as finish_bgp leaves them (what a dynamic member takes)
    dynamic_groups: dict[str, Neighbor] = field(default_factory=dict)
    # EOS: a listen range's own word on its peers' AS (`remote-as N` or `peer-filter F`), by the
    # range's first address (FRR's ranges have none: the group's remote-as)
    listen_peers: dict[int, ListenPeers] = field(default_factory=dict)


@dataclass(slots=True)
class Aggregate:
    prefix: str
    summary_only: bool = False
    line: int = 0
    # `as-set`: the aggregate's AS path holds every AS of the routes under it, so a neighbor whose AS
    # is among them drops it; the models send it on only while every route under it is the device's own
    as_set: bool = False


# the prefix-list name an access list read as a route filter is evaluated as (DeviceConfig.
# access_lists): "access-list NAME", which no real prefix-list can be called (it holds a space)
ACCESS_LIST_PREFIX = "access-list "
# the synthetic prefix-list verify/communities.py writes: the external peers' planned prefixes, which
# an entry matching on a community-list keeps matching (what they carry is not known)
OUTSIDE_PREFIX = "the external peers' routes, for community-list "


def list_label(name: str) -> str:
    """How a finding names a list a route-map or neighbor filters with: "prefix-list NAME", or
    "access-list NAME" for an access list evaluated as one (a synthetic list: its own name)."""
    return name if name.startswith((ACCESS_LIST_PREFIX, OUTSIDE_PREFIX)) else f"prefix-list {name}"


def filter_clause(name: str) -> str:
    """The neighbor statement that filters with a list, as written: "prefix-list NAME", or
    "distribute-list NAME" for an access list."""
    return f"distribute-list {name[len(ACCESS_LIST_PREFIX):]}" if name.startswith(ACCESS_LIST_PREFIX) \
        else f"prefix-list {name}"


@dataclass(slots=True)
class PrefixListEntry:
    seq: int
    action: str
    prefix: str
    ge: int | None = None
    le: int | None = None
    line: int = 0


@dataclass(slots=True)
class RouteMapEntry:
    seq: int
    action: str
    match_prefix_lists: list[str] = field(default_factory=list)
    line: int = 0
    # `set as-path prepend A B ...`: the ASNs a permit entry puts in front of the path (longer paths
    # lose best-path selection and leave multipath: the way a switch is drained)
    prepend: tuple[int, ...] = ()
    prepend_line: int = 0
    # `set as-path prepend last-as N` (FRR): the path's leftmost ASN N more times where the map sees
    # it (inbound the sender's; outbound the AS it was learned from, nothing on a route of its own:
    # bgpd's route_set_aspath_prepend); judged per path by the plain reference; 0: none
    prepend_last_as: int = 0
    # `set local-preference N`, `set weight N`, `set metric N` (MED): best-path attributes a permit
    # entry sets (None: not set), and the line that set each
    local_pref: int | None = None
    weight: int | None = None
    med: int | None = None
    attribute_lines: dict[str, int] = field(default_factory=dict)  # "local-preference" -> line
    # `set metric +N|-N`, `set local-preference +N|-N`: added to what the route carries (bgpd's
    # route_value_adjust: 0 when the attribute is absent, clamped to 0..4294967295); judged per path
    # by the plain reference (the bitset model hands the plane to it); "metric" -> (delta, line)
    deltas: dict[str, tuple[int, int]] = field(default_factory=dict)
    # `set ip next-hop A.B.C.D | peer-address | unchanged`: the next hop a permit entry writes
    # (controlplane.next_hop_verdict says whether the receiver can use it); None: not set
    next_hop: str | None = None
    next_hop_line: int = 0
    # zebra's `set src A.B.C.D` (in a route-map of `ip protocol bgp route-map`): the source address
    # the kernel route is given; one that is no address of the device in the route's VRF makes the
    # kernel refuse the route ("Invalid prefsrc address": zebra keeps it selected, out of the FIB;
    # measured on the twin). (address, line); None: not set
    src: tuple[str, int] | None = None
    # `set origin igp|egp|incomplete`: the ORIGIN a permit entry writes (ORIGIN_CODES' index: the
    # lower wins best-path selection after the AS path's length); None: not set
    origin: int | None = None
    origin_line: int = 0
    # FRR's flow control once a permit entry matched and its sets are applied: `on-match next` /
    # `continue` ("next": on to the following entry), `on-match goto N` / `continue N` ("goto":
    # on to the first entry of seq >= N), else "exit" (decided); `call NAME`: route-map NAME is
    # applied first, and its deny ends the evaluation (routes.py, bgpd's route_map_apply_ext)
    exit_policy: str = "exit"
    goto_seq: int = 0
    call: str | None = None
    flow_line: int = 0  # the first flow-control line (0: none)
    # `match community NAME [exact-match]`, `match as-path NAME`: (kind, list, line). A list the
    # device does not define matches nothing (bgpd's route_match_community/aspath: no list, no
    # match), so the entry matches no route (``never_line``: the first such clause, set when an FRR
    # device is read); one it defines, or EOS's undefined one, is not evaluated (reported), but for
    # an FRR community-list or AS-path access list read whole (``community_clauses``,
    # ``as_path_clauses``)
    match_lists: list[tuple[str, str, int]] = field(default_factory=list)
    never_line: int = 0
    # `match community NAME [exact-match]` on an FRR community-list read whole: (list, whether it
    # matches a route that carries no community, line); verify/communities.py judges it once the
    # snapshot is assembled (no route of the fabric carries one unless a route-map sets it)
    community_clauses: list[tuple[str, bool, int]] = field(default_factory=list)
    # `set community ...` (other than `none`): the line (0: none); the entry gives routes communities
    sets_community_line: int = 0
    # the well-known communities of its `set community` that stop a route going further (RFC 1997:
    # "no-export", "no-advertise", "local-AS", written by name or number), and whether it adds them
    # (`additive`) or replaces what the route carries; None: no `set community`
    community_set: tuple[str, ...] | None = None
    community_additive: bool = False
    # `match as-path NAME` on an FRR AS-path access list read whole: (list, line); judged on each
    # route's AS path (verify/aspaths.py); the bitset model takes the entry as without the clause
    as_path_clauses: list[tuple[str, int]] = field(default_factory=list)
    # `match origin|metric|tag|local-preference|peer ...` (FRR): clauses on what a route carries
    # where the route-map sees it, or on the peer it comes from: (kind, value, line). Judged per path
    # by the plain reference (verify/reference_rib.py: the route's ORIGIN, its MED value, its tag,
    # its LOCAL_PREF attribute, the neighbor); the bitset model takes them as matching and hands the
    # plane to the reference (verify/pathjudge.py)
    attribute_clauses: list[tuple[str, str, int]] = field(default_factory=list)
    # clauses bgpd accepts and does not implement (`match ip address prefix-len`, `match
    # source-protocol`: zebra's): (text, line); in a BGP neighbor's map the entry decides as
    # without them (ROUTE-DEAD-POLICY says so)
    bgpd_ignores: list[tuple[str, int]] = field(default_factory=list)
    # FRR's matches on an IPv6 list (`match ipv6 address [prefix-list] NAME`): (text, line); bgpd
    # matches no IPv4 route on them, so the entry matches nothing (``never_line``; ROUTE-DEAD-POLICY
    # names the clause)
    other_family: list[tuple[str, int]] = field(default_factory=list)
    sets_tag_line: int = 0  # `set tag N` (reported: a tag only a `match tag` on the device reads)


# BGP ORIGIN as a route-map sets it, in the order best-path selection prefers them (RFC 4271 9.1.2.2 c)
ORIGIN_CODES = ("igp", "egp", "incomplete")


@dataclass(slots=True)
class StaticRoute:
    vrf: str | None
    prefix: str
    nexthop: str | None  # None: blackhole / Null0
    nexthop_vrf: str | None = None
    distance: int = 1  # its administrative distance (a floating static loses to BGP for its prefix)
    line: int = 0  # where the routing file says it (0: not known)
    file: str = ""  # the file that says it, when not the device's routing file (SONiC's STATIC_ROUTE)
    # put in the kernel by a command (a Cumulus port's post-up `ip route add`), not by zebra: the
    # switch programs it like any route of its table; zebra reads it in at distance 0 and BGP
    # takes it only through a `network` statement or `redistribute kernel`, not `redistribute static`
    kernel: bool = False
    # `ip route PREFIX GATEWAY PORT` (FRR): the port the gateway must be on. zebra installs the
    # route only while the connected subnet that holds the gateway (the longest) is on that port
    # and the port is up; parsers.settle_port_gateways decides it once the ports are known, after
    # which the route is a plain gateway route (or, inactive, leaves the table)
    via_port: str | None = None
    # `ip route PREFIX GATEWAY PORT onlink`: zebra takes the gateway as on the port whatever the
    # port's subnets (the route is installed while the port is up); settled as ``via_port`` is
    onlink: bool = False


class KernelRule(NamedTuple):
    """One policy rule a switch's command adds that ends a lookup (a reject type), in plain types
    (it crosses to the routing side as is)."""

    priority: int  # as given, or as the kernel numbered it
    source: int  # `from` network (0 with length 0: every source)
    source_len: int
    to: int  # `to` network (0 with length 0: every destination)
    to_len: int
    iif: str | None  # `iif PORT`: only packets arriving on PORT (the switch's own: `lo`)
    invert: bool  # `not`
    marked: bool  # a `fwmark` selector no unmarked packet (BGP's) meets
    action: str  # one of REJECT_KINDS
    line: int  # in the interfaces file


class KernelLookup(NamedTuple):
    """One policy rule a switch's command adds that looks up a VRF's table (`ip rule add ... lookup
    T` for a T the file gives a VRF), in plain types (it crosses to the routing side as is): which
    packets it can take into that table (ISO-VRF-LEAK judges whether they are another plane's)."""

    priority: int  # as given, or as the kernel numbered it
    source: int  # `from` network (0 with length 0: every source)
    source_len: int
    iif: str | None  # `iif PORT` (`lo`: the switch's own packets)
    invert: bool  # `not`
    vrf: str  # the VRF whose table the rule looks up
    line: int  # in the interfaces file


def static_kind(route: StaticRoute) -> str:
    """How a finding names a static route: by where it comes from."""
    return "kernel route (a command of the interfaces file)" if route.kernel else "static route"


@dataclass(slots=True)
class AclEntry:
    """One entry of an IP access list: what it matches and what it does (first match wins; no
    match: the implicit deny at the end)."""

    action: str  # "permit" | "deny"
    protocol: str  # "ip" (any), "tcp", "udp", "icmp", or a protocol number as written
    source: tuple[int, int]  # (network, length); (0, 0): any
    destination: tuple[int, int]
    source_ports: tuple[tuple[int, int], ...] | None = None  # port ranges (TCP/UDP); None: any
    destination_ports: tuple[tuple[int, int], ...] | None = None
    line: int = 0


@dataclass(slots=True)
class Qos:
    dscp_to_tc: dict[int, int] = field(default_factory=dict)
    dscp_to_priority: dict[int, int] = field(default_factory=dict)
    trust: str | None = None  # what sets a packet's priority, device-wide ("dscp", "pcp"); None: per port
    # the priority of traffic no DSCP rule names (Cumulus traffic.port_default_priority); None: not said
    default_priority: int | None = None
    default_priority_line: int = 0
    # the DSCP a packet of traffic class T leaves with where the switch rewrites it (EOS `qos rewrite
    # dscp` with `qos map traffic-class T to dscp D`); a class not listed: not rewritten, or by a
    # default map the model does not hold (its line reported)
    dscp_rewrite: dict[int, int] = field(default_factory=dict)
    dscp_rewrite_line: int = 0
    # a port that classifies by another DSCP map than the switch's (SONiC PORT_QOS_MAP naming another
    # DSCP_TO_TC_MAP): port -> (its DSCP -> traffic class, TC 0 left out as in dscp_to_tc; what it
    # names, for the finding)
    port_dscp_to_tc: dict[str, tuple[dict[int, int], str]] = field(default_factory=dict)
    # rate limits, in percent of the port, whatever the contention: port -> traffic class -> cap (key
    # None: the port's own limit, every class in it); EOS `shape rate N percent` under a tx-queue or
    # the port, SONiC a queue's scheduler `pir`. Kept per switch, not on Interface: a field there
    # costs every one of a million ports at 100k GPUs
    shape_percent: dict[str, dict[int | None, int]] = field(default_factory=dict)
    # what a DSCP the maps above leave out gets, where the platform has a default for every DSCP
    # (NVUE's default-global mapping: DSCP d to switch priority d >> 3, then its class): DSCP -> traffic
    # class, DSCP -> priority; None: a DSCP no line maps has no class the model knows
    default_dscp_to_tc: dict[int, int] | None = None
    default_dscp_to_priority: dict[int, int] | None = None
    # why the switch drops every lossless packet on every port, whatever pauses arrive (SONiC's PFC
    # watchdog in big-red-switch mode), and (file, line) of the statement; "": it does not
    lossless_dropped: str = ""
    lossless_dropped_at: tuple[str, int] = ("", 0)

    def tc_of(self, dscp: int) -> int | None:
        """The traffic class a DSCP lands in: the switch's map, else its platform's default."""
        tc = self.dscp_to_tc.get(dscp)
        if tc is None and self.default_dscp_to_tc is not None and dscp not in self.dscp_to_priority:
            return self.default_dscp_to_tc.get(dscp)
        return tc

    def priority_of(self, dscp: int) -> int | None:
        """The priority a DSCP is given: the switch's map, else its platform's default."""
        prio = self.dscp_to_priority.get(dscp)
        if prio is None and self.default_dscp_to_priority is not None:
            return self.default_dscp_to_priority.get(dscp)
        return prio


@dataclass(slots=True)
class ManagementUser:
    name: str
    role: str  # "admin" (full privilege) or anything else
    credential: bool  # a password (hash or secret reference) or an SSH key: the user can log in
    # logs in with no password at all (EOS `nopassword`): anyone reaching the management address is
    # this user; kept apart from ``credential`` so it never counts as a way in the plan meant
    passwordless: bool = False
    # its SSH public keys as "TYPE BASE64" (manifest.key_identity), each with the line naming it
    ssh_keys: dict[str, int] = field(default_factory=dict)


# what syslog is sent over where a line does not say (rsyslog's omfwd, EOS, SONiC and NVUE default
# alike), and what every renderer writes: the plan's collectors listen there
SYSLOG_TRANSPORT = ("udp", "514")


def syslog_transport_astray(transport: tuple[str, str]) -> str | None:
    """How a syslog target's (protocol, port) misses the plan's, as MGMT-SERVICES says it; None: it does not."""
    return None if transport == SYSLOG_TRANSPORT else f"sent over {'/'.join(transport)}, not {'/'.join(SYSLOG_TRANSPORT)}"


SSH_PORT = 22  # where sshd listens unless told otherwise, and where deploy and operators connect


@dataclass(slots=True)
class ManagementConfig:
    """The way in: kept apart from the fabric's interfaces and VRFs (it is in no plane, and the
    fabric's QoS, MTU and isolation rules do not apply to it)."""

    vrf: str | None = None
    interfaces: dict[str, Interface] = field(default_factory=dict)
    default_gateway: str | None = None  # the management VRF's default route
    # the management VRF's other static routes (EOS): one more specific than the management
    # subnet that holds the gateway takes the default route's next hop away (MGMT-ROUTE)
    routes: list[StaticRoute] = field(default_factory=list)
    ssh: bool | None = None  # SSH served in the management VRF; None: not said (the platform's default)
    api: bool | None = None  # the platform's API served in the management VRF
    # the TCP port the SSH server listens on (EOS `server-port`, SONiC SSH_SERVER ports): deploy
    # (netmiko) and operators connect to SSH_PORT
    ssh_port: int = SSH_PORT
    api_https: bool = True  # EOS eAPI over HTTPS (`no protocol https`: clients of the API get no answer)
    # the TCP port the platform's API listens on unless its file says another (EOS eAPI 443, SONiC
    # gNMI 8080): automation connects there; 0: the parser knows none (DeviceConfig.api_port is kept)
    api_default_port: int = 0
    api_port: int = 0  # the port the file gives the API (EOS `protocol https port N`, SONiC GNMI|gnmi port); 0: not said
    users: list[ManagementUser] = field(default_factory=list)
    users_in_file: bool = False  # the platform's config carries the local users (EOS); else the OS keeps them
    services_in_file: bool = False  # the rendered files carry NTP, syslog and DNS (EOS; Cumulus's service files)
    ntp: list[str] = field(default_factory=list)
    syslog: list[str] = field(default_factory=list)
    dns: list[str] = field(default_factory=list)
    # a resolv.conf line glibc's res_init never finishes reading (its `sortlist` parser loops on a
    # character it neither takes nor skips, measured on Debian 12's glibc 2.36): every name lookup
    # on the switch hangs; (file, line, why), for MGMT-SERVICES
    resolver_hangs: tuple[str, int, str] | None = None
    # service lines that name a server but do not reach it as planned (another VRF, or a syslog
    # transport other than the renderer's UDP 514): (file, line, server, how), for MGMT-SERVICES
    astray: list[tuple[str, int, str, str]] = field(default_factory=list)
    lldp: bool | None = None
    # fabric ports whose LLDP is off in a direction (EOS `no lldp transmit|receive`): (port,
    # direction) -> (the line's text, its line); LLDP otherwise runs on every port when it runs
    lldp_ports_off: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    # TACACS+ servers the file points at in the management VRF; None: the file keeps no TACACS+
    # configuration (the platform's OS does, or the platform has none)
    tacacs: list[str] | None = None
    # whether the TACACS+ client is given a shared key (None: the file keeps no TACACS+ configuration
    # or does not say); without one it sends its requests unencrypted, which a keyed server refuses
    tacacs_key: bool | None = None
    # where each server the file points at is named: (kind, server) -> (file, line); kind is "NTP",
    # "syslog", "DNS" or "TACACS+" (MGMT-SERVICES and MGMT-AAA name an unplanned server's line)
    located: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    # whether a local user still logs in when no TACACS+ server answers (EOS `aaa authentication
    # login default` and `aaa authorization exec default` with `local`, SONiC AAA login with local);
    # None: the file does not say (the platform's default: local accounts)
    login_local: bool | None = None
    login_methods: str = ""  # the line (or setting) that decides it, for the finding
    # credentials written as a value instead of the renderer's ``${secret:NAME}`` (a user's password
    # or hash, a TACACS+/RADIUS key, an SNMP community): (file, line, what)
    literal_secrets: list[tuple[str, int, str]] = field(default_factory=list)


def leak_instance(vrf: str) -> str | None:
    """The BGP instance (DeviceConfig.bgp's key) of a VRF named in DeviceConfig.vrf_route_leaks:
    the leaks name the default VRF "default", the instances None."""
    return None if vrf == "default" else vrf


@dataclass(slots=True)
class DeviceConfig:
    name: str
    platform: str
    hostname: str = ""
    # every statement that names the device, base and routing parts alike: (name, file, line)
    names: list[tuple[str, str, int]] = field(default_factory=list)
    interfaces: dict[str, Interface] = field(default_factory=dict)
    vrfs: dict[str, int | None] = field(default_factory=dict)  # name -> table
    bgp: dict[str | None, BgpInstance] = field(default_factory=dict)
    prefix_lists: dict[str, list[PrefixListEntry]] = field(default_factory=dict)
    route_maps: dict[str, list[RouteMapEntry]] = field(default_factory=dict)
    static_routes: list[StaticRoute] = field(default_factory=list)
    # a base part's kernel routes (StaticRoute.kernel): joined to the routing part's static routes
    # when the two parts are put together (parsers.add_routing)
    kernel_routes: list[StaticRoute] = field(default_factory=list)
    # a Cumulus switch's `ip rule add ... blackhole|prohibit|unreachable` commands, as the kernel
    # numbers them (platforms/cumulus/kernel_routes.kernel_rules): the switch's own traffic they
    # match goes nowhere (switchd programs no rule: the ASIC's forwarding is not theirs)
    kernel_rules: list[KernelRule] = field(default_factory=list)
    # its `ip rule add ... lookup T` commands for a VRF's table T (kernel_routes._lookup_rules):
    # still reported as not modelled (where the looked-up routes send what they take is not
    # followed); ISO-VRF-LEAK holds them to the VRF's plane
    kernel_lookups: list[KernelLookup] = field(default_factory=list)
    qos: Qos = field(default_factory=Qos)
    management: ManagementConfig = field(default_factory=ManagementConfig)
    vrf_route_leaks: list[tuple[str, str]] = field(default_factory=list)  # (from vrf, into vrf)
    # EOS `router general` / `vrf V` / `leak routes source-vrf S subscribe-policy NAME`: the route-map
    # a leak's routes pass ((S, V) -> (NAME, line); only maps the file defines, see finish_bgp)
    vrf_leak_maps: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    # routing lines the parser does not model (line number in routing_file, text): verify says what
    # it cannot judge
    unmodelled: list[tuple[int, str]] = field(default_factory=list)
    # routing-file lines the routing daemon's own reader refuses whatever node they stand in (FRR: an
    # abbreviation of more than one command): (line, statement, why); the load fails on them
    refused_lines: list[tuple[int, str, str]] = field(default_factory=list)
    routing_file: str = ""  # the file the routing statements' line numbers refer to
    # lines of the base files (interfaces, qos_features.conf) the model does not understand:
    # (file, line number, text)
    base_unmodelled: list[tuple[str, int, str]] = field(default_factory=list)
    # ports made members of a LAG (EOS channel-group, ifupdown2 bond-slaves): port -> (the LAG's
    # interface, the file and line that make it a member); parsers.link.take_lag_members decides
    lag_members: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    # routing instances (None: the default VRF) whose IP routing is off (EOS without `ip routing`):
    # their sessions come up with nothing and nothing is forwarded
    routing_off: list[str | None] = field(default_factory=list)
    frr_defaults: str = ""  # FRR `frr defaults PROFILE` (datacenter, traditional); "" elsewhere
    # switch ports whose configuration sets no MTU, so they run the platform's default (Cumulus:
    # CUMULUS_PORT_MTU): port -> the file that sets none (QOS-MTU names it)
    default_mtu: dict[str, str] = field(default_factory=dict)
    # static routes zebra never installs (a gateway not on the port the route names): (route, why)
    inactive_statics: list[tuple[StaticRoute, str]] = field(default_factory=list)
    # FRR `no ip forwarding` in force: its line (empty: forwarding on; `ip forwarding` clears it).
    # zebra turns the kernel's IPv4 forwarding off (measured in the twin: net.ipv4.ip_forward 0):
    # BGP still runs and advertises paths through the switch, which drops what is not for itself
    forwarding_off: list[int] = field(default_factory=list)
    # FRR `ip nht resolve-via-default` (top level or in a `vrf` block): zebra may resolve a next hop
    # through the VRF's default route. VRF (None: default) -> its line (verify/nht.py judges it)
    nht_default: dict[str | None, int] = field(default_factory=dict)
    # FRR zebra's `ip router-id A` (top level, `... vrf V`, or in a `vrf` block): the router ID a
    # BGP instance of that VRF without its own `bgp router-id` takes. VRF (None: default) -> A
    zebra_router_ids: dict[str | None, str] = field(default_factory=dict)
    # FRR `ip protocol bgp|any route-map NAME` (top level or in a `vrf` block): zebra installs in the
    # kernel only the BGP routes the route-map permits. VRF (None: default) -> (route-map, line)
    fib_filters: dict[str | None, tuple[str, int]] = field(default_factory=dict)
    # IP access lists (EOS `ip access-list NAME`): name -> entries; None: an entry the model does
    # not read (the list cannot be judged, and is reported)
    acls: dict[str, list[AclEntry] | None] = field(default_factory=dict)
    # where they apply to arriving packets: port -> (list, line); the packets for the switch itself
    # (EOS `system control-plane` `ip access-group NAME [vrf V] in`): VRF (None: default) -> (list, line)
    acl_in: dict[str, tuple[str, int]] = field(default_factory=dict)
    acl_out: dict[str, tuple[str, int]] = field(default_factory=dict)  # (EOS `ip access-group NAME out`)
    control_plane_acls: dict[str | None, tuple[str, int]] = field(default_factory=dict)
    # a service's own list, on top of the control plane's (EOS `management ssh` `ip access-group
    # NAME [vrf V] in`): (service "ssh", VRF) -> (list, line)
    service_acls: dict[tuple[str, str | None], tuple[str, int]] = field(default_factory=dict)
    acl_file: str = ""  # the file the access lists' lines are in ("": the routing file; SONiC: config_db.json)
    api_port: int = 443  # the TCP port of the API served in the management VRF (EOS eAPI; SONiC gNMI 8080)
    # references the device's config cannot resolve at load time: (line, "peer-group NAME")
    undefined_refs: list[tuple[int, str]] = field(default_factory=list)
    # the community and AS-path lists the config defines: (kind, name) -> the line of its first
    # entry; kind "community" or "as-path" (what is read of their entries: community_lists,
    # as_path_lists; a route-map's match on a list not here matches nothing)
    match_list_names: dict[tuple[str, str], int] = field(default_factory=dict)
    # FRR's IPv4 access lists as route filters (`access-list NAME [seq N] permit|deny ...`), each
    # entry written as the prefix-list entries that match the routes it matches, in order; a list
    # with an entry that is not read (an extended entry, a wildcard that is not a prefix) is in
    # ``access_lists_unread`` and not evaluated. A route-map's `match ip address NAME` and a
    # neighbor's `distribute-list NAME in|out` on a list read here are evaluated as prefix-list
    # ``access-list NAME`` (a name no prefix-list can have: it holds a space)
    access_lists: dict[str, list[PrefixListEntry]] = field(default_factory=dict)
    access_lists_unread: set[str] = field(default_factory=set)
    # FRR's community-lists read whole (`bgp community-list standard|expanded NAME [seq N] permit|deny
    # ...`, the numbered forms): each entry as (seq, action, the regular expression of an expanded
    # entry or None for a standard one); a list with an entry not read is in ``community_lists_unread``
    community_lists: dict[str, list[tuple[int, str, str | None]]] = field(default_factory=dict)
    community_lists_unread: set[str] = field(default_factory=set)
    # FRR's AS-path access lists read whole (`bgp as-path access-list NAME [seq N] permit|deny
    # REGEX`; the older `ip as-path access-list` form is not read): each entry as (seq, action, the
    # expression as written); a list with an entry not read is in ``as_path_lists_unread`` (not
    # evaluated)
    as_path_lists: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)
    as_path_lists_unread: set[str] = field(default_factory=set)


@dataclass(slots=True)
class ServerRoute:
    prefix: str  # "default" or a prefix
    via: str | None
    dev: str | None
    table: int | None
    metric: int = 0  # `metric N` (the kernel's route priority: the lower wins among equal prefixes)
    # `ip route add|replace|append|delete`: add fails where the same route exists; delete takes out
    # the prefix's first route of at least that metric and, when given, that gateway and port
    verb: str = "replace"
    onlink: bool = False  # the gateway is taken as on-link whatever the port's subnets
    port: str | None = None  # the stanza whose bring-up installs it (None: after every stanza)
    src: str | None = None  # `src A`: the source an unbound socket takes (A must be local by then)
    # "unicast", or a route that forwards nothing: "blackhole" (drops), "unreachable", "prohibit"
    # (the sender gets an error); a lookup that ends on one goes no further (no other rule is tried)
    kind: str = "unicast"
    # a multipath route (`nexthop via A [dev X] [weight W] [onlink] nexthop ...`): each hop as
    # (gateway, port, onlink); ``via`` and ``dev`` are None then. The kernel installs it only when
    # every hop resolves, and hashes each flow onto one of them
    hops: tuple[tuple[str | None, str | None, bool], ...] = ()
    order: int = 0  # the command's place among the file's rules and routes, as ifupdown2 runs them


@dataclass(slots=True)
class ServerRule:
    source: str  # the source address (without its length)
    table: int
    priority: int | None = None  # `priority N`; None: the kernel numbers it (below the previous one)
    source_len: int = 32  # `from A.B.C.D/N`: the source prefix length
    destination: str | None = None  # `to A.B.C.D[/N]`: only packets to it (None: to anywhere)
    # `iif PORT` (`dev PORT`): only packets arriving on PORT; the server's own traffic counts as
    # arriving on `lo`. None: any
    iif: str | None = None
    invert: bool = False  # `not`: the rule takes what its selectors do not match
    # `fwmark MARK[/MASK]`: (mark, mask as the kernel keeps it: the given one, else all bits for a
    # mark other than 0 and none for 0); None: no fwmark selector
    fwmark: tuple[int, int] | None = None
    # `ip rule del ...`: takes out the first rule (in priority order) that every selector given
    # matches (a table of 0 and a source of length 0 match any; no priority: any)
    delete: bool = False
    # "lookup" (in ``table``), or the rule's type when it is one of REJECT_KINDS (`ip rule add from A
    # unreachable`): a packet the rule matches goes nowhere (``table`` 0)
    action: str = "lookup"
    order: int = 0  # the command's place among the file's rules and routes, as ifupdown2 runs them


@dataclass(slots=True)
class NicQosPort:
    """One NIC port's line of the plan in nic-qos.sh: ``port IF RDMA key=value...``."""

    ifname: str
    rdma_device: str
    settings: dict[str, str]  # mtu, trust, pfc, ecn, cnp_dscp, cnp_prio, roce_tos (as written)
    line: int


@dataclass(slots=True)
class TopologyNet:
    """One ``<net>`` of the NCCL topology file: an RDMA device and where the file puts it."""
    name: str
    numa: int | None  # the <cpu numaid> it is under (None: under none)
    nic_busid: str
    line: int
    bridge: str = ""  # the <pci> above the NIC's (its PCIe switch)
    # the attributes NCCL takes from the file over what it detects (None: not written, detected)
    dev: str | None = None
    port: str | None = None
    speed: str | None = None
    gdr: str | None = None
    link_speed: str | None = None  # its NIC's <pci> link_speed and link_width (None: not written)
    link_width: str | None = None


@dataclass(slots=True)
class HostTopology:
    """nccl-topo.xml as NCCL reads it: the GPUs (class 0x03xxxx) and nets, each with its socket."""
    error: str = ""  # the file does not parse (NCCL refuses it and the job fails at init)
    gpus: dict[str, int | None] = field(default_factory=dict)  # bus id -> numaid of its <cpu>
    gpu_bridges: dict[str, str] = field(default_factory=dict)  # bus id -> the <pci> above it
    nets: list[TopologyNet] = field(default_factory=list)


@dataclass(slots=True)
class ServerConfig:
    name: str
    interfaces: dict[str, Interface] = field(default_factory=dict)
    routes: list[ServerRoute] = field(default_factory=list)
    rules: list[ServerRule] = field(default_factory=list)
    # an address a post-up command of a later stanza added to a port: (port, address) -> that stanza
    # (its connected subnet enters the main table when that stanza comes up, not with the port)
    added_later: dict[tuple[str, str], str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)  # nccl.env: variable -> value, as a shell sets it
    sysctl: dict[str, str] = field(default_factory=dict)  # sysctl.conf: key -> value (the last one wins)
    # lines of those files this model does not understand: (file, line number, text)
    unmodelled: list[tuple[str, int, str]] = field(default_factory=list)
    nic_qos: dict[str, NicQosPort] = field(default_factory=dict)  # nic-qos.sh's plan: ifname -> its line
    # files a shell reads (nccl.env, nic-qos.sh) with a carriage return: (file, its first line with one)
    carriage_returns: list[tuple[str, int]] = field(default_factory=list)
    # nic-qos.sh's code outside the plan (line number, text; comments and blank lines left out):
    # the program every server runs, compared with the one dualrail ships (HOST-NIC-QOS-PROGRAM)
    nic_qos_program: list[tuple[int, str]] = field(default_factory=list)
    nic_qos_file: bool = False  # the server has a nic-qos.sh at all
    # an `exit` among the plan's lines (line, text): the shell stops there, the lines below never run
    nic_qos_exit: tuple[int, str] | None = None
    # dualrail-nic-qos.service: "Section.Key" -> value (None: no unit file)
    nic_qos_unit: dict[str, str] | None = None
    topology: HostTopology | None = None  # nccl-topo.xml (None: the server has none)
    # NIC ports whose stanza sets no MTU: they run ifupdown2's default (parsers.IFUPDOWN2_DEFAULT_MTU)
    default_mtu: set[str] = field(default_factory=set)
    # (file, variable or key) -> the line that last set it, for nccl.env and sysctl.conf
    line_of: dict[tuple[str, str], int] = field(default_factory=dict)
