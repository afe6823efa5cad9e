"""ifupdown2 interfaces files (switches and servers) -> interfaces, VRFs, server routes and rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from dualrail_net.verify.model import Interface, ServerRoute, ServerRule


@dataclass(slots=True)
class Stanza:
    name: str
    method: str
    attrs: list[tuple[str, str]] = field(default_factory=list)


_ENDS_STANZA = {"auto", "allow-hotplug", "source", "source-directory"}


def _key_value(line: str) -> tuple[str, str] | None:
    """(first word, rest without its surrounding whitespace) of a line, None for a blank line or a
    comment. str.split, not a regex: a large fabric has millions of these lines."""
    w = line.split(None, 1)
    if not w or w[0][0] == "#":
        return None
    return w[0], w[1].rstrip() if len(w) > 1 else ""


def parse_stanzas(text: str) -> list[Stanza]:
    stanzas: list[Stanza] = []
    current: Stanza | None = None
    for line in text.split("\n"):
        kv = _key_value(line)
        if kv is None:
            continue
        key, rest = kv
        if key == "iface":
            parts = rest.split()
            current = Stanza(parts[0] if parts else "", parts[2] if len(parts) > 2 else "")
            stanzas.append(current)
        elif key in _ENDS_STANZA:
            current = None
        elif current is not None:
            current.attrs.append((key, rest))
    return stanzas


@dataclass(slots=True)
class InterfacesFile:
    interfaces: dict[str, Interface]
    vrfs: dict[str, int | None]  # VRF device -> table
    commands: list[str]  # the `post-up` / `up` commands of the stanzas, in order (server routes, rules)


def read_interfaces(text: str) -> InterfacesFile:
    """Interfaces and VRFs of an interfaces file in one pass (no Stanza objects: a large fabric has
    millions of lines). A stanza with vrf-table is a VRF device; its address is the VRF's loopback and is
    reported as a loopback interface inside that VRF. Lines are split as _key_value splits them
    (inlined: a call per line costs a fifth of the reading)."""
    ifaces: dict[str, Interface] = {}
    vrfs: dict[str, int | None] = {}
    commands: list[str] = []
    iface: Interface | None = None  # the open stanza's interface
    for line in text.split("\n"):
        w = line.split(None, 1)
        if not w:
            continue
        key = w[0]
        if key == "iface":
            parts = w[1].split() if len(w) > 1 else []
            name = parts[0] if parts else ""
            iface = ifaces.get(name)
            if iface is None:
                iface = ifaces[name] = Interface(name)
            iface.is_loopback = name == "lo" or (len(parts) > 2 and parts[2] == "loopback")
            continue
        if iface is None or key[0] == "#":
            continue
        value = w[1].rstrip() if len(w) > 1 else ""
        if key == "address":
            if value:
                iface.addresses.append(value.split()[0])
        elif key == "mtu":
            if value.isdigit():
                iface.mtu = int(value)
        elif key == "alias":
            iface.description = value
        elif key in _ENDS_STANZA:
            iface = None
        elif key == "vrf":
            iface.vrf = value
        elif key == "vrf-table":
            vrfs[iface.name] = int(value) if value.isdigit() else None
            iface.is_loopback = True
            iface.vrf = iface.name
        elif key == "bridge-ports":
            iface.bridge_ports = value.split()
        elif key == "post-up" or key == "up":
            commands.append(value)
    return InterfacesFile(ifaces, vrfs, commands)


def _ip_command(cmd: str) -> list[str]:
    return cmd.split()


def server_policy(commands: list[str]) -> tuple[list[ServerRoute], list[ServerRule]]:
    """Routes and rules installed by post-up commands (``ip route ...``, ``ip rule add ...``)."""
    routes: list[ServerRoute] = []
    rules: list[ServerRule] = []
    for value in commands:
        w = _ip_command(value)
        if w[:2] == ["ip", "route"] and len(w) >= 4 and w[2] in ("add", "replace", "append"):
            opts = dict(zip(w[4::2], w[5::2]))
            table = opts.get("table")
            routes.append(ServerRoute(w[3], opts.get("via"), opts.get("dev"),
                                      int(table) if table and table.isdigit() else None))
        elif w[:3] == ["ip", "rule", "add"]:
            opts = dict(zip(w[3::2], w[4::2]))
            table = opts.get("lookup") or opts.get("table")
            if "from" in opts and table and table.isdigit():
                rules.append(ServerRule(opts["from"].split("/")[0], int(table)))
    return routes, rules
