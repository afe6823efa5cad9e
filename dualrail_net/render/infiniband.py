"""IB plane -> structured OpenSM config: partitions (by port GUID), opensm.conf, ftree GUID files,
and the IB cabling plan (what the simulated verification builds its fabric from)."""

from __future__ import annotations

import csv
import io
from typing import Any

from dualrail_net.resolve.model import IbPlane

OPENSM_ROOT = "/etc/opensm"
MTU_CODES = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}
DEFAULT_PKEY = 0x7FFF
MASTER_PRIORITY = 15  # opensm's highest: the master SM of the plane
STANDBY_PRIORITY = 14  # below it: the standby polls the master and takes over when it goes
STANDBY_CONF = "opensm-standby.conf"
IB_FILES = (
    ("opensm/opensm.conf.j2", "opensm.conf"),
    ("opensm/partitions.conf.j2", "partitions.conf"),
    ("opensm/root_guids.conf.j2", "root_guids.conf"),
    ("opensm/cn_guids.conf.j2", "cn_guids.conf"),
)


def ib_dir(plane: str) -> str:
    return f"ib-plane-{plane}"


def _flags(ipoib: bool, mtu: int | None, rate: int | None, sl: int | None) -> list[str]:
    flags = ["ipoib"] if ipoib else []
    if mtu:
        flags.append(f"mtu={MTU_CODES[mtu]}")
    if rate:
        flags.append(f"rate={rate}")
    if sl is not None:
        flags.append(f"sl={sl}")
    return flags


def ib_structured(plane: IbPlane) -> dict[str, Any]:
    config_dir = f"{OPENSM_ROOT}/{plane.name}"
    ftree = plane.routing_engine == "ftree"
    # Ports in no tenant partition get the default partition's policy; the SM port is always full.
    default_members = {"full": ["ALL=full"], "limited": ["ALL=limited", "SELF=full"], "none": ["SELF=full"]}
    return {
        "plane": plane.name,
        "config_dir": config_dir,
        "sm_host": plane.sm_host,
        "sm_guid": plane.sm_guid,
        "sm_role": "master",
        "sm_priority": MASTER_PRIORITY,
        "subnet_prefix": plane.subnet_prefix,
        "routing_engine": plane.routing_engine,
        "root_guid_file": f"{config_dir}/root_guids.conf" if ftree else None,
        "cn_guid_file": f"{config_dir}/cn_guids.conf" if ftree else None,
        "partition_file": f"{config_dir}/partitions.conf",
        "log_file": f"/var/log/opensm-{plane.name}.log",
        "default": {"name": "Default", "pkey": f"0x{DEFAULT_PKEY:04x}", "flags": ["ipoib"],
                    "members": default_members[plane.default_partition]},
        "partitions": [
            {"name": p.name, "pkey": f"0x{p.pkey:04x}", "flags": _flags(p.ipoib, p.mtu, p.rate, p.sl),
             "members": [{"guid": m.guid, "membership": m.membership, "server": m.server} for m in p.members]}
            for p in plane.partitions
        ],
        "root_guids": [s.guid for s in plane.switches if s.role == "spine"],
        "cn_guids": [h.guid for h in plane.hosts],
    }


def standby_structured(plane: IbPlane, master: dict[str, Any]) -> dict[str, Any] | None:
    """The standby SM's opensm.conf values: the master's, bound to the standby's port, lower priority.
    (Same partitions and routing files: after a failover the subnet keeps its partitions.)"""
    if not plane.sm_standby:
        return None
    return dict(master, sm_host=plane.sm_standby, sm_guid=plane.sm_standby_guid, sm_role="standby",
                sm_priority=STANDBY_PRIORITY)


IB_CABLING_COLUMNS = ["a", "a_port", "a_guid", "b", "b_port", "b_guid"]


def ib_cabling_csv(plane: IbPlane) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(IB_CABLING_COLUMNS)
    for link in plane.links:
        writer.writerow([link.a, link.a_port, link.a_guid, link.b, link.b_port, link.b_guid])
    return buf.getvalue()
