"""Platform plug-ins: one package per network operating system, found by entry point.

See ``base.py`` for what a platform is and ``docs/architecture.md`` ("Adding a platform") for the
checklist. Everything else in the pipeline asks the registry, never a platform name it knows.
"""

from __future__ import annotations

from dualrail_net.platforms.base import OutputFile, Platform, PlatformParser, compress_ports
from dualrail_net.platforms.registry import PlatformError, get_platform, platform_names, platforms

__all__ = ["OutputFile", "Platform", "PlatformError", "PlatformParser", "compress_ports", "get_platform",
           "platform_names", "platforms"]
