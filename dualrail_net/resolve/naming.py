"""Device and port names. One place, so the cabling plan, configs and the twin always agree."""

from __future__ import annotations

from functools import lru_cache

from dualrail_net.platforms import get_platform


@lru_cache(maxsize=None)
def port_name(platform: str, number: int) -> str:
    """Front-panel port ``number`` as ``platform`` names it (the platform plug-in decides; a pure
    function of the two, asked a million times at 100k GPUs, for a few hundred distinct answers)."""
    return get_platform(platform).port_name(number)


def plane_prefix(plane: str) -> str:
    return plane.lower()


# The fixed roles' words in device names; fabric.yaml `role_labels` renames them (ToR, aggregation,
# core ...) without changing what a role is.
DEFAULT_LABELS = {"leaf": "leaf", "spine": "spine", "super_spine": "ss"}


def spine_name(plane: str, tiers: int, pod: int, index: int, label: str = "spine") -> str:
    pod_part = f"p{pod}-" if tiers == 3 else ""
    return f"{plane_prefix(plane)}-{pod_part}{label}-{index}"


def leaf_name(plane: str, tiers: int, pod: int, su: int, rail: int, label: str = "leaf") -> str:
    pod_part = f"p{pod}-" if tiers == 3 else ""
    return f"{plane_prefix(plane)}-{pod_part}{label}-su{su}-r{rail}"


def super_spine_name(plane: str, group: int, index: int, label: str = "ss") -> str:
    return f"{plane_prefix(plane)}-{label}-g{group}-{index}"


def ib_switch_names(plane: str, spines: int, leaves: int) -> tuple[list[str], list[str]]:
    """An IB plane's spine and leaf names."""
    prefix = plane_prefix(plane)
    return [f"{prefix}-spine-{i + 1}" for i in range(spines)], [f"{prefix}-leaf-{i + 1}" for i in range(leaves)]


def vrf_name(plane: str) -> str:
    return f"plane-{plane_prefix(plane)}"
