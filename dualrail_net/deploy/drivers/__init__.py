"""Device drivers: one per platform, each able to fetch, back up, diff, push, confirm, drain and
roll back. ``driver_for`` picks one from a nornir host's ``run_platform``."""

from __future__ import annotations

from typing import Any

from dualrail_net.deploy.drivers.base import Driver, PushRejected


def driver_for(host: Any, connection: Any) -> Driver:
    platform = host.data["run_platform"]
    if platform == "cumulus":
        from dualrail_net.deploy.drivers.cumulus import CumulusDriver
        return CumulusDriver(host, connection)
    if platform == "eos":
        from dualrail_net.deploy.drivers.eos import EosDriver
        return EosDriver(host, connection)
    raise ValueError(f"no deploy driver for platform {platform!r}")


__all__ = ["Driver", "PushRejected", "driver_for"]
