"""A bounded YAML reader that remembers where every value came from.

Inventory files arrive in pull requests, so this reader treats them as hostile input:

* **Bounded.** Only regular files (never a FIFO or a device, never a link out of the inventory), at most
  ``MAX_FILE_BYTES``; nesting at most ``MAX_DEPTH``; an alias counts as every node it stands for and the
  whole document may stand for at most ``MAX_NODES`` nodes (a "billion laughs" file fails on its first
  over-budget alias, in microseconds, instead of after 4 GB); integers at most ``MAX_INT_DIGITS`` digits.
* **Iterative.** The document is built from the parser's event stream with an explicit stack, so no
  input can exhaust the interpreter's recursion limit (PyYAML's composer and constructor recurse).
  The event stream comes from libyaml (C) when it is installed: a 10 MB file is read in seconds.
* **One schema, no surprises.** Plain scalars are resolved by the YAML 1.2 core schema: ``true``/``false``
  are booleans, ``yes``/``no``/``on``/``off`` stay strings (a plane named ``NO`` is not ``False``),
  ``0000:1a`` is a string, not a base-60 number. A number with a leading zero is refused (octal in
  YAML 1.1, decimal in 1.2: a reviewer cannot tell). Any tag other than the core ones, on any node, is
  refused; so are merge keys (``<<``), which hide values from a reviewer.
* **Every problem is one ``FILE:LINE`` diagnostic** (``YamlSourceError``), never a traceback.

PyYAML's ``safe_load`` also forgets line numbers and keeps the last of two duplicate keys; this reader
records a line for every path and makes a duplicate key an error.
"""

from __future__ import annotations

import errno
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PathKey = tuple[str | int, ...]

MAX_FILE_BYTES = 64 * 1024 * 1024  # a 100k-GPU servers.yaml is ~1 MB
MAX_DEPTH = 64  # the schema nests 6 deep
MAX_NODES = 4_000_000  # nodes the document stands for, aliases expanded (10 MB of servers: ~1M)
MAX_ALIASES = 10_000
_DRAIN_EVENTS = 2_000_000  # events read past a value error, looking for a syntax error
MAX_INT_DIGITS = 20  # 2**64 has 20 digits; every physical bound of the schema is far below

# YAML's printable set (YAML 1.2, 5.1): anything else is refused with its line before parsing.
_NON_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_MAP, _SEQ = _CORE + "map", _CORE + "seq"

# YAML 1.2 core schema (10.3.2), plus a leading-zero decimal that is refused rather than guessed.
_NULL_RE = re.compile(r"~|null|Null|NULL|")
_BOOL_RE = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT_RE = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)")
_LEADING_ZERO = re.compile(r"[-+]?0[0-9]+")

_Parser: Any
try:  # libyaml's parser when PyYAML was built with it; the pure-Python one otherwise (same events)
    from yaml.cyaml import CParser as _Parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml.loader import SafeLoader as _Parser


@dataclass
class SourceMap:
    """Maps a data path (keys and list indices) to the file and 1-based line it was written on."""

    lines: dict[PathKey, tuple[str, int]] = field(default_factory=dict)

    def locate(self, path: PathKey) -> tuple[str, int]:
        """The closest recorded location for ``path`` (walks up to the nearest known parent)."""
        probe = tuple(path)
        while probe:
            hit = self.lines.get(probe)
            if hit is not None:
                return hit
            probe = probe[:-1]
        return self.lines.get((), ("", 0))


class YamlSourceError(Exception):
    def __init__(self, file: str, line: int, message: str, fix: str = "") -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message
        self.fix = fix


def shown(value: object, limit: int = 60) -> str:
    """A value as it may appear in a one-line message: quoted, escaped, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


# ---------------------------------------------------------------------------------------------
# reading the bytes


def read_regular_file(path: Path, display: str, limit: int | None = None, within: Path | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes. With ``within``, a path
    that resolves outside that folder (a symlink out of the inventory) is refused. The file is opened
    non-blocking, so a FIFO is refused instead of waiting for a writer forever."""
    limit = MAX_FILE_BYTES if limit is None else limit
    if within is not None:
        real, base = os.path.realpath(path), os.path.realpath(within)
        if os.path.commonpath([real, base]) != base:
            raise YamlSourceError(display, 0, f"{display} is a link to {shown(real)}, outside {shown(str(within))}",
                                  "inventory files must be regular files inside the inventory folder")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise YamlSourceError(display, 0, f"cannot read file: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode) else \
                "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file"
            raise YamlSourceError(display, 0, f"{display} is {kind}", "dualrail reads only regular files (inventory, playbooks)")
        if info.st_size > limit:
            raise YamlSourceError(display, 0, f"file is {info.st_size} bytes, more than the limit of {limit}",
                                  "split it or remove what is not inventory")
        chunks: list[bytes] = []
        size = 0
        while True:  # read to the end but never past the limit (a file may grow while it is read)
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise YamlSourceError(display, 0, f"file is more than the limit of {limit} bytes",
                                      "split it or remove what is not inventory")
        return b"".join(chunks)
    except OSError as exc:
        if exc.errno == errno.EAGAIN:
            raise YamlSourceError(display, 0, "cannot read file: it would block", "use a regular file") from None
        raise YamlSourceError(display, 0, f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def decode_text(data: bytes, display: str) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is allowed) with only YAML-printable characters."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:4] in (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00"):
        raise YamlSourceError(display, 1, "file is UTF-16 or UTF-32", "save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise YamlSourceError(display, line, f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}",
                              "save the file as UTF-8") from None
    bad = _NON_PRINTABLE.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        raise YamlSourceError(display, line, f"control character {shown(bad.group())} is not allowed in YAML",
                              "remove it")
    return text


# ---------------------------------------------------------------------------------------------
# events -> values


class _MergeKey:
    """The plain key ``<<`` of a file read with merge keys (a device's file its consumer reads with
    PyYAML's or ruamel's safe loader, both of which merge)."""


MERGE = _MergeKey()


def _scalar(event: Any, file: str, is_key: bool, merge: bool = False) -> Any:
    """Resolve one scalar (YAML 1.2 core schema) and construct it; raises on anything else."""
    value: str = event.value
    line = event.start_mark.line + 1
    tag = event.tag
    if tag in (None, "!"):
        # implicit[0]: a plain scalar without a tag, resolved by its form; anything else is a string.
        if tag is not None or not event.implicit[0]:
            return value
        if is_key and value == "<<":
            if merge:
                return MERGE
            raise YamlSourceError(file, line, "YAML merge keys (<<) are not supported",
                                  "write the values out so a reviewer sees them")
        if _NULL_RE.fullmatch(value):
            tag = _NULL
        elif _BOOL_RE.fullmatch(value):
            tag = _BOOL
        elif _INT_RE.fullmatch(value):
            tag = _INT
        elif _FLOAT_RE.fullmatch(value):
            tag = _FLOAT
        else:
            return value
    elif tag.startswith("!!"):
        tag = _CORE + tag[2:]
    if tag == _STR:
        return value
    if tag == _NULL:
        if not _NULL_RE.fullmatch(value):
            raise YamlSourceError(file, line, f"{shown(value)} is not null")
        return None
    if tag == _BOOL:
        if not _BOOL_RE.fullmatch(value):
            raise YamlSourceError(file, line, f"{shown(value)} is not true or false")
        return value.lower() == "true"
    if tag == _INT:
        if not _INT_RE.fullmatch(value):
            raise YamlSourceError(file, line, f"{shown(value)} is not an integer")
        if _LEADING_ZERO.fullmatch(value):
            raise YamlSourceError(file, line, f"number {shown(value)} has a leading zero (octal in YAML 1.1)",
                                  "drop the leading zeros, or quote it if it is a name")
        digits = value.lstrip("+-")
        if len(digits) > MAX_INT_DIGITS:
            raise YamlSourceError(file, line, f"number of {len(digits)} digits is too long "
                                  f"(at most {MAX_INT_DIGITS})", "write a realistic value")
        if digits.startswith("0x"):
            return int(digits, 16)
        if digits.startswith("0o"):
            return int(digits[2:], 8)
        return int(value)
    if tag == _FLOAT:
        if not _FLOAT_RE.fullmatch(value) or len(value) > 64:
            raise YamlSourceError(file, line, f"{shown(value)} is not a number")
        number = float(value.replace("Inf", "inf").replace("INF", "inf").replace("NaN", "nan")
                       .replace("NAN", "nan").replace(".inf", "inf").replace(".nan", "nan"))
        if not math.isfinite(number):
            raise YamlSourceError(file, line, f"{shown(value)} is not a finite number", "write a real value")
        return number
    raise YamlSourceError(file, line, f"YAML tag {shown(event.tag)} is not allowed",
                          "inventory values are plain strings, numbers, booleans, lists and mappings")


class _Open:
    """A mapping or sequence whose end has not been read yet."""

    __slots__ = ("value", "path", "anchor", "nodes", "key", "has_key", "is_map", "merged")

    def __init__(self, value: dict[Any, Any] | list[Any], path: PathKey, anchor: str | None) -> None:
        self.value = value
        self.path = path
        self.anchor = anchor
        self.nodes = 1  # values this collection stands for so far (aliases expanded)
        self.key: Any = None  # a mapping's key that waits for its value
        self.has_key = False
        self.is_map = isinstance(value, dict)
        self.merged: list[tuple[list[dict[Any, Any]], int]] | None = None  # each `<<`'s mappings, its line


def _check_collection_tag(event: Any, file: str, expected: str) -> None:
    tag = event.tag
    if tag in (None, "!") or tag == expected or (tag.startswith("!!") and _CORE + tag[2:] == expected):
        return
    raise YamlSourceError(file, event.start_mark.line + 1, f"YAML tag {shown(tag)} is not allowed",
                          "inventory values are plain strings, numbers, booleans, lists and mappings")


# A plain scalar starting with any other character is a string in the core schema (fast path).
_MAY_RESOLVE = frozenset("0123456789+-.~nNtTfF<")


def _merged(done: _Open, file: str, lines: dict[PathKey, tuple[str, int]]) -> None:
    """A finished mapping's `<<` keys applied as PyYAML's flatten_mapping does: every key of the
    merged mappings that the mapping does not write itself, the first mapping of a `<<: [...]` list
    and the last `<<` winning (later entries override earlier ones, PyYAML builds the mapping from
    the merged entries first); each such key is placed at its `<<` line."""
    assert isinstance(done.value, dict) and done.merged is not None
    combined: dict[Any, tuple[Any, int]] = {}
    for group, line in done.merged:  # (a later `<<` over an earlier one; in a list, the first)
        for mapping in reversed(group):
            combined.update((key, (value, line)) for key, value in mapping.items())
    for key, (value, line) in combined.items():
        if key not in done.value:
            done.value[key] = value
            lines.setdefault((*done.path, key), (file, line))


def _build(text: str | bytes, file: str, path: PathKey, smap: SourceMap, merge: bool = False) -> Any:
    """Build the one document of ``text`` from the parser's events (iteratively), recording lines.
    ``merge``: `<<` merge keys taken as PyYAML's safe loader takes them (a device's file), not refused."""
    stack: list[_Open] = []
    anchors: dict[str, tuple[Any, int]] = {}  # anchor -> (value, values it stands for)
    open_anchors: set[str] = set()
    root: list[Any] = []
    budget = MAX_NODES
    aliases = 0
    documents = 0
    lines = smap.lines
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    top: _Open | None = None  # stack[-1]

    def over_budget(line: int) -> YamlSourceError:
        return YamlSourceError(file, line, f"the document stands for more than {MAX_NODES} values "
                               "(aliases expanded)", "write the inventory without nested aliases")

    def add(value: Any, nodes: int, line: int) -> None:
        """Attach a finished value to the open collection (or make it the document)."""
        if top is None:
            root.append(value)
            return
        top.nodes += nodes
        container: Any = top.value  # a list when not top.is_map, else a dict
        if not top.is_map:
            lines.setdefault((*top.path, len(container)), (file, line))
            container.append(value)
        elif top.has_key and top.key is MERGE:
            merged = value if isinstance(value, list) else [value]
            if not merged or not all(isinstance(m, dict) for m in merged):
                raise YamlSourceError(file, line, "a merge key (<<) takes a mapping or a list of mappings")
            top.merged = [*(top.merged or []), (merged, line)]
            top.key, top.has_key = None, False
        elif not top.has_key:
            if isinstance(value, (list, dict)):
                raise YamlSourceError(file, line, "a mapping key must be a plain value")
            if value is MERGE:
                top.key, top.has_key = value, True
                return
            if value in top.value:
                raise YamlSourceError(file, line, f"duplicate key {shown(value)}",
                                      "YAML keeps only the last one; remove or merge the duplicate")
            top.key, top.has_key = value, True
            lines[(*top.path, value)] = (file, line)
        else:
            container[top.key] = value
            top.key, top.has_key = None, False

    try:
        parser = _Parser(text)
        try:
            while parser.check_event():
                event = parser.get_event()
                kind = type(event)
                if kind is scalar_event:
                    line = event.start_mark.line + 1
                    value = event.value
                    if event.tag is not None or not event.implicit[0] or value[:1] in _MAY_RESOLVE:
                        value = _scalar(event, file, top is not None and top.is_map and not top.has_key, merge)
                    budget -= 1
                    if event.anchor is not None:
                        anchors[event.anchor] = (value, 1)
                    add(value, 1, line)
                elif kind in starts:
                    line = event.start_mark.line + 1
                    if top is not None and top.is_map and not top.has_key:
                        raise YamlSourceError(file, line, "a mapping key must be a plain value")
                    is_map = kind is yaml.MappingStartEvent
                    _check_collection_tag(event, file, _MAP if is_map else _SEQ)
                    if len(stack) >= MAX_DEPTH:
                        raise YamlSourceError(file, line, f"nesting deeper than {MAX_DEPTH} levels",
                                              "the inventory schema is a few levels deep; flatten it")
                    if top is None:
                        where = path
                    elif top.is_map:
                        where = (*top.path, top.key)
                    else:
                        where = (*top.path, len(top.value))
                    lines.setdefault(where, (file, line))  # a key's own line wins over its value's
                    if event.anchor is not None:
                        open_anchors.add(event.anchor)
                    budget -= 1
                    top = _Open({} if is_map else [], where, event.anchor)
                    stack.append(top)
                elif kind in ends:
                    line = event.start_mark.line + 1
                    done = stack.pop()
                    top = stack[-1] if stack else None
                    if done.merged is not None:
                        _merged(done, file, lines)
                    if done.anchor is not None:
                        open_anchors.discard(done.anchor)
                        anchors[done.anchor] = (done.value, done.nodes)
                    add(done.value, done.nodes, line)
                elif kind is alias_event:
                    line = event.start_mark.line + 1
                    aliases += 1
                    if aliases > MAX_ALIASES:
                        raise YamlSourceError(file, line, f"more than {MAX_ALIASES} aliases", "write the values out")
                    if event.anchor in open_anchors:
                        raise YamlSourceError(file, line, f"alias *{event.anchor} refers to the value it is part of",
                                              "a value cannot contain itself")
                    if event.anchor not in anchors:
                        raise YamlSourceError(file, line, f"alias *{event.anchor} has no anchor before it",
                                              "define &name before using *name")
                    # The value is shared, not copied: memory stays flat while the budget counts
                    # every value it stands for.
                    value, nodes = anchors[event.anchor]
                    budget -= nodes
                    if budget < 0:
                        raise over_budget(line)
                    add(value, nodes, line)
                elif kind is yaml.DocumentStartEvent:
                    documents += 1
                    if documents > 1:
                        raise YamlSourceError(file, event.start_mark.line + 1, "more than one YAML document in the "
                                              "file", "remove the second '---' or split the file")
                if budget < 0:
                    raise over_budget(event.start_mark.line + 1)
        except YamlSourceError:
            # A syntax error further on is the real problem (a stray ',' can first look like a bad
            # key): read on, without building, and report that instead. Bounded by the event count.
            for _ in range(_DRAIN_EVENTS):
                if not parser.check_event():
                    break
                parser.get_event()
            raise
        finally:
            if hasattr(parser, "dispose"):
                parser.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        raise YamlSourceError(file, line, f"YAML syntax error: {exc.problem or exc.context}",
                              "check indentation and quoting") from None
    except yaml.YAMLError as exc:  # a reader error without a mark
        raise YamlSourceError(file, 0, f"YAML error: {shown(str(exc), 120)}") from None
    return root[0] if root else None


def load_yaml(path: Path, display: str, smap: SourceMap, prefix: PathKey = (),
              within: Path | None = None) -> Any:
    """Parse one YAML file, recording line numbers under ``prefix`` in ``smap``.
    Raises YamlSourceError for every problem, never another exception."""
    data = read_regular_file(path, display, within=within)
    text = decode_text(data, display)
    # libyaml reads UTF-8 bytes faster than a str (which it would encode again); the text was checked.
    return load_yaml_text(text.encode() if data.startswith(b"\xef\xbb\xbf") or _Parser.__module__ == "yaml.loader"
                          else data, display, smap, prefix)


def load_yaml_text(text: str | bytes, display: str, smap: SourceMap, prefix: PathKey = (),
                   merge: bool = False) -> Any:
    """``merge``: `<<` merge keys resolved as PyYAML's safe loader does (for a device's file its
    consumer reads so); the inventory refuses them (they hide values from a reviewer)."""
    data = _build(text, display, prefix, smap, merge)
    if data is None:
        smap.lines[prefix] = (display, 1)
        return {}
    return data
