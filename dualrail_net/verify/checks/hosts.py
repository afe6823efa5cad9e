"""The host half (issue 16, host model): what each server's nccl.env and sysctl.conf make the host do,
against the plan (the manifest's NIC ports) and the fabric's QoS profile.

* NCCL must use every RDMA device of the server, of every plane, and nothing else (an exact-match
  list, so ``mlx5_1`` does not also match ``mlx5_10``), over RoCEv2 (GID index 3: the IPv4-mapped
  RoCEv2 GID), marking the traffic class the switches trust as RoCE (TC byte = DSCP << 2).
* Policy routing with several NICs needs ARP answered only by the owning port (arp_ignore 1,
  arp_announce 2) and no strict reverse-path filter (rp_filter 1 drops replies that arrive on a
  port whose main-table route for the source points at another port).
(A line of those files the model does not understand is reported by checks/unmodelled.py.)
"""

from __future__ import annotations

from dualrail_net.verify.checks import BASE, TOPOLOGY, Context, check, finding
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.hostroute import host_routing
from dualrail_net.verify.ipfast import ip_int

ROCE_V2_IPV4_GID_INDEX = "3"


@check("HOST-NCCL-HCA", "NCCL uses exactly the server's RDMA devices, in every plane",
       reads={BASE, TOPOLOGY})
def nccl_hca(ctx: Context) -> list[Finding]:
    out = []
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        value = srv.env.get("NCCL_IB_HCA")
        expected = {p.rdma_device: p.plane for p in entry.ports}
        if value is None:
            out.append(finding([name], "", f"{name}: nccl.env does not set NCCL_IB_HCA",
                               "NCCL then picks HCAs by itself, across planes and rails as it likes"))
            continue
        if not value.startswith("="):
            out.append(finding([name], "", f"{name}: NCCL_IB_HCA={value} is a prefix match (no leading '=')",
                               "mlx5_1 would also match mlx5_10..mlx5_19: devices outside the plan"))
        devices = [item.partition(":")[0] for item in value.lstrip("=^").split(",") if item]
        unknown = sorted(set(devices) - set(expected))
        missing = sorted(set(expected) - set(devices))
        if unknown:
            out.append(finding([name], "", f"{name}: NCCL_IB_HCA lists {', '.join(unknown)}, which the server "
                               "does not have", "NCCL fails to open the device or uses one outside the fabric"))
        if missing:
            planes = sorted({expected[d] for d in missing})
            lost = sorted(set(planes) - {expected[d] for d in devices if d in expected})
            out.append(finding([name], lost[0] if len(lost) == 1 else "",
                               f"{name}: NCCL_IB_HCA leaves out {', '.join(missing)} (plane {', '.join(planes)})"
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
        if value != ROCE_V2_IPV4_GID_INDEX:
            out.append(finding([name], "", f"{name}: NCCL_IB_GID_INDEX is {value or 'not set'}, not "
                               f"{ROCE_V2_IPV4_GID_INDEX} (RoCEv2, IPv4-mapped)",
                               "another GID is RoCEv1 or IPv6 link-local: the traffic is not routed IP between leaves"))
    return out


@check("HOST-NCCL-TC", "NCCL marks the traffic class the switches treat as RoCE (DSCP << 2)",
       reads={BASE, TOPOLOGY})
def nccl_tc(ctx: Context) -> list[Finding]:
    out = []
    markers = ctx.snap.manifest.qos_markers
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None:
            continue
        value = srv.env.get("NCCL_IB_TC")
        wanted = sorted({markers[p].roce_dscp << 2 for p in entry.planes if p in markers})
        if not wanted:
            continue
        if value is None or not value.isdigit() or int(value) not in wanted:
            dscp = ", ".join(str(w >> 2) for w in wanted)
            out.append(finding([name], "", f"{name}: NCCL_IB_TC is {value or 'not set'}, the fabric expects "
                               f"{', '.join(map(str, wanted))} (DSCP {dscp} << 2)",
                               "RoCE would arrive in a class without PFC and ECN: drops and retransmits"))
    return out


@check("HOST-SYSCTL", "servers answer ARP per port and do not drop policy-routed replies",
       reads={BASE, TOPOLOGY})
def host_sysctl(ctx: Context) -> list[Finding]:
    out = []
    why_arp = "with several NICs on one subnet side, another port answers ARP and traffic leaves on the wrong plane"
    why_rp = "strict reverse-path filtering (1) drops replies that arrive on a port the main table does not use"
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        sysctl = srv.sysctl
        for key, wanted in (("net.ipv4.conf.all.arp_ignore", "1"), ("net.ipv4.conf.all.arp_announce", "2")):
            if sysctl.get(key) != wanted:
                out.append(finding([name], "", f"{name}: {key} is {sysctl.get(key, 'not set')}, not {wanted}", why_arp))
        for scope in ["all", *(p.ifname for p in entry.ports)]:
            key = f"net.ipv4.conf.{scope}.rp_filter"
            if sysctl.get(key, "1" if scope != "all" else "0") == "1":
                out.append(finding([name], "", f"{name}: {key} is {sysctl.get(key, 'not set (the default, 1)')}",
                                   why_rp))
    return out


@check("HOST-FORWARDING", "traffic from each NIC port reaches its own plane through that port, and never leaves "
       "through another plane's port", reads={BASE, TOPOLOGY})
def host_forwarding(ctx: Context) -> list[Finding]:
    """The kernel's decision (verify/hostroute.py) for a packet from each planned port's address to
    a destination in every routed prefix of every plane."""
    out = []
    why_cross = "a plane's source address enters the other plane: replies cannot return, and a plane fault spreads"
    why_lost = "the port cannot reach its own plane: its share of every collective stalls"
    destinations = {plane: [(str(net), int(net.network_address) + 2) for net in nets]
                    for plane, nets in ctx.snap.routed.items()}
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        routing = host_routing(srv)
        plane_of_port = {p.ifname: p.plane for p in entry.ports}
        reported: set[tuple[str, str]] = set()
        for port in entry.ports:
            iface = srv.interfaces.get(port.ifname)
            if iface is None or not iface.addresses:
                continue  # ADDR checks report a planned port without an address
            source = ip_int(iface.addresses[0].partition("/")[0])
            for plane, targets in destinations.items():
                for prefix, destination in targets:
                    egress = routing.lookup(source, destination)
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
                                               f"({iface.addresses[0]}) to {prefix} has no route", why_lost))
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
    return out
