"""Device drivers: one per platform (in its plug-in folder), each implementing the contract in
``base.py``. ``driver_for`` picks one from a nornir host's ``run_platform``."""

from __future__ import annotations

from typing import Any

from dualrail_net.deploy.drivers.base import Driver, FirmwareDriver, PushRejected


def driver_for(host: Any, connection: Any) -> Driver:
    """The driver of the platform the host runs (in the twin: the platform of its substitute)."""
    from dualrail_net.platforms import get_platform
    if host.data.get("server"):
        from dualrail_net.deploy.drivers.server import ServerDriver
        return ServerDriver(host, connection)
    if host.data.get("twin_vrfs"):  # a multi-plane switch of the twin: one namespace per VRF
        from dualrail_net.twin.gateway_driver import TwinGatewayDriver
        return TwinGatewayDriver(host, connection)
    return get_platform(host.data["run_platform"]).driver(host, connection)


__all__ = ["Driver", "FirmwareDriver", "PushRejected", "driver_for"]
