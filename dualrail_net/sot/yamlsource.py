"""YAML loading that remembers where every value came from.

PyYAML's ``safe_load`` forgets line numbers and silently keeps the last of two duplicate keys.
Composing the node graph ourselves gives us both: a line for every path and an error for every
duplicate key, so validation can say "inventory/servers.yaml:41" instead of "somewhere".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PathKey = tuple[str | int, ...]


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


def _construct(node: yaml.Node, file: str, path: PathKey, smap: SourceMap) -> Any:
    smap.lines[path] = (file, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlSourceError(
                    file, key_node.start_mark.line + 1, "YAML merge keys (<<) are not supported",
                    "write the values out so a reviewer sees them",
                )
            key = _scalar(key_node)
            if key in out:
                raise YamlSourceError(
                    file, key_node.start_mark.line + 1, f"duplicate key {key!r}",
                    "YAML keeps only the last one; remove or merge the duplicate",
                )
            out[key] = _construct(value_node, file, (*path, key), smap)
            smap.lines[(*path, key)] = (file, key_node.start_mark.line + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, file, (*path, i), smap) for i, item in enumerate(node.value)]
    return _scalar(node)


_LOADER = yaml.SafeLoader("")


def _scalar(node: yaml.Node) -> Any:
    # compose() has already resolved the implicit tag (int, bool, null, ...); construct just that node.
    if not isinstance(node, yaml.ScalarNode):
        raise YamlSourceError("", node.start_mark.line + 1, "a mapping key must be a plain value")
    constructor = _LOADER.yaml_constructors.get(node.tag)
    if constructor is None:
        raise yaml.constructor.ConstructorError(None, None, f"unsupported tag {node.tag}", node.start_mark)
    return constructor(_LOADER, node)


def load_yaml(path: Path, display: str, smap: SourceMap, prefix: PathKey = ()) -> Any:
    """Parse one YAML file, recording line numbers under ``prefix`` in ``smap``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise YamlSourceError(display, 0, f"cannot read file: {exc.strerror}") from exc
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise YamlSourceError(display, line, f"YAML syntax error: {exc.problem}",
                              "check indentation and quoting") from exc
    if node is None:
        smap.lines[prefix] = (display, 1)
        return {}
    try:
        return _construct(node, display, prefix, smap)
    except yaml.constructor.ConstructorError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise YamlSourceError(display, line, f"YAML value error: {exc.problem}") from exc
