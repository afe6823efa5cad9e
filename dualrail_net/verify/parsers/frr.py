"""FRR integrated config (frr.conf) -> BGP, policy and static-route parts of DeviceConfig.

Read as FRR reads it, not by indentation: FRR's own reader ignores leading blanks and keeps a
*current node* (the top level, a `router bgp` block, its ipv4 unicast address family, a route-map
entry, a vrf ...). Each line is tried in the current node; a command that node does not have is
tried in its parent, and so on up to the top level, and the reader stays in the node that took it
(lib/command.c, command_config_read_one_line). `exit`, `exit-address-family` and `exit-vrf` leave a
node explicitly. An un-indented frr.conf therefore means the same as the indented one, and so it
does here (tests/test_parsers.py reads every rendered file both ways).

Every statement keeps its line number (file:line in findings). A line that is neither modelled nor
known not to matter goes to ``DeviceConfig.unmodelled`` with its number: verify says what it could
not judge instead of ignoring it; nothing in a line makes the parser raise.
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dualrail_net.verify.model import (
    ACCESS_LIST_PREFIX,
    DEFAULT_LOCAL_PREF,
    ORIGIN_CODES,
    Aggregate,
    BgpInstance,
    DeviceConfig,
    MissingPolicy,
    Neighbor,
    Interface,
    PrefixListEntry,
    RouteMapEntry,
    StaticRoute,
)
from dualrail_net.verify.ipfast import ip_int, net_str, network_of
from dualrail_net.verify.parsers import frr_cli
from dualrail_net.verify.parsers.files import is_decimal, mask_length
from dualrail_net.verify.parsers.tree import Node
from dualrail_net.secretref import is_reference

_Entry = TypeVar("_Entry")

_PREFIX = re.compile(r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)/(?:3[0-2]|[12]?\d)")
_IP = re.compile(r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)")
MAX_ASN = 4294967295
# a name FRR takes as one word (a neighbor or peer-group, a prefix-list or route-map, an AS-path list)
WORD_NAME = re.compile(r"[A-Za-z][\w.-]{0,62}")
PORT_NAME = re.compile(r"[A-Za-z][\w./-]{0,62}")  # a port as `update-source` names it (EOS: Ethernet1/1)


def is_prefix(word: str) -> bool:
    """A dotted-quad IPv4 prefix 'A.B.C.D/N' (what FRR and EOS write; nothing else passes)."""
    return _PREFIX.fullmatch(word) is not None


def is_ip(word: str) -> bool:
    return _IP.fullmatch(word) is not None


def _int(word: str, limit: int = MAX_ASN) -> int | None:
    """A plain decimal number up to ``limit`` (ASCII digits only: '²'.isdigit() is True), else None."""
    if not (word.isascii() and word.isdigit()) or len(word) > 10:
        return None
    value = int(word)
    return value if value <= limit else None


def parse_asn(word: str) -> int | None:
    """An ASN as FRR and EOS accept it: asplain ('4200001000') or asdot ('64086.59904'); else None."""
    if "." in word:
        high, _, low = word.partition(".")
        hi, lo = _int(high, 65535), _int(low, 65535)
        return None if hi is None or lo is None else hi * 65536 + lo
    value = _int(word)
    return value if value else None


def _sequenced(rest: list[str], seq: int | Callable[[], int]) -> tuple[int, list[str]] | None:
    """'[seq N] permit|deny ...' -> (N, or ``seq`` when not written (a function: asked only then);
    the words from the action on); None when no action follows."""
    if rest and rest[0] == "seq":
        number = _int(rest[1], 4294967295) if len(rest) > 1 else None
        if number is None:
            return None
        seq, rest = number, rest[2:]
    if len(rest) < 2 or rest[0] not in ("permit", "deny"):
        return None
    return (seq if isinstance(seq, int) else seq()), rest


class _Filing(threading.local):
    """What the parse in progress files its lists through, one per thread: parsers run in several
    threads at once (the deploy drivers read their devices' running frr.conf concurrently), and a
    parse clearing the indexes of another thread's parse broke it mid-file (a KeyError). parse_frr
    and EOS's reader clear them before and after a file: they hold the lists, so an id is never
    another list's."""

    def __init__(self) -> None:
        # a list's highest sequence number so far, per list (its id): (the list, how many entries
        # were counted, the highest, the last entry counted). Lists only grow at their end while a
        # file is read; an entry taken out before the last one counted moves another into its place,
        # which the identity test sees (then the whole list is counted again). A count of the whole
        # list per line was quadratic in a hostile list's length (docs/performance.md).
        self.highest: dict[int, tuple[list[Any], int, int, object]] = {}
        # the prefix-lists being filed (_ListIndex)
        self.lists: dict[int, _ListIndex] = {}
        # route-map entries by number, per map (the list's id): (the list, seq -> position, [entries
        # taken back]). Valid while its numbers and the entries taken back add up to the list's
        # length and the position holds that number; else built again (a scan per line was
        # quadratic in a hostile map's length: docs/performance.md)
        self.maps: dict[int, tuple[list[RouteMapEntry], dict[int, int], list[int]]] = {}
        # the static routes taken back through an index (_StaticIndex)
        self.statics: dict[int, _StaticIndex] = {}


_FILING = _Filing()


def _next_seq(existing: list[Any], seq_of: Callable[[Any], int]) -> Callable[[], int]:
    """The number FRR gives an entry written without one: 5 above the list's highest."""
    def number() -> int:
        held = _FILING.highest.get(id(existing))
        start, top = 0, 0
        if held is not None and held[0] is existing and 0 < held[1] <= len(existing) \
                and existing[held[1] - 1] is held[3]:
            start, top = held[1], held[2]
        top = max([top, *(seq_of(e) for e in existing[start:])])
        if existing:
            _FILING.highest[id(existing)] = (existing, len(existing), top, existing[-1])
        return top + 5
    return number


def parse_prefix_list_line(words: list[str], start: int, line: int = 0, eos: bool = False) -> PrefixListEntry | None:
    """words[start:] = 'seq N permit|deny PREFIX|any [ge N] [le N]' (or without 'seq N'); None for
    anything else (a description, a malformed entry: reported as unmodelled by the caller). ``eos``:
    EOS also takes `PREFIX eq N`, the prefixes of exactly that length (arista.eos's prefix-list
    parser reads the operator as eq, ge or le); FRR's grammar has no `eq`."""
    head = _sequenced(words[start:], AUTO_SEQ)
    if head is None:
        return None
    seq, rest = head
    if rest[1] == "any":  # 0.0.0.0/0 le 32: every prefix
        return PrefixListEntry(seq, rest[0], "0.0.0.0/0", None, 32, line) if len(rest) == 2 else None
    if not is_prefix(rest[1]) or len(rest) % 2:
        return None
    if eos and len(rest) == 4 and rest[2] == "eq":
        exact = _int(rest[3], 32)
        return None if exact is None else PrefixListEntry(seq, rest[0], rest[1], exact, exact, line)
    entry = PrefixListEntry(seq, rest[0], rest[1], line=line)
    for key, value in zip(rest[2::2], rest[3::2]):
        length = _int(value, 32)
        if length is None or key not in ("ge", "le"):
            return None
        if key == "ge":
            entry.ge = length
        else:
            entry.le = length
    return entry


def _prefix_length_outside_grammar(words: list[str], start: int) -> str | None:
    """Why FRR's grammar has no command for an IPv4 prefix-list entry whose `ge`/`le` is a number
    above 32 (its tokens are (0-32): vtysh says "Unknown command" and the load fails, measured on 8.4
    by the twin), or None where the line is not that."""
    head = _sequenced(words[start:], AUTO_SEQ)
    if head is None or len(head[1]) < 4 or not is_prefix(head[1][1]) or len(head[1]) % 2:
        return None
    pairs = list(zip(head[1][2::2], head[1][3::2]))
    if all(key in ("ge", "le") and is_decimal(value) for key, value in pairs) \
            and any(int(value) > 32 for _, value in pairs):
        return "ge and le are 0-32 in FRR's grammar: no command takes the line"
    return None


AUTO_SEQ = -1  # parse_prefix_list_line: no `seq N` written (add_prefix_list_entry numbers it)


def prefix_list_refusal(entry: PrefixListEntry) -> str | None:
    """Why FRR refuses an entry, or None: its number is 1-4294967295; ge and le each at least the
    prefix's length, ge not above le (measured on FRR 8.4: `seq 0`, `10.12.0.0/20 ge 16`, `le 19`
    and `ge 24 le 22` are refused, `ge 20 le 32` and `le 20` taken, whatever its message's "len < ge")."""
    if entry.seq == 0:
        return "a prefix-list sequence number is 1-4294967295"
    length = int(entry.prefix.partition("/")[2] or 32)
    if entry.ge is not None and entry.ge < length or entry.le is not None and entry.le < length \
            or entry.ge is not None and entry.le is not None and entry.ge > entry.le:
        return f"an invalid prefix range for {entry.prefix} (FRR requires length <= ge <= le)"
    return None


@dataclass
class _ListIndex:
    """A prefix-list's entries by number and by content, so that filing one is not a scan of the
    list (a hostile list of 20,000 entries took 30 s). Valid while ``size`` is the list's length:
    an entry taken back elsewhere (`no seq N`) makes the next filing build it again."""
    entries: list[PrefixListEntry]
    size: int = 0
    at: dict[int, int] = field(default_factory=dict)  # seq -> position
    contents: Counter[tuple[str, str, int | None, int | None]] = field(default_factory=Counter)
    highest: int = 0
    highest_stale: bool = False  # the highest entry was taken back: found again at the next numbering


# an entry taken back (`no route-map NAME permit|deny N`) keeps its place until the file is read
# (compact_route_maps), so that the positions of the others stay (a list shifted per line was
# quadratic in the number of `no` lines: docs/performance.md)
TAKEN_BACK = RouteMapEntry(-1, "deny")


def _map_index(entries: list[RouteMapEntry],
               again: bool = False) -> tuple[list[RouteMapEntry], dict[int, int], list[int]]:
    """The map's index, built (``again``: built anew) when it no longer speaks of the list."""
    held = _FILING.maps.get(id(entries))
    if again or held is None or held[0] is not entries or len(held[1]) + held[2][0] != len(entries):
        held = _FILING.maps[id(entries)] = (entries, {e.seq: i for i, e in enumerate(entries) if e is not TAKEN_BACK},
                                            [sum(e is TAKEN_BACK for e in entries)])
    return held


def map_position(entries: list[RouteMapEntry], seq: int) -> int | None:
    """The position of a route-map's entry numbered ``seq`` (None: none)."""
    at = _map_index(entries)[1].get(seq)
    if at is not None and (at >= len(entries) or entries[at].seq != seq or entries[at] is TAKEN_BACK):
        at = _map_index(entries, again=True)[1].get(seq)  # (the list was reordered elsewhere)
    return at


def take_back_map_entry(dev: DeviceConfig, name: str, seq: int) -> bool:
    """`no route-map NAME permit|deny SEQ`: that entry leaves the map, and the map with its last
    entry (False: the map has no such entry)."""
    entries = dev.route_maps[name]
    at = map_position(entries, seq)
    if at is None:
        return False
    held = _map_index(entries)
    entries[at] = TAKEN_BACK
    del held[1][seq]
    held[2][0] += 1
    if not held[1]:
        del dev.route_maps[name]  # the last entry gone takes the map with it
    return True


def compact_route_maps(dev: DeviceConfig) -> None:
    """Once a file is read: the entries taken back leave their maps."""
    for entries in dev.route_maps.values():
        held = _FILING.maps.pop(id(entries), None)  # (positions move: built again when next asked)
        if held is not None and held[0] is entries and held[2][0]:
            entries[:] = [e for e in entries if e is not TAKEN_BACK]


def file_map_entry(entries: list[RouteMapEntry], seq: int, action: str, line: int) -> RouteMapEntry:
    """`route-map NAME permit|deny SEQ` filed as FRR and EOS file it: a new entry, or the entry of
    that number when the action is the same (the lines after it add to it), or a new one in its
    place when the action differs; the entry the lines after it go into."""
    at = map_position(entries, seq)
    if at is not None and entries[at].action == action:
        return entries[at]
    entry = RouteMapEntry(seq, action, line=line)
    if at is None:
        entries.append(entry)
        _FILING.maps[id(entries)][1][seq] = len(entries) - 1  # (map_position above left it valid)
    else:
        entries[at] = entry
    return entry


@dataclass
class _StaticIndex:
    """A device's static routes by (VRF, network, length), for `no ip route` lines: positions in
    the list (routes appended since the last use are indexed then); the routes taken back keep
    their place until the file is read (compact_statics): a list rebuilt per line was quadratic."""
    routes: list[StaticRoute]
    count: int = 0
    at: dict[tuple[str | None, int, int], list[int]] = field(default_factory=dict)
    taken: set[int] = field(default_factory=set)


def _static_index(routes: list[StaticRoute]) -> _StaticIndex:
    held = _FILING.statics.get(id(routes))
    if held is None or held.routes is not routes or held.count > len(routes):
        held = _FILING.statics[id(routes)] = _StaticIndex(routes)
    for i in range(held.count, len(routes)):
        route = routes[i]
        held.at.setdefault((route.vrf, *network_of(route.prefix)), []).append(i)
    held.count = len(routes)
    return held


def take_back_statics(routes: list[StaticRoute], vrf: str | None, prefix: str,
                      fits: Callable[[StaticRoute], bool]) -> bool:
    """`no ip route ...`: the routes of ``vrf`` to ``prefix`` that ``fits`` leave (False: none)."""
    held = _static_index(routes)
    key = (vrf, *network_of(prefix))
    positions = held.at.get(key)
    gone = [at for at in positions or () if fits(routes[at])]
    if not gone:
        return False
    held.taken.update(gone)
    held.at[key] = [at for at in positions or () if at not in held.taken]
    return True


def compact_statics(routes: list[StaticRoute]) -> None:
    """Once a file is read (or before anything else takes routes out): the routes taken back leave."""
    held = _FILING.statics.pop(id(routes), None)
    if held is not None and held.routes is routes and held.taken:
        routes[:] = [route for at, route in enumerate(routes) if at not in held.taken]


def clear_list_indexes() -> None:
    _FILING.lists.clear()
    _FILING.maps.clear()
    _FILING.statics.clear()
    _FILING.highest.clear()


_SEQ_OF = operator.attrgetter("seq")  # (a prefix-list's or route-map's entry)
_FIRST = operator.itemgetter(0)  # (a community-list's or AS-path list's (seq, action, ...) entry)


def _content(e: PrefixListEntry) -> tuple[str, str, int | None, int | None]:
    return e.action, e.prefix, e.ge, e.le


def _list_index(entries: list[PrefixListEntry]) -> _ListIndex:
    index = _FILING.lists.get(id(entries))
    if index is None or index.entries is not entries or index.size != len(entries):
        index = _FILING.lists[id(entries)] = _ListIndex(
            entries, len(entries), {e.seq: i for i, e in enumerate(entries)}, Counter(_content(e) for e in entries),
            max((e.seq for e in entries), default=0))
    return index


def add_prefix_list_entry(entries: list[PrefixListEntry], entry: PrefixListEntry, step: int = 5,
                          drop_duplicate: bool = True) -> None:
    """An entry into its list as the daemon files it: written without a sequence number it is
    numbered after the highest (FRR: the next multiple of 5 above it; EOS: ``step`` 10 above it);
    with the number of an existing entry it replaces that entry. ``drop_duplicate`` (FRR's): an
    entry equal to another of the list but for its number is not added (measured on 8.4: `seq 20
    permit P` after `seq 10 permit P` leaves seq 10 alone, which an entry between them would see)."""
    index = _list_index(entries)
    if index.highest_stale:
        index.highest, index.highest_stale = max(map(_SEQ_OF, entries), default=0), False
    if entry.seq == AUTO_SEQ:
        entry.seq = index.highest // step * step + step if step == 5 else index.highest + step
    content = _content(entry)
    position = index.at.get(entry.seq)
    if drop_duplicate and index.contents[content] > (position is not None and _content(entries[position]) == content):
        return
    if position is not None:
        index.contents[_content(entries[position])] -= 1
        entries[position] = entry
    else:
        index.at[entry.seq] = len(entries)
        entries.append(entry)
        index.size += 1
        index.highest = max(index.highest, entry.seq)
    index.contents[content] += 1


def take_back_prefix_list_entry(entries: list[PrefixListEntry], seq: int) -> bool:
    """`no ip prefix-list NAME seq N ...`: the entry numbered N leaves its list (False: none is).
    The list's last entry takes its place: a list is evaluated in seq order (routes.py sorts it),
    never in file order, so its order is free and taking back thousands of entries stays linear
    (a scan per line was quadratic: docs/performance.md)."""
    index = _list_index(entries)
    position = index.at.pop(seq, None)
    if position is None:
        return False
    removed, last = entries[position], entries[-1]
    entries[position] = last
    entries.pop()
    if last is not removed:
        index.at[last.seq] = position
    index.size -= 1
    index.contents[_content(removed)] -= 1
    index.highest_stale = index.highest_stale or removed.seq == index.highest
    return True


_LIST_NAME = re.compile(r"[\w.-]{1,63}")


def access_list_line(w: list[str], existing: list[PrefixListEntry], line: int = 0) -> list[PrefixListEntry] | None:
    """One FRR IPv4 access-list line, ``access-list NAME [seq N] permit|deny MATCH``, as the
    prefix-list entries that match the routes it matches (zebra's filter.c as a route filter):

    * ``A.B.C.D/M``: every prefix inside it (``A.B.C.D/M le 32``); with ``exact-match`` that prefix only;
    * ``any``: every prefix;
    * ``A.B.C.D WILDCARD`` and ``host A.B.C.D`` (a "cisco" entry): the prefixes whose *address*
      matches, whatever their length: those inside ``A.B.C.D/M`` (M = 32 - the wildcard's bits),
      and each shorter prefix ``A.B.C.D/L`` whose address is A.B.C.D.

    * ``ip SOURCE DESTINATION`` (an "extended" entry; each side ``A.B.C.D WILDCARD``, ``host
      A.B.C.D`` or ``any``): filter_match_cisco compares the prefix's address with SOURCE and its
      netmask with DESTINATION, so the entry matches the prefixes whose address matches SOURCE at
      each length whose netmask matches DESTINATION (``_extended_entries``).

    ``[]`` for a remark. None for what is not read: a source wildcard that is not contiguous low
    bits, an address with bits inside its wildcard. Without ``seq`` FRR numbers the entry 5 above
    the list's highest."""
    rest = w[2:]
    if not _LIST_NAME.fullmatch(w[1]) or not rest:
        return None
    if rest[0] == "remark":
        return []
    head = _sequenced(rest, _next_seq(existing, _SEQ_OF))
    if head is None:
        return None
    seq, rest = head
    action, match = rest[0], rest[1:]
    if match == ["any"]:
        return [PrefixListEntry(seq, action, "0.0.0.0/0", None, 32, line)]
    if len(match) in (1, 2) and is_prefix(match[0]) and match[1:] in ([], ["exact-match"]):
        prefix = net_str(network_of(match[0]))
        return [PrefixListEntry(seq, action, prefix, None, None if match[1:] else 32, line)]
    if match[:1] == ["ip"]:
        source, rest_words = _cisco_side(match[1:])
        destination, rest_words = _cisco_side(rest_words)
        if source is None or destination is None or rest_words:
            return None
        return _extended_entries(seq, action, source, destination, line)
    side, rest_words = _cisco_side(match)
    if side is None or rest_words:
        return None
    address, wildcard = side
    if wildcard & (wildcard + 1) or address & wildcard:
        return None  # not a prefix's host bits, or an address FRR would compare with bits it masks
    length = 32 - wildcard.bit_length()
    entries = [PrefixListEntry(seq, action, net_str((address, length)), None, 32, line)]
    for shorter in range(length - 1, -1, -1):
        if address & ((1 << (32 - shorter)) - 1):
            break  # (a shorter prefix's address has zeros below its length)
        entries.append(PrefixListEntry(seq, action, net_str((address, shorter)), None, None, line))
    return entries


def _cisco_side(words: list[str]) -> tuple[tuple[int, int] | None, list[str]]:
    """One side of a cisco access-list entry: ``A.B.C.D WILDCARD``, ``host A.B.C.D`` or ``any``, as
    (address, wildcard) and the words after it; None when the words start with none of those."""
    if words[:1] == ["any"]:
        return (0, 0xFFFFFFFF), words[1:]
    if words[:1] == ["host"] and len(words) >= 2 and is_ip(words[1]):
        return (ip_int(words[1]), 0), words[2:]
    if len(words) >= 2 and is_ip(words[0]) and is_ip(words[1]):
        return (ip_int(words[0]), ip_int(words[1])), words[2:]
    return None, words


def _extended_entries(seq: int, action: str, source: tuple[int, int], destination: tuple[int, int],
                      line: int) -> list[PrefixListEntry] | None:
    """An extended entry as prefix-list entries: at each length L whose netmask matches the
    destination (``netmask(L) & ~wildcard == mask & ~wildcard``), the prefixes of length L whose
    address matches the source: from the source's own length S on, ``A/S ge L le M`` for each run
    L..M of such lengths (``A/S le M`` from S itself), and below S the one prefix ``A/L`` when A has
    no bits past L. None: a source wildcard that is not contiguous low bits, or an address (or mask)
    with bits inside its wildcard."""
    address, wildcard = source
    mask, mask_wildcard = destination
    if wildcard & (wildcard + 1) or address & wildcard or mask & mask_wildcard:
        return None
    length = 32 - wildcard.bit_length()
    lengths = [n for n in range(33) if ((0xFFFFFFFF << (32 - n)) & 0xFFFFFFFF) & ~mask_wildcard == mask]
    entries = [PrefixListEntry(seq, action, net_str((address, n)), None, None, line)
               for n in lengths if n < length and not address & ((1 << (32 - n)) - 1)]
    runs: list[list[int]] = []  # consecutive lengths from the source's own on: one entry each
    for n in (n for n in lengths if n >= length):
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    prefix = net_str((address, length))
    for low, high in runs:
        if low == high == length:
            entries.append(PrefixListEntry(seq, action, prefix, None, None, line))
        else:
            entries.append(PrefixListEntry(seq, action, prefix, None if low == length else low, high, line))
    return entries


# neighbor subcommands of the `router bgp` node itself; every other one belongs to an address family
_NEIGHBOR_BGP_NODE = {"remote-as", "description", "peer-group", "shutdown", "interface", "timers", "update-source",
                      "bfd", "password", "ebgp-multihop", "capability", "local-as", "port", "ttl-security",
                      "enforce-first-as", "passive", "solo", "strict-capability-match", "advertisement-interval",
                      "dont-capability-negotiate", "override-capability", "disable-connected-check", "extended-optional-parameters",
                      "graceful-restart", "graceful-restart-helper", "graceful-restart-disable", "tcp-mss"}


# the words after `remove-private-AS` (FRR) / `remove-private-as` (EOS) -> Neighbor.remove_private
_REMOVE_PRIVATE = {(): "plain", ("all",): "all", ("replace-AS",): "replace", ("all", "replace-AS"): "all-replace"}
_REMOVE_PRIVATE_EOS = {(): "plain", ("all",): "all", ("all", "replace-as"): "all-replace"}


def bgp_timers(keepalive: str, hold: str) -> tuple[int, int] | None:
    """`timers [bgp] KEEPALIVE HOLD` as (keepalive, hold); None where bgpd refuses it (a hold time
    other than 0 must be at least 3 s, RFC 4271 4.2)."""
    k, h = _int(keepalive, 65535), _int(hold, 65535)
    if k is None or h is None or 0 < h < 3:
        return None
    return k, h


def _neighbor(inst: BgpInstance, w: list[str], line: int) -> Neighbor:
    n = inst.neighbors.get(w[1])
    if n is None:  # not setdefault: that would build a throwaway Neighbor for each of its lines
        n = inst.neighbors[w[1]] = Neighbor(w[1], line=line)
    return n


_EOS_PASSWORD_FORMS = frozenset({"0", "7", "8a"})  # the word EOS may put between `password` and the value
_ADDPATH_TX = ("addpath-tx-all-paths", "addpath-tx-bestpath-per-AS")  # FRR's words (Neighbor.addpath_tx_line)
# BGP roles (RFC 9234) as FRR names them, each with the role the other end must take
BGP_ROLES = {"provider": "customer", "customer": "provider", "rs-server": "rs-client", "rs-client": "rs-server",
             "peer": "peer"}

# neighbor statements that change when a session notices a fault or restarts, or how its TCP
# segments are sized, never whether it comes up or what it carries (keepalive/hold timers, BFD:
# bgpd and EOS take a session down only when a BFD session that was up goes down, graceful
# restart, the advertisement interval, FRR's `tcp-mss`, EOS's copy of what arrives before the
# policy; `capability dynamic`, below: capabilities changed without a reset, only when both ends
# offer it: each left the twin's sessions and RIBs as without it, kind session-knob)
_SESSION_TIMING = frozenset({"timers", "bfd", "graceful-restart", "graceful-restart-helper",
                             "graceful-restart-disable", "advertisement-interval", "tcp-mss"})
# EOS's: how long routes wait before going out to a neighbor that came up, how long a session
# stays idle before it is tried again
_EOS_SESSION_TIMING = frozenset({"out-delay", "idle-restart-timer"})


def _internal(inst: BgpInstance, n: Neighbor) -> bool | None:
    """Whether ``n``'s remote-as makes it an iBGP neighbor (None: it has none)."""
    if n.remote_kind is not None:
        return n.remote_kind == "internal"
    return None if n.remote_asn is None else n.remote_asn == inst.asn


def _peer_types_differ(inst: BgpInstance, n: Neighbor, group: Neighbor | None) -> bool:
    """bgpd refuses to bind an eBGP neighbor to an iBGP peer-group and the reverse (measured on 8.4:
    `remote-as internal` group, a member of another AS)."""
    if group is None:
        return False
    mine, theirs = _internal(inst, n), _internal(inst, group)
    return mine is not None and theirs is not None and mine != theirs


def _standard_communities(which: list[str], eos: bool) -> bool | None:
    """`[no] neighbor X send-community [WHICH]`: whether the statement is about the standard
    communities (FRR: none, `standard`, `both`, `all`; `extended` and `large` are not; EOS may list
    several of standard/extended/large); None: not a form the platform knows."""
    if not which:
        return True
    if eos:
        return "standard" in which if len(set(which)) == len(which) <= 3 and \
            set(which) <= {"standard", "extended", "large"} else None
    if len(which) != 1 or which[0] not in ("all", "both", "standard", "extended", "large"):
        return None
    return which[0] in ("all", "both", "standard")


_MISSING_POLICY_INCLUDES = frozenset({"community-list", "prefix-list", "sub-route-map"})


def missing_policy_line(w: list[str], line: int, af: bool = False,
                        negated: bool = False) -> MissingPolicy | None:
    """The words after EOS's `missing-policy` (`[include KIND ...] direction in|out action
    deny|permit|deny-in-out`) as a MissingPolicy; None where they are not that form. Taken back
    (``negated``: `no ... missing-policy [include ...] direction D [action A]`), the action may be
    left out: the result then says only the direction (its action "")."""
    includes: set[str] = set()
    i = 0
    if w[:1] == ["include"]:
        i = 1
        while i < len(w) and w[i] in _MISSING_POLICY_INCLUDES and w[i] not in includes:
            includes.add(w[i])
            i += 1
        if not includes:
            return None
    rest = w[i:]
    if len(rest) < 2 or rest[0] != "direction" or rest[1] not in ("in", "out"):
        return None
    if negated and len(rest) == 2:
        return MissingPolicy(rest[1], "", frozenset(includes), line, af)
    if len(rest) != 4 or rest[2] != "action" or rest[3] not in ("deny", "permit", "deny-in-out"):
        return None
    return MissingPolicy(rest[1], rest[3], frozenset(includes), line, af)


def missing_policy_set(policies: Sequence[MissingPolicy], policy: MissingPolicy,
                       negated: bool = False) -> tuple[MissingPolicy, ...]:
    """``policies`` with ``policy`` in place of the one for its direction at its level (negated:
    without it)."""
    kept = tuple(p for p in policies if p.direction != policy.direction or p.af != policy.af)
    return kept if negated else kept + (policy,)


def neighbor_statement(inst: BgpInstance, w: list[str], line: int = 0, negated: bool = False,
                       eos: bool = False, af: bool = False) -> bool:
    """`neighbor ADDR|GROUP remote-as|description|route-map|peer-group|shutdown|activate ...`: the
    same words in FRR and EOS, but for the receive limit (FRR `maximum-prefix`, EOS `maximum-routes`,
    ``eos``). False for a neighbor statement the model does not read (timers, update-source, an
    unnumbered interface neighbor ...): the caller reports it."""
    if len(w) < 3:
        return False
    name, verb = w[1], w[2]
    # a name is checked once, when it is first met (neighbor lines are most of a big config)
    if name not in inst.neighbors and not (is_ip(name) or WORD_NAME.fullmatch(name)):
        return False
    if not eos and verb not in ("remote-as", "interface", "peer-group"):
        known = inst.neighbors.get(name)
        if known is None or not known.defined:
            if verb not in frr_cli.keywords():
                return False  # (an abbreviation, read again in full words, or not FRR's at all)
            # bgpd: "Specify remote-as or peer-group commands first"; the neighbor does not exist
            inst.refused.append((line, " ".join((["no"] if negated else []) + w),
                                 "no `remote-as` or `peer-group` for that neighbor before this line"))
            return True
    if verb == "peer-group" and len(w) == 4 and not eos and w[3] not in inst.peer_groups:
        inst.refused.append((line, " ".join(w), f"peer-group {w[3]} is not defined before this line"))
        return True
    if verb == "interface" and not negated and is_ip(name) and len(w) == 4 and not eos:
        # `neighbor ADDRESS interface PORT`: a numbered neighbor's connection bound to a port
        n = _neighbor(inst, w, line)
        n.bound_port = (w[3], line)
        return True
    if verb == "interface" and not negated:
        # `neighbor PORT interface [v6only] [peer-group PG | remote-as ASN|external|internal]`
        rest = [x for x in w[3:] if x != "v6only"]
        n = _neighbor(inst, w, line)
        n.interface = n.defined = True
        if rest[:1] == ["remote-as"] and len(rest) == 2:
            return neighbor_statement(inst, ["neighbor", name, "remote-as", rest[1]], line)
        if rest[:1] == ["peer-group"] and len(rest) == 2:
            n.peer_group = rest[1]
            return True
        return not rest
    if verb == "timers" and len(w) in (3, 5) and w[3:4] not in (["connect"], ["delayopen"]):  # (those: below)
        if negated:
            n = _neighbor(inst, w, line)
            n.timers, n.timers_line = None, 0
            return True
        timers = bgp_timers(w[3], w[4]) if len(w) == 5 else None
        if timers is None:
            return False
        n = _neighbor(inst, w, line)
        n.timers, n.timers_line = timers, line
        return True
    if verb == "port" and len(w) in (3, 4) and not eos:
        port = _int(w[3], 65535) if len(w) == 4 else None
        if negated:
            n = _neighbor(inst, w, line)
            n.port, n.port_line = None, 0
            return True
        if port is None:
            return False
        n = _neighbor(inst, w, line)
        n.port, n.port_line = port, line
        return True
    if verb in _SESSION_TIMING or eos and (w[2:] == ["rib-in", "pre-policy", "retain"]
                                           or verb in _EOS_SESSION_TIMING and len(w) == 4 and w[3].isdigit()) \
            or not eos and w[2:] == ["capability", "dynamic"]:
        return True
    if verb == "missing-policy" and eos:
        policy = missing_policy_line(w[3:], line, af, negated)
        if policy is None:
            return False
        n = _neighbor(inst, w, line)
        n.missing_policies = missing_policy_set(n.missing_policies, policy, negated)
        return True
    if negated:
        if verb == "activate" and len(w) == 3:
            _neighbor(inst, w, line).activate = False
            return True
        if verb == "send-community" and (standard := _standard_communities(w[3:], eos)) is not None:
            if standard:  # (only extended or large ones: communities nothing in the fabric reads)
                _neighbor(inst, w, line).send_community = False
            return True
        if verb in _ADDPATH_TX and len(w) == 3 and not eos:
            _neighbor(inst, w, line).addpath_tx_line = 0
            return True
        if verb == "maximum-prefix-out" and len(w) in (3, 4) and not eos:
            n = _neighbor(inst, w, line)
            n.send_limit, n.send_limit_line = None, 0
            return True
        return _setting_taken_back(inst, w, eos)
    if verb == "remote-as" and len(w) == 4:
        kind = w[3] if w[3] in ("external", "internal") else None
        asn = None if kind else parse_asn(w[3])
        if kind is None and asn is None:
            return False
        n = _neighbor(inst, w, line)
        group = inst.neighbors.get(n.peer_group) if n.peer_group and not eos and not negated else None
        if group is not None and (group.remote_asn is not None or group.remote_kind is not None):
            inst.refused.append((line, " ".join(w), f"{name} is a member of peer-group {n.peer_group}, which has "
                                                    "its own remote-as"))
            return True
        n.remote_asn, n.remote_kind, n.defined = asn, kind, True
    elif verb == "description":
        _neighbor(inst, w, line).description = " ".join(w[3:])
    # (the verbs' order: the common ones first; no two branches take the same verb and length)
    elif verb == "route-map" and len(w) == 5 and w[4] in ("in", "out"):
        n = _neighbor(inst, w, line)
        if w[4] == "in":
            n.route_map_in = w[3]
        else:
            n.route_map_out = w[3]
    elif verb == "shutdown" and (len(w) == 3 or not eos and len(w) > 4 and w[3] == "message"):
        # (FRR: the message goes into the NOTIFICATION to the peer; the session is down either way)
        _neighbor(inst, w, line).shutdown = True
    elif verb == "activate" and len(w) == 3:
        _neighbor(inst, w, line).activate = True
    elif verb == "peer-group" and len(w) == 3:  # defines the group
        inst.peer_groups.add(name)
        _neighbor(inst, w, line).defined = True
    elif verb == "peer-group" and len(w) == 4:  # binds the neighbor to a group
        n = _neighbor(inst, w, line)
        if not eos and not negated and _peer_types_differ(inst, n, inst.neighbors.get(w[3])):
            inst.refused.append((line, " ".join(w), f"{name} is an {'i' if _internal(inst, n) else 'e'}BGP neighbor and "
                                                    f"peer-group {w[3]} is not"))
            return True
        n.peer_group, n.defined = w[3], True
    elif verb == "password" and len(w) >= 4:
        # FRR's password is the rest of the line; EOS stores it encrypted with the neighbor's name, so
        # two ends' strings cannot be compared: EOS's is reported unmodelled and the pair not judged
        n = _neighbor(inst, w, line)
        # EOS: `password [0|7|8a] VALUE`; FRR: the rest of the line
        value = w[4:] if eos and w[3] in _EOS_PASSWORD_FORMS and len(w) > 4 else w[3:]
        if not (len(value) == 1 and is_reference(value[0])):
            inst.literal_passwords.append(line)
        if eos:  # (judged where the other end sets none: one end signs, the other does not)
            n.password_opaque, n.password_line = True, line
            return False
        n.password, n.password_line = " ".join(w[3:]), line
    elif verb == "send-community" and (standard := _standard_communities(w[3:], eos)) is not None:
        if standard:  # (only extended or large ones: communities nothing in the fabric reads)
            _neighbor(inst, w, line).send_community = True
    elif verb == "soft-reconfiguration" and (w[3:] == ["inbound"] or eos and w[3:] == ["inbound", "all"]):
        pass  # keeps a copy of what arrives (EOS `all`: what the inbound policy rejects too)
    elif verb == "enforce-first-as" and len(w) == 3:
        # drops a path whose AS path does not begin with the AS the peer presents (FRR: off unless
        # said, measured in the twin). Every path the model sends over eBGP begins with it (the
        # sender's AS, or its `local-as`, goes on after its outbound policy), so nothing changes
        pass
    elif verb == "solo" and len(w) == 3 and not eos:
        # routes are not sent back to the peer they came from: over eBGP the peer drops them anyway
        # (its own ASN is in their AS path), so nothing it installs changes
        pass
    elif verb == "passive" and len(w) == 3:
        _neighbor(inst, w, line).passive = True
    elif verb == "update-source" and len(w) == 4 and (is_ip(w[3]) or PORT_NAME.fullmatch(w[3])):
        n = _neighbor(inst, w, line)
        n.update_source, n.update_source_line = w[3], line
    elif verb == "route-reflector-client" and len(w) == 3 and not eos:
        # judged once the session's kind is known (finish_bgp): refused on eBGP, unmodelled on iBGP
        _neighbor(inst, w, line).rr_client_line = line
    elif verb == "maximum-prefix-out" and not eos and len(w) == 4 and (limit := _int(w[3], 4294967295)):
        n = _neighbor(inst, w, line)
        n.send_limit, n.send_limit_line = limit, line
    elif verb == "maximum-accepted-routes" and eos and len(w) >= 4 and is_decimal(w[3]) \
            and int(w[3]) <= 4294967295 and (len(w) == 4 or w[4] == "warning-limit" and len(w) in (6, 7)):
        # (the warning limit only logs; 0 is no limit)
        n = _neighbor(inst, w, line)
        n.accept_limit, n.accept_limit_line = (int(w[3]) or None), line
    elif verb == ("maximum-routes" if eos else "maximum-prefix"):
        limit = _receive_limit(w[3:], frr=not eos)
        if limit is None:
            return False
        n = _neighbor(inst, w, line)
        n.max_prefix, n.max_prefix_line = limit, line
    elif verb == "local-as" and len(w) >= 4 and (local := parse_asn(w[3])) is not None and (
            w[4:] in ([], ["no-prepend"], ["no-prepend", "replace-as"]) if not eos else w[4:] == ["no-prepend", "replace-as"]):
        # (EOS takes only `local-as N no-prepend replace-as [fallback]`; with fallback the session
        # also comes up with the real ASN: not read)
        n = _neighbor(inst, w, line)
        n.local_as, n.local_as_line = local, line
        n.local_as_no_prepend, n.local_as_replace = "no-prepend" in w[4:], "replace-as" in w[4:]
    elif verb == "allowas-in" and len(w) in (3, 4):
        count = 3 if len(w) == 3 else 1 if w[3] == "origin" else _int(w[3], 10)
        if not count:
            return False
        _neighbor(inst, w, line).allowas_in = count
    elif verb == "attribute-unchanged" and not eos and set(w[3:]) <= {"as-path", "next-hop", "med"} \
            and (len(w) == 3 or "next-hop" in w[3:]):
        # as-path and med left unchanged are not followed: only the next hop's effect is modelled
        _neighbor(inst, w, line).next_hop_unchanged_line = line
        return set(w[3:]) == {"next-hop"}
    elif verb == "next-hop-unchanged" and eos and len(w) == 3:
        _neighbor(inst, w, line).next_hop_unchanged_line = line
    elif verb == ("remove-private-as" if eos else "remove-private-AS") and \
            (mode := _REMOVE_PRIVATE_EOS.get(tuple(w[3:])) if eos else _REMOVE_PRIVATE.get(tuple(w[3:]))):
        n = _neighbor(inst, w, line)
        n.remove_private, n.remove_private_line = mode, line
    elif verb == "default-originate" and (w[3:] in ([], ["route-map", w[-1]]) or eos and w[3:4] == ["always"]
                                          and w[4:] in ([], ["route-map", w[-1]])):
        _neighbor(inst, w, line).default_originate_line = line
    elif verb == "as-override" and len(w) == 3 and not eos or eos and w[2:] == _EOS_AS_OVERRIDE:
        # (EOS's `as-path remote-as replace out`: the peer's ASN in the paths it is sent becomes
        # the sender's, as bgpd's as-override does)
        _neighbor(inst, w, line).as_override_line = line
    elif verb in _ADDPATH_TX and len(w) == 3 and not eos:
        _neighbor(inst, w, line).addpath_tx_line = line
    elif verb == "next-hop-self" and (len(w) == 3 or not eos and w[3:] == ["force"]):
        # (`force`: also on the routes a route reflector passes on; over eBGP the sender's own address anyway)
        _neighbor(inst, w, line).next_hop_self = True
    elif verb == "weight" and len(w) == 4 and (weight := _int(w[3], 65535)) is not None:
        n = _neighbor(inst, w, line)
        n.weight, n.weight_line = weight, line
    elif (verb == "ttl-security" and len(w) == 5 and w[3] == "hops" and not eos
          or verb == "ttl" and len(w) == 5 and w[3] == "maximum-hops" and eos) and (hops := _int(w[4], 254)):
        # GTSM: FRR `ttl-security hops H`, EOS `ttl maximum-hops H` (sent with TTL 255, taken at >= 256-H)
        n = _neighbor(inst, w, line)
        n.ttl_security, n.ttl_security_line = hops, line
    elif verb == "ebgp-multihop" and len(w) in (3, 4):  # (EOS alike: no number is 255)
        ttl = _int(w[3], 255) if len(w) == 4 else 255
        if not ttl:
            return False
        n = _neighbor(inst, w, line)
        n.ebgp_multihop, n.unconnected_ok_line = ttl, line  # (GTSM reads the TTL it sends)
    elif verb == "dont-capability-negotiate" and len(w) == 3 and not eos:
        _neighbor(inst, w, line).no_capabilities_line = line
    elif verb == "local-role" and not eos and len(w) in (4, 5) and w[3] in BGP_ROLES \
            and w[4:] in ([], ["strict-mode"]):
        n = _neighbor(inst, w, line)
        n.local_role, n.local_role_strict, n.local_role_line = w[3], len(w) == 5, line
    elif verb == "disable-connected-check" and len(w) == 3 and not eos:
        _neighbor(inst, w, line).unconnected_ok_line = line
    elif verb == "capability" and w[3:] == ["extended-nexthop"] and not eos and is_ip(w[1]):
        # RFC 8950 on a session over IPv4: IPv4 routes keep their IPv4 next hop (only an IPv6
        # session carries them with an IPv6 one); unnumbered neighbors have it on anyway
        _neighbor(inst, w, line)
    elif len(w) == 5 and w[4] in ("in", "out") and (verb == "prefix-list" and WORD_NAME.fullmatch(w[3])
                                                   or verb == "distribute-list" and not eos
                                                   and _LIST_NAME.fullmatch(w[3])):
        # a distribute-list (an access list) is evaluated as the prefix-list its list is read as
        # (finish_bgp); bgpd refuses a prefix-list and a distribute-list on one neighbor and
        # direction ("% Prefix/distribute list can not co-exist"): the second is not taken
        n = _neighbor(inst, w, line)
        name = w[3] if verb == "prefix-list" else ACCESS_LIST_PREFIX + w[3]
        held = getattr(n, f"prefix_list_{w[4]}")
        if held is not None and held.startswith(ACCESS_LIST_PREFIX) != name.startswith(ACCESS_LIST_PREFIX):
            inst.refused.append((line, " ".join(w), "a prefix-list and a distribute-list cannot co-exist"))
            return True
        setattr(n, f"prefix_list_{w[4]}", name)
        n.prefix_list_lines[w[4]] = line
    elif verb == "filter-list" and len(w) == 5 and w[4] in ("in", "out") and not eos and _LIST_NAME.fullmatch(w[3]):
        n = _neighbor(inst, w, line)  # (evaluated on each route's AS path: verify/aspaths.py)
        setattr(n, f"filter_list_{w[4]}", w[3])
        setattr(n, f"filter_list_{w[4]}_line", line)
    else:
        return False
    return True


# `no neighbor X VERB ...`: the neighbor's fields VERB set, back to their defaults (whatever value or
# options the line repeats: bgpd and EOS unset the setting)
_UNSET: dict[str, tuple[str, ...]] = {
    "description": ("description",),
    "shutdown": ("shutdown",),
    "passive": ("passive",),
    "update-source": ("update_source", "update_source_line"),
    "local-as": ("local_as", "local_as_line", "local_as_no_prepend", "local_as_replace"),
    "allowas-in": ("allowas_in",),
    "ebgp-multihop": ("ebgp_multihop", "unconnected_ok_line"),
    "weight": ("weight", "weight_line"),
    "next-hop-self": ("next_hop_self",),
    "default-originate": ("default_originate_line",),
}
_UNSET_FRR: dict[str, tuple[str, ...]] = {
    "password": ("password", "password_line"),
    "ttl-security": ("ttl_security", "ttl_security_line"),
    "disable-connected-check": ("unconnected_ok_line",),
    "dont-capability-negotiate": ("no_capabilities_line",),
    "local-role": ("local_role", "local_role_strict", "local_role_line"),
    "interface": ("bound_port",),  # (a numbered neighbor's: an unnumbered one is deleted, bgp_negation)
    "attribute-unchanged": ("next_hop_unchanged_line",),
    "remove-private-AS": ("remove_private", "remove_private_line"),
    "as-override": ("as_override_line",),
    "maximum-prefix": ("max_prefix", "max_prefix_line"),
    "route-reflector-client": ("rr_client_line",),
}
_UNSET_EOS: dict[str, tuple[str, ...]] = {
    "password": ("password", "password_line", "password_opaque"),
    "ttl": ("ttl_security", "ttl_security_line"),
    "next-hop-unchanged": ("next_hop_unchanged_line",),
    "remove-private-as": ("remove_private", "remove_private_line"),
    "maximum-routes": ("max_prefix", "max_prefix_line"),
    "maximum-accepted-routes": ("accept_limit", "accept_limit_line"),
}
# the per-direction settings (`... NAME in|out`; a distribute-list is held as its prefix-list)
_DIRECTED = {"route-map": ("route_map_{}",), "prefix-list": ("prefix_list_{}",),
             "distribute-list": ("prefix_list_{}",), "filter-list": ("filter_list_{}", "filter_list_{}_line")}
_DIRECTED_FRR_ONLY = frozenset({"distribute-list", "filter-list"})
_EOS_AS_OVERRIDE = ["as-path", "remote-as", "replace", "out"]


def _setting_taken_back(inst: BgpInstance, w: list[str], eos: bool) -> bool:
    """`no neighbor X VERB ...` of a setting the model reads: back to the default (a neighbor not
    configured: nothing to take back). False for a verb the model does not read."""
    verb = w[2]
    names: tuple[str, ...] = ()
    if verb in _DIRECTED and w[-1] in ("in", "out") and len(w) in (4, 5) and not (eos and verb in _DIRECTED_FRR_ONLY):
        names = tuple(field_name.format(w[-1]) for field_name in _DIRECTED[verb])
    elif eos and w[2:] == _EOS_AS_OVERRIDE:
        names = ("as_override_line",)
    elif verb not in _DIRECTED:
        names = _UNSET.get(verb) or (_UNSET_EOS if eos else _UNSET_FRR).get(verb) or ()
    if not names:
        return False
    n = inst.neighbors.get(w[1])
    if n is not None:
        defaults = Neighbor.__dataclass_fields__
        for name in names:
            setattr(n, name, defaults[name].default)
        if verb in ("prefix-list", "distribute-list"):
            n.prefix_list_lines.pop(w[-1], None)
    return True


def redistribution(inst: BgpInstance, w: list[str], line: int, sources: tuple[str, ...] = ("connected", "static")) -> bool:
    """`redistribute connected|static [route-map NAME] [metric N]` (FRR takes the options in either
    order; EOS spells the route-map alike; FRR's ``sources`` add `kernel`: the routes a command put
    in the kernel, StaticRoute.kernel); False for another source or option (not read). The
    metric is the MED the originated routes carry (controlplane._origin_attributes)."""
    if len(w) < 2 or w[1] not in sources:
        return False
    options: dict[str, str] = {}
    rest = w[2:]
    while rest:
        if len(rest) < 2 or rest[0] not in ("route-map", "metric") or rest[0] in options \
                or rest[0] == "metric" and _int(rest[1], 4294967295) is None:
            return False
        options[rest[0]] = rest[1]
        rest = rest[2:]
    if w[1] not in inst.redistribute:
        inst.redistribute.append(w[1])
    inst.redistribute_lines[w[1]] = line
    if "route-map" in options:
        inst.redistribute_maps[w[1]] = (options["route-map"], line)
    else:
        inst.redistribute_maps.pop(w[1], None)
    if "metric" in options:
        inst.redistribute_metrics[w[1]] = (int(options["metric"]), line)
    else:
        inst.redistribute_metrics.pop(w[1], None)
    return True


def _receive_limit(w: list[str], frr: bool) -> int | None:
    """The limit of `neighbor X maximum-prefix N [THRESHOLD] [warning-only | restart MINUTES]` (FRR)
    or `neighbor X maximum-routes N [warning-only]` (EOS; 0 is no limit): N, or 0 when the limit
    only logs (`warning-only`). A limit with `restart` still tears the session down (it comes back
    after the minutes, and goes down again). None: what the model does not read (FRR's `force`,
    which also counts what the inbound policy denies; a malformed number)."""
    if not w or not is_decimal(w[0]) or int(w[0]) > 4294967295 or (frr and int(w[0]) == 0):
        return None
    limit, rest = int(w[0]), w[1:]
    if frr and rest and is_decimal(rest[0]):
        if not 1 <= int(rest[0]) <= 100:
            return None
        rest = rest[1:]  # the warning threshold (a percentage): a log line, nothing more
    if rest == ["warning-only"]:
        return 0
    if frr and len(rest) == 2 and rest[0] == "restart" and is_decimal(rest[1]) and 1 <= int(rest[1]) <= 65535:
        return limit
    return limit if not rest else None


def route_map_entry(node: Node, dev: DeviceConfig) -> None:
    """`route-map NAME permit|deny SEQ` with its `match ip address prefix-list` lines (EOS's tree);
    anything else is reported with its line."""
    w = node.words
    seq = _int(w[3], 65535) if len(w) == 4 else 10 if len(w) == 3 else None  # (EOS: 10 when not written)
    if seq is None or w[2] not in ("permit", "deny"):
        dev.unmodelled.append((node.line, node.text))
        return
    entry = file_map_entry(dev.route_maps.setdefault(w[1], []), seq, w[2], node.line)
    for child in node.children:
        if not route_map_clause(entry, child.words, child.line):
            dev.unmodelled.append((child.line, child.text))


# `match X VALUE` on what a route carries or where it comes from (RouteMapEntry.attribute_clauses)
_ATTRIBUTE_MATCHES = (["match", "origin"], ["match", "metric"], ["match", "tag"], ["match", "local-preference"],
                      ["match", "peer"])


def route_map_clause(entry: RouteMapEntry, w: list[str], line: int, replaces: bool = False) -> bool:
    """One line inside a route-map entry (FRR and EOS spell these alike): `match ip address
    prefix-list X`, `set as-path prepend ASN...|last-as N` (repeated: FRR and EOS keep the last),
    `set local-preference|weight|metric N` (absolute values; `+N`, `-N` as deltas; `igp` is not
    read), the matches on a route's attributes (`match origin|metric|tag|local-preference|peer`,
    `match ip next-hop address|type blackhole`, `match probability 0|100`), zebra's matches bgpd
    ignores (`match ip address prefix-len`, `match source-protocol`),
    `set ip next-hop A.B.C.D|peer-address|unchanged`, `set origin igp|egp|incomplete`, a description,
    and `no` of each (the clause taken back). ``replaces`` (FRR's): a match of a kind the entry
    already has replaces it (lib/routemap.c keeps one rule per match command: measured on 8.4, the
    running-config keeps the last), where EOS's are read as all applying. False: a line the model
    does not read."""
    if w[0] == "no":
        return _route_map_undo(entry, w[1:])
    if w[:4] == ["match", "ip", "address", "prefix-list"] and len(w) == 5:
        if replaces:
            entry.match_prefix_lists.clear()
        entry.match_prefix_lists.append(w[4])
        return True
    if w[0] != "match":
        return _route_map_set(entry, w, line)
    if (w[:2] == ["match", "community"] and len(w) in (3, 4) and w[3:] in ([], ["exact-match"])
            or w[:2] == ["match", "as-path"] and len(w) == 3):
        return _match_clause(entry.match_lists, w[1], w[2], line, replaces)  # (judged in finish_bgp)
    if w[:3] == ["match", "ip", "address"] and len(w) == 4:
        return _match_clause(entry.match_lists, "access-list", w[3], line, replaces)
    if w[:4] == ["match", "ip", "next-hop", "prefix-list"] and len(w) == 5:
        return _match_clause(entry.match_lists, "next-hop prefix-list", w[4], line, replaces)
    if w[:3] == ["match", "ipv6", "address"] and (len(w) == 4 or len(w) == 5 and w[3] == "prefix-list"):
        kind = "ipv6 prefix-list" if len(w) == 5 else "ipv6 access-list"
        return _match_clause(entry.match_lists, kind, w[-1], line, replaces)
    if w[:2] in _ATTRIBUTE_MATCHES and len(w) == 3 and (
            w[2] in ORIGIN_CODES if w[1] == "origin" else is_ip(w[2]) or w[2] == "local" if w[1] == "peer"
            else (value := _int(w[2], 4294967295)) is not None and (w[1] != "tag" or value > 0)):
        return _match_clause(entry.attribute_clauses, w[1], w[2], line, replaces)
    if w[:4] == ["match", "ip", "next-hop", "address"] and len(w) == 5 and is_ip(w[4]) \
            or w == ["match", "ip", "next-hop", "type", "blackhole"] or w[:2] == ["match", "probability"] \
            and w[2:] in (["0"], ["100"]):  # (another probability: routes matched at random, reported)
        return _match_clause(entry.attribute_clauses, " ".join(w[1:-1]), w[-1], line, replaces)
    if w[:4] == ["match", "ip", "address", "prefix-len"] and len(w) == 5 or w[:2] == ["match", "source-protocol"] \
            and len(w) == 3:
        entry.bgpd_ignores.append((" ".join(w), line))  # (zebra's: finish_bgp says where it matters)
        return True
    return False


def _match_clause(clauses: list[tuple[str, str, int]], kind: str, value: str, line: int, replaces: bool) -> bool:
    """A match of ``kind`` into the entry's ``clauses``; ``replaces``: the one already there of that
    kind goes (route_map_clause)."""
    if replaces:
        clauses[:] = [clause for clause in clauses if clause[0] != kind]
    clauses.append((kind, value, line))
    return True


def _route_map_set(entry: RouteMapEntry, w: list[str], line: int) -> bool:
    """route_map_clause's lines that are no `match` (its `set` clauses, a description)."""
    if w[:2] == ["set", "src"] and len(w) == 3 and is_ip(w[2]):
        entry.src = (w[2], line)
        return True
    if w[:2] == ["set", "tag"]:
        entry.sets_tag_line = line
        return False
    if w[:4] == ["set", "as-path", "prepend", "last-as"] and len(w) == 5 and (times := _int(w[4], 10)):
        entry.prepend, entry.prepend_last_as, entry.prepend_line = (), times, line  # (FRR's range 1-10)
        return True
    if w[:3] == ["set", "as-path", "prepend"] and len(w) > 3:
        asns = [parse_asn(word) for word in w[3:]]
        if None in asns or len(asns) > 16:
            return False  # `last-as N`, `auto`, a malformed ASN: not modelled
        entry.prepend = tuple(a for a in asns if a is not None)
        entry.prepend_line, entry.prepend_last_as = line, 0
        return True
    if w[:3] == ["set", "ip", "next-hop"] and len(w) == 4 and (is_ip(w[3]) or w[3] in ("peer-address", "unchanged")):
        entry.next_hop, entry.next_hop_line = w[3], line
        return True
    if len(w) == 3 and w[0] == "set" and w[1] in ("local-preference", "weight", "metric") and is_decimal(w[2]) \
            and int(w[2]) <= 4294967295:
        setattr(entry, {"local-preference": "local_pref", "weight": "weight", "metric": "med"}[w[1]], int(w[2]))
        entry.attribute_lines[w[1]] = line
        entry.deltas.pop(w[1], None)
        return True
    if len(w) == 3 and w[0] == "set" and w[1] in ("local-preference", "metric") and w[2][:1] in ("+", "-") \
            and _int(w[2][1:], 4294967295) is not None:
        setattr(entry, {"local-preference": "local_pref", "metric": "med"}[w[1]], None)  # (the later line wins)
        entry.attribute_lines.pop(w[1], None)
        entry.deltas[w[1]] = (int(w[2]), line)
        return True
    if w[:2] in (["set", "metric"], ["set", "local-preference"]):
        # a value not read (`igp`, `+rtt`, ...) replaces what an earlier line set: nothing known (reported)
        setattr(entry, "med" if w[1] == "metric" else "local_pref", None)
        entry.attribute_lines.pop(w[1], None)
        entry.deltas.pop(w[1], None)
        return False
    if w[:2] == ["set", "origin"] and len(w) == 3 and w[2] in ORIGIN_CODES:
        entry.origin, entry.origin_line = ORIGIN_CODES.index(w[2]), line
        return True
    if w[:2] == ["set", "community"] and w[2:] != ["none"]:
        entry.sets_community_line = line
        words = [x for x in w[2:] if x != "additive"]
        stops = [STOP_COMMUNITIES.get(x.lower()) for x in words]
        entry.community_set = tuple(sorted({x for x in stops if x}))
        entry.community_additive = "additive" in w[2:]
        # judged whole when it writes well-known communities that stop a route and plain AA:NN
        # values: what a plain value does is what a `match community` does with it, and every such
        # clause is reported once anything sets communities (verify/communities.py); any other
        # well-known community (graceful-shutdown, blackhole, llgr-stale, ...) is reported
        return bool(words) and all(stop is not None or plain_community(x) for x, stop in zip(words, stops))
    if w == ["set", "community", "none"]:
        entry.community_set = ()  # (clears what the route carries; still reported: other communities)
    return w[0] == "description"


def _route_map_undo(entry: RouteMapEntry, w: list[str]) -> bool:
    """`no match ...` / `no set ...` in a route-map entry (``w`` without the `no`): the clause gone,
    with or without its value named (FRR and EOS)."""
    if w[:4] == ["match", "ip", "address", "prefix-len"] or w[:2] == ["match", "source-protocol"]:
        said = " ".join(w[:4] if w[1] == "ip" else w[:2])
        entry.bgpd_ignores[:] = [c for c in entry.bgpd_ignores if not c[0].startswith(said)]
    elif w[:4] == ["match", "ip", "address", "prefix-list"] and len(w) in (4, 5):
        entry.match_prefix_lists[:] = [n for n in entry.match_prefix_lists if len(w) == 5 and n != w[4]]
    elif w[:1] == ["match"] and len(w) in (2, 3, 4) and w[1] in ("community", "as-path") or w[:3] == ["match", "ip", "address"]:
        kind = "access-list" if w[1] == "ip" else w[1]
        named = w[3] if kind == "access-list" and len(w) == 4 else w[2] if kind != "access-list" and len(w) >= 3 else None
        entry.match_lists[:] = [m for m in entry.match_lists if m[0] != kind or named is not None and m[1] != named]
    elif w[:3] == ["match", "ipv6", "address"] and len(w) <= 5:
        listed = len(w) >= 4 and w[3] == "prefix-list"
        kind, named = ("ipv6 prefix-list", w[4] if len(w) == 5 else None) if listed else \
            ("ipv6 access-list", w[3] if len(w) == 4 else None)
        entry.match_lists[:] = [m for m in entry.match_lists if m[0] != kind or named is not None and m[1] != named]
    elif w[:1] == ["match"] and any(w[1:1 + len(c[0].split())] == c[0].split() for c in entry.attribute_clauses):
        entry.attribute_clauses[:] = [c for c in entry.attribute_clauses if w[1:1 + len(c[0].split())] != c[0].split()
                                      or len(w) == 2 + len(c[0].split()) and c[1] != w[-1]]
    elif w[:2] == ["set", "tag"]:
        entry.sets_tag_line = 0
    elif w[:3] == ["set", "as-path", "prepend"]:
        entry.prepend, entry.prepend_line, entry.prepend_last_as = (), 0, 0
    elif w[:3] == ["set", "ip", "next-hop"]:
        entry.next_hop, entry.next_hop_line = None, 0
    elif w[:1] == ["set"] and len(w) in (2, 3) and w[1] in ("local-preference", "weight", "metric"):
        setattr(entry, {"local-preference": "local_pref", "weight": "weight", "metric": "med"}[w[1]], None)
        entry.attribute_lines.pop(w[1], None)
        entry.deltas.pop(w[1], None)
    elif w[:2] == ["set", "origin"]:
        entry.origin, entry.origin_line = None, 0
    elif w[:2] == ["set", "community"]:
        entry.community_set, entry.community_additive, entry.sets_community_line = None, False, 0
    else:
        return w[:1] == ["description"]
    return True


# RFC 1997's well-known communities that keep a route from going further, by the names FRR and EOS
# write (lower-cased) and by number: NO_EXPORT and NO_EXPORT_SUBCONFED (local-AS) are not sent to
# eBGP peers, NO_ADVERTISE to no peer
STOP_COMMUNITIES = {"no-export": "no-export", "65535:65281": "no-export", "no-advertise": "no-advertise",
                    "65535:65282": "no-advertise", "local-as": "local-AS", "65535:65283": "local-AS"}


_NHT_DEFAULT = ["ip", "nht", "resolve-via-default"]


def _nht_default(dev: DeviceConfig, w: list[str], vrf: str | None, line: int) -> bool:
    """`[no] ip nht resolve-via-default` of ``vrf`` (None: the top level, the default VRF):
    DeviceConfig.nht_default. False for any other line."""
    if w == _NHT_DEFAULT:
        dev.nht_default[vrf] = line
    elif w == ["no", *_NHT_DEFAULT]:
        dev.nht_default.pop(vrf, None)
    else:
        return False
    return True


def _zebra_router_id(dev: DeviceConfig, w: list[str], vrf: str | None) -> bool:
    """zebra's `[no] ip router-id A [vrf V]` (in a `vrf` block: that VRF's): DeviceConfig.
    zebra_router_ids. False for any other line."""
    negated = w[:1] == ["no"]
    w = w[1:] if negated else w
    if w[:2] != ["ip", "router-id"] or len(w) not in (2, 3, 5) or len(w) == 2 and not negated:
        return False
    if len(w) == 5:
        if w[3] != "vrf" or vrf is not None:
            return False
        vrf = None if w[4] == "default" else w[4]
    if len(w) >= 3 and not is_ip(w[2]):
        return False
    if negated:
        dev.zebra_router_ids.pop(vrf, None)
    else:
        dev.zebra_router_ids[vrf] = w[2]
    return True


def plain_community(word: str) -> bool:
    """A community AA:NN outside RFC 1997's reserved ranges (AA 0 and 65535, where the well-known
    ones live): a tag that means nothing to bgpd or EOS unless a `match community` reads it."""
    aa, colon, nn = word.partition(":")
    high, low = _int(aa, 65535), _int(nn, 65535)
    return bool(colon) and high is not None and low is not None and 0 < high < 65535


def _flow_clause(entry: RouteMapEntry, w: list[str], line: int) -> bool:
    """FRR's flow control in a route-map entry: `on-match next`, `on-match goto N` and `continue N`
    (the same: bgpd writes it back as `on-match goto N`), `call NAME`. A goto that does not go
    forward (bgpd refuses to jump backwards) and a bare `continue` are not read: reported. EOS's
    `continue` is not read."""
    if w == ["on-match", "next"]:
        entry.exit_policy, entry.goto_seq = "next", 0
    elif (w[:2] == ["on-match", "goto"] and len(w) == 3 or w[0] == "continue" and len(w) == 2) \
            and (target := _int(w[-1], 65535)) is not None:
        if target <= entry.seq:
            return False
        entry.exit_policy, entry.goto_seq = "goto", target
    elif w[0] == "call" and len(w) == 2 and WORD_NAME.fullmatch(w[1]):
        entry.call = w[1]
    else:
        return False
    entry.flow_line = entry.flow_line or line
    return True


def prefix_at(words: list[str], at: int) -> list[str]:
    """``words`` with an address and a dotted netmask at ``at`` (`ip route 10.0.0.0 255.0.0.0 ...`,
    which FRR and EOS take beside A.B.C.D/M) written as one A.B.C.D/M word; unchanged otherwise."""
    if len(words) > at + 1 and is_ip(words[at]) and is_ip(words[at + 1]) \
            and (length := mask_length(words[at + 1])) is not None:
        return [*words[:at], f"{words[at]}/{length}", *words[at + 2:]]
    return words


def static_route(words: list[str], vrf: str | None, line: int = 0) -> StaticRoute | None:
    """ip route PREFIX (blackhole|Null0|reject|NEXTHOP [IFNAME]|IFNAME) [{DISTANCE|tag N|vrf X|
    nexthop-vrf X|table 254|onlink}] (PREFIX also as an address and a netmask; the options in any
    order, as staticd's grammar takes them; `onlink` only after a gateway and its port, the one
    form staticd has it in)"""
    words = prefix_at(words, 2)
    if len(words) < 4 or not is_prefix(words[2]):
        return None
    nexthop: str | None = words[3]
    if nexthop in ("blackhole", "Null0", "reject") or "blackhole".startswith(words[3]) \
            or "reject".startswith(words[3]):
        nexthop = None  # (FRR: a keyword, even shortened, wins over an interface of that name)
    nh_vrf = None
    rest = words[4:]
    via_port = None
    if nexthop is not None and is_ip(nexthop) and rest and PORT_NAME.fullmatch(rest[0]) \
            and not is_decimal(rest[0]) and rest[0] not in _STATIC_KEYS:
        # (`onlink` right after the gateway is a port of that name: the gateway-only form of
        # staticd's grammar has no such keyword, the gateway-and-port one reads a port there)
        via_port, rest = rest[0], rest[1:]
    distance: int | None = None
    onlink = False
    at = 0
    while at < len(rest):
        key = rest[at]
        if is_decimal(key) and len(key) <= 3 and distance is None:  # administrative distance
            distance = int(key)
            if not 1 <= distance <= 255:  # (FRR and EOS refuse the line: no route; measured on FRR 8.4)
                return None
            at += 1
            continue
        if key == "onlink" and via_port is not None and not onlink:
            onlink = True
            at += 1
            continue
        if at + 1 >= len(rest):
            return None
        value = rest[at + 1]
        at += 2
        if key == "nexthop-vrf":
            nh_vrf = value
        elif key == "vrf":
            vrf = value
        elif key == "table" and value != "254" or key == "label":
            # (another kernel table than the VRF's main one: zebra keeps it out of the VRF's RIB,
            # and it forwards only traffic a rule sends to that table; an MPLS label pushed on the
            # packets: neither is the model's, the caller reports the line)
            return None
        elif key not in ("tag", "table"):
            return None
    return StaticRoute(vrf, words[2], nexthop, nh_vrf, 1 if distance is None else distance, line,
                       via_port=via_port, onlink=onlink)


# the keywords that may follow a static route's next hop (static_route)
_STATIC_KEYS = frozenset({"nexthop-vrf", "vrf", "table", "label", "tag", "color", "segments", "bfd"})


def network_words(w: list[str]) -> list[str]:
    """A `network` statement with its prefix as A.B.C.D/M: bgpd also takes `network A.B.C.D mask
    M` and a bare `network A.B.C.D`, which it gives the address's classful length (its
    apply_classful_mask_ipv4: /8 below 128.0.0.0, /16 below 192.0.0.0, else /24). Other words as
    they are (anything else is returned unchanged)."""
    if len(w) < 2 or not is_ip(w[1]):
        return w
    if len(w) >= 4 and w[2] == "mask" and (length := mask_length(w[3])) is not None and "." in w[3]:
        return [w[0], f"{w[1]}/{length}", *w[4:]]
    first = int(w[1].split(".")[0])
    return [w[0], f"{w[1]}/{8 if first < 128 else 16 if first < 192 else 24}", *w[2:]]


FRR_LABEL_INDEX_MAX = 1048560  # `label-index (0-1048560)` in bgpd's grammar


def network_statement(inst: BgpInstance, w: list[str], line: int, eos: bool = False) -> bool:
    """`network PREFIX [route-map NAME]` (FRR and EOS; the address-and-mask and classful forms
    read as network_words writes them), and FRR's `backdoor` and `label-index N` beside or without
    the route-map (its grammar takes the options in any order); False for anything else. A label
    index only adds a Prefix-SID to the route (for labeled unicast): bgpd originates and advertises
    it as without one (measured in the twin, FRR 8.4). A repeated statement replaces the options of
    the earlier one (bgp_static_set)."""
    w = network_words(w)
    if len(w) < 2 or not is_prefix(w[1]):
        return False
    route_map: str | None = None
    backdoor = labelled = False
    rest = w[2:]
    while rest:
        if rest[0] == "route-map" and len(rest) >= 2 and route_map is None:
            route_map, rest = rest[1], rest[2:]
        elif rest[0] == "backdoor" and not eos and not backdoor:
            backdoor, rest = True, rest[1:]
        elif (rest[0] == "label-index" and not eos and not labelled and len(rest) >= 2
              and _int(rest[1], FRR_LABEL_INDEX_MAX) is not None):
            labelled, rest = True, rest[2:]
        else:
            return False
    if w[1] not in inst.network_lines:
        inst.networks.append(w[1])
        inst.network_lines[w[1]] = line
    if route_map is not None:
        inst.network_maps[w[1]] = (route_map, line)
    else:
        inst.network_maps.pop(w[1], None)
    if backdoor:
        inst.network_backdoor[w[1]] = line
    else:
        inst.network_backdoor.pop(w[1], None)
    return True


def listen_range_refusal(inst: BgpInstance, written: str, group: str) -> str:
    """Why bgpd refuses `bgp listen range RANGE peer-group GROUP` at this point of the file ("":
    it takes it, or already holds it for GROUP). Read in bgpd's bgp_listen_range and
    peer_group_listen_range_add: the range given to another group, a range overlapping one already
    given (to any group: so at most one range holds an address), a group not defined yet, or one
    without a remote-as yet (measured in the twin: the load fails on that line)."""
    start, end = listen_range_span(written)
    held = inst.listen_ranges.get(start)
    if held is not None and held[3] == end:
        return "" if held[1] == group else f"the same listen range is attached to peer-group {held[1]}"
    other = listen_range_overlapping(inst, start, end)
    if other is not None:
        return f"the listen range overlaps {other[0]} (peer-group {other[1]})"
    if group not in inst.peer_groups or group not in inst.neighbors:
        return f"peer-group {group} is not defined before this line"
    defined = inst.neighbors[group]
    if defined.remote_asn is None and defined.remote_kind is None:
        return f"peer-group {group} has no remote-as before this line"
    return ""


def listen_range_span(written: str) -> tuple[int, int]:
    """A listen range's first and last address."""
    net, length = network_of(written)
    return net, net + (1 << (32 - length)) - 1


def listen_range_overlapping(inst: BgpInstance, start: int, end: int) -> tuple[str, str, int, int] | None:
    """The first listen range of ``inst`` (by address) that shares an address with ``start``-``end``:
    the held ranges never overlap, so it is the one starting at or before ``start`` or the next."""
    at = bisect.bisect_right(inst.listen_starts, start) - 1
    for i in (at, at + 1):
        if 0 <= i < len(inst.listen_starts):
            other = inst.listen_ranges[inst.listen_starts[i]]
            if inst.listen_starts[i] <= end and other[3] >= start:
                return other
    return None


def listen_range_holding(inst: BgpInstance, address: int) -> tuple[str, str, int, int] | None:
    """The listen range of ``inst`` that holds ``address`` (one at most: bgpd refuses overlaps)."""
    at = bisect.bisect_right(inst.listen_starts, address) - 1
    if at < 0:
        return None
    held = inst.listen_ranges[inst.listen_starts[at]]
    return held if held[3] >= address else None


def bgp_statement(inst: BgpInstance, w: list[str], line: int = 0) -> bool:
    """One statement of a `router bgp` block or of its ipv4 unicast address family; False when the
    model does not read it."""
    head = w[0]  # dispatch on the first word: neighbor lines are most of a big config
    if head == "neighbor":
        return neighbor_statement(inst, w, line)
    if head == "no":
        return bgp_negation(inst, w[1:], line)
    if head == "network":
        return network_statement(inst, w, line)
    if head == "bgp":
        if w[1:2] == ["router-id"] and len(w) == 3 and is_ip(w[2]):
            inst.router_id = w[2]
        elif w[1:] == ["bestpath", "as-path", "multipath-relax"]:
            inst.multipath_relax = True
        elif w[1:] == ["bestpath", "as-path", "ignore"]:
            inst.as_path_ignore_line = line
        elif w[1:] == ["disable-ebgp-connected-route-check"]:
            inst.ebgp_unconnected_ok_line = line
        elif w[1:] == ["always-compare-med"]:
            inst.always_compare_med = True
        elif w[1:2] == ["minimum-holdtime"] and len(w) == 3 and (least := _int(w[2], 65535)):
            inst.minimum_hold_time, inst.minimum_hold_time_line = least, line
        elif w[1:3] == ["bestpath", "med"] and "missing-as-worst" in w[3:] \
                and set(w[3:]) <= {"missing-as-worst", "confed"}:
            inst.med_missing_as_worst_line = line  # (confed: the fabric has no confederation)
        elif w[1:] == ["default", "ipv4-unicast"]:
            inst.default_ipv4_unicast = True
            inst.default_ipv4_unicast_lines.append((line, True))
        elif w[1:] == ["network", "import-check"]:
            inst.network_import_check = True
        elif w[1:] == ["ebgp-requires-policy"]:
            inst.ebgp_requires_policy = True
        elif w[1:2] == ["shutdown"] and (len(w) == 2 or w[2] == "message"):
            inst.shutdown_line = line
        elif w[1:] == ["graceful-shutdown"]:
            inst.graceful_shutdown_line = line
        elif w[1:3] == ["max-med", "administrative"] and len(w) in (3, 4):
            value = _int(w[3], 4294967295) if len(w) == 4 else DEFAULT_MAX_MED
            if value is None:
                return False
            inst.max_med, inst.max_med_line = value, line
        elif w[1:3] == ["default", "local-preference"] and len(w) == 4 and (pref := _int(w[3], 4294967295)) is not None:
            inst.default_local_pref, inst.default_local_pref_line = pref, line
        elif w[1:3] == ["confederation", "identifier"] and len(w) == 4 and (asn := parse_asn(w[3])) is not None:
            inst.confederation, inst.confederation_line = asn, line
        elif w[1:3] == ["confederation", "peers"] and len(w) > 3 \
                and None not in (peers := [parse_asn(x) for x in w[3:]]):
            inst.confederation_peers += [p for p in peers if p is not None]
        elif w[1:3] == ["listen", "range"] and len(w) == 6 and w[4] == "peer-group" and is_prefix(w[3]):
            refusal = listen_range_refusal(inst, w[3], w[5])
            start, end = listen_range_span(w[3])
            if refusal:
                inst.refused.append((line, " ".join(w), refusal))
            elif start not in inst.listen_ranges:
                inst.listen_ranges[start] = (w[3], w[5], line, end)
                bisect.insort(inst.listen_starts, start)
        elif w[1:3] == ["listen", "limit"] and len(w) == 4 and (limit := _int(w[3], 65535)):
            inst.listen_limit, inst.listen_limit_line = limit, line
        elif w[1:] in _HARMLESS_BGP:
            pass  # logging, restart helper, FRR's default MED grouping, the tie-break among equal paths
        elif w[1:2] == ["graceful-restart"] and len(w) == 4 and w[2] in _RESTART_TIMERS \
                and _int(w[3], _RESTART_TIMERS[w[2]]) is not None:
            pass  # (how long a restarting peer's routes are kept or waited for: not which routes are held)
        else:
            return False
    elif head == "timers" and w[1:2] == ["bgp"] and len(w) == 4 and (timers := bgp_timers(w[2], w[3])) is not None:
        # keepalive and hold time: not which routes are held, but how long a silent peer keeps them
        inst.timers, inst.timers_line = timers, line
    elif head in ("update-delay", "coalesce-time", "write-quanta", "read-quanta") and len(w) == 2 and is_decimal(w[1]):
        pass  # when updates go out at start, and how many packets one I/O pass handles: not which
    elif head == "redistribute" and redistribution(inst, w, line, FRR_REDISTRIBUTED):
        pass
    elif head == "maximum-paths" and len(w) == 2:
        paths = _int(w[1], 1024)
        if not paths:
            return False
        inst.maximum_paths, inst.maximum_paths_line = paths, line
    elif head == "maximum-paths" and w[1] == "ibgp" and len(w) in (3, 4) and _int(w[2], 1024) \
            and w[3:] in ([], ["equal-cluster-length"]):
        inst.maximum_paths_ibgp_line = line  # (judged where an iBGP session is up: controlplane)
    elif head == "distance" and w[1:2] == ["bgp"] and len(w) == 5 and None not in (ds := [_int(x, 255) for x in w[2:]]) \
            and 0 not in ds:
        inst.distance, inst.distance_line = (ds[0] or 0, ds[1] or 0, ds[2] or 0), line
    elif head == "table-map" and len(w) == 2:
        inst.table_map = (w[1], line)
    elif head == "aggregate-address" and (agg := aggregate_line(w, line)) is not None:
        inst.aggregates.append(agg)
    elif head == "import" and w[1:2] == ["vrf"] and len(w) == 3 and w[2] != "route-map":
        inst.vrf_imports.append(w[2])
    elif head == "import" and w[1:3] == ["vrf", "route-map"] and len(w) == 4:
        inst.vpn_import_map = (w[3], line)
    elif head == "route-map" and w[1:2] == ["vpn"] and len(w) == 4 and w[2] in ("import", "export"):
        setattr(inst, f"vpn_{w[2]}_map", (w[3], line))
    elif head == "import" and w[1:] == ["vpn"]:
        inst.vpn_import = True
    elif head == "export" and w[1:] == ["vpn"]:
        inst.vpn_export = True
    elif head in ("route-target", "rt") and w[1:2] == ["vpn"] and len(w) >= 4 and w[2] in ("import", "export", "both"):
        if w[2] in ("import", "both"):
            inst.rt_import.extend(w[3:])
        if w[2] in ("export", "both"):
            inst.rt_export.extend(w[3:])
    elif head == "rd" and w[1:2] == ["vpn"]:
        pass  # the route distinguisher decides nothing about which VRF gets which route
    else:
        return False
    return True


def bgp_negation(inst: BgpInstance, w: list[str], line: int, eos: bool = False) -> bool:
    """A `no ...` statement of a BGP instance (``w`` without the `no`), FRR and EOS alike: it takes
    back what an earlier line set. False when the model does not read it."""
    if w == ["bgp", "default", "ipv4-unicast"]:
        inst.default_ipv4_unicast = False
        inst.default_ipv4_unicast_lines.append((line, False))
    elif w == ["bgp", "network", "import-check"]:
        inst.network_import_check = False
    elif w == ["bgp", "ebgp-requires-policy"]:
        inst.ebgp_requires_policy = False
    elif w[:2] == ["bgp", "shutdown"]:
        inst.shutdown_line = 0
    elif w[:3] == ["bgp", "listen", "range"] and len(w) == 6 and w[4] == "peer-group" and is_prefix(w[3]):
        start, end = listen_range_span(w[3])
        held = inst.listen_ranges.get(start)
        if held is not None and (held[1], held[3]) == (w[5], end):
            del inst.listen_ranges[start]
            del inst.listen_starts[bisect.bisect_left(inst.listen_starts, start)]
    elif w[:3] == ["bgp", "listen", "limit"] and len(w) <= 4:
        inst.listen_limit, inst.listen_limit_line = 100, 0
    elif w[:2] == ["timers", "bgp"] and len(w) in (2, 4):
        inst.timers, inst.timers_line = None, 0
    elif w == ["bgp", "graceful-shutdown"]:
        inst.graceful_shutdown_line = 0
    elif w[:3] == ["bgp", "max-med", "administrative"] and len(w) <= 4:
        inst.max_med, inst.max_med_line = None, 0
    elif w[:3] == ["bgp", "default", "local-preference"] and len(w) <= 4:
        inst.default_local_pref, inst.default_local_pref_line = DEFAULT_LOCAL_PREF, 0
    elif w[:3] == ["bgp", "confederation", "identifier"] and len(w) <= 4:
        inst.confederation, inst.confederation_line = None, 0
    elif w[:1] == ["neighbor"] and (len(w) == 2 or len(w) == 4 and w[2] == "remote-as") \
            and w[1] in inst.neighbors and w[1] not in inst.peer_groups:
        del inst.neighbors[w[1]]  # the neighbor and all it was given
    elif not eos and w[:1] == ["neighbor"] and w[1] in inst.peer_groups and (len(w) == 2 or w[2:] == ["peer-group"]):
        # bgpd deletes a peer-group with every member bound to it (measured on 8.4, a member that
        # had its own remote-as before it joined included)
        inst.peer_groups.discard(w[1])
        for name in [n.address for n in inst.neighbors.values() if n.peer_group == w[1]] + [w[1]]:
            inst.neighbors.pop(name, None)
    elif not eos and w[:1] == ["neighbor"] and len(w) in (3, 4) and w[2] == "peer-group" and w[1] in inst.neighbors \
            and inst.neighbors[w[1]].peer_group is not None and w[3:] in ([], [inst.neighbors[w[1]].peer_group]):
        del inst.neighbors[w[1]]  # bgpd deletes a member taken out of its group (measured on 8.4)
    elif w[:1] == ["neighbor"]:
        return neighbor_statement(inst, ["neighbor"] + w[1:], line, negated=True, eos=eos)
    elif w == ["bgp", "bestpath", "as-path", "multipath-relax"]:
        inst.multipath_relax = False
    elif w == ["bgp", "bestpath", "as-path", "ignore"]:
        inst.as_path_ignore_line = 0
    elif w == ["bgp", "disable-ebgp-connected-route-check"] and not eos:
        inst.ebgp_unconnected_ok_line = 0
    elif w == ["bgp", "always-compare-med"]:
        inst.always_compare_med = False
    elif w[:2] == ["bgp", "minimum-holdtime"] and len(w) <= 3:
        inst.minimum_hold_time, inst.minimum_hold_time_line = 0, 0
    elif w[:3] == ["bgp", "bestpath", "med"] and "missing-as-worst" in w[3:]:
        inst.med_missing_as_worst_line = 0
    elif w[:1] == ["network"] and len(w) >= 2 and is_prefix((w := network_words(w))[1]):
        # FRR removes the statement whatever options follow (none left: it says so and changes nothing)
        for written in [n for n in inst.networks if network_of(n) == network_of(w[1])]:
            inst.networks.remove(written)
            inst.network_lines.pop(written, None)
            inst.network_maps.pop(written, None)
            inst.network_backdoor.pop(written, None)
    elif w[:1] == ["redistribute"] and len(w) >= 2 and w[1] in FRR_REDISTRIBUTED:
        if w[1] in inst.redistribute:
            inst.redistribute.remove(w[1])
        for table in (inst.redistribute_lines, inst.redistribute_maps, inst.redistribute_metrics):
            table.pop(w[1], None)
    elif w[:1] == ["aggregate-address"] and len(w) >= 2 and is_prefix((w := prefix_at(w, 1))[1]):
        inst.aggregates[:] = [a for a in inst.aggregates if network_of(a.prefix) != network_of(w[1])]
    elif w[:1] == ["maximum-paths"] and len(w) <= 2:
        inst.maximum_paths, inst.maximum_paths_line = None, 0
    elif not eos and w[:1] == ["bgp"] and w[1:] in _HARMLESS_BGP_OFF:
        pass
    elif not eos and w[:2] == ["bgp", "graceful-restart"] and len(w) in (3, 4) and w[2] in _RESTART_TIMERS:
        pass  # (the timer back at its default)
    else:
        return False
    return True


DEFAULT_MAX_MED = 4294967294  # FRR's `bgp max-med administrative` without a value

# the sources of `redistribute` the model reads on FRR: a port's subnets, zebra's static routes and
# the kernel routes of the VRF's table (Cumulus: a post-up `ip route`)
FRR_REDISTRIBUTED = ("connected", "static", "kernel")

# `bgp ...` statements that change no route the fabric holds: logging, graceful restart (a helper
# keeps routes through a peer's restart), deterministic MED (FRR's default, how the model groups
# MEDs anyway), compare-routerid (which of several equal paths is "best": the multipath set is
# the same), fast-convergence (a session whose port goes down is reset at once, not at its hold
# timer: twin oracle kind session-knob), preserve-fw-state (the restart flag a peer's helper reads)
# and suppress-duplicates (FRR's default: an update identical to the last one is not sent again);
# reject-as-sets (a route carrying an AS_SET is neither taken in nor sent out: only an `as-set`
# aggregate over learned routes makes one, and both models already send such an aggregate to
# nobody, routing/reference_rib's `withheld`; twin oracle kind session-knob)
_HARMLESS_BGP = (["log-neighbor-changes"], ["graceful-restart"], ["deterministic-med"], ["bestpath", "compare-routerid"],
                 ["fast-convergence"], ["graceful-restart", "preserve-fw-state"], ["suppress-duplicates"],
                 ["reject-as-sets"])

# `bgp graceful-restart TIMER N` and N's largest value (bgpd's ranges): timers of a restart, no route
_RESTART_TIMERS = {"stalepath-time": 4095, "restart-time": 4095, "select-defer-time": 3600, "rib-stale-time": 3600}

# `no bgp ...` statements of FRR that change no route: those of _HARMLESS_BGP switched off but
# deterministic MED (off, paths with MEDs are compared in arrival order, not grouped), and
# fast-external-failover off: a session over a port that goes down then waits for its hold timer,
# but zebra withdraws the port's connected subnet at once and bgpd's next-hop tracking drops every
# path through it with it, so no packet follows a dead port in the meantime
_HARMLESS_BGP_OFF = tuple(w for w in _HARMLESS_BGP if w != ["deterministic-med"]) + (["fast-external-failover"],)

# Top-level lines with nothing for the routing model to read: they neither add nor change a route.
KNOWN_TOP_LEVEL = ("frr version ", "log ", "service integrated-vtysh-config", "no ipv6 forwarding",
                   "ipv6 forwarding", "line vty", "ip forwarding", "agentx")  # (agentx: SNMP's subagent)

# the nodes of the reader (see the module docstring)
TOP, BGP, AF, OTHER_AF, ROUTE_MAP, VRF, OTHER, VTY, ZEBRA_INTERFACE = range(9)
# out of configuration mode: `exit` or `quit` at the top level leaves it (lib/command.c cmd_exit:
# CONFIG_NODE -> ENABLE_NODE); vtysh's file reader then refuses every configuration line until a
# `configure [terminal]` (measured: vtysh --dryrun prints "Unknown command" for each, FRR 8.4), and
# an `exit` or `quit` there ends vtysh itself: no later line is read, and it exits 0
ENABLE = 9
UNREAD = -1  # _top_level: a line it could not read (the caller reports it; its block is OTHER)
_PARENT = {BGP: TOP, AF: BGP, OTHER_AF: BGP, ROUTE_MAP: TOP, VRF: TOP, OTHER: TOP, VTY: TOP, ZEBRA_INTERFACE: TOP}
_ROUTE_MAP_WORDS = {"match", "set", "on-match", "call", "description", "continue"}
_BGP_WORDS = {"bgp", "neighbor", "network", "redistribute", "maximum-paths", "address-family", "timers",
              "aggregate-address", "distance", "coalesce-time", "update-delay", "write-quanta", "read-quanta",
              "table-map", "no"}
_AF_WORDS = {"network", "neighbor", "redistribute", "maximum-paths", "aggregate-address", "import", "export",
             "rt", "rd", "route-target", "label", "table-map", "distance", "no", "bgp"}
_TOP_WORDS = {"frr", "hostname", "log", "service", "no", "ip", "ipv6", "router", "route-map", "vrf", "interface",
              "line", "password", "enable", "agentx", "debug", "bfd", "segment-routing", "mpls", "nexthop-group",
              "username", "zebra", "bgp", "access-list", "key", "pbr-map", "end"}
_EXITS = {"exit", "exit-address-family", "exit-vrf", "exit-vni", "end", "quit"}
# the first words of the configuration node's commands that enter a node of their own (FRR 8.4's
# vtysh: `router ...`, `key chain`, `bfd`, `mpls ldp` ...); any other top-level command leaves FRR
# at the top level
_OPENS_A_NODE = frozenset({"router", "route-map", "vrf", "interface", "line", "key", "bfd", "segment-routing", "mpls",
                           "pseudowire", "pbr-map", "nexthop-group", "l2vpn", "rpki"})
_VTY_WORDS = {"exec-timeout", "access-class", "login"}


def _belongs(node: int, w: list[str]) -> bool:
    """Whether FRR would find the command ``w`` in ``node`` (else it climbs to the parent)."""
    head = w[0]
    if node == AF or node == OTHER_AF:
        if head == "neighbor":
            return len(w) >= 3 and w[2] not in _NEIGHBOR_BGP_NODE
        if head == "no":
            return w[1:2] == ["neighbor"] and len(w) >= 4 and w[3] not in _NEIGHBOR_BGP_NODE
        if head == "bgp":
            return w[1:2] == ["dampening"]
        if head == "route-map":  # `route-map vpn import|export NAME` (a map definition is top-level)
            return w[1:2] == ["vpn"] and len(w) == 4 and w[2] in ("import", "export")
        return head in _AF_WORDS or node == OTHER_AF and head not in _BGP_WORDS and head not in _TOP_WORDS
    if node == BGP:
        # a `no` line is the bgp node's only if the node has that command (`no ipv6 forwarding`
        # written inside the block is zebra's: FRR climbs to the top level and stays there)
        return head in _BGP_WORDS and (head != "no" or frr_cli.node_has("bgp", tuple(w)))
    if node == ROUTE_MAP:
        return head in _ROUTE_MAP_WORDS or head == "no" and len(w) > 1 and w[1] in _ROUTE_MAP_WORDS
    if node == VRF:
        return w[:2] in (["ip", "route"], ["ipv6", "route"]) or head in ("vni", "netns") \
            or w[:3] in (["no", "ip", "route"], ["no", "ipv6", "route"]) or w in (_NHT_DEFAULT, ["no", *_NHT_DEFAULT]) \
            or w[:2] == ["ip", "router-id"] and len(w) == 3 or w[:3] == ["no", "ip", "router-id"] and len(w) <= 4
    if node == VTY:  # `line vty`: who may open vtysh's terminal and for how long (no route, no session)
        return head in _VTY_WORDS or head in ("no", "ipv6") and len(w) > 1 and w[1] in _VTY_WORDS
    if node == ZEBRA_INTERFACE:
        return interface_command(w)
    if node == OTHER:  # an unmodelled block (router ospf ...) takes what the top level does not
        return head not in _TOP_WORDS
    return True


def parse_frr(text: str, dev: DeviceConfig, file: str = "frr.conf") -> None:
    """One pass over the lines with FRR's node rules (module docstring). A 100k-GPU fabric has ~5M
    FRR lines: the dispatch is on the first word, one split per line. A line the reader cannot take
    is read a second time in FRR's full words when it abbreviates a command (``_full_words``)."""
    clear_list_indexes()
    try:
        _parse_frr(text, dev, file)
    finally:
        clear_list_indexes()


def _parse_frr(text: str, dev: DeviceConfig, file: str) -> None:
    dev.routing_file = dev.routing_file or file
    unmodelled = dev.unmodelled
    node = TOP
    inst: BgpInstance | None = None
    entry: RouteMapEntry | None = None
    vrf: str | None = None
    block = "config"  # the grammar node of an unmodelled block (OTHER)
    left: tuple[int, str] | None = None  # (line, word) of the `exit` that left configuration mode
    # a block the reader does not follow inside (an unmodelled block or address family, zebra's
    # ports, the terminal) may hold nodes of its own (`bfd` / `profile`, `vni` under l2vpn evpn):
    # after it, an `exit` the reader sees at the top level may still be FRR's way out of one, so it
    # is not read as leaving configuration mode until a top-level statement is read again
    unsure = False
    said = False  # the first line refused out of configuration mode is recorded (one finding)
    ended: tuple[int, str] | None = None  # (line, word) of the `exit` that ended vtysh
    for number, raw in enumerate(text.split("\n"), 1):
        w = raw.split()
        if not w or w[0][0] in "!#":
            continue
        if ended is not None:
            if w != ["end"]:
                dev.refused_lines.append((number, " ".join(w), f"`{ended[1]}` on line {ended[0]}, out of configuration "
                                          "mode, ends vtysh: this line and every line after it are never applied "
                                          "(and the load exits 0)"))
                break
            continue
        if node == ENABLE:
            assert left is not None
            if len(w[0]) >= 4 and "configure".startswith(w[0]) and \
                    (len(w) == 1 or len(w) == 2 and "terminal".startswith(w[1])):
                node, said = TOP, False
            elif w in (["exit"], ["quit"]):
                ended = (number, w[0])
            elif w != ["end"] and not said:
                said = True
                dev.refused_lines.append((number, " ".join(w), f"`{left[1]}` at the top level (line {left[0]}) left "
                                          "configuration mode: FRR refuses this line and every line after it"))
            continue
        retried = False
        start = node  # where FRR tries the line first (it climbs from here)
        while True:  # once as written; once more in FRR's full words (``retry``)
            head = w[0]
            unread = False  # a line the node's reader did not take: completed, refused or reported below
            opens_block = False  # an unread top-level line: its block is reported with it
            if head in _EXITS and len(w) == 1:
                if head == "end":
                    pass  # vtysh's file reader skips `end` lines: the node stays (measured, FRR 8.4)
                elif head == "exit-address-family" and node in (AF, OTHER_AF):
                    node = BGP
                elif head in ("exit", "quit") and node in (AF, OTHER_AF):
                    node = BGP
                elif head in ("exit", "quit") and node == TOP and not unsure:
                    node, left = ENABLE, (number, head)
                elif head == "exit-vrf" and node == VRF or head in ("exit", "quit"):
                    node = TOP
                break
            if head == "neighbor" and (node == AF or node == BGP) and len(w) > 2:
                # the common line, decided without the general climb: an address-family statement stays
                # in AF, a session statement belongs to the bgp node (FRR climbs there and stays)
                if node == AF and w[2] in _NEIGHBOR_BGP_NODE:
                    node = BGP
                assert inst is not None
                unread = not neighbor_statement(inst, w, number)
            else:
                saved = node
                while not _belongs(node, w):
                    node = _PARENT[node]
                if node == TOP and saved != TOP and head not in _TOP_WORDS:
                    # no node up to the top has this command as written: FRR completes an abbreviation
                    # or rejects the line and stays where it was
                    node, unread = saved, True
                elif node == BGP or node == AF:
                    assert inst is not None
                    if head == "address-family":
                        node = AF if w[1:] in (["ipv4"], ["ipv4", "unicast"]) else OTHER_AF
                        if node == OTHER_AF:
                            unsure = True
                            unmodelled.append((number, " ".join(w)))
                    else:
                        unread = not bgp_statement(inst, w, number)
                elif node == ROUTE_MAP:
                    assert entry is not None
                    unread = not route_map_clause(entry, w, number, replaces=True) and not _flow_clause(entry, w, number)
                elif node == VRF:
                    route = static_route(w, vrf, number) if w[:2] == ["ip", "route"] else None
                    if route:
                        dev.static_routes.append(route)
                    else:
                        unread = not (head == "no" and undo_top_level(dev, w[1:], vrf) or _fib_filter(dev, w, vrf, number)
                                      or _nht_default(dev, w, vrf, number) or _zebra_router_id(dev, w, vrf))
                elif node in (OTHER_AF, OTHER, VTY, ZEBRA_INTERFACE):
                    pass  # covered by the report of the block's first line; the terminal's settings route
                    # nothing; zebra's port settings are read with the ports
                else:
                    node = _top_level(dev, w, number)
                    if node != UNREAD:  # (a line the top level does not take leaves it as unsure as it was)
                        unsure = node in (OTHER, ZEBRA_INTERFACE, VTY)
                    if node == UNREAD:
                        node, unread, opens_block = saved, True, True
                    elif node == BGP:
                        inst = dev.bgp[_instance_vrf(w)]
                    elif node == ROUTE_MAP:
                        entries = dev.route_maps[w[1]]
                        position = map_position(entries, int(w[3]))  # (_top_level filed it)
                        entry = entries[position] if position is not None else None
                    elif node == VRF:
                        vrf = w[1]
                    elif node in (OTHER, ZEBRA_INTERFACE):
                        block = "interface" if head == "interface" else "config"
            if unread:
                full = None if retried else _full_words(node, block, w, number, dev)
                if full:
                    w, retried = full, True
                    continue
                if full is None:  # (an empty list: FRR refuses the line, recorded as such)
                    unmodelled.append((number, " ".join(w)))
                    # the node FRR is in after it: where FRR's grammar takes the line, climbing from
                    # where it stood; a line no command completes is refused and FRR stays there
                    taken = frr_cli.expand(_GRAMMAR_NODE.get(start, block), tuple(w))
                    if not isinstance(taken, tuple):
                        node = start
                    elif taken[0] == "config" and (head == "no" or head not in _OPENS_A_NODE):
                        node = TOP  # (a command that opens no block of its own: FRR stays at the top level)
                    elif taken[0] == "config" and (start != TOP or opens_block):
                        # a top-level command the reader does not follow: the block it may open is
                        # what is reported, its lines with it
                        node, unsure = OTHER, True
                    elif taken[0] == "bgp" and start in (AF, OTHER_AF):
                        node = BGP
            break
    compact_route_maps(dev)
    compact_statics(dev.static_routes)
    finish_bgp(dev)


# the grammar node (frr_cli) of each of the reader's nodes
_GRAMMAR_NODE = {TOP: "config", BGP: "bgp", AF: "bgp-ipv4", OTHER_AF: "bgp", ROUTE_MAP: "route-map", VRF: "vrf",
                 VTY: "line-vty"}


def _full_words(node: int, block: str, w: list[str], number: int, dev: DeviceConfig) -> list[str] | None:
    """``w`` in FRR's full words when it abbreviates exactly one command of the node or a node above
    (FRR reads frr.conf as its terminal does: `nei X shut` is `neighbor X shutdown`); an empty list
    when it abbreviates more than one (FRR refuses the line: recorded in ``refused_lines``); None
    when it abbreviates none (the caller reports it as not modelled)."""
    expanded = frr_cli.expand(_GRAMMAR_NODE.get(node, block), tuple(w))
    if expanded == frr_cli.AMBIGUOUS:
        dev.refused_lines.append((number, " ".join(w), "an abbreviation of more than one FRR command"))
        return []
    if isinstance(expanded, tuple):
        full = list(expanded[1])
        return full if full != w else None
    return None


def undo_top_level(dev: DeviceConfig, w: list[str], vrf: str | None) -> bool:
    """A top-level `no ...` (``w`` without the `no`) that takes back what an earlier line of the
    file configured, as the daemon does when it reads the file line by line (FRR and EOS): a static
    route, a prefix-list or one of its entries, a route-map or one of its entries, a BGP instance.
    False when it is none of those or names nothing configured (the caller reports the line)."""
    if not w:
        return False  # a bare `no`
    if w[:2] == ["ip", "route"]:
        route = static_route(w, vrf)
        if route is None:
            return False
        return take_back_statics(dev.static_routes, route.vrf, route.prefix,
                                 lambda r: r.nexthop == route.nexthop and r.via_port == route.via_port)
    if w[:2] == ["ip", "prefix-list"] and len(w) >= 3 and w[2] in dev.prefix_lists:
        entries = dev.prefix_lists[w[2]]
        if len(w) == 3:
            del dev.prefix_lists[w[2]]
            return True
        if w[3] == "seq" and len(w) >= 5 and (seq := _int(w[4], 4294967295)) is not None:
            return take_back_prefix_list_entry(entries, seq)  # (a list left without entries denies everything)
        else:
            named = parse_prefix_list_line(w, 3, eos=dev.platform == "eos")
            if named is None:
                return False
            kept = [e for e in entries if (e.action, network_of(e.prefix), e.ge, e.le)
                    != (named.action, network_of(named.prefix), named.ge, named.le)]
        if len(kept) == len(entries):
            return False
        entries[:] = kept  # (a list left without entries denies everything, as FRR's does)
        return True
    if w[0] == "route-map" and len(w) in (2, 4) and w[1] in dev.route_maps:
        if len(w) == 2:
            del dev.route_maps[w[1]]
            return True
        if w[2] not in ("permit", "deny") or _int(w[3], 65535) is None:
            return False
        return take_back_map_entry(dev, w[1], int(w[3]))
    if w[:2] == ["router", "bgp"] and len(w) in (2, 3, 5):
        name = w[4] if len(w) == 5 and w[3] == "vrf" else None
        if name not in dev.bgp or len(w) >= 3 and parse_asn(w[2]) != dev.bgp[name].asn:
            return False
        del dev.bgp[name]
        return True
    return False


# zebra interface-node lines that change nothing the model holds
_ZEBRA_HARMLESS = (["link-detect"], ["no", "link-detect"], ["no", "description"])


def interface_command(w: list[str]) -> bool:
    """Whether FRR's interface node has the command ``w`` (else FRR climbs to the top level)."""
    taken = frr_cli.expand("interface", tuple(w))
    return isinstance(taken, tuple) and taken[0] == "interface" or w[0] not in _TOP_WORDS and taken is None


def zebra_interface_blocks(text: str, dev: DeviceConfig, file: str = "frr.conf") -> None:
    """Zebra's `interface PORT [vrf V]` blocks of an frr.conf, applied to the ports read from the
    interfaces file (the base part, as zebra applies them after ifupdown): `shutdown` takes the port
    down (zebra sets it admin-down), `no shutdown` brings a port zebra shut back, `ip address A/L`
    adds an address; a description and link-detect change nothing; any other line is reported."""
    if "interface " not in text:
        return
    port: str | None = None
    for number, raw in enumerate(text.split("\n"), 1):
        w = raw.split()
        if not w or w[0][0] in "!#":
            continue
        if w[0] == "interface" and len(w) in (2, 4) and (len(w) == 2 or w[2] == "vrf"):
            port = w[1]
            continue
        if port is None:
            continue
        if w[0] in ("exit", "end", "quit") or not interface_command(w):
            port = None  # (a command the interface node does not have leaves the block: FRR climbs)
            continue
        iface = dev.interfaces.get(port)
        if iface is None:
            iface = dev.interfaces[port] = Interface(port, is_loopback=port == "lo")
        if w == ["shutdown"]:
            iface.down = f"shut down by zebra ({file}:{number}: `shutdown` in `interface {port}`)"
        elif w == ["no", "shutdown"]:
            if iface.down.startswith("shut down by zebra"):
                iface.down = ""
        elif w[:2] == ["ip", "address"] and len(w) == 3 and is_prefix(w[2]):
            if w[2] not in iface.addresses:
                iface.addresses.append(w[2])
        elif w[0] == "description" or w in _ZEBRA_HARMLESS:
            pass
        else:
            dev.base_unmodelled.append((file, number, f"interface {port}: {' '.join(w)}"))


def _instance_vrf(w: list[str]) -> str | None:
    return w[4] if len(w) == 5 else None


def _fib_filter(dev: DeviceConfig, w: list[str], vrf: str | None, number: int) -> bool:
    """`ip protocol bgp|any route-map NAME`: zebra's filter between the RIB and the kernel."""
    if len(w) == 5 and w[:2] == ["ip", "protocol"] and w[2] in ("bgp", "any") and w[3] == "route-map":
        dev.fib_filters[vrf] = (w[4], number)
        return True
    return False


def _top_level(dev: DeviceConfig, w: list[str], number: int) -> int:
    """Read one top-level command; the node the reader is in after it (UNREAD: not read)."""
    head = w[0]
    text = " ".join(w)
    if head == "router" and w[1:2] == ["bgp"] and len(w) in (3, 5) and (len(w) == 3 or w[3] == "vrf"):
        asn = parse_asn(w[2])
        if asn is not None:
            name = _instance_vrf(w)
            existing = dev.bgp.get(name)
            if existing is None:
                dev.bgp[name] = BgpInstance(vrf=name, asn=asn, line=number)
            elif existing.asn != asn:
                # bgpd: "BGP is already running; AS is N": the line and its block are refused (its
                # lines fall to the top level, where no such command is)
                dev.refused_lines.append((number, text, f"BGP is already running here as AS {existing.asn}"))
                return OTHER
            return BGP  # (a second block of one instance adds to it)
    elif head == "ip" and w[1:2] == ["route"]:
        route = static_route(w, None, number)
        if route:
            dev.static_routes.append(route)
            return TOP
    elif head == "ip" and w[1:2] == ["prefix-list"] and len(w) > 3:
        if w[3] == "description":
            return TOP
        pl_entry = parse_prefix_list_line(w, 3, number)
        if pl_entry is None and (refusal := _prefix_length_outside_grammar(w, 3)):
            dev.refused_lines.append((number, " ".join(w), refusal))
            return TOP
        if pl_entry and (refusal := prefix_list_refusal(pl_entry)):
            dev.refused_lines.append((number, " ".join(w), refusal))  # (the entry is not installed)
            return TOP
        if pl_entry:
            add_prefix_list_entry(dev.prefix_lists.setdefault(w[2], []), pl_entry)
            return TOP
    elif head == "route-map" and len(w) == 4 and w[2] in ("permit", "deny") and w[3] == "0":
        # bgpd's sequence numbers are 1-65535: no entry is made (its clauses land nowhere)
        dev.refused_lines.append((number, " ".join(w), "a route-map sequence number is 1-65535"))
        return OTHER
    elif head == "route-map" and len(w) == 4 and w[2] in ("permit", "deny") and _int(w[3], 65535) is not None:
        file_map_entry(dev.route_maps.setdefault(w[1], []), int(w[3]), w[2], number)
        return ROUTE_MAP  # (FRR: another action makes a new entry; the same one adds to it)
    elif head == "no" and undo_top_level(dev, w[1:], None):
        return TOP
    elif head == "hostname" and len(w) == 2:
        dev.hostname = w[1]
        dev.names.append((w[1], dev.routing_file or "frr.conf", number))
        return TOP
    elif head == "vrf" and len(w) == 2:
        dev.vrfs.setdefault(w[1], None)
        return VRF
    elif head == "frr" and w[1:2] == ["defaults"] and len(w) == 3:
        dev.frr_defaults = w[2]
        return TOP
    elif w == ["no", "ip", "forwarding"]:
        dev.forwarding_off[:] = [number]
        return TOP
    elif w == ["ip", "forwarding"]:
        dev.forwarding_off.clear()
        return TOP
    elif _nht_default(dev, w, None, number) or _zebra_router_id(dev, w, None):
        return TOP
    elif (w[:1] == ["password"] and len(w) == 2 or w[:2] == ["enable", "password"] and len(w) == 3) \
            and not is_reference(w[-1]):
        # the terminal's login or enable password (vtysh does not ask it; a telnet to the vty
        # does): nothing routes by it, but written as a value it is a credential in git. Said
        # without the value (a finding is printed and kept in CI logs)
        dev.unmodelled.append((number, f"{' '.join(w[:-1])} <value withheld>: FRR's vty password written as a "
                                       "value (a credential in the repository; keep it in the secrets file)"))
        return TOP
    elif _fib_filter(dev, w, None, number):
        return TOP
    elif head == "interface" and len(w) in (2, 4) and (len(w) == 2 or w[2] == "vrf"):
        return ZEBRA_INTERFACE  # zebra's port settings: read with the ports (zebra_interface_blocks)
    elif text == "line vty":
        return VTY
    elif text.startswith(KNOWN_TOP_LEVEL):
        return TOP
    elif (defined := match_list_definition(w)) is not None:
        kind, name = defined
        dev.match_list_names.setdefault(defined, number)
        if kind == "access-list" and name not in dev.access_lists_unread:
            if list_line_read(dev.access_lists, dev.access_lists_unread, name,
                               access_list_line(w, dev.access_lists.get(name, []), number)):
                return TOP
        elif kind == "community" and name not in dev.community_lists_unread:
            entry = community_list_line(w, dev.community_lists.get(name, []))
            if list_line_read(dev.community_lists, dev.community_lists_unread, name, entry and [entry]):
                return TOP
        elif kind == "as-path" and name not in dev.as_path_lists_unread:
            path_entry = as_path_list_line(w, dev.as_path_lists.get(name, []))
            if list_line_read(dev.as_path_lists, dev.as_path_lists_unread, name, path_entry and [path_entry]):
                return TOP
        # (a line of a list not read whole: reported)
    return UNREAD


def list_line_read(lists: dict[str, list[_Entry]], unread: set[str], name: str, read: list[_Entry] | None) -> bool:
    """A list's line read (its entries added: True), or not (None): the list is then not read whole,
    so it leaves ``lists`` for ``unread`` and what matches on it is reported, not evaluated."""
    if read is None:
        unread.add(name)
        lists.pop(name, None)
        return False
    lists.setdefault(name, []).extend(read)
    return True


# each kind of list a route-map entry may match on (RouteMapEntry.match_lists): its clause, and
# what the list is called where a finding names it
_MATCH_LIST = {"community": ("match community", "community-list"), "as-path": ("match as-path", "as-path access-list"),
               "access-list": ("match ip address", "access-list"),
               "next-hop prefix-list": ("match ip next-hop prefix-list", "next-hop prefix-list"),
               "ipv6 prefix-list": ("match ipv6 address prefix-list", "IPv6 prefix-list"),
               "ipv6 access-list": ("match ipv6 address", "IPv6 access-list")}


def match_list_definition(w: list[str]) -> tuple[str, str] | None:
    """The (kind, name) a community-list, AS-path access-list or access-list line defines (FRR `bgp
    community-list [standard|expanded] NAME ...`, `bgp as-path access-list NAME ...`, their older
    `ip ...` forms, `access-list NAME ...`; EOS `ip community-list [regexp] NAME ...`, `ip as-path
    access-list NAME ...`)."""
    if w[0] == "access-list" and len(w) >= 3:  # FRR's IPv4 access list (`match ip address NAME`)
        return ("access-list", w[1])
    if w[:1] not in (["bgp"], ["ip"]) or len(w) < 4:
        return None
    if w[1] == "community-list":
        name = w[3] if w[2] in ("standard", "expanded", "regexp") else w[2]
        return ("community", name)
    if w[1:3] == ["as-path", "access-list"] and len(w) >= 5:
        return ("as-path", w[3])
    return None


# the community values bgpd's community_str2com takes besides AA:NN (`internet` left out: its
# meaning in a list changed across FRR releases, so a list holding it is not read)
_WELL_KNOWN_COMMUNITIES = frozenset({
    "graceful-shutdown", "accept-own", "accept-own-nexthop", "route-filter-translated-v4", "route-filter-v4",
    "route-filter-translated-v6", "route-filter-v6", "llgr-stale", "no-llgr", "blackhole", "no-export",
    "no-advertise", "local-AS", "no-peer"})
_AA_NN = re.compile(r"(\d{1,5}):(\d{1,5})")
# what an expanded entry's expression may hold for Python's re to decide as POSIX's regexec does
# whether it matches the empty string (no back-references, escapes, POSIX classes or `[]` forms)
_SIMPLE_REGEX = re.compile(r"[A-Za-z0-9:._*+?^$|(){},\[\] -]*")
_FRR_UNDERSCORE = "(^|[,{}() ]|$)"  # bgp_regcomp's meaning of `_`


@functools.lru_cache(maxsize=4096)
def bgp_regex(expression: str) -> re.Pattern[str] | None:
    """An expression of a community-list or AS-path list as bgp_regcomp compiles it (`_` a
    delimiter), for the expressions the callers let through; None where Python's re refuses it."""
    try:
        return re.compile(expression.replace("_", _FRR_UNDERSCORE))
    except re.error:
        return None


def aggregate_line(w: list[str], line: int, frr: bool = True) -> Aggregate | None:
    """``aggregate-address P/L|A.B.C.D M.M.M.M [as-set] [summary-only] [origin igp]`` (FRR; EOS
    (``frr=False``) the same less the mask form and origin) -> the aggregate; None: a form not
    modelled (a route-map, a suppress-map, matching-MED-only, another origin, EOS's attribute-map,
    match-map and advertise-only: reported whole)."""
    w = prefix_at(w, 1) if frr else w
    if len(w) < 2 or not is_prefix(w[1]):
        return None
    options = w[2:]
    if "origin" in options and frr:
        at = options.index("origin")
        if options[at + 1:at + 2] != ["igp"]:
            return None
        options = options[:at] + options[at + 2:]  # IGP: every aggregate's ORIGIN unless told
    if not set(options) <= {"as-set", "summary-only"} or len(options) != len(set(options)):
        return None
    return Aggregate(w[1], "summary-only" in options, line, as_set="as-set" in options)


def community_list_line(w: list[str], existing: list[tuple[int, str, str | None]]) -> tuple[int, str, str | None] | None:
    """One FRR community-list line, ``bgp community-list standard|expanded NAME [seq N] permit|deny
    ...`` or its numbered forms (1-99 standard, 100-500 expanded), as (seq, action, the expression
    of an expanded entry or None); None for a line not read (a value or expression outside what is
    read here, or a style other than the list's first entry's, which bgpd refuses)."""
    kind = w[2]
    if kind in ("standard", "expanded"):
        style, rest = kind, w[4:]
    elif is_decimal(kind) and 1 <= int(kind) <= 500:
        style, rest = ("standard" if int(kind) <= 99 else "expanded"), w[3:]
    else:
        return None
    head = _sequenced(rest, _next_seq(existing, _FIRST))
    if head is None or existing and (existing[0][2] is None) != (style == "standard"):
        return None
    seq, rest = head
    action, values = rest[0], rest[1:]
    if style == "standard":
        for value in values:
            m = _AA_NN.fullmatch(value)
            if not (m and int(m[1]) <= 65535 and int(m[2]) <= 65535 or value in _WELL_KNOWN_COMMUNITIES):
                return None
        return seq, action, None
    expression = " ".join(values)
    return (seq, action, expression) if _readable_regex(expression, _SIMPLE_REGEX) else None


def _readable_regex(expression: str, allowed: re.Pattern[str]) -> bool:
    """Whether an expression holds only ``allowed`` characters (what Python's re reads as POSIX's
    regexec does), no `[]` forms, and compiles."""
    return bool(allowed.fullmatch(expression)) and "[]" not in expression and "[^]" not in expression \
        and bgp_regex(expression) is not None


# what bgpd takes as an AS-path expression (config_bgp_aspath_validate), less what Python's re and
# POSIX's regexec could read apart: `\\` escapes and `{}` (an AS_SET's braces, or an interval)
_AS_PATH_REGEX = re.compile(r"[0-9_^|\[\],() $*+.?-]+")


def as_path_list_line(w: list[str], existing: list[tuple[int, str, str]]) -> tuple[int, str, str] | None:
    """One FRR AS-path access-list line, ``bgp as-path access-list NAME [seq N] permit|deny REGEX...``
    (the words after the action are one expression, joined by a space, as bgpd joins them), as
    (seq, action, expression); None for a line not read (the older `ip as-path` form, an
    expression outside what is read here). Whether a match exists is the same question for
    Python's re and POSIX's regexec on these expressions (no back-references or escapes; leftmost-
    longest only changes which match is found)."""
    if w[0] != "bgp":
        return None
    head = _sequenced(w[4:], _next_seq(existing, _FIRST))
    if head is None:
        return None
    seq, rest = head
    expression = " ".join(rest[1:])
    return (seq, rest[0], expression) if _readable_regex(expression, _AS_PATH_REGEX) else None


def eos_as_path_list_line(w: list[str], existing: list[tuple[int, str, str]]) -> tuple[int, str, str] | None:
    """One EOS AS-path access-list line, ``ip as-path access-list NAME permit|deny REGEX [any]``, as
    (seq, action, expression): entries in the order written (EOS numbers none), the expression
    read as bgpd reads one (Cisco's `_`; not measured on EOS). None for a line not read: an origin
    other than `any` (the model follows no ORIGIN per path), an expression outside what is read."""
    if w[:3] != ["ip", "as-path", "access-list"] or len(w) not in (6, 7) or w[4] not in ("permit", "deny") \
            or len(w) == 7 and w[6] != "any":
        return None
    return ((len(existing) + 1) * 10, w[4], w[5]) if _readable_regex(w[5], _AS_PATH_REGEX) else None


def matches_no_community(entries: list[tuple[int, str, str | None]]) -> bool:
    """Whether a community-list matches a route that carries no community (bgpd's
    community_list_match and community_list_exact_match alike): entries in seq order; a standard
    entry never matches it (its communities are not all there), an expanded one when its
    expression matches the empty string; the first that matches decides (permit: the list
    matches); none: no match."""
    for _seq, action, expression in sorted(entries, key=lambda e: e[0]):
        if expression is not None and (pattern := bgp_regex(expression)) is not None and pattern.search(""):
            return action == "permit"
    return False


def access_list_filter(dev: DeviceConfig, name: str) -> str:
    """The prefix-list an access list read as a route filter is evaluated as (model.DeviceConfig.
    access_lists); an undefined one stays undefined (FRR: no list, nothing passes)."""
    synthetic = ACCESS_LIST_PREFIX + name
    if name in dev.access_lists:
        dev.prefix_lists[synthetic] = dev.access_lists[name]
    return synthetic


def _judge_filter_list(dev: DeviceConfig, n: Neighbor, way: str, reported: set[tuple[int, str]]) -> None:
    """A neighbor's `filter-list NAME in|out` on a list read whole stays (evaluated on each route's
    AS path); on a list not read whole it is reported and dropped (not evaluated); on one the
    config does not define it stays and denies everything (bgpd's as_list_apply on no list)."""
    listed = getattr(n, f"filter_list_{way}")
    if listed is None or listed in dev.as_path_lists:
        return
    line = getattr(n, f"filter_list_{way}_line") or n.line
    known = ("as-path", listed) in dev.match_list_names
    if known:
        setattr(n, f"filter_list_{way}", None)
    if (line, listed) in reported:
        return
    reported.add((line, listed))
    if known:
        dev.unmodelled.append((line, f"neighbor {n.address} filter-list {listed} {way}"))
    else:
        dev.undefined_refs.append((line, f"as-path access-list {listed} (neighbor {n.address} filter-list {way}: "
                                         "nothing passes)"))


def _fib_maps(dev: DeviceConfig) -> set[str]:
    """The route-maps that decide what is installed: zebra's `ip protocol bgp route-map`, bgpd's
    table-map."""
    return {name for name, _ in dev.fib_filters.values()} | {inst.table_map[0] for inst in dev.bgp.values()
                                                             if inst.table_map}


def _attribute_clauses_read(dev: DeviceConfig, frr: bool) -> None:
    """Which `match` clauses on a route's attributes (RouteMapEntry.attribute_clauses), relative
    sets (``deltas``, ``prepend_last_as``) and clauses bgpd does not implement (``bgpd_ignores``)
    stay judged; the others are reported (and taken as matching, or as setting nothing): all of
    them on another platform than FRR (its semantics are not read here), a `match tag` on a device
    that tags routes (`set tag`) or redistributes (a route's tag comes from the RIB), and any match
    in a route-map that originates routes (`network`, `redistribute`) or decides what is installed
    (zebra's `ip protocol bgp route-map`, `table-map`: zebra implements prefix-len and
    source-protocol)."""
    if not frr:  # (what EOS adds or prepends relative to the route is not read here)
        for entries in dev.route_maps.values():
            for entry in entries:
                dev.unmodelled += [(line, f"set {kind} {delta:+d}") for kind, (delta, line) in entry.deltas.items()]
                if entry.prepend_last_as:
                    dev.unmodelled.append((entry.prepend_line, f"set as-path prepend last-as {entry.prepend_last_as}"))
                entry.deltas, entry.prepend_last_as = {}, 0
    if not any(e.attribute_clauses or e.bgpd_ignores for entries in dev.route_maps.values() for e in entries):
        return
    tags = any(e.sets_tag_line for entries in dev.route_maps.values() for e in entries) \
        or any(inst.redistribute_lines for inst in dev.bgp.values())
    originating = {name for inst in dev.bgp.values() for name, _ in (*inst.redistribute_maps.values(),
                                                                       *inst.network_maps.values())}
    fib = _fib_maps(dev)
    not_judged_here = originating | fib
    for name, entries in dev.route_maps.items():
        for entry in entries:
            kept = []
            for kind, value, line in entry.attribute_clauses:
                if not frr:
                    dev.unmodelled.append((line, f"match {kind} {value}"))
                elif kind == "tag" and tags:
                    dev.unmodelled.append((line, f"match tag {value}: the device tags routes (`set tag` or "
                                                 "redistribution); what carries which tag is not followed"))
                else:
                    if name in not_judged_here:
                        dev.unmodelled.append((line, f"match {kind} {value} (route-map {name} originates routes "
                                                     "or decides what is installed: not evaluated there)"))
                    kept.append((kind, value, line))
            entry.attribute_clauses = kept
            if not frr or name in fib:
                dev.unmodelled += [(line, text) for text, line in entry.bgpd_ignores]
                entry.bgpd_ignores = []


def ebgp_neighbor(n: Neighbor, own_asn: int) -> bool:
    """Whether the session with ``n`` is eBGP as its own configuration says (`remote-as external`, or
    another ASN than the instance's); False also when no remote-as is known."""
    return n.remote_kind == "external" or (n.remote_kind is None and n.remote_asn is not None and n.remote_asn != own_asn)


def _activation_at_creation(inst: BgpInstance) -> None:
    """bgpd activates IPv4 unicast on a neighbor or a peer-group when it creates it, by the default
    then in force (`[no] bgp default ipv4-unicast` above its first line; on before any), and a later
    change of the default leaves it so; a group's member takes its group's (measured on FRR 8.4:
    the default turned off below a neighbor's line leaves it active, above it not; a member bound
    after the change takes the group's). Sets ``activate`` where no `[no] neighbor X activate` did."""
    changes = inst.default_ipv4_unicast_lines  # (in file order: the lines only grow)
    lines = [line for line, _ in changes]
    for n in inst.neighbors.values():
        if n.activate is not None or n.peer_group is not None and n.peer_group in inst.peer_groups:
            continue
        above = bisect.bisect_left(lines, n.line)  # (the changes on lines above the neighbor's first)
        n.activate = changes[above - 1][1] if above else True


# the settings a peer-group member takes from its group with the line that says them
_TAKEN_WITH_LINE = (("max_prefix", "max_prefix_line"), ("weight", "weight_line"), ("password", "password_line"),
                    ("update_source", "update_source_line"), ("ttl_security", "ttl_security_line"),
                    ("timers", "timers_line"), ("port", "port_line"), ("accept_limit", "accept_limit_line"),
                    ("send_limit", "send_limit_line"))


def take_group(n: Neighbor, group: Neighbor, frr: bool = True) -> bool:
    """A peer-group member takes what its group sets and it does not (its own setting wins; FRR
    gives it the group's remote-as when the group has one). True when it took the group's
    route-reflector-client."""
    if n.remote_asn is None and n.remote_kind is None or frr and (group.remote_asn is not None
                                                                 or group.remote_kind is not None):
        # bgpd gives a member its group's remote-as when the group has one, whatever the member
        # said before it joined (measured on 8.4; a member's own after it joined is refused)
        n.remote_asn, n.remote_kind = group.remote_asn, group.remote_kind
    n.route_map_in = n.route_map_in or group.route_map_in
    n.route_map_out = n.route_map_out or group.route_map_out
    for way in ("in", "out"):
        if getattr(n, f"prefix_list_{way}") is None and getattr(group, f"prefix_list_{way}") is not None:
            setattr(n, f"prefix_list_{way}", getattr(group, f"prefix_list_{way}"))
            n.prefix_list_lines[way] = group.prefix_list_lines.get(way, 0)
        if getattr(n, f"filter_list_{way}") is None and getattr(group, f"filter_list_{way}") is not None:
            setattr(n, f"filter_list_{way}", getattr(group, f"filter_list_{way}"))
            setattr(n, f"filter_list_{way}_line", getattr(group, f"filter_list_{way}_line"))
    n.shutdown = n.shutdown or group.shutdown
    for value, line in _TAKEN_WITH_LINE:  # (a member's own setting wins)
        if getattr(n, value) is None:
            setattr(n, value, getattr(group, value))
            setattr(n, line, getattr(group, line))
    n.allowas_in = n.allowas_in or group.allowas_in
    n.next_hop_unchanged_line = n.next_hop_unchanged_line or group.next_hop_unchanged_line
    n.next_hop_self = n.next_hop_self or group.next_hop_self
    if not n.remove_private:
        n.remove_private, n.remove_private_line = group.remove_private, group.remove_private_line
    n.default_originate_line = n.default_originate_line or group.default_originate_line
    n.as_override_line = n.as_override_line or group.as_override_line
    if n.send_community is None:
        n.send_community = group.send_community
    n.addpath_tx_line = n.addpath_tx_line or group.addpath_tx_line
    n.passive = n.passive or group.passive
    n.no_capabilities_line = n.no_capabilities_line or group.no_capabilities_line
    if n.local_role is None:
        n.local_role, n.local_role_strict, n.local_role_line = \
            group.local_role, group.local_role_strict, group.local_role_line
    if n.local_as is None:
        n.local_as, n.local_as_line = group.local_as, group.local_as_line
        n.local_as_no_prepend, n.local_as_replace = group.local_as_no_prepend, group.local_as_replace
    if n.ebgp_multihop is None:
        n.ebgp_multihop = group.ebgp_multihop
    took_rr = not n.rr_client_line and bool(group.rr_client_line)
    if took_rr:
        n.rr_client_line = group.rr_client_line
    n.password_opaque = n.password_opaque or group.password_opaque
    # (a member's own line for a direction wins over its group's)
    n.missing_policies = n.missing_policies + tuple(
        policy for policy in group.missing_policies
        if all(own.direction != policy.direction or own.af != policy.af for own in n.missing_policies))
    if n.activate is None:
        n.activate = group.activate
    return took_rr


def finish_bgp(dev: DeviceConfig, frr: bool = True) -> None:
    """After a device is read (every platform): peer-groups are copied into their members (a member's
    own setting wins) and leave ``neighbors``; a neighbor that is shut down brings up no session, so
    it leaves ``neighbors`` (what pairing and propagation read) for ``shut_neighbors``; VRF imports
    and matching route targets become ``vrf_route_leaks``; an FRR instance without `bgp router-id`
    takes zebra's `ip router-id` of its VRF."""
    for vrf, rid in dev.zebra_router_ids.items() if frr else ():
        inst = dev.bgp.get(vrf)
        if inst is not None and inst.router_id is None:
            inst.router_id = rid
    for entries in dev.route_maps.values():
        for entry in entries:
            for kind, name, line in entry.match_lists:
                clause, listed = f"{_MATCH_LIST[kind][0]} {name}", _MATCH_LIST[kind][1]
                if kind.startswith("ipv6 ") and frr:
                    # bgpd looks the name up among the IPv6 lists and matches an IPv4 route against
                    # none of their entries (lib/plist.c and lib/filter.c compare the family
                    # first): defined or not, the entry matches no route of the fabric
                    entry.never_line = entry.never_line or line
                    entry.other_family.append((clause, line))
                elif kind.startswith("ipv6 "):  # (EOS's reading of it on an IPv4 route is not known here)
                    dev.unmodelled.append((line, clause))
                elif kind == "access-list" and name in dev.access_lists:
                    entry.match_prefix_lists.append(access_list_filter(dev, name))  # evaluated as a prefix-list
                elif kind == "community" and frr and name in dev.community_lists:
                    # judged once the snapshot is assembled (verify/communities.py)
                    entry.community_clauses.append((name, matches_no_community(dev.community_lists[name]), line))
                elif kind == "as-path" and name in dev.as_path_lists:  # (EOS's: eos_as_path_list_line)
                    entry.as_path_clauses.append((name, line))  # judged on each route's path (verify/aspaths.py)
                elif (kind, name) in dev.match_list_names or kind == "next-hop prefix-list" and name in dev.prefix_lists:
                    dev.unmodelled.append((line, clause))
                elif not frr:  # (bgpd's rule, read in its source; EOS's is not known here)
                    dev.unmodelled.append((line, f"{clause}: a list the config does not define"))
                else:
                    entry.never_line = entry.never_line or line
                    dev.undefined_refs.append((line, f"{listed} {name} (the route-map entry that matches on it "
                                                     "matches nothing)"))
    _attribute_clauses_read(dev, frr)
    for inst in dev.bgp.values():
        origin_maps = [(f"redistribute {source}", "nothing is redistributed", name, line)
                       for source, (name, line) in inst.redistribute_maps.items()]
        origin_maps += [(f"network {net}", "it is not advertised", name, line)
                        for net, (name, line) in inst.network_maps.items()]
        for statement, undefined, name, line in origin_maps:
            if name not in dev.route_maps:
                dev.undefined_refs.append((line, f"route-map {name} ({statement}: {undefined})"))
                continue
            for entry in dev.route_maps[name]:  # what a permit entry sets on the routes it originates
                sets = [at for at in (entry.prepend_line, entry.next_hop_line, entry.origin_line,
                                      *entry.attribute_lines.values()) if at]
                dev.unmodelled += [(at, f"a set in route-map {name} ({statement}): the route is "
                                        "originated, what it sets on it is not followed") for at in sets]
    # the route-maps that decide what is installed (zebra's `ip protocol bgp route-map`, bgpd's
    # table-map): a route's AS path there is not followed, so an AS-path match in them is reported
    for name in sorted(_fib_maps(dev)):
        for entry in dev.route_maps.get(name, []):
            dev.unmodelled += [(line, f"match as-path {listed} (route-map {name} decides what is installed)")
                               for listed, line in entry.as_path_clauses]
    for inst in dev.bgp.values():
        if frr and inst.default_ipv4_unicast_lines:
            _activation_at_creation(inst)
        groups = {name: inst.neighbors.pop(name) for name in inst.peer_groups if name in inst.neighbors}
        rr_written: dict[str, str] = {}  # a member -> the peer-group whose route-reflector-client it took
        for n in list(inst.neighbors.values()):
            if n.peer_group is None:
                continue
            group = groups.get(n.peer_group)
            if group is None:  # FRR refuses to bind to an undefined group: the neighbor stays unbound
                dev.undefined_refs.append((n.line, f"peer-group {n.peer_group}"))
                continue
            if take_group(n, group, frr):
                rr_written[n.address] = n.peer_group
        # the groups the listen ranges name stay for the members verify/dynamic.py makes
        inst.dynamic_groups = {name: groups[name] for _, name, _, _ in inst.listen_ranges.values() if name in groups}
        for _, name, line, _ in inst.listen_ranges.values():
            if name not in groups:
                dev.undefined_refs.append((line, f"peer-group {name} (bgp listen range: no peer is taken)"))
        if inst.confederation is not None:
            # outside its confederation the instance is AS N to every peer: as if each such neighbor
            # had `local-as N no-prepend replace-as` (the member AS neither shown nor in AS paths)
            for n in inst.neighbors.values():
                if n.remote_asn is not None and (n.remote_asn in inst.confederation_peers or n.remote_asn == inst.asn):
                    dev.unmodelled.append((inst.confederation_line, f"a session inside the confederation "
                                                                    f"(neighbor {n.address})"))
                elif n.local_as is None:
                    n.local_as, n.local_as_line = inst.confederation, inst.confederation_line
                    n.local_as_no_prepend = n.local_as_replace = True
        judged: set[int] = set()
        for name, n in inst.neighbors.items():
            # route reflection on an iBGP session (or one whose kind the model cannot tell) is not
            # modelled: said so; on an eBGP session FRR refuses the line (BGP-CONFIG-REFUSED). A
            # peer-group's line is judged once, by its first member
            if not n.rr_client_line or n.rr_client_line in judged:
                continue
            judged.add(n.rr_client_line)
            statement = f"neighbor {rr_written.get(name, name)} route-reflector-client"
            if ebgp_neighbor(n, inst.asn):  # measured on FRR 8.4: "% Invalid command. Not an internal neighbor"
                inst.refused.append((n.rr_client_line, statement, "not an internal neighbor"))
            else:
                dev.unmodelled.append((n.rr_client_line, statement))
        for name, group in groups.items():  # a group no neighbor took it from: not judged, said so
            if group.rr_client_line and group.rr_client_line not in judged:
                dev.unmodelled.append((group.rr_client_line, f"neighbor {name} route-reflector-client"))
        reported: set[tuple[int, str]] = set()  # (a peer-group's filter-list line is reported once)
        for n in inst.neighbors.values():
            for way in ("in", "out"):
                listed = getattr(n, f"prefix_list_{way}")
                if listed is None or not listed.startswith(ACCESS_LIST_PREFIX):
                    continue
                name = listed[len(ACCESS_LIST_PREFIX):]
                if name in dev.access_lists_unread:  # its list is not evaluated: the neighbor's line is reported
                    setattr(n, f"prefix_list_{way}", None)
                    dev.unmodelled.append((n.prefix_list_lines.pop(way, n.line),
                                           f"neighbor {n.address} distribute-list {name} {way}"))
                else:
                    access_list_filter(dev, name)  # (undefined: it stays undefined and denies everything)
            for way in ("in", "out"):
                _judge_filter_list(dev, n, way, reported)
        inst.interface_neighbors = [name for name, n in inst.neighbors.items() if n.interface]
        shut = [address for address, n in inst.neighbors.items() if n.shutdown or inst.shutdown_line]
        for address in shut:
            del inst.neighbors[address]
        inst.shut_neighbors.extend(shut)
    # EOS: a leak's subscribe-policy the file does not define: what EOS leaks then is not known here
    # (the leak is judged unfiltered, and the line reported)
    for key, (name, line) in list(dev.vrf_leak_maps.items()):
        if name not in dev.route_maps:
            del dev.vrf_leak_maps[key]
            dev.unmodelled.append((line, f"leak routes source-vrf {key[0]} subscribe-policy {name}: a route-map the "
                                         "file does not define (the leak is judged as unfiltered)"))
    # a VRF leak's route-maps: one named but not defined stops that side's leaking (bgpd's
    # vpn_leak_from_vpn_active / vpn_leak_to_vpn_active: nothing is imported, or exported)
    stopped: dict[str, set[str | None]] = {"import": set(), "export": set()}  # way -> the instances' VRFs
    for inst in dev.bgp.values():
        for way, named in (("import", inst.vpn_import_map), ("export", inst.vpn_export_map)):
            if named is not None and named[0] not in dev.route_maps:
                stopped[way].add(inst.vrf)
                dev.undefined_refs.append((named[1], f"route-map {named[0]} (route-map vpn {way} of "
                                                     f"{inst.vrf or 'the default VRF'}: nothing is {way}ed "
                                                     f"{'into' if way == 'import' else 'out of'} it)"))
    for inst in dev.bgp.values():
        for imported in inst.vrf_imports:
            if inst.vrf not in stopped["import"] and (None if imported == "default" else imported) not in stopped["export"]:
                dev.vrf_route_leaks.append((imported, inst.vrf or "default"))
    # route-target leaking: an instance importing an RT another instance of the device exports (FRR:
    # both ends must also say `export vpn` / `import vpn`; EOS needs only the route targets)
    for target in dev.bgp.values():
        if not target.rt_import or (frr and not target.vpn_import) or target.vrf in stopped["import"]:
            continue
        for exporter in dev.bgp.values():
            if exporter is target or (frr and not exporter.vpn_export) or exporter.vrf in stopped["export"]:
                continue
            if set(exporter.rt_export) & set(target.rt_import):
                dev.vrf_route_leaks.append((exporter.vrf or "default", target.vrf or "default"))
