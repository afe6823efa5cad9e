"""Batfish's input for a Cumulus device: one concatenated file, in the order its cumulus_concatenated
grammar reads: the hostname, then /etc/network/interfaces (from its standard first line), then
``# ports.conf --``, then frr.conf."""

from __future__ import annotations

INTERFACES_HEADER = ("# This file describes the network interfaces available on your system\n"
                     "# and how to activate them. For more information, see interfaces(5).\n")
PORTS_MARKER = "# ports.conf --\n"


def concatenated(hostname: str, interfaces: str, frr: str) -> str:
    # `source` lines point at files Batfish does not have; everything else is kept as rendered.
    body = "".join(line + "\n" for line in interfaces.splitlines() if not line.startswith("source "))
    return f"{hostname}\n{INTERFACES_HEADER}{body}{PORTS_MARKER}{frr}"
