"""Arista EOS running-config -> DeviceConfig."""

from __future__ import annotations

from pathlib import Path

from dualrail_net.verify.model import (
    BgpInstance,
    DeviceConfig,
    EcnProfile,
    Interface,
    StaticRoute,
)
from dualrail_net.verify.parsers.files import read_text
from dualrail_net.verify.parsers.frr import finish_bgp, neighbor_statement, parse_prefix_list_line, route_map_entry
from dualrail_net.verify.parsers.tree import Node, parse_tree

UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1000 * 1000}


def _threshold(words: list[str], key: str) -> int:
    i = words.index(key)
    value, unit = int(words[i + 1]), words[i + 2] if i + 2 < len(words) else "bytes"
    return value * UNITS.get(unit, 1)


def _interface(node: Node, dev: DeviceConfig) -> None:
    name = node.words[1]
    iface = dev.interfaces.setdefault(name, Interface(name, is_loopback=name.startswith("Loopback")))
    for child in node.children:
        w = child.words
        if w[:2] == ["ip", "address"] and len(w) >= 3:
            iface.addresses.append(w[2])
        elif w[0] == "mtu" and len(w) > 1:
            iface.mtu = int(w[1])
        elif w[0] == "vrf" and len(w) > 1:
            iface.vrf = w[-1]
        elif w[0] == "description":
            iface.description = " ".join(w[1:])
        elif w[:2] == ["priority-flow-control", "priority"] and len(w) >= 4 and w[3] == "no-drop":
            iface.pfc_priorities = sorted(set((iface.pfc_priorities or []) + [int(w[2])]))
        elif w[0] == "tx-queue" and len(w) > 1:
            tc = int(w[1])
            for q in child.children:
                qw = q.words
                if qw[:2] == ["random-detect", "ecn"] and "minimum-threshold" in qw:
                    iface.ecn = iface.ecn or {}
                    prob = int(qw[qw.index("max-mark-probability") + 1]) if "max-mark-probability" in qw else 100
                    iface.ecn[tc] = EcnProfile(_threshold(qw, "minimum-threshold"),
                                               _threshold(qw, "maximum-threshold"), prob)
                elif qw == ["priority", "strict"]:
                    iface.strict_tcs = sorted(set(iface.strict_tcs + [tc]))


def _bgp_statements(inst: BgpInstance, children: list[Node]) -> None:
    for child in children:
        w = child.words
        if w[0] == "router-id" and len(w) > 1:
            inst.router_id = w[1]
        elif w[0] == "maximum-paths" and len(w) > 1:
            inst.maximum_paths = int(w[1])
        elif w[:4] == ["bgp", "bestpath", "as-path", "multipath-relax"]:
            inst.multipath_relax = True
        elif w[0] == "neighbor" and len(w) >= 3:
            neighbor_statement(inst, w)
        elif w[0] == "network" and len(w) > 1:
            inst.networks.append(w[1])
        elif w[0] == "redistribute" and len(w) > 1:
            inst.redistribute.append(w[1])
        elif w[:2] == ["route-target", "import"]:
            inst.rt_import.extend(x for x in w[2:] if ":" in x)
        elif w[:2] == ["route-target", "export"]:
            inst.rt_export.extend(x for x in w[2:] if ":" in x)
        elif w[:2] == ["route-target", "both"]:
            inst.rt_import.extend(x for x in w[2:] if ":" in x)
            inst.rt_export.extend(x for x in w[2:] if ":" in x)


def parse_eos(text: str, dev: DeviceConfig) -> None:
    for node in parse_tree(text):
        w = node.words
        if w[0] == "hostname" and len(w) > 1:
            dev.hostname = w[1]
        elif w[:3] == ["qos", "map", "dscp"] and "traffic-class" in w:
            tc = int(w[w.index("traffic-class") + 1])
            for dscp in w[3:w.index("to")]:
                dev.qos.dscp_to_tc[int(dscp)] = tc
                dev.qos.dscp_to_priority[int(dscp)] = tc  # EOS: traffic class N <-> priority N by default
        elif w[:2] == ["vrf", "instance"] and len(w) > 2:
            dev.vrfs.setdefault(w[2], None)
        elif w[0] == "interface" and len(w) > 1:
            _interface(node, dev)
        elif w[:2] == ["ip", "route"]:
            vrf = None
            rest = w[2:]
            if rest[:1] == ["vrf"]:
                vrf, rest = rest[1], rest[2:]
            if len(rest) >= 2:
                nexthop = None if rest[1] == "Null0" else rest[1]
                dev.static_routes.append(StaticRoute(vrf, rest[0], nexthop))
        elif w[:2] == ["ip", "prefix-list"] and len(w) > 2:
            if len(w) > 3:
                entry = parse_prefix_list_line(w, 3)
                if entry:
                    dev.prefix_lists.setdefault(w[2], []).append(entry)
            for child in node.children:
                entry = parse_prefix_list_line(child.words, 0)
                if entry:
                    dev.prefix_lists.setdefault(w[2], []).append(entry)
        elif w[0] == "route-map" and len(w) >= 4:
            route_map_entry(node, dev)
        elif w[:2] == ["router", "bgp"] and len(w) >= 3:
            asn = int(w[2])
            default = BgpInstance(None, asn)
            _bgp_statements(default, [c for c in node.children if c.words[0] != "vrf"])
            if default.neighbors or default.networks or default.router_id:
                dev.bgp[None] = default
            for child in node.children:
                if child.words[0] == "vrf" and len(child.words) > 1:
                    inst = BgpInstance(child.words[1], asn)
                    _bgp_statements(inst, child.children)
                    dev.bgp[inst.vrf] = inst
        elif w[:2] == ["router", "general"]:
            for vrf_node in node.children:
                if vrf_node.words[0] != "vrf" or len(vrf_node.words) < 2:
                    continue
                for leak in vrf_node.children:
                    lw = leak.words
                    if lw[:3] == ["leak", "routes", "source-vrf"] and len(lw) > 3:
                        dev.vrf_route_leaks.append((lw[3], vrf_node.words[1]))
    finish_bgp(dev)
    # Route-target leaking: an instance importing an RT another VRF exports.
    exports = {rt: inst.vrf or "default" for inst in dev.bgp.values() for rt in inst.rt_export}
    for inst in dev.bgp.values():
        for rt in inst.rt_import:
            source = exports.get(rt)
            if source and source != (inst.vrf or "default"):
                dev.vrf_route_leaks.append((source, inst.vrf or "default"))


def parse_device(name: str, folder: Path) -> DeviceConfig:
    """An EOS device folder (its one running-config) -> DeviceConfig, routing included."""
    dev = DeviceConfig(name=name, platform="eos")
    parse_eos(read_text(folder / "running-config"), dev)
    return dev
