"""Resolve validated intent into the Fabric model.

Every number comes from a *slot* (see ``sot.capacity``): a device's or link's fixed position in a
layout sized by the hardware. Iteration order only decides output order, never an assignment.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from dualrail_net.gcpause import gc_paused
from dualrail_net.resolve import allocate as alloc
from dualrail_net.resolve import naming
from dualrail_net.resolve.hosts import resolve_host_layouts
from dualrail_net.resolve.infiniband import resolve_infiniband
from dualrail_net.resolve.model import (
    BgpPeer,
    Fabric,
    Link,
    Plane,
    RackPlace,
    PlaneRoute,
    PlaneVrf,
    Port,
    PortKind,
    Qos,
    ResolvedServer,
    ServerPort,
    Switch,
)
from dualrail_net.sot.capacity import PlaneCapacity, plane_capacity
from dualrail_net.sot.schema import Inventory, PlaneSpec, QosProfile, expand_ports

SERVER_TABLE_BASE = 100
GATEWAY_TABLE_BASE = 1001


@dataclass(frozen=True)
class _PortMaps:
    leaf_server: list[int]
    leaf_up: list[int]
    spine_down: list[int]
    spine_up: list[int]
    spine_border: list[int]
    ss_down: list[int]
    ss_border: list[int]
    gateway: list[int]


def _port_maps(inv: Inventory) -> _PortMaps:
    hw = inv.fabric.hardware

    def ports(spec: str | None) -> list[int]:
        return expand_ports(spec) if spec else []

    return _PortMaps(
        leaf_server=ports(hw.leaf.server_ports),
        leaf_up=ports(hw.leaf.uplink_ports),
        spine_down=ports(hw.spine.downlink_ports),
        spine_up=ports(hw.spine.uplink_ports),
        spine_border=ports(hw.spine.border_ports),
        ss_down=ports(hw.super_spine.downlink_ports) if hw.super_spine else [],
        ss_border=ports(hw.super_spine.border_ports) if hw.super_spine and hw.super_spine.border_ports else [],
        gateway=ports(hw.gateway.ports) if hw.gateway else [],
    )


def _qos(profile: QosProfile) -> Qos:
    return Qos(
        trust=profile.trust,
        roce_dscp=profile.roce.dscp, roce_priority=profile.roce.priority, roce_tc=profile.roce.traffic_class,
        cnp_dscp=profile.cnp.dscp, cnp_priority=profile.cnp.priority, cnp_tc=profile.cnp.traffic_class,
        pfc_priorities=sorted(profile.pfc.priorities), pfc_xoff_bytes=profile.pfc.xoff_bytes,
        pfc_xon_delta_bytes=profile.pfc.xon_delta_bytes, pfc_cable_length_m=profile.pfc.cable_length_m,
        ecn_tcs=sorted(profile.ecn.traffic_classes), ecn_min_bytes=profile.ecn.min_threshold_bytes,
        ecn_max_bytes=profile.ecn.max_threshold_bytes, ecn_probability=profile.ecn.probability,
        roce_bandwidth_percent=profile.roce_bandwidth_percent,
    )


class _PlaneBuilder:
    """Builds one plane's switches and links."""

    def __init__(self, inv: Inventory, plane: str, plane_index: int, cap: PlaneCapacity, pm: _PortMaps) -> None:
        self.inv = inv
        self.fab = inv.fabric
        self.plane = plane
        self.plane_index = plane_index
        self.spec: PlaneSpec = inv.fabric.planes[plane]
        self.cap = cap
        self.pm = pm
        self.tiers = inv.fabric.topology.tiers
        self.switches: list[Switch] = []
        self.links: list[Link] = []
        self.leaf_at: dict[tuple[int, int, int], Switch] = {}  # (pod, su, rail) -> leaf
        self.top_tier: list[tuple[int, Switch]] = []  # (top-tier slot, switch) for gateways
        self.external = external_prefixes(inv, plane)  # what its gateways bring in from outside

    # -- helpers ---------------------------------------------------------------------------------
    def _switch(self, name: str, role: str, pod: int, index: int, slot: int, asn: int) -> Switch:
        platform = getattr(self.fab.platforms, role)
        loopback = alloc.host_address(self.spec.pools.loopbacks, slot)
        mgmt = None
        if self.fab.mgmt_network:
            mgmt = alloc.mgmt_address(self.fab.mgmt_network, self.plane_index * self.cap.loopbacks + slot)
        return Switch(
            name=name, role=role, plane=self.plane, platform=platform,  # type: ignore[arg-type]
            model=getattr(self.fab.hardware, role).model,
            firmware=self.spec.firmware.get(platform, ""), pod=pod, index=index, asn=asn,
            router_id=alloc.bare(loopback), loopback=loopback, mgmt_address=mgmt, mtu=self.spec.mtu,
            qos_profile=self.spec.qos_profile, maximum_paths=self.fab.ecmp.maximum_paths, multipath_relax=False,
            networks=[loopback],
        )

    def _connect(self, kind: str, lower: Switch, lower_port: int, lower_kind: PortKind, upper: Switch,
                 upper_port: int, upper_kind: PortKind, pool: str, slot: int, speed: str) -> None:
        """Cable ``lower`` to ``upper`` with the slot-th /31: ``upper`` (the tier above) takes the low end."""
        up_addr, low_addr, up_ip, low_ip = alloc.p2p_ends(pool, slot)
        lname = naming.port_name(lower.platform, lower_port)
        uname = naming.port_name(upper.platform, upper_port)
        lower.ports.append(Port(lname, lower_port, lower_kind, low_addr, upper.name, uname, up_addr, speed, self.plane))
        upper.ports.append(Port(uname, upper_port, upper_kind, up_addr, lower.name, lname, low_addr, speed, self.plane))
        lower.bgp_peers.append(BgpPeer(up_ip, upper.asn, upper.name, lname, lower_kind, self.plane))
        upper.bgp_peers.append(BgpPeer(low_ip, lower.asn, lower.name, uname, upper_kind, self.plane))
        self.links.append(Link(self.plane, kind, lower.name, lname, low_addr, upper.name, uname, up_addr, speed))

    # -- tiers -----------------------------------------------------------------------------------
    def build(self) -> None:
        topo = self.fab.topology
        cap = self.cap
        asn = self.spec.asn
        per_switch = asn.scheme == "per-switch"
        supers: dict[tuple[int, int], Switch] = {}
        if self.tiers == 3:
            for group in range(self.spec.spines_per_pod):
                for k in range(self.spec.super_spines_per_group or 0):
                    slot = cap.super_spine_slot(group, k)
                    ss_asn = (asn.super_spine or 0) + (slot if per_switch else 0)
                    sw = self._switch(naming.super_spine_name(self.plane, group + 1, k + 1,
                                                              self.fab.role_labels.super_spine), "super_spine", 0,
                                      k + 1, slot, ss_asn)
                    supers[(group, k)] = sw
                    self.switches.append(sw)
                    self.top_tier.append((slot, sw))
        for pod in range(topo.pods):
            spines: list[Switch] = []
            for j in range(self.spec.spines_per_pod):
                slot = cap.spine_slot(pod, j)
                spine_asn = asn.spine_base + (pod * cap.spines_per_pod + j if per_switch else pod)
                sw = self._switch(naming.spine_name(self.plane, self.tiers, pod + 1, j + 1,
                                                    self.fab.role_labels.spine), "spine",
                                  pod + 1 if self.tiers == 3 else 0, j + 1, slot, spine_asn)
                spines.append(sw)
                self.switches.append(sw)
                if self.tiers == 2:
                    self.top_tier.append((pod * cap.spines_per_pod + j, sw))
                else:
                    par = cap.spine_super_spine_links
                    for k in range(self.spec.super_spines_per_group or 0):
                        ss = supers[(j, k)]
                        for m in range(par):  # parallel links: consecutive ports on both ends
                            self._connect("spine-super_spine", sw, self.pm.spine_up[k * par + m], "uplink", ss,
                                          self.pm.ss_down[pod * par + m], "downlink",
                                          self.spec.pools.super_spine_links or "",
                                          ((pod * cap.spines_per_pod + j) * cap.super_spines_per_group + k) * par + m,
                                          self.spec.link_speeds.spine_super_spine or "")
            for su in range(topo.scalable_units_per_pod):
                for rail in range(topo.rails):
                    i = su * topo.rails + rail
                    leaf_index = pod * cap.leaves_per_pod + i
                    sw = self._switch(naming.leaf_name(self.plane, self.tiers, pod + 1, su + 1, rail,
                                                       self.fab.role_labels.leaf),
                                      "leaf", pod + 1 if self.tiers == 3 else 0, i + 1, cap.leaf_slot(pod, i),
                                      asn.leaf_base + leaf_index)
                    sw.rail, sw.su = rail, su + 1
                    block = alloc.block(self.spec.pools.server_links, leaf_index, cap.server_block_size)
                    sw.networks.append(block)
                    sw.static_blackholes.append(block)
                    par = cap.leaf_spine_links
                    for j, spine in enumerate(spines):
                        for m in range(par):  # parallel links: consecutive ports on both ends
                            self._connect("leaf-spine", sw, self.pm.leaf_up[j * par + m], "uplink", spine,
                                          self.pm.spine_down[i * par + m], "downlink", self.spec.pools.fabric_links,
                                          (leaf_index * cap.spines_per_pod + j) * par + m,
                                          self.spec.link_speeds.leaf_spine)
                    self.leaf_at[(pod + 1, su + 1, rail)] = sw
                    self.switches.append(sw)
        for sw in self.switches:
            up_asns = {p.remote_asn for p in sw.bgp_peers if p.kind == "uplink"}
            sw.multipath_relax = len(up_asns) > 1
        # Output order: top tier first, then pods' spines and leaves, as a reader scans a diagram.
        self.switches.sort(key=lambda s: ({"super_spine": 0, "spine": 1, "leaf": 2}[s.role], s.pod, s.index))


def _attach_gateways(inv: Inventory, builders: dict[str, _PlaneBuilder], cap: PlaneCapacity, pm: _PortMaps,
                     links: list[Link]) -> list[Switch]:
    fab = inv.fabric
    out: list[Switch] = []
    for g, gw in enumerate(fab.gateways):
        first = builders[gw.planes[0]]
        slot = cap.gateway_slot(g)
        first_loop = alloc.host_address(first.spec.pools.loopbacks, slot)
        mgmt = None
        if fab.mgmt_network:
            mgmt = alloc.mgmt_address(fab.mgmt_network, first.plane_index * cap.loopbacks + slot)
        platform = fab.platforms.gateway
        sw = Switch(
            name=gw.name, role="gateway", plane=None, platform=platform,
            model=fab.hardware.gateway.model if fab.hardware.gateway else "",
            firmware=first.spec.firmware.get(platform, ""), pod=0, index=g + 1, asn=gw.asn,
            router_id=alloc.bare(first_loop), loopback=first_loop, mgmt_address=mgmt, mtu=first.spec.mtu,
            qos_profile=first.spec.qos_profile, maximum_paths=fab.ecmp.maximum_paths, multipath_relax=False,
        )
        for pi, plane in enumerate(gw.planes):
            b = builders[plane]
            vrf = naming.vrf_name(plane)
            loop = alloc.host_address(b.spec.pools.loopbacks, slot)
            sw.vrfs.append(PlaneVrf(vrf, plane, GATEWAY_TABLE_BASE + pi, loop, alloc.bare(loop), [loop]))
            border_ports = pm.ss_border if fab.topology.tiers == 3 else pm.spine_border
            for top_slot, top in b.top_tier:
                gw_port = pm.gateway[pi * cap.top_tier + top_slot]
                top_port = border_ports[g]
                top_addr, gw_addr = alloc.p2p_pair(b.spec.pools.border_links or "", top_slot * cap.gateways + g)
                gname = naming.port_name(platform, gw_port)
                tname = naming.port_name(top.platform, top_port)
                speed = b.spec.link_speeds.border or ""
                sw.ports.append(Port(gname, gw_port, "uplink", gw_addr, top.name, tname, top_addr, speed, plane, vrf))
                top.ports.append(Port(tname, top_port, "border", top_addr, sw.name, gname, gw_addr, speed, plane))
                sw.bgp_peers.append(BgpPeer(alloc.bare(top_addr), top.asn, top.name, gname, "uplink", plane, vrf))
                top.bgp_peers.append(BgpPeer(alloc.bare(gw_addr), gw.asn, sw.name, tname, "border", plane))
                links.append(Link(plane, "border", sw.name, gname, gw_addr, top.name, tname, top_addr, speed))
        for plane, peers in gw.external.items():
            vrf = naming.vrf_name(plane)
            speed = builders[plane].spec.link_speeds.border or ""
            for peer in peers:
                # the gateway takes the subnet's first usable address, the peer the next one
                net = ipaddress.IPv4Network(peer.subnet)
                low = int(net.network_address) + (0 if net.prefixlen == 31 else 1)
                gw_addr = f"{ipaddress.IPv4Address(low)}/{net.prefixlen}"
                peer_addr = f"{ipaddress.IPv4Address(low + 1)}/{net.prefixlen}"
                gname = naming.port_name(platform, peer.port)
                sw.ports.append(Port(gname, peer.port, "external", gw_addr, peer.name, "", peer_addr, speed, plane, vrf))
                sw.bgp_peers.append(BgpPeer(alloc.bare(peer_addr), peer.asn, peer.name, gname, "external", plane, vrf,
                                            tuple(peer.prefixes)))
                links.append(Link(plane, "external", sw.name, gname, gw_addr, peer.name, "", peer_addr, speed))
        relax = False
        for vrf_obj in sw.vrfs:
            # over the fabric side: an external peer brings its own prefixes, never an equal path
            asns = {p.remote_asn for p in sw.bgp_peers if p.vrf == vrf_obj.name and p.kind != "external"}
            relax = relax or len(asns) > 1
        sw.multipath_relax = relax
        sw.ports.sort(key=lambda p: p.number)
        out.append(sw)
    return out


def _resolve_servers(inv: Inventory, builders: dict[str, _PlaneBuilder], cap: PlaneCapacity,
                     pm: _PortMaps) -> tuple[list[ResolvedServer], list[Link]]:
    servers: list[ResolvedServer] = []
    links: list[Link] = []
    mgmt_net = inv.fabric.mgmt_network
    mgmt_len = ipaddress.IPv4Network(mgmt_net).prefixlen if mgmt_net else None
    rails = inv.fabric.topology.rails
    half_block = cap.server_block_size // 2
    # per server model, what every server of it repeats: (nic, port, table, its plane's builder, speed)
    layouts = {name: [(nic.name, np, SERVER_TABLE_BASE + ordinal, builders[np.plane],
                       np.speed or builders[np.plane].spec.link_speeds.server)
                      for ordinal, (nic, np) in enumerate(((nic, np) for nic in model.nics for np in nic.ports), 1)]
               for name, model in inv.servers.server_models.items()}
    for srv in inv.servers.servers:
        model = inv.servers.server_models[srv.model]
        ports: list[ServerPort] = []
        routes: list[PlaneRoute] = []
        routed_planes: set[str] = set()
        leaf_port_no = pm.leaf_server[srv.slot - 1]
        su_base = (srv.pod - 1) * cap.leaves_per_pod + (srv.su - 1) * rails
        name, pod, su = srv.name, srv.pod, srv.su
        for nic_name, np, table, b, speed in layouts[srv.model]:
            plane, rail, ifname = np.plane, np.rail, np.ifname
            leaf = b.leaf_at[(pod, su, rail)]
            gw_addr, srv_addr, gw_ip, _ = alloc.p2p_ends(b.spec.pools.server_links,
                                                         (su_base + rail) * half_block + srv.slot - 1)
            leaf_port = naming.port_name(leaf.platform, leaf_port_no)
            leaf.ports.append(Port(leaf_port, leaf_port_no, "server", gw_addr, name, ifname, srv_addr, speed, plane))
            ports.append(ServerPort(nic_name, np.port, ifname, np.rdma_device, plane, rail, srv_addr, gw_ip, leaf.name,
                                    leaf_port, table, b.spec.mtu))
            links.append(Link(plane, "server-leaf", name, ifname, srv_addr, leaf.name, leaf_port, gw_addr, speed))
            if plane not in routed_planes:
                routed_planes.add(plane)
                routes.extend(PlaneRoute(p, gw_ip, ifname) for p in _routed(b))
        mgmt = f"{srv.mgmt_address}/{mgmt_len}" if srv.mgmt_address and mgmt_len is not None else None
        servers.append(ResolvedServer(name, srv.model, pod, su, srv.slot, ports, routes, model.description, mgmt))
    return servers, links


def _routed(b: _PlaneBuilder) -> list[str]:
    """What may be routed inside the plane: its loopbacks, its server blocks and what its gateways
    bring in from their external peers (never the /31 fabric links)."""
    return [b.spec.pools.loopbacks, b.spec.pools.server_links, *b.external]


def external_prefixes(inv: Inventory, plane: str) -> list[str]:
    """The prefixes the plane's gateways accept from their external peers, in inventory order."""
    return list(dict.fromkeys(p for gw in inv.fabric.gateways for peer in gw.external.get(plane, [])
                              for p in peer.prefixes))


def resolve_fabric(inv: Inventory) -> Fabric:
    """Intent -> Fabric. Deterministic: the same inventory always gives the same model."""
    with gc_paused():
        return _resolve(inv)


def _resolve(inv: Inventory) -> Fabric:
    cap = plane_capacity(inv.fabric)
    pm = _port_maps(inv)
    builders: dict[str, _PlaneBuilder] = {}
    for index, plane in enumerate(inv.fabric.planes):
        b = _PlaneBuilder(inv, plane, index, cap, pm)
        b.build()
        builders[plane] = b
    links: list[Link] = []
    gateways = _attach_gateways(inv, builders, cap, pm, links)
    for b in builders.values():  # gateways in other ASNs offering one external prefix: equal paths
        for _slot, top in b.top_tier:
            if len({p.remote_asn for p in top.bgp_peers if p.kind == "border"}) > 1 and b.external:
                top.multipath_relax = True
    servers, server_links = _resolve_servers(inv, builders, cap, pm)
    switches: dict[str, Switch] = {}
    for b in builders.values():
        for sw in b.switches:
            sw.ports.sort(key=lambda p: p.number)
            switches[sw.name] = sw
        links[:0] = b.links
    for gw in gateways:
        switches[gw.name] = gw
    planes = {
        name: Plane(
            name=name, mtu=spec.mtu, qos_profile=spec.qos_profile,
            pools={k: v for k, v in spec.pools.model_dump().items() if v},
            routed_prefixes=_routed(builders[name]),
            firmware={k: v for k, v in spec.firmware.items() if v},
        )
        for name, spec in inv.fabric.planes.items()
    }
    used_profiles = {spec.qos_profile for spec in inv.fabric.planes.values()}
    qos = {name: _qos(p) for name, p in inv.qos.qos_profiles.items() if name in used_profiles}
    ordered_links = sorted(links, key=lambda link: (link.plane, link.kind)) + server_links
    return Fabric(
        name=inv.fabric.name, tiers=inv.fabric.topology.tiers, rails=inv.fabric.topology.rails, planes=planes,
        switches=switches, links=ordered_links, servers=servers, qos=qos,
        ib_planes=resolve_infiniband(inv), management=inv.fabric.management,
        host_layouts=resolve_host_layouts(inv),
        racks={r.name: RackPlace(tuple(r.feeds), tuple(r.switches)) for r in inv.fabric.racks},
    )
