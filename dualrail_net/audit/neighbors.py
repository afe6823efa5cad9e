"""What a device says is at the far end of each port: LLDP tables as lldpd (Linux, Cumulus) and
EOS print them in JSON, and InfiniBand links as ``ibnetdiscover`` prints them. Bounded readers:
a malformed answer is a ``NeighborsUnreadable`` with the reason, never a traceback."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_ANSWER = 32 * 1024 * 1024  # bytes of one device's answer we read at most


class NeighborsUnreadable(ValueError):
    """A device's neighbour table cannot be read (what it answered is not what the platform prints)."""


@dataclass(frozen=True, slots=True)
class Neighbor:
    device: str  # the device that reported it
    port: str  # its local port
    remote_device: str  # the far end's system name (IB: its node description's first word or GUID)
    remote_port: str  # the far end's port id (with portidsubtype ifname: its interface name)


@dataclass(frozen=True, slots=True)
class PortState:
    device: str
    port: str
    up: bool
    speed_mbps: int | None = None  # None: the port does not say (a veth)


def _load(text: str, what: str) -> Any:
    if len(text) > MAX_ANSWER:
        raise NeighborsUnreadable(f"{what}: answer larger than {MAX_ANSWER} bytes")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise NeighborsUnreadable(f"{what}: not JSON ({exc})") from None


def _one_or_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def lldpcli_neighbors(device: str, text: str) -> list[Neighbor]:
    """``lldpcli show neighbors -f json``: ``lldp.interface`` is a mapping of one local port, or a
    list of such mappings (lldpd prints a list when there are several); each holds ``chassis``
    (system name -> details) and ``port.id.value``."""
    doc = _load(text, f"{device}: lldpcli")
    try:
        lldp = doc.get("lldp", {}) if isinstance(doc, dict) else {}
        entries: list[Any] = []
        for item in _one_or_list(lldp.get("interface") if isinstance(lldp, dict) else None):
            if isinstance(item, dict):
                entries += list(item.items())
        out = []
        for port, body in entries:
            if not isinstance(body, dict):
                continue
            chassis = body.get("chassis", {})
            names = [k for k, v in chassis.items() if isinstance(v, dict)] if isinstance(chassis, dict) else []
            name = names[0] if names else str((chassis or {}).get("name", {}).get("value", "")) if isinstance(chassis, dict) else ""
            port_id = body.get("port", {}).get("id", {})
            remote_port = port_id.get("value", "") if isinstance(port_id, dict) else ""
            if name and remote_port:
                out.append(Neighbor(device, str(port), str(name), str(remote_port)))
        return out
    except (AttributeError, TypeError) as exc:
        raise NeighborsUnreadable(f"{device}: lldpcli answer not as lldpd prints it ({exc})") from None


def eos_neighbors(device: str, text: str) -> list[Neighbor]:
    """``show lldp neighbors detail | json``: ``lldpNeighbors.<port>.lldpNeighborInfo[]`` with
    ``systemName`` and ``neighborInterfaceInfo.interfaceId_v2`` (or ``interfaceId``, quoted)."""
    doc = _load(text, f"{device}: show lldp neighbors detail")
    try:
        out = []
        for port, body in (doc.get("lldpNeighbors") or {}).items():
            for info in body.get("lldpNeighborInfo") or []:
                iface = info.get("neighborInterfaceInfo") or {}
                remote_port = str(iface.get("interfaceId_v2") or iface.get("interfaceId") or "").strip('"')
                name = str(info.get("systemName") or "")
                if name and remote_port:
                    out.append(Neighbor(device, str(port), name, remote_port))
        return out
    except (AttributeError, TypeError) as exc:
        raise NeighborsUnreadable(f"{device}: EOS LLDP answer not as EOS prints it ({exc})") from None


def ip_link_states(device: str, text: str, speeds: dict[str, int] | None = None) -> list[PortState]:
    """``ip -j link show``: every port's operational state (``operstate`` UP, or the LOWER_UP flag
    where a veth says UNKNOWN)."""
    doc = _load(text, f"{device}: ip -j link")
    if not isinstance(doc, list):
        raise NeighborsUnreadable(f"{device}: ip -j link answer is not a list")
    out = []
    for link in doc:
        if not isinstance(link, dict) or "ifname" not in link:
            continue
        name = str(link["ifname"]).split("@")[0]
        up = link.get("operstate") == "UP" or "LOWER_UP" in (link.get("flags") or [])
        out.append(PortState(device, name, bool(up), (speeds or {}).get(name)))
    return out


# ibnetdiscover: a node header, then one line per connected port, each naming its far end by GUID
# and, after '#', by node description
_IB_NODE = re.compile(r'^(?:Switch|Ca)\s+\d+\s+"[SH]-([0-9a-fA-F]+)"\s*(?:#\s*"([^"]*)")?')
_IB_PORT = re.compile(r'^\[([0-9]{1,4})\](?:\([0-9a-fA-F]+\))?\s+"[SH]-([0-9a-fA-F]+)"\[([0-9]{1,4})\][^#]*(?:#\s*"([^"]*)")?')


def _node_name(guid: str, description: str | None, names: dict[str, str]) -> str:
    """The plan's name for a node: its GUID as the plan knows it, else the first word of its node
    description (a host's is "gpu001 mlx5_0"; ibsim's is the name alone), else the GUID."""
    if guid in names:
        return names[guid]
    words = (description or "").split()
    return words[0] if words else guid


def ibnetdiscover_links(text: str, name_of_guid: dict[str, str] | None = None) -> list[Neighbor]:
    """Every connected port of ``ibnetdiscover`` output, seen from the node that lists it."""
    if len(text) > MAX_ANSWER:
        raise NeighborsUnreadable(f"ibnetdiscover: answer larger than {MAX_ANSWER} bytes")
    names = {f"0x{int(k, 16):016x}": v for k, v in (name_of_guid or {}).items()}
    out: list[Neighbor] = []
    current: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            current = None
            continue
        node = _IB_NODE.match(line)
        if node:
            current = _node_name(f"0x{int(node.group(1), 16):016x}", node.group(2), names)
            continue
        port = _IB_PORT.match(line)
        if port and current is not None:
            far = _node_name(f"0x{int(port.group(2), 16):016x}", port.group(4), names)
            out.append(Neighbor(current, port.group(1), far, port.group(3)))
    return out
