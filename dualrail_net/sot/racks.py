"""Shared fate through power (issue 20 item 4): switches of different planes that serve the same
servers must not draw from one PDU feed, or one feed's failure takes the servers' links in every
plane at once. Racks are optional (``fabric.yaml`` ``racks:``); names are the fabric's switches,
computed here from the inventory as resolve names them (resolve/naming.py)."""

from __future__ import annotations

from collections.abc import Iterator

from dualrail_net.resolve import naming
from dualrail_net.sot.diagnostics import Diagnostic, Severity
from dualrail_net.sot.load import LoadedInventory


def switch_names(inv: LoadedInventory, gateways: bool = True) -> set[str]:
    fab = inv.inventory.fabric
    topo = fab.topology
    labels = fab.role_labels
    names = {gw.name for gw in fab.gateways} if gateways else set()
    for plane, spec in fab.planes.items():
        for pod in range(1, topo.pods + 1):
            names.update(naming.spine_name(plane, topo.tiers, pod, i + 1, labels.spine) for i in range(spec.spines_per_pod))
            names.update(naming.leaf_name(plane, topo.tiers, pod, su + 1, rail, labels.leaf)
                         for su in range(topo.scalable_units_per_pod) for rail in range(topo.rails))
        if topo.tiers == 3:
            names.update(naming.super_spine_name(plane, g + 1, k + 1, labels.super_spine) for g in range(spec.spines_per_pod)
                         for k in range(spec.super_spines_per_group or 0))
    return names


def _serving(inv: LoadedInventory) -> dict[str, dict[str, set[str]]]:
    """server -> plane -> the switches its traffic needs there: the leaves its NIC ports land on, and
    every spine of its pod (each one carries a share of the plane's traffic). One server stands for
    all of its pod, scalable unit and model (they need the same switches): the pairs are judged once
    per such group, not once per server (a 100k-GPU fabric has a few hundred groups)."""
    fab = inv.inventory.fabric
    models = inv.inventory.servers.server_models
    out: dict[str, dict[str, set[str]]] = {}
    seen: set[tuple[int, int, str]] = set()
    for srv in inv.inventory.servers.servers:
        model = models.get(srv.model)
        if model is None or (srv.pod, srv.su, srv.model) in seen:
            continue
        seen.add((srv.pod, srv.su, srv.model))
        per_plane: dict[str, set[str]] = {}
        for nic in model.nics:
            for port in nic.ports:
                per_plane.setdefault(port.plane, set()).add(
                    naming.leaf_name(port.plane, fab.topology.tiers, srv.pod, srv.su, port.rail,
                                     fab.role_labels.leaf))
        for plane, leaves in per_plane.items():
            spec = fab.planes.get(plane)
            if spec is not None:
                leaves.update(naming.spine_name(plane, fab.topology.tiers, srv.pod, i + 1, fab.role_labels.spine)
                              for i in range(spec.spines_per_pod))
        out[srv.name] = per_plane
    return out


def check_racks(inv: LoadedInventory) -> Iterator[Diagnostic]:
    racks = inv.inventory.fabric.racks
    if not racks:
        return
    known = switch_names(inv)
    feeds_of: dict[str, tuple[int, frozenset[str]]] = {}  # switch -> (rack index, its feeds)
    rack_names: set[str] = set()
    for ri, rack in enumerate(racks):
        path: tuple[str | int, ...] = ("fabric", "racks", ri)
        if rack.name in rack_names:
            file, line = inv.where(*path, "name")
            yield Diagnostic(file, line, f"rack {rack.name} is listed twice", "merge the entries", Severity.ERROR,
                             "SOT-DUP-NAME")
        rack_names.add(rack.name)
        for si, switch in enumerate(rack.switches):
            file, line = inv.where(*path, "switches", si)
            if switch not in known:
                # a warning: racks are often cabled for growth before the switch is in the inventory
                yield Diagnostic(file, line, f"rack {rack.name}: {switch} is not a switch of the fabric",
                                 "use the names `dualrail render` gives (e.g. a-leaf-su1-r0); a switch still to "
                                 "come is checked once it is in the fabric", Severity.WARNING, "SOT-RACK")
            elif switch in feeds_of:
                other = racks[feeds_of[switch][0]].name
                yield Diagnostic(file, line, f"rack {rack.name}: {switch} is also mounted in rack {other}",
                                 "a switch is in one rack", Severity.ERROR, "SOT")
            else:
                feeds_of[switch] = (ri, frozenset(rack.feeds))
    reported: set[tuple[str, str]] = set()
    for server, per_plane in _serving(inv).items():
        planes = sorted(per_plane)
        for i, pa in enumerate(planes):
            for pb in planes[i + 1:]:
                for la in sorted(per_plane[pa]):
                    for lb in sorted(per_plane[pb]):
                        if la not in feeds_of or lb not in feeds_of or (la, lb) in reported:
                            continue
                        shared = feeds_of[la][1] & feeds_of[lb][1]
                        if not shared:
                            continue
                        reported.add((la, lb))
                        single = feeds_of[la][1] == feeds_of[lb][1] == shared and len(shared) == 1
                        file, line = inv.where("fabric", "racks", feeds_of[lb][0], "feeds")
                        yield Diagnostic(
                            file, line,
                            f"{la} (plane {pa}) and {lb} (plane {pb}) serve the same servers ({server} and others) and "
                            f"share power feed {', '.join(sorted(shared))}"
                            + (": that one feed's failure takes both planes' links" if single else ""),
                            "feed each plane's switches from its own PDUs", Severity.WARNING, "SOT-SHARED-FEED")
