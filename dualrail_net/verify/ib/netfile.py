"""The ibsim topology file for one IB plane, from its rendered cabling plan.

ibsim honours `switchguid=` / `caguid=` lines (node GUIDs; a CA's port 1 GUID is node GUID + 1), so
the simulated fabric carries the inventory's real port GUIDs and the rendered files run unchanged."""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from pathlib import Path

from dualrail_net.manifest import IbSwitchEntry
from dualrail_net.verify.parsers.files import is_decimal, read_text


class CablingPlanError(ValueError):
    """A rendered IB cabling plan the simulated fabric cannot be built from (FILE:LINE: error: ...)."""


_COLUMNS = ("a", "a_port", "a_guid", "b", "b_port")
_GUID = re.compile(r"0x[0-9a-fA-F]{1,16}")


def build_netfile(cabling_csv: Path, switches: dict[str, IbSwitchEntry]) -> tuple[str, dict[str, str]]:
    """Returns (netfile text, host name -> port GUID). A row without its fields, a port that is no
    number from 1 to 255, a GUID that is no hex number, or a port cabled twice is refused
    (CablingPlanError naming the row): ibsim would refuse the topology or build another one."""
    where = f"{cabling_csv.parent.name}/{cabling_csv.name}"
    rows = list(csv.DictReader(io.StringIO(read_text(cabling_csv))))
    ports: dict[str, dict[int, tuple[str, int]]] = defaultdict(dict)
    host_guid: dict[str, str] = {}
    for number, r in enumerate(rows, 2):
        missing = [c for c in _COLUMNS if not (r.get(c) or "").strip()]
        if missing:
            raise CablingPlanError(f"{where}:{number}: error: a cable without its {', '.join(missing)}")
        a, b = r["a"], r["b"]
        numbers = [r["a_port"], r["b_port"]]
        if not all(is_decimal(n) and 1 <= int(n) <= 255 for n in numbers):
            raise CablingPlanError(f"{where}:{number}: error: ports {numbers[0][:8]!r} and {numbers[1][:8]!r} must be "
                                   "numbers from 1 to 255")
        a_port, b_port = int(numbers[0]), int(numbers[1])
        for node, port, peer in ((a, a_port, b), (b, b_port, a)):
            if port in ports[node]:
                raise CablingPlanError(f"{where}:{number}: error: {node[:40]} port {port} is cabled twice "
                                       f"({ports[node][port][0][:40]} and {peer[:40]})")
        ports[a][a_port] = (b, b_port)
        ports[b][b_port] = (a, a_port)
        if a not in switches:
            if not _GUID.fullmatch(r["a_guid"].strip()):
                raise CablingPlanError(f"{where}:{number}: error: {a[:40]}'s port GUID {r['a_guid'][:24]!r} is no "
                                       "hex number")
            host_guid[a] = r["a_guid"].strip()
    lines: list[str] = []
    for name, meta in switches.items():
        count = max(ports[name]) if ports[name] else 1
        lines += [f"switchguid={meta.guid}", f'Switch {count} "{name}"']
        lines += [f'[{p}] "{peer}"[{pp}]' for p, (peer, pp) in sorted(ports[name].items())]
        lines.append("")
    for host, guid in host_guid.items():
        node = int(guid, 16) - 1
        lines += [f"caguid=0x{node:016x}", f'Hca 1 "{host}"']
        lines += [f'[{p}] "{peer}"[{pp}]' for p, (peer, pp) in sorted(ports[host].items())]
        lines.append("")
    return "\n".join(lines) + "\n", host_guid
