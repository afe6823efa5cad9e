"""The Cumulus NVUE platform (issue 21): the example with NVUE leaves and gateway builds clean;
startup.yaml reads back to what the Linux-files rendering of the same switch says; verify catches
the same breakages on it; the driver's NVUE revision lifecycle against the stateful simulator."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import FakeClock

from dualrail_net.deploy.drivers.base import PushRejected
from dualrail_net.platforms.cumulus_nvue.driver import NvueDriver
from dualrail_net.platforms.cumulus_nvue.parse import parse_text
from dualrail_net.platforms.cumulus_nvue.simulator import simulator_for
from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.parsers import parse_device
from dualrail_net.verify.findings import Severity
from dualrail_net.verify.snapshot import load_snapshot

pytestmark = pytest.mark.usefixtures("switch_secrets")

LEAF = "plane-A/a-leaf-su1-r0"
GATEWAY = "multi-plane/gw-storage-1"
YAML = f"{LEAF}/startup.yaml"


def test_the_nvue_variant_verifies_clean(nvue_variant: Path) -> None:
    findings = [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(nvue_variant)) for f in r.findings]
    assert findings == []


@pytest.mark.parametrize("device", [LEAF, "plane-B/b-leaf-su2-r3", GATEWAY])
def test_startup_yaml_reads_back_as_the_linux_files_rendering(nvue_variant: Path, example_build: Path,
                                                              device: str) -> None:
    name = device.rsplit("/", 1)[1]
    nvue = parse_device(name, "cumulus-nvue", nvue_variant / device)
    files = parse_device(name, "cumulus", example_build / device)
    assert nvue.base_unmodelled == [] and nvue.unmodelled == []
    assert set(nvue.interfaces) - {"lo"} == set(files.interfaces) - {"lo"}
    for port, c in files.interfaces.items():
        n = nvue.interfaces[port]
        assert (n.addresses, n.vrf, n.mtu, n.down, n.is_loopback) == (c.addresses, c.vrf, c.mtu, c.down, c.is_loopback), port
        if port.startswith("swp"):
            assert (n.pfc_priorities, n.ecn, sorted(n.strict_tcs)) == (c.pfc_priorities, c.ecn, sorted(c.strict_tcs)), port
            assert n.trust == "dscp" == files.qos.trust
    assert (nvue.qos.dscp_to_tc, nvue.qos.dscp_to_priority) == (files.qos.dscp_to_tc, files.qos.dscp_to_priority)
    assert set(nvue.vrfs) == set(files.vrfs)
    for vrf, inst in files.bgp.items():
        mine = nvue.bgp[vrf]
        assert (mine.asn, mine.router_id, sorted(mine.neighbors), mine.networks, mine.maximum_paths, mine.multipath_relax) \
            == (inst.asn, inst.router_id, sorted(inst.neighbors), inst.networks, inst.maximum_paths, inst.multipath_relax)
        for address, n in inst.neighbors.items():
            assert (mine.neighbors[address].remote_asn, mine.neighbors[address].route_map_in,
                    mine.neighbors[address].route_map_out) == (n.remote_asn, n.route_map_in, n.route_map_out)
    assert nvue.prefix_lists.keys() == files.prefix_lists.keys()
    for pl, entries in files.prefix_lists.items():
        assert [(e.seq, e.action, e.prefix, e.le) for e in nvue.prefix_lists[pl]] == \
            [(e.seq, e.action, e.prefix, e.le) for e in entries]
    assert [(s.vrf, s.prefix, s.nexthop) for s in nvue.static_routes] == \
        [(s.vrf, s.prefix, s.nexthop) for s in files.static_routes]
    nm, fm = nvue.management, files.management
    assert (nm.vrf, nm.default_gateway, nm.ntp, nm.syslog, nm.dns) == (fm.vrf, fm.default_gateway, fm.ntp, fm.syslog, fm.dns)
    assert nm.users_in_file and [u.name for u in nm.users] == ["netops"] and nm.users[0].credential


def _edit(old: str, new: str, file: str = YAML, count: int = 1) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        path = root / file
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new, count))
    return mutate


_SPINE_1 = '                description: "a-spine-1:Ethernet1"\n'  # the leaf's neighbor toward a-spine-1
_FAMILY = '                address-family:\n                  ipv4-unicast:\n                    enable: "on"\n'

NVUE_MUTATIONS: list[tuple[str, str, Callable[[Path], None]]] = [
    ("PFC not honoured on receive", "QOS-PFC", _edit('          rx: "enable"', '          rx: "disable"')),
    ("PFC on another priority", "QOS-PFC", _edit('          switch-priority:\n            "3": {}',
                                                 '          switch-priority:\n            "4": {}')),
    ("trust left at NVUE's default (l2: PCP)", "QOS-TRUST", _edit('          trust: "l3"\n', "")),
    ("RoCE's DSCP on another priority", "QOS-DSCP-MAP", _edit('            "26":\n              switch-priority: 3',
                                                              '            "26":\n              switch-priority: 0')),
    ("ECN off on the RoCE class", "QOS-ECN", _edit('            "3":\n              ecn: "enable"',
                                                   '            "3":\n              ecn: "disable"')),
    ("a smaller MTU on one port", "QOS-MTU", _edit("          mtu: 9214\n", "          mtu: 9000\n")),
    ("CNPs scheduled by weight", "QOS-CNP", _edit('              mode: "strict"', '              mode: "dwrr"\n'
                                                  '              bw-percent: 10')),
    ("an uplink administratively down", "BGP-SESSION-DOWN",
     _edit('        description: "a-spine-1:swp1"', '        description: "a-spine-1:swp1"', 0)),
    ("a neighbor's remote-as changed", "BGP-PEER-MISMATCH", _edit("remote-as: 4200001000", "remote-as: 4200001999")),
    ("a neighbor disabled", "BGP-SESSION-MISSING",
     _edit('              "10.11.0.0":\n                type: "numbered"',
           '              "10.11.0.0":\n                enable: "off"\n                type: "numbered"')),
    ("the leaf's server subnet not advertised", "ROUTE-MISSING", _edit('                  "10.12.0.0/26": {}\n', "")),
    ("an out-policy rule that denies", "ROUTE-MISSING",
     _edit('              "10":\n                action:\n                  "permit": {}\n                match:\n'
           '                  type: "ipv4"\n                  ip-prefix-list: "LOCAL-A"',
           '              "10":\n                action:\n                  "deny": {}\n                match:\n'
           '                  type: "ipv4"\n                  ip-prefix-list: "LOCAL-A"')),
    ("an out-policy rule's match typed ipv6 (FRR's `match ipv6 address prefix-list`: no IPv4 route matches)",
     "ROUTE-MISSING", _edit('                  type: "ipv4"\n                  ip-prefix-list: "LOCAL-A"',
                            '                  type: "ipv6"\n                  ip-prefix-list: "LOCAL-A"')),
    ("the administrator removed (a replace deletes the user)", "MGMT-USER",
     _edit('          "netops":\n            role: "system-admin"', '          "guest":\n            role: "nvue-monitor"')),
    ("a second administrator the plan does not name", "MGMT-USER",
     _edit('          "netops":\n', '          "backdoor":\n            role: "system-admin"\n'
           '            hashed-password: "${secret:netops-password}"\n          "netops":\n')),
    ("a blackhole in the management VRF over the management servers' subnet", "MGMT-SERVER-ROUTE",
     _edit('    vrf:\n', '    vrf:\n      "mgmt":\n        router:\n          static:\n            "192.0.2.0/24":\n'
           '              address-family: "ipv4-unicast"\n              via:\n                blackhole:\n'
           '                  type: "blackhole"\n')),
    ("an SSH key the plan does not name added to the administrator", "MGMT-USER",
     _edit('              authorized-key:\n', '              authorized-key:\n                "someone@laptop":\n'
           '                  type: "ssh-rsa"\n                  key: "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7xyz"\n')),
    ("the management port's address changed", "MGMT-ADDRESS", _edit('"198.51.100.33/24": {}', '"198.51.100.99/24": {}')),
    ("an NTP server dropped", "MGMT-SERVICES", _edit('            "192.0.2.10": {}\n', "")),
    ("an NTP server the plan does not name", "MGMT-SERVICES",
     _edit('            "192.0.2.11": {}\n', '            "192.0.2.11": {}\n            "203.0.113.9": {}\n')),
    ("the TACACS+ secret removed (requests in clear)", "MGMT-AAA", _edit('          secret: "${secret:tacacs-key}"\n', "")),
    ("the API off", "MGMT-ACCESS", _edit('        state: "enabled"\n    interface:', '        state: "disabled"\n    interface:')),
    ("a gateway port moved into the other plane's VRF", "ISO-FOREIGN-SUBNET",
     _edit('          vrf: "plane-a"', '          vrf: "plane-b"', f"{GATEWAY}/startup.yaml")),
    ("a key verify does not read", "PORTS-UNMODELLED", _edit('        type: "swp"\n', '        type: "swp"\n        breakout: "2x"\n')),
    ("a routing key verify does not read", "CONFIG-UNMODELLED",
     _edit('                type: "numbered"\n', '                type: "numbered"\n                capabilities:\n                  source-address: "lo"\n')),
    ("startup.yaml that does not parse", "PORTS-UNMODELLED", _edit("- set:\n", "- set: [\n")),
]


def _down_first_uplink(root: Path) -> None:
    path = root / YAML
    text = path.read_text()
    start = text.index('      "swp33":')
    head, tail = text[:start], text[start:]
    path.write_text(head + tail.replace("            up: {}", "            down: {}", 1))


NVUE_MUTATIONS[7] = ("an uplink administratively down", "BGP-SESSION-DOWN", _down_first_uplink)
NVUE_MUTATIONS += [
    ("no `system hostname` (a replaced configuration leaves Cumulus Linux's default name)", "MGMT-HOSTNAME",
     _edit('      hostname: "a-leaf-su1-r0"\n', "")),
    ("a second `- set:` operation takes an uplink down (NVUE applies the operations in order)", "BGP-SESSION-DOWN",
     lambda r: (r / YAML).write_text((r / YAML).read_text() + '- set:\n    interface:\n      "swp33":\n'
                                     '        link:\n          state:\n            down: {}\n')),
    ("an `- unset:` operation takes a neighbor away", "BGP-SESSION-MISSING",
     lambda r: (r / YAML).write_text((r / YAML).read_text() + '- unset:\n    vrf:\n      default:\n        router:\n'
                                     '          bgp:\n            neighbor:\n              "10.11.0.0": {}\n')),
    # NVUE 5.15's spelling of a switch (`state: disabled` for `enable: off`), read as it
    ("a neighbor disabled with NVUE 5.15's spelling", "BGP-SESSION-MISSING",
     _edit('              "10.11.0.0":\n                type: "numbered"',
           '              "10.11.0.0":\n                state: "disabled"\n                type: "numbered"')),
    ("a neighbor's IPv4 family disabled with NVUE 5.15's spelling", "BGP-SESSION-DOWN",
     _edit('                  ipv4-unicast:\n                    enable: "on"',
           '                  ipv4-unicast:\n                    state: "disabled"')),
    ("a TACACS+ server on another port than 49 (reported, not passed over)", "PORTS-UNMODELLED",
     _edit('              host: "192.0.2.49"\n', '              host: "192.0.2.49"\n              port: 50\n')),
    ("an as-set aggregate that hides the leaf's server block (its set holds the spines' AS)", "ROUTE-MISSING",
     _edit("                network:\n", "                aggregate-route:\n                  \"10.12.0.0/20\":\n"
           "                    summary-only: \"on\"\n                    as-set: \"on\"\n                network:\n")),
    ("a redistribution with a route-map (reported, not passed over)", "CONFIG-UNMODELLED",
     _edit("                network:\n", "                redistribute:\n                  connected:\n"
           "                    enable: \"on\"\n                    route-map: \"LOCAL-A-OUT\"\n                network:\n")),
    ("RED on beside ECN on the RoCE class (what it cannot mark is dropped)", "QOS-ECN",
     _edit('"3":\n              ecn: "enable"\n              red: "disable"', '"3":\n              ecn: "enable"\n              red: "enable"')),
    ("the server block's blackhole at distance 255 (never installed)", "ROUTE-MISSING",
     _edit('                blackhole:\n                  type: "blackhole"\n',
           '                blackhole:\n                  type: "blackhole"\n              distance: 255\n')),
    ("a static route's key verify does not read", "CONFIG-UNMODELLED",
     _edit('                blackhole:\n                  type: "blackhole"\n',
           '                blackhole:\n                  type: "blackhole"\n              tag: 7\n')),
    ("the switch's system name is another's", "MGMT-HOSTNAME",
     _edit('hostname: "a-leaf-su1-r0"', 'hostname: "a-leaf-su1-r9"')),
    ("syslog sent to the collector over TCP", "MGMT-SERVICES",
     _edit('            "192.0.2.20": {}', '            "192.0.2.20":\n              protocol: tcp')),
    ("syslog sent to the collector on another port", "MGMT-SERVICES",
     _edit('            "192.0.2.20": {}', '            "192.0.2.20":\n              port: 1514')),
    ("a server port forced to 100G on a 200G link", "LINK-CONFIG", _edit('          speed: "200G"', '          speed: "100G"')),
    ("RoCE's bandwidth share halved", "QOS-SCHEDULER", _edit("              bw-percent: 50", "              bw-percent: 25")),
    ("PFC headroom sized for a shorter cable", "QOS-PFC-HEADROOM", _edit("          cable-length: 10", "          cable-length: 2")),
    # each of these was read as "not said" before: a silent pass
    ("RoCE in lossy mode (ECN only: no pause frames)", "QOS-PFC", _edit('        mode: "lossless"', '        mode: "lossy"')),
    ("a misspelt key under the PFC profile", "PORTS-UNMODELLED", _edit("          cable-length: 10", "          cable-lenght: 2")),
    ("a headroom that is not a number", "PORTS-UNMODELLED", _edit("          cable-length: 10", '          cable-length: "10m"')),
    ("a share that is not a number", "PORTS-UNMODELLED", _edit("              bw-percent: 50", '              bw-percent: "50%"')),
    ("a second PFC profile (applies to the ports that name it)", "PORTS-UNMODELLED",
     _edit("      pfc:\n", '      pfc:\n        lossy-uplinks:\n          rx: "disable"\n')),
    ("an unknown scheduler mode", "PORTS-UNMODELLED", _edit('              mode: "strict"', '              mode: "ets"')),
    ("logins through TACACS+ only (no local in the order)", "MGMT-AAA",
     _edit("        tacacs:\n", '        authentication-order:\n          "5": "tacacs"\n        tacacs:\n')),
    ("a user's hash written into the file (a secret in git)", "MGMT-SECRET",
     _edit('hashed-password: "${secret:netops-password}"', 'hashed-password: "$6$salt$hash"')),
    ("the TACACS+ secret written into the file", "MGMT-SECRET",
     _edit('secret: "${secret:tacacs-key}"', 'secret: "hunter22"')),
    ("TACACS+ turned off", "MGMT-AAA", _edit('        tacacs:\n          enable: "on"', '        tacacs:\n          enable: "off"')),
    ("BGP switched off for the whole switch (router bgp enable off)", "ROUTE-MISSING",
     _edit('      bgp:\n        enable: "on"\n        autonomous-system', '      bgp:\n        enable: "off"\n        autonomous-system')),
    ("the VRF's IPv4 unicast off (its neighbors' own enable cannot carry it)", "ROUTE-MISSING",
     _edit('              ipv4-unicast:\n                enable: "on"\n                multipaths',
           '              ipv4-unicast:\n                enable: "off"\n                multipaths')),
    ("BGP's admin distance 255 (its routes are never installed)", "ROUTE-FIB-OVERRIDE",
     _edit('              ipv4-unicast:\n                enable: "on"\n                multipaths',
           '              ipv4-unicast:\n                enable: "on"\n                admin-distance:\n'
           '                  external: 255\n                multipaths')),
    ("an admin distance that is not a number", "CONFIG-UNMODELLED",
     _edit('              ipv4-unicast:\n                enable: "on"\n                multipaths',
           '              ipv4-unicast:\n                enable: "on"\n                admin-distance:\n'
           '                  external: "low"\n                multipaths')),
    ("a neighbor's inbound prefix-list nobody defines (it denies everything)", "ROUTE-UNDEFINED-REF",
     _edit('                    policy:\n                      inbound:\n',
           '                    policy:\n                      inbound:\n                        prefix-list: "NOSUCH"\n')),
    ("a global BGP key verify does not read", "CONFIG-UNMODELLED",
     _edit('        router-id: "10.10.0.32"\n      policy', '        router-id: "10.10.0.32"\n        path-selection: {}\n      policy')),
    ("an uplink made a bond member (its own address is not used)", "LINK-PORT-DOWN",
     _edit('      "swp1":\n        type: "swp"', '      "bond1":\n        type: "bond"\n        bond:\n          member:\n'
           '            "swp33": {}\n      "swp1":\n        type: "swp"')),
    ("a server port made a bridge domain's member (the ASIC routes nothing on it)", "LINK-PORT-DOWN",
     _edit('        description: "gpu001:ens1f0np0"\n',
           '        description: "gpu001:ens1f0np0"\n        bridge:\n          domain:\n            br_default: {}\n')),
    ("an uplink in a routed bond (not modelled, and said so)", "PORTS-UNMODELLED",
     _edit('      "swp1":\n        type: "swp"', '      "bond1":\n        type: "bond"\n        bond:\n          member:\n'
           '            "swp34": {}\n        ip:\n          address:\n            "10.11.9.1/31": {}\n'
           '      "swp1":\n        type: "swp"')),
    ("a server port broken out in two (swp1s0 and swp1s1 replace the cabled port)", "LINK-PORT-DOWN",
     _edit('        description: "gpu001:ens1f0np0"\n        link:\n',
           '        description: "gpu001:ens1f0np0"\n        link:\n          breakout:\n            2x: {}\n')),
    ("a server port's breakout disabled", "LINK-PORT-DOWN",
     _edit('        description: "gpu001:ens1f0np0"\n        link:\n',
           '        description: "gpu001:ens1f0np0"\n        link:\n          breakout: "disabled"\n')),
    ("a server port down", "LINK-PORT-DOWN",
     _edit('        description: "gpu001:ens1f0np0"\n        link:\n          state:\n            up: {}',
           '        description: "gpu001:ens1f0np0"\n        link:\n          state:\n            down: {}')),
    ("the gateway's plane-A VRF imports plane B's routes", "ISO-VRF-LEAK",
     _edit('            autonomous-system: 4200000100\n            router-id: "10.10.0.92"\n            address-family:\n'
           '              ipv4-unicast:\n                enable: "on"\n',
           '            autonomous-system: 4200000100\n            router-id: "10.10.0.92"\n            address-family:\n'
           '              ipv4-unicast:\n                enable: "on"\n                route-import:\n'
           '                  from-vrf:\n                    list:\n                      "plane-b": {}\n',
           f"{GATEWAY}/startup.yaml")),
    ("the plane-A VRF imports plane B's routes through a route-map named but not defined (imports nothing)",
     "ROUTE-UNDEFINED-REF",
     _edit('            autonomous-system: 4200000100\n            router-id: "10.10.0.92"\n            address-family:\n'
           '              ipv4-unicast:\n                enable: "on"\n',
           '            autonomous-system: 4200000100\n            router-id: "10.10.0.92"\n            address-family:\n'
           '              ipv4-unicast:\n                enable: "on"\n                route-import:\n'
           '                  from-vrf:\n                    list:\n                      "plane-b": {}\n'
           '                    route-map: "NOSUCH"\n',
           f"{GATEWAY}/startup.yaml")),
    ("a plane prefix-list rule whose min-prefix-len is below its length (bgpd refuses the line NVUE writes)",
     "BGP-CONFIG-REFUSED", _edit('"10.12.0.0/20": {max-prefix-len: 32}', '"10.12.0.0/20": {min-prefix-len: 16, max-prefix-len: 32}')),
    ("a plane prefix-list rule numbered 0", "BGP-CONFIG-REFUSED",
     _edit('              "20":\n                action: "permit"\n                match:\n                  "10.12.0.0/20"',
           '              "0":\n                action: "permit"\n                match:\n                  "10.12.0.0/20"')),
    ("a neighbor address-family key verify does not read", "CONFIG-UNMODELLED",
     _edit('                  ipv4-unicast:\n                    enable: "on"\n                    policy:',
           '                  ipv4-unicast:\n                    enable: "on"\n                    route-reflector-client: "on"\n'
           '                    policy:')),
    # the session and family keys of NVUE's BGP reference, read as the FRR lines NVUE writes
    ("a neighbor shut down (`shutdown on`)", "ROUTE-MISSING", _edit(_SPINE_1, _SPINE_1 + '                shutdown: "on"\n')),
    ("a TCP MD5 password on the leaf's end only", "BGP-SESSION-DOWN",
     _edit(_SPINE_1, _SPINE_1 + '                password: "s3cret"\n')),
    ("a TCP MD5 password written into startup.yaml (a key in git)", "BGP-SECRET",
     _edit(_SPINE_1, _SPINE_1 + '                password: "s3cret"\n')),
    ("GTSM on the leaf's end only", "BGP-SESSION-DOWN",
     _edit(_SPINE_1, _SPINE_1 + '                ttl-security:\n                  enable: "on"\n                  hops: 1\n')),
    ("a local-as the spine does not expect", "BGP-SESSION-DOWN",
     _edit(_SPINE_1, _SPINE_1 + '                local-as:\n                  enable: "on"\n                  asn: 4200001199\n')),
    ("the leaf's end offering hold time 0 (no keepalives on the session)", "BGP-HOLD-TIME",
     _edit(_SPINE_1, _SPINE_1 + '                timers:\n                  hold: 0\n')),
    ("a receive limit below what the spine sends", "BGP-SESSION-DOWN",
     _edit(_SPINE_1 + _FAMILY, _SPINE_1 + _FAMILY + '                    prefix-limits:\n                      inbound:\n'
           '                        maximum: 5\n')),
    ("a receive limit below what the spine sends, warning-only off", "BGP-SESSION-DOWN",
     _edit(_SPINE_1 + _FAMILY, _SPINE_1 + _FAMILY + '                    prefix-limits:\n                      inbound:\n'
           '                        maximum: 5\n                        warning-only: "off"\n')),
    ("a neighbor weight: one spine's paths win", "ROUTE-ECMP-WIDTH",
     _edit(_SPINE_1 + _FAMILY, _SPINE_1 + _FAMILY + '                    weight: 100\n')),
    ("a multihop TTL (read for GTSM, otherwise not judged)", "CONFIG-UNMODELLED",
     _edit(_SPINE_1, _SPINE_1 + '                multihop-ttl: 2\n')),
    ("AS-path attributes left unchanged", "CONFIG-UNMODELLED",
     _edit(_SPINE_1 + _FAMILY, _SPINE_1 + _FAMILY + '                    attribute-mod:\n                      aspath: "off"\n')),
    ("a session switch that is neither on nor off", "CONFIG-UNMODELLED",
     _edit(_SPINE_1, _SPINE_1 + '                shutdown: "yes"\n')),
    ("an uplink that routes nothing it receives (ip ipv4 forward off)", "LINK-NO-FORWARDING",
     _edit('            up: {}\n          mtu: 9214\n          speed: "800G"\n        ip:\n',
           '            up: {}\n          mtu: 9214\n          speed: "800G"\n        ip:\n          ipv4:\n'
           '            forward: "off"\n')),
    ("AS-path lengths compared in a way NVUE does not have (compare-lengths neither on nor off)",
     "CONFIG-UNMODELLED", _edit('            router-id: "10.10.0.32"\n', '            router-id: "10.10.0.32"\n'
                                '            path-selection:\n              aspath:\n                compare-lengths: "yes"\n')),
    ("a key under path-selection verify does not read", "CONFIG-UNMODELLED",
     _edit('            router-id: "10.10.0.32"\n', '            router-id: "10.10.0.32"\n'
           '            path-selection:\n              multipath:\n                bandwidth: "ignore"\n')),
    ("a prefix-list rule key verify does not read", "CONFIG-UNMODELLED",
     _edit('                action: "permit"\n                match:\n', '                action: "permit"\n'
           '                remark: "x"\n                match:\n')),
]


_STATIC = "          static:\n"


def _static(prefix: str, *vias: tuple[str, str]) -> Callable[[Path], None]:
    """A static route added to the leaf's default VRF, one `via` per (hop, type)."""
    body = "".join(f'                "{hop}":\n                  type: "{kind}"\n' for hop, kind in vias)
    return _edit(_STATIC, f'{_STATIC}            "{prefix}":\n              address-family: "ipv4-unicast"\n'
                          f"              via:\n{body}")


# static routes with several vias (ECMP, as FRR's `ip route` lines of one prefix) and discards
NVUE_MUTATIONS += [
    ("plane B's prefix over two spines (a static with two vias)", "ISO-ROUTE-LEAK",
     _static("10.22.0.0/20", ("10.11.0.0", "ipv4-address"), ("10.11.0.2", "ipv4-address"))),
    ("another leaf's prefix to a reject route", "ROUTE-FIB-OVERRIDE", _static("10.12.0.64/26", ("reject", "reject"))),
    ("another leaf's prefix over two spines, not BGP", "ROUTE-FIB-OVERRIDE",
     _static("10.12.0.64/26", ("10.11.0.0", "ipv4-address"), ("10.11.0.2", "ipv4-address"))),
]


_RULE = """          "SPINE1-IN":
            rule:
              "10":
                action:
                  "permit": {}
                match:
                  type: "ipv4"
                  ip-prefix-list: "PLANE-A"
                set:
"""
_INBOUND = '                      inbound:\n                        route-map: "PLANE-A-IN"\n'


def _spine1_sets(body: str) -> Callable[[Path], None]:
    """The leaf's inbound route-map toward a-spine-1 replaced by one that also sets ``body``."""
    def mutate(root: Path) -> None:
        path = root / YAML
        text = path.read_text()
        assert "        route-map:\n" in text and _INBOUND in text
        text = text.replace("        route-map:\n", "        route-map:\n" + _RULE + body, 1)
        path.write_text(text.replace(_INBOUND, _INBOUND.replace("PLANE-A-IN", "SPINE1-IN"), 1))
    return mutate


# a route-map rule's `set` keys, read as FRR's `set` lines NVUE writes (one spine's paths changed)
NVUE_MUTATIONS += [
    ("weight on one spine's paths", "ROUTE-ECMP-WIDTH", _spine1_sets("                  weight: 100\n")),
    ("local preference on one spine's paths", "ROUTE-ECMP-WIDTH",
     _spine1_sets("                  local-preference: 200\n")),
    ("ORIGIN incomplete on one spine's paths", "ROUTE-ECMP-WIDTH",
     _spine1_sets('                  origin: "incomplete"\n')),
    ("a MED on one spine's paths (same neighbor AS: compared)", "ROUTE-ECMP-WIDTH",
     _spine1_sets("                  metric: 50\n")),
    ("a next hop the leaf cannot reach", "ROUTE-MISSING", _spine1_sets('                  ip-nexthop: "192.0.2.1"\n')),
]


def _as_path_deny(regex: str, listed: str = "SPINES") -> Callable[[Path], None]:
    """The leaf's inbound map toward a-spine-1 led by a rule denying the paths an as-path-list of
    one rule (`aspath-exp REGEX`) permits."""
    def mutate(root: Path) -> None:
        path = root / YAML
        text = path.read_text()
        lists = (f'        as-path-list:\n          "SPINES":\n            rule:\n              "10":\n'
                 f'                action: "permit"\n                aspath-exp: "{regex}"\n')
        deny = (f'          "SPINE1-IN":\n            rule:\n              "5":\n                action:\n'
                f'                  "deny": {{}}\n                match:\n                  as-path-list: "{listed}"\n')
        text = text.replace("        prefix-list:\n", lists + "        prefix-list:\n", 1)
        text = text.replace("        route-map:\n", "        route-map:\n" + deny + _RULE.split("\n", 2)[2]
                            + "                  tag: 1\n", 1)
        path.write_text(text.replace(_INBOUND, _INBOUND.replace("PLANE-A-IN", "SPINE1-IN"), 1))
    return mutate


NVUE_MUTATIONS += [
    ("paths through the spines' AS denied by an as-path-list", "ROUTE-ECMP-WIDTH", _as_path_deny("^4200001000_")),
]


def test_an_as_path_list_is_read_as_frrs(nvue_variant: Path, tmp_path: Path) -> None:
    """`router policy as-path-list` rules are FRR's `bgp as-path access-list` lines: a list that permits
    no path of the fabric makes its deny rule match nothing (before: the rule's match was not read,
    so it denied every path from the spine); an undefined list is an undefined reference."""
    root = tmp_path / "none"
    shutil.copytree(nvue_variant, root)
    _as_path_deny("^65999_")(root)
    dev = parse_text("x", (root / YAML).read_text())
    assert dev.as_path_lists == {"SPINES": [(10, "permit", "^65999_")]}
    said = {r.check: [f.message for f in r.findings] for r in run_checks(load_snapshot(root)) if r.findings}
    assert set(said) <= {"CONFIG-UNMODELLED"}, said  # (the `tag` set: reported, not judged)
    root = tmp_path / "undefined"
    shutil.copytree(nvue_variant, root)
    _as_path_deny("^65999_", "NOPE")(root)
    said = {r.check: [f.message for f in r.findings] for r in run_checks(load_snapshot(root)) if r.findings}
    assert any("as-path access-list NOPE" in m for m in said["ROUTE-UNDEFINED-REF"]), said


@pytest.mark.parametrize("body", ["                  local-preference: 100\n",
                                  '                  community:\n                    "no-export": {}\n'])
def test_route_map_sets_that_change_no_path_pass(nvue_variant: Path, tmp_path: Path, body: str) -> None:
    """The default local preference, or no-export on routes the leaf never sends on: no finding."""
    root = tmp_path / "b"
    shutil.copytree(nvue_variant, root)
    _spine1_sets(body)(root)
    said = {r.check: [f.message for f in r.findings] for r in run_checks(load_snapshot(root)) if r.findings}
    assert said == {}, said


def test_a_static_via_the_model_cannot_read_is_said(nvue_variant: Path, tmp_path: Path) -> None:
    """A via that is no address, port name or discard (before: taken for a gateway that never
    resolves, the route silently dropped), or a discard beside gateways, is reported at its line;
    two vias of one route give one finding, not one per via."""
    cases: list[tuple[tuple[str, str], ...]] = [(("1.2.3", "ipv4-address"),),
                                                 (("blackhole", "blackhole"), ("10.11.0.0", "ipv4-address"))]
    for i, vias in enumerate(cases):
        root = tmp_path / str(i)
        shutil.copytree(nvue_variant, root)
        _static("10.22.0.0/20", *vias)(root)
        dev = parse_text("x", (root / YAML).read_text())
        assert [what for _, what in dev.unmodelled if "static 10.22.0.0/20 via" in what], vias
        assert not [r for r in dev.static_routes if r.prefix == "10.22.0.0/20"]
    root = tmp_path / "ecmp"
    shutil.copytree(nvue_variant, root)
    _static("10.12.0.64/26", ("10.11.0.0", "ipv4-address"), ("10.11.0.2", "ipv4-address"))(root)
    said = [f.message for r in run_checks(load_snapshot(root)) if r.check == "ROUTE-FIB-OVERRIDE" for f in r.findings]
    assert len(said) == 1 and "its static next hops 10.11.0.0, 10.11.0.2" in said[0], said


def test_nvue_qos_keys_are_all_checked(nvue_variant: Path) -> None:
    """Every key under the rendered qos tree is one the model knows: the clean file reports nothing,
    and a misspelt key at each level of it is reported with its own line."""
    text = (nvue_variant / LEAF / "startup.yaml").read_text()
    assert not parse_text("x", text).base_unmodelled
    lines = text.splitlines()
    start = lines.index("    qos:")
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("      "))
    for i in range(start + 1, end):
        indent = len(lines[i]) - len(lines[i].lstrip())
        edited = lines[:i] + [" " * indent + "zz-unknown: 1"] + lines[i:]
        dev = parse_text("x", "\n".join(edited) + "\n")
        assert any(line == i + 1 and "zz-unknown" in what for _, line, what in dev.base_unmodelled), \
            (lines[i], dev.base_unmodelled)


@pytest.mark.parametrize("desc,check_id,mutate", NVUE_MUTATIONS, ids=[m[0] for m in NVUE_MUTATIONS])
def test_nvue_mutation_is_caught(nvue_variant: Path, tmp_path: Path, desc: str, check_id: str,
                                 mutate: Callable[[Path], None]) -> None:
    broken = tmp_path / "build"
    shutil.copytree(nvue_variant, broken)
    mutate(broken)
    results = {r.check: r for r in run_checks(load_snapshot(broken))}
    fired = results[check_id].findings
    assert fired, f"{desc}: {check_id} did not fire; fired: " + \
        str({c: [f.message for f in r.findings][:2] for c, r in results.items() if r.findings})
    assert all(f.message and f.why for f in fired)


def test_a_route_import_through_a_deny_all_route_map_leaks_nothing(nvue_variant: Path, tmp_path: Path) -> None:
    """`route-import from-vrf route-map NAME` (FRR's `import vrf route-map`): what crosses between
    the gateway's plane VRFs is what the map lets through; a map that denies everything keeps the
    planes apart (no ISO finding), one that permits everything does not."""
    def imported(action: str) -> set[str]:
        build = tmp_path / action
        shutil.copytree(nvue_variant, build)
        path = build / GATEWAY / "startup.yaml"
        text = path.read_text()
        anchor = '            router-id: "10.10.0.92"\n            address-family:\n              ipv4-unicast:\n' \
                 '                enable: "on"\n'
        assert anchor in text and "        route-map:\n" in text
        text = text.replace(anchor, anchor + '                route-import:\n                  from-vrf:\n'
                            '                    list:\n                      "plane-b": {}\n'
                            '                    route-map: "ONLY"\n', 1)
        text = text.replace("        route-map:\n", f'        route-map:\n          "ONLY":\n            rule:\n'
                            f'              "10":\n                action:\n                  "{action}": {{}}\n', 1)
        path.write_text(text)
        return {r.check for r in run_checks(load_snapshot(build)) for f in r.findings if f.severity == Severity.ERROR}
    assert imported("deny") == set()
    assert {"ISO-ROUTE-LEAK"} <= imported("permit")


def test_hostile_files_are_findings_never_tracebacks() -> None:
    for text in ("", "[]", "- set: 3", "- set:\n    interface: [1, 2]", "- unset: {}", "{a: b}", "- set:\n" + "  " * 80 + "x: 1",
                 "- set:\n    vrf:\n      default:\n        router:\n          bgp:\n            neighbor:\n              x: 3"):
        dev = parse_text("x", text)
        assert dev.base_unmodelled or dev.unmodelled or not dev.interfaces


# -- the deploy driver against the simulator -------------------------------------------------------



def _driver(nvue_variant: Path, peers: bool = True):  # type: ignore[no-untyped-def]
    clock = FakeClock()
    folder = nvue_variant / LEAF
    dev = parse_text("x", (folder / "startup.yaml").read_text())
    real = {a: n.remote_asn for a, n in dev.bgp[None].neighbors.items() if n.remote_asn} if peers else {}
    sim = simulator_for(folder, "a-leaf-su1-r0", real, clock)
    host = SimpleNamespace(name="a-leaf-su1-r0", data={"device_dir": str(folder), "paths": {}})
    return NvueDriver(host, sim), sim, clock


def _changed(driver: NvueDriver) -> dict[str, str]:
    files = driver.intended()
    files["startup.yaml"] = files["startup.yaml"].replace("ebgp: 64", "ebgp: 32")
    return files


def test_apply_with_confirm_then_confirm_saves(nvue_variant: Path) -> None:
    driver, sim, clock = _driver(nvue_variant)
    assert driver.health() == []
    diff = driver.load(_changed(driver))
    assert "ebgp: 32" in diff and "ebgp: 32" not in sim.applied
    driver.commit(revert_after=300)
    assert "ebgp: 32" in sim.applied and "ebgp: 32" not in sim.saved
    driver.confirm()
    clock.now += 3600
    sim.fire_timer()
    assert sim.rollbacks == 0 and "ebgp: 32" in sim.applied and "ebgp: 32" in sim.saved
    assert "$6$salt$hash" in sim.applied  # the secret went to the switch, never into the rendered file
    assert "$6$salt$hash" not in (nvue_variant / YAML).read_text()


def test_an_unconfirmed_apply_rolls_back_by_itself(nvue_variant: Path) -> None:
    driver, sim, clock = _driver(nvue_variant)
    before = sim.applied
    driver.load(_changed(driver))
    driver.commit(revert_after=120)
    clock.now += 121
    sim.fire_timer()
    assert sim.rollbacks == 1 and sim.applied == before
    with pytest.raises(PushRejected, match="already rolled"):
        driver.confirm()


def test_discard_rolls_back_now_and_drops_the_revision(nvue_variant: Path) -> None:
    driver, sim, _ = _driver(nvue_variant)
    before = sim.applied
    driver.load(_changed(driver))
    driver.commit(revert_after=600)
    driver.discard()
    assert sim.applied == before and sim.confirm_deadline is None and sim.pending is None


@pytest.mark.parametrize("what,old,new", [
    ("an MTU NVUE refuses", "mtu: 9214", "mtu: 99999"),
    ("an unknown top-level object", "    qos:\n", "    evpn: {}\n    qos:\n"),
    ("not YAML", "- set:\n", "- set: [\n"),
])
def test_a_refused_revision_changes_nothing(nvue_variant: Path, what: str, old: str, new: str) -> None:
    driver, sim, _ = _driver(nvue_variant)
    before = sim.applied
    files = driver.intended()
    files["startup.yaml"] = files["startup.yaml"].replace(old, new, 1)
    with pytest.raises(PushRejected, match="refused"):
        driver.load(files)
    assert sim.applied == before and sim.pending is None


def test_health_names_sessions_that_are_not_up(nvue_variant: Path) -> None:
    driver, _, _ = _driver(nvue_variant, peers=False)
    assert len(driver.health()) == 4


def test_firmware_fetch_install_reboot(nvue_variant: Path) -> None:
    driver, _, _ = _driver(nvue_variant)
    driver.host.data.update(platform="cumulus-nvue",
                            image_urls={"cumulus-nvue": "http://images/cumulus-linux-{version}-mlx-amd64.bin"})
    assert driver.running_version() == "5.9.2"
    driver.install_image("5.11.0")
    driver.reboot()
    assert driver.running_version() == "5.11.0"



def test_the_batfish_snapshot_has_the_linux_files_equivalent(nvue_variant: Path, tmp_path: Path) -> None:
    """Batfish reads no NVUE YAML: the export is the twin substitute in Batfish's Cumulus format."""
    from dualrail_net.verify.batfish.snapshot import export_snapshot
    counts = export_snapshot(nvue_variant, tmp_path / "snap")
    assert counts["cumulus-nvue"] == 17
    text = (tmp_path / "snap/configs/a-leaf-su1-r0").read_text()
    assert "router bgp 4200001100" in text and "iface swp1" in text


def test_allow_my_asn_is_allowas_in(nvue_variant: Path) -> None:
    text = (nvue_variant / LEAF / "startup.yaml").read_text()
    old = '                  ipv4-unicast:\n                    enable: "on"\n                    policy:'
    assert old in text
    for extra, count in (("occurrences: 2\n", 2), ("origin: \"on\"\n", 1), ("", 3)):
        edited = text.replace(old, '                  ipv4-unicast:\n                    enable: "on"\n'
                              '                    aspath:\n                      allow-my-asn:\n'
                              '                        enable: "on"\n' + ("                        " + extra if extra else "")
                              + '                    policy:', 1)
        dev = parse_text("x", edited)
        assert not dev.unmodelled, dev.unmodelled
        assert next(iter(dev.bgp[None].neighbors.values())).allowas_in == count


NVUE_VALID = [
    ("`shutdown off`", _SPINE_1 + '                shutdown: "off"\n'),
    ("passive on one end (the spine opens the session)", _SPINE_1 + '                passive-mode: "on"\n'),
    ("the leaf opens from its loopback (the spine's connection brings the session up)",
     _SPINE_1 + '                update-source: "lo"\n'),
    ("timers, BFD and graceful restart",
     _SPINE_1 + '                timers:\n                  keepalive: 1\n                  hold: 3\n'
     '                bfd:\n                  enable: "on"\n                graceful-restart:\n                  mode: "helper-only"\n'),
    ("next hop self (over eBGP the sender's address anyway)",
     _SPINE_1 + _FAMILY + '                    nexthop-setting: "self"\n'),
    ("every path sent to the spine (one next hop per path over eBGP)",
     _SPINE_1 + _FAMILY + '                    add-path-tx: "all-paths"\n'),
    ("no communities to the spine", _SPINE_1 + _FAMILY + '                    community-advertise:\n                      regular: "off"\n'),
    ("a receive limit well above what the spine sends",
     _SPINE_1 + _FAMILY + '                    prefix-limits:\n                      inbound:\n                        maximum: 12000\n'
     '                        warning-threshold: 80\n'),
    ("a receive limit below what the spine sends, warning only (logged, the session stays up)",
     _SPINE_1 + _FAMILY + '                    prefix-limits:\n                      inbound:\n                        maximum: 5\n'
     '                        warning-only: "on"\n'),
    ("a default route offered to a spine (its inbound policy takes only the plane's prefixes), soft reconfiguration",
     _SPINE_1 + _FAMILY + '                    default-route-origination:\n                      enable: "on"\n'
     '                    soft-reconfiguration: "on"\n'),
    ("best-path options that change no installed route here (MED always compared, a missing MED as the worst, "
     "router IDs compared, multipath over any AS)",
     '            router-id: "10.10.0.32"\n            path-selection:\n              routerid-compare: "on"\n'
     '              med:\n                compare-always: "on"\n                missing-as-max: "on"\n'
     '                compare-deterministic: "on"\n              aspath:\n                compare-lengths: "on"\n'
     '                compare-confed: "on"\n              multipath:\n                aspath-ignore: "on"\n'),
    ("as-override toward a spine (the leaf sends only its own prefixes)",
     _SPINE_1 + _FAMILY + '                    aspath:\n                      replace-peer-as: "on"\n'),
]


def test_nvue_operations_apply_in_order(nvue_variant: Path, tmp_path: Path) -> None:
    """`- unset:` then `- set:` of the same key leaves the plan's value (and its line the later
    one's); an `unset` of what is not there changes nothing; another operation is reported."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    path = edited / YAML
    text = path.read_text()
    extra = ('- unset:\n    interface:\n      "swp33":\n        link:\n          mtu: {}\n      "swp99": {}\n'
             '- set:\n    interface:\n      "swp33":\n        link:\n          mtu: 9214\n')
    path.write_text(text + extra)
    assert [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
    dev = parse_text("x", text + extra + "- patch: {}\n")
    assert dev.interfaces["swp33"].mtu == 9214
    assert [what for _, _, what in dev.base_unmodelled] == ["operation patch: not modelled (only `set` and `unset`)"]


def test_ports_written_with_a_yaml_merge_key_read_as_written_out(nvue_variant: Path, tmp_path: Path) -> None:
    """NVUE's loader merges `<<` keys: the server ports' link settings written once as an anchor and
    merged into each port (one port overriding the MTU) read as the file with them written out."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    path = edited / YAML
    text = path.read_text()
    block = '        link:\n          state:\n            up: {}\n          mtu: 9214\n          speed: "200G"\n'
    assert text.count(block) > 4
    first = text.index(block)
    anchored = text[:first] + block.replace("link:\n", "link: &server-link\n", 1) + text[first + len(block):]
    merged = anchored.replace(block, "        link:\n          <<: *server-link\n")
    path.write_text(merged)
    assert [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
    assert parse_text("x", merged).interfaces == parse_text("x", text).interfaces
    lowered = merged.replace("          <<: *server-link\n", "          <<: *server-link\n          mtu: 1500\n", 1)
    assert sorted(name for name, i in parse_text("x", lowered).interfaces.items() if i.mtu == 1500) == ["swp2"]


def test_a_port_kept_whole_by_its_breakout_is_a_valid_edit(nvue_variant: Path, tmp_path: Path) -> None:
    """`breakout 1x` keeps the port as it is; a mode the reader does not know is said, not judged."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    _edit('        description: "gpu001:ens1f0np0"\n        link:\n',
          '        description: "gpu001:ens1f0np0"\n        link:\n          breakout:\n            1x: {}\n')(edited)
    assert [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
    _edit('            1x: {}\n', '            half: {}\n')(edited)
    said = [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert len(said) == 1 and "link breakout" in said[0] and "not read" in said[0]


def test_a_port_typed_as_another_kind_is_said(nvue_variant: Path, tmp_path: Path) -> None:
    """NVUE tells a port's kind by its name: swp7 typed `loopback`, `bond` or anything else was
    read without a word (a loopback typed so became one in the model); now PORTS-UNMODELLED says
    so at the line. Left out, the type is NVUE's own (no finding)."""
    for declared in ("loopback", "bond", "svi", "frob"):
        edited = tmp_path / declared
        shutil.copytree(nvue_variant, edited)
        _edit('      "swp7":\n        type: "swp"\n', f'      "swp7":\n        type: "{declared}"\n')(edited)
        said = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
        assert ("PORTS-UNMODELLED", f"plane-A/a-leaf-su1-r0/startup.yaml:98: not modelled: interface swp7 type "
                f"{declared}: NVUE types it by name (swp); apply may refuse the file") in said, said
    edited = tmp_path / "untyped"
    shutil.copytree(nvue_variant, edited)
    _edit('      "swp7":\n        type: "swp"\n', '      "swp7":\n')(edited)
    assert [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def test_a_link_state_or_neighbor_type_nvue_does_not_know_is_said(nvue_variant: Path, tmp_path: Path) -> None:
    """`link: state:` takes up or down, a neighbor's `type` numbered or unnumbered, an IPv4 static
    route's `address-family` ipv4-unicast: another word (a hand edit's slip) was passed over in
    silence; now each is said at its line."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    _edit("          state:\n            up: {}\n", "          state:\n            ip: {}\n")(edited)
    _edit('type: "numbered"', 'type: "b-leaf"')(edited)
    _edit("          state:\n            up: {}\n", "          state: none\n")(edited)
    _edit('              address-family: "ipv4-unicast"\n', '              address-family: "LOCAL-A-OUT"\n')(edited)
    said = sorted((f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings)
    assert said == [("CONFIG-UNMODELLED", "plane-A/a-leaf-su1-r0/startup.yaml:314: not modelled: static 10.12.0.0/26 "
                     "address-family LOCAL-A-OUT: not ipv4-unicast"),
                    ("CONFIG-UNMODELLED", "plane-A/a-leaf-su1-r0/startup.yaml:332: not modelled: neighbor 10.11.0.0 "
                     "type b-leaf: neither numbered nor unnumbered; read as numbered"),
                    ("PORTS-UNMODELLED", "plane-A/a-leaf-su1-r0/startup.yaml:36: not modelled: interface swp1 link "
                     "state ip: neither up nor down"),
                    ("PORTS-UNMODELLED", "plane-A/a-leaf-su1-r0/startup.yaml:46: not modelled: interface swp2 link "
                     "state none: not up or down")]


def test_a_value_where_nvue_takes_an_object_is_said(nvue_variant: Path, tmp_path: Path) -> None:
    """`multipaths:` followed by a value instead of its `ebgp:` key (and a port's `ip:` by one):
    not what NVUE's schema takes there, and the reader saw no key under it and went on in silence."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    _edit("                multipaths:\n                  ebgp: 64\n",
          "                multipaths:\n                  ip-prefix-list 64\n")(edited)
    _edit('        ip:\n          address:\n            "10.12.0.12/31": {}\n', '        ip: "10.12.0.12/31"\n')(edited)
    said = sorted((f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings
                  if f.check.endswith("UNMODELLED"))
    assert said == [
        ("CONFIG-UNMODELLED", "plane-A/a-leaf-su1-r0/startup.yaml:324: not modelled: multipaths: ip-prefix-list 64 "
         "where NVUE takes an object (its keys under ipv4-unicast)"),
        ("PORTS-UNMODELLED", "plane-A/a-leaf-su1-r0/startup.yaml:105: not modelled: ip: 10.12.0.12/31 where NVUE "
         "takes an object (its keys under swp7)")], said


@pytest.mark.parametrize("desc,new", NVUE_VALID, ids=[v[0] for v in NVUE_VALID])
def test_nvue_valid_session_keys_pass(nvue_variant: Path, tmp_path: Path, desc: str, new: str) -> None:
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    old = new.split("\n", 1)[0] + "\n" + (_FAMILY if _FAMILY in new else "")
    _edit(old, new)(edited)
    assert [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def test_nvue_update_source_is_read_and_judged_with_the_other_end(nvue_variant: Path, tmp_path: Path) -> None:
    """`update-source lo` on the leaf and `passive-mode on` on the same session's other end (the EOS
    spine): neither end can open it (BGP-SESSION-DOWN); an address that is no port is reported."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    _edit(_SPINE_1, _SPINE_1 + '                update-source: "lo"\n')(edited)
    spine = edited / "plane-A/a-spine-1/running-config"
    text = spine.read_text()
    assert "   neighbor 10.11.0.1 description" in text
    spine.write_text(text.replace("   neighbor 10.11.0.1 description", "   neighbor 10.11.0.1 passive\n"
                                                                        "   neighbor 10.11.0.1 description", 1))
    down = [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings if f.check == "BGP-SESSION-DOWN"]
    assert any("opens from 10.10.0.32 (update-source lo)" in m and "neither end can open" in m for m in down), down
    bad = parse_text("x", (nvue_variant / LEAF / "startup.yaml").read_text().replace(
        _SPINE_1, _SPINE_1 + '                update-source: "1.2.3"\n', 1))
    assert any("update-source 1.2.3: not a port" in what for _, what in bad.unmodelled), bad.unmodelled


def test_nvue_global_graceful_shutdown_drains_the_device(nvue_variant: Path) -> None:
    """`router bgp graceful-shutdown on` (NVUE's global switch) is FRR's `bgp graceful-shutdown` on
    every instance of the device, with the key's line; `off` is none."""
    text = (nvue_variant / LEAF / "startup.yaml").read_text()
    old = '        router-id: "10.10.0.32"\n      policy:'
    assert old in text
    for value, drained in (("on", True), ("off", False)):
        edited = text.replace(old, f'        router-id: "10.10.0.32"\n        graceful-shutdown: "{value}"\n      policy:')
        line = 1 + edited.split("        graceful-shutdown:")[0].count("\n")
        dev = parse_text("x", edited)
        assert not dev.unmodelled
        assert [inst.graceful_shutdown_line for inst in dev.bgp.values()] == [line if drained else 0]


def test_hostile_neighbor_keys_never_raise(nvue_variant: Path) -> None:
    """The neighbor's session and family keys with values of every YAML type and range: each is
    read or reported, never an exception."""
    import random
    text = (nvue_variant / LEAF / "startup.yaml").read_text()
    assert _SPINE_1 + _FAMILY in text
    values = ['"on"', '"off"', '1', '0', '-5', '99999999999', '"x"', '[]', '{}', '[1, 2]', 'null', 'true', '"auto"',
              '{enable: "on"}', '{enable: "on", hops: 300}', '{enable: "on", asn: 5, prepend: "off", replace: "on"}',
              '"self"', '"all-paths"', '{inbound: {maximum: "x"}}', '{regular: 5}', '{nexthop: "off", med: "off"}']
    session = ["shutdown", "password", "passive-mode", "multihop-ttl", "ttl-security", "local-as", "timers", "bfd",
               "update-source"]
    family = ["weight", "prefix-limits", "community-advertise", "nexthop-setting", "add-path-tx", "attribute-mod",
              "aspath"]
    rng = random.Random(5)
    reported = 0
    for _ in range(300):
        keys = "".join(f"                {k}: {rng.choice(values)}\n" for k in rng.sample(session, rng.randint(1, 4)))
        keys_af = "".join(f"                    {k}: {rng.choice(values)}\n" for k in rng.sample(family, rng.randint(1, 4)))
        dev = parse_text("x", text.replace(_SPINE_1 + _FAMILY, _SPINE_1 + keys + _FAMILY + keys_af, 1))
        reported += bool(dev.unmodelled)
    assert reported  # the odd values reach the reader and are reported


def _grouped(text: str, inbound: str = "PLANE-A-IN", member_group: str = "SPINES") -> str:
    """The leaf's four neighbors with their remote AS and policies moved to a peer group SPINES
    (NVUE `router bgp peer-group`), each bound to ``member_group``."""
    block = re.search(r"(            neighbor:\n)((?:              .*\n|                .*\n)+)", text)
    assert block is not None
    neighbors = re.findall(r'              "(10\.11\.0\.\d+)":\n                type: "numbered"\n'
                           r'                remote-as: (\d+)\n                description: "([^"]+)"\n', block.group(2))
    assert len(neighbors) == 4, neighbors
    out = (f'            peer-group:\n              "SPINES":\n                remote-as: {neighbors[0][1]}\n'
           '                address-family:\n                  ipv4-unicast:\n                    enable: "on"\n'
           f'                    policy:\n                      inbound:\n                        route-map: "{inbound}"\n'
           '                      outbound:\n                        route-map: "LOCAL-A-OUT"\n            neighbor:\n')
    out += "".join(f'              "{address}":\n                type: "numbered"\n                peer-group: "{member_group}"\n'
                   f'                description: "{description}"\n' for address, _, description in neighbors)
    return text.replace(block.group(0), out, 1)


@pytest.mark.parametrize("desc,change,check_id", [
    ("the neighbors' settings moved to a peer group", {}, None),
    ("the peer group's inbound route-map nobody defines", {"inbound": "NOPE"}, "ROUTE-UNDEFINED-REF"),
    ("the neighbors bound to a peer group nobody defines", {"member_group": "NOPE"}, "ROUTE-UNDEFINED-REF"),
])
def test_nvue_peer_groups(nvue_variant: Path, tmp_path: Path, desc: str, change: dict[str, str],
                          check_id: str | None) -> None:
    """NVUE peer groups (`router bgp peer-group NAME`, `neighbor N peer-group NAME`): a member takes
    what it does not set itself, as in FRR; the same fabric written with a group verifies clean."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    path = edited / LEAF / "startup.yaml"
    path.write_text(_grouped(path.read_text(), **change))
    checks = {f.check for r in run_checks(load_snapshot(edited)) for f in r.findings}
    assert checks == set() if check_id is None else check_id in checks, (desc, checks)


def test_a_sub_interface_takes_its_base_interfaces_mtu_and_state(nvue_variant: Path, tmp_path: Path) -> None:
    """`type: sub` with a `base-interface`: a VLAN device on that port, its MTU the port's unless it
    says one, down while the port is; a valid edit as rendered."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    path = edited / YAML
    sub = ('      "swp33.100":\n        type: "sub"\n        base-interface: "swp33"\n        vlan: 100\n'
           '        ip:\n          address:\n            "10.99.0.1/31": {}\n')
    text = path.read_text().replace('      "swp34":\n', sub + '      "swp34":\n', 1)
    path.write_text(text)
    assert [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
    dev = parse_text("x", text)
    assert dev.interfaces["swp33.100"].mtu == dev.interfaces["swp33"].mtu == 9214
    down = text.replace('          state:\n            up: {}\n          mtu: 9214\n          speed: "800G"\n'
                        '        ip:\n          address:\n            "10.11.0.1/31"',
                        '          state:\n            down: {}\n          mtu: 9214\n          speed: "800G"\n'
                        '        ip:\n          address:\n            "10.11.0.1/31"', 1)
    assert down != text
    assert "swp33" in parse_text("x", down).interfaces["swp33.100"].down


def test_a_vrf_table_is_a_number_or_auto(nvue_variant: Path, tmp_path: Path) -> None:
    """Two VRFs given one table number share it (ISO-VRF-LEAK); a table that is neither `auto` nor
    a number is reported, not passed over."""
    edited = tmp_path / "build"
    shutil.copytree(nvue_variant, edited)
    path = edited / "multi-plane/gw-storage-1/startup.yaml"
    text = path.read_text()
    assert text.count('table: "auto"') == 2
    path.write_text(text.replace('table: "auto"', "table: 1001"))
    fired = {r.check for r in run_checks(load_snapshot(edited)) if r.errors}
    assert "ISO-VRF-LEAK" in fired
    dev = parse_text("gw", text.replace('table: "auto"', 'table: "main"', 1))
    assert any("table 'main': not auto nor a number" in what for _, _, what in dev.base_unmodelled)


def test_path_selection_reads_as_frrs_bestpath_lines(nvue_variant: Path) -> None:
    """med compare-always / missing-as-max and multipath aspath-ignore are FRR's always-compare-med,
    `bgp bestpath med missing-as-worst` and multipath-relax; an uplink's `ip ipv4 forward` is the
    port's forwarding, named in startup.yaml."""
    text = (nvue_variant / YAML).read_text()
    anchor = '            router-id: "10.10.0.32"\n'
    edited = text.replace(anchor, anchor + '            path-selection:\n              med:\n'
                          '                compare-always: "on"\n                missing-as-max: "on"\n'
                          '              multipath:\n                aspath-ignore: "on"\n', 1)
    dev = parse_text("x", edited)
    inst = dev.bgp[None]
    assert inst.always_compare_med and inst.multipath_relax and inst.med_missing_as_worst_line > 0
    plain = parse_text("x", text).bgp[None]
    assert not plain.always_compare_med and not plain.med_missing_as_worst_line and not plain.as_path_ignore_line
    # aspath compare-lengths off is FRR's `bgp bestpath as-path ignore` (verify/reference_rib.py follows it)
    lengths = text.replace(anchor, anchor + '            path-selection:\n              aspath:\n'
                           '                compare-lengths: "off"\n', 1)
    ignoring = parse_text("x", lengths)
    assert ignoring.bgp[None].as_path_ignore_line == lengths.splitlines().index('                compare-lengths: "off"') + 1
    assert not ignoring.unmodelled
    uplink = '          speed: "800G"\n        ip:\n'
    off = parse_text("x", text.replace(uplink, uplink + '          ipv4:\n            forward: "off"\n', 1))
    assert off.interfaces["swp33"].forwarding is not None
    assert off.interfaces["swp33"].forwarding[0] is False and off.interfaces["swp33"].forwarding[3] == "startup.yaml"


def test_nvue_515_state_spelling_is_read_as_enable_and_said(nvue_variant: Path, tmp_path: Path) -> None:
    """`state: enabled` under `router`/`vrf` is 5.15's `enable: on`: nothing changes but a warning at
    its line (5.14 and earlier refuse the key); `system api`'s `state` (older than 5.15) is not
    touched: the API stays served."""
    out = tmp_path / "b"
    shutil.copytree(nvue_variant, out)
    _edit('              "10.11.0.0":\n                type: "numbered"',
          '              "10.11.0.0":\n                state: "enabled"\n                type: "numbered"')(out)
    results = run_checks(load_snapshot(out))
    found = [(r.check, f.severity, f.message) for r in results for f in r.findings]
    assert len(found) == 1 and found[0][0] == "CONFIG-UNMODELLED" and found[0][1] == Severity.WARNING, found
    line = (out / YAML).read_text().splitlines().index('                state: "enabled"') + 1
    assert found[0][2].startswith(f"{YAML}:{line}: not modelled: read as NVUE 5.15's `enable on` (older NVUE refuses "
                                  "the key): vrf default router bgp neighbor 10.11")  # (a report keeps 100 characters)


def _qos_block(text: str, name: str) -> str:
    """One `qos` block of a rendered startup.yaml (`      NAME:` to the next block at its indent)."""
    lines = text.splitlines(keepends=True)
    start = lines.index(f"      {name}:\n")
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("        "))
    return "".join(lines[start:end])


QOS_BLOCKS = ["mapping", "egress-queue-mapping", "pfc", "congestion-control", "egress-scheduler"]
_QOS_CHECKS = ("QOS-PFC", "QOS-ECN", "QOS-SCHEDULER", "QOS-CNP", "QOS-DSCP-MAP", "QOS-PLANE-SYMMETRY",
               "HOST-NIC-QOS", "QOS-TRUST")


def _qos_findings(root: Path) -> dict[str, list[str]]:
    return {r.check: [f.message for f in r.findings] for r in run_checks(load_snapshot(root))
            if r.check in _QOS_CHECKS and r.findings}


@pytest.mark.parametrize("block", QOS_BLOCKS[1:])
def test_a_block_left_to_the_roce_profile_runs_its_defaults(nvue_variant: Path, tmp_path: Path, block: str) -> None:
    """With `qos roce` on (lossless), a block the file leaves out is NVIDIA's RoCE profile's: switch
    priorities 3 and 6 to their own classes and the rest to 0, PFC on priority 3 both ways, ECN on
    classes 0 and 3 (150,000-1,500,000 bytes), class 6 strict and 3 and 0 at 50% each: what the
    plan renders, so verification passes. Without `qos roce` the same deletion is NVUE's plain
    default (no PFC, no ECN, no scheduling) and fails."""
    text = (nvue_variant / YAML).read_text()
    kept = parse_text("x", text)
    root = tmp_path / "roce"
    shutil.copytree(nvue_variant, root)
    (root / YAML).write_text(text.replace(_qos_block(text, block), ""))
    dev = parse_text("x", (root / YAML).read_text())
    port = dev.interfaces["swp1"]
    was = kept.interfaces["swp1"]
    assert (port.pfc_priorities, port.ecn, port.strict_tcs, port.dwrr_share) == \
        (was.pfc_priorities, was.ecn, was.strict_tcs, was.dwrr_share)
    assert (dev.qos.tc_of(26), dev.qos.tc_of(48)) == (3, 6)
    assert _qos_findings(root) == {}
    plain = tmp_path / "plain"
    shutil.copytree(root, plain)
    _edit('      roce:\n        enable: "on"\n        mode: "lossless"\n', "")(plain)
    if block != "egress-queue-mapping":  # (NVUE's own default maps each priority to its own class)
        assert _qos_findings(plain), block


@pytest.mark.parametrize("dscp,prio,valid", [("26", "3", True), ("48", "6", True), ("26", "2", False)])
def test_a_dscp_line_left_out_is_nvues_default_mapping(nvue_variant: Path, tmp_path: Path, dscp: str, prio: str,
                                                        valid: bool) -> None:
    """NVUE's default-global mapping sends a DSCP no line names to switch priority DSCP >> 3 (26 to 3,
    48 to 6): deleting the plan's line for RoCE's or the CNPs' DSCP changes nothing; mapping it
    elsewhere does."""
    root = tmp_path / "b"
    shutil.copytree(nvue_variant, root)
    line = f'            "{dscp}":\n              switch-priority: {"3" if dscp == "26" else "6"}\n'
    _edit(line, "" if valid else f'            "{dscp}":\n              switch-priority: {prio}\n')(root)
    said = _qos_findings(root)
    assert (said == {}) is valid, said
    if not valid:
        assert said["QOS-DSCP-MAP"]


def test_a_block_written_empty_is_left_to_the_roce_profile(nvue_variant: Path, tmp_path: Path) -> None:
    """`pfc: {}` (or a `default-global` with nothing in it) sets nothing: under `qos roce` the port
    runs the profile's PFC, as with the block deleted."""
    text = (nvue_variant / YAML).read_text()
    for i, empty in enumerate(("      pfc: {}\n", "      pfc:\n        default-global: {}\n")):
        root = tmp_path / str(i)
        shutil.copytree(nvue_variant, root)
        (root / YAML).write_text(text.replace(_qos_block(text, "pfc"), empty))
        assert parse_text("x", (root / YAML).read_text()).interfaces["swp1"].pfc_priorities == [3]
        assert _qos_findings(root) == {}


def test_a_key_no_reader_looks_at_is_said(nvue_variant: Path) -> None:
    """Every key of the document is looked at by a reader or judged by a list of the keys of its
    block: one pasted anywhere (an SSH key's entry, `system api`, BGP's address families, the
    multipath block, a syslog VRF, an entry of a map of named objects) is said at its line, and
    the rendered file says nothing."""
    text = (nvue_variant / YAML).read_text()
    assert not parse_text("x", text).unmodelled and not parse_text("x", text).base_unmodelled
    lines = text.split("\n")
    for anchor in ('                  type: "ssh-ed25519"', '        state: "enabled"', '            address-family:',
                   '                  ebgp: 64', '            "192.0.2.20": {}', "    interface:"):
        at = next(i for i, line in enumerate(lines) if line == anchor)
        indent = len(anchor) - len(anchor.lstrip()) + (2 if anchor.endswith(":") else 0)
        edited = lines[:at + 1] + [" " * indent + "bogus-key: 7"] + lines[at + 1:]
        dev = parse_text("x", "\n".join(edited))
        said = [(line, what) for line, what in dev.unmodelled] + [(line, what) for _, line, what in dev.base_unmodelled]
        assert any(line == at + 2 and "bogus-key" in what for line, what in said), (anchor, said)
