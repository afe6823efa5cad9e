"""Findings and check results shared by every verifier (ours, the real consumers, Batfish)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    check: str  # stable id, e.g. ISO-CROSS-PLANE-LINK
    severity: Severity
    devices: tuple[str, ...]
    plane: str  # plane the finding is about, "" when it spans planes
    message: str  # what is wrong
    why: str = ""  # why it matters

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "severity": self.severity.value, "devices": list(self.devices),
                "plane": self.plane, "message": self.message, "why": self.why}


@dataclass
class CheckResult:
    """One check (a JUnit test case): it ran, was skipped, or could not run, with its findings."""

    check: str
    title: str
    findings: list[Finding] = field(default_factory=list)
    skipped: str = ""  # reason, when the check could not run here
    seconds: float = 0.0

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.ERROR]

    @property
    def passed(self) -> bool:
        return not self.skipped and not self.errors

    def to_dict(self) -> dict[str, Any]:
        status = "skipped" if self.skipped else ("passed" if self.passed else "failed")
        return {"check": self.check, "title": self.title, "status": status, "skipped": self.skipped,
                "seconds": round(self.seconds, 3), "findings": [f.to_dict() for f in self.findings]}
