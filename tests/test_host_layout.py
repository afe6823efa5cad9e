"""The host's inside (issue 20): each server model's NCCL topology parses as XML and names every GPU
and every RDMA device where the inventory places them; NCCL/UCX are told to use them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.load import LoadedInventory


@pytest.fixture(scope="module")
def files(example_fabric: Fabric) -> dict[str, str]:
    return render_fabric(example_fabric).by_path()


@pytest.mark.parametrize("server", ["gpu001", "gpu017"])  # one server of each model
def test_the_topology_names_every_gpu_and_nic_on_its_socket(files: dict[str, str], server: str,
                                                            example_loaded: LoadedInventory) -> None:
    inv = example_loaded.inventory.servers
    model = inv.server_models[next(s.model for s in inv.servers if s.name == server)]
    root = ET.fromstring(files[f"servers/{server}/nccl-topo.xml"])
    assert root.tag == "system"
    placed_gpus = {}
    placed_nets = {}
    for cpu in root.iter("cpu"):
        for pci in cpu.iter("pci"):
            if pci.get("class") == "0x030200":
                placed_gpus[pci.get("busid")] = int(cpu.get("numaid", "-1"))
            for net in pci.iter("net"):
                placed_nets[net.get("name")] = (int(cpu.get("numaid", "-1")), pci.get("busid"))
    assert placed_gpus == {g.pci_address: g.numa for g in model.gpu_places}
    assert placed_nets == {p.rdma_device: (nic.numa, nic.pci_address) for nic in model.nics for p in nic.ports}
    # every GPU sits under the PCIe switch the inventory names
    for switch in root.iter("pci"):
        for child in switch.findall("pci"):
            if child.get("class") == "0x030200":
                gpu = next(g for g in model.gpu_places if g.pci_address == child.get("busid"))
                assert switch.get("busid") == f"{gpu.pcie_root}:00.0"
    env = files[f"servers/{server}/nccl.env"]
    assert "NCCL_TOPO_FILE=/etc/dualrail/nccl-topo.xml\n" in env
    assert "NCCL_SOCKET_IFNAME==eno1\n" in env


def test_a_model_with_a_gpu_count_only_gets_no_topology(make_inventory) -> None:  # type: ignore[no-untyped-def]
    from dualrail_net.resolve import resolve_fabric
    from dualrail_net.sot.load import load_inventory
    servers = (make_inventory({}) / "servers.yaml").read_text()
    start = servers.index("    gpus:\n", servers.index("dgx-split-8x1:"))
    end = servers.index("    nics:\n", start)
    root = make_inventory({"servers.yaml": [(servers[start:end], "    gpus: 8\n")]})
    fabric = resolve_fabric(load_inventory(root).inventory)
    out = render_fabric(fabric).by_path()
    assert "servers/gpu017/nccl-topo.xml" not in out and "servers/gpu001/nccl-topo.xml" in out
    assert "NCCL_TOPO_FILE" not in out["servers/gpu017/nccl.env"]
