"""Parsers from each platform's rendered files back into the vendor-neutral model (verify.model).

A platform registers a function that reads one device folder. Adding a platform = one module here
plus one entry in DEVICE_PARSERS."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dualrail_net.verify.model import DeviceConfig, ServerConfig
from dualrail_net.verify.parsers.cumulus_qos import parse_qos_features
from dualrail_net.verify.parsers.eos import parse_eos
from dualrail_net.verify.parsers.frr import parse_frr
from dualrail_net.verify.parsers.ifupdown import read_interfaces, server_policy


class UnreadableFile(Exception):
    """A rendered file that verification will not read (a symlink, a FIFO, a device)."""


def _read(path: Path) -> str:
    """The file's text as Path.read_text gives it (UTF-8, universal newlines); a missing file reads
    as empty. Read with os.read: 3x faster than read_text for the 57k small files of a 100k-GPU
    fabric (no exists() call, no text-mode file object)."""
    try:
        # O_NOFOLLOW: a link planted in the rendered folder is refused, never read through (it could
        # point at any file on the machine, and findings quote what they read)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnreadableFile(f"{path} is a symlink; verify reads only regular files (remove it and "
                                 "re-render)") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnreadableFile(f"{path} is not a regular file; remove it and re-render")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if b"\r" in data:  # what text mode does: \r\n and a lone \r end a line
        return data.decode().replace("\r\n", "\n").replace("\r", "\n")
    return data.decode()


def parse_cumulus(name: str, folder: Path) -> DeviceConfig:
    """Interfaces and QoS; the routing part (frr.conf) is parse_cumulus_routing's."""
    dev = DeviceConfig(name=name, platform="cumulus")
    parsed = read_interfaces(_read(folder / "interfaces"))
    dev.interfaces = parsed.interfaces
    dev.vrfs.update(parsed.vrfs)
    parse_qos_features(_read(folder / "qos_features.conf"), dev)
    return dev


def parse_cumulus_routing(name: str, folder: Path) -> DeviceConfig:
    dev = DeviceConfig(name=name, platform="cumulus")
    parse_frr(_read(folder / "frr.conf"), dev)
    return dev


def parse_eos_device(name: str, folder: Path) -> DeviceConfig:
    dev = DeviceConfig(name=name, platform="eos")
    parse_eos(_read(folder / "running-config"), dev)
    return dev


@dataclass(frozen=True)
class PlatformParser:
    """How one platform's folder is read. A platform whose routing configuration is a file of its
    own (frr.conf) reads it in ``routing``, into a DeviceConfig that holds only ROUTING_FIELDS and
    VRF names: verify reads the two parts in two processes (verify/snapshot.py). A one-file
    platform reads everything in ``base``."""

    base: Callable[[str, Path], DeviceConfig]
    routing: Callable[[str, Path], DeviceConfig] | None = None


DEVICE_PARSERS: dict[str, PlatformParser] = {
    "cumulus": PlatformParser(parse_cumulus, parse_cumulus_routing),
    "eos": PlatformParser(parse_eos_device),
}

# what a routing part sets; it also names VRFs (DeviceConfig.vrfs, without tables)
ROUTING_FIELDS = ("hostname", "bgp", "prefix_lists", "route_maps", "static_routes", "vrf_route_leaks")


def platform_parser(name: str, platform: str) -> PlatformParser:
    try:
        return DEVICE_PARSERS[platform]
    except KeyError:
        raise ValueError(f"no parser for platform {platform!r} (device {name})") from None


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
    parsed = read_interfaces(_read(folder / "interfaces"))
    routes, rules = server_policy(parsed.commands)
    return ServerConfig(name=name, interfaces=parsed.interfaces, routes=routes, rules=rules)
