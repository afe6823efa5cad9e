"""Parsers from each platform's rendered files back into the vendor-neutral model (verify.model).

A platform registers a function that reads one device folder. Adding a platform = one module here
plus one entry in DEVICE_PARSERS."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dualrail_net.verify.model import DeviceConfig, ServerConfig
from dualrail_net.verify.parsers.cumulus_qos import parse_qos_features
from dualrail_net.verify.parsers.eos import parse_eos
from dualrail_net.verify.parsers.frr import parse_frr
from dualrail_net.verify.parsers.ifupdown import read_interfaces, server_policy


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def parse_cumulus(name: str, folder: Path) -> DeviceConfig:
    dev = DeviceConfig(name=name, platform="cumulus")
    parsed = read_interfaces(_read(folder / "interfaces"))
    dev.interfaces = parsed.interfaces
    dev.vrfs.update(parsed.vrfs)
    parse_frr(_read(folder / "frr.conf"), dev)
    parse_qos_features(_read(folder / "qos_features.conf"), dev)
    return dev


def parse_eos_device(name: str, folder: Path) -> DeviceConfig:
    dev = DeviceConfig(name=name, platform="eos")
    parse_eos(_read(folder / "running-config"), dev)
    return dev


DEVICE_PARSERS: dict[str, Callable[[str, Path], DeviceConfig]] = {
    "cumulus": parse_cumulus,
    "eos": parse_eos_device,
}


def parse_device(name: str, platform: str, folder: Path) -> DeviceConfig:
    try:
        parser = DEVICE_PARSERS[platform]
    except KeyError:
        raise ValueError(f"no parser for platform {platform!r} (device {name})") from None
    return parser(name, folder)


def parse_server(name: str, folder: Path) -> ServerConfig:
    parsed = read_interfaces(_read(folder / "interfaces"))
    routes, rules = server_policy(parsed.commands)
    return ServerConfig(name=name, interfaces=parsed.interfaces, routes=routes, rules=rules)
