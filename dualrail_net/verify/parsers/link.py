"""A port's link settings as each platform writes them, in one vocabulary (``LinkSettings``): a
forced speed in Mb/s, the FEC ("rs", "baser", "none") and autonegotiation. ``None`` stands for
"automatic / the platform's default" and is never judged against the other end."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection

from dualrail_net.verify.model import DeviceConfig, Interface, LinkSettings, why_down

# every platform's FEC names -> ours; None: automatic (the optic's and platform's default)
FEC = {"rs": "rs", "reed-solomon": "rs", "rs528": "rs", "rs544": "rs", "baser": "baser", "fc": "baser",
       "fire-code": "baser", "none": "none", "off": "none", "auto": None, "default": None}
_SPEED = re.compile(r"(\d{1,7})(g|m)?(?:full|-\d)?")
AUTO = "auto"


class Unreadable(ValueError):
    """A link setting this vocabulary does not have (the caller reports the line as unmodelled)."""


def speed_mbps(text: str) -> int | None:
    """'400G', '400g-8', '100gfull', '400000' (Mb/s) -> Mb/s; 'auto' -> None."""
    value = text.strip().lower()
    if value == AUTO:
        return None
    m = _SPEED.fullmatch(value)
    if m is None:
        raise Unreadable(text)
    number = int(m.group(1))
    return number * 1000 if m.group(2) == "g" else number


def fec(text: str) -> str | None:
    value = text.strip().lower()
    if value not in FEC:
        raise Unreadable(text)
    return FEC[value]


def autoneg(text: str) -> bool:
    value = text.strip().lower()
    if value in ("on", "yes", "true", "enabled"):
        return True
    if value in ("off", "no", "false", "disabled"):
        return False
    raise Unreadable(text)


_UNSET = object()


def set_link(iface: Interface, line: int, speed: object = _UNSET, fec_mode: object = _UNSET,
             negotiate: object = _UNSET, file: str = "interfaces") -> None:
    """Record what a line of ``file`` says of the port's link (a later line overrides an earlier one)."""
    current = iface.link or LinkSettings(line=line, file=file)
    changes: dict[str, object] = {}
    if speed is not _UNSET:
        changes["speed_mbps"] = speed
    if fec_mode is not _UNSET:
        changes["fec"] = fec_mode
    if negotiate is not _UNSET:
        changes["autoneg"] = negotiate
    iface.link = dataclasses.replace(current, **changes)  # type: ignore[arg-type]


def planned_mbps(speed: str) -> int | None:
    """The cabling plan's speed ('400G') in Mb/s; None when it says none."""
    try:
        return speed_mbps(speed) if speed else None
    except Unreadable:
        return None


def take_lag_members(dev: DeviceConfig) -> None:
    """lag_members_down on a switch's ports; a routed LAG's member lines are reported (base files)."""
    dev.base_unmodelled += lag_members_down(dev.interfaces, dev.lag_members)


def lag_members_down(interfaces: dict[str, Interface], members: dict[str, tuple[str, str, int]],
                     routed: Collection[str] = ()) -> list[tuple[str, int, str]]:
    """A port made a member of a port-channel (EOS `channel-group N mode ...`) or a bond (ifupdown2
    `bond-slaves`) carries the LAG's frames: its own address is not used, so as a routed port it is
    down. A LAG that holds an address of its own is a routed link the model does not follow (the
    cabling plan knows ports, not LAGs): its members are kept, and (file, line, text) returned for
    each of them, to be reported as not modelled. ``routed``: LAGs known to hold an address where
    the LAG is no interface of the model (SONiC's PORTCHANNEL_INTERFACE)."""
    unmodelled = []
    for member, (lag, file, line) in members.items():
        port, group = interfaces.get(member), interfaces.get(lag)
        if port is None:
            unmodelled.append((file, line, f"{member} is a member of {lag}, but no port of this device's model"))
        elif lag in routed or group is not None and group.addresses:
            unmodelled.append((file, line, f"{member} is a member of {lag}, which is routed (not modelled)"))
        elif not port.down:
            port.down = f"a member of {lag}, so its own address is not used"
    return unmodelled


# a VLAN sub-interface's name as ifupdown2 reads it (addons/vlan.py): the lower device, a dot, the
# VLAN id
_SUBPORT = re.compile(r"(.+)\.(\d{1,4})")


def sub_port_parents(interfaces: Collection[str]) -> dict[str, str]:
    """sub-interface -> its parent port, for each dotted name (``swp33.100``) whose parent is a port
    of the same device (ifupdown2 makes such a stanza a VLAN device on that port)."""
    out = {}
    for name in interfaces:
        if "." in name and (m := _SUBPORT.fullmatch(name)) and m.group(1) in interfaces:
            out[name] = m.group(1)
    return out


def take_sub_port_parents(dev: DeviceConfig, parents: dict[str, str]) -> None:
    """A VLAN sub-interface sends and receives through its parent port's queues: its PFC, ECN,
    trust and scheduling are the parent's, whatever it says itself (the switch's buffers and
    schedulers are per physical port). A Linux VLAN device takes its parent's MTU when it is made
    (both callers are Linux switches), so without an ``mtu`` of its own it has the parent's. It has
    no carrier while its parent is down."""
    for name, parent_name in parents.items():
        sub, parent = dev.interfaces.get(name), dev.interfaces.get(parent_name)
        if sub is None or parent is None:
            continue
        sub.pfc_priorities, sub.ecn, sub.strict_tcs = parent.pfc_priorities, parent.ecn, parent.strict_tcs
        sub.trust, sub.dwrr_share, sub.pfc_headroom = parent.trust, parent.dwrr_share, parent.pfc_headroom
        if parent_name in dev.qos.shape_percent:
            dev.qos.shape_percent[name] = dev.qos.shape_percent[parent_name]
        sub.pfc_watchdog, sub.pfc_watchdog_note = parent.pfc_watchdog, parent.pfc_watchdog_note
        if sub.mtu is None:
            sub.mtu = parent.mtu
        if parent.down and not sub.down:
            sub.down = f"a VLAN on {parent_name}, which is {why_down(parent.down)}"
