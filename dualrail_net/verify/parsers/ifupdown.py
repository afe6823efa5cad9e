"""ifupdown2 interfaces files (switches and servers) -> interfaces, VRFs, server routes and rules."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from dualrail_net.verify.model import Interface, ServerRoute, ServerRule
from dualrail_net.verify.parsers import link
from dualrail_net.verify.parsers.files import is_decimal, mask_length


@dataclass(slots=True)
class Stanza:
    name: str
    method: str
    attrs: list[tuple[str, str]] = field(default_factory=list)


_ENDS_STANZA = {"auto", "allow-hotplug", "source", "source-directory", "vlan"}
# the line Cumulus Linux's own /etc/network/interfaces starts with (the rendered file keeps it): the
# files it reads are the platform's (ifupdown2's own stanzas), not the plan's; any other file a
# `source` line pulls in is one verify does not see, and is said so
PLATFORM_SOURCE = "source /etc/network/interfaces.d/*.intf"
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_ADDRESS = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}(?:/(?:3[0-2]|[12]?\d))?")


# ifupdown2 keeps a global lock in /run/network and the state of every interface it configured in
# /var/tmp/network (ifstatenew), which the next run reads whatever file or namespace it is for:
# each of our runs (the syntax check, the twin) gets both private, in a mount namespace of its own
PRIVATE_STATE = ("mkdir -p /run/network /var/tmp/network && mount -t tmpfs none /run/network && "
                 "mount -t tmpfs none /var/tmp/network")

VOIDS = object()  # address_reading: a value ifupdown2 cannot convert (the interface gets no address)
REFUSED = object()  # address_reading: converted, but the kernel refuses it (later ones are not added)
_IPV4_WRITTEN = re.compile(r"(\d+)\.(\d+)\.(\d+)\.(\d+)(?:/(\d+))?")


def address_reading(value: str) -> str | object | None:
    """How ifupdown2 takes an `address` value that _ADDRESS does not read as written (measured,
    ifupdown2 3.0 on this machine): an IPv4 prefix whose length has leading zeros is that length
    (its "A.B.C.D/LEN"); a length above 32 (or above 128 for IPv6) is REFUSED by the kernel, and
    ifupdown2 stops adding the interface's addresses there; anything it cannot convert (two words,
    an octet above 255 or with a leading zero, junk) VOIDS every address of the interface, of all its
    stanzas; None for a valid IPv6 address (outside the IPv4 model)."""
    if not value or len(value.split()) != 1:
        return VOIDS
    if ":" in value:
        address, _, length = value.partition("/")
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            return VOIDS
        if length and not (length.isascii() and length.isdigit()):
            return VOIDS
        return _length_reading(length, 128) if length else None
    m = _IPV4_WRITTEN.fullmatch(value)
    if m is None or not value.isascii() \
            or any(len(o) > 1 and o[0] == "0" or len(o) > 3 or int(o) > 255 for o in m.groups()[:4]):
        return VOIDS
    if m[5] is None:
        return f"{'.'.join(m.groups()[:4])}/32"
    refused = _length_reading(m[5], 32)
    return refused if refused is not None else f"{'.'.join(m.groups()[:4])}/{int(m[5].lstrip('0') or '0')}"


def _length_reading(digits: str, most: int) -> object | None:
    """A prefix length's digits as ifupdown2 (Python's int) reads them: None when within ``most``;
    REFUSED above it; VOIDS past the digits Python converts (a hostile 5,000-digit length)."""
    if len(digits) > 4300:  # (sys.get_int_max_str_digits' default: int() raises there)
        return VOIDS
    significant = digits.lstrip("0") or "0"
    return REFUSED if len(significant) > 3 or int(significant) > most else None


def numbered_lines(text: str) -> Iterable[tuple[int, str]]:
    """The file's lines with their numbers, as ifupdown2 reads them: it first joins the whole file
    around every backslash (each piece stripped, a space between: a line ending in `\\` goes on
    on the next), so a joined line carries the number of the line it starts on."""
    if "\\" not in text:
        return enumerate(text.split("\n"), 1)
    out: list[tuple[int, str]] = []
    number = 1  # the original line the current piece starts on
    for index, piece in enumerate(text.split("\\")):
        stripped = piece.strip()
        lead = piece[:len(piece) - len(piece.lstrip())].count("\n")
        parts = stripped.split("\n")
        if index and out:
            out[-1] = (out[-1][0], f"{out[-1][1]} {parts[0]}")
        else:
            out.append((number + lead, parts[0]))
        for offset, part in enumerate(parts[1:], 1):
            out.append((number + lead + offset, part))
        number += piece.count("\n")
    return out


# more than this many names in one `auto` range is not expanded (reported): a bound on the reading
MAX_RANGE = 4096
_RANGE = re.compile(r"([\w.]+)\[(\d{1,6})-(\d{1,6})\](.*)")


def auto_names(word: str) -> list[str] | None:
    """The interfaces an `auto` word names: itself, or each of a range (ifupdown2: `swp[1-4]`,
    `swp1.[2-4]`, `swp[1-4].100`, both ends included, the word itself too). None: a range too
    large to expand."""
    m = _RANGE.fullmatch(word)
    if m is None:
        return [word]
    first, last = int(m.group(2)), int(m.group(3))
    if last - first >= MAX_RANGE:
        return None
    return [f"{m.group(1)}{i}{m.group(4)}" for i in range(first, last + 1)] + [word]


# a post-up command holding one of these is read as a shell command list (the rendered ones hold none)
_SHELL_MARKS = re.compile(r"[;&|#'\"`$\\<>(){}]")
_SHELL_OPERATORS = ("&&", "||", ";", "&", "|")
_REDIRECTIONS = (">>", ">&", "&>", ">", "<")
# a command whose own effect is nothing: (its exit status)
_NO_EFFECT = {"true": True, ":": True, "false": False}
_SHELLS = frozenset({"sh", "/bin/sh", "bash", "/bin/bash", "/usr/bin/bash", "dash", "/bin/dash"})
_COMPOUND = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
                       "!", "{", "}", "eval", "exec"})


def _shell_tokens(cmd: str) -> list[str] | None:
    """A command line as /bin/sh splits it: words (quotes removed) and the operators of
    _SHELL_OPERATORS; redirections and a comment dropped. None: an expansion (`$`, backquotes), a
    subshell or an unclosed quote, which this reading does not follow."""
    tokens: list[str] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(cmd)
    skip_next = False  # the word after a redirection is its target

    def end_word() -> None:
        nonlocal in_word, skip_next
        if in_word:
            if skip_next:
                skip_next = False
            else:
                tokens.append("".join(word))
        word.clear()
        in_word = False

    while i < n:
        c = cmd[i]
        if c in " \t\n\r":
            end_word()
            i += 1
        elif c == "#" and not in_word:
            break
        elif c == "'":
            end = cmd.find("'", i + 1)
            if end < 0:
                return None
            word.append(cmd[i + 1:end])
            in_word = True
            i = end + 1
        elif c == '"':
            j = i + 1
            while j < n and cmd[j] != '"':
                if cmd[j] in "$`":
                    return None
                if cmd[j] == "\\" and j + 1 < n and cmd[j + 1] in '"\\':
                    j += 1
                word.append(cmd[j])
                j += 1
            if j >= n:
                return None
            in_word = True
            i = j + 1
        elif c == "\\":
            if i + 1 < n:
                word.append(cmd[i + 1])
            in_word = True
            i += 2
        elif c in "$`(){}":
            return None
        else:
            op = next((o for o in _REDIRECTIONS if cmd.startswith(o, i)), None)
            if op is not None:
                if in_word and "".join(word).isdigit():  # `2>`: the descriptor
                    word.clear()
                    in_word = False
                end_word()
                skip_next = not (op == ">&" and i + 2 < n and cmd[i + 2].isdigit())
                if not skip_next:  # `2>&1`
                    i += 1
                    while i + 1 < n and cmd[i + 1].isdigit():
                        i += 1
                i += len(op)
                continue
            op = next((o for o in _SHELL_OPERATORS if cmd.startswith(o, i)), None)
            if op is not None:
                end_word()
                tokens.append(op)
                i += len(op)
            else:
                word.append(c)
                in_word = True
                i += 1
    end_word()
    return None if skip_next else tokens


def shell_commands(cmd: str) -> list[str]:
    """The simple commands a post-up line runs (ifupdown2 hands it to /bin/sh), each as its words
    joined by one space: `a; b` and `a & b` run both, `a && b` runs b when a succeeds, `a || b` when
    a fails (an `ip` command is taken to succeed: what it installs is what verify judges; `true`,
    `:` and `false` run and change nothing), `sh -c '...'` runs its text. A line this reading does
    not follow (an expansion, a compound command, a subshell) is returned whole, and stays
    something verify cannot judge."""
    if _SHELL_MARKS.search(cmd) is None:
        return [cmd]
    followed = _command_list(cmd, 0)
    return [cmd] if followed is None else followed


def _command_list(cmd: str, depth: int) -> list[str] | None:
    """shell_commands of a line holding a shell mark; None where /bin/sh's splitting of it is not
    followed (an expansion, a subshell, an unclosed quote: _shell_tokens), which makes the line
    that runs it (`sh -c`) one this reading does not follow either."""
    tokens = _shell_tokens(cmd)
    if tokens is None:
        return None
    if depth > 3:
        return [cmd]
    out: list[str] = []
    status: bool | None = True  # the last command's exit status (None: not known)
    joined_by = ";"
    for simple in _simple_commands(tokens):
        if simple[0] in _SHELL_OPERATORS:
            joined_by = simple[0]
            continue
        if simple[0] in _COMPOUND:
            return [cmd]
        runs = joined_by in (";", "&", "|") or (joined_by == "&&" and status is not False) \
            or (joined_by == "||" and status is False)
        if not runs:
            continue
        if simple[0] in _NO_EFFECT:
            status = _NO_EFFECT[simple[0]]
        elif simple[0] in _SHELLS and len(simple) == 3 and simple[1] == "-c":
            inner = [simple[2]] if _SHELL_MARKS.search(simple[2]) is None else _command_list(simple[2], depth + 1)
            if inner is None:
                return None
            out += inner
            status = True
        else:
            out.append(" ".join(simple))
            status = True if simple[0] in _IP_PROGRAMS else None
    return out


def _simple_commands(tokens: list[str]) -> list[list[str]]:
    """Tokens grouped into simple commands, each operator a group of its own."""
    groups: list[list[str]] = []
    current: list[str] = []
    for token in tokens:
        if token in _SHELL_OPERATORS:
            if current:
                groups.append(current)
            groups.append([token])
            current = []
        else:
            current.append(token)
    if current:
        groups.append(current)
    return groups


def _key_value(line: str) -> tuple[str, str] | None:
    """(first word, rest without its surrounding whitespace) of a line, None for a blank line or a
    comment. str.split, not a regex: a large fabric has millions of these lines."""
    w = line.split(None, 1)
    if not w or w[0][0] == "#":
        return None
    return w[0], w[1].rstrip() if len(w) > 1 else ""


def parse_stanzas(text: str) -> list[Stanza]:
    stanzas: list[Stanza] = []
    current: Stanza | None = None
    for _number, line in numbered_lines(text):
        kv = _key_value(line)
        if kv is None:
            continue
        key, rest = kv
        if key == "iface":
            parts = rest.split()
            current = Stanza(parts[0] if parts else "", parts[2] if len(parts) > 2 else "")
            stanzas.append(current)
        elif key in _ENDS_STANZA:
            current = None
        elif current is not None:
            current.attrs.append((key, rest))
    return stanzas


@dataclass(slots=True)
class InterfacesFile:
    interfaces: dict[str, Interface]
    vrfs: dict[str, int | None]  # VRF device -> table
    commands: list[str]  # the `post-up` / `up` commands of the stanzas, in order (server routes, rules)
    command_ports: list[str]  # per command, the stanza that runs it
    command_lines: list[int]  # per command, its line in the file
    # lines the model does not understand: (line number, text). Attributes known not to change
    # addressing, routing or forwarding (KNOWN_HARMLESS) are not reported
    unmodelled: list[tuple[int, str]] = field(default_factory=list)
    gateways: dict[str, str] = field(default_factory=dict)  # interface -> its `gateway` (a default route)
    gateway_lines: dict[str, int] = field(default_factory=dict)
    lag_members: dict[str, tuple[str, int]] = field(default_factory=dict)  # port -> (its bond, the line)
    # port -> (the bridge that enslaves it, the line). A switch's ASIC routes nothing on a bridge's
    # member (the port's router interface goes with the bridge); a server's kernel still takes
    # traffic for the member's address through the bridge, so only switches read it as a LAG member
    bridge_members: dict[str, tuple[str, int]] = field(default_factory=dict)
    # the stanzas with `address-purge no`: ifupdown2 leaves the addresses it did not configure on them
    # (by default a stanza's address module removes every address its lines do not name)
    addresses_kept: set[str] = field(default_factory=set)
    # (port, address) -> the stanza whose post-up command added it, when that stanza comes up after
    # the port's own (apply_link_commands): the kernel holds its connected subnet from then on
    added_later: dict[tuple[str, str], str] = field(default_factory=dict)
    stanza_lines: dict[str, int] = field(default_factory=dict)  # interface -> the line of its first `iface`


# attributes that change nothing verify judges (link settings, descriptions of the physical layer;
# IPv6 forwarding, `ip6-forward`: the planes route IPv4 only, no IPv6 route leads anywhere; the
# ARP table taking unsolicited replies, `arp-accept`: which neighbor entries exist early, not where
# a packet goes)
KNOWN_HARMLESS = frozenset({"link-duplex", "hwaddress", "pre-down",
                            "post-down", "down", "mstpctl-portadminedge", "mstpctl-bpduguard", "bridge-vlan-aware",
                            "bridge-vids", "bridge-pvid", "bridge-stp", "address-purge", "inet", "dns-nameservers",
                            "dns-search", "ip6-forward", "arp-accept"})


_LINK_KEYS: dict[str, Callable[[Interface, int, str], None]] = {
    "link-speed": lambda iface, line, value: link.set_link(iface, line, speed=link.speed_mbps(value)),
    "link-fec": lambda iface, line, value: link.set_link(iface, line, fec_mode=link.fec(value)),
    "link-autoneg": lambda iface, line, value: link.set_link(iface, line, negotiate=link.autoneg(value)),
}


# attributes ifupdown2's addons read with get_attr_value_first: a stanza's second line of one of
# them changes nothing (the first is applied), and is reported as such
FIRST_ONLY = frozenset({"mtu", "alias", "vrf", "vrf-table", "ip-forward", "link-down", "link-speed", "link-fec",
                        "link-autoneg"})


def ignored_repeat(key: str, line: str) -> str:
    """The unmodelled text for a stanza's later line of a FIRST_ONLY attribute."""
    return f"{line} (ifupdown2 applies the stanza's first `{key}` line and ignores this one)"


NOT_AUTO = "not auto"  # Interface.down of a stanza ifupdown2 never brings up
# `iface NAME inet METHOD`: the methods whose addresses are the stanza's own lines
_ADDRESS_METHODS = frozenset({"static", "manual", "loopback"})
# the methods whose stanza's `address` lines ifupdown2 never applies (its address module leaves the
# port to the client: measured, `iface swp33 inet dhcp` with `address 10.11.0.1/31` ends without it)
_CLIENT_METHODS = frozenset({"dhcp", "ppp"})


def read_interfaces(text: str) -> InterfacesFile:
    """Interfaces and VRFs of an interfaces file in one pass (no Stanza objects: a large fabric has
    millions of lines). A stanza with vrf-table is a VRF device; its address is the VRF's loopback and is
    reported as a loopback interface inside that VRF. A ``netmask`` gives the stanza's last address
    so far its length when that address has none (ifupdown2 files it at that address's place, and
    drops one before any address); of an attribute ifupdown2 reads once (FIRST_ONLY) the stanza's
    first line counts and a repeat is reported; ``link-down yes`` keeps the port down; ``gateway``
    is a default route (kept as the command ifupdown2 runs for it); a post-up line is split into
    the commands /bin/sh runs (shell_commands). A second stanza of one interface adds to the first
    (its attributes applied after the first's, as ifupdown2 runs the siblings). Lines are those of
    numbered_lines, split as _key_value splits them (inlined: a call per line costs a fifth of the
    reading)."""
    ifaces: dict[str, Interface] = {}
    stanza_lines: dict[str, int] = {}
    vrfs: dict[str, int | None] = {}
    commands: list[str] = []
    command_ports: list[str] = []
    command_lines: list[int] = []
    gateway_lines: dict[str, int] = {}
    unmodelled: list[tuple[int, str]] = []
    iface: Interface | None = None  # the open stanza's interface
    stanza = 0  # the open stanza's number
    seen: set[str] = set()  # the FIRST_ONLY attributes the open stanza has set
    addresses_read = 0  # the open stanza's `address` lines so far
    bare: list[tuple[Interface, int, int, int]] = []  # (interface, position, stanza, index) of a length-less address
    masks: dict[int, list[int | None]] = {}  # stanza -> its netmask lines' lengths, in order
    gateways: dict[str, str] = {}
    brought_up: set[str] = set()  # the stanzas of the auto (and allow-hotplug) class
    lag_members: dict[str, tuple[str, int]] = {}
    bridge_members: dict[str, tuple[str, int]] = {}
    auto_all = False
    addresses_kept: set[str] = set()
    # an interface with an `address` value ifupdown2 cannot read gets none of its addresses; one the
    # kernel refuses ends the interface's addresses there (address_reading; measured)
    voided: dict[str, tuple[int, str]] = {}  # interface -> (line, text) of the first unreadable value
    cut: dict[str, tuple[int, int, str]] = {}  # interface -> (its addresses before it, line, text)
    client = ""  # the open stanza's family and method when the method is one of _CLIENT_METHODS
    for number, line in numbered_lines(text):
        w = line.split(None, 1)
        if not w:
            continue
        key = w[0]
        if key == "iface":
            parts = w[1].split() if len(w) > 1 else []
            name = parts[0] if parts else ""
            iface = ifaces.get(name)
            if iface is None:
                iface = ifaces[name] = Interface(name)
                stanza_lines[name] = number
            stanza += 1
            seen = set()
            addresses_read = 0
            iface.is_loopback = name == "lo" or (len(parts) > 2 and parts[2] == "loopback")
            client = f"{parts[1]} {parts[2]}" if len(parts) > 2 and parts[2] in _CLIENT_METHODS else ""
            if len(parts) > 2 and parts[2] not in _ADDRESS_METHODS:
                # a client (dhcp, ipv4ll, ppp, ...): what its server answers (an address, a default
                # route in the main table) is not in the model
                unmodelled.append((number, line.strip()))
            continue
        if key[0] == "#":
            continue
        if key in _ENDS_STANZA:
            if key in ("source", "source-directory") and " ".join(line.split()) != PLATFORM_SOURCE:
                unmodelled.append((number, f"{line.strip()[:120]} (the stanzas of the files it reads are not in the "
                                           "rendered folder: not judged)"))
            if key == "allow-hotplug":
                # measured with ifupdown2: `ifreload -a` (what a deploy runs) leaves a hotplug stanza as
                # it was (its port keeps its old state and settings); only a boot applies it
                unmodelled.append((number, f"{line.strip()} (the deploy's `ifreload -a` applies only `auto` "
                                           "stanzas: this one's settings take effect at the next boot)"))
            if (key == "auto" or key == "allow-hotplug") and len(w) > 1 and "[" not in w[1] and "all" not in w[1]:
                brought_up.update(w[1].split())  # (the rendered form: names only)
            elif key == "auto" or key == "allow-hotplug":
                for word in w[1].split() if len(w) > 1 else ():
                    if word == "all" and key == "auto":
                        auto_all = True
                    names = auto_names(word) if "[" in word else [word]
                    if names is None:
                        unmodelled.append((number, line.strip()))
                    else:
                        brought_up.update(names)
            iface = None
            continue
        if iface is None:
            unmodelled.append((number, line.strip()))
            continue
        value = w[1].rstrip() if len(w) > 1 else ""
        if "$IFACE" in value:  # ifupdown2 puts the stanza's interface in before anything reads the value
            value = value.replace("$IFACE", iface.name)
        if key == "address":  # (the two most frequent keys first: neither is read once only)
            if client:
                unmodelled.append((number, f"{line.strip()} (never applied: ifupdown2 applies no address of an "
                                           f"`{client}` stanza)"))
            elif _ADDRESS.fullmatch(value):
                if "/" not in value:
                    bare.append((iface, len(iface.addresses), stanza, addresses_read))
                iface.addresses.append(value)
            else:
                reading = address_reading(value)
                if isinstance(reading, str):  # a length written with leading zeros: what ifupdown2 reads
                    iface.addresses.append(reading)
                elif reading is None:  # IPv6: not in the IPv4 model, and said so
                    unmodelled.append((number, line.strip()))
                elif reading is VOIDS:
                    voided.setdefault(iface.name, (number, line.strip()))
                else:  # (REFUSED) the kernel refuses it, and the addresses after it are never added
                    cut.setdefault(iface.name, (len(iface.addresses), number, line.strip()))
            addresses_read += 1
        elif key == "post-up" or key == "up":
            if _SHELL_MARKS.search(value) is None:  # (shell_commands' own first test, without the call)
                commands.append(value)
                command_ports.append(iface.name)
                command_lines.append(number)
            else:
                for command in shell_commands(value):
                    commands.append(command)
                    command_ports.append(iface.name)
                    command_lines.append(number)
        elif key in seen:  # (it holds FIRST_ONLY keys only)
            unmodelled.append((number, ignored_repeat(key, line.strip())))
        elif key == "mtu":
            seen.add(key)
            if is_decimal(value):
                iface.mtu = int(value)
            else:
                unmodelled.append((number, line.strip()))
        elif key == "alias":
            seen.add(key)
            iface.description = value
        elif key == "vrf":
            seen.add(key)
            iface.vrf = value
        elif key == "vrf-table":
            seen.add(key)
            vrfs[iface.name] = int(value) if is_decimal(value) else None
            iface.is_loopback = True
            iface.vrf = iface.name
        elif key == "bridge-ports":
            iface.bridge_ports = value.split()
            if {"glob", "regex"} & set(iface.bridge_ports):  # ifupdown2's patterns: the members are not named
                unmodelled.append((number, line.strip()))
            else:
                bridge_members.update((member, (iface.name, number)) for member in iface.bridge_ports)
        elif key == "bond-slaves":
            lag_members.update((member, (iface.name, number)) for member in value.split())
        elif key == "ip-forward" and value.lower() in _FORWARD_VALUES:
            seen.add(key)
            iface.forwarding = (_FORWARD_VALUES[value.lower()], number, line.strip(), "interfaces")
        elif key == "link-down":
            seen.add(key)
            iface.down = "link-down" if value == "yes" else iface.down
        elif key == "netmask":
            # ifupdown2 files a netmask beside the stanza's last address so far (at the next free
            # place once that one has its own): before any address it is dropped
            length = mask_length(value)
            slots = masks.setdefault(stanza, [])
            if not addresses_read:
                unmodelled.append((number, f"{line.strip()} (before any address: ifupdown2 drops it)"))
            elif length is None:
                unmodelled.append((number, line.strip()))
            if addresses_read:
                slots += [None] * (addresses_read - 1 - len(slots))
                slots.append(length)
        elif key == "gateway":
            gateways[iface.name] = value
            gateway_lines[iface.name] = number
        elif key in _LINK_KEYS:
            seen.add(key)
            try:
                _LINK_KEYS[key](iface, number, value)
            except link.Unreadable:
                unmodelled.append((number, line.strip()))
        elif key == "address-purge":
            if value.lower() in ("no", "off", "0", "false"):
                addresses_kept.add(iface.name)
        elif key not in KNOWN_HARMLESS:
            unmodelled.append((number, line.strip()))
    for owner, position, in_stanza, index in bare:
        lengths = masks.get(in_stanza, ())
        length = lengths[index] if index < len(lengths) else None
        if length is not None:
            owner.addresses[position] += f"/{length}"
    for name, (before, number, text) in cut.items():
        ifaces[name].addresses[before:] = []
        unmodelled.append((number, f"{text} (refused by the kernel: ifupdown2 adds none of {name}'s addresses "
                                   "from this one on)"))
    for name, (number, text) in voided.items():
        ifaces[name].addresses = []
        unmodelled.append((number, f"{text} (not an address ifupdown2 reads: it applies none of {name}'s "
                                   "addresses)"))
    for owner in ifaces.values():  # one address named twice is one address (the kernel holds it once)
        if len(owner.addresses) > 1 and len(set(owner.addresses)) < len(owner.addresses):
            owner.addresses = list(dict.fromkeys(owner.addresses))
    # `ifreload -a` / `ifup -a` (boot) apply only the auto class: a stanza without its `auto` line
    # is never configured, and its port stays down (its addresses and commands never applied)
    # (names, not counts: an `auto` line may name an interface no stanza defines)
    if not auto_all and not brought_up.issuperset(ifaces):
        for name in ifaces.keys() - brought_up:
            ifaces[name].down = NOT_AUTO
            # a VRF device no auto stanza creates does not exist: its ports stay in the default VRF
            # (measured: `ifup -a` says "vrf master not found" and applies the rest of the port)
            vrfs.pop(name, None)
    return InterfacesFile(ifaces, vrfs, commands, command_ports, command_lines, unmodelled, gateways, gateway_lines,
                          lag_members, bridge_members, addresses_kept, stanza_lines=stanza_lines)


# iproute2's get_u32(..., 0): strtoul's base 0 (0x hexadecimal, a leading 0 octal, else decimal),
# nothing after the number, at most 32 bits
_U32 = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*")


def _u32(text: str) -> int | None:
    if not _U32.fullmatch(text):
        return None
    value = int(text, 16) if text[1:2] in ("x", "X") else int(text, 8) if text.startswith("0") else int(text)
    return value if value <= 0xFFFFFFFF else None


def _fwmark(text: str) -> tuple[int, int] | None:
    """`ip rule ... fwmark MARK[/MASK]` as the kernel keeps it: (mark, mask), the mask all bits when
    none is given and the mark is not 0, none for a mark of 0 (fib_rules.c: such a rule matches
    every packet); None for what iproute2 refuses."""
    mark_text, slash, mask_text = text.partition("/")
    mark = _u32(mark_text)
    mask = _u32(mask_text) if slash else (0xFFFFFFFF if mark else 0)
    return None if mark is None or mask is None else (mark, mask)


# iproute2 takes any prefix of a word (its `matches()`), tried in its own order: `ip r` is route,
# `ip ru` rule, `ip route a` add, `ip rule pref|prio|order` the priority
_IP_PROGRAMS = ("ip", "/sbin/ip", "/usr/sbin/ip", "/bin/ip")
_OBJECTS = ("route", "rule")
_ROUTE_VERBS = ("add", "change", "replace", "prepend", "append", "test", "delete")
_ROUTE_KEYS = ("via", "dev", "oif", "table", "src", "protocol", "metric", "priority", "preference", "scope")
_RULE_KEYS = {"from": "from", "lookup": "lookup", "table": "lookup", "priority": "priority", "preference": "priority",
              "order": "priority", "to": "to", "iif": "iif", "dev": "iif"}
_TABLE_NAMES = {"main": "254", "local": "255", "default": "253"}
REJECT_KINDS = ("blackhole", "unreachable", "prohibit")  # route and rule types that forward nothing
# a rule's options that take a value and that the model does not read (a rule with one is not read)
_RULE_OPTIONS = {"tos", "dsfield", "fwmark", "realms", "suppress_prefixlength", "suppress_ifgroup", "oif", "l3mdev",
                 "uidrange", "ipproto", "sport", "dport", "protocol", "nat", "map-to", "goto"}


def _matches(word: str, *full: str) -> str | None:
    """The first of ``full`` that ``word`` is a prefix of (iproute2's abbreviations), else None."""
    return next((f for f in full if word and f.startswith(word)), None)


# A command already in iproute2's full words (as rendered: no abbreviation, no `-4`, no shell tail,
# no route type, `nexthop`, flag or table name) is its own reading: ip_command_plain returns its
# words unchanged. Every other command goes the plain way; tests/test_parsers.py holds the two equal.
_CANONICAL_IP = re.compile(
    r"ip (?:route (?:add|replace|append|change|prepend) (?!(?:unicast|blackhole|unreachable|prohibit)(?: |$))\S+"
    r"(?: (?:via|dev|src) \S+| (?:table|metric) (?:0|[1-9][0-9]*))*"
    r"|rule add(?: (?:from|to|iif) \S+| (?:lookup|priority) (?:0|[1-9][0-9]*))*)")
# the options whose number iproute2 reads with strtoul's base 0 (get_unsigned, get_u32): 0x65 and
# 0145 are both 101
_NUMBERED = frozenset({"table", "lookup", "priority", "metric", "preference"})
_OCTAL = re.compile(r"0[0-7]+")
_HEX = re.compile(r"0[xX][0-9a-fA-F]+")


def _base0(word: str) -> str:
    """A number as strtoul(word, 0) reads it, in decimal (a word it does not read whole: unchanged,
    or with a mark that no number reading takes where a C reading would differ from a decimal one)."""
    if _HEX.fullmatch(word):
        return str(int(word, 16))
    if _OCTAL.fullmatch(word):
        return str(int(word, 8))
    if len(word) > 1 and word[0] == "0" and word.isdigit():
        return "?" + word  # (08, 09: not octal, and iproute2 refuses them)
    return word


_PLAIN_ONLY = frozenset({"nexthop", "onlink", "not", "||", "-4"})  # words the plain reading moves or drops


def _ip_command(cmd: str) -> list[str]:
    """ip_command_plain, with the rendered commands (~36 per server) read by one match."""
    if _CANONICAL_IP.fullmatch(cmd) is not None:
        words = cmd.split(" ")
        if _PLAIN_ONLY.isdisjoint(words):
            return words
    return ip_command_plain(cmd)


def _shell_words(cmd: str) -> list[str]:
    """A post-up command's words up to a shell `||` (what follows only hides a failure)."""
    words = cmd.split()
    return words[:words.index("||")] if "||" in words else words


def ip_command_plain(cmd: str) -> list[str]:
    """A post-up command as the words of ``ip route|rule VERB ...`` in full (abbreviations spelled
    out, `-4` and `-f inet` dropped, a table named by number, numbers in decimal (iproute2 reads 0x65 and 0145 as
    101), a shell `|| true` tail cut: it only hides a failure);
    any other command as its words, which no branch of server_policy reads."""
    words = _shell_words(cmd)
    if len(words) < 3 or words[0] not in _IP_PROGRAMS:
        return words
    rest = _ipv4_options_dropped(words[1:])
    if rest is None:
        return words
    obj = _matches(rest[0], *_OBJECTS) if rest else None  # route first: `ip r` is route, `ip ru` rule
    if obj is None or len(rest) < 2:
        return words
    verb = _matches(rest[1], *_ROUTE_VERBS) if obj == "route" else _matches(rest[1], "add", "delete")
    if verb is None:
        return words
    out = ["ip", obj, verb]
    args = rest[2:]
    if obj == "route":
        if args and args[0] == "unicast":
            args = args[1:]  # the default type, spelled out
        if args and args[0] in REJECT_KINDS:
            out.append(args[0])  # a route type: the prefix follows it
            args = args[1:]
        out.append(args[0] if args else "")
        groups = _split_hops(args[1:])  # the route's own options, then each `nexthop` group
        for number, group in enumerate(groups):
            if number:
                out.append("nexthop")
            flags = [w for w in group if w == "onlink"]  # the one flag without a value
            group = [w for w in group if w != "onlink"]
            for i, word in enumerate(group):
                key = _matches(word, *_ROUTE_KEYS, *(("weight",) if number else ())) if i % 2 == 0 else None
                out.append({"oif": "dev", "protocol": "proto"}.get(key or "", key or word))
            out += flags
    else:
        if "not" in args:  # the one flag without a value (it inverts the selectors)
            out.append("not")
            args = [w for w in args if w != "not"]
        args, kind = _rule_type_taken(args)
        for i, word in enumerate(args):
            out.append(_RULE_KEYS.get(_matches(word, *_RULE_KEYS) or "", word) if i % 2 == 0 else word)
        if kind is not None:
            out += ["type", kind]
    for i in range(3, len(out) - 1):
        if out[i] in _NUMBERED:
            value = out[i + 1]
            out[i + 1] = _TABLE_NAMES[value] if out[i] in ("table", "lookup") and value in _TABLE_NAMES \
                else _base0(value)
    return out


def _rule_type_taken(args: list[str]) -> tuple[list[str], str | None]:
    """A rule's words without its type (iproute2's iprule: a word no selector or option takes is
    the rule's type, `type` before it optional; `unicast`, the default, looks a table up) and the
    type: one of REJECT_KINDS (the lookup ends there: nothing leaves), or None (no type given, or
    one the model does not read, left in the words: the rule is then not read)."""
    rest: list[str] = []
    kind: str | None = None
    i = 0
    while i < len(args):
        word = args[i]
        if word == "type" and i + 1 < len(args):
            word, i = args[i + 1], i + 1
        elif _matches(word, *_RULE_KEYS) is not None or word in _RULE_OPTIONS:
            rest += args[i:i + 2]  # a selector or option and its value
            i += 2
            continue
        full = _matches(word, *REJECT_KINDS, "unicast")
        if full is None or kind is not None:
            return args, None  # another type (goto, nop, throw, nat ...) or two: not read
        kind = None if full == "unicast" else full
        i += 1
    return rest, kind


LINK_SET_DOWN = "post-up down"  # Interface.down of a port a post-up command takes down
# every command link_command reads has its object word starting with `l` after the program (and
# `-4` or `-f inet`); most post-up commands are routes and rules, which this lets through without a split
_MAYBE_LINK = re.compile(r"^\S*ip\s+(?:(?:-4|--?f\S*\s+inet)\s+)*l")
# the same for `ip address ...` (address_command)
_MAYBE_ADDRESS = re.compile(r"^\S*ip\s+(?:(?:-4|--?f\S*\s+inet)\s+)*a")
# ifupdown2's address addon: `ip-forward` takes these (utils.get_boolean_from_string)
_FORWARD_VALUES = {"on": True, "yes": True, "1": True, "off": False, "no": False, "0": False}
# `sysctl [-w] net.ipv4.conf.PORT.forwarding=0|1` (or `net.ipv4.ip_forward`, which, like
# `conf.all.forwarding`, sets every port's): PORT is None for every port
_FORWARDING_SYSCTL = re.compile(r"^(?:\S*/)?sysctl\s+(?:-[wq]+\s+)*net([./])ipv4\1(?:conf\1([^\s=./]+)\1forwarding|ip_forward)"
                                r"\s*=\s*([01])$")


def forwarding_command(cmd: str) -> tuple[str | None, bool] | None:
    """A sysctl command that turns a port's IPv4 forwarding on or off: (port, or None for every
    port; on); None for any other command."""
    m = _FORWARDING_SYSCTL.match(cmd.strip())
    if m is None:
        return None
    port = m.group(2)
    return (None if port in (None, "all") else port), m.group(3) == "1"


def _ipv4_options_dropped(words: list[str]) -> list[str] | None:
    """``ip``'s words after the program without the options that only say IPv4: `-4`, and `-family
    inet` in any of the prefixes ip(8) takes for it (`-f inet`, `--family inet`); None when another
    option comes before the object (another family, a namespace, a batch file: not read here)."""
    rest = list(words)
    while rest and rest[0].startswith("-"):
        option = rest[0][1:] if rest[0].startswith("--") else rest[0]
        if option == "-4":
            rest = rest[1:]
        elif len(option) >= 2 and "-family".startswith(option) and rest[1:2] == ["inet"]:
            rest = rest[2:]
        else:
            return None
    return [w for w in rest if w != "-4"]


def link_command(cmd: str) -> tuple[str, str | None, int | None, str | None] | None:
    """``ip link set [dev] NAME [up|down] [mtu N] [master|vrf M | nomaster]`` (iproute2's
    abbreviations: ``ip l s``; the link object comes first in ip's table of objects, the set verb
    first of iplink's for ``s``) as (device, "up"/"down"/None, MTU/None, the master it is given:
    its name, "" for none, None when not said); None for any other command or an option not read here."""
    words = _shell_words(cmd)
    rest = _ipv4_options_dropped(words[1:]) if words and words[0] in _IP_PROGRAMS else None
    if rest is None or len(rest) < 3 or not "link".startswith(rest[0]) or not "set".startswith(rest[1]):
        return None
    device: str | None = None
    state: str | None = None
    mtu: int | None = None
    master: str | None = None
    args = iter(rest[2:])
    for word in args:
        if word in ("up", "down"):
            state = word
        elif word == "mtu":
            value = next(args, "")
            if not is_decimal(value):
                return None
            mtu = int(value)
        elif word in ("master", "vrf"):  # (`vrf NAME`: iplink's own spelling of a VRF master)
            master = next(args, "")
            if not master:
                return None
        elif word == "nomaster":
            master = ""
        elif word == "dev" or device is None:
            name = next(args, "") if word == "dev" else word
            if device is not None or not name:
                return None
            device = name
        else:
            return None
    said = state or mtu is not None or master is not None
    return (device, state, mtu, master) if device is not None and said else None


# ipaddress.c's verbs in the order it tests them (`ip a a` adds, `ip a d` deletes, `ip a f` flushes)
_ADDRESS_VERBS = ("add", "change", "replace", "delete", "list", "show", "flush")


def address_command(cmd: str) -> tuple[str, str, str] | None:
    """``ip address add|replace|delete A.B.C.D[/LEN] dev NAME`` and ``ip address flush dev NAME``
    (iproute2's abbreviations; `-4`, `-f inet`) as (verb "add"/"delete"/"flush", device, "A.B.C.D/LEN",
    "" for flush); None for any other command, or an option not read here (peer, label, scope,
    a flush's selectors ...)."""
    words = _shell_words(cmd)
    rest = _ipv4_options_dropped(words[1:]) if words and words[0] in _IP_PROGRAMS else None
    if rest is None or len(rest) < 4 or _matches(rest[0], "address", "addrlabel") != "address":
        return None
    verb = _matches(rest[1], *_ADDRESS_VERBS)
    args = rest[2:]
    if verb == "flush":
        return ("flush", args[1], "") if len(args) == 2 and args[0] == "dev" else None
    if verb not in ("add", "replace", "delete"):
        return None  # (change: only an address that is there; list, show: nothing changes)
    if args[0] == "local":
        args = args[1:]
    if len(args) != 3 or args[1] != "dev" or not _ADDRESS.fullmatch(args[0]) \
            or verb == "delete" and "/" not in args[0]:
        return None  # (a bare address deleted: the kernel picks which of the port's; not read)
    prefix = args[0] if "/" in args[0] else f"{args[0]}/32"  # (ip takes a bare address as a /32)
    return ("delete" if verb == "delete" else "add"), args[2], prefix


def apply_link_commands(parsed: InterfacesFile, bounce: bool = True, forwarding: bool = True,
                        addresses: bool = True, masters: bool = False) -> set[int]:
    """The post-up ``ip link set`` commands (link_command) applied to the ports they name, in the
    order ifupdown2 runs them (a stanza never brought up runs none); the indices of the commands
    applied (the others stay for the caller: routes and rules, or not modelled).
    ``addresses``: whether ``ip address add|delete|flush`` commands (address_command) change the
    ports' addresses (a switch's and a server's; an address a later stanza adds to an earlier
    port is noted in ``added_later``). A command that changes a port whose stanza comes later is undone
    there (measured with ifupdown2: the address module removes what the stanza's lines do not name,
    and adds back what they do), unless that stanza says `address-purge no` (an added address stays).
    ``bounce``: whether a port taken down and brought up again is simply up. True on a switch (FRR
    installs its routes again); on a server the kernel flushed the routes through the port when it
    went down and nothing puts them back, which the host model does not follow: both commands are
    left to the caller (not modelled) and the port is taken as it was.
    ``forwarding``: whether ``sysctl`` commands that turn a port's IPv4 forwarding on or off are
    applied to the ports (a switch's; a server's forwarding is its sysctl.conf's, judged there).
    ``masters``: whether ``ip link set X master|vrf V`` and ``nomaster`` move a port into one of the
    file's VRFs or out of its VRF (a switch's: its routes and sessions go with it; from a stanza
    before the port's own, whose vrf module sets the port's master again, it is left reported)."""
    done: set[int] = set()
    taken_down: dict[str, int] = {}  # port -> the command that took it down
    addressed: dict[str, dict[str, None]] = {}  # port -> its addresses, once an address command changed them
    from_later: dict[str, dict[str, str]] = {}  # port -> its addresses added from a later stanza -> that stanza
    order = {name: i for i, name in enumerate(parsed.interfaces)}  # the stanzas' bring-up order
    commands = parsed.commands
    for number in sorted(range(len(commands)), key=lambda i: (order.get(parsed.command_ports[i], len(order)), i)):
        cmd, port = commands[number], parsed.command_ports[number]
        runs = parsed.interfaces.get(port)
        if forwarding and "forward" in cmd and (sysctl := forwarding_command(cmd)) is not None and runs is not None \
                and runs.down != NOT_AUTO and (sysctl[0] is None or sysctl[0] in parsed.interfaces):
            for name in [sysctl[0]] if sysctl[0] is not None else list(parsed.interfaces):
                parsed.interfaces[name].forwarding = (sysctl[1], parsed.command_lines[number], f"post-up {cmd}",
                                                      "interfaces")
            done.add(number)
            continue
        if addresses and _MAYBE_ADDRESS.search(cmd) and (change := address_command(cmd)) is not None \
                and change[1] in parsed.interfaces and runs is not None and runs.down != NOT_AUTO:
            verb, device, prefix = change
            later = order[port] < order[device] and parsed.interfaces[device].down != NOT_AUTO
            if not later or verb == "add" and device in parsed.addresses_kept:  # (else undone by its own stanza)
                # the port's addresses as an ordered set (a hostile file's thousands of commands stay linear)
                held = addressed.get(device)
                if held is None:
                    held = addressed[device] = dict.fromkeys(parsed.interfaces[device].addresses)
                if verb == "add":
                    if prefix not in held and order[port] > order[device]:
                        from_later.setdefault(device, {})[prefix] = port
                    held[prefix] = None
                elif verb == "delete":
                    held.pop(prefix, None)
                    from_later.get(device, {}).pop(prefix, None)
                else:
                    held.clear()
                    from_later.pop(device, None)
            done.add(number)
            continue
        read = link_command(cmd) if _MAYBE_LINK.search(cmd) else None
        if read is None or read[0] not in parsed.interfaces or runs is None or runs.down == NOT_AUTO:
            continue
        device, state, mtu, master = read
        target = parsed.interfaces[device]
        if master is not None and not (masters and (master == "" or master in parsed.vrfs)):
            continue  # a bridge's or bond's member, a VRF this file does not make, or a server's port
        if order[port] < order[device]:
            # run before the port's own stanza, which brings the port up (or keeps it down) and
            # sets its MTU afterwards: a state changes nothing; an MTU or a master is not followed
            if mtu is None and master is None:
                done.add(number)
            continue
        if master is not None:
            target.vrf = master or None
        if state == "down" and not target.down:
            target.down = LINK_SET_DOWN
            taken_down[device] = number
        elif state == "up" and target.down == LINK_SET_DOWN:
            if not bounce:
                target.down = ""  # as it was, and neither command applied
                done.discard(taken_down.pop(device))
                continue
            target.down = ""
        if mtu is not None:
            target.mtu = mtu
        done.add(number)
    for device, held in addressed.items():
        parsed.interfaces[device].addresses = list(held)
    parsed.added_later = {(device, prefix): stanza for device, added in from_later.items()
                          for prefix, stanza in added.items()}
    return done


def _split_hops(args: list[str]) -> list[list[str]]:
    """A route's words after its prefix: its own options, then one group per `nexthop` keyword."""
    groups: list[list[str]] = [[]]
    for word in args:
        if word == "nexthop":
            groups.append([])
        else:
            groups[-1].append(word)
    return groups


def _hops(groups: list[list[str]]) -> tuple[tuple[str | None, str | None, bool], ...] | None:
    """The (gateway, port, onlink) of each `nexthop` group, or None when one is not read whole."""
    hops = []
    for group in groups:
        onlink = "onlink" in group
        words = [w for w in group if w != "onlink"]
        opts = dict(zip(words[::2], words[1::2]))
        via, weight = opts.get("via"), opts.get("weight")
        if len(words) % 2 or len(opts) * 2 != len(words) or not set(opts) <= {"via", "dev", "weight"} \
                or not (via or opts.get("dev")) or (via is not None and not _ipv4(via)) or (onlink and via is None) \
                or (weight is not None and not (is_decimal(weight) and 1 <= int(weight) <= 256)):
            return None
        hops.append((via, opts.get("dev"), onlink))
    return tuple(hops) if hops else None


def ipv4_plain(text: str) -> bool:
    """The reference of ``_ipv4``: four dot-separated ASCII decimals of at most three digits, each
    at most 255 (leading zeros as ip(8) takes them)."""
    parts = text.split(".")
    return len(parts) == 4 and all(is_decimal(p) and len(p) <= 3 and int(p) <= 255 for p in parts)


# the same set as ipv4_plain in one C match (the server files have ~40 addresses each: the generator
# per octet was a third of reading their policy routing); tests/test_parsers.py holds them equal
_OCTET = "(?:25[0-5]|2[0-4][0-9]|[01][0-9][0-9]|[0-9][0-9]?)"
_IPV4 = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}")


def _ipv4(text: str) -> bool:
    return _IPV4.fullmatch(text) is not None


def _route_target(text: str) -> bool:
    """``default`` or an IPv4 prefix (a bare address is a /32): what the host model reads."""
    address, _, length = text.partition("/")
    return text == "default" or (_ipv4(address) and (not length or is_decimal(length) and int(length) <= 32))


def _multipath(w: list[str], port: str | None, order: int) -> ServerRoute | None:
    """`ip route add|replace|append PREFIX [table N] [metric M] [src A] nexthop ... nexthop ...`
    (_ip_command's words), or None when the model does not read it whole."""
    if len(w) < 5 or w[2] not in ("add", "replace", "append") or not _route_target(w[3]):
        return None
    head, *groups = _split_hops(w[4:])
    opts = dict(zip(head[::2], head[1::2]))
    table, src = opts.get("table"), opts.get("src")
    metric = opts.get("metric") or opts.get("priority") or opts.get("preference")
    hops = _hops(groups)
    if hops is None or len(head) % 2 or len(opts) * 2 != len(head) \
            or not set(opts) <= {"table", "src", "proto", "metric", "priority", "preference"} \
            or (table is not None and not is_decimal(table)) or (metric is not None and not is_decimal(metric)) \
            or (src is not None and not _ipv4(src)):
        return None
    return ServerRoute(w[3], None, None, int(table) if table else None, int(metric) if metric else 0, w[2],
                       port=port, src=src, hops=hops, order=order)


def server_policy(commands: list[str], unmodelled: list[int] | None = None,
                  ports: list[str] | None = None) -> tuple[list[ServerRoute], list[ServerRule]]:
    """Routes and rules installed by post-up commands (``ip route add|replace|append ...``,
    ``ip rule add ...``, as iproute2 reads them: _ip_command). The index of any other command goes
    to ``unmodelled`` (verify cannot judge it).
    ``ports``: per command, the stanza that runs it (a route's ``port``)."""
    routes: list[ServerRoute] = []
    rules: list[ServerRule] = []
    for number, value in enumerate(commands):
        w = _ip_command(value)
        if w[:2] == ["ip", "route"] and "nexthop" in w[4:]:
            route = _multipath(w, ports[number] if ports is not None else None, number)
            if route is not None:
                routes.append(route)
            elif unmodelled is not None:
                unmodelled.append(number)
            continue
        onlink = "onlink" in w[4:]
        if onlink and w[:2] == ["ip", "route"]:  # the one flag without a value
            w = w[:4] + [word for word in w[4:] if word != "onlink"]
        kind = "unicast"
        if w[:2] == ["ip", "route"] and len(w) >= 5 and w[3] in REJECT_KINDS:
            kind, w = w[3], w[:3] + w[4:]
        if w[:2] == ["ip", "route"] and len(w) >= 4 and w[2] in ("add", "replace", "append", "delete") \
                and len(w) % 2 == 0:
            opts = dict(zip(w[4::2], w[5::2]))
            table = opts.get("table")
            via = opts.get("via")
            metric = opts.get("metric") or opts.get("priority") or opts.get("preference")
            src = opts.get("src")
            if set(opts) <= {"via", "dev", "table", "src", "proto", "metric", "priority", "preference"} \
                    and len(opts) * 2 == len(w) - 4 \
                    and (table is None or is_decimal(table)) and (metric is None or is_decimal(metric)) \
                    and _route_target(w[3]) and (via is None or _ipv4(via)) and not (onlink and via is None) \
                    and (src is None or _ipv4(src)) and (kind == "unicast" or not {"via", "dev", "src"} & set(opts)):
                routes.append(ServerRoute(w[3], opts.get("via"), opts.get("dev"), int(table) if table else None,
                                          int(metric) if metric else 0, w[2], onlink,
                                          ports[number] if ports is not None else None, src, kind, order=number))
                continue
        elif w[:2] == ["ip", "rule"] and w[2:3] in (["add"], ["delete"]) \
                and len(w) % 2 == (0 if w[3:4] == ["not"] else 1):
            invert = w[3:4] == ["not"]
            opts = dict(zip(w[3 + invert::2], w[4 + invert::2]))
            delete = w[2] == "delete"
            table = opts.get("lookup", "0" if delete else None)  # (deleting: 0 is any table)
            prio = opts.get("priority")
            source, _, length = opts.get("from", "all").partition("/")  # no `from`: every source
            if source == "all":  # every source: the rule catches the traffic of every port
                source, length = "0.0.0.0", "0"
            to = opts.get("to")
            if to == "all":
                to = None
            fwmark = _fwmark(opts["fwmark"]) if "fwmark" in opts else None
            action = opts.get("type", "lookup")
            if action in REJECT_KINDS and "lookup" not in opts:
                table = "0"  # (no table: the rule's type ends the lookup)
            if source and _ipv4(source) and table and is_decimal(table) \
                    and set(opts) <= {"from", "lookup", "priority", "to", "iif", "fwmark", "type"} \
                    and ("fwmark" not in opts or fwmark is not None) \
                    and (to is None or _route_target(to) and to != "default") \
                    and (prio is None or is_decimal(prio)) and (not length or is_decimal(length) and int(length) <= 32):
                rules.append(ServerRule(source, int(table), int(prio) if prio else None, int(length) if length else 32,
                                        to, opts.get("iif"), invert, fwmark, delete, action, number))
                continue
        if unmodelled is not None:
            unmodelled.append(number)
    return routes, rules
