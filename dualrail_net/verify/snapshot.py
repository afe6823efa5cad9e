"""Load a rendered output folder into what the checks read: parsed devices and servers, the
manifest (who is what, in which plane) and the cabling plan. Nothing here reads the inventory."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from dualrail_net.gcpause import gc_paused
from dualrail_net.manifest import DeviceEntry, Manifest, ManifestError
from dualrail_net.planes import PlanePools
from dualrail_net.verify.cabling import CablingPlan, read_cabling
from dualrail_net.verify.model import DeviceConfig, ServerConfig
from dualrail_net.verify.parsers import parse_device, parse_server
from dualrail_net.verify.parsers.files import refuse_linked_folders

Network = ipaddress.IPv4Network


SnapshotError = ManifestError  # a rendered folder that cannot be verified (its manifest says why)


@dataclass
class Snapshot:
    root: Path
    manifest: Manifest
    devices: dict[str, DeviceConfig]
    servers: dict[str, ServerConfig]
    cabling: CablingPlan
    pools: dict[str, list[Network]] = field(default_factory=dict)
    routed: dict[str, list[Network]] = field(default_factory=dict)
    plane_pools: PlanePools = field(default_factory=lambda: PlanePools({}))

    @property
    def planes(self) -> list[str]:
        return list(self.manifest.planes)

    def meta(self, device: str) -> DeviceEntry | None:
        return self.manifest.devices.get(device)

    def device_folder(self, device: str) -> str:
        """The device's rendered folder (relative to the output folder), or its name."""
        meta = self.meta(device)
        return meta.dir if meta else device

    def where(self, device: str, file: str, line: int = 0) -> str:
        """``folder/file:line`` of a device's statement, as findings name it (no line: the file)."""
        return f"{self.device_folder(device)}/{file}" + (f":{line}" if line else "")

    def plane_of_device(self, device: str) -> str | None:
        return self.manifest.plane_of(device) or None

    def plane_of_address(self, address: str) -> str | None:
        """The plane whose pools hold ``address`` (an IP or a prefix), or None (PlanePools)."""
        return self.plane_pools.plane_of_address(address)

    def plane_routed(self, prefix: str) -> str | None:
        """The plane whose addresses a route for ``prefix`` holds (PlanePools.plane_routed), or None."""
        return self.plane_pools.plane_routed(prefix)

    def plane_of_net(self, net: tuple[int, int]) -> str | None:
        return self.plane_pools.plane_of_net(net)

    def pool_lookup_order(self) -> list[tuple[int, int, str]]:
        return self.plane_pools.lookup_order()

    def index_pools(self) -> None:
        self.plane_pools = PlanePools(self.pools)


def load_snapshot(root: Path) -> Snapshot:
    """Parse the rendered folder in one process, in the manifest's order: the plain reference path.
    ``dualrail verify`` takes the fast path (verify/partitioned.py) from its size threshold; tests
    require both to give the same findings."""
    with gc_paused():
        manifest = read_manifest(root)
        devices = {name: parse_device(name, meta.platform, root / meta.dir) for name, meta in manifest.devices.items()}
        servers = {name: parse_server(name, root / meta.dir, [port.ifname for port in meta.ports])
                   for name, meta in manifest.servers.items()}
        plan = read_cabling(manifest.cabling_path(root))
        return assemble(root, manifest, devices, servers, plan)


def read_manifest(root: Path) -> Manifest:
    """The manifest, once no folder it names is reached through a link (refuse_linked_folders)."""
    manifest = Manifest.load(root)
    refuse_linked_folders(root, [meta.dir for meta in manifest.devices.values()]
                          + [meta.dir for meta in manifest.servers.values()]
                          + [plane.dir for plane in manifest.ib_planes.values()] + [str(Path(manifest.cabling).parent)])
    return manifest


def cabling_path(root: Path, manifest: Manifest) -> Path:
    return manifest.cabling_path(root)


def assemble(root: Path, manifest: Manifest, devices: dict[str, DeviceConfig], servers: dict[str, ServerConfig],
             cabling: CablingPlan, routing: bool = True, external_untagged: bool = False) -> Snapshot:
    """The snapshot of parsed parts, with the manifest's pools indexed. With ``routing`` (the
    devices' routing parts are read), what needs every device read is judged: the route-maps'
    community matches (verify/communities.py; ``external_untagged``: the external peers are known
    to send no community, as the twin's stand-ins do), the BGP roles' marks (verify/roles.py),
    the neighbors bound to a port (verify/bindings.py) and `ip nht resolve-via-default` (verify/nht.py)."""
    snap = Snapshot(root, manifest, devices, servers, cabling)
    snap.pools = {p: [ipaddress.IPv4Network(v) for v in pools.values()] for p, pools in manifest.pools.items()}
    snap.routed = {p: [ipaddress.IPv4Network(v) for v in nets] for p, nets in manifest.routed_prefixes.items()}
    snap.index_pools()
    if routing:
        # (both read this module's Snapshot)
        from dualrail_net.verify.bindings import judge_bound_ports
        from dualrail_net.verify.communities import judge_community_matches
        from dualrail_net.verify.dynamic import expand_dynamic_neighbors
        from dualrail_net.verify.nht import judge_nht_default
        from dualrail_net.verify.roles import judge_role_routes
        expand_dynamic_neighbors(snap)
        judge_community_matches(snap, external_untagged)
        judge_role_routes(snap)
        judge_bound_ports(snap)
        judge_nht_default(snap)
    return snap
