"""The topology is held as columns and its sessions are paired by array joins (verify/topology.py).
Here the plain object-per-address build and the statement-by-statement pairing are the reference:
on the example with random extra addresses and neighbor statements (toward other devices, servers,
unknown and duplicate addresses, their own instance), both must give the same endpoints, owners,
planes, sessions and one-sided statements, in the same order."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.checks import Context
from dualrail_net.verify.checks.bgp import session_missing
from dualrail_net.verify.checks.isolation import cross_plane_bgp
from dualrail_net.verify.ipfast import parse_addresses, split_address
from dualrail_net.verify.model import Interface, Neighbor
from dualrail_net.verify.reference import PlainTopology, plain_cross_plane_bgp, plain_session_missing
from dualrail_net.verify.snapshot import Snapshot, load_snapshot
from dualrail_net.verify.topology import Topology, build_topology
from test_verify_address_table import scatter_addresses
from test_verify_mutations import MUTATIONS


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("topo") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def scatter_neighbors(snap: Snapshot, topo: Topology, rng: random.Random) -> None:
    """Random neighbor statements: toward any endpoint (switch or server, other VRFs and planes
    included), the instance's own addresses, unknown addresses; some statements removed."""
    instances = [inst for dev in snap.devices.values() for inst in dev.bgp.values()]
    for _ in range(80):
        inst = rng.choice(instances)
        kind = rng.random()
        if kind < 0.6:
            addr = topo.ip[rng.randrange(len(topo))]
        elif kind < 0.8:
            addr = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}"
        elif inst.neighbors:
            del inst.neighbors[rng.choice(list(inst.neighbors))]
            continue
        else:
            continue
        inst.neighbors[addr] = Neighbor(addr, rng.choice([None, inst.asn, 4200000001]))


def assert_same(topo: Topology, plain: PlainTopology) -> None:
    assert topo.endpoints == plain.endpoints
    assert {ip: topo.endpoint(i) for ip, i in topo.by_ip.items()} == plain.by_ip
    assert topo.duplicates == plain.duplicates
    assert topo.node_plane == plain.node_plane and list(topo.node_plane) == list(plain.node_plane)
    assert topo.node_planes_seen == plain.seen
    assert topo.sessions == plain.sessions
    assert topo.one_sided == plain.one_sided


def test_columns_and_pairing_match_the_plain_topology(rendered: Path) -> None:
    compared = {"sessions": 0, "one-sided": 0, "duplicates": 0, "mixed instances": 0, "cross-plane statements": 0,
                "cables without a session": 0}
    for seed in range(6):
        snap = load_snapshot(rendered)
        rng = random.Random(seed)
        scatter_addresses(snap, rng)
        scatter_neighbors(snap, build_topology(snap), rng)
        topo, plain = build_topology(snap), PlainTopology(snap)
        assert_same(topo, plain)
        ctx = Context(snap)
        ctx.topo = topo
        crossing = cross_plane_bgp(ctx)
        assert crossing == plain_cross_plane_bgp(snap, plain)
        compared["cross-plane statements"] += len(crossing)
        missing = session_missing(ctx)
        assert missing == plain_session_missing(snap, plain)
        compared["cables without a session"] += len(missing)
        compared["sessions"] += len(plain.sessions)
        compared["one-sided"] += len(plain.one_sided)
        compared["duplicates"] += len(plain.duplicates)
        compared["mixed instances"] += sum(len(p) > 1 for p in plain.seen.values())
    assert all(compared.values()), compared  # each kind was really compared


@pytest.mark.parametrize("desc,check_id,mutate", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_every_mutation_gives_the_plain_topology(rendered: Path, tmp_path: Path, desc: str, check_id: str,
                                                 mutate: object) -> None:
    broken = tmp_path / "build"
    shutil.copytree(rendered, broken)
    assert callable(mutate)
    mutate(broken)
    snap = load_snapshot(broken)
    assert_same(build_topology(snap), PlainTopology(snap))


ODD_ADDRESSES = ["10.0.0.1", "010.0.0.1/31", "10.0.0.01/31", "0x0a.0.0.1/8", "10.0.0.1/031", "0.0.0.0/0",
                 "255.255.255.255/32", "10.1.2.3/00", "10.0.0.1/", "10.0.0.1 /31"]
BAD_ADDRESSES = ["10.0.0.256/31", "10.0.0.1/33", "10.0.0/24", "10..0.1/31", "a.b.c.d/8", "/31", "10.0.0.1/31/2",
                 "１0.0.0.1/8", "", "10.0.0.1/-1"]


def test_bulk_address_parsing_is_split_address() -> None:
    rng = random.Random(7)
    good = [f"{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}/{rng.randrange(33)}"
            for _ in range(2000)]

    def plain(addresses: list[str]) -> list[tuple[int, int]]:
        out = []
        for a in addresses:
            ip, (_, length) = split_address(a)
            out.append((split_address(ip)[1][0], length))
        return out

    for addresses in (good, good + ODD_ADDRESSES, ODD_ADDRESSES, []):
        value, length = parse_addresses(addresses)
        assert list(zip(value.tolist(), length.tolist())) == plain(addresses)
    for bad in BAD_ADDRESSES:
        with pytest.raises(ValueError):
            plain([bad])
        with pytest.raises(ValueError):
            parse_addresses(good[:5] + [bad] + good[5:10])


def test_sorting_set_operations_are_np_unique() -> None:
    import numpy as np

    from dualrail_net.verify.arrays import distinct, first_of_each
    rng = np.random.default_rng(3)
    for values in (rng.integers(0, 50, 3000), rng.integers(0, 1 << 40, 500), np.zeros(0, dtype=np.int64),
                   np.array([5, 5, 5], dtype=np.int64)):
        assert distinct(values).tolist() == np.unique(values).tolist()
        unique, first = np.unique(values, return_index=True)
        assert [a.tolist() for a in first_of_each(values)] == [unique.tolist(), first.tolist()]


def test_a_session_whose_address_another_device_owns_first(rendered: Path) -> None:
    """The pairing joins statements by the first owner of their address: a session end whose IP an
    earlier device also holds (a duplicate) must pair as the plain pairing pairs it."""
    snap = load_snapshot(rendered)
    plain_before = PlainTopology(snap)
    first = next(iter(snap.devices.values()))
    session = next(s for s in plain_before.sessions if first.name not in (s.a[0], s.b[0]))
    taken = plain_before.by_ip[session.b_neighbor]  # the address the a-end's instance holds
    first.interfaces["dup0"] = Interface("dup0", [taken.address])
    topo, plain = build_topology(snap), PlainTopology(snap)
    assert plain.by_ip[session.b_neighbor].device == first.name  # really owned first elsewhere now
    assert_same(topo, plain)
    assert any(s.a == session.a and s.b == session.b for s in topo.sessions)
