"""FRR's `ip nht resolve-via-default`, judged once every device is read.

zebra resolves a BGP next hop through the routes of the next hop's VRF, the default route left
out unless `ip nht resolve-via-default` is configured there. The line changes what a device does
only where a default route exists for a next hop to resolve through: a static or kernel
0.0.0.0/0 of that VRF on the device, or a default route BGP could bring (a device that originates
0.0.0.0/0 by `network` or `aggregate-address`, or offers it by `neighbor X default-originate`).
Where none exists the line changes nothing and is read as such; where one does, the model does
not follow which next hops the default route would resolve (the line is reported,
CONFIG-UNMODELLED)."""

from __future__ import annotations

from dualrail_net.verify.controlplane import DEFAULT_ROUTE
from dualrail_net.verify.snapshot import Snapshot


def bgp_brings_default(snap: Snapshot) -> bool:
    """Whether any device's BGP originates or offers a default route."""
    for dev in snap.devices.values():
        for inst in dev.bgp.values():
            if DEFAULT_ROUTE in inst.networks or any(a.prefix == DEFAULT_ROUTE for a in inst.aggregates) \
                    or any(n.default_originate_line for n in inst.neighbors.values()):
                return True
    return False


def judge_nht_default(snap: Snapshot) -> None:
    """Report every `ip nht resolve-via-default` with a default route to resolve through (module text)."""
    holders = [dev for dev in snap.devices.values() if dev.nht_default]
    if not holders:
        return
    from_bgp = bgp_brings_default(snap)
    for dev in holders:
        for vrf, line in dev.nht_default.items():
            static = any(r.vrf == vrf and r.prefix == DEFAULT_ROUTE for r in dev.static_routes)
            if static or from_bgp:
                dev.unmodelled.append((line, "ip nht resolve-via-default: a default route "
                                             f"({'static' if static else 'from BGP'}) may resolve next hops: not followed"))
