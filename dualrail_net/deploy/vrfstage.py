"""Split a multi-plane device's change by plane, so its maintenance window can change one plane's
VRF at a time (``dualrail deploy --scope gateways``), and a server's change by plane, so it never
loses both planes' ports at once (``--scope servers``: there a unit belongs to the plane of the NIC
port it configures — an interfaces stanza, a port line of the NIC QoS program's plan, a sysctl of
the port; its other files go whole with the first stage).

A gateway carries one VRF per plane. Pushing its new files whole would change every plane at once;
instead the change is cut into stages: stage k runs the intended text for the units of the first
k planes' VRFs and the running text for the others. A *unit* is what a config language treats as
one thing: in frr.conf a ``router bgp ... vrf V`` block, a ``vrf V`` block, an ``interface`` block,
all entries of one route-map, all lines of one prefix-list; in an ifupdown2 file one interface
stanza. A unit belongs to a VRF when it is in it (``vrf V`` in its header or body, a VRF device's
own stanza) or, for route-maps and prefix-lists, when only that VRF's units refer to it. Every other
unit is *shared* (hostname, management, a policy two VRFs use): a change there reaches every plane at
once, so the split refuses it (``Unsplittable``) and the operator changes it in a plane-wide window.

Both consumers apply a file by difference (frr-reload.py, ifreload), so units the stage leaves at
their running text are not touched on the device; the order of units in a file does not matter to
either."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from dualrail_net.verify.parsers import PLAN_END as NIC_PLAN_END, PLAN_START as NIC_PLAN_START

FRR, IFUPDOWN, NIC_QOS, SYSCTL = "frr.conf", "interfaces", "nic-qos.sh", "sysctl.conf"
SPLITTABLE = (FRR, IFUPDOWN, NIC_QOS, SYSCTL)
# files whose shared part may change in a split: it goes with the first stage, as a carried file
# does. The NIC QoS program's code outside its plan sets nothing by itself (every setting is a port
# line of the plan, each read before it is written); a server's host-wide sysctls (``all``, other
# subsystems) belong to no plane, and went whole with the first stage before its ports' were split
SHARED_GOES_FIRST = (NIC_QOS, SYSCTL)

Key = tuple[str, str]  # (kind, name): ("bgp", "plane-a"), ("route-map", "PLANE-A-IN"), ...


class Unsplittable(Exception):
    """The change touches what several planes share; it cannot be made one plane at a time."""


@dataclass
class Unit:
    key: Key | None  # None: a line of the file's shared frame (hostname, comments, "end")
    lines: list[str] = field(default_factory=list)
    vrf: str | None = None  # the VRF it is in, or None (shared)
    refers: set[Key] = field(default_factory=set)  # route-maps and prefix-lists it names


_REF = re.compile(r"\b(route-map|prefix-list)\s+(\S+)")


def _refs(line: str) -> set[Key]:
    return {(kind, name) for kind, name in _REF.findall(line)}


def frr_units(text: str) -> list[Unit]:
    """frr.conf as units, in file order. Blocks end at ``exit``/``exit-vrf``/``!``-less next header;
    indentation is not relied on (FRR accepts un-indented files)."""
    units: list[Unit] = []
    current: Unit | None = None
    named: dict[Key, Unit] = {}
    for raw in text.splitlines():
        line = raw.strip()
        words = line.split()
        if current is not None:
            current.lines.append(raw)
            current.refers |= _refs(line)
            if len(words) == 2 and words[0] == "vrf" and current.key is not None and current.key[0] == "interface":
                current.vrf = words[1]
            if line in ("exit", "exit-vrf") and not _nested_exit(current, line):
                current = None
            continue
        if words[:2] == ["router", "bgp"]:
            vrf = words[4] if len(words) >= 5 and words[3] == "vrf" else None
            current = Unit(("bgp", vrf or "default"), [raw], vrf)
            units.append(current)
        elif words[:1] == ["vrf"] and len(words) == 2:
            current = Unit(("vrf", words[1]), [raw], words[1])
            units.append(current)
        elif words[:1] == ["interface"] and len(words) >= 2:
            vrf = words[3] if len(words) >= 4 and words[2] == "vrf" else None
            current = Unit(("interface", words[1]), [raw], vrf)
            units.append(current)
        elif words[:1] == ["route-map"] and len(words) >= 2:
            current = _named(named, units, ("route-map", words[1]), raw)  # all entries of one name: one unit
        elif words[:2] == ["ip", "prefix-list"] and len(words) > 2:
            _named(named, units, ("prefix-list", words[2]), raw)  # one line each: no block follows
        else:
            units.append(Unit(None, [raw]))
    _assign_policies(units)
    return units


def _named(named: dict[Key, Unit], units: list[Unit], key: Key, raw: str) -> Unit:
    """The unit of a named policy (made on its first line), with ``raw`` added."""
    unit = named.get(key)
    if unit is None:
        unit = named[key] = Unit(key)
        units.append(unit)
    unit.lines.append(raw)
    return unit


def _nested_exit(unit: Unit, line: str) -> bool:
    """``exit-address-family`` is written as such; a bare ``exit`` inside ``address-family`` of an
    un-indented file closes the address family, not the block. Tracked by counting."""
    opened = sum(1 for ln in unit.lines if ln.strip().startswith("address-family"))
    closed = sum(1 for ln in unit.lines[:-1] if ln.strip() in ("exit-address-family", "exit"))
    return unit.key is not None and unit.key[0] == "bgp" and line == "exit" and opened > closed


def _assign_policies(units: list[Unit]) -> None:
    """A route-map or prefix-list belongs to a VRF when the only units naming it (directly, or
    through a route-map that does) are that VRF's."""
    users: dict[Key, set[str | None]] = {}
    for unit in units:
        if unit.key is not None and unit.key[0] not in ("route-map", "prefix-list"):
            for ref in unit.refers:
                users.setdefault(ref, set()).add(unit.vrf)
    for unit in units:  # a route-map passes its VRF to the prefix-lists it matches
        if unit.key is not None and unit.key[0] == "route-map":
            owners = users.get(unit.key, {None})
            for ref in unit.refers:
                users.setdefault(ref, set()).update(owners)
    for unit in units:
        if unit.key is not None and unit.key[0] in ("route-map", "prefix-list"):
            owners = users.get(unit.key, {None})
            unit.vrf = next(iter(owners)) if len(owners) == 1 else None


def ifupdown_units(text: str) -> list[Unit]:
    """An ifupdown2 file as units: one per interface (its ``auto`` line and ``iface`` stanza)."""
    units: list[Unit] = []
    by_name: dict[str, Unit] = {}
    current: Unit | None = None
    for raw in text.splitlines():
        words = raw.split()
        if words[:1] in (["auto"], ["iface"], ["allow-hotplug"]) and len(words) >= 2:
            name = words[1]
            unit = by_name.get(name)
            if unit is None:
                unit = by_name[name] = Unit(("iface", name))
                units.append(unit)
            unit.lines.append(raw)
            current = unit if words[0] == "iface" else None
            continue
        if current is not None and raw[:1] in (" ", "\t") and words:
            current.lines.append(raw)
            if words[0] == "vrf" and len(words) == 2:
                current.vrf = words[1]
            elif words[0] == "vrf-table" and current.key is not None:
                current.vrf = current.key[1]  # a VRF device is its own VRF
            continue
        current = None
        units.append(Unit(None, [raw]))
    return units


def _per_port(text: str, port_of: Callable[[str, bool], tuple[str | None, bool]]) -> list[Unit]:
    """A file of one line per setting as units: the lines of one port are one unit (where its first
    line is; a port listed twice keeps both lines, in order), every other line is shared.
    ``port_of(line, state) -> (port or None, state)`` reads each stripped line in turn."""
    units: list[Unit] = []
    by_port: dict[str, Unit] = {}
    state = False
    for raw in text.splitlines():
        port, state = port_of(raw.strip(), state)
        if port is None:
            units.append(Unit(None, [raw]))
            continue
        unit = by_port.get(port)
        if unit is None:
            unit = by_port[port] = Unit(("port", port))
            units.append(unit)
        unit.lines.append(raw)
    return units


def _nic_qos_port(line: str, inside: bool) -> tuple[str | None, bool]:
    if line.startswith(NIC_PLAN_START) or line == NIC_PLAN_END:
        return None, line != NIC_PLAN_END
    words = line.split()
    return (words[1] if inside and len(words) >= 2 and words[0] == "port" else None), inside


def nic_qos_units(text: str) -> list[Unit]:
    """The NIC QoS program as units: one per port of its plan's port lines (``port IF RDMA
    key=value...``, between the plan's marker lines); every other line is shared."""
    return _per_port(text, _nic_qos_port)


# net.ipv4.conf.<if>.<key> (also neigh, ipv6, and the slash spelling): a setting of one interface
_SYSCTL_PORT = re.compile(r"net[./]ipv[46][./](?:conf|neigh)[./]([^./\s=]+)[./]")


def _sysctl_port(line: str, state: bool) -> tuple[str | None, bool]:
    m = _SYSCTL_PORT.match(line)
    return (m.group(1) if m else None), state


def sysctl_units(text: str) -> list[Unit]:
    """sysctl.conf as units: one per interface its lines set (``all`` and ``default`` included,
    which belong to no NIC port and so stay shared); every other line is shared."""
    return _per_port(text, _sysctl_port)


UnitsOf = Callable[[str, str], list[Unit]]  # (file name, text) -> its units, each with its group


# each splittable file's reader of units (a file of another name is read as an ifupdown2 file)
_UNITS: dict[str, Callable[[str], list[Unit]]] = {FRR: frr_units, IFUPDOWN: ifupdown_units, NIC_QOS: nic_qos_units,
                                                  SYSCTL: sysctl_units}


def gateway_units(name: str, text: str) -> list[Unit]:
    """A gateway's units, grouped by VRF."""
    return _UNITS.get(name, ifupdown_units)(text)


def port_units(port_plane: dict[str, str]) -> UnitsOf:
    """A server's interfaces file, NIC QoS program and sysctls grouped by the plane of each NIC port
    (``port_plane``: port -> plane); their other stanzas and lines are shared."""
    def units(name: str, text: str) -> list[Unit]:
        out = _UNITS.get(name, ifupdown_units)(text)
        for unit in out:
            unit.vrf = port_plane.get(unit.key[1]) if unit.key is not None else None
        return out
    return units




def _meaningful(lines: list[str]) -> list[str]:
    return [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith(("!", "#"))]


def _shared_text(units: list[Unit]) -> dict[Key | None, list[str]]:
    out: dict[Key | None, list[str]] = {}
    for unit in units:
        if unit.vrf is None:
            out.setdefault(unit.key, []).extend(_meaningful(unit.lines))
    return out


def shared_changes(name: str, running: str, intended: str, units: UnitsOf = gateway_units,
                   splittable: tuple[str, ...] = SPLITTABLE) -> list[str]:
    """What differs between ``running`` and ``intended`` outside every single VRF (empty: the file's
    change splits by VRF)."""
    if name not in splittable:
        return [f"{name} (not split by VRF)"] if running != intended else []
    before, after = _shared_text(units(name, running)), _shared_text(units(name, intended))
    return [f"{name}: {_label(key, before.get(key, []), after.get(key, []))}"
            for key in sorted(set(before) | set(after), key=lambda k: k or ("", ""))
            if before.get(key, []) != after.get(key, [])]


def _label(key: Key | None, before: list[str], after: list[str]) -> str:
    if key is not None:
        return f"{key[0]} {key[1]}"
    first = next((line for line in after if line not in before), None)
    if first is not None:
        return f"global line {first!r}"
    gone = next((line for line in before if line not in after), None)
    return f"global line {gone!r} removed" if gone is not None else "global lines reordered"


def staged(name: str, running: str, intended: str, done: set[str], units: UnitsOf = gateway_units,
           splittable: tuple[str, ...] = SPLITTABLE) -> str:
    """The file with the units of the VRFs in ``done`` as intended and every other VRF's units as
    they run. Shared units are taken from ``intended`` (``shared_changes`` must be empty)."""
    if name not in splittable:
        return intended
    now = {u.key: u for u in units(name, running) if u.vrf is not None}
    out: list[str] = []
    kept: set[Key | None] = set()
    for unit in units(name, intended):
        if unit.vrf is None or unit.vrf in done:
            out += unit.lines
        elif unit.key in now:
            out += now[unit.key].lines
            kept.add(unit.key)
    # units of VRFs not yet changed that the intended file no longer has: they still run
    extra = [u for key, u in now.items() if key not in kept and u.vrf not in done
             and key not in {v.key for v in units(name, intended) if v.vrf in done}]
    # what must stay last: frr.conf's "end"; the NIC QoS program's end of the plan and what follows
    # (its exit: a port line after it would never run)
    cut = len(out)
    if out and out[-1].strip() == "end":
        cut -= 1
    elif name == NIC_QOS:
        cut = next((i for i, line in enumerate(out) if line.strip() == NIC_PLAN_END), cut)
    out, tail = out[:cut], out[cut:]
    for unit in extra:
        out += unit.lines
    return "\n".join(out + tail) + "\n"


def vrfs_changed(name: str, running: str, intended: str, units: UnitsOf = gateway_units,
                 splittable: tuple[str, ...] = SPLITTABLE) -> set[str]:
    """The VRFs whose units differ between the two texts."""
    if name not in splittable:
        return set()
    before = {u.key: _meaningful(u.lines) for u in units(name, running) if u.vrf is not None}
    after = {u.key: _meaningful(u.lines) for u in units(name, intended) if u.vrf is not None}
    vrf_of = {u.key: u.vrf for u in (*units(name, running), *units(name, intended)) if u.vrf is not None}
    return {vrf_of[k] for k in set(before) | set(after) if before.get(k) != after.get(k) and vrf_of[k]}


@dataclass(frozen=True)
class Stage:
    plane: str
    vrf: str
    files: dict[str, str]  # the whole file set to push for this stage


def plan_stages(running: dict[str, str], intended: dict[str, str], vrfs: dict[str, str],
                order: list[str], units: UnitsOf = gateway_units, carried: tuple[str, ...] = ()) -> list[Stage]:
    """The pushes that take a multi-plane device from ``running`` to ``intended`` one plane's VRF at
    a time, in ``order`` (planes without a change are skipped). ``vrfs``: plane -> VRF name (the
    group its units carry). Files in ``carried`` are not split: they go whole with the first stage.
    Raises ``Unsplittable`` when a shared part changes; the last stage's files equal ``intended``."""
    splittable = tuple(n for n in SPLITTABLE if n not in carried)
    split = {name: text for name, text in intended.items() if name not in carried}
    shared = [c for name, text in split.items() if name not in SHARED_GOES_FIRST
              for c in shared_changes(name, running.get(name, ""), text, units, splittable)]
    if shared:
        raise Unsplittable("changes what its planes share, so no plane could stay untouched: " + "; ".join(shared[:4]))
    changed = set().union(*(vrfs_changed(name, running.get(name, ""), text, units, splittable)
                            for name, text in split.items()))
    unknown = sorted(changed - set(vrfs.values()))
    if unknown:
        raise Unsplittable(f"changes VRF(s) {', '.join(unknown)}, which belong to no plane it serves")
    todo = [plane for plane in order if vrfs.get(plane) in changed]
    goes_first = [c for name, text in split.items() if name in SHARED_GOES_FIRST
                  for c in shared_changes(name, running.get(name, ""), text, units, splittable)]
    if not todo and (goes_first or any(running.get(name) != intended[name] for name in intended if name in carried)):
        # only what goes with the first stage changes (a carried file, a shared part that may): one
        # stage takes it
        todo = [p for p in order if p in vrfs][:1]
    stages: list[Stage] = []
    done: set[str] = set()
    for i, plane in enumerate(todo):
        done.add(vrfs[plane])
        files = (dict(intended) if i == len(todo) - 1 else
                 {name: (text if name in carried else
                         staged(name, running.get(name, ""), text, done, units, splittable))
                  for name, text in intended.items()})
        stages.append(Stage(plane, vrfs[plane], files))
    return stages
