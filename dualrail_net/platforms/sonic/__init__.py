"""SONiC: ``config_db.json`` (ports, addresses, loopback, management, the RoCE QoS tables, PFC
watchdog) plus FRR's own ``frr.conf`` in split-unified mode (``docker_routing_config_mode``: SONiC
runs the file as given instead of generating one from config_db's BGP tables). SONiC cannot run
here: the twin runs the Cumulus rendering of the same structured config (``twin_substitute``), and
the driver is tested against a stateful simulator of the switch's config commands.

Syntax from the SONiC Configuration Database Manual (sonic-net/SONiC wiki), the sonic-buildimage
YANG models (sonic-port, sonic-interface, sonic-loopback-interface, sonic-mgmt_*, sonic-qos maps,
sonic-wred-profile, sonic-scheduler, sonic-buffer-*, sonic-pfcwd) and the Generic Config Updater
design (``config replace``/``checkpoint``/``rollback``).

Parts: ``parse.py`` (config_db.json -> vendor-neutral model; frr.conf with the FRR reader),
``driver.py`` (deploy: checkpoint, replace, a revert timer, confirm), ``simulator.py`` (TEST DOUBLE),
``batfish.py`` (``sonic_configs/<device>/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dualrail_net.formats import OutputFormat
from dualrail_net.platforms.base import OutputFile, PlatformParser
from dualrail_net.render.escape import UnsafeValue
from dualrail_net.verify.parsers.files import read_bytes

if TYPE_CHECKING:
    from dualrail_net.deploy.drivers.base import Driver

# SerDes lanes per front-panel port: 400G and 800G SKUs (Spectrum-4, Tomahawk 4/5) name port n
# Ethernet<8(n-1)> and give it eight lanes
LANES_PER_PORT = 8
DEVICE_TYPES = {"leaf": "LeafRouter", "spine": "SpineRouter", "super_spine": "SpineRouter"}


def mbps(speed: str) -> int:
    """'400G' -> 400000 (config_db's PORT speed is in Mb/s)."""
    value = speed.strip().upper()
    if value.endswith("G") and value[:-1].isascii() and value[:-1].isdigit():
        return int(value[:-1]) * 1000
    if value.endswith("M") and value[:-1].isascii() and value[:-1].isdigit():
        return int(value[:-1])
    raise UnsafeValue(f"port speed {speed[:40]!r} is not N G or N M")


class Sonic:
    name = "sonic"
    management_vrf_name = "mgmt"  # the OS names its management VRF so, whatever a file says
    max_mtu = 9216
    default_maximum_paths = 64  # SONiC's FRR is built with MULTIPATH_NUM 64 (bgpd's default maximum-paths is 64 there)
    default_hold_time = 180  # FRR's traditional profile (keepalive 60, hold 180) where frr.conf names none
    netmiko_type = "linux"  # SONiC is Debian with a `config`/`show` CLI over SSH (netmiko has no `sonic` type)
    files: tuple[OutputFile, ...] = (
        OutputFile("sonic/config_db.json.j2", "config_db.json", OutputFormat.JSON),
        OutputFile("sonic/frr.conf.j2", "frr.conf", OutputFormat.FRR),
    )
    template_root: Path | None = None
    twin_substitute: str | None = "cumulus"
    # SONiC keeps VRF names to `Vrf*`: the per-plane VRFs of a multi-plane device are not rendered here
    roles: frozenset[str] = frozenset({"leaf", "spine", "super_spine"})
    deploy_paths: dict[str, str | None] = {"config_db": "/etc/sonic/config_db.json",
                                           "frr_conf": "/etc/sonic/frr/frr.conf", "staging": "/tmp/dualrail"}

    def port_name(self, number: int) -> str:
        return f"Ethernet{(number - 1) * LANES_PER_PORT}"

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        ports = []
        for i in structured["interfaces"]:
            first = (i["number"] - 1) * LANES_PER_PORT
            ports.append({"name": i["name"], "alias": f"etp{i['number']}", "speed": mbps(i["speed"]) if i["speed"] else None,
                          "lanes": list(range(first, first + LANES_PER_PORT))})
        qos = structured["qos"]
        dscp_tc = {m["dscp"]: m["tc"] for m in qos["dscp_map"]}
        tc_priority = {m["tc"]: m["priority"] for m in qos["dscp_map"]}
        return {
            "device_type": DEVICE_TYPES.get(structured["role"], "LeafRouter"),
            "ports": ports,
            # every DSCP is mapped (a missing one goes to TC 0 anyway; SONiC's default map would not)
            "dscp_to_tc": [{"dscp": d, "tc": dscp_tc.get(d, 0)} for d in range(64)],
            "tc_to_pg": [{"tc": tc, "pg": tc_priority.get(tc, tc)} for tc in range(8)],
            "pfc_to_queue": [{"priority": prio, "queue": next((tc for tc, p in tc_priority.items() if p == prio), prio)}
                             for prio in range(8)],
            "cable_length": f"{qos['pfc']['cable_length_m']}m",
            # one lossless priority group per port and PFC priority (a flat list: JSON needs its commas)
            "lossless_pgs": [{"port": i["name"], "priority": prio} for i in structured["interfaces"]
                             for prio in qos["pfc"]["priorities"]],
        }

    def parser(self) -> PlatformParser:
        from dualrail_net.platforms.sonic.parse import parse_base, parse_routing
        return PlatformParser(parse_base, parse_routing)

    def driver(self, host: Any, connection: Any) -> Driver:
        from dualrail_net.platforms.sonic.driver import SonicDriver
        return SonicDriver(host, connection)

    def batfish_files(self, name: str, folder: Path) -> dict[str, str | bytes]:
        # Batfish's SONiC layout: one folder per device with both files (Batfish skips the QoS tables)
        return {f"sonic_configs/{name}/config_db.json": read_bytes(folder / "config_db.json"),
                f"sonic_configs/{name}/frr.conf": read_bytes(folder / "frr.conf")}


PLATFORM = Sonic()
