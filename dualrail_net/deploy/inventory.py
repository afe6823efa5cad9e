"""A nornir inventory plugin built from the rendered output (manifest.json): every switch with its
plane, role, platform, management address and groups (plane_A, multi_plane, spine, cumulus, ...).

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
from dualrail_net.deploy.drivers.server import SERVER_PATHS
from dualrail_net.render.servers import HOST_PATHS
from dualrail_net.manifest import Manifest
from dualrail_net.platforms import get_platform
from dualrail_net.twin.gateway_driver import record_dir
from dualrail_net.twin.lifecycle import rundir as twin_rundir
from dualrail_net.twin.plan import ns_name
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
            # multi-plane devices (gateways) carry plane None: a plane rollout never takes them, the
            # gateways window (`deploy --scope gateways`) changes them one plane's VRF at a time
            platform = meta.platform
            address = (meta.mgmt_address or "").split("/")[0]
            paths: dict[str, str | None] = dict(get_platform(platform).deploy_paths)
            twin_extra: dict[str, Any] = {}
            run_platform = platform
            if twin is not None:
                access = twin.hosts.get(name)
                if access is None:
                    continue
                address = access.address
                rd = access.rundir
                paths = {"frr_conf": f"{rd}/frr.conf", "interfaces": f"{rd}/interfaces", "frr_dir": rd,
                         "vty_socket": rd, "qos": f"{rd}/qos_features.conf", "ntp": f"{rd}/ntp.conf",
                         "syslog": f"{rd}/rsyslog.conf", "resolv": f"{rd}/resolv.conf", "state_dir": rd}
                # in the twin a device runs its own platform, or the one that renders its substitute
                run_platform = get_platform(platform).twin_substitute or platform
                if meta.plane is None:  # one namespace per VRF: the twin's gateway test double joins them
                    vrf_access = {vrf: {"ns": ns_name(name, vrf), "rundir": str(twin_rundir(ns_name(name, vrf))),
                                        "own": "yes" if ns_name(name, vrf) == access.ns else "no"}
                                  for vrf in meta.vrfs.values()}
                    twin_extra = {"twin_vrfs": vrf_access, "twin_record": str(record_dir(twin_rundir(ns_name(name))))}
            extras = self._ssh_extras(get_platform(run_platform).netmiko_type, creds)
            data = {"plane": meta.plane, "planes": list(meta.planes), "vrfs": dict(meta.vrfs),
                    "role": meta.role, "platform": platform,
                    "run_platform": run_platform, "device_dir": str(self.output / meta.dir),
                    "twin_dir": str(self.output / meta.twin_dir), "paths": paths, "firmware": meta.firmware}
            data.update(twin_extra)
            hosts[name] = Host(
                name=name, hostname=address, username=creds.username, password=creds.password,
                platform=get_platform(run_platform).netmiko_type, data=data,
                groups=ParentGroups([group(f"plane_{meta.plane}" if meta.plane else "multi_plane"), group(meta.role),
                                     group(platform)]),
                connection_options={"netmiko": ConnectionOptions(extras=extras)},
            )
        for name, srv in manifest.servers.items():
            # servers with a management address (in the twin: those it gave sshd), for `--scope servers`
            address = (srv.mgmt_address or "").split("/")[0]
            server_paths: dict[str, str | None] = dict(SERVER_PATHS)
            if twin is not None:
                access = twin.hosts.get(name)
                if access is None:
                    continue
                address, rd = access.address, access.rundir
                server_paths = {**{name: f"{rd}/{name}" for name in HOST_PATHS}, "state_dir": rd}
            if not address:
                continue
            folder = str(self.output / srv.dir)
            hosts[name] = Host(
                name=name, hostname=address, username=creds.username, password=creds.password, platform="linux",
                data={"plane": None, "planes": list(srv.planes), "role": "server", "platform": "linux",
                      "run_platform": "linux", "device_dir": folder, "twin_dir": folder, "paths": server_paths,
                      "firmware": "", "server": True, "twin": twin is not None,
                      "ports": {p.ifname: p.plane for p in srv.ports}},
                groups=ParentGroups([group("servers")]),
                connection_options={"netmiko": ConnectionOptions(extras=self._ssh_extras("linux", creds))},
            )
        return Inventory(hosts=hosts, groups=groups, defaults=Defaults())

    def _ssh_extras(self, device_type: str, creds: Any) -> dict[str, Any]:
        """netmiko options: the key, and host keys checked (unless explicitly not)."""
        extras: dict[str, Any] = {"device_type": device_type, "key_file": creds.key_file,
                                  "use_keys": bool(creds.key_file), "conn_timeout": 15}
        if self.insecure:
            extras["ssh_strict"] = False
        else:
            extras.update({"ssh_strict": True, "system_host_keys": self.known_hosts is None,
                           "alt_host_keys": self.known_hosts is not None,
                           "alt_key_file": self.known_hosts or ""})
        return extras
