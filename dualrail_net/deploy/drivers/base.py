"""What every device driver can do."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Protocol


class PushRejected(Exception):
    """The device refused the configuration (nothing of it is active after the driver returns)."""


class Driver(Protocol):
    name: str

    def intended(self) -> dict[str, str]: ...
    def fetch(self) -> dict[str, str]: ...
    def push(self, files: dict[str, str]) -> None: ...
    def health(self) -> list[str]: ...
    def drain(self) -> None: ...


def unified_diff(running: dict[str, str], intended: dict[str, str]) -> str:
    out: list[str] = []
    for name in sorted(set(running) | set(intended)):
        out += difflib.unified_diff(running.get(name, "").splitlines(keepends=True),
                                    intended.get(name, "").splitlines(keepends=True),
                                    fromfile=f"running/{name}", tofile=f"intended/{name}")
    return "".join(out)


def write_backup(folder: Path, files: dict[str, str]) -> Path:
    """Backups are never overwritten: a new folder per run and device, refused if it exists."""
    folder.mkdir(parents=True, exist_ok=False)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def read_backup(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir()) if p.is_file()}
