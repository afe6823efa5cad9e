"""The ibsim topology file for one IB plane, from its rendered cabling plan.

ibsim honours `switchguid=` / `caguid=` lines (node GUIDs; a CA's port 1 GUID is node GUID + 1), so
the simulated fabric carries the inventory's real port GUIDs and the rendered files run unchanged."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from dualrail_net.manifest import IbSwitchEntry


def build_netfile(cabling_csv: Path, switches: dict[str, IbSwitchEntry]) -> tuple[str, dict[str, str]]:
    """Returns (netfile text, host name -> port GUID)."""
    rows = list(csv.DictReader(cabling_csv.open()))
    ports: dict[str, dict[int, tuple[str, int]]] = defaultdict(dict)
    host_guid: dict[str, str] = {}
    for r in rows:
        a, b = r["a"], r["b"]
        ports[a][int(r["a_port"])] = (b, int(r["b_port"]))
        ports[b][int(r["b_port"])] = (a, int(r["a_port"]))
        if a not in switches:
            host_guid[a] = r["a_guid"]
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
