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
from typing import Any, NamedTuple

from dualrail_net.audit.neighbors import MAX_ANSWER, NeighborsUnreadable
from dualrail_net.manifest import Manifest
from dualrail_net.verify.cabling import read_cabling
from dualrail_net.verify.controlplane import expected_plane, planned_bits
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


def eos_route_widths(device: str, text: str, vrf: str = "default") -> dict[str, int]:
    """prefix -> next hops (vias) of each BGP route of one VRF."""
    doc = _load(device, text, "show ip route bgp | json")
    try:
        routes = doc["vrfs"][vrf]["routes"]
        return {prefix: len(body.get("vias") or []) for prefix, body in routes.items()}
    except (KeyError, TypeError, AttributeError):
        raise NeighborsUnreadable(f"{device}: show ip route bgp | json not as EOS prints it") from None


class RouteTable(NamedTuple):
    """One routing table the audit reads: a device's table for one plane (``vrf`` "default" on a
    single-plane switch, the plane's VRF on a gateway)."""

    device: str
    plane: str
    vrf: str

    def label(self) -> str:
        return self.device if self.vrf == "default" else f"{self.device} (VRF {self.vrf})"


def planned_widths(out: Path, manifest: Manifest) -> dict[RouteTable, dict[str, int]]:
    """table -> prefix -> planned next hops, for every switch of every plane (a gateway's VRF there
    included)."""
    snap = Snapshot(out, manifest, {}, {}, read_cabling(manifest.cabling_path(out)))
    widths: dict[RouteTable, dict[str, int]] = {}
    for plane in manifest.planes:
        bit_of = planned_bits(snap, plane)
        plan = expected_plane(snap, plane, bit_of)
        for receiver, _sender, bits, links in plan.links():
            meta = manifest.devices[receiver]
            vrf = "default" if meta.plane == plane else meta.vrfs.get(plane)
            if vrf is None:
                continue  # not a routing table of this plane (the plan never gives it one)
            table = widths.setdefault(RouteTable(receiver, plane, vrf), {})
            for prefix, bit in bit_of.items():
                if bits >> bit & 1:
                    table[prefix] = table.get(prefix, 0) + links
    return widths


def route_findings(planned: dict[RouteTable, dict[str, int]],
                   live: dict[str, dict[str, dict[str, int]]]) -> list[Finding]:
    """``live``: device -> plane -> prefix -> next hops installed (only devices that answered)."""
    out = []
    for key, wanted in sorted(planned.items()):
        table = live.get(key.device, {}).get(key.plane)
        if table is None:
            continue  # not read: the device did not answer (its own finding) or cannot say
        where = key.label()
        for prefix, want in sorted(wanted.items()):
            got = table.get(prefix)
            if got is None or got == 0:
                out.append(Finding("ROUTE-LIVE-MISSING", Severity.ERROR, (key.device,), key.plane,
                                   f"{where} has no BGP route to {prefix} (planned over {want} next hops)",
                                   "traffic to that prefix from this switch is dropped or leaves the plan"))
            elif got < want:
                out.append(Finding("ECMP-LIVE-WIDTH", Severity.ERROR, (key.device,), key.plane,
                                   f"{where} reaches {prefix} over {got} of {want} planned next hops",
                                   "the plane carries less than designed toward it: a lost uplink, a session "
                                   "down or a neighbour that stopped advertising"))
    return out
