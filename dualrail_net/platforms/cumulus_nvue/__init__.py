"""Cumulus Linux 5.x configured through NVUE, the way Cumulus 5.x configures RoCE: one
``startup.yaml`` per switch (the NVUE object model: system and its users, interfaces, router
policy, VRFs with BGP and statics, QoS with the RoCE profile, services), applied with NVUE's own
``nv config replace`` + ``nv config apply --confirm`` (the switch rolls back unless confirmed).
NVUE owns the switch's files, so they are never edited here. The Linux-files Cumulus platform
(``cumulus``) stays for Cumulus 4.x and for the twin, which runs this platform's Cumulus rendering
of the same structured config (``twin_substitute``).

Syntax from NVIDIA's NVUE command reference and object model (Cumulus Linux 5.x user guide:
Interfaces, BGP, Route Filtering and Redistribution, Quality of Service, RoCE, Management VRF,
User Accounts, TACACS).

Parts: ``parse.py`` (startup.yaml -> vendor-neutral model), ``driver.py`` (deploy),
``simulator.py`` (TEST DOUBLE of nv config). Batfish cannot read NVUE YAML: the export is the
Linux-files equivalent in Batfish's concatenated Cumulus format (the twin substitute's files).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dualrail_net.formats import OutputFormat
from dualrail_net.platforms.base import OutputFile, PlatformParser
from dualrail_net.render.escape import UnsafeValue
from dualrail_net.verify.parsers.files import read_text

if TYPE_CHECKING:
    from dualrail_net.deploy.drivers.base import Driver

# NVUE's roles for local users (system-admin: sudo; nvue-admin: configures; nvue-monitor: reads)
USER_ROLES = {"admin": "system-admin", "operator": "nvue-admin", "read-only": "nvue-monitor"}
TRUST = {"dscp": "l3", "pcp,dscp": "both"}


class CumulusNvue:
    name = "cumulus-nvue"
    management_vrf_name = "mgmt"  # the OS names its management VRF so, whatever a file says
    max_mtu = 9216
    default_maximum_paths = 64  # Cumulus Linux's FRR (NVUE's `multipaths ebgp` default is 64)
    default_hold_time = 9  # NVUE's BGP timers default to keepalive 3, hold 9
    netmiko_type = "linux"
    files: tuple[OutputFile, ...] = (OutputFile("cumulus-nvue/startup.yaml.j2", "startup.yaml", OutputFormat.YAML),)
    template_root: Path | None = None
    twin_substitute: str | None = "cumulus"
    roles: frozenset[str] = frozenset({"leaf", "spine", "super_spine", "gateway"})
    deploy_paths: dict[str, str | None] = {"staging": "/tmp/dualrail"}

    def port_name(self, number: int) -> str:
        return f"swp{number}"

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        management = structured.get("management") or {}
        keys = {}
        for u in management.get("users", []):
            keys[u["name"]] = [{"type": k[0], "key": k[1], "name": name}
                               for k, name in zip(u["ssh_keys"], _key_names(u["name"], u["ssh_keys"]))]
        loopbacks = {v["name"]: v["loopback"] for v in structured["vrfs"]}
        trust = TRUST.get(structured["qos"]["trust"])
        if trust is None:
            raise UnsafeValue(f"QoS trust {str(structured['qos']['trust'])[:40]!r} has no NVUE spelling")
        unknown = [u["role"] for u in management.get("users", []) if u["role"] not in USER_ROLES]
        if unknown:
            raise UnsafeValue(f"user role {str(unknown[0])[:40]!r} has no NVUE role")
        return {
            "user_roles": USER_ROLES,
            "ssh_keys": keys,
            "trust": trust,
            # per BGP instance (in s.bgp's order): its NVUE VRF name and, for a plane's VRF, its loopback
            "vrf_names": [b["vrf"] or "default" for b in structured["bgp"]],
            "vrf_loopbacks": [loopbacks.get(b["vrf"]) for b in structured["bgp"]],
        }

    def parser(self) -> PlatformParser:
        from dualrail_net.platforms.cumulus_nvue.parse import parse_device, parse_text
        return PlatformParser(parse_device, text=parse_text)

    def driver(self, host: Any, connection: Any) -> Driver:
        from dualrail_net.platforms.cumulus_nvue.driver import NvueDriver
        return NvueDriver(host, connection)

    def batfish_files(self, name: str, folder: Path) -> dict[str, str | bytes]:
        """Batfish reads no NVUE YAML: the same structured config's Linux-files rendering (the twin
        substitute, next to the device folders), in Batfish's concatenated Cumulus format."""
        from dualrail_net.platforms.cumulus.batfish import concatenated
        from dualrail_net.manifest import TWIN_SUBSTITUTES
        root = folder.parent.parent  # <output>/plane-X/<device> or <output>/multi-plane/<device>
        twin = root / TWIN_SUBSTITUTES / name
        return {f"configs/{name}": concatenated(name, read_text(twin / "interfaces"), read_text(twin / "frr.conf"))}


PLATFORM = CumulusNvue()


def _key_names(user: str, ssh_keys: list[list[str]]) -> list[str]:
    """A name per authorized key, each once (NVUE keys the user's keys by name: a name twice is a
    duplicate key in startup.yaml): its comment, else USER-N; a comment another key already took
    gets -N after it, N its position."""
    names: list[str] = []
    for i, key in enumerate(ssh_keys):
        name = key[2] if len(key) > 2 else f"{user}-{i + 1}"
        while name in names:
            name = f"{name}-{i + 1}"
        names.append(name)
    return names
