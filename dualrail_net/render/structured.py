"""Resolved model -> structured config: one plain dict per device holding every value a template
prints. All decisions (policy names, which ports get QoS, what is advertised) are made here."""

from __future__ import annotations

from typing import Any

from dualrail_net.resolve.model import BGP_TIMERS, Fabric, PlaneVrf, Qos, Switch

Structured = dict[str, Any]

# Roles whose outbound advertisements are limited to their own prefixes: they must never become
# transit between two upstream switches.
NON_TRANSIT_ROLES = {"leaf", "gateway"}


def policy_names(plane: str) -> dict[str, str]:
    return {
        "plane_list": f"PLANE-{plane}",
        "local_list": f"LOCAL-{plane}",
        "in": f"PLANE-{plane}-IN",
        "out": f"PLANE-{plane}-OUT",
        "local_out": f"LOCAL-{plane}-OUT",
        "external_list": f"EXTERNAL-{plane}",
        "external_in": f"EXTERNAL-{plane}-IN",
        "external_out": f"EXTERNAL-{plane}-OUT",
    }


def _prefix_entries(prefixes: list[str], le: bool) -> list[dict[str, Any]]:
    return [{"seq": 10 * (i + 1), "action": "permit", "prefix": p, "le": 32 if le else None}
            for i, p in enumerate(prefixes)]


def _policies(fabric: Fabric, plane: str, local: list[str], non_transit: bool,
              external: list[str] | None = None) -> tuple[list[Structured], list[Structured]]:
    """The plane's prefix-lists and route-maps on one device. ``external``: the prefixes a gateway
    accepts from its external peers in this plane (EXTERNAL-<plane>-IN), which it passes on into
    the plane with its own (LOCAL-<plane>-OUT); toward the peers it sends the plane's prefixes."""
    names = policy_names(plane)
    prefix_lists = [{"name": names["plane_list"], "entries": _prefix_entries(fabric.planes[plane].routed_prefixes, True)}]
    route_maps = [{"name": names["in"], "seq": 10, "action": "permit", "match": names["plane_list"]}]
    if non_transit:
        entries = _prefix_entries(local, False)
        entries += [{"seq": 10 * (len(entries) + i + 1), "action": "permit", "prefix": p, "le": 32}
                    for i, p in enumerate(external or [])]
        prefix_lists.append({"name": names["local_list"], "entries": entries})
        route_maps.append({"name": names["local_out"], "seq": 10, "action": "permit", "match": names["local_list"]})
        if external:
            prefix_lists.append({"name": names["external_list"], "entries": _prefix_entries(external, True)})
            route_maps.append({"name": names["external_in"], "seq": 10, "action": "permit",
                               "match": names["external_list"]})
            route_maps.append({"name": names["external_out"], "seq": 10, "action": "permit",
                               "match": names["plane_list"]})
    else:
        route_maps.append({"name": names["out"], "seq": 10, "action": "permit", "match": names["plane_list"]})
    return prefix_lists, route_maps


def _instance(sw: Switch, plane: str, vrf: PlaneVrf | None) -> Structured:
    names = policy_names(plane)
    out_policy = names["local_out"] if sw.role in NON_TRANSIT_ROLES else names["out"]
    vrf_name = vrf.name if vrf else None
    neighbors = [
        {
            "address": p.address, "remote_asn": p.remote_asn,
            "description": p.peer if p.kind == "external" else f"{p.peer}:{_peer_port(sw, p.port)}",
            "policy_in": names["external_in"] if p.kind == "external" else names["in"],
            "policy_out": names["external_out"] if p.kind == "external" else out_policy, "port": p.port,
        }
        for p in sw.bgp_peers if p.vrf == vrf_name and p.plane == plane
    ]
    return {
        "vrf": vrf_name,
        "plane": plane,
        "asn": sw.asn,
        "router_id": vrf.router_id if vrf else sw.router_id,
        "networks": list(vrf.networks if vrf else sw.networks),
        "neighbors": neighbors,
        "maximum_paths": sw.maximum_paths,
        "multipath_relax": sw.multipath_relax,
        "timers": {"keepalive": BGP_TIMERS[0], "hold": BGP_TIMERS[1]},
    }


def _peer_port(sw: Switch, local_port: str) -> str:
    for port in sw.ports:
        if port.name == local_port:
            return port.peer_port
    return ""


BEST_EFFORT_TC = 0  # the class traffic without a DSCP rule lands in


def qos_structured(qos: Qos) -> Structured:
    return {
        "trust": qos.trust,
        "roce": {"dscp": qos.roce_dscp, "priority": qos.roce_priority, "tc": qos.roce_tc},
        "cnp": {"dscp": qos.cnp_dscp, "priority": qos.cnp_priority, "tc": qos.cnp_tc},
        "pfc": {"priorities": qos.pfc_priorities, "xoff_bytes": qos.pfc_xoff_bytes,
                "xon_delta_bytes": qos.pfc_xon_delta_bytes, "cable_length_m": qos.pfc_cable_length_m},
        "ecn": {"tcs": qos.ecn_tcs, "min_bytes": qos.ecn_min_bytes, "max_bytes": qos.ecn_max_bytes,
                "probability": qos.ecn_probability},
        "roce_bandwidth_percent": qos.roce_bandwidth_percent,
        "other_bandwidth_percent": 100 - qos.roce_bandwidth_percent,
        # the queues a per-queue platform (SONiC's QUEUE table) configures besides the CNPs': RoCE's
        # and best effort's (TC0, where unmarked traffic goes) share the port by DWRR weight, each
        # ECN class marks. Best effort keeps its weight whether ECN marks it or not, and an ECN
        # class no DSCP maps to carries nothing, so it takes no weight (a scheduler tied to the
        # ECN classes left best effort without one, RoCE taking the port, or diluted RoCE's share)
        "queues": [{"tc": tc, "dwrr": ("roce" if tc == qos.roce_tc else "other" if tc == BEST_EFFORT_TC else None),
                    "ecn": tc in qos.ecn_tcs}
                   for tc in sorted({BEST_EFFORT_TC, qos.roce_tc, *qos.ecn_tcs} - {qos.cnp_tc})],
        # The DSCP->TC map: RoCE data and CNP explicitly, everything else stays best effort (TC0).
        "dscp_map": [{"dscp": qos.roce_dscp, "tc": qos.roce_tc, "priority": qos.roce_priority},
                     {"dscp": qos.cnp_dscp, "tc": qos.cnp_tc, "priority": qos.cnp_priority}],
    }


def switch_structured(fabric: Fabric, sw: Switch) -> Structured:
    qos = fabric.qos[sw.qos_profile]
    interfaces = [
        {
            "name": p.name, "number": p.number, "kind": p.kind,
            "description": f"{p.peer}:{p.peer_port}" if p.peer_port else p.peer,
            "address": p.address, "mtu": sw.mtu, "vrf": p.vrf, "plane": p.plane, "speed": p.speed,
        }
        for p in sw.ports
    ]
    prefix_lists: list[Structured] = []
    route_maps: list[Structured] = []
    instances: list[Structured] = []
    if sw.plane is not None:
        pl, rm = _policies(fabric, sw.plane, sw.networks, sw.role in NON_TRANSIT_ROLES)
        prefix_lists += pl
        route_maps += rm
        instances.append(_instance(sw, sw.plane, None))
    for vrf in sw.vrfs:
        external = list(dict.fromkeys(prefix for p in sw.bgp_peers if p.kind == "external" and p.vrf == vrf.name
                                      for prefix in p.accepts))
        pl, rm = _policies(fabric, vrf.plane, vrf.networks, sw.role in NON_TRANSIT_ROLES, external)
        prefix_lists += pl
        route_maps += rm
        instances.append(_instance(sw, vrf.plane, vrf))
    return {
        "hostname": sw.name,
        "role": sw.role,
        "plane": sw.plane,
        "planes": sw.planes,
        "platform": sw.platform,
        "model": sw.model,
        "firmware": sw.firmware,
        "asn": sw.asn,
        "router_id": sw.router_id,
        "loopback": sw.loopback if sw.plane is not None else None,
        "mgmt_address": sw.mgmt_address,
        "mtu": sw.mtu,
        "vrfs": [{"name": v.name, "plane": v.plane, "table": v.table, "loopback": v.loopback} for v in sw.vrfs],
        "interfaces": interfaces,
        "static_blackholes": list(sw.static_blackholes),
        "prefix_lists": prefix_lists,
        "route_maps": route_maps,
        "bgp": instances,
        "qos_profile": sw.qos_profile,
        "qos": qos_structured(qos),
        "management": management_structured(fabric, sw),
    }


EOS_ROLES = {"admin": ("15", "network-admin"), "operator": ("15", "network-operator"), "read-only": ("1", "network-operator")}


def management_structured(fabric: Fabric, sw: Switch) -> Structured | None:
    """The management section as every platform's templates need it (None: the inventory has none).
    SSH keys are split into their words (a template prints each as one token); secrets are names,
    never values (the driver puts the values in at push time)."""
    m = fabric.management
    if m is None or sw.mgmt_address is None:
        return None
    return {
        "vrf": m.vrf, "address": sw.mgmt_address, "gateway": m.gateway, "ntp": list(m.ntp), "syslog": list(m.syslog),
        "dns": list(m.dns), "lldp": m.lldp, "ssh": m.ssh, "api": m.api, "gnmi": m.gnmi,
        "users": [{"name": u.name, "role": u.role, "privilege": EOS_ROLES[u.role][0], "eos_role": EOS_ROLES[u.role][1],
                   "password_secret": u.password_secret, "ssh_keys": [key.split(" ") for key in u.ssh_keys]}
                  for u in m.users],
        "tacacs": {"servers": list(m.tacacs.servers), "key_secret": m.tacacs.key_secret} if m.tacacs else None,
        "radius": {"servers": list(m.radius.servers), "key_secret": m.radius.key_secret} if m.radius else None,
        "snmp_community_secret": m.snmp_community_secret,
    }
