"""Reports for people (a rich table grouped by plane), machines (JSON) and CI (JUnit XML)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dualrail_net.verify.findings import CheckResult


def results_to_dict(results: list[CheckResult]) -> dict[str, Any]:
    return {
        "ok": all(r.passed or r.skipped for r in results),
        "checks": [r.to_dict() for r in results],
        "errors": sum(len(r.errors) for r in results),
        "warnings": sum(len(r.findings) - len(r.errors) for r in results),
    }


def print_results(results: list[CheckResult], console: Console) -> None:
    summary = Table(title="Checks", show_lines=False)
    summary.add_column("check")
    summary.add_column("status")
    summary.add_column("findings", justify="right")
    summary.add_column("what it proves")
    for r in results:
        status = "[yellow]skipped[/]" if r.skipped else ("[green]pass[/]" if r.passed else "[red]FAIL[/]")
        summary.add_row(r.check, status, str(len(r.findings)), escape(r.skipped or r.title))
    console.print(summary)
    by_plane: dict[str, list[Any]] = defaultdict(list)
    for r in results:
        for f in r.findings:
            by_plane[f.plane or "cross-plane / device"].append(f)
    for plane in sorted(by_plane):
        table = Table(title=f"Findings: plane {plane}" if len(plane) <= 4 else f"Findings: {plane}")
        table.add_column("severity")
        table.add_column("check")
        table.add_column("devices")
        table.add_column("what is wrong / why it matters")
        for f in by_plane[plane]:
            sev = "[red]error[/]" if f.severity.value == "error" else "[yellow]warning[/]"
            devices = ", ".join(f.devices[:4]) + (f" (+{len(f.devices) - 4})" if len(f.devices) > 4 else "")
            table.add_row(sev, f.check, escape(devices),
                          escape(f.message) + (f"\n[dim]{escape(f.why)}[/]" if f.why else ""))
        console.print(table)


def write_junit(results: list[CheckResult], path: Path, suite: str = "dualrail-verify") -> None:
    failures = sum(1 for r in results if not r.passed and not r.skipped)
    skipped = sum(1 for r in results if r.skipped)
    root = ET.Element("testsuite", name=suite, tests=str(len(results)), failures=str(failures),
                      skipped=str(skipped), time=f"{sum(r.seconds for r in results):.3f}")
    for r in results:
        case = ET.SubElement(root, "testcase", classname=suite, name=r.check, time=f"{r.seconds:.3f}")
        if r.skipped:
            ET.SubElement(case, "skipped", message=r.skipped)
        elif r.errors:
            fail = ET.SubElement(case, "failure", message=f"{len(r.errors)} error(s): {r.errors[0].message}")
            fail.text = "\n".join(f"[{f.severity.value}] {','.join(f.devices)}: {f.message} ({f.why})"
                                  for f in r.findings)
        if r.findings and not r.errors:
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(f"[{f.severity.value}] {f.message}" for f in r.findings)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="unicode", xml_declaration=True)
