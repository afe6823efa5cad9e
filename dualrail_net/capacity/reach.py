"""How many equal-cost next hops every leaf keeps toward every other leaf of its plane, with some
devices failed: the ECMP width BGP installs, computed from the cabling plan and the planned ASNs.

Two implementations that must agree (tests/test_capacity.py holds them equal on random failures of
2- and 3-tier fabrics, both ASN schemes):

- `plane_reach`, the fast path used at 100k GPUs. It relies on what the renderer guarantees: leaves
  advertise only their own prefixes (no transit through a leaf), spines and super-spines re-advertise
  their best path, eBGP drops a path holding the receiver's own ASN, and spine ASNs differ between
  pods. Leaves with the same pod and the same set of live spines behave alike, so the work is per
  pair of such classes (a handful per pod), with sets held as integer bit masks.
- `reference_widths`, a plain path-vector computation per destination leaf over the live graph
  (shortest AS path, loop prevention, multipath of equal length with the exact-AS-path rule unless
  multipath-relax, `maximum-paths`). Slow; the definition the fast path is held to.

Gateways are not part of the walk: they sit above the top tier in a VRF per plane and a leaf's
equal-cost paths never cross them while a spine path exists.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from dualrail_net.resolve.model import Fabric, Link, Switch


@dataclass(frozen=True)
class _Class:
    pod: int
    spines: int  # bit mask over the plane's spines: the live spines cabled to these leaves
    spine_list: tuple[int, ...]  # the same, as indices
    leaves: tuple[str, ...]


class PlaneGraph:
    """One plane's Clos as bit masks, read from the cabling plan once and failed many times."""

    def __init__(self, fabric: Fabric, plane: str, links: Iterable[Link] | None = None) -> None:
        switches = [s for s in fabric.plane_switches(plane) if s.role in ("leaf", "spine", "super_spine")]
        self.plane = plane
        self.leaves = {s.name: s for s in switches if s.role == "leaf"}
        spines = sorted(s.name for s in switches if s.role == "spine")
        supers = sorted(s.name for s in switches if s.role == "super_spine")
        self.spine_bit = {n: i for i, n in enumerate(spines)}
        self.super_bit = {n: i for i, n in enumerate(supers)}
        self.spine_asn = [fabric.switches[n].asn for n in spines]
        self.up: dict[str, int] = dict.fromkeys(self.leaves, 0)  # leaf -> spines cabled to it
        self.over: list[int] = [0] * len(spines)  # spine -> super-spines cabled to it
        # cables per leaf-spine pair (topology.parallel_links, the same for every pair): each is a
        # session, so a leaf's next hops toward a spine are that many
        pairs: dict[tuple[str, str], int] = defaultdict(int)
        for link in (fabric.links if links is None else links):
            if link.plane != plane:
                continue
            if link.kind == "leaf-spine":
                self.up[link.a] |= 1 << self.spine_bit[link.b]
                pairs[(link.a, link.b)] += 1
            elif link.kind == "spine-super_spine":
                self.over[self.spine_bit[link.a]] |= 1 << self.super_bit[link.b]
        self.parallel = max(pairs.values(), default=1)

    def dead_masks(self, failed: frozenset[str]) -> tuple[int, int]:
        spines = supers = 0
        for name in failed:
            if name in self.spine_bit:
                spines |= 1 << self.spine_bit[name]
            elif name in self.super_bit:
                supers |= 1 << self.super_bit[name]
        return spines, supers


class PlaneReach:
    """The ECMP width between every pair of live leaves of one plane."""

    def __init__(self, fabric: Fabric, plane: str, failed: frozenset[str], graph: PlaneGraph | None = None) -> None:
        g = graph or PlaneGraph(fabric, plane)
        self.plane = plane
        self.leaves = g.leaves
        self.live_leaves = sorted(n for n in g.leaves if n not in failed)
        dead_spines, dead_supers = g.dead_masks(failed)
        self._spine_asn = g.spine_asn
        self._parallel = g.parallel
        self._over = [0 if dead_spines >> i & 1 else m & ~dead_supers for i, m in enumerate(g.over)]
        groups: dict[tuple[int, int], list[str]] = defaultdict(list)
        for name in self.live_leaves:
            groups[(g.leaves[name].pod, g.up[name] & ~dead_spines)].append(name)
        self.classes = [_Class(pod, mask, tuple(bits(mask)), tuple(names)) for (pod, mask), names in sorted(groups.items())]
        self._class_of = {n: i for i, c in enumerate(self.classes) for n in c.leaves}
        # super-spines that can hand a path down to each class (through a live spine of it)
        self._down = [self._supers_of(c.spine_list) for c in self.classes]
        self._cache: dict[tuple[int, int], int] = {}
        self._across: dict[tuple[int, int], int] = {}

    def _supers_of(self, spines: tuple[int, ...]) -> int:
        out = 0
        for bit in spines:
            out |= self._over[bit]
        return out

    def class_width(self, i: int, j: int) -> int:
        """Next hops a leaf of class i installs toward a leaf of class j (before maximum-paths)."""
        key = (i, j)
        if key not in self._cache:
            self._cache[key] = self._width(i, j) * self._parallel  # a next hop per parallel link
        return self._cache[key]

    def _width(self, i: int, j: int) -> int:
        src, dst = self.classes[i], self.classes[j]
        if src.pod == dst.pod:
            direct = src.spines & dst.spines
            if direct:
                return direct.bit_count()
            # over a super-spine: spine X (of src) -> super-spine -> spine Y (of dst) -> leaf; X drops
            # the path when Y has its own ASN (the spines of one pod share an ASN under rfc7938)
            return sum(1 for x in src.spine_list if any(
                self._over[y] & self._over[x] and self._spine_asn[y] != self._spine_asn[x] for y in dst.spine_list))
        # other pods: spine ASNs differ between pods, so every spine of src with a live super-spine
        # that reaches down into dst's spines is a next hop (equal length: leaf-spine-ss-spine-leaf)
        key = (i, self._down[j])
        if key not in self._across:
            down = self._down[j]
            self._across[key] = sum(1 for x in src.spine_list if self._over[x] & down)
        return self._across[key]

    def width(self, leaf: str, other: str) -> int:
        """ECMP width installed on ``leaf`` for ``other``'s prefixes (0: no route)."""
        i, j = self._class_of.get(leaf), self._class_of.get(other)
        if i is None or j is None:
            return 0
        return min(self.class_width(i, j), self.leaves[leaf].maximum_paths)

    def leaf_summary(self) -> dict[str, tuple[int, int]]:
        """Every live leaf -> (narrowest ECMP width toward a reachable leaf, leaves it cannot reach)."""
        out = {}
        n = len(self.classes)
        for i, c in enumerate(self.classes):
            narrowest = 0
            unreachable = 0
            for j in range(n):
                others = len(self.classes[j].leaves) - (1 if i == j else 0)
                if not others:
                    continue
                w = self.class_width(i, j)
                if w:
                    narrowest = w if not narrowest else min(narrowest, w)
                else:
                    unreachable += others
            for name in c.leaves:  # maximum-paths is the leaf's own: applied per leaf
                out[name] = (min(narrowest, self.leaves[name].maximum_paths), unreachable)
        return out


def bits(mask: int) -> Iterable[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def plane_reach(fabric: Fabric, plane: str, failed: Iterable[str] = ()) -> PlaneReach:
    return PlaneReach(fabric, plane, frozenset(failed))


# --- the reference ---------------------------------------------------------------------------------


def reference_widths(fabric: Fabric, plane: str, failed: Iterable[str] = ()) -> dict[tuple[str, str], int]:
    """(leaf, other leaf) -> next hops installed, for every pair of live leaves of ``plane``, by a
    path-vector walk per destination (see the module docstring)."""
    dead = frozenset(failed)
    nodes = {s.name: s for s in fabric.plane_switches(plane)
             if s.role in ("leaf", "spine", "super_spine") and s.name not in dead}
    neighbors: dict[str, list[str]] = defaultdict(list)
    for link in fabric.links:
        if link.plane == plane and link.kind in ("leaf-spine", "spine-super_spine") \
                and link.a in nodes and link.b in nodes:
            neighbors[link.a].append(link.b)
            neighbors[link.b].append(link.a)
    leaves = sorted(n for n, s in nodes.items() if s.role == "leaf")
    out = {}
    for dest in leaves:
        hops = _walk(nodes, neighbors, dest)
        for leaf in leaves:
            if leaf != dest:
                out[(leaf, dest)] = hops.get(leaf, 0)
    return out


def _walk(nodes: dict[str, Switch], neighbors: dict[str, list[str]], dest: str) -> dict[str, int]:
    best: dict[str, tuple[int, ...]] = {dest: ()}  # node -> AS path of its best route (its own: empty)
    width: dict[str, int] = {}
    for _round in range(len(nodes) + 1):
        new_best: dict[str, tuple[int, ...]] = {dest: ()}
        new_width: dict[str, int] = {}
        for name, sw in nodes.items():
            if name == dest:
                continue
            offers = []
            for m in neighbors[name]:
                if m not in best or (nodes[m].role == "leaf" and m != dest):
                    continue  # nothing to offer, or a leaf (leaves advertise only their own prefixes)
                path = (nodes[m].asn, *best[m])
                if sw.asn in path:
                    continue  # eBGP loop prevention
                offers.append(path)
            if not offers:
                continue
            chosen = min(offers, key=lambda p: (len(p), p))
            equal = [p for p in offers if len(p) == len(chosen) and (sw.multipath_relax or p == chosen)]
            new_best[name] = chosen
            new_width[name] = min(len(equal), sw.maximum_paths)
        if new_best == best and new_width == width:
            break
        best, width = new_best, new_width
    return width
