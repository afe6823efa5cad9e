"""Load ``inventory/`` into the typed Inventory, turning every problem into a file:line diagnostic."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from dualrail_net.sot.diagnostics import Diagnostic, InputFileError
from dualrail_net.sot.schema import Inventory
from dualrail_net.sot.yamlsource import PathKey, SourceMap, YamlSourceError, load_yaml, shown

# inventory file -> top-level Inventory field. Splitting by concern keeps pull requests reviewable:
# a server addition touches servers.yaml only.
INVENTORY_FILES: dict[str, tuple[str, bool]] = {
    "fabric": ("fabric.yaml", True),
    "qos": ("qos.yaml", True),
    "servers": ("servers.yaml", True),
    "infiniband": ("infiniband.yaml", False),
}


class InventoryError(Exception):
    """The inventory cannot be used; ``diagnostics`` says where and why."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("\n".join(d.format() for d in diagnostics))
        self.diagnostics = diagnostics


@dataclass
class LoadedInventory:
    inventory: Inventory
    source: SourceMap
    root: Path

    def where(self, *path: str | int) -> tuple[str, int]:
        return self.source.locate(tuple(path))


_FIXES = {
    "extra_forbidden": "remove it or fix the spelling; unknown keys are never ignored",
    "missing": "add it",
    "int_parsing": "write a whole number",
    "int_type": "write a whole number",
    "float_parsing": "write a number",
    "bool_parsing": "write true or false",
    "literal_error": "use one of the allowed values",
    "greater_than_equal": "raise the value",
    "less_than_equal": "lower the value",
    "greater_than": "raise the value",
    "too_short": "add entries",
    "string_pattern_mismatch": "fix the spelling",
}


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _loc_to_path(loc: tuple[int | str, ...]) -> PathKey:
    # pydantic marks errors in dict keys as "[key]"; the key itself is the last real element.
    return tuple(part for part in loc if not (isinstance(part, str) and part.startswith("[")))


def _describe(loc: PathKey) -> str:
    out = ""
    for part in loc[1:]:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            # a key is shown as written when it is a plain name, quoted and escaped otherwise
            name = str(part) if re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", str(part)) else shown(part)
            out += f".{name}" if out else name
    return out or (str(loc[0]) if loc else "the file's top level")


def _message(text: str) -> str:
    # pydantic's messages quote the input in full: cut a hostile megabyte-long value to its start.
    return text if len(text) <= 300 else text[:296] + " ..."


def _value_at(data: Any, loc: PathKey) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def load_inventory(root: Path) -> LoadedInventory:
    """Read and schema-check the inventory directory. Raises InventoryError, never a traceback."""
    smap = SourceMap()
    raw: dict[str, Any] = {}
    problems: list[Diagnostic] = []
    if not root.is_dir():
        raise InventoryError([Diagnostic(str(root), 0, "inventory directory not found",
                                         "pass -i/--inventory DIR or run from the repository root")])
    for field_name, (filename, required) in INVENTORY_FILES.items():
        path = root / filename
        display = _display(path, root)
        if not path.exists() and not path.is_symlink():
            if required:
                problems.append(Diagnostic(display, 0, f"{filename} is missing",
                                           f"create it; see README.md for what {filename} holds"))
            continue
        try:
            data = load_yaml(path, display, smap, (field_name,), within=root)
        except YamlSourceError as exc:
            problems.append(Diagnostic(exc.file, exc.line, exc.message, exc.fix))
            continue
        if not isinstance(data, dict):
            problems.append(Diagnostic(display, 1, f"{filename} must be a mapping at the top level"))
            continue
        raw[field_name] = data
    unexpected = sorted(p.name for p in root.glob("*.y*ml") if p.name not in
                        {f for f, _ in INVENTORY_FILES.values()})
    for name in unexpected:
        problems.append(Diagnostic(_display(root / name, root), 1, f"unexpected inventory file {name}",
                                   "the inventory reads " + ", ".join(f for f, _ in INVENTORY_FILES.values())))
    if problems:
        raise InventoryError(problems)
    try:
        inventory = Inventory.model_validate(raw)
    except ValidationError as exc:
        raise InventoryError(validation_diagnostics(exc, smap, raw)) from None
    return LoadedInventory(inventory=inventory, source=smap, root=root)


def validation_diagnostics(exc: ValidationError, smap: SourceMap, raw: Any) -> list[Diagnostic]:
    """pydantic's errors as FILE:LINE diagnostics (values quoted, escaped and cut short)."""
    problems = []
    for err in exc.errors():
        loc = _loc_to_path(tuple(err["loc"]))
        file, line = smap.locate(loc)
        what = _describe(loc)
        value = _value_at(raw, loc)
        if err["type"] == "extra_forbidden":
            msg = f"unknown key {shown(loc[-1])} in {_describe(loc[:-1])}"
        elif err["type"] == "missing":
            msg = f"{what} is required but missing"
        else:
            text = f" = {shown(value)}" if value is not None and not isinstance(value, (dict, list)) else ""
            msg = f"{what}{text}: {_message(err['msg'])}"
        problems.append(Diagnostic(file, line, msg, _FIXES.get(err["type"], "")))
    return problems


def read_mapping_file(path: Path, what: str) -> tuple[Any, SourceMap]:
    """A reviewed input file other than the inventory (a playbook, a scenario file): through the same
    bounded YAML reader, a mapping at the top level, or InputFileError with FILE:LINE lines."""
    smap = SourceMap()
    display = str(path)
    try:
        raw = load_yaml(path, display, smap)
    except YamlSourceError as exc:
        raise InputFileError([Diagnostic(exc.file, exc.line, exc.message, exc.fix)]) from None
    if not isinstance(raw, dict):
        raise InputFileError([Diagnostic(display, 1, f"a {what} is a mapping at the top level")])
    return raw, smap
