"""Resolved server -> structured server config (per-NIC routing, NCCL/UCX environment, the NCCL
topology of its model, NIC QoS)."""

from __future__ import annotations

from typing import Any

from dualrail_net.manifest import TopologyNetEntry
from dualrail_net.render.escape import Escaped, Text
from dualrail_net.resolve.allocate import bare
from dualrail_net.resolve.model import Fabric, HostLayout, ResolvedServer

SERVER_FILES = (
    ("server/interfaces.j2", "interfaces"),
    ("server/nccl.env.j2", "nccl.env"),
    ("server/sysctl.conf.j2", "sysctl.conf"),
    ("server/nic-qos.sh.j2", "nic-qos.sh"),
    ("server/dualrail-nic-qos.service.j2", "dualrail-nic-qos.service"),
)
# rendered only for a server whose model lists its GPUs (the same text for every server of the model)
TOPOLOGY_FILE = ("server/nccl-topo.xml.j2", "nccl-topo.xml")

# Where a server keeps each file (a Debian/Ubuntu host with ifupdown2). nccl.env names the topology
# file by this path, so the render knows it; the server driver deploys to these paths.
HOST_PATHS = {"interfaces": "/etc/network/interfaces.d/dualrail.intf", "nccl.env": "/etc/dualrail/nccl.env",
              "sysctl.conf": "/etc/sysctl.d/90-dualrail.conf", "nic-qos.sh": "/usr/local/sbin/dualrail-nic-qos",
              "dualrail-nic-qos.service": "/etc/systemd/system/dualrail-nic-qos.service",
              "nccl-topo.xml": "/etc/dualrail/nccl-topo.xml"}

ROCE_V2_IPV4_GID_INDEX = 3
# 4.096 us x 2^22 = 17 s before a QP gives up on a lost packet: long enough to ride out a PFC storm or
# a link flap in a large fabric; 7 retries is the verbs maximum.
NCCL_IB_TIMEOUT = 22
NCCL_IB_RETRY_CNT = 7
# PCIe generation -> link speed as Linux (and NCCL's topology) writes it
PCIE_LINK_SPEED = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe",
                   5: "32.0 GT/s PCIe", 6: "64.0 GT/s PCIe"}
PCI_CLASS_BRIDGE = "0x060400"
PCI_CLASS_GPU = "0x030200"  # 3D controller
PCI_CLASS_NIC = "0x020000"  # Ethernet controller (RoCE)


def bridge_busid(root: str) -> str:
    """The bus id of a PCIe switch given as its bus ("0000:1a") or as a full bus id."""
    return root if root.count(":") == 2 else f"{root}:00.0"


def rdma_order(layout: HostLayout) -> list[str]:
    """NCCL's net device order: the RDMA devices as the verbs library lists them (by index)."""
    names = [p.rdma_device for nic in layout.nics for p in nic.ports]
    return sorted(names, key=lambda n: (len(n), n))


# each port of a NIC is an RDMA device of its own (mlx5_N), on its port 1
TOPOLOGY_NET_PORT = 1


def topology_nets(layout: HostLayout) -> dict[str, TopologyNetEntry]:
    """Each placed NIC's RDMA devices as the topology file places them: the plan verify holds the
    file to (HOST-NCCL-TOPO) and what topology_structured writes."""
    index = {name: i for i, name in enumerate(rdma_order(layout))}
    return {p.rdma_device: TopologyNetEntry(nic.pci_address, bridge_busid(nic.pcie_root), index[p.rdma_device],
                                            TOPOLOGY_NET_PORT, p.speed_gbps * 1000,
                                            PCIE_LINK_SPEED[nic.pcie_gen] if nic.pcie_gen else "",
                                            nic.pcie_lanes or 0)
            for nic in layout.nics if nic.pci_address is not None and nic.pcie_root is not None for p in nic.ports}


def topology_structured(layout: HostLayout) -> dict[str, Any]:
    """A server model's PCIe tree as NCCL's topology XML has it: sockets, PCIe switches, GPUs, NICs.
    Only placement is stated; NCCL fills in what it detects (GPU architecture, NVLink, NIC GUIDs)."""
    nets = topology_nets(layout)
    sockets: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for gpu in layout.gpus:
        sockets.setdefault(gpu.numa, {}).setdefault(bridge_busid(gpu.pcie_root), []).append(
            {"kind": "gpu", "busid": gpu.pci_address, "index": gpu.index, "class": PCI_CLASS_GPU})
    for nic in layout.nics:
        assert nic.numa is not None and nic.pcie_root is not None and nic.pci_address is not None  # validated
        sockets.setdefault(nic.numa, {}).setdefault(bridge_busid(nic.pcie_root), []).append({
            "kind": "nic", "busid": nic.pci_address, "name": nic.name, "class": PCI_CLASS_NIC,
            # from the table above, not the inventory: printed as it is ("32.0 GT/s PCIe" has spaces)
            "link_speed": Escaped(PCIE_LINK_SPEED[nic.pcie_gen]) if nic.pcie_gen else None,
            "link_width": nic.pcie_lanes,
            "nets": [{"name": p.rdma_device, "dev": nets[p.rdma_device].dev, "port": nets[p.rdma_device].port,
                      "speed": nets[p.rdma_device].speed, "plane": p.plane, "rail": p.rail} for p in nic.ports]})
    return {
        "model": layout.model,
        "sockets": [{"numa": numa, "switches": [{"busid": busid, "class": PCI_CLASS_BRIDGE,
                                                 "devices": sorted(devices, key=lambda d: d["busid"])}
                                                for busid, devices in sorted(switches.items())]}
                    for numa, switches in sorted(sockets.items())],
    }


def ib_hcas(fabric: Fabric) -> dict[str, list[dict[str, str]]]:
    """server -> its HCA port in each IB plane whose RDMA device the inventory names."""
    out: dict[str, list[dict[str, str]]] = {}
    for plane in fabric.ib_planes.values():
        for host in plane.hosts:
            if host.device:
                out.setdefault(host.server, []).append({"plane": plane.name, "hca": f"{host.device}:1"})
    return out


def server_structured(fabric: Fabric, srv: ResolvedServer,
                      ib: dict[str, list[dict[str, str]]] | None = None) -> dict[str, Any]:
    """``ib``: ``ib_hcas(fabric)`` (computed once per render, not per server)."""
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
    layout = fabric.host_layouts.get(srv.model)
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
            "ib_timeout": NCCL_IB_TIMEOUT,
            "ib_retry_cnt": NCCL_IB_RETRY_CNT,
            "topo_file": HOST_PATHS["nccl-topo.xml"] if layout is not None and layout.has_topology else None,
            "socket_ifname": layout.bootstrap_ifname if layout is not None else None,
            "ucx_devices": ",".join(f"{p.rdma_device}:1" for p in hca_order),
            "ib_hcas": (ib if ib is not None else ib_hcas(fabric)).get(srv.name, []),
            "plane_hcas": [{"plane": plane, "hca": ",".join(f"{p.rdma_device}:1" for p in hca_order
                                                            if p.plane == plane)} for plane in planes],
        },
    }
