"""The escaping rule: no value reaches a rendered file without passing its output format's check.

Every ``{{ ... }}`` of every template goes through ``finalize`` of its format's Jinja environment (the
environment is made per format, so no template can print around it):

* an ``int`` or ``float`` prints as a number (a ``bool`` or ``None`` is refused: it would print as
  ``True``/``None``, which no config means);
* a ``str`` must be one **token**: only ``[A-Za-z0-9_.:/,=+@%-]``. That set is inert in every format we
  write: no whitespace (which would split a token in FRR, EOS, ifupdown2 and opensm), no line break, no
  comment character (``#``, ``!``, ``;``), no quote, no shell character (``$``, backquote, parentheses),
  no ``\\`` (ifupdown2 joins the lines on both sides of a backslash anywhere in the file) and no ``?``
  (EOS's interactive CLI answers it with help); in opensm files also no ``,``, ``:`` or ``;``, which
  its partition grammar gives meaning. A string outside the set is refused (``UnsafeValue``),
  never printed: the schema already restricts names to this set, so a refusal means a value escaped
  validation, and the render stops instead of writing it;
* ``Text`` (free text from the inventory, such as a server model's description) is escaped for the
  format instead: control, format and line-separator characters and the format's own dangerous
  characters become ``_``, and for a shell file the whole text is single-quoted;
* ``join`` checks each element by the same rule (its separator is template text, which is trusted).

Template text itself is trusted (it is reviewed code, not inventory). Values built in templates from
literals pass the same check, so templates keep punctuation in their text, not in expressions.
"""

from __future__ import annotations

import html
import re
import shlex
from collections.abc import Callable, Iterable
from typing import Any

from dualrail_net.formats import OutputFormat

__all__ = ["FORMAT_OF_FILE", "Escaped", "OutputFormat", "Text", "UnsafeValue", "escape_text", "format_of_template",
           "make_finalize", "make_join"]


# The file each template renders, by its output name, and that file's format. A template whose file is
# not listed cannot be loaded: a new file type must say how its values are escaped.
FORMAT_OF_FILE: dict[str, OutputFormat] = {
    "frr.conf": OutputFormat.FRR,
    "interfaces": OutputFormat.IFUPDOWN,
    "running-config": OutputFormat.EOS,
    "qos_features.conf": OutputFormat.SWITCHD,
    "opensm.conf": OutputFormat.OPENSM,
    "opensm-standby.conf": OutputFormat.OPENSM,
    "partitions.conf": OutputFormat.OPENSM,
    "root_guids.conf": OutputFormat.OPENSM,
    "cn_guids.conf": OutputFormat.OPENSM,
    "nccl.env": OutputFormat.SHELL,
    "sysctl.conf": OutputFormat.SYSCTL,
    "nic-qos.sh": OutputFormat.SHELL,
    "dualrail-nic-qos.service": OutputFormat.SERVICE,
    "capacity.html": OutputFormat.HTML,
    "nccl-topo.xml": OutputFormat.XML,
    "ntp.conf": OutputFormat.SERVICE,
    "rsyslog.conf": OutputFormat.SERVICE,
    "resolv.conf": OutputFormat.SERVICE,
    "tacplus_servers": OutputFormat.SERVICE,
    "config_db.json": OutputFormat.JSON,
    "startup.yaml": OutputFormat.YAML,
}

TOKEN = re.compile(r"[A-Za-z0-9_.:/,=+@%-]*")
# opensm's partition grammar gives ',', ':' and ';' meaning (member lists, flags, the end of a
# partition): a token there may not carry them. '=' stays: members and flags are printed as key=value.
TOKEN_BY_FORMAT: dict[OutputFormat, re.Pattern[str]] = {
    OutputFormat.OPENSM: re.compile(r"[A-Za-z0-9_./=+@%-]*"),
    # XML prints values in double-quoted attributes and in comments: markup characters (<, >, &, quotes)
    # are not in the set, and "--" (which ends no comment but makes one invalid) is refused
    OutputFormat.XML: re.compile(r"[A-Za-z0-9_.:/,=+@%]*(?:-(?!-)[A-Za-z0-9_.:/,=+@%]*)*"),
}


def _allowed(fmt: OutputFormat) -> str:
    if fmt is OutputFormat.XML:
        return "'_.:/,=+@%-' (no '--')"
    return "'_./=+@%-'" if fmt is OutputFormat.OPENSM else "'_.:/,=+@%-'"

# Characters free text may not carry into a file of each format (beyond non-printables).
_TEXT_UNSAFE: dict[OutputFormat, str] = {
    OutputFormat.IFUPDOWN: "\\",
    OutputFormat.EOS: "?",
    OutputFormat.OPENSM: ",;:=",
    OutputFormat.JSON: '"\\',  # a quote would end the string, a backslash start an escape
    OutputFormat.YAML: '"\\',  # the same inside a double-quoted YAML scalar
}


class UnsafeValue(ValueError):
    """A value that is not safe to print in its output format (it is never printed)."""


class Text(str):
    """Free text from the inventory: escaped for each output format instead of checked as a token."""

    __slots__ = ()


class Escaped(str):
    """Already escaped for the format it was made for (by ``join``); printed as is."""

    __slots__ = ()


def format_of_template(name: str) -> OutputFormat:
    """The output format of a template, from the file it renders (``server/nccl.env.j2`` -> shell)."""
    base = name.rsplit("/", 1)[-1]
    base = base[:-3] if base.endswith(".j2") else base
    try:
        return FORMAT_OF_FILE[base]
    except KeyError:
        raise UnsafeValue(f"template {name!r} renders {base!r}, which has no output format: add it to "
                          "FORMAT_OF_FILE with the format whose escaping rule applies") from None


def escape_text(fmt: OutputFormat, text: str) -> str:
    """Free text made safe for ``fmt``: one line, none of the format's special characters."""
    unsafe = _TEXT_UNSAFE.get(fmt, "")
    out = "".join("_" if (not c.isprintable() or c in unsafe) else c for c in text)
    if fmt is OutputFormat.SHELL:
        return shlex.quote(out)
    if fmt is OutputFormat.XML:
        return html.escape(out, quote=True).replace("--", "-&#45;")
    return out


MAX_REMEMBERED = 8_000  # values a format remembers: repeats (names, ASNs) fit; unique addresses would grow a huge dict


class _Finalize(dict[Any, str]):
    """Jinja's ``finalize`` for one format, as a dict lookup: a value printed before (most are:
    names, ASNs, MTUs) is answered in C; only a new value reaches ``__missing__``, which checks it.
    Only plain ``str`` tokens and ``int``s are remembered, so a subclass (``Text``, ``Markup``) that
    is not equal to a remembered token always goes through the check. (A ``Text`` equal to a
    remembered token is that token: it is inert in this format.)"""

    def __init__(self, fmt: OutputFormat) -> None:
        super().__init__()
        self.fmt = fmt
        self.pattern = TOKEN_BY_FORMAT.get(fmt, TOKEN).fullmatch

    def __missing__(self, value: Any) -> str:
        kind = type(value)
        fmt = self.fmt
        if fmt is OutputFormat.HTML and kind in (str, Text):
            # a report: any text may appear (scenario names), always as text, never as markup
            return html.escape(value, quote=True)
        if kind is str:
            if self.pattern(value) is None:
                raise UnsafeValue(f"{value[:80]!r} cannot be printed in a {fmt.value} file: only letters, "
                                  f"digits and {_allowed(fmt)} are allowed in a configuration token")
            token: str = value
            if len(self) >= MAX_REMEMBERED:
                self.clear()  # unique values (addresses) would grow it without bound: start again
            self[token] = token
            return token
        if kind is int:
            text = self[value] = str(value)
            return text
        if kind is float:
            return str(value)  # not remembered: 3.0 == 3 would answer "3"
        if kind is Text:
            return escape_text(fmt, value)
        if kind is Escaped:
            return str(value)
        raise UnsafeValue(f"a {kind.__name__} ({str(value)[:40]!r}) cannot be printed in a {fmt.value} file: "
                          "templates print strings and numbers only")


def make_finalize(fmt: OutputFormat) -> Callable[[Any], str]:
    """Jinja's ``finalize`` for one format: every printed expression passes through it."""
    return _Finalize(fmt).__getitem__


def make_join(fmt: OutputFormat) -> Callable[[Iterable[Any], str], Escaped]:
    finalize = make_finalize(fmt)

    def join(values: Iterable[Any], separator: str = "") -> Escaped:
        return Escaped(separator.join(finalize(v) for v in values))

    return join
