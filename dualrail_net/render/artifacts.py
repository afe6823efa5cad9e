"""Rendered files, where they go, and the GitOps drift check."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dualrail_net.manifest import STAMP_FILE
from dualrail_net.outdir import WriteReport, list_files, read_owned_many, write_owned


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


def write_artifacts(result: RenderResult, out: Path, protected: Iterable[Path] = ()) -> int:
    """Write every artifact into ``out``, a folder we own (``outdir.write_owned``: never a folder of
    somebody else's, never through a symlink). Files that already hold the same bytes are left
    untouched (mtime kept); files the previous render wrote and this one does not are removed, so a
    stale config of a removed device is not deployable. Returns the number of files written."""
    return write_render(result, out, protected).written


def write_render(result: RenderResult, out: Path, protected: Iterable[Path] = ()) -> WriteReport:
    return write_owned(result.by_path(), out, protected, kind="output")


def drift(result: RenderResult, out: Path) -> Drift:
    """Compare what would be rendered with what is in ``out`` (the GitOps drift check). Reads without
    following links: a link where a file should be counts as changed."""
    wanted = result.by_path()
    present = set(list_files(out)) - {STAMP_FILE}  # verify's stamp is not a rendered file
    changed = [rel for rel, data in read_owned_many(out, [rel for rel in wanted if rel in present])
               if data != wanted[rel].encode()]
    missing = sorted(set(wanted) - present)
    extra = sorted(present - set(wanted))
    return Drift(sorted(changed), missing, extra)


def digest(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()[:16]
