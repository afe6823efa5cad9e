"""Load a rendered output folder into what the checks read: parsed devices and servers, the
manifest (who is what, in which plane) and the cabling plan. Nothing here reads the inventory."""

from __future__ import annotations

import csv
import os
import ipaddress
import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.gcpause import gc_paused
from dualrail_net.verify.ipfast import contains, network_of
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
    _pool_ints: list[tuple[str, int, int]] = field(default_factory=list)
    _plane_cache: dict[str, str | None] = field(default_factory=dict)

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
        hit = self._plane_cache.get(address, "?")
        if hit != "?":
            return hit
        net, length = network_of(address)
        found = None
        for plane, pool_net, pool_len in self._pool_ints:
            if length >= pool_len and contains((pool_net, pool_len), net):
                found = plane
                break
        self._plane_cache[address] = found
        return found

    def index_pools(self) -> None:
        self._pool_ints = [(plane, *network_of(str(n))) for plane, nets in self.pools.items() for n in nets]
        self._plane_cache = {}


def _parse_chunk(items: list[tuple[str, str, str]]) -> list[DeviceConfig]:
    return [parse_device(name, platform, Path(folder)) for name, platform, folder in items]


def _parse_servers(items: list[tuple[str, str]]) -> list[ServerConfig]:
    return [parse_server(name, Path(folder)) for name, folder in items]


def default_workers() -> int:
    # Measured: a process pool parses slower than one process (the parsed models are pickled back),
    # 154 s vs ~25 s at 100k GPUs. Kept as an option for machines with many cores.
    return 1


def load_snapshot(root: Path, workers: int = 1) -> Snapshot:
    with gc_paused():
        return _load_snapshot(root, workers)


def _load_snapshot(root: Path, workers: int) -> Snapshot:
    manifest_path = root / "manifest.json"
    if not manifest_path.exists():
        raise SnapshotError(f"{manifest_path} not found: run `dualrail render` first")
    manifest = json.loads(manifest_path.read_text())
    jobs = [(name, meta["platform"], str(root / meta["dir"])) for name, meta in manifest["devices"].items()]
    devices: dict[str, DeviceConfig] = {}
    if workers > 1 and len(jobs) > 5000:
        chunks = [jobs[i::workers] for i in range(workers)]
        with ProcessPoolExecutor(workers) as pool:
            for parsed in pool.map(_parse_chunk, chunks):
                devices.update((d.name, d) for d in parsed)
        devices = {name: devices[name] for name, _, _ in jobs}
    else:
        devices = {d.name: d for d in _parse_chunk(jobs)}
    server_jobs = [(name, str(root / meta["dir"])) for name, meta in manifest.get("servers", {}).items()]
    if workers > 1 and len(server_jobs) > 5000:
        with ProcessPoolExecutor(workers) as pool:
            parsed_servers = [s for chunk in pool.map(_parse_servers, [server_jobs[i::workers] for i in range(workers)])
                              for s in chunk]
        by_name = {s.name: s for s in parsed_servers}
        servers = {name: by_name[name] for name, _ in server_jobs}
    else:
        servers = {s.name: s for s in _parse_servers(server_jobs)}
    cabling_path = root / manifest.get("cabling", "resolved/cabling.csv")
    cabling = list(csv.DictReader(cabling_path.open())) if cabling_path.exists() else []
    snap = Snapshot(root, manifest, devices, servers, cabling)
    snap.pools = {p: [ipaddress.IPv4Network(v) for v in pools.values()] for p, pools in manifest.get("pools", {}).items()}
    snap.routed = {p: [ipaddress.IPv4Network(v) for v in nets] for p, nets in manifest.get("routed_prefixes", {}).items()}
    snap.index_pools()
    return snap
