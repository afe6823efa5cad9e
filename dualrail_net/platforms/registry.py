"""The platform registry: every ``Platform`` found through the ``dualrail.platforms`` entry point.

The built-in platforms are declared in this project's pyproject.toml like any third-party one; they
are also listed here so that a source checkout whose entry points were never installed still works.
A plug-in that does not satisfy the protocol, or whose entry point name differs from its ``name``,
is refused when the registry is first read (a broken plug-in never half-works).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from importlib.metadata import entry_points

from dualrail_net.platforms.base import Platform

GROUP = "dualrail.platforms"
BUILTIN = {"cumulus": "dualrail_net.platforms.cumulus:PLATFORM", "eos": "dualrail_net.platforms.eos:PLATFORM",
           "sonic": "dualrail_net.platforms.sonic:PLATFORM",
           "cumulus-nvue": "dualrail_net.platforms.cumulus_nvue:PLATFORM"}


class PlatformError(Exception):
    """A platform plug-in is missing or broken."""


def _load(spec: str) -> object:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


def _checked(name: str, obj: object, origin: str) -> Platform:
    if not isinstance(obj, Platform):
        missing = [m for m in ("name", "max_mtu", "netmiko_type", "files", "template_root", "twin_substitute", "roles",
                               "deploy_paths", "port_name", "presentation", "parser", "driver", "batfish_files")
                   if not hasattr(obj, m)]
        raise PlatformError(f"platform plug-in {name!r} ({origin}) does not implement the Platform protocol: "
                            f"missing {', '.join(missing) or 'a typed member'}")
    if obj.name != name:
        raise PlatformError(f"platform plug-in {origin} is registered as {name!r} but calls itself {obj.name!r}")
    return obj


@lru_cache(maxsize=1)
def platforms() -> dict[str, Platform]:
    """Every registered platform by name, sorted."""
    found: dict[str, Platform] = {}
    for ep in entry_points(group=GROUP):
        found[ep.name] = _checked(ep.name, ep.load(), ep.value)
    for name, spec in BUILTIN.items():
        if name not in found:
            found[name] = _checked(name, _load(spec), spec)
    for name, platform in found.items():
        if platform.twin_substitute is not None and platform.twin_substitute not in found:
            raise PlatformError(f"platform {name!r} names twin substitute {platform.twin_substitute!r}, "
                                "which is not registered")
    return dict(sorted(found.items()))


def platform_names() -> list[str]:
    return list(platforms())


def get_platform(name: str) -> Platform:
    try:
        return platforms()[name]
    except KeyError:
        raise PlatformError(f"no platform {name!r}; registered: {', '.join(platforms())}") from None
