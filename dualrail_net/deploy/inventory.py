"""A nornir inventory plugin built from the rendered output (manifest.json): every switch with its
plane, role, platform, management address and groups (plane_A, spine, cumulus, ...).

Registered as ``DualrailInventory`` through the ``nornir.plugins.inventory`` entry point. For the
emulated twin (``twin_state`` given), hosts point at the twin's management addresses and carry the
private FRR paths of their namespace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nornir.core.inventory import (
    ConnectionOptions,
    Defaults,
    Group,
    Groups,
    Host,
    Hosts,
    Inventory,
    ParentGroups,
)

from dualrail_net.deploy.credentials import load_credentials
from dualrail_net.manifest import Manifest
from dualrail_net.platforms import get_platform
from dualrail_net.twin.state import TwinManagement



class DualrailInventory:
    def __init__(self, output: str = "build", twin_state: str | None = None, known_hosts: str | None = None,
                 insecure_no_host_key_check: bool = False) -> None:
        self.output = Path(output)
        self.twin_state = twin_state
        self.known_hosts = known_hosts or os.environ.get("DUALRAIL_KNOWN_HOSTS")
        self.insecure = insecure_no_host_key_check

    def load(self) -> Inventory:
        manifest = Manifest.load(self.output)
        twin = TwinManagement.load(Path(self.twin_state)) if self.twin_state else None
        creds = load_credentials()
        groups = Groups()

        def group(name: str) -> Group:
            if name not in groups:
                groups[name] = Group(name=name)
            return groups[name]

        hosts = Hosts()
        for name, meta in manifest.devices.items():
            if meta.plane is None:
                continue  # multi-plane devices are changed in their own window, not by a plane rollout
            platform = meta.platform
            address = (meta.mgmt_address or "").split("/")[0]
            paths: dict[str, str | None] = dict(get_platform(platform).deploy_paths)
            run_platform = platform
            if twin is not None:
                access = twin.hosts.get(name)
                if access is None:
                    continue
                address = access.address
                rd = access.rundir
                paths = {"frr_conf": f"{rd}/frr.conf", "interfaces": f"{rd}/interfaces", "frr_dir": rd,
                         "vty_socket": rd, "qos": f"{rd}/qos_features.conf", "state_dir": rd}
                # in the twin a device runs its own platform, or the one that renders its substitute
                run_platform = get_platform(platform).twin_substitute or platform
            extras: dict[str, Any] = {"device_type": get_platform(run_platform).netmiko_type, "key_file": creds.key_file,
                                      "use_keys": bool(creds.key_file), "conn_timeout": 15}
            if self.insecure:
                extras["ssh_strict"] = False
            else:
                extras.update({"ssh_strict": True, "system_host_keys": self.known_hosts is None,
                               "alt_host_keys": self.known_hosts is not None,
                               "alt_key_file": self.known_hosts or ""})
            data = {"plane": meta.plane, "role": meta.role, "platform": platform,
                    "run_platform": run_platform, "device_dir": str(self.output / meta.dir),
                    "twin_dir": str(self.output / meta.twin_dir), "paths": paths, "firmware": meta.firmware}
            hosts[name] = Host(
                name=name, hostname=address, username=creds.username, password=creds.password,
                platform=get_platform(run_platform).netmiko_type, data=data,
                groups=ParentGroups([group(f"plane_{meta.plane}"), group(meta.role), group(platform)]),
                connection_options={"netmiko": ConnectionOptions(extras=extras)},
            )
        return Inventory(hosts=hosts, groups=groups, defaults=Defaults())
