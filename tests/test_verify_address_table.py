"""The address checks find their candidates with numpy arrays (verify/address_table.py) and run
their plain logic on those alone (ADDR-P2P-MISMATCH reads networks parsed by the topology). Here the plain logic over every endpoint is the reference: on the
example fabric with random extra addresses (overlaps, duplicates, other planes' pools, shared
subnets across planes, servers and switches) both must give the same findings, in the same order."""

from __future__ import annotations

import ipaddress
import random
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.address_table import NO_PLANE, address_table
from dualrail_net.verify.checks import Context
from dualrail_net.verify.checks.addressing import overlapping_subnets, p2p_mismatch
from dualrail_net.verify.checks.isolation import cross_plane_links, foreign_subnets, subnets_spanning_planes
from dualrail_net.verify.ipfast import dotted, net_str
from dualrail_net.verify.model import DeviceConfig, Interface, ServerConfig
from dualrail_net.verify.reference import reference_foreign, reference_overlaps, reference_p2p, reference_shared_subnets
from dualrail_net.verify.snapshot import Snapshot, load_snapshot


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("addr") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def readdress_cabled_ports(snap: Snapshot, rng: random.Random) -> None:
    """Cabled ports with another first address: a neighbor's, the same IP with another length (a
    duplicate whose owner holds another network), or the address moved to the far end."""
    rows = rng.sample(snap.cabling, 12)
    for row in rows:
        holder = snap.devices.get(row["a_device"]) or snap.servers.get(row["a_device"])
        iface = holder.interfaces.get(row["a_port"]) if holder else None
        if iface is None or not iface.addresses:
            continue
        ip, _, length = iface.addresses[0].partition("/")
        iface.addresses[0] = rng.choice([f"{ip}/{rng.choice([24, 30, 32])}", row["b_address"],
                                         f"{ip}/{length}", row["a_address"].replace(".", ".1", 1)])


def scatter_addresses(snap: Snapshot, rng: random.Random) -> None:
    """Random extra ports: addresses from both planes' pools and outside them, lengths /8 to /32,
    on switches (default VRF and the gateway's VRFs) and servers."""
    pools = [net for nets in snap.pools.values() for net in nets]
    holders: list[DeviceConfig | ServerConfig] = [*snap.devices.values(), *snap.servers.values()]
    for n in range(60):
        holder = rng.choice(holders)
        pool = rng.choice(pools)
        base = int(pool.network_address) + rng.randrange(min(pool.num_addresses, 64))
        length = rng.choice([24, 28, 29, 30, 31, 31, 31, 32, 32]) if rng.random() < 0.97 else rng.choice([8, 16])
        if rng.random() < 0.15:
            base = rng.randrange(1 << 32)
        elif rng.random() < 0.2:  # the last address of an existing link: overlaps at its very end
            net = ipaddress.IPv4Interface(rng.choice([i for h in holders for i in h.interfaces.values()
                                                      if i.addresses and i.addresses[0].endswith("/31")]).addresses[0])
            base, length = int(net.network.broadcast_address), 32
        iface = Interface(f"x{n}", [f"{dotted(base)}/{length}"], is_loopback=rng.random() < 0.1)
        vrfs = list(getattr(holder, "vrfs", {}))
        if vrfs and rng.random() < 0.5:
            iface.vrf = rng.choice(vrfs)
        holder.interfaces[iface.name] = iface


def test_array_prefilters_find_what_the_plain_loops_find(rendered: Path) -> None:
    compared: dict[str, int] = {"overlaps": 0, "shared subnets": 0, "foreign addresses": 0, "cable ends": 0}
    for seed in range(8):
        snap = load_snapshot(rendered)
        scatter_addresses(snap, random.Random(seed))
        readdress_cabled_ports(snap, random.Random(seed))
        ctx = Context(snap)
        assert p2p_mismatch(ctx) == reference_p2p(ctx)
        compared["cable ends"] += len(reference_p2p(ctx))
        overlaps, expected_shared, foreign = reference_overlaps(ctx), reference_shared_subnets(ctx), reference_foreign(ctx)
        assert overlapping_subnets(ctx) == overlaps
        shared = [f for f in cross_plane_links(ctx) if f.message.startswith("subnet ")]
        assert [(f.message.split()[1], set(f.devices)) for f in shared] == \
            [(net_str(net), {d for d, _ in members}) for net, members in expected_shared]
        assert subnets_spanning_planes(ctx) == expected_shared  # the named query, against its definition
        assert foreign_subnets(ctx) == foreign
        compared["overlaps"] += len(overlaps)
        compared["shared subnets"] += len(expected_shared)
        compared["foreign addresses"] += len(foreign)
    # the random addresses did make findings of each kind to compare
    assert all(compared.values()), compared


def test_address_table_planes_match_the_snapshot(rendered: Path) -> None:
    snap = load_snapshot(rendered)
    scatter_addresses(snap, random.Random(99))
    ctx = Context(snap)
    table = address_table(snap, ctx.topo)
    for i, ep in enumerate(ctx.topo.endpoints):
        assert (int(table.net[i]), int(table.length[i])) == ep.net
        owner = None if ep.is_server else ctx.topo.node_plane.get(ep.node)
        assert table.owner_plane[i] == (table.planes.index(owner) if owner else NO_PLANE)
        address = snap.plane_of_net(ep.net)
        assert table.address_plane[i] == (table.planes.index(address) if address else NO_PLANE)
        assert (bool(table.is_server[i]), bool(table.is_loopback[i])) == (ep.is_server, ep.is_loopback)


def test_address_parsing_matches_ipaddress_and_refuses_the_rest() -> None:
    from dualrail_net.verify.ipfast import ip_int, split_address
    rng = random.Random(3)
    for _ in range(500):
        text = f"{dotted(rng.randrange(1 << 32))}/{rng.randrange(33)}"
        net = ipaddress.IPv4Interface(text).network
        assert split_address(text) == (text.partition("/")[0], (int(net.network_address), net.prefixlen))
    assert split_address("10.0.0.7") == ("10.0.0.7", (167772167, 32))
    for bad in ("10.1", "10.0.0.256", "10.0.0.1/33", "10.0.0.1/-1", "x/31", "10.0.0.1/x"):
        with pytest.raises(ValueError):
            split_address(bad)
    with pytest.raises(ValueError):
        ip_int("10.0.0.1/31")
