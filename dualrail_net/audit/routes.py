"""ECMP width as the switches run it: every BGP route a switch installed, with how many next hops,
against what the plan says (verify's ``expected_plane``: shortest valley-free paths over the cabling
plan with the planned ASNs, every equal-cost neighbour a next hop). A route with fewer next hops
than planned is ECMP-LIVE-WIDTH (a lost uplink, a session down, a neighbour that stopped
advertising); a planned prefix the switch has no route for is ROUTE-LIVE-MISSING.

Readers are bounded and strict: FRR's ``show ip route bgp json`` and EOS's ``show ip route bgp |
json``; an answer that is neither is an error of the device's collection, never an empty table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dualrail_net.audit.neighbors import MAX_ANSWER, NeighborsUnreadable
from dualrail_net.manifest import Manifest
from dualrail_net.verify.cabling import read_cabling
from dualrail_net.verify.controlplane import expected_plane, planned_prefixes
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.snapshot import Snapshot


def _load(device: str, text: str, what: str) -> Any:
    if len(text) > MAX_ANSWER:
        raise NeighborsUnreadable(f"{device}: {what}: answer larger than {MAX_ANSWER} bytes")
    try:
        return json.loads(text)
    except ValueError:
        raise NeighborsUnreadable(f"{device}: {what} is not JSON ({text.strip()[:80]!r})") from None


def frr_route_widths(device: str, text: str) -> dict[str, int]:
    """prefix -> next hops installed in the kernel (FIB) for the selected BGP route."""
    doc = _load(device, text, "show ip route bgp json")
    if not isinstance(doc, dict):
        raise NeighborsUnreadable(f"{device}: show ip route bgp json is not an object")
    out: dict[str, int] = {}
    for prefix, entries in doc.items():
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and entry.get("selected"):
                hops = entry.get("nexthops") or []
                out[prefix] = sum(1 for h in hops if isinstance(h, dict) and h.get("fib"))
    return out


def eos_route_widths(device: str, text: str) -> dict[str, int]:
    """prefix -> next hops (vias) of each BGP route of the default VRF."""
    doc = _load(device, text, "show ip route bgp | json")
    try:
        routes = doc["vrfs"]["default"]["routes"]
        return {prefix: len(body.get("vias") or []) for prefix, body in routes.items()}
    except (KeyError, TypeError, AttributeError):
        raise NeighborsUnreadable(f"{device}: show ip route bgp | json not as EOS prints it") from None


def planned_widths(out: Path, manifest: Manifest) -> dict[str, dict[str, int]]:
    """device -> prefix -> planned next hops, for every single-plane switch of every plane."""
    snap = Snapshot(out, manifest, {}, {}, read_cabling(manifest.cabling_path(out)))
    widths: dict[str, dict[str, int]] = {}
    for plane in manifest.planes:
        prefixes = sorted(set(planned_prefixes(snap, plane)))
        bit_of = {p: i for i, p in enumerate(prefixes)}
        plan = expected_plane(snap, plane, bit_of)
        for receiver, _sender, bits, links in plan.links():
            if manifest.devices[receiver].plane != plane:
                continue  # a gateway's VRFs: not read live yet
            table = widths.setdefault(receiver, {})
            for prefix, bit in bit_of.items():
                if bits >> bit & 1:
                    table[prefix] = table.get(prefix, 0) + links
    return widths


def route_findings(planned: dict[str, dict[str, int]], live: dict[str, dict[str, int]],
                   plane_of: dict[str, str | None]) -> list[Finding]:
    out = []
    for device, table in sorted(live.items()):
        for prefix, want in sorted(planned.get(device, {}).items()):
            got = table.get(prefix)
            plane = plane_of.get(device) or ""
            if got is None or got == 0:
                out.append(Finding("ROUTE-LIVE-MISSING", Severity.ERROR, (device,), plane,
                                   f"{device} has no BGP route to {prefix} (planned over {want} next hops)",
                                   "traffic to that prefix from this switch is dropped or leaves the plan"))
            elif got < want:
                out.append(Finding("ECMP-LIVE-WIDTH", Severity.ERROR, (device,), plane,
                                   f"{device} reaches {prefix} over {got} of {want} planned next hops",
                                   "the plane carries less than designed toward it: a lost uplink, a session "
                                   "down or a neighbour that stopped advertising"))
    return out
