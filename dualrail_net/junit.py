"""JUnit XML for CI, written in one place for every command that reports (verify, build, twin check,
deploy). Text from findings can quote hand-edited files: characters XML 1.0 cannot hold are escaped
(``one_line`` style) so the file always parses."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Case:
    classname: str
    name: str
    seconds: float = 0.0
    failure: str | None = None  # the failure's one-line message; None when it passed
    details: str = ""  # the failure's text, or the output of a case that passed
    skipped: str | None = None


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def write_junit(cases: list[Case], path: Path, suite: str) -> None:
    root = ET.Element("testsuite", name=_xml_text(suite), tests=str(len(cases)),
                      failures=str(sum(1 for c in cases if c.failure is not None)),
                      skipped=str(sum(1 for c in cases if c.skipped is not None)),
                      time=f"{sum(c.seconds for c in cases):.3f}")
    for c in cases:
        case = ET.SubElement(root, "testcase", classname=_xml_text(c.classname), name=_xml_text(c.name),
                             time=f"{c.seconds:.3f}")
        if c.skipped is not None:
            ET.SubElement(case, "skipped", message=_xml_text(c.skipped))
        elif c.failure is not None:
            fail = ET.SubElement(case, "failure", message=_xml_text(c.failure))
            fail.text = _xml_text(c.details)
        if c.details and c.failure is None:
            out = ET.SubElement(case, "system-out")
            out.text = _xml_text(c.details)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="unicode", xml_declaration=True)
