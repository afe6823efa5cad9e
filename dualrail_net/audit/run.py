"""One audit: the devices' reports (collect.py) and the IB subnets' discovery against the build,
as verify-style check results (one per check id, so JUnit has one case per check)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dualrail_net.audit.cabling import PlannedCable, compare_cabling, unreachable
from dualrail_net.audit.collect import DeviceReport
from dualrail_net.audit.neighbors import ibnetdiscover_links
from dualrail_net.audit.qos import nic_findings, pfc_findings
from dualrail_net.audit.routes import planned_widths, route_findings
from dualrail_net.audit.state import drift_findings, firmware_findings, session_findings
from dualrail_net.manifest import Manifest
from dualrail_net.platforms import get_platform
from dualrail_net.verify.cabling import IB_COLUMNS, read_cabling
from dualrail_net.verify.findings import CheckResult, Finding

CHECKS: dict[str, str] = {
    "AUDIT-UNREACHABLE": "every device of the build answers",
    "CABLE-CROSS-PLANE": "no cable joins two planes",
    "CABLE-MISWIRED": "every cable lands where the plan says, at both ends",
    "CABLE-MISSING": "every planned cable is there",
    "CABLE-UNEXPECTED": "no cable the plan does not have",
    "LINK-DOWN": "every planned link is up",
    "LINK-SPEED": "every link runs at its planned speed",
    "FW-ASYMMETRIC": "the planes run the same firmware per role",
    "FW-NOT-PLANNED": "every switch runs the firmware the build plans",
    "DRIFT-CONFIG": "every device runs exactly the built files",
    "BGP-DOWN": "every configured BGP session is established",
    "ECMP-LIVE-WIDTH": "every switch routes each planned prefix over every planned next hop",
    "ROUTE-LIVE-MISSING": "every switch has a BGP route to every prefix of its plane",
    "QOS-LIVE-PFC": "every switch port runs the lossless priorities of its rendered files",
    "QOS-LIVE-NIC": "every server NIC port runs its RoCE QoS settings (trust, PFC, ECN, CNP, ToS, MTU)",
    "QOS-LIVE-UNREADABLE": "every QoS setting the plan makes can be read back on its device",
}


def planned_cables(out: Path, manifest: Manifest) -> list[PlannedCable]:
    plan = read_cabling(manifest.cabling_path(out))
    return [PlannedCable((ad, ap), (bd, bp), plane, speed or "") for plane, ad, ap, bd, bp, speed in
            zip(plan.column("plane"), plan.column("a_device"), plan.column("a_port"), plan.column("b_device"),
                plan.column("b_port"), plan.column("speed"))]


def planned_pfc(out: Path, manifest: Manifest, device: str) -> dict[str, tuple[int, ...]]:
    """port -> lossless priorities of a switch, as its rendered files make them (its platform's
    parser: the same reading verify judges)."""
    meta = manifest.devices[device]
    dev = get_platform(meta.platform).parser().base(device, out / meta.dir)
    return {name: tuple(sorted(iface.pfc_priorities)) for name, iface in dev.interfaces.items()
            if iface.pfc_priorities is not None}


def ib_planned(out: Path, manifest: Manifest, plane: str) -> list[PlannedCable]:
    plan = read_cabling(out / manifest.ib_planes[plane].dir / "cabling.csv", IB_COLUMNS)
    return [PlannedCable((a, ap), (b, bp), plane) for a, ap, b, bp in
            zip(plan.column("a"), plan.column("a_port"), plan.column("b"), plan.column("b_port"))]


def ib_findings(out: Path, manifest: Manifest, plane: str, discovered: str) -> list[Finding]:
    """One IB subnet as ``ibnetdiscover`` printed it, against that plane's cabling plan."""
    meta = manifest.ib_planes[plane]
    # switches by their node GUID; hosts by node description (the plan has their port GUIDs)
    names = {entry.guid: name for name, entry in meta.switches.items()}
    members = set(meta.switches) | set(meta.hosts)
    return compare_cabling(ib_planned(out, manifest, plane), ibnetdiscover_links(discovered, names), members,
                           device_plane={name: plane for name in members})


def audit_findings(out: Path, manifest: Manifest, reports: dict[str, DeviceReport],
                   ib: dict[str, str] | None = None) -> list[Finding]:
    answered = {name for name, r in reports.items() if not r.error}
    findings = unreachable([n for n, r in reports.items() if r.error], {n: r.error for n, r in reports.items()})
    ok = [r for r in reports.values() if not r.error]
    findings += compare_cabling(planned_cables(out, manifest), (n for r in ok for n in r.neighbors), answered,
                                (p for r in ok for p in r.ports),
                                device_plane={name: meta.plane for name, meta in manifest.devices.items()})
    findings += firmware_findings(ok) + drift_findings(ok) + session_findings(ok)
    live = {r.name: r.routes for r in ok if r.routes is not None}
    if live:
        findings += route_findings(planned_widths(out, manifest), live)
    for r in ok:
        if r.nic_qos is not None:
            findings += nic_findings(r.name, r.nic_qos)
        if r.pfc is not None:
            findings += pfc_findings(r.name, r.plane or "", r.pfc, planned_pfc(out, manifest, r.name))
    for plane, text in (ib or {}).items():
        findings += ib_findings(out, manifest, plane, text)
    return findings


@dataclass(frozen=True)
class Coverage:
    """Of the answering devices a live-QoS check is for: how many it read, and those it could not."""

    read: int
    not_read: list[str]


def coverage(reports: dict[str, DeviceReport]) -> dict[str, Coverage]:
    """Per live-QoS check, the answering devices whose QoS in force it could not read (their platform
    shows nothing this audit reads: a Cumulus switch's PFC; a server without its NIC
    program). Said in the report, so a check that read nothing is not taken for one that found
    nothing."""
    ok = [r for r in reports.values() if not r.error]
    switches = [r for r in ok if r.role != "server"]
    servers = [r for r in ok if r.role == "server"]
    return {"QOS-LIVE-PFC": Coverage(sum(r.pfc is not None for r in switches),
                                     sorted(r.name for r in switches if r.pfc is None)),
            "QOS-LIVE-NIC": Coverage(sum(r.nic_qos is not None for r in servers),
                                     sorted(r.name for r in servers if r.nic_qos is None))}


def as_results(findings: Iterable[Finding], seconds: float,
               covered: dict[str, Coverage] | None = None) -> list[CheckResult]:
    """The checks with their findings; a live-QoS check that read no device of its kind is skipped
    with the reason, one that read some names the rest in its title (``covered``: see coverage)."""
    by_check: dict[str, list[Finding]] = {check: [] for check in CHECKS}
    for f in findings:
        by_check.setdefault(f.check, []).append(f)
    results = [CheckResult(check, CHECKS.get(check, check), found, seconds=seconds if i == 0 else 0.0)
               for i, (check, found) in enumerate(by_check.items())]
    for result in results:
        cover = (covered or {}).get(result.check)
        if cover is None or not cover.not_read:
            continue
        if cover.read == 0 and not result.findings:
            result.skipped = ("no device here shows its PFC in force to this audit (SONiC's `show pfc priority`, "
                              "EOS's running-config and NVUE's applied revision are read; a Cumulus switch's "
                              "switchd shows none): their files are held to the build by DRIFT-CONFIG"
                              if result.check == "QOS-LIVE-PFC" else
                              "no server here answers its NIC QoS program's dry run")
        else:
            names = cover.not_read
            result.title += (f" (not read on {len(names)}: " + ", ".join(names[:5])
                             + (f" and {len(names) - 5} more" if len(names) > 5 else "") + ")")
    return results

