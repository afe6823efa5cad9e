"""Export the resolved fabric for people: JSON of the whole model and the cabling plan as CSV."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, fields, is_dataclass
from typing import Any

from dualrail_net.resolve.model import Fabric

CABLING_COLUMNS = ["plane", "kind", "a_device", "a_port", "a_address", "b_device", "b_port", "b_address", "speed"]


def fabric_to_dict(fabric: Fabric) -> dict[str, Any]:
    """The plain reference of the export: ``dataclasses.asdict`` (deep copies, slow at 100k GPUs)."""
    doc = asdict(fabric)
    # the management section is the inventory's validated model; secrets in it are names only
    doc["management"] = fabric.management.model_dump() if fabric.management is not None else None
    return doc


def fabric_json(fabric: Fabric) -> str:
    """``resolved/fabric.json``: the same document as ``fabric_to_dict`` (tests hold them equal),
    written one entry per line: each top-level field on its line, and each switch, link and server
    on a line of its own under it. json's indenting encoder is pure Python and ``asdict`` deep-copies:
    the two took ~55 s at 100k GPUs; plain values through the C encoder take a few seconds."""
    parts = ["{"]
    names = _field_names(type(fabric))
    for i, name in enumerate(names):
        value = _plain(getattr(fabric, name)) if name != "management" else (
            fabric.management.model_dump() if fabric.management is not None else None)
        tail = "," if i < len(names) - 1 else ""
        key = json.dumps(name)
        if isinstance(value, dict) and value:
            rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            parts.append(f" {key}: {{\n" + ",\n".join(rows) + f"\n }}{tail}")
        elif isinstance(value, list) and value:
            parts.append(f" {key}: [\n" + ",\n".join(f"  {json.dumps(v)}" for v in value) + f"\n ]{tail}")
        else:
            parts.append(f" {key}: {json.dumps(value)}{tail}")
    parts.append("}")
    return "\n".join(parts) + "\n"


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


def _plain(value: Any) -> Any:
    """A dataclass tree as plain JSON values, as ``asdict`` makes it (tuples become lists)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    if kind is list or kind is tuple:
        return [_plain(v) for v in value]
    if kind is dict:
        return {k: _plain(v) for k, v in value.items()}
    if is_dataclass(value):
        return {name: _plain(getattr(value, name)) for name in _field_names(kind)}
    return value


def cabling_csv(fabric: Fabric) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CABLING_COLUMNS)
    for link in fabric.links:
        writer.writerow([link.plane, link.kind, link.a, link.a_port, link.a_address, link.b, link.b_port,
                         link.b_address, link.speed])
    return buf.getvalue()


def read_cabling_csv(text: str) -> list[dict[str, str]]:
    """Parse a cabling plan back (later stages take the plan as a file, not as our objects)."""
    return list(csv.DictReader(io.StringIO(text)))
