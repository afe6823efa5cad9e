"""What the devices run against the plan: firmware (the planes must match per role), running
files against the build (drift: a hand edit nobody rolled back), and BGP sessions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from dualrail_net.audit.collect import DeviceReport
from dualrail_net.verify.findings import Finding, Severity

MAX_DIFF = 4000  # characters of a drift's diff kept in its finding


def firmware_findings(reports: Iterable[DeviceReport]) -> list[Finding]:
    """FW-ASYMMETRIC: for a role, the planes run different sets of versions. FW-NOT-PLANNED: a
    device runs another version than the build says (a warning: the upgrade runner's job)."""
    out: list[Finding] = []
    per_role: dict[str, dict[str, dict[str, list[str]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in reports:
        if r.plane is None or not r.firmware:
            continue
        per_role[r.role][r.plane][r.firmware].append(r.name)
        if r.planned_firmware and r.firmware != r.planned_firmware:
            out.append(Finding("FW-NOT-PLANNED", Severity.WARNING, (r.name,), r.plane,
                               f"{r.name} runs {r.firmware}, the build plans {r.planned_firmware}",
                               "an upgrade or a rollback did not finish where the plan says it should"))
    for role, planes in sorted(per_role.items()):
        versions = {plane: set(found) for plane, found in planes.items()}
        if len({frozenset(v) for v in versions.values()}) <= 1:
            continue
        common = set.intersection(*versions.values())
        odd = sorted(name for found in planes.values() for version, names in found.items()
                     if version not in common for name in names)
        said = "; ".join(f"plane {p}: {', '.join(sorted(v))}" for p, v in sorted(versions.items()))
        out.append(Finding("FW-ASYMMETRIC", Severity.ERROR, tuple(odd), "",
                           f"the {role}s of the planes run different firmware ({said})",
                           "the planes must stay symmetric: a bug or a behaviour of one version would hit "
                           "one plane only, and the other plane no longer proves the design"))
    return out


def drift_findings(reports: Iterable[DeviceReport]) -> list[Finding]:
    out = []
    for r in reports:
        if r.drift:
            diff = r.drift if len(r.drift) <= MAX_DIFF else r.drift[:MAX_DIFF] + "\n... (diff cut)"
            out.append(Finding("DRIFT-CONFIG", Severity.ERROR, (r.name,), r.plane or "",
                               f"{r.name} runs files that differ from the build:\n{diff}",
                               "a hand edit nobody rolled back: the next deploy will undo it, and until then "
                               "verification does not describe this device"))
    return out


def session_findings(reports: Iterable[DeviceReport]) -> list[Finding]:
    return [Finding("BGP-DOWN", Severity.ERROR, (r.name,), r.plane or "", problem,
                    "a configured session is not established: the plane routes around this link or device")
            for r in reports for problem in r.sessions]
