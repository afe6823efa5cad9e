"""Cumulus qos_features.conf (key = value) -> DSCP maps and per-port PFC, ECN and scheduling."""

from __future__ import annotations

import re

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


def parse_qos_features(text: str, dev: DeviceConfig) -> None:
    kv: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        kv[key.strip()] = value.strip()
    prio_to_tc: dict[int, int] = {}
    for key, value in kv.items():
        m = re.fullmatch(r"traffic\.cos_(\d+)\.priority_source\.dscp", key)
        if m:
            for dscp in _list(value):
                dev.qos.dscp_to_priority[int(dscp)] = int(m.group(1))
        m = re.fullmatch(r"traffic\.cos_(\d+)\.egress_queue", key)
        if m:
            prio_to_tc[int(m.group(1))] = int(value)
    for code, prio in dev.qos.dscp_to_priority.items():
        dev.qos.dscp_to_tc[code] = prio_to_tc.get(prio, prio)

    def ports(group_key: str) -> list[Interface]:
        return [dev.interfaces.setdefault(name, Interface(name)) for name in expand_port_set(kv.get(group_key, ""))]

    for group in _list(kv.get("pfc.port_group_list", "")):
        prios = [int(p) for p in _list(kv.get(f"pfc.{group}.cos_list", ""))]
        for iface in ports(f"pfc.{group}.port_set"):
            iface.pfc_priorities = sorted(set((iface.pfc_priorities or []) + prios))
    for group in _list(kv.get("ecn_red.port_group_list", "")):
        if kv.get(f"ecn_red.{group}.ecn_enable", "true") != "true":
            continue
        profile = EcnProfile(int(kv.get(f"ecn_red.{group}.min_threshold_bytes", "0")),
                             int(kv.get(f"ecn_red.{group}.max_threshold_bytes", "0")),
                             int(kv.get(f"ecn_red.{group}.probability", "0")))
        for iface in ports(f"ecn_red.{group}.port_set"):
            iface.ecn = iface.ecn or {}
            for tc in _list(kv.get(f"ecn_red.{group}.egress_queue_list", "")):
                iface.ecn[int(tc)] = profile
    for profile_name in _list(kv.get("scheduling.egress_profile_list", "")):
        strict = [int(m.group(1)) for k, v in kv.items()
                  if (m := re.fullmatch(rf"scheduling\.{re.escape(profile_name)}\.egress_queue_(\d+)\.mode", k))
                  and v == "strict"]
        for iface in ports(f"scheduling.{profile_name}.port_set"):
            iface.strict_tcs = sorted(set(iface.strict_tcs + strict))
