"""AS-path filters (verify/aspaths.py): FRR's `bgp as-path access-list`, read by the parser and judged
on each route's AS path as bgpd judges it; a neighbor's `filter-list`, a route-map's `match as-path`;
a plane too large to follow every path is said so; the gateway's external peers' paths."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify import aspaths, pathjudge
from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers import frr as frr_parser
from dualrail_net.verify.snapshot import load_snapshot

from test_reference_rib import assert_agree

LEAF_A = "plane-A/a-leaf-su1-r0"
GATEWAY = "multi-plane/gw-storage-1"


def parsed(text: str) -> DeviceConfig:
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr(text, dev)
    return dev


def test_lists_are_read_as_bgpd_takes_them() -> None:
    dev = parsed("bgp as-path access-list A seq 10 permit ^65001 65002$\n"
                 "bgp as-path access-list A deny _65003_\n"  # no seq: 5 above the highest
                 "bgp as-path access-list B permit \\d+\n"  # an escape: the list is not read
                 "bgp as-path access-list C permit {65001}\n"  # braces: not read
                 "bgp as-path access-list D permit [0-9\n"  # not an expression
                 "ip as-path access-list E permit .*\n")  # the older form: not read
    assert dev.as_path_lists == {"A": [(10, "permit", "^65001 65002$"), (15, "deny", "_65003_")]}
    assert dev.as_path_lists_unread == {"B", "C", "D", "E"}
    assert [line for line, _ in dev.unmodelled] == [3, 4, 5, 6]


def test_bgpd_semantics_of_a_list() -> None:
    dev = parsed("bgp as-path access-list L seq 5 deny _65003$\n"
                 "bgp as-path access-list L seq 10 permit ^65001_\n"
                 "bgp as-path access-list EMPTY permit ^$\n"
                 "bgp as-path access-list ANY permit _\n")
    assert aspaths.list_permits(dev, "L", (65001, 65002))
    assert not aspaths.list_permits(dev, "L", (65001, 65003))  # the first entry that matches decides
    assert not aspaths.list_permits(dev, "L", (650011,))  # `_` is a delimiter: 650011 is not 65001
    assert not aspaths.list_permits(dev, "L", (65002,))  # no entry matches: denied
    assert aspaths.list_permits(dev, "EMPTY", ()) and not aspaths.list_permits(dev, "EMPTY", (65001,))
    assert aspaths.list_permits(dev, "ANY", ()) and aspaths.list_permits(dev, "ANY", (1, 2))
    assert not aspaths.list_permits(dev, "NOBODY", ())  # a list nobody defined denies


def test_filter_lists_on_neighbors_and_peer_groups() -> None:
    dev = parsed("bgp as-path access-list OK permit .*\n"
                 "bgp as-path access-list ESC permit \\d\n"
                 "router bgp 65000\n"
                 " neighbor G peer-group\n neighbor G remote-as external\n"
                 " neighbor 1.1.1.1 peer-group G\n neighbor 2.2.2.2 peer-group G\n"
                 " neighbor 3.3.3.3 remote-as 65001\n"
                 " address-family ipv4 unicast\n"
                 "  neighbor G filter-list OK in\n"
                 "  neighbor 3.3.3.3 filter-list ESC out\n"
                 "  neighbor 2.2.2.2 filter-list NOPE out\n"
                 "  neighbor 1.1.1.1 filter-list NOPE out\n"
                 " exit-address-family\n")
    members = dev.bgp[None].neighbors
    assert members["1.1.1.1"].filter_list_in == members["2.2.2.2"].filter_list_in == "OK"
    assert members["3.3.3.3"].filter_list_out is None  # on a list not read: reported, not evaluated
    assert (11, "neighbor 3.3.3.3 filter-list ESC out") in dev.unmodelled
    assert sorted(line for line, what in dev.undefined_refs if "as-path access-list NOPE" in what) == [12, 13]


def test_a_match_in_a_route_map_that_decides_the_fib_is_reported() -> None:
    dev = parsed("bgp as-path access-list L permit .*\n"
                 "route-map FIB permit 10\n match as-path L\nexit\n"
                 "ip protocol bgp route-map FIB\n")
    assert any("match as-path L (route-map FIB decides what is installed)" in what for _, what in dev.unmodelled)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("clean") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def _edited(clean: Path, tmp_path: Path, path: str, old: str, new: str) -> Path:
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    target = edited / path
    text = target.read_text()
    assert old in text
    target.write_text(text.replace(old, new, 1))
    return edited


INBOUND_FROM_SPINE_ONLY = ("router bgp 4200001100\n", "bgp as-path access-list SP permit ^4200001000$\n"
                           "router bgp 4200001100\n")


def test_a_plane_too_large_to_follow_is_said_so(clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above EXACT_LIMIT the filter is reported (CONFIG-UNMODELLED) and the routes are the bitset
    model's; below it the same edit is judged (the leaf loses spine-1 as a next hop)."""
    edited = _edited(clean, tmp_path, LEAF_A + "/frr.conf", *INBOUND_FROM_SPINE_ONLY)
    text = (edited / LEAF_A / "frr.conf").read_text()
    (edited / LEAF_A / "frr.conf").write_text(text.replace("  maximum-paths 64\n",
                                                           "  neighbor 10.11.0.0 filter-list SP in\n  maximum-paths 64\n"))
    judged = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert any(c == "ROUTE-ECMP-WIDTH" and "filter-list SP in denies the AS path" in m for c, m in judged), judged
    assert_agree(edited, "filter-list judged")
    monkeypatch.setattr(pathjudge, "EXACT_LIMIT", 0)
    reported = [(f.check, f.severity.value, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert [f for f in reported if f[1] == "error"] == [], reported
    assert any(c == "ROUTE-POLICY-UNMODELLED" and "filter-list SP in: not evaluated, the plane is too large" in m
               for c, _, m in reported), reported


def test_an_external_peers_path_through_a_filter_list(clean: Path, tmp_path: Path) -> None:
    """The gateway's external peer (AS 65100) originates what it sends: a filter-list that takes only
    one-AS paths keeps its prefixes, one that takes only the empty path loses them."""
    for expression, lost in (("^65100$", False), ("^[0-9]+$", False), ("^$", True)):
        edited = _edited(clean, tmp_path / expression.replace("$", "D").replace("^", "C").replace("[", "")
                         .replace("]", "").replace("+", "P"), GATEWAY + "/frr.conf",
                         "router bgp 4200000100 vrf plane-a\n",
                         f"bgp as-path access-list EXT permit {expression}\nrouter bgp 4200000100 vrf plane-a\n")
        text = (edited / GATEWAY / "frr.conf").read_text()
        head = "  neighbor 100.64.0.1 route-map EXTERNAL-A-IN in\n"
        assert head in text
        (edited / GATEWAY / "frr.conf").write_text(text.replace(head, head + "  neighbor 100.64.0.1 filter-list EXT in\n"))
        found = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings
                 if f.severity.value == "error"]
        if lost:
            assert any("filter-list EXT in denies its AS path \"65100\"" in m for _, m in found), found
        else:
            assert found == [], found
