"""Load a rendered output folder into what the checks read: parsed devices and servers, the
manifest (who is what, in which plane) and the cabling plan. Nothing here reads the inventory."""

from __future__ import annotations

import ipaddress
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.gcpause import gc_paused
from dualrail_net.verify.cabling import CablingPlan, read_cabling
from dualrail_net.verify.ipfast import network_of
from dualrail_net.verify.model import DeviceConfig, ServerConfig
from dualrail_net.verify import routing_wire
from dualrail_net.verify.parallel import run_forked
from dualrail_net.verify.parsers import add_routing, parse_device, parse_server, platform_parser

Network = ipaddress.IPv4Network


class SnapshotError(Exception):
    pass


@dataclass
class Snapshot:
    root: Path
    manifest: dict[str, Any]
    devices: dict[str, DeviceConfig]
    servers: dict[str, ServerConfig]
    cabling: CablingPlan
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

    def pool_lookup_order(self) -> list[tuple[int, int, str]]:
        """(pool length, pool network >> (32 - length), plane) in the order plane_of_net tries them:
        for the same lookup over arrays of networks (verify/address_table.py)."""
        return [(32 - shift, prefix, plane) for _, shift, table in self._pool_tables
                for prefix, plane in table.items()]

    def index_pools(self) -> None:
        self._plane_cache = {}
        # longest pool first: if pools ever overlapped (validation refuses that) the most specific wins
        tables: dict[int, dict[int, str]] = {}
        for plane, nets in self.pools.items():
            for n in nets:
                tables.setdefault(n.prefixlen, {}).setdefault(int(n.network_address) >> (32 - n.prefixlen), plane)
        self._pool_tables = [(length, 32 - length, table) for length, table in sorted(tables.items(), reverse=True)]


# Below this many devices and servers a fork costs more than it saves.
PARALLEL_PARSE_FROM = 2000
# With two processes, a forked child reads every switch's routing part (frr.conf: half the parsing)
# and 1 of every 5 servers; this process reads the rest (interfaces, QoS, 4 of 5 servers, the
# cabling plan) and then takes the child's models: the routing parts as marshalled tuples
# (verify/routing_wire.py), the servers pickled. That evens out both processes' time at 100k GPUs.
CHILD_SERVERS_OF_FIVE = 1

Work = list[tuple[str, dict[str, Any]]]


def load_snapshot(root: Path, workers: int | None = None) -> Snapshot:
    """Parse the rendered folder. From PARALLEL_PARSE_FROM devices and servers a forked child reads
    a share of it and sends its models back (see CHILD_SERVERS_OF_FIVE); ``workers`` = 1 forces
    one process. The result is the same either way, in the manifest's order."""
    with gc_paused():
        return _load_snapshot(root, workers)


def _in_child(position: int) -> bool:
    """Whether the child reads the server at ``position``: interleaved, so that both processes get
    the same mix of server kinds."""
    return position % 5 < CHILD_SERVERS_OF_FIVE


def read_manifest(root: Path) -> dict[str, Any]:
    manifest_path = root / "manifest.json"
    if not manifest_path.exists():
        raise SnapshotError(f"{manifest_path} not found: run `dualrail render` first")
    manifest: dict[str, Any] = json.loads(manifest_path.read_text())
    return manifest


def cabling_path(root: Path, manifest: dict[str, Any]) -> Path:
    return root / str(manifest.get("cabling", "resolved/cabling.csv"))


def assemble(root: Path, manifest: dict[str, Any], devices: dict[str, DeviceConfig], servers: dict[str, ServerConfig],
             cabling: CablingPlan) -> Snapshot:
    """The snapshot of parsed parts, with the manifest's pools indexed."""
    snap = Snapshot(root, manifest, devices, servers, cabling)
    snap.pools = {p: [ipaddress.IPv4Network(v) for v in pools.values()] for p, pools in manifest.get("pools", {}).items()}
    snap.routed = {p: [ipaddress.IPv4Network(v) for v in nets] for p, nets in manifest.get("routed_prefixes", {}).items()}
    snap.index_pools()
    return snap


def _load_snapshot(root: Path, workers: int | None) -> Snapshot:
    manifest = read_manifest(root)
    switch_work: Work = list(manifest["devices"].items())
    server_work: Work = list(manifest.get("servers", {}).items())
    if workers is None:
        parallel = hasattr(os, "fork") and len(switch_work) + len(server_work) >= PARALLEL_PARSE_FROM
        workers = 2 if parallel else 1
    cabling = cabling_path(root, manifest)
    parsers = [platform_parser(name, meta["platform"]) for name, meta in switch_work]
    if workers > 1:
        def parse(child: bool) -> tuple[bytes, list[DeviceConfig], list[ServerConfig], CablingPlan | None]:
            if child:
                routing = [parser.routing(name, root / meta["dir"])
                           for parser, (name, meta) in zip(parsers, switch_work) if parser.routing]
                return routing_wire.encode(routing), [], [parse_server(name, root / meta["dir"]) for i, (name, meta)
                                                          in enumerate(server_work) if _in_child(i)], None
            base = [parser.base(name, root / meta["dir"]) for parser, (name, meta) in zip(parsers, switch_work)]
            mine = [parse_server(name, root / meta["dir"]) for i, (name, meta) in enumerate(server_work)
                    if not _in_child(i)]
            return b"", base, mine, read_cabling(cabling)

        (_, base, servers_mine, plan), (routing, _, servers_child, _) = run_forked(
            [[False], [True]], lambda group: parse(group[0]))
        assert plan is not None  # this process read it
        routing_parts = iter(routing_wire.decode(routing))
        devices_parsed = [add_routing(dev, next(routing_parts)) if parser.routing else dev
                          for parser, dev in zip(parsers, base)]
        mine_it, child_it = iter(servers_mine), iter(servers_child)
        servers_parsed = [next(child_it if _in_child(i) else mine_it) for i in range(len(server_work))]
    else:
        devices_parsed = [parse_device(name, meta["platform"], root / meta["dir"]) for name, meta in switch_work]
        servers_parsed = [parse_server(name, root / meta["dir"]) for name, meta in server_work]
        plan = read_cabling(cabling)
    devices = {name: dev for (name, _), dev in zip(switch_work, devices_parsed)}
    servers = {name: srv for (name, _), srv in zip(server_work, servers_parsed)}
    return assemble(root, manifest, devices, servers, plan)
