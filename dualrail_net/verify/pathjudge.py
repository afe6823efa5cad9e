"""What the bitset model cannot follow because it holds no AS paths, judged by the plain reference
(verify/reference_rib.py), which holds every path explicitly:

* AS-path filters (a neighbor's `filter-list`, a route-map's `match as-path`: verify/aspaths.py);
* a prepend of an ASN that is not on the path yet (its devices drop the path by loop prevention,
  the receiver itself when a sender prepends the receiver's ASN);
* ORIGIN where the paths of one prefix can carry different ones (a route-map's `set origin`, a
  prefix redistributed at one instance and originated at another): best-path selection prefers
  the lowest ORIGIN after the AS path's length.

Where any is in play on a plane, the plane is computed again by the reference and its installed
routes replace the bitset model's (``judge_by_paths``), with why each path was kept out where a
filter or a loop caused by a prepend did it. The reference costs seconds where the bitset model
costs milliseconds: above ``EXACT_LIMIT`` session directions times prefixes what needs the paths is
reported (ROUTE-POLICY-UNMODELLED) and the plane's routes are the bitset model's (filters taken as
letting everything through, prepends as lengthening the path only, ORIGINs as equal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from dualrail_net.verify.aspaths import filtered_directions

if TYPE_CHECKING:
    from dualrail_net.verify.controlplane import PlaneControl
    from dualrail_net.verify.snapshot import Snapshot
    from dualrail_net.verify.topology import Topology

# session directions times prefixes above which a plane's paths are not followed (what needs them is
# reported): the reference's cost grows with it (docs/performance.md, twentieth session)
EXACT_LIMIT = 600_000


def judge_by_paths(snap: Snapshot, topo: Topology, control: PlaneControl, keys: Mapping[int, list[int]],
                   path_overrides: Mapping[str, int] | None, triggers: Sequence[tuple[str, int, str]] = ()) -> None:
    """Where AS-path filters or ``triggers`` (what else needs the paths: (device, line, what)) are
    in play on ``control``'s plane, its installed routes (``reach``, ``via_in``) become the plain
    reference's, which follows every path. ``keys``:
    per receiver number, the sender number of each session up toward it, in session order (a
    parallel session's alias: controlplane.PlaneControl.via_in)."""
    needs = [(device, line, what) for _, device, line, what in filtered_directions(snap, control)] + list(triggers)
    if not needs:
        return
    directions = sum(len(k) for k in keys.values())
    if directions * len(control.index.prefixes) > EXACT_LIMIT:
        control.unmodelled = sorted(set(control.unmodelled) | {
            (device, line, f"{what}: not evaluated, the plane is too large to follow every AS path "
                           f"({directions} session directions)") for device, line, what in needs})
        return
    from dualrail_net.verify.reference_rib import PathDenials, reference_rib  # (it reads the model this module serves)

    denied: PathDenials = {}
    rib = reference_rib(snap, topo, control.plane, path_overrides, denied)
    bit_index = {p: i for i, p in enumerate(control.index.prefixes)}
    for (sender, receiver, prefix), why in denied.items():
        bit = bit_index.get(prefix)
        if bit is not None:
            control.path_denied.setdefault((sender, receiver), {})[bit] = why
    n = len(control.nodes)
    for r, node in enumerate(control.nodes):
        table = rib.get(node, {})
        reach = 0
        via: dict[int, int] = {}
        sessions: dict[int, list[int]] = {}  # sender -> its sessions' numbers toward this receiver
        for key in keys.get(r, []):
            sessions.setdefault(key if key < n else control.alias[key - n], []).append(key)
        for prefix, senders in table.items():
            bit = bit_index.get(prefix)
            if bit is None:
                continue
            reach |= 1 << bit
            taken: dict[int, int] = {}
            for sender in senders:
                s = control.number[sender]
                k = taken.get(s, 0)
                taken[s] = k + 1
                numbers = sessions.get(s, [s])
                key = numbers[min(k, len(numbers) - 1)]
                via[key] = via.get(key, 0) | 1 << bit
        control.reach[node] = reach
        control.via_in[r] = via
