"""Diagnostics that point a person at the exact place in the inventory to fix."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Diagnostic:
    """One finding about the inventory: where, what, and what to do about it."""

    file: str
    line: int
    message: str
    fix: str = ""
    severity: Severity = Severity.ERROR
    code: str = "SOT"

    def format(self) -> str:
        loc = f"{self.file}:{self.line}" if self.line else self.file
        text = f"{loc}: {self.severity.value}: {self.message}"
        if self.fix:
            text += f" ({self.fix})"
        return text

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "fix": self.fix,
        }
