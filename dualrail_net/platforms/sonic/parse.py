"""A SONiC device folder -> DeviceConfig: config_db.json in the base part (ports, addresses, QoS,
management), frr.conf in the routing part (FRR's reader).

config_db.json is read with SONiC's semantics where they differ from the other platforms': a PORT
without ``admin_status`` is down; its ``lanes`` say which front-panel port it drives (another
port's lanes, a shared lane set or one this SKU has no port for leave the planned link down); a
port classifies by DSCP only when its PORT_QOS_MAP names a DSCP_TO_TC_MAP (else everything lands
in TC 0); PFC pauses the priorities its ``pfc_enable`` lists;
ECN marks on a queue whose WRED profile enables ECN for green packets; FRR's file is used only in
``split-unified`` routing mode. Every table or field the model does not read is reported with its
line (PORTS-UNMODELLED), a duplicate key too (SONiC's loader keeps the last one silently)."""

from __future__ import annotations

import bisect
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.platforms.sonic import LANES_PER_PORT
from dualrail_net.platforms.sonic.cacl import ControlPlane, Rule, control_plane
from dualrail_net.secretref import is_reference
from dualrail_net.verify.ipfast import net_str, network_of
from dualrail_net.verify.model import AclEntry, DeviceConfig, EcnProfile, Interface, PfcHeadroom, SSH_PORT, SYSLOG_TRANSPORT, \
    syslog_transport_astray
from dualrail_net.verify.parsers import link
from dualrail_net.verify.parsers.files import is_decimal, read_text
from dualrail_net.verify.parsers.frr import is_ip, is_prefix, parse_frr, static_route, zebra_interface_blocks

FILE = "config_db.json"
ROUTING_MODE = "split-unified"  # the one mode in which SONiC runs frr.conf as given
MANAGEMENT_VRF = "mgmt"  # SONiC's management VRF has this fixed name


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its (key, value) pairs in file order, duplicates kept."""


@dataclass
class Table:
    """One table of the file: its entries in file order (a duplicate key kept: the last one counts)."""

    name: str
    entries: list[tuple[str, Any]] = field(default_factory=list)

    def get(self, key: str) -> Any:
        found = None
        for k, v in self.entries:
            if k == key:
                found = v
        return found


class ConfigDb:
    """The parsed tables, and the line of a table or of an entry in it, found only when a finding
    needs one (a search for the key followed by a colon, after its table's: a JSON string followed
    by ':' is always a key). Most files produce no finding, and a 100k-GPU fabric has millions of
    keys."""

    def __init__(self, text: str, tables: dict[str, Table]) -> None:
        self.text = text
        self.tables = tables
        self._starts: list[int] | None = None
        # per table: where it starts, and where each of its keys first is (found in one walk of the
        # table's entries in file order, the first time a line in it is asked for: a search from
        # the table's start per key was quadratic in a hostile file's entries: docs/performance.md)
        self._keys_at: dict[str, tuple[int | None, dict[str, int]]] = {}

    def table(self, name: str) -> Table:
        return self.tables.get(name) or Table(name)

    def line(self, table: str, key: str | None = None) -> int:
        held = self._keys_at.get(table)
        if held is None:
            held = self._keys_at[table] = self._walk(table)
        at = held[0] if key is None or held[0] is None else held[1].get(key)
        if at is None and key is not None:  # (a key the table's entries do not hold: searched for)
            at = self._find(key, held[0])
        if at is None:
            return 0
        if self._starts is None:
            self._starts = [m.end() for m in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._starts, at) + 1

    def _walk(self, table: str) -> tuple[int | None, dict[str, int]]:
        start = self._find(table, 0)
        places: dict[str, int] = {}
        at = start
        for key, _ in self.table(table).entries if start is not None else ():
            found = self._find(key, at)  # (the next key is just after the last one found)
            if found is not None:
                places.setdefault(key, found)
                at = found
        return start, places

    def _find(self, key: str, start: int | None) -> int | None:
        """Where the JSON string ``key`` is next written as a key (followed by a colon) from ``start``."""
        if start is None:
            return None
        text, needle = self.text, json.dumps(key)
        at = text.find(needle, start)
        while at >= 0:
            after = at + len(needle)
            while after < len(text) and text[after] in " \t\r\n":
                after += 1
            if after < len(text) and text[after] == ":":
                return at
            at = text.find(needle, at + 1)
        return None


def _fields(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, _Pairs) else {}


def read_config_db(text: str, dev: DeviceConfig) -> ConfigDb | None:
    """The file's tables; None when it does not parse (reported)."""
    try:
        doc = json.loads(text, object_pairs_hook=_Pairs)
    except RecursionError:
        dev.base_unmodelled.append((FILE, 0, "does not parse: nested too deep"))
        return None
    except ValueError as e:
        line = getattr(e, "lineno", 0)
        dev.base_unmodelled.append((FILE, line, f"does not parse (SONiC refuses the file): {str(e)[:100]}"))
        return None
    if not isinstance(doc, _Pairs):
        dev.base_unmodelled.append((FILE, 1, "is not a JSON object of tables"))
        return None
    tables: dict[str, Table] = {}
    db = ConfigDb(text, tables)
    for name, value in doc:
        if name in tables:
            dev.base_unmodelled.append((FILE, db.line(name), f"table {name} appears twice (the last one wins)"))
        if not isinstance(value, _Pairs):
            dev.base_unmodelled.append((FILE, db.line(name), f"table {name} is not an object (SONiC refuses it)"))
            continue
        tables[name] = Table(name, [(k, v) for k, v in value if isinstance(v, _Pairs)])
        for key in [k for k, v in value if not isinstance(v, _Pairs)]:
            dev.base_unmodelled.append((FILE, db.line(name, key), f"{name} {key} is not an object (SONiC refuses it)"))
        keys = [k for k, _ in tables[name].entries]
        if len(set(keys)) != len(keys):
            twice = next(k for k, n in Counter(keys).items() if n > 1)
            dev.base_unmodelled.append((FILE, db.line(name, twice), f"{name} {twice} appears twice (the last one wins)"))
    return db


# fields read or known to change nothing the checks judge, per table
_PORT_FIELDS = {"admin_status", "alias", "lanes", "mtu", "speed", "description", "fec", "autoneg", "index"}
_KNOWN_TABLES = {"TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "CABLE_LENGTH", "BUFFER_PROFILE", "BUFFER_PG",
                 "PFC_WD", "SCHEDULER", "WRED_PROFILE", "TC_TO_PRIORITY_GROUP_MAP", "DSCP_TO_TC_MAP", "NTP",
                 "TACPLUS_SERVER", "AAA", "RADIUS_SERVER", "SNMP_COMMUNITY", "MGMT_PORT", "TACPLUS"}


def parse_base(name: str, folder: Path) -> DeviceConfig:
    """Ports, addresses, QoS and management; the routing part (frr.conf) is parse_routing's."""
    dev = DeviceConfig(name=name, platform="sonic")
    db = read_config_db(read_text(folder / FILE), dev)
    if db is None:
        return dev
    handled = {"DEVICE_METADATA", "PORT", "INTERFACE", "LOOPBACK_INTERFACE", "PORT_QOS_MAP", "QUEUE",
               "MGMT_VRF_CONFIG", "MGMT_INTERFACE", "NTP_SERVER", "SYSLOG_SERVER", "DNS_NAMESERVER", "FEATURE",
               "ACL_TABLE", "ACL_RULE", "PORTCHANNEL_MEMBER", "VLAN", "VLAN_MEMBER",
               "STATIC_ROUTE", "SSH_SERVER", "GNMI"}  # (the routing side reads STATIC_ROUTE: static_routes)
    for table in db.tables:
        if table not in handled and table not in _KNOWN_TABLES:
            dev.base_unmodelled.append((FILE, db.line(table), f"table {table}"))
    # the routing side judges the access lists (they decide sessions and RoCE); what it cannot
    # read is reported here, against this file
    dev.base_unmodelled += [(FILE, line, what) for line, what in read_acls(db).unread]
    if db.tables.get("ACL_TABLE") is not None:
        dev.acl_file = FILE  # (as the routing side sets it: both sides know where the lists are)
    dev.hostname = str(_fields(db.table("DEVICE_METADATA").get("localhost")).get("hostname", ""))
    if dev.hostname:
        dev.names.append((dev.hostname, FILE, db.line("DEVICE_METADATA", "localhost")))
    else:  # (hostcfgd sets none: the switch keeps whatever name it had, a new image's `sonic`)
        _note(dev, db, "DEVICE_METADATA", "localhost", "DEVICE_METADATA localhost has no hostname: the switch "
              "keeps the name it had")
    _metadata(dev, db)
    _ports(dev, db)
    _interfaces(dev, db)
    _lag_members(dev, db)
    _fields_known(dev, db)  # (every table's fields, the management tables' too: before the readers)
    _qos(dev, db)
    _management(dev, db)
    zebra_interface_blocks(read_text(folder / "frr.conf"), dev)  # (zebra's port settings, over config_db's)
    return dev


# DEVICE_METADATA fields that decide nothing the model reads here: the device's kind and identity,
# and `bgp_asn`, which bgpcfgd's templates read (in the split modes FRR runs frr.conf as written)
# and its static routes' redistribution names (read there: static_routes)
_METADATA_HARMLESS = {"hostname", "bgp_asn", "type", "hwsku", "platform", "mac", "timezone", "deployment_id",
                      "default_bgp_status", "default_pfcwd_status", "buffer_model", "synchronous_mode",
                      "yang_config_validation", "region", "cloudtype"}
# the routing modes in which FRR runs the rendered frr.conf (split-unified: one frr.conf for all daemons)
_SPLIT_MODES = ("split", "split-unified")


def _metadata(dev: DeviceConfig, db: ConfigDb) -> None:
    """DEVICE_METADATA|localhost: the fields that would make FRR run something else than frr.conf
    (bgpcfgd's templates from CONFIG_DB's BGP tables, or the management framework's) are reported;
    so is any field the model does not know."""
    fields = _fields(db.table("DEVICE_METADATA").get("localhost"))
    for key, value in fields.items():
        if key == "docker_routing_config_mode":
            if value not in _SPLIT_MODES:
                _note(dev, db, "DEVICE_METADATA", "localhost", f"docker_routing_config_mode {str(value)[:20]}: FRR "
                      "does not run frr.conf as written (bgpcfgd builds it from CONFIG_DB's BGP tables)")
        elif key == "frr_mgmt_framework_config":
            if str(value).lower() != "false":
                _note(dev, db, "DEVICE_METADATA", "localhost", f"frr_mgmt_framework_config {str(value)[:20]}: the "
                      "management framework writes FRR's configuration, not frr.conf")
        elif key not in _METADATA_HARMLESS:
            _note(dev, db, "DEVICE_METADATA", "localhost", f"DEVICE_METADATA {str(key)[:40]}")
    if "docker_routing_config_mode" not in fields:
        _note(dev, db, "DEVICE_METADATA", "localhost", "no docker_routing_config_mode: SONiC's default "
              "builds FRR's configuration from CONFIG_DB, not from frr.conf")


def _note(dev: DeviceConfig, db: ConfigDb, table: str, key: str, what: str) -> None:
    dev.base_unmodelled.append((FILE, db.line(table, key), what))


def _lane_set(port: str, text: str) -> tuple[tuple[int, ...], str]:
    """A PORT entry's lane set (empty when the ASIC has no port for it) and why the entry binds no
    port the plan can use ("" when it binds its own). The lanes, not the name, say which
    front-panel port an entry drives: portsorch matches each entry's lane set with a port the ASIC
    has, and this SKU's ports are eight lanes each, port n's from 8(n-1) (the renderer's `EthernetK`
    has lanes K..K+7). A lane set the ASIC has no port for is refused by syncd (no port is
    created); another port's lanes put this entry's address and session on that port's cable."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != LANES_PER_PORT or not all(is_decimal(p) for p in parts):
        return (), f"never created (lanes {text[:40]}: this SKU's ports have {LANES_PER_PORT} lanes each)"
    lanes = tuple(sorted(int(p) for p in parts))
    first = lanes[0]
    if first % LANES_PER_PORT or lanes != tuple(range(first, first + LANES_PER_PORT)):
        return (), f"never created (lanes {text[:40]} are no port of this SKU: syncd refuses the lane set)"
    named = port[len("Ethernet"):] if port.startswith("Ethernet") else ""
    if not (is_decimal(named) and int(named) == first):
        return lanes, (f"on another port (lanes {first}-{first + LANES_PER_PORT - 1} are front-panel port "
                       f"{first // LANES_PER_PORT + 1}'s: this entry drives that port's cable, not its own)")
    return lanes, ""


def _ports(dev: DeviceConfig, db: ConfigDb) -> None:
    claimed: dict[tuple[int, ...], list[str]] = {}  # a lane set -> the entries naming it
    for port, value in db.table("PORT").entries:
        fields = _fields(value)
        iface = dev.interfaces.setdefault(port, Interface(port))
        mtu = str(fields.get("mtu", ""))
        iface.mtu = int(mtu) if mtu.isascii() and mtu.isdigit() and len(mtu) <= 6 else None
        if mtu and iface.mtu is None:
            _note(dev, db, "PORT", port, f"PORT {port} mtu {mtu[:20]}")
        # SONiC brings a port up only when told: a missing admin_status is down
        iface.down = "" if fields.get("admin_status") == "up" else "shutdown"
        if not str(fields.get("lanes", "")).strip():  # (lanes are mandatory: portsorch creates no port)
            iface.down = "never created (its PORT entry has no lanes)"
        else:
            lanes, why = _lane_set(port, str(fields["lanes"]))
            if why:
                iface.down = f"{why[:-1]}; {FILE}:{db.line('PORT', port)})"
            if lanes:
                claimed.setdefault(lanes, []).append(port)
        iface.description = str(fields.get("description", ""))
        if "speed" not in fields and not iface.down:
            # portsorch changes a port's speed only when the entry names one: the port runs what the
            # SAI created it with for these lanes (the SKU's default), which nothing here knows
            _note(dev, db, "PORT", port, f"PORT {port} has no speed: it runs its lanes' default speed (the "
                  "SKU's), which verify cannot compare with the cable's plan")
        for key, read, setting in (("speed", link.speed_mbps, "speed"), ("fec", link.fec, "fec_mode"),
                                   ("autoneg", link.autoneg, "negotiate")):
            if key in fields:
                try:
                    link.set_link(iface, db.line("PORT", port), file=FILE, **{setting: read(str(fields[key]))})
                except link.Unreadable:
                    _note(dev, db, "PORT", port, f"PORT {port} {key} {str(fields[key])[:20]}")
        for key in sorted(set(fields) - _PORT_FIELDS):
            _note(dev, db, "PORT", port, f"PORT {port} {key}")
    for ports in claimed.values():
        if len(ports) > 1:  # one lane set, one port: the ASIC creates no second, portsorch stops at it
            for port in ports:
                others = ", ".join(p for p in ports if p != port)
                dev.interfaces[port].down = f"never created (its lanes are also {others}'s; {FILE}:{db.line('PORT', port)})"


def _interfaces(dev: DeviceConfig, db: ConfigDb) -> None:
    """A routed port's or loopback's addresses (`TABLE|NAME|PREFIX`) count only beside the entry of
    its name (`TABLE|NAME`): intfmgrd creates the router interface (the loopback's netdev) from
    that entry and holds every address of the name until it exists (sonic-buildimage #6226: an
    address loaded without it is never configured)."""
    named = {table: {key for key, _ in db.table(table).entries if "|" not in key}
             for table in ("INTERFACE", "LOOPBACK_INTERFACE")}
    for key, value in db.table("INTERFACE").entries:
        port, _, address = key.partition("|")
        iface = dev.interfaces.get(port)
        if iface is None:  # SONiC refuses an address on a port its PORT table does not have
            _note(dev, db, "INTERFACE", key, f"INTERFACE {key}: no PORT {port}")
            continue
        if address and port not in named["INTERFACE"]:
            _note(dev, db, "INTERFACE", key, f"INTERFACE {key}: no INTERFACE {port} entry, the address is never applied")
            continue
        if address:
            if is_prefix(address) and is_ip(address.partition("/")[0]):
                iface.addresses.append(address)
            else:
                _note(dev, db, "INTERFACE", key, f"INTERFACE {key}")
            # an address's own fields: `scope` and `family` (what intfmgrd derives anyway); any
            # other (`secondary`, a pasted one) is said
            for extra in sorted(set(_fields(value)) - _ADDRESS_FIELDS):
                _note(dev, db, "INTERFACE", key, f"INTERFACE {key} {extra}")
            continue
        fields = _fields(value)
        if "vrf_name" in fields:
            iface.vrf = str(fields["vrf_name"])
            dev.vrfs.setdefault(iface.vrf, None)
        for extra in sorted(set(fields) - {"vrf_name"}):
            _note(dev, db, "INTERFACE", key, f"INTERFACE {port} {extra}")
    for key, value in db.table("LOOPBACK_INTERFACE").entries:
        name, _, address = key.partition("|")
        if address and name not in named["LOOPBACK_INTERFACE"]:
            _note(dev, db, "LOOPBACK_INTERFACE", key,
                  f"LOOPBACK_INTERFACE {key}: no LOOPBACK_INTERFACE {name} entry, the address is never applied")
            continue
        iface = dev.interfaces.setdefault(name, Interface(name, is_loopback=True))
        if not address and "vrf_name" in (fields := _fields(value)):
            # intfmgrd binds the loopback to the VRF (its address and route leave the default VRF,
            # where the `network` for it is), as it does a port's
            iface.vrf = str(fields["vrf_name"])
            dev.vrfs.setdefault(iface.vrf, None)
        if address:
            if is_prefix(address):
                iface.addresses.append(address)
            else:
                _note(dev, db, "LOOPBACK_INTERFACE", key, f"LOOPBACK_INTERFACE {key}")
            for extra in sorted(set(_fields(value)) - _ADDRESS_FIELDS):
                _note(dev, db, "LOOPBACK_INTERFACE", key, f"LOOPBACK_INTERFACE {key} {extra}")


# the fields of a port's or loopback's address entry (`TABLE|NAME|PREFIX`) that change nothing
_ADDRESS_FIELDS = frozenset({"scope", "family"})

# (member table, the upper devices' address table): a port enslaved to a LAG or to the VLAN bridge
_UPPER_TABLES = (("PORTCHANNEL_MEMBER", "PORTCHANNEL_INTERFACE"), ("VLAN_MEMBER", "VLAN_INTERFACE"))


def _lag_members(dev: DeviceConfig, db: ConfigDb) -> None:
    """PORTCHANNEL_MEMBER `PortChannelN|PORT`: the port carries the LAG's frames; VLAN_MEMBER
    `VlanN|PORT` (tagged or not): vlanmgrd enslaves the port to the VLAN bridge, whose frames it
    then carries (the ASIC's router interface goes with the bridge port). Either way the port's own
    address is not used (link.lag_members_down, as for a Cumulus bond or bridge port). An upper
    device with an address (PORTCHANNEL_INTERFACE, VLAN_INTERFACE) is routed: not modelled, its
    members reported (the address tables themselves stay reported)."""
    vlans = {key for key, value in db.table("VLAN").entries if value is not None}
    for member_table, address_table in _UPPER_TABLES:
        routed = {key.partition("|")[0] for key, _ in db.table(address_table).entries if "|" in key}
        members: dict[str, tuple[str, str, int]] = {}
        for key, _ in db.table(member_table).entries:
            upper, _, port = key.partition("|")
            if member_table == "VLAN_MEMBER" and upper not in vlans:
                # (vlanmgrd adds a member once its VLAN exists: until then the port stays as it is)
                _note(dev, db, member_table, key, f"{member_table} {key}: no VLAN {upper} (vlanmgrd waits for it)")
            elif port in dev.interfaces:
                members[port] = (upper, FILE, db.line(member_table, key))
            else:
                _note(dev, db, member_table, key, f"{member_table} {key}: no PORT {port}")
        dev.lag_members.update(members)
        dev.base_unmodelled += link.lag_members_down(dev.interfaces, members, routed)


def _int_list(value: Any) -> list[int] | None:
    words = [w.strip() for w in str(value).split(",") if w.strip()]
    if not all(w.isascii() and w.isdigit() and len(w) <= 2 for w in words):
        return None
    return [int(w) for w in words]


def _int_map(value: Any) -> dict[int, int]:
    out = {}
    for k, v in _fields(value).items():
        k, v = str(k), str(v)
        if k.isascii() and k.isdigit() and len(k) <= 3 and v.isascii() and v.isdigit() and len(v) <= 2:
            out[int(k)] = int(v)
    return out


def _count(value: Any) -> int | None:
    """A non-negative number as config_db writes it (a string of digits); anything else None."""
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None


_ECN_ON = ("ecn_all", "ecn_green", "ecn_green_yellow", "ecn_green_red")


# PORT_QOS_MAP's map fields and the table each names an entry of
_PORT_MAPS = {"dscp_to_tc_map": "DSCP_TO_TC_MAP", "tc_to_queue_map": "TC_TO_QUEUE_MAP",
              "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP", "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
              "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"}
_PORT_QOS_FIELDS = {*_PORT_MAPS, "pfc_enable", "pfcwd_sw_enable", "scheduler"}
# fields of the tables the model reads, or knows to change nothing the checks judge
_TABLE_FIELDS = {
    "WRED_PROFILE": {"ecn", "wred_green_enable", "green_min_threshold", "green_max_threshold", "green_drop_probability",
                     "wred_yellow_enable", "yellow_min_threshold", "yellow_max_threshold", "yellow_drop_probability",
                     "wred_red_enable", "red_min_threshold", "red_max_threshold", "red_drop_probability"},
    # (pir with meter_type bytes: the queue's rate limit, read as a share of the port's speed; a
    # committed rate only guarantees, and in packets per second the model cannot size it: reported)
    "SCHEDULER": {"type", "weight", "pir", "pbs", "meter_type"},
    "QUEUE": {"scheduler", "wred_profile"},
    "BUFFER_PROFILE": {"pool", "xoff", "xon", "xon_offset", "size", "dynamic_th", "static_th"},
    "BUFFER_PG": {"profile"},
    "PFC_WD": {"action", "detection_time", "restoration_time", "POLL_INTERVAL", "BIG_RED_SWITCH"},
    "MGMT_PORT": {"admin_status", "alias", "description", "speed", "autoneg"},
    "MGMT_INTERFACE": {"gwaddr"},
    "MGMT_VRF_CONFIG": {"mgmtVrfEnabled"},
    # NTP's admin_state, authentication or a server's key, trusted or admin_state can stop time
    # being set: reported, not judged
    "NTP": {"vrf", "src_intf"},
    "NTP_SERVER": {"iburst", "association_type", "version", "resolve_as"},
    "FEATURE": {"state", "auto_restart", "has_timer", "has_global_scope", "has_per_asic_scope", "high_mem_alert",
                "set_owner", "check_up_status", "support_syslog_rate_limit", "delayed"},
    "DNS_NAMESERVER": set(),
    "TACPLUS": {"passkey", "auth_type", "timeout"},  # (global: the servers' shared key; src_intf reported)
    "LOOPBACK_INTERFACE": {"vrf_name"},
    # a VLAN's own settings decide nothing about routed ports; its members are read (_lag_members)
    "VLAN": {"vlanid", "members", "description", "mtu", "admin_status", "mac"},
    "VLAN_MEMBER": {"tagging_mode"},
}
# the QoS maps: a key or value that is not a small number is dropped by the reader: said so
_NUMERIC_MAPS = ("DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE")
LOSSLESS_POOL = "ingress_lossless_pool"
# a port's TC -> queue map when PORT_QOS_MAP names none (saiport.h, SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP:
# "Default no map, i.e. all packets to queue 0")
SAI_QUEUE_DEFAULT = {tc: 0 for tc in range(8)}


def _fields_known(dev: DeviceConfig, db: ConfigDb) -> None:
    for table, known in _TABLE_FIELDS.items():
        for key, value in db.table(table).entries:
            for extra in sorted(set(_fields(value)) - known):
                _note(dev, db, table, key, f"{table} {key} {extra}")
    for table in _NUMERIC_MAPS:
        for key, value in db.table(table).entries:
            for extra in sorted(set(_fields(value)) - {str(k) for k in _int_map(value)}):
                _note(dev, db, table, key, f"{table} {key} {extra}: not a number")


def _qos(dev: DeviceConfig, db: ConfigDb) -> None:
    maps = {table: {name: _int_map(v) for name, v in db.table(table).entries} for table in _PORT_MAPS.values()}
    dscp_maps, pg_maps = maps["DSCP_TO_TC_MAP"], maps["TC_TO_PRIORITY_GROUP_MAP"]
    wred = {name: _fields(v) for name, v in db.table("WRED_PROFILE").entries}
    schedulers = {name: _fields(v) for name, v in db.table("SCHEDULER").entries}
    used: Counter[str] = Counter()
    port_maps: dict[str, str] = {}
    pg_of_port: dict[str, str] = {}
    queue_of_port: dict[str, dict[int, int]] = {}
    for port, value in db.table("PORT_QOS_MAP").entries:
        iface = dev.interfaces.get(port)
        if iface is None or iface.is_loopback:
            _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port}: no PORT {port}")
            continue
        fields = _fields(value)
        for extra in sorted(set(fields) - _PORT_QOS_FIELDS):
            _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port} {extra}")
        # orchagent resolves every map the entry names before it applies any of it: one name no
        # table defines and the port keeps none of its maps and no PFC (the entry waits, retried)
        missing = [f"{f} {fields[f]}" for f, table in _PORT_MAPS.items()
                   if f in fields and str(fields[f]) not in maps[table]]
        if missing:
            _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port} names {', '.join(missing)}, which no table "
                                                 "defines: orchagent applies none of the port's QoS maps nor its PFC")
            continue
        if "scheduler" in fields:  # the port's own shaper (port-level shaping: its pir caps every class)
            port_scheduler = schedulers.get(str(fields["scheduler"]))
            if port_scheduler is None:
                _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port} scheduler {str(fields['scheduler'])[:30]}: "
                                                     "no SCHEDULER of that name")
            elif "pir" in port_scheduler:
                _queue_shape(dev, db, "PORT_QOS_MAP", port, iface, port_scheduler, [None])
        dscp_map = fields.get("dscp_to_tc_map")
        if isinstance(dscp_map, str):
            iface.trust = "dscp"
            used[dscp_map] += 1
            port_maps[port] = dscp_map
        pg_of_port[port] = str(fields.get("tc_to_pg_map", ""))
        # no tc_to_queue_map: the port keeps SAI's default (saiport.h: every packet to queue 0)
        queue_of_port[port] = to_queue = (maps["TC_TO_QUEUE_MAP"][str(fields["tc_to_queue_map"])]
                                          if "tc_to_queue_map" in fields else SAI_QUEUE_DEFAULT)
        # the software PFC watchdog watches the priorities pfcwd_sw_enable lists (none: none), on a
        # port PFC_WD has an entry for (pfcwdorch starts a port's watch from that entry)
        watched = _int_list(fields.get("pfcwd_sw_enable", ""))
        iface.pfc_watchdog = watched or []
        if "pfcwd_sw_enable" not in fields:
            iface.pfc_watchdog_note = f"PORT_QOS_MAP {port} has no pfcwd_sw_enable"
        elif watched is None:
            iface.pfc_watchdog_note = (f"PORT_QOS_MAP {port} pfcwd_sw_enable {str(fields['pfcwd_sw_enable'])[:20]} "
                                       "is no list")
        else:
            iface.pfc_watchdog_note = f"PORT_QOS_MAP {port} pfcwd_sw_enable is {','.join(map(str, watched)) or 'empty'}"
        pfc = fields.get("pfc_enable")
        if pfc is not None:
            iface.pfc_priorities = _int_list(pfc)
            if iface.pfc_priorities is None:
                _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port} pfc_enable {str(pfc)[:20]}")
            else:
                pause_map = maps["MAP_PFC_PRIORITY_TO_QUEUE"].get(str(fields.get("pfc_to_queue_map", "")), {})
                if "pfc_to_queue_map" not in fields:
                    _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port} has pfc_enable but no pfc_to_queue_map: "
                                                         "a pause for priority P is taken to stop queue P (SAI gives "
                                                         "no default, the ASIC's own)")
                _pause_targets(dev, db, port, iface, pause_map,
                               pg_maps[pg_of_port[port]] if "tc_to_pg_map" in fields else None, to_queue)
    # a port's PFC_WD entry: its action on a storm (pfcwdorch's drop, the default, or forward: either
    # frees the stuck queue; alert only logs it, so the queue stays paused as without a watchdog)
    watchdog = {port: _fields(value) for port, value in db.table("PFC_WD").entries}
    # GLOBAL's big red switch: pfcwdorch then drops every lossless packet on every port, stormed or
    # not, and stops watching (sonic-swss #467); "disable" is the watchdog as configured
    switch = str(watchdog.get("GLOBAL", {}).get("BIG_RED_SWITCH", "disable"))
    if switch == "enable":
        dev.qos.lossless_dropped = ("PFC_WD GLOBAL BIG_RED_SWITCH enable: the PFC watchdog drops every lossless "
                                    "packet on every port")
        dev.qos.lossless_dropped_at = (FILE, db.line("PFC_WD", "GLOBAL"))
    elif switch != "disable":
        _note(dev, db, "PFC_WD", "GLOBAL", f"PFC_WD GLOBAL BIG_RED_SWITCH {switch[:20]}")
    for name, iface in dev.interfaces.items():
        if not iface.pfc_watchdog:
            continue
        if name not in watchdog:
            iface.pfc_watchdog, iface.pfc_watchdog_note = [], f"PFC_WD has no entry for {name}"
        elif (action := str(watchdog[name].get("action", "drop"))) not in ("drop", "forward"):
            said = "only reports a storm, the queue stays paused" if action == "alert" else "is no action pfcwdorch takes"
            iface.pfc_watchdog, iface.pfc_watchdog_note = [], (f"{FILE}:{db.line('PFC_WD', name)}: PFC_WD {name} "
                                                               f"action {action[:20]} {said}")
    for iface in dev.interfaces.values():
        if not iface.is_loopback and iface.trust is None:
            iface.trust = "none"  # no DSCP_TO_TC_MAP on the port: every packet is TC 0
    if used:
        name = used.most_common(1)[0][0]
        # a DSCP the map sends to TC 0 is where an unmapped one goes: the model keeps what differs
        # from that default, as it does for the platforms whose maps list only the marked DSCPs
        dev.qos.dscp_to_tc = {d: tc for d, tc in dscp_maps[name].items() if tc}
        pg_name = Counter(pg_of_port.values()).most_common(1)[0][0]
        tc_pg = pg_maps.get(pg_name, {})  # no map: a packet's PG is its TC
        dev.qos.dscp_to_priority = {d: tc_pg.get(tc, tc) for d, tc in dev.qos.dscp_to_tc.items()}
        for port, other in port_maps.items():
            if other != name:  # (QOS-DSCP-MAP compares it with the switch's on the marked DSCPs)
                dev.qos.port_dscp_to_tc[port] = ({d: tc for d, tc in dscp_maps[other].items() if tc},
                                                 f"{FILE}:{db.line('PORT_QOS_MAP', port)} dscp_to_tc_map {other}")
    common_queue = Counter(tuple(sorted(m.items())) for m in queue_of_port.values()).most_common(1)
    to_queue = dict(common_queue[0][0]) if common_queue else {}
    inverses: dict[int, dict[int, list[int]]] = {}
    weights: dict[str, dict[int, tuple[int, list[int]]]] = {}  # port -> queue -> (weight, its classes)
    for key, value in db.table("QUEUE").entries:
        port, _, queue = key.partition("|")
        iface = dev.interfaces.get(port)
        if iface is None or not (queue.isascii() and queue.isdigit() and len(queue) <= 2):
            _note(dev, db, "QUEUE", key, f"QUEUE {key}")
            continue
        # the classes this queue carries: by the port's own map, else the switch's common one
        # (one inverse per map: the ports share their map's dict); a queue no class is sent to
        # carries none, whatever its scheduler and WRED profile say
        own = queue_of_port.get(port, to_queue)
        inverse = inverses.get(id(own))
        if inverse is None:
            inverse = inverses[id(own)] = _queue_classes(own)
        tcs = inverse.get(int(queue), [])
        fields = _fields(value)
        profile = wred.get(str(fields.get("wred_profile", "")))
        if profile is not None and str(profile.get("ecn", "ecn_none")) in _ECN_ON \
                and profile.get("wred_green_enable") == "true":
            low, high, prob = (_count(profile.get(k)) for k in ("green_min_threshold", "green_max_threshold",
                                                                "green_drop_probability"))
            if low is None or high is None or prob is None:
                _note(dev, db, "QUEUE", key, f"QUEUE {key}: WRED profile without its green thresholds")
            elif tcs:
                iface.ecn = {**(iface.ecn or {}), **{tc: EcnProfile(low, high, prob) for tc in tcs}}
        scheduler = schedulers.get(str(fields.get("scheduler", "")))
        if scheduler is not None and "pir" in scheduler and tcs:
            _queue_shape(dev, db, "QUEUE", key, iface, scheduler, tcs)
        if scheduler is not None and scheduler.get("type") == "STRICT":
            iface.strict_tcs.extend(tcs)
        elif scheduler is not None and scheduler.get("type") in ("DWRR", "WRR"):
            weight = _count(scheduler.get("weight"))
            if weight is None:
                _note(dev, db, "QUEUE", key, f"QUEUE {key}: scheduler {fields.get('scheduler')} without a weight")
            elif tcs:
                weights.setdefault(port, {})[int(queue)] = (weight, tcs)
    _headroom(dev, db)
    # DWRR weights are relative and per queue: a queue's share is its weight over the sum of the
    # port's, and every class the queue carries has that share
    for port, by_queue in weights.items():
        total = sum(weight for weight, _ in by_queue.values())
        if total:
            dev.interfaces[port].dwrr_share = {tc: round(100 * weight / total)
                                               for weight, tcs in by_queue.values() for tc in tcs}


def _queue_shape(dev: DeviceConfig, db: ConfigDb, table: str, key: str, iface: Interface,
                 scheduler: dict[str, Any], tcs: Sequence[int | None]) -> None:
    """A scheduler's peak rate (`pir`, bytes per second with `meter_type` bytes) caps the classes
    ``tcs`` (a queue's; [None]: the whole port, PORT_QOS_MAP `scheduler`) at that rate whatever the
    contention: a share of the port's speed (its PORT `speed`, Mb/s). A rate in packets per
    second, or on a port whose speed the file does not say, is reported, not judged."""
    rate, speed = _count(scheduler.get("pir")), iface.link.speed_mbps if iface.link else None
    if rate is None or scheduler.get("meter_type") != "bytes" or not speed:
        _note(dev, db, table, key, f"{table} {key}: scheduler with pir {str(scheduler.get('pir'))[:20]} "
                                   f"(meter_type {str(scheduler.get('meter_type', '?'))[:10]}, port speed "
                                   f"{speed or '?'} Mb/s): the rate limit is not judged")
        return
    cap = min(100, rate * 8 * 100 // (speed * 1_000_000))
    dev.qos.shape_percent.setdefault(iface.name, {}).update({tc: cap for tc in tcs})


def _queue_classes(tc_queue: dict[int, int]) -> dict[int, list[int]]:
    """queue -> the traffic classes a TC -> queue map sends to it (a class the map does not list:
    its own number)."""
    out: dict[int, list[int]] = {}
    for tc in range(8):
        out.setdefault(tc_queue.get(tc, tc), []).append(tc)
    return out


def _pause_targets(dev: DeviceConfig, db: ConfigDb, port: str, iface: Interface, pfc_queue: dict[int, int],
                   tc_pg: dict[int, int] | None, tc_queue: dict[int, int]) -> None:
    """A pause frame the port receives for priority P stops the queue MAP_PFC_PRIORITY_TO_QUEUE
    names; the traffic of P (the classes whose priority group is P) leaves by TC_TO_QUEUE_MAP's
    queue. When the two differ the pause stops the wrong queue: P is paused nowhere, no lossless
    class (a priority or class a map does not list: the identity; a port without a pause map:
    the identity, the ASICs' own; without a TC -> queue map: SAI's queue 0, see SAI_QUEUE_DEFAULT).
    tc_pg None: the port names no TC -> priority-group map, for which SAI defines no default, so
    no class is known to fill a lossless group: no priority stays lossless (reported)."""
    assert iface.pfc_priorities is not None
    if tc_pg is None:
        if iface.pfc_priorities:
            _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port} has pfc_enable but no tc_to_pg_map: SAI "
                                                 "gives the classes' priority groups no default, none is known to "
                                                 "be lossless")
        iface.pfc_priorities = []
        return
    kept = []
    for prio in iface.pfc_priorities:
        queues = {tc_queue.get(tc, tc) for tc in range(8) if tc_pg.get(tc, tc) == prio}
        paused = pfc_queue.get(prio, prio)
        if not queues:
            _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port}: pfc_enable {prio}, but its tc_to_pg_map puts "
                                                 f"no traffic class in priority group {prio}: nothing is lossless")
        elif paused in queues:
            kept.append(prio)
        else:
            _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port}: a pause for priority {prio} stops queue "
                                                 f"{paused} (MAP_PFC_PRIORITY_TO_QUEUE), but priority {prio}'s "
                                                 f"traffic leaves by queue {', '.join(map(str, sorted(queues)))}: "
                                                 "it is not paused")
    iface.pfc_priorities = kept


def _headroom(dev: DeviceConfig, db: ConfigDb) -> None:
    """Each lossless priority group's buffer profile (BUFFER_PG PORT|PRIO -> BUFFER_PROFILE xoff; a
    profile without xoff is lossy) and the port's cable length (CABLE_LENGTH, "10m"): the headroom a
    PFC port keeps (its tightest lossless group's)."""
    profiles = {name: _fields(value) for name, value in db.table("BUFFER_PROFILE").entries}
    xoff = {name: _count(f.get("xoff")) for name, f in profiles.items()}
    cables: dict[str, int | None] = {}
    for key, value in db.table("CABLE_LENGTH").entries:
        for port, length in _fields(value).items():
            if port not in dev.interfaces:  # (a leafref to PORT: config_db's YANG refuses the file)
                _note(dev, db, "CABLE_LENGTH", key, f"CABLE_LENGTH {key} {str(port)[:40]}: no PORT of that name")
            text = str(length)
            cables[port] = _count(text[:-1]) if text.endswith("m") else _count(text)
    seen: dict[tuple[int | None, int | None], PfcHeadroom] = {}
    grouped: dict[str, set[int]] = {}  # port -> the priorities some BUFFER_PG entry of it names
    for key, value in db.table("BUFFER_PG").entries:
        port, _, _prio = key.partition("|")
        iface = dev.interfaces.get(port)
        if iface is None:
            continue
        grouped.setdefault(port, set()).update(_groups(_prio))
        name = str(_fields(value).get("profile", ""))
        profile_xoff = xoff.get(name)
        lossless = bool(set(iface.pfc_priorities or ()) & _groups(_prio))
        if name not in profiles or (profile_xoff is not None and profiles[name].get("pool") != LOSSLESS_POOL):
            # bufferorch waits for a profile no table defines, and a pool other than the lossless
            # one reserves no headroom: the group pauses too late, its packets are dropped
            if lossless:
                why = "which no BUFFER_PROFILE defines" if name not in profiles else \
                    f"in pool {profiles[name].get('pool')}, not {LOSSLESS_POOL}"
                _note(dev, db, "BUFFER_PG", key, f"BUFFER_PG {key} profile {name[:40]} {why}: no headroom")
                iface.pfc_headroom = PfcHeadroom(0, cables.get(port))
            continue
        if profile_xoff is None:
            continue  # a lossy priority group: no headroom to keep
        held = iface.pfc_headroom.xoff_bytes if iface.pfc_headroom is not None else None
        if held == 0:
            continue  # another group of the port already keeps none
        room = (profile_xoff if held is None else min(held, profile_xoff), cables.get(port))  # the tightest PG
        iface.pfc_headroom = seen.setdefault(room, PfcHeadroom(*room))
    # a lossless priority no BUFFER_PG entry names: buffermgrd gives it a profile of its own, sized
    # from the platform's pg_profile_lookup.ini (not in the rendered files): not the plan's headroom,
    # and not judged
    for port, iface in dev.interfaces.items():
        missing = sorted(set(iface.pfc_priorities or ()) - grouped.get(port, set()))
        if missing:
            _note(dev, db, "PORT_QOS_MAP", port, f"PORT_QOS_MAP {port} pfc_enable {','.join(map(str, missing))} "
                  "without a BUFFER_PG entry: its headroom would be the platform's lookup table's, not the plan's")


def _groups(text: str) -> set[int]:
    """The priority groups of a BUFFER_PG key's second part: "3" or a range "3-4"."""
    low, _, high = text.partition("-")
    high = high or low
    if not (low.isascii() and low.isdigit() and high.isascii() and high.isdigit() and len(low + high) <= 4):
        return set()
    return set(range(int(low), int(high) + 1))


def _port_number(value: object) -> int | None:
    """A TCP port as a config_db string holds it (1..65535), else None."""
    text = str(value).strip()
    return int(text) if is_decimal(text) and 0 < int(text) < 65536 else None


def _service_ports(dev: DeviceConfig, db: ConfigDb) -> None:
    """Where SSH and gNMI listen: SSH_SERVER|POLICIES `ports` (comma-separated; sshd listens on
    each) and GNMI|gnmi `port` (gnmi-native.sh's, GNMI_PORT unless told); their other fields
    (timeouts, retries, certificates) are reported, not judged."""
    mgmt = dev.management
    mgmt.api_default_port = GNMI_PORT
    for key, value in db.table("SSH_SERVER").entries:
        fields = _fields(value)
        if key == "POLICIES" and "ports" in fields:
            ports = [_port_number(p) for p in str(fields["ports"]).split(",")]
            if ports and None not in ports:
                mgmt.ssh_port = SSH_PORT if SSH_PORT in ports else int(ports[0] or 0)
            else:
                _note(dev, db, "SSH_SERVER", key, f"SSH_SERVER {key} ports {str(fields['ports'])[:40]}")
        for extra in sorted(set(fields) - ({"ports"} if key == "POLICIES" else set())):
            _note(dev, db, "SSH_SERVER", key, f"SSH_SERVER {key} {extra}")
    for key, value in db.table("GNMI").entries:
        fields = _fields(value)
        if key == "gnmi" and "port" in fields:
            port = _port_number(fields["port"])
            if port is not None:
                mgmt.api_port = port
            else:
                _note(dev, db, "GNMI", key, f"GNMI {key} port {str(fields['port'])[:40]}")
        for extra in sorted(set(fields) - ({"port"} if key == "gnmi" else set())):
            _note(dev, db, "GNMI", key, f"GNMI {key} {extra}")


def _management(dev: DeviceConfig, db: ConfigDb) -> None:
    mgmt = dev.management
    mgmt.services_in_file = True  # NTP, syslog, DNS and LLDP are config_db tables; users stay in Linux
    vrf_on = _fields(db.table("MGMT_VRF_CONFIG").get("vrf_global")).get("mgmtVrfEnabled") == "true"
    if vrf_on:
        mgmt.vrf = MANAGEMENT_VRF
    ports = {name: _fields(v) for name, v in db.table("MGMT_PORT").entries}
    for key, value in db.table("MGMT_INTERFACE").entries:
        port, _, address = key.partition("|")
        if not address or not is_prefix(address):
            _note(dev, db, "MGMT_INTERFACE", key, f"MGMT_INTERFACE {key}")
            continue
        iface = mgmt.interfaces.setdefault(port, Interface(port, vrf=MANAGEMENT_VRF if vrf_on else None))
        iface.addresses.append(address)
        if ports.get(port, {}).get("admin_status", "up") != "up":
            iface.down = "shutdown"
        gateway = _fields(value).get("gwaddr")
        if isinstance(gateway, str) and is_ip(gateway):
            mgmt.default_gateway = gateway
    ntp_vrf = _fields(db.table("NTP").get("global")).get("vrf")
    for server, _ in db.table("NTP_SERVER").entries:
        mgmt.located[("NTP", server)] = (FILE, db.line("NTP_SERVER", server))
        if ntp_vrf == MANAGEMENT_VRF or (ntp_vrf is None and not vrf_on):
            mgmt.ntp.append(server)
        else:
            mgmt.astray.append((FILE, db.line("NTP_SERVER", server), server,
                                f"an NTP server queried in VRF {ntp_vrf or 'default'}"))
    for server, value in db.table("SYSLOG_SERVER").entries:
        fields = _fields(value)
        transport = (str(fields.get("protocol", SYSLOG_TRANSPORT[0])).lower(), str(fields.get("port", SYSLOG_TRANSPORT[1])))
        where = db.line("SYSLOG_SERVER", server)
        mgmt.located[("syslog", server)] = (FILE, where)
        if fields.get("vrf") != MANAGEMENT_VRF:
            mgmt.astray.append((FILE, where, server, f"sent in VRF {fields.get('vrf') or 'default'}"))
        elif (astray := syslog_transport_astray(transport)) is not None:
            mgmt.astray.append((FILE, where, server, astray))
        else:
            mgmt.syslog.append(server)
        for extra in sorted(set(fields) - {"vrf", "protocol", "port", "source"}):
            _note(dev, db, "SYSLOG_SERVER", server, f"SYSLOG_SERVER {server} {extra}")
    _service_ports(dev, db)
    mgmt.dns = [server for server, _ in db.table("DNS_NAMESERVER").entries]
    mgmt.located.update({("DNS", server): (FILE, db.line("DNS_NAMESERVER", server)) for server in mgmt.dns})
    features = {name: _fields(v) for name, v in db.table("FEATURE").entries}
    if "lldp" in features:
        mgmt.lldp = features["lldp"].get("state") == "enabled"
    if "gnmi" in features:
        mgmt.api = features["gnmi"].get("state") == "enabled"
    _aaa(dev, db)
    for name in sorted(_DATAPLANE_FEATURES & set(features)):
        state = str(features[name].get("state", "enabled"))
        if state in ("disabled", "always_disabled"):  # the ASIC is not programmed: no port forwards
            for iface in dev.interfaces.values():
                if iface.name.startswith("Ethernet"):
                    iface.down = f"FEATURE {name} {state}"
        elif state not in ("enabled", "always_enabled"):
            _note(dev, db, "FEATURE", name, f"FEATURE {name} state {state}")
    for name in sorted(set(features) - {"lldp", "gnmi", "bgp"} - _DATAPLANE_FEATURES):
        _note(dev, db, "FEATURE", name, f"FEATURE {name}")


# the services without which nothing reaches the ASIC (orchagent and its database, the SAI daemon):
# featured stops one whose FEATURE state is disabled
_DATAPLANE_FEATURES = frozenset({"swss", "syncd", "database"})


def _aaa(dev: DeviceConfig, db: ConfigDb) -> None:
    """TACACS+ servers in the management VRF, and whether local users log in when none answers:
    hostcfgd tries the AAA login methods in order and moves on from TACACS+ when no server answers,
    so `local` among them keeps the local users (no AAA login: local only)."""
    mgmt = dev.management
    mgmt.tacacs = [server for server, value in db.table("TACPLUS_SERVER").entries
                   if _fields(value).get("vrf") == MANAGEMENT_VRF]
    for server in mgmt.tacacs:
        mgmt.located[("TACACS+", server)] = (FILE, db.line("TACPLUS_SERVER", server))
    if mgmt.tacacs:  # a server without its own passkey uses TACPLUS|global's; without either, in clear
        shared = bool(_fields(db.table("TACPLUS").get("global")).get("passkey"))
        mgmt.tacacs_key = shared or all(_fields(db.table("TACPLUS_SERVER").get(s)).get("passkey")
                                        for s in mgmt.tacacs)
    for key, value in db.table("TACPLUS_SERVER").entries:
        for extra in sorted(set(_fields(value)) - {"priority", "tcp_port", "passkey", "vrf", "timeout", "auth_type"}):
            _note(dev, db, "TACPLUS_SERVER", key, f"TACPLUS_SERVER {key} {extra}")
        if str(_fields(value).get("tcp_port", "49")) != "49":  # (another port than TACACS+'s: not judged)
            _note(dev, db, "TACPLUS_SERVER", key, f"TACPLUS_SERVER {key} tcp_port {_fields(value)['tcp_port']}")
    # credentials the renderer writes as ``${secret:NAME}``: a passkey (TACACS+, RADIUS, the global
    # ones) and the SNMP community (the table's key itself)
    for table in ("TACPLUS_SERVER", "RADIUS_SERVER", "TACPLUS", "RADIUS"):
        for key, value in db.table(table).entries:
            passkey = _fields(value).get("passkey")
            if passkey is not None and not is_reference(str(passkey)):
                mgmt.literal_secrets.append((FILE, db.line(table, key), f"{table} {key[:40]} passkey"))
    for key, _ in db.table("SNMP_COMMUNITY").entries:
        if not is_reference(key):
            mgmt.literal_secrets.append((FILE, db.line("SNMP_COMMUNITY", key), "SNMP_COMMUNITY"))
    asked = False  # whether a login method is TACACS+ (no AAA login: local users only)
    for key, value in db.table("AAA").entries:
        fields = _fields(value)
        known = {"login", "failthrough", "fallback"} if key == "authentication" else \
            {"login"} if key in ("authorization", "accounting") else set()
        for extra in sorted(set(fields) - known):
            _note(dev, db, "AAA", key, f"AAA {key} {extra}")
        if key in ("authentication", "authorization") and "login" in fields:
            # (authorization: each command asked of the methods in turn; without `local` none runs
            # while no server answers, and the switch cannot be mended)
            methods = [m.strip() for m in str(fields["login"]).split(",")]
            asked = asked or key == "authentication" and "tacacs+" in methods
            if mgmt.login_local is None or "local" not in methods:
                mgmt.login_local = "local" in methods
                mgmt.login_methods = f'AAA {key} login "{str(fields["login"])[:40]}"'
    if not asked:
        mgmt.tacacs = []  # servers defined, none asked at login


_MODE = re.compile(r'"docker_routing_config_mode"\s*:\s*"([^"]*)"')


@dataclass
class Acls:
    """config_db's IPv4 access lists as the model reads them."""

    lists: dict[str, list[AclEntry] | None] = field(default_factory=dict)  # None: not read whole
    bound: dict[str, tuple[str, int]] = field(default_factory=dict)  # port -> (table, line): stage ingress
    bound_out: dict[str, tuple[str, int]] = field(default_factory=dict)  # the same, stage egress
    unread: list[tuple[int, str]] = field(default_factory=list)  # (line, what): not judged
    control_plane: ControlPlane | None = None  # the CTRLPLANE tables' chain for the management port


_ACL_TABLE_FIELDS = {"type", "stage", "ports", "policy_desc"}
_ACL_RULE_FIELDS = {"PRIORITY", "PACKET_ACTION", "IP_PROTOCOL", "SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT",
                    "L4_SRC_PORT_RANGE", "L4_DST_PORT_RANGE", "ETHER_TYPE", "IP_TYPE"}
_PROTOCOLS = {"6": "tcp", "17": "udp", "1": "icmp"}
_NOT_IPV4 = "matches no IPv4 packet"


def read_acls(db: ConfigDb) -> Acls:
    """ACL_TABLE (type L3 or L3V4V6, stage ingress or egress, bound to ports) with its ACL_RULEs,
    highest PRIORITY first; a packet no rule matches is forwarded (SONiC adds no implicit deny: only
    an explicit rule drops). An egress table judges the packets leaving its ports as an ingress one
    those arriving. A table of another type (mirror, PFC watchdog, control plane) or one with a
    rule the model does not read is not judged and is reported."""
    out = Acls()
    rules: dict[str, list[tuple[int, str, dict[str, Any], int]]] = {}
    control: list[tuple[str, dict[str, Any], int]] = []
    for key, value in db.table("ACL_RULE").entries:
        table, _, rule = key.partition("|")
        fields = _fields(value)
        said = str(fields.get("PRIORITY", "0"))
        rules.setdefault(table, []).append((int(said) if said.isascii() and said.isdigit() and len(said) < 8 else -1,
                                            rule, fields, db.line("ACL_RULE", key)))
    for name, value in db.table("ACL_TABLE").entries:
        fields, line = _fields(value), db.line("ACL_TABLE", name)
        if fields.get("type") == "CTRLPLANE":  # caclmgrd compares the type exactly
            control.append((name, fields, line))
            continue
        kind, stage = str(fields.get("type", "")).upper(), str(fields.get("stage", "ingress")).lower()
        extra = sorted(set(fields) - _ACL_TABLE_FIELDS)
        if kind not in ("L3", "L3V4V6") or stage not in ("ingress", "egress") or extra:
            out.unread.append((line, f"ACL_TABLE {name} (type {kind[:20] or '?'}, stage {stage[:20]}"
                                     f"{', ' + ', '.join(extra)[:60] if extra else ''}): not judged"))
            continue
        entries: list[AclEntry] | None = []
        for priority, rule, rule_fields, rule_line in sorted(rules.get(name, []), key=lambda r: -r[0]):
            entry = _acl_rule(rule_fields, rule_line) if priority >= 0 else None
            if entry == _NOT_IPV4:
                continue
            if not isinstance(entry, AclEntry):
                out.unread.append((rule_line, f"ACL_RULE {name}|{rule}: not modelled, table {name} is not judged"))
                entries = None
            elif entries is not None:
                entries.append(entry)
        if entries is not None:
            entries.append(AclEntry("permit", "ip", (0, 0), (0, 0), line=line))  # no rule matched: forwarded
        out.lists[name] = entries
        ports = fields.get("ports", [])
        for port in ports if isinstance(ports, list) else str(ports).split(","):
            (out.bound if stage == "ingress" else out.bound_out)[str(port)] = (name, line)
    management_ports = {key.partition("|")[0] for key, _ in db.table("MGMT_INTERFACE").entries}
    # caclmgrd reads a rule's fields by their upper-cased names
    control_rules: dict[str, list[Rule]] = {
        name: [(rule, {str(k).upper(): v for k, v in fields.items()}, at) for _, rule, fields, at in rules.get(name, [])]
        for name, _, _ in control}
    out.control_plane = control_plane(control, control_rules, management_ports)
    if out.control_plane is not None:
        out.unread += out.control_plane.notes
    tables = {k for k, _ in db.table("ACL_TABLE").entries}
    for table, listed in rules.items():
        if table not in tables:
            out.unread.append((listed[0][3], f"ACL_RULE {table}|{listed[0][1]}: no ACL_TABLE {table}"))
    return out


def _acl_rule(fields: dict[str, Any], line: int) -> AclEntry | str | None:
    """One ACL_RULE as an entry; _NOT_IPV4 for a rule that matches no IPv4 packet; None: not read."""
    if set(fields) - _ACL_RULE_FIELDS:
        return None
    action = {"FORWARD": "permit", "DROP": "deny"}.get(str(fields.get("PACKET_ACTION", "")).upper())
    if action is None:  # REDIRECT, a missing action ...
        return None
    ether = str(fields.get("ETHER_TYPE", "0x0800")).lower()
    ip_type = str(fields.get("IP_TYPE", "IPV4ANY")).upper()
    if ether not in ("2048", "0x0800", "0x800") or ip_type in ("IPV6ANY", "IPV6", "NON_IP", "NON_IPV4", "ARP",
                                                                  "ARP_REQUEST", "ARP_REPLY"):
        return _NOT_IPV4
    if ip_type not in ("ANY", "IP", "IPV4", "IPV4ANY"):
        return None
    protocol = str(fields.get("IP_PROTOCOL", ""))
    proto = "ip" if not protocol else _PROTOCOLS.get(protocol) or (protocol if protocol.isascii() and protocol.isdigit()
                                                                  and int(protocol) < 256 else None)
    if proto is None:
        return None
    nets = []
    for key in ("SRC_IP", "DST_IP"):
        value = str(fields.get(key, "0.0.0.0/0"))
        value = value if "/" in value else value + "/32"
        if not is_prefix(value):
            return None
        nets.append(network_of(value))
    ports: list[tuple[tuple[int, int], ...] | None] = []
    for single, spread in (("L4_SRC_PORT", "L4_SRC_PORT_RANGE"), ("L4_DST_PORT", "L4_DST_PORT_RANGE")):
        if single in fields and spread in fields:
            return None
        text = str(fields.get(single, fields.get(spread, "")))
        low, _, high = text.partition("-") if spread in fields else (text, "", text)
        if not text:
            ports.append(None)
        elif is_decimal(low) and is_decimal(high) and int(low) <= int(high) < 65536:
            ports.append(((int(low), int(high)),))
        else:
            return None
    return AclEntry(action, proto, nets[0], nets[1], ports[0], ports[1], line)


GNMI_PORT = 8080  # gnmi-native.sh's port when config_db has no GNMI|gnmi port


def parse_routing(name: str, folder: Path) -> DeviceConfig:
    """frr.conf, read only when config_db.json puts FRR in split-unified mode: in any other mode
    SONiC generates FRR's configuration from config_db's BGP tables (none are rendered) and never
    reads this file. config_db.json's access lists are read here too (they decide which sessions
    come up and what RoCE traffic passes)."""
    dev = DeviceConfig(name=name, platform="sonic")
    text = read_text(folder / FILE)
    # the file's tables, read once when one of those read below is there (its findings are the base side's)
    db = (read_config_db(text, DeviceConfig(name=name, platform="sonic"))
          if any(table in text for table in ('"ACL_TABLE"', '"bgp"', '"STATIC_ROUTE"')) else None)
    if '"ACL_TABLE"' in text and db is not None:
        acls = read_acls(db)
        dev.acls.update(acls.lists)
        dev.acl_in.update(acls.bound)
        dev.acl_out.update(acls.bound_out)
        dev.acl_file = FILE
        cp = acls.control_plane
        if cp is not None and cp.active:
            # caclmgrd's chain guards every VRF's packets for the switch; only the management
            # port's are judged against it (BGP is accepted ahead of it on the other ports)
            dev.acls[cp.name] = cp.entries
            dev.control_plane_acls[MANAGEMENT_VRF] = (cp.name, cp.line)
            dev.api_port = _port_number(_fields(db.table("GNMI").get("gnmi")).get("port", GNMI_PORT)) or GNMI_PORT
    mode = _MODE.findall(text)
    if mode[-1:] != [ROUTING_MODE]:
        dev.routing_file = "frr.conf"
        dev.unmodelled.append((0, f"config_db.json docker_routing_config_mode is {mode[-1] if mode else 'not set'}, "
                                  f"not {ROUTING_MODE}: SONiC does not run frr.conf"))
        return dev
    if '"bgp"' in text:  # only then can FEATURE turn the BGP container off
        state = _fields(db.table("FEATURE").get("bgp")).get("state", "enabled") if db is not None else "enabled"
        if state not in ("enabled", "always_enabled"):
            dev.routing_file = "frr.conf"
            dev.unmodelled.append((0, f"config_db.json FEATURE bgp is {str(state)[:20]}: SONiC runs no BGP "
                                      "container, frr.conf is never read"))
            return dev
    parse_frr(read_text(folder / "frr.conf"), dev)
    if '"STATIC_ROUTE"' in text and db is not None:
        static_routes(dev, db)
    return dev


_STATIC_FIELDS = ("blackhole", "nexthop", "ifname", "distance", "nexthop-vrf")
_STATIC_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,14}")  # bgpcfgd's check of a VRF or port name
_STATIC_KNOWN = {*_STATIC_FIELDS, "advertise", "bfd"}


def static_routes(dev: DeviceConfig, db: ConfigDb) -> None:
    """config_db's STATIC_ROUTE as bgpcfgd's StaticRouteMgr applies it (it runs unless the
    management framework configures FRR; read in its source): an entry's comma lists `blackhole`,
    `nexthop`, `ifname`, `distance`, `nexthop-vrf` give one next hop per position (lists of unequal
    length: the entry is refused; a hop with neither gateway nor port, or a value it cannot read,
    is dropped) and each hop becomes FRR's `ip route PREFIX HOP [DISTANCE] [nexthop-vrf V] [vrf V]`
    in the key's VRF (`VRF|PREFIX`, else the default VRF). Unless `advertise` is "false" the prefix
    is also redistributed into that VRF's BGP instance (`redistribute static route-map
    STATIC_ROUTE_FILTER`, which passes only these routes, by their tag), through `router bgp ASN`
    of DEVICE_METADATA's `bgp_asn`: another ASN than frr.conf's is refused by bgpd and nothing is
    redistributed. An entry with `bfd` "true" is installed by staticroutebfd while its BFD sessions
    are up: reported, not judged. A hop with both a gateway and a port is FRR's `ip route PREFIX
    GATEWAY PORT` (parsers.settle_port_gateways)."""
    asn = str(_fields(db.table("DEVICE_METADATA").get("localhost")).get("bgp_asn", ""))
    feed: dict[str | None, dict[str, int]] = {}
    for key, value in db.table("STATIC_ROUTE").entries:
        line = db.line("STATIC_ROUTE", key)
        fields = _fields(value)
        vrf_name, _, prefix = key.partition("|") if "|" in key else ("default", "", key)
        vrf = None if vrf_name == "default" else vrf_name
        if not is_prefix(prefix):
            dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key[:60]}: not an IPv4 prefix (not judged)"))
            continue
        for extra in sorted(set(fields) - _STATIC_KNOWN):
            dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key} field {extra[:30]} (not read)"))
        if not all(isinstance(fields[k], str) for k in _STATIC_KNOWN & set(fields)):
            dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key}: a field that is not a string (not read)"))
            continue
        names = [vrf_name if vrf is not None else "", *str(fields.get("ifname", "")).split(","),
                 *str(fields.get("nexthop-vrf", "")).split(",")]
        if not all(name == "" or _STATIC_NAME.fullmatch(name) for name in names):
            dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key[:60]}: a VRF or port name bgpcfgd refuses "
                                      "(no route)"))
            continue
        if str(fields.get("bfd", "")).split(",")[0].strip().lower() == "true":
            dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key} with bfd: staticroutebfd installs it "
                                      "while its BFD sessions are up (not judged)"))
            continue
        lists = {k: str(fields[k]).split(",") for k in _STATIC_FIELDS if k in fields and str(fields[k]).strip()}
        if not {"blackhole", "nexthop", "ifname"} & set(lists):
            continue  # (no next hop at all: bgpcfgd installs nothing)
        if len({len(v) for v in lists.values()}) != 1:
            dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key}: lists of unequal length, bgpcfgd "
                                      "refuses the entry (no route)"))
            continue
        added = False
        seen: set[tuple[tuple[str, str], ...]] = set()  # (bgpcfgd keeps the hops as a set: one of each)
        for i in range(len(next(iter(lists.values())))):
            hop = {k: v[i].strip() for k, v in lists.items()}
            same = tuple(sorted(hop.items()))
            if same in seen:
                continue
            seen.add(same)
            gateway = hop.get("nexthop", "")
            gateway = "" if gateway in ("0.0.0.0", "") else gateway
            if hop.get("blackhole") == "true":
                words = ["ip", "route", prefix, "blackhole"]
            elif gateway and hop.get("ifname") and is_ip(gateway):
                words = ["ip", "route", prefix, gateway, hop["ifname"]]  # (settled once the ports are known)
            elif gateway or hop.get("ifname"):
                words = ["ip", "route", prefix, gateway or hop["ifname"]]
            else:
                continue  # (bgpcfgd drops a hop with neither)
            distance = hop.get("distance", "")
            if distance not in ("", "0"):
                words.append(distance)
            if hop.get("nexthop-vrf"):
                words += ["nexthop-vrf", hop["nexthop-vrf"]]
            if gateway and not is_ip(gateway):
                dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key}: next hop {gateway[:40]} is no IPv4 "
                                          "address, bgpcfgd drops it"))
                continue
            route = static_route(words, vrf, line)
            if route is None:
                dev.unmodelled.append((0, f"{FILE}:{line}: STATIC_ROUTE {key}: next hop {' '.join(words[3:])[:60]} "
                                          "(not read)"))
                continue
            route.file = FILE
            dev.static_routes.append(route)
            added = True
        if added and str(fields.get("advertise", "true")).strip().lower() != "false":
            feed.setdefault(vrf, {}).setdefault(net_str(network_of(prefix)), line)
    for vrf, prefixes in feed.items():
        inst = dev.bgp.get(vrf)
        if inst is None:
            continue  # (no BGP in that VRF: nothing carries the routes anywhere)
        if asn != str(inst.asn):
            first = min(prefixes.values())
            dev.unmodelled.append((0, f"{FILE}:{first}: STATIC_ROUTE is redistributed through `router bgp "
                                      f"{asn[:20] or '(no bgp_asn)'}`, not frr.conf's {inst.asn}: bgpd refuses it, "
                                      "nothing is redistributed"))
            continue
        inst.static_feed = prefixes
