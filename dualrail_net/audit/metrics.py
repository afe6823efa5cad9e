"""Audit findings as OpenMetrics text for Prometheus' node-exporter textfile collector: one gauge
sample per (check, plane, severity), the time of the audit, and whether it completed. Written to
a temporary file and renamed, so the collector never reads half a file."""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

from dualrail_net.verify.findings import Finding


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def openmetrics(findings: list[Finding], devices: int, seconds: float, now: float | None = None) -> str:
    counts = Counter((f.check, f.plane or "-", f.severity.value) for f in findings)
    lines = ["# HELP dualrail_audit_findings Findings of the last live audit, by check, plane and severity.",
             "# TYPE dualrail_audit_findings gauge"]
    for (check, plane, severity), n in sorted(counts.items()):
        lines.append(f'dualrail_audit_findings{{check="{_label(check)}",plane="{_label(plane)}",'
                     f'severity="{_label(severity)}"}} {n}')
    lines += ["# HELP dualrail_audit_devices Devices the last audit asked.", "# TYPE dualrail_audit_devices gauge",
              f"dualrail_audit_devices {devices}",
              "# HELP dualrail_audit_duration_seconds How long the last audit took.",
              "# TYPE dualrail_audit_duration_seconds gauge", f"dualrail_audit_duration_seconds {seconds:.3f}",
              "# HELP dualrail_audit_timestamp_seconds When the last audit ended.",
              "# TYPE dualrail_audit_timestamp_seconds gauge",
              f"dualrail_audit_timestamp_seconds {now if now is not None else time.time():.3f}", "# EOF"]
    return "\n".join(lines) + "\n"


def write_metrics(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)  # (a crashed run's, or a link planted at the name: never written through)
    with open(tmp, "x", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, path)  # (replaces a link at ``path`` itself, never its target)
