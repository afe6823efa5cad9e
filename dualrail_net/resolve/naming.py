"""Device and port names. One place, so the cabling plan, configs and the twin always agree."""

from __future__ import annotations

from collections.abc import Callable

PORT_NAMERS: dict[str, Callable[[int], str]] = {
    "cumulus": lambda n: f"swp{n}",
    "eos": lambda n: f"Ethernet{n}",
}


def port_name(platform: str, number: int) -> str:
    return PORT_NAMERS[platform](number)


def plane_prefix(plane: str) -> str:
    return plane.lower()


def spine_name(plane: str, tiers: int, pod: int, index: int) -> str:
    pod_part = f"p{pod}-" if tiers == 3 else ""
    return f"{plane_prefix(plane)}-{pod_part}spine-{index}"


def leaf_name(plane: str, tiers: int, pod: int, su: int, rail: int) -> str:
    pod_part = f"p{pod}-" if tiers == 3 else ""
    return f"{plane_prefix(plane)}-{pod_part}leaf-su{su}-r{rail}"


def super_spine_name(plane: str, group: int, index: int) -> str:
    return f"{plane_prefix(plane)}-ss-g{group}-{index}"


def vrf_name(plane: str) -> str:
    return f"plane-{plane_prefix(plane)}"
