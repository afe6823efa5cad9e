"""Platform plug-ins. A platform says which files a device gets and adds the presentation-only
values its templates need (port ranges, unit spellings). See docs/architecture.md, "Adding a platform"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class OutputFile:
    template: str  # path under templates/
    filename: str  # file name in the device folder


class SwitchPlatform(Protocol):
    name: str
    files: tuple[OutputFile, ...]

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        """Extra platform-specific values for the templates (no addressing decisions)."""
        ...


_REGISTRY: dict[str, SwitchPlatform] = {}


def register(platform: SwitchPlatform) -> SwitchPlatform:
    _REGISTRY[platform.name] = platform
    return platform


def get_platform(name: str) -> SwitchPlatform:
    if not _REGISTRY:
        _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no renderer for platform {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def platform_names() -> list[str]:
    if not _REGISTRY:
        _load_builtin()
    return sorted(_REGISTRY)


def _load_builtin() -> None:
    from dualrail_net.render.platforms import cumulus, eos  # noqa: F401  (registers on import)


def compress_ports(prefix: str, numbers: list[int]) -> str:
    """[1,2,3,7] -> 'swp1-swp3,swp7' (Cumulus port_set syntax)."""
    ranges: list[str] = []
    nums = sorted(set(numbers))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        ranges.append(f"{prefix}{nums[i]}" if i == j else f"{prefix}{nums[i]}-{prefix}{nums[j]}")
        i = j + 1
    return ",".join(ranges)
