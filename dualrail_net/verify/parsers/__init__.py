"""Parsers from rendered files back into the vendor-neutral model (verify.model).

Each platform's reader of a device folder is part of its plug-in (``Platform.parser()``, see
``dualrail_net/platforms``); this package holds the format readers they share (FRR, ifupdown2,
the indented-tree reader), the servers' reader, and the joining of a device's two parts."""

from __future__ import annotations

from pathlib import Path

from dualrail_net.platforms import PlatformError, PlatformParser, get_platform
from dualrail_net.verify.model import DeviceConfig, ServerConfig
from dualrail_net.verify.parsers.files import UnreadableFile, read_text
from dualrail_net.verify.parsers.ifupdown import read_interfaces, server_policy

__all__ = ["ROUTING_FIELDS", "PlatformParser", "UnreadableFile", "add_routing", "parse_device", "parse_server",
           "platform_parser", "read_text"]

# what a routing part sets; it also names VRFs (DeviceConfig.vrfs, without tables)
ROUTING_FIELDS = ("hostname", "bgp", "prefix_lists", "route_maps", "static_routes", "vrf_route_leaks")


_PARSERS: dict[str, PlatformParser] = {}


def platform_parser(name: str, platform: str) -> PlatformParser:
    parser = _PARSERS.get(platform)
    if parser is None:
        try:
            parser = _PARSERS[platform] = get_platform(platform).parser()
        except PlatformError as exc:
            raise ValueError(f"{exc} (device {name})") from None
    return parser


def add_routing(dev: DeviceConfig, routing: DeviceConfig) -> DeviceConfig:
    """``dev`` (a base part) with ``routing`` (its routing part) added: the same model as reading
    the routing file after the others, VRFs named only there included (after the others, untabled)."""
    for name in ROUTING_FIELDS:
        setattr(dev, name, getattr(routing, name))
    for vrf in routing.vrfs:
        dev.vrfs.setdefault(vrf, None)
    return dev


def parse_device(name: str, platform: str, folder: Path) -> DeviceConfig:
    parser = platform_parser(name, platform)
    dev = parser.base(name, folder)
    return add_routing(dev, parser.routing(name, folder)) if parser.routing else dev


def parse_server(name: str, folder: Path) -> ServerConfig:
    parsed = read_interfaces(read_text(folder / "interfaces"))
    routes, rules = server_policy(parsed.commands)
    return ServerConfig(name=name, interfaces=parsed.interfaces, routes=routes, rules=rules)
