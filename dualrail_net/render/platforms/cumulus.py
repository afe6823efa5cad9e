"""NVIDIA Cumulus Linux: ifupdown2 ``interfaces``, FRR ``frr.conf``, and the QoS datapath file."""

from __future__ import annotations

from typing import Any

from dualrail_net.render.platforms import OutputFile, compress_ports, register


class Cumulus:
    name = "cumulus"
    files: tuple[OutputFile, ...] = (
        OutputFile("cumulus/interfaces.j2", "interfaces"),
        OutputFile("cumulus/frr.conf.j2", "frr.conf"),
        OutputFile("cumulus/qos_features.conf.j2", "qos_features.conf"),
    )

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        numbers = [i["number"] for i in structured["interfaces"]]
        return {"port_set": compress_ports("swp", numbers)}


register(Cumulus())
