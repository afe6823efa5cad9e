"""A traceback on any input is a bug: random edits of every kind of rendered file (lines removed,
duplicated, moved, cut short, words swapped, numbers made huge, negative or non-ASCII, junk
inserted) must give findings or warnings, never an exception, from parsing through every model
check."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.snapshot import load_snapshot

JUNK = ["999999999999999999999", "-1", "٣", "0x", "1.2.3.4/99", "256.1.1.1", "", "exit", "!", "router bgp",
        "neighbor", "interface", "vrf", "route-map X permit", "ip prefix-list P seq 5 permit any", "   ",
        "address-family ipv4 unicast", "no bgp default ipv4-unicast", "aggregate-address 10.0.0.0/8 summary-only",
        "neighbor swp1 interface remote-as external", "ip route 0.0.0.0/0 swp99", "netmask 255.0.255.0",
        "pfc.roce_pfc.port_set = swp1-swp99999", "qos trust", "username x role", "management ssh",
        "bgp graceful-shutdown", "no bgp graceful-shutdown", "send-community", "no neighbor PG send-community all",
        "bgp bestpath med missing-as-worst confed", "bgp community-list standard C seq", "match community C",
        "bgp community-list expanded C permit ((", "bgp community-list 500 deny [^]*", "set community 1:1",
        "bgp community-list 7 permit 70000:1", "neighbor 10.0.0.1 password ${secret:", "neighbor X password 7",
        "bgp as-path access-list P seq", "bgp as-path access-list P permit ((", "match as-path P",
        "bgp as-path access-list P deny _1$", "neighbor 10.0.0.1 filter-list P in", "neighbor X filter-list Q out",
        "on-match next", "on-match goto 99999", "on-match goto 1", "continue 70000", "call X", "call ROUTE-MAP",
        "set origin incomplete", "set origin", "neighbor 10.0.0.1 update-source lo", "update-source 999.1.1.1",
        "network 10.0.0.0/8 route-map", "network 10.0.0.0/8 route-map NOPE", "network 1.2.3.4/99 route-map X",
        "line vty", "exec-timeout 0 0", "neighbor 10.0.0.1 ebgp-multihop 0", "neighbor X disable-connected-check",
        "neighbor 10.0.0.1 capability extended-nexthop", "logging buffered", "clock timezone",
        "docker_routing_config_mode", "pfcwd_sw_enable", "post-up ip link set swp1 down", "post-up ip l s dev",
        "post-up ip link set dev swp99 mtu 99999999", "post-up ip link set swp1 up mtu", "bond-slaves swp1 swp1",
        "bond-slaves", "channel-group 1 mode active", "channel-group 99999999999 mode on", "banner login", "EOF",
        "PORTCHANNEL_MEMBER", "agentx"]


def _mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 6)):
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        op = rng.randrange(8)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            lines.insert(rng.randrange(len(lines) + 1), lines.pop(i))
        elif op == 3:
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
        elif op == 4:
            words = lines[i].split(" ")
            rng.shuffle(words)
            lines[i] = " ".join(words)
        elif op == 5:
            words = lines[i].split(" ")
            words[rng.randrange(len(words))] = rng.choice(JUNK)
            lines[i] = " ".join(words)
        elif op == 6:
            lines.insert(i, rng.choice(JUNK) + " " + rng.choice(JUNK))
        else:
            lines[i] = lines[i].lstrip()
    return "\n".join(lines)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("fuzz") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("FUZZ_SEEDS", "40"))))
def test_random_edits_never_raise(clean: Path, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    files = sorted(p for p in broken.rglob("*") if p.is_file() and p.name in (
        "frr.conf", "running-config", "interfaces", "qos_features.conf", "nccl.env", "sysctl.conf", "nccl-topo.xml",
        "dualrail-nic-qos.service", "nic-qos.sh", "opensm.conf", "opensm-standby.conf"))
    for path in rng.sample(files, 3):
        path.write_text(_mutate(rng, path.read_text()))
    results = run_checks(load_snapshot(broken))  # must not raise
    assert results
    from dualrail_net.verify.ib.static import run_static
    assert run_static(broken)  # the IB files' readers too


JUNK_VALUES: list[object] = [None, True, -1, 10**30, 3.5, "", "٣", "x" * 300, [], [1, [2]], {}, {"a": {"b": None}},
                             "10.0.0.1/99", "Ethernet0|", "|", "on", "off", "enable", "strict"]


def _mutate_tree(rng: random.Random, node: object, depth: int = 0) -> object:
    """The same document with some values replaced by junk of any type and some keys dropped."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            roll = rng.random()
            if roll < 0.03:
                continue  # key dropped
            out[key] = rng.choice(JUNK_VALUES) if roll < 0.06 else _mutate_tree(rng, value, depth + 1)
        if rng.random() < 0.02:
            out[rng.choice(["x", "PORT", "Ethernet9999", "interface", "swp999"])] = rng.choice(JUNK_VALUES)
        return out
    if isinstance(node, list):
        return [_mutate_tree(rng, v, depth + 1) for v in node]
    return rng.choice(JUNK_VALUES) if rng.random() < 0.05 else node


@pytest.mark.parametrize("variant", ["sonic_variant", "nvue_variant"])
@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("FUZZ_SEEDS", "40")) // 4))
def test_random_edits_of_json_and_yaml_platforms_never_raise(request: pytest.FixtureRequest, tmp_path: Path,
                                                             variant: str, seed: int) -> None:
    """config_db.json and startup.yaml edited as data (values of any type, keys dropped or added)
    and as text: findings, never an exception."""
    import json

    import yaml
    rng = random.Random(seed)
    broken = tmp_path / "build"
    shutil.copytree(request.getfixturevalue(variant), broken)
    name = "config_db.json" if variant == "sonic_variant" else "startup.yaml"
    files = sorted(broken.rglob(name))
    for path in rng.sample(files, 3):
        text = path.read_text()
        if rng.random() < 0.5:
            text = _mutate(rng, text)
        elif name == "config_db.json":
            doc = json.loads(text)
            if rng.random() < 0.5:  # static routes bgpcfgd would install (sonic/parse.static_routes)
                doc["STATIC_ROUTE"] = {rng.choice(["10.11.0.0/32", "default|10.20.0.0/24", "Vrf_x|1.2.3.0/24", "x",
                                                   "a|b|10.0.0.0/8", "10.12.0.64/26"]):
                                       {field: rng.choice([*JUNK_VALUES, "10.11.0.0", "10.11.0.0,10.11.0.2", "true",
                                                           "false", "Ethernet256", "0,20"])
                                        for field in rng.sample(["nexthop", "blackhole", "ifname", "distance",
                                                                 "nexthop-vrf", "advertise", "bfd", "x"], 3)}
                                       for _ in range(rng.randint(1, 4))}
            text = json.dumps(_mutate_tree(rng, doc), indent=2)
        else:
            text = yaml.safe_dump(_mutate_tree(rng, yaml.safe_load(text)), sort_keys=False)
        path.write_text(text)
    assert run_checks(load_snapshot(broken))  # must not raise


def test_hostile_sonic_access_lists_never_raise() -> None:
    """ACL_TABLE and ACL_RULE of any shape (values of every JSON type, ranges backwards, numbers out
    of range): each table is judged, or left unjudged and reported, never an exception."""
    import json
    from dualrail_net.platforms.sonic.parse import read_acls, read_config_db
    from dualrail_net.verify.model import DeviceConfig
    rng = random.Random(3)
    values = ["", "0", "-1", "99999999999", "abc", "1.2.3.4", "1.2.3.4/40", "10-5", "5-10", "0x0800", "IPV6ANY",
              "DROP", "FORWARD", None, 7, [1, 2], {"a": 1}, True, "Ethernet0", "L3", "ingress", "CTRLPLANE"]
    keys = ["PRIORITY", "PACKET_ACTION", "IP_PROTOCOL", "SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT",
            "L4_SRC_PORT_RANGE", "L4_DST_PORT_RANGE", "ETHER_TYPE", "IP_TYPE", "TCP_FLAGS"]
    judged = 0
    for _ in range(600):
        rules = {f"T|R{j}": {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 6))}
                 for j in range(rng.randint(0, 4))}
        table = {"T": {k: rng.choice(values) for k in rng.sample(["type", "stage", "ports", "policy_desc"],
                                                                  rng.randint(0, 4))}}
        doc = {"ACL_TABLE": rng.choice([table, [], "x", {"T": 5}]), "ACL_RULE": rng.choice([rules, "y", {"T|R": 3}])}
        db = read_config_db(json.dumps(doc), DeviceConfig(name="x", platform="sonic"))
        if db is not None:
            acls = read_acls(db)
            judged += sum(1 for entries in acls.lists.values() if entries is not None)
    assert judged  # some tables are read whole: the fuzz reaches the rule reader


def test_hostile_sonic_control_plane_tables_never_raise() -> None:
    """CTRLPLANE tables and their rules of any shape (services not a list, unknown services,
    targets iptables refuses, TCP flags that are not hexadecimal, both address families): the
    chain is made, or left unjudged and reported, never an exception."""
    import json
    from dualrail_net.platforms.sonic.parse import read_acls, read_config_db
    from dualrail_net.verify.model import DeviceConfig
    rng = random.Random(4)
    values = ["", "0", "9", "10", "abc", "1.2.3.4", "10.0.0.0/8", "1.2.3.4/40", "2001:db8::/32", "ACCEPT", "DROP",
              "FORWARD", "eth0", "Ethernet0", "0x02/0x12", "0x10/0x10", "0xzz/0x2", "8080", "5-10", None, 7, [1, 2],
              {"a": 1}, True]
    keys = ["PRIORITY", "PACKET_ACTION", "SRC_IP", "DST_IP", "SRC_IPV6", "DST_IPV6", "L4_DST_PORT",
            "L4_DST_PORT_RANGE", "IN_PORTS", "TCP_FLAGS", "IP_PROTOCOL", "priority"]
    services = [["SSH"], ["SSH", "ANY", 5], ["EXTERNAL_CLIENT"], ["NTP", "SNMP"], "SSH", None, [], {"a": 1}]
    judged = 0
    for _ in range(600):
        rules = {f"T|R{j}": {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 5))}
                 for j in range(rng.randint(0, 4))}
        for fields in rules.values():
            if rng.random() < 0.6:  # often the fields caclmgrd needs, so that chains get made
                fields.update(PRIORITY=str(rng.randint(1, 30)), PACKET_ACTION=rng.choice(["ACCEPT", "DROP"]),
                              SRC_IP=rng.choice(["1.2.3.4", "10.0.0.0/8"]))
        table = {"T": {"type": "CTRLPLANE", "services": rng.choice(services), "stage": rng.choice(values)}}
        doc = {"ACL_TABLE": rng.choice([table, table, {"T": 5}]), "ACL_RULE": rng.choice([rules, rules, "y"]),
               "MGMT_INTERFACE": {"eth0|198.51.100.33/24": {}}}
        db = read_config_db(json.dumps(doc), DeviceConfig(name="x", platform="sonic"))
        if db is not None:
            cp = read_acls(db).control_plane
            judged += cp is not None and cp.active and cp.entries is not None
    assert judged  # some chains are made whole: the fuzz reaches the rule reader


def test_hostile_server_routes_and_rules_never_raise(tmp_path: Path) -> None:
    """post-up `ip route` / `ip rule` commands of random words (multipath groups, selectors, flags
    in odd places) through the parser, the kernel model and every lookup: never an exception."""
    from dualrail_net.verify.hostroute import host_routing
    from dualrail_net.verify.parsers import parse_server
    rng = random.Random(5)
    words = ["route", "rule", "add", "replace", "append", "nexthop", "via", "dev", "weight", "onlink", "10.12.0.0",
             "10.22.0.0", "10.0.0.0/8", "not", "to", "iif", "from", "all", "lookup", "101", "table", "p0", "p1",
             "lo", "default", "metric", "5", "2", "٣", "-4"]
    folder = tmp_path / "srv"
    folder.mkdir()
    for _ in range(400):
        lines = "".join(f"    post-up ip {' '.join(rng.choice(words) for _ in range(rng.randint(2, 12)))}\n"
                        for _ in range(4))
        (folder / "interfaces").write_text(f"auto p0\niface p0\n    address 10.12.0.1/31\n{lines}\n"
                                           f"auto p1\niface p1\n    address 10.22.0.1/31\n{lines}")
        routing = host_routing(parse_server("srv", folder))
        for source in (0, 0x0A0C0001, 0x0A160001):
            for destination in (0x0A140005, 0x0A0C0000, 0x0B000001):
                found = routing.lookup(source, destination)
                for egress in found.each() if found is not None else []:
                    routing.source_for(egress)


# digits int() refuses ('²' is a digit to str.isdigit) or cannot hold (over 4,300 of them)
HOSTILE_NUMBERS = ("\u00b2", "9" * 5000)


@pytest.mark.parametrize("variant", ["clean", "sonic_variant", "nvue_variant"])
def test_every_number_of_every_line_made_hostile_is_read_or_reported(request: pytest.FixtureRequest, tmp_path: Path,
                                                                      variant: str) -> None:
    """One switch per platform and one server: each number of each line (the first four of a
    line), replaced by a digit int() refuses or by 5,000 digits, one at a time: the device is read
    (the number reported as not modelled, or the line refused), never an exception."""
    import re

    from dualrail_net.manifest import Manifest
    from dualrail_net.verify.parsers import parse_device, parse_server
    root: Path = request.getfixturevalue(variant)
    manifest = Manifest.load(root)
    firsts: dict[str, tuple[str, str]] = {}
    for name, meta in manifest.devices.items():
        firsts.setdefault(meta.platform, (name, meta.dir))
    folders: list[tuple[Path, Any]] = [(root / folder, lambda d, n=name, p=platform: parse_device(n, p, d))
                                       for platform, (name, folder) in firsts.items()]
    server = sorted((root / "servers").iterdir())[0]
    folders.append((server, lambda d, n=server.name: parse_server(n, d)))
    edited = 0
    for folder, parse in folders:
        work = tmp_path / folder.name
        shutil.copytree(folder, work)
        for path in sorted(p for p in work.iterdir() if p.is_file()):
            original = path.read_text(errors="replace")
            lines = original.split("\n")
            for i, line in enumerate(lines):
                for m in list(re.finditer(r"[0-9]+", line))[:4]:
                    for hostile in HOSTILE_NUMBERS:
                        path.write_text("\n".join(lines[:i] + [line[:m.start()] + hostile + line[m.end():]]
                                                  + lines[i + 1:]))
                        parse(work)  # must not raise
                        edited += 1
            path.write_text(original)
    assert edited > 500


@pytest.mark.parametrize("gateway", ["cumulus", "eos"])
def test_a_bare_keyword_line_anywhere_never_raises(example_build: Path, tmp_path: Path, gateway: str) -> None:
    """`no`, `default`, `exit` or `end` alone on a line, at any line of a routing file and at that
    line's indentation (a bare `no` reached an index past a list's end): read or reported. FRR
    leaves and gateway, EOS spines; then the gateway on EOS (its VRFs under `router bgp`)."""
    from dualrail_net.manifest import Manifest
    from dualrail_net.platforms.eos.parse_config import parse_eos
    from dualrail_net.verify.model import DeviceConfig
    from dualrail_net.verify.parsers.frr import parse_frr
    from conftest import built_variant
    root = example_build if gateway == "cumulus" else built_variant(tmp_path, gateway="eos")
    manifest = Manifest.load(root)
    files = sorted({(root / meta.dir / name, meta.platform) for meta in manifest.devices.values()
                    for name in ("frr.conf", "running-config") if (root / meta.dir / name).exists()})
    picked = {platform: path for path, platform in files}  # one file per platform, the gateway's among them
    picked.update({f"gw-{platform}": path for path, platform in files if "gw-" in str(path)})
    read = 0
    for path in picked.values():
        lines = path.read_text().split("\n")
        reader = parse_eos if path.name == "running-config" else parse_frr
        for i in range(0, len(lines), 3 if reader is parse_eos else 1):
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            for word in ("no", "default", "exit", "end", "no  "):
                reader("\n".join(lines[:i] + [indent + word] + lines[i:]), DeviceConfig("x", "eos"))
                read += 1
    assert read > 500 and len(picked) >= 3
