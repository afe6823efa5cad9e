"""NVIDIA Cumulus Linux (the Linux-files way: ifupdown2 ``interfaces``, FRR ``frr.conf``, switchd's
``qos_features.conf``). It runs in the emulated twin as itself (FRR and ifupdown2 are real here), and
renders the twin substitutes of platforms that cannot run here.

Parts: ``parse.py`` (files -> vendor-neutral model), ``qos_features.py`` (the switchd QoS reader),
``services.py`` (ntp.conf, rsyslog.conf, resolv.conf, tacplus_servers as their programs read them),
``driver.py`` (deploy over SSH: frr-reload, ifreload), ``batfish.py`` (Batfish's concatenated format).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dualrail_net.platforms.base import OutputFile, PlatformParser, compress_ports
from dualrail_net.formats import OutputFormat
from dualrail_net.verify.parsers.files import read_text

if TYPE_CHECKING:
    from dualrail_net.deploy.drivers.base import Driver


class Cumulus:
    name = "cumulus"
    management_vrf_name = "mgmt"  # the OS names its management VRF so, whatever a file says
    max_mtu = 9216
    # Cumulus Linux's FRR is built for 64 ECMP paths (the twin's Debian FRR for 256: twin/oracle.py)
    default_maximum_paths = 64
    # the hold time bgpd offers when frr.conf names no `frr defaults` profile: Cumulus Linux builds
    # its FRR with the datacenter profile (keepalive 3, hold 9)
    default_hold_time = 9
    netmiko_type = "linux"
    files: tuple[OutputFile, ...] = (
        OutputFile("cumulus/interfaces.j2", "interfaces", OutputFormat.IFUPDOWN),
        OutputFile("cumulus/frr.conf.j2", "frr.conf", OutputFormat.FRR),
        OutputFile("cumulus/qos_features.conf.j2", "qos_features.conf", OutputFormat.SWITCHD, twin=False),
        # the management services, as the OS's own files (Cumulus keeps users and SSH by itself)
        OutputFile("cumulus/ntp.conf.j2", "ntp.conf", OutputFormat.SERVICE, twin=False, needs="management"),
        OutputFile("cumulus/rsyslog.conf.j2", "rsyslog.conf", OutputFormat.SERVICE, twin=False, needs="management"),
        OutputFile("cumulus/resolv.conf.j2", "resolv.conf", OutputFormat.SERVICE, twin=False, needs="management"),
        # read by the TACACS+ PAM and NSS modules at each login (tacplus-client): nothing to restart
        OutputFile("cumulus/tacplus_servers.j2", "tacplus_servers", OutputFormat.SERVICE, twin=False,
                   needs="management.tacacs"),
    )
    template_root: Path | None = None
    roles: frozenset[str] = frozenset({"leaf", "spine", "super_spine", "gateway"})
    twin_substitute: str | None = None
    deploy_paths = {"frr_conf": "/etc/frr/frr.conf", "interfaces": "/etc/network/interfaces",
                    "frr_dir": "/etc/frr", "vty_socket": None,
                    "qos": "/etc/cumulus/datapath/qos/qos_features.conf",
                    "ntp": "/etc/ntpsec/ntp.conf", "syslog": "/etc/rsyslog.d/11-remotesyslog.conf",
                    "resolv": "/etc/resolv.conf", "tacacs": "/etc/tacplus_servers",
                    # where the driver keeps its revert job (script, token, pid) between commit and confirm
                    "state_dir": "/var/lib/dualrail"}

    def port_name(self, number: int) -> str:
        return f"swp{number}"

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        numbers = [i["number"] for i in structured["interfaces"]]
        return {"port_set": compress_ports("swp", numbers)}

    def parser(self) -> PlatformParser:
        from dualrail_net.platforms.cumulus.parse import parse_base, parse_routing
        return PlatformParser(parse_base, parse_routing)

    def driver(self, host: Any, connection: Any) -> Driver:
        from dualrail_net.platforms.cumulus.driver import CumulusDriver
        return CumulusDriver(host, connection)

    def batfish_files(self, name: str, folder: Path) -> dict[str, str | bytes]:
        from dualrail_net.platforms.cumulus.batfish import concatenated
        return {f"configs/{name}": concatenated(name, read_text(folder / "interfaces"),
                                                read_text(folder / "frr.conf"))}


PLATFORM = Cumulus()
