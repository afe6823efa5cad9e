"""Cumulus qos_features.conf (key = value) -> DSCP maps and per-port PFC, ECN and scheduling."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from dualrail_net.verify.model import DeviceConfig, EcnProfile, Interface


def _list(value: str) -> list[str]:
    return [v.strip() for v in value.strip().strip("[]").split(",") if v.strip()]


def expand_port_set(spec: str) -> list[str]:
    """'swp1-swp3,swp7' -> ['swp1', 'swp2', 'swp3', 'swp7']."""
    out: list[str] = []
    for part in _list(spec):
        m = re.fullmatch(r"([a-z]+)(\d+)-([a-z]+)?(\d+)", part)
        if m:
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


_COMMENTS = re.compile(r"^[ \t]*#.*\n?", re.M)


def parse_qos_features(text: str, dev: DeviceConfig) -> None:
    # the files of one plane's leaves differ only in their header comment (the hostname)
    parsed = _parse_qos_text(_COMMENTS.sub("", text))
    dev.qos.dscp_to_priority.update(parsed.dscp_to_priority)
    dev.qos.dscp_to_tc.update(parsed.dscp_to_tc)
    for name in parsed.pfc.keys() | parsed.ecn.keys() | parsed.strict.keys():
        iface = dev.interfaces.get(name)
        if iface is None:  # a QoS port the interfaces file does not list
            iface = dev.interfaces[name] = Interface(name)
        if name in parsed.pfc:
            iface.pfc_priorities = parsed.pfc[name]
        if name in parsed.ecn:
            iface.ecn = parsed.ecn[name]
        if name in parsed.strict:
            iface.strict_tcs = parsed.strict[name]


@lru_cache(maxsize=256)
def _parse_qos_text(text: str) -> QosFile:
    kv: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        kv[key.strip()] = value.strip()
    dscp_to_priority: dict[int, int] = {}
    prio_to_tc: dict[int, int] = {}
    for key, value in kv.items():
        m = re.fullmatch(r"traffic\.cos_(\d+)\.priority_source\.dscp", key)
        if m:
            for dscp in _list(value):
                dscp_to_priority[int(dscp)] = int(m.group(1))
        m = re.fullmatch(r"traffic\.cos_(\d+)\.egress_queue", key)
        if m:
            prio_to_tc[int(m.group(1))] = int(value)
    dscp_to_tc = {code: prio_to_tc.get(prio, prio) for code, prio in dscp_to_priority.items()}

    def ports(group_key: str) -> list[str]:
        return expand_port_set(kv.get(group_key, ""))

    pfc: dict[str, set[int]] = {}
    for group in _list(kv.get("pfc.port_group_list", "")):
        prios = {int(p) for p in _list(kv.get(f"pfc.{group}.cos_list", ""))}
        for name in ports(f"pfc.{group}.port_set"):
            pfc.setdefault(name, set()).update(prios)
    ecn: dict[str, dict[int, EcnProfile]] = {}
    for group in _list(kv.get("ecn_red.port_group_list", "")):
        if kv.get(f"ecn_red.{group}.ecn_enable", "true") != "true":
            continue
        profile = EcnProfile(int(kv.get(f"ecn_red.{group}.min_threshold_bytes", "0")),
                             int(kv.get(f"ecn_red.{group}.max_threshold_bytes", "0")),
                             int(kv.get(f"ecn_red.{group}.probability", "0")))
        for name in ports(f"ecn_red.{group}.port_set"):
            for tc in _list(kv.get(f"ecn_red.{group}.egress_queue_list", "")):
                ecn.setdefault(name, {})[int(tc)] = profile
    strict: dict[str, set[int]] = {}
    for profile_name in _list(kv.get("scheduling.egress_profile_list", "")):
        queues = [int(m.group(1)) for k, v in kv.items()
                  if (m := re.fullmatch(rf"scheduling\.{re.escape(profile_name)}\.egress_queue_(\d+)\.mode", k))
                  and v == "strict"]
        for name in ports(f"scheduling.{profile_name}.port_set"):
            strict.setdefault(name, set()).update(queues)
    # ports of one group share their (never mutated) lists and dicts: checks compare them cheaply
    shared: dict[frozenset[int], list[int]] = {}
    same_ecn: dict[tuple[tuple[int, int], ...], dict[int, EcnProfile]] = {}
    return QosFile(dscp_to_priority, dscp_to_tc,
                   {n: shared.setdefault(frozenset(v), sorted(v)) for n, v in pfc.items()},
                   {n: same_ecn.setdefault(tuple(sorted((tc, id(p)) for tc, p in v.items())), v) for n, v in ecn.items()},
                   {n: shared.setdefault(frozenset(v), sorted(v)) for n, v in strict.items()})
