"""Reports for people (a rich table grouped by plane), machines (JSON) and CI (JUnit XML)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dualrail_net.junit import Case
from dualrail_net.junit import write_junit as write_cases
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
    """One test case per check: failed with its errors, skipped with the reason, else passed with
    its warnings as output."""
    cases = []
    for r in results:
        failure = f"{len(r.errors)} error(s): {r.errors[0].message}" if r.errors and not r.skipped else None
        details = ("\n".join(f"[{f.severity.value}] {','.join(f.devices)}: {f.message} ({f.why})" for f in r.findings)
                   if failure else "\n".join(f"[{f.severity.value}] {f.message}" for f in r.findings))
        cases.append(Case(suite, r.check, r.seconds, failure, details, r.skipped or None))
    write_cases(cases, path, suite)
