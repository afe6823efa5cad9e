"""Rendered files, where they go, and the GitOps drift check."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Artifact:
    path: str  # relative to the output directory, always with '/'
    content: str


@dataclass
class RenderResult:
    artifacts: list[Artifact] = field(default_factory=list)

    def by_path(self) -> dict[str, str]:
        return {a.path: a.content for a in self.artifacts}


@dataclass(frozen=True)
class Drift:
    changed: list[str]
    missing: list[str]
    extra: list[str]

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.extra)


def write_artifacts(result: RenderResult, out: Path) -> int:
    """Write every artifact; files that already hold the same bytes are left untouched (mtime kept).
    Files under ``out`` that the render no longer produces are removed, so the folder is exactly
    the render (a stale config of a removed device must not be deployable). Returns files written."""
    wanted = result.by_path()
    written = 0
    made_dirs: set[Path] = set()
    for rel, content in wanted.items():
        path = out / rel
        data = content.encode()
        if path.parent not in made_dirs:
            path.parent.mkdir(parents=True, exist_ok=True)
            made_dirs.add(path.parent)
        try:
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                continue
        except FileNotFoundError:
            pass
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        written += 1
    for existing in _existing_files(out):
        if existing not in wanted:
            (out / existing).unlink()
    return written


def _existing_files(out: Path) -> list[str]:
    if not out.is_dir():
        return []
    files = []
    for root, _dirs, names in os.walk(out):
        for name in names:
            files.append(Path(root, name).relative_to(out).as_posix())
    return files


def drift(result: RenderResult, out: Path) -> Drift:
    """Compare what would be rendered with what is in ``out`` (the GitOps drift check)."""
    wanted = result.by_path()
    present = set(_existing_files(out))
    changed = []
    for rel, content in wanted.items():
        if rel in present:
            if (out / rel).read_bytes() != content.encode():
                changed.append(rel)
    missing = sorted(set(wanted) - present)
    extra = sorted(present - set(wanted))
    return Drift(sorted(changed), missing, extra)


def digest(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()[:16]
