"""The cabling plan (resolved/cabling.csv) as columns.

A 100k-GPU fabric has 600k cables; a dict per row costs half a second to build and every check
that walks them pays a lookup per field. Here each field is one list; a row is made as a dict only
when asked for (a finding, a test), and is then what csv.DictReader gives for that line."""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from itertools import repeat
from pathlib import Path
from typing import overload
from dualrail_net.verify.parsers.files import UnreadableFile, read_text


class CablingPlan(Sequence[dict[str, str]]):
    """The rows of the cabling plan, in file order, with ``column(field)`` for bulk reading."""

    def __init__(self, header: list[str], columns: dict[str, list[str]], rows: list[dict[str, str]] | None = None):
        self.header = header
        self.columns = columns
        self._rows = rows  # kept as DictReader gave them when the file had short or long rows
        self._count = len(rows) if rows is not None else len(next(iter(columns.values()), []))

    @classmethod
    def from_rows(cls, rows: list[dict[str, str]]) -> CablingPlan:
        fields = list(dict.fromkeys(key for row in rows for key in row if isinstance(key, str)))
        return cls(fields, {f: [row.get(f) for row in rows] for f in fields}, rows)  # type: ignore[misc]

    def as_columns(self) -> tuple[list[str], dict[str, list[str]]] | None:
        """(header, columns), from which CablingPlan(*...) is this plan again; None for a file that
        had short or long rows (its rows are kept as DictReader gave them)."""
        return None if self._rows is not None else (self.header, self.columns)

    def column(self, field: str) -> list[str]:
        """Every row's value of ``field`` (None where a short row lacks it)."""
        values = self.columns.get(field)
        return values if values is not None else [None] * self._count  # type: ignore[list-item]

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, i: int) -> dict[str, str]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, str]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, str] | list[dict[str, str]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        if self._rows is not None:
            return self._rows[i]
        if not -self._count <= i < self._count:
            raise IndexError(i)
        return {name: values[i] for name, values in self.columns.items()}

    def __iter__(self) -> Iterator[dict[str, str]]:
        if self._rows is not None:
            return iter(self._rows)
        return (dict(zip(self.columns, values)) for values in zip(*self.columns.values()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CablingPlan | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def read_cabling(path: Path, columns: Sequence[str] | None = None) -> CablingPlan:
    """The cabling plan's rows as csv.DictReader gives them, held as columns. A plain file (no
    quotes, carriage returns or blank lines, every row as long as the header: what render writes)
    is split in C and each column sliced out; any other file is read by the csv module (DictReader
    itself where a row is short or long: it pads or collects them). ``columns``: the ones the
    header must name (default: the Ethernet plan's COLUMNS; an IB plane's plan has its own)."""
    required = COLUMNS if columns is None else columns
    if not path.exists():
        return CablingPlan([], {})
    text = read_text(path)  # (never through a link planted in the folder)
    plain = _plain_columns(text)
    if plain is not None:
        _has_columns(path, plain.header, required)
        return plain
    lines = text.splitlines()
    reader = csv.reader(lines)
    header = next(reader, [])
    _has_columns(path, header, required)
    rows = [row for row in reader if row]  # DictReader skips blank lines too
    if any(len(row) != len(header) for row in rows):
        return CablingPlan.from_rows(list(csv.DictReader(lines)))
    transposed = list(map(list, zip(*rows))) if rows else [[] for _ in header]
    return CablingPlan(header, dict(zip(header, transposed)))


# the columns render writes in the Ethernet plan and the checks read (an IB plane's: IB_COLUMNS)
COLUMNS = ("plane", "kind", "a_device", "a_port", "a_address", "b_device", "b_port", "b_address", "speed")
IB_COLUMNS = ("a", "a_port", "b", "b_port")


def _has_columns(path: Path, header: list[str], required: Sequence[str]) -> None:
    """A plan without one of its columns cannot be checked: one line, not a check's KeyError."""
    missing = [name for name in required if name not in header]
    if missing:
        raise UnreadableFile(f"{path}:1: error: no column {', '.join(missing)[:200]} in the cabling plan (its header "
                             f"must name {','.join(required)}; render writes it so)")


def _plain_columns(text: str) -> CablingPlan | None:
    """The columns of a file that csv would split at every comma and newline, or None."""
    if '"' in text or "\r" in text or "\0" in text:
        return None
    body = text[:-1] if text.endswith("\n") else text
    header_line, _, rest = body.partition("\n")
    if not header_line or "\n\n" in body or rest.endswith("\n"):
        return None
    header = header_line.split(",")
    lines = rest.split("\n") if rest else []
    if set(map(str.count, lines, repeat(","))) - {len(header) - 1}:
        return None  # a short or long row
    fields = rest.replace("\n", ",").split(",") if rest else []
    return CablingPlan(header, dict(zip(header, (fields[i::len(header)] for i in range(len(header))))))
