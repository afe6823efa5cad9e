"""Static IB checks on the rendered files, before opensm ever sees them."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from dualrail_net.manifest import Manifest
from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.ib.partitions import Partition, parse_partitions

WHY_OPEN = "opensm drops a file it cannot parse and puts every port in the default partition as a full member"


def _f(check: str, plane: str, message: str, why: str, devices: tuple[str, ...] = ()) -> Finding:
    return Finding(check, Severity.ERROR, devices, plane, message, why)


def run_static(out: Path) -> list[CheckResult]:
    planes = Manifest.load(out).ib_planes
    syntax = CheckResult("IB-PARTITION-SYNTAX", "every partitions.conf parses cleanly under the OpenSM grammar "
                         "(no missing ';', unknown keywords or flags, over-long lines)")
    pkeys = CheckResult("IB-PKEY", "P_Keys are in the 15-bit range and unique per plane")
    members = CheckResult("IB-MEMBERS", "every member GUID is a port cabled to that plane, and every server has "
                          "the same tenant partitions in every plane")
    prefix = CheckResult("IB-SUBNET-PREFIX", "every IB plane has its own subnet prefix and its SM on a port of "
                         "that plane")
    parsed: dict[str, list[Partition]] = {}
    guid_plane = {g: (p, host) for p, meta in planes.items() for host, g in meta.hosts.items()}
    prefixes: dict[str, str] = {}
    for plane, meta in planes.items():
        folder = out / meta.dir
        rel = f"{meta.dir}/partitions.conf"
        res = parse_partitions((folder / "partitions.conf").read_text())
        for line, msg in res.errors:
            check = syntax
            syntax.findings.append(_f(check.check, plane, f"{rel}:{line}: {msg}", WHY_OPEN))
        parsed[plane] = res.partitions
        seen: dict[int, str] = {}
        names: set[str] = set()
        for part in res.partitions:
            if part.name in names:
                pkeys.findings.append(_f(pkeys.check, plane, f"{rel}:{part.line}: partition {part.name} defined twice",
                                         "opensm merges them"))
            names.add(part.name)
            if part.pkey is None:
                continue
            low = part.pkey & 0x7FFF
            if part.pkey > 0x7FFF or low in (0, 0x7FFF) and part.name != "Default":
                pkeys.findings.append(_f(pkeys.check, plane, f"{rel}:{part.line}: {part.name} P_Key "
                                         f"{part.pkey:#06x} is outside 0x0001-0x7ffe",
                                         "opensm uses only the low 15 bits: it becomes another partition"))
            if low in seen:
                pkeys.findings.append(_f(pkeys.check, plane, f"{rel}:{part.line}: {part.name} P_Key "
                                         f"{part.pkey:#06x} equals {seen[low]}'s", "opensm merges the two partitions"))
            seen[low] = part.name
            for m in part.members:
                if not m.target.startswith("0x"):
                    continue
                owner = guid_plane.get(m.target)
                if owner is None:
                    members.findings.append(_f(members.check, plane, f"{rel}:{m.line}: {part.name}: GUID {m.target} is "
                                               "not a port of any IB plane", "opensm skips unknown GUIDs silently"))
                elif owner[0] != plane:
                    members.findings.append(_f(members.check, plane, f"{rel}:{m.line}: {part.name}: GUID {m.target} is "
                                               f"{owner[1]}'s port in plane {owner[0]}, not cabled to plane {plane}",
                                               "the member would be missing from this plane", (owner[1],)))
        conf = (folder / "opensm.conf").read_text()
        m_prefix = re.search(r"^subnet_prefix\s+(\S+)", conf, re.MULTILINE)
        m_guid = re.search(r"^guid\s+(\S+)", conf, re.MULTILINE)
        value = m_prefix.group(1).lower() if m_prefix else ""
        if value in prefixes:
            prefix.findings.append(_f(prefix.check, plane, f"{meta.dir}/opensm.conf: subnet_prefix {value} is also "
                                      f"plane {prefixes[value]}'s", "two IB planes with one prefix are not separate subnets"))
        prefixes[value] = plane
        if not m_guid or m_guid.group(1).lower() not in meta.hosts.values():
            prefix.findings.append(_f(prefix.check, plane, f"{meta.dir}/opensm.conf: SM guid "
                                      f"{m_guid.group(1) if m_guid else 'missing'} is not a port of plane {plane}",
                                      "the SM would bind to no port of its plane"))
    # Tenant membership must be the same in every plane, server by server.
    by_server: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for plane, parts in parsed.items():
        for part in parts:
            if part.name == "Default":
                continue
            for m in part.members:
                if m.target in guid_plane and guid_plane[m.target][0] == plane:
                    server = guid_plane[m.target][1]
                    by_server[server].setdefault(plane, {})[part.name] = m.membership or part.defmember
    for server, per_plane in sorted(by_server.items()):
        views = {p: per_plane.get(p, {}) for p in planes}
        distinct = {json.dumps(v, sort_keys=True) for v in views.values()}
        if len(distinct) > 1:
            detail = "; ".join(f"{p}: {v or 'none'}" for p, v in views.items())
            members.findings.append(_f(members.check, "", f"{server} has different tenant partitions per plane ({detail})",
                                       "a job that loses one plane would lose its partition too", (server,)))
    return [syntax, pkeys, members, prefix]
