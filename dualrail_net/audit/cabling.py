"""The cables the devices see (LLDP, ibnetdiscover) against the cabling plan.

A cable is judged once, as a pair of ends, whichever end reported it:

* a pair seen and planned is fine;
* a pair seen and not planned is CABLE-CROSS-PLANE when its ends are in different planes (critical:
  the planes are no longer separate), else CABLE-MISWIRED when either end has a planned cable
  (both ends named as planned and as found), else CABLE-UNEXPECTED;
* a planned pair nobody saw, with neither end part of a wrongly seen cable, is LINK-DOWN when a
  reporting end's port is down, else CABLE-MISSING;
* LINK-SPEED when a port says its speed and it is not the planned one.
A device that did not answer is AUDIT-UNREACHABLE; its cables are judged from their other end.
Everything is dictionaries keyed by (device, port): linear in the plan and the tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from dualrail_net.audit.neighbors import Neighbor, PortState
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.parsers.files import is_decimal

End = tuple[str, str]  # (device, port)


class PlannedCable(NamedTuple):
    """A named tuple: the 100k-GPU plan has 602k of them (a frozen dataclass builds several times slower)."""

    a: End
    b: End
    plane: str
    speed: str = ""  # "400G"; "" when the plan does not say


def planned_from_rows(rows: Iterable[tuple[str, str, str, str, str, str]]) -> list[PlannedCable]:
    """(plane, a_device, a_port, b_device, b_port, speed) rows -> planned cables."""
    return [PlannedCable((ad, ap), (bd, bp), plane, speed) for plane, ad, ap, bd, bp, speed in rows]


def speed_mbps(text: str) -> int | None:
    """'400G' -> 400000, '100M' -> 100; None for what is not a speed."""
    if len(text) < 2 or not is_decimal(text[:-1]):
        return None
    unit = {"G": 1000, "M": 1, "T": 1_000_000}.get(text[-1].upper())
    return int(text[:-1]) * unit if unit else None


def _name(end: End) -> str:
    return f"{end[0]}:{end[1]}"


def compare_cabling(plan: Sequence[PlannedCable], neighbors: Iterable[Neighbor], answered: set[str],
                    ports: Iterable[PortState] = (), device_plane: dict[str, str | None] | None = None,
                    ) -> list[Finding]:
    """Findings for the cables of ``plan`` as the devices in ``answered`` report them.
    ``device_plane``: the plane of a device in one plane (None for gateways and servers, whose
    ports' planes come from the plan)."""
    cable_of: dict[End, PlannedCable] = {}
    for cable in plan:
        cable_of[cable[0]] = cable_of[cable[1]] = cable
    planes = device_plane or {}

    def peer(end: End) -> End | None:
        cable = cable_of.get(end)
        return None if cable is None else (cable.b if cable.a == end else cable.a)

    def plane(end: End) -> str | None:
        cable = cable_of.get(end)
        return cable.plane if cable is not None else planes.get(end[0])

    out: list[Finding] = []
    # each cable seen, as its two ends in order (whichever end reported it)
    seen_pairs: set[tuple[End, End]] = set()
    for n in neighbors:
        here, there = (n.device, n.port), (n.remote_device, n.remote_port)
        if there not in cable_of and (n.remote_device, "") in cable_of:
            there = (n.remote_device, "")  # an external peer: the plan does not name its port
        seen_pairs.add((here, there) if here < there else (there, here))
    wrong = []
    for e1, e2 in seen_pairs:
        if e1 == e2:
            continue  # a port that sees itself (a loop): not a cable between two ends
        seen_cable = cable_of.get(e1)
        if seen_cable is None or (seen_cable.b if seen_cable.a == e1 else seen_cable.a) != e2:
            wrong.append((e1, e2))
    in_wrong_pair: set[End] = set()
    for e1, e2 in sorted(wrong):  # findings in a stable order
        ends = (e1, e2)
        in_wrong_pair.update(ends)
        p1, p2 = plane(e1), plane(e2)
        planned = [f"{_name(e)} -> {_name(p)}" for e in ends if (p := peer(e)) is not None]
        as_planned = f"; planned: {', '.join(planned)}" if planned else "; neither end has a planned cable"
        devices = (e1[0], e2[0])
        if p1 and p2 and p1 != p2:
            out.append(Finding("CABLE-CROSS-PLANE", Severity.ERROR, devices, "",
                               f"found {_name(e1)} (plane {p1}) <-> {_name(e2)} (plane {p2}){as_planned}",
                               "a cable between the planes: they are no longer independent, one fault or "
                               "one route leak reaches both"))
        elif planned:
            out.append(Finding("CABLE-MISWIRED", Severity.ERROR, devices, p1 or p2 or "",
                               f"found {_name(e1)} <-> {_name(e2)}{as_planned}",
                               "traffic lands on the wrong leaf or rail; ECMP and the rail design no longer hold"))
        else:
            out.append(Finding("CABLE-UNEXPECTED", Severity.WARNING, devices, p1 or p2 or "",
                               f"found {_name(e1)} <-> {_name(e2)}, which the plan does not have",
                               "a cable nobody planned is a cable nobody checks"))
    state = {(p.device, p.port): p for p in ports}
    for cable in plan:
        a_heard, b_heard = cable.a[0] in answered, cable.b[0] in answered
        if not (a_heard or b_heard):
            continue  # neither end answered: AUDIT-UNREACHABLE says so
        key = (cable.a, cable.b) if cable.a < cable.b else (cable.b, cable.a)
        if key in seen_pairs or cable.a in in_wrong_pair or cable.b in in_wrong_pair:
            continue
        down = [end for end, heard in ((cable.a, a_heard), (cable.b, b_heard))
                if heard and end in state and not state[end].up]
        reporters = [e[0] for e, heard in ((cable.a, a_heard), (cable.b, b_heard)) if heard]
        if down:
            out.append(Finding("LINK-DOWN", Severity.ERROR, (cable.a[0], cable.b[0]), cable.plane,
                               f"{_name(cable.a)} <-> {_name(cable.b)} is down (at {', '.join(map(_name, down))})",
                               "the plane runs with less capacity, and a server or a rail may have lost its path"))
        else:
            out.append(Finding("CABLE-MISSING", Severity.ERROR, (cable.a[0], cable.b[0]), cable.plane,
                               f"{_name(cable.a)} <-> {_name(cable.b)} is planned; no LLDP neighbour on it "
                               f"(asked {', '.join(reporters)})",
                               "the port is up without the planned neighbour, or the cable is not there"))
    for end, st in state.items():
        planned_cable = cable_of.get(end)
        if planned_cable is None or st.speed_mbps is None or not st.up:
            continue
        want = speed_mbps(planned_cable.speed)
        if want is not None and st.speed_mbps != want:
            out.append(Finding("LINK-SPEED", Severity.ERROR, (end[0],), planned_cable.plane,
                               f"{_name(end)} runs at {st.speed_mbps} Mb/s, planned {planned_cable.speed}",
                               "a slow link in one plane skews ECMP and the planes' symmetry"))
    return out


def unreachable(devices: Iterable[str], why: dict[str, str]) -> list[Finding]:
    return [Finding("AUDIT-UNREACHABLE", Severity.ERROR, (d,), "", f"{d} did not answer: {why[d]}",
                    "what this device runs and sees cannot be audited") for d in sorted(devices)]
