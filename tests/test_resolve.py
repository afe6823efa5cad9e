"""Resolution: deterministic, consistent, and stable under growth (property-tested)."""

from __future__ import annotations

import ipaddress
from collections import Counter
from dataclasses import replace

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.export import cabling_csv, fabric_json, read_cabling_csv
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.synthetic import Shape, synthetic_inventory


def assignments(fabric: Fabric) -> dict[str, object]:
    """Everything growth must not change: per device ASN/loopback/mgmt and per port address and peer."""
    out: dict[str, object] = {}
    for sw in fabric.switches.values():
        out[f"{sw.name}/asn"] = sw.asn
        out[f"{sw.name}/loopback"] = sw.loopback
        out[f"{sw.name}/mgmt"] = sw.mgmt_address
        for vrf in sw.vrfs:
            out[f"{sw.name}/{vrf.name}/loopback"] = vrf.loopback
        for p in sw.ports:
            out[f"{sw.name}/{p.name}"] = (p.address, p.peer, p.peer_port, p.peer_address)
    for srv in fabric.servers:
        for p in srv.ports:
            out[f"{srv.name}/{p.ifname}"] = (p.address, p.gateway, p.leaf, p.leaf_port, p.table)
    return out


def assert_superset(small: Fabric, big: Fabric) -> None:
    before, after = assignments(small), assignments(big)
    changed = {k: (v, after.get(k)) for k, v in before.items() if after.get(k) != v}
    assert not changed, f"growth renumbered {len(changed)} assignments, e.g. {list(changed.items())[:3]}"


def test_resolution_is_deterministic(example_loaded) -> None:
    a = resolve_fabric(example_loaded.inventory)
    b = resolve_fabric(example_loaded.inventory)
    assert fabric_json(a) == fabric_json(b)
    assert cabling_csv(a) == cabling_csv(b)


def test_the_fast_export_is_the_plain_one(example_fabric: Fabric) -> None:
    """resolved/fabric.json (one entry per line, C encoder) holds what asdict + json make of the model."""
    import json
    from dualrail_net.resolve.export import fabric_to_dict
    text = fabric_json(example_fabric)
    assert json.loads(text) == json.loads(json.dumps(fabric_to_dict(example_fabric)))
    assert text.count("\n") > len(example_fabric.switches) + len(example_fabric.links)  # an entry per line


def test_example_shape(example_fabric: Fabric) -> None:
    roles = Counter((s.plane, s.role) for s in example_fabric.switches.values())
    assert roles[("A", "spine")] == 4 and roles[("A", "leaf")] == 8
    assert roles[("B", "spine")] == 4 and roles[("B", "leaf")] == 8
    assert roles[(None, "gateway")] == 1
    assert len(example_fabric.servers) == 32
    assert all(len(s.ports) == 8 for s in example_fabric.servers)


def test_no_duplicate_addresses_and_p2p_ends_pair(example_fabric: Fabric) -> None:
    seen: Counter[str] = Counter()
    for sw in example_fabric.switches.values():
        seen[sw.loopback.split("/")[0]] += 1 if sw.plane else 0
        for vrf in sw.vrfs:
            seen[vrf.loopback.split("/")[0]] += 1
        for p in sw.ports:
            seen[p.address.split("/")[0]] += 1
            a = ipaddress.IPv4Interface(p.address)
            b = ipaddress.IPv4Interface(p.peer_address)
            assert a.network == b.network and a.network.prefixlen == 31 and a != b
    for srv in example_fabric.servers:
        for p in srv.ports:
            seen[p.address.split("/")[0]] += 1
    dups = [ip for ip, n in seen.items() if n > 1]
    assert not dups


def test_every_link_both_ends_agree(example_fabric: Fabric) -> None:
    ports = {(sw.name, p.name): p for sw in example_fabric.switches.values() for p in sw.ports}
    for link in example_fabric.links:
        if link.kind == "server-leaf":
            leaf_port = ports[(link.b, link.b_port)]
            assert leaf_port.peer == link.a and leaf_port.peer_port == link.a_port
            continue
        if link.kind == "external":  # a gateway's peer outside the fabric: one end is ours
            a = ports[(link.a, link.a_port)]
            assert (a.kind, a.peer, a.address, a.peer_address, a.plane) == (
                "external", link.b, link.a_address, link.b_address, link.plane)
            continue
        a = ports[(link.a, link.a_port)]
        b = ports[(link.b, link.b_port)]
        assert (a.peer, a.peer_port, b.peer, b.peer_port) == (link.b, link.b_port, link.a, link.a_port)
        # a link never joins two planes
        assert a.plane == b.plane == link.plane


def test_bgp_sessions_are_symmetric(example_fabric: Fabric) -> None:
    sw = example_fabric.switches
    for s in sw.values():
        for peer in s.bgp_peers:
            if peer.kind == "external":
                assert peer.peer not in sw and peer.accepts  # outside the fabric, with what it brings
                continue
            other = sw[peer.peer]
            assert peer.remote_asn == other.asn
            back = [p for p in other.bgp_peers if p.peer == s.name and p.plane == peer.plane]
            assert back, f"{s.name} peers {other.name} but not the reverse"


def test_gateway_keeps_planes_in_vrfs(example_fabric: Fabric) -> None:
    gw = example_fabric.switches["gw-storage-1"]
    assert [v.plane for v in gw.vrfs] == ["A", "B"]
    for port in gw.ports:
        assert port.vrf == f"plane-{port.plane.lower()}"
        if port.kind == "external":
            assert port.peer == f"storage-{port.plane.lower()}-1"
            continue
        assert example_fabric.switches[port.peer].plane == port.plane


def test_server_ports_land_on_their_planes_leaf(example_fabric: Fabric) -> None:
    for srv in example_fabric.servers:
        for p in srv.ports:
            leaf = example_fabric.switches[p.leaf]
            assert leaf.plane == p.plane and leaf.rail == p.rail and leaf.su == srv.su


def test_cabling_csv_round_trip(example_fabric: Fabric) -> None:
    rows = read_cabling_csv(cabling_csv(example_fabric))
    assert len(rows) == len(example_fabric.links)
    assert {r["plane"] for r in rows} == {"A", "B"}


def test_three_tier_resolves_with_superspines() -> None:
    shape = Shape(tiers=3, pods=2, spines_per_pod=2, super_spines_per_group=2, spine_downlinks=16, spine_uplinks=4,
                  super_spine_downlinks=8, leaf_uplinks=4, rails=2, sus_per_pod=2, servers_per_su=2,
                  gateways=1, border_ports=2)
    fabric = resolve_fabric(synthetic_inventory(shape))
    ss = [s for s in fabric.switches.values() if s.role == "super_spine" and s.plane == "A"]
    assert len(ss) == 4  # 2 groups (one per spine index) x 2
    for s in ss:
        assert sorted(p.peer for p in s.ports if p.kind == "downlink") == sorted(
            sp.name for sp in fabric.switches.values()
            if sp.role == "spine" and sp.plane == "A" and sp.index == int(s.name.split("-g")[1].split("-")[0]))
    gw = fabric.switches["gw-1"]
    assert {p.peer for p in gw.ports} >= {s.name for s in ss}


small = st.integers(min_value=1, max_value=3)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spines=small, sus=small, servers=small, rails=st.integers(1, 2),
       more_spines=st.integers(0, 2), more_sus=st.integers(0, 2), more_servers=st.integers(0, 3),
       gateways=st.integers(0, 1), links=st.integers(1, 2))
def test_growth_never_renumbers_two_tier(spines: int, sus: int, servers: int, rails: int, more_spines: int,
                                         more_sus: int, more_servers: int, gateways: int, links: int) -> None:
    """Growth keeps every address, ASN and port, with one or two links per leaf-spine pair."""
    base = Shape(spines_per_pod=spines, sus_per_pod=sus, servers_per_su=servers, rails=rails, leaf_uplinks=16,
                 spine_downlinks=32, leaf_server_ports=8, gateways=gateways, border_ports=2, leaf_spine_links=links)
    grown = replace(base, spines_per_pod=spines + more_spines, sus_per_pod=sus + more_sus,
                    servers_per_su=servers + more_servers)
    assert_superset(resolve_fabric(synthetic_inventory(base)), resolve_fabric(synthetic_inventory(grown)))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pods=st.integers(1, 2), more_pods=st.integers(0, 2), ss=st.integers(1, 2), more_ss=st.integers(0, 2),
       spines=st.integers(1, 2), more_spines=st.integers(0, 2), links=st.integers(1, 2),
       up_links=st.integers(1, 2))
def test_growth_never_renumbers_three_tier(pods: int, more_pods: int, ss: int, more_ss: int, spines: int,
                                           more_spines: int, links: int, up_links: int) -> None:
    base = Shape(tiers=3, pods=pods, super_spines_per_group=ss, spines_per_pod=spines, leaf_uplinks=8,
                 spine_downlinks=8, spine_uplinks=8, super_spine_downlinks=8, rails=2, sus_per_pod=1,
                 servers_per_su=2, leaf_server_ports=4, leaf_spine_links=links, spine_super_spine_links=up_links)
    grown = replace(base, pods=pods + more_pods, super_spines_per_group=ss + more_ss,
                    spines_per_pod=spines + more_spines)
    assert_superset(resolve_fabric(synthetic_inventory(base)), resolve_fabric(synthetic_inventory(grown)))


def test_growth_check_itself_detects_renumbering() -> None:
    """The superset assertion must fail when something does move (guards the property tests)."""
    a = resolve_fabric(synthetic_inventory(Shape(spines_per_pod=2)))
    b = resolve_fabric(synthetic_inventory(Shape(spines_per_pod=2)))
    b.switches["a-spine-1"].asn += 1
    try:
        assert_superset(a, b)
    except AssertionError:
        return
    raise AssertionError("renumbering went unnoticed")


def test_role_labels_name_the_super_spines() -> None:
    """A core/aggregation vocabulary on three tiers: names change, roles and the cabling do not."""
    from dualrail_net.sot.schema import RoleLabels
    shape = Shape(tiers=3, pods=2, spines_per_pod=2, super_spines_per_group=2, spine_downlinks=16, spine_uplinks=4,
                  super_spine_downlinks=8, leaf_uplinks=4, rails=2, sus_per_pod=2, servers_per_su=2)
    plain = synthetic_inventory(shape)
    labelled = plain.model_copy(update={"fabric": plain.fabric.model_copy(
        update={"role_labels": RoleLabels(leaf="tor", spine="agg", super_spine="core")})})
    a, b = resolve_fabric(plain), resolve_fabric(labelled)
    rename = {"-leaf-": "-tor-", "-spine-": "-agg-", "-ss-": "-core-"}

    def renamed(name: str) -> str:
        for old, new in rename.items():
            name = name.replace(old, new)
        return name
    assert {renamed(n): s.role for n, s in a.switches.items()} == {n: s.role for n, s in b.switches.items()}
    assert "a-core-g1-1" in b.switches and b.switches["a-core-g1-1"].role == "super_spine"
    assert [(renamed(x.a), renamed(x.b), x.a_address) for x in a.links] == [(x.a, x.b, x.a_address) for x in b.links]


def test_p2p_ends_agrees_with_p2p_pair() -> None:
    """The resolver's fast /31 formatting (three octets once, both bare ends) against the plain one."""
    import random

    from dualrail_net.resolve.allocate import PoolExhausted, p2p_ends, p2p_pair
    rng = random.Random(3)
    for pool in ("10.0.0.0/8", "100.64.0.0/10", "10.11.0.0/16", "192.168.255.0/24", "10.0.0.0/31"):
        for slot in [0, 1, 127, 128, 255, 256] + [rng.randrange(1 << 22) for _ in range(200)]:
            try:
                want = p2p_pair(pool, slot)
            except PoolExhausted:
                with pytest.raises(PoolExhausted):
                    p2p_ends(pool, slot)
                continue
            low, high, low_ip, high_ip = p2p_ends(pool, slot)
            assert (low, high) == want
            assert (low_ip, high_ip) == (want[0].split("/")[0], want[1].split("/")[0])
