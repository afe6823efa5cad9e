"""A Cumulus device folder -> DeviceConfig: interfaces and QoS in the base part, frr.conf in the
routing part (verify reads the two in two processes at scale)."""

from __future__ import annotations

from pathlib import Path

from dualrail_net.platforms.cumulus import services
from dualrail_net.platforms.cumulus.kernel_routes import kernel_routes
from dualrail_net.platforms.cumulus.qos_features import parse_qos_features
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers import link
from dualrail_net.verify.parsers.files import read_text, read_text_as_written
from dualrail_net.verify.parsers.frr import parse_frr, zebra_interface_blocks
from dualrail_net.verify.parsers.ifupdown import apply_link_commands, read_interfaces


# the MTU Cumulus Linux gives a front-panel port whose stanza sets none (its ifupdown2 policy's
# default for swp ports, not ifupdown2's own 1500)
CUMULUS_PORT_MTU = 9216


def parse_base(name: str, folder: Path) -> DeviceConfig:
    """Interfaces and QoS; the routing part (frr.conf) is parse_routing's."""
    dev = DeviceConfig(name=name, platform="cumulus")
    parsed = read_interfaces(read_text(folder / "interfaces"))
    dev.interfaces = parsed.interfaces
    dev.vrfs.update(parsed.vrfs)
    dev.base_unmodelled = [("interfaces", line, text) for line, text in parsed.unmodelled]
    members = parsed.bridge_members | parsed.lag_members
    for port, iface in parsed.interfaces.items():
        if iface.mtu is None and port.startswith("swp") and "." not in port and port not in members:
            iface.mtu = CUMULUS_PORT_MTU  # (a command below may still set another)
            dev.default_mtu[port] = "interfaces"
    # a command run at ifup: the ports it takes down, gives another MTU or moves to another VRF
    # (`ip link set`), the management port among them (before it leaves the fabric's ports: a
    # command that takes eth0 down or out of its VRF locks the operator out) ...
    applied = apply_link_commands(parsed, masters=True)
    take_management(dev, parsed.gateways)
    # ... and the routes it puts in the kernel's tables (switchd programs them like zebra's)
    pending = [n for n in range(len(parsed.commands)) if n not in applied]
    dev.kernel_routes, dev.kernel_rules, dev.kernel_lookups, routed = kernel_routes(
        parsed, pending, dev.vrfs, dev.interfaces)
    dev.base_unmodelled += [("interfaces", line, f"post-up/up command: {cmd}")
                            for number, (cmd, line) in enumerate(zip(parsed.commands, parsed.command_lines))
                            if number not in applied and number not in routed]
    dev.lag_members = {port: (upper, "interfaces", line) for port, (upper, line) in members.items()}
    link.take_lag_members(dev)
    parse_qos_features(read_text(folder / "qos_features.conf"), dev)
    parse_services(folder, dev)
    zebra_interface_blocks(read_text(folder / "frr.conf"), dev)  # (zebra's port settings, after ifupdown's)
    link.take_sub_port_parents(dev, link.sub_port_parents(dev.interfaces))
    return dev


def parse_services(folder: Path, dev: DeviceConfig) -> None:
    """The management services as the rendered service files give them (platforms/cumulus/services.py
    reads each as the program that loads it). A missing file holds no server (MGMT-SERVICES and
    MGMT-AAA then name what is missing)."""
    mgmt = dev.management
    mgmt.services_in_file = True
    vrf = mgmt.vrf or MANAGEMENT_VRF
    services.read_ntp(read_text(folder / services.NTP), dev)
    services.read_rsyslog(read_text(folder / services.SYSLOG), dev, vrf)
    services.read_resolv(read_text_as_written(folder / services.RESOLV), dev, vrf)
    services.read_tacplus(read_text(folder / services.TACPLUS), dev, vrf)


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
