"""Semantic validation of a schema-valid inventory: the rules that need the whole picture.

Each rule returns Diagnostics that name the file and line to change and what to change it to.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from dualrail_net.platforms import get_platform
from dualrail_net.resolve import naming
from dualrail_net.resolve.infiniband import UNICAST_LID_TOP, switch_guids
from dualrail_net.sot.capacity import PlaneCapacity, plane_capacity
from dualrail_net.sot.diagnostics import Diagnostic, Severity
from dualrail_net.sot.hostlayout import check_host_layout
from dualrail_net.sot.racks import check_racks, switch_names
from dualrail_net.sot.load import LoadedInventory
from dualrail_net.sot.schema import GUID_ALL_ONES, SPEEDS_GBPS, Fabric, IbPlane, expand_ports


Rule = Callable[[LoadedInventory], Iterator[Diagnostic]]


def _diag(inv: LoadedInventory, path: tuple[str | int, ...], message: str, fix: str = "",
          severity: Severity = Severity.ERROR, code: str = "SOT") -> Diagnostic:
    file, line = inv.where(*path)
    return Diagnostic(file, line, message, fix, severity, code)


def _three_tiers_undescribed(fab: Fabric) -> bool:
    """Three tiers without the hardware that makes their capacity computable."""
    return fab.topology.tiers == 3 and (fab.hardware.super_spine is None or fab.hardware.spine.uplink_ports is None)


def _prefix_len_for(addresses: int) -> int:
    bits = max(0, (addresses - 1).bit_length())
    return 32 - bits


def check_topology(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    topo = fab.topology
    hw = fab.hardware
    if topo.tiers == 2 and topo.pods != 1:
        yield _diag(inv, ("fabric", "topology", "pods"), f"pods = {topo.pods} needs tiers: 3",
                    "set pods: 1 or tiers: 3")
    if topo.tiers == 3:
        if hw.super_spine is None:
            yield _diag(inv, ("fabric", "hardware"), "tiers: 3 needs hardware.super_spine",
                        "describe the super-spine port layout")
        if hw.spine.uplink_ports is None:
            yield _diag(inv, ("fabric", "hardware", "spine"), "tiers: 3 needs hardware.spine.uplink_ports",
                        "list the spine ports that go to super-spines")
    roles: list[tuple[str, dict[str, str | None]]] = [
        ("leaf", {"server_ports": hw.leaf.server_ports, "uplink_ports": hw.leaf.uplink_ports}),
        ("spine", {"downlink_ports": hw.spine.downlink_ports, "uplink_ports": hw.spine.uplink_ports,
                   "border_ports": hw.spine.border_ports}),
    ]
    if hw.super_spine:
        roles.append(("super_spine", {"downlink_ports": hw.super_spine.downlink_ports,
                                      "border_ports": hw.super_spine.border_ports}))
    for role, groups in roles:
        seen: dict[int, str] = {}
        for group, spec in groups.items():
            for port in expand_ports(spec) if spec else []:
                if port in seen:
                    yield _diag(inv, ("fabric", "hardware", role, group),
                                f"{role} port {port} is in both {seen[port]} and {group}",
                                "give every port one job")
                seen[port] = group
    if fab.gateways:
        border = hw.super_spine.border_ports if (topo.tiers == 3 and hw.super_spine) else hw.spine.border_ports
        if not border:
            yield _diag(inv, ("fabric", "gateways"), "gateways need border_ports on the top tier",
                        "add border_ports to hardware." + ("super_spine" if topo.tiers == 3 else "spine"))
        if hw.gateway is None:
            yield _diag(inv, ("fabric", "hardware"), "gateways need hardware.gateway", "describe its ports")


def check_capacity(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    if _three_tiers_undescribed(fab):
        return  # check_topology says what is missing
    cap = plane_capacity(fab)
    topo = fab.topology
    leaves = topo.scalable_units_per_pod * topo.rails
    if leaves > cap.leaves_per_pod:
        yield _diag(inv, ("fabric", "topology", "scalable_units_per_pod"),
                    f"{leaves} leaves per pod ({topo.scalable_units_per_pod} SUs x {topo.rails} rails) but a spine "
                    f"has only {cap.leaves_per_pod} downlink ports",
                    "use fewer scalable units per pod, or a spine with more downlinks")
    if topo.tiers == 3 and topo.pods > cap.pods:
        yield _diag(inv, ("fabric", "topology", "pods"),
                    f"{topo.pods} pods but a super-spine has only {cap.pods} downlink ports", "use fewer pods")
    if len(fab.gateways) > cap.gateways and cap.gateways:
        yield _diag(inv, ("fabric", "gateways"),
                    f"{len(fab.gateways)} gateways but the top tier has {cap.gateways} border ports",
                    "add border ports or remove a gateway")
    if fab.hardware.gateway is not None:
        gw_ports = len(expand_ports(fab.hardware.gateway.ports))
        for gi, gw in enumerate(fab.gateways):
            need = len(gw.planes) * cap.top_tier
            if need > gw_ports:
                yield _diag(inv, ("fabric", "gateways", gi),
                            f"gateway {gw.name} needs {need} ports ({len(gw.planes)} planes x {cap.top_tier} top-tier "
                            f"slots) but hardware.gateway has {gw_ports}", "use a larger gateway port range")
    for plane, spec in fab.planes.items():
        base = ("fabric", "planes", plane)
        if spec.spines_per_pod > cap.spines_per_pod:
            yield _diag(inv, (*base, "spines_per_pod"),
                        f"plane {plane}: {spec.spines_per_pod} spines per pod but a leaf has only "
                        + (f"{cap.spines_per_pod} uplink ports" if cap.leaf_spine_links == 1 else
                           f"room for {cap.spines_per_pod} spines ({cap.leaf_spine_links} links each)"),
                        f"use at most {cap.spines_per_pod} spines")
        if topo.tiers == 3:
            if spec.super_spines_per_group is None:
                yield _diag(inv, base, f"plane {plane}: tiers: 3 needs super_spines_per_group", "add it")
            elif spec.super_spines_per_group > cap.super_spines_per_group:
                yield _diag(inv, (*base, "super_spines_per_group"),
                            f"plane {plane}: {spec.super_spines_per_group} super-spines per group but a spine has "
                            + (f"{cap.super_spines_per_group} uplink ports" if cap.spine_super_spine_links == 1 else
                               f"room for {cap.super_spines_per_group} ({cap.spine_super_spine_links} links each)"),
                            "use fewer super-spines per group")
            if spec.asn.super_spine is None:
                yield _diag(inv, (*base, "asn"), f"plane {plane}: tiers: 3 needs asn.super_spine", "add it")
            if spec.link_speeds.spine_super_spine is None:
                yield _diag(inv, (*base, "link_speeds"), f"plane {plane}: tiers: 3 needs link_speeds.spine_super_spine",
                            "add it")
        elif spec.super_spines_per_group is not None:
            yield _diag(inv, (*base, "super_spines_per_group"),
                        f"plane {plane}: super_spines_per_group is set but tiers is 2", "remove it or set tiers: 3")
        if fab.gateways and spec.link_speeds.border is None and any(plane in g.planes for g in fab.gateways):
            yield _diag(inv, (*base, "link_speeds"), f"plane {plane}: gateways attach here but link_speeds.border "
                        "is not set", "add link_speeds.border")
        for ratio in tier_ratios(inv, plane):
            if ratio.ratio > topo.max_oversubscription + 1e-9:
                yield _diag(inv, (*base, ratio.field),
                            f"plane {plane}: {ratio.tier} oversubscription {ratio.ratio:.2f}:1 ({ratio.detail}) exceeds "
                            f"max_oversubscription {topo.max_oversubscription}",
                            f"add {ratio.remedy}, use faster uplinks or raise max_oversubscription")
        # every parallel link is a session of its own: a next hop of its own
        need_paths = spec.spines_per_pod * cap.leaf_spine_links
        if topo.tiers == 3 and spec.super_spines_per_group:
            need_paths = max(need_paths, spec.super_spines_per_group * cap.spine_super_spine_links)
        if fab.ecmp.maximum_paths < need_paths:
            yield _diag(inv, ("fabric", "ecmp", "maximum_paths"),
                        f"maximum_paths {fab.ecmp.maximum_paths} is below the {need_paths} equal-cost uplinks of plane "
                        f"{plane}", f"set maximum_paths >= {need_paths}")


@dataclass(frozen=True)
class TierRatio:
    """A tier's oversubscription in one plane, from the inventory's numbers."""

    plane: str
    tier: str
    ratio: float
    detail: str  # "16 x 200G down, 4 x 800G up"
    field: str  # the plane field that sets the uplinks (where a diagnostic points)
    remedy: str


def tier_ratios(inv: LoadedInventory, plane: str) -> list[TierRatio]:
    """Leaf (and, in three tiers, spine) oversubscription of ``plane``. Leaves are judged on the
    populated server ports, so adding servers past the uplink bandwidth is caught when proposed; a
    spine carries its pod's leaves (one cable each) up to its super-spines."""
    fab = inv.inventory.fabric
    topo, spec = fab.topology, fab.planes[plane]
    out = []
    used = max((s.slot for s in inv.inventory.servers.servers), default=0)
    down = used * SPEEDS_GBPS[spec.link_speeds.server]
    ls, sss = topo.parallel_links.leaf_spine, topo.parallel_links.spine_super_spine
    up = spec.spines_per_pod * ls * SPEEDS_GBPS[spec.link_speeds.leaf_spine]
    if up:
        out.append(TierRatio(plane, "leaf", down / up, f"{used} x {spec.link_speeds.server} down, "
                             f"{spec.spines_per_pod * ls} x {spec.link_speeds.leaf_spine} up", "spines_per_pod", "spines"))
    if topo.tiers == 3 and spec.super_spines_per_group and spec.link_speeds.spine_super_spine:
        leaves = topo.rails * topo.scalable_units_per_pod
        s_down = leaves * ls * SPEEDS_GBPS[spec.link_speeds.leaf_spine]
        s_up = spec.super_spines_per_group * sss * SPEEDS_GBPS[spec.link_speeds.spine_super_spine]
        out.append(TierRatio(plane, "spine", s_down / s_up, f"{leaves * ls} x {spec.link_speeds.leaf_spine} down, "
                             f"{spec.super_spines_per_group * sss} x {spec.link_speeds.spine_super_spine} up",
                             "super_spines_per_group", "super-spines"))
    return out


def shared_fate(inv: LoadedInventory) -> list[str]:
    """Single parts whose fault reaches more than one plane: NICs with ports in several planes (per
    server model, with how many servers carry them) and hosts running several IB planes' SMs."""
    out = []
    counts: dict[str, int] = {}
    for srv in inv.inventory.servers.servers:
        counts[srv.model] = counts.get(srv.model, 0) + 1
    for name, model in sorted(inv.inventory.servers.server_models.items()):
        shared = [(nic.name, sorted({p.plane for p in nic.ports})) for nic in model.nics
                  if len({p.plane for p in nic.ports}) > 1]
        if shared and counts.get(name):
            planes = sorted({p for _n, ps in shared for p in ps})
            out.append(f"server model {name}: {', '.join(n for n, _ in shared)} carry planes {', '.join(planes)} "
                       f"({counts[name]} servers): one NIC's fault takes its rail out of every plane at once")
    ib = inv.inventory.infiniband
    if ib is not None:
        by_host: dict[str, list[str]] = {}
        for plane, spec in ib.ib_planes.items():
            for host in {spec.sm_host, spec.sm_standby} - {None}:
                by_host.setdefault(str(host), []).append(plane)
        for host, planes in sorted(by_host.items()):
            if len(planes) > 1:
                out.append(f"host {host} runs the subnet managers of IB planes {', '.join(planes)}")
    return out


def _pool_needs(cap: PlaneCapacity, three_tier: bool, has_gateways: bool) -> dict[str, int]:
    needs = {
        "loopbacks": cap.loopbacks,
        "fabric_links": cap.leaves * cap.spines_per_pod * cap.leaf_spine_links * 2,
        "server_links": cap.leaves * cap.server_block_size,
    }
    if three_tier:
        needs["super_spine_links"] = cap.spines * cap.super_spines_per_group * cap.spine_super_spine_links * 2
    if has_gateways:
        needs["border_links"] = cap.top_tier * max(cap.gateways, 1) * 2
    return needs


def check_pools(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    if _three_tiers_undescribed(fab):
        return  # check_topology says what is missing
    cap = plane_capacity(fab)
    three = fab.topology.tiers == 3
    owners: list[tuple[ipaddress.IPv4Network, str, str]] = []
    for plane, spec in fab.planes.items():
        has_gw = any(plane in g.planes for g in fab.gateways)
        for pool_name, need in _pool_needs(cap, three, has_gw).items():
            path = ("fabric", "planes", plane, "pools", pool_name)
            value = getattr(spec.pools, pool_name)
            if value is None:
                yield _diag(inv, ("fabric", "planes", plane, "pools"),
                            f"plane {plane}: pool {pool_name} is required by this topology",
                            f"add a /{_prefix_len_for(need)} or larger")
                continue
            net = ipaddress.IPv4Network(value)
            if net.num_addresses < need:
                yield _diag(inv, path,
                            f"plane {plane}: pool {pool_name} {value} holds {net.num_addresses} addresses but the "
                            f"hardware port layout can grow to {need}",
                            f"use a /{_prefix_len_for(need)} or larger, so growth never renumbers")
        for pool_name in ("loopbacks", "fabric_links", "server_links", "super_spine_links", "border_links"):
            value = getattr(spec.pools, pool_name)
            if value:
                owners.append((ipaddress.IPv4Network(value), plane, pool_name))
    if fab.management is not None and fab.management_network is not None:
        yield _diag(inv, ("fabric", "management_network"), "management_network and management.network are both set",
                    "keep management.network only")
    if fab.mgmt_network:
        mgmt = ipaddress.IPv4Network(fab.mgmt_network)
        owners.append((mgmt, "-", "management_network"))
        if fab.management is not None:
            gateway = ipaddress.IPv4Address(fab.management.gateway)
            slots = len(fab.planes) * cap.loopbacks
            if gateway not in mgmt:
                yield _diag(inv, ("fabric", "management", "gateway"),
                            f"management gateway {gateway} is outside management.network {mgmt}",
                            "the switches could not reach it: pick an address inside the network")
            elif int(gateway) - int(mgmt.network_address) <= slots:
                yield _diag(inv, ("fabric", "management", "gateway"),
                            f"management gateway {gateway} is one of the {slots} switch slots of {mgmt}",
                            "use an address above the slots (the end of the network)")
        need = len(fab.planes) * cap.loopbacks
        if mgmt.num_addresses - 2 < need:
            yield _diag(inv, ("fabric", "management_network"),
                        f"management_network {mgmt} holds {mgmt.num_addresses - 2} hosts, the planes can grow to {need} switches",
                        f"use a /{_prefix_len_for(need + 2)} or larger")
    for i, (net_a, plane_a, name_a) in enumerate(owners):
        for net_b, plane_b, name_b in owners[i + 1:]:
            if net_a.overlaps(net_b):
                where = ("fabric", "planes", plane_b, "pools", name_b) if plane_b != "-" else ("fabric", name_b)
                across = plane_a != plane_b and "-" not in (plane_a, plane_b)
                yield _diag(inv, where,
                            f"pool {name_b} {net_b} of plane {plane_b} overlaps {name_a} {net_a} of plane {plane_a}"
                            + (": planes must not share address space" if across else ""),
                            "give every pool its own range", code="SOT-POOL-OVERLAP")


def _asn_ranges(inv: LoadedInventory) -> list[tuple[int, int, str, tuple[str | int, ...]]]:
    """(first, last, whose, inventory path) of every ASN range the fabric can grow into."""
    fab = inv.inventory.fabric
    cap = plane_capacity(fab)
    ranges: list[tuple[int, int, str, tuple[str | int, ...]]] = []
    for plane, spec in fab.planes.items():
        base = ("fabric", "planes", plane, "asn")
        per_switch = spec.asn.scheme == "per-switch"
        spine_count = cap.spines if per_switch else cap.pods
        ranges.append((spec.asn.spine_base, spec.asn.spine_base + spine_count - 1, f"plane {plane} spines",
                       (*base, "spine_base")))
        ranges.append((spec.asn.leaf_base, spec.asn.leaf_base + cap.leaves - 1, f"plane {plane} leaves",
                       (*base, "leaf_base")))
        if spec.asn.super_spine is not None:
            ss_count = cap.super_spines if per_switch else 1
            ranges.append((spec.asn.super_spine, spec.asn.super_spine + ss_count - 1, f"plane {plane} super-spines",
                           (*base, "super_spine")))
    for gi, gw in enumerate(fab.gateways):
        ranges.append((gw.asn, gw.asn, f"gateway {gw.name}", ("fabric", "gateways", gi, "asn")))
    return ranges


def check_asns(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    if _three_tiers_undescribed(fab):
        return  # check_topology says what is missing
    ranges = _asn_ranges(inv)
    for lo, hi, what, path in ranges:
        if hi > 4294967294:
            yield _diag(inv, path, f"{what}: ASN range {lo}-{hi} runs past 4294967294", "lower the base")
    for i, (lo_a, hi_a, what_a, _path_a) in enumerate(ranges):
        for lo_b, hi_b, what_b, path_b in ranges[i + 1:]:
            if lo_a <= hi_b and lo_b <= hi_a:
                yield _diag(inv, path_b, f"{what_b}: ASN range {lo_b}-{hi_b} overlaps {what_a} {lo_a}-{hi_a}",
                            "every leaf, pod and plane needs its own ASNs", code="SOT-ASN-DUP")


def check_symmetry(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    planes = list(fab.planes.items())
    ref_name, ref = planes[0]
    profiles = inv.inventory.qos.qos_profiles
    for plane, spec in planes[1:]:
        base = ("fabric", "planes", plane)
        for attr in ("spines_per_pod", "super_spines_per_group", "mtu"):
            if getattr(spec, attr) != getattr(ref, attr):
                yield _diag(inv, (*base, attr),
                            f"plane {plane} {attr} = {getattr(spec, attr)} but plane {ref_name} has {getattr(ref, attr)}",
                            "planes must be symmetric so either can carry the load alone", code="SOT-SYMMETRY")
        for attr in ("server", "leaf_spine", "spine_super_spine", "border"):
            a, b = getattr(spec.link_speeds, attr), getattr(ref.link_speeds, attr)
            if a != b:
                yield _diag(inv, (*base, "link_speeds"),
                            f"plane {plane} link_speeds.{attr} = {a} but plane {ref_name} has {b}",
                            "planes must be symmetric", code="SOT-SYMMETRY")
        for attr in sorted(set(spec.firmware) | set(ref.firmware)):
            a, b = spec.firmware.get(attr), ref.firmware.get(attr)
            if a != b:
                yield _diag(inv, (*base, "firmware", attr),
                            f"plane {plane} firmware {attr} = {a} but plane {ref_name} runs {b}",
                            "finish the rolling upgrade on both planes, then record one version", code="SOT-SYMMETRY")
        if spec.qos_profile != ref.qos_profile:
            same = (spec.qos_profile in profiles and ref.qos_profile in profiles
                    and profiles[spec.qos_profile] == profiles[ref.qos_profile])
            if not same:
                yield _diag(inv, (*base, "qos_profile"),
                            f"plane {plane} uses QoS profile {spec.qos_profile!r}, plane {ref_name} uses "
                            f"{ref.qos_profile!r}, and they differ", "use one RoCE profile on every plane",
                            code="SOT-SYMMETRY")


def _platform_roles(fab: Fabric) -> list[str]:
    """The roles whose platform ``fabric.platforms`` names and the fabric has."""
    return ["leaf", "spine", "gateway"] + (["super_spine"] if fab.topology.tiers == 3 else [])


def check_platforms(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    roles = _platform_roles(fab)
    vrf = fab.management.vrf if fab.management is not None else None
    for platform in dict.fromkeys(getattr(fab.platforms, role) for role in roles):
        fixed = getattr(get_platform(platform), "management_vrf_name", None)
        if vrf is not None and fixed is not None and vrf != fixed:
            users = [ROLE_PLURALS[role] for role in roles if getattr(fab.platforms, role) == platform]
            yield _diag(inv, ("fabric", "management", "vrf"),
                        f"management.vrf = {vrf!r}, but {' and '.join(users)} run {platform}, whose management "
                        f"VRF is always called {fixed} (its SSH, NTP and other services are bound to that name)",
                        f"use vrf: {fixed}, or run those roles on a platform that takes any name", code="SOT-MGMT-VRF")
    yield from _users_fit(inv, fab, roles)
    for plane, spec in fab.planes.items():
        for role in roles:
            platform = getattr(fab.platforms, role)
            max_mtu = get_platform(platform).max_mtu
            if spec.mtu > max_mtu:
                yield _diag(inv, ("fabric", "planes", plane, "mtu"),
                            f"plane {plane} mtu {spec.mtu} exceeds the {platform} maximum {max_mtu}"
                            f" ({role}s run {platform})", f"use mtu <= {max_mtu}")
                break
            if spec.firmware.get(platform) is None:
                yield _diag(inv, ("fabric", "planes", plane, "firmware"),
                            f"plane {plane}: {role}s run {platform} but firmware.{platform} is not set",
                            "record the version the plane runs")
                break


def _users_fit(inv: LoadedInventory, fab: Fabric, roles: list[str]) -> Iterator[Diagnostic]:
    """Each management user as every platform of the fabric can hold it: no more SSH keys than an
    account takes, and a password where a user without one logs in with none (EOS `nopassword`)."""
    if fab.management is None:
        return
    platforms = {getattr(fab.platforms, role): get_platform(getattr(fab.platforms, role)) for role in roles}
    for i, user in enumerate(fab.management.users):
        for name, platform in platforms.items():
            most = getattr(platform, "max_ssh_keys_per_user", None)
            if most is not None and len(user.ssh_keys) > most:
                yield _diag(inv, ("fabric", "management", "users", i, "ssh_keys"),
                            f"user {user.name} has {len(user.ssh_keys)} SSH keys; a {name} account holds {most} "
                            "(the others would be replaced on the switch)", f"list at most {most} keys",
                            code="SOT-USER-KEYS")
            if getattr(platform, "login_without_password", False) and user.password_secret is None:
                yield _diag(inv, ("fabric", "management", "users", i),
                            f"user {user.name} has no password_secret: on {name} an account without a password "
                            "logs in with none (nopassword)", "give it password_secret (keys still work beside it)",
                            code="SOT-USER-PASSWORD")


DEFAULT_PRIORITY = 0  # the priority and class of traffic no DSCP rule names (every platform's default)
ROLE_PLURALS = {"leaf": "leaves", "spine": "spines", "super_spine": "super-spines", "gateway": "gateways"}


def check_qos(inv: LoadedInventory) -> Iterator[Diagnostic]:
    profiles = inv.inventory.qos.qos_profiles
    fab = inv.inventory.fabric
    roles = _platform_roles(fab)
    # the platforms on which a DSCP's priority is its traffic class (role -> platform)
    class_only = {role: getattr(fab.platforms, role) for role in roles
                  if getattr(get_platform(getattr(fab.platforms, role)), "priority_is_class", False)}
    refused: set[tuple[str, str]] = set()
    for plane, spec in fab.planes.items():
        if spec.qos_profile not in profiles:
            yield _diag(inv, ("fabric", "planes", plane, "qos_profile"),
                        f"plane {plane}: QoS profile {spec.qos_profile!r} is not defined in qos.yaml",
                        "one of: " + ", ".join(profiles))
            continue
        prof = profiles[spec.qos_profile]
        for what, cls in (("roce", prof.roce), ("cnp", prof.cnp)):
            if cls.priority != cls.traffic_class and class_only and (spec.qos_profile, what) not in refused:
                refused.add((spec.qos_profile, what))
                role, platform = next(iter(class_only.items()))
                yield _diag(inv, ("qos", "qos_profiles", spec.qos_profile, what, "priority"),
                            f"profile {spec.qos_profile}: {what} priority {cls.priority} with traffic class "
                            f"{cls.traffic_class}: {ROLE_PLURALS[role]} run {platform}, where a DSCP's priority "
                            "is its traffic class (what PFC pauses and what it marks); its switches and the others "
                            "would disagree",
                            f"make the priority {cls.traffic_class}, or run another platform there")
    for name, prof in profiles.items():
        base = ("qos", "qos_profiles", name)
        if prof.ecn.min_threshold_bytes >= prof.ecn.max_threshold_bytes:
            yield _diag(inv, (*base, "ecn", "min_threshold_bytes"),
                        f"profile {name}: ECN min threshold {prof.ecn.min_threshold_bytes} is not below max "
                        f"{prof.ecn.max_threshold_bytes}", "min must be lower than max or ECN marks nothing sensibly")
        if prof.roce.priority not in prof.pfc.priorities:
            yield _diag(inv, (*base, "pfc", "priorities"),
                        f"profile {name}: RoCE priority {prof.roce.priority} is not PFC-enabled {prof.pfc.priorities}",
                        f"add {prof.roce.priority}: RoCE needs a lossless priority")
        if prof.cnp.priority in prof.pfc.priorities or prof.cnp.traffic_class == prof.roce.traffic_class:
            yield _diag(inv, (*base, "cnp"),
                        f"profile {name}: CNP shares the lossless priority/class of RoCE data",
                        "give CNPs their own strict-priority class (DSCP 48 -> TC6) so they are never paused")
        for what, cls in (("roce", prof.roce), ("cnp", prof.cnp)):
            if cls.priority == DEFAULT_PRIORITY or cls.traffic_class == DEFAULT_PRIORITY:
                field = "priority" if cls.priority == DEFAULT_PRIORITY else "traffic_class"
                yield _diag(inv, (*base, what, field),
                            f"profile {name}: {what} {field.replace('_', ' ')} {DEFAULT_PRIORITY} is where every "
                            "packet without a DSCP rule goes (BGP, TCP, storage): "
                            + ("it would be paused with RoCE" if what == "roce" else
                               "it would jump ahead of data as CNPs do"),
                            f"give {what} a {field.replace('_', ' ')} of its own (RoCE 3, CNP 6)")
        if DEFAULT_PRIORITY in prof.pfc.priorities:
            yield _diag(inv, (*base, "pfc", "priorities"),
                        f"profile {name}: PFC on priority {DEFAULT_PRIORITY}, where every packet without a DSCP rule "
                        "goes (BGP, TCP, storage): all of it would be paused with RoCE and spread its pauses",
                        f"keep PFC on RoCE's priority ({prof.roce.priority}) only")
        if prof.roce.traffic_class not in prof.ecn.traffic_classes:
            yield _diag(inv, (*base, "ecn", "traffic_classes"),
                        f"profile {name}: ECN is not enabled on the RoCE traffic class {prof.roce.traffic_class}",
                        "add it: DCQCN needs ECN marks on RoCE traffic")
        if prof.roce.dscp == prof.cnp.dscp:
            yield _diag(inv, (*base, "cnp", "dscp"), f"profile {name}: CNP and RoCE share DSCP {prof.cnp.dscp}",
                        "use DSCP 48 for CNP")
        for tc in [*prof.ecn.traffic_classes, *prof.pfc.priorities]:
            if not 0 <= tc <= 7:
                yield _diag(inv, base, f"profile {name}: class/priority {tc} is outside 0-7", "use 0-7")


def check_servers(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    sf = inv.inventory.servers
    planes = set(fab.planes)
    topo = fab.topology
    leaf_ports = len(expand_ports(fab.hardware.leaf.server_ports))
    for mname, model in sf.server_models.items():
        base = ("servers", "server_models", mname)
        seen_if: dict[str, str] = {}
        seen_rdma: dict[str, str] = {}
        lanes: dict[tuple[str, int], str] = {}
        plane_roots: dict[str, set[str]] = defaultdict(set)
        for ni, nic in enumerate(model.nics):
            nic_planes = {p.plane for p in nic.ports}
            for pi, port in enumerate(nic.ports):
                ppath = (*base, "nics", ni, "ports", pi)
                label = f"{mname} {nic.name} port {port.port}"
                if port.plane not in planes:
                    yield _diag(inv, (*ppath, "plane"), f"{label} is on plane {port.plane}, which the fabric does not have",
                                "one of: " + ", ".join(sorted(planes)))
                if port.rail >= topo.rails:
                    yield _diag(inv, (*ppath, "rail"), f"{label} is on rail {port.rail} but the fabric has rails "
                                f"0-{topo.rails - 1}", "fix the rail or raise topology.rails")
                key = (port.plane, port.rail)
                if key in lanes:
                    yield _diag(inv, ppath, f"{label} and {lanes[key]} both land on the rail-{port.rail} leaf of plane "
                                f"{port.plane}", "a server has one port per rail per plane")
                lanes[key] = label
                for seen, value, what in ((seen_if, port.ifname, "ifname"), (seen_rdma, port.rdma_device, "rdma_device")):
                    if value in seen:
                        yield _diag(inv, (*ppath, what), f"{label}: {what} {value} is also used by {seen[value]}",
                                    "names must be unique on a server")
                    seen[value] = label
            if nic.pcie_root:
                for p in nic_planes:
                    plane_roots[p].add(nic.pcie_root)
        model_planes = {p.plane for nic in model.nics for p in nic.ports}
        if len(model_planes) < 2:
            yield _diag(inv, (*base, "nics"),
                        f"server model {mname}: every NIC port lands on plane {', '.join(sorted(model_planes))} only",
                        "give it ports on at least two planes; a one-plane server dies with its plane")
        # Separate NICs of different planes behind one PCIe root share a failure domain.
        for ni, nic in enumerate(model.nics):
            for nj, other in enumerate(model.nics[ni + 1:], start=ni + 1):
                a = {p.plane for p in nic.ports}
                b = {p.plane for p in other.ports}
                if nic.pcie_root and nic.pcie_root == other.pcie_root and a != b:
                    yield _diag(inv, (*base, "nics", nj, "pcie_root"),
                                f"{mname}: {nic.name} (plane {','.join(sorted(a))}) and {other.name} (plane "
                                f"{','.join(sorted(b))}) share PCIe root {nic.pcie_root}",
                                "one PCIe failure would take both planes down; spread them if the board allows",
                                Severity.WARNING, "SOT-PCIE-SHARED")
                elif nic.numa is not None and nic.numa == other.numa and a.isdisjoint(b):
                    yield _diag(inv, (*base, "nics", nj, "numa"),
                                f"{mname}: {nic.name} (plane {','.join(sorted(a))}) and {other.name} (plane "
                                f"{','.join(sorted(b))}) share NUMA node {nic.numa}",
                                "a socket or PCIe-switch fault would reach both planes; check the board allows "
                                "spreading them", Severity.WARNING, "SOT-NUMA-SHARED")
    names: dict[str, int] = {}
    places: dict[tuple[int, int, int], str] = {}
    mgmt_seen: dict[str, str] = {}
    mgmt_net = ipaddress.IPv4Network(inv.inventory.fabric.mgmt_network) if inv.inventory.fabric.mgmt_network else None
    for si, srv in enumerate(sf.servers):
        sbase: tuple[str | int, ...] = ("servers", "servers", si)
        if srv.mgmt_address is not None:
            if srv.mgmt_address in mgmt_seen:
                yield _diag(inv, (*sbase, "mgmt_address"), f"{srv.name}: management address {srv.mgmt_address} is "
                            f"also {mgmt_seen[srv.mgmt_address]}'s", "one address per server", code="SOT-DUP-ADDRESS")
            mgmt_seen[srv.mgmt_address] = srv.name
            if mgmt_net is None or ipaddress.IPv4Address(srv.mgmt_address) not in mgmt_net:
                yield _diag(inv, (*sbase, "mgmt_address"),
                            f"{srv.name}: management address {srv.mgmt_address} is outside the management network "
                            f"{mgmt_net or '(none: fabric.yaml has no management section)'}",
                            "use an address of the management network (the deploy reaches servers through it)")
        if srv.name in names:
            yield _diag(inv, (*sbase, "name"), f"duplicate server name {srv.name} (also entry {names[srv.name] + 1})",
                        "names must be unique", code="SOT-DUP-NAME")
        names[srv.name] = si
        if srv.model not in sf.server_models:
            yield _diag(inv, (*sbase, "model"), f"{srv.name}: unknown server model {srv.model!r}",
                        "one of: " + ", ".join(sf.server_models))
        if srv.pod > topo.pods:
            yield _diag(inv, (*sbase, "pod"), f"{srv.name}: pod {srv.pod} but the fabric has {topo.pods}",
                        "fix the pod or add pods")
        if srv.su > topo.scalable_units_per_pod:
            yield _diag(inv, (*sbase, "su"), f"{srv.name}: scalable unit {srv.su} but a pod has "
                        f"{topo.scalable_units_per_pod}", "fix su or raise topology.scalable_units_per_pod")
        if srv.slot > leaf_ports:
            yield _diag(inv, (*sbase, "slot"), f"{srv.name}: slot {srv.slot} but a leaf has {leaf_ports} server ports",
                        f"use a slot in 1-{leaf_ports}")
        place = (srv.pod, srv.su, srv.slot)
        if place in places:
            yield _diag(inv, (*sbase, "slot"), f"{srv.name}: pod {srv.pod} su {srv.su} slot {srv.slot} is already "
                        f"taken by {places[place]}", "each slot is one leaf port; pick a free slot")
        places[place] = srv.name


def check_names(inv: LoadedInventory) -> Iterator[Diagnostic]:
    fab = inv.inventory.fabric
    servers = {s.name for s in inv.inventory.servers.servers}
    seen: set[str] = set()
    for gi, gw in enumerate(fab.gateways):
        if gw.name in servers or gw.name in seen:
            yield _diag(inv, ("fabric", "gateways", gi, "name"), f"duplicate name {gw.name}", "names must be unique",
                        code="SOT-DUP-NAME")
        seen.add(gw.name)
        for plane in gw.planes:
            if plane not in fab.planes:
                yield _diag(inv, ("fabric", "gateways", gi, "planes"), f"gateway {gw.name}: unknown plane {plane}",
                            "one of: " + ", ".join(fab.planes))
        if len(set(gw.planes)) != len(gw.planes):
            yield _diag(inv, ("fabric", "gateways", gi, "planes"), f"gateway {gw.name}: a plane is listed twice",
                        "list each plane once")
    labels = fab.role_labels.model_dump()
    by_label: dict[str, str] = {}
    for role, label in labels.items():
        if label in by_label:
            yield _diag(inv, ("fabric", "role_labels", role), f"role_labels: {role} and {by_label[label]} are both "
                        f"called {label!r}", "give each role its own word, or device names hide which role a "
                        "switch has")
        by_label.setdefault(label, role)
    switches = switch_names(inv, gateways=False)
    for gi, gw in enumerate(fab.gateways):
        if gw.name in switches:
            yield _diag(inv, ("fabric", "gateways", gi, "name"), f"gateway {gw.name} has the name of a fabric switch",
                        "rename the gateway", code="SOT-DUP-NAME")


IB_SWITCH_PORTS = 254  # an IB switch's external ports are numbered 1..254 (NumPorts is 8 bits; 255 is reserved)


def check_infiniband(inv: LoadedInventory) -> Iterator[Diagnostic]:
    ib = inv.inventory.infiniband
    if ib is None:
        return
    servers = {s.name for s in inv.inventory.servers.servers}
    prefixes: dict[str, str] = {}
    sm_hosts: dict[str, str] = {}  # SM host -> the first IB plane that runs its SM there
    for plane, spec in ib.ib_planes.items():
        if plane in inv.inventory.fabric.planes:
            yield _diag(inv, ("infiniband", "ib_planes", plane), f"IB plane {plane} has the name of an Ethernet plane",
                        "name IB planes apart (e.g. IBA, IBB)")
        sp = spec.subnet_prefix.lower()
        if sp in prefixes:
            yield _diag(inv, ("infiniband", "ib_planes", plane, "subnet_prefix"),
                        f"IB plane {plane} subnet_prefix {spec.subnet_prefix} equals plane {prefixes[sp]}'s",
                        "each IB plane is its own subnet and needs its own subnet_prefix", code="SOT-IB-PREFIX")
        prefixes[sp] = plane
        if spec.leaves * spec.hosts_per_leaf < len(ib.hosts):
            yield _diag(inv, ("infiniband", "ib_planes", plane, "leaves"),
                        f"IB plane {plane}: {spec.leaves} leaves x {spec.hosts_per_leaf} hosts < {len(ib.hosts)} hosts",
                        "add leaves")
        # spine port N faces leaf N; a leaf's hosts come first, then one port per spine
        # (resolve/infiniband.py): each needs a port number an IB switch has
        for field, needed, what in (("leaves", spec.leaves, "a spine faces every leaf on a port of its own"),
                                    ("hosts_per_leaf", spec.hosts_per_leaf + spec.spines,
                                     f"a leaf has {spec.hosts_per_leaf} host ports and one port per spine")):
            if needed > IB_SWITCH_PORTS:
                yield _diag(inv, ("infiniband", "ib_planes", plane, field),
                            f"IB plane {plane}: {what}: {needed} ports, an InfiniBand switch numbers at most "
                            f"{IB_SWITCH_PORTS}", "use fewer leaves per plane, or fewer hosts per leaf or spines "
                            "(port numbers are 8 bits, 255 reserved)", code="SOT-IB-PORTS")
        ports = len(ib.hosts) + spec.leaves + spec.spines
        if ports > UNICAST_LID_TOP:
            # (the SM gives every HCA port and switch a LID at the rendered LMC 0; one subnet holds no more)
            yield _diag(inv, ("infiniband", "ib_planes", plane), f"IB plane {plane}: {len(ib.hosts)} HCA ports and "
                        f"{spec.leaves + spec.spines} switches need {ports} LIDs, one subnet has {UNICAST_LID_TOP}",
                        "split the hosts over more IB planes: opensm leaves the ports beyond the LID space without "
                        "a LID", code="SOT-IB-LIDS")
        if spec.sm_host not in {h.server for h in ib.hosts}:
            yield _diag(inv, ("infiniband", "ib_planes", plane, "sm_host"),
                        f"IB plane {plane}: sm_host {spec.sm_host} has no HCA in hosts", "pick a listed host")
        if spec.sm_host in sm_hosts:
            # shared fate: one host's fault (or reboot) would leave both planes without a subnet manager
            yield _diag(inv, ("infiniband", "ib_planes", plane, "sm_host"),
                        f"IB planes {sm_hosts[spec.sm_host]} and {plane} run their subnet managers on one host, "
                        f"{spec.sm_host}: its fault takes both planes' SM", "give each plane's SM its own host",
                        code="SOT-IB-SM-SHARED")
        sm_hosts.setdefault(spec.sm_host, plane)
        yield from _standby(inv, plane, spec, sm_hosts, {h.server for h in ib.hosts})
        yield from _switch_guids(inv, plane, spec)
    guids: dict[str, str] = {}
    # each plane's switch GUIDs (the hardware's or counted from its base): a host port may not share one
    switch_guid_of = {plane: {guid: name for name, guid in switch_guids(plane, spec).items()}
                      for plane, spec in ib.ib_planes.items()}
    ib_hosts: set[str] = set()
    models = inv.inventory.servers.server_models
    model_of = {s.name: s.model for s in inv.inventory.servers.servers}
    for hi, host in enumerate(ib.hosts):
        base = ("infiniband", "hosts", hi)
        if host.server not in servers:
            yield _diag(inv, (*base, "server"), f"IB host {host.server} is not a server in servers.yaml",
                        "add the server or fix the name")
        if host.server in ib_hosts:
            yield _diag(inv, (*base, "server"), f"IB host {host.server} is listed twice", "merge the entries",
                        code="SOT-DUP-NAME")
        ib_hosts.add(host.server)
        roce = {p.rdma_device for nic in models[model_of[host.server]].nics for p in nic.ports} \
            if host.server in model_of and model_of[host.server] in models else set()
        for plane, device in host.devices.items():
            if plane not in host.guids:
                yield _diag(inv, (*base, "devices", plane), f"{host.server}: an RDMA device for IB plane {plane}, "
                            "which has no GUID of this host", "give the port's GUID in guids, or drop the device")
            if device in roce:
                yield _diag(inv, (*base, "devices", plane), f"{host.server}: {device} is also a RoCE NIC port of the "
                            "server's model", "an HCA port is in one fabric: name the IB device")
        for plane, guid in host.guids.items():
            if plane not in ib.ib_planes:
                yield _diag(inv, (*base, "guids", plane), f"{host.server}: GUID for unknown IB plane {plane}",
                            "one of: " + ", ".join(ib.ib_planes))
            if guid in guids:
                yield _diag(inv, (*base, "guids", plane), f"{host.server}: GUID {guid} is also {guids[guid]}'s",
                            "GUIDs are unique per port; re-read it from the HCA", code="SOT-DUP-GUID")
            elif guid in switch_guid_of.get(plane, {}):
                yield _diag(inv, (*base, "guids", plane), f"{host.server}: GUID {guid} is also switch "
                            f"{switch_guid_of[plane][guid]}'s in IB plane {plane} (the subnet manager would see one "
                            "node twice)", "GUIDs are unique in a subnet; re-read it from the HCA (ibstat), or move "
                            "the plane's switch_guid_base", code="SOT-DUP-GUID")
            if not int(guid, 16) >> 40:
                yield _diag(inv, (*base, "guids", plane), f"{host.server}: GUID {guid} has no maker (its first 24 "
                            "bits, the OUI, are zero): no HCA port has such a GUID", "re-read it from the HCA (ibstat)",
                            code="SOT-IB-GUID")
            guids[guid] = f"{host.server}/{plane}"
        missing = set(ib.ib_planes) - set(host.guids)
        if missing:
            yield _diag(inv, (*base, "guids"), f"{host.server} has no HCA port in IB plane(s) {', '.join(sorted(missing))}",
                        "a dual-plane host needs a port in every plane")
    pkeys: dict[int, str] = {}
    pnames: set[str] = set()
    for pi, part in enumerate(ib.partitions):
        base = ("infiniband", "partitions", pi)
        if not 0x0001 <= part.pkey <= 0x7FFE:
            yield _diag(inv, (*base, "pkey"), f"partition {part.name}: P_Key {part.pkey:#06x} is outside 0x0001-0x7ffe",
                        "OpenSM uses only the low 15 bits; 0x7fff is the default partition")
        low = part.pkey & 0x7FFF
        if low in pkeys:
            yield _diag(inv, (*base, "pkey"), f"partition {part.name}: P_Key {part.pkey:#06x} is already used by "
                        f"{pkeys[low]}", "OpenSM would merge the two partitions; use a distinct P_Key")
        pkeys[low] = part.name
        if part.name in pnames:
            yield _diag(inv, (*base, "name"), f"duplicate partition name {part.name}", "rename one")
        pnames.add(part.name)
        listed: dict[str, int] = {}
        for mi, member in enumerate(part.members):
            if member.server not in ib_hosts:
                yield _diag(inv, (*base, "members", mi), f"partition {part.name}: member {member.server} has no HCA "
                            "in infiniband.yaml hosts", "add its GUIDs to hosts or remove the member")
            if member.server in listed:
                # partitions.conf would name its port GUIDs twice, and which membership opensm keeps is
                # not what a reader of the inventory expects (verify's IB-PKEYS found the two disagree)
                yield _diag(inv, (*base, "members", mi), f"partition {part.name}: {member.server} is a member "
                            f"already (entry {listed[member.server] + 1})", "list each server once, with the "
                            "membership it is to have", code="SOT-IB-MEMBER-TWICE")
            listed.setdefault(member.server, mi)


def _standby(inv: LoadedInventory, plane: str, spec: IbPlane, sm_hosts: dict[str, str],
             hosts: set[str]) -> Iterator[Diagnostic]:
    """Each IB plane's standby SM: on a host of the plane, not the master's, and not shared with another
    plane's SM (its fault would leave both without a standby). ``sm_hosts`` collects every SM host."""
    path = ("infiniband", "ib_planes", plane)
    if spec.sm_standby is None:
        yield _diag(inv, (*path, "sm_host"), f"IB plane {plane} has no standby subnet manager",
                    "add sm_standby: a second host whose opensm takes over when the master's host fails",
                    Severity.WARNING, "SOT-IB-NO-STANDBY")
        return
    if spec.sm_standby == spec.sm_host:
        yield _diag(inv, (*path, "sm_standby"), f"IB plane {plane}: the standby SM is on the master's host "
                    f"{spec.sm_host}", "a standby on the same host fails with it: pick another host")
    elif spec.sm_standby not in hosts:
        yield _diag(inv, (*path, "sm_standby"), f"IB plane {plane}: sm_standby {spec.sm_standby} has no HCA in hosts",
                    "pick a listed host")
    elif spec.sm_standby in sm_hosts and sm_hosts[spec.sm_standby] != plane:
        yield _diag(inv, (*path, "sm_standby"), f"IB planes {sm_hosts[spec.sm_standby]} and {plane} run subnet "
                    f"managers on one host, {spec.sm_standby}: its fault takes an SM of both planes",
                    "give each plane's SMs their own hosts", code="SOT-IB-SM-SHARED")
    sm_hosts.setdefault(spec.sm_standby, plane)


def _switch_guids(inv: LoadedInventory, plane: str, spec: IbPlane) -> Iterator[Diagnostic]:
    """Switch GUIDs from the hardware: all or none, only the plane's switches, each unique, each
    with its maker's OUI; GUIDs counted up from a base stay within 64 bits."""
    if spec.switch_guid_base and not spec.switch_guids:
        last = int(spec.switch_guid_base, 16) + spec.spines + spec.leaves - 1
        if last >= GUID_ALL_ONES:
            yield _diag(inv, ("infiniband", "ib_planes", plane, "switch_guid_base"),
                        f"IB plane {plane}: counted up from switch_guid_base {spec.switch_guid_base}, the last of its "
                        f"{spec.spines + spec.leaves} switches would have GUID 0x{last:x}, beyond the last valid one",
                        "take a lower base")
    if not spec.switch_guids:
        return
    path = ("infiniband", "ib_planes", plane, "switch_guids")
    spines, leaves = naming.ib_switch_names(plane, spec.spines, spec.leaves)
    names = spines + leaves
    unknown = sorted(set(spec.switch_guids) - set(names))
    for name in unknown:
        yield _diag(inv, (*path, name), f"IB plane {plane} has no switch {name}",
                    f"its switches are {names[0]} .. {names[-1]}")
    missing = [n for n in names if n not in spec.switch_guids]
    if missing:
        yield _diag(inv, path, f"IB plane {plane}: switch_guids lacks {', '.join(missing[:4])}"
                    + (f" and {len(missing) - 4} more" if len(missing) > 4 else ""),
                    "list every switch of the plane (ibswitches), or none")
    for name, guid in spec.switch_guids.items():
        if not int(guid, 16) >> 40:
            yield _diag(inv, (*path, name), f"IB plane {plane}: {name}'s GUID {guid} has no maker (its first 24 "
                        "bits, the OUI, are zero): no switch has such a GUID",
                        "re-read it from the switch (ibswitches)", code="SOT-IB-GUID")
    seen: dict[str, str] = {}
    for name, guid in spec.switch_guids.items():
        if guid in seen:
            yield _diag(inv, (*path, name), f"IB plane {plane}: {name} has GUID {guid}, as {seen[guid]} does",
                        "GUIDs are unique; re-read them from the switches", code="SOT-DUP-GUID")
        seen[guid] = name


def check_external(inv: LoadedInventory) -> Iterator[Diagnostic]:
    """Gateways' external peerings: in a plane the gateway serves, on a port of their own, on a
    point-to-point subnet of their own, with an ASN the fabric does not use, bringing in prefixes
    that no pool and no other plane uses (a prefix in two planes' VRFs would be one address space
    reached through both: the planes would no longer be separate)."""
    fab = inv.inventory.fabric
    if not any(gw.external for gw in fab.gateways) or _three_tiers_undescribed(fab):
        return
    fabric_ports = set(expand_ports(fab.hardware.gateway.ports)) if fab.hardware.gateway else set()
    pools = [(ipaddress.IPv4Network(v), plane, name) for plane, spec in fab.planes.items()
             for name, v in spec.pools.model_dump().items() if v]
    if fab.mgmt_network:
        pools.append((ipaddress.IPv4Network(fab.mgmt_network), "-", "management"))
    asn_ranges = [(lo, hi, what) for lo, hi, what, _ in _asn_ranges(inv)]
    links: list[tuple[ipaddress.IPv4Network, tuple[str | int, ...]]] = []
    prefix_plane: dict[ipaddress.IPv4Network, tuple[str, tuple[str | int, ...]]] = {}
    for gi, gw in enumerate(fab.gateways):
        ports: dict[int, str] = {}
        for plane, peers in gw.external.items():
            base: tuple[str | int, ...] = ("fabric", "gateways", gi, "external", plane)
            if plane not in gw.planes:
                yield _diag(inv, base, f"gateway {gw.name}: external peers in plane {plane}, which it does not serve "
                            f"(planes: {', '.join(gw.planes)})", "add the plane to its planes or move the peers")
                continue
            for pi, peer in enumerate(peers):
                at = (*base, pi)
                if peer.port in fabric_ports:
                    yield _diag(inv, (*at, "port"), f"gateway {gw.name}: port {peer.port} of external peer {peer.name} "
                                "is in hardware.gateway.ports (the fabric side)", "use a port outside that range")
                elif peer.port in ports:
                    yield _diag(inv, (*at, "port"), f"gateway {gw.name}: port {peer.port} is used by external peers "
                                f"{ports[peer.port]} and {peer.name}", "give every peering its own port")
                ports.setdefault(peer.port, peer.name)
                subnet = ipaddress.IPv4Network(peer.subnet)
                if subnet.prefixlen not in (30, 31):
                    yield _diag(inv, (*at, "subnet"), f"external peer {peer.name}: subnet {subnet} is not a /31 or /30",
                                "use a point-to-point subnet")
                for net, where in links:
                    if net.overlaps(subnet):
                        yield _diag(inv, (*at, "subnet"), f"external peer {peer.name}: subnet {subnet} overlaps {net}",
                                    "give every peering its own subnet")
                links.append((subnet, at))
                for net, owner, name in pools:
                    if net.overlaps(subnet):
                        yield _diag(inv, (*at, "subnet"), f"external peer {peer.name}: subnet {subnet} is inside pool "
                                    f"{name} {net} of plane {owner}", "use an address outside the fabric's pools")
                for lo, hi, what in asn_ranges:
                    if lo <= peer.asn <= hi:
                        yield _diag(inv, (*at, "asn"), f"external peer {peer.name}: AS {peer.asn} is in the range of "
                                    f"{what} ({lo}-{hi})", "an external peer needs an ASN the fabric does not use "
                                    "(eBGP loop prevention would drop its routes)")
                for qi, text in enumerate(peer.prefixes):
                    prefix = ipaddress.IPv4Network(text)
                    for net, owner, name in pools:
                        if net.overlaps(prefix):
                            yield _diag(inv, (*at, "prefixes", qi), f"external peer {peer.name}: prefix {prefix} "
                                        f"overlaps pool {name} {net} of plane {owner}",
                                        "the fabric's own addresses never come from outside")
                    for other, (other_plane, other_at) in prefix_plane.items():
                        if other_plane != plane and other.overlaps(prefix):
                            yield _diag(inv, (*at, "prefixes", qi), f"external peer {peer.name}: prefix {prefix} of "
                                        f"plane {plane} overlaps {other} of plane {other_plane}",
                                        "every plane reaches its own storage/outside addresses: planes must not "
                                        "share address space", code="SOT-POOL-OVERLAP")
                    prefix_plane.setdefault(prefix, (plane, at))
        counts = {plane: len(gw.external.get(plane, [])) for plane in gw.planes}
        if len(set(counts.values())) > 1:
            yield _diag(inv, ("fabric", "gateways", gi, "external"),
                        f"gateway {gw.name}: external peerings per plane differ "
                        f"({', '.join(f'{p}: {n}' for p, n in counts.items())})",
                        "give every plane the same external side, or accept the asymmetry",
                        severity=Severity.WARNING, code="SYM-EXTERNAL")


RULES: tuple[Rule, ...] = (
    check_topology, check_capacity, check_pools, check_asns, check_symmetry, check_platforms, check_qos,
    check_servers, check_host_layout, check_names, check_infiniband, check_racks, check_external,
)


def validate(inv: LoadedInventory) -> list[Diagnostic]:
    """Every semantic finding, errors first, in inventory order within each severity."""
    found: list[Diagnostic] = []
    for rule in RULES:
        found.extend(rule(inv))
    return sorted(found, key=lambda d: (d.severity != Severity.ERROR, d.file, d.line))
