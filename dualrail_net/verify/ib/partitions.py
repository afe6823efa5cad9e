"""Our own parser of OpenSM's partitions.conf grammar (man opensm, "PARTITION CONFIGURATION").

It exists to reject what opensm would silently mishandle: on any parse error opensm drops the whole
file, puts every port in the default partition as a full member and still exits 0; a line over
4094 characters is cut mid-GUID; an unknown port flag silently means limited; GUIDs not in the
fabric are skipped; only the low 15 bits of a P_Key count; duplicate P_Keys merge."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dualrail_net.verify.parsers.files import is_decimal

MAX_LINE = 4094
KEYWORDS = {"ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF"}
MEMBERSHIPS = {"full", "limited", "both"}
VALUE_FLAGS = {"mtu": range(1, 6), "rate": range(2, 30), "sl": range(0, 16), "scope": range(0, 16),
               "TClass": range(0, 256)}
NAME_RE = re.compile(r"^[A-Za-z0-9_.+\-]+$")
GUID_RE = re.compile(r"^0x[0-9a-fA-F]{1,16}$")


@dataclass
class Member:
    target: str  # GUID (normalised 0x + 16 hex) or keyword
    membership: str | None  # None: the partition's defmember
    line: int


@dataclass
class Partition:
    name: str
    pkey: int | None
    flags: list[str]
    members: list[Member]
    line: int
    defmember: str = "limited"


@dataclass
class ParseResult:
    partitions: list[Partition] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)  # (line, message)


def _norm_guid(text: str) -> str:
    return "0x" + text[2:].lower().zfill(16)


def parse_partitions(text: str) -> ParseResult:
    result = ParseResult()
    # Strip comments, remember the line each character came from.
    chars: list[tuple[str, int]] = []
    for lineno, raw in enumerate(text.split("\n"), 1):
        if len(raw) > MAX_LINE:
            result.errors.append((lineno, f"line is {len(raw)} characters; opensm cuts lines at {MAX_LINE} and "
                                  "silently loses the members past the cut"))
        line = raw.split("#", 1)[0]
        chars.extend((c, lineno) for c in line + "\n")
    body = "".join(c for c, _ in chars)
    lines_at = [ln for _, ln in chars]
    pos = 0
    for stmt_match in re.finditer(r"[^;]*;", body):
        pos = stmt_match.end()
        stmt = stmt_match.group(0)[:-1]
        if not stmt.strip():
            result.errors.append((lines_at[stmt_match.start()], "empty statement (a stray ';')"))
            continue
        start_line = lines_at[stmt_match.start() + len(stmt) - len(stmt.lstrip())]
        _statement(stmt, start_line, stmt_match.start(), lines_at, result)
    rest = body[pos:]
    if rest.strip():
        last_line = lines_at[pos + len(rest) - len(rest.lstrip())]
        result.errors.append((last_line, "the last statement does not end with ';'"))
    return result


def _statement(stmt: str, line: int, offset: int, lines_at: list[int], result: ParseResult) -> None:
    if stmt.count(":") != 1:
        result.errors.append((line, "a partition needs 'Name[=PKey][,flags] : members'"))
        return
    header, members_text = stmt.split(":")
    parts = [p.strip() for p in header.split(",")]
    name, _, pkey_text = parts[0].partition("=")
    name = name.strip()
    if not NAME_RE.match(name):
        result.errors.append((line, f"bad partition name {name!r}"))
    pkey = None
    if pkey_text.strip():
        try:
            pkey = int(pkey_text.strip(), 16)
        except ValueError:
            result.errors.append((line, f"{name}: P_Key {pkey_text.strip()!r} is not hexadecimal"))
    part = Partition(name, pkey, [], [], line)
    for flag in parts[1:]:
        key, _, value = flag.partition("=")
        if flag == "ipoib" or flag == "indx0":
            part.flags.append(flag)
        elif key == "defmember" and value in MEMBERSHIPS:
            part.defmember = value
            part.flags.append(flag)
        elif key in VALUE_FLAGS and is_decimal(value) and int(value) in VALUE_FLAGS[key]:
            part.flags.append(flag)
        elif key == "Q_Key" and re.fullmatch(r"0x[0-9a-fA-F]{1,8}", value):
            part.flags.append(flag)
        else:
            result.errors.append((line, f"{name}: unknown or invalid flag {flag!r}"))
    cursor = offset + len(header) + 1
    for raw in members_text.split(","):
        member_line = lines_at[min(cursor + len(raw) - len(raw.lstrip()), len(lines_at) - 1)]
        cursor += len(raw) + 1
        token = raw.strip()
        if not token:
            if members_text.strip():
                result.errors.append((member_line, f"{name}: empty member (doubled or trailing ',')"))
            continue
        target, _, membership = token.partition("=")
        target = target.strip()
        if membership and membership not in MEMBERSHIPS:
            result.errors.append((member_line, f"{name}: member {target}: unknown membership {membership!r} "
                                  "(opensm would silently make it limited)"))
        if target in KEYWORDS:
            part.members.append(Member(target, membership or None, member_line))
        elif GUID_RE.match(target):
            part.members.append(Member(_norm_guid(target), membership or None, member_line))
        else:
            result.errors.append((member_line, f"{name}: unknown member keyword {target!r}"))
    result.partitions.append(part)
