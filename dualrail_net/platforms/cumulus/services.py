"""Cumulus Linux's management service files, read as the programs that load them read them:
ntpsec's ntp.conf, rsyslog's RainerScript (and its legacy forwarding lines), glibc's resolv.conf
and the TACACS+ client's tacplus_servers. What they say about the planned servers lands in
``dev.management`` (MGMT-SERVICES and MGMT-AAA judge it); a server reached another way, or not
used at all, is ``astray`` with the line that makes it so; a line none of these understand is
reported (UNMODELLED), never passed over."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from dualrail_net.secretref import is_reference
from dualrail_net.verify.model import SYSLOG_TRANSPORT, DeviceConfig, ManagementConfig, syslog_transport_astray
from dualrail_net.verify.parsers.files import options_known

NTP, SYSLOG, RESOLV, TACPLUS = "ntp.conf", "rsyslog.conf", "resolv.conf", "tacplus_servers"

MAXNS = 3  # glibc's resolver keeps the first three nameserver lines and asks no other (resolv.h)

# ntp.conf statements that change nothing about which servers set the clock
_NTP_HARMLESS = frozenset({"driftfile", "leapfile", "statsdir", "statistics", "filegen", "logfile", "logconfig"})
# a server line's options ntpsec takes without a value, and those followed by one; `noselect` keeps
# the association but never lets it set the clock, `key` asks for authentication (not judged)
_SERVER_FLAGS = frozenset({"iburst", "burst", "prefer", "true", "xleave", "noselect", "preempt"})
_SERVER_VALUED = frozenset({"minpoll", "maxpoll", "version"})
# `enable`/`disable` flags; only `ntp` (the clock discipline itself) decides whether time is set
_SYSTEM_FLAGS = frozenset({"auth", "bclient", "calibrate", "kernel", "monitor", "ntp", "stats"})
# restrict flags that leave a configured server's replies alone; `ignore` drops every packet from
# the addresses it matches (replies to the switch's own requests too); others are not judged
_RESTRICT_HARMLESS = frozenset({"kod", "limited", "lowpriotrap", "nomodify", "noquery", "nopeer", "notrap",
                                "ntpport", "nomrulist", "noepeer"})


@dataclass
class _Restrict:
    """One ntp.conf ``restrict`` entry (IPv4): address and mask as integers, its flags, its line."""

    network: int
    mask: int
    flags: set[str] = field(default_factory=set)
    line: int = 0


def _ipv4(text: str) -> int | None:
    try:
        return int(ipaddress.IPv4Address(text))
    except ValueError:
        return None


def read_ntp(text: str, dev: DeviceConfig) -> None:
    """ntpsec's ntp.conf: ``server`` and ``pool`` lines (an address given to ``pool`` mobilizes that
    one server), their options (``noselect``: never used), ``restrict ... ignore`` entries (the most
    specific entry matching a server decides; its replies are dropped) and ``disable ntp`` (the clock
    discipline is off: no server sets the time)."""
    mgmt = dev.management
    servers: list[tuple[str, int]] = []
    restricts: dict[tuple[int, int], _Restrict] = {}
    discipline_off: int | None = None
    for number, raw in enumerate(text.split("\n"), 1):
        words = raw.split("#", 1)[0].split()
        if not words or words[0] in _NTP_HARMLESS:
            continue
        if words[0] in ("server", "pool") and len(words) >= 2:
            options = words[2:]
            if not options_known(options, _SERVER_FLAGS, _SERVER_VALUED):
                dev.base_unmodelled.append((NTP, number, raw))
            if "noselect" in options:
                mgmt.astray.append((NTP, number, words[1], "marked noselect: never used to set the clock"))
            else:
                servers.append((words[1], number))
                mgmt.located.setdefault(("NTP", words[1]), (NTP, number))
        elif words[0] == "restrict" and len(words) >= 2:
            entry = _restrict(words[1:], number)
            if entry is None:
                dev.base_unmodelled.append((NTP, number, raw))
                continue
            if entry.network < 0:
                continue
            if entry.flags - _RESTRICT_HARMLESS - {"ignore"}:
                dev.base_unmodelled.append((NTP, number, raw))
            # ntpd keeps one entry per address and mask: a second line adds its flags to the first's
            kept = restricts.setdefault((entry.network, entry.mask), entry)
            if kept is not entry:
                if "ignore" in entry.flags and "ignore" not in kept.flags:
                    kept.line = number  # the line that makes the entry drop what it matches
                kept.flags |= entry.flags
        elif words[0] in ("enable", "disable") and len(words) >= 2 and set(words[1:]) <= _SYSTEM_FLAGS:
            if "ntp" in words[1:]:
                discipline_off = number if words[0] == "disable" else None
        else:
            dev.base_unmodelled.append((NTP, number, raw))
    masks = sorted({mask for _, mask in restricts}, reverse=True)
    for server, number in servers:
        address = _ipv4(server)
        # the entry of the largest mask that matches; a server named by host name: only `default`
        # is known to match the address it resolves to
        deciding = next((entry for mask in masks if (address is not None or mask == 0)
                         and (entry := restricts.get(((address or 0) & mask, mask))) is not None), None)
        if deciding is not None and "ignore" in deciding.flags:
            mgmt.astray.append((NTP, deciding.line, server, "refused by `restrict ... ignore` (its replies are dropped)"))
        elif discipline_off is not None:
            mgmt.astray.append((NTP, discipline_off, server, "never used to set the clock (`disable ntp`)"))
        else:
            mgmt.ntp.append(server)


def _restrict(words: list[str], number: int) -> _Restrict | None:
    """``restrict [-4|-6] default|ADDR [mask M] [flag...]`` -> its IPv4 entry (network -1: an entry
    for IPv6 only, which matches no IPv4 server); None: not one read (``source``, an address not
    understood)."""
    if words[0] in ("-4", "-6"):
        if words[0] == "-6":
            return _Restrict(-1, 0, set(), number)  # IPv6 only: matches no IPv4 server
        words = words[1:]
    if not words:
        return None
    if words[0] == "default":
        network, mask, rest = 0, 0, words[1:]
    else:
        address = _ipv4(words[0])
        if address is None:
            return None
        mask, rest = 0xFFFFFFFF, words[1:]
        if rest[:1] == ["mask"]:
            given = _ipv4(rest[1]) if len(rest) > 1 else None
            if given is None:
                return None
            mask, rest = given, rest[2:]
        network = address & mask
    return _Restrict(network, mask, set(rest), number)


_ACTION = re.compile(r"\baction\s*\(")
_PARAMETER = re.compile(r"""([A-Za-z][\w.]*)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
# omfwd's parameters and the ones every action takes (rsyslog 8's omfwd and action docs), lower
# case; any other is one rsyslog does not have ("parameter ... not known -- typo in config file?")
_OMFWD_PARAMETERS = frozenset({
    "type", "target", "port", "protocol", "device", "template", "name", "address", "ipfreebind", "tcp_framing",
    "tcp_framedelimiter", "ziplevel", "compression.mode", "compression.stream.flushontxend", "rebindinterval",
    "keepalive", "keepalive.probes", "keepalive.interval", "keepalive.time", "gnutlsprioritystring",
    "streamdriver", "streamdrivermode", "streamdriverauthmode", "streamdriverpermittedpeers",
    "resendlastmsgonreconnect", "udp.sendtoall", "udp.senddelay", "conerrskip", "maxerrormessages",
    "ratelimit.interval", "ratelimit.burst"})
_ACTION_PARAMETER_PREFIXES = ("queue.", "action.", "streamdriver.")
_LEGACY_FORWARD = re.compile(r"^(\S+)\s+(@@?)(?:\([^)]*\))?(\[[^\]]+\]|[^\s:;]+)(?::(\d+))?(?:;\S+)?$")


def _without_comments(text: str) -> str:
    """RainerScript's ``#`` (to the line's end) and ``/* */`` comments blanked outside quotes,
    keeping every newline (line numbers stay). The rendered file (comment lines, one action without
    a ``#``) takes the line-by-line path; any other text the character walk (the reference)."""
    lines = text.split("\n")
    if "/*" not in text and "\\" not in text and all(
            line.lstrip().startswith("#") or "#" not in line and line.count('"') % 2 == 0 and line.count("'") % 2 == 0
            for line in lines):  # (no quote spans a line end, no `#` after code: whole lines are comments)
        return "\n".join(line[:len(line) - len(line.lstrip())] if line.lstrip().startswith("#") else line
                         for line in lines)
    return _without_comments_walk(text)


def _without_comments_walk(text: str) -> str:
    """_without_comments character by character (the reference: quotes, escapes, both comment forms)."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            out.append(char)
            if char == "\\" and index + 1 < len(text):
                out.append(text[index + 1])
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
            out.append(char)
        elif char == "#":
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = len(text) if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[index:end]))
            index = end
            continue
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _closing(text: str, start: int) -> int:
    """The index of the ``)`` that closes the parenthesis opened before ``start`` (outside quotes);
    -1: never closed."""
    quote = ""
    index = start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == ")":
            return index
        index += 1
    return -1


def read_rsyslog(text: str, dev: DeviceConfig, vrf: str) -> None:
    """rsyslog's remote targets: RainerScript ``action(type="omfwd" ...)`` statements (over as many
    lines as they take, values in double or single quotes, parameter names in any case), after a
    ``*.*`` selector or none; the legacy ``SELECTOR @host[:port]`` (UDP) and ``@@host`` (TCP) lines,
    which name no device and so send in the default VRF. Another selector or filter before an
    action is reported (which messages go is not judged); so is every statement not read."""
    mgmt = dev.management
    clean = _without_comments(text)
    masked = list(clean)
    after = 0  # where the last action read ends: an `action(` inside it is its text, not an action
    number, counted = 1, 0  # the line of `counted` (lines are counted once, as the actions come)
    for found in _ACTION.finditer(clean):
        if found.start() < after:
            continue
        end = _closing(clean, found.end())
        if end < 0:
            break  # never closed: rsyslog refuses the file's rest; its lines are reported below
        after = end + 1
        number += clean.count("\n", counted, found.start())
        counted = found.start()
        body = clean[found.end():end]
        params = {key.lower(): value[1:-1] for key, value in _PARAMETER.findall(body)}
        prefix = clean[clean.rfind("\n", 0, found.start()) + 1:found.start()].strip()
        for index in range(found.start(), end + 1):
            if masked[index] != "\n":
                masked[index] = " "
        masked[found.start()] = "\0"
        if params.get("type", "").lower() != "omfwd":
            continue  # a local action (a file, the journal): no remote target
        target = params.get("target", "")
        if not target:
            dev.base_unmodelled.append((SYSLOG, number, "omfwd action without a target"))
            continue
        if prefix not in ("", "*.*"):
            dev.base_unmodelled.append((SYSLOG, number, f"{prefix} ...: which messages are sent is not judged"))
        for key in sorted(params):
            if key not in _OMFWD_PARAMETERS and not key.startswith(_ACTION_PARAMETER_PREFIXES):
                dev.base_unmodelled.append((SYSLOG, number, f"omfwd parameter {key[:40]}: not one rsyslog has "
                                                            "(it says \"parameter not known\")"))
        transport = (params.get("protocol", SYSLOG_TRANSPORT[0]).lower(), params.get("port", SYSLOG_TRANSPORT[1]))
        _syslog_target(mgmt, number, target, params.get("device"), transport, vrf)
    lines = text.split("\n")
    for number, line in enumerate("".join(masked).split("\n"), 1):
        words = line.strip()
        if not words or "\0" in line:  # an action's line: its selector was read with the action
            continue
        legacy = _LEGACY_FORWARD.match(words)
        if legacy is not None:
            selector, at, host, port = legacy.groups()
            if selector != "*.*":
                dev.base_unmodelled.append((SYSLOG, number, f"{selector} ...: which messages are sent is not judged"))
            _syslog_target(mgmt, number, host.strip("[]"), None,
                           ("tcp" if at == "@@" else "udp", port or SYSLOG_TRANSPORT[1]), vrf)
            continue
        dev.base_unmodelled.append((SYSLOG, number, lines[number - 1]))


def _syslog_target(mgmt: ManagementConfig, number: int, server: str, device: str | None,
                   transport: tuple[str, str], vrf: str) -> None:
    mgmt.located.setdefault(("syslog", server), (SYSLOG, number))
    if device != vrf:  # outside the management VRF: the fabric would carry it, or nothing would
        mgmt.astray.append((SYSLOG, number, server, f"sent in VRF {device or 'default'}"))
    elif (astray := syslog_transport_astray(transport)) is not None:
        mgmt.astray.append((SYSLOG, number, server, astray))
    else:
        mgmt.syslog.append(server)


_RESOLV_HARMLESS = frozenset({"search", "domain", "options", "sortlist"})


def read_resolv(text: str, dev: DeviceConfig, vrf: str) -> None:
    """glibc's resolv.conf: ``nameserver`` lines, the first three it can read only (MAXNS), each in
    the VRF its ``# vrf VRF`` comment names (Cumulus's convention; without one: the default VRF,
    the fabric's). A line is read as glibc's res_init reads it (`_resolv_keyword`,
    `_resolv_server`); a line that looks like a name server to a person but not to glibc (indented,
    the keyword followed by another blank, an address with a carriage return or a `#` stuck to it)
    is a server never asked, said at its line."""
    mgmt = dev.management
    seen = 0
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.split("\0", 1)[0]  # (C strings: glibc reads a line up to its first NUL)
        if line[:1] in (";", "#"):
            continue
        keyword = _resolv_keyword(line)
        words = line.split("#", 1)[0].split()
        if keyword == "sortlist" and mgmt.resolver_hangs is None \
                and (stuck := sortlist_stuck_at(line[len(keyword):])) is not None:
            mgmt.resolver_hangs = (RESOLV, number, f"glibc's resolver never finishes reading this sortlist line: it "
                                   f"neither takes nor skips {stuck!r}")
        if keyword == "nameserver":
            server = _resolv_server(line[len(keyword):])
            if server is None:
                written = line[len(keyword):].strip(" \t").split(" ", 1)[0].split("\t", 1)[0][:60]
                mgmt.located.setdefault(("DNS", written), (RESOLV, number))
                mgmt.astray.append((RESOLV, number, written, f"{written!r} is not an address glibc's resolver reads "
                                    "(it skips the line)"))
                continue
            if seen >= MAXNS:  # (a line glibc skips takes no place among the three)
                mgmt.located.setdefault(("DNS", server), (RESOLV, number))
                mgmt.astray.append((RESOLV, number, server, f"after the first {MAXNS} nameserver lines "
                                    "(glibc's resolver asks no other)"))
                continue
            seen += 1
            mgmt.located.setdefault(("DNS", server), (RESOLV, number))
            comment = line.partition("#")[2].split()
            in_vrf = comment[1] if len(comment) == 2 and comment[0] == "vrf" else "default"
            if in_vrf == vrf or mgmt.vrf is None:
                mgmt.dns.append(server)
            else:
                mgmt.astray.append((RESOLV, number, server, f"resolved in VRF {in_vrf}"))
        elif keyword is not None or not words:
            continue  # (search, domain, options, sortlist: which servers are asked stays)
        elif words[0] == "nameserver" and len(words) > 1:
            mgmt.located.setdefault(("DNS", words[1]), (RESOLV, number))
            mgmt.astray.append((RESOLV, number, words[1], "on a line glibc's resolver does not read (it reads "
                                "`nameserver` at the line's start followed by a space or a tab): it never asks "
                                "this server"))
        else:
            dev.base_unmodelled.append((RESOLV, number, f"{line.strip()} (glibc's resolver ignores the line)"
                                        if line[:1].isspace() or words[0] in _RESOLV_HARMLESS else line))


_C_SPACE = " \t\n\v\f\r"  # isspace in the C locale (str.isspace also takes \x1c-\x1f and more)


def sortlist_stuck_at(rest: str) -> str | None:
    """The character at which glibc 2.36's `sortlist` parser (res_init, what follows the keyword:
    ``rest``) stops for good, or None when it reads the line to its end. Its loop skips spaces and
    tabs, ends at the line's end or a `;`, and otherwise reads a word up to a blank, `;`, a mask
    separator (`/`, `&`) or a non-ASCII character, then a mask after a separator only when the
    word is an address; a character it stops at and does not skip (a carriage return, a form feed,
    a non-ASCII character, a separator after a word that is no address) starts the next round at
    the same place, forever (measured: res_init then never returns)."""
    i, n = 0, len(rest)
    while True:
        while i < n and rest[i] in " \t":
            i += 1
        if i >= n or rest[i] == ";":
            return None
        start = i
        while i < n and rest[i] not in "/&;" and rest[i].isascii() and rest[i] not in _C_SPACE:
            i += 1
        if i < n and rest[i] in "/&" and inet_aton_exact(rest[start:i]) is not None:
            i += 1  # the mask: up to a blank, `;` or a non-ASCII character
            while i < n and rest[i] != ";" and rest[i].isascii() and rest[i] not in _C_SPACE:
                i += 1
        if i == start:
            return rest[i]


def _resolv_keyword(line: str) -> str | None:
    """The keyword glibc's res_init matches at the start of ``line`` (its MATCH: the word at the
    first column, then a space or a tab), or None."""
    for keyword in ("nameserver", *_RESOLV_HARMLESS):
        if line.startswith(keyword) and line[len(keyword):len(keyword) + 1] in (" ", "\t"):
            return keyword
    return None


def _resolv_server(rest: str) -> str | None:
    """The address glibc reads from what follows `nameserver` (``rest``): blanks and tabs skipped,
    the word up to the next space, tab or end; IPv4 as inet_aton reads it with nothing after it
    (`__inet_aton_exact`), else IPv6 up to a `%` scope; None when it is neither (glibc skips the
    line). IPv4 comes back dotted, as glibc asks it."""
    word = rest.lstrip(" \t")
    for stop in (" ", "\t"):
        word = word.split(stop, 1)[0]
    if not word:
        return None
    four = inet_aton_exact(word)
    if four is not None:
        return str(ipaddress.IPv4Address(four))
    host = word.split("%", 1)[0]
    if not host or any(c.isspace() for c in host):
        return None
    try:
        return str(ipaddress.IPv6Address(host))
    except ValueError:
        return None


def inet_aton_exact(text: str) -> int | None:
    """glibc's inet_aton with nothing after the address: one to four parts separated by dots, each
    decimal, octal (a leading 0) or hexadecimal (0x), the last part filling the bytes the others
    leave (a, a.b, a.b.c, a.b.c.d); None when glibc refuses it."""
    parts = text.split(".")
    if len(parts) > 4:
        return None
    values: list[int] = []
    for part in parts:
        if not part or not part[0].isdigit() or not part.isascii():
            return None
        if part[:2] in ("0x", "0X"):
            digits, base = part[2:], 16
        elif part[0] == "0":
            digits, base = part[1:], 8
        else:
            digits, base = part, 10
        allowed = "0123456789abcdefABCDEF"[:22 if base == 16 else base]
        if any(c not in allowed for c in digits) or base == 16 and not digits:
            return None  # (strtoul stops before a stray character, which inet_aton then refuses)
        significant = digits.lstrip("0")  # (strtoul takes any number of leading zeros)
        if len(significant) > 11:
            return None  # (more than 32 bits in any base: strtoul overflows or inet_aton refuses)
        value = int(significant, base) if significant else 0
        if value > 0xFFFFFFFF:
            return None
        values.append(value)
    *head, last = values
    if any(v > 0xFF for v in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    address = last
    for i, v in enumerate(head):
        address |= v << (8 * (3 - i))
    return address


# tacplus_servers settings that leave which servers are asked, and how, alone
_TACPLUS_BLANK = re.compile(r"[ \t\n\r\f]")  # where the client's strtok ends a line's one setting
_TACPLUS_HARMLESS = frozenset({"timeout", "debug", "user_homedir", "exclude_users"})


def read_tacplus(text: str, dev: DeviceConfig, vrf: str) -> None:
    """tacplus_servers: ``server=IP[:port]`` lines, the client's ``vrf=`` (without it the default
    VRF: the fabric) and its shared ``secret=`` (without one the requests go unencrypted)."""
    mgmt = dev.management
    servers: list[str] = []
    tacacs_vrf = "default"
    keyed = False
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip() or raw[0] == "#":
            continue
        if raw[0].isspace():
            # the client (nss, pam and audisp tacplus alike) skips a line that starts with a blank
            dev.base_unmodelled.append((TACPLUS, number, f"{raw.strip()[:120]} (indented: the TACACS+ client skips "
                                                         "the line)"))
            continue
        # ... and reads a line up to its first blank (a `#` after it is no more than the rest)
        line = _TACPLUS_BLANK.split(raw, 1)[0]
        key, equals, value = line.partition("=")
        if not equals:
            dev.base_unmodelled.append((TACPLUS, number, f"{raw.strip()[:120]} (no `=` before the first blank: the "
                                                         "TACACS+ client reads no setting from it)"))
            continue
        if key == "server":
            server = value.strip().partition(":")[0]
            servers.append(server)
            mgmt.located.setdefault(("TACACS+", server), (TACPLUS, number))
        elif key == "vrf":
            tacacs_vrf = value.strip()
        elif key == "secret":
            keyed = bool(value.strip())
            if keyed and not is_reference(value.strip()):
                mgmt.literal_secrets.append((TACPLUS, number, "tacplus_servers secret"))
        elif key not in _TACPLUS_HARMLESS:
            dev.base_unmodelled.append((TACPLUS, number, raw))
    mgmt.tacacs = servers if tacacs_vrf == vrf else []
    mgmt.tacacs_key = keyed if servers else None
