"""SONiC's control-plane access lists (ACL_TABLE type CTRLPLANE) as the packets for the switch
itself meet them, so that MGMT-ACL can ask whether anyone can still open SSH (or gNMI) to it.

Modelled on what caclmgrd (sonic-host-services) installs in the kernel's INPUT chain, in order:
loopback, established connections, ICMP, DHCP and BGP (TCP 179, except from the management port)
are accepted first; then, table by table and service by service, every rule of the table with the
highest PRIORITY first (caclmgrd sorts the PRIORITY strings as they are written, so "9" comes
before "10"), each rule made into one iptables rule per protocol and port of the service (SSH: TCP
22; SNMP: TCP and UDP 161; NTP: UDP 123; ANY: every packet; EXTERNAL_CLIENT: TCP to the rule's
L4_DST_PORT); last, **once any rule was made, everything else is dropped** — not only the listed
services' traffic: a table for SNMP alone shuts SSH out. Without a rule the chain accepts all.

Only IPv4 entries are kept (the probes are IPv4); a table whose rules name only IPv6 addresses
still counts towards the final drop. caclmgrd reads no other rule field (IP_PROTOCOL and the source
ports are ignored: the service decides), which is said, not silently followed. A table the model
cannot read whole (rules of both address families, two rules with one PRIORITY, TCP flags that are
not hexadecimal) is not judged and is reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dualrail_net.verify.ipfast import network_of
from dualrail_net.verify.model import AclEntry
from dualrail_net.verify.parsers.files import is_decimal
from dualrail_net.verify.parsers.frr import is_prefix

# service -> (protocols, destination port ranges; None: every port)
SERVICES: dict[str, tuple[tuple[str, ...], tuple[tuple[int, int], ...] | None]] = {
    "SSH": (("tcp",), ((22, 22),)),
    "SNMP": (("tcp", "udp"), ((161, 161),)),
    "NTP": (("udp",), ((123, 123),)),
    "ANY": (("ip",), None),
}
_READ = {"PRIORITY", "PACKET_ACTION", "SRC_IP", "DST_IP", "SRC_IPV6", "DST_IPV6", "L4_DST_PORT", "L4_DST_PORT_RANGE",
         "IN_PORTS", "TCP_FLAGS"}
_SYN = 0x02  # the flags of the segment that opens a connection


@dataclass
class ControlPlane:
    """The chain's IPv4 entries for what arrives on the management port (None: not read whole),
    where it starts, and the notes to report (line, what)."""

    entries: list[AclEntry] | None = None
    active: bool = False  # caclmgrd made a rule: the chain ends in a drop (else it accepts everything)
    name: str = ""
    line: int = 0
    notes: list[tuple[int, str]] = field(default_factory=list)


Rule = tuple[str, dict[str, Any], int]  # (rule name, fields with upper-cased keys, line)


def control_plane(tables: list[tuple[str, dict[str, Any], int]], rules: dict[str, list[Rule]],
                  management_ports: set[str]) -> ControlPlane | None:
    """The INPUT chain the CTRLPLANE ``tables`` (name, fields, line; in file order) make with their
    ``rules``; None when no table is a control-plane table (``active`` false: no rule made)."""
    if not tables:
        return None
    out = ControlPlane(name="CTRLPLANE " + ", ".join(t[0] for t in tables)[:80], line=tables[0][2])
    entries: list[AclEntry] | None = []
    made = 0
    for name, fields, line in tables:
        listed = rules.get(name, [])
        by_priority: dict[str, Rule] = {}
        judged = True
        for rule in listed:
            rule_name, props, rule_line = rule
            if "PRIORITY" not in props:
                out.notes.append((rule_line, f"ACL_RULE {name}|{rule_name}: no PRIORITY, caclmgrd skips the rule"))
                continue
            said = str(props["PRIORITY"])
            if said in by_priority:
                out.notes.append((rule_line, f"ACL_RULE {name}|{rule_name}: PRIORITY {said[:10]} twice in table "
                                             f"{name} (caclmgrd keeps one of them): not judged"))
                judged = False
            by_priority[said] = rule
            for key in sorted(set(props) - _READ):
                out.notes.append((rule_line, f"ACL_RULE {name}|{rule_name} {key[:30]}: caclmgrd ignores it on a "
                                             "control-plane table (the rule matches without it)"))
        v4 = any(r[1].get("SRC_IP") or r[1].get("DST_IP") for r in by_priority.values())
        v6 = any(r[1].get("SRC_IPV6") or r[1].get("DST_IPV6") for r in by_priority.values())
        if v4 and v6:
            out.notes.append((line, f"ACL_TABLE {name}: rules of both IPv4 and IPv6 (caclmgrd keeps the family of "
                                    "the rule it meets first): not judged"))
            judged = False
        if not (v4 or v6):
            if by_priority:
                out.notes.append((line, f"ACL_TABLE {name}: no rule names an address, caclmgrd skips the table"))
            continue
        services = fields.get("services", [])
        if not isinstance(services, list):
            out.notes.append((line, f"ACL_TABLE {name} services is not a list: caclmgrd reads it letter by letter "
                                    "and finds no service"))
            continue
        ordered = [by_priority[p] for p in sorted(by_priority, reverse=True)]
        for service in services:
            kind = _service(str(service), ordered)
            if kind is None:
                out.notes.append((line, f"ACL_TABLE {name} service {str(service)[:20]}: caclmgrd does not know it "
                                        "(or EXTERNAL_CLIENT without one L4_DST_PORT) and skips it"))
                continue
            protocols, ports = kind
            for rule_name, props, rule_line in ordered:
                if "PACKET_ACTION" not in props:
                    continue  # caclmgrd logs it and makes no rule
                made += len(protocols)
                if entries is None or not judged or not v4:
                    continue
                made_entries = _entries(props, protocols, ports, rule_line, management_ports)
                if made_entries is None:
                    out.notes.append((rule_line, f"ACL_RULE {name}|{rule_name}: not read (TCP_FLAGS), "
                                                 "the control-plane tables are not judged"))
                    entries = None
                else:
                    entries += made_entries
        if not judged:
            entries = None
    out.active = made > 0  # without a rule made there is no final drop: the switch accepts everything
    if entries is not None:
        entries.append(AclEntry("deny", "ip", (0, 0), (0, 0), line=out.line))  # caclmgrd's final DROP
    out.entries = entries
    return out


def _service(service: str, rules: list[Rule]) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...] | None] | None:
    if service in SERVICES:
        return SERVICES[service]
    if service != "EXTERNAL_CLIENT":
        return None
    ports = {_port_range(r[1]) for r in rules if "L4_DST_PORT" in r[1] or "L4_DST_PORT_RANGE" in r[1]}
    if len(ports) != 1 or None in ports:
        return None  # the port caclmgrd would take depends on an order the file does not fix
    only = ports.pop()
    assert only is not None
    return ("tcp",), (only,)


def _port_range(props: dict[str, Any]) -> tuple[int, int] | None:
    text = str(props.get("L4_DST_PORT", props.get("L4_DST_PORT_RANGE", "")))
    low, _, high = text.partition("-")
    high = high or low
    if is_decimal(low) and is_decimal(high) and int(low) <= int(high) < 65536:
        return int(low), int(high)
    return None


def _entries(props: dict[str, Any], protocols: tuple[str, ...], ports: tuple[tuple[int, int], ...] | None,
             line: int, management_ports: set[str]) -> list[AclEntry] | None:
    """The IPv4 entries one rule makes for what arrives on the management port; [] when iptables
    refuses the rule (a target other than ACCEPT/DROP, an address it cannot read: nothing is
    installed, the final drop still is) or it matches another ingress port. None: not read."""
    action = {"ACCEPT": "permit", "DROP": "deny"}.get(str(props["PACKET_ACTION"]))
    port_in = str(props.get("IN_PORTS", ""))
    if action is None or port_in and port_in not in management_ports:
        return []
    nets: list[tuple[int, int]] = []
    for key in ("SRC_IP", "DST_IP"):
        value = str(props.get(key) or "0.0.0.0/0")
        value = value if "/" in value else value + "/32"
        if not is_prefix(value):  # iptables refuses what is not an address (host bits it masks)
            return []
        nets.append(network_of(value))
    out = []
    for protocol in protocols:
        if protocol == "tcp" and props.get("TCP_FLAGS"):
            matches = _matches_syn(str(props["TCP_FLAGS"]))
            if matches is None:
                return None
            if not matches:
                continue
        out.append(AclEntry(action, protocol, nets[0], nets[1], None, ports, line))
    return out


def _matches_syn(text: str) -> bool | None:
    """Whether `--tcp-flags MASK FLAGS` from "0xFLAGS/0xMASK" matches the opening SYN (None: not
    hexadecimal, where caclmgrd itself fails)."""
    flags, _, mask = text.partition("/")
    f, m = _hex(flags), _hex(mask)
    if f is None or m is None:
        return None
    return (_SYN & m) == (f & m)


def _hex(text: str) -> int | None:
    digits = text[2:]
    if not (text[:2].lower() == "0x" and digits and len(digits) <= 8
            and all(c in "0123456789abcdefABCDEF" for c in digits)):
        return None
    return int(digits, 16)
