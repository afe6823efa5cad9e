"""Stage 2: intent -> a fully resolved, deterministic fabric (names, ASNs, addresses, cabling)."""

from dualrail_net.resolve.build import resolve_fabric
from dualrail_net.resolve.model import Fabric, Link, ResolvedServer, Switch

__all__ = ["Fabric", "Link", "ResolvedServer", "Switch", "resolve_fabric"]
