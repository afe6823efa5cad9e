"""Routing outcome: what each plane's control plane ends with (verify/controlplane.py) against what
the plan says it must be. Every planned prefix at every switch of its plane, over every planned
equal-cost next hop; sessions that are configured but carry nothing; references to names nobody
defined; `network` statements that advertise nothing. Each finding names the config line that causes
it (file:line)."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from dualrail_net.verify.checks import Context, ROUTING, SESSIONS, TOPOLOGY, check, finding, running
from dualrail_net.verify.controlplane import (
    GRACEFUL_SHUTDOWN_SEQ,
    _or,
    MAX_MED_SEQ,
    NEIGHBOR_WEIGHT_SEQ,
    PlaneControl,
    PlanePlan,
    SessionState,
    acl_permits,
    diversions,
    static_at,
    compute_plane,
    connected,
    expected_plane,
    external_peers,
    bgp_distance,
    fib_restricted,
    instance_of,
    kept_out_of_fib,
    maximum_paths,
    offered_hold_time,
    remove_private_word,
    sends_communities,
    planned_prefixes,
    static_in_rib,
)
from dualrail_net.verify.nopolicy import policy_stops
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.ipfast import dotted, ip_int, net_str, network_of
from dualrail_net.verify.model import (
    ACCESS_LIST_PREFIX,
    DeviceConfig,
    Interface,
    RouteMapEntry,
    filter_clause,
    list_label,
)
from dualrail_net.verify.routes import (
    PrefixIndex,
    _route_map_mask,
    bits,
    explain_prefix_list,
    explain_route_map,
    has_flow,
    prefix_list_mask,
    route_map_communities,
    route_map_outcome,
)
from dualrail_net.resolve.model import BGP_TIMERS
from dualrail_net.verify.topology import NodeId

MAX_FINDINGS = 50  # per check and plane; a summary finding says how many more


@dataclass
class PlaneView:
    control: PlaneControl
    plan: PlanePlan
    node: dict[str, NodeId | None]  # planned device -> its routing instance in the plane
    sessions: dict[frozenset[NodeId], list[SessionState]]  # parallel links: a session each


def plane_view(ctx: Context, plane: str) -> PlaneView:
    control = compute_plane(ctx.snap, ctx.topo, plane, planned_prefixes(ctx.snap, plane))
    plan = ctx.plans.get(plane)
    if plan is None:
        # the planned prefixes are the index's first bits (compute_plane adds them first), so the
        # plan computed over planned_bits alone (as partitioned.py does early) is this one
        plan = expected_plane(ctx.snap, plane, {p: i for i, p in enumerate(control.index.prefixes)})
    node = {name: instance_of(ctx.topo, ctx.snap, name, plane) for name in plan.nodes}
    sessions: dict[frozenset[NodeId], list[SessionState]] = {}
    for st in control.sessions:
        sessions.setdefault(frozenset((st.session.a, st.session.b)), []).append(st)
    return PlaneView(control, plan, node, sessions)


PlaneCheck = Callable[[Context, PlaneView], list[Finding]]
PER_PLANE: dict[str, PlaneCheck] = {}  # check id -> its body for one plane, in registry order


def plane_findings(ctx: Context, view: PlaneView) -> dict[str, list[Finding]]:
    out = {}
    for check_id, body in PER_PLANE.items():
        with running(check_id):
            out[check_id] = body(ctx, view)
    return out


def routing_findings(ctx: Context) -> dict[str, list[Finding]]:
    """Every per-plane routing check's findings, plane by plane in the snapshot's order.

    One plane after the other in this process, never in forked children: a forked child of the
    parsed folder shares its pages, and every object either process then reads (its reference
    count is written) copies the page it is on; at 100k GPUs those copies cost more than the
    second core gives back (docs/performance.md, nineteenth session)."""
    merged: dict[str, list[Finding]] = {check_id: [] for check_id in PER_PLANE}
    for plane in ctx.snap.planes:
        for check_id, found in plane_findings(ctx, plane_view(ctx, plane)).items():
            merged[check_id] += found
    return merged


def per_plane(check_id: str, title: str) -> Callable[[PlaneCheck], PlaneCheck]:
    """Register a routing check computed plane by plane (over the shared control-plane model)."""
    def wrap(body: PlaneCheck) -> PlaneCheck:
        PER_PLANE[check_id] = body

        def run(ctx: Context) -> list[Finding]:
            return ctx.memo(routing_findings)[check_id]
        run.__name__ = body.__name__
        check(check_id, title, reads={ROUTING, SESSIONS, TOPOLOGY})(run)
        return body
    return wrap


def _label(node: NodeId) -> str:
    return f"{node[0]}{' VRF ' + node[1] if node[1] else ''}"


def _loc(ctx: Context, device: str, line: int) -> str:
    return ctx.snap.where(device, ctx.snap.devices[device].routing_file, line)


def edge_reason(ctx: Context, view: PlaneView, sender: NodeId | None, receiver: NodeId, bit: int,
                sender_name: str, links: int = 1) -> str:
    """Why ``receiver`` has no route for prefix ``bit`` over ``sender`` (first cause on the way), or
    with ``links`` planned parallel links, over fewer of them than planned."""
    control = view.control
    prefix = control.index.prefixes[bit]
    if sender is None:
        return f"{sender_name} runs no BGP in plane {control.plane}"
    states = view.sessions.get(frozenset((sender, receiver)), [])
    if not states:
        for node in (sender, receiver):
            dev = ctx.snap.devices[node[0]]
            inst = dev.bgp.get(node[1])
            if inst is not None and inst.shutdown_line:
                return f"{_loc(ctx, node[0], inst.shutdown_line)}: BGP is shut down on {_label(node)}"
        return f"no BGP session is configured between {_label(sender)} and {_label(receiver)}"
    down = [st for st in states if not st.up]
    if down and (len(down) == len(states) or control.via(receiver, sender) >> bit & 1):
        return down[0].reason  # every session down, or a parallel one down while the others carry it
    if len(states) < links and control.via(receiver, sender) >> bit & 1:
        return (f"only {len(states)} of the {links} planned BGP sessions between {_label(sender)} and "
                f"{_label(receiver)} are configured (a session per cable; BGP-SESSION-MISSING names the cable)")
    state = next(st for st in states if st.up)
    if not control.reach.get(sender, 0) >> bit & 1:
        return f"{_label(sender)} has no route for it"
    if control.suppressed.get(sender, 0) >> bit & 1:
        inst = ctx.snap.devices[sender[0]].bgp[sender[1]]
        agg = next((a for a in inst.aggregates if a.summary_only), None)
        line = agg.line if agg else 0
        return f"{_loc(ctx, sender[0], line)}: {_label(sender)} advertises only the aggregate (summary-only)"
    if not (control.edge_mask(sender, receiver) or 0) >> bit & 1:
        unusable = control.next_hop_unusable(sender, receiver, bit)
        if unusable:
            return unusable
        reasons = [_policy_reason(ctx, st, sender, receiver, prefix) for st in states if st.up]
        return next((r for r in reasons if r != NO_POLICY_REASON), reasons[0])
    path_denied = control.path_denied.get((sender, receiver), {}).get(bit)
    if path_denied is not None:
        device, line, why = path_denied
        return f"{_loc(ctx, device, line)}: {why}"
    outranked, setters = control.outranked(sender, receiver)
    if outranked >> bit & 1:
        return (f"{_label(receiver)} prefers other paths: {_attribute_lines(ctx, control, receiver, setters)} "
                f"(weight and local preference outrank the AS path; MED decides between one AS's paths)")
    if control.loop_dropped(sender, receiver) >> bit & 1:
        asn = ctx.snap.devices[receiver[0]].bgp[receiver[1]].asn
        return (f"{_loc(ctx, receiver[0], ctx.snap.devices[receiver[0]].bgp[receiver[1]].line)}: AS {asn} of "
                f"{_label(receiver)} is already in the path {_label(sender)} offers (another device has the same ASN): "
                "eBGP loop prevention drops it")
    shorter = next(((other, into, at) for (other, into), at in control.stripped.items()
                    if into == receiver and other != sender and control.via(receiver, other) >> bit & 1), None)
    # or one hop up: the next hop the receiver installs instead took the stripped paths itself
    shorter = shorter or next(((other, into, at) for (other, into), at in control.stripped.items()
                               if into not in (receiver, sender) and control.via(receiver, into) >> bit & 1
                               and control.via(into, other) >> bit & 1), None)
    if shorter is not None and (sender, receiver) not in control.stripped:
        other, into, (device, line) = shorter
        word = remove_private_word(ctx.snap.devices[device].platform)
        said = "they arrive one AS long" if into == receiver else f"the paths through {_label(into)} are shorter"
        return (f"{_loc(ctx, device, line)}: {_label(other)} strips the private ASNs from the paths it sends "
                f"{_label(into)} (`{word}`): {said}, so the path over {_label(sender)} is longer and not installed")
    hop = _prepending_hop(control, sender, receiver, bit)
    if hop is not None:
        up_sender, up_receiver, extra = hop
        up_state = next(iter(view.sessions.get(frozenset((up_sender, up_receiver)), [])), None)
        if up_state is not None:
            said = _prepend_reason(ctx, up_state, up_sender, up_receiver, prefix, extra)
            return (f"{said}, so the path over {_label(sender)} is longer than the best and is not installed "
                    "(a drain left in place?)")
    dev = ctx.snap.devices[receiver[0]]
    inst = dev.bgp[receiver[1]]
    if control.origin.get(receiver, 0) >> bit & 1:
        return (f"{_label(receiver)} originates it itself (a network statement or a redistributed route): its "
                "own route wins over every path its neighbors offer")
    width = control.width(receiver, bit)
    cap = maximum_paths(dev, inst)
    if width >= cap:
        said = (f"{_loc(ctx, receiver[0], inst.maximum_paths_line)}: maximum-paths {cap}" if inst.maximum_paths
                else f"the {dev.platform} default maximum-paths {cap} (no maximum-paths configured)")
        return f"{_label(receiver)} installs at most {cap} paths ({said})"
    if not inst.multipath_relax:
        return (f"{_loc(ctx, receiver[0], inst.line)}: {_label(receiver)} has equal paths from neighbors in "
                "different ASNs and no `bgp bestpath as-path multipath-relax`: only the best path's AS is installed")
    return f"{_label(sender)} offers it over a longer AS path only"


def _attribute_lines(ctx: Context, control: PlaneControl, receiver: NodeId, entries: list[RouteMapEntry]) -> str:
    """Where each route-map entry that sets a best-path attribute is (the receiver's or a sender's)."""
    said = []
    devices = [receiver[0]] + [s[0] for s in control.senders(receiver)]
    for entry in entries[:3]:
        if entry.seq == NEIGHBOR_WEIGHT_SEQ:  # the receiver's own `neighbor X weight N`
            said.append(f"{_loc(ctx, receiver[0], entry.line)}: {receiver[0]} gives a neighbor weight {entry.weight}")
            continue
        if entry.seq == MAX_MED_SEQ:  # a sender's `bgp max-med administrative`
            device = next((d for d in devices[1:] if any(i.max_med_line == entry.line and i.max_med == entry.med
                                                         for i in ctx.snap.devices[d].bgp.values())), receiver[0])
            said.append(f"{_loc(ctx, device, entry.line)}: {device} is in `bgp max-med administrative`: every "
                        f"route it sends carries MED {entry.med}")
            continue
        if entry.seq == GRACEFUL_SHUTDOWN_SEQ:
            device = next((d for d, e in control.graceful if e is entry), receiver[0])
            said.append(f"{_loc(ctx, device, entry.line)}: {device} is in `bgp graceful-shutdown`: the routes it "
                        f"sends or takes carry the GRACEFUL_SHUTDOWN community, and {receiver[0]} gives them local "
                        "preference 0")
            continue
        owner = next((d for d in devices if any(entry is e for es in ctx.snap.devices[d].route_maps.values()
                                                  for e in es)), receiver[0])
        name = next((n for n, es in ctx.snap.devices[owner].route_maps.items() if any(entry is e for e in es)), "?")
        for attribute, line in entry.attribute_lines.items():
            value = {"local-preference": entry.local_pref, "weight": entry.weight, "metric": entry.med}[attribute]
            said.append(f"{_loc(ctx, owner, line)}: {owner} route-map {name} sets {attribute} {value}")
    inst = ctx.snap.devices[receiver[0]].bgp.get(receiver[1])
    if inst is not None and inst.med_missing_as_worst_line and any(e.med is not None for e in entries):
        said.append(f"{_loc(ctx, receiver[0], inst.med_missing_as_worst_line)}: {receiver[0]} takes a path without "
                    "a MED as the worst (`bgp bestpath med missing-as-worst`)")
    return "; ".join(said) or "a route-map sets a best-path attribute"


def _policy_reason(ctx: Context, state: SessionState, sender: NodeId, receiver: NodeId, prefix: str) -> str:
    s = state.session
    out_ip = s.a_neighbor if s.a == sender else s.b_neighbor
    in_ip = s.b_neighbor if s.a == sender else s.a_neighbor
    src_dev, dst_dev = ctx.snap.devices[sender[0]], ctx.snap.devices[receiver[0]]
    out_nbr = src_dev.bgp[sender[1]].neighbors[out_ip]
    in_nbr = dst_dev.bgp[receiver[1]].neighbors[in_ip]
    for dev, node, nbr, name, direction in ((src_dev, sender, out_nbr, out_nbr.route_map_out, "out"),
                                            (dst_dev, receiver, in_nbr, in_nbr.route_map_in, "in")):
        plist = nbr.prefix_list_out if direction == "out" else nbr.prefix_list_in
        if plist is not None:  # applied before the route-map
            permitted, line, why = explain_prefix_list(dev, plist, prefix)
            if not permitted:
                return (f"{_loc(ctx, node[0], nbr.prefix_list_lines.get(direction) or nbr.line)}: {_label(node)} "
                        f"neighbor {nbr.address} {filter_clause(plist)} {direction}: {why}"
                        + (f" (line {line})" if line else ""))
        path_filter = nbr.filter_list_out if direction == "out" else nbr.filter_list_in
        if path_filter is not None and path_filter not in dev.as_path_lists:
            at = getattr(nbr, f"filter_list_{direction}_line") or nbr.line
            return (f"{_loc(ctx, node[0], at)}: {_label(node)} "
                    f"neighbor {nbr.address} filter-list {path_filter} {direction}: the AS-path list is not "
                    "defined (an undefined list denies everything)")
        stopped = policy_stops(dev, dev.bgp[node[1]], nbr, direction, s.a_asn != s.b_asn)
        if stopped is not None:
            return f"{_loc(ctx, node[0], stopped.line)}: {_label(node)} neighbor {nbr.address} {stopped.why}"
        if name is None:
            continue
        permitted, line, why = explain_route_map(dev, name, prefix)
        if not permitted:
            return f"{_loc(ctx, node[0], line or nbr.line)}: {_label(node)} {direction}bound: {why}"
    return NO_POLICY_REASON


NO_POLICY_REASON = "a route-map drops it"


def _prepending_hop(control: PlaneControl, sender: NodeId, receiver: NodeId,
                    bit: int) -> tuple[NodeId, NodeId, int] | None:
    """The session on the way to ``receiver`` through ``sender`` whose route-maps lengthen prefix
    ``bit``'s path (this one, or one upstream along the sender's installed paths), with how many AS
    hops it adds; None: no prepend on the way."""
    extra = control.prepended(sender, receiver, bit)
    if extra:
        return sender, receiver, extra
    node, seen = sender, {receiver}
    while node not in seen and len(seen) < 64:
        seen.add(node)
        upstream = [s for s, bits_ in control.senders(node).items() if bits_ >> bit & 1]
        for s in upstream:
            extra = control.prepended(s, node, bit)
            if extra:
                return s, node, extra
        if not upstream:
            return None
        node = upstream[0]
    return None


def _prepend_reason(ctx: Context, state: SessionState, sender: NodeId, receiver: NodeId, prefix: str,
                    extra: int) -> str:
    """The route-map lines (and `local-as` statements) that make a session's path longer than the
    planned equal-cost ones."""
    s = state.session
    out_ip = s.a_neighbor if s.a == sender else s.b_neighbor
    in_ip = s.b_neighbor if s.a == sender else s.a_neighbor
    said = []
    for node, ip, direction in ((sender, out_ip, "out"), (receiver, in_ip, "in")):
        dev = ctx.snap.devices[node[0]]
        nbr = dev.bgp[node[1]].neighbors[ip]
        if nbr.local_as is not None and not (nbr.local_as_replace if direction == "out" else nbr.local_as_no_prepend):
            said.append(f"{_loc(ctx, node[0], nbr.local_as_line)}: {_label(node)} presents local-as {nbr.local_as} "
                        f"to {ip} and puts it in front of what it {'sends' if direction == 'out' else 'takes in'}")
        name = nbr.route_map_out if direction == "out" else nbr.route_map_in
        if name is None:
            continue
        permitted, entry, _, _ = route_map_outcome(dev, name, prefix)
        if permitted and entry is not None and entry.prepend:
            said.append(f"{_loc(ctx, node[0], entry.prepend_line)}: route-map {name} {entry.seq} ({direction}bound on "
                        f"{_label(node)}) prepends {' '.join(map(str, entry.prepend))}")
    return (f"{'; '.join(said) or 'a route-map prepends to the AS path'}: {extra} more AS hop(s) from "
            f"{_label(sender)} to {_label(receiver)}")


def _origin_reason(ctx: Context, view: PlaneView, origin_name: str, bit: int) -> str:
    control = view.control
    prefix = control.index.prefixes[bit]
    node = view.node.get(origin_name)
    if node is None:
        return f"{origin_name} runs no BGP in plane {control.plane}"
    if control.origin.get(node, 0) >> bit & 1:
        return ""
    inst = ctx.snap.devices[node[0]].bgp[node[1]]
    for dead_node, net, line in control.dead_networks:
        if dead_node == node and network_of(net) == network_of(prefix):
            return (f"{_loc(ctx, node[0], line)}: network {net} has no matching route in {_label(node)}'s RIB "
                    "(no connected subnet or usable static route), so BGP does not advertise it")
    for held_node, net, line, why in control.withheld_networks:
        if held_node == node and network_of(net) == network_of(prefix):
            return f"{_loc(ctx, node[0], line)}: {why}, so BGP does not advertise it"
    return (f"{_loc(ctx, node[0], inst.line)}: {_label(node)} does not originate it "
            "(no `network` statement or redistribution covers it)")


@per_plane("ROUTE-MISSING", "every planned prefix is in the BGP RIB of every switch of its plane")
def route_missing(ctx: Context, view: PlaneView) -> list[Finding]:
    out: list[Finding] = []
    why = "a switch without the route blackholes the traffic to it: the servers behind it are cut off"
    plan, control = view.plan, view.control
    prefixes = control.index.prefixes
    missing: dict[int, list[str]] = defaultdict(list)
    no_instance = []
    for name in plan.nodes:
        node = view.node[name]
        want = plan.reach.get(name, 0)
        if not want:
            continue
        if node is None:
            no_instance.append(name)
            continue
        for bit in bits(want & ~control.reach.get(node, 0)):
            missing[bit].append(name)
    for name in no_instance:
        out.append(finding([name], control.plane, f"{name} runs no BGP instance in plane {control.plane}: "
                                                  f"it has none of the plane's {bin(plan.reach[name]).count('1')} "
                                                  "planned prefixes", why))
    origin_of = {bit: name for name, o in plan.origin.items() for bit in bits(o)}
    for count, (bit, names) in enumerate(sorted(missing.items())):
        if count == MAX_FINDINGS:
            out.append(finding([], control.plane, f"... and {len(missing) - MAX_FINDINGS} more missing "
                                                  f"prefixes in plane {control.plane}", why))
            break
        origin = origin_of.get(bit, "")
        reason = _origin_reason(ctx, view, origin, bit) if origin else ""
        if not reason:
            reason = _first_hop_reason(ctx, view, names, bit)
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        out.append(finding(sorted(set(names + ([origin] if origin else []))), control.plane,
                           f"plane {control.plane}: {prefixes[bit]} (originated by {origin or '?'}) is missing on "
                           f"{len(names)} of {len(plan.nodes)} switches ({shown}): {reason}", why))
    return out


def _first_hop_reason(ctx: Context, view: PlaneView, names: list[str], bit: int) -> str:
    """Among the devices missing a prefix, one whose planned upstream has it: why that hop loses it."""
    control, plan = view.control, view.plan
    plan_number = {name: i for i, name in enumerate(plan.nodes)}
    reasons = []
    for name in names:
        receiver = view.node[name]
        assert receiver is not None
        inbound = plan.via_in[plan_number[name]]
        for src_number, expected in inbound.items():
            src = plan.nodes[src_number]
            if not expected >> bit & 1:
                continue
            sender = view.node.get(src)
            if sender is not None and not control.reach.get(sender, 0) >> bit & 1:
                continue  # the sender lacks it too: the cause is further up
            reasons.append(edge_reason(ctx, view, sender, receiver, bit, src))
            break
        if len(reasons) >= 2:
            break
    return "; ".join(dict.fromkeys(reasons)) or "no planned neighbor has it"


@per_plane("ROUTE-ECMP-WIDTH", "every switch installs each planned prefix over every planned equal-cost next hop")
def route_ecmp_width(ctx: Context, view: PlaneView) -> list[Finding]:
    out: list[Finding] = []
    why = "each lost next hop is a share of the plane's bandwidth that sits idle while the rest congests"
    plan, control = view.plan, view.control
    prefixes = control.index.prefixes
    grouped: dict[tuple[str, str], tuple[int, list[str], int]] = {}
    for dst, src, expected, links in plan.links():
        receiver = view.node.get(dst)
        if receiver is None:
            continue  # ROUTE-MISSING reports a switch without BGP in the plane
        sender = view.node.get(src)
        lost = expected & control.reach.get(receiver, 0)
        moved_why = ""
        if sender is not None and lost:
            # over parallel links each session is a next hop: a prefix is short unless as many
            # sessions as planned links carry it
            if links == 1:
                carried, moved_why = control.fib_via(receiver, sender)
            else:
                carried = at_least(control.sessions_via(receiver, sender), links)
            lost ^= lost & carried
        if not lost:
            continue
        first = (lost & -lost).bit_length() - 1
        reason = moved_why or edge_reason(ctx, view, sender, receiver, first, src, links)
        key = (dst, reason)
        count, senders, example = grouped.get(key, (0, [], first))
        label = src
        if links > 1 and sender is not None:
            label = f"{src} ({sum(1 for m in control.sessions_via(receiver, sender) if m >> first & 1)} of {links} links)"
        grouped[key] = (count + lost.bit_count(), senders + [label], example)
        if len(grouped) > MAX_FINDINGS:
            break
    for (dst, reason), (count, senders, example) in grouped.items():
        out.append(finding(sorted({dst, *(s.split(" (")[0] for s in senders)}), control.plane,
                           f"{dst} installs {count} route(s) without next hop {', '.join(senders[:6])}"
                           f"{' and more' if len(senders) > 6 else ''} (plane {control.plane}, e.g. "
                           f"{prefixes[example]}): {reason}", why))
    return out


def at_least(masks: list[int], k: int) -> int:
    """The bits set in at least ``k`` of ``masks`` (k small: the parallel links of one pair)."""
    counts = [-1] + [0] * k  # counts[j]: bits seen in at least j masks so far
    for mask in masks:
        for j in range(k, 0, -1):
            counts[j] |= counts[j - 1] & mask
    return counts[k]


@per_plane("BGP-EXTERNAL-DOWN", "every planned external peering of a gateway comes up and brings its prefixes")
def external_down(ctx: Context, view: PlaneView) -> list[Finding]:
    why = "the plane loses what the peer brings (storage, the outside) on this gateway"
    return [finding([node[0]], view.control.plane, f"external peer {peer}: {reason}", why)
            for node, peer, reason in view.control.external_down]


@per_plane("BGP-EXTERNAL-EXPORT", "every planned external peer of a gateway is sent the plane's prefixes")
def external_export(ctx: Context, view: PlaneView) -> list[Finding]:
    """What a gateway sends each planned external peer whose session comes up: the routes it has
    (its BGP table) that the neighbor's outbound policy passes (prefix-list, then route-map; with
    ebgp-requires-policy on and neither, nothing). The plan has the peer reach the plane's own
    prefixes (everything the plane originates, other than what the external peers bring): what the
    gateway has and does not send cuts the outside (storage) off from it. A prefix the gateway
    lacks is ROUTE-MISSING's; a filter-list out (AS paths) is not judged here, and said so (a warning)."""
    out: list[Finding] = []
    control = view.control
    why = "the outside (storage) loses its routes to these addresses of the plane"
    index, full = control.index, (1 << len(control.index.prefixes)) - 1
    planned: int | None = None  # what the plan has the plane originate (worked out at its first gateway)
    for node in control.nodes:
        meta = ctx.snap.manifest.devices.get(node[0])
        if meta is None or not meta.external:
            continue
        if planned is None:
            planned = 0
            for origin in view.plan.origin.values():
                planned |= origin
        dev = ctx.snap.devices[node[0]]
        inst = dev.bgp[node[1]]
        brought = [index.bit(net_str(network_of(p))) for peer in meta.external.values() if peer.plane == control.plane
                   for p in peer.prefixes]
        held = (control.reach.get(node, 0) | control.origin.get(node, 0)) & planned \
            & ~sum(1 << bit for bit in set(brought) if bit is not None)
        for state in external_peers(ctx.snap, ctx.topo, node):
            n = inst.neighbors.get(state.address)
            if not state.established or n is None:
                continue
            peer = meta.external[state.address]
            if n.filter_list_out is not None:
                at = _loc(ctx, node[0], n.filter_list_out_line or n.line)
                if n.filter_list_out not in dev.as_path_lists:  # (an undefined list denies everything)
                    out.append(finding([node[0]], control.plane, f"{at}: {_label(node)} sends external peer "
                                       f"{peer.name} ({state.address}) nothing: filter-list {n.filter_list_out} out "
                                       "is not defined", why))
                else:  # (the paths a gateway sends out are not held here: said)
                    out.append(finding([node[0]], control.plane, f"{at}: filter-list {n.filter_list_out} out toward "
                                       f"external peer {peer.name} ({state.address}): what it keeps back is not "
                                       "judged", why, Severity.WARNING))
                continue
            stopped = policy_stops(dev, inst, n, "out", peer.asn != inst.asn)
            if stopped is not None:
                out.append(finding([node[0]], control.plane, f"{_loc(ctx, node[0], stopped.line)}: {_label(node)} "
                                   f"sends external peer {peer.name} ({state.address}) nothing: it {stopped.why}",
                                   why))
                continue
            # the bitset masks decide (the model's own evaluation), the plain reading names the cause
            sent = held & prefix_list_mask(dev, n.prefix_list_out, index, full, []) \
                & _route_map_mask(dev, n.route_map_out, index, full, {}, [])
            kept = held & ~sent
            if not kept:
                continue
            withheld = [index.prefixes[bit] for bit in bits(kept)]
            prefix = withheld[0]
            passed, line, verdict = (explain_prefix_list(dev, n.prefix_list_out, prefix)
                                     if n.prefix_list_out is not None else (True, 0, ""))
            said = f"prefix-list {n.prefix_list_out} out: {verdict}"
            if passed:
                _, line, verdict = explain_route_map(dev, n.route_map_out or "", prefix)
                said = f"route-map {n.route_map_out} out: {verdict}"
            out.append(finding([node[0]], control.plane,
                               f"{_loc(ctx, node[0], line or n.line)}: {_label(node)} does not send external peer "
                               f"{peer.name} ({state.address}) {len(withheld)} of the plane's {held.bit_count()} "
                               f"prefixes it has ({', '.join(withheld[:4])}{' and more' if len(withheld) > 4 else ''})"
                               f": {prefix}: {said}", why))
    return out


@per_plane("BGP-SESSION-DOWN", "every configured session comes up and carries IPv4 unicast")
def session_down(ctx: Context, view: PlaneView) -> list[Finding]:
    out: list[Finding] = []
    why = "a session that stays down or carries no IPv4 routes removes its link from the plane"
    for state in view.control.sessions:
        if state.up or "remote-as" in state.reason.split(": ", 1)[-1].split(" but ")[0]:
            continue  # a remote-as disagreement is BGP-PEER-MISMATCH's
        s = state.session
        out.append(finding([s.a[0], s.b[0]], view.control.plane,
                           f"session {_label(s.a)} - {_label(s.b)} carries no IPv4 routes: {state.reason}", why))
    return out


PLANNED_HOLD_TIME = BGP_TIMERS[1]


@per_plane("BGP-HOLD-TIME", f"every session that comes up runs keepalives and holds for at most the plan's "
           f"{PLANNED_HOLD_TIME} s (the smaller of its two ends' offers)")
def hold_time(ctx: Context, view: PlaneView) -> list[Finding]:
    """A link that dies without its carrier going down (a one-way fibre fault, a wedged line card)
    leaves the plane's paths only when BGP's hold time runs out; the hosts' QP patience is judged
    against the plan's (HOST-NCCL-TRANSPORT). RFC 4271 4.2: the session holds for the smaller of
    the two hold times offered in the OPENs; 0 turns keepalives off on both ends."""
    out: list[Finding] = []
    devices = ctx.snap.devices
    # what an instance offers every neighbor without its own timers (200k sessions a plane at 100k GPUs)
    instance_offer: dict[NodeId, tuple[int, int, str]] = {}
    for state in view.control.sessions:
        if not state.up:
            continue
        s = state.session
        offers = []
        for node, address in ((s.a, s.a_neighbor), (s.b, s.b_neighbor)):
            dev = devices[node[0]]
            inst = dev.bgp[node[1]]
            n = inst.neighbors[address]
            if n.timers is not None:
                hold, line, source = offered_hold_time(dev, inst, n)
            else:
                offer = instance_offer.get(node)
                if offer is None:
                    offer = instance_offer[node] = offered_hold_time(dev, inst, n)
                hold, line, source = offer
            offers.append((hold, node, line, source))
        hold = min(offers[0][0], offers[1][0])
        if 0 < hold <= PLANNED_HOLD_TIME:
            continue
        said = "; ".join(f"{_loc(ctx, node[0], line) + ': ' if line else ''}{node[0]} offers {offer} s ({source})"
                         for offer, node, line, source in offers)
        if hold == 0:
            message = f"session {_label(s.a)} - {_label(s.b)} runs without keepalives (hold time 0): {said}"
            why = ("a peer that falls silent is never declared dead: a link that dies without its carrier going "
                   "down keeps its routes, and ECMP keeps hashing flows onto it, until somebody notices")
        else:
            message = (f"session {_label(s.a)} - {_label(s.b)} holds for {hold} s, the plan's is "
                       f"{PLANNED_HOLD_TIME} s: {said}")
            why = (f"a link that dies without its carrier going down keeps attracting traffic for {hold} s; the "
                   f"hosts' QP patience is judged against {PLANNED_HOLD_TIME} s (HOST-NCCL-TRANSPORT)")
        out.append(finding([s.a[0], s.b[0]], view.control.plane, message, why))
    return out


@per_plane("BGP-COMMUNITY-STOP", "no route-map stops a plane's routes with a well-known community (no-export, "
           "no-advertise, local-AS) at a device that would pass them on")
def community_stop(ctx: Context, view: PlaneView) -> list[Finding]:
    """RFC 1997: a route carrying NO_EXPORT or NO_EXPORT_SUBCONFED (local-AS) is not advertised to
    eBGP peers, one carrying NO_ADVERTISE to no peer. A route-map's `set community` writes them:
    outbound only where the sender sends standard communities (bgpd does, EOS only with
    `send-community`), inbound at the receiver; a later `set community` without `additive` replaces
    them. Where the receiver holds a prefix only with such a community, the paths the model has it
    pass on do not exist (an error: the routes' further way is not followed by the RIB model); where
    it also holds a path without one, which is advertised depends on best-path tie-breaks (a warning)."""
    control = view.control
    nodes, n = control.nodes, len(control.nodes)
    devices = ctx.snap.devices
    idx = control.index
    full = (1 << len(idx.prefixes)) - 1
    undefined: list[tuple[str, str]] = []
    number = control.number
    # the devices with a `set community` of a stopping community (rare): only their maps are read
    writers = {node[0] for node in nodes if any(e.community_set for es in devices[node[0]].route_maps.values()
                                                for e in es)}
    if not writers:
        return []
    # (sender, receiver) -> word -> (prefixes, (device, line) of the first entry that writes it)
    tagged: dict[tuple[int, int], dict[str, tuple[int, tuple[str, int]]]] = {}
    for state in control.sessions:
        if not state.up:
            continue
        s = state.session
        a_dev, b_dev = devices[s.a[0]], devices[s.b[0]]
        a_nbr = a_dev.bgp[s.a[1]].neighbors[s.a_neighbor]
        b_nbr = b_dev.bgp[s.b[1]].neighbors[s.b_neighbor]
        for sender, receiver, src_dev, dst_dev, out_nbr, in_nbr in ((s.a, s.b, a_dev, b_dev, a_nbr, b_nbr),
                                                                   (s.b, s.a, b_dev, a_dev, b_nbr, a_nbr)):
            if src_dev.name not in writers and dst_dev.name not in writers:
                continue
            out_sets = route_map_communities(src_dev, out_nbr.route_map_out, idx, full, undefined) \
                if sends_communities(src_dev, out_nbr) else []
            in_sets = route_map_communities(dst_dev, in_nbr.route_map_in, idx, full, undefined)
            words: dict[str, tuple[int, tuple[str, int]]] = {}
            for device, sets, inbound in ((src_dev.name, out_sets, False), (dst_dev.name, in_sets, True)):
                for e, hit in sets:
                    assert e.community_set is not None
                    if inbound and not e.community_additive:  # replaces what the sender wrote
                        words = {w: (b & ~hit, at) for w, (b, at) in words.items()}
                    for word in e.community_set:
                        held, at = words.get(word, (0, (device, e.sets_community_line)))
                        words[word] = (held | hit, at)
            words = {w: v for w, v in words.items() if v[0]}
            if words:
                tagged[(number[sender], number[receiver])] = words
    if not tagged:
        return []
    base = [*range(n), *control.alias]  # a session number -> its sender's number
    asn = [devices[node[0]].bgp[node[1]].asn for node in nodes]
    receivers_of = {d for _, d in tagged}
    # tagged receiver -> peer -> what the model has the peer install through it (one pass over every
    # session; the originator and what loop prevention drops are not there)
    installed_through: dict[int, dict[int, int]] = {d: {} for d in receivers_of}
    for r, senders in enumerate(control.via_in):
        for k, b in senders.items():
            if base[k] in receivers_of and base[k] != r:
                into = installed_through[base[k]]
                into[r] = into.get(r, 0) | b
    out: list[Finding] = []
    for dst in sorted(receivers_of):
        held_tagged: dict[str, int] = {}
        untagged = 0
        first: dict[str, tuple[str, int]] = {}
        for session, prefixes in control.via_in[dst].items():
            words = tagged.get((base[session], dst), {})
            stopped = 0
            for word, (b, at) in words.items():
                if prefixes & b:
                    held_tagged[word] = held_tagged.get(word, 0) | prefixes & b
                    first.setdefault(word, at)
                    stopped |= prefixes & b
            untagged |= prefixes & ~stopped
        for word, held in sorted(held_tagged.items()):
            through = {r: b & held for r, b in installed_through[dst].items()
                       if word == "no-advertise" or asn[r] != asn[dst]}
            receivers = [r for r, b in through.items() if b]
            passed = _or(through[r] for r in receivers)
            if not passed:
                continue
            device, line = first[word]
            sure, unsure = passed & ~untagged, passed & untagged
            peers = sorted({nodes[r][0] for r in receivers})
            said = ", ".join(peers[:3]) + (f" and {len(peers) - 3} more" if len(peers) > 3 else "")
            where = f"{_loc(ctx, device, line)}: {device} sets community {word}"
            label = _label(nodes[dst])
            if sure:
                out.append(finding([device, nodes[dst][0]], control.plane,
                                   f"{where}: {label} holds {_count_prefixes(idx, sure)} only with it, so it passes "
                                   f"them to none of {said} (the model's paths through it do not exist)",
                                   "the plane's other devices lose every path through it: prefixes go missing or "
                                   "lose ECMP width (the RIB model does not follow the community further)"))
            if unsure:
                out.append(finding([device, nodes[dst][0]], control.plane,
                                   f"{where}: {label} holds {_count_prefixes(idx, unsure)} with it and without it: "
                                   f"whether it passes them to {said} depends on which path is its best (not "
                                   "modelled)", "a tie-break (the older path, the lower router-id) decides whether "
                                   "the paths through it exist", Severity.WARNING))
    return out


def _count_prefixes(idx: PrefixIndex, mask: int) -> str:
    found = bits(mask)
    return f"{idx.prefixes[found[0]]}" + (f" and {len(found) - 1} more prefix(es)" if len(found) > 1 else "")


@per_plane("BGP-PREFIX-LIMIT", "no session receives more prefixes than its receiver's limit (maximum-prefix, "
           "maximum-routes, EOS maximum-accepted-routes)")
def prefix_limit(ctx: Context, view: PlaneView) -> list[Finding]:
    """The sessions a limit tears down are BGP-SESSION-DOWN's; these stay up over their limit (FRR
    accepts the route that crosses it) until the next prefix arrives or the limit is re-applied
    (a warning). EOS's maximum-accepted-routes keeps the session and drops what is over (an error)."""
    why = "the session goes down at the next change in the plane: its link leaves the plane then"
    return [finding([receiver, sender], view.control.plane, reason, why, Severity.WARNING)
            for receiver, sender, reason in view.control.over_limit] + \
        [finding([receiver, sender], view.control.plane, reason, "prefixes go missing over that session, "
                 "different ones after every restart", Severity.ERROR)
         for receiver, sender, reason in view.control.truncated]


def _plane_and_peer(ctx: Context, name: str, iface: Interface) -> tuple[str | None, int]:
    """An addressed port's plane (None: in none) and the address of its peer on the subnet (the
    other end of a /31, else the first other host)."""
    plane = ctx.topo.node_plane.get((name, iface.vrf)) or ctx.device_plane.get(name)
    net, length = network_of(iface.addresses[0])
    own = ip_int(iface.addresses[0].partition("/")[0])
    return plane, own ^ 1 if length == 31 else (net + 1 if own != net + 1 else net + 2)


# why a dropping list matters, per direction it is bound in
_ACL_WHY = {"in": "the link's BGP session and routes stay up, so ECMP keeps sending flows into it: every RoCE packet "
                  "over it is lost",
            "out": "the link's BGP session and routes stay up, so traffic keeps being sent over it: every RoCE packet "
                   "it drops is lost"}


def _acl_drops(ctx: Context, name: str, dev: DeviceConfig, direction: str) -> list[Finding]:
    """ROUTE-ACL-DROP for the lists ``dev`` binds in ``direction`` ("in": ``acl_in``, "out":
    ``acl_out``): the first probe of each port's list that it drops (see acl_drops for the probes)."""
    out: list[Finding] = []
    for port, (acl, line) in (dev.acl_in if direction == "in" else dev.acl_out).items():
        entries = dev.acls.get(acl)
        iface = dev.interfaces.get(port)
        if entries is None or iface is None or not iface.addresses:
            continue  # not defined or not read whole (reported), or a port without an address
        plane, peer = _plane_and_peer(ctx, name, iface)
        if not plane:
            continue
        routed = ctx.snap.routed.get(plane, [])
        # (source, destination, what the finding says of the packet)
        if direction == "in":
            probes = [(peer, int(p.network_address) + 2, f"arriving for {p}") for p in routed]
        else:
            probes = [(int(p.network_address) + 2, peer, f"from {dotted(int(p.network_address) + 2)} to the peer "
                       f"{dotted(peer)}") for p in routed]
            probes += [(peer, int(p.network_address) + 2, f"from {dotted(peer)} for {p}") for p in routed]
        for source, destination, what in probes:
            ok, entry = acl_permits(entries, "udp", source, 49152, destination, ROCE_PORT)
            if not ok:
                decided = f"line {entry.line}" if entry is not None else "its implicit deny"
                where = ctx.snap.where(name, dev.acl_file or dev.routing_file, line)
                bound = " out" if direction == "out" else ""
                out.append(finding([name], plane, f"{where}: access list {acl}{bound} on {name} {port} drops RoCE "
                                   f"(UDP {ROCE_PORT}) {what} ({decided})", _ACL_WHY[direction]))
                break
    return out


@check("ROUTE-NOT-FORWARDED", "every switch forwards IPv4 (FRR `no ip forwarding` turns the kernel's forwarding off "
       "while BGP still advertises the paths through it)", reads={ROUTING, TOPOLOGY})
def not_forwarded(ctx: Context) -> list[Finding]:
    return [finding([name], ctx.device_plane.get(name) or "",
                    f"{_loc(ctx, name, dev.forwarding_off[-1])}: `no ip forwarding`: {name} does not forward IPv4",
                    "its BGP sessions stay up and its neighbors keep sending traffic through it: every such path is "
                    "a blackhole, and ECMP spreads every flow over it")
            for name, dev in ctx.snap.devices.items() if dev.forwarding_off]


@check("ROUTE-UNDEFINED-REF", "every route-map, prefix-list and peer-group a config references is defined",
       reads={ROUTING, TOPOLOGY})
def undefined_refs(ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    why = "FRR and EOS deny everything through an undefined route-map, match nothing with an undefined " \
          "prefix-list, and refuse a neighbor bound to an undefined peer-group"
    for name, dev in ctx.snap.devices.items():
        plane = ctx.device_plane.get(name) or ""
        for line, what in dev.undefined_refs:
            out.append(finding([name], plane, f"{_loc(ctx, name, line)}: {what} is not defined", why))
        for inst in dev.bgp.values():
            for n in inst.neighbors.values():
                for rm, direction in ((n.route_map_in, "in"), (n.route_map_out, "out")):
                    if rm is not None and rm not in dev.route_maps:
                        out.append(finding([name], plane, f"{_loc(ctx, name, n.line)}: neighbor {n.address} route-map "
                                                          f"{rm} {direction}: route-map {rm} is not defined", why))
                for pl, direction in ((n.prefix_list_in, "in"), (n.prefix_list_out, "out")):
                    if pl is not None and pl not in dev.prefix_lists:
                        line = n.prefix_list_lines.get(direction) or n.line
                        out.append(finding([name], plane, f"{_loc(ctx, name, line)}: neighbor {n.address} "
                                                          f"{filter_clause(pl)} "
                                                          f"{direction}: {list_label(pl)} is not defined (it "
                                                          "denies everything)", why))
        for rm, line in dev.fib_filters.values():
            if rm not in dev.route_maps:
                out.append(finding([name], plane, f"{_loc(ctx, name, line)}: ip protocol route-map {rm}: route-map "
                                                  f"{rm} is not defined", why))
        for inst in dev.bgp.values():
            if inst.table_map is not None and inst.table_map[0] not in dev.route_maps:
                rm, line = inst.table_map
                out.append(finding([name], plane, f"{_loc(ctx, name, line)}: table-map {rm}: route-map {rm} is not "
                                                  "defined (no BGP route is installed)", why))
        for rm_name, entries in dev.route_maps.items():
            for entry in entries:
                for pl in entry.match_prefix_lists:
                    if pl not in dev.prefix_lists:
                        out.append(finding([name], plane, f"{_loc(ctx, name, entry.line)}: route-map {rm_name} "
                                                          f"{entry.action} {entry.seq} matches {list_label(pl)}, "
                                                          "which is not defined", why))
    return out


@per_plane("ROUTE-DEAD-NETWORK", "every `network` statement has a route in the RIB to advertise")
def dead_networks(ctx: Context, view: PlaneView) -> list[Finding]:
    """A statement that advertises nothing (a planned prefix among them is an outage, which
    ROUTE-MISSING reports as an error; here every such statement is named)."""
    out: list[Finding] = []
    for node, net, line in view.control.dead_networks:
        out.append(finding([node[0]], view.control.plane,
                           f"{_loc(ctx, node[0], line)}: network {net} advertises nothing: {_label(node)} has no "
                           "connected subnet or usable static route for exactly that prefix",
                           "FRR and EOS advertise a network statement only while its prefix is in the RIB",
                           Severity.WARNING))
    return out


@check("ROUTE-DEAD-POLICY", "every route-map and prefix-list is used, and every route-map entry can be reached",
       reads={ROUTING, TOPOLOGY})
def dead_policy(ctx: Context) -> list[Finding]:
    """Policy that decides nothing: a route-map no neighbor uses, a prefix-list no route-map
    matches, an entry after one that matches everything (its sequence is never evaluated), a
    `match` clause bgpd accepts and does not implement (zebra's `match ip address prefix-len`,
    `match source-protocol`: measured on the twin, the entry matches as without it), an FRR match on
    an IPv6 list (it matches no IPv4 route: the entry matches nothing), a static route through a
    gateway and a port that zebra never installs (the gateway is not on that port). Each is an
    edit that had no effect, usually not the one intended."""
    out: list[Finding] = []
    why = "a policy statement that can never apply: the edit it came from did not do what it meant"
    for name, dev in ctx.snap.devices.items():
        plane = ctx.device_plane.get(name) or ""
        used_maps = {rm for inst in dev.bgp.values() for n in inst.neighbors.values()
                     for rm in (n.route_map_in, n.route_map_out) if rm} | {rm for rm, _ in dev.fib_filters.values()} \
            | {inst.table_map[0] for inst in dev.bgp.values() if inst.table_map} \
            | {used for inst in dev.bgp.values() for used, _ in inst.redistribute_maps.values()} \
            | {used for inst in dev.bgp.values() for used, _ in inst.network_maps.values()} \
            | {named[0] for inst in dev.bgp.values() for named in (inst.vpn_import_map, inst.vpn_export_map) if named} \
            | {name for name, _ in dev.vrf_leak_maps.values()} \
            | {e.call for entries in dev.route_maps.values() for e in entries if e.call is not None}
        used_lists = {pl for entries in dev.route_maps.values() for e in entries for pl in e.match_prefix_lists} \
            | {pl for inst in dev.bgp.values() for n in inst.neighbors.values()
               for pl in (n.prefix_list_in, n.prefix_list_out) if pl}
        for rm_name, entries in dev.route_maps.items():
            if rm_name not in used_maps:
                out.append(finding([name], plane, f"{_loc(ctx, name, entries[0].line)}: route-map {rm_name} is used "
                                                  "by no neighbor", why, Severity.WARNING))
                continue
            # (with flow control an on-match or call can reach any later entry: not judged)
            ordered = [] if has_flow(entries) else sorted(entries, key=lambda e: e.seq)
            for i, entry in enumerate(ordered[:-1]):
                if not entry.match_prefix_lists and not entry.match_lists and not entry.attribute_clauses:
                    # it matches everything: nothing after it is evaluated
                    for later in ordered[i + 1:]:
                        out.append(finding([name], plane, f"{_loc(ctx, name, later.line)}: route-map {rm_name} "
                                                          f"{later.action} {later.seq} is never reached (entry "
                                                          f"{entry.seq} matches everything)", why, Severity.WARNING))
                    break
        for rm_name, entries in dev.route_maps.items():
            for entry in entries:
                out += [finding([name], plane, f"{_loc(ctx, name, line)}: route-map {rm_name} {entry.action} "
                                               f"{entry.seq}: bgpd does not implement `{text}` (zebra does): the entry "
                                               "decides as without it", why, Severity.WARNING)
                        for text, line in entry.bgpd_ignores]
                out += [finding([name], plane, f"{_loc(ctx, name, line)}: route-map {rm_name} {entry.action} "
                                               f"{entry.seq}: `{text}` matches no IPv4 route (bgpd looks the name "
                                               "up among the IPv6 lists): the entry matches nothing", why,
                                Severity.WARNING)
                        for text, line in entry.other_family]
        for route, reason in dev.inactive_statics:
            where = ctx.snap.where(name, route.file, route.line) if route.file else _loc(ctx, name, route.line)
            out.append(finding([name], plane, f"{where}: static route {route.prefix} via {route.nexthop} "
                                              f"{route.via_port} is never installed: {reason}", why, Severity.WARNING))
        for pl_name, pl_entries in dev.prefix_lists.items():
            if pl_name not in used_lists and not pl_name.startswith(ACCESS_LIST_PREFIX):
                line = pl_entries[0].line if pl_entries else 0  # an NVUE prefix-list may have no rule
                out.append(finding([name], plane, f"{_loc(ctx, name, line)}: prefix-list {pl_name} is "
                                                  "matched by no route-map", why, Severity.WARNING))
    return out


@per_plane("ROUTE-POLICY-UNMODELLED", "every route-map action the model cannot follow is named (on a plane too "
          "large for the plain reference: AS-path filters, prepends of an ASN not on the path, ORIGIN; best-path "
          "attributes on iBGP, a next hop moved to another connected address)")
def policy_unmodelled(ctx: Context, view: PlaneView) -> list[Finding]:
    """What the propagation reads but cannot follow to the end: on a plane above
    pathjudge.EXACT_LIMIT, what needs the AS paths (filters, a prepend of an ASN not on the path
    whose devices would drop the route by loop prevention, ORIGIN), a best-path attribute or weight
    on an iBGP session, a `set ip next-hop` that moves traffic to another connected address (the
    paths are counted, where the packets go is not)."""
    return [finding([device], view.control.plane, f"{_loc(ctx, device, line)}: not modelled: {what}",
                    "verify counts the paths but does not follow this action to the end: judge it by hand",
                    Severity.WARNING)
            for device, line, what in view.control.unmodelled]


@check("ROUTE-FIB-OVERRIDE", "no static route takes a planned prefix a switch learns by BGP away from its BGP "
       "paths in the forwarding table, nor the address of a connected subnet's other end away from its port",
       reads={ROUTING, TOPOLOGY})
def fib_override(ctx: Context) -> list[Finding]:
    """The BGP RIB (ROUTE-MISSING, ROUTE-ECMP-WIDTH) is not what forwards: the FIB takes, per
    destination, the longest prefix, and for one prefix the lowest administrative distance. A static
    route on a planned prefix another switch originates (or on a part of it), installed (a
    blackhole always, a next hop when it resolves) and not floating above BGP's distance, sends
    that traffic to the blackhole or the one next hop while BGP still shows every path."""
    out: list[Finding] = []
    snap, topo = ctx.snap, ctx.topo
    # a static more specific than a connected subnet takes an address of the subnet's other end
    # away from the port (a session's end: BGP-SESSION-DOWN says it too)
    for node, found in diversions(snap, topo).items():
        for d in found:
            victim = topo.endpoint(d.victim)
            out.append(finding([node[0], victim.device], topo.node_plane.get(node),
                               f"{static_at(snap, node[0], d.static)}: ip route {d.static.prefix} on {node[0]} is more "
                               f"specific than the subnet of {d.port} and holds {victim.ip} ({victim.device} "
                               f"{victim.interface}): traffic to it goes to {d.to}, not over {d.port}",
                               "the forwarding table takes the longest prefix: the connected route to the port no "
                               "longer carries that address"))
    starts: dict[str, tuple[list[int], list[tuple[int, int, str]]]] = {}  # plane -> sorted planned prefixes
    for name, dev in snap.devices.items():
        if not dev.static_routes and not any(fib_restricted(dev, vrf) for vrf in dev.bgp):
            continue
        meta = snap.manifest.devices.get(name)
        for vrf in dev.bgp:
            plane = topo.node_plane.get((name, vrf))
            if not plane:
                continue
            if plane not in starts:
                planned = sorted({(*network_of(p), p) for p in planned_prefixes(snap, plane)})
                starts[plane] = ([net for net, _, _ in planned], planned)
            nets, planned = starts[plane]
            # as planned_prefixes spells them (normalized), so the two sets compare
            own = {net_str(network_of(p)) for p in (meta.originates.get(plane, []) if meta else [])}
            if fib_restricted(dev, vrf):  # (else nothing is kept out)
                out += _kept_out(ctx, name, plane, vrf, [p for _, _, p in planned if p not in own])
            installed: set[str] | None = None  # computed only for a static that would override
            said: set[str] = set()
            distance = bgp_distance(dev, dev.bgp[vrf])
            for route in dev.static_routes:
                if route.vrf != vrf:
                    continue
                rnet, rlen = network_of(route.prefix)
                # the planned prefixes the static's range overlaps: those at or under it, and the
                # one it is under (a more specific static takes a part of it)
                end = rnet + (1 << (32 - rlen)) - 1
                low = bisect.bisect_right(nets, rnet) - 1
                for net, length, prefix in planned[max(low, 0):bisect.bisect_right(nets, end)]:
                    if prefix in own or net + (1 << (32 - length)) - 1 < rnet or net > end:
                        continue
                    if length > rlen or (length == rlen and route.distance >= distance):
                        continue  # a more specific BGP route wins by its length; a floating static loses
                    if installed is None:
                        installed = set(static_in_rib(dev, vrf, connected(snap, topo, (name, vrf))))
                    if net_str((rnet, rlen)) not in installed:
                        break  # not in the RIB (its next hop does not resolve): it forwards nothing
                    hops = [r.nexthop or "blackhole" for r in dev.static_routes
                            if r.vrf == vrf and r.distance == route.distance and network_of(r.prefix) == (rnet, rlen)]
                    to = ("a blackhole" if route.nexthop is None and len(hops) == 1 else
                          f"next hop {route.nexthop} alone" if len(hops) == 1 else
                          f"its static next hops {', '.join(hops)} (a failure behind them is not routed around)")
                    message = (f"{static_at(snap, name, route)}: ip route {route.prefix} on {name} sends traffic "
                               f"to {route.prefix if rlen > length else prefix} (planned {prefix}, learned by BGP) "
                               f"to {to}")
                    if message in said:
                        continue  # (the next hops of one statement: NVUE's vias of one route)
                    said.add(message)
                    out.append(finding([name], plane, message,
                                       "the forwarding table takes the longest prefix, and the lowest distance for "
                                       "one prefix: BGP's paths stay in the RIB and are advertised on, but this "
                                       "switch's traffic to it goes where the static route says"))
                    if len(out) >= MAX_FINDINGS:
                        return out
    return out


def _kept_out(ctx: Context, name: str, plane: str, vrf: str | None, learned: list[str]) -> list[Finding]:
    """The planned prefixes BGP learns but the instance keeps out of its forwarding table
    (controlplane.kept_out_of_fib), one finding per cause."""
    dev = ctx.snap.devices[name]
    causes: dict[tuple[int, str], list[str]] = {}
    sources: dict[str, bool] = {}
    for prefix in learned:
        why = kept_out_of_fib(dev, vrf, prefix, sources)
        if why is not None:
            causes.setdefault(why, []).append(prefix)
    return [finding([name], plane, f"{_loc(ctx, name, line)}: {what}: {len(denied)} planned prefix(es) learned by BGP "
                    f"stay out of {name}'s forwarding table (e.g. {', '.join(denied[:3])})",
                    "BGP still has and advertises the paths, so its neighbors keep sending the traffic here: the "
                    "switch drops it (or sends it to a default route)")
            for (line, what), denied in causes.items()]


ROCE_PORT = 4791  # RoCEv2's UDP destination port (its source port varies per flow)


@check("ROUTE-ACL-DROP", "no access list on a switch port drops the plane's RoCE traffic arriving on it or "
       "leaving through it", reads={ROUTING, TOPOLOGY})
def acl_drops(ctx: Context) -> list[Finding]:
    """An access list bound to a fabric port (EOS `ip access-group NAME in`) is applied to every
    packet arriving on it: one that lets BGP through but not RoCEv2 (UDP 4791) keeps the sessions
    and routes up while the training traffic over that link is dropped. Probed: from the port's
    peer on its subnet to an address in every routed prefix of the port's plane. A list bound `out`
    is applied to what leaves through the port (the switch's own BGP packets are not filtered by
    an egress list): probed from every routed prefix to the peer, and from the port's own subnet
    to every routed prefix (what the port carries on toward the rest of the plane)."""
    out: list[Finding] = []
    for name, dev in ctx.snap.devices.items():
        if dev.acl_out:
            out += _acl_drops(ctx, name, dev, "out")
        if dev.acl_in:
            out += _acl_drops(ctx, name, dev, "in")
    return out
