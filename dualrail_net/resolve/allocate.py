"""Slot -> address arithmetic. Pure functions of (pool, slot): nothing here depends on how many
devices exist, which is exactly why growth cannot renumber anything."""

from __future__ import annotations

import ipaddress
from functools import lru_cache


class PoolExhausted(ValueError):
    pass


@lru_cache(maxsize=256)
def _base(pool: str) -> tuple[int, int]:
    net = ipaddress.IPv4Network(pool)
    return int(net.network_address), net.num_addresses


def dotted(value: int) -> str:
    """Integer -> dotted quad, without ipaddress objects (this runs millions of times at 100k GPUs)."""
    return f"{value >> 24 & 255}.{value >> 16 & 255}.{value >> 8 & 255}.{value & 255}"


def host_address(pool: str, slot: int) -> str:
    """The slot-th address of ``pool`` as a /32."""
    base, size = _base(pool)
    if slot >= size:
        raise PoolExhausted(f"slot {slot} does not fit in {pool}")
    return f"{dotted(base + slot)}/32"


def p2p_pair(pool: str, slot: int) -> tuple[str, str]:
    """The slot-th /31 of ``pool``: (lower end, upper end) with prefix length."""
    base, size = _base(pool)
    if 2 * slot + 1 >= size:
        raise PoolExhausted(f"/31 number {slot} does not fit in {pool}")
    low = base + 2 * slot
    return f"{dotted(low)}/31", f"{dotted(low + 1)}/31"


def p2p_ends(pool: str, slot: int) -> tuple[str, str, str, str]:
    """``p2p_pair`` with each end's bare address too: (low/31, high/31, low, high). The two ends
    differ only in the last octet (the low end is even), so the first three are formatted once."""
    base, size = _base(pool)
    if 2 * slot + 1 >= size:
        raise PoolExhausted(f"/31 number {slot} does not fit in {pool}")
    low = base + 2 * slot
    head = f"{low >> 24 & 255}.{low >> 16 & 255}.{low >> 8 & 255}."
    low_ip, high_ip = f"{head}{low & 255}", f"{head}{(low & 255) + 1}"
    return f"{low_ip}/31", f"{high_ip}/31", low_ip, high_ip


def block(pool: str, slot: int, size: int) -> str:
    """The slot-th aligned block of ``size`` addresses (a power of two) in ``pool``."""
    base, total = _base(pool)
    if (slot + 1) * size > total:
        raise PoolExhausted(f"block {slot} of {size} addresses does not fit in {pool}")
    prefixlen = 32 - (size.bit_length() - 1)
    return f"{dotted(base + slot * size)}/{prefixlen}"


def mgmt_address(network: str, slot: int) -> str:
    """Management hosts start after the network address; the prefix length is the network's."""
    net = ipaddress.IPv4Network(network)
    if slot + 1 >= net.num_addresses - 1:
        raise PoolExhausted(f"management slot {slot} does not fit in {network}")
    return f"{net.network_address + slot + 1}/{net.prefixlen}"


def bare(address: str) -> str:
    """'10.0.0.1/31' -> '10.0.0.1'."""
    return address.split("/", 1)[0]
