"""Render a whole fabric into artifacts: one folder per plane and device, plus servers,
the resolved model, the cabling plan and a manifest that later stages read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

from dualrail_net import __version__
from dualrail_net.forked import Forked, Tick, can_fork
from dualrail_net.gcpause import gc_paused
from dualrail_net.manifest import (
    ManagementEntry,
    key_identity,
    CABLING_FILE,
    MANIFEST_FILE,
    RESOLVED_FILE,
    TWIN_SUBSTITUTES,
    DeviceEntry,
    ExternalPeerEntry,
    IbPlaneEntry,
    IbSwitchEntry,
    Manifest,
    QosMarkers,
    ServerEntry,
    ServerModelEntry,
    ServerPortEntry,
)
from dualrail_net.render.artifacts import Artifact, RenderResult
from dualrail_net.render.engine import template, templates_dir
from dualrail_net.render.infiniband import (DEFAULT_PKEY, IB_FILES, STANDBY_CONF, ib_cabling_csv, ib_dir, ib_structured,
                                            standby_structured)
from dualrail_net.platforms import Platform, get_platform
from dualrail_net.render.servers import (SERVER_FILES, TOPOLOGY_FILE, bridge_busid, ib_hcas, server_structured,
                                         topology_nets, topology_structured)
from dualrail_net.render.structured import switch_structured
from dualrail_net.resolve.export import cabling_csv, fabric_json
from dualrail_net.resolve.model import Fabric, IbPlane, Qos, ResolvedServer, Switch

MANIFEST, CABLING, RESOLVED = MANIFEST_FILE, CABLING_FILE, RESOLVED_FILE

Progress = Callable[[int], None]


def device_dir(sw: Switch) -> str:
    """Single-plane devices live under their plane, so a git diff shows which plane a change touches."""
    return f"plane-{sw.plane}/{sw.name}" if sw.plane else f"multi-plane/{sw.name}"


def twin_dir(sw: Switch) -> str:
    """Where the emulated twin finds the rendering of a device whose real platform cannot run here
    (EOS): the same structured config, laid out by its platform's ``twin_substitute``."""
    return f"{TWIN_SUBSTITUTES}/{sw.name}"


def _root(platform: Platform, default: str) -> str:
    return str(platform.template_root) if platform.template_root is not None else default


def _has(structured: dict[str, Any], needs: str | None) -> bool:
    """Whether the structured config holds what a file needs (a dotted path: "management.tacacs")."""
    node: Any = structured
    for key in (needs or "").split(".") if needs else ():
        node = node.get(key) if isinstance(node, dict) else None
    return needs is None or bool(node)


def render_switch(fabric: Fabric, sw: Switch, root: str) -> list[Artifact]:
    platform = get_platform(sw.platform)
    s = switch_structured(fabric, sw)
    p = platform.presentation(s)
    folder = device_dir(sw)
    proot = _root(platform, root)
    arts = [Artifact(f"{folder}/{f.filename}", template(proot, f.template, f.format).render(s=s, p=p))
            for f in platform.files if _has(s, f.needs)]
    if platform.twin_substitute is not None:
        twin = get_platform(platform.twin_substitute)
        if getattr(platform, "relaxes_multipath", False) and not getattr(twin, "relaxes_multipath", False):
            # the substitute does what the real device does (its BGP relaxes multipath by default)
            s = {**s, "bgp": [{**inst, "multipath_relax": True} for inst in s["bgp"]]}
        tp = twin.presentation(s)
        troot = _root(twin, root)
        arts += [Artifact(f"{twin_dir(sw)}/{f.filename}", template(troot, f.template, f.format).render(s=s, p=tp))
                 for f in twin.files if f.twin and _has(s, f.needs)]
    return arts


def render_fabric(fabric: Fabric, templates: Path | None = None, progress: Progress | None = None,
                  include_resolved: bool = True, parallel_from: int | None = None) -> RenderResult:
    """``parallel_from``: from how many devices to render in two processes (default ``PARALLEL_FROM``)."""
    with gc_paused():
        return _render(fabric, templates, progress, include_resolved, parallel_from)


def _management_plan(fabric: Fabric) -> dict[str, ManagementEntry]:
    m = fabric.management
    if m is None:
        return {}
    return {m.vrf: ManagementEntry(m.gateway, m.ssh, m.api, [u.name for u in m.users], list(m.ntp), list(m.syslog),
                                   list(m.dns), m.lldp, list(m.tacacs.servers) if m.tacacs else [],
                                   {u.name: [key_identity(k) for k in u.ssh_keys] for u in m.users if u.ssh_keys})}


def _server_models(fabric: Fabric) -> dict[str, ServerModelEntry]:
    return {name: ServerModelEntry(gpus={g.pci_address: g.numa for g in layout.gpus},
                                   nic_numa={p.rdma_device: nic.numa for nic in layout.nics if nic.numa is not None
                                             for p in nic.ports},
                                   bootstrap_ifname=layout.bootstrap_ifname,
                                   gpu_bridge={g.pci_address: bridge_busid(g.pcie_root) for g in layout.gpus},
                                   nets=topology_nets(layout))
            for name, layout in fabric.host_layouts.items()}


def _originates(sw: Switch) -> dict[str, list[str]]:
    """Plane -> the prefixes the plan has the switch originate there (one VRF per plane on a
    multi-plane device)."""
    if sw.plane:
        return {sw.plane: list(sw.networks)}
    # a gateway brings in what its external peers in that plane's VRF send (the plane learns it from it)
    return {vrf.plane: list(dict.fromkeys([*vrf.networks, *(prefix for p in sw.bgp_peers
                                                            if p.kind == "external" and p.vrf == vrf.name
                                                            for prefix in p.accepts)]))
            for vrf in sw.vrfs}


def _external(sw: Switch) -> dict[str, ExternalPeerEntry]:
    return {p.address: ExternalPeerEntry(p.plane, p.vrf, p.peer, p.port, p.remote_asn, list(p.accepts))
            for p in sw.bgp_peers if p.kind == "external"}


# From this many devices (switches + servers) the devices are rendered in two processes: the
# parent renders the first half of the switches and of the servers, a forked child the second
# half. Every device renders from the fabric alone, so the halves are independent and, joined in
# order, byte for byte what one process renders (tests/test_render_parallel.py).
PARALLEL_FROM = 4000


@dataclass
class _Rendered:
    """The devices one process rendered, in the fabric's order."""
    switch_files: list[Artifact] = field(default_factory=list)
    server_files: list[Artifact] = field(default_factory=list)
    devices: dict[str, DeviceEntry] = field(default_factory=dict)
    servers: dict[str, ServerEntry] = field(default_factory=dict)


def _render_switches(fabric: Fabric, switches: list[Switch], root: str, done: _Rendered,
                     progress: Progress | None) -> None:
    for sw in switches:
        arts = render_switch(fabric, sw, root)
        done.switch_files.extend(arts)
        done.devices[sw.name] = DeviceEntry(
            role=sw.role, plane=sw.plane, planes=sw.planes, platform=sw.platform, firmware=sw.firmware,
            model=sw.model, mgmt_address=sw.mgmt_address, dir=device_dir(sw),
            files=[a.path.rsplit("/", 1)[1] for a in arts if a.path.startswith(device_dir(sw))],
            twin_dir=twin_dir(sw) if get_platform(sw.platform).twin_substitute else device_dir(sw),
            originates=_originates(sw), asn=sw.asn, vrfs={v.plane: v.name for v in sw.vrfs},
            external=_external(sw) if sw.role == "gateway" else {})
        if progress:
            progress(1)


def _render_servers(fabric: Fabric, servers: list[ResolvedServer], root: str, done: _Rendered,
                    progress: Progress | None) -> None:
    topologies: dict[str, str | None] = {}  # server model -> its NCCL topology text (one render per model)
    ib = ib_hcas(fabric)
    for srv in servers:
        s = server_structured(fabric, srv, ib)
        folder = f"servers/{srv.name}"
        for tpl, filename in SERVER_FILES:
            done.server_files.append(Artifact(f"{folder}/{filename}", template(root, tpl).render(s=s)))
        files = [f for _, f in SERVER_FILES]
        if srv.model not in topologies:
            layout = fabric.host_layouts.get(srv.model)
            topologies[srv.model] = (template(root, TOPOLOGY_FILE[0]).render(s=topology_structured(layout))
                                     if layout is not None and layout.has_topology else None)
        topology = topologies[srv.model]
        if topology is not None:
            done.server_files.append(Artifact(f"{folder}/{TOPOLOGY_FILE[1]}", topology))
            files.append(TOPOLOGY_FILE[1])
        done.servers[srv.name] = ServerEntry(dir=folder, planes=s["planes"], files=files, model=srv.model,
                                             ports=[ServerPortEntry(p.ifname, p.rdma_device, p.plane, p.rail)
                                                    for p in srv.ports], mgmt_address=srv.mgmt_address)
        if progress:
            progress(1)


def render_devices(fabric: Fabric, root: str, progress: Progress | None = None,
                   parallel_from: int | None = None) -> _Rendered:
    """Every switch, then every server: their files and manifest entries, in the fabric's order.
    Large fabrics are rendered in two processes (``PARALLEL_FROM``); the plain path is the reference."""
    switches, servers = list(fabric.switches.values()), list(fabric.servers)
    threshold = PARALLEL_FROM if parallel_from is None else parallel_from
    if len(switches) + len(servers) < threshold or not can_fork():
        out = _Rendered()
        _render_switches(fabric, switches, root, out, progress)
        _render_servers(fabric, servers, root, out, progress)
        return out
    sw_half, srv_half = len(switches) // 2, len(servers) // 2

    def second_half(tick: Tick) -> _Rendered:
        out = _Rendered()
        batch = _Batched(tick)
        _render_switches(fabric, switches[sw_half:], root, out, batch)
        _render_servers(fabric, servers[srv_half:], root, out, batch)
        batch.flush()
        return out
    child = Forked(second_half, "rendering the second half of the devices", on_tick=progress)
    first = _Rendered()
    _render_switches(fabric, switches[:sw_half], root, first, progress)
    _render_servers(fabric, servers[:srv_half], root, first, progress)
    second = child.result()
    return _Rendered(first.switch_files + second.switch_files, first.server_files + second.server_files,
                     {**first.devices, **second.devices}, {**first.servers, **second.servers})


class _Batched:
    """Progress from the child in batches (one message per device would be 27k pipe writes)."""

    def __init__(self, tick: Tick, every: int = 64) -> None:
        self.tick, self.every, self.pending = tick, every, 0

    def __call__(self, n: int) -> None:
        self.pending += n
        if self.pending >= self.every:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.tick(self.pending)
            self.pending = 0


def _render(fabric: Fabric, templates: Path | None, progress: Progress | None,
            include_resolved: bool, parallel_from: int | None = None) -> RenderResult:
    root = str(templates or templates_dir())
    result = RenderResult()
    rendered = render_devices(fabric, root, progress, parallel_from)
    result.artifacts.extend(rendered.switch_files)
    result.artifacts.extend(rendered.server_files)
    devices, servers = rendered.devices, rendered.servers
    ib_planes: dict[str, IbPlaneEntry] = {}
    for plane in fabric.ib_planes.values():
        s = ib_structured(plane)
        folder = ib_dir(plane.name)
        for tpl, filename in IB_FILES:
            result.artifacts.append(Artifact(f"{folder}/{filename}", template(root, tpl).render(s=s)))
        standby = standby_structured(plane, s)
        if standby is not None:
            result.artifacts.append(Artifact(f"{folder}/{STANDBY_CONF}",
                                             template(root, "opensm/opensm.conf.j2").render(s=standby)))
        result.artifacts.append(Artifact(f"{folder}/cabling.csv", ib_cabling_csv(plane)))
        ib_planes[plane.name] = IbPlaneEntry(
            dir=folder, subnet_prefix=plane.subnet_prefix, sm_host=plane.sm_host, sm_guid=plane.sm_guid,
            sm_standby=plane.sm_standby, sm_standby_guid=plane.sm_standby_guid,
            devices={h.server: h.device for h in plane.hosts if h.device}, routing_engine=plane.routing_engine,
            config_dir=s["config_dir"], switches={sw.name: IbSwitchEntry(sw.role, sw.guid) for sw in plane.switches},
            hosts={h.server: h.guid for h in plane.hosts},
            # what the inventory says each port's partitions are: the simulated run must find exactly this
            expected_pkeys=_expected_pkeys(plane))
    if include_resolved:
        result.artifacts.append(Artifact(RESOLVED, fabric_json(fabric)))
    result.artifacts.append(Artifact(CABLING, cabling_csv(fabric)))
    manifest = Manifest(
        generator=f"dualrail-net {__version__}", fabric=fabric.name, planes=list(fabric.planes),
        routed_prefixes={name: p.routed_prefixes for name, p in fabric.planes.items()},
        pools={name: p.pools for name, p in fabric.planes.items()},
        qos_markers={name: _qos_markers(fabric.qos[p.qos_profile]) for name, p in fabric.planes.items()},
        devices=devices, servers=servers, ib_planes=ib_planes, cabling=CABLING,
        management=_management_plan(fabric), server_models=_server_models(fabric))
    result.artifacts.append(Artifact(MANIFEST, manifest.dumps()))
    return result


def _expected_pkeys(plane: IbPlane) -> dict[str, dict[str, str]]:
    """port GUID -> {P_Key (15 bits, hex): membership} the SM should program, default partition included."""
    out: dict[str, dict[str, str]] = {}
    for host in plane.hosts:
        entry: dict[str, str] = {}
        if plane.default_partition != "none":
            entry[f"0x{DEFAULT_PKEY:04x}"] = plane.default_partition
        if host.guid == plane.sm_guid:
            entry[f"0x{DEFAULT_PKEY:04x}"] = "full"
        out[host.guid] = entry
    for part in plane.partitions:
        for m in part.members:
            out.setdefault(m.guid, {})[f"0x{part.pkey & 0x7FFF:04x}"] = m.membership
    return out


def _qos_markers(qos: Qos) -> QosMarkers:
    """What verify needs of a plane's QoS profile: the markers and the planned scheduling and headroom."""
    return QosMarkers(qos.roce_dscp, qos.cnp_dscp, qos.roce_bandwidth_percent, qos.pfc_xoff_bytes,
                      qos.pfc_cable_length_m)
