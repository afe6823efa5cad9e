"""A server's NCCL topology file and its NIC QoS systemd unit, read into the host model.

* ``nccl-topo.xml``: read as NCCL reads it — a tree of ``<cpu numaid>`` > ``<pci busid>`` ... with
  GPUs as PCI class 0x03xxxx and ``<nic>`` > ``<net name>`` for RDMA devices. A file that does not
  parse is an error NCCL would stop on; a DOCTYPE (entities) is refused. Elements NCCL's topology does
  not have are not modelled (reported with their line).
* ``dualrail-nic-qos.service``: ``[Section]`` and ``Key=Value`` lines (systemd.syntax(7)).
"""

from __future__ import annotations

import re

import xml.parsers.expat
from typing import Any

from dualrail_net.verify.model import HostTopology, ServerConfig, TopologyNet
from dualrail_net.verify.parsers.files import is_decimal

TOPOLOGY_FILE = "nccl-topo.xml"
UNIT_FILE = "dualrail-nic-qos.service"
# the elements of NCCL's topology XML (src/graph/xml.h and its dumps)
NCCL_ELEMENTS = frozenset({"system", "cpu", "pci", "nic", "net", "gpu", "nvlink", "c2c", "pcilink", "nvs"})
# the attributes HOST-NCCL-TOPO judges, per element; NCCL takes any attribute the file writes over
# what it detects (a CPU's affinity, a net's latency or GUID, a PCIe link's speed), so any other is
# reported as not judged, never passed over. A PCIe link is judged on the NIC's <pci> only.
TOPOLOGY_ATTRIBUTES = {"system": frozenset({"version"}), "cpu": frozenset({"numaid"}),
                       "pci": frozenset({"busid", "class"}), "nic": frozenset(),
                       "net": frozenset({"name", "dev", "port", "speed", "gdr"})}
_NIC_LINK = frozenset({"link_speed", "link_width"})


def read_topology(text: str, srv: ServerConfig) -> None:
    topo = HostTopology()
    srv.topology = topo
    parser = xml.parsers.expat.ParserCreate()
    stack: list[tuple[str, dict[str, str]]] = []

    def refuse_doctype(*_args: Any) -> None:
        raise ValueError("a DOCTYPE is not allowed (NCCL's parser has none)")

    def start(tag: str, attrs: dict[str, str]) -> None:
        line = parser.CurrentLineNumber
        if tag not in NCCL_ELEMENTS:
            srv.unmodelled.append((TOPOLOGY_FILE, line, f"<{tag}>"))
        judged = TOPOLOGY_ATTRIBUTES.get(tag, frozenset())
        if tag == "pci" and attrs.get("class", "").lower().startswith("0x02"):
            judged = judged | _NIC_LINK
        for attribute in sorted(set(attrs) - judged):
            srv.unmodelled.append((TOPOLOGY_FILE, line, f"<{tag} {attribute}=\"{attrs[attribute][:40]}\">"))
        numa = next((a.get("numaid") for t, a in reversed(stack) if t == "cpu"), None)
        buses = [a.get("busid", "").lower() for t, a in reversed(stack) if t == "pci"]  # innermost first
        if tag == "pci" and attrs.get("class", "").lower().startswith("0x03"):
            busid = attrs.get("busid", "").lower()
            topo.gpus[busid] = int(numa) if numa is not None and is_decimal(numa) else None
            topo.gpu_bridges[busid] = buses[0] if buses else ""
        if tag == "net":
            nic_pci = next((a for t, a in reversed(stack) if t == "pci"), {})
            topo.nets.append(TopologyNet(attrs.get("name", ""), int(numa) if numa is not None and is_decimal(numa)
                                         else None, buses[0] if buses else "", line,
                                         bridge=buses[1] if len(buses) > 1 else "", dev=attrs.get("dev"),
                                         port=attrs.get("port"), speed=attrs.get("speed"), gdr=attrs.get("gdr"),
                                         link_speed=nic_pci.get("link_speed"), link_width=nic_pci.get("link_width")))
        stack.append((tag, attrs))

    def end(_tag: str) -> None:
        stack.pop()

    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except (xml.parsers.expat.ExpatError, ValueError) as exc:
        topo.error = f"line {parser.CurrentLineNumber}: {exc}"
        topo.gpus.clear()
        topo.nets.clear()
        return
    if not text.strip():
        topo.error = "the file is empty"


# the unit's keys HOST-NIC-QOS-UNIT judges, and those that change nothing about whether and when the
# program runs; a Condition/Assert key is judged (the program runs only when it holds); any other key
# (ExecStartPre=, User=, ...) is reported, not passed over
UNIT_KEYS_READ = frozenset({"Service.ExecStart", "Service.Type", "Install.WantedBy", "Unit.Before",
                            "Unit.Description", "Unit.Documentation", "Unit.After", "Unit.Wants",
                            "Service.RemainAfterExit", "Service.TimeoutStartSec", "Service.TimeoutSec",
                            "Service.StandardOutput", "Service.StandardError", "Service.SyslogIdentifier"})
_UNIT_CONDITION = re.compile(r"^Unit\.(Condition|Assert)\w+$")


def unit_conditions(unit: dict[str, str]) -> list[tuple[str, str]]:
    """A unit's Condition*= and Assert*= settings: systemd skips (or fails) the unit when one does
    not hold, which verify cannot know of the host."""
    return [(key, value) for key, value in unit.items() if _UNIT_CONDITION.match(key) and value]


def read_unit(text: str, srv: ServerConfig) -> None:
    unit: dict[str, str] = {}
    section = ""
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
            continue
        key, eq, value = stripped.partition("=")
        if eq and key.strip() and section:
            # a repeated key (ExecStart= of a oneshot unit runs each in turn): every value is kept, so
            # a second command before or after the program is seen
            name = f"{section}.{key.strip()}"
            unit[name] = f"{unit[name]}\n{value.strip()}" if name in unit else value.strip()
            if name not in UNIT_KEYS_READ and not _UNIT_CONDITION.match(name):
                srv.unmodelled.append((UNIT_FILE, number, stripped))  # e.g. ExecStartPre=: not judged
        else:
            srv.unmodelled.append((UNIT_FILE, number, stripped))
    srv.nic_qos_unit = unit
