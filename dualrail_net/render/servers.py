"""Resolved server -> structured server config (per-NIC routing, NCCL environment)."""

from __future__ import annotations

from typing import Any

from dualrail_net.render.escape import Text
from dualrail_net.resolve.allocate import bare
from dualrail_net.resolve.model import Fabric, ResolvedServer

SERVER_FILES = (
    ("server/interfaces.j2", "interfaces"),
    ("server/nccl.env.j2", "nccl.env"),
    ("server/sysctl.conf.j2", "sysctl.conf"),
    ("server/nic-qos.sh.j2", "nic-qos.sh"),
    ("server/dualrail-nic-qos.service.j2", "dualrail-nic-qos.service"),
)

ROCE_V2_IPV4_GID_INDEX = 3


def server_structured(fabric: Fabric, srv: ResolvedServer) -> dict[str, Any]:
    planes = sorted({p.plane for p in srv.ports})
    qos = next(iter(fabric.qos.values()))
    routes_by_dev: dict[str, list[dict[str, str]]] = {}
    for r in srv.plane_routes:
        routes_by_dev.setdefault(r.dev, []).append({"prefix": r.prefix, "via": r.via, "dev": r.dev})
    ports = [
        {
            "nic": p.nic, "port": p.port, "ifname": p.ifname, "plane": p.plane, "rail": p.rail,
            "address": p.address, "source": bare(p.address), "gateway": p.gateway, "leaf": p.leaf,
            "leaf_port": p.leaf_port, "table": p.table, "mtu": p.mtu,
            "plane_routes": routes_by_dev.get(p.ifname, []),
        }
        for p in srv.ports
    ]
    hca_order = sorted(srv.ports, key=lambda p: (p.rail, p.plane))
    nic_qos = []
    profiles = set()
    for p in srv.ports:
        profile = fabric.planes[p.plane].qos_profile
        profiles.add(profile)
        q = fabric.qos[profile]
        nic_qos.append({
            "ifname": p.ifname, "rdma_device": p.rdma_device, "mtu": p.mtu, "trust": q.trust,
            "pfc": ",".join(str(x) for x in q.pfc_priorities), "ecn": q.roce_priority,
            "cnp_dscp": q.cnp_dscp, "cnp_prio": q.cnp_priority, "roce_tos": q.roce_dscp << 2,
        })
    return {
        "name": srv.name,
        "model": srv.model,
        "description": Text(srv.model_description),
        "planes": planes,
        "port_count": len(srv.ports),
        "ports": ports,
        "nic_qos": {"profile": ", ".join(sorted(profiles)), "ports": nic_qos},
        "nccl": {
            "ib_hca": "=" + ",".join(f"{p.rdma_device}:1" for p in hca_order),
            "gid_index": ROCE_V2_IPV4_GID_INDEX,
            "dscp": qos.roce_dscp,
            "ib_tc": qos.roce_dscp << 2,
            "qps_per_connection": 2,
        },
    }
