"""Findings and check results shared by every verifier (ours, the real consumers, Batfish)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any

# control characters other than tab and newline (C0, DEL, C1): a finding quotes what it read from
# a file a pull request may have written, and a terminal acts on these (an escape sequence can
# rewrite the screen), a JUnit file is no XML with them; they are shown as \xNN instead
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """``text`` with each control character other than tab and newline written as \\xNN."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if _CONTROL.search(text) else text


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

    def __post_init__(self) -> None:
        # (invariant: no control character but tab and newline in what a finding says: see shown)
        for name in ("message", "why"):
            text = getattr(self, name)
            if _CONTROL.search(text):
                object.__setattr__(self, name, shown(text))
        if any(not isinstance(device, str) or _CONTROL.search(device) for device in self.devices):
            # (a hand-cut cabling row's missing column reaches here as None: shown as empty)
            object.__setattr__(self, "devices", tuple(shown(device) if isinstance(device, str) else ""
                                                      for device in self.devices))

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
