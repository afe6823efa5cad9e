"""The host half (issue 16, host model): what each server's nccl.env and sysctl.conf make the host do,
against the plan (the manifest's NIC ports) and the fabric's QoS profile.

* NCCL must use every RDMA device of the server, of every plane, and nothing else (the list read
  as NCCL reads it: exclusion, exact or prefix match, ports; ``mlx5_1`` alone also matches
  ``mlx5_10``), over RoCEv2 (GID index 3: the IPv4-mapped RoCEv2 GID), marking the traffic class
  the switches trust as RoCE (the TC byte's DSCP, its upper six bits; ECN bits other than CE).
* Policy routing with several NICs needs ARP answered only by the owning port (arp_ignore 1,
  arp_announce 2) and no strict reverse-path filter (rp_filter 1 drops replies that arrive on a
  port whose main-table route for the source points at another port).
(A line of those files the model does not understand is reported by checks/unmodelled.py.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from functools import cache

from dualrail_net.manifest import Manifest, QosMarkers, ServerEntry
from dualrail_net.verify.checks import BASE, TOPOLOGY, Context, check, finding
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.hostroute import MAIN, REJECT, HostRouting, host_routing
from dualrail_net.verify.ipfast import contains, dotted, ip_int
from dualrail_net.verify.model import ServerConfig
from dualrail_net.verify.parsers.files import is_decimal
from dualrail_net.verify.parsers import POST_UP_UNREAD

ROCE_V2_IPV4_GID_INDEX = 3


def hca_devices(value: str | None) -> list[str]:
    """The devices of an HCA list as NCCL and UCX write it (``=mlx5_0:1,mlx5_1:1``; ``=``/``^``
    prefixes). Each planned NIC port is an RDMA device of its own with one port, port 1: an entry
    naming another port selects nothing on that device, so it stays whole (``mlx5_0:2``), a device
    the server does not have, and ``mlx5_0`` counts as left out."""
    return [device if port in ("", "1") else item
            for item in (value or "").lstrip("=^").split(",") if item
            for device, _, port in [item.partition(":")]]


def roce_classes(markers: Mapping[str, QosMarkers], planes: Iterable[str]) -> list[int]:
    """The traffic-class bytes the switches of ``planes`` treat as RoCE (DSCP << 2)."""
    return sorted({markers[p].roce_dscp << 2 for p in planes if p in markers})


def server_rdma_devices(manifest: Manifest, name: str, entry: ServerEntry) -> set[str]:
    """Every RDMA device the plan gives the server: its fabric NIC ports' and its HCA port in each
    IB plane (each one device with one port, port 1)."""
    return ({p.rdma_device for p in entry.ports}
            | {meta.devices[name] for meta in manifest.ib_planes.values() if name in meta.devices})


def nccl_selected(value: str, devices: Collection[str]) -> tuple[set[str], list[str]]:
    """The devices NCCL's IB transport opens for ``NCCL_IB_HCA=value`` among ``devices`` (each with
    one port, port 1), as ncclIbInit filters them: a leading ``^`` keeps what the rest does not
    match; then a leading ``=`` matches names exactly, else each entry matches every device whose
    name starts with it (``mlx5`` is all of them); ``:N`` matches port N only. Also the entries
    that match no device (typos, devices the server lacks), in the list's order."""
    exclude = value.startswith("^")
    rest = value[1:] if exclude else value
    exact = rest.startswith("=")
    rest = rest[1:] if exact else rest
    items = [item for item in rest.split(",") if item]
    if not items:
        return set(devices), []
    pool = set(devices)
    # each entry's devices (port 1 or no port named: each device has port 1 only)
    hits = [set() if port not in ("", "1") else ({name} & pool) if exact
            else {d for d in devices if d.startswith(name)}
            for name, _, port in (item.partition(":") for item in items)]
    matched = set().union(*hits)
    chosen = pool - matched if exclude else matched
    return chosen, [item for item, hit in zip(items, hits) if not hit]


@check("HOST-NCCL-HCA", "NCCL uses exactly the server's RDMA devices, in every plane",
       reads={BASE, TOPOLOGY})
def nccl_hca(ctx: Context) -> list[Finding]:
    out = []
    manifest = ctx.snap.manifest
    for name, entry in manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        value = srv.env.get("NCCL_IB_HCA")
        expected = {p.rdma_device: p.plane for p in entry.ports}
        if value is None:
            out.append(finding([name], "", f"{name}: nccl.env does not set NCCL_IB_HCA",
                               "NCCL then picks HCAs by itself, across planes and rails as it likes"))
            continue
        devices = server_rdma_devices(manifest, name, entry)
        chosen, unmatched = nccl_selected(value, devices)
        if unmatched and not value.startswith("^"):
            out.append(finding([name], "", f"{name}: NCCL_IB_HCA={value}: {', '.join(unmatched)} matches no RDMA device "
                               f"of the server (it has {', '.join(sorted(devices))}, each with one port, port 1)",
                               "a device named wrongly or missing: NCCL leaves the port it meant idle"))
        extra = sorted(chosen - set(expected))
        if extra:
            out.append(finding([name], "", f"{name}: NCCL_IB_HCA={value} also selects {', '.join(extra)}, not a port of "
                               "the RoCE planes (an InfiniBand HCA)",
                               "NCCL spreads the job over a device outside the fabric: its connections to the "
                               "other servers' RoCE ports fail"))
        missing = sorted(set(expected) - chosen)
        if missing:
            planes = sorted({expected[d] for d in missing})
            lost = sorted(set(planes) - {expected[d] for d in chosen if d in expected})
            out.append(finding([name], lost[0] if len(lost) == 1 else "",
                               f"{name}: NCCL_IB_HCA={value} leaves out {', '.join(missing)} (plane {', '.join(planes)})"
                               + (f": no device of plane {', '.join(lost)} is used" if lost else ""),
                               "those ports carry no training traffic: the job runs on part of the fabric"))
    return out


@check("HOST-NCCL-GID", "NCCL uses the RoCEv2 IPv4 GID", reads={BASE, TOPOLOGY})
def nccl_gid(ctx: Context) -> list[Finding]:
    out = []
    for name in ctx.snap.manifest.servers:
        srv = ctx.snap.servers.get(name)
        if srv is None:
            continue
        value = srv.env.get("NCCL_IB_GID_INDEX")
        if nccl_number(value) != ROCE_V2_IPV4_GID_INDEX:
            out.append(finding([name], "", f"{name}: NCCL_IB_GID_INDEX is {value or 'not set'}, not "
                               f"{ROCE_V2_IPV4_GID_INDEX} (RoCEv2, IPv4-mapped)",
                               "another GID is RoCEv1 or IPv6 link-local: the traffic is not routed IP between leaves"))
    return out


_INT64 = 1 << 63


def nccl_number(value: str | None) -> int | None:
    """An NCCL integer parameter (NCCL_IB_TC, NCCL_IB_GID_INDEX ...) as NCCL reads it
    (ncclLoadParam: ``strtoll(str, NULL, 0)``, the rest of the text not looked at): leading blanks,
    a sign, then `0x` hex, a leading `0` octal or decimal digits, up to the first other character
    (none: 0); None where NCCL keeps its default (not set, empty, or out of int64's range)."""
    if not value:
        return None
    text = value.lstrip(" \t\n\v\f\r")
    sign = -1 if text[:1] == "-" else 1
    text = text[1:] if text[:1] in ("-", "+") else text
    base, digits = 10, "0123456789"
    if text[:2].lower() == "0x" and text[2:3].lower() in tuple("0123456789abcdef"):
        base, digits, text = 16, "0123456789abcdef", text[2:]
    elif text[:1] == "0":
        base, digits = 8, "01234567"
    end = 0
    while end < len(text) and text[end].lower() in digits:
        end += 1
    # (leading zeros aside, more than 22 digits is past int64 in any of the three bases; int()
    # refuses long decimal strings outright)
    if len(text[:end].lstrip("0")) > 22:
        return None
    number = sign * int(text[:end], base) if end else 0
    return number if -_INT64 <= number < _INT64 else None


_ULONG = 1 << 64
UCX_AUTO = "auto"
UCX_REFUSED = "refused"
# what UCX_IB_TRAFFIC_CLASS=auto (its default) marks on RoCEv2: uct/ib/base/ib_iface.c's help text
# ("auto" option selects 106 on RoCEv2): DSCP 26 with ECN bits 10 (ECT(0))
UCX_AUTO_ROCE_TRAFFIC_CLASS = 106


def ucx_units(value: str | None) -> int | str:
    """A UCX unsigned setting of type ULUNITS (UCX_IB_GID_INDEX, UCX_IB_TRAFFIC_CLASS) as
    ucs_config_sscanf_ulunits reads it: not set (or empty: sscanf reads nothing and the default
    stays) or `auto` in any case -> UCX_AUTO; `inf` -> ULONG_MAX; otherwise sscanf("%lu"): blanks,
    an optional sign, decimal digits only (a `0x` is the number 0, a leading 0 is not octal), the
    rest ignored, a '-' wrapping around unsigned long; no digit -> UCX_REFUSED (UCX rejects the
    setting: its context fails to initialise)."""
    if value is None or value.lower() == "auto" or not value.lstrip(" \t\n\v\f\r"):
        return UCX_AUTO  # (blanks only: sscanf returns EOF, which UCX takes as read, and the default stays)
    if value.lower() == "inf":
        return _ULONG - 1
    m = re.match(r"[ \t\n\v\f\r]*([-+]?)([0-9]+)", value)
    if m is None:
        return UCX_REFUSED  # (no digit after the blanks and the sign)
    digits = m[2].lstrip("0") or "0"
    if len(digits) > 20 or int(digits) >= _ULONG:
        return _ULONG - 1  # out of range: strtoul's ULONG_MAX, the sign not applied
    number = int(digits)
    return (_ULONG - number) % _ULONG if m[1] == "-" else number


def ucx_traffic_class(value: str | None) -> int | None:
    """UCX_IB_TRAFFIC_CLASS as the byte UCX marks on RoCEv2 (auto: its documented 106); None where
    UCX refuses the setting."""
    units = ucx_units(value)
    if units == UCX_AUTO:
        return UCX_AUTO_ROCE_TRAFFIC_CLASS
    return units if isinstance(units, int) else None


def traffic_class_fault(value: str | None, wanted: list[int], read: Callable[[str | None], int | None] | None = None
                        ) -> str | None:
    """What is wrong with a RoCE traffic-class byte (NCCL_IB_TC, UCX_IB_TRAFFIC_CLASS), or None. The
    byte is the IP ToS: DSCP in its upper six bits, ECN in its lower two. ``wanted`` holds the RoCE
    DSCPs << 2; ECN bits 01/10 (ECT, e.g. NCCL_IB_TC=106 for DSCP 26) only say the sender does ECN,
    which DCQCN wants anyway; 11 is Congestion Experienced on every packet. ``read``: how the
    consumer reads the number (nccl_number for NCCL; decimal digits only when not given)."""
    number = (read or _int)(value)
    if number is None or not 0 <= number <= 255:
        return f"is {value or 'not set'}, the fabric expects {' or '.join(map(str, wanted))}"
    tos = number
    if (tos & ~3) not in wanted:
        return (f"is {tos} (DSCP {tos >> 2}), the fabric's RoCE class is DSCP "
                f"{', '.join(str(w >> 2) for w in wanted)} (traffic class {' or '.join(map(str, wanted))})")
    if tos & 3 == 3:
        return (f"is {tos}: DSCP {tos >> 2} with ECN bits 11 (Congestion Experienced) on every packet, so every "
                "receiver answers with CNPs and DCQCN slows every flow to its floor")
    return None


@check("HOST-NCCL-TC", "NCCL marks the traffic class the switches treat as RoCE (DSCP << 2)",
       reads={BASE, TOPOLOGY})
def nccl_tc(ctx: Context) -> list[Finding]:
    out = []
    markers = ctx.snap.manifest.qos_markers
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None:
            continue
        wanted = roce_classes(markers, entry.planes)
        fault = traffic_class_fault(srv.env.get("NCCL_IB_TC"), wanted, nccl_number) if wanted else None
        if fault:
            out.append(finding([name], "", f"{name}: NCCL_IB_TC {fault}",
                               "RoCE would arrive in a class without PFC and ECN, or marked congested: drops, "
                               "retransmits or a throttled job"))
    return out


# The kernel reads each of these per port as the larger of conf/all and conf/<port>
# (Documentation/networking/ip-sysctl.rst): a port's own line cannot lower what `all` sets, and
# `all` cannot lower a port's. A port's value when its line is missing: the kernel's default (0)
# for arp_*, and for rp_filter 1 (strict), as distributions that set conf/default to 1 make it.
# What the kernel does with each value (net/ipv4/arp.c, fib_frontend.c): arp_ignore 1 and 2 reply
# only for the port's own addresses, 8 replies to nothing, every other value replies as 0 does;
# arp_announce 2 announces the port's own address, every other value as 0; rp_filter 1 alone is strict.
ARP_IGNORE_OK = {1, 2}
ARP_ANNOUNCE_OK = {2}
RP_FILTER_OK = set(range(0, 256)) - {1}


@check("HOST-SYSCTL", "servers answer ARP per port and do not drop policy-routed replies",
       reads={BASE, TOPOLOGY})
def host_sysctl(ctx: Context) -> list[Finding]:
    out = []
    why = {"arp_ignore": "with several NICs on one subnet side, another port answers ARP and traffic leaves on the "
                         "wrong plane",
           "arp_announce": "ARP requests carry another port's address: the leaf learns it on the wrong port",
           "rp_filter": "strict reverse-path filtering (1) drops replies that arrive on a port the main table does "
                        "not use"}
    why_silent = "the port answers no ARP request: its leaf cannot resolve it and the port carries nothing"
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        for knob, default, wanted in (("arp_ignore", 0, ARP_IGNORE_OK), ("arp_announce", 0, ARP_ANNOUNCE_OK),
                                      ("rp_filter", 1, RP_FILTER_OK)):
            every, every_text = _sysctl(srv.sysctl, f"net.ipv4.conf.all.{knob}", 0)
            wrong: dict[int, list[str]] = {}
            planes: set[str] = set()
            for port in entry.ports:
                own, _ = _sysctl(srv.sysctl, f"net.ipv4.conf.{port.ifname}.{knob}", default)
                if max(every, own) not in wanted:
                    wrong.setdefault(max(every, own), []).append(port.ifname)
                    planes.add(port.plane)
            for effective, ports in wrong.items():
                want = f"{' or '.join(map(str, sorted(wanted)))} wanted" if len(wanted) < 3 else "strict"
                out.append(finding([name], next(iter(planes)) if len(planes) == 1 else "",
                                   f"{name}: {knob} in force is {effective} on {', '.join(ports)} (the larger of "
                                   f"net.ipv4.conf.all.{knob}, {every_text}, and each port's own, "
                                   f"{default} when not set): {want}",
                                   why_silent if knob == "arp_ignore" and effective == 8 else why[knob]))
        out += _forwarding(name, srv, entry)
    return out


def _forwarding(name: str, srv: ServerConfig, entry: ServerEntry) -> list[Finding]:
    """IPv4 forwarding on the server's fabric ports: `net.ipv4.ip_forward` (which sets conf.all and
    every port) or conf.all.forwarding turn it on for every port, conf.<port>.forwarding for one; a
    port's stanza's `ip-forward` decides for that port (ifupdown2 writes conf.<port>.forwarding when
    it brings the port up, after systemd-sysctl has applied sysctl.conf at boot). A port's own 0 in
    sysctl.conf holds only if written after the global 1: not followed, so a global 1 is reported."""
    sysctl = srv.sysctl
    global_on = [key for key in ("net.ipv4.ip_forward", "net.ipv4.conf.all.forwarding")
                 if _sysctl(sysctl, key, 0)[0] != 0]
    said: dict[str, str] = {}  # port -> the line that turns forwarding on for it
    for port in entry.ports:
        stanza = srv.interfaces.get(port.ifname)
        if stanza is not None and stanza.forwarding is not None:
            on, line, text, file = stanza.forwarding
            if on:
                said[port.ifname] = f"{file}:{line} {text}"
            continue
        own = f"net.ipv4.conf.{port.ifname}.forwarding"
        keys = global_on or ([own] if _sysctl(sysctl, own, 0)[0] else [])
        if keys:
            said[port.ifname] = ", ".join(f"sysctl.conf:{srv.line_of.get(('sysctl.conf', key), 0)} {key} = "
                                          f"{sysctl[key]}" for key in keys)
    if not said:
        return []
    lines = ", ".join(dict.fromkeys(said.values()))
    planes = sorted({p.plane for p in entry.ports if p.ifname in said})
    return [finding([name], planes[0] if len(planes) == 1 else "",
                    f"{name}: forwards IPv4 arriving on {', '.join(said)} ({lines})",
                    "the server routes between its ports: any route that reaches it from one plane carries on into "
                    "the other (the planes are joined at layer 3 through it)")]


SYSCTL_JUDGED = ("arp_ignore", "arp_announce", "rp_filter", "forwarding")


# sysctl keys that bear on nothing verify judges of a server (its addresses, routes, policy rules,
# ARP, forwarding, RoCE): socket buffers and the backlog, TCP's and UDP's own tuning (the kernel's
# stack only: RoCE traffic never passes it), local port ranges, and the memory, kernel and file
# tables. A GPU server's tuning sets many of them; each is known, not merely let through.
SYSCTL_NO_BEARING = ("net.core.rmem_", "net.core.wmem_", "net.core.optmem_max", "net.core.netdev_max_backlog",
                     "net.core.netdev_budget", "net.core.somaxconn", "net.ipv4.tcp_", "net.ipv4.udp_mem",
                     "net.ipv4.udp_rmem_min", "net.ipv4.udp_wmem_min", "net.ipv4.ip_local_port_range",
                     "net.ipv4.ip_local_reserved_ports", "vm.", "kernel.", "fs.")


def judged_sysctl(key: str, ports: Collection[str]) -> bool:
    """Whether verify judges a sysctl.conf key: HOST-SYSCTL's per-port ARP, reverse-path and
    forwarding settings of conf.all and the planned ports, and net.ipv4.ip_forward; or a key known
    to bear on none of it (SYSCTL_NO_BEARING)."""
    if key == "net.ipv4.ip_forward" or key.startswith(SYSCTL_NO_BEARING):
        return True
    parts = key.split(".")
    return len(parts) == 5 and parts[:3] == ["net", "ipv4", "conf"] and parts[4] in SYSCTL_JUDGED \
        and (parts[3] == "all" or parts[3] in ports)


def _sysctl(sysctl: Mapping[str, str], key: str, default: int) -> tuple[int, str]:
    """A sysctl's value as the kernel holds it (``default`` when the file does not set it), and as written."""
    text = sysctl.get(key)
    value = _int(text)
    return (default if value is None else value), text or "not set"


@check("HOST-FORWARDING", "traffic from each NIC port reaches its own plane through that port, and never leaves "
       "through another plane's port; the main table sends only fabric prefixes into the fabric", reads={BASE, TOPOLOGY})
def host_forwarding(ctx: Context) -> list[Finding]:
    """The kernel's decision (verify/hostroute.py) for a packet from each planned port's address to
    a destination in every routed prefix of every plane, and from a socket bound to no address."""
    out = []
    why_cross = "a plane's source address enters the other plane: replies cannot return, and a plane fault spreads"
    why_lost = "the port cannot reach its own plane: its share of every collective stalls"
    destinations = {plane: [(str(net), int(net.network_address) + 2) for net in nets]
                    for plane, nets in ctx.snap.routed.items()}
    routed = frozenset((int(net.network_address), net.prefixlen) for nets in ctx.snap.routed.values() for net in nets)
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        routing = host_routing(srv)
        plane_of_port = {p.ifname: p.plane for p in entry.ports}
        reported: set[tuple[str, str]] = set()
        targets_of = _with_table_prefixes(destinations, routed, routing, ctx.snap.plane_of_address)
        for port in entry.ports:
            iface = srv.interfaces.get(port.ifname)
            if iface is None or not iface.addresses:
                continue  # ADDR checks report a planned port without an address
            source = ip_int(iface.addresses[0].partition("/")[0])
            for plane, targets in targets_of.items():
                for prefix, destination in targets:
                    found = routing.lookup(source, destination)
                    # a multipath route hashes each flow onto one of its next hops: every one is judged
                    for egress in (found.each() if found is not None else [None]):
                        if egress is not None and egress.dev is None:
                            continue  # one of the server's own addresses
                        via = egress.dev if egress else None
                        key = (port.ifname, plane)
                        if plane == port.plane:
                            if via == port.ifname:
                                continue
                            if key in reported:
                                continue
                            reported.add(key)
                            if via is None:
                                out.append(finding([name], plane, f"{name}: traffic from {port.ifname} "
                                                   f"({iface.addresses[0]}) to {prefix} has no route (or a blackhole, "
                                                   "unreachable or prohibit route or rule ends its lookup)", why_lost))
                            elif plane_of_port.get(via) != plane:
                                out.append(finding([name], plane, f"{name}: traffic from {port.ifname} (plane {plane}) to "
                                                   f"{prefix} leaves through {via} (plane {plane_of_port.get(via)}, "
                                                   f"table {egress.table if egress else '?'})", why_cross))
                            else:
                                out.append(finding([name], plane, f"{name}: traffic from {port.ifname} to {prefix} leaves "
                                                   f"through {via}, another port of plane {plane} (table "
                                                   f"{egress.table if egress else '?'})",
                                                   "the reply comes back on another rail: asymmetric paths across rails",
                                                   Severity.WARNING))
                        elif via is not None and plane_of_port.get(via) == plane and key not in reported:
                            reported.add(key)
                            out.append(finding([name], plane, f"{name}: traffic from {port.ifname} (plane {port.plane}) "
                                               f"to {prefix} (plane {plane}) leaves through {via}", why_cross))
        out += _unbound_traffic(name, routing, plane_of_port, targets_of, why_cross)
        out += _outside_routes(name, routing, plane_of_port, routed)
    return out


def _outside_routes(name: str, routing: HostRouting, plane_of_port: dict[str, str],
                    routed: frozenset[tuple[int, int]]) -> list[Finding]:
    """A main-table route through a fabric port for destinations outside every plane's routed
    prefixes (a default, a wider prefix): the server's traffic to the front end and beyond (whose
    routes are not in the rendered files; `ip route replace default` replaces the front end's own)
    enters that plane, where no route leads out. The per-port tables' defaults are the design:
    only traffic sourced from a fabric address is looked up there."""
    out = []
    for net, length, dev, via, _src in routing.tables.get(MAIN, ()):
        if via is None and dev != REJECT:
            continue  # a connected subnet
        devs = [dev] + [hop for hop, _ in routing.multipath.get((MAIN, net, length), ())]
        planes = sorted({plane_of_port[d] for d in devs if d in plane_of_port})
        if not planes or any(length >= rl and contains((rn, rl), net) for rn, rl in routed):
            continue
        prefix = "default" if length == 0 else f"{dotted(net)}/{length}"
        out.append(finding([name], planes[0] if len(planes) == 1 else "",
                           f"{name}: the main table routes {prefix} through {', '.join(d for d in devs if d)} "
                           f"(plane {', '.join(planes)}), though it is no plane's prefix",
                           "traffic to the front end and beyond enters the fabric, where no route leads out "
                           "(a replaced default takes the front end's own away)"))
    return out


def _with_table_prefixes(destinations: dict[str, list[tuple[str, int]]], routed: frozenset[tuple[int, int]],
                         routing: HostRouting, plane_of_address: Callable[[str], str | None],
                         ) -> dict[str, list[tuple[str, int]]]:
    """Each plane's probe destinations (one address per routed prefix), plus one inside every route
    of the server's tables that is more specific than them (a route to a part of a plane, a
    blackhole over another leaf's servers, decides for that part only, which one probe per
    aggregate does not see)."""
    extra: dict[str, list[tuple[str, int]]] = {}
    probed = set(routed)  # (network, length): the routed prefixes are probed already
    for entries in routing.tables.values():
        for net, length, dev, via, _src in entries:
            if length < 8 or (via is None and dev != REJECT) or (net, length) in probed:
                continue  # a default, a port's connected subnet, or a prefix probed already
            probed.add((net, length))
            prefix = f"{dotted(net)}/{length}"
            address = routing.address_inside(net, length)
            plane = plane_of_address(dotted(address))
            if plane is not None:
                extra.setdefault(plane, []).append((prefix, address))
    if not extra:
        return destinations
    return {plane: targets + extra.get(plane, []) for plane, targets in destinations.items()}


def _unbound_traffic(name: str, routing: HostRouting, plane_of_port: dict[str, str],
                     destinations: dict[str, list[tuple[str, int]]], why: str) -> list[Finding]:
    """Traffic from a socket bound to no address (the kernel picks its source: the route's `src`,
    else the port's own address): to each plane's prefixes it must leave through a port of that
    plane with a source address of that plane."""
    plane_of_address = {address: plane for port, plane in plane_of_port.items()
                        for address in routing.addresses.get(port, ())}
    own_planes = set(plane_of_port.values())
    out = []
    reported: set[tuple[str, str]] = set()
    for plane, targets in destinations.items():
        for prefix, destination in targets:
            found = routing.lookup(0, destination)
            if plane in own_planes and (plane, "none") not in reported \
                    and (found is None or all(egress.dev is not None and egress.dev not in plane_of_port
                                              for egress in found.each())):
                # the plan routes each plane's prefixes in the main table through a port of that
                # plane (resolve/build.py: the server's plane routes); without one the kernel takes
                # the host's own default (not in these files), outside the fabric
                reported.add((plane, "none"))
                said = "has no route" if found is None else \
                    f"leaves through {', '.join(sorted({e.dev or '' for e in found.each()}))}, no port of the plane"
                out.append(finding([name], plane, f"{name}: traffic to {prefix} (plane {plane}) from a socket bound to "
                                   f"no address {said}", "it follows the host's own default out of the fabric "
                                   "(storage behind the plane's gateways, a switch's loopback, another server's "
                                   "fabric address over TCP): it never reaches the plane"))
            for egress in (found.each() if found is not None else []):  # each next hop of a multipath route
                if egress.dev is None:
                    continue
                port_plane = plane_of_port.get(egress.dev)
                source = routing.source_for(egress)
                source_plane = plane_of_address.get(source) if source is not None else None
                where = f"{egress.dev} (plane {port_plane}, table {egress.table})"
                if port_plane is not None and port_plane != plane and (plane, "port") not in reported:
                    reported.add((plane, "port"))
                    out.append(finding([name], plane, f"{name}: traffic to {prefix} (plane {plane}) from a socket bound "
                                       f"to no address leaves through {where}", why))
                elif port_plane is not None and source_plane is not None and source_plane != port_plane \
                        and (plane, "source") not in reported:
                    reported.add((plane, "source"))
                    out.append(finding([name], plane, f"{name}: traffic to {prefix} from a socket bound to no address "
                                       f"leaves through {where} with source {dotted(source or 0)} of plane "
                                       f"{source_plane}{' (the route names it: src)' if egress.src == source else ''}",
                                       why))
    return out


# --- the NIC half of RoCE QoS (issue 20): nic-qos.sh against the leaf at the other end -----------------

@cache
def shipped_program() -> tuple[str, ...]:
    """The code lines of the nic-qos.sh program dualrail ships: its template read by the same parser
    as every server's script (the plan and comments left out), so both sides split it alike."""
    from dualrail_net.render.engine import templates_dir
    from dualrail_net.verify.parsers import read_nic_qos

    template = ServerConfig("template")
    read_nic_qos((templates_dir() / "server" / "nic-qos.sh.j2").read_text(), template)
    return tuple(text for _line, text in template.nic_qos_program)


def _leaf_ports(ctx: Context) -> dict[tuple[str, str], tuple[str, str]]:
    """(server, NIC port) -> (leaf, leaf port), from the cabling plan."""
    plan = ctx.snap.cabling
    return {(a, a_port): (b, b_port) for kind, a, a_port, b, b_port in zip(
        plan.column("kind"), plan.column("a_device"), plan.column("a_port"), plan.column("b_device"),
        plan.column("b_port")) if kind == "server-leaf"}


def _ints(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return sorted({int(x) for x in text.split(",") if x != ""})
    except ValueError:
        return None


# the keys the shipped program's `port` function takes (any other: `bad`, and the program exits 1)
NIC_QOS_SETTINGS = frozenset({"mtu", "trust", "pfc", "ecn", "cnp_dscp", "cnp_prio", "roce_tos"})


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and is_decimal(text) else None


@check("HOST-NIC-QOS", "each NIC port trusts, marks, protects (PFC) and reacts to ECN as the leaf at its "
       "other end does", reads={BASE, TOPOLOGY})
def nic_qos(ctx: Context) -> list[Finding]:
    """Per planned NIC port, its nic-qos.sh line against the leaf port it is cabled to: trust as the
    leaf's, PFC on the priorities the leaf pauses, RDMA-CM ToS carrying the DSCP the leaf maps into
    a PFC priority, ECN reaction on that priority, CNPs marked with the profile's DSCP in the
    priority the leaf gives that DSCP; NCCL's traffic class carries the same DSCP."""
    out = []
    leaf_of = _leaf_ports(ctx)
    markers = ctx.snap.manifest.qos_markers
    why = "the two ends of the link disagree on which traffic is lossless: RoCE is dropped or paused in the wrong class"
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        where = f"servers/{name}/nic-qos.sh"
        if not srv.nic_qos_file:
            out.append(finding([name], "", f"{where}: missing: the NICs keep their defaults (PCP trust, no PFC, "
                               "no ECN)", why))
            continue
        nccl_tc = nccl_number(srv.env.get("NCCL_IB_TC"))
        for planned in sorted(srv.nic_qos.values(), key=lambda each: each.line):
            for key in sorted(set(planned.settings) - NIC_QOS_SETTINGS):
                out.append(finding([name], "", f"{where}:{planned.line}: {planned.ifname}: unknown setting {key}: the "
                                   "program reports it and exits 1 (dualrail-nic-qos.service fails at every boot)",
                                   "a failed unit is what the rollout and the live audit see of this host"))
        for port in entry.ports:
            mark = markers.get(port.plane)
            line = srv.nic_qos.get(port.ifname)
            if line is None:
                stop = srv.nic_qos_exit
                said = f": the program stops at line {stop[0]} (`{stop[1][:40]}`) before it" if stop else ""
                out.append(finding([name], port.plane, f"{where}: no line for {port.ifname} (plane {port.plane})"
                                   f"{said}", why))
                continue
            loc = f"{where}:{line.line}"
            leaf, leaf_port = leaf_of.get((name, port.ifname), ("", ""))
            dev = ctx.snap.devices.get(leaf)
            iface = dev.interfaces.get(leaf_port) if dev else None
            s = line.settings
            problems = []
            if line.rdma_device != port.rdma_device:
                problems.append(f"RDMA device {line.rdma_device}, the plan has {port.rdma_device}")
            leaf_trust = (iface.trust if iface and iface.trust else dev.qos.trust if dev else None)
            if s.get("trust") != "dscp" or (leaf_trust and s.get("trust") != leaf_trust):
                problems.append(f"trust {s.get('trust', 'not set')}, the leaf trusts {leaf_trust or 'dscp'}")
            host_pfc = _ints(s.get("pfc"))
            if iface is not None and iface.pfc_priorities is not None and host_pfc != sorted(iface.pfc_priorities):
                problems.append(f"PFC on {s.get('pfc', 'nothing')}, {leaf} {leaf_port} pauses "
                                f"{','.join(map(str, sorted(iface.pfc_priorities)))}")
            if mark is not None and dev is not None:
                tos = _int(s.get("roce_tos"))
                if tos is None or tos >> 2 != mark.roce_dscp:
                    problems.append(f"RDMA-CM ToS {s.get('roce_tos', 'not set')} (DSCP "
                                    f"{tos >> 2 if tos is not None else '?'}), the fabric's RoCE DSCP is {mark.roce_dscp}")
                elif tos & 3 == 3:
                    problems.append(f"RDMA-CM ToS {tos}: DSCP {tos >> 2} with ECN bits 11 (Congestion Experienced) "
                                    "on every packet, so every receiver answers with CNPs and DCQCN slows every "
                                    "RDMA-CM flow to its floor")
                elif nccl_tc is not None and nccl_tc >> 2 != tos >> 2:
                    problems.append(f"NCCL_IB_TC {nccl_tc} marks DSCP {nccl_tc >> 2}, the port's ToS {tos} marks "
                                    f"DSCP {tos >> 2}")
                roce_prio = dev.qos.priority_of(mark.roce_dscp)
                if roce_prio is not None and host_pfc is not None and roce_prio not in host_pfc:
                    problems.append(f"the leaf puts DSCP {mark.roce_dscp} in priority {roce_prio}, which the NIC "
                                    "does not protect with PFC")
                ecn = _ints(s.get("ecn")) or []
                if roce_prio is not None and roce_prio not in ecn:
                    problems.append(f"ECN reaction (DCQCN) off on the RoCE priority {roce_prio}: CE marks from the "
                                    "leaf are ignored")
                if _int(s.get("cnp_dscp")) != mark.cnp_dscp:
                    problems.append(f"CNPs marked DSCP {s.get('cnp_dscp', 'not set')}, the fabric expects "
                                    f"{mark.cnp_dscp}")
                cnp_prio = dev.qos.priority_of(mark.cnp_dscp)
                if cnp_prio is not None and _int(s.get("cnp_prio")) != cnp_prio:
                    problems.append(f"CNPs in priority {s.get('cnp_prio', 'not set')}, the leaf maps DSCP "
                                    f"{mark.cnp_dscp} to {cnp_prio}")
            for problem in problems:
                out.append(finding([name, leaf], port.plane, f"{loc}: {port.ifname}: {problem}", why))
    return out


@check("HOST-NIC-QOS-PROGRAM", "each server's nic-qos.sh runs the program dualrail ships", reads={BASE, TOPOLOGY})
def nic_qos_program(ctx: Context) -> list[Finding]:
    out = []
    shipped = shipped_program()
    for name, srv in ctx.snap.servers.items():
        if not srv.nic_qos_file:
            continue
        got = tuple(text for _line, text in srv.nic_qos_program)
        if got == shipped:
            continue
        first = next((i for i, (a, b) in enumerate(zip(got, shipped)) if a != b), min(len(got), len(shipped)))
        line = srv.nic_qos_program[first][0] if first < len(srv.nic_qos_program) else (
            srv.nic_qos_program[-1][0] if srv.nic_qos_program else 1)
        out.append(finding([name], "", f"servers/{name}/nic-qos.sh:{line}: the program differs from the one "
                           "dualrail ships", "verify reads only the plan's lines: an edited program may set anything"))
    return out


_CR_WHY = {
    "nic-qos.sh": ("the kernel looks for the interpreter `/bin/sh\\r` (no such file): the program never runs, and "
                   "the NICs keep their factory QoS (PCP trust, no PFC, no ECN)"),
    "nccl.env": ("a shell that sources it keeps the carriage return in every value it sets: NCCL_SOCKET_IFNAME "
                 "names an interface ending in `\\r`, which does not exist, and NCCL_IB_HCA's last device matches "
                 "none"),
}


@check("HOST-SHELL-TEXT", "the files a shell reads on a server (nccl.env, nic-qos.sh) have Unix line ends",
       reads={BASE, TOPOLOGY})
def shell_text(ctx: Context) -> list[Finding]:
    """verify reads every file with universal newlines (as ifupdown2, systemd, FRR and opensm do);
    /bin/sh does not: a CRLF file edited on another system stays CRLF, and the CR is part of the
    line's last word."""
    out = []
    for name, srv in ctx.snap.servers.items():
        for file, line in srv.carriage_returns:
            out.append(finding([name], "", f"servers/{name}/{file}:{line}: the line ends in a carriage return "
                               "(CRLF line ends)", _CR_WHY.get(file, "a shell keeps the CR in the line's last word")))
    return out


@check("HOST-FOREIGN-PORT", "a server's fabric interfaces file configures its planned NIC ports only, never the "
       "front-end or another interface the OS owns", reads={BASE, TOPOLOGY})
def foreign_port(ctx: Context) -> list[Finding]:
    """The rendered file (/etc/network/interfaces.d/dualrail.intf) holds one stanza per planned NIC
    port. ifupdown2 merges a stanza for any other interface with the OS's own (the front-end port
    that NCCL bootstraps over and operators log in through, `lo`, an InfiniBand port): `ifreload -a`
    then applies an address, a client method (DHCP) or a link state the plan never made to it."""
    out = []
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None:
            continue
        planned = {port.ifname for port in entry.ports}
        model = ctx.snap.manifest.server_models.get(entry.model)
        front = model.bootstrap_ifname if model is not None else None
        for port in srv.interfaces:
            if port in planned:
                continue
            line = srv.line_of.get(("interfaces", port), 0)
            where = f"servers/{name}/interfaces" + (f":{line}" if line else "")
            out.append(finding([name], "", f"{where}: a stanza for {port}, which is not one of {name}'s NIC ports"
                               + (" (it is the front-end port)" if port == front else ""),
                               "the deploy's `ifreload -a` applies it over the OS's own configuration of "
                               f"{port}" + (": the way in to the server and NCCL's bootstrap" if port == front else "")))
        # a command the host model does not read (reported as such) that names the front-end port
        for file, line, text in srv.unmodelled:
            if front and file == "interfaces" and text.startswith(POST_UP_UNREAD) and front in text.split():
                out.append(finding([name], "", f"servers/{name}/interfaces:{line}: {text[len(POST_UP_UNREAD):]} acts on "
                                   f"the front-end port {front}",
                                   "the way in to the server and NCCL's bootstrap are the OS's: a fabric file that "
                                   "changes them can cut both off at the next `ifreload -a`"))
    return out


@check("HOST-MTU", "each NIC port's MTU fits the leaf port at its other end", reads={BASE, TOPOLOGY})
def host_mtu(ctx: Context) -> list[Finding]:
    out = []
    leaf_of = _leaf_ports(ctx)
    why = "frames above the leaf's MTU are dropped: RoCE at the host's MTU never arrives"
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None:
            continue
        for port in entry.ports:
            iface = srv.interfaces.get(port.ifname)
            leaf, leaf_port = leaf_of.get((name, port.ifname), ("", ""))
            dev = ctx.snap.devices.get(leaf)
            leaf_iface = dev.interfaces.get(leaf_port) if dev else None
            if iface is None or leaf_iface is None or iface.mtu is None or leaf_iface.mtu is None:
                continue
            if iface.mtu > leaf_iface.mtu:
                out.append(finding([name, leaf], port.plane, f"servers/{name}/interfaces: {port.ifname} MTU {iface.mtu} "
                                   f"above {leaf} {leaf_port} MTU {leaf_iface.mtu}", why))
            planned = srv.nic_qos.get(port.ifname)
            mtu = _int(planned.settings.get("mtu")) if planned else None
            if mtu is not None and mtu != iface.mtu:
                said = (f"its interfaces file sets none (ifupdown2 sets its default, {iface.mtu})"
                        if port.ifname in srv.default_mtu else f"its interfaces file says {iface.mtu}")
                out.append(finding([name], port.plane, f"servers/{name}/nic-qos.sh:{planned.line if planned else 0}: "
                                   f"{port.ifname} MTU {mtu}, {said}",
                                   "the boot script and ifupdown2 fight over the MTU"))
    return out
