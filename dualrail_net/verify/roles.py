"""What BGP roles (RFC 9234, FRR `neighbor X local-role ROLE`) do to routes, judged once every
device is read.

A role decides two things. Whether the session comes up (controlplane.role_mismatch: two roles
that do not pair, or a strict end whose peer sends none). And, once up, the Only-to-Customer (OTC)
attribute: a route learned over a role session from a provider, peer or route server is marked,
a route sent to a customer, peer or route-server client is marked, and a marked route is dropped
when it arrives from a customer or route-server client (or from a peer that did not mark it) and
is never sent to a provider, peer or route server.

Marks are made only at role sessions and only act at role sessions. With role statements on one
session (either end or both), a route marked there travels away from it and never meets another
role session: bgpd does not send a route back to the peer it came from, and no other session
reads the mark. The routes are then exactly those without roles, which the model computes. With
roles on more than one session, routes can be dropped by marks made elsewhere: each role statement
is then reported (CONFIG-UNMODELLED) and its route effects are not evaluated."""

from __future__ import annotations

from dualrail_net.verify.controlplane import local_address
from dualrail_net.verify.parsers.frr import is_ip
from dualrail_net.verify.snapshot import Snapshot


def judge_role_routes(snap: Snapshot) -> None:
    """Report every role statement when they stand on more than one session (module text)."""
    roles = [(name, vrf, n) for name, dev in snap.devices.items() for vrf, inst in dev.bgp.items()
             for n in inst.neighbors.values() if n.local_role is not None and n.local_role_line]
    if len(roles) < 2:
        return
    if len(roles) == 2:
        (a, a_vrf, a_end), (b, b_vrf, b_end) = roles
        if a != b and is_ip(a_end.address) and is_ip(b_end.address) \
                and local_address(snap.devices[b], b_vrf, a_end.address) \
                and local_address(snap.devices[a], a_vrf, b_end.address):
            return  # the two ends of one session
    for name, _, n in roles:
        snap.devices[name].unmodelled.append(
            (n.local_role_line, f"local-role {n.local_role}: what roles do to routes (OTC) is not evaluated "
                                "with roles on more than one session"))
