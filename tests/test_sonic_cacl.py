"""SONiC's control-plane tables as caclmgrd chains them (platforms/sonic/cacl.py): the entries
the model makes for what arrives on the management port, checked one semantic at a time against
the verdict on an SSH (or other) connection from a given source."""

from __future__ import annotations

from typing import Any

from dualrail_net.platforms.sonic.cacl import ControlPlane, control_plane
from dualrail_net.verify.controlplane import acl_permits
from dualrail_net.verify.ipfast import ip_int

MGMT = ip_int("198.51.100.33")


def _chain(services: Any, rules: dict[str, dict[str, Any]], table: str = "T") -> ControlPlane:
    made = control_plane([(table, {"type": "CTRLPLANE", "services": services}, 1)],
                         {table: [(name, props, 2 + i) for i, (name, props) in enumerate(rules.items())]}, {"eth0"})
    assert made is not None
    return made


def _lets(cp: ControlPlane, source: str, port: int = 22, protocol: str = "tcp") -> bool:
    assert cp.entries is not None
    return acl_permits(cp.entries, protocol, ip_int(source), 50000, MGMT, port)[0]


def test_once_a_rule_is_made_everything_else_is_dropped() -> None:
    cp = _chain(["SNMP"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "10.0.0.0/8"}})
    assert cp.active and _lets(cp, "10.1.1.1", 161, "udp") and not _lets(cp, "10.1.1.1", 22)


def test_priorities_are_compared_as_written() -> None:
    """'9' sorts after '10' reversed: the drop at 9 is met before the accept at 10."""
    cp = _chain(["SSH"], {"A": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0"},
                          "D": {"PRIORITY": "9", "PACKET_ACTION": "DROP", "SRC_IP": "0.0.0.0/0"}})
    assert not _lets(cp, "192.0.2.1")
    cp = _chain(["SSH"], {"A": {"PRIORITY": "90", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0"},
                          "D": {"PRIORITY": "10", "PACKET_ACTION": "DROP", "SRC_IP": "0.0.0.0/0"}})
    assert _lets(cp, "192.0.2.1")


def test_a_target_iptables_refuses_installs_nothing_but_the_drop_stays() -> None:
    cp = _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "FORWARD", "SRC_IP": "0.0.0.0/0"}})
    assert cp.active and not _lets(cp, "192.0.2.1")


def test_without_an_address_or_a_service_list_no_rule_is_made() -> None:
    assert not _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "DROP"}}).active
    skipped = _chain("SSH", {"R": {"PRIORITY": "1", "PACKET_ACTION": "DROP", "SRC_IP": "1.2.3.4"}})
    assert not skipped.active and any("letter by letter" in what for _, what in skipped.notes)


def test_ipv6_rules_count_towards_the_drop() -> None:
    cp = _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IPV6": "2001:db8::/32"}})
    assert cp.active and not _lets(cp, "192.0.2.1")


def test_in_ports_and_tcp_flags_select_what_the_management_port_meets() -> None:
    elsewhere = _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0",
                                       "IN_PORTS": "Ethernet0"}})
    assert not _lets(elsewhere, "192.0.2.1")
    here = _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0",
                                  "IN_PORTS": "eth0"}})
    assert _lets(here, "192.0.2.1")
    ack_only = _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0",
                                      "TCP_FLAGS": "0x10/0x10"}})
    assert not _lets(ack_only, "192.0.2.1")  # an opening SYN has no ACK
    syn = _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0",
                                 "TCP_FLAGS": "0x02/0x02"}})
    assert _lets(syn, "192.0.2.1")
    broken = _chain(["SSH"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0",
                                    "TCP_FLAGS": "zz"}})
    assert broken.entries is None  # not judged, and said
    assert any("TCP_FLAGS" in what for _, what in broken.notes)


def test_external_client_takes_its_port_from_the_rules() -> None:
    cp = _chain(["EXTERNAL_CLIENT"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0",
                                            "L4_DST_PORT": "8080"}})
    assert _lets(cp, "192.0.2.1", 8080) and not _lets(cp, "192.0.2.1", 22)


def test_any_covers_every_protocol_and_port() -> None:
    cp = _chain(["ANY"], {"R": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "192.0.2.0/24"}})
    assert _lets(cp, "192.0.2.9", 22) and _lets(cp, "192.0.2.9", 8080) and not _lets(cp, "203.0.113.1", 22)


def test_two_rules_with_one_priority_leave_the_tables_unjudged() -> None:
    cp = _chain(["SSH"], {"A": {"PRIORITY": "1", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0"},
                          "B": {"PRIORITY": "1", "PACKET_ACTION": "DROP", "SRC_IP": "0.0.0.0/0"}})
    assert cp.entries is None and any("twice" in what for _, what in cp.notes)
