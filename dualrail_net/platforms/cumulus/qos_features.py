"""Cumulus qos_features.conf (key = value) -> DSCP maps and per-port PFC, ECN and scheduling."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from dualrail_net.verify.model import DeviceConfig, EcnProfile, Interface, PfcHeadroom


def _list(value: str) -> list[str]:
    return [v.strip() for v in value.strip().strip("[]").split(",") if v.strip()]


def expand_port_set(spec: str) -> list[str]:
    """'swp1-swp3,swp7' -> ['swp1', 'swp2', 'swp3', 'swp7']."""
    out: list[str] = []
    for part in _list(spec):
        m = re.fullmatch(r"([a-z]+)(\d{1,4})-([a-z]+)?(\d{1,4})", part)
        if m and int(m.group(4)) - int(m.group(2)) <= 1024:  # a switch has at most 1024 ports
            out.extend(f"{m.group(1)}{n}" for n in range(int(m.group(2)), int(m.group(4)) + 1))
        else:
            out.append(part)
    return out


@dataclass(frozen=True)
class QosFile:
    """What one qos_features.conf says, per port. Immutable: one parse is shared by every switch
    whose file has the same text (all the leaves of a plane, typically)."""

    dscp_to_priority: dict[int, int]
    dscp_to_tc: dict[int, int]
    pfc: dict[str, list[int]]
    ecn: dict[str, dict[int, EcnProfile]]
    strict: dict[str, list[int]]
    trust: str | None  # traffic.packet_priority_source_set: what sets a packet's priority
    unmodelled: tuple[str, ...]  # lines not understood (their text)
    dwrr: dict[str, dict[int, int]]  # port -> DWRR traffic class -> its share in percent (one dict per profile)
    default_priority: int | None  # traffic.port_default_priority
    headroom: dict[str, PfcHeadroom]  # port -> its PFC group's xoff_size and cable_length


# the keys switchd reads that the model reads or knows change nothing it judges
_KNOWN = re.compile(r"traffic\.(packet_priority_source_set|port_default_priority|traffic_class_list|"
                    r"cos_\d+\.priority_source\.dscp|cos_\d+\.egress_queue)|"
                    r"pfc\.(port_group_list|\w+\.(cos_list|port_set|xoff_size|xon_delta|tx_enable|rx_enable|cable_length))|"
                    r"ecn_red\.(port_group_list|\w+\.(egress_queue_list|port_set|ecn_enable|red_enable|"
                    r"min_threshold_bytes|max_threshold_bytes|probability))|"
                    r"scheduling\.(egress_profile_list|\w+\.(port_set|egress_queue_\d+\.(mode|weight)))")


def _number(value: str, limit: int = 1 << 40) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 13 and int(value) <= limit else None


_COMMENTS = re.compile(r"^[ \t]*#.*\n?", re.M)


def parse_qos_features(text: str, dev: DeviceConfig) -> None:
    # the files of one plane's leaves differ only in their header comment (the hostname)
    parsed = _parse_qos_text(_COMMENTS.sub("", text))
    dev.qos.dscp_to_priority.update(parsed.dscp_to_priority)
    dev.qos.dscp_to_tc.update(parsed.dscp_to_tc)
    dev.qos.trust = parsed.trust
    if parsed.default_priority is not None:
        dev.qos.default_priority = parsed.default_priority
        dev.qos.default_priority_line = next((i for i, line in enumerate(text.split("\n"), 1)
                                              if line.strip().startswith("traffic.port_default_priority")), 0)
    if parsed.unmodelled:
        lines = text.split("\n")
        for item in parsed.unmodelled:
            key = item.split()[0].rstrip("*")  # a finding about a key's groups names the key first
            number = next((i for i, line in enumerate(lines, 1) if line.strip() == item), 0) or \
                next((i for i, line in enumerate(lines, 1) if line.strip().startswith(key)), 0)
            dev.base_unmodelled.append(("qos_features.conf", number, item))
    for name in parsed.pfc.keys() | parsed.ecn.keys() | parsed.strict.keys() | parsed.dwrr.keys() | parsed.headroom.keys():
        iface = dev.interfaces.get(name)
        if iface is None:  # a QoS port the interfaces file does not list
            iface = dev.interfaces[name] = Interface(name)
        if name in parsed.pfc:
            iface.pfc_priorities = parsed.pfc[name]
        if name in parsed.ecn:
            iface.ecn = parsed.ecn[name]
        if name in parsed.strict:
            iface.strict_tcs = parsed.strict[name]
        if name in parsed.dwrr:
            iface.dwrr_share = parsed.dwrr[name]
        if name in parsed.headroom:
            iface.pfc_headroom = parsed.headroom[name]


@lru_cache(maxsize=256)
def _parse_qos_text(text: str) -> QosFile:
    kv: dict[str, str] = {}
    unmodelled: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        if not eq or not _KNOWN.fullmatch(key.strip()):
            unmodelled.append(line)
            continue
        kv[key.strip()] = value.strip()
    dscp_to_priority: dict[int, int] = {}
    prio_to_tc: dict[int, int] = {}
    for key, value in kv.items():
        m = re.fullmatch(r"traffic\.cos_([0-9]{1,3})\.priority_source\.dscp", key)
        if m:
            codes = [_number(d, 63) for d in _list(value)]
            if None in codes or int(m.group(1)) > 7:
                unmodelled.append(f"{key} = {value}")
                continue
            for dscp in codes:
                assert dscp is not None
                dscp_to_priority[dscp] = int(m.group(1))
        m = re.fullmatch(r"traffic\.cos_([0-9]{1,3})\.egress_queue", key)
        if m:
            queue = _number(value, 7)
            if queue is None:
                unmodelled.append(f"{key} = {value}")
            else:
                prio_to_tc[int(m.group(1))] = queue
    dscp_to_tc = {code: prio_to_tc.get(prio, prio) for code, prio in dscp_to_priority.items()}
    sources = _list(kv.get("traffic.packet_priority_source_set", "[]"))
    trust = ",".join(sources) if sources else None

    def ports(group_key: str) -> list[str]:
        return expand_port_set(kv.get(group_key, ""))

    def numbers(key: str, limit: int) -> list[int]:
        values = [_number(v, limit) for v in _list(kv.get(key, ""))]
        if None in values:
            unmodelled.append(f"{key} = {kv.get(key)}")
        return [v for v in values if v is not None]

    # the traffic classes switchd sets up: a class out of 0-7 is none it has (what it then does is
    # not modelled: said), and the classes the file's keys name must all be listed
    if "traffic.traffic_class_list" in kv:
        classes = set(numbers("traffic.traffic_class_list", 7))
        named = set(prio_to_tc.values())
        if classes and not named <= classes:
            missing = ", ".join(map(str, sorted(named - classes)))
            unmodelled.append(f"traffic.traffic_class_list = {kv['traffic.traffic_class_list']}: traffic class(es) "
                              f"{missing} of the egress_queue lines not listed")
    # a port two groups of one section name: which group's settings switchd gives it is not known
    # here (nothing documents an order): reported, each section once per port
    for section, list_key, _ in _GROUP_LISTS:
        claimed: dict[str, str] = {}
        for group in _list(kv.get(f"{section}.{list_key}", "")):
            again: dict[str, list[str]] = {}  # an earlier group -> the ports this one names again
            for name in ports(f"{section}.{group}.port_set"):
                first = claimed.setdefault(name, group)
                if first != group:
                    again.setdefault(first, []).append(name)
            for first, names in again.items():
                more = f" and {len(names) - 1} more" if len(names) > 1 else ""
                unmodelled.append(f"{section}.{group}.port_set names {names[0]}{more}, which {section}.{first} "
                                  "names too: which group's settings switchd applies to them is not modelled")
    pfc: dict[str, set[int]] = {}
    headroom: dict[str, PfcHeadroom] = {}
    for group in _list(kv.get("pfc.port_group_list", "")):
        prios = set(numbers(f"pfc.{group}.cos_list", 7))
        room = PfcHeadroom(_number(kv.get(f"pfc.{group}.xoff_size", "")), _number(kv.get(f"pfc.{group}.cable_length", "")))
        for key in (f"pfc.{group}.xoff_size", f"pfc.{group}.cable_length"):
            if key in kv and _number(kv[key]) is None:
                unmodelled.append(f"{key} = {kv[key]}")
        # a pause frame must be both sent (tx) and honoured (rx): one direction off is no lossless class.
        # Each direction is one the file enables ("enable PFC frame transmit and/or PFC frame receive",
        # switchd's own notes): a group that does not say `true` (a key left out or misspelt) is not
        # taken as enabled
        if kv.get(f"pfc.{group}.tx_enable") != "true" or kv.get(f"pfc.{group}.rx_enable") != "true":
            prios = set()
        for name in ports(f"pfc.{group}.port_set"):
            pfc.setdefault(name, set()).update(prios)
            if room != PfcHeadroom():
                headroom[name] = room
    ecn: dict[str, dict[int, EcnProfile]] = {}
    for group in _list(kv.get("ecn_red.port_group_list", "")):
        if kv.get(f"ecn_red.{group}.ecn_enable") != "true":  # (marking is enabled by the file, as PFC is)
            continue
        low = _number(kv.get(f"ecn_red.{group}.min_threshold_bytes", "0"))
        high = _number(kv.get(f"ecn_red.{group}.max_threshold_bytes", "0"))
        prob = _number(kv.get(f"ecn_red.{group}.probability", "0"), 100)
        if low is None or high is None or prob is None:
            unmodelled.append(f"ecn_red.{group}: thresholds or probability not numbers")
            continue
        profile = EcnProfile(low, high, prob, kv.get(f"ecn_red.{group}.red_enable", "false") == "true")
        for name in ports(f"ecn_red.{group}.port_set"):
            for tc in numbers(f"ecn_red.{group}.egress_queue_list", 7):
                ecn.setdefault(name, {})[tc] = profile
    strict: dict[str, set[int]] = {}
    dwrr: dict[str, dict[int, int]] = {}
    for profile_name in _list(kv.get("scheduling.egress_profile_list", "")):
        modes = {int(m.group(1)): v for k, v in kv.items()
                 if (m := re.fullmatch(rf"scheduling\.{re.escape(profile_name)}\.egress_queue_([0-9]{{1,3}})\.mode", k))}
        queues = [q for q, mode in modes.items() if mode == "strict"]
        # DWRR weights are relative: each queue's share is its weight over the sum of the profile's
        weights = {q: _number(kv.get(f"scheduling.{profile_name}.egress_queue_{q}.weight", ""), 1 << 20)
                   for q, mode in modes.items() if mode == "dwrr"}
        if None in weights.values():
            unmodelled.append(f"scheduling.{profile_name}: a DWRR queue without a numeric weight")
        total = sum(w for w in weights.values() if w)
        shares = {q: round(100 * w / total) for q, w in weights.items() if w is not None} if total else {}
        for name in ports(f"scheduling.{profile_name}.port_set"):
            strict.setdefault(name, set()).update(queues)
            if shares:
                dwrr[name] = shares
    unmodelled += _unlisted_groups(kv)
    if "traffic.port_default_priority" in kv and _number(kv["traffic.port_default_priority"], 7) is None:
        unmodelled.append(f"traffic.port_default_priority = {kv['traffic.port_default_priority']}")
    # ports of one group share their (never mutated) lists and dicts: checks compare them cheaply
    shared: dict[frozenset[int], list[int]] = {}
    same_ecn: dict[tuple[tuple[int, int], ...], dict[int, EcnProfile]] = {}
    return QosFile(dscp_to_priority, dscp_to_tc,
                   {n: shared.setdefault(frozenset(v), sorted(v)) for n, v in pfc.items()},
                   {n: same_ecn.setdefault(tuple(sorted((tc, id(p)) for tc, p in v.items())), v) for n, v in ecn.items()},
                   {n: shared.setdefault(frozenset(v), sorted(v)) for n, v in strict.items()},
                   trust, tuple(unmodelled), dwrr, _number(kv.get("traffic.port_default_priority", ""), 7), headroom)


# each section's list of groups (or profiles), and the key a group of it cannot do without
_GROUP_LISTS = (("pfc", "port_group_list", "port_set"), ("ecn_red", "port_group_list", "port_set"),
                ("scheduling", "egress_profile_list", "port_set"))


def _unlisted_groups(kv: dict[str, str]) -> list[str]:
    """switchd applies the groups a section's list names, each to its ``port_set``: a group listed
    without one applies to no port, and a group's keys the list does not name apply to nothing.
    Both change nothing the file seems to say: reported, never taken silently."""
    out = []
    for section, list_key, needed in _GROUP_LISTS:
        listed = _list(kv.get(f"{section}.{list_key}", ""))
        defined = {key.split(".")[1] for key in kv if key.startswith(f"{section}.") and key.count(".") >= 2}
        out += [f"{section}.{list_key} names {group}, which has no {section}.{group}.{needed}: it applies to no port"
                for group in listed if f"{section}.{group}.{needed}" not in kv]
        out += [f"{section}.{group}.* keys, but {section}.{list_key} does not name {group}: switchd ignores them"
                for group in sorted(defined - set(listed))]
    return out
