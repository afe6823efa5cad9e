"""RoCE QoS on the rendered configs (Batfish does not model QoS: this check is ours alone).

Within a plane every switch must map DSCP the same way and every port must have the same PFC
priorities, ECN thresholds and MTU; both planes must be identical; CNPs must not ride the lossless
class. The plane's reference is what most of its ports say; the odd ones out are reported."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from functools import cache, partial
from typing import Any

from dualrail_net.verify.checks import BASE, Context, PortGroup, TOPOLOGY, check, finding
from dualrail_net.verify.model import UNTRUSTED, DeviceConfig, EcnProfile, Qos
from dualrail_net.verify.findings import Finding


def _plane_reference(groups: list[PortGroup], value: Callable[[PortGroup], Any]) -> dict[str, Any]:
    """Per plane, the value most of its ports have (``value`` maps a port group to what is compared;
    ties go to the value met first, as in a count over the ports one by one)."""
    counts: dict[str, Counter[Any]] = defaultdict(Counter)
    for group in groups:
        counts[group.plane][value(group)] += len(group.ports)
    return {plane: c.most_common(1)[0][0] for plane, c in counts.items()}


def _majority(values: list[Any]) -> Any:
    return Counter(values).most_common(1)[0][0] if values else None


def _roce_tc(ctx: Context, plane: str, device: str) -> tuple[int | None, int | None]:
    markers = ctx.snap.manifest.qos_markers.get(plane)
    dscp = markers.roce_dscp if markers else None
    dev = ctx.snap.devices[device]
    if dscp is None:
        return None, None
    return dev.qos.tc_of(dscp), dev.qos.priority_of(dscp)


def _roce_tcs(ctx: Context) -> Callable[[str, str], tuple[int | None, int | None]]:
    """_roce_tc memoized per (plane, device): the port loops ask once per port."""
    return cache(partial(_roce_tc, ctx))


def _ecn_sig(group: PortGroup) -> tuple[Any, ...] | None:
    if group.ecn is None:
        return None
    return tuple(sorted((tc, e.min_bytes, e.max_bytes, e.probability) + (("drops",) if e.drops else ())
                        for tc, e in group.ecn.items()))


def _ecn_sigs() -> Callable[[PortGroup], tuple[Any, ...] | None]:
    """_ecn_sig computed once per ECN dict: the groups of one plane's switches hold equal but
    distinct dicts, and many groups share one. Ids are safe keys within one check: every dict stays
    alive in the snapshot meanwhile."""
    memo: dict[int, tuple[Any, ...] | None] = {}

    def sig(group: PortGroup) -> tuple[Any, ...] | None:
        key = id(group.ecn)
        if key not in memo:
            memo[key] = _ecn_sig(group)
        return memo[key]
    return sig


@check("QOS-DSCP-MAP", "every switch of a plane maps DSCP to the same traffic classes and priorities",
       reads={BASE, TOPOLOGY})
def dscp_map(ctx: Context) -> list[Finding]:
    out = []
    members: dict[str, list[DeviceConfig]] = defaultdict(list)
    for dev in ctx.snap.devices.values():
        for plane in {ctx.topo.node_plane.get((dev.name, v)) for v in [None, *dev.vrfs]} - {None}:
            members[str(plane)].append(dev)
    for plane, devs in members.items():
        # compared on every DSCP some switch of the plane maps, and the plan's marks: each as the
        # switch's own line says, a mark left out as its platform's default (NVUE) classifies it
        plane_markers = ctx.snap.manifest.qos_markers.get(plane)
        marks = frozenset({plane_markers.roce_dscp, plane_markers.cnp_dscp} - {None} if plane_markers else ())
        named = sorted({d for dev in devs for d in dev.qos.dscp_to_priority}
                       | {d for dev in devs for d in dev.qos.dscp_to_tc} | marks)
        rows = [(dev.name, _dscp_sig(dev.qos, named, marks)) for dev in devs]
        ref = _majority([sig for _, sig in rows])
        for name, sig in rows:
            if sig != ref and sig[0] != ref[0]:
                out.append(finding([name], plane, f"{name} maps DSCP {dict(sig[0])} to traffic classes but plane "
                                   f"{plane} maps {dict(ref[0])}",
                                   "RoCE would land in a different queue on this switch"))
            elif sig != ref:
                out.append(finding([name], plane, f"{name} maps DSCP {dict(sig[1])} to priorities but plane {plane} "
                                   f"maps {dict(ref[1])}", "PFC would pause, and marking carry, another priority "
                                   "for RoCE or CNPs on this switch"))
        roce = plane_markers.roce_dscp if plane_markers else None
        if roce is not None:
            for name, sig in rows:
                if roce not in dict(sig[0]):
                    out.append(finding([name], plane, f"{name} has no mapping for RoCE DSCP {roce}",
                                       "RoCE traffic falls into the best-effort class, lossy and unmarked"))
        if plane_markers is not None:
            marked = {"RoCE": plane_markers.roce_dscp, "CNP": plane_markers.cnp_dscp}
            for dev in devs:
                out += _rewritten(ctx, dev, plane, marked)
                out += _port_maps(dev, plane, marked)
    return out


def _dscp_sig(qos: Qos, named: list[int],
              marks: frozenset[int]) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """A switch's (DSCP -> traffic class, DSCP -> priority) on the DSCPs named: its own map's, and
    for the plan's marks what its platform's default gives them when the map leaves them out (the
    classes of other DSCPs a map leaves out are compared as not said, as the other platforms'
    defaults are not modelled)."""
    tcs, prios = qos.dscp_to_tc, qos.dscp_to_priority
    return (tuple((d, tc) for d in named if (tc := tcs.get(d) if d not in marks else qos.tc_of(d)) is not None),
            tuple((d, prio) for d in named
                  if (prio := prios.get(d) if d not in marks else qos.priority_of(d)) is not None))


def _port_maps(dev: DeviceConfig, plane: str, marked: dict[str, int]) -> list[Finding]:
    """A port that classifies a marked DSCP into another class than the switch's other ports (a DSCP
    a map does not list is TC 0): that traffic arriving there is in the wrong class from that hop."""
    out = []
    for port, (classes, said) in dev.qos.port_dscp_to_tc.items():
        for what, dscp in marked.items():
            own, switch = classes.get(dscp, 0), dev.qos.tc_of(dscp) or 0
            if own != switch:
                out.append(finding([dev.name], plane, f"{dev.name} {port} classifies {what}'s DSCP {dscp} into "
                                   f"traffic class {own} ({said}); the switch's other ports into {switch}",
                                   f"{what} arriving on {port} leaves its class from this hop on (lossy, unpaused "
                                   "or unprioritized)"))
    return out


def _rewritten(ctx: Context, dev: DeviceConfig, plane: str, marked: dict[str, int]) -> list[Finding]:
    """A switch that rewrites a marked DSCP on the way out (by its traffic class): the next switch,
    and the receiving NIC, classify the packet by the DSCP it now carries."""
    out = []
    for what, dscp in marked.items():
        klass = dev.qos.priority_of(dscp)
        written = dev.qos.dscp_rewrite.get(klass) if klass is not None else None
        if written is not None and written != dscp:
            at = ctx.snap.where(dev.name, dev.routing_file, dev.qos.dscp_rewrite_line)
            out.append(finding([dev.name], plane, f"{at}: {dev.name} "
                               f"rewrites {what}'s DSCP {dscp} (traffic class {klass}) to {written} as it leaves",
                               f"the next hop classifies {what} by DSCP {written}: it leaves its class "
                               "(lossy, unpaused or unprioritized from there on)"))
    return out


# The checks below decide per port group (Context.port_groups: ~15k at 100k GPUs, for 1M ports):
# a verdict depends on the plane, the device's RoCE class and the group's PFC list / ECN dict, and
# is memoized by those; a finding is then reported for each port of the group.


@check("QOS-PFC", "PFC is on the RoCE priority, and only there, on every port of a plane",
       reads={BASE, TOPOLOGY})
def pfc(ctx: Context) -> list[Finding]:
    out = []
    groups = ctx.port_groups
    ref = _plane_reference(groups, lambda g: tuple(g.pfc_priorities or ()))
    roce = _roce_tcs(ctx)
    verdicts: dict[tuple[int, str, int | None], tuple[str, str] | None] = {}
    for group in groups:
        plane, device = group.plane, group.device
        _, roce_prio = roce(plane, device)
        key = (id(group.pfc_priorities), plane, roce_prio)
        if key not in verdicts:
            verdicts[key] = _pfc_verdict(tuple(group.pfc_priorities or ()), roce_prio, ref[plane])
        verdict = verdicts[key]
        if verdict is not None:
            out += [finding([device], plane, f"{device} {iface.name} {verdict[0]}", verdict[1])
                    for iface in group.ports]
    return out


def _pfc_verdict(mine: tuple[int, ...], roce_prio: int | None, ref: tuple[int, ...]) -> tuple[str, str] | None:
    if not mine:
        return "has no PFC", "RoCE frames are dropped under congestion on this port instead of paused"
    if roce_prio is not None and roce_prio not in mine:
        return (f"has PFC on priority {list(mine)}, but RoCE uses priority {roce_prio}",
                "RoCE is lossy on this port and another class gets paused")
    if mine != ref:
        return (f"has PFC on {list(mine)}; the plane uses {list(ref)}",
                "mismatched PFC between link ends causes drops or head-of-line blocking")
    return None


@check("QOS-PFC-WATCHDOG", "a PFC watchdog watches every paused priority where the platform keeps one in the file "
       "(SONiC), and is not set to drop every lossless packet (its big red switch)", reads={BASE, TOPOLOGY})
def pfc_watchdog(ctx: Context) -> list[Finding]:
    """A port that pauses a priority without the watchdog on it: a NIC or switch stuck sending
    pauses stops that priority on the link for good, and the pause backs up hop by hop (a PFC storm);
    the watchdog drops or forwards the stuck queue instead. Rendered on every SONiC port with PFC."""
    out = []
    why = "a device stuck sending pauses stalls the lossless class on this link and, hop by hop, behind it"
    for name, dev in ctx.snap.devices.items():
        plane = ctx.device_plane.get(name) or ""
        if dev.qos.lossless_dropped:
            out.append(finding([name], plane, f"{ctx.snap.where(name, *dev.qos.lossless_dropped_at)}: "
                                              f"{dev.qos.lossless_dropped}",
                               "RoCE rides the lossless class: every RoCE packet through this switch is lost while "
                               "its BGP sessions and routes stay up"))
        for iface in dev.interfaces.values():
            if iface.pfc_watchdog is None or not iface.pfc_priorities:
                continue
            bare = sorted(set(iface.pfc_priorities) - set(iface.pfc_watchdog))
            if bare:
                out.append(finding([name], plane, f"{name} {iface.name} pauses priority {', '.join(map(str, bare))} "
                                   f"without the PFC watchdog ({iface.pfc_watchdog_note})", why))
    return out


@check("QOS-ECN", "ECN thresholds are valid (min < max) and identical on every port of a plane",
       reads={BASE, TOPOLOGY})
def ecn(ctx: Context) -> list[Finding]:
    out = []
    groups = ctx.port_groups
    sig = _ecn_sigs()
    ref = _plane_reference(groups, sig)
    roce = _roce_tcs(ctx)
    verdicts: dict[tuple[int, str, int | None], list[tuple[str, str]]] = {}
    for group in groups:
        plane, device = group.plane, group.device
        roce_tc, _ = roce(plane, device)
        key = (id(group.ecn), plane, roce_tc)
        if key not in verdicts:
            verdicts[key] = _ecn_verdicts(group.ecn, sig(group), roce_tc, ref[plane])
        out += [finding([device], plane, f"{device} {iface.name} {message}", why)
                for iface in group.ports for message, why in verdicts[key]]
    return out


def _ecn_verdicts(profiles: dict[int, EcnProfile] | None, mine: Any, roce_tc: int | None,
                  ref: Any) -> list[tuple[str, str]]:
    if profiles is None or (roce_tc is not None and roce_tc not in profiles):
        return [(f"does not ECN-mark the RoCE traffic class {roce_tc}",
                 "DCQCN never slows senders down: queues fill until PFC storms")]
    bad = [(f"TC{tc} ECN min {e.min_bytes} >= max {e.max_bytes}",
            "the marking ramp is inverted: ECN marks everything or nothing")
           for tc, e in profiles.items() if e.min_bytes >= e.max_bytes]
    if roce_tc is not None and profiles[roce_tc].drops:
        bad.append((f"TC{roce_tc} (RoCE) early-drops what it cannot ECN-mark (RED on)",
                    "RoCE packets that are not ECN-capable are dropped on the lossless class: go-back-N "
                    "retransmissions stall the job"))
    if not bad and mine != ref:
        return [(f"ECN {mine} differs from the plane's {ref}", "uneven marking makes congestion control unfair across paths")]
    return bad


@check("QOS-MTU", "every port of a plane, and both ends of every link, have the same MTU",
       reads={BASE, TOPOLOGY})
def mtu(ctx: Context) -> list[Finding]:
    out = []
    groups = ctx.port_groups
    ref = _plane_reference(groups, lambda g: g.mtu)
    for group in groups:
        plane, device = group.plane, group.device
        if group.mtu != ref[plane]:
            out += [finding([device], plane, f"{device} {iface.name} MTU {iface.mtu}"
                            f"{_mtu_source(ctx, device, iface.name)}; the plane uses {ref[plane]}",
                            "a smaller MTU on the path drops RoCE frames (no fragmentation)")
                    for iface in group.ports]
    cables = ctx.cables
    for i, (a_port, b_port) in enumerate(zip(cables.a, cables.b)):
        a = a_port.mtu if a_port is not None else None
        b = b_port.mtu if b_port is not None else None
        if a is not None and b is not None and a != b:
            row = cables.plan[i]
            out.append(finding([row["a_device"], row["b_device"]], row["plane"],
                               f"{row['a_device']}:{row['a_port']} MTU {a}"
                               f"{_mtu_source(ctx, row['a_device'], row['a_port'])} vs {row['b_device']}:"
                               f"{row['b_port']} MTU {b}{_mtu_source(ctx, row['b_device'], row['b_port'])}",
                               "frames larger than the smaller end are dropped"))
    return out


def _mtu_source(ctx: Context, device: str, port: str) -> str:
    """Where a switch port's MTU comes from when no line sets it (the platform's default)."""
    dev = ctx.snap.devices.get(device)
    said = dev.default_mtu.get(port) if dev is not None else None
    return f" ({ctx.snap.where(device, said)} sets none: the platform's default)" if said else ""


@check("QOS-CNP", "CNPs have their own class: not paused by PFC, not shared with RoCE data, strict priority",
       reads={BASE, TOPOLOGY})
def cnp(ctx: Context) -> list[Finding]:
    out = []
    roce = _roce_tcs(ctx)
    for group in ctx.port_groups:
        plane, device = group.plane, group.device
        cnp_markers = ctx.snap.manifest.qos_markers.get(plane)
        dscp = cnp_markers.cnp_dscp if cnp_markers else None
        if dscp is None:
            continue
        dev = ctx.snap.devices[device]
        tc, prio = dev.qos.tc_of(dscp), dev.qos.priority_of(dscp)
        roce_tc, _ = roce(plane, device)
        if tc is None:
            out.append(finding([device], plane, f"{device} has no class for CNP DSCP {dscp}",
                               "CNPs queue behind data: congestion feedback arrives late"))
            break
        if (prio is not None and prio in (group.pfc_priorities or [])) or tc == roce_tc:
            out += [finding([device], plane, f"{device} {iface.name}: CNP (DSCP {dscp}) is on the "
                            f"lossless class (TC{tc}, priority {prio})",
                            "CNPs get paused with the data they are meant to slow down")
                    for iface in group.ports]
            continue
        # the scheduler: the CNP class goes first on every port (strict priority)
        queued = [iface.name for iface in group.ports if tc not in iface.strict_tcs]
        if queued:
            out.append(finding([device], plane, f"{device}: CNP class TC{tc} is not strict priority on "
                               f"{_ports_phrase(queued)}",
                               "CNPs wait their weighted turn behind data: DCQCN slows the senders late"))
    return out


@check("QOS-SCHEDULER", "the RoCE class gets its planned share of every port under contention (DWRR), never "
       "strict priority", reads={BASE, TOPOLOGY})
def scheduler(ctx: Context) -> list[Finding]:
    """Per port, the RoCE traffic class's DWRR share (each parser turns its platform's weights or
    percents into a share) against the plan's roce_bandwidth_percent (within a point: weights are
    rounded); strict priority for RoCE starves every other class, including BGP's; a rate limit
    (shaping) below the planned share caps RoCE even on an idle link."""
    out = []
    roce = _roce_tcs(ctx)
    markers = ctx.snap.manifest.qos_markers
    for group in ctx.port_groups:
        plane, device = group.plane, group.device
        planned = markers[plane].roce_bandwidth_percent if plane in markers else None
        roce_tc, _ = roce(plane, device)
        if planned is None or roce_tc is None:
            continue
        why_share = ("RoCE gets another share of the link than the plan sizes the fabric for: collectives slow "
                     "down when the link is shared, or starve the other classes")
        why_strict = "strict RoCE starves every other class (BGP keepalives included)"
        why_shape = "RoCE never gets more than that, even on an idle link: collectives run at that rate at best"
        wrong: dict[tuple[str, str], list[str]] = {}  # (what the port does, why it matters) -> its ports
        shapes = ctx.snap.devices[device].qos.shape_percent
        for iface in group.ports:
            share = iface.dwrr_share.get(roce_tc) if iface.dwrr_share else None
            said: tuple[str, str]
            caps = [c for c in (shaped.get(roce_tc), shaped.get(None)) if c is not None] \
                if shapes and (shaped := shapes.get(iface.name)) else None
            cap = min(caps) if caps else None
            if cap is not None and cap < planned:
                said = (f"shapes the RoCE class TC{roce_tc} to {cap}% of the port", why_shape)
            elif roce_tc in iface.strict_tcs:
                said = (f"puts the RoCE class TC{roce_tc} in strict priority", why_strict)
            elif share is None:
                said = (f"gives the RoCE class TC{roce_tc} no DWRR share (the platform's default scheduling)", why_share)
            elif abs(share - planned) > 1:
                said = (f"gives the RoCE class TC{roce_tc} {share}% under contention", why_share)
            else:
                continue
            wrong.setdefault(said, []).append(iface.name)
        for (what, why), ports in wrong.items():
            out.append(finding([device], plane, f"{device} {what} on {_ports_phrase(ports)}; the plan gives it "
                               f"{planned}%", why))
    return out


def _ports_phrase(ports: list[str]) -> str:
    """"N port(s) (the first four ...)": how a per-port QoS finding names its ports."""
    return f"{len(ports)} port(s) ({', '.join(ports[:4])}{' ...' if len(ports) > 4 else ''})"


@check("QOS-PFC-HEADROOM", "every PFC port keeps at least the planned headroom, sized for at least the planned cable",
       reads={BASE, TOPOLOGY})
def pfc_headroom(ctx: Context) -> list[Finding]:
    """A port that pauses its peer must still absorb what is in flight until the pause takes effect:
    less headroom (xoff) than the plan, or a headroom sized for a shorter cable, drops lossless
    frames. More than planned only costs buffer. What a platform sizes itself is not judged."""
    out = []
    markers = ctx.snap.manifest.qos_markers
    for group in ctx.port_groups:
        plane, device = group.plane, group.device
        plan = markers.get(plane)
        if plan is None or not group.pfc_priorities:
            continue
        short: dict[str, list[str]] = {}
        for iface in group.ports:
            room = iface.pfc_headroom
            if room is None:
                continue
            if plan.pfc_xoff_bytes is not None and room.xoff_bytes is not None and room.xoff_bytes < plan.pfc_xoff_bytes:
                short.setdefault(f"keeps {room.xoff_bytes} bytes of PFC headroom, the plan {plan.pfc_xoff_bytes}",
                                 []).append(iface.name)
            if plan.pfc_cable_length_m is not None and room.cable_m is not None \
                    and room.cable_m < plan.pfc_cable_length_m:
                short.setdefault(f"sizes its PFC headroom for {room.cable_m} m of cable, the plan for "
                                 f"{plan.pfc_cable_length_m} m", []).append(iface.name)
        for said, ports in short.items():
            out.append(finding([device], plane, f"{device} {said} on {_ports_phrase(ports)}", "frames still in "
                               "flight when the pause reaches the peer overflow the buffer: the lossless class drops RoCE"))
    return out


@check("QOS-DEFAULT-CLASS", "traffic no DSCP rule names lands outside the lossless (PFC) and CNP classes",
       reads={BASE, TOPOLOGY})
def default_class(ctx: Context) -> list[Finding]:
    """A device-wide setting (Cumulus traffic.port_default_priority), judged against the PFC
    priorities of the device's ports: one finding per device."""
    out = []
    markers = ctx.snap.manifest.qos_markers
    judged: set[str] = set()
    for group in ctx.port_groups:
        dev = ctx.snap.devices[group.device]
        default = dev.qos.default_priority
        if default is None or group.device in judged:
            continue
        cnp = markers[group.plane].cnp_dscp if group.plane in markers else None
        cnp_prio = dev.qos.priority_of(cnp) if cnp is not None else None
        lossless = default in (group.pfc_priorities or ())
        if not lossless and default != cnp_prio:
            continue
        judged.add(group.device)
        where = ctx.snap.where(group.device, "qos_features.conf", dev.qos.default_priority_line)
        out.append(finding([group.device], group.plane, f"{where}: {group.device} gives unmarked traffic priority "
                           f"{default}, the {'lossless RoCE' if lossless else 'CNP'} class's",
                           "every packet without a DSCP rule (BGP, TCP, storage) shares the class: it is paused with "
                           "RoCE and spreads PFC pauses" if lossless else
                           "everything unmarked jumps ahead of data as CNPs do, and delays real CNPs"))
    return out


@check("QOS-PLANE-SYMMETRY", "both planes run the same RoCE QoS (DSCP map, PFC, ECN, MTU)",
       reads={BASE, TOPOLOGY})
def plane_symmetry(ctx: Context) -> list[Finding]:
    groups = ctx.port_groups
    ecn_sig = _ecn_sigs()
    devices = ctx.snap.devices
    # ports counted per distinct (plane, device, PFC list, ECN dict, MTU); the aspects' majorities
    # are then summed from those few keys, in first-seen order like a Counter over the ports
    seen: Counter[tuple[str, str, int, int, int | None]] = Counter()
    pfc_lists: dict[int, list[int] | None] = {}
    ecn_groups: dict[int, PortGroup] = {}  # a group holding that ECN dict (what ecn_sig reads)
    for group in groups:
        seen[(group.plane, group.device, id(group.pfc_priorities), id(group.ecn), group.mtu)] += len(group.ports)
        pfc_lists.setdefault(id(group.pfc_priorities), group.pfc_priorities)
        ecn_groups.setdefault(id(group.ecn), group)

    # every DSCP some switch maps, or the plan marks (as _dscp_sig compares them)
    marks = frozenset(d for m in ctx.snap.manifest.qos_markers.values() for d in (m.roce_dscp, m.cnp_dscp)
                      if d is not None)
    named = sorted({d for dev in devices.values() for d in dev.qos.dscp_to_tc} | marks)

    @cache
    def dscp_sig(device: str) -> tuple[tuple[int, int], ...]:
        return _dscp_sig(devices[device].qos, named, marks)[0]

    counts: dict[str, list[Counter[Any]]] = {}
    for (plane, device, pfc_id, ecn_id, mtu), n in seen.items():
        aspects = counts.setdefault(plane, [Counter(), Counter(), Counter(), Counter()])
        aspects[0][dscp_sig(device)] += n
        aspects[1][tuple(pfc_lists[pfc_id] or ())] += n
        aspects[2][ecn_sig(ecn_groups[ecn_id])] += n
        aspects[3][mtu] += n
    sig = {plane: [c.most_common(1)[0][0] for c in aspects] for plane, aspects in counts.items()}
    out = []
    planes = sorted(sig)
    names = ("DSCP map", "PFC priorities", "ECN", "MTU")
    for other in planes[1:]:
        for label, a, b in zip(names, sig[planes[0]], sig[other]):
            if a != b:
                out.append(finding([], "", f"{label}: plane {planes[0]} {a} vs plane {other} {b}",
                                   "a plane that behaves differently cannot take the other's load like for like"))
    return out


@check("QOS-TRUST", "every switch of a plane classifies by DSCP (the RoCE and CNP markings)",
       reads={BASE, TOPOLOGY})
def trust(ctx: Context) -> list[Finding]:
    """Cumulus decides trust for the whole switch (``traffic.packet_priority_source_set``; switchd's
    default when absent is the 802.1p PCP), EOS per port (``qos trust``; a routed port trusts DSCP by
    default)."""
    out = []
    why = "RoCE and CNPs are marked in DSCP; a switch that classifies by anything else puts them in the wrong class"
    for name, dev in ctx.snap.devices.items():
        plane = ctx.device_plane.get(name) or ""
        if dev.platform == "cumulus" and dev.qos.trust != "dscp":
            said = dev.qos.trust or "nothing (switchd's default: pcp)"
            out.append(finding([name], plane, f"{name} qos_features.conf: traffic.packet_priority_source_set is "
                                              f"{said}, not [dscp]", why))
        for iface in dev.interfaces.values():
            if iface.trust == UNTRUSTED:
                out.append(finding([name], plane, f"{name} {iface.name}: `no qos trust`: the port trusts no marking "
                                                  "(every packet in traffic class 0), not dscp", why))
            elif iface.trust not in (None, "dscp"):
                out.append(finding([name], plane, f"{name} {iface.name}: qos trust {iface.trust}, not dscp", why))
    return out
