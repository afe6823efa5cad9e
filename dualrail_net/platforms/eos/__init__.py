"""Arista EOS: one ``running-config`` per device, deployed as a full replace in a configuration
session with a commit timer. EOS cannot run here: the twin runs the Cumulus rendering of the same
structured config (``twin_substitute``), and the driver is tested against a recorded session.

Parts: ``parse_config.py`` (running-config -> vendor-neutral model), ``driver.py`` (deploy).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dualrail_net.platforms.base import OutputFile, PlatformParser
from dualrail_net.formats import OutputFormat
from dualrail_net.verify.parsers.files import read_bytes

if TYPE_CHECKING:
    from dualrail_net.deploy.drivers.base import Driver


class Eos:
    name = "eos"
    max_mtu = 9214
    default_maximum_paths = 1  # EOS installs one BGP path unless told otherwise
    # a neighbor without `maximum-routes` may send 12,000 prefixes; above that EOS tears the session
    # down (which is why EVPN designs set `maximum-routes 0`)
    default_receive_limit = 12000
    default_hold_time = 180  # EOS offers keepalive 60, hold 180 unless `timers bgp` says otherwise
    priority_is_class = True  # `qos map dscp D to traffic-class N`: class N is priority N
    # paths of equal AS-path length through different ASNs share ECMP unless `no bgp bestpath
    # as-path multipath-relax` (Arista's TOI on multipath relax; not measured here)
    relaxes_multipath = True
    # an account holds one primary SSH key and one `ssh-key secondary`; one rendered without a
    # password is `nopassword`, which lets anyone in as it (validation refuses both plans)
    max_ssh_keys_per_user = 2
    login_without_password = True
    netmiko_type = "arista_eos"
    files: tuple[OutputFile, ...] = (OutputFile("eos/running-config.j2", "running-config", OutputFormat.EOS),)
    template_root: Path | None = None
    roles: frozenset[str] = frozenset({"leaf", "spine", "super_spine", "gateway"})
    twin_substitute: str | None = "cumulus"
    deploy_paths: dict[str, str | None] = {}

    def port_name(self, number: int) -> str:
        return f"Ethernet{number}"

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        return {}

    def parser(self) -> PlatformParser:
        from dualrail_net.platforms.eos.parse_config import parse_device, parse_text
        return PlatformParser(parse_device, text=parse_text)

    def driver(self, host: Any, connection: Any) -> Driver:
        from dualrail_net.platforms.eos.driver import EosDriver
        return EosDriver(host, connection)

    def batfish_files(self, name: str, folder: Path) -> dict[str, str | bytes]:
        return {f"configs/{name}.cfg": read_bytes(folder / "running-config")}


PLATFORM = Eos()
