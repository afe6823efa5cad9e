"""Rules about a server model's inside: how its NICs split the planes, and where its GPUs sit
relative to the NICs (issue 20 item 2, issue 22 item 2).

* ``split: port`` (HPN style): every multi-port NIC has a port in as many planes as it has ports
  (up to the model's planes), so one NIC serves every plane; each GPU should find a NIC port of every
  plane under its own PCIe switch (otherwise that plane's traffic crosses the CPU root complex).
* ``split: nic`` (SuperPOD style): each NIC is in one plane and the planes get equal NIC counts; each
  GPU should have its own NIC under its PCIe switch (the other plane is reached over NVLink, PXN).
* A model that lists its GPUs gets an NCCL topology file, which names every device by bus id and
  socket: then every NIC needs ``pci_address``, ``pcie_root`` and ``numa``, bus ids are unique, and a
  PCIe switch hangs off one socket.

Affinity misses are warnings (the board may not allow better); the others are errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from dualrail_net.sot.diagnostics import Diagnostic, Severity
from dualrail_net.sot.load import LoadedInventory
from dualrail_net.sot.schema import SPEEDS_GBPS, ServerModel

Diag = Callable[..., Diagnostic]


def check_host_layout(inv: LoadedInventory) -> Iterator[Diagnostic]:
    for mname, model in inv.inventory.servers.server_models.items():
        base: tuple[str | int, ...] = ("servers", "server_models", mname)
        yield from _split_rule(inv, mname, model, base)
        yield from _port_speeds(inv, mname, model, base)
        if model.gpu_places:
            yield from _placement(inv, mname, model, base)


def _diag(inv: LoadedInventory, path: tuple[str | int, ...], message: str, fix: str,
          severity: Severity = Severity.ERROR, code: str = "SOT-SPLIT") -> Diagnostic:
    file, line = inv.where(*path)
    return Diagnostic(file, line, message, fix, severity, code)


def _split_rule(inv: LoadedInventory, mname: str, model: ServerModel,
                base: tuple[str | int, ...]) -> Iterator[Diagnostic]:
    planes = sorted({p.plane for nic in model.nics for p in nic.ports})
    if model.split == "port":
        for ni, nic in enumerate(model.nics):
            nic_planes = {p.plane for p in nic.ports}
            want = min(len(nic.ports), len(planes))
            if len(nic_planes) < want:
                yield _diag(inv, (*base, "nics", ni, "ports"),
                            f"{mname}: {nic.name} has {len(nic.ports)} ports but reaches only plane "
                            f"{', '.join(sorted(nic_planes))} (split: port)",
                            "in a port-split model each NIC's ports land in different planes")
    elif model.split == "nic":
        count: dict[str, int] = {p: 0 for p in planes}
        for ni, nic in enumerate(model.nics):
            nic_planes = {p.plane for p in nic.ports}
            if len(nic_planes) > 1:
                yield _diag(inv, (*base, "nics", ni, "ports"),
                            f"{mname}: {nic.name} has ports in planes {', '.join(sorted(nic_planes))} (split: nic)",
                            "in a NIC-split model each NIC belongs to one plane")
            for p in nic_planes:
                count[p] += 1
        if len(set(count.values())) > 1:
            yield _diag(inv, (*base, "split"),
                        f"{mname}: the planes get unequal NIC counts ("
                        + ", ".join(f"{p}: {n}" for p, n in sorted(count.items())) + ") (split: nic)",
                        "give every plane the same number of NICs, or the smaller plane limits every job")


def _port_speeds(inv: LoadedInventory, mname: str, model: ServerModel,
                 base: tuple[str | int, ...]) -> Iterator[Diagnostic]:
    """A port's own speed fits its leaf port (the plane's server speed); every plane gets the same
    bandwidth from the model (otherwise the planes are not symmetric for its servers)."""
    planes = inv.inventory.fabric.planes
    per_plane: dict[str, int] = {}
    for ni, nic in enumerate(model.nics):
        for pi, port in enumerate(nic.ports):
            spec = planes.get(port.plane)
            if spec is None:
                continue  # check_servers reports the plane
            leaf = SPEEDS_GBPS[spec.link_speeds.server]
            gbps = SPEEDS_GBPS[port.speed] if port.speed else leaf
            if gbps > leaf:
                yield _diag(inv, (*base, "nics", ni, "ports", pi, "speed"),
                            f"{mname}: {nic.name} port {port.port} runs {port.speed}, above plane {port.plane}'s "
                            f"server ports ({spec.link_speeds.server})", "a port cannot be faster than the leaf port "
                            "it lands on: lower it or raise link_speeds.server", code="SOT-SPEED")
            per_plane[port.plane] = per_plane.get(port.plane, 0) + gbps
    if len(set(per_plane.values())) > 1:
        yield _diag(inv, (*base, "nics"), f"{mname}: the planes get unequal bandwidth from each server ("
                    + ", ".join(f"{p}: {g}G" for p, g in sorted(per_plane.items())) + ")",
                    "dual-plane jobs run at the pace of the slower plane, and a failover halves differently: "
                    "give every plane the same ports and speeds", Severity.WARNING, "SYM-SERVER-BANDWIDTH")


def _placement(inv: LoadedInventory, mname: str, model: ServerModel,
               base: tuple[str | int, ...]) -> Iterator[Diagnostic]:
    seen: dict[str, str] = {}
    root_socket: dict[str, tuple[int, str]] = {}
    for gi, gpu in enumerate(model.gpu_places):
        path = (*base, "gpus", gi)
        if gpu.pci_address in seen:
            yield _diag(inv, (*path, "pci_address"), f"{mname}: GPU {gi} has bus id {gpu.pci_address}, as "
                        f"{seen[gpu.pci_address]} does", "every device has its own bus id (lspci -D)",
                        code="SOT-PCI")
        seen[gpu.pci_address] = f"GPU {gi}"
        root = gpu.pcie_root.lower()
        if root in root_socket and root_socket[root][0] != gpu.numa:
            yield _diag(inv, (*path, "numa"), f"{mname}: GPU {gi} is on NUMA node {gpu.numa} but PCIe switch {root} "
                        f"is on node {root_socket[root][0]} ({root_socket[root][1]})",
                        "a PCIe switch hangs off one socket: fix numa or pcie_root", code="SOT-PCI")
        root_socket.setdefault(root, (gpu.numa, f"GPU {gi}"))
    for ni, nic in enumerate(model.nics):
        path = (*base, "nics", ni)
        missing = [f for f in ("pci_address", "pcie_root", "numa") if getattr(nic, f) is None]
        if missing:
            yield _diag(inv, path, f"{mname}: {nic.name} has no {', '.join(missing)}, but the model lists its GPUs",
                        "the NCCL topology file places every NIC: add them (lspci -D, "
                        "/sys/class/net/<if>/device/numa_node)", code="SOT-PCI")
            continue
        assert nic.pci_address is not None and nic.pcie_root is not None and nic.numa is not None
        if nic.pci_address in seen:
            yield _diag(inv, (*path, "pci_address"), f"{mname}: {nic.name} has bus id {nic.pci_address}, as "
                        f"{seen[nic.pci_address]} does", "every device has its own bus id (lspci -D)", code="SOT-PCI")
        seen[nic.pci_address] = nic.name
        root = nic.pcie_root.lower()
        if root in root_socket and root_socket[root][0] != nic.numa:
            yield _diag(inv, (*path, "numa"), f"{mname}: {nic.name} is on NUMA node {nic.numa} but PCIe switch {root} "
                        f"is on node {root_socket[root][0]} ({root_socket[root][1]})",
                        "a PCIe switch hangs off one socket: fix numa or pcie_root", code="SOT-PCI")
        root_socket.setdefault(root, (nic.numa, nic.name))
    yield from _affinity(inv, mname, model, base)


def _affinity(inv: LoadedInventory, mname: str, model: ServerModel,
              base: tuple[str | int, ...]) -> Iterator[Diagnostic]:
    if model.split is None:
        return
    planes = sorted({p.plane for nic in model.nics for p in nic.ports})
    under: dict[str, set[str]] = {}  # PCIe switch -> planes of the NIC ports below it
    for nic in model.nics:
        if nic.pcie_root:
            under.setdefault(nic.pcie_root.lower(), set()).update(p.plane for p in nic.ports)
    for gi, gpu in enumerate(model.gpu_places):
        local = under.get(gpu.pcie_root.lower(), set())
        if model.split == "port":
            lacking = [p for p in planes if p not in local]
            if lacking:
                yield _diag(inv, (*base, "gpus", gi, "pcie_root"),
                            f"{mname}: GPU {gi} ({gpu.pci_address}) has no NIC port of plane {', '.join(lacking)} "
                            f"under its PCIe switch {gpu.pcie_root}",
                            "its traffic in that plane crosses the CPU root complex (NCCL path PHB/SYS, not PIX): "
                            "pair each GPU with a NIC under the same switch", Severity.WARNING, "SOT-GPU-AFFINITY")
        elif not local:
            yield _diag(inv, (*base, "gpus", gi, "pcie_root"),
                        f"{mname}: GPU {gi} ({gpu.pci_address}) has no NIC under its PCIe switch {gpu.pcie_root}",
                        "in a NIC-split model each GPU has its own rail NIC beside it; without one its traffic "
                        "crosses the CPU", Severity.WARNING, "SOT-GPU-AFFINITY")
