"""Which plane an address belongs to: the one place that answers it (verify's checks, the address
table's arrays, the twin's probes), from the planes' address pools in the manifest.

Glossary used across the stages:
* **plane**: one of the physically separate leaf-spine fabrics (A, B, ...); nothing may connect or
  leak between planes.
* **pool**: an address block a plane allocates from (loopbacks, fabric links, server links, ...).
* **routing instance**: a device's default VRF, or one VRF of a multi-plane device (one per plane).
* **endpoint**: one configured interface address of a device or server; its **owner** is the device
  (or server) that configures it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence

from dualrail_net.verify.ipfast import network_of

Network = ipaddress.IPv4Network


class PlanePools:
    """The planes' pools, indexed for the question "which plane holds this address or prefix".

    Invariant: pools of different planes never overlap (validation refuses it); if they did, the
    most specific pool would win (tables are tried longest prefix first)."""

    def __init__(self, pools: Mapping[str, Sequence[Network | str]]) -> None:
        self.pools: dict[str, list[Network]] = {
            plane: [n if isinstance(n, Network) else ipaddress.IPv4Network(n) for n in nets]
            for plane, nets in pools.items()}
        tables: dict[int, dict[int, str]] = {}
        for plane, nets in self.pools.items():
            for n in nets:
                tables.setdefault(n.prefixlen, {}).setdefault(int(n.network_address) >> (32 - n.prefixlen), plane)
        self._tables = [(length, 32 - length, table) for length, table in sorted(tables.items(), reverse=True)]
        self._cache: dict[str, str | None] = {}

    @classmethod
    def of_manifest(cls, pools: Mapping[str, Mapping[str, str]]) -> PlanePools:
        """From the manifest's ``pools`` (plane -> pool name -> prefix)."""
        return cls({plane: list(named.values()) for plane, named in pools.items()})

    def plane_of_address(self, address: str) -> str | None:
        """The plane whose pools hold ``address`` (an IP or a prefix), or None (also for a string
        that is not an address)."""
        hit = self._cache.get(address, "?")
        if hit != "?":
            return hit
        try:
            net = network_of(address)
        except ValueError:  # not an address (a peer-group or port name where a neighbor's address goes)
            return None
        found = self.plane_of_net(net)
        self._cache[address] = found
        return found

    def plane_of_net(self, net: tuple[int, int]) -> str | None:
        """plane_of_address for an already parsed (network, length): one dict probe per distinct
        pool length (a large fabric asks this a million times)."""
        address, length = net
        for pool_len, shift, table in self._tables:
            if length >= pool_len:
                plane = table.get(address >> shift)
                if plane is not None:
                    return plane
        return None

    def plane_covered(self, prefix: str) -> str | None:
        """The plane whose pools a prefix holds, when it holds pools of exactly one plane and sits in
        none (10.22.0.0/16 around plane B's 10.22.0.0/20); None otherwise, also for a prefix that
        covers pools of several planes (a default route, 10.0.0.0/8: no plane's in particular). A
        route for such a prefix is one for that plane's addresses: nothing more specific of another
        plane stands in front of them."""
        try:
            address, length = network_of(prefix)
        except ValueError:
            return None
        if self.plane_of_net((address, length)) is not None:
            return None
        shift = 32 - length
        covered = {plane for plane, nets in self.pools.items() for n in nets
                   if n.prefixlen >= length and int(n.network_address) >> shift == address >> shift}
        return covered.pop() if len(covered) == 1 else None

    def plane_routed(self, prefix: str) -> str | None:
        """The plane whose addresses a route for ``prefix`` holds: plane_of_address, else
        plane_covered; None: no plane's (ISO-ROUTE-LEAK's static routes and the foreign-route index
        ask this)."""
        return self.plane_of_address(prefix) or self.plane_covered(prefix)

    def lookup_order(self) -> list[tuple[int, int, str]]:
        """(pool length, pool network >> (32 - length), plane) in the order plane_of_net tries them:
        for the same lookup over arrays of networks (verify/address_table.py)."""
        return [(32 - shift, prefix, plane) for _, shift, table in self._tables for prefix, plane in table.items()]


def plane_of_reference(pools: Mapping[str, Sequence[Network]], address: str) -> str | None:
    """The plain definition PlanePools.plane_of_address is tested against: the first plane one of
    whose pools contains the address or prefix (pools never overlap, so "first" is "only")."""
    net = ipaddress.IPv4Network(address, strict=False)
    for plane, nets in pools.items():
        if any(net.subnet_of(n) for n in nets):
            return plane
    return None
