"""Arista EOS: one running-config file."""

from __future__ import annotations

from typing import Any

from dualrail_net.render.platforms import OutputFile, register


class Eos:
    name = "eos"
    files: tuple[OutputFile, ...] = (OutputFile("eos/running-config.j2", "running-config"),)

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        return {}


register(Eos())
