"""What the bitset model cannot follow without AS paths, judged by the plain reference
(verify/pathjudge.py): prepends of an ASN not on the path (loop prevention where it lands) and
ORIGIN (`set origin`, redistribution beside another origination)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify import pathjudge
from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.controlplane import _origin_attributes, _Origination, compute_plane
from dualrail_net.verify.model import BgpInstance, DeviceConfig
from dualrail_net.verify.parsers import frr as frr_parser
from dualrail_net.verify.snapshot import load_snapshot
from dualrail_net.verify.topology import build_topology

from test_reference_rib import assert_agree, plain_rib

LEAF_A = "plane-A/a-leaf-su1-r0"
LEAF_B = "plane-A/a-leaf-su1-r1"
OUT_ENTRY = " match ip address prefix-list LOCAL-A\n"


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("clean") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def _copy(clean: Path, tmp_path: Path) -> Path:
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    return edited


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_set_origin_is_read_and_a_word_it_does_not_know_is_reported() -> None:
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("route-map M permit 10\n set origin incomplete\nexit\n"
                         "route-map M permit 20\n set origin egp\nexit\n"
                         "route-map M permit 30\n set origin bogus\nexit\n", dev)
    assert [(e.origin, e.origin_line) for e in dev.route_maps["M"]] == [(2, 2), (1, 5), (None, 0)]
    assert (8, "set origin bogus") in dev.unmodelled


def _findings(folder: Path) -> list[tuple[str, str, str]]:
    return [(f.check, f.severity.value, f.message) for r in run_checks(load_snapshot(folder)) for f in r.findings]


def test_a_prepend_of_the_receivers_asn_is_dropped_there(clean: Path, tmp_path: Path) -> None:
    """The leaf prepends its spines' ASN outbound: every spine drops the leaf's prefixes, and the
    finding names the prepend and the spine's loop prevention."""
    edited = _copy(clean, tmp_path)
    _edit(edited / LEAF_A / "frr.conf", OUT_ENTRY, OUT_ENTRY + " set as-path prepend 4200001000\n")
    found = _findings(edited)
    missing = [m for c, s, m in found if c == "ROUTE-MISSING" and s == "error"]
    assert missing and all("10.1" in m for m in missing), found
    assert any("frr.conf:" in m and "set as-path prepend puts AS 4200001000 on the path" in m
               and "a-spine-1 (AS 4200001000) drops it by eBGP loop prevention" in m for m in missing), missing
    assert not [c for c, _, _ in found if c == "ROUTE-POLICY-UNMODELLED"]
    assert_agree(edited, "receiver's ASN prepended")


def test_a_prepend_of_a_third_asn_is_dropped_where_it_lands(clean: Path, tmp_path: Path) -> None:
    """The leaf prepends another leaf's ASN: the spines take the path, that leaf alone drops it."""
    edited = _copy(clean, tmp_path)
    _edit(edited / LEAF_A / "frr.conf", OUT_ENTRY, OUT_ENTRY + " set as-path prepend 4200001101\n")
    missing = [m for c, s, m in _findings(edited) if c == "ROUTE-MISSING" and s == "error"]
    assert missing and all("missing on 1 of 13 switches (a-leaf-su1-r1)" in m for m in missing), missing
    assert all("a-leaf-su1-r1 (AS 4200001101) drops it" in m for m in missing), missing


def test_above_the_exact_limit_a_foreign_prepend_is_said_not_judged(clean: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    edited = _copy(clean, tmp_path)
    _edit(edited / LEAF_A / "frr.conf", OUT_ENTRY, OUT_ENTRY + " set as-path prepend 4200001000\n")
    monkeypatch.setattr(pathjudge, "EXACT_LIMIT", 0)
    found = _findings(edited)
    assert [f for f in found if f[1] == "error"] == [], found  # the bitset model: longer paths only
    assert any(c == "ROUTE-POLICY-UNMODELLED" and "set as-path prepend 4200001000 (AS 4200001000 is not on the path"
               in m and "not evaluated, the plane is too large" in m for c, _, m in found), found


def test_origin_set_on_one_session_loses_it_and_alike_on_all_changes_nothing(clean: Path, tmp_path: Path) -> None:
    for where, value, lost in (("one", "incomplete", True), ("one", "igp", False), ("all", "incomplete", False)):
        edited = _copy(clean, tmp_path / f"{where}-{value}")
        path = edited / LEAF_A / "frr.conf"
        if where == "one":
            _edit(path, "  neighbor 10.11.0.0 route-map PLANE-A-IN in\n", "  neighbor 10.11.0.0 route-map ONE-IN in\n")
            _edit(path, "route-map LOCAL-A-OUT permit 10\n", "route-map ONE-IN permit 10\n match ip address "
                  f"prefix-list PLANE-A\n set origin {value}\nexit\n!\nroute-map LOCAL-A-OUT permit 10\n")
        else:
            _edit(path, " match ip address prefix-list PLANE-A\n",
                  f" match ip address prefix-list PLANE-A\n set origin {value}\n")
        found = _findings(edited)
        if lost:
            assert any(c == "ROUTE-ECMP-WIDTH" and "without next hop a-spine-1" in m and "frr.conf:" in m
                       and "arrives with ORIGIN incomplete" in m for c, _, m in found), found
        else:
            assert found == [], (where, value, found)
        assert_agree(edited, f"set origin {value} on {where}")


def test_a_prefix_redistributed_at_one_leaf_and_a_network_at_another(clean: Path, tmp_path: Path) -> None:
    """Two leaves originate one prefix (anycast): one redistributes its static route (ORIGIN
    incomplete), the other has a network statement (igp). The spines install the igp path alone."""
    edited = _copy(clean, tmp_path)
    anycast = "10.12.15.0/24"
    for leaf, how in ((LEAF_A, "  redistribute static\n"), (LEAF_B, f"  network {anycast}\n")):
        path = edited / leaf / "frr.conf"
        text = path.read_text()
        _edit(path, "!\nip prefix-list PLANE-A", f"ip route {anycast} blackhole\n!\nip prefix-list PLANE-A")
        _edit(path, "ip prefix-list LOCAL-A seq 20", f"ip prefix-list LOCAL-A seq 15 permit {anycast}\n"
                                                     "ip prefix-list LOCAL-A seq 20")
        _edit(path, "  maximum-paths 64\n", how + "  maximum-paths 64\n")
        assert text != path.read_text()
    snap = load_snapshot(edited)
    topo = build_topology(snap)
    control = compute_plane(snap, topo, "A")
    bit = control.index.prefixes.index(anycast)
    spine = ("a-spine-1", None)
    senders = [control.nodes[k if k < len(control.nodes) else control.alias[k - len(control.nodes)]][0]
               for k, mask in control.via_in[control.nodes.index(spine)].items() if mask >> bit & 1]
    assert senders == ["a-leaf-su1-r1"], senders
    assert_agree(edited, "anycast with two ORIGINs")


def test_origin_attributes_are_found_only_where_they_can_meet() -> None:
    dev = DeviceConfig("r", "cumulus")
    inst = dev.bgp[None] = BgpInstance(None, 65001, line=3)
    inst.redistribute_lines["static"] = 9
    other = DeviceConfig("n", "cumulus")
    other.bgp[None] = BgpInstance(None, 65002)
    devices = {"r": dev, "n": other}
    alone = {("r", None): _Origination(["10.0.0.0/24"], [], [], ["10.0.0.0/24"]),
             ("n", None): _Origination(["10.0.1.0/24"], [])}
    assert _origin_attributes(devices, alone) == []
    both = {**alone, ("n", None): _Origination(["10.0.0.0/24"], [])}
    assert _origin_attributes(devices, both) == [("r", 9, "10.0.0.0/24 is redistributed here (ORIGIN incomplete) and "
                                                      "originated elsewhere too")]


def test_origin_set_in_a_called_map_is_judged(clean: Path, tmp_path: Path) -> None:
    edited = _copy(clean, tmp_path)
    path = edited / LEAF_A / "frr.conf"
    _edit(path, "  neighbor 10.11.0.0 route-map PLANE-A-IN in\n", "  neighbor 10.11.0.0 route-map ONE-IN in\n")
    _edit(path, "route-map LOCAL-A-OUT permit 10\n", "route-map ONE-IN permit 10\n match ip address prefix-list PLANE-A\n"
          " call SET-O\nexit\n!\nroute-map SET-O permit 10\n set origin egp\nexit\n!\nroute-map LOCAL-A-OUT permit 10\n")
    found = _findings(edited)
    assert any(c == "ROUTE-ECMP-WIDTH" and "arrives with ORIGIN egp" in m for c, _, m in found), found
    assert_agree(edited, "set origin in a called map")


def test_the_med_a_redistribution_gives_counts_where_two_originators_meet(clean: Path, tmp_path: Path) -> None:
    """Two leaves redistribute one static prefix (anycast) with metrics 50 and 10: a spine that
    compares MED across neighbor ASes (`bgp always-compare-med`) installs the metric-10 leaf alone;
    without it the MEDs of different ASes are not compared: the paths tie, and the EOS spine, which
    relaxes multipath unless told not to, installs both; told not to, the lowest router ID wins."""
    anycast = "10.12.15.0/24"
    for compare, relax, winners in ((True, True, ["a-leaf-su1-r1"]), (False, True, ["a-leaf-su1-r0", "a-leaf-su1-r1"]),
                                    (False, False, ["a-leaf-su1-r0"])):
        edited = _copy(clean, tmp_path / f"{compare}-{relax}")
        for leaf, metric in ((LEAF_A, 50), (LEAF_B, 10)):
            path = edited / leaf / "frr.conf"
            _edit(path, "!\nip prefix-list PLANE-A", f"ip route {anycast} blackhole\n!\nip prefix-list PLANE-A")
            _edit(path, "ip prefix-list LOCAL-A seq 20", f"ip prefix-list LOCAL-A seq 15 permit {anycast}\n"
                                                         "ip prefix-list LOCAL-A seq 20")
            _edit(path, "  maximum-paths 64\n", f"  redistribute static metric {metric}\n  maximum-paths 64\n")
        if compare:
            _edit(edited / "plane-A/a-spine-1/running-config", "router bgp 4200001000\n",
                  "router bgp 4200001000\n   bgp always-compare-med\n")
        if not relax:
            _edit(edited / "plane-A/a-spine-1/running-config", "router bgp 4200001000\n",
                  "router bgp 4200001000\n   no bgp bestpath as-path multipath-relax\n")
        snap = load_snapshot(edited)
        control = compute_plane(snap, build_topology(snap), "A")
        bit = control.index.prefixes.index(anycast)
        n = len(control.nodes)
        senders = [control.nodes[k if k < n else control.alias[k - n]][0]
                   for k, mask in control.via_in[control.nodes.index(("a-spine-1", None))].items() if mask >> bit & 1]
        assert sorted(senders) == winners, (compare, relax, senders)
        assert_agree(edited, f"anycast MEDs, always-compare-med {compare}, multipath-relax {relax}")


_DRAIN = ("route-map PLANE-A-IN-D permit 10\n match ip address prefix-list PLANE-A\n"
          " set as-path prepend 4200001000 4200001000\nexit\n!\n")


def _drained(clean: Path, tmp_path: Path, ignore: str) -> Path:
    """The leaf's paths from a-spine-2 made two AS hops longer inbound, with ``ignore`` (a line
    of its `router bgp`, or nothing) beside it."""
    edited = _copy(clean, tmp_path)
    conf = edited / LEAF_A / "frr.conf"
    _edit(conf, "route-map PLANE-A-IN permit 10\n", _DRAIN + "route-map PLANE-A-IN permit 10\n")
    _edit(conf, "  neighbor 10.11.0.2 route-map PLANE-A-IN in\n", "  neighbor 10.11.0.2 route-map PLANE-A-IN-D in\n")
    if ignore:
        _edit(conf, " bgp router-id 10.10.0.32\n", f" bgp router-id 10.10.0.32\n{ignore}")
    return edited


def test_as_path_ignore_keeps_a_drained_spine_in_ecmp(clean: Path, tmp_path: Path) -> None:
    """`bgp bestpath as-path ignore`: the length no longer decides, so a spine drained by a prepend
    stays among the leaf's next hops (FRR's bgp_path_info_cmp skips the step; the twin agrees,
    oracle kind as-path-ignore); without it the drain narrows the leaf's ECMP."""
    drained = _findings(_drained(clean, tmp_path / "a", ""))
    assert any(c == "ROUTE-ECMP-WIDTH" and "a-leaf-su1-r0 installs" in m and "a-spine-2" in m for c, _, m in drained)
    ignored = _drained(clean, tmp_path / "b", " bgp bestpath as-path ignore\n")
    found = _findings(ignored)
    assert [f for f in found if f[1] == "error"] == [] and not [f for f in found if "as-path ignore" in f[2]], found
    rib = plain_rib(ignored)["A"]
    leaf = next(node for node in rib if node[0] == "a-leaf-su1-r0")
    remote = next(p for p, hops in rib[leaf].items() if len(hops) == 4)
    assert sorted(n[0] for n in rib[leaf][remote]) == ["a-spine-1", "a-spine-2", "a-spine-3", "a-spine-4"]
    # taken back, the drain is in force again
    undone = _drained(clean, tmp_path / "c", " bgp bestpath as-path ignore\n no bgp bestpath as-path ignore\n")
    assert any(c == "ROUTE-ECMP-WIDTH" for c, _, _ in _findings(undone))


def test_as_path_ignore_above_the_exact_limit_is_said(clean: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    edited = _drained(clean, tmp_path, " bgp bestpath as-path ignore\n")
    monkeypatch.setattr(pathjudge, "EXACT_LIMIT", 0)
    found = _findings(edited)
    assert any(c == "ROUTE-POLICY-UNMODELLED" and "bgp bestpath as-path ignore" in m and "too large" in m
               for c, _, m in found), found


def test_as_path_ignore_is_read_and_taken_back() -> None:
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("router bgp 65001\n bgp bestpath as-path ignore\nexit\n", dev)
    assert dev.bgp[None].as_path_ignore_line == 2 and not dev.unmodelled
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("router bgp 65001\n bgp bestpath as-path ignore\n no bgp bestpath as-path ignore\nexit\n", dev)
    assert dev.bgp[None].as_path_ignore_line == 0 and not dev.unmodelled


def test_disable_ebgp_connected_route_check_is_read_and_where_it_matters_said(clean: Path, tmp_path: Path) -> None:
    """`bgp disable-ebgp-connected-route-check` is every eBGP neighbor's `disable-connected-check`:
    alone it changes nothing here (every peer is on a connected subnet); beside a next hop set to an
    address on no connected subnet, zebra may resolve that through other routes, which the model
    does not follow: the path is taken as inaccessible and the line said."""
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr("router bgp 65001\n bgp disable-ebgp-connected-route-check\nexit\n", dev)
    assert dev.bgp[None].ebgp_unconnected_ok_line == 2 and not dev.unmodelled
    frr_parser.parse_frr("router bgp 65001\n no bgp disable-ebgp-connected-route-check\nexit\n", dev)
    assert dev.bgp[None].ebgp_unconnected_ok_line == 0 and not dev.unmodelled
    alone = _copy(clean, tmp_path / "a")
    _edit(alone / LEAF_A / "frr.conf", " bgp router-id 10.10.0.32\n",
          " bgp router-id 10.10.0.32\n bgp disable-ebgp-connected-route-check\n")
    assert _findings(alone) == []
    moved = _copy(clean, tmp_path / "b")
    _edit(moved / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n",
          "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n set ip next-hop 192.0.2.1\n")
    plain = _findings(moved)
    assert any(c == "ROUTE-MISSING" for c, _, _ in plain) and not [m for _, _, m in plain if "resolve" in m]
    _edit(moved / LEAF_A / "frr.conf", " bgp router-id 10.10.0.32\n",
          " bgp router-id 10.10.0.32\n bgp disable-ebgp-connected-route-check\n")
    said = [m for c, s, m in _findings(moved) if s == "warning" and "bgp disable-ebgp-connected-route-check" in m]
    assert said and "set ip next-hop 192.0.2.1" in said[0], _findings(moved)
