"""FRR's command matcher, for frr.conf lines written with abbreviated keywords.

FRR reads frr.conf through the matcher of its terminal (lib/command_match.c): a keyword may be
shortened to any prefix, and the line means the one command it completes to, so `nei 10.0.0.1 shut`
shuts the session and `addr ipv4 uni` opens the address family. The reader (``parsers/frr.py``)
dispatches on whole keywords; a line it cannot read is handed here before it is reported, and read
again in FRR's full words when it completes to exactly one command.

The grammar is FRR's own: ``frr_grammar.txt`` holds the command definitions vtysh lists in each node
the reader models (``generate_grammar`` writes it from the installed vtysh; a test keeps the two
equal). Matching follows FRR's rules:

* a keyword matches its full text exactly or any shorter prefix partly; every other token (an
  address, a prefix, a range, a variable such as WORD) matches only whole;
* of two commands a line completes, the first token where they differ decides: an address or range
  beats a keyword, which beats a variable (`score_precedence`); between two keywords the exact match
  beats the partial one; when no token decides, the line is ambiguous and FRR refuses it;
* a line no command of its node completes is tried in the parent node (FRR climbs).

Invariant: ``expand`` returns either None (no command completes the line: as written it is what the
reader already failed to read), ``AMBIGUOUS``, or the line in full words, which FRR executes exactly
as the abbreviated one.
"""

from __future__ import annotations

import functools
import random
import ipaddress
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence, Union

from dualrail_net.verify.parsers.files import is_decimal

GRAMMAR_FILE = Path(__file__).with_name("frr_grammar.txt")

# The nodes the grammar file holds and the lines that enter each from the configuration node;
# a node's parent is the node FRR climbs to.
NODES: dict[str, tuple[str, ...]] = {
    "config": (),
    "bgp": ("router bgp 1",),
    "bgp-ipv4": ("router bgp 1", "address-family ipv4 unicast"),
    "route-map": ("route-map X permit 10",),
    "vrf": ("vrf V",),
    "interface": ("interface x",),
    "line-vty": ("line vty",),
}
PARENT = {"bgp": "config", "bgp-ipv4": "bgp", "route-map": "config", "vrf": "config", "interface": "config",
          "line-vty": "config"}

AMBIGUOUS = "ambiguous"

KEYWORD, VARIABLE, IPV4, IPV4_PREFIX, IPV6, IPV6_PREFIX, MAC, MAC_PREFIX, RANGE = range(9)
# FRR's score_precedence: the lower wins when two commands differ in a token's kind
_PRECEDENCE = {IPV4: 2, IPV4_PREFIX: 2, IPV6: 2, IPV6_PREFIX: 2, MAC: 2, MAC_PREFIX: 2, RANGE: 2,
               KEYWORD: 3, VARIABLE: 4}
NO_MATCH, PARTLY, EXACT = 0, 1, 2


@dataclass(frozen=True)
class Token:
    kind: int
    text: str = ""
    low: int = 0
    high: int = 0
    repeat: bool = False  # `WORD...`: one or more words


@dataclass(frozen=True)
class Group:
    kind: str  # "<" one of, "[" optional one of, "{" one or more of, each once, any order
    options: tuple[tuple["Element", ...], ...]


Element = Union[Token, Group]
Command = tuple[Element, ...]

_SPECIAL = {"A.B.C.D": IPV4, "A.B.C.D/M": IPV4_PREFIX, "X:X::X:X": IPV6, "X:X::X:X/M": IPV6_PREFIX,
            "X:X:X:X:X:X": MAC, "X:X:X:X:X:X/M": MAC_PREFIX}
_LEXEME = re.compile(r"\s*(?:(?P<punct>[<>\[\]{}|])|(?P<range>\(-?\d+--?\d+\))"
                     r"|(?P<special>A\.B\.C\.D/M|A\.B\.C\.D|X:X::X:X/M|X:X::X:X|X:X:X:X:X:X/M|X:X:X:X:X:X)"
                     r"|(?P<variable>[A-Z][-_A-Za-z:0-9]*)|(?P<keyword>[-+]?[a-z0-9*][-+_a-zA-Z0-9*.:]*))"
                     r"(?P<name>\$[a-z_0-9]+)?(?P<repeat>\.\.\.)?")


def _lex(definition: str) -> list[Token | str]:
    out: list[Token | str] = []
    pos = 0
    end = len(definition.rstrip())
    while pos < end:
        m = _LEXEME.match(definition, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"unreadable command definition at {pos}: {definition!r}")
        pos = m.end()
        repeat = m.group("repeat") is not None
        if m.group("punct"):
            out.append(m.group("punct"))
        elif m.group("range"):
            low, high = re.fullmatch(r"\((-?\d+)-(-?\d+)\)", m.group("range")).groups()  # type: ignore[union-attr]
            out.append(Token(RANGE, m.group("range"), int(low), int(high), repeat))
        elif m.group("special"):
            out.append(Token(_SPECIAL[m.group("special")], m.group("special"), repeat=repeat))
        elif m.group("variable"):
            out.append(Token(VARIABLE, m.group("variable"), repeat=repeat))
        else:
            out.append(Token(KEYWORD, m.group("keyword"), repeat=repeat))
    return out


def parse_definition(definition: str) -> Command:
    """One of FRR's command strings (`neighbor <A.B.C.D|WORD> remote-as <(1-4294967295)|external>`)."""
    lexemes = _lex(definition)
    seq, pos = _sequence(lexemes, 0)
    if pos != len(lexemes):
        raise ValueError(f"unbalanced command definition: {definition!r}")
    return seq


def _sequence(lexemes: list[Token | str], pos: int) -> tuple[Command, int]:
    items: list[Element] = []
    while pos < len(lexemes):
        lexeme = lexemes[pos]
        if isinstance(lexeme, Token):
            items.append(lexeme)
            pos += 1
        elif lexeme in "<[{":
            close = {"<": ">", "[": "]", "{": "}"}[lexeme]
            options: list[Command] = []
            pos += 1
            while True:
                option, pos = _sequence(lexemes, pos)
                options.append(option)
                if pos >= len(lexemes):
                    raise ValueError("unclosed group")
                if lexemes[pos] == "|":
                    pos += 1
                    continue
                if lexemes[pos] != close:
                    raise ValueError("mismatched group")
                pos += 1
                break
            items.append(Group(lexeme, tuple(options)))
        else:  # "|" or a closing bracket ends this sequence
            break
    return tuple(items), pos


_IPV4 = re.compile(r"([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})")
_RANGE_WORD = re.compile(r"\s*[-+]?[0-9]{1,20}")  # strtoll's number (longer ones overflow: out of range)


def _ipv4(word: str) -> bool:
    m = _IPV4.fullmatch(word)
    return m is not None and all(int(part) <= 255 for part in m.groups())


def grade(token: Token, word: str) -> int:
    """FRR's match_token, reduced to what decides a match: partial only for keywords."""
    kind = token.kind
    if kind == KEYWORD:
        if word == token.text:
            return EXACT
        return PARTLY if len(word) < len(token.text) and token.text.startswith(word) else NO_MATCH
    if kind == VARIABLE:
        return EXACT
    if kind == IPV4:
        return EXACT if _ipv4(word) else NO_MATCH
    if kind == IPV4_PREFIX:
        address, slash, length = word.partition("/")
        ok = slash and _ipv4(address) and is_decimal(length) and int(length) <= 32
        return EXACT if ok else NO_MATCH
    if kind == RANGE:
        if not _RANGE_WORD.fullmatch(word):  # strtoll: optional blanks and sign, then digits only
            return NO_MATCH
        return EXACT if token.low <= int(word) <= token.high else NO_MATCH
    if kind in (IPV6, IPV6_PREFIX):
        address, slash, length = word.partition("/")
        if (kind == IPV6_PREFIX) != bool(slash) or ":" not in address:
            return NO_MATCH
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            return NO_MATCH
        return EXACT if not slash or is_decimal(length) and int(length) <= 128 else NO_MATCH
    mac, slash, length = word.partition("/")
    ok = re.fullmatch(r"[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}", mac) is not None
    if kind == MAC_PREFIX:
        ok = ok and bool(slash) and is_decimal(length) and int(length) <= 48
    elif slash:
        ok = False
    return EXACT if ok else NO_MATCH


Matched = tuple[tuple[Token, int], ...]  # per word: the token it matched and how well


def _walk(seq: Command, k: int, words: Sequence[str], pos: int, acc: Matched) -> Iterator[tuple[int, Matched]]:
    if k == len(seq):
        yield pos, acc
        return
    element = seq[k]
    if isinstance(element, Token):
        floor = PARTLY if element.kind == KEYWORD else EXACT
        while pos < len(words):
            how = grade(element, words[pos])
            if how < floor:
                return
            acc = acc + ((element, how),)
            pos += 1
            yield from _walk(seq, k + 1, words, pos, acc)
            if not element.repeat:
                return
        return
    for after, matched in _group(element, words, pos, acc):
        yield from _walk(seq, k + 1, words, after, matched)


def _group(group: Group, words: Sequence[str], pos: int, acc: Matched) -> Iterator[tuple[int, Matched]]:
    if group.kind == "[":
        yield pos, acc
    if group.kind in "<[":
        for option in group.options:
            yield from _walk(option, 0, words, pos, acc)
        return
    yield from _keyword_set(group.options, frozenset(), words, pos, acc)


def _keyword_set(options: tuple[Command, ...], used: frozenset[int], words: Sequence[str], pos: int,
                 acc: Matched) -> Iterator[tuple[int, Matched]]:
    if used:
        yield pos, acc
    for i, option in enumerate(options):
        if i in used:
            continue
        for after, matched in _walk(option, 0, words, pos, acc):
            if after > pos:
                yield from _keyword_set(options, used | {i}, words, after, matched)


def _decide(a: Matched, b: Matched, words: Sequence[str]) -> Matched | None:
    """FRR's disambiguate: the first token that tells the two apart, else None."""
    for (ta, ga), (tb, gb) in zip(a, b):
        if ta.kind != tb.kind:
            pa, pb = _PRECEDENCE[ta.kind], _PRECEDENCE[tb.kind]
            if pa != pb:
                return a if pa < pb else b
        elif ga != gb:
            return a if ga > gb else b
    return None


def _spelt(matched: Matched, words: Sequence[str]) -> tuple[str, ...]:
    return tuple(t.text if t.kind == KEYWORD else w for (t, _), w in zip(matched, words))


def _best(commands: Sequence[Command], words: Sequence[str]) -> Matched | str | None:
    """The one best way a command completes ``words``, AMBIGUOUS, or None (no command completes it)."""
    found: list[Matched] = []
    for command in commands:
        for after, matched in _walk(command, 0, words, 0, ()):
            if after == len(words):
                found.append(matched)
    if not found:
        return None
    best = [found[0]]
    for other in found[1:]:
        # keep every match no other beats (FRR compares them pairwise as its recursion meets them)
        kept: list[Matched] = []
        beaten = False
        for current in best:
            winner = _decide(current, other, words)
            if winner is current:
                beaten = True
                kept.append(current)
            elif winner is None:
                kept.append(current)
        if not beaten:
            kept.append(other)
        best = kept
    spellings = {_spelt(m, words) for m in best}
    return best[0] if len(spellings) == 1 else AMBIGUOUS


@dataclass(frozen=True)
class _Node:
    by_keyword: dict[str, tuple[Command, ...]]  # the commands whose first word can be this keyword
    open_first: tuple[Command, ...]  # commands whose first word is not a keyword

    def candidates(self, first: str) -> list[Command]:
        out = list(self.open_first)
        seen: set[int] = set()
        for keyword, commands in self.by_keyword.items():
            if keyword.startswith(first):
                for c in commands:
                    if id(c) not in seen:
                        seen.add(id(c))
                        out.append(c)
        return out


def _firsts(seq: Command) -> set[str] | None:
    """The keywords a command can start with; None when it can start with something else."""
    out: set[str] = set()
    for element in seq:
        if isinstance(element, Token):
            if element.kind != KEYWORD:
                return None
            out.add(element.text)
            return out
        for option in element.options:
            inner = _firsts(option)
            if inner is None:
                return None
            out |= inner
        if element.kind != "[":
            return out
    return None


@functools.lru_cache(maxsize=1)
def grammar() -> dict[str, _Node]:
    nodes: dict[str, list[Command]] = {}
    current: list[Command] | None = None
    for line in GRAMMAR_FILE.read_text().splitlines():
        if line.startswith("node "):
            current = nodes.setdefault(line[5:].strip(), [])
        elif line.strip() and not line.startswith("#") and current is not None:
            current.append(parse_definition(line.strip()))
    # FRR also installs the ipv4-unicast statements in the bgp node itself (hidden there), so a
    # `neighbor X route-map ...` written before any address-family line is taken
    nodes["bgp"] = nodes.get("bgp", []) + nodes.get("bgp-ipv4", [])
    out: dict[str, _Node] = {}
    for name, commands in nodes.items():
        by_keyword: dict[str, list[Command]] = {}
        open_first: list[Command] = []
        for c in commands:
            firsts = _firsts(c)
            if firsts is None:
                open_first.append(c)
            else:
                for keyword in firsts:
                    by_keyword.setdefault(keyword, []).append(c)
        out[name] = _Node({k: tuple(v) for k, v in by_keyword.items()}, tuple(open_first))
    return out


@functools.lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """Every keyword of the grammar in full (a word not among them may abbreviate one)."""
    out: set[str] = set()

    def collect(seq: Command) -> None:
        for element in seq:
            if isinstance(element, Token):
                if element.kind == KEYWORD:
                    out.add(element.text)
            else:
                for option in element.options:
                    collect(option)

    for node in grammar().values():
        for commands in node.by_keyword.values():
            for c in commands:
                collect(c)
        for c in node.open_first:
            collect(c)
    return frozenset(out)


def _climb(node: str, words: tuple[str, ...]) -> tuple[str, Matched] | str | None:
    nodes = grammar()
    ambiguous = False
    at: str | None = node
    while at is not None:
        known = nodes.get(at)
        if known is not None:
            result = _best(known.candidates(words[0]), words)
            if isinstance(result, tuple):
                return at, result
            ambiguous = ambiguous or result == AMBIGUOUS
        at = PARENT.get(at)
    return AMBIGUOUS if ambiguous else None


def node_has(node: str, words: tuple[str, ...]) -> bool:
    """Whether ``node`` itself (not a node above it) has a command ``words`` completes, exactly or
    abbreviated, or more than one (FRR refuses an ambiguous line where it stands: it does not
    climb); False: FRR tries the line in the parent node. Lines of one shape (_shape) are decided
    once."""
    return _node_has_shaped(node, tuple(map(_shape, words)))


@functools.lru_cache(maxsize=4096)
def _node_has_shaped(node: str, words: tuple[str, ...]) -> bool:
    known = grammar().get(node)
    return bool(words) and known is not None and _best(known.candidates(words[0]), words) is not None


def _shape(word: str) -> str:
    """A word as the grammar tells it from others: every IPv4 address grades alike against every
    token (an address or a variable takes it; no keyword, number range, prefix or IPv6 token does),
    and so does every IPv4 prefix: one stands for all (a hostile file's thousands of lines that
    differ only in their addresses complete once, not once each)."""
    if _ipv4(word):
        return "1.1.1.1"
    address, slash, length = word.partition("/")
    if slash and _ipv4(address) and is_decimal(length) and int(length) <= 32:
        return "1.1.1.1/32"
    return word


def expand(node: str, words: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | str | None:
    """The node that takes ``words`` and the line in FRR's full words, climbing from ``node`` as FRR
    does; AMBIGUOUS when the line completes to more than one command where it would be taken; None
    when no node up to the configuration node has a command it completes. Lines of one shape
    (_shape) are completed once; the words a shape stood for are put back."""
    shaped = tuple(map(_shape, words))
    found = expand_plain(node, shaped)
    if not isinstance(found, tuple) or shaped == words:
        return found
    # (a shaped word is never a keyword: the spelling there is the shape itself)
    return found[0], tuple(word if shape != word else full for word, shape, full in zip(words, shaped, found[1]))


@functools.lru_cache(maxsize=4096)
def expand_plain(node: str, words: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | str | None:
    """expand, the words taken as they are (its plain reference)."""
    if not words:
        return None
    found = _climb(node, words)
    if isinstance(found, tuple):
        return found[0], _spelt(found[1], words)
    return found


def keyword_positions(node: str, words: Sequence[str]) -> list[int] | None:
    """Which of ``words`` (a command in full words) are keywords FRR would let be shortened; None
    when no command takes the line as one."""
    if not words:
        return None
    found = _climb(node, tuple(words))
    if not isinstance(found, tuple):
        return None
    return [i for i, (token, _) in enumerate(found[1]) if token.kind == KEYWORD]


# ---- shortened files (the tests' and the twin oracle's edits) -------------------------------------

_ENTERS = re.compile(r"^\s*(router |address-family |route-map |vrf |exit|interface |line |end)")


def node_after(words: list[str], node: str) -> str:
    """The grammar node a line written in full leaves the reader in."""
    head = words[0]
    if head == "router" and words[1:2] == ["bgp"]:
        return "bgp"
    if head == "address-family":
        return "bgp-ipv4" if words[1:] in (["ipv4"], ["ipv4", "unicast"]) else "bgp-other"
    if head == "exit-address-family" or head == "exit" and node.startswith("bgp-"):
        return "bgp"
    if head in ("exit", "end", "exit-vrf"):
        return "config"
    if head in ("route-map", "vrf", "interface"):
        return head
    return "line-vty" if words == ["line", "vty"] else node


def abbreviated(text: str, rng: random.Random, share: float = 0.5,
                unique_only: bool = False) -> tuple[str, set[int]]:
    """``text`` (an frr.conf in full words) with keywords cut short at random, each with probability
    ``share``, to any shorter prefix; with ``unique_only`` only where FRR completes the line back to
    what it was. Lines that enter or leave a node stay whole. Also returns the numbers of the lines
    FRR refuses after the cut (ambiguous, or no longer any command)."""
    out: list[str] = []
    refused: set[int] = set()
    node = "config"
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0][0] in "!#" or _ENTERS.match(line) or node == "bgp-other":
            if words and words[0][0] not in "!#":
                node = node_after(words, node)
            out.append(line)
            continue
        short = list(words)
        for i in keyword_positions(node, words) or []:
            if len(words[i]) > 1 and rng.random() < share:
                short[i] = words[i][:rng.randint(1, len(words[i]) - 1)]
        result = expand(node, tuple(short))
        if not (isinstance(result, tuple) and list(result[1]) == words):
            if unique_only:
                short = words
            elif not isinstance(result, tuple):
                refused.add(number)
        out.append(line[:len(line) - len(line.lstrip())] + " ".join(short))
    return "\n".join(out) + "\n", refused


_MAYBE_SHORT = re.compile(r"[a-z][a-z-]*")


@functools.lru_cache(maxsize=4)
def spelt_out(text: str) -> tuple[tuple[str, ...], bool]:
    """Each line of ``text`` in FRR's full words where it abbreviates one command (else as written),
    and whether any line abbreviates (or ambiguously abbreviates) a command. Only a line with a
    lower-case word that is no keyword in full is matched (the rest are taken as written). Cached:
    a twin switch's start asks it of one config three times (the split, its refusals, vtysh's)."""
    full_keywords = keywords()
    out: list[str] = []
    shortened = False
    node = "config"
    for line in text.splitlines():
        words = line.split()
        if not words or words[0][0] in "!#":
            out.append(line)
            continue
        if any(w not in full_keywords and _MAYBE_SHORT.fullmatch(w) for w in words):
            result = expand(node if node != "bgp-other" else "bgp", tuple(words))
            if isinstance(result, tuple) and list(result[1]) != words:
                words, shortened = list(result[1]), True
                line = line[:len(line) - len(line.lstrip())] + " ".join(words)
            elif result == AMBIGUOUS:
                shortened = True
        node = node_after(words, node)
        out.append(line)
    return tuple(out), shortened


def generate_grammar(vtysh: str = "vtysh") -> str:
    """The grammar file's text from the installed vtysh (`list` in each node, via --dryrun)."""
    out = ["# FRR's command definitions per node, as `vtysh --dryrun` lists them (generate_grammar).",
           "# Read by frr_cli to complete abbreviated keywords as FRR does."]
    version = subprocess.run([vtysh, "--dryrun", "-c", "show version"], capture_output=True, text=True)
    first = (version.stdout + version.stderr).strip().splitlines()
    if first:
        out.append(f"# {first[0].split(' (')[0]}")
    marker = "zzz-dualrail-marker"
    for name, entry in NODES.items():
        script = "".join(f"{' ' * i}{line}\n" for i, line in enumerate(entry))
        script += f"{marker}\nlist\n"
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
            f.write(script)
            f.flush()
            r = subprocess.run([vtysh, "--dryrun", "-f", f.name], capture_output=True, text=True)
        lines = (r.stdout + r.stderr).splitlines()
        start = next(i for i, line in enumerate(lines) if marker in line) + 1
        listed = sorted({line.strip() for line in lines[start:] if line.strip()})
        out.append(f"node {name}")
        out.extend(listed)
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # python -m dualrail_net.verify.parsers.frr_cli > frr_grammar.txt
    print(generate_grammar(), end="")
