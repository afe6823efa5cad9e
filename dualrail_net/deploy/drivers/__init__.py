"""Device drivers: one per platform (in its plug-in folder), each implementing the contract in
``base.py``. ``driver_for`` picks one from a nornir host's ``run_platform``."""

from __future__ import annotations

from typing import Any

from dualrail_net.deploy.drivers.base import Driver, FirmwareDriver, PushRejected


def driver_for(host: Any, connection: Any) -> Driver:
    """The driver of the platform the host runs (in the twin: the platform of its substitute)."""
    from dualrail_net.platforms import get_platform
    return get_platform(host.data["run_platform"]).driver(host, connection)


__all__ = ["Driver", "FirmwareDriver", "PushRejected", "driver_for"]
