"""Diagnostics that point a person at the exact place in the inventory to fix."""

from __future__ import annotations

import enum
from dataclasses import dataclass


def one_line(text: str) -> str:
    """``text`` with every control, format or line-separator character written as an escape, so one
    diagnostic is always one line and no terminal escape sequence reaches the terminal (a key that
    contains a newline cannot forge a second ``FILE:LINE: error:`` line)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "".join(out)




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
        loc = f"{one_line(self.file)}:{self.line}" if self.line else one_line(self.file)
        text = f"{loc}: {self.severity.value}: {one_line(self.message)}"
        if self.fix:
            text += f" ({one_line(self.fix)})"
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


class InputFileError(Exception):
    """An input file (playbook, scenario file, model file) cannot be used; one FILE:LINE line per problem."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("\n".join(d.format() for d in diagnostics))
        self.diagnostics = diagnostics
