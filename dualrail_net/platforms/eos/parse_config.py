"""Arista EOS running-config -> DeviceConfig (one file: interfaces, QoS and routing).

EOS's own semantics where they change what the device does: an Ethernet port is a switchport (no IP)
until `no switchport` (an address set before it is kept, with "IP configuration will be ignored while
interface ... is not a routed port", and used once the port is routed: the block's order does not
matter); `shutdown` takes a port down; a repeated `interface` block adds to the first and a second
`ip address` replaces the first (unless `secondary`); without `ip routing` (per VRF:
`ip routing vrf NAME`) nothing is routed; BGP's default maximum-paths is the platform's
(``Eos.default_maximum_paths``). Every line neither modelled nor known not to matter is reported in
``unmodelled`` with its line number; nothing in a line makes the parser raise.
"""

from __future__ import annotations

import bisect
import re
import threading
from dataclasses import dataclass, field, fields
from pathlib import Path

from dualrail_net.platforms.eos import Eos
from dualrail_net.platforms.eos.keywords import renested, spell_out, spelled_as_written, strays
from dualrail_net.platforms.eos.names import interface_names
from dualrail_net.secretref import is_reference
from dualrail_net.verify.ipfast import network_of
from dualrail_net.verify.model import (
    SSH_PORT,
    SYSLOG_TRANSPORT,
    AclEntry,
    BgpInstance,
    DeviceConfig,
    EcnProfile,
    Interface,
    ListenPeers,
    ManagementUser,
    StaticRoute,
    UNTRUSTED,
    syslog_transport_astray,
)
from dualrail_net.verify.parsers import link
from dualrail_net.verify.parsers.files import is_decimal, options_known, read_text
from dualrail_net.verify.parsers.frr import (
    _int,
    aggregate_line,
    add_prefix_list_entry,
    clear_list_indexes,
    compact_route_maps,
    compact_statics,
    bgp_negation,
    eos_as_path_list_line,
    bgp_timers,
    finish_bgp,
    listen_range_overlapping,
    listen_range_span,
    list_line_read,
    match_list_definition,
    missing_policy_line,
    missing_policy_set,
    is_ip,
    is_prefix,
    neighbor_statement,
    network_statement,
    parse_asn,
    prefix_at,
    parse_prefix_list_line,
    redistribution,
    route_map_entry,
    take_back_statics,
    undo_top_level,
)
from dualrail_net.verify.parsers.tree import Node, parse_tree

UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1000 * 1000}
FILE = "running-config"

# top-level lines with nothing for the model: they neither route nor change QoS or addressing
# (`model multi-agent` only: the reading of BGP here follows the multi-agent model, which the
# rendered file sets; `model ribd` is another routing agent, reported. `no ipv6 routing` is EOS's
# default: the model is IPv4 and the fabric's sessions are IPv4 over numbered ports)
KNOWN_TOP_LEVEL = ("service routing protocols model multi-agent", "no ipv6 routing", "end", "transceiver qsfp default-mode",
                   "spanning-tree mode", "no aaa root", "no spanning-tree", "aaa group server", "aaa authentication",
                   "aaa accounting", "tacacs-server host", "radius-server host", "snmp-server",
                   "management api gnmi", "logging buffered", "logging console", "logging monitor", "logging trap",
                   "logging format", "clock timezone", "banner login", "banner motd", "ip domain-name",
                   "dns domain", "lldp timer", "lldp holdtime", "service unsupported-transceiver", "alias ",
                   "prompt ", "errdisable recovery", "queue-monitor length", "hardware counter feature ")
# interface lines with nothing for the model
# the harmless top-level lines that open a block of harmless lines (an AAA group of another
# protocol, gNMI's transport): read whole, not said line by line (_say_unread)
HARMLESS_BLOCKS = ("management api gnmi", "aaa group server")
KNOWN_INTERFACE = ("no shutdown", "load-interval", "no lldp", "lldp ", "link-debounce", "logging event")


def _ecn_profile(words: list[str]) -> EcnProfile | None:
    """`random-detect ecn minimum-threshold N UNIT maximum-threshold N UNIT [max-mark-probability P]
    [weight W]` as EOS takes it; None for any other shape (a word out of place, a threshold in time
    or segments, which the model does not convert): EOS refuses such a line, and the queue keeps no
    ECN marking from it (reported as not modelled)."""
    if len(words) < 8 or words[2] != "minimum-threshold" or words[5] != "maximum-threshold" \
            or words[4] not in UNITS or words[7] not in UNITS:
        return None
    options = words[8:]
    keys = options[::2]
    if len(options) % 2 or len(set(keys)) != len(keys) or not set(keys) <= {"max-mark-probability", "weight"}:
        return None
    values = dict(zip(keys, options[1::2]))
    low, high = _int(words[3], 1 << 40), _int(words[6], 1 << 40)
    prob = _int(values.get("max-mark-probability", "100"), 100)
    if low is None or high is None or not prob or "weight" in values and _int(values["weight"], 15) is None:
        return None
    return EcnProfile(low * UNITS[words[4]], high * UNITS[words[7]], prob)


def _tx_queue(node: Node, iface: Interface, dev: DeviceConfig) -> None:
    tc = _int(node.words[1], 7) if len(node.words) == 2 else None
    if tc is None:
        _unmodelled(dev, node)
        return
    for q in _children(node):
        qw = q.words
        if qw[:2] == ["random-detect", "ecn"] and len(qw) > 2 and qw[2] == "minimum-threshold":
            profile = _ecn_profile(qw)
            if profile is None:
                _unmodelled(dev, q)
                continue
            iface.ecn = iface.ecn or {}
            iface.ecn[tc] = profile
        elif qw == ["priority", "strict"]:
            iface.strict_tcs = sorted(set(iface.strict_tcs + [tc]))
        elif qw[:2] == ["bandwidth", "percent"] and len(qw) == 3 and (share := _int(qw[2], 100)) is not None:
            iface.dwrr_share = {**(iface.dwrr_share or {}), tc: share}
        elif qw[:2] == ["shape", "rate"] and len(qw) == 4 and qw[3] == "percent" \
                and (cap := _int(qw[2], 100)) is not None:
            dev.qos.shape_percent.setdefault(iface.name, {})[tc] = cap  # (a rate in bits: reported, not read)
        elif qw[0] in ("no", "default") and _queue_default(dev, iface, tc, qw[1:]):
            pass
        else:
            _unmodelled(dev, q)


def _queue_default(dev: DeviceConfig, iface: Interface, tc: int, w: list[str]) -> bool:
    """`no|default X` in a `tx-queue` block (``w``: X): the queue's setting back to EOS's default
    (no ECN marking, round-robin with no share given); `no tx-queue N` (``w`` empty) all of them.
    False for a setting the model does not read."""
    every = not w
    ecn, strict, share = every or w[:2] == ["random-detect", "ecn"], every or w[:1] == ["priority"], \
        every or w[:1] == ["bandwidth"]
    shape = every or w[:2] == ["shape", "rate"] or w == ["shape"]
    if shape:
        dev.qos.shape_percent.get(iface.name, {}).pop(tc, None)
    if ecn and iface.ecn is not None:
        iface.ecn = {q: profile for q, profile in iface.ecn.items() if q != tc} or None
    if strict:
        iface.strict_tcs = [q for q in iface.strict_tcs if q != tc]
    if share and iface.dwrr_share is not None:
        iface.dwrr_share = {q: weight for q, weight in iface.dwrr_share.items() if q != tc} or None
    return ecn or strict or share or shape


def _harmless(node: Node, known: tuple[str, ...], mode: str) -> bool:
    """A line with nothing for the model: it begins with one of ``known`` and every keyword in it is
    written in full (a shortened one may be a command the model reads: `aaa authentication log`)."""
    return node.text.startswith(known) and spelled_as_written(node.words, mode)


def _terminattr(node: Node) -> bool:
    """`daemon TerminAttr` running Arista's own streaming agent (/usr/bin/TerminAttr), started or
    stopped: telemetry that reads state and changes none. A daemon block running anything else is
    a program verify cannot judge (reported)."""
    return node.words == ["daemon", "TerminAttr"] and all(
        child.words[:2] == ["exec", "/usr/bin/TerminAttr"] or child.words in (["no", "shutdown"], ["shutdown"])
        for child in _children(node))


def _unmodelled(dev: DeviceConfig, node: Node) -> None:
    dev.unmodelled.append((node.line, node.text))


class _Descended(threading.local):
    """The lines whose indented lines a reader read (by id), filled by _children during one
    _read_nodes; one per thread (the deploy drivers parse their devices concurrently)."""

    def __init__(self) -> None:
        self.ids: set[int] = set()


_DESCENDED = _Descended()


def _children(node: Node) -> list[Node]:
    """A line's indented lines, as a reader reads them (recorded: _say_unread)."""
    _DESCENDED.ids.add(id(node))
    return node.children


def _read_whole(node: Node) -> None:
    """A block taken as read, its lines and theirs (a loop: a hostile file nests thousands deep)."""
    pending = [node]
    while pending:
        block = pending.pop()
        pending.extend(child for child in _children(block) if child.children)


def _say_unread(nodes: list[Node], dev: DeviceConfig) -> None:
    """Every line indented under a line whose block no reader read (a line that opens no mode, such
    as a `neighbor` statement or `ip name-server`), said at its line: EOS ignores the indentation
    and takes such a line in the mode above (or refuses it), so reading nothing of it would pass
    a command in silence. The lines of a block reported whole (an unmodelled line) are not said
    again. (A loop: a hostile file nests thousands deep.)"""
    said = {line for line, _ in dev.unmodelled}
    # (node, whether a line above it was said already: then its block is part of that one)
    pending = [(node, node.line in said) for node in nodes if node.children]
    while pending:
        node, quiet = pending.pop()
        unread = id(node) not in _DESCENDED.ids and not quiet
        for child in node.children:
            if unread and child.line not in said:
                dev.unmodelled.append((child.line, f"indented under line {node.line} ({node.text[:40]}), which "
                                                   f"opens no block read here: EOS takes it in the mode above or "
                                                   f"refuses it, not judged: {child.text}"))
            if child.children:
                pending.append((child, quiet or unread or child.line in said))


# the port names EOS prints for the ports an access list matches
_NAMED_PORTS = {"bgp": 179, "ssh": 22, "telnet": 23, "www": 80, "https": 443, "domain": 53, "ntp": 123, "snmp": 161,
                "syslog": 514, "tacacs": 49, "bfd": 3784}
_PORT_OPS = ("eq", "neq", "gt", "lt", "range")


def _port_number(word: str) -> int | None:
    return _NAMED_PORTS.get(word, _int(word, 65535))


def _acl_address(words: list[str], i: int) -> tuple[tuple[int, int], int] | None:
    """(network, length) of `any`, `host A` or `A/len` at ``words[i]``, and the index after it."""
    if i >= len(words):
        return None
    if words[i] == "any":
        return (0, 0), i + 1
    if words[i] == "host" and i + 1 < len(words) and is_ip(words[i + 1]):
        return network_of(words[i + 1] + "/32"), i + 2
    if is_prefix(words[i]):
        return network_of(words[i]), i + 1
    return None


def _acl_ports(words: list[str], i: int) -> tuple[tuple[tuple[int, int], ...] | None, int] | None:
    """The port ranges of an operator at ``words[i]`` (none there: any port), and the index after."""
    if i >= len(words) or words[i] not in _PORT_OPS:
        return None, i
    op, args = words[i], list[int]()
    j = i + 1
    while j < len(words) and (op in ("eq", "neq") or len(args) < (2 if op == "range" else 1)) \
            and (port := _port_number(words[j])) is not None:
        args.append(port)
        j += 1
    if not args or (op == "range" and len(args) != 2) or (op in ("gt", "lt") and len(args) != 1):
        return None
    if op == "eq":
        return tuple((p, p) for p in args), j
    if op == "range":
        return ((args[0], args[1]),), j
    if op == "gt":
        return ((args[0] + 1, 65535),), j
    if op == "lt":
        return ((0, args[0] - 1),), j
    edges = sorted(set(args))  # neq: every port but these
    ranges, low = [], 0
    for port in edges:
        if port > low:
            ranges.append((low, port - 1))
        low = port + 1
    if low <= 65535:
        ranges.append((low, 65535))
    return tuple(ranges), j


def _acl_entry(words: list[str], line: int, standard: bool) -> AclEntry | None:
    """`[SEQ] permit|deny PROTO SRC [PORTS] DST [PORTS] [log]` (standard: `[SEQ] permit|deny SRC`)."""
    if words and words[0].isdigit():
        words = words[1:]
    if len(words) < 2 or words[0] not in ("permit", "deny"):
        return None
    if words[-1] == "log":
        words = words[:-1]
    if standard:
        src = _acl_address(words, 1)
        return AclEntry(words[0], "ip", src[0], (0, 0), line=line) if src and src[1] == len(words) else None
    proto = words[1]
    src = _acl_address(words, 2)
    if src is None:
        return None
    sports = _acl_ports(words, src[1]) if proto in ("tcp", "udp") else (None, src[1])
    if sports is None:
        return None
    dst = _acl_address(words, sports[1])
    if dst is None:
        return None
    dports = _acl_ports(words, dst[1]) if proto in ("tcp", "udp") else (None, dst[1])
    if dports is None or dports[1] != len(words):
        return None  # flags (established, fragments, ttl ...) or anything else: not read
    return AclEntry(words[0], proto, src[0], dst[0], sports[0], dports[0], line)


def _access_list(node: Node, dev: DeviceConfig, standard: bool) -> None:
    """An access list; one entry the model does not read makes the whole list unjudged (None) and
    is reported: a verdict over a list with holes would be a guess."""
    name = node.words[-1]
    entries: list[AclEntry] | None = []
    for child in _children(node):
        if child.words[0] in ("remark", "statistics", "counters") or child.words[1:2] == ["remark"]:
            continue
        entry = _acl_entry(child.words, child.line, standard)
        if entry is None:
            _unmodelled(dev, child)
            entries = None
        elif entries is not None:
            entries.append(entry)
    dev.acls[name] = entries


def _interface(node: Node, name: str, dev: DeviceConfig, routed: set[str], pfc_on: set[str],
               vrf_lines: list[tuple[str, int]]) -> None:
    iface = dev.interfaces.get(name)
    if iface is None:  # a repeated block adds to the first, as EOS merges it
        iface = dev.interfaces[name] = Interface(name, is_loopback=name.startswith("Loopback"))
    for child in _children(node):
        w = child.words
        if len(w) >= 4 and w[1] in ("address", "ip") and (w[0] == "ip" or w[0] == "no" and w[2] == "address"):
            w = prefix_at(w, w.index("address") + 1)  # (EOS takes an address and a netmask beside A.B.C.D/M)
        if w[:2] == ["ip", "address"] and len(w) >= 3 and is_prefix(w[2]):
            if w[3:] == ["secondary"]:
                iface.addresses.append(w[2])
            elif len(w) == 3:
                iface.addresses[:1] = [w[2]]  # the primary address: a second one replaces it
            else:
                _unmodelled(dev, child)
        elif w[0] == "mtu" and len(w) == 2 and (mtu := _int(w[1], 65535)) is not None:
            iface.mtu = mtu
        elif w[:2] == ["shape", "rate"] and len(w) == 4 and w[3] == "percent" and (cap := _int(w[2], 100)) is not None:
            dev.qos.shape_percent.setdefault(name, {})[None] = cap  # (a rate in bits: reported, not read)
        elif w[0] == "vrf" and len(w) in (2, 3) and (len(w) == 2 or w[1] == "forwarding"):
            _vrf_changed(iface, w[-1], child, dev)
            vrf_lines.append((w[-1], child.line))
        elif w[0] == "description":
            iface.description = " ".join(w[1:])
        elif w == ["no", "switchport"]:
            routed.add(name)
        elif w == ["switchport"]:
            routed.discard(name)
        elif w == ["shutdown"]:
            iface.down = "shutdown"
        elif w == ["no", "shutdown"]:
            iface.down = ""
        elif w[:2] == ["qos", "trust"] and len(w) == 3:
            iface.trust = w[2]
        elif w[:3] == ["no", "qos", "trust"] and len(w) <= 4:
            # EOS writes a port that trusts nothing so (AVD's `trust: disabled`): every packet in
            # traffic class 0; `default qos trust` gives the port its default back (_interface_default)
            iface.trust = UNTRUSTED
        elif w == ["priority-flow-control", "on"] or w == ["priority-flow-control", "mode", "on"]:
            pfc_on.add(name)
        elif w == ["no", "priority-flow-control"]:
            pfc_on.discard(name)
        elif w[:2] == ["priority-flow-control", "priority"] and len(w) == 4 and w[3] == "no-drop" \
                and (prio := _int(w[2], 7)) is not None:
            iface.pfc_priorities = sorted(set((iface.pfc_priorities or []) + [prio]))
        elif w[:2] == ["priority-flow-control", "priority"] and w[3:] == ["drop"] \
                and _interface_default(iface, w[:3], dev, routed, pfc_on):
            pass  # the priority back to lossy, as `no priority-flow-control priority N`
        elif w[0] == "channel-group" and len(w) == 4 and is_decimal(w[1]) and w[2] == "mode" \
                and w[3] in ("active", "passive", "on"):
            dev.lag_members[name] = (f"Port-Channel{int(w[1])}", FILE, child.line)
        elif w[:2] == ["ip", "access-group"] and len(w) == 4 and w[3] in ("in", "out"):
            (dev.acl_in if w[3] == "in" else dev.acl_out)[name] = (w[2], child.line)
        elif w[0] in ("no", "default") and len(w) > 1 and _interface_default(iface, w[1:], dev, routed, pfc_on):
            pass
        elif w[0] == "tx-queue":
            _tx_queue(child, iface, dev)
        elif w in (["no", "lldp", "transmit"], ["no", "lldp", "receive"]):
            dev.management.lldp_ports_off[(name, w[-1])] = (child.text, child.line)
        elif w in (["lldp", "transmit"], ["lldp", "receive"], ["default", "lldp", "transmit"],
                   ["default", "lldp", "receive"]):
            dev.management.lldp_ports_off.pop((name, w[-1]), None)  # that direction back on
        elif w[0] == "speed" or w[:2] == ["error-correction", "encoding"] \
                or w[:3] == ["no", "error-correction", "encoding"]:
            if not _link_setting(iface, w, child.line):
                _unmodelled(dev, child)
        elif not _harmless(child, KNOWN_INTERFACE, "interface"):
            _unmodelled(dev, child)


def _vrf_changed(iface: Interface, vrf: str | None, node: Node | None, dev: DeviceConfig) -> None:
    """A port moved to ``vrf`` (None: the default VRF). EOS removes a port's addresses when its VRF
    changes, so an address set above the line is gone (said: the order of the lines decides)."""
    if vrf != iface.vrf and iface.addresses:
        if node is not None:
            dev.unmodelled.append((node.line, f"{node.text} (EOS removes the addresses set above it, "
                                              f"{', '.join(iface.addresses)}: the port changes VRF)"))
        iface.addresses = []
    iface.vrf = vrf


def _interface_default(iface: Interface, w: list[str], dev: DeviceConfig, routed: set[str], pfc_on: set[str]) -> bool:
    """`no X` / `default X` in an interface block (``w``: X): the setting back to EOS's default, as
    when the line is not there. False for a setting the model does not read."""
    name = iface.name
    if w[:2] == ["ip", "address"] and (len(w) == 2 or len(w) == 3 and is_prefix(w[2])):
        iface.addresses = [] if len(w) == 2 else [a for a in iface.addresses if a != w[2]]
    elif w[:2] == ["ip", "address"] and len(w) == 4 and is_prefix(w[2]) and w[3] == "secondary":
        # (a secondary only: the primary, first, stays whatever it is)
        iface.addresses = iface.addresses[:1] + [a for a in iface.addresses[1:] if a != w[2]]
    elif w == ["mtu"] or w[:1] == ["mtu"] and len(w) == 2:
        iface.mtu = None
    elif w == ["shape"] or w[:2] == ["shape", "rate"]:
        dev.qos.shape_percent.get(name, {}).pop(None, None)
    elif w[:2] == ["qos", "trust"] and len(w) <= 3:
        iface.trust = None  # (`default qos trust`; `no qos trust` is read above: untrusted)
    elif w[:2] == ["priority-flow-control", "priority"] and len(w) in (3, 4) and (prio := _int(w[2], 7)) is not None:
        if iface.pfc_priorities is not None:
            iface.pfc_priorities = [p for p in iface.pfc_priorities if p != prio] or None
    elif w[:1] == ["vrf"] and len(w) <= 3:
        _vrf_changed(iface, None, None, dev)
    elif w[:1] == ["description"]:
        iface.description = ""
    elif w[:2] == ["ip", "access-group"] and len(w) in (3, 4) and w[-1] in ("in", "out"):
        (dev.acl_in if w[-1] == "in" else dev.acl_out).pop(name, None)
    elif w[:1] == ["channel-group"]:
        dev.lag_members.pop(name, None)
    elif w == ["switchport"]:  # (`default switchport`: a switchport, EOS's default)
        routed.discard(name)
    elif w == ["priority-flow-control"] or w == ["priority-flow-control", "on"]:
        pfc_on.discard(name)
    elif w == ["shutdown"]:
        iface.down = ""  # (`default shutdown`: an interface is up unless shut)
    elif w[:1] == ["tx-queue"] and len(w) == 2 and (tc := _int(w[1], 7)) is not None:
        _queue_default(dev, iface, tc, [])
    else:
        return False
    return True


def _default_interface(dev: DeviceConfig, names: list[str], routed: set[str], pfc_on: set[str]) -> None:
    """`default interface X` (`no interface X` of a port): every setting of the port back to EOS's
    defaults (a switchport without an address), as if no earlier block had configured it."""
    for name in names:
        dev.interfaces.pop(name, None)
        routed.discard(name)
        pfc_on.discard(name)
        for table in (dev.acl_in, dev.acl_out, dev.lag_members):
            table.pop(name, None)
        dev.qos.shape_percent.pop(name, None)
        if name.startswith("Ethernet"):
            dev.interfaces[name] = Interface(name)  # (a physical port stays, unconfigured)


def _link_setting(iface: Interface, w: list[str], line: int) -> bool:
    """`speed [forced|auto] SPEED`, `speed auto`, `error-correction encoding reed-solomon|fire-code`,
    `no error-correction encoding`; False for a form not read."""
    try:
        if w[0] == "speed" and w[1:] == ["auto"]:
            link.set_link(iface, line, speed=None, negotiate=True, file=FILE)
        elif w[0] == "speed" and len(w) == 3 and w[1] in ("auto", "forced"):
            link.set_link(iface, line, speed=link.speed_mbps(w[2]), negotiate=w[1] == "auto", file=FILE)
        elif w[0] == "speed" and len(w) == 2:
            link.set_link(iface, line, speed=link.speed_mbps(w[1]), negotiate=False, file=FILE)
        elif w[0] == "error-correction" and len(w) == 3:
            link.set_link(iface, line, fec_mode=link.fec(w[2]), file=FILE)
        elif w[0] == "no" and len(w) == 3:
            link.set_link(iface, line, fec_mode="none", file=FILE)
        else:
            return False
    except link.Unreadable:
        return False
    return True


# `router bgp` statements that change no route the fabric holds: logging, graceful restart (a helper
# keeps routes through a peer's restart), the tie-break and ecmp-fast (which of several equal paths
# is "best": the multipath set is the same; FRR's compare-routerid is read alike), waiting for
# convergence after a restart before sending updates, and host routes written straight to the FIB
# (how routes reach the hardware, not which)
_HARMLESS_BGP = (["bgp", "log-neighbor-changes"], ["bgp", "bestpath", "tie-break", "router-id"],
                 ["bgp", "bestpath", "tie-break", "cluster-list-length"], ["graceful-restart"],
                 ["graceful-restart-helper"], ["bgp", "bestpath", "ecmp-fast"], ["update", "wait-for-convergence"],
                 ["bgp", "host-routes", "fib", "direct-install"], ["update", "wait-install"])


def _bgp_statements(inst: BgpInstance, children: list[Node], dev: DeviceConfig) -> None:
    # a neighbor's IPv4 setting under `address-family ipv4` (_AF_NEIGHBOR_VERBS): EOS applies the
    # address family's over the one the router level gives the neighbor, wherever the lines stand,
    # so these are applied once every other statement is read
    af_policies: list[Node] = []
    for child in children:
        w = child.words
        if w[0] == "router-id" and len(w) == 2 and is_ip(w[1]):
            inst.router_id = w[1]
        elif w[0] == "maximum-paths" and len(w) in (2, 4) and (paths := _int(w[1], 1024)) \
                and (len(w) == 2 or w[2] == "ecmp" and _int(w[3], 1024)):
            # `ecmp M` caps the next hops installed per route: the width is the smaller of the two
            installed = _int(w[3], 1024) if len(w) == 4 else None
            inst.maximum_paths, inst.maximum_paths_line = min(paths, installed or paths), child.line
        elif w == ["bgp", "bestpath", "as-path", "multipath-relax"]:
            inst.multipath_relax = True
        elif w == ["bgp", "always-compare-med"]:
            inst.always_compare_med = True
        elif w == ["bgp", "bestpath", "med", "missing-as-worst"]:
            inst.med_missing_as_worst_line = child.line
        elif w[:2] == ["distance", "bgp"] and len(w) in (3, 5) and None not in (ds := [_int(x, 255) for x in w[2:]]) \
                and 0 not in ds:
            # `distance bgp EXTERNAL [INTERNAL LOCAL]`: internal and local keep EOS's 200 when not said
            inst.distance = (ds[0] or 0, ds[1] or 0, ds[2] or 0) if len(ds) == 3 else (ds[0] or 0, 200, 200)
            inst.distance_line = child.line
        elif w[-3:] == ["bgp", "default", "ipv4-unicast"] and w[:-3] in ([], ["no"]):
            # instance-wide on EOS (not measured there): the last of the two forms decides
            inst.default_ipv4_unicast = w[0] != "no"
        elif w[:2] == ["graceful-restart", "restart-time"] and len(w) == 3 and _int(w[2], 3600) \
                or w[:2] == ["graceful-restart", "stalepath-time"] and len(w) == 3 and _int(w[2], 3600):
            pass  # (how long a restarting peer's routes are kept: nothing the steady state depends on)
        elif w[:2] == ["timers", "bgp"] and len(w) == 4 and (timers := bgp_timers(w[2], w[3])) is not None:
            # the hold time every neighbor without its own offers (EOS's default: 180 s)
            inst.timers, inst.timers_line = timers, child.line
        elif w in _HARMLESS_BGP:
            pass
        elif _instance_missing_policy(inst, w, child.line, af=False):
            pass
        elif w == ["shutdown"]:
            inst.shutdown_line = child.line
        elif w == ["no", "shutdown"]:
            inst.shutdown_line = 0
        elif w[:3] == ["bgp", "listen", "range"] and _listen_range(inst, w, child.line, dev):
            pass
        elif w[:3] == ["dynamic", "peer", "max"] and len(w) == 4 and (limit := _int(w[3], 1000)):
            inst.listen_limit, inst.listen_limit_line = limit, child.line
        elif w[:2] == ["neighbor", "default"]:  # the default of every neighbor, not a neighbor called so
            if w[2:3] != ["send-community"]:  # (communities sent: nothing the model follows further)
                _unmodelled(dev, child)
        elif w[0] == "neighbor" and len(w) >= 3 and neighbor_statement(inst, _eos_neighbor(w), child.line, eos=True):
            pass
        elif w[0] == "no" and len(w) > 1 and (_remote_as_removed(inst, w[1:])
                                              or bgp_negation(inst, _eos_neighbor(w[1:]), child.line, eos=True)):
            pass  # (`no neighbor X`, `no network P`, `no maximum-paths` ... take back an earlier line)
        elif w[0] == "default" and len(w) > 1 and _bgp_default(inst, w[1:], child.line):
            pass
        elif w[0] == "network" and network_statement(inst, w, child.line, eos=True):
            pass
        elif w[0] == "redistribute" and redistribution(inst, w, child.line):
            pass
        elif w[0] == "aggregate-address" and (agg := aggregate_line(w, child.line, frr=False)) is not None:
            inst.aggregates.append(agg)
        elif w[0] == "route-target" and len(w) >= 3 and w[1] in ("import", "export", "both"):
            targets = [x for x in w[2:] if ":" in x]
            if w[1] in ("import", "both"):
                inst.rt_import.extend(targets)
            if w[1] in ("export", "both"):
                inst.rt_export.extend(targets)
        elif w[0] == "rd":
            pass  # a route distinguisher decides nothing about which VRF gets which route
        elif w[:2] == ["address-family", "ipv4"] and len(w) == 2:
            for statement in _children(child):
                sw = statement.words
                if sw[0] == "neighbor" and len(sw) == 3 and sw[2] == "activate":
                    neighbor_statement(inst, sw, statement.line, eos=True)  # (bgpd's order rule is not EOS's)
                elif sw[:1] == ["no"] and sw[1:2] == ["neighbor"] and sw[3:] == ["activate"]:
                    neighbor_statement(inst, sw[1:], statement.line, negated=True, eos=True)
                elif sw[0] == "neighbor" and sw[2:3] == ["missing-policy"] \
                        and neighbor_statement(inst, sw, statement.line, eos=True, af=True):
                    pass
                elif sw[:1] == ["no"] and sw[2:4] == ["missing-policy"] and sw[1] == "neighbor" \
                        and neighbor_statement(inst, sw[1:], statement.line, negated=True, eos=True, af=True):
                    pass
                elif _instance_missing_policy(inst, sw, statement.line, af=True):
                    pass
                elif sw[0] == "network" and network_statement(inst, sw, statement.line, eos=True):
                    pass
                elif sw[0] == "neighbor" and len(sw) >= 3 and sw[2] in _AF_NEIGHBOR_VERBS:
                    af_policies.append(statement)
                else:
                    _unmodelled(dev, statement)
        else:
            _unmodelled(dev, child)
    for statement in af_policies:
        if not neighbor_statement(inst, statement.words, statement.line, eos=True):
            _unmodelled(dev, statement)


# the neighbor settings of `address-family ipv4` read as the router level's (neighbor_statement):
# route-map and prefix-list in or out, default-originate, weight, next-hop-unchanged
_AF_NEIGHBOR_VERBS = frozenset({"route-map", "prefix-list", "default-originate", "weight", "next-hop-unchanged"})


def _bgp_default(inst: BgpInstance, w: list[str], line: int) -> bool:
    """`default X` under `router bgp` (``w``: X): EOS's default for the setting. For most that is
    nothing configured, as `no X` (a neighbor, a network, `maximum-paths`, a neighbor's setting);
    multipath-relax and IPv4 unicast by default are on (`default X` turns them on, `no X` off).
    False where the model does not read it."""
    if w == ["bgp", "bestpath", "as-path", "multipath-relax"]:
        inst.multipath_relax = True
        return True
    if w == ["bgp", "default", "ipv4-unicast"]:
        inst.default_ipv4_unicast = True
        return True
    if w == ["shutdown"]:
        inst.shutdown_line = 0
        return True
    if w[:1] == ["neighbor"] and w[2:3] in (["activate"], ["send-community"], ["next-hop-self"]):
        return False  # (defaults that are not simply "unset" for a neighbor: reported)
    return _remote_as_removed(inst, w) or bgp_negation(inst, _eos_neighbor(w), line, eos=True)


def _remote_as_removed(inst: BgpInstance, w: list[str]) -> bool:
    """EOS `no|default neighbor X remote-as` (``w`` without the first word, no AS given): X keeps
    its other settings and brings up no session (the model drops it, as `no neighbor X`)."""
    if w[:1] == ["neighbor"] and w[2:] == ["remote-as"] and w[1] in inst.neighbors and w[1] not in inst.peer_groups:
        del inst.neighbors[w[1]]
        return True
    return False


def _instance_missing_policy(inst: BgpInstance, w: list[str], line: int, af: bool) -> bool:
    """`[no] bgp missing-policy ...` (MissingPolicy) under `router bgp` or (``af``) its
    `address-family ipv4`: False where the line is not that."""
    negated = w[:1] == ["no"]
    words = w[1:] if negated else w
    if words[:2] != ["bgp", "missing-policy"]:
        return False
    policy = missing_policy_line(words[2:], line, af, negated)
    if policy is None:
        return False
    inst.missing_policies = missing_policy_set(inst.missing_policies, policy, negated)
    return True


EOS_DYNAMIC_PEER_MAX = 1000  # EOS's default `dynamic peer max` (not measured)


def _listen_range(inst: BgpInstance, w: list[str], line: int, dev: DeviceConfig) -> bool:
    """EOS's `bgp listen range PREFIX peer-group|peer group G remote-as N|peer-filter F`: the range
    as FRR's dynamic neighbors read it (verify/dynamic.py), its peers' AS in ``listen_peers`` (a
    filter's entries are filled in once the file is read: _peer_filters). A range overlapping one
    already given is reported and not read (EOS's rule for it is not documented here)."""
    rest = w[3:]
    if len(rest) == 6 and rest[1] == "peer" and rest[2] == "group":
        rest = [rest[0], "peer-group", *rest[3:]]
    if len(rest) != 5 or rest[1] != "peer-group" or not is_prefix(rest[0]) or rest[3] not in ("remote-as", "peer-filter"):
        return False
    prefix, group, how, value = rest[0], rest[2], rest[3], rest[4]
    asn = parse_asn(value) if how == "remote-as" else None
    if how == "remote-as" and asn is None:
        return False
    start, end = listen_range_span(prefix)
    if (other := listen_range_overlapping(inst, start, end)) is not None:
        dev.unmodelled.append((line, f"{' '.join(w)}: overlaps the listen range {other[0]} (not judged)"))
        return True
    inst.listen_ranges[start] = (prefix, group, line, end)
    bisect.insort(inst.listen_starts, start)
    inst.listen_peers[start] = ListenPeers(asn=asn) if asn is not None else ListenPeers(filter=value)
    if not inst.listen_limit_line:
        inst.listen_limit = EOS_DYNAMIC_PEER_MAX
    return True


def _peer_filter(node: Node, dev: DeviceConfig, filters: dict[str, list[tuple[int, int, int, bool]]]) -> None:
    """`peer-filter NAME` with its `[SEQ] match as-range A[-B] result accept|reject` lines (a line
    without a sequence number takes the highest one's plus 10, the first 0, as Batfish numbers them;
    a number given twice: the later line)."""
    entries = filters.setdefault(node.words[1], [])
    for child in _children(node):
        cw = child.words
        seq = int(cw[0]) if cw and is_decimal(cw[0]) and len(cw[0]) <= 9 else None
        body = cw[1:] if seq is not None else cw
        if len(body) == 5 and body[:2] == ["match", "as-range"] and body[3] == "result" \
                and body[4] in ("accept", "reject"):
            low, _, high = body[2].partition("-")
            first, last = parse_asn(low), parse_asn(high or low)
            if first is not None and last is not None and first <= last:
                number = seq if seq is not None else (max(e[0] for e in entries) + 10 if entries else 0)
                entries[:] = [e for e in entries if e[0] != number]
                entries.append((number, first, last, body[4] == "accept"))
                continue
        _unmodelled(dev, child)


def _peer_filters(dev: DeviceConfig, filters: dict[str, list[tuple[int, int, int, bool]]]) -> None:
    """Every listen range's peer-filter filled in from the file's filters (one nobody defined: said)."""
    for inst in dev.bgp.values():
        for start, peers in list(inst.listen_peers.items()):
            if not peers.filter:
                continue
            entries = filters.get(peers.filter)
            if entries is None:
                dev.undefined_refs.append((inst.listen_ranges[start][2], f"peer-filter {peers.filter} (bgp listen "
                                                                         "range: no peer is taken)"))
            inst.listen_peers[start] = ListenPeers(filter=peers.filter, defined=entries is not None, accepts=tuple(
                (low, high, ok) for _, low, high, ok in sorted(entries or [])))


def _eos_neighbor(w: list[str]) -> list[str]:
    """EOS's `neighbor X peer group NAME` (two words) as FRR's `peer-group`, and its newer spelling
    of `neighbor X passive`, `transport connection-mode passive`."""
    if w[2:4] == ["peer", "group"]:
        return w[:2] + ["peer-group"] + w[4:]
    if w[2:] == ["transport", "connection-mode", "passive"]:
        return w[:2] + ["passive"]
    return w


_NULL0 = re.compile(r"n(u(ll?)?)?0", re.IGNORECASE)  # EOS completes `Null0` from a prefix, in any case


def _hop_word(word: str) -> str:
    """A static route's next-hop word as EOS takes it: `Null0` and interface names in canonical
    spelling (the CLI completes them in any case), an address as written."""
    if _NULL0.fullmatch(word):
        return "Null0"
    if word[:1].isalpha():
        names = interface_names(["interface", word])
        if names is not None and len(names) == 1:
            return names[0]
    return word


def _static(w: list[str], dev: DeviceConfig, node: Node) -> None:
    vrf, rest = _static_words(w)
    if len(rest) >= 2:
        rest = [rest[0], _hop_word(rest[1]), *rest[2:]]
    if len(rest) >= 2 and is_prefix(rest[0]) and (rest[1] == "Null0" or is_ip(rest[1]) or rest[1][:1].isalpha()):
        # (`ip route P PORT GATEWAY [DISTANCE]`: the distance after the gateway)
        at = 3 if rest[1][:1].isalpha() and len(rest) > 2 and is_ip(rest[2]) else 2
        distance = int(rest[at]) if len(rest) > at and is_decimal(rest[at]) and len(rest[at]) <= 3 else 1
        dev.static_routes.append(StaticRoute(vrf, rest[0], None if rest[1] == "Null0" else rest[1], None, distance,
                                             node.line))
    else:
        _unmodelled(dev, node)


def _static_words(w: list[str]) -> tuple[str | None, list[str]]:
    """`ip route [vrf V] DESTINATION ...`: the VRF and the words from the destination on (EOS takes
    the destination as A.B.C.D/M or as an address and a mask)."""
    vrf = None
    rest = w[2:]
    if rest[:1] == ["vrf"] and len(rest) > 1:
        vrf, rest = rest[1], rest[2:]
    return vrf, prefix_at(rest, 0)


def _static_taken_back(w: list[str], dev: DeviceConfig) -> bool:
    """`no ip route vrf V DESTINATION [NEXTHOP]` (``w`` without the `no`): that VRF's routes to the
    destination (through that next hop when named) taken back; False when it names none."""
    vrf, rest = _static_words(w)
    if not rest or not is_prefix(rest[0]):
        return False
    hop = None if len(rest) < 2 else None if (word := _hop_word(rest[1])) == "Null0" else word
    return take_back_statics(dev.static_routes, vrf, rest[0], lambda r: len(rest) < 2 or r.nexthop == hop)


def _router_bgp(node: Node, dev: DeviceConfig) -> None:
    asn = parse_asn(node.words[2]) if len(node.words) == 3 else None
    if asn is None:
        _unmodelled(dev, node)
        return
    running = next(iter(dev.bgp.values())).asn if dev.bgp else None
    if running is not None and running != asn:
        dev.unmodelled.append((node.line, f"{node.text} (BGP runs as AS {running} here: EOS refuses the block)"))
        return
    # a repeated block adds to the first, as EOS merges it. EOS relaxes multipath unless told not
    # to (Eos.relaxes_multipath; `no bgp bestpath as-path multipath-relax`), FRR does not
    default = dev.bgp.get(None) or BgpInstance(None, asn, line=node.line, multipath_relax=Eos.relaxes_multipath)
    _bgp_statements(default, [c for c in _children(node) if c.words[0] != "vrf"], dev)
    if default.neighbors or default.networks or default.router_id or default.shut_neighbors:
        dev.bgp[None] = default
    for child in _children(node):
        if child.words[0] == "vrf":
            if len(child.words) != 2:
                _unmodelled(dev, child)
                continue
            inst = dev.bgp.get(child.words[1])
            if inst is None:
                inst = dev.bgp[child.words[1]] = BgpInstance(child.words[1], asn, line=child.line,
                                                             multipath_relax=Eos.relaxes_multipath)
            _bgp_statements(inst, _children(child), dev)


# `banner login|motd`: the lines up to `EOF` are the banner's text, not commands (a banner line that
# reads like a command must not configure anything in the model)
_BANNER = re.compile(r"^banner (?:login|motd)[ \t]*\n(?:.*\n)*?EOF[ \t]*$", re.M)


def _banner_text_blanked(text: str) -> str:
    """``text`` with each banner's text lines (and its EOF) blank: the line numbers stay."""
    if "banner " not in text:
        return text
    return _BANNER.sub(lambda m: m.group(0).split("\n", 1)[0] + "\n" * m.group(0).count("\n"), text)


_EXIT = re.compile(r"^[ \t]*exit[ \t]*$", re.M | re.I)


def _exit_lines(text: str) -> list[int]:
    """The numbers of the lines that are `exit` (counted on from one to the next: linear)."""
    lines, line, at = [], 1, 0
    for match in _EXIT.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        lines.append(line)
    return lines


def parse_eos(text: str, dev: DeviceConfig) -> None:
    """``text`` into ``dev`` (as created: a name and a platform, nothing else). A file with a line
    not understood is read again with EOS's shortened keywords spelled out (keywords.py): each line
    spelled out is reported with both spellings, an ambiguous word (which EOS refuses) named."""
    clear_list_indexes()
    try:
        _parse_eos(text, dev)
    finally:
        clear_list_indexes()


def _parse_eos(text: str, dev: DeviceConfig) -> None:
    text = _banner_text_blanked(text)
    _read_nodes(parse_tree(text), dev)
    # EOS prints no `exit`; one written in leaves the mode it is in, whatever the indentation after
    # it says (the tree reader skips it): a file with one is read again by modes
    exits = _exit_lines(text) if "exit" in text else []
    if not dev.unmodelled and not exits:
        return
    nodes = parse_tree(text)
    moved = dict(renested(nodes, exits))
    notes = spell_out(nodes)
    if not notes and not moved:
        return
    if moved or any(note.spelled for note in notes):
        fresh = DeviceConfig(dev.name, dev.platform)
        for name in fields(DeviceConfig):
            setattr(dev, name.name, getattr(fresh, name.name))
        _read_nodes(nodes, dev)
    texts = text.split("\n")
    for line, holder in moved.items():  # (the block a line was read in, when its indentation says another)
        block = f"line {holder}'s block ({texts[holder - 1].strip()[:30]})" if holder else "the top level"
        dev.unmodelled.append((line, f"read in {block} (EOS's modes, not the indentation): {texts[line - 1].strip()}"))
    by_line = {note.line: note for note in notes}
    reported = set()
    for at, (line, text_read) in enumerate(dev.unmodelled):
        note = by_line.get(line)
        if note is None:
            continue
        reported.add(line)
        if note.spelled:
            dev.unmodelled[at] = (line, f"{note.said()}: {text_read}")
        else:
            dev.unmodelled[at] = (line, f"`{note.ambiguous_word}` could be {' or '.join(note.ambiguous)} "
                                        f"(EOS refuses an ambiguous word): {text_read}")
    for note in notes:
        if note.spelled and note.line not in reported:  # understood once spelled out: still said
            dev.unmodelled.append((note.line, f"{note.said()} (EOS's completion: spell it out): {note.written}"))
    dev.unmodelled.sort(key=lambda entry: entry[0])


# top-level commands whose `no` form this parser applies by taking the earlier lines back (others are
# read where their lines are: `no interface`, `no ip routing`, `no router bgp`, `no username` ...)
_TAKEN_BACK = (["ntp", "server"], ["logging"], ["tacacs-server", "host"], ["tacacs-server", "key"],
               ["aaa", "group", "server"], ["aaa", "authentication"], ["aaa", "authorization"],
               ["management", "ssh"], ["management", "api"])
# the commands whose key is an address followed by an optional `vrf V` (absent: the default VRF)
_VRF_KEYED = (["tacacs-server", "host"], ["logging", "host"])


_INDEXED_WORDS = 8  # a line is found by each of its first words' prefixes up to this many


def _negations_applied(nodes: list[Node], dev: DeviceConfig) -> list[Node]:
    """The top-level lines once each `no X` of a management, logging, AAA or QoS-map command has
    taken back the earlier lines it names, as EOS does when it reads the file line by line: every
    earlier line that begins with X (a server with its options, a block with its lines; a host of
    the default VRF is not one of another VRF), the servers `no ip name-server` names from their
    lists, the DSCP values of `no qos map dscp`; `no hostname` names the switch `localhost`. A `no`
    that names nothing configured above it stays (reported). Lines are found through an index of
    their leading words, each list pruned as it is read: linear on a hostile file of `no` lines."""
    if not any(node.words[0] in ("no", "default") for node in nodes):
        return nodes
    kept: list[Node] = []
    alive: list[bool] = []
    index: dict[tuple[str, ...], list[int]] = {}

    named_servers: dict[tuple[str, ...], list[int]] = {}  # (`ip name-server [vrf V]`, server) -> lines

    def keep(node: Node) -> None:
        for length in range(1, min(len(node.words), _INDEXED_WORDS) + 1):
            index.setdefault(tuple(node.words[:length]), []).append(len(kept))
        if node.words[:2] == ["ip", "name-server"]:
            head = node.words[:4] if node.words[2:3] == ["vrf"] else node.words[:2]
            for server in node.words[len(head):]:
                named_servers.setdefault((*head, server), []).append(len(kept))
        kept.append(node)
        alive.append(True)

    def lines_starting(words: list[str]) -> list[int]:
        key = tuple(words[:_INDEXED_WORDS])
        found = index[key] = [i for i in index.get(key, ()) if alive[i]]
        return [i for i in found if kept[i].words[:len(words)] == words]

    for node in nodes:
        w = node.words
        taken: list[int] = []
        if w[0] not in ("no", "default") or len(w) < 2:  # (`default X` of these: nothing configured)
            keep(node)
            continue
        if w[1:] == ["hostname"]:
            for i in lines_starting(["hostname"]):
                alive[i] = False
            dev.names.append(("localhost", FILE, node.line))  # (whether or not a name was set above)
            continue
        if w[1:3] == ["ip", "name-server"] and len(w) > 3:
            head = w[1:5] if w[3] == "vrf" else w[1:3]
            gone = set(w[1 + len(head):])
            for i in sorted({i for server in gone for i in named_servers.pop((*head, server), ()) if alive[i]}):
                listed = kept[i].words[len(head):]
                kept[i].words = head + [x for x in listed if x not in gone]
                alive[i] = len(kept[i].words) > len(head)  # (a list left empty: the line is gone)
                taken.append(i)
        elif w[1:4] == ["qos", "map", "dscp"] and "to" in w:
            gone = set(w[4:w.index("to")])
            for i in lines_starting(["qos", "map", "dscp"]):
                words = kept[i].words
                if "to" in words and gone & set(words[3:words.index("to")]):
                    at = words.index("to")
                    kept[i].words = words[:3] + [x for x in words[3:at] if x not in gone] + words[at:]
                    alive[i] = kept[i].words[3] != "to"
                    taken.append(i)
        elif any(w[1:1 + len(head)] == head for head in _TAKEN_BACK):
            named = w[1:]
            vrf_keyed = any(named[:len(head)] == head for head in _VRF_KEYED) and "vrf" not in named
            taken = [i for i in lines_starting(named) if not (vrf_keyed and "vrf" in kept[i].words[len(named):])]
            for i in taken:
                alive[i] = False
        else:
            keep(node)
            continue
        if not taken:
            keep(node)  # (it names nothing configured above it: reported)
    return [node for node, live in zip(kept, alive) if live]


def _read_nodes(nodes: list[Node], dev: DeviceConfig) -> None:
    _DESCENDED.ids.clear()
    dev.routing_file = FILE
    nodes = _negations_applied(nodes, dev)
    routed: set[str] = set()  # Ethernet ports with `no switchport`
    mgmt = _Mgmt()
    pfc_on: set[str] = set()  # ports with `priority-flow-control on`: their no-drop priorities pause
    # `qos map traffic-class T to tx-queue Q`: the queue a class leaves by (EOS: class N -> queue N unless
    # mapped); the model's dscp_to_tc is the egress queue (ECN and the scheduler are per queue), its
    # dscp_to_priority the class (PFC pauses a priority)
    tc_to_queue: dict[int, int] = {}
    tc_to_dscp: dict[int, int] = {}  # `qos map traffic-class T to dscp D`: what `qos rewrite dscp` writes
    rewrite: Node | None = None  # the `qos rewrite dscp` line in force
    # `qos map traffic-class T.. to tx-queue|dscp V`: the map each fills, and V's largest value
    class_maps = {"tx-queue": (tc_to_queue, 7), "dscp": (tc_to_dscp, 63)}
    routing_on: set[str | None] = set()
    vrf_lines: list[tuple[str, int]] = []  # (VRF, line) of each port's `vrf` line
    peer_filters: dict[str, list[tuple[int, int, int, bool]]] = {}  # name -> (seq, first AS, last AS, accept)
    for node in nodes:
        w = node.words
        if w[0] == "hostname" and len(w) == 2:
            dev.hostname = w[1]
            dev.names.append((w[1], FILE, node.line))
        elif w[:3] == ["qos", "map", "dscp"] and "to" in w and w[-2:-1] == ["traffic-class"] \
                and (tc := _int(w[-1], 7)) is not None \
                and all(_int(x, 63) is not None for x in w[3:w.index("to")]):
            for dscp in w[3:w.index("to")]:
                dev.qos.dscp_to_tc[int(dscp)] = tc
                dev.qos.dscp_to_priority[int(dscp)] = tc  # EOS: traffic class N <-> priority N by default
        elif w[:3] == ["qos", "map", "traffic-class"] and len(w) > 6 and (target := class_maps.get(w[-2])) \
                and "to" in w and w.index("to") == len(w) - 3 and (value := _int(w[-1], target[1])) is not None \
                and all(_int(x, 7) is not None for x in w[3:-3]):
            for klass in w[3:-3]:
                target[0][int(klass)] = value
        elif w == ["qos", "rewrite", "dscp"]:
            rewrite = node
        elif w[0] in ("no", "default") and w[1:] == ["qos", "rewrite", "dscp"]:
            rewrite = None
        elif w[:2] in (["vrf", "instance"], ["vrf", "definition"]) and len(w) == 3:  # (definition: before 4.23)
            dev.vrfs.setdefault(w[2], None)
        elif w[0] in ("default", "no") and w[1:2] == ["interface"] and (names := interface_names(w[1:])) is not None:
            _default_interface(dev, names, routed, pfc_on)
        elif w[0] in ("no", "default") and w[1:3] == ["ip", "route"] and _static_taken_back(w[1:], dev):
            pass
        elif w[0] in ("no", "default") and len(w) > 1 and undo_top_level(dev, w[1:], None):
            # (a static route, prefix-list, route-map or BGP instance taken back; `default X` is
            # `no X` where EOS's default is that nothing is configured)
            pass
        elif w[0] == "interface" and (names := interface_names(w)) is not None:
            for name in names:  # (a range or list: each port takes the block)
                _interface(node, name, dev, routed, pfc_on, vrf_lines)
        elif w == ["ip", "routing"]:
            routing_on.add(None)
        elif w[:3] == ["ip", "routing", "vrf"] and len(w) == 4:
            routing_on.add(w[3])
        elif w[0] in ("no", "default") and (w[1:] == ["ip", "routing"] or w[1:4] == ["ip", "routing", "vrf"]
                                            and len(w) == 5):
            # (`no` is how EOS prints routing turned off; `default`: EOS's default, off)
            routing_on.discard(w[4] if len(w) == 5 else None)
        elif w[:2] == ["ip", "route"]:
            _static(w, dev, node)
        elif w[:2] == ["ip", "prefix-list"] and len(w) > 2:
            if len(w) > 3:
                entry = parse_prefix_list_line(w, 3, node.line, eos=True)
                if entry:
                    add_prefix_list_entry(dev.prefix_lists.setdefault(w[2], []), entry, step=10, drop_duplicate=False)
                else:
                    _unmodelled(dev, node)
            for child in _children(node):
                entry = parse_prefix_list_line(child.words, 0, child.line, eos=True)
                if entry:
                    add_prefix_list_entry(dev.prefix_lists.setdefault(w[2], []), entry, step=10, drop_duplicate=False)
                elif child.words[0] == "no" and len(child.words) > 1 and w[2] in dev.prefix_lists \
                        and undo_top_level(dev, ["ip", "prefix-list", w[2], *child.words[1:]], None):
                    pass  # (`no seq N`, `no permit P`: the entry taken back)
                else:
                    _unmodelled(dev, child)
        elif w[0] == "route-map":
            _children(node)  # (route_map_entry, shared with FRR's reader, reads the entry's lines)
            route_map_entry(node, dev)
        elif w[:2] == ["ip", "access-list"] and len(w) in (3, 4) and (len(w) == 3 or w[2] == "standard"):
            _access_list(node, dev, standard=len(w) == 4)
        elif w == ["system", "control-plane"] or w == ["control-plane"]:
            for child in _children(node):
                cw = child.words
                if cw[:2] == ["ip", "access-group"] and cw[-1] == "in" and len(cw) in (4, 6) \
                        and (len(cw) == 4 or cw[3] == "vrf"):
                    vrf = None if len(cw) == 4 or cw[4] == "default" else cw[4]
                    dev.control_plane_acls[vrf] = (cw[2], child.line)
                else:
                    _unmodelled(dev, child)
        elif w[:2] == ["router", "bgp"]:
            _router_bgp(node, dev)
        elif w[0] == "peer-filter" and len(w) == 2:
            _peer_filter(node, dev, peer_filters)
        elif _management_line(node, dev, mgmt):
            pass
        elif w[:2] == ["router", "general"]:
            for vrf_node in _children(node):
                if vrf_node.words[0] != "vrf" or len(vrf_node.words) != 2:
                    _unmodelled(dev, vrf_node)
                    continue
                for leak in _children(vrf_node):
                    lw = leak.words
                    if lw[:3] == ["leak", "routes", "source-vrf"] and len(lw) == 4:
                        dev.vrf_route_leaks.append((lw[3], vrf_node.words[1]))
                    elif lw[:3] == ["leak", "routes", "source-vrf"] and len(lw) == 6 and lw[4] == "subscribe-policy":
                        dev.vrf_route_leaks.append((lw[3], vrf_node.words[1]))
                        dev.vrf_leak_maps[(lw[3], vrf_node.words[1])] = (lw[5], leak.line)
                    else:
                        _unmodelled(dev, leak)
        elif _terminattr(node):
            pass
        elif _harmless(node, KNOWN_TOP_LEVEL, "global"):
            if node.text.startswith(HARMLESS_BLOCKS):
                _read_whole(node)  # (a block with nothing for the model: its lines too)
                for stray in strays(node):  # (but a line pasted in that is no command of the block's modes)
                    _unmodelled(dev, stray)
        else:
            if (defined := match_list_definition(w)) is not None:
                dev.match_list_names.setdefault(defined, node.line)  # (entries not evaluated: reported)
                kind, name = defined
                if kind == "as-path" and name not in dev.as_path_lists_unread:
                    path_entry = eos_as_path_list_line(w, dev.as_path_lists.get(name, []))
                    if list_line_read(dev.as_path_lists, dev.as_path_lists_unread, name, path_entry and [path_entry]):
                        continue  # (judged on each route's AS path: verify/aspaths.py)
            _unmodelled(dev, node)
    dev.qos.dscp_to_tc = {dscp: tc_to_queue.get(tc, tc) for dscp, tc in dev.qos.dscp_to_tc.items()}
    if rewrite is not None:
        dev.qos.dscp_rewrite, dev.qos.dscp_rewrite_line = tc_to_dscp, rewrite.line
        # (a class without its own `to dscp` line is rewritten by EOS's default map, which the model
        # does not hold: the line stays reported for those)
        _unmodelled(dev, rewrite)
    for name, iface in dev.interfaces.items():
        if name.startswith("Ethernet") and name not in routed and iface.addresses and not iface.down:
            iface.down = "switchport"  # EOS: an Ethernet port is a switchport; its IP address does nothing
        if iface.pfc_priorities is not None and name not in pfc_on:
            iface.pfc_priorities = None  # no-drop priorities without `priority-flow-control on` pause nothing
    for port, (acl, line) in [*dev.acl_in.items(), *dev.acl_out.items()]:
        if acl not in dev.acls:  # what the port then does is not judged (EOS documents no such case): said so
            dev.unmodelled.append((line, f"ip access-group {acl} on {port}: no access list {acl} is defined"))
    link.take_lag_members(dev)
    if not dev.names:  # no `hostname` line: a full replace leaves EOS's default name
        dev.names.append(("localhost", FILE, 0))
    dev.routing_off = [vrf for vrf in dev.bgp if vrf not in routing_on]
    # a port in a VRF nobody made (no `vrf instance V`): EOS either refuses the line (the replace
    # fails) or keeps the port out of forwarding until the VRF exists; in neither case does the port
    # carry the plane's traffic, so it is taken as down, its line named
    undefined_vrfs = {vrf: line for vrf, line in reversed(vrf_lines) if vrf not in dev.vrfs and vrf != "default"}
    for iface in dev.interfaces.values():
        if iface.vrf in undefined_vrfs and not iface.down:
            iface.down = (f"in vrf {iface.vrf}, which no `vrf instance {iface.vrf}` defines "
                          f"({FILE}:{undefined_vrfs[iface.vrf]})")
    compact_statics(dev.static_routes)  # (before the management VRF's routes leave the list)
    _take_management(dev, mgmt)
    compact_route_maps(dev)
    _peer_filters(dev, peer_filters)
    finish_bgp(dev, frr=False)
    _say_unread(nodes, dev)
    _DESCENDED.ids.clear()


@dataclass
class _Mgmt:
    """Management lines as read, decided once the management VRF is known (_take_management)."""

    ssh_shutdown: bool = False
    ssh_vrfs: dict[str, bool] = field(default_factory=dict)  # vrf -> served (`no shutdown`)
    api_on: bool = False
    api_vrfs: dict[str, bool] = field(default_factory=dict)
    by_vrf: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # vrf -> ntp/dns -> servers (syslog: syslog_hosts)
    lldp: bool | None = None
    users: dict[str, ManagementUser] = field(default_factory=dict)
    tacacs: list[tuple[str, str]] = field(default_factory=list)  # (server, VRF) of `tacacs-server host`
    tacacs_keyed: set[str] = field(default_factory=set)  # hosts given their own `key`
    tacacs_key: bool = False  # `tacacs-server key`: every host's key unless it has its own
    lines: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, server) -> line naming it
    # (user, secondary) -> the SSH key (TYPE BASE64) in that slot of the account
    key_slots: dict[tuple[str, bool], str] = field(default_factory=dict)
    # `aaa group server tacacs+ NAME` blocks: name -> its `server ADDR [vrf V]` entries (address, VRF)
    groups: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    login: list[str] | None = None  # `aaa authentication login default` methods (None: EOS's default, local)
    login_line: str = ""
    exec_authz: list[str] | None = None  # `aaa authorization exec default` methods (None: none asked)
    exec_line: str = ""
    # `aaa authorization commands LEVELS default METHODS`: each command asked of them (None: not asked)
    commands_authz: list[str] | None = None
    commands_line: str = ""
    # `logging [vrf V] host ADDR [PORT] [protocol tcp|udp]`: (server, VRF, (protocol, port), line)
    syslog_hosts: list[tuple[str, str, tuple[str, str], int]] = field(default_factory=list)


def _login_servers(mgmt: _Mgmt) -> list[tuple[str, str]]:
    """The TACACS+ servers EOS asks at login: those of each `group NAME` among `aaa authentication
    login default`'s methods (`group tacacs+`: every `tacacs-server host`), each a defined host of
    that address and VRF (the host line holds its key). No login line, or no group in it: local
    accounts only, no server asked."""
    hosts = set(mgmt.tacacs)
    asked: list[tuple[str, str]] = []
    methods = mgmt.login or []
    for at, word in enumerate(methods[:-1]):
        if word != "group":
            continue
        name = methods[at + 1]
        for entry in (mgmt.tacacs if name == "tacacs+" else mgmt.groups.get(name, [])):
            if entry in hosts:
                asked.append(entry)
    return list(dict.fromkeys(asked))  # (each once, in the order first asked)


def _logging_host(w: list[str]) -> tuple[str, str, tuple[str, str]] | None:
    """A `logging host` line's server, VRF and transport (EOS: UDP 514 unless it says); None: not one."""
    vrf = "default"
    if w[:2] == ["logging", "vrf"] and len(w) >= 3:
        vrf, w = w[2], ["logging", *w[3:]]
    if w[:2] != ["logging", "host"] or len(w) < 3:
        return None
    rest = w[3:]
    port = SYSLOG_TRANSPORT[1]
    if rest and is_decimal(rest[0]):
        port, rest = rest[0], rest[1:]
    protocol = SYSLOG_TRANSPORT[0]
    if len(rest) == 2 and rest[0] == "protocol" and rest[1] in ("tcp", "udp"):
        protocol, rest = rest[1], []
    return None if rest else (w[2], vrf, (protocol, port))


# lines under `management ssh` / `management api` that change nothing the checks judge
_SERVICE_HARMLESS = (["idle-timeout"], ["protocol", "http"], ["connection", "limit"])
_MAX_PORT = 65535


def _https_port(words: list[str]) -> int | None:
    """eAPI's port of `protocol https [port N]` (443 unless told); None: another form of the line."""
    if len(words) == 2:
        return 443
    return _int(words[3], _MAX_PORT) or None if len(words) == 4 and words[2] == "port" else None


def _vrf_block(node: Node, into: dict[str, bool], dev: DeviceConfig, service: str = "") -> None:
    """A service's per-VRF state and its access lists: SSH's `ip access-group NAME [vrf V] in` (V:
    default when not said), the API's `ip access-group NAME` in its `vrf V` block; every other
    line under it reported (an authentication mode, a port: each can keep the operator out, none
    is judged)."""
    for child in _children(node):
        cw = child.words
        if service == "ssh" and cw[:2] == ["ip", "access-group"] and cw[-1] == "in" and len(cw) in (4, 6) \
                and (len(cw) == 4 or cw[3] == "vrf"):
            vrf = None if len(cw) == 4 or cw[4] == "default" else cw[4]
            dev.service_acls[(service, vrf)] = (cw[2], child.line)
        elif child.words[0] == "vrf" and len(child.words) == 2:
            served = into.get(child.words[1], False)
            for sub in _children(child):
                if sub.words == ["no", "shutdown"]:
                    served = True
                elif sub.words == ["shutdown"]:
                    served = False
                elif service == "api" and sub.words[:2] == ["ip", "access-group"] and len(sub.words) == 3:
                    # the API's list sits in its VRF block (no direction: what arrives)
                    dev.service_acls[("api", None if child.words[1] == "default" else child.words[1])] = \
                        (sub.words[2], sub.line)
                else:
                    _unmodelled(dev, sub)
            into[child.words[1]] = served
        elif child.words[:2] == ["no", "vrf"] and len(child.words) == 3:
            into.pop(child.words[2], None)  # (the service's VRF block gone: not served there)
        elif service == "ssh" and len(cw) == 2 and cw[0] == "server-port" and (port := _int(cw[1], _MAX_PORT)):
            dev.management.ssh_port = port
        elif service == "ssh" and cw in (["no", "server-port"], ["default", "server-port"]):
            dev.management.ssh_port = SSH_PORT
        elif service == "api" and cw[:2] == ["protocol", "https"] and (https := _https_port(cw)):
            dev.api_port = dev.management.api_port = https
            dev.management.api_https = True
        elif service == "api" and cw in (["no", "protocol", "https"], ["default", "protocol", "https"]):
            dev.management.api_https = cw[0] == "default"  # (EOS serves eAPI over HTTPS by default)
            dev.api_port = dev.management.api_port = 443
        elif child.words not in (["shutdown"], ["no", "shutdown"]) and \
                not any(child.words[:len(h)] == h for h in _SERVICE_HARMLESS):
            _unmodelled(dev, child)


_SECRET_FORMS = frozenset({"0", "5", "7", "8a", "sha512"})  # the words EOS puts between `secret`/`key` and the value


def _literal_secret(w: list[str]) -> str | None:
    """What an EOS line holds as a literal credential (a user's secret, a TACACS+/RADIUS key, an
    SNMP community) where the renderer writes ``${secret:NAME}``; None: none, or a reference."""
    if w[0] == "username" and "secret" in w[2:-1]:
        what, at = f"username {w[1]} secret", w.index("secret") + 1
    elif w[0] in ("tacacs-server", "radius-server") and "key" in w[1:-1]:
        what, at = f"{w[0]} key", w.index("key") + 1
    elif w[:2] == ["snmp-server", "community"] and len(w) >= 3:
        what, at = "snmp-server community", 2
    else:
        return None
    if w[at] in _SECRET_FORMS and at + 1 < len(w):
        at += 1  # the value's form (cleartext 0, encrypted 7, a hash), then the value
    return None if is_reference(w[at]) else what


def _management_line(node: Node, dev: DeviceConfig, mgmt: _Mgmt) -> bool:
    """A management line of EOS (False: not one)."""
    w = node.words
    if (secret := _literal_secret(w)) is not None:
        dev.management.literal_secrets.append((FILE, node.line, secret))
    if w == ["management", "ssh"]:
        mgmt.ssh_shutdown = any(c.words == ["shutdown"] for c in _children(node))
        _vrf_block(node, mgmt.ssh_vrfs, dev, service="ssh")
    elif w == ["management", "api", "http-commands"]:
        mgmt.api_on = any(c.words == ["no", "shutdown"] for c in _children(node)) and \
            not any(c.words == ["shutdown"] for c in _children(node))
        _vrf_block(node, mgmt.api_vrfs, dev, service="api")
    elif w[:2] == ["ip", "name-server"] and len(w) >= 3 and (w[2] != "vrf" or len(w) >= 5) \
            and all(is_ip(x) for x in (w[4:] if w[2] == "vrf" else w[2:])):
        where, servers = (w[3], w[4:]) if w[2] == "vrf" else ("default", w[2:])
        mgmt.by_vrf.setdefault(where, {}).setdefault("dns", []).extend(servers)
        for server in servers:
            mgmt.lines.setdefault(("DNS", server), node.line)
    elif w[:2] == ["ntp", "server"] and len(w) >= 3 and (w[2] != "vrf" or len(w) >= 5):
        where, server, rest = (w[3], w[4], w[5:]) if w[2] == "vrf" else ("default", w[2], w[3:])
        mgmt.by_vrf.setdefault(where, {}).setdefault("ntp", []).append(server)
        mgmt.lines.setdefault(("NTP", server), node.line)
        if not options_known(rest, {"prefer", "burst", "iburst"},
                              {"local-interface", "source", "maxpoll", "minpoll", "version"}):
            _unmodelled(dev, node)  # (`key`: authentication, not judged)
    elif (host := _logging_host(w)) is not None:
        mgmt.syslog_hosts.append((*host, node.line))
    elif w[:4] == ["aaa", "authentication", "login", "default"]:
        mgmt.login, mgmt.login_line = w[4:], node.text
    elif w[:4] == ["aaa", "authorization", "exec", "default"]:
        mgmt.exec_authz, mgmt.exec_line = w[4:], node.text
    elif w[:3] == ["aaa", "authorization", "commands"] and "default" in w[3:-1]:
        mgmt.commands_authz, mgmt.commands_line = w[w.index("default") + 1:], node.text
    elif w[:4] == ["aaa", "group", "server", "tacacs+"] and len(w) == 5:
        entries = mgmt.groups.setdefault(w[4], [])
        for child in _children(node):
            cw = child.words
            if cw[0] == "server" and len(cw) in (2, 4) and (len(cw) == 2 or cw[2] == "vrf"):
                entries.append((cw[1], cw[3] if len(cw) == 4 else "default"))
            elif cw[:2] == ["no", "server"] and len(cw) in (3, 5) and (len(cw) == 3 or cw[3] == "vrf"):
                gone = (cw[2], cw[4] if len(cw) == 5 else "default")
                entries[:] = [entry for entry in entries if entry != gone]
            else:
                _unmodelled(dev, child)
    elif w[:2] == ["tacacs-server", "key"] and len(w) >= 3:
        mgmt.tacacs_key = True  # the key all servers share (held to a reference above)
    elif w[:2] == ["tacacs-server", "host"] and len(w) >= 3:
        mgmt.tacacs.append((w[2], w[w.index("vrf") + 1] if "vrf" in w[3:-1] else "default"))
        mgmt.lines.setdefault(("TACACS+", w[2]), node.line)
        if "key" in w[3:-1]:
            mgmt.tacacs_keyed.add(w[2])
        rest = w[3:w.index("key")] if "key" in w[3:-1] else w[3:]
        if not options_known(rest, {"single-connection"}, {"vrf", "timeout"}):
            _unmodelled(dev, node)  # (another `port` than TACACS+'s 49: not judged)
    elif w[0] in ("no", "default") and w[1:2] == ["username"] and len(w) == 3:
        mgmt.users.pop(w[2], None)  # the account is gone: its secret and keys with it
        mgmt.lines.pop(("user", w[2]), None)
        mgmt.key_slots.pop((w[2], False), None)
        mgmt.key_slots.pop((w[2], True), None)
    elif w == ["lldp", "run"] or w == ["default", "lldp", "run"]:  # (EOS runs LLDP by default)
        mgmt.lldp = True
    elif w == ["no", "lldp", "run"]:
        mgmt.lldp = False
    elif w[0] == "username" and len(w) >= 3:
        user = mgmt.users.setdefault(w[1], ManagementUser(w[1], "", False))
        if "role" in w[:-1]:
            user.role = "admin" if w[w.index("role") + 1] == "network-admin" else w[w.index("role") + 1]
        if "privilege" in w[:-1] and w[w.index("privilege") + 1] == "15" and not user.role:
            user.role = "admin"
        if "secret" in w[:-1] or w[2] == "ssh-key" and len(w) > 3:
            user.credential = True
        # EOS keeps two keys per account, a primary (`ssh-key KEY`) and a secondary (`ssh-key
        # secondary KEY`): a later line of either kind replaces the key in its slot
        secondary = w[3:4] == ["secondary"]
        if w[2] == "ssh-key" and len(w) >= 5 + secondary:
            key = f"{w[3 + secondary]} {w[4 + secondary]}"
            slot = (w[1], secondary)
            replaced = mgmt.key_slots.get(slot)
            if replaced is not None and replaced != key and mgmt.key_slots.get((w[1], not secondary)) != replaced:
                user.ssh_keys.pop(replaced, None)
            mgmt.key_slots[slot] = key
            user.ssh_keys.setdefault(key, node.line)
        # EOS keeps one of a secret or `nopassword` per account: the later line replaces the other
        if "nopassword" in w[2:]:
            user.passwordless = True
        elif "secret" in w[:-1]:
            user.passwordless = False
        mgmt.lines.setdefault(("user", w[1]), node.line)
        # the options before a secret or key (whose value runs to the line's end)
        head = w[2:next((i for i, x in enumerate(w) if x in ("secret", "ssh-key")), len(w))]
        if not options_known(head, {"nopassword"}, {"privilege", "role", "shell"}):
            _unmodelled(dev, node)
    else:
        return False
    return True


def _take_management(dev: DeviceConfig, mgmt: _Mgmt) -> None:
    """The management VRF is the VRF of the Management ports: it, its ports and its static routes
    leave the fabric's model for ``dev.management``."""
    m = dev.management
    m.users_in_file = True
    m.services_in_file = True
    m.api_default_port = 443
    m.users = list(mgmt.users.values())
    m.lldp = True if mgmt.lldp is None else mgmt.lldp  # EOS runs LLDP unless told not to
    for name in [n for n in dev.interfaces if n.startswith("Management")]:
        iface = dev.interfaces.pop(name)
        m.interfaces[name] = iface
        m.vrf = m.vrf or iface.vrf
    vrf = m.vrf
    if vrf is None:
        return
    dev.vrfs.pop(vrf, None)
    for route in [r for r in dev.static_routes if r.vrf == vrf]:
        dev.static_routes.remove(route)
        if route.prefix == "0.0.0.0/0":
            m.default_gateway = route.nexthop
        else:
            m.routes.append(route)
    m.tacacs = [server for server, where in _login_servers(mgmt) if where == vrf]
    if m.tacacs:  # a host without its own key uses `tacacs-server key`; without either it sends in clear
        m.tacacs_key = mgmt.tacacs_key or all(server in mgmt.tacacs_keyed for server in m.tacacs)
    m.located = {kind_server: (FILE, line) for kind_server, line in mgmt.lines.items()}
    # EOS tries the methods in order and moves on only when one cannot answer (no server reachable):
    # `local` (or `none`) among them lets the local users in when TACACS+ is away; an exec
    # authorization that lists neither refuses them their shell
    for methods, text in ((mgmt.login, mgmt.login_line), (mgmt.exec_authz, mgmt.exec_line),
                          (mgmt.commands_authz, mgmt.commands_line)):  # (commands refused: no way to fix it)
        if methods is not None:
            falls_back = "local" in methods or "none" in methods
            if m.login_local is None or not falls_back:
                m.login_local, m.login_methods = falls_back, text
    m.ssh = not mgmt.ssh_shutdown and mgmt.ssh_vrfs.get(vrf, False)
    m.api = mgmt.api_on and mgmt.api_vrfs.get(vrf, False) and m.api_https
    servers = mgmt.by_vrf.get(vrf, {})
    m.ntp, m.dns = servers.get("ntp", []), servers.get("dns", [])
    for elsewhere, kinds in sorted(mgmt.by_vrf.items()):  # outside the management VRF: the fabric's, or none
        if elsewhere != vrf:
            for kind, label in (("ntp", "NTP"), ("dns", "DNS")):
                m.astray += [(FILE, mgmt.lines.get((label, server), 0), server, f"queried in VRF {elsewhere}")
                             for server in kinds.get(kind, [])]
    for server, where, transport, line in mgmt.syslog_hosts:
        m.located.setdefault(("syslog", server), (FILE, line))
        if where != vrf:
            m.astray.append((FILE, line, server, f"sent in VRF {where}"))
        elif (astray := syslog_transport_astray(transport)) is not None:
            m.astray.append((FILE, line, server, astray))
        else:
            m.syslog.append(server)


def parse_device(name: str, folder: Path) -> DeviceConfig:
    """An EOS device folder (its one running-config) -> DeviceConfig, routing included."""
    return parse_text(name, read_text(folder / FILE))


def parse_text(name: str, text: str) -> DeviceConfig:
    """One running-config's text (a rendered file's, or a switch's ``show running-config``)."""
    dev = DeviceConfig(name=name, platform="eos")
    parse_eos(text, dev)
    return dev
