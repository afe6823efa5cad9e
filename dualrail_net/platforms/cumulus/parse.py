"""A Cumulus device folder -> DeviceConfig: interfaces and QoS in the base part, frr.conf in the
routing part (verify reads the two in two processes at scale)."""

from __future__ import annotations

import re
from pathlib import Path

from dualrail_net.platforms.cumulus.qos_features import parse_qos_features
from dualrail_net.secretref import is_reference
from dualrail_net.verify.model import SYSLOG_TRANSPORT, DeviceConfig, syslog_transport_astray
from dualrail_net.verify.parsers import link
from dualrail_net.verify.parsers.files import read_text
from dualrail_net.verify.parsers.frr import parse_frr, zebra_interface_blocks
from dualrail_net.verify.parsers.ifupdown import apply_link_commands, read_interfaces


def parse_base(name: str, folder: Path) -> DeviceConfig:
    """Interfaces and QoS; the routing part (frr.conf) is parse_routing's."""
    dev = DeviceConfig(name=name, platform="cumulus")
    parsed = read_interfaces(read_text(folder / "interfaces"))
    dev.interfaces = parsed.interfaces
    dev.vrfs.update(parsed.vrfs)
    take_management(dev, parsed.gateways)
    dev.base_unmodelled = [("interfaces", line, text) for line, text in parsed.unmodelled]
    # a switch's routes and rules are frr.conf's: a command run at ifup is not in the model,
    # but the ports it takes down or gives another MTU (`ip link set`)
    applied = apply_link_commands(parsed)
    dev.base_unmodelled += [("interfaces", line, f"post-up/up command: {cmd}")
                            for number, (cmd, line) in enumerate(zip(parsed.commands, parsed.command_lines))
                            if number not in applied]
    dev.lag_members = {port: (bond, "interfaces", line) for port, (bond, line) in parsed.lag_members.items()}
    link.take_lag_members(dev)
    parse_qos_features(read_text(folder / "qos_features.conf"), dev)
    parse_services(folder, dev)
    zebra_interface_blocks(read_text(folder / "frr.conf"), dev)  # (zebra's port settings, after ifupdown's)
    return dev


_SYSLOG_ACTION = re.compile(r'^action\(type="omfwd"(.*)\)$')
_SYSLOG_PARAMETER = re.compile(r'(\w+)="([^"]*)"')


def _syslog_target(line: str) -> tuple[str, str | None, tuple[str, str]] | None:
    """An ``omfwd`` action's collector, device (VRF) and (protocol, port); None: not one."""
    action = _SYSLOG_ACTION.match(line)
    if action is None:
        return None
    params = {key.lower(): value for key, value in _SYSLOG_PARAMETER.findall(action.group(1))}
    if not params.get("target"):
        return None
    return (params["target"], params.get("device"),
            (params.get("protocol", SYSLOG_TRANSPORT[0]).lower(), params.get("port", SYSLOG_TRANSPORT[1])))


def parse_services(folder: Path, dev: DeviceConfig) -> None:
    """The management services as the rendered service files give them: ntpsec's ``server``
    lines, rsyslog's ``omfwd`` actions through the management VRF over UDP 514, resolv.conf's
    ``nameserver`` lines marked ``# vrf VRF`` (Cumulus resolves in the VRF a line's comment names,
    else in the default VRF: the fabric's), tacplus_servers' ``server=`` lines (with its
    ``vrf=``). A missing file holds no server (MGMT-SERVICES and MGMT-AAA then name what is
    missing); a server reached another way is ``astray``; a line none of these understand is
    reported (UNMODELLED)."""
    mgmt = dev.management
    mgmt.services_in_file = True
    vrf = mgmt.vrf or MANAGEMENT_VRF
    tacacs: list[str] = []
    tacacs_vrf = "default"
    for name in ("ntp.conf", "rsyslog.conf", "resolv.conf", "tacplus_servers"):
        for number, raw in enumerate(read_text(folder / name).splitlines(), 1):
            line = raw.split("#", 1)[0].strip() if name != "rsyslog.conf" else raw.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            if name == "ntp.conf" and words[0] == "server" and len(words) >= 2:
                mgmt.ntp.append(words[1])
            elif name == "ntp.conf" and words[0] == "driftfile":
                continue
            elif name == "resolv.conf" and words[0] == "nameserver" and len(words) >= 2:
                comment = raw.partition("#")[2].split()
                in_vrf = comment[1] if len(comment) == 2 and comment[0] == "vrf" else "default"
                if in_vrf == vrf or mgmt.vrf is None:
                    mgmt.dns.append(words[1])
                else:
                    mgmt.astray.append((name, number, words[1], f"resolved in VRF {in_vrf}"))
            elif name == "tacplus_servers" and line.partition("=")[0] in ("server", "vrf", "secret"):
                key, _, value = line.partition("=")
                if key == "server":
                    tacacs.append(value.strip().partition(":")[0])  # server=IP[:port]
                elif key == "vrf":
                    tacacs_vrf = value.strip()
                elif not is_reference(value.strip()):
                    mgmt.literal_secrets.append((name, number, "tacplus_servers secret"))
            elif name == "rsyslog.conf" and (target := _syslog_target(line)) is not None:
                server, device, transport = target
                if device != vrf:  # outside the management VRF: the fabric would carry it, or nothing would
                    mgmt.astray.append((name, number, server, f"sent in VRF {device or 'default'}"))
                elif (astray := syslog_transport_astray(transport)) is not None:
                    mgmt.astray.append((name, number, server, astray))
                else:
                    mgmt.syslog.append(server)
            else:
                dev.base_unmodelled.append((name, number, raw))
    # the client reaches its servers through vrf= (without it, the default VRF: the fabric)
    mgmt.tacacs = tacacs if tacacs_vrf == vrf else []


MANAGEMENT_VRF = "mgmt"  # Cumulus Linux reserves this name for the management VRF


def take_management(dev: DeviceConfig, gateways: dict[str, str]) -> None:
    """Move the management VRF and its ports out of the fabric's interfaces: they are in no plane.
    Cumulus keeps its local users and serves SSH in the management VRF by itself (ssh@mgmt); the
    rendered files replace neither, so they are the platform's, not the file's."""
    mgmt = dev.management
    if MANAGEMENT_VRF in dev.vrfs:
        del dev.vrfs[MANAGEMENT_VRF]
        mgmt.vrf = MANAGEMENT_VRF
    for name in [n for n, i in dev.interfaces.items() if i.vrf == MANAGEMENT_VRF or n == "eth0"]:
        iface = dev.interfaces.pop(name)
        if name != MANAGEMENT_VRF:
            mgmt.interfaces[name] = iface
            if name in gateways and iface.vrf == MANAGEMENT_VRF:
                mgmt.default_gateway = gateways.pop(name)
    for name, gateway in gateways.items():  # a default route outside the management VRF: not modelled
        dev.base_unmodelled.append(("interfaces", 0, f"gateway {gateway} on {name}"))


def parse_routing(name: str, folder: Path) -> DeviceConfig:
    dev = DeviceConfig(name=name, platform="cumulus")
    parse_frr(read_text(folder / "frr.conf"), dev)
    return dev
