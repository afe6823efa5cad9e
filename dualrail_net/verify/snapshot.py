"""Load a rendered output folder into what the checks read: parsed devices and servers, the
manifest (who is what, in which plane) and the cabling plan. Nothing here reads the inventory."""

from __future__ import annotations

import csv
import ipaddress
import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from dualrail_net.verify.model import DeviceConfig, ServerConfig
from dualrail_net.verify.parsers import parse_device, parse_server

Network = ipaddress.IPv4Network


class SnapshotError(Exception):
    pass


@dataclass
class Snapshot:
    root: Path
    manifest: dict[str, Any]
    devices: dict[str, DeviceConfig]
    servers: dict[str, ServerConfig]
    cabling: list[dict[str, str]]
    pools: dict[str, list[Network]] = field(default_factory=dict)
    routed: dict[str, list[Network]] = field(default_factory=dict)

    @property
    def planes(self) -> list[str]:
        return list(self.manifest["planes"])

    def meta(self, device: str) -> dict[str, Any]:
        meta: dict[str, Any] = self.manifest["devices"].get(device, {})
        return meta

    def plane_of_device(self, device: str) -> str | None:
        plane = self.meta(device).get("plane")
        return str(plane) if plane else None

    def plane_of_address(self, address: str) -> str | None:
        """The plane whose pools hold ``address`` (an IP or a prefix), or None."""
        return _plane_of(address, tuple((p, tuple(nets)) for p, nets in self.pools.items()))


@lru_cache(maxsize=200_000)
def _plane_of(address: str, pools: tuple[tuple[str, tuple[Network, ...]], ...]) -> str | None:
    net = ipaddress.IPv4Network(address, strict=False)
    for plane, nets in pools:
        for pool in nets:
            if net.subnet_of(pool):
                return plane
    return None


def _parse_chunk(items: list[tuple[str, str, str]]) -> list[DeviceConfig]:
    return [parse_device(name, platform, Path(folder)) for name, platform, folder in items]


def load_snapshot(root: Path, workers: int = 1) -> Snapshot:
    manifest_path = root / "manifest.json"
    if not manifest_path.exists():
        raise SnapshotError(f"{manifest_path} not found: run `dualrail render` first")
    manifest = json.loads(manifest_path.read_text())
    jobs = [(name, meta["platform"], str(root / meta["dir"])) for name, meta in manifest["devices"].items()]
    devices: dict[str, DeviceConfig] = {}
    if workers > 1 and len(jobs) > 2000:
        chunks = [jobs[i::workers] for i in range(workers)]
        with ProcessPoolExecutor(workers) as pool:
            for parsed in pool.map(_parse_chunk, chunks):
                devices.update((d.name, d) for d in parsed)
        devices = {name: devices[name] for name, _, _ in jobs}
    else:
        devices = {d.name: d for d in _parse_chunk(jobs)}
    servers = {name: parse_server(name, root / meta["dir"]) for name, meta in manifest.get("servers", {}).items()}
    cabling_path = root / manifest.get("cabling", "resolved/cabling.csv")
    cabling = list(csv.DictReader(cabling_path.open())) if cabling_path.exists() else []
    snap = Snapshot(root, manifest, devices, servers, cabling)
    snap.pools = {p: [ipaddress.IPv4Network(v) for v in pools.values()] for p, pools in manifest.get("pools", {}).items()}
    snap.routed = {p: [ipaddress.IPv4Network(v) for v in nets] for p, nets in manifest.get("routed_prefixes", {}).items()}
    return snap
