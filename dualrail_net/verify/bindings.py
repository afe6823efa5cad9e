"""Numbered neighbors bound to a port (FRR `neighbor ADDRESS interface PORT`), settled once every
device is read.

bgpd binds the neighbor's connection to PORT when the port exists: on any port but the one whose
subnet holds ADDRESS no connection is made, either way (controlplane.bound_elsewhere; measured on
the twin with `lo` and with another uplink). On a port that does not exist the statement does
nothing (measured: the session comes up as without it). The files do not say which ports exist
beyond the ones they configure (a switch's unconfigured front-panel ports exist all the same), so a
port the device's files do not address in the instance's VRF is reported (CONFIG-UNMODELLED) and the
neighbor is taken as unbound, as in the twin, where only the configured ports exist. (Addressed:
the routing side of a partitioned verify knows only the addressed ports, and both sides agree.)"""

from __future__ import annotations

from dualrail_net.verify.snapshot import Snapshot


def judge_bound_ports(snap: Snapshot) -> None:
    """Unbind, and report, every neighbor bound to a port its device's files do not address in the
    instance's VRF (module text)."""
    for dev in snap.devices.values():
        for vrf, inst in dev.bgp.items():
            for n in inst.neighbors.values():
                if n.bound_port is None:
                    continue
                port, line = n.bound_port
                iface = dev.interfaces.get(port)
                if iface is not None and iface.addresses and (iface.vrf or None) == (vrf or None):
                    continue
                # (kept short: CONFIG-UNMODELLED shows 100 characters)
                dev.unmodelled.append((line, f"interface {port}: not an addressed port of the VRF here: not judged"))
                n.bound_port = None
