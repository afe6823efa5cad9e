"""The SONiC platform (issue 21): the example with SONiC leaves builds clean; config_db.json reads
back to what the Cumulus rendering of the same switch says; verify catches the same breakages on it
(QoS, ports, addresses, management, the FRR routing mode); the deploy driver's lifecycle against
the stateful simulator (checkpoint, replace, a revert timer that fires, confirm, discard, refusals).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import FakeClock

from dualrail_net.deploy.drivers.base import PushRejected
from dualrail_net.platforms.sonic.driver import SonicDriver, canonical
from dualrail_net.platforms.sonic.parse import parse_base
from dualrail_net.platforms.sonic.simulator import SAVED, simulator_for
from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.parsers import parse_device
from dualrail_net.verify.snapshot import load_snapshot

pytestmark = pytest.mark.usefixtures("switch_secrets")

LEAF = "plane-A/a-leaf-su1-r0"
DB = f"{LEAF}/config_db.json"


def test_the_sonic_variant_verifies_clean(sonic_variant: Path) -> None:
    findings = [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(sonic_variant)) for f in r.findings]
    assert findings == []
    json.loads((sonic_variant / DB).read_text())  # the rendered file is JSON


def _by_number(dev_interfaces: dict[str, object], prefix: str) -> list[object]:
    ports = [(int(name[len(prefix):]), iface) for name, iface in dev_interfaces.items() if name.startswith(prefix)]
    return [iface for _, iface in sorted(ports, key=lambda p: p[0])]


def test_config_db_reads_back_as_the_cumulus_rendering_of_the_same_leaf(sonic_variant: Path,
                                                                       example_build: Path) -> None:
    """Port by port (swpN is EthernetN*8-8): the same addresses, MTU, PFC priorities, ECN
    thresholds, strict classes and trust; the same DSCP maps; the same management."""
    for leaf in ("plane-A/a-leaf-su1-r0", "plane-B/b-leaf-su2-r3"):
        name = leaf.rsplit("/", 1)[1]
        sonic = parse_device(name, "sonic", sonic_variant / leaf)
        cumulus = parse_device(name, "cumulus", example_build / leaf)
        s_ports, c_ports = _by_number(sonic.interfaces, "Ethernet"), _by_number(cumulus.interfaces, "swp")
        assert len(s_ports) == len(c_ports) >= 20
        for s, c in zip(s_ports, c_ports):
            assert (s.addresses, s.mtu, s.pfc_priorities, s.ecn, sorted(s.strict_tcs), s.down) == \
                (c.addresses, c.mtu, c.pfc_priorities, c.ecn, sorted(c.strict_tcs), c.down), s.name
            assert s.trust == "dscp" and cumulus.qos.trust == "dscp"
        assert sonic.interfaces["Loopback0"].addresses == cumulus.interfaces["lo"].addresses
        assert (sonic.qos.dscp_to_tc, sonic.qos.dscp_to_priority) == (cumulus.qos.dscp_to_tc, cumulus.qos.dscp_to_priority)
        sm, cm = sonic.management, cumulus.management
        assert (sm.vrf, sm.default_gateway, sm.ntp, sm.syslog, sm.dns) == \
            (cm.vrf, cm.default_gateway, cm.ntp, cm.syslog, cm.dns)
        assert sm.lldp is True and sm.api is True  # config_db says both (Cumulus leaves them to the OS)
        assert [i.addresses for i in sm.interfaces.values()] == [i.addresses for i in cm.interfaces.values()]
        assert {v: (i.asn, sorted(i.neighbors), i.networks) for v, i in sonic.bgp.items()} == \
            {v: (i.asn, sorted(i.neighbors), i.networks) for v, i in cumulus.bgp.items()}


def _db_edit(change: Callable[[dict[str, object]], None]) -> Callable[[Path], None]:
    """Edit the leaf's config_db.json as data (written back in the rendered layout)."""
    def mutate(root: Path) -> None:
        path = root / DB
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc, indent=2))
    return mutate


def _text_edit(old: str, new: str, file: str = DB) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        path = root / file
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new, 1))
    return mutate


def _table(doc: dict[str, object], name: str) -> dict[str, dict[str, object]]:
    table = doc[name]
    assert isinstance(table, dict)
    return table


SONIC_MUTATIONS: list[tuple[str, str, Callable[[Path], None]]] = [
    ("the loopback bound to another VRF (its address leaves the default VRF, where its `network` is)",
     "ROUTE-MISSING", _db_edit(lambda d: _table(d, "LOOPBACK_INTERFACE")["Loopback0"].update(vrf_name="Vrf-blue"))),
    ("an uplink's PORT entry without lanes (portsorch never creates the port)", "LINK-PORT-DOWN",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet256"].pop("lanes"))),
    ("two ports' lanes swapped (each entry drives the other's cable)", "LINK-PORT-DOWN",
     _db_edit(lambda d: (_table(d, "PORT")["Ethernet0"].update(lanes="8,9,10,11,12,13,14,15"),
                         _table(d, "PORT")["Ethernet8"].update(lanes="0,1,2,3,4,5,6,7")))),
    ("an entry given another port's lanes (one lane set, one port: neither is created)", "LINK-PORT-DOWN",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet8"].update(lanes="7,6,5,4,3,2,1,0"))),
    ("four of an eight-lane port's lanes (a breakout this SKU has no port for)", "LINK-PORT-DOWN",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet0"].update(lanes="0,1,2,3"))),
    ("lanes across two ports (no lane set of this SKU)", "LINK-PORT-DOWN",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet256"].update(lanes="260,261,262,263,264,265,266,267"))),
    ("a port address marked secondary (a field of the address entry the model does not read: said)",
     "PORTS-UNMODELLED", _db_edit(lambda d: _table(d, "INTERFACE")["Ethernet0|10.12.0.0/31"].update(secondary="true"))),
    ("a cable length for a port the PORT table does not have (config_db's YANG refuses the file)",
     "PORTS-UNMODELLED", _db_edit(lambda d: _table(d, "CABLE_LENGTH")["AZURE"].update(Ethernet999="10m"))),
    ("no hostname in DEVICE_METADATA (the switch keeps whatever name it had: said)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "DEVICE_METADATA")["localhost"].pop("hostname"))),
    ("an uplink's INTERFACE entry gone, its address entry kept (intfmgrd never applies the address)",
     "ADDR-P2P-MISMATCH", _db_edit(lambda d: _table(d, "INTERFACE").pop("Ethernet256"))),
    ("the loopback's LOOPBACK_INTERFACE entry gone, its address kept (no Loopback0 netdev)", "ROUTE-MISSING",
     _db_edit(lambda d: _table(d, "LOOPBACK_INTERFACE").pop("Loopback0"))),
    ("no AAA table (local logins only: the planned TACACS+ servers never asked)", "MGMT-AAA",
     _db_edit(lambda d: d.pop("AAA"))),
    ("AAA authorization through TACACS+ only (no command runs while no server answers)", "MGMT-AAA",
     _db_edit(lambda d: _table(d, "AAA").update(authorization={"login": "tacacs+"}))),
    ("a TACACS+ server on another port than 49", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "TACPLUS_SERVER")["192.0.2.49"].update(tcp_port="50"))),
    ("the switch's system name is another's", "MGMT-HOSTNAME",
     _db_edit(lambda d: _table(d, "DEVICE_METADATA")["localhost"].update(hostname="a-leaf-su1-r9"))),
    ("syslog sent to the collector over TCP", "MGMT-SERVICES",
     _db_edit(lambda d: _table(d, "SYSLOG_SERVER")["192.0.2.20"].update(protocol="tcp"))),
    ("syslog sent to the collector on another port", "MGMT-SERVICES",
     _db_edit(lambda d: _table(d, "SYSLOG_SERVER")["192.0.2.20"].update(port="1514"))),
    ("a syslog field verify does not judge", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "SYSLOG_SERVER")["192.0.2.20"].update(filter="include"))),
    ("PFC off on one port", "QOS-PFC", _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet0"].pop("pfc_enable"))),
    ("the PFC watchdog off on one port's paused priority", "QOS-PFC-WATCHDOG",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet0"].pop("pfcwd_sw_enable"))),
    ("no PFC_WD entry for one port (its watch never starts)", "QOS-PFC-WATCHDOG",
     _db_edit(lambda d: _table(d, "PFC_WD").pop("Ethernet8"))),
    ("the watchdog only alerting on one port (action alert: the stuck queue stays paused)", "QOS-PFC-WATCHDOG",
     _db_edit(lambda d: _table(d, "PFC_WD")["Ethernet8"].update(action="alert"))),
    ("the watchdog on another priority than the paused one", "QOS-PFC-WATCHDOG",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet16"].update(pfcwd_sw_enable="4"))),
    ("bgpcfgd builds FRR's configuration (unified routing mode): frr.conf is not what runs", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "DEVICE_METADATA")["localhost"].update(docker_routing_config_mode="unified"))),
    ("no routing mode (SONiC's default is not the split one)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "DEVICE_METADATA")["localhost"].pop("docker_routing_config_mode"))),
    ("PFC on another priority", "QOS-PFC",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet8"].update(pfc_enable="4"))),
    ("one port classifies by nothing (no DSCP map)", "QOS-TRUST",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet0"].pop("dscp_to_tc_map"))),
    ("RoCE's DSCP mapped to TC 0", "QOS-DSCP-MAP", _db_edit(lambda d: _table(d, "DSCP_TO_TC_MAP")["ROCE"].update({"26": "0"}))),
    ("ECN off in the WRED profile", "QOS-ECN", _db_edit(lambda d: _table(d, "WRED_PROFILE")["ROCE_ECN"].update(ecn="ecn_none"))),
    ("a smaller MTU on one port", "QOS-MTU", _db_edit(lambda d: _table(d, "PORT")["Ethernet16"].update(mtu="9000"))),
    ("a server port's speed retyped (400G on a 200G link)", "LINK-CONFIG",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet0"].update(speed="400000"))),
    ("the lossless buffer profile's headroom cut", "QOS-PFC-HEADROOM",
     _db_edit(lambda d: _table(d, "BUFFER_PROFILE")["ROCE_LOSSLESS_PG"].update(xoff="1000"))),
    ("RoCE's DWRR weight cut to a tenth of the other class's", "QOS-SCHEDULER",
     _db_edit(lambda d: _table(d, "SCHEDULER")["ROCE_DWRR"].update(weight="5"))),
    ("CNPs lose strict priority", "QOS-CNP", _db_edit(lambda d: _table(d, "SCHEDULER")["CNP_STRICT"].update(type="DWRR",
                                                                                                          weight="10"))),
    ("an uplink without admin_status (SONiC leaves it down)", "BGP-SESSION-DOWN",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet256"].pop("admin_status"))),
    ("an uplink address changed", "ADDR-P2P-MISMATCH",
     _text_edit('"Ethernet256|10.11.0.1/31"', '"Ethernet256|10.11.0.3/31"')),
    ("FRR left to SONiC's generated config", "ROUTE-MISSING",
     _text_edit('"docker_routing_config_mode": "split-unified"', '"docker_routing_config_mode": "separated"')),
    ("FRR left to SONiC's generated config (named)", "CONFIG-UNMODELLED",
     _text_edit('"docker_routing_config_mode": "split-unified"', '"docker_routing_config_mode": "unified"')),
    ("the management address removed", "MGMT-ADDRESS", _db_edit(lambda d: d.pop("MGMT_INTERFACE"))),
    ("the management VRF off", "MGMT-ADDRESS", _db_edit(lambda d: d.pop("MGMT_VRF_CONFIG"))),
    ("the management gateway changed", "MGMT-ROUTE",
     _db_edit(lambda d: [v.update(gwaddr="198.51.100.1") for v in _table(d, "MGMT_INTERFACE").values()])),
    ("an NTP server dropped", "MGMT-SERVICES", _db_edit(lambda d: _table(d, "NTP_SERVER").pop("192.0.2.10"))),
    ("NTP turned off (`NTP|global admin_state disabled`: reported, not passed over)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "NTP")["global"].update(admin_state="disabled"))),
    ("a DSCP map entry that is not a number (the reader drops it: said so)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "DSCP_TO_TC_MAP")["ROCE"].update({"x26": "3"}))),
    ("an NTP server the plan does not name", "MGMT-SERVICES",
     _db_edit(lambda d: _table(d, "NTP_SERVER").update({"203.0.113.9": {"iburst": "on"}}))),
    ("the TACACS+ server's passkey removed (none shared either)", "MGMT-AAA",
     _db_edit(lambda d: [v.pop("passkey") for v in _table(d, "TACPLUS_SERVER").values()])),
    ("LLDP disabled", "MGMT-SERVICES", _db_edit(lambda d: _table(d, "FEATURE")["lldp"].update(state="disabled"))),
    ("the API (gNMI) disabled", "MGMT-ACCESS", _db_edit(lambda d: _table(d, "FEATURE")["gnmi"].update(state="disabled"))),
    ("sshd moved to port 2222 (SSH_SERVER|POLICIES ports)", "MGMT-ACCESS",
     _db_edit(lambda d: d.update(SSH_SERVER={"POLICIES": {"ports": "2222"}}))),
    ("gNMI moved to port 9339 (GNMI|gnmi port)", "MGMT-ACCESS", _db_edit(lambda d: d.update(GNMI={"gnmi": {"port": "9339"}}))),
    ("a table verify does not read", "PORTS-UNMODELLED", _db_edit(lambda d: d.update(VXLAN_TUNNEL={"vtep": {"src_ip": "1.1.1.1"}}))),
    ("a port field verify does not read", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet0"].update(tpid="0x8100"))),
    ("a port key written twice (the last one wins)", "PORTS-UNMODELLED",
     _text_edit('  "PORT": {\n', '  "PORT": {\n    "Ethernet0": {"admin_status": "down"},\n')),
    ("config_db.json that does not parse", "PORTS-UNMODELLED", _text_edit('"PORT": {', '"PORT": {{')),
    ("a leaf's frr.conf neighbor with the wrong ASN", "BGP-PEER-MISMATCH",
     _text_edit("remote-as 4200001000", "remote-as 4200001999", f"{LEAF}/frr.conf")),
    # each of these passed before: read as if applied, or not read at all
    ("a pause for the RoCE priority stops another queue", "QOS-PFC",
     _db_edit(lambda d: _table(d, "MAP_PFC_PRIORITY_TO_QUEUE")["ROCE"].update({"3": "0"}))),
    ("a port's QoS map names a TC_TO_QUEUE_MAP nobody defines (orchagent applies none of the entry)", "QOS-PFC",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet0"].update(tc_to_queue_map="ROCE2"))),
    ("a port's QoS entry without its TC -> queue map (SAI's default: every class to queue 0)", "QOS-PFC",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet256"].pop("tc_to_queue_map"))),
    ("a port's QoS entry without its TC -> priority-group map (SAI gives no default)", "QOS-PFC",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet256"].pop("tc_to_pg_map"))),
    ("a port's QoS entry without its pause -> queue map (taken as the identity: said so)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet256"].pop("pfc_to_queue_map"))),
    ("one port's own TC -> priority-group map leaves the lossless group empty (the switch's map is right)", "QOS-PFC",
     _db_edit(lambda d: (_table(d, "TC_TO_PRIORITY_GROUP_MAP").update(
         ONE={**_table(d, "TC_TO_PRIORITY_GROUP_MAP")["ROCE"], "3": "0"}),
         _table(d, "PORT_QOS_MAP")["Ethernet256"].update(tc_to_pg_map="ONE")))),
    ("one uplink classifies by its own DSCP map, which leaves RoCE's DSCP in TC 0", "QOS-DSCP-MAP",
     _db_edit(lambda d: (_table(d, "DSCP_TO_TC_MAP").update(ONE={**_table(d, "DSCP_TO_TC_MAP")["ROCE"], "26": "0"}),
                         _table(d, "PORT_QOS_MAP")["Ethernet256"].update(dscp_to_tc_map="ONE")))),
    ("the RoCE queue's scheduler capped at 10 Gb/s (pir in bytes per second: 2-5% of the ports)", "QOS-SCHEDULER",
     _db_edit(lambda d: _table(d, "SCHEDULER")["ROCE_DWRR"].update(pir="1250000000", meter_type="bytes"))),
    ("an uplink's own shaper at 100 Gb/s (PORT_QOS_MAP scheduler: every class capped at 12% of 800G)", "QOS-SCHEDULER",
     _db_edit(lambda d: (_table(d, "SCHEDULER").update(PORT_SHAPER={"pir": "12500000000", "meter_type": "bytes"}),
                         _table(d, "PORT_QOS_MAP")["Ethernet256"].update(scheduler="PORT_SHAPER")))),
    ("a port's shaper that no SCHEDULER defines (reported)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet256"].update(scheduler="NOPE"))),
    ("a scheduler's rate in packets per second (reported, not judged)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "SCHEDULER")["ROCE_DWRR"].update(pir="1000000", meter_type="packets"))),
    ("the CNP class sent to the weighted queue 0 (the queue's scheduler is the class's)", "QOS-CNP",
     _db_edit(lambda d: _table(d, "TC_TO_QUEUE_MAP")["ROCE"].update({"6": "0"}))),
    ("the lossless group's profile undefined", "QOS-PFC-HEADROOM",
     _db_edit(lambda d: _table(d, "BUFFER_PG")["Ethernet0|3"].update(profile="ROCE_LOSSLESS"))),
    ("a lossless port without its BUFFER_PG entry (buffermgrd sizes one from its lookup table)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "BUFFER_PG").pop("Ethernet0|3"))),
    ("the lossless profile moved to the lossy pool", "QOS-PFC-HEADROOM",
     _db_edit(lambda d: _table(d, "BUFFER_PROFILE")["ROCE_LOSSLESS_PG"].update(pool="ingress_lossy_pool"))),
    ("the BGP container disabled", "ROUTE-MISSING", _db_edit(lambda d: _table(d, "FEATURE").update(bgp={"state": "disabled"}))),
    ("the switch's orchestration (swss) disabled: no port forwards", "LINK-PORT-DOWN",
     _db_edit(lambda d: _table(d, "FEATURE").update(swss={"state": "disabled"}))),
    ("the SAI daemon (syncd) always disabled: every session down", "BGP-SESSION-DOWN",
     _db_edit(lambda d: _table(d, "FEATURE").update(syncd={"state": "always_disabled"}))),
    ("a feature verify does not judge", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "FEATURE").update(dhcp_relay={"state": "disabled"}))),
    ("a WRED field verify does not read", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "WRED_PROFILE")["ROCE_ECN"].update(ecn_mode="x"))),
    ("a port QoS field verify does not read", "PORTS-UNMODELLED",
     _db_edit(lambda d: _table(d, "PORT_QOS_MAP")["Ethernet0"].update(dot1p_to_tc_map="X"))),
    ("a TACACS+ passkey written into the file (a secret in git)", "MGMT-SECRET",
     _db_edit(lambda d: next(iter(_table(d, "TACPLUS_SERVER").values())).update(passkey="hunter22"))),
    ("logins through TACACS+ only (no local fallback)", "MGMT-AAA",
     _db_edit(lambda d: _table(d, "AAA")["authentication"].update(login="tacacs+"))),
    ("the TACACS+ server outside the management VRF", "MGMT-AAA",
     _db_edit(lambda d: _table(d, "TACPLUS_SERVER")["192.0.2.49"].pop("vrf"))),
    ("a server port's speed left out (it runs its lanes' default, which the plan does not know: said)",
     "PORTS-UNMODELLED", _db_edit(lambda d: _table(d, "PORT")["Ethernet0"].pop("speed"))),
    ("a server port administratively down", "LINK-PORT-DOWN",
     _db_edit(lambda d: _table(d, "PORT")["Ethernet0"].update(admin_status="down"))),
    ("an uplink made a port-channel member (PORTCHANNEL_MEMBER: its own address is not used)", "LINK-PORT-DOWN",
     _db_edit(lambda d: d.update(PORTCHANNEL_MEMBER={"PortChannel01|Ethernet256": {}}))),
    ("an uplink in a routed port-channel (not modelled, and said so)", "PORTS-UNMODELLED",
     _db_edit(lambda d: d.update(PORTCHANNEL_MEMBER={"PortChannel01|Ethernet256": {}},
                                 PORTCHANNEL_INTERFACE={"PortChannel01|10.11.0.1/31": {}}))),
    # VLAN_MEMBER: vlanmgrd enslaves the port to the VLAN bridge (once the VLAN exists)
    ("a server port made a VLAN member (the bridge takes its frames: its own address is not used)",
     "LINK-PORT-DOWN", _db_edit(lambda d: d.update(VLAN={"Vlan1000": {"vlanid": "1000"}},
                                                   VLAN_MEMBER={"Vlan1000|Ethernet0": {"tagging_mode": "untagged"}}))),
    ("an uplink made a tagged VLAN member (its session to the spine goes)", "ROUTE-MISSING",
     _db_edit(lambda d: d.update(VLAN={"Vlan1000": {"vlanid": "1000"}},
                                 VLAN_MEMBER={"Vlan1000|Ethernet256": {"tagging_mode": "tagged"}}))),
    ("an uplink in a VLAN with an address (routed: not modelled, and said so)", "PORTS-UNMODELLED",
     _db_edit(lambda d: d.update(VLAN={"Vlan1000": {"vlanid": "1000"}},
                                 VLAN_MEMBER={"Vlan1000|Ethernet256": {"tagging_mode": "untagged"}},
                                 VLAN_INTERFACE={"Vlan1000": {}, "Vlan1000|192.168.0.1/24": {}}))),
    ("a VLAN member whose VLAN nobody defines (vlanmgrd waits: said)", "PORTS-UNMODELLED",
     _db_edit(lambda d: d.update(VLAN_MEMBER={"Vlan1000|Ethernet256": {"tagging_mode": "untagged"}}))),
    # STATIC_ROUTE: bgpcfgd installs each entry in FRR and redistributes it (unless advertise false)
    ("a STATIC_ROUTE blackhole of a spine's address (the session goes)", "BGP-SESSION-DOWN",
     _db_edit(lambda d: d.update(STATIC_ROUTE={"10.11.0.0/32": {"blackhole": "true"}}))),
    ("a STATIC_ROUTE into plane B", "ISO-ROUTE-LEAK",
     _db_edit(lambda d: d.update(STATIC_ROUTE={"10.20.0.0/24": {"nexthop": "10.11.0.0", "advertise": "false"}}))),
    ("a STATIC_ROUTE blackhole of another leaf's servers", "ROUTE-FIB-OVERRIDE",
     _db_edit(lambda d: d.update(STATIC_ROUTE={"10.12.0.64/26": {"blackhole": "true"}}))),
    ("a STATIC_ROUTE bgpcfgd refuses (lists of unequal length: said)", "CONFIG-UNMODELLED",
     _db_edit(lambda d: d.update(STATIC_ROUTE={"10.11.0.0/32": {"blackhole": "true,false", "nexthop": "0.0.0.0"}}))),
    ("a server port in a VRF no plane routes in", "ADDR-PORT-VRF",
     _db_edit(lambda d: _table(d, "INTERFACE")["Ethernet0"].update(vrf_name="Vrf_x"))),
    # access lists: SONiC forwards what no rule matches; the highest PRIORITY decides
    ("an uplink ACL drops BGP both ways", "BGP-SESSION-DOWN",
     _db_edit(lambda d: _acl(d, ["Ethernet256"], {"RULE_1": {"PRIORITY": "100", "PACKET_ACTION": "DROP",
                                                             "IP_PROTOCOL": "6", "L4_DST_PORT": "179"},
                                                  "RULE_2": {"PRIORITY": "99", "PACKET_ACTION": "DROP",
                                                             "IP_PROTOCOL": "6", "L4_SRC_PORT": "179"}}))),
    ("an uplink ACL lets BGP through and drops RoCE", "ROUTE-ACL-DROP",
     _db_edit(lambda d: _acl(d, ["Ethernet256"], {"RULE_1": {"PRIORITY": "10", "PACKET_ACTION": "DROP",
                                                             "IP_PROTOCOL": "17", "L4_DST_PORT_RANGE": "4000-5000"}}))),
    ("the PFC watchdog's big red switch on (every lossless packet dropped on every port)", "QOS-PFC-WATCHDOG",
     _db_edit(lambda d: _table(d, "PFC_WD").update(GLOBAL={"POLL_INTERVAL": "200", "BIG_RED_SWITCH": "enable"}))),
    ("an egress table on an uplink drops what leaves for the plane's servers", "ROUTE-ACL-DROP",
     _db_edit(lambda d: _acl(d, ["Ethernet256"], {"RULE_1": {"PRIORITY": "10", "PACKET_ACTION": "DROP",
                                                             "DST_IP": "10.12.0.0/20"}}, stage="egress"))),
    ("an ACL rule the model does not read (the table is not judged: said so)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _acl(d, ["Ethernet256"], {"RULE_1": {"PRIORITY": "10", "PACKET_ACTION": "DROP",
                                                             "TCP_FLAGS": "0x02/0x02"}}))),
    # control-plane tables (caclmgrd): once any rule is made, whatever no rule accepts is dropped
    ("a control-plane table for SNMP only: caclmgrd's final drop shuts SSH out too", "MGMT-ACL",
     _db_edit(lambda d: _cacl(d, ["SNMP"], {"R1": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT",
                                                  "SRC_IP": "192.0.2.0/24"}}))),
    ("an SSH table whose accept says FORWARD (iptables refuses the target; the drop stays)", "MGMT-ACL",
     _db_edit(lambda d: _cacl(d, ["SSH"], {"R1": {"PRIORITY": "10", "PACKET_ACTION": "FORWARD",
                                                 "SRC_IP": "0.0.0.0/0"}}))),
    ("an SSH drop at PRIORITY 9 ahead of the accept at 10 (caclmgrd sorts the strings)", "MGMT-ACL",
     _db_edit(lambda d: _cacl(d, ["SSH"], {"ALLOW": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT",
                                                    "SRC_IP": "0.0.0.0/0"},
                                          "DENY": {"PRIORITY": "9", "PACKET_ACTION": "DROP",
                                                   "SRC_IP": "0.0.0.0/0"}}))),
    ("an SSH table with IPv6 rules only: IPv4 SSH meets the final drop", "MGMT-ACL",
     _db_edit(lambda d: _cacl(d, ["SSH"], {"R1": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT",
                                                 "SRC_IPV6": "2001:db8::/32"}}))),
    ("an SSH accept bound to a data port only (the management port's SSH is dropped)", "MGMT-ACL",
     _db_edit(lambda d: _cacl(d, ["SSH"], {"R1": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT",
                                                 "SRC_IP": "0.0.0.0/0", "IN_PORTS": "Ethernet0"}}))),
    ("SSH admitted, gNMI (planned) dropped by the final drop", "MGMT-ACL",
     _db_edit(lambda d: _cacl(d, ["SSH"], {"R1": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT",
                                                 "SRC_IP": "0.0.0.0/0"}}))),
    ("a control-plane table's services written as a string (caclmgrd finds no service: said)", "PORTS-UNMODELLED",
     _db_edit(lambda d: _cacl(d, "SSH", {"R1": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT",
                                               "SRC_IP": "0.0.0.0/0"}}))),
]


def _cacl(doc: dict[str, object], services: object, rules: dict[str, dict[str, str]]) -> None:
    doc["ACL_TABLE"] = {"MGMT_ONLY": {"type": "CTRLPLANE", "stage": "ingress", "services": services,
                                      "policy_desc": "x"}}
    doc["ACL_RULE"] = {f"MGMT_ONLY|{name}": fields for name, fields in rules.items()}


@pytest.mark.parametrize("services,rules", [
    (["SSH", "EXTERNAL_CLIENT"], {"JUMP": {"PRIORITY": "20", "PACKET_ACTION": "ACCEPT", "SRC_IP": "192.0.2.0/28"},
                                  "GNMI": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT", "SRC_IP": "192.0.2.0/28",
                                           "L4_DST_PORT": "8080"}}),
    (["ANY"], {"JUMP": {"PRIORITY": "20", "PACKET_ACTION": "ACCEPT", "SRC_IP": "198.51.100.7"}}),
    (["SSH", "EXTERNAL_CLIENT"], {"NOT_FROM": {"PRIORITY": "30", "PACKET_ACTION": "DROP", "SRC_IP": "203.0.113.0/24"},
                                  "REST": {"PRIORITY": "20", "PACKET_ACTION": "ACCEPT", "SRC_IP": "0.0.0.0/0",
                                           "L4_DST_PORT": "8080"}}),
], ids=["a jump-host subnet for SSH and gNMI", "everything from one jump host", "one subnet refused, the rest let in"])
def test_a_control_plane_table_that_lets_someone_in_is_a_valid_edit(sonic_variant: Path, tmp_path: Path,
                                                                     services: list[str],
                                                                     rules: dict[str, dict[str, str]]) -> None:
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: _cacl(d, services, rules))(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def _acl(doc: dict[str, object], ports: list[str], rules: dict[str, dict[str, str]], stage: str = "ingress") -> None:
    doc["ACL_TABLE"] = {"FABRIC": {"type": "L3", "stage": stage, "ports": ports, "policy_desc": "x"}}
    doc["ACL_RULE"] = {f"FABRIC|{name}": fields for name, fields in rules.items()}


@pytest.mark.parametrize("stage", ["ingress", "egress"])
def test_an_acl_that_lets_the_fabric_through_is_a_valid_edit(sonic_variant: Path, tmp_path: Path, stage: str) -> None:
    """A higher-priority FORWARD rule for BGP and RoCE ahead of a DROP of the rest of TCP, and
    a drop of IPv6 only, on the packets arriving or leaving: nothing the fabric needs is dropped,
    no finding."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: _acl(d, ["Ethernet256", "Ethernet0"], {
        "BGP": {"PRIORITY": "200", "PACKET_ACTION": "FORWARD", "IP_PROTOCOL": "6", "L4_DST_PORT": "179"},
        "BGP_BACK": {"PRIORITY": "199", "PACKET_ACTION": "FORWARD", "IP_PROTOCOL": "6", "L4_SRC_PORT": "179"},
        "TCP": {"PRIORITY": "10", "PACKET_ACTION": "DROP", "IP_PROTOCOL": "6"},
        "V6": {"PRIORITY": "300", "PACKET_ACTION": "DROP", "IP_TYPE": "IPV6ANY"}}, stage))(edited)
    findings = [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert findings == []


def test_a_watchdog_that_forwards_or_takes_the_default_action_is_a_valid_edit(sonic_variant: Path,
                                                                               tmp_path: Path) -> None:
    """pfcwdorch frees a stuck queue by dropping (its default when no action is given) or by
    forwarding; either keeps the lossless class moving (its big red switch off: as configured)."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: (_table(d, "PFC_WD")["Ethernet8"].update(action="forward"),
                        _table(d, "PFC_WD")["Ethernet16"].pop("action"),
                        _table(d, "PFC_WD").update(GLOBAL={"POLL_INTERVAL": "200", "BIG_RED_SWITCH": "disable"})))(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def test_lanes_in_another_order_or_spaced_are_a_valid_edit(sonic_variant: Path, tmp_path: Path) -> None:
    """portsorch matches a lane set, not a list: the same lanes in any order bind the same port."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: (_table(d, "PORT")["Ethernet0"].update(lanes="7,6,5,4,3,2,1,0"),
                        _table(d, "PORT")["Ethernet8"].update(lanes="8, 9, 10, 11, 12, 13, 14, 15")))(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def test_a_vlan_without_members_is_a_valid_edit(sonic_variant: Path, tmp_path: Path) -> None:
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: d.update(VLAN={"Vlan1000": {"vlanid": "1000", "admin_status": "up"}}))(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


@pytest.mark.parametrize("tables", [
    {"ACL_TABLE": {"T": {"type": "L3", "stage": "ingress", "ports": ["Ethernet0"]}},
     "ACL_RULE": {"T|R1": {"PRIORITY": "10", "PACKET_ACTION": "DROP", "L4_DST_PORT": "9" * 5000}}},
    {"ACL_TABLE": {"SSH_ONLY": {"type": "CTRLPLANE", "services": ["SSH"], "stage": "ingress"}},
     "ACL_RULE": {"SSH_ONLY|R1": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT", "L4_DST_PORT": "9" * 5000}}},
    {"ACL_TABLE": {"SSH_ONLY": {"type": "CTRLPLANE", "services": ["SSH"], "stage": "ingress"}},
     "ACL_RULE": {"SSH_ONLY|R1": {"PRIORITY": "10", "PACKET_ACTION": "ACCEPT"}}, "GNMI": {"gnmi": {"port": "9" * 5000}},
     "SSH_SERVER": {"POLICIES": {"ports": "9" * 5000}}},
])
def test_a_port_of_thousands_of_digits_is_reported_not_a_crash(sonic_variant: Path, tmp_path: Path,
                                                                 tables: dict[str, object]) -> None:
    """int() refuses more than 4,300 digits: every port field of config_db is read through the
    bounded number helper (files.is_decimal), so such a value is a finding, never a traceback."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: d.update(tables))(edited)
    said = {r.check for r in run_checks(load_snapshot(edited)) for f in r.findings}
    assert "PORTS-UNMODELLED" in said


def test_sshd_on_22_among_others_and_gnmi_on_its_own_port_are_valid_edits(sonic_variant: Path, tmp_path: Path) -> None:
    """sshd listens on every port of SSH_SERVER|POLICIES `ports`: 22 among them keeps the way in;
    GNMI|gnmi `port` 8080 is gnmi-native.sh's own."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: d.update(SSH_SERVER={"POLICIES": {"ports": "22,2222"}}, GNMI={"gnmi": {"port": "8080"}}))(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


@pytest.mark.parametrize("ecn_classes", ["[3]", "[0, 3]", "[1, 3]"])
def test_best_effort_keeps_its_weight_whatever_ecn_marks(tmp_path: Path, ecn_classes: str) -> None:
    """A profile whose ECN marks only RoCE's class: best effort (TC0) still shares the port by
    weight (its QUEUE entry was made only for the ECN classes: RoCE took the whole port); an ECN
    class no DSCP maps to carries nothing and takes no weight (it diluted RoCE's share)."""
    from conftest import platform_variant
    from dualrail_net.render import render_fabric
    from dualrail_net.render.artifacts import write_artifacts
    from dualrail_net.resolve import resolve_fabric
    from dualrail_net.sot.load import load_inventory
    inventory = platform_variant(tmp_path, leaf="sonic")
    qos = inventory / "qos.yaml"
    qos.write_text(qos.read_text().replace("traffic_classes: [0, 3]", f"traffic_classes: {ecn_classes}"))
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(load_inventory(inventory).inventory)), out)
    queues = json.loads((out / LEAF / "config_db.json").read_text())["QUEUE"]
    assert queues["Ethernet0|0"]["scheduler"] == "OTHER_DWRR" and queues["Ethernet0|3"]["scheduler"] == "ROCE_DWRR"
    assert ("wred_profile" in queues["Ethernet0|0"]) == (ecn_classes == "[0, 3]")
    assert queues.get("Ethernet0|1", {}) == ({"wred_profile": "ROCE_ECN"} if ecn_classes == "[1, 3]" else {})
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(out)) for f in r.findings] == []


def test_the_bgp_feature_enabled_keeps_frr_read(sonic_variant: Path, tmp_path: Path) -> None:
    broken = tmp_path / "build"
    shutil.copytree(sonic_variant, broken)
    _db_edit(lambda d: _table(d, "FEATURE").update(bgp={"state": "enabled"}))(broken)
    assert not [r for r in run_checks(load_snapshot(broken)) if r.findings]


@pytest.mark.parametrize("desc,check_id,mutate", SONIC_MUTATIONS, ids=[m[0] for m in SONIC_MUTATIONS])
def test_sonic_mutation_is_caught(sonic_variant: Path, tmp_path: Path, desc: str, check_id: str,
                                  mutate: Callable[[Path], None]) -> None:
    broken = tmp_path / "build"
    shutil.copytree(sonic_variant, broken)
    mutate(broken)
    results = {r.check: r for r in run_checks(load_snapshot(broken))}
    fired = results[check_id].findings
    assert fired, f"{desc}: {check_id} did not fire; fired: " + \
        str({c: [f.message for f in r.findings][:2] for c, r in results.items() if r.findings})
    assert all(f.message and f.why for f in fired)


def test_static_route_entries_become_frr_static_routes_and_bgpcfgd_redistributes_them(sonic_variant: Path,
                                                                                       tmp_path: Path) -> None:
    """As bgpcfgd's StaticRouteMgr: one `ip route` per position of the comma lists, in the key's
    VRF, cited at config_db.json's line; the advertised ones redistributed (only they: frr.conf's
    own statics stay out), none when DEVICE_METADATA's bgp_asn is not frr.conf's ASN."""
    from dualrail_net.platforms.sonic.parse import parse_routing
    folder = tmp_path / "leaf"
    shutil.copytree(sonic_variant / LEAF, folder)
    path = folder / "config_db.json"
    doc = json.loads(path.read_text())
    doc["STATIC_ROUTE"] = {"192.0.2.0/24": {"nexthop": "10.11.0.0,10.11.0.2", "distance": "0,20"},
                           "198.51.100.0/25": {"blackhole": "true", "advertise": "false"},
                           "default|203.0.113.0/24": {"ifname": "Ethernet256"},
                           "203.0.113.128/25": {"nexthop": "10.11.0.0", "ifname": "Ethernet256"},
                           "192.0.2.128/25": {"nexthop": "1.2.3.4,5.6.7.8", "distance": "1"}}
    path.write_text(json.dumps(doc, indent=2))
    text = path.read_text()
    at = {key: next(i for i, l in enumerate(text.splitlines(), 1) if l.strip().startswith(f'"{key}"'))
          for key in doc["STATIC_ROUTE"]}
    dev = parse_routing("a-leaf-su1-r0", folder)
    mine = [(r.vrf, r.prefix, r.nexthop, r.via_port, r.distance, r.line) for r in dev.static_routes
            if r.file == "config_db.json"]
    assert mine == [(None, "192.0.2.0/24", "10.11.0.0", None, 1, at["192.0.2.0/24"]),
                    (None, "192.0.2.0/24", "10.11.0.2", None, 20, at["192.0.2.0/24"]),
                    (None, "198.51.100.0/25", None, None, 1, at["198.51.100.0/25"]),
                    (None, "203.0.113.0/24", "Ethernet256", None, 1, at["default|203.0.113.0/24"]),
                    # a gateway and a port: FRR's `ip route P GW PORT`, settled when the ports are known
                    (None, "203.0.113.128/25", "10.11.0.0", "Ethernet256", 1, at["203.0.113.128/25"])]
    assert any(r.file == "" for r in dev.static_routes)  # frr.conf's own blackhole
    assert dev.bgp[None].static_feed == {"192.0.2.0/24": at["192.0.2.0/24"],
                                         "203.0.113.0/24": at["default|203.0.113.0/24"],
                                         "203.0.113.128/25": at["203.0.113.128/25"]}
    said = [t for _, t in dev.unmodelled if "STATIC_ROUTE" in t]
    assert said == [f"config_db.json:{at['192.0.2.128/25']}: STATIC_ROUTE 192.0.2.128/25: lists of unequal length, "
                    "bgpcfgd refuses the entry (no route)"]
    doc["DEVICE_METADATA"]["localhost"]["bgp_asn"] = "65000"
    path.write_text(json.dumps(doc, indent=2))
    dev = parse_routing("a-leaf-su1-r0", folder)
    assert dev.bgp[None].static_feed is None
    assert any("not frr.conf's" in t for _, t in dev.unmodelled)


def test_a_duplicate_or_broken_file_is_a_finding_with_its_line(sonic_variant: Path, tmp_path: Path) -> None:
    folder = tmp_path / "leaf"
    shutil.copytree(sonic_variant / LEAF, folder)
    text = (folder / "config_db.json").read_text()
    (folder / "config_db.json").write_text(text.replace('  "PORT": {\n', '  "PORT": {\n    "Ethernet0": {},\n', 1))
    dev = parse_base("a-leaf-su1-r0", folder)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l == '  "PORT": {') + 1
    assert ("config_db.json", line, "PORT Ethernet0 appears twice (the last one wins)") in dev.base_unmodelled
    for broken in ("", "[]", "{" * 5000 + "}" * 5000, '{"PORT": 3}', '{"PORT": {"Ethernet0": []}}'):
        (folder / "config_db.json").write_text(broken)
        dev = parse_base("x", folder)  # never a traceback
        assert dev.base_unmodelled or not dev.interfaces


def test_thousands_of_ports_name_their_own_lines(sonic_variant: Path, tmp_path: Path) -> None:
    """16,000 ports, every one with an MTU SONiC does not take: each finding names its own entry's
    line (the lines are found in one walk of the table: a search from its start per port was
    quadratic: docs/performance.md)."""
    folder = tmp_path / "leaf"
    shutil.copytree(sonic_variant / LEAF, folder)
    doc = json.loads((folder / "config_db.json").read_text())
    count = 16000
    doc["PORT"].update({f"Ethernet{1000 + i}": {"admin_status": "up", "mtu": "x", "lanes": str(i)} for i in range(count)})
    text = json.dumps(doc, indent=1)
    (folder / "config_db.json").write_text(text)
    lines: dict[str, int] = {}
    for i, l in enumerate(text.splitlines(), 1):
        if l.startswith('  "Ethernet'):
            lines.setdefault(l.strip().split('"')[1], i)
    dev = parse_base("a-leaf-su1-r0", folder)
    said = {what.split()[1]: line for _f, line, what in dev.base_unmodelled if what.endswith("mtu x")}
    assert len(said) == count and all(said[port] == lines[port] for port in said)


# -- the deploy driver against the simulator -------------------------------------------------------



def _driver(sonic_variant: Path, tmp_path: Path, peers: bool = True):  # type: ignore[no-untyped-def]
    clock = FakeClock()
    folder = sonic_variant / LEAF
    from dualrail_net.verify.parsers.frr import parse_frr
    from dualrail_net.verify.model import DeviceConfig
    dev = DeviceConfig("x", "sonic")
    parse_frr((folder / "frr.conf").read_text(), dev)
    real = {a: n.remote_asn for n in dev.bgp[None].neighbors.values() for a in [n.address] if n.remote_asn} if peers else {}
    sim = simulator_for(folder, "a-leaf-su1-r0", real, clock)
    host = SimpleNamespace(name="a-leaf-su1-r0", data={"device_dir": str(folder), "paths": {}})
    return SonicDriver(host, sim, session_name="dualrail-t1"), sim, clock


def _changed_files(driver: SonicDriver) -> dict[str, str]:
    files = driver.intended()
    doc = json.loads(files["config_db.json"])
    doc["PORT"]["Ethernet0"]["mtu"] = "9100"
    files["config_db.json"] = json.dumps(doc, indent=2)
    files["frr.conf"] = files["frr.conf"].replace("  maximum-paths 64", "  maximum-paths 32")
    return files


def test_commit_then_confirm_makes_it_the_boot_config(sonic_variant: Path, tmp_path: Path) -> None:
    driver, sim, clock = _driver(sonic_variant, tmp_path)
    assert driver.health() == []
    files = _changed_files(driver)
    diff = driver.load(files)
    assert '"mtu": "9100"' in diff and "maximum-paths 32" in diff
    assert sim.running["PORT"]["Ethernet0"]["mtu"] == "9214"  # staged, nothing active yet
    driver.commit(revert_after=300)
    assert sim.running["PORT"]["Ethernet0"]["mtu"] == "9100" and "maximum-paths 32" in sim.frr_running
    assert json.loads(sim.files[SAVED])["PORT"]["Ethernet0"]["mtu"] == "9214"  # not saved before confirm
    driver.confirm()
    clock.now += 3600
    sim.fire_timers()
    assert sim.reverts == 0 and sim.running["PORT"]["Ethernet0"]["mtu"] == "9100"
    assert json.loads(sim.files[SAVED])["PORT"]["Ethernet0"]["mtu"] == "9100"
    assert "dualrail-t1" not in sim.checkpoints
    assert canonical(driver.fetch()["config_db.json"]) == canonical(files["config_db.json"])


def test_an_unconfirmed_commit_reverts_by_itself(sonic_variant: Path, tmp_path: Path) -> None:
    driver, sim, clock = _driver(sonic_variant, tmp_path)
    before_db, before_frr = json.dumps(sim.running, sort_keys=True), sim.frr_running
    driver.load(_changed_files(driver))
    driver.commit(revert_after=120)
    clock.now += 119
    sim.fire_timers()
    assert sim.running["PORT"]["Ethernet0"]["mtu"] == "9100"
    clock.now += 2  # the session is gone; the switch reverts on its own
    sim.fire_timers()
    assert sim.reverts == 1
    assert json.dumps(sim.running, sort_keys=True) == before_db and sim.frr_running == before_frr
    with pytest.raises(PushRejected, match="already fired"):
        driver.confirm()


def test_discard_after_commit_reverts_now(sonic_variant: Path, tmp_path: Path) -> None:
    driver, sim, _ = _driver(sonic_variant, tmp_path)
    before = json.dumps(sim.running, sort_keys=True)
    driver.load(_changed_files(driver))
    driver.commit(revert_after=600)
    driver.discard()
    # reverted at once by the driver, not by the timer (which is gone)
    assert json.dumps(sim.running, sort_keys=True) == before and not sim.timers and sim.reverts == 0
    assert "maximum-paths 64" in sim.frr_running


@pytest.mark.parametrize("what,edit", [
    ("an address on a port that does not exist",
     lambda f: f.update({"config_db.json": f["config_db.json"].replace('"Ethernet0|', '"Ethernet999|', 1)})),
    ("a scheduler that does not exist",
     lambda f: f.update({"config_db.json": f["config_db.json"].replace('"scheduler": "CNP_STRICT"', '"scheduler": "NONE"', 1)})),
    ("not JSON", lambda f: f.update({"config_db.json": f["config_db.json"][:-5]})),
    ("a line FRR refuses", lambda f: f.update({"frr.conf": f["frr.conf"].replace("router bgp", "router bgpx", 1)})),
])
def test_a_refused_config_changes_nothing(sonic_variant: Path, tmp_path: Path, what: str,
                                          edit: Callable[[dict[str, str]], None]) -> None:
    driver, sim, _ = _driver(sonic_variant, tmp_path)
    before, frr = json.dumps(sim.running, sort_keys=True), sim.frr_running
    files = driver.intended()
    edit(files)
    with pytest.raises(PushRejected):
        driver.load(files)
    assert json.dumps(sim.running, sort_keys=True) == before and sim.frr_running == frr and not sim.timers


def test_health_names_the_sessions_that_are_not_up(sonic_variant: Path, tmp_path: Path) -> None:
    driver, _, _ = _driver(sonic_variant, tmp_path, peers=False)
    problems = driver.health()
    assert len(problems) == 4 and all("is Active" in p for p in problems)


def test_firmware_install_then_reboot(sonic_variant: Path, tmp_path: Path) -> None:
    driver, sim, _ = _driver(sonic_variant, tmp_path)
    driver.host.data.update(platform="sonic", image_urls={"sonic": "http://images/sonic-mellanox-{version}.bin"})
    assert driver.running_version() == "202311.1"
    driver.install_image("202405.2")
    assert driver.running_version() == "202311.1"
    driver.reboot()
    assert driver.running_version() == "202405.2"



def test_the_batfish_snapshot_has_sonic_configs(sonic_variant: Path, tmp_path: Path) -> None:
    from dualrail_net.verify.batfish.snapshot import export_snapshot
    counts = export_snapshot(sonic_variant, tmp_path / "snap")
    assert counts["sonic"] == 16 and counts["eos"] == 8
    leaf = tmp_path / "snap/sonic_configs/a-leaf-su1-r0"
    assert (leaf / "config_db.json").read_text() == (sonic_variant / DB).read_text()
    assert (leaf / "frr.conf").read_text() == (sonic_variant / LEAF / "frr.conf").read_text()


def test_the_audit_reads_the_lossless_priorities_in_force(sonic_variant: Path, tmp_path: Path) -> None:
    """`show pfc priority` against the rendered files: clean as built; a run-time `pfc config` that
    takes priority 3 off one port (unsaved: the files never change) is exactly one QOS-LIVE-PFC."""
    from dualrail_net.audit.qos import pfc_findings, sonic_pfc_priorities
    from dualrail_net.audit.run import planned_pfc
    from dualrail_net.deploy.drivers.base import PfcReader
    from dualrail_net.manifest import Manifest
    driver, sim, _clock = _driver(sonic_variant, tmp_path)
    assert isinstance(driver, PfcReader)
    planned = planned_pfc(sonic_variant, Manifest.load(sonic_variant), "a-leaf-su1-r0")
    assert planned and set(planned.values()) == {(3,)}
    in_force = sonic_pfc_priorities("a-leaf-su1-r0", driver.pfc_in_force())
    assert in_force == planned and pfc_findings("a-leaf-su1-r0", "A", in_force, planned) == []
    assert sim.shell("pfc config priority off Ethernet0 3")[0] == 0
    assert sim.shell("pfc config priority on Ethernet16 4")[0] == 0
    assert sim.shell("pfc config priority on Ethernet4 4")[0] == 1  # no such port in PORT_QOS_MAP
    saved = sim.files[SAVED]
    found = pfc_findings("a-leaf-su1-r0", "A", sonic_pfc_priorities("a-leaf-su1-r0", driver.pfc_in_force()), planned)
    assert [(f.check, f.plane, f.message) for f in found] == [
        ("QOS-LIVE-PFC", "A", "a-leaf-su1-r0 Ethernet0: lossless priorities in force none, the plan says 3"),
        ("QOS-LIVE-PFC", "A", "a-leaf-su1-r0 Ethernet16: lossless priorities in force 3,4, the plan says 3")]
    assert sim.files[SAVED] == saved  # a run-time change: the saved files do not show it


def test_the_pfc_table_reader_is_strict() -> None:
    from dualrail_net.audit.neighbors import NeighborsUnreadable
    from dualrail_net.audit.qos import sonic_pfc_priorities
    table = "\nInterface    Lossless priorities\n-----------  ---------------------\nEthernet0    3,4\nEthernet4    N/A\n"
    assert sonic_pfc_priorities("x", table) == {"Ethernet0": (3, 4), "Ethernet4": ()}
    for bad in ("", "% Invalid input", table.replace("3,4", "3,9"), table.replace("3,4", "3,²"),
                table + "Ethernet8  3  extra\n",
                table.replace("Ethernet4", "Vlan4")):
        with pytest.raises(NeighborsUnreadable):
            sonic_pfc_priorities("x", bad)


def test_a_shared_tacacs_passkey_is_a_valid_edit(sonic_variant: Path, tmp_path: Path) -> None:
    """The key in TACPLUS|global instead of on each server: every server uses it (hostcfgd), no finding."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)

    def shared(d: dict[str, object]) -> None:
        d["TACPLUS"] = {"global": {"passkey": "${secret:tacacs-key}", "auth_type": "pap", "timeout": "5"}}
        for server in _table(d, "TACPLUS_SERVER").values():
            server.pop("passkey")
    _db_edit(shared)(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def test_a_port_map_that_differs_only_off_the_marked_dscps_passes(sonic_variant: Path, tmp_path: Path) -> None:
    """A port's own DSCP map is judged on the DSCPs the plan marks (RoCE's, the CNPs'): one that
    differs elsewhere (best effort's DSCP 10 into TC 1) changes nothing the plan cares about."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: (_table(d, "DSCP_TO_TC_MAP").update(ONE={**_table(d, "DSCP_TO_TC_MAP")["ROCE"], "10": "1"}),
                        _table(d, "PORT_QOS_MAP")["Ethernet256"].update(dscp_to_tc_map="ONE")))(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def test_a_queue_rate_limit_at_the_port_speed_passes(sonic_variant: Path, tmp_path: Path) -> None:
    """A scheduler's `pir` at or above the fastest port's speed caps nothing the plan cares about."""
    edited = tmp_path / "build"
    shutil.copytree(sonic_variant, edited)
    _db_edit(lambda d: _table(d, "SCHEDULER")["ROCE_DWRR"].update(pir="100000000000", meter_type="bytes"))(edited)
    assert [f"{r.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
