"""Device and port names. One place, so the cabling plan, configs and the twin always agree."""

from __future__ import annotations

from dualrail_net.platforms import get_platform


def port_name(platform: str, number: int) -> str:
    """Front-panel port ``number`` as ``platform`` names it (the platform plug-in decides)."""
    return get_platform(platform).port_name(number)


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
