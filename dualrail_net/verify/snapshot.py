"""Load a rendered output folder into what the checks read: parsed devices and servers, the
manifest (who is what, in which plane) and the cabling plan. Nothing here reads the inventory."""

from __future__ import annotations

import csv
import ipaddress
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.gcpause import gc_paused
from dualrail_net.verify.ipfast import network_of
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
    _plane_cache: dict[str, str | None] = field(default_factory=dict)
    _pool_tables: list[tuple[int, int, dict[int, str]]] = field(default_factory=list)

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
        found = self.plane_of_net(network_of(address))
        self._plane_cache[address] = found
        return found

    def plane_of_net(self, net: tuple[int, int]) -> str | None:
        """plane_of_address for an already parsed (network, length): one dict probe per distinct
        pool length (a 100k-GPU fabric asks ~1.2M times)."""
        address, length = net
        for pool_len, shift, table in self._pool_tables:
            if length >= pool_len:
                plane = table.get(address >> shift)
                if plane is not None:
                    return plane
        return None

    def index_pools(self) -> None:
        self._plane_cache = {}
        # longest pool first: if pools ever overlapped (validation refuses that) the most specific wins
        tables: dict[int, dict[int, str]] = {}
        for plane, nets in self.pools.items():
            for n in nets:
                tables.setdefault(n.prefixlen, {}).setdefault(int(n.network_address) >> (32 - n.prefixlen), plane)
        self._pool_tables = [(length, 32 - length, table) for length, table in sorted(tables.items(), reverse=True)]


def load_snapshot(root: Path) -> Snapshot:
    """Parse the rendered folder in this process. A process pool was measured slower (154 s vs
    53 s at 100k GPUs): pickling the parsed models back costs more than the parsing saves."""
    with gc_paused():
        return _load_snapshot(root)


def _load_snapshot(root: Path) -> Snapshot:
    manifest_path = root / "manifest.json"
    if not manifest_path.exists():
        raise SnapshotError(f"{manifest_path} not found: run `dualrail render` first")
    manifest = json.loads(manifest_path.read_text())
    devices = {name: parse_device(name, meta["platform"], root / meta["dir"])
               for name, meta in manifest["devices"].items()}
    servers = {name: parse_server(name, root / meta["dir"]) for name, meta in manifest.get("servers", {}).items()}
    cabling_path = root / manifest.get("cabling", "resolved/cabling.csv")
    cabling = list(csv.DictReader(cabling_path.read_text().splitlines())) if cabling_path.exists() else []
    snap = Snapshot(root, manifest, devices, servers, cabling)
    snap.pools = {p: [ipaddress.IPv4Network(v) for v in pools.values()] for p, pools in manifest.get("pools", {}).items()}
    snap.routed = {p: [ipaddress.IPv4Network(v) for v in nets] for p, nets in manifest.get("routed_prefixes", {}).items()}
    snap.index_pools()
    return snap
