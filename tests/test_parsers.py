"""Round trip for every platform parser: render -> parse == the resolved model."""

from __future__ import annotations

import random
import re
from typing import Any
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.render.pipeline import device_dir
from dualrail_net.resolve.model import Fabric, Switch
from dualrail_net.verify.model import BgpInstance, DeviceConfig, Interface, LinkSettings, RouteMapEntry
from dualrail_net.verify.parsers import frr as frr_parser
from dualrail_net.verify.parsers import frr_cli
from dualrail_net.verify.parsers import ifupdown, link
from dualrail_net.verify.parsers import parse_device, parse_server
from dualrail_net.platforms.cumulus.qos_features import expand_port_set
from dualrail_net.platforms import get_platform
from dualrail_net.verify.parsers.tree import parse_tree


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    path = tmp_path_factory.mktemp("parsers") / "build"
    write_artifacts(render_fabric(example_fabric), path)
    return path


def expected(sw: Switch) -> dict[str, object]:
    ports = {p.name: (p.address, p.vrf) for p in sw.ports}
    bgp: dict[str | None, dict[str, int]] = {}
    for peer in sw.bgp_peers:
        bgp.setdefault(peer.vrf, {})[peer.address] = peer.remote_asn
    networks = {None: sorted(sw.networks)} if sw.plane else {v.name: sorted(v.networks) for v in sw.vrfs}
    return {"ports": ports, "bgp": bgp, "networks": networks}


@pytest.mark.parametrize("platform", ["cumulus", "eos"])
def test_round_trip(out: Path, example_fabric: Fabric, platform: str) -> None:
    qos = next(iter(example_fabric.qos.values()))
    switches = [s for s in example_fabric.switches.values() if s.platform == platform]
    assert switches
    for sw in switches:
        dev = parse_device(sw.name, sw.platform, out / device_dir(sw))
        want = expected(sw)
        assert dev.hostname == sw.name
        got_ports = {n: (i.addresses[0], i.vrf) for n, i in dev.interfaces.items() if i.addresses and not i.is_loopback}
        assert got_ports == want["ports"]
        assert {v: {a: n.remote_asn for a, n in inst.neighbors.items()} for v, inst in dev.bgp.items()} == want["bgp"]
        assert {v: sorted(inst.networks) for v, inst in dev.bgp.items()} == want["networks"]
        for inst in dev.bgp.values():
            assert inst.asn == sw.asn
            assert inst.maximum_paths == sw.maximum_paths
            # (a platform that relaxes multipath by default, EOS, does so where the plan needs none)
            assert inst.multipath_relax == (sw.multipath_relax or getattr(get_platform(platform), "relaxes_multipath",
                                                                          False))
        if sw.plane:
            assert dev.bgp[None].router_id == sw.router_id
            loops = [a for i in dev.interfaces.values() if i.is_loopback for a in i.addresses]
            assert loops == [sw.loopback]
        else:
            assert {v: dev.vrfs.get(v) for v in dev.vrfs} == ({v.name: v.table for v in sw.vrfs} if platform == "cumulus"
                                                            else {v.name: None for v in sw.vrfs})
        assert dev.qos.dscp_to_tc == {qos.roce_dscp: qos.roce_tc, qos.cnp_dscp: qos.cnp_tc}
        for port in sw.ports:
            iface = dev.interfaces[port.name]
            assert iface.mtu == sw.mtu
            assert iface.pfc_priorities == qos.pfc_priorities
            assert iface.ecn is not None and sorted(iface.ecn) == qos.ecn_tcs
            assert all((e.min_bytes, e.max_bytes, e.probability) ==
                       (qos.ecn_min_bytes, qos.ecn_max_bytes, qos.ecn_probability) for e in iface.ecn.values())
            assert qos.cnp_tc in iface.strict_tcs
        # policy: every neighbor's route-maps exist and reference defined prefix lists
        for inst in dev.bgp.values():
            for n in inst.neighbors.values():
                for rm in (n.route_map_in, n.route_map_out):
                    assert rm in dev.route_maps
                    for entry in dev.route_maps[rm]:
                        assert all(pl in dev.prefix_lists for pl in entry.match_prefix_lists)


def test_server_round_trip(out: Path, example_fabric: Fabric) -> None:
    for srv in example_fabric.servers:
        parsed = parse_server(srv.name, out / "servers" / srv.name)
        assert {n: i.addresses for n, i in parsed.interfaces.items()} == {p.ifname: [p.address] for p in srv.ports}
        assert {(r.source, r.table) for r in parsed.rules} == {(p.address.split("/")[0], p.table) for p in srv.ports}
        defaults = {(r.table, r.via, r.dev) for r in parsed.routes if r.prefix == "default"}
        assert defaults == {(p.table, p.gateway, p.ifname) for p in srv.ports}
        plane_routes = {(r.prefix, r.via, r.dev) for r in parsed.routes if r.prefix != "default"}
        assert plane_routes == {(r.prefix, r.via, r.dev) for r in srv.plane_routes}


def test_tree_parser_nesting() -> None:
    nodes = parse_tree("router bgp 1\n neighbor x remote-as 2\n !\n address-family ipv4 unicast\n  network 1.0.0.0/8\n"
                       " exit-address-family\nexit\n!\nhostname h\n")
    assert [n.text for n in nodes] == ["router bgp 1", "hostname h"]
    assert [c.text for c in nodes[0].children] == ["neighbor x remote-as 2", "address-family ipv4 unicast"]
    assert nodes[0].children[1].children[0].text == "network 1.0.0.0/8"


def test_port_set_expansion() -> None:
    assert expand_port_set("swp1-swp3,swp7") == ["swp1", "swp2", "swp3", "swp7"]


def tree_parse_frr(text: str) -> DeviceConfig:
    """The reference reading of an *indented* frr.conf: build the indentation tree
    (tree.parse_tree), then read each block from its nodes with the same statement helpers.
    parse_frr reads by FRR's node rules instead (indentation does not matter to it); on indented
    files both must agree. Unmodelled lines: a top-level line neither read nor known (its block is
    covered by it), a child of a block that the block's reader does not read (another address
    family is reported once, its lines with it)."""
    dev = DeviceConfig("ref", "cumulus")
    dev.routing_file = "frr.conf"
    unmodelled = dev.unmodelled

    def report(node: Any) -> None:
        unmodelled.append((node.line, node.text))

    pending = list(parse_tree(text))
    while pending:
        node = pending.pop(0)
        w = node.words
        if w[0] == "hostname" and len(w) == 2:
            dev.hostname = w[1]
            dev.names.append((w[1], "frr.conf", node.line))
        elif w[:2] == ["frr", "defaults"] and len(w) == 3:
            dev.frr_defaults = w[2]
        elif w[0] == "vrf" and len(w) == 2:
            dev.vrfs.setdefault(w[1], None)
            for child in node.children:
                route = frr_parser.static_route(child.words, w[1], child.line) if child.words[:2] == ["ip", "route"] else None
                if route:
                    dev.static_routes.append(route)
                else:
                    report(child)
        elif w[:2] == ["ip", "route"] and (route := frr_parser.static_route(w, None, node.line)):
            dev.static_routes.append(route)
        elif w[:2] == ["ip", "prefix-list"] and len(w) > 3 and \
                (entry := frr_parser.parse_prefix_list_line(w, 3, node.line)):
            dev.prefix_lists.setdefault(w[2], []).append(entry)
        elif w[0] == "route-map" and len(w) == 4 and w[2] in ("permit", "deny") and w[3].isdigit():
            rm = RouteMapEntry(int(w[3]), w[2], line=node.line)
            for child in node.children:
                if child.words[:4] == ["match", "ip", "address", "prefix-list"] and len(child.words) == 5:
                    rm.match_prefix_lists.append(child.words[4])
                elif child.words[0] != "description":
                    if child.words[:2] == ["set", "community"] and child.words[2:] != ["none"]:
                        rm.sets_community_line = child.line  # (a source of communities: communities.py)
                        words = [x for x in child.words[2:] if x != "additive"]
                        named = [frr_parser.STOP_COMMUNITIES.get(x.lower()) for x in words]
                        rm.community_set = tuple(sorted({x for x in named if x}))
                        rm.community_additive = "additive" in child.words
                        if words and all(x is not None or frr_parser.plain_community(word)
                                         for word, x in zip(words, named)):
                            continue
                    if child.words == ["set", "community", "none"]:
                        rm.community_set = ()
                    report(child)
            dev.route_maps.setdefault(w[1], []).append(rm)
        elif w[:2] == ["router", "bgp"] and len(w) in (3, 5) and (asn := frr_parser.parse_asn(w[2])):
            vrf = w[4] if len(w) == 5 else None
            inst = dev.bgp[vrf] = BgpInstance(vrf=vrf, asn=asn, line=node.line)
            for child in node.children:
                if child.words[0] != "address-family":
                    if not frr_parser.bgp_statement(inst, child.words, child.line):
                        report(child)
                elif child.words[1:] in (["ipv4"], ["ipv4", "unicast"]):
                    for grandchild in child.children:
                        if not frr_parser.bgp_statement(inst, grandchild.words, grandchild.line):
                            report(grandchild)
                else:
                    report(child)
        elif w[0] == "interface" and len(w) in (2, 4):
            pass  # zebra's port settings: the base part's (frr.zebra_interface_blocks)
        elif not node.text.startswith(frr_parser.KNOWN_TOP_LEVEL):
            report(node)
            if frr_cli.expand("config", tuple(w)) is None:
                pending[:0] = node.children  # FRR refuses the line and stays at the top level: so are they
    frr_parser.finish_bgp(dev)
    return dev


def flat_parse_frr(text: str) -> DeviceConfig:
    dev = DeviceConfig("ref", "cumulus")
    frr_parser.parse_frr(text, dev)
    return dev


ODD_FRR = [
    # another address family, a second bgp block for another VRF, peer-groups, asdot, external
    "router bgp 1\n neighbor 1.1.1.1 remote-as 2\n neighbor 9.9.9.9 remote-as 9\n address-family ipv6 unicast\n"
    "  network 2001::/64\n address-family ipv4 unicast\n  network 10.0.0.0/8\n  network 11.0.0.0/8\n"
    " exit-address-family\nexit\nrouter bgp 3 vrf a\n neighbor F peer-group\n"
    " neighbor F remote-as external\n neighbor 2.2.2.2 peer-group F\n address-family ipv4 unicast\n  import vrf b\n"
    "router bgp 1.10 vrf c\n bgp router-id 1.2.3.4\n",
    # a vrf with static routes, route-map children, a prefix list with `any`, a set line, a comment
    "  hostname h\n vrf x\n  ip route 1.0.0.0/8 blackhole\n  ip route 2.0.0.0/8 10.0.0.1\n"
    "route-map M permit 10\n match ip address prefix-list P\n set community 0:1\n"
    "! comment\nip prefix-list P seq 5 permit 1.0.0.0/8 le 32\nip prefix-list Q seq 5 deny any\n"
    "ip route 3.0.0.0/8 Null0 nexthop-vrf x\n",
    # no default ipv4-unicast with activate, aggregates, route targets, an unknown top-level block
    "router bgp 7\n no bgp default ipv4-unicast\n neighbor 1.1.1.1 remote-as 8\n address-family ipv4 unicast\n"
    "  neighbor 1.1.1.1 activate\n  aggregate-address 10.0.0.0/8 summary-only\n  rt vpn both 1:1\n"
    "  import vpn\n  export vpn\n exit-address-family\nexit\ninterface swp1\n description x\n",
    # trailing blanks and CRs, an `exit` with trailing blanks, a tab before a statement
    "router bgp 9 \r\n neighbor 1.1.1.1 remote-as 2  \r\n neighbor 1.1.1.1 description a b \t\n exit \t\n"
    "ip route 4.0.0.0/8 blackhole\r\n",
    # values no parser may raise on: a huge number, a bad prefix, a non-ASCII digit, a bad ASN
    "router bgp 99999999999999999999999\n neighbor 1.1.1.1 remote-as 2\nip prefix-list P seq 5 permit 300.1.1.1/8\n"
    "ip prefix-list P seq \u00b2 permit 1.0.0.0/8\nrouter bgp 5\n maximum-paths 99999999999999\n"
    " neighbor 1.1.1.1 remote-as 70000.1\n network 10.0.0.0/33\nroute-map R permit x\n",
]


def _lines_zeroed(dev: DeviceConfig) -> DeviceConfig:
    """``dev`` with every line number dropped (for comparing readings of re-laid-out text)."""
    import copy
    dev = copy.deepcopy(dev)
    dev.unmodelled = [(0, text) for _, text in dev.unmodelled]
    for inst in dev.bgp.values():
        inst.line = inst.maximum_paths_line = 0
        inst.network_lines = {k: 0 for k in inst.network_lines}
        for n in inst.neighbors.values():
            n.line = 0
        for agg in inst.aggregates:
            agg.line = 0
    for entries in dev.prefix_lists.values():
        for e in entries:
            e.line = 0
    for rms in dev.route_maps.values():
        for rm in rms:
            rm.line = 0
    return dev


def test_frr_reader_reads_what_the_tree_reads(out: Path) -> None:
    """On indented files FRR's node rules and the indentation tree agree."""
    texts = [p.read_text() for p in sorted(out.rglob("frr.conf"))] + ODD_FRR
    assert len(texts) > 20
    for text in texts:
        assert flat_parse_frr(text) == tree_parse_frr(text), text[:200]


def test_frr_reader_does_not_depend_on_indentation(out: Path) -> None:
    """FRR accepts an un-indented (or oddly indented) frr.conf and means the same: so does the reader."""
    texts = [p.read_text() for p in sorted(out.rglob("frr.conf"))] + ODD_FRR
    rng = random.Random(7)
    for text in texts:
        indented = _lines_zeroed(flat_parse_frr(text))
        flat = "\n".join(line.strip() for line in text.splitlines())
        assert _lines_zeroed(flat_parse_frr(flat)) == indented, flat[:300]
        for _ in range(3):
            shaken = "\n".join(" " * rng.randint(0, 3) + line.lstrip(" ") for line in text.splitlines())
            assert _lines_zeroed(flat_parse_frr(shaken)) == indented, shaken[:300]


def test_frr_reader_follows_frr_node_rules() -> None:
    dev = flat_parse_frr(ODD_FRR[0])
    assert dev.bgp[None].networks == ["10.0.0.0/8", "11.0.0.0/8"]
    assert dev.bgp["a"].vrf_imports == ["b"]
    member = dev.bgp["a"].neighbors["2.2.2.2"]
    assert (member.remote_kind, member.peer_group) == ("external", "F") and "F" not in dev.bgp["a"].neighbors
    assert dev.bgp["c"].asn == 1 * 65536 + 10
    assert dev.unmodelled == [(4, "address-family ipv6 unicast")]
    odd = flat_parse_frr(ODD_FRR[1])
    assert odd.prefix_lists["Q"][0].prefix == "0.0.0.0/0" and odd.prefix_lists["Q"][0].le == 32
    assert [r.prefix for r in odd.static_routes] == ["1.0.0.0/8", "2.0.0.0/8", "3.0.0.0/8"]
    assert (7, "set community 0:1") in odd.unmodelled
    af = flat_parse_frr(ODD_FRR[2])
    inst = af.bgp[None]
    assert not inst.default_ipv4_unicast and inst.neighbors["1.1.1.1"].activate is True
    assert inst.aggregates[0].summary_only and inst.vpn_import and inst.vpn_export
    assert af.unmodelled == []  # (`interface swp1` and its description: the base part's, zebra's port settings)
    bad = flat_parse_frr(ODD_FRR[4])
    assert None not in bad.bgp or bad.bgp[None].asn == 5
    assert bad.bgp[None].maximum_paths is None and "1.1.1.1" not in bad.bgp[None].neighbors
    # (`router bgp 999...` is no command of FRR's: refused, it opens no block, and the indented
    # `neighbor` under it is refused at the top level on its own line)
    assert len(bad.unmodelled) == 8, bad.unmodelled


def stanza_read_interfaces(text: str) -> ifupdown.InterfacesFile:
    """The reference reading of an interfaces file: stanzas first (parse_stanzas), then each
    stanza's attributes. read_interfaces does it in one pass without Stanza objects. (Unmodelled
    lines are compared apart: stanzas keep no line numbers.)"""
    ifaces: dict[str, Interface] = {}
    vrfs: dict[str, int | None] = {}
    commands: list[str] = []
    gateways: dict[str, str] = {}
    for st in ifupdown.parse_stanzas(text):
        iface = ifaces.setdefault(st.name, Interface(st.name))
        iface.is_loopback = st.name == "lo" or st.method == "loopback"
        # ifupdown2: the stanza's first line of a single-valued attribute; its n-th netmask for its
        # n-th address line
        firsts = [(key, value) for n, (key, value) in enumerate(st.attrs)
                  if key not in ifupdown.FIRST_ONLY or all(k != key for k, _ in st.attrs[:n])]
        address_lines: list[str] = []
        lengths: list[int | None] = []  # ifupdown2's netmask list: beside the last address so far
        for key, value in st.attrs:
            if key == "address":
                address_lines.append(value.split()[0] if value else "")
            elif key == "netmask" and address_lines:
                lengths += [None] * (len(address_lines) - 1 - len(lengths)) + [ifupdown.mask_length(value)]
        for n, address in enumerate(address_lines):
            if address and "/" not in address and n < len(lengths) and lengths[n] is not None:
                address_lines[n] = f"{address}/{lengths[n]}"
        iface.addresses += [a for a in address_lines if a]
        for key, value in firsts:
            if key == "address":
                pass
            elif key == "mtu" and value.isdigit():
                iface.mtu = int(value)
            elif key == "vrf":
                iface.vrf = value
            elif key == "vrf-table":
                vrfs[st.name] = int(value) if value.isdigit() else None
                iface.is_loopback, iface.vrf = True, st.name
            elif key == "alias":
                iface.description = value
            elif key == "bridge-ports":
                iface.bridge_ports = value.split()
            elif key in ("post-up", "up"):
                commands.append(value)
            elif key == "gateway":
                gateways[st.name] = value
            elif key == "link-down" and value == "yes":
                iface.down = "link-down"
            elif key in ("link-speed", "link-fec", "link-autoneg"):
                try:
                    value_of = {"link-speed": link.speed_mbps, "link-fec": link.fec, "link-autoneg": link.autoneg}[key]
                    settings = {"link-speed": "speed", "link-fec": "fec_mode", "link-autoneg": "negotiate"}[key]
                    link.set_link(iface, 0, **{settings: value_of(value)})
                except link.Unreadable:
                    pass
    # the auto class, from its own lines (stanzas do not hold them)
    brought_up = {name for _, line in ifupdown.numbered_lines(text)
                  if line.split()[:1] in (["auto"], ["allow-hotplug"]) for name in line.split()[1:]}
    for word in list(brought_up):  # `swp[1-4]`: each of the range, both ends
        m = re.fullmatch(r"(.+)\[(\d+)-(\d+)\](.*)", word)
        if m:
            brought_up |= {f"{m[1]}{i}{m[4]}" for i in range(int(m[2]), int(m[3]) + 1)}
    for name, iface in ifaces.items():
        if name not in brought_up:
            iface.down = ifupdown.NOT_AUTO
            vrfs.pop(name, None)  # (a VRF device no auto stanza creates does not exist)
    return ifupdown.InterfacesFile(ifaces, vrfs, commands, command_ports=[], command_lines=[], gateways=gateways)


def _without_unmodelled(parsed: ifupdown.InterfacesFile) -> ifupdown.InterfacesFile:
    return ifupdown.InterfacesFile(parsed.interfaces, parsed.vrfs, parsed.commands, command_ports=[],
                                   command_lines=[], gateways=parsed.gateways)


ODD_INTERFACES = [
    # attributes before any stanza, a repeated stanza, comments inside, tabs, trailing blanks, CRLF
    "mtu 1500\naddress 9.9.9.9/32\nauto swp1\niface swp1\n\taddress 10.0.0.1/31 \n  # address 8.8.8.8/32\n"
    "    mtu 9216\r\n    alias  a b  c \niface swp1 inet static\n    address 10.0.0.3/31\n",
    # a VRF device, a bridge, a stanza closed by `source`, an empty address, an `iface` without a name
    "iface red\n    vrf-table auto\n    address 10.9.0.1/32\nsource /etc/x\n    address 1.1.1.1/32\n"
    "iface br0\n  bridge-ports swp1 swp2\n  vrf red\n  address\niface\n  mtu x\n",
    # link settings, a repeat of one (ifupdown2 applies the stanza's first)
    "auto swp1\niface swp1\n    link-speed 100000\n    link-fec rs\n    link-autoneg off\n    link-fec bogus\n"
    "iface swp2\n    link-speed auto\n    link-fec baser\n    link-fec off\n",
    # server routes and rules, an `up` command, a loopback by method
    "auto ens1\niface ens1\n  post-up ip route replace default via 10.0.0.0 dev ens1 table 101\n"
    "  up ip rule add from 10.0.0.1 lookup 101\niface lo0 inet loopback\n  address 10.1.1.1/32\n",
    # netmasks after, between and before addresses; a line continued; a ranged auto
    "auto swp[1-2]\niface swp1\n  netmask 255.255.255.0\n  address 10.0.0.1\n  netmask 255.255.255.254\n"
    "  address 10.0.1.1\n  address 10.0.2.1/31\n  netmask 255.255.0.0\n  netmask 255.0.0.0\n"
    "iface swp2\n  mtu \\\n 9000\n  address 10.0.3.1\n",
]


def test_one_pass_interfaces_reader_reads_what_the_stanzas_say(out: Path) -> None:
    texts = [p.read_text() for p in sorted(out.rglob("interfaces"))] + ODD_INTERFACES
    assert len(texts) > 20
    for text in texts:
        assert _without_unmodelled(ifupdown.read_interfaces(text)) == stanza_read_interfaces(text), text[:200]
    odd = ifupdown.read_interfaces(ODD_INTERFACES[0]).interfaces["swp1"]
    assert (odd.addresses, odd.mtu, odd.description) == (["10.0.0.1/31", "10.0.0.3/31"], 9216, "a b  c")


def test_interfaces_lines_nobody_reads_are_reported() -> None:
    parsed = ifupdown.read_interfaces("mtu 1500\nauto swp1\niface swp1\n    address 10.0.0.1\n    netmask 255.255.255.254\n"
                                      "    link-speed 100000\n    bond-slaves swp2\n    mtu jumbo\n"
                                      "    netmask 255.0.255.0\n    link-down yes\n")
    assert parsed.unmodelled == [(1, "mtu 1500"), (8, "mtu jumbo"), (9, "netmask 255.0.255.0")]
    assert parsed.lag_members == {"swp2": ("swp1", 7)}  # (a switch's platform decides: parsers/link.py)
    assert parsed.interfaces["swp1"].link == LinkSettings(speed_mbps=100000)
    swp1 = parsed.interfaces["swp1"]
    assert swp1.addresses == ["10.0.0.1/31"] and swp1.down == "link-down"


def test_link_settings_in_one_vocabulary() -> None:
    odd = ifupdown.read_interfaces(ODD_INTERFACES[2])
    assert odd.interfaces["swp1"].link == LinkSettings(100000, "rs", False)
    assert odd.interfaces["swp1"].link.line == 3  # type: ignore[union-attr]
    assert odd.interfaces["swp2"].link == LinkSettings(None, "baser", None)
    assert odd.unmodelled == [(6, ifupdown.ignored_repeat("link-fec", "link-fec bogus")),
                              (10, ifupdown.ignored_repeat("link-fec", "link-fec off"))]


def test_a_stanza_s_repeated_attribute_is_its_first_and_a_netmask_is_its_address_s() -> None:
    """ifupdown2's addons read mtu, vrf, alias, ... with get_attr_value_first: a later `vrf` line
    does not move the port. Its parser files a netmask beside the stanza's last address so far (the
    next free place once that one has its own), and drops one before any address. A second stanza
    of the interface applies after the first (ifupdown2 runs the siblings in order)."""
    parsed = ifupdown.read_interfaces(
        "auto swp1\niface swp1\n    vrf plane-a\n    address 10.0.0.1\n    netmask 255.255.255.254\n    mtu 9216\n"
        "    address 10.0.1.1/31\n    address 10.0.2.1\n    vrf plane-b\n    mtu 1500\n    netmask 255.255.255.0\n"
        "    netmask 255.255.255.252\n"
        "auto swp2\niface swp2\n    mtu 9216\niface swp2\n    netmask 255.255.255.0\n    mtu 1500\n    address 10.0.3.1\n")
    swp1, swp2 = parsed.interfaces["swp1"], parsed.interfaces["swp2"]
    assert (swp1.vrf, swp1.mtu) == ("plane-a", 9216)
    assert swp1.addresses == ["10.0.0.1/31", "10.0.1.1/31", "10.0.2.1/24"]  # (the last netmask: no address)
    assert parsed.unmodelled == [(9, ifupdown.ignored_repeat("vrf", "vrf plane-b")),
                                 (10, ifupdown.ignored_repeat("mtu", "mtu 1500")),
                                 (17, "netmask 255.255.255.0 (before any address: ifupdown2 drops it)")]
    assert swp2.mtu == 1500 and swp2.addresses == ["10.0.3.1"]  # the sibling's mtu; a bare address


def test_continued_lines_iface_variable_and_shell_lists_as_ifupdown2_and_sh_run_them() -> None:
    """ifupdown2 joins the file around every backslash and puts the stanza's name for `$IFACE`;
    /bin/sh runs a post-up line's list: `;`, `&&`, `||`, a comment, redirections, `sh -c`.
    (bench_host_oracle.py's kinds continued, iface-variable, shell-form hold them to the kernel.)"""
    parsed = ifupdown.read_interfaces(
        "auto ens1\niface ens1\n    address 10.0.0.1/31\n    post-up ip rule add from 10.0.0.1 \\\n"
        "        lookup 101 priority 101\n    post-up ip route replace default via 10.0.0.0 dev $IFACE table 101\n"
        "    post-up true && ip rule add from 10.0.0.1 lookup 102 # rail 0\n"
        "    post-up ip rule add from 10.0.0.1 lookup 103 2>/dev/null; ip rule del from 10.0.0.1 lookup 103\n"
        "    post-up false || sh -c 'ip route add 10.9.0.0/16 via 10.0.0.0'\n"
        "    post-up ip rule add from 10.0.0.1 lookup 104 || ip rule add from 10.0.0.1 lookup 105\n"
        "    post-up ip route add $X via 10.0.0.0\n")
    assert parsed.commands == [
        "ip rule add from 10.0.0.1 lookup 101 priority 101",
        "ip route replace default via 10.0.0.0 dev ens1 table 101",
        "ip rule add from 10.0.0.1 lookup 102",
        "ip rule add from 10.0.0.1 lookup 103", "ip rule del from 10.0.0.1 lookup 103",
        "ip route add 10.9.0.0/16 via 10.0.0.0",
        "ip rule add from 10.0.0.1 lookup 104",
        "ip route add $X via 10.0.0.0"]  # (an expansion: kept whole, not judged)
    assert parsed.command_lines == [4, 6, 7, 8, 8, 9, 10, 11]
    unread: list[int] = []
    routes, rules = ifupdown.server_policy(parsed.commands, unread)
    assert [(r.table, r.delete) for r in rules] == [(101, False), (102, False), (103, False), (103, True),
                                                    (104, False)]
    assert unread == [7]
    assert ifupdown.auto_names("swp[1-3].100") == ["swp1.100", "swp2.100", "swp3.100", "swp[1-3].100"]
    assert ifupdown.auto_names("swp[1-99999]") is None  # bounded


def test_files_read_as_text_mode_reads_them(tmp_path: Path) -> None:
    from dualrail_net.verify.parsers import read_text as _read
    samples = {"plain": "a\nb\n", "crlf": "a\r\nb\r\n", "lone-cr": "a\rb\r\nc", "utf8": "alias café\n", "empty": ""}
    for name, text in samples.items():
        (tmp_path / name).write_bytes(text.encode())
        assert _read(tmp_path / name) == (tmp_path / name).read_text(encoding="utf-8"), name
    big = "x" * (3 << 20) + "\n"
    (tmp_path / "big").write_text(big)
    assert _read(tmp_path / "big") == big
    assert _read(tmp_path / "missing") == ""


def test_a_statement_with_trailing_words_keeps_them() -> None:
    trailing = flat_parse_frr(ODD_FRR[3])
    assert trailing.bgp[None].asn == 9 and trailing.bgp[None].neighbors["1.1.1.1"].description == "a b"



def test_a_shut_down_neighbor_brings_up_no_session() -> None:
    """`neighbor X shutdown` is read on both platforms: the neighbor leaves the instance's
    neighbors (what pairing and propagation read) and is kept as shut down."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    frr = flat_parse_frr("router bgp 1\n neighbor 1.1.1.1 remote-as 2\n neighbor 1.1.1.1 shutdown\n"
                         " neighbor 2.2.2.2 remote-as 3\n")
    assert list(frr.bgp[None].neighbors) == ["2.2.2.2"] and frr.bgp[None].shut_neighbors == ["1.1.1.1"]
    assert frr.unmodelled == []
    eos = DeviceConfig("e", "eos")
    parse_eos("router bgp 1\n   neighbor 1.1.1.1 remote-as 2\n   neighbor 1.1.1.1 shutdown\n", eos)
    assert eos.bgp[None].neighbors == {} and eos.bgp[None].shut_neighbors == ["1.1.1.1"]


def test_a_neighbor_shut_down_with_a_message_brings_up_no_session() -> None:
    """FRR's `neighbor X shutdown message TEXT` shuts the session down as the bare form does (the
    text only goes into the NOTIFICATION); `shutdown rtt N` shuts it down only on a slow link: a
    line the model does not judge, said."""
    frr = flat_parse_frr("router bgp 1\n neighbor 1.1.1.1 remote-as 2\n"
                         " neighbor 1.1.1.1 shutdown message maintenance window 42\n"
                         " neighbor 2.2.2.2 remote-as 3\n neighbor 2.2.2.2 shutdown rtt 5\n")
    assert list(frr.bgp[None].neighbors) == ["2.2.2.2"] and frr.bgp[None].shut_neighbors == ["1.1.1.1"]
    assert [text for _, text in frr.unmodelled] == ["neighbor 2.2.2.2 shutdown rtt 5"]


def test_frr_refuses_an_invalid_prefix_range_and_a_route_map_sequence_of_0() -> None:
    """Measured on FRR 8.4: a prefix-list entry whose ge or le is below the prefix's length, or
    whose ge is above its le, is refused (the list lacks it), `ge` equal to the length is taken;
    `route-map NAME permit 0`, a prefix-list entry numbered 0 and a static route of distance 0 are
    refused (no entry: the map stays undefined)."""
    dev = flat_parse_frr("ip prefix-list P seq 5 permit 10.12.0.0/20 ge 16 le 32\n"
                         "ip prefix-list P seq 6 permit 10.12.0.0/20 le 19\n"
                         "ip prefix-list P seq 7 permit 10.12.0.0/20 ge 24 le 22\n"
                         "ip prefix-list P seq 8 permit 10.12.0.0/20 ge 20 le 32\n"
                         "ip prefix-list P seq 9 permit 10.12.0.0/20 le 20\n"
                         "route-map R permit 0\n match ip address prefix-list P\nexit\nroute-map S permit 1\n"
                         "ip prefix-list P seq 0 permit 10.12.0.0/20 le 32\nip route 10.1.0.0/26 blackhole 0\n"
                         "ip route 10.2.0.0/26 blackhole 255\n")
    assert [e.seq for e in dev.prefix_lists["P"]] == [8, 9]
    assert [line for line, _, _ in dev.refused_lines] == [1, 2, 3, 6, 10]
    # a static route's distance is 1-255: 0 is refused (no route), 255 taken (and never installed)
    assert [(r.prefix, r.distance) for r in dev.static_routes] == [("10.2.0.0/26", 255)]
    assert "R" not in dev.route_maps and [e.seq for e in dev.route_maps["S"]] == [1]


def test_vpn_route_maps_stay_in_the_address_family() -> None:
    """`import vrf route-map NAME` and `route-map vpn import|export NAME` are address-family
    statements (a route-map definition is top-level): read into the instance, and the lines below
    them stay in the address family."""
    dev = flat_parse_frr("router bgp 1 vrf a\n address-family ipv4 unicast\n  import vrf b\n"
                         "  import vrf route-map IN\n  route-map vpn export OUT\n  maximum-paths 8\n"
                         " exit-address-family\nexit\nroute-map vpn permit 10\n")
    inst = dev.bgp["a"]
    assert inst.vpn_import_map == ("IN", 4) and inst.vpn_export_map == ("OUT", 5) and inst.maximum_paths == 8
    assert dev.unmodelled == [] and "vpn" in dev.route_maps  # (a map named vpn is still a map)


def test_best_path_attributes_of_a_route_map_are_read() -> None:
    """`set local-preference|weight|metric N` are read with their lines; relative values (`+5`) as
    deltas; symbolic ones (`igp`) are lines the model does not read."""
    dev = flat_parse_frr("route-map M permit 10\n match ip address prefix-list P\n set local-preference 200\n"
                         " set weight 7\n set metric 40\nroute-map N permit 10\n set metric +5\n set metric igp\n")
    entry = dev.route_maps["M"][0]
    assert (entry.local_pref, entry.weight, entry.med) == (200, 7, 40)
    assert entry.attribute_lines == {"local-preference": 3, "weight": 4, "metric": 5}
    assert dev.route_maps["N"][0].med is None and dev.route_maps["N"][0].deltas == {}  # (`igp` replaced +5)
    assert [text for _, text in dev.unmodelled] == ["set metric igp"]


def test_matches_on_a_routes_attributes_are_read_and_reported_where_not_judged() -> None:
    """`match origin|metric|tag|local-preference|peer` are read with their lines (and `no` takes
    one back); zebra's `match ip address prefix-len` / `match source-protocol` are what bgpd does
    not implement; `match tag` on a device that sets tags, any of them in a map that originates
    routes, and every one of them on EOS are reported (and not judged)."""
    dev = flat_parse_frr("route-map M permit 10\n match origin egp\n match metric 10\n match tag 5\n"
                         " match local-preference 200\n match peer 10.0.0.1\n match peer local\n"
                         " match ip address prefix-len 32\n match source-protocol static\n no match metric\n"
                         " match origin bogus\n match tag 0\n")
    entry = dev.route_maps["M"][0]
    # (`match peer local` replaces `match peer 10.0.0.1`: one rule per match command, measured on 8.4)
    assert entry.attribute_clauses == [("origin", "egp", 2), ("tag", "5", 4), ("local-preference", "200", 5),
                                       ("peer", "local", 7)]
    assert entry.bgpd_ignores == [("match ip address prefix-len 32", 8), ("match source-protocol static", 9)]
    hops = flat_parse_frr("route-map H permit 10\n match ip next-hop address 10.0.0.1\n match ip next-hop type blackhole\n"
                          " match probability 100\n match probability 40\n no match ip next-hop type\n"
                          " set as-path prepend last-as 3\n")
    assert hops.route_maps["H"][0].attribute_clauses == [("ip next-hop address", "10.0.0.1", 2), ("probability", "100", 4)]
    assert hops.route_maps["H"][0].prepend_last_as == 3 and [t for _, t in hops.unmodelled] == ["match probability 40"]
    assert [text for _, text in dev.unmodelled] == ["match origin bogus", "match tag 0"]
    tagged = flat_parse_frr("route-map M permit 10\n match tag 5\n set tag 7\n")
    assert tagged.route_maps["M"][0].attribute_clauses == []
    assert [text.split(":")[0] for _, text in tagged.unmodelled] == ["set tag 7", "match tag 5"]
    network = flat_parse_frr("route-map M permit 10\n match peer local\nrouter bgp 1\n network 10.0.0.0/24 route-map M\n")
    assert network.route_maps["M"][0].attribute_clauses == [("peer", "local", 2)]
    assert any("originates routes" in text for _, text in network.unmodelled)
    fib = flat_parse_frr("route-map Z permit 10\n match source-protocol bgp\nip protocol bgp route-map Z\n")
    assert fib.route_maps["Z"][0].bgpd_ignores == [] and [t for _, t in fib.unmodelled] == ["match source-protocol bgp"]
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("route-map M permit 10\n   match metric 10\n   match source-protocol bgp\n", eos)
    assert eos.route_maps["M"][0].attribute_clauses == [] and eos.route_maps["M"][0].bgpd_ignores == []
    assert [text for _, text in eos.unmodelled] == ["match metric 10", "match source-protocol bgp"]


def test_an_frr_match_on_an_ipv6_list_matches_nothing_and_no_takes_it_back() -> None:
    """`match ipv6 address prefix-list NAME` and `match ipv6 address NAME` in FRR: bgpd matches no
    IPv4 route on an IPv6 list (defined, empty or not: measured on the twin, the oracle's
    `match-family` kind), so the entry matches nothing and the clause is named; `no` of either takes
    it back; EOS's stays reported."""
    dev = flat_parse_frr("ipv6 prefix-list V6 seq 5 permit any\nroute-map M permit 10\n match ip address prefix-list L\n"
                         " match ipv6 address prefix-list V6\nroute-map N permit 10\n match ipv6 address A6\n"
                         "route-map O permit 10\n match ipv6 address prefix-list V6\n match ipv6 address A6\n"
                         " no match ipv6 address prefix-list V6\n no match ipv6 address A6\n")
    m, n, o = dev.route_maps["M"][0], dev.route_maps["N"][0], dev.route_maps["O"][0]
    assert (m.never_line, m.other_family) == (4, [("match ipv6 address prefix-list V6", 4)])
    assert (n.never_line, n.other_family) == (6, [("match ipv6 address A6", 6)])
    assert (o.never_line, o.other_family, o.match_lists) == (0, [], [])
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("route-map M permit 10\n   match ipv6 address prefix-list V6\n", eos)
    assert eos.route_maps["M"][0].never_line == 0 and eos.unmodelled == [(2, "match ipv6 address prefix-list V6")]


def test_a_static_route_through_a_gateway_and_a_port_is_settled_by_the_ports() -> None:
    """`ip route P GW PORT`: installed as a gateway route when the longest connected subnet holding
    GW is on PORT and PORT is up (zebra's IPV4_IFINDEX hop), else never (with why); `no` of the
    same form takes it back, `no` without the port does not. With `onlink` (anywhere among the
    options) the port's state and VRF alone decide: a gateway on no subnet of the port is a route
    out of the port; `onlink` right after the gateway names a port (staticd's grammar)."""
    from dualrail_net.verify.model import Interface
    from dualrail_net.verify.parsers import add_routing
    routing = flat_parse_frr("ip route 10.1.0.0/16 10.0.0.1 swp1\nip route 10.2.0.0/16 10.0.0.1 swp2\n"
                             "ip route 10.3.0.0/16 10.0.0.1 swp1 200\nip route 10.4.0.0/16 10.9.9.9 swp1\n"
                             "ip route 10.5.0.0/16 10.0.2.1 swp3\nip route 10.6.0.0/16 10.0.0.1 swp1\n"
                             "no ip route 10.6.0.0/16 10.0.0.1 swp1\nno ip route 10.1.0.0/16 10.0.0.1\n"
                             "ip route 10.7.0.0/16 10.0.0.1 swp1 onlink\nip route 10.8.0.0/16 10.9.9.9 swp1 tag 5 onlink 250\n"
                             "ip route 10.9.0.0/16 10.0.0.1 swp2 onlink\nip route 10.10.0.0/16 10.0.2.1 swp3 onlink\n"
                             "ip route 10.11.0.0/16 10.0.0.1 swp9 onlink\nip route 10.12.0.0/16 10.0.0.1 onlink\n"
                             "ip route 10.13.0.0/16 10.0.0.1 swp1 onlink onlink\n"
                             "ip route 10.14.0.0/16 10.0.0.1 swp1 onlink vrf blue\n")
    assert [t for _, t in routing.unmodelled] == ["no ip route 10.1.0.0/16 10.0.0.1",
                                                  "ip route 10.13.0.0/16 10.0.0.1 swp1 onlink onlink"]
    base = DeviceConfig("ref", "cumulus")
    base.interfaces = {"swp1": Interface("swp1", ["10.0.0.0/31"]), "swp2": Interface("swp2", ["10.0.1.0/31"]),
                       "swp3": Interface("swp3", ["10.0.2.0/31"], down="link-down")}
    dev = add_routing(base, routing)
    assert [(r.prefix, r.nexthop, r.via_port, r.distance, r.onlink) for r in dev.static_routes] == [
        ("10.1.0.0/16", "10.0.0.1", None, 1, False), ("10.3.0.0/16", "10.0.0.1", None, 200, False),
        ("10.7.0.0/16", "10.0.0.1", None, 1, False), ("10.8.0.0/16", "swp1", None, 250, False),
        ("10.9.0.0/16", "swp2", None, 1, False)]
    assert [(r.prefix, why) for r, why in dev.inactive_statics] == [
        ("10.2.0.0/16", "10.0.0.1 is on swp1's subnet, not on swp2's"),
        ("10.4.0.0/16", "no up port of the default VRF has a subnet holding 10.9.9.9"),
        ("10.5.0.0/16", "swp3 is down"), ("10.10.0.0/16", "swp3 is down"),
        ("10.11.0.0/16", "swp9 is no addressed port of the device (an onlink hop out of it is taken as not installed)"),
        ("10.12.0.0/16", "10.0.0.1 is on swp1's subnet, not on onlink's"),
        ("10.14.0.0/16", "swp1 is in the default VRF, not the next hop's")]


def test_the_connected_lookup_agrees_with_its_plain_reference() -> None:
    """parsers.connected_holder (one probe per length) against a scan of every subnet, on random
    subnets and addresses (overlapping lengths, /0 and /32 among them)."""
    from dualrail_net.verify.parsers import connected_holder, connected_holder_plain
    rng = random.Random(40)
    for _ in range(300):
        held: dict[tuple[int, int], str] = {}
        for i in range(rng.randint(0, 12)):
            length = rng.choice([0, 8, 16, 24, 30, 31, 32, rng.randint(0, 32)])
            net = rng.choice([0x0A000000, 0x0A0B0000, rng.getrandbits(32)]) & (((1 << length) - 1) << (32 - length))
            held.setdefault((length, net), f"swp{i}")
        for _ in range(20):
            address = rng.choice([0x0A0B0001, 0x0A000001, rng.getrandbits(32)])
            assert connected_holder(held, address) == connected_holder_plain(held, address)


def test_relative_sets_and_the_outbound_limit_are_read() -> None:
    """`set metric|local-preference +N|-N` are read as deltas (an absolute set on a later line
    replaces one, and the other way round); `neighbor X maximum-prefix-out N` with its line, and
    `no` of it."""
    dev = flat_parse_frr("route-map M permit 10\n set metric +10\n set local-preference 50\n"
                         " set local-preference -5\nroute-map N permit 10\n set metric -3\n set metric 7\n"
                         "router bgp 1\n neighbor 1.1.1.1 remote-as 2\n neighbor 2.2.2.2 remote-as 2\n"
                         " address-family ipv4 unicast\n  neighbor 1.1.1.1 maximum-prefix-out 12\n"
                         "  neighbor 2.2.2.2 maximum-prefix-out 3\n  no neighbor 2.2.2.2 maximum-prefix-out\n")
    m, n = dev.route_maps["M"][0], dev.route_maps["N"][0]
    assert m.deltas == {"metric": (10, 2), "local-preference": (-5, 4)} and m.local_pref is None
    assert n.deltas == {} and n.med == 7
    nbrs = dev.bgp[None].neighbors
    assert (nbrs["1.1.1.1"].send_limit, nbrs["1.1.1.1"].send_limit_line) == (12, 12)
    assert nbrs["2.2.2.2"].send_limit is None
    assert dev.unmodelled == []


def test_the_ipv4_match_accepts_what_the_plain_reader_accepts() -> None:
    rng = random.Random(8)
    alphabet = "0123456789.²٣/ x-"
    samples = ["0.0.0.0", "255.255.255.255", "256.1.1.1", "010.001.0.9", "1.2.3", "1.2.3.4.5", "1..2.3", "0255.1.1.1",
               "1.2.3.4\n", " 1.2.3.4", "199.249.250.255", "200.0.0.0", "299.0.0.0", "²1.1.1.1", ""]
    for _ in range(20000):
        if rng.random() < 0.5:
            samples.append(".".join(str(rng.randint(0, 300)).zfill(rng.choice((1, 1, 2, 3))) for _ in range(rng.choice((3, 4, 4, 5)))))
        else:
            samples.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16))))
    for text in samples:
        assert ifupdown._ipv4(text) == ifupdown.ipv4_plain(text), text
    assert sum(ifupdown._ipv4(t) for t in samples) > 1000  # the grammar's valid half is exercised


def test_the_nic_qos_reader_reads_what_the_plain_reader_reads(out: Path) -> None:
    """The memo of the program's code (the same text on every server) changes no reading: the shipped
    file, and edits that move the plan's markers, put plan lines in the code or code in the header."""
    from dualrail_net.verify.model import ServerConfig
    from dualrail_net.verify.parsers import PLAN_START, read_nic_qos, read_nic_qos_plain
    text = next(out.glob("servers/*/nic-qos.sh")).read_text()
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(PLAN_START))
    variants = [text, text.replace("\n", "\r\n"), "", "#!/bin/sh", "#!/bin/sh\n", PLAN_START + "\n" + text,
                "\n".join(lines[:1] + [lines[start]] + lines[1:]),  # the plan starts on line 2
                "\n".join(lines[:5] + ["port eth9 mlx5_9 mtu=9000"] + lines[5:]),  # a plan line among the code
                "\n".join(lines[:5] + ["  " + lines[start]] + lines[5:]),  # an indented plan start in the code
                "\n".join(lines[:5] + ["# --- end of the plan ---"] + lines[5:]),
                "\n".join(lines[:2] + ["FAILED=0; reboot"] + lines[2:]),  # code added at line 3
                "\n".join(lines[:start] + ["echo extra"] + lines[start:]),  # right before the plan
                "\n".join(lines[:start + 2] + ["port broken"] + lines[start + 2:]),
                text.replace(lines[start], "  " + lines[start]),  # the only plan start indented
                text.replace("# --- end of the plan ---", "")]
    for variant in variants * 2:  # twice: the second reading comes from the memo
        fast, plain = ServerConfig(name="s"), ServerConfig(name="s")
        read_nic_qos(variant, fast)
        read_nic_qos_plain(variant, plain)
        assert (fast.nic_qos_program, fast.nic_qos, fast.unmodelled) == \
            (plain.nic_qos_program, plain.nic_qos, plain.unmodelled), variant[:200]
    shipped = ServerConfig(name="s")
    read_nic_qos(text, shipped)
    assert shipped.nic_qos and len(shipped.nic_qos_program) > 40 and not shipped.unmodelled


def test_a_neighbors_lines_before_its_remote_as_are_refused() -> None:
    """bgpd ("Specify remote-as or peer-group commands first") refuses every line of a neighbor that
    no `remote-as`, `interface` or peer-group binding has created yet; the neighbor does not exist
    through them. Binding to a group not yet defined is refused too."""
    dev = flat_parse_frr("router bgp 65001\n neighbor 10.0.0.2 description early\n neighbor 10.0.0.2 remote-as 65002\n"
                         " neighbor 10.0.0.2 passive\n neighbor 10.0.0.9 peer-group LATER\n neighbor LATER peer-group\n"
                         " neighbor LATER remote-as external\n neighbor 10.0.0.8 peer-group LATER\n"
                         " address-family ipv4 unicast\n  neighbor 10.0.0.7 activate\n  neighbor 10.0.0.8 activate\n"
                         "  no neighbor 10.0.0.6 activate\n exit-address-family\n")
    inst = dev.bgp[None]
    assert inst.refused == [
        (2, "neighbor 10.0.0.2 description early", "no `remote-as` or `peer-group` for that neighbor before this line"),
        (5, "neighbor 10.0.0.9 peer-group LATER", "peer-group LATER is not defined before this line"),
        (10, "neighbor 10.0.0.7 activate", "no `remote-as` or `peer-group` for that neighbor before this line"),
        (12, "no neighbor 10.0.0.6 activate", "no `remote-as` or `peer-group` for that neighbor before this line")]
    assert set(inst.neighbors) == {"10.0.0.2", "10.0.0.8"} and inst.peer_groups == {"LATER"}
    assert inst.neighbors["10.0.0.2"].passive and inst.neighbors["10.0.0.2"].description == ""
    assert inst.neighbors["10.0.0.8"].activate is True and dev.unmodelled == []


def test_route_reflector_clients_are_refused_on_ebgp_and_unmodelled_on_ibgp() -> None:
    """bgpd refuses `route-reflector-client` on an eBGP neighbor (FRR 8.4: "Not an internal
    neighbor"); a peer-group's line is judged once, under the group's name; on iBGP (or without
    any remote-as), or on a group no neighbor is bound to, it is reported as unmodelled."""
    dev = flat_parse_frr("router bgp 65001\n neighbor 10.0.0.2 remote-as 65002\n neighbor 10.0.0.3 remote-as 65001\n"
                         " neighbor SPINES peer-group\n neighbor SPINES remote-as external\n"
                         " neighbor 10.0.0.4 peer-group SPINES\n neighbor 10.0.0.5 peer-group SPINES\n"
                         " neighbor 10.0.0.6 remote-as internal\n neighbor EMPTY peer-group\n"
                         " neighbor EMPTY remote-as external\n address-family ipv4 unicast\n"
                         "  neighbor 10.0.0.2 route-reflector-client\n  neighbor 10.0.0.3 route-reflector-client\n"
                         "  neighbor SPINES route-reflector-client\n  neighbor 10.0.0.6 route-reflector-client\n"
                         "  neighbor EMPTY route-reflector-client\n exit-address-family\n")
    inst = dev.bgp[None]
    assert inst.refused == [(12, "neighbor 10.0.0.2 route-reflector-client", "not an internal neighbor"),
                            (14, "neighbor SPINES route-reflector-client", "not an internal neighbor")]
    # a group without members is not judged, but never left silent
    assert sorted(dev.unmodelled) == [(13, "neighbor 10.0.0.3 route-reflector-client"),
                                      (15, "neighbor 10.0.0.6 route-reflector-client"),
                                      (16, "neighbor EMPTY route-reflector-client")]


def test_eos_installs_the_smaller_of_maximum_paths_and_ecmp() -> None:
    """`maximum-paths N ecmp M`: N paths are multipath candidates, at most M next hops are installed
    per route (a leaf with 4 uplinks and `ecmp 2` forwards over 2)."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    for line, width in (("maximum-paths 4 ecmp 2", 2), ("maximum-paths 4 ecmp 64", 4), ("maximum-paths 8", 8)):
        eos = DeviceConfig("e", "eos")
        parse_eos(f"router bgp 1\n   router-id 1.1.1.1\n   {line}\n", eos)
        assert eos.bgp[None].maximum_paths == width, line


def test_eos_lines_under_a_management_service_are_judged_or_reported() -> None:
    """An access list or another setting under `management ssh` can keep the operator out: never
    read silently."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("vrf instance mgmt\ninterface Management1\n   vrf mgmt\n   ip address 192.0.2.1/24\n!\nmanagement ssh\n   idle-timeout 60\n"
              "   ip access-group SSH-IN in\n   vrf mgmt\n      no shutdown\n      ip access-group X in\n", eos)
    assert [text for _, text in eos.unmodelled] == ["ip access-group X in"]  # not a form EOS has there
    assert eos.service_acls == {("ssh", None): ("SSH-IN", 8)}  # the default VRF's SSH (MGMT-ACL judges it)
    assert eos.management.ssh is True


def test_a_stanza_without_auto_is_never_applied() -> None:
    """ifupdown2 (`ifup -a` at boot, `ifreload -a`) applies the auto class only: a stanza whose
    `auto` line is gone keeps its port down; on a server nothing of it is applied (address,
    gateway, post-up routes and rules)."""
    from dualrail_net.verify.parsers import parse_server
    from dualrail_net.verify.parsers.ifupdown import NOT_AUTO, read_interfaces
    text = ("auto lo\niface lo inet loopback\n\nauto a b\niface a\n    address 10.0.0.1/31\niface b\n"
            "    address 10.0.0.3/31\n\nallow-hotplug c\niface c\n    address 10.0.0.5/31\n\niface d\n"
            "    address 10.0.0.7/31\n    post-up ip route add 10.9.0.0/16 via 10.0.0.6 dev d\n")
    parsed = read_interfaces(text)
    ifaces = parsed.interfaces
    assert {name: i.down for name, i in ifaces.items()} == {"lo": "", "a": "", "b": "", "c": "", "d": NOT_AUTO}
    # a hotplug stanza comes up at boot, but the deploy's `ifreload -a` leaves it as it was
    # (measured): its settings are said not to be in force until then
    assert [(line, said.split(" (")[0]) for line, said in parsed.unmodelled] == [(10, "allow-hotplug c")]
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "interfaces").write_text(text)
        srv = parse_server("s", Path(tmp))
    assert srv.interfaces["d"].addresses == [] and srv.routes == []
    assert srv.interfaces["a"].addresses == ["10.0.0.1/31"]


def test_post_up_commands_are_read_as_iproute2_reads_them() -> None:
    """Abbreviations and synonyms iproute2 accepts (any prefix of a keyword, `-4`, `table main`, a
    `|| true` tail) give the same route or rule as the rendered spelling; an unknown word keeps
    the command unmodelled (reported with its line)."""
    from dualrail_net.verify.parsers.ifupdown import server_policy
    canonical = server_policy(["ip rule add from 10.12.0.1 lookup 101 priority 101",
                               "ip route replace 10.10.0.0/24 via 10.12.0.0 dev e0 table 254"])
    for rule in ("ip rule add from 10.12.0.1 table 101 pref 101", "ip ru a from 10.12.0.1 lookup 101 prio 101",
                 "ip rule add priority 101 from 10.12.0.1/32 lookup 101 || true", "ip -4 rule add from 10.12.0.1 lookup 101 order 101"):
        assert server_policy([rule, "ip route replace 10.10.0.0/24 via 10.12.0.0 dev e0 table 254"]) == canonical, rule
    for route in ("ip r replace 10.10.0.0/24 via 10.12.0.0 dev e0 table main", "ip -4 ro rep 10.10.0.0/24 dev e0 via 10.12.0.0 table 254",
                  "/sbin/ip route replace 10.10.0.0/24 via 10.12.0.0 oif e0 table main || :"):
        assert server_policy(["ip rule add from 10.12.0.1 lookup 101 priority 101", route]) == canonical, route
    routes, rules = server_policy(["ip rule add from all lookup 101 priority 5"])
    assert (rules[0].source, rules[0].source_len) == ("0.0.0.0", 0)
    routes, _ = server_policy(["ip route replace unreachable 10.0.0.0/8", "ip r a blackhole 10.1.0.0/16 table 101 metric 7"])
    assert [(r.kind, r.prefix, r.table, r.metric) for r in routes] == [("unreachable", "10.0.0.0/8", None, 0),
                                                                       ("blackhole", "10.1.0.0/16", 101, 7)]
    unread: list[int] = []
    server_policy(["ip route add blackhole 10.0.0.0/8 via 10.1.1.1", "ip link set e0 down", "ip rule add fwmark 0x lookup 5",
                   "ip rule add fwmark 1/0x100000000 lookup 5", "ip rule add fwmark 09 lookup 5"], unread)
    assert unread == [0, 1, 2, 3, 4]  # (iproute2 refuses the last three marks: no digit, 33 bits, not octal)
    # the kernel's mask: the one given, else every bit for a mark that is not 0, none for 0
    _, rules = server_policy(["ip rule add fwmark 1 lookup 5", "ip rule add fwmark 0 lookup 5",
                              "ip rule add fwmark 0x10/0xf0 lookup 5", "ip rule add fwmark 010 lookup 5"])
    assert [r.fwmark for r in rules] == [(1, 0xFFFFFFFF), (0, 0), (16, 0xF0), (8, 0xFFFFFFFF)]


def test_allowas_in_is_read_on_frr_and_eos() -> None:
    from dualrail_net.platforms.eos.parse_config import parse_eos
    dev = flat_parse_frr("router bgp 1\n neighbor G peer-group\n neighbor G remote-as 2\n neighbor 1.1.1.1 peer-group G\n"
                         " neighbor 2.2.2.2 remote-as 2\n neighbor 3.3.3.3 remote-as 2\n address-family ipv4 unicast\n"
                         "  neighbor G allowas-in\n  neighbor 2.2.2.2 allowas-in origin\n  neighbor 3.3.3.3 allowas-in 2\n"
                         " exit-address-family\n")
    assert {a: n.allowas_in for a, n in dev.bgp[None].neighbors.items()} == {"1.1.1.1": 3, "2.2.2.2": 1, "3.3.3.3": 2}
    assert dev.unmodelled == []
    eos = DeviceConfig("e", "eos")
    parse_eos("router bgp 1\n   neighbor 1.1.1.1 remote-as 2\n   neighbor 1.1.1.1 allowas-in 1\n", eos)
    assert eos.bgp[None].neighbors["1.1.1.1"].allowas_in == 1 and eos.unmodelled == []


def test_eos_access_lists_are_read_entry_by_entry() -> None:
    from dualrail_net.platforms.eos.parse_config import parse_eos
    from dualrail_net.verify.controlplane import acl_permits
    from dualrail_net.verify.ipfast import ip_int
    eos = DeviceConfig("e", "eos")
    parse_eos("ip access-list A\n   remark x\n   10 permit tcp host 10.0.0.1 any eq bgp ssh\n"
              "   20 deny tcp 10.0.0.0/24 range 100 200 any\n   30 permit udp any neq 53 10.1.0.0/16 gt 1000 log\n"
              "   40 permit ip any any\n!\nip access-list standard S\n   10 permit 10.0.0.0/8\n!\n"
              "ip access-list B\n   10 permit tcp any any fragments\n", eos)
    a = eos.acls["A"]
    assert a is not None and [e.line for e in a] == [3, 4, 5, 6] and eos.acls["B"] is None
    assert a[0].destination_ports == ((179, 179), (22, 22)) and a[1].source_ports == ((100, 200),)
    assert a[2].source_ports == ((0, 52), (54, 65535)) and a[2].destination_ports == ((1001, 65535),)
    assert eos.acls["S"] is not None and eos.acls["S"][0].source == (ip_int("10.0.0.0"), 8)
    assert [text for _, text in eos.unmodelled] == ["10 permit tcp any any fragments"]
    one, two = ip_int("10.0.0.1"), ip_int("10.0.0.2")
    assert acl_permits(a, "tcp", one, 40000, two, 179) == (True, a[0])
    assert acl_permits(a, "tcp", two, 150, one, 179) == (False, a[1])
    assert acl_permits(a[:2], "udp", one, 1, two, 2) == (False, None)  # the implicit deny


def test_an_unnumbered_session_behind_an_access_list_is_not_judged() -> None:
    """Neighbors named by port (unnumbered) have no IPv4 address to hold to a list: no verdict,
    and never a traceback."""
    from dualrail_net.verify.controlplane import acl_refusal
    from dualrail_net.verify.topology import Session
    s = Session(("a", None), ("b", None), "swp1", "Ethernet1", 1, 2, 2, 1)
    assert acl_refusal(None, None, s) is None  # type: ignore[arg-type]


def test_send_community_as_the_platforms_default_it() -> None:
    """`[no] neighbor X send-community [standard|both|all]`: bgpd sends the standard communities
    unless told not to (a peer-group's setting reaches its members, a member's own wins); EOS sends
    none unless told to. Only the standard communities carry GRACEFUL_SHUTDOWN."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    from dualrail_net.verify.controlplane import sends_communities
    dev = DeviceConfig(name="leaf", platform="cumulus")
    frr_parser.parse_frr("router bgp 65001\n bgp graceful-shutdown\n neighbor PG peer-group\n neighbor PG remote-as external\n"
                         " neighbor 10.0.0.1 peer-group PG\n neighbor 10.0.0.3 peer-group PG\n"
                         " neighbor 10.0.0.5 remote-as 65002\n neighbor 10.0.0.7 remote-as 65002\n"
                         " address-family ipv4 unicast\n  no neighbor PG send-community\n"
                         "  neighbor 10.0.0.3 send-community both\n  no neighbor 10.0.0.7 send-community extended\n"
                         " exit-address-family\n", dev)
    inst = dev.bgp[None]
    assert inst.graceful_shutdown_line == 2 and dev.unmodelled == []
    sends = {a: sends_communities(dev, n) for a, n in inst.neighbors.items()}
    assert sends == {"10.0.0.1": False, "10.0.0.3": True, "10.0.0.5": True, "10.0.0.7": True}
    eos = DeviceConfig(name="spine", platform="eos")
    parse_eos("router bgp 65000\n   neighbor 10.0.0.0 remote-as 65001\n   neighbor 10.0.0.2 remote-as 65001\n"
              "   neighbor 10.0.0.4 remote-as 65001\n   neighbor 10.0.0.6 remote-as 65001\n"
              "   neighbor 10.0.0.2 send-community\n   neighbor 10.0.0.4 send-community extended standard\n"
              "   neighbor 10.0.0.6 send-community extended large\n", eos)
    assert eos.unmodelled == []
    sends = {a: sends_communities(eos, n) for a, n in eos.bgp[None].neighbors.items()}
    assert sends == {"10.0.0.0": False, "10.0.0.2": True, "10.0.0.4": True, "10.0.0.6": False}


def _filter_match_cisco(address: int, wildcard: int, mask: int, mask_wildcard: int, net: int, length: int) -> bool:
    """zebra's filter_match_cisco for an extended entry, written out: the prefix's address against
    the source, its netmask against the destination, each under its wildcard."""
    netmask = (0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF
    return net & ~wildcard & 0xFFFFFFFF == address and netmask & ~mask_wildcard & 0xFFFFFFFF == mask


def test_extended_access_list_entries_match_what_zebra_matches() -> None:
    """An extended entry read as prefix-list entries (parsers/frr._extended_entries) permits exactly
    the prefixes filter_match_cisco matches, on random entries and prefixes."""
    from dualrail_net.verify.ipfast import net_str
    from dualrail_net.verify.routes import explain_prefix_list

    rng = random.Random(20)
    checked = 0
    for _ in range(300):
        source_len = rng.randint(0, 32)
        wildcard = (1 << (32 - source_len)) - 1
        address = rng.getrandbits(32) & ~wildcard & 0xFFFFFFFF
        mask_wildcard = rng.choice([0, 0xFFFFFFFF, 0xFF, 0xFFFF, 0x00FF00FF, rng.getrandbits(32)])
        mask = (0xFFFFFFFF << (32 - rng.randint(0, 32))) & 0xFFFFFFFF & ~mask_wildcard
        dotted = [".".join(str(v >> s & 255) for s in (24, 16, 8, 0)) for v in (address, wildcard, mask, mask_wildcard)]
        words = ["access-list", "X", "permit", "ip", dotted[0], dotted[1], dotted[2], dotted[3]]
        entries = frr_parser.access_list_line(words, [])
        assert entries is not None, words
        dev = DeviceConfig("x", "cumulus")
        dev.prefix_lists["X"] = entries
        for _ in range(40):
            length = rng.randint(0, 32)
            net = (address if rng.random() < 0.6 else rng.getrandbits(32)) & ((0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF)
            expected = _filter_match_cisco(address, wildcard, mask, mask_wildcard, net, length)
            assert explain_prefix_list(dev, "X", net_str((net, length)))[0] == expected, (words, net_str((net, length)))
            checked += expected
    assert checked > 100  # (the draws match often enough to test both answers)


def test_update_source_is_read_for_frr_and_eos_and_a_peer_group_passes_it_on() -> None:
    from dualrail_net.verify.parsers import frr as frr_parser
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("router bgp 65000\n neighbor G peer-group\n neighbor G remote-as external\n"
                         " neighbor G update-source lo\n neighbor 1.1.1.1 peer-group G\n"
                         " neighbor 2.2.2.2 remote-as 65001\n neighbor 2.2.2.2 update-source 10.0.0.1\n"
                         " neighbor 3.3.3.3 remote-as 65001\n neighbor 3.3.3.3 update-source lo extra\n", dev)
    nbrs = dev.bgp[None].neighbors
    assert (nbrs["1.1.1.1"].update_source, nbrs["2.2.2.2"].update_source) == ("lo", "10.0.0.1")
    assert nbrs["1.1.1.1"].update_source_line == 4 and nbrs["3.3.3.3"].update_source is None
    assert (9, "neighbor 3.3.3.3 update-source lo extra") in dev.unmodelled
    inst = BgpInstance(None, 65000)
    assert frr_parser.neighbor_statement(inst, "neighbor 1.1.1.1 update-source Ethernet1/1".split(), 7, eos=True)
    assert inst.neighbors["1.1.1.1"].update_source == "Ethernet1/1"


def test_bgp_timers_and_ports_are_read_and_the_hold_time_offered_follows_frr_and_the_platforms() -> None:
    from dualrail_net.verify.controlplane import offered_hold_time
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("frr defaults traditional\nrouter bgp 65000\n timers bgp 10 30\n neighbor G peer-group\n"
                         " neighbor G remote-as external\n neighbor G timers 0 0\n neighbor G port 1790\n"
                         " neighbor 1.1.1.1 peer-group G\n neighbor 2.2.2.2 remote-as 65001\n"
                         " neighbor 3.3.3.3 remote-as 65001\n neighbor 3.3.3.3 timers 1 2\n"
                         " neighbor 3.3.3.3 timers connect 5\n neighbor 4.4.4.4 remote-as 65001\n"
                         " neighbor 4.4.4.4 timers 3 9\n no neighbor 4.4.4.4 timers\n", dev)
    inst = dev.bgp[None]
    nbrs = inst.neighbors
    assert inst.timers == (10, 30) and inst.timers_line == 3
    assert (nbrs["1.1.1.1"].timers, nbrs["1.1.1.1"].timers_line, nbrs["1.1.1.1"].port) == ((0, 0), 6, 1790)
    assert nbrs["2.2.2.2"].timers is None and nbrs["2.2.2.2"].port is None
    assert (11, "neighbor 3.3.3.3 timers 1 2") in dev.unmodelled  # (bgpd: a hold time of 1-2 s is refused)
    assert not any("timers connect" in text for _, text in dev.unmodelled)
    assert nbrs["4.4.4.4"].timers is None
    assert offered_hold_time(dev, inst, nbrs["1.1.1.1"])[:2] == (0, 6)
    assert offered_hold_time(dev, inst, nbrs["2.2.2.2"])[:2] == (30, 3)
    inst.timers = None
    assert offered_hold_time(dev, inst, nbrs["2.2.2.2"]) == (180, 0, "`frr defaults traditional`")
    for platform, profile, hold in (("cumulus", "datacenter", 9), ("cumulus", "", 9), ("sonic", "", 180),
                                    ("eos", "", 180), ("cumulus-nvue", "", 9)):
        other = DeviceConfig("y", platform)
        other.frr_defaults = profile
        assert offered_hold_time(other, BgpInstance(None, 1), nbrs["2.2.2.2"])[0] == hold, platform
    eos = BgpInstance(None, 65000)
    assert frr_parser.neighbor_statement(eos, "neighbor 1.1.1.1 timers 0 0".split(), 7, eos=True)
    assert eos.neighbors["1.1.1.1"].timers == (0, 0)


def test_network_statement_takes_a_route_map_and_the_later_one_wins() -> None:
    inst = BgpInstance(None, 65000)
    assert frr_parser.bgp_statement(inst, ["network", "10.0.0.0/24", "route-map", "A"], 3)
    assert frr_parser.bgp_statement(inst, ["network", "10.0.0.0/24", "route-map", "B"], 4)
    assert frr_parser.bgp_statement(inst, ["network", "10.1.0.0/24"], 5)
    assert inst.networks == ["10.0.0.0/24", "10.1.0.0/24"]
    assert inst.network_maps == {"10.0.0.0/24": ("B", 4)}
    assert frr_parser.bgp_statement(inst, ["network", "10.0.0.0/24"], 6)  # the map is gone again
    assert inst.network_maps == {} and inst.network_lines["10.0.0.0/24"] == 3
    for unread in (["network", "10.2.0.0/24", "route-map"], ["network", "10.2.0.0/24", "backdoor", "backdoor"],
                   ["network", "10.2.0.0/24", "label-index", "1048561"], ["network", "10.2.0.0/24", "label-index"],
                   ["network", "10.2.0.0/24", "label-index", "5", "label-index", "6"], ["network", "nonsense"]):
        assert not frr_parser.bgp_statement(inst, unread, 7)
    assert "10.2.0.0/24" not in inst.networks
    # a label index adds a Prefix-SID only: the prefix is originated as without it (the twin, FRR 8.4)
    assert frr_parser.bgp_statement(inst, ["network", "10.3.0.0/24", "label-index", "1048560", "route-map", "C"], 8)
    assert inst.network_maps["10.3.0.0/24"] == ("C", 8) and "10.3.0.0/24" in inst.networks
    assert not frr_parser.network_statement(inst, ["network", "10.4.0.0/24", "label-index", "5"], 9, eos=True)


def test_a_backdoor_network_is_the_statements_last_form_in_any_order_of_options() -> None:
    """bgpd's grammar takes `route-map NAME` and `backdoor` in either order; a statement again
    replaces both (bgp_static_set); `no network P` takes every form back. EOS has no backdoor."""
    inst = BgpInstance(None, 65000)
    assert frr_parser.bgp_statement(inst, "network 10.0.0.0/24 backdoor route-map A".split(), 3)
    assert inst.network_backdoor == {"10.0.0.0/24": 3} and inst.network_maps == {"10.0.0.0/24": ("A", 3)}
    assert frr_parser.bgp_statement(inst, "network 10.0.0.0/24 route-map B".split(), 4)
    assert inst.network_backdoor == {} and inst.network_maps == {"10.0.0.0/24": ("B", 4)}
    assert frr_parser.bgp_statement(inst, "network 10.0.0.0 mask 255.255.255.0 route-map B backdoor".split(), 5)
    assert inst.network_backdoor == {"10.0.0.0/24": 5}
    assert frr_parser.bgp_statement(inst, "no network 10.0.0.0/24 backdoor".split(), 6)
    assert inst.networks == [] and inst.network_backdoor == {}
    eos = BgpInstance(None, 65000)
    assert not frr_parser.network_statement(eos, "network 10.0.0.0/24 backdoor".split(), 3, eos=True)
    assert eos.networks == []


def test_minimum_hold_time_is_read_and_taken_back() -> None:
    inst = BgpInstance(None, 65000)
    assert frr_parser.bgp_statement(inst, "bgp minimum-holdtime 20".split(), 3)
    assert (inst.minimum_hold_time, inst.minimum_hold_time_line) == (20, 3)
    for unread in ("bgp minimum-holdtime 0", "bgp minimum-holdtime 65536", "bgp minimum-holdtime x"):
        assert not frr_parser.bgp_statement(inst, unread.split(), 4)
    assert frr_parser.bgp_statement(inst, "no bgp minimum-holdtime 5".split(), 5)
    assert (inst.minimum_hold_time, inst.minimum_hold_time_line) == (0, 0)


def test_ip_link_set_commands_are_read_as_iproute2_reads_them() -> None:
    read = ifupdown.link_command
    assert read("ip link set swp1 down") == ("swp1", "down", None, None)
    assert read("ip l s dev swp33 down") == ("swp33", "down", None, None)
    assert read("/sbin/ip -4 li set dev swp2 up mtu 9000") == ("swp2", "up", 9000, None)
    assert read("ip link set dev swp1 mtu 1500 || true") == ("swp1", None, 1500, None)
    assert read("ip link set swp1 master plane-b") == read("ip link set dev swp1 vrf plane-b") \
        == ("swp1", None, None, "plane-b")
    assert read("ip link set swp1 nomaster up") == ("swp1", "up", None, "")
    # what is not read whole stays a command the model does not judge
    for other in ("ip link set swp1 txqueuelen 1000", "ip link set swp1", "ip link add br0 type bridge",
                  "ip link set dev swp1 mtu jumbo", "ip link set swp1 swp2 down", "ip route add 10.0.0.0/8 dev swp1",
                  "ethtool -s swp1 speed 100000", "ip link set swp1 master"):
        assert read(other) is None, other


def test_ip_link_set_applies_in_order_and_only_in_stanzas_brought_up() -> None:
    text = ("auto swp1\niface swp1\n    address 10.0.0.0/31\n    post-up ip link set swp1 down\n"
            "auto swp2\niface swp2\n    post-up ip link set swp1 up\n    post-up ip link set swp2 down\n"
            "iface swp3\n    post-up ip link set swp2 up\n    post-up ip route add 10.9.0.0/16 dev swp3\n")
    parsed = ifupdown.read_interfaces(text)
    applied = ifupdown.apply_link_commands(parsed)
    assert parsed.interfaces["swp1"].down == ""  # down, then up again
    assert parsed.interfaces["swp2"].down == ifupdown.LINK_SET_DOWN  # swp3 never comes up to undo it
    assert applied == {0, 1, 2}  # swp3's commands never run; the route is not a link command


def test_ip_address_commands_are_read_as_iproute2_reads_them() -> None:
    read = ifupdown.address_command
    assert read("ip addr add 10.0.5.1/31 dev swp1") == ("add", "swp1", "10.0.5.1/31")
    assert read("ip a a 10.0.5.1/31 dev swp1") == ("add", "swp1", "10.0.5.1/31")
    assert read("/sbin/ip -4 address replace local 10.0.5.1 dev lo") == ("add", "lo", "10.0.5.1/32")
    assert read("ip -f inet a d 10.0.5.1/31 dev swp1 || true") == ("delete", "swp1", "10.0.5.1/31")
    assert read("ip addr flush dev swp2") == ("flush", "swp2", "")
    for other in ("ip addr add 10.0.5.1/31 dev swp1 label swp1:1", "ip addr show dev swp1",
                  "ip addr del 10.0.5.1 dev swp1", "ip addrlabel add prefix ::/0 label 1",
                  "ip addr flush dev swp1 scope global", "ip addr change 10.0.5.1/31 dev swp1",
                  "ip -6 addr add 10.0.5.1/31 dev swp1", "ip link set swp1 down"):
        assert read(other) is None, other
    assert ifupdown.link_command("ip -f inet link set swp1 down") == ("swp1", "down", None, None)


def test_ip_address_commands_apply_unless_a_later_stanza_purges_them() -> None:
    """Measured with ifupdown2: a stanza's address module removes what its lines do not name (and
    adds back what they do) unless it says `address-purge no`; a port's own post-up changes stay."""
    text = ("auto swp1\niface swp1\n    address 10.0.1.1/31\n    post-up ip addr add 10.0.2.3/31 dev swp2\n"
            "    post-up ip addr add 10.0.5.3/31 dev swp5\n    post-up ip addr del 10.0.3.1/31 dev swp3\n"
            "auto swp2\niface swp2\n    address 10.0.2.1/31\n    post-up ip addr del 10.0.1.1/31 dev swp1\n"
            "auto swp3\niface swp3\n    address 10.0.3.1/31\n    address 10.0.3.1/31\n"
            "    post-up ip a a 10.0.3.5/31 dev swp3\n"
            "auto swp5\niface swp5\n    address-purge no\n")
    parsed = ifupdown.read_interfaces(text)
    assert ifupdown.apply_link_commands(parsed) == {0, 1, 2, 3, 4}
    ports = parsed.interfaces
    assert ports["swp1"].addresses == []  # deleted by a later stanza's command
    assert ports["swp2"].addresses == ["10.0.2.1/31"]  # purged by its own stanza
    assert ports["swp3"].addresses == ["10.0.3.1/31", "10.0.3.5/31"]  # named twice: held once
    assert ports["swp5"].addresses == ["10.0.5.3/31"]  # kept: address-purge no
    server = ifupdown.read_interfaces(text)
    assert ifupdown.apply_link_commands(server, bounce=False, forwarding=False, addresses=False) == set()


def test_many_address_commands_leave_exactly_what_they_say() -> None:
    """Thousands of post-up address commands on one port (half of the addresses deleted again):
    the port holds exactly the rest, in order (each command is one set operation: a list searched
    per command was quadratic; the figures on hostile files are in docs/performance.md)."""
    count = 20000
    names = [f"10.{i >> 16}.{(i >> 8) & 255}.{i & 255}/32" for i in range(count)]
    text = ("auto swp1\niface swp1\n    address 10.255.0.0/31\n"
            + "".join(f"    post-up ip addr add {name} dev swp1\n" for name in names)
            + "".join(f"    post-up ip a d {name} dev swp1\n" for name in names[::2]))
    parsed = ifupdown.read_interfaces(text)
    assert len(ifupdown.apply_link_commands(parsed)) == count + count // 2
    assert parsed.interfaces["swp1"].addresses == ["10.255.0.0/31"] + names[1::2]


def test_thousands_of_unnumbered_list_lines_are_numbered_as_frr_numbers_them() -> None:
    """Access-list, community-list and AS-path lines without `seq`: each 5 above the list's highest
    so far, not its last (a count of the list per line was quadratic: docs/performance.md)."""
    from dualrail_net.verify.model import DeviceConfig
    count = 16000
    text = ("".join(f"access-list BIG permit 10.{i >> 8}.{i & 255}.0/24\n" for i in range(count))
            + "".join(f"bgp community-list standard C permit 65000:{i}\n" for i in range(count))
            + "".join(f"bgp as-path access-list P permit _{i}_\n" for i in range(count))
            + "access-list S seq 40 permit 10.0.0.0/8\naccess-list S permit 10.1.0.0/16\n"
            + "access-list S seq 10 permit 10.2.0.0/16\naccess-list S permit 10.3.0.0/16\n")
    dev = DeviceConfig(name="d", platform="cumulus")
    frr_parser.parse_frr(text, dev)
    assert [e.seq for e in dev.access_lists["BIG"]] == list(range(5, 5 * count + 1, 5))
    assert [e[0] for e in dev.community_lists["C"]] == list(range(5, 5 * count + 1, 5))
    assert [e[0] for e in dev.as_path_lists["P"]] == list(range(5, 5 * count + 1, 5))
    assert [e.seq for e in dev.access_lists["S"]] == [40, 45, 10, 50]


def test_nccl_reads_its_hca_list_as_ncclibinit_filters_it() -> None:
    from dualrail_net.verify.checks.hosts import nccl_selected
    devices = ["mlx5_0", "mlx5_1", "mlx5_10", "mlx5_8"]
    assert nccl_selected("=mlx5_0:1,mlx5_1:1", devices) == ({"mlx5_0", "mlx5_1"}, [])
    assert nccl_selected("mlx5_1", devices) == ({"mlx5_1", "mlx5_10"}, [])  # a prefix
    assert nccl_selected("mlx5", devices)[0] == set(devices)
    assert nccl_selected("^mlx5_8", devices)[0] == {"mlx5_0", "mlx5_1", "mlx5_10"}
    assert nccl_selected("^mlx5_1", devices)[0] == {"mlx5_0", "mlx5_8"}  # the prefix excludes mlx5_10 too
    assert nccl_selected("^=mlx5_1", devices)[0] == {"mlx5_0", "mlx5_10", "mlx5_8"}
    assert nccl_selected("=mlx5_0:2,mlx5_7:1", devices) == (set(), ["mlx5_0:2", "mlx5_7:1"])  # port 2: none
    assert nccl_selected("", devices)[0] == set(devices)  # an empty list: NCCL takes every device


def test_the_ip_command_fast_path_reads_what_the_plain_reader_reads() -> None:
    """The one-match reading of commands already in full words (ifupdown._ip_command) against
    ip_command_plain, on the rendered commands and on random commands near them."""
    rng = random.Random(23)
    heads = ["ip route replace", "ip route add", "ip route append", "ip r a", "ip ro rep", "ip rule add", "ip ru a",
             "ip -4 route add", "/sbin/ip route add", "ip route change", "ip route prepend", "ip rule add not",
             "ip route del", "ip link set", "ip  route add"]
    words = ["default", "10.12.0.0/20", "10.12.0.1", "via", "dev", "ens1f0np0", "table", "101", "main", "lookup",
             "from", "priority", "pref", "to", "iif", "src", "metric", "20", "nexthop", "onlink", "proto", "oif",
             "unicast", "blackhole", "||", "true", "all", "fwmark", "0x1", "weight", "local", "t", "l"]
    samples = ["ip route replace default via 10.12.0.0 dev ens1f0np0 table 101",
               "ip rule add from 10.12.0.1 lookup 101 priority 101",
               "ip route replace 10.10.0.0/24 via 10.12.0.0 dev ens1f0np0"]
    for _ in range(30000):
        samples.append(" ".join([rng.choice(heads)] + [rng.choice(words) for _ in range(rng.randint(0, 9))]))
    for cmd in samples:
        assert ifupdown._ip_command(cmd) == ifupdown.ip_command_plain(cmd), cmd
    assert sum(ifupdown._CANONICAL_IP.fullmatch(c) is not None for c in samples) > 500  # the fast path is exercised


def test_ip_link_set_from_a_stanza_before_the_ports_own_changes_nothing() -> None:
    """ifupdown2 brings each stanza's port up when it reaches it (the kernel oracle agrees): a `down`
    run by an earlier stanza is undone; on a server a port bounced down and up again lost its routes,
    which the host model does not follow, so neither command is applied there."""
    text = ("auto swp1\niface swp1\n    post-up ip link set swp2 down\n"
            "auto swp2\niface swp2\n    address 10.0.0.0/31\n    post-up ip link set swp3 down\n"
            "auto swp3\niface swp3\n    address 10.0.0.2/31\n    post-up ip link set swp2 down\n"
            "    post-up ip link set swp2 up\n")
    parsed = ifupdown.read_interfaces(text)
    assert ifupdown.apply_link_commands(parsed) == {0, 1, 2, 3}
    assert (parsed.interfaces["swp2"].down, parsed.interfaces["swp3"].down) == ("", "")
    server = ifupdown.read_interfaces(text)
    assert ifupdown.apply_link_commands(server, bounce=False) == {0, 1}  # the bounce is left unmodelled
    assert server.interfaces["swp2"].down == ""


def test_lag_members_lose_their_own_address_unless_the_lag_is_routed() -> None:
    from dualrail_net.verify.parsers.link import take_lag_members
    dev = DeviceConfig(name="leaf", platform="cumulus")
    dev.interfaces = {"swp1": Interface("swp1", addresses=["10.0.0.0/31"]), "swp2": Interface("swp2", addresses=["10.0.0.2/31"]),
                      "bond0": Interface("bond0"), "bond1": Interface("bond1", addresses=["10.0.1.0/31"])}
    dev.lag_members = {"swp1": ("bond0", "interfaces", 7), "swp2": ("bond1", "interfaces", 9), "swp9": ("bond0", "interfaces", 8)}
    take_lag_members(dev)
    assert dev.interfaces["swp1"].down.startswith("a member of bond0")
    assert dev.interfaces["swp2"].down == ""  # a routed LAG: not followed, and said so
    assert dev.base_unmodelled == [("interfaces", 9, "swp2 is a member of bond1, which is routed (not modelled)"),
                                   ("interfaces", 8, "swp9 is a member of bond0, but no port of this device's model")]


@pytest.mark.parametrize("lines,members,refused", [
    # measured on bgpd 8.4 in a namespace (`show bgp neighbors json` remoteAs, and the lines it refused)
    (["neighbor G peer-group", "neighbor G remote-as 65002", "neighbor 10.9.0.1 remote-as 65003",
      "neighbor 10.9.0.1 peer-group G"], {"10.9.0.1": (65002, None, "G")}, []),
    (["neighbor G peer-group", "neighbor G remote-as 65002", "neighbor 10.9.0.1 peer-group G",
      "neighbor 10.9.0.1 remote-as 65003"], {"10.9.0.1": (65002, None, "G")}, [5]),
    (["neighbor G peer-group", "neighbor 10.9.0.1 remote-as 65003", "neighbor 10.9.0.1 peer-group G",
      "neighbor G remote-as 65002"], {"10.9.0.1": (65002, None, "G")}, []),
    (["neighbor G peer-group", "neighbor 10.9.0.1 remote-as 65003", "neighbor 10.9.0.1 peer-group G",
      "neighbor 10.9.0.3 remote-as 65004", "neighbor 10.9.0.3 peer-group G"],
     {"10.9.0.1": (65003, None, "G"), "10.9.0.3": (65004, None, "G")}, []),
    (["neighbor G peer-group", "neighbor G remote-as external", "neighbor 10.9.0.1 remote-as 65003",
      "neighbor 10.9.0.1 peer-group G"], {"10.9.0.1": (None, "external", "G")}, []),
    (["neighbor G peer-group", "neighbor G remote-as internal", "neighbor 10.9.0.1 remote-as 65003",
      "neighbor 10.9.0.1 peer-group G"], {"10.9.0.1": (65003, None, None)}, [5]),
    # a group deleted takes its members with it; a member taken out of its group is deleted
    (["neighbor G peer-group", "neighbor G remote-as 65002", "neighbor 10.9.0.1 peer-group G",
      "neighbor 10.9.0.3 remote-as 65002", "neighbor 10.9.0.3 peer-group G", "neighbor 10.9.0.5 remote-as 65009",
      "no neighbor G peer-group"], {"10.9.0.5": (65009, None, None)}, []),
    (["neighbor G peer-group", "neighbor G remote-as 65002", "neighbor 10.9.0.1 peer-group G", "no neighbor G"], {}, []),
    (["neighbor G peer-group", "neighbor 10.9.0.1 remote-as 65003", "neighbor 10.9.0.1 peer-group G",
      "no neighbor 10.9.0.1 peer-group G"], {}, []),
])
def test_a_peer_groups_remote_as_as_bgpd_gives_it(lines: list[str], members: dict[str, Any], refused: list[int]) -> None:
    """A group with a remote-as gives it to its members (whatever they said before joining; a member's
    own after joining is refused); a group without one leaves theirs; bgpd refuses to bind an eBGP
    neighbor to an iBGP group; deleting a group deletes its members, unbinding one deletes it."""
    from dualrail_net.verify.parsers.frr import parse_frr
    dev = DeviceConfig(name="leaf", platform="cumulus")
    parse_frr("router bgp 65001\n" + "".join(f" {line}\n" for line in lines), dev)
    inst = dev.bgp[None]
    assert {a: (n.remote_asn, n.remote_kind, n.peer_group) for a, n in inst.neighbors.items()} == members
    assert [line for line, _, _ in inst.refused] == refused and dev.unmodelled == []


def test_a_second_match_of_one_kind_replaces_the_first_in_frr() -> None:
    """bgpd keeps one rule per match command in a route-map entry: the last line of each kind is
    the entry's (measured on 8.4: the running-config keeps `match ip address prefix-list B` and
    `match community C2` of two each); matches of different kinds all apply; EOS's tree reader
    keeps them all (not measured there)."""
    from dualrail_net.verify.parsers.frr import parse_frr, route_map_clause
    dev = DeviceConfig(name="leaf", platform="cumulus")
    parse_frr("ip prefix-list A seq 5 permit 10.0.0.0/8 le 32\nip prefix-list B seq 5 permit 10.1.0.0/16 le 32\n"
              "route-map M permit 10\n match ip address prefix-list A\n match ip address prefix-list B\n"
              " match community C1\n match community C2\n match as-path P\n match tag 5\n match tag 6\n exit\n", dev)
    entry = dev.route_maps["M"][0]
    assert entry.match_prefix_lists == ["B"]
    assert [(kind, name) for kind, name, _ in entry.match_lists] == [("community", "C2"), ("as-path", "P")]
    assert [(kind, value) for kind, value, _ in entry.attribute_clauses] == [("tag", "6")]
    eos = RouteMapEntry(10, "permit")
    for number, words in enumerate(("match ip address prefix-list A", "match ip address prefix-list B"), 1):
        assert route_map_clause(eos, words.split(), number)
    assert eos.match_prefix_lists == ["A", "B"]


def test_the_default_ipv4_unicast_is_read_when_a_neighbor_is_created() -> None:
    """As bgpd 8.4 does (measured in a namespace): the default in force at a neighbor's or a
    peer-group's first line decides its activation; a member takes its group's; EOS's stays the
    instance's (its running-config prints the default first)."""
    from dualrail_net.verify.controlplane import active
    from dualrail_net.verify.parsers.frr import parse_frr
    text = ("router bgp 65001\n neighbor 10.9.0.1 remote-as 65002\n neighbor G peer-group\n neighbor G remote-as 65002\n"
            " no bgp default ipv4-unicast\n neighbor 10.9.0.3 remote-as 65002\n neighbor 10.9.0.5 peer-group G\n"
            " neighbor H peer-group\n neighbor H remote-as 65003\n neighbor 10.9.0.7 peer-group H\n"
            " bgp default ipv4-unicast\n neighbor 10.9.0.9 remote-as 65002\n neighbor 10.9.0.11 peer-group H\n"
            " address-family ipv4 unicast\n  no neighbor 10.9.0.9 activate\n exit-address-family\n")
    dev = DeviceConfig(name="leaf", platform="cumulus")
    parse_frr(text, dev)
    inst = dev.bgp[None]
    assert {a: active(inst, n) for a, n in inst.neighbors.items()} == {
        "10.9.0.1": True, "10.9.0.3": False, "10.9.0.5": True, "10.9.0.7": False, "10.9.0.9": False, "10.9.0.11": False}


def test_bridge_members_and_client_methods_as_ifupdown2_applies_them() -> None:
    text = ("auto br0\niface br0\n    bridge-ports swp1 swp2\n\nauto br1\niface br1\n    bridge-ports glob swp5-6\n\n"
            "auto swp1\niface swp1\n    address 10.0.0.0/31\n\nauto swp3\niface swp3 inet dhcp\n    address 10.0.0.2/31\n\n"
            "auto swp4\niface swp4 inet manual\n    address 10.0.0.4/31\n")
    parsed = ifupdown.read_interfaces(text)
    assert parsed.bridge_members == {"swp1": ("br0", 3), "swp2": ("br0", 3)}
    assert parsed.lag_members == {}  # (a server's kernel still takes a member's traffic: switches only)
    assert parsed.interfaces["swp3"].addresses == []  # measured: ifup leaves a dhcp stanza's address out
    assert parsed.interfaces["swp4"].addresses == ["10.0.0.4/31"]
    assert [line for line, _ in parsed.unmodelled] == [7, 14, 15]  # the glob, the dhcp client, its address
    from dualrail_net.platforms.cumulus.parse import parse_base
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "interfaces").write_text(text)
        dev = parse_base("leaf", folder)
    assert dev.interfaces["swp1"].down.startswith("a member of br0")
    assert ("interfaces", 3, "swp2 is a member of br0, but no port of this device's model") in dev.base_unmodelled


@pytest.mark.parametrize("value,assigned", [
    ("3", "3"), ('"3"', "3"), ("'mlx5_0:1,mlx5_1:1'", "mlx5_0:1,mlx5_1:1"), ("\"a\"b'c'", "abc"), ("3  # why", "3"),
    ("3#x", "3#x"), ('"a b"', "a b"), ("'a\"b'", 'a"b'), ("", ""),
    ("$X", None), ('"$X"', None), ("a b", None), ("`ls`", None), ('"3', None), ("a;b", None), ("\\3", None),
])
def test_an_env_value_is_what_a_sourcing_shell_assigns(value: str, assigned: str | None) -> None:
    from dualrail_net.verify.parsers import _shell_value
    assert _shell_value(value) == assigned


@pytest.mark.parametrize("text", [
    "NCCL_IB_TC=104\nreturn 0\nNCCL_IB_GID_INDEX=3\n",
    "export NCCL_IB_TC=104\nreturn\nNCCL_IB_TC=106\n",
    "NCCL_IB_TC='104'\nNCCL_IB_GID_INDEX=3\n",
])
def test_nccl_env_is_read_as_a_sourcing_shell_sets_it(tmp_path: Path, text: str) -> None:
    """The reader against /bin/sh sourcing the file: a `return` stops the sourcing there (the
    names below stay unset), and the reader stops with it (the line reported)."""
    import subprocess
    from dualrail_net.verify.model import ServerConfig
    from dualrail_net.verify.parsers import _read_env
    (tmp_path / "nccl.env").write_text(text)
    names = ("NCCL_IB_TC", "NCCL_IB_GID_INDEX")
    shown = subprocess.run(["sh", "-c", ". ./nccl.env; " + "; ".join(f'echo "{n}=${{{n}-unset}}"' for n in names)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
    by_shell = {k: v for k, _, v in (line.partition("=") for line in shown.stdout.split())}
    srv = ServerConfig(name="s")
    _read_env(text, srv)
    assert {n: srv.env.get(n, "unset") for n in names} == by_shell
    assert [u[2] for u in srv.unmodelled] == [line for line in text.split("\n") if line.startswith("return")]


@pytest.mark.parametrize("command,words", [
    ("ip route replace default via 10.0.0.0 table 0x65", "ip route replace default via 10.0.0.0 table 101"),
    ("ip rule add from 10.0.0.1 lookup 0145 pref 0X65", "ip rule add from 10.0.0.1 lookup 101 priority 101"),
    ("ip route replace 10.0.0.0/8 via 10.0.0.0 metric 010 table main", "ip route replace 10.0.0.0/8 via 10.0.0.0 "
     "metric 8 table 254"),
    ("ip rule add from 10.0.0.1 lookup 09", "ip rule add from 10.0.0.1 lookup ?09"),  # (not octal: refused)
])
def test_ip_numbers_are_read_as_strtoul_base_0_reads_them(command: str, words: str) -> None:
    assert ifupdown._ip_command(command) == ifupdown.ip_command_plain(command) == words.split()


@pytest.mark.parametrize("command,words", [
    ("ip -f inet r replace default via 10.0.0.0 table 101", "ip route replace default via 10.0.0.0 table 101"),
    ("ip --family inet ru a from 10.0.0.1 lookup 101", "ip rule add from 10.0.0.1 lookup 101"),
    ("ip -4 -fam inet route add 10.0.0.0/8 via 10.0.0.0", "ip route add 10.0.0.0/8 via 10.0.0.0"),
    # another family, a namespace, a batch file: not this host's IPv4 tables, left as written
    ("ip -6 route add default via fe80::1", "ip -6 route add default via fe80::1"),
    ("ip -f inet6 route add default via fe80::1", "ip -f inet6 route add default via fe80::1"),
    ("ip -n other route add default via 10.0.0.0", "ip -n other route add default via 10.0.0.0"),
])
def test_ip_options_that_only_say_ipv4_are_read(command: str, words: str) -> None:
    """ip(8)'s `-4` and `-f|-family inet` (any prefix, one or two dashes) before the object: the
    same command (held to the kernel by the host oracle's `respell` kind); any other option leaves
    the command unread."""
    assert ifupdown._ip_command(command) == ifupdown.ip_command_plain(command) == words.split()


@pytest.mark.parametrize("tls,rdma", [("tcp", False), ("sm,self", False), ("", False), ("^ib", False),
                                      ("rc,tcp", True), ("rc_x,sm,self", True), ("all", True), ("^tcp", True),
                                      ("^rc", True), ("dc_mlx5", True), ("^" + ",".join(sorted(
                                          ["rc", "rc_v", "rc_x", "rc_verbs", "rc_mlx5", "dc", "dc_x", "dc_mlx5", "ud",
                                           "ud_v", "ud_x", "ud_verbs", "ud_mlx5"])), False)])
def test_ucx_tls_leaves_an_rdma_transport_or_not(tls: str, rdma: bool) -> None:
    from dualrail_net.verify.checks.hostnccl import ucx_takes_rdma
    assert ucx_takes_rdma(tls) is rdma


@pytest.mark.parametrize("line,stops,additive,judged", [
    ("set community no-export", ("no-export",), False, True),
    ("set community 65535:65282 additive", ("no-advertise",), True, True),
    ("set community local-AS no-export", ("local-AS", "no-export"), False, True),
    ("set community 65000:1 no-export", ("no-export",), False, True),  # (65000:1: a plain tag)
    ("set community 65000:1", (), False, True),
    ("set community 65000:1 65000:2 additive", (), True, True),
    ("set community 0:1", (), False, False),  # (RFC 1997's reserved ranges: reported)
    ("set community 65535:0", (), False, False),  # (GRACEFUL_SHUTDOWN by number)
    ("set community graceful-shutdown 65000:1", (), False, False),
    ("set community blackhole", (), False, False),
    ("set community 65000:65536", (), False, False),  # (no such community: reported)
    ("set community 65000", (), False, False),
])
def test_set_community_reads_the_well_known_communities_that_stop_a_route(line: str, stops: tuple[str, ...],
                                                                          additive: bool, judged: bool) -> None:
    entry = RouteMapEntry(10, "permit")
    assert frr_parser.route_map_clause(entry, line.split(), 3) is judged
    assert (entry.community_set, entry.community_additive, entry.sets_community_line) == (stops, additive, 3)


def test_prefix_list_entries_are_numbered_and_replaced_as_the_daemon_files_them() -> None:
    from dualrail_net.verify.parsers.frr import AUTO_SEQ, PrefixListEntry, add_prefix_list_entry
    entries: list[PrefixListEntry] = []
    for i, (seq, action) in enumerate(((AUTO_SEQ, "permit"), (AUTO_SEQ, "permit"), (12, "permit"), (AUTO_SEQ, "deny"),
                                       (10, "deny"))):
        add_prefix_list_entry(entries, PrefixListEntry(seq, action, f"10.{i}.0.0/16"))
    # FRR: 5, 10, then 12 as written, then the next multiple of 5 above 12; seq 10 rewritten in place
    assert [(e.seq, e.action) for e in entries] == [(5, "permit"), (10, "deny"), (12, "permit"), (15, "deny")]
    # FRR drops an entry equal to another but for its number (measured on 8.4); EOS's keeps it
    for seq in (20, 5):
        add_prefix_list_entry(entries, PrefixListEntry(seq, "permit", "10.2.0.0/16"))
    assert [(e.seq, e.prefix) for e in entries][2:] == [(12, "10.2.0.0/16"), (15, "10.3.0.0/16")]
    dev = DeviceConfig("t", "cumulus")  # (an entry taken back: its twin may come in again)
    frr_parser.parse_frr("ip prefix-list P seq 10 permit 10.0.0.0/8 le 32\nip prefix-list P seq 20 deny 10.1.0.0/16\n"
                         "no ip prefix-list P seq 10 permit 10.0.0.0/8 le 32\n"
                         "ip prefix-list P seq 30 permit 10.0.0.0/8 le 32\nip prefix-list P permit 10.5.0.0/16\n", dev)
    assert [(e.seq, e.prefix) for e in dev.prefix_lists["P"]] == [(20, "10.1.0.0/16"), (30, "10.0.0.0/8"),
                                                                 (35, "10.5.0.0/16")]
    eos: list[PrefixListEntry] = []
    for seq in (AUTO_SEQ, 15, AUTO_SEQ):
        add_prefix_list_entry(eos, PrefixListEntry(seq, "permit", "10.0.0.0/8"), step=10, drop_duplicate=False)
    assert [e.seq for e in eos] == [10, 15, 25]


def _prefix_list_plain(lines: list[tuple[str, int | None, str]]) -> list[tuple[int, str]]:
    """FRR's filing of one prefix-list read plainly: (op, seq, prefix) in order; numbered entries
    replace their number's, unnumbered ones take the next multiple of 5 above the highest there
    is, an entry equal to another but for its number is dropped, `no ... seq N` takes N back."""
    held: dict[int, str] = {}
    for op, seq, prefix in lines:
        if op == "no":
            held.pop(seq or 0, None)
            continue
        number = seq if seq is not None else max(held, default=0) // 5 * 5 + 5
        if prefix in held.values() and held.get(number) != prefix:
            continue
        held[number] = prefix
    return sorted(held.items())


def test_prefix_list_filing_and_taking_back_agree_with_a_plain_reading() -> None:
    """The filing index (swap-removal on `no ... seq N`, the highest number found again when it
    left) against the plain reading, over random mixes of numbered, unnumbered and taken-back
    entries."""
    rng = random.Random(3401)
    for _ in range(200):
        lines: list[tuple[str, int | None, str]] = []
        text = []
        for _ in range(rng.randint(1, 30)):
            prefix = f"10.{rng.randint(0, 6)}.0.0/16"
            kind = rng.random()
            if kind < 0.3 and lines:
                seq = rng.choice([5, 10, 15, 20, 25, 30, 7])
                lines.append(("no", seq, prefix))
                text.append(f"no ip prefix-list P seq {seq} permit {prefix}")
            elif kind < 0.6:
                lines.append(("add", None, prefix))
                text.append(f"ip prefix-list P permit {prefix}")
            else:
                seq = rng.choice([5, 10, 15, 20, 25, 30, 7])
                lines.append(("add", seq, prefix))
                text.append(f"ip prefix-list P seq {seq} permit {prefix}")
        dev = DeviceConfig("t", "cumulus")
        frr_parser.parse_frr("\n".join(text) + "\n", dev)
        got = sorted((e.seq, e.prefix) for e in dev.prefix_lists.get("P", []))
        assert got == _prefix_list_plain(lines), text


def test_listen_ranges_are_refused_and_found_as_a_plain_scan_says() -> None:
    """The sorted starts (overlap refused by halving, the range holding an address found by
    halving) against a scan of every range, over random ranges of two groups."""
    import ipaddress
    from dualrail_net.verify.parsers.frr import listen_range_holding
    rng = random.Random(3402)
    for _ in range(100):
        inst = BgpInstance(None, 65001)
        frr_parser.bgp_statement(inst, "neighbor G peer-group".split(), 1)
        frr_parser.bgp_statement(inst, "neighbor G remote-as external".split(), 2)
        frr_parser.bgp_statement(inst, "neighbor H peer-group".split(), 3)
        frr_parser.bgp_statement(inst, "neighbor H remote-as external".split(), 4)
        kept: list[tuple[ipaddress.IPv4Network, str]] = []
        for line in range(5, 5 + rng.randint(1, 25)):
            net = ipaddress.ip_network(f"10.0.{rng.randint(0, 7)}.{rng.randint(0, 255)}/{rng.randint(22, 32)}",
                                       strict=False)
            group = rng.choice("GH")
            same = [g for n, g in kept if n == net]
            plain_refused = bool(same) and same[0] != group or not same and any(net.overlaps(n) for n, _ in kept)
            refused_before = len(inst.refused)
            frr_parser.bgp_statement(inst, f"bgp listen range {net} peer-group {group}".split(), line)
            assert (len(inst.refused) > refused_before) == plain_refused, (net, group, kept)
            if not plain_refused and not same:
                kept.append((net, group))
        for _ in range(50):
            address = ipaddress.ip_address(f"10.0.{rng.randint(0, 7)}.{rng.randint(0, 255)}")
            plain = [(str(n), g) for n, g in kept if address in n]
            held = listen_range_holding(inst, int(address))
            assert ([(str(ipaddress.ip_network(held[0], strict=False)), held[1])] if held else []) == plain


def test_route_map_entries_taken_back_agree_with_a_plain_reading() -> None:
    """Entries filed and taken back (`no route-map M permit|deny N`, kept in place until the file
    is read) against an ordered dict: a new number goes last, the same number with another action
    replaces the entry in its place, a taken-back number leaves, the last one takes the map."""
    rng = random.Random(3404)
    for _ in range(200):
        plain: dict[int, str] = {}
        text = []
        for _ in range(rng.randint(1, 30)):
            seq, action = rng.choice([5, 10, 15, 20, 25]), rng.choice(["permit", "deny"])
            if rng.random() < 0.35:
                text.append(f"no route-map M {action} {seq}")
                plain.pop(seq, None)
            else:
                text.append(f"route-map M {action} {seq}\n match ip address prefix-list P{seq}\nexit")
                plain[seq] = action
        dev = DeviceConfig("t", "cumulus")
        frr_parser.parse_frr("\n".join(text) + "\n", dev)
        got = [(e.seq, e.action) for e in dev.route_maps.get("M", [])]
        assert got == list(plain.items()), text
        assert all(e is not frr_parser.TAKEN_BACK for entries in dev.route_maps.values() for e in entries)


def test_static_routes_taken_back_agree_with_a_plain_reading() -> None:
    """`no ip route P NEXTHOP` (FRR) and `no ip route [vrf V] P [NEXTHOP]` (EOS) through the index
    of routes (taken back in place until the file is read) against a list filtered per line."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    rng = random.Random(3406)
    for eos in (False, True):
        for _ in range(150):
            plain: list[tuple[str | None, str, str | None]] = []
            text = []
            for _ in range(rng.randint(1, 25)):
                vrf = rng.choice([None, "blue"]) if eos else None
                prefix = f"10.{rng.randint(0, 2)}.0.0/16"
                hop = rng.choice(["10.9.0.1", "10.9.0.2", "Null0" if eos else "blackhole"])
                hop_said = None if hop in ("Null0", "blackhole") else hop
                where = f"vrf {vrf} " if vrf else ""
                if rng.random() < 0.4:
                    bare = eos and rng.random() < 0.3  # (EOS: no next hop named, every route to P goes)
                    text.append(f"no ip route {where}{prefix}" + ("" if bare else f" {hop}"))
                    plain = [r for r in plain if not (r[0] == vrf and r[1] == prefix and (bare or r[2] == hop_said))]
                else:
                    text.append(f"ip route {where}{prefix} {hop}")
                    plain.append((vrf, prefix, hop_said))  # (a route written twice is held twice: one next hop)
            dev = DeviceConfig("t", "eos" if eos else "cumulus")
            (parse_eos if eos else frr_parser.parse_frr)("\n".join(text) + "\n", dev)
            got = [(r.vrf, r.prefix, r.nexthop) for r in dev.static_routes]
            assert sorted(got, key=str) == sorted(plain, key=str), text


def test_zebra_interface_blocks_set_the_ports(tmp_path: Path) -> None:
    from dualrail_net.verify.parsers.frr import zebra_interface_blocks
    dev = DeviceConfig("x", "cumulus")
    dev.interfaces["swp1"] = Interface("swp1", addresses=["10.0.0.1/31"])
    text = ("router bgp 1\nexit\ninterface swp1\n description up\n shutdown\n ip address 10.9.0.1/31\n"
            " ipv6 nd suppress-ra\nexit\ninterface swp2\n shutdown\n no shutdown\nip route 1.0.0.0/8 blackhole\n"
            "interface swp3\nshutdown\n")
    zebra_interface_blocks(text, dev)
    assert dev.interfaces["swp1"].down.startswith("shut down by zebra (frr.conf:5")
    assert dev.interfaces["swp1"].addresses == ["10.0.0.1/31", "10.9.0.1/31"]
    assert dev.interfaces["swp2"].down == ""
    assert dev.interfaces["swp3"].down  # (un-indented: still the interface node's command)
    assert dev.base_unmodelled == [("frr.conf", 7, "interface swp1: ipv6 nd suppress-ra")]


def test_network_statements_in_every_form_bgpd_takes() -> None:
    """`network A.B.C.D/M`, `network A.B.C.D mask M` and the classful `network A.B.C.D` (bgpd's
    apply_classful_mask_ipv4), and `no` of each, read as the same prefix."""
    from dualrail_net.verify.parsers.frr import network_words, parse_frr
    assert network_words(["network", "10.12.0.0", "mask", "255.255.255.192"]) == ["network", "10.12.0.0/26"]
    assert network_words(["network", "10.12.0.0", "mask", "255.255.255.192", "route-map", "M"]) == \
        ["network", "10.12.0.0/26", "route-map", "M"]
    assert [network_words(["network", a])[1] for a in ("10.1.0.0", "172.16.0.0", "192.168.1.0")] == \
        ["10.1.0.0/8", "172.16.0.0/16", "192.168.1.0/24"]
    assert network_words(["network", "10.12.0.0/26"]) == ["network", "10.12.0.0/26"]
    text = ("router bgp 65000\n address-family ipv4 unicast\n  network 10.12.0.0 mask 255.255.255.192\n"
            "  network 172.16.0.0\n  no network 172.16.0.0 mask 255.255.0.0\n exit-address-family\nexit\n")
    dev = DeviceConfig("x", "cumulus")
    parse_frr(text, dev)
    assert dev.bgp[None].networks == ["10.12.0.0/26"] and dev.unmodelled == []


def test_static_routes_with_a_netmask_read_as_their_prefix() -> None:
    """FRR and EOS take `ip route A.B.C.D M.M.M.M ...` beside A.B.C.D/M."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    from dualrail_net.verify.parsers.frr import parse_frr, prefix_at
    assert prefix_at(["ip", "route", "10.12.0.0", "255.255.255.192", "Null0"], 2) == ["ip", "route", "10.12.0.0/26", "Null0"]
    assert prefix_at(["ip", "route", "10.12.0.0/26", "10.0.0.1"], 2) == ["ip", "route", "10.12.0.0/26", "10.0.0.1"]
    assert prefix_at(["ip", "route", "10.12.0.0", "255.0.255.0", "Null0"], 2)[2] == "10.12.0.0"  # not a mask
    frr = DeviceConfig("x", "cumulus")
    parse_frr("ip route 10.12.0.0 255.255.255.192 blackhole 250\n", frr)
    eos = DeviceConfig("y", "eos")
    parse_eos("ip route 10.12.0.0 255.255.255.192 Null0\nip route vrf mgmt 0.0.0.0 0.0.0.0 198.51.100.254\n", eos)
    assert [(r.prefix, r.nexthop, r.distance) for r in frr.static_routes] == [("10.12.0.0/26", None, 250)]
    assert [(r.vrf, r.prefix, r.nexthop) for r in eos.static_routes] == \
        [(None, "10.12.0.0/26", None), ("mgmt", "0.0.0.0/0", "198.51.100.254")]
    assert frr.unmodelled == [] and eos.unmodelled == []


def test_aggregate_forms() -> None:
    """FRR's aggregate-address in its address-and-mask form, with as-set and the default origin; the
    forms not modelled (another origin, a route-map, a suppress-map) are refused whole, and EOS takes
    neither the mask form nor `origin`."""
    from dualrail_net.verify.parsers.frr import aggregate_line
    agg = aggregate_line("aggregate-address 10.12.0.0 255.255.240.0 summary-only as-set origin igp".split(), 7)
    assert agg is not None and (agg.prefix, agg.summary_only, agg.as_set, agg.line) == ("10.12.0.0/20", True, True, 7)
    for refused in ("origin egp", "route-map X", "suppress-map X", "matching-MED-only", "summary-only summary-only"):
        assert aggregate_line(f"aggregate-address 10.12.0.0/20 {refused}".split(), 1) is None
    assert aggregate_line("aggregate-address 10.12.0.0/20 as-set".split(), 1, frr=False) is not None
    assert aggregate_line("aggregate-address 10.12.0.0 255.255.240.0".split(), 1, frr=False) is None
    assert aggregate_line("aggregate-address 10.12.0.0/20 origin igp".split(), 1, frr=False) is None


def test_eos_shortened_keywords_are_spelled_out_as_eos_completes_them() -> None:
    """EOS completes a keyword from any prefix no other keyword of that position shares, in any
    case: `int Et1` / `shut` / `nei X shut` / `no switchp` / `ip add` read as spelled out, each
    line still reported with both spellings; arguments (a description, a map named `sh`) untouched."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("int Et1\n   desc sh\n   no switchp\n   ip add 10.0.0.0/31\n   SHUT\n!\nip routing\n!\n"
              "router bgp 1\n   nei 10.0.0.1 remote-as 2\n   nei 10.0.0.1 route-map sh i\n"
              "   neighbor 10.0.0.3 remote-as 2\n   nei 10.0.0.3 shut\n", eos)
    port = eos.interfaces["Ethernet1"]
    assert port.addresses == ["10.0.0.0/31"] and port.down == "shutdown" and port.description == "sh"
    bgp = eos.bgp[None]
    assert list(bgp.neighbors) == ["10.0.0.1"] and bgp.neighbors["10.0.0.1"].remote_asn == 2
    assert bgp.neighbors["10.0.0.1"].route_map_in == "sh" and bgp.shut_neighbors == ["10.0.0.3"]
    said = dict(eos.unmodelled)
    assert sorted(said) == [1, 2, 3, 4, 5, 10, 11, 13]
    assert said[1].startswith("`int` read as `interface`") and said[5].startswith("`SHUT` read as `shutdown`")
    assert said[11].startswith("`nei` read as `neighbor`; `i` read as `in`")


def test_eos_ambiguous_shortened_keyword_is_refused_and_named() -> None:
    """A prefix two keywords share (`sh`: shape, show, shutdown; `ip ro`: route, routing) is what
    EOS refuses: the line does nothing, and the report names the candidates."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("interface Ethernet1\n   no switchport\n   ip address 10.0.0.0/31\n   sh\n!\nip routing\n"
              "ip ro 10.1.0.0/16 Null0\n", eos)
    assert eos.interfaces["Ethernet1"].down == "" and eos.static_routes == []
    said = dict(eos.unmodelled)
    assert "`sh` could be shape or show or shutdown" in said[4] and "`ro` could be route or routing" in said[7]


def test_eos_clean_file_is_read_once() -> None:
    """The spelling pass runs only for a file with a line not understood (none in a rendered one)."""
    from unittest import mock

    from dualrail_net.platforms.eos import parse_config
    with mock.patch.object(parse_config, "spell_out", side_effect=AssertionError("spelled")) as spelled:
        eos = DeviceConfig("e", "eos")
        parse_config.parse_eos("interface Ethernet1\n   no switchport\n   ip address 10.0.0.0/31\n", eos)
        assert not spelled.called and eos.unmodelled == []
        with pytest.raises(AssertionError):
            parse_config.parse_eos("interface Ethernet1\n   shut\n", DeviceConfig("e", "eos"))


def test_eos_no_forms_take_back_the_lines_they_name() -> None:
    """EOS reads a file line by line: `no ntp server ...`, `no logging host X` (the default VRF's
    only), `no ip name-server` (the named servers out of a list), `no qos map dscp D` (D only),
    `no aaa group server`, `no management api ...`, `no hostname` (named localhost)."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("hostname e\nvrf instance mgmt\ninterface Management1\n   vrf mgmt\n   ip address 192.0.2.1/24\n"
              "qos map dscp 26 27 to traffic-class 3\nntp server vrf mgmt 192.0.2.10 iburst\n"
              "ntp server vrf mgmt 192.0.2.11\nip name-server vrf mgmt 192.0.2.53 192.0.2.54\n"
              "logging vrf mgmt host 192.0.2.20\nmanagement api http-commands\n   no shutdown\n   vrf mgmt\n"
              "      no shutdown\n"
              "no ntp server vrf mgmt 192.0.2.10\nno ip name-server vrf mgmt 192.0.2.53\n"
              "no logging host 192.0.2.20\nno qos map dscp 27 to traffic-class 3\nno management api http-commands\n"
              "no hostname\n", eos)
    m = eos.management
    assert m.ntp == ["192.0.2.11"] and m.dns == ["192.0.2.54"] and m.syslog == ["192.0.2.20"] and not m.api
    assert eos.qos.dscp_to_tc == {26: 3} and eos.hostname == "" and eos.names == [("localhost", "running-config", 20)]
    assert eos.unmodelled == [(17, "no logging host 192.0.2.20")]  # (the default VRF's: none, said so)


def test_no_neighbor_settings_are_taken_back_and_eos_router_bgp_blocks_merge() -> None:
    """`no neighbor X route-map|prefix-list|shutdown|...` unsets what the neighbor was given (FRR
    and EOS); a repeated EOS `router bgp` block of the same AS adds to the first, one of another AS
    is refused (reported)."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    frr = flat_parse_frr("router bgp 1\n neighbor 1.1.1.1 remote-as 2\n neighbor 1.1.1.1 shutdown\n"
                         " address-family ipv4 unicast\n  neighbor 1.1.1.1 route-map A in\n"
                         "  neighbor 1.1.1.1 prefix-list P out\n  no neighbor 1.1.1.1 route-map A in\n"
                         "  no neighbor 1.1.1.1 prefix-list P out\n exit-address-family\n"
                         " no neighbor 1.1.1.1 shutdown\n")
    n = frr.bgp[None].neighbors["1.1.1.1"]
    assert (n.route_map_in, n.prefix_list_out, n.shutdown, frr.unmodelled) == (None, None, False, [])
    eos = DeviceConfig("e", "eos")
    parse_eos("router bgp 1\n   neighbor 1.1.1.1 remote-as 2\n   neighbor 1.1.1.1 route-map A out\n"
              "router bgp 1\n   neighbor 2.2.2.2 remote-as 3\n   no neighbor 1.1.1.1 route-map A out\n"
              "router bgp 9\n   neighbor 3.3.3.3 remote-as 4\n", eos)
    assert sorted(eos.bgp[None].neighbors) == ["1.1.1.1", "2.2.2.2"] and eos.bgp[None].asn == 1
    assert eos.bgp[None].neighbors["1.1.1.1"].route_map_out is None
    assert [line for line, _ in eos.unmodelled] == [7] and "refuses the block" in eos.unmodelled[0][1]


def test_eos_block_negations_take_settings_back() -> None:
    """Inside blocks: `no random-detect ecn` / `no bandwidth percent` / `no priority strict` in a
    tx-queue, `no tx-queue N` and `default shutdown` on a port, `no seq N` in a prefix-list, `no vrf
    V` under `management ssh`, `no server` in an AAA group."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("interface Ethernet1\n   no switchport\n   shutdown\n   default shutdown\n"
              "   tx-queue 3\n      bandwidth percent 50\n      random-detect ecn minimum-threshold 1 bytes "
              "maximum-threshold 2 bytes\n      no random-detect ecn\n   tx-queue 6\n      priority strict\n"
              "      no priority strict\n   tx-queue 0\n      bandwidth percent 20\n   no tx-queue 0\n"
              "ip prefix-list P\n   seq 10 permit 10.0.0.0/8\n   seq 20 permit 11.0.0.0/8\n   no seq 10\n"
              "management ssh\n   vrf mgmt\n      no shutdown\n   no vrf mgmt\n"
              "aaa group server tacacs+ G\n   server 192.0.2.1 vrf mgmt\n   no server 192.0.2.1 vrf mgmt\n", eos)
    port = eos.interfaces["Ethernet1"]
    assert port.down == "" and port.ecn is None and port.strict_tcs == [] and port.dwrr_share == {3: 50}
    assert [e.prefix for e in eos.prefix_lists["P"]] == ["11.0.0.0/8"]
    assert eos.unmodelled == [] and not eos.management.ssh


def test_eos_port_in_a_vrf_nobody_defined_carries_no_traffic() -> None:
    """A port's `vrf V` with no `vrf instance V` (nor the older `vrf definition V`): EOS refuses the
    line or keeps the port inactive until the VRF exists; either way it carries none of the plane's
    traffic, so it is down, with the line that names the VRF (a shut port keeps its own reason)."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("vrf definition a\n!\ninterface Ethernet1\n   vrf a\n!\ninterface Ethernet2\n   vrf b\n"
              "!\ninterface Ethernet3\n   vrf b\n   shutdown\n", eos)
    assert eos.unmodelled == [] and eos.interfaces["Ethernet1"].down == ""
    assert eos.interfaces["Ethernet2"].down == "in vrf b, which no `vrf instance b` defines (running-config:7)"
    assert eos.interfaces["Ethernet3"].down == "shutdown"


def test_eos_interface_address_with_a_netmask() -> None:
    """EOS takes a port's address as A.B.C.D/M or as an address and a netmask (also in `no`)."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("interface Ethernet1\n   no switchport\n   ip address 10.0.0.1 255.255.255.254\n"
              "   ip address 10.0.1.1 255.255.255.0 secondary\ninterface Ethernet2\n   ip address 10.0.2.1/31\n"
              "   no ip address 10.0.2.1 255.255.255.254\n", eos)
    assert eos.interfaces["Ethernet1"].addresses == ["10.0.0.1/31", "10.0.1.1/24"]
    assert eos.interfaces["Ethernet2"].addresses == [] and eos.unmodelled == []


def test_eos_no_static_route_in_a_vrf_and_a_no_that_names_nothing() -> None:
    """`no ip route vrf V P [NH]` (P also as an address and a mask) takes that VRF's route back; a
    `no` naming nothing configured above it is reported, not dropped in silence."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("vrf instance a\nip route vrf a 10.0.0.0/8 192.0.2.1\nip route vrf a 11.0.0.0/8 192.0.2.1\n"
              "ip route 10.0.0.0/8 192.0.2.1\nno ip route vrf a 10.0.0.0 255.0.0.0 192.0.2.1\n"
              "no ip route vrf a 11.0.0.0/8\nno ntp server 192.0.2.99\n", eos)
    assert [(r.vrf, r.prefix) for r in eos.static_routes] == [(None, "10.0.0.0/8")]
    assert eos.unmodelled == [(7, "no ntp server 192.0.2.99")]


def test_eos_static_route_distance_after_a_port_and_a_gateway() -> None:
    """EOS `ip route P PORT GATEWAY DISTANCE`: the distance is the word after the gateway (a
    floating route stays floating), as after a lone gateway or port."""
    from dualrail_net.platforms.eos.parse_config import parse_eos
    eos = DeviceConfig("e", "eos")
    parse_eos("ip route 10.1.0.0/16 Ethernet1 10.0.0.1 200\nip route 10.2.0.0/16 10.0.0.1 20\n"
              "ip route 10.3.0.0/16 Ethernet1 30\nip route 10.4.0.0/16 Ethernet1 10.0.0.1\n", eos)
    assert [(r.prefix, r.distance) for r in eos.static_routes] == [
        ("10.1.0.0/16", 200), ("10.2.0.0/16", 20), ("10.3.0.0/16", 30), ("10.4.0.0/16", 1)]


def test_eos_listen_ranges_and_peer_filters_read_as_batfish_reads_them() -> None:
    """EOS dynamic neighbors: `bgp listen range` with `remote-as` or `peer-filter`; a filter's first
    entry by sequence decides (an unnumbered entry takes the last number plus 10, the first 0), no
    entry matching: refused; a filter without entries takes every AS; a range overlapping an
    earlier one is said and not read."""
    from dualrail_net.platforms.eos.parse_config import parse_text
    dev = parse_text("s", "peer-filter F\n   match as-range 100-200 result accept\n   5 match as-range 150 result reject\n"
                          "   match as-range 300 result accept\n   20 match as-range 300 result reject\n"
                          "peer-filter EMPTY\n!\nrouter bgp 65000\n   router-id 1.1.1.1\n   neighbor G peer group\n"
                          "   bgp listen range 10.0.0.0/24 peer-group G peer-filter F\n"
                          "   bgp listen range 10.0.1.0/24 peer group G remote-as 65001\n"
                          "   bgp listen range 10.0.2.0/24 peer-group G peer-filter EMPTY\n"
                          "   bgp listen range 10.0.0.128/25 peer-group G remote-as 9\n"
                          "   dynamic peer max 4\n")
    inst = dev.bgp[None]
    assert sorted(r[0] for r in inst.listen_ranges.values()) == ["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"]
    assert inst.listen_limit == 4
    by_range = {inst.listen_ranges[start][0]: peers for start, peers in inst.listen_peers.items()}
    f = by_range["10.0.0.0/24"]
    # by sequence: 0 accept 100-200 (the first unnumbered line: 0, as Batfish numbers it), 5 reject
    # 150, 15 accept 300 (the last number plus 10), 20 reject 300
    assert f.accepts == ((100, 200, True), (150, 150, False), (300, 300, True), (300, 300, False))
    assert [f.admits(a) for a in (99, 100, 150, 201, 300, None)] == [False, True, True, False, True, False]
    assert by_range["10.0.1.0/24"].asn == 65001 and by_range["10.0.1.0/24"].admits(7)
    assert by_range["10.0.2.0/24"].admits(123)
    assert any("overlaps the listen range 10.0.0.0/24" in text for _, text in dev.unmodelled)


def test_the_overlapping_listen_range_found_by_halving_is_the_first_a_scan_finds() -> None:
    """listen_range_overlapping (FRR's refusal and EOS's reader) against a scan of every range held,
    on random disjoint ranges and random candidates."""
    import bisect
    import random

    from dualrail_net.verify.model import BgpInstance
    from dualrail_net.verify.parsers.frr import listen_range_overlapping
    rng = random.Random(3)
    found = 0

    def span(low: int, high: int) -> tuple[int, int]:
        length = rng.randint(low, high)
        start = rng.getrandbits(5) << (32 - length) >> (32 - length) << (32 - length)
        return start, start + (1 << (32 - length)) - 1

    for _ in range(3000):
        inst = BgpInstance(None, 1)
        for _ in range(rng.randint(0, 8)):
            start, end = span(26, 30)
            if not any(a <= end and r[3] >= start for a, r in inst.listen_ranges.items()):
                inst.listen_ranges[start] = ("x", str(start), 0, end)
                bisect.insort(inst.listen_starts, start)
        start, end = span(24, 31)
        plain = [r for a, r in sorted(inst.listen_ranges.items()) if a <= end and r[3] >= start]
        assert listen_range_overlapping(inst, start, end) == (plain[0] if plain else None)
        found += bool(plain)
    assert 100 < found < 2900  # (candidates that overlap and candidates that do not)


def test_parsers_read_the_same_in_several_threads_at_once(out: Path) -> None:
    """The deploy drivers parse their devices' running files in several threads at once: each
    parse must read what it reads alone (one parse clearing another's list indexes raised a
    KeyError mid-file). Lines that file, number and take back prefix-lists, route-maps and static
    routes ride along so that every index is in use."""
    import sys
    import threading

    from dualrail_net.platforms.eos.parse_config import parse_eos
    extra = ("ip prefix-list T permit 10.9.0.0/16\nip prefix-list T permit 10.8.0.0/16\nno ip prefix-list T seq 5\n"
             "route-map M permit 10\nroute-map M deny 20\nno route-map M permit 10\n"
             "ip route 10.7.0.0/16 blackhole\nip route 10.6.0.0/16 blackhole\nno ip route 10.7.0.0/16 blackhole\n")
    jobs: list[tuple[Any, str, str]] = [(frr_parser.parse_frr, "cumulus", p.read_text() + extra)
                                        for p in sorted(out.rglob("frr.conf"))[:6]]
    jobs += [(parse_eos, "eos", p.read_text() + extra) for p in sorted(out.rglob("running-config"))[:2]]
    assert len(jobs) == 8

    def read(job: tuple[Any, str, str]) -> DeviceConfig:
        parse, platform, text = job
        dev = DeviceConfig("d", platform)
        parse(text, dev)
        return dev

    alone = [read(job) for job in jobs]
    assert all(dev.route_maps.get("M") and dev.prefix_lists.get("T") for dev in alone)
    failures: list[str] = []

    def work(shift: int) -> None:
        try:
            for _round in range(15):
                for i in range(len(jobs)):
                    at = (i + shift) % len(jobs)
                    if read(jobs[at]) != alone[at]:
                        failures.append(f"file {at} read otherwise")
        except Exception as exc:  # noqa: BLE001  (what a thread raised is the failure)
            failures.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch within a parse, as they may under load
    try:
        threads = [threading.Thread(target=work, args=(shift,)) for shift in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []


KERNEL_ROUTES_FILE = """auto plane-a
iface plane-a
    vrf-table 1001

auto plane-b
iface plane-b
    vrf-table 1002

auto swp1
iface swp1
    address 10.13.0.1/31
    vrf plane-a
    post-up ip route add 10.12.0.0/20 dev swp1 table 1002
    post-up ip route replace default via 10.13.0.0 table 1001 metric 5
    up ip route add blackhole 10.99.0.0/16

auto swp2
iface swp2
    address 10.23.0.1/31
    vrf plane-b
    post-up ip route del 10.12.0.0/20 table 1002
    post-up ip route add 10.12.0.0/20 dev swp1 table 77
    post-up ip route add 10.12.0.0/20 dev eth0
    post-up ip rule add from all lookup 1001 pref 100

iface swp3
    post-up ip route add blackhole 10.44.0.0/16
"""


def test_a_cumulus_switchs_route_commands_are_kernel_routes_of_their_tables(tmp_path: Path) -> None:
    """`ip route add|replace` of an interfaces file on a Cumulus switch: routes of the VRF whose
    table they name (main: the default VRF), at zebra's kernel distance 0, out of a port of another
    VRF marked so; a deletion, an unknown table, a port that is no fabric port, a rule and a stanza
    ifupdown2 never brings up stay reported."""
    from dualrail_net.platforms.cumulus.parse import parse_base
    (tmp_path / "interfaces").write_text(KERNEL_ROUTES_FILE)
    dev = parse_base("gw", tmp_path)
    got = [(r.vrf, r.prefix, r.nexthop, r.nexthop_vrf, r.distance, r.line, r.file, r.kernel) for r in dev.kernel_routes]
    assert got == [("plane-b", "10.12.0.0/20", "swp1", "plane-a", 0, 13, "interfaces", True),
                   ("plane-a", "0.0.0.0/0", "10.13.0.0", None, 0, 14, "interfaces", True),
                   (None, "10.99.0.0/16", None, None, 0, 15, "interfaces", True)]
    reported = sorted(line for file, line, text in dev.base_unmodelled if "command" in text)
    assert reported == [21, 22, 23, 24, 27]



def test_a_cumulus_switchs_multipath_and_onlink_route_commands(tmp_path: Path) -> None:
    """A multipath command is one kernel route per hop at distance 0 (refused whole, and left
    reported, when the kernel refuses one hop); a gateway named out of a port must be on that port's
    subnet (the kernel: "Nexthop has invalid gateway"), unless `onlink`, when the hop is the port's."""
    from dualrail_net.platforms.cumulus.parse import parse_base
    (tmp_path / "interfaces").write_text(
        "auto swp1\niface swp1\n    address 10.0.0.0/31\n\nauto swp2\niface swp2\n    address 10.0.1.0/31\n"
        "    post-up ip route add 10.9.0.0/16 nexthop via 10.0.0.1 dev swp1 nexthop via 10.0.1.1 dev swp2 weight 3\n"
        "    post-up ip route add 10.8.0.0/16 nexthop via 10.0.0.1 dev swp1 nexthop via 10.0.0.1 dev swp2\n"
        "    post-up ip route add 10.7.0.0/16 via 10.0.0.1 dev swp2\n"
        "    post-up ip route add 10.6.0.0/16 via 192.0.2.1 dev swp2 onlink\n"
        "    post-up ip route add 10.5.0.0/16 via 10.0.1.1 dev swp2 onlink\n"
        "    post-up ip route add 10.4.0.0/16 nexthop via 10.0.0.1 nexthop dev swp2\n")
    dev = parse_base("leaf", tmp_path)
    got = [(r.prefix, r.nexthop, r.distance, r.line) for r in dev.kernel_routes]
    assert got == [("10.9.0.0/16", "10.0.0.1", 0, 8), ("10.9.0.0/16", "10.0.1.1", 0, 8),
                   ("10.6.0.0/16", "swp2", 0, 11), ("10.5.0.0/16", "10.0.1.1", 0, 12),
                   ("10.4.0.0/16", "10.0.0.1", 0, 13), ("10.4.0.0/16", "swp2", 0, 13)]
    assert sorted(line for _, line, text in dev.base_unmodelled if "command" in text) == [9, 10]


def test_a_cumulus_switchs_reject_rules_are_numbered_and_walked_as_the_kernel_does(tmp_path: Path) -> None:
    """`ip rule add ... prohibit|blackhole|unreachable` on a switch: numbered as the kernel numbers
    a rule given no priority (below the l3mdev rule's 1000 once the file has a VRF device: 999,
    then 998), walked in priority order for the switch's own packets (`iif lo`, `not`, a fwmark,
    after main's priority: nothing); only an `iif lo` rule leaves the unmodelled report; a lookup
    rule beside them leaves every rule reported and none kept."""
    from dualrail_net.platforms.cumulus.parse import parse_base
    from dualrail_net.verify.kernelrules import rejecting_rule
    from dualrail_net.verify.ipfast import ip_int
    head = "auto mgmt\niface mgmt\n    vrf-table auto\n\nauto swp1\niface swp1\n    address 10.0.0.0/31\n"
    (tmp_path / "interfaces").write_text(
        head + "    post-up ip rule add iif lo to 10.0.0.1 prohibit\n    post-up ip rule add not to 10.0.0.0/8 blackhole\n"
        "    post-up ip rule add fwmark 0x7 unreachable pref 5\n    post-up ip rule add from 10.9.0.0/16 prohibit pref 32767\n")
    dev = parse_base("leaf", tmp_path)
    assert [(r.priority, r.action, r.line) for r in dev.kernel_rules] == [
        (999, "prohibit", 8), (998, "blackhole", 9), (5, "unreachable", 10), (32767, "prohibit", 11)]
    assert sorted(line for _, line, text in dev.base_unmodelled if "command" in text) == [9, 10, 11]
    walk = dev.kernel_rules
    assert rejecting_rule(walk, False, ip_int("10.0.0.0"), ip_int("10.0.0.1")).line == 8  # type: ignore[union-attr]
    assert rejecting_rule(walk, False, ip_int("10.0.0.0"), ip_int("10.0.0.3")) is None
    assert rejecting_rule(walk, False, ip_int("10.0.0.0"), ip_int("192.0.2.1")).line == 9  # type: ignore[union-attr]
    assert rejecting_rule(walk[2:], False, ip_int("10.9.0.1"), ip_int("192.0.2.1")) is None
    (tmp_path / "interfaces").write_text(head + "    post-up ip rule add prohibit\n"
                                         "    post-up ip rule add to 10.0.0.0/8 lookup main pref 10\n")
    dev = parse_base("leaf", tmp_path)
    assert dev.kernel_rules == [] and sorted(l for _, l, t in dev.base_unmodelled if "command" in t) == [8, 9]


def test_a_switch_port_moved_to_another_vrf_by_a_command_is_in_that_vrf() -> None:
    """`ip link set X master V` / `vrf V` / `nomaster` after X's own stanza moves X (a switch's
    port; its routes go with it); before it, X's stanza sets its master again (left reported); a
    master that is no VRF of the file (a bridge) is left reported; a server's ports are not moved."""
    text = KERNEL_ROUTES_FILE.replace("    post-up ip rule add from all lookup 1001 pref 100\n",
                                      "    post-up ip link set swp1 vrf plane-b\n"
                                      "    post-up ip link set dev swp2 nomaster\n"
                                      "    post-up ip l s swp2 master br0\n")
    before = text.replace("    vrf-table 1002\n", "    vrf-table 1002\n    post-up ip link set swp1 master plane-a\n")
    parsed = ifupdown.read_interfaces(before)
    done = ifupdown.apply_link_commands(parsed, masters=True)
    assert parsed.interfaces["swp1"].vrf == "plane-b" and parsed.interfaces["swp2"].vrf is None
    moved = [parsed.commands[n] for n in sorted(done)]
    assert moved == ["ip link set swp1 vrf plane-b", "ip link set dev swp2 nomaster"]
    server = ifupdown.read_interfaces(text)
    ifupdown.apply_link_commands(server)
    assert server.interfaces["swp1"].vrf == "plane-a" and server.interfaces["swp2"].vrf == "plane-b"


def test_nht_resolve_via_default_is_read_and_said_only_where_a_default_route_exists() -> None:
    """`ip nht resolve-via-default` (top level, in a `vrf` block, taken back by `no`): read per VRF;
    verify/nht.py reports it only where the VRF has a static default or BGP brings one."""
    from types import SimpleNamespace
    from dualrail_net.verify.nht import judge_nht_default
    from dualrail_net.verify.parsers.frr import parse_frr
    text = ("ip nht resolve-via-default\nvrf blue\n ip nht resolve-via-default\nexit-vrf\nvrf red\n"
            " ip nht resolve-via-default\n no ip nht resolve-via-default\nexit-vrf\n")
    dev = DeviceConfig("leaf", "cumulus")
    parse_frr(text, dev)
    assert dev.nht_default == {None: 1, "blue": 3} and dev.unmodelled == []
    snap: Any = SimpleNamespace(devices={"leaf": dev})
    judge_nht_default(snap)
    assert dev.unmodelled == []  # no default route anywhere: the lines change nothing
    parse_frr(text + "vrf blue\n ip route 0.0.0.0/0 10.0.0.1\nexit-vrf\n", dev := DeviceConfig("leaf", "cumulus"))
    snap = SimpleNamespace(devices={"leaf": dev})
    judge_nht_default(snap)
    assert [line for line, _ in dev.unmodelled] == [3]  # blue's: a static default there
    other = DeviceConfig("spine", "cumulus")
    parse_frr("router bgp 65000\n neighbor 10.0.0.0 remote-as 65001\n address-family ipv4 unicast\n"
              "  neighbor 10.0.0.0 default-originate\n exit-address-family\n", other)
    parse_frr(text, dev := DeviceConfig("leaf", "cumulus"))
    snap = SimpleNamespace(devices={"leaf": dev, "spine": other})
    judge_nht_default(snap)
    assert sorted(line for line, _ in dev.unmodelled) == [1, 3]  # BGP may bring one: both said


def test_one_prefix_through_a_list_is_what_the_index_matches() -> None:
    """explain_prefix_list (one prefix, the plain reading) against PrefixIndex.matching (every
    indexed prefix at once) on random entries, `eq` (ge = le), zero lengths and the default route
    included."""
    from dualrail_net.verify.ipfast import net_str
    from dualrail_net.verify.model import PrefixListEntry
    from dualrail_net.verify.routes import PrefixIndex, explain_prefix_list
    rng = random.Random(47)
    prefixes = sorted({net_str((rng.getrandbits(8) << 24 & ((0xFFFFFFFF << (32 - n)) & 0xFFFFFFFF), n))
                       for n in range(0, 33) for _ in range(3)} | {"0.0.0.0/0", "10.0.0.0/8", "10.12.0.0/26"})
    idx = PrefixIndex()
    for p in prefixes:
        idx.add(p, ("x", None), None)
    idx.freeze()
    for _ in range(400):
        length = rng.choice([0, 8, 16, 20, 26, 32])
        base = net_str((rng.getrandbits(8) << 24 & ((0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF), length))
        ge = rng.choice([None, length, min(32, length + rng.randint(0, 8))])
        le = rng.choice([None, 32, ge if ge is not None else None, min(32, length + rng.randint(0, 12))])
        if ge is not None and le is not None and le < ge:
            continue
        entry = PrefixListEntry(5, "permit", base, ge, le)
        dev = DeviceConfig("x", "cumulus")
        dev.prefix_lists["L"] = [entry]
        matched = idx.matching(entry)
        for bit, p in enumerate(idx.prefixes):
            assert explain_prefix_list(dev, "L", p)[0] == bool(matched >> bit & 1), (base, ge, le, p)


def test_exit_at_the_top_level_leaves_configuration_mode_as_vtysh_reads_the_file() -> None:
    """vtysh's file reader (FRR 8.4, measured with --dryrun and in the twin): `exit` or `quit` at the
    top level leaves configuration mode, and every later line is refused until `configure
    [terminal]`; `end` lines are skipped, the node staying where it is; a line no FRR command
    completes is refused where it stands, opening no block (a route-map entry whose header was
    deleted leaves its `match` at the top level: the lines after it are still read)."""
    left = flat_parse_frr("ip route 1.0.0.0/8 blackhole\n match ip address prefix-list P\nexit\n!\n"
                          "router bgp 65000\n neighbor 1.1.1.1 remote-as 65001\nexit\nip route 2.0.0.0/8 blackhole\n")
    assert not left.bgp and [r.prefix for r in left.static_routes] == ["1.0.0.0/8"]
    # (and the instance's own `exit`, out of configuration mode, ends vtysh: line 8 is never read)
    assert [(line, why.split(":")[0].split(",")[0]) for line, _s, why in left.refused_lines] == \
        [(5, "`exit` at the top level (line 3) left configuration mode"), (8, "`exit` on line 7")]
    back = flat_parse_frr("quit\nip route 1.0.0.0/8 blackhole\nconf t\nrouter bgp 65000\n neighbor 1.1.1.1 remote-as 65001\n")
    assert [r.prefix for r in back.static_routes] == [] and back.bgp[None].asn == 65000
    assert len(back.refused_lines) == 1
    # out of configuration mode, a second `exit` ends vtysh: nothing after it is read, and it exits 0
    stopped = flat_parse_frr("ip route 1.0.0.0/8 blackhole\nexit\nquit\nconfigure terminal\nrouter bgp 65000\n!\nend\n")
    assert [r.prefix for r in stopped.static_routes] == ["1.0.0.0/8"] and not stopped.bgp
    assert [(line, why.split(",")[0]) for line, _s, why in stopped.refused_lines] == [(4, "`quit` on line 3")]
    assert not flat_parse_frr("ip route 1.0.0.0/8 blackhole\nexit\nexit\n!\nend\n").refused_lines  # (nothing after)
    ended = flat_parse_frr("route-map M permit 10\nend\n set local-preference 200\nrouter bgp 65000\n address-family ipv4 unicast\n"
                           "  quit\n neighbor 1.1.1.1 remote-as 65001\n")
    assert ended.route_maps["M"][0].local_pref == 200 and not ended.refused_lines
    assert "1.1.1.1" in ended.bgp[None].neighbors  # (`quit` in the address family is its `exit`: to the bgp node)
    # where FRR is after a line its grammar takes above the node, or refuses (vtysh --dryrun agrees)
    climbed = flat_parse_frr("router bgp 65000\n no ipv6 forwarding\n neighbor 1.1.1.1 remote-as 65001\n")
    assert not climbed.bgp[None].neighbors  # (zebra's line took FRR to the top level: the neighbor is refused there)
    # (`vni 10` is a top-level command of zebra's that opens no block: the route-map's `exit` then
    # leaves configuration mode, and the instance below is refused)
    leaf = flat_parse_frr("route-map M permit 10\n vni 10\nexit\nrouter bgp 65000\n")
    assert not leaf.bgp and leaf.refused_lines[0][0] == 4
    stayed = flat_parse_frr("route-map M permit 10\n key 1\nexit\nip route 1.0.0.0/8 blackhole\n")
    assert [r.prefix for r in stayed.static_routes] == ["1.0.0.0/8"] and not stayed.refused_lines
    block = flat_parse_frr("router ospf\n ospf router-id 1.1.1.1\nexit\nrouter bgp 65000\n")
    assert block.bgp[None].asn == 65000 and not block.refused_lines  # (a block FRR has: its `exit` ends it)
    # blocks with nodes of their own the reader does not follow: their `exit`s are not read as
    # leaving configuration mode (vtysh --dryrun: no refusal in any of these)
    for nested in ("bfd\n profile a\n  detect-multiplier 3\n exit\n profile b\n  receive-interval 300\n exit\n !\nexit\n",
                   "router bgp 65001\n address-family l2vpn evpn\n  vni 10\n   rd 1:1\n  exit\n exit\nexit\n",
                   "key chain K\n key 1\n  key-string x\n exit\nexit\n",
                   "segment-routing\n traffic-eng\n  segment-list L\n  exit\n exit\nexit\n"):
        read = flat_parse_frr(nested + "ip route 1.0.0.0/8 blackhole\n")
        assert [r.prefix for r in read.static_routes] == ["1.0.0.0/8"] and not read.refused_lines, nested


def test_zebra_router_id_is_the_bgp_router_id_where_bgp_names_none() -> None:
    """zebra's `ip router-id A` (top level, `vrf V`, or in a `vrf` block) is the router ID of a BGP
    instance of that VRF without its own `bgp router-id`; an instance with one keeps it; `no ip
    router-id` takes it back."""
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("ip router-id 10.0.0.9\nip router-id 10.0.0.7 vrf red\nvrf blue\n ip router-id 10.0.0.8\n"
                         "exit-vrf\nrouter bgp 65001\nexit\nrouter bgp 65001 vrf red\n bgp router-id 10.0.0.1\nexit\n"
                         "router bgp 65001 vrf blue\nexit\n", dev)
    frr_parser.finish_bgp(dev)
    assert not dev.unmodelled
    assert [dev.bgp[v].router_id for v in (None, "red", "blue")] == ["10.0.0.9", "10.0.0.1", "10.0.0.8"]
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("ip router-id 10.0.0.9\nno ip router-id 10.0.0.9\nrouter bgp 65001\nexit\n", dev)
    frr_parser.finish_bgp(dev)
    assert dev.bgp[None].router_id is None and not dev.unmodelled


def test_graceful_restart_timers_change_no_route_and_a_vty_password_is_said_without_its_value() -> None:
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("password zebra\nenable password s3cr3t\nrouter bgp 65001\n bgp graceful-restart\n"
                         " bgp graceful-restart stalepath-time 360\n bgp graceful-restart restart-time 120\n"
                         " no bgp graceful-restart rib-stale-time\n bgp graceful-restart restart-time 99999\nexit\n", dev)
    said = dict(dev.unmodelled)
    assert sorted(said) == [1, 2, 8], said
    assert "zebra" not in said[1] and "s3cr3t" not in said[2] and "<value withheld>" in said[2]
