"""Building nornir and netmiko connections for a run (real fabric or the twin)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nornir import InitNornir

from dualrail_net.twin.state import TwinManagement


def twin_environment(state_path: Path) -> dict[str, str]:
    """Credentials and known_hosts of the running twin (its throwaway keys)."""
    mgmt = TwinManagement.load(state_path)
    return {"DUALRAIL_SSH_USER": "root", "DUALRAIL_SSH_KEY": mgmt.identity, "DUALRAIL_KNOWN_HOSTS": mgmt.known_hosts}


def init_nornir(output: Path, twin_state: Path | None = None, insecure: bool = False) -> Any:
    if twin_state is not None:
        for key, value in twin_environment(twin_state).items():
            os.environ.setdefault(key, value)
    return InitNornir(
        runner={"plugin": "threaded", "options": {"num_workers": 8}},
        inventory={"plugin": "DualrailInventory",
                   "options": {"output": str(output), "twin_state": str(twin_state) if twin_state else None,
                               "insecure_no_host_key_check": insecure}},
        logging={"enabled": False},
    )


def connector(nr: Any) -> Any:
    def connect(host: Any) -> Any:
        return host.get_connection("netmiko", nr.config)
    return connect


def disconnect(host: Any) -> None:
    """Close the host's netmiko session: nornir hands a cached session back until it is closed, and
    the session of a device that rebooted is dead (the next connect opens a new one). A host that
    is not nornir's (a test double's) has no session kept here: nothing to close."""
    if "netmiko" in getattr(host, "connections", {}):
        try:
            host.close_connection("netmiko")
        finally:
            host.connections.pop("netmiko", None)
