"""Server models -> their inside (GPUs and NICs under PCIe switches and sockets), as the NCCL
topology file and the affinity rules need it."""

from __future__ import annotations

from dualrail_net.resolve.model import GpuPlace, HostLayout, NicPlace, NicPortPlace
from dualrail_net.sot.schema import SPEEDS_GBPS, Inventory


def resolve_host_layouts(inv: Inventory) -> dict[str, HostLayout]:
    speed = {name: SPEEDS_GBPS[spec.link_speeds.server] for name, spec in inv.fabric.planes.items()}
    out = {}
    for name, model in inv.servers.server_models.items():
        gpus = tuple(GpuPlace(i, g.pci_address, g.pcie_root.lower(), g.numa) for i, g in enumerate(model.gpu_places))
        nics = tuple(
            NicPlace(nic.name, nic.pci_address, nic.pcie_root.lower() if nic.pcie_root else None, nic.numa,
                     tuple(NicPortPlace(p.port, p.rdma_device, p.plane, p.rail,
                                        SPEEDS_GBPS[p.speed] if p.speed else speed.get(p.plane, 0))
                           for p in nic.ports), nic.pcie_gen, nic.pcie_lanes)
            for nic in model.nics)
        out[name] = HostLayout(name, gpus, nics, model.bootstrap_ifname)
    return out
