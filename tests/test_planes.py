"""PlanePools (the one answer to "which plane is this address in") against its plain definition."""

from __future__ import annotations

import ipaddress

from hypothesis import given, settings
from hypothesis import strategies as st

from dualrail_net.planes import PlanePools, plane_of_reference

POOLS = {"A": ["10.10.0.0/24", "10.11.0.0/16", "10.12.0.0/15"], "B": ["10.20.0.0/24", "10.21.0.0/16"],
         "C": ["192.0.2.128/25"]}
NETS = {p: [ipaddress.IPv4Network(n) for n in nets] for p, nets in POOLS.items()}


@settings(max_examples=400, deadline=None)
@given(base=st.sampled_from([n for nets in NETS.values() for n in nets] + [ipaddress.IPv4Network("10.0.0.0/8")]),
       offset=st.integers(0, 2 ** 17), length=st.integers(8, 32))
def test_plane_of_address_is_the_plain_definition(base: ipaddress.IPv4Network, offset: int, length: int) -> None:
    address = ipaddress.IPv4Address(int(base.network_address) + offset % (2 ** 18))
    pools = PlanePools(POOLS)
    for text in (str(address), f"{ipaddress.IPv4Network((int(address), length), strict=False)}"):
        assert pools.plane_of_address(text) == plane_of_reference(NETS, text), text


def test_known_answers() -> None:
    pools = PlanePools.of_manifest({p: {f"pool{i}": n for i, n in enumerate(nets)} for p, nets in POOLS.items()})
    assert pools.plane_of_address("10.12.1.7") == "A"
    assert pools.plane_of_address("10.21.255.0/24") == "B"
    assert pools.plane_of_address("10.20.0.0/23") is None  # wider than B's pool: not inside it
    assert pools.plane_of_address("192.0.2.129/32") == "C"
    assert pools.plane_of_address("8.8.8.8") is None


def test_a_prefix_around_one_planes_pools_is_that_planes() -> None:
    """plane_covered: a supernet of one plane's pools (and of no other's) routes that plane's
    addresses; a prefix in a pool, around no pool, or around several planes' pools is no plane's."""
    pools = PlanePools(POOLS)
    assert pools.plane_covered("10.20.0.0/23") == "B"  # B's loopbacks and nothing else
    assert pools.plane_covered("10.20.0.0/14") == "B"  # both of B's pools
    assert pools.plane_covered("10.12.0.0/14") == "A"
    assert pools.plane_covered("192.0.2.0/24") == "C"
    assert pools.plane_covered("10.0.0.0/8") is None  # A's and B's
    assert pools.plane_covered("0.0.0.0/0") is None
    assert pools.plane_covered("10.12.1.0/24") is None  # inside A's pool: plane_of_address answers
    assert pools.plane_covered("10.30.0.0/16") is None  # around no pool
    assert pools.plane_covered("not-a-prefix") is None
    # the plain definition: the planes with a pool inside the prefix
    for prefix in ("10.20.0.0/23", "10.0.0.0/8", "10.12.0.0/14", "192.0.0.0/8", "10.21.0.0/16"):
        net = ipaddress.IPv4Network(prefix)
        inside = {p for p, nets in NETS.items() for n in nets if n.subnet_of(net)}
        expected = inside.pop() if len(inside) == 1 and pools.plane_of_address(prefix) is None else None
        assert pools.plane_covered(prefix) == expected, prefix
        assert pools.plane_routed(prefix) == (pools.plane_of_address(prefix) or expected), prefix
