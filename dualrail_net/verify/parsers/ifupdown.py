"""ifupdown2 interfaces files (switches and servers) -> interfaces, VRFs, server routes and rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dualrail_net.verify.model import Interface, ServerRoute, ServerRule


@dataclass(slots=True)
class Stanza:
    name: str
    method: str
    attrs: list[tuple[str, str]] = field(default_factory=list)


# (first word, rest of the line) of every line that is not blank or a comment
_LINE = re.compile(r"^[ \t]*([^\s#]\S*)[ \t]*((?:[^\n]*[^\s])?)[ \t\r]*$", re.M)
_ENDS_STANZA = {"auto", "allow-hotplug", "source", "source-directory"}


def parse_stanzas(text: str) -> list[Stanza]:
    stanzas: list[Stanza] = []
    current: Stanza | None = None
    for key, rest in _LINE.findall(text):
        if key == "iface":
            parts = rest.split()
            current = Stanza(parts[0] if parts else "", parts[2] if len(parts) > 2 else "")
            stanzas.append(current)
        elif key in _ENDS_STANZA:
            current = None
        elif current is not None:
            current.attrs.append((key, rest))
    return stanzas


def interfaces_from(stanzas: list[Stanza]) -> tuple[dict[str, Interface], dict[str, int | None]]:
    """Returns (interfaces, vrfs). A stanza with vrf-table is a VRF device; its address is the
    VRF's loopback and is reported as a loopback interface inside that VRF."""
    ifaces: dict[str, Interface] = {}
    vrfs: dict[str, int | None] = {}
    for st in stanzas:
        iface = ifaces.get(st.name)
        if iface is None:
            iface = ifaces[st.name] = Interface(st.name)
        iface.is_loopback = st.name == "lo" or st.method == "loopback"
        for key, value in st.attrs:
            if key == "address":
                iface.addresses.append(value.split()[0])
            elif key == "mtu" and value.isdigit():
                iface.mtu = int(value)
            elif key == "vrf":
                iface.vrf = value
            elif key == "vrf-table":
                vrfs[st.name] = int(value) if value.isdigit() else None
                iface.is_loopback = True
                iface.vrf = st.name
            elif key == "alias":
                iface.description = value
            elif key == "bridge-ports":
                iface.bridge_ports = value.split()
    return ifaces, vrfs


def _ip_command(cmd: str) -> list[str]:
    return cmd.split()


def server_policy(stanzas: list[Stanza]) -> tuple[list[ServerRoute], list[ServerRule]]:
    """Routes and rules installed by post-up commands (``ip route ...``, ``ip rule add ...``)."""
    routes: list[ServerRoute] = []
    rules: list[ServerRule] = []
    for st in stanzas:
        for key, value in st.attrs:
            if key not in ("post-up", "up"):
                continue
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
