"""Symmetry: the planes match in device counts, link speeds and firmware."""

from __future__ import annotations

from collections import Counter, defaultdict

from dualrail_net.verify.checks import Context, TOPOLOGY, check, finding
from dualrail_net.verify.findings import Finding


def _compare(per_plane: dict[str, object], what: str, why: str) -> list[Finding]:
    planes = sorted(per_plane)
    out = []
    for other in planes[1:]:
        if per_plane[other] != per_plane[planes[0]]:
            out.append(finding([], "", f"{what}: plane {planes[0]} {per_plane[planes[0]]} vs plane {other} "
                               f"{per_plane[other]}", why))
    return out


@check("SYM-COUNTS", "the planes have the same number of switches per role and of links per kind",
       reads={TOPOLOGY})
def counts(ctx: Context) -> list[Finding]:
    roles: dict[str, Counter[str]] = defaultdict(Counter)
    for meta in ctx.snap.manifest.devices.values():
        if meta.plane:
            roles[meta.plane][meta.role] += 1
    links: dict[str, Counter[str]] = defaultdict(Counter)
    plan = ctx.snap.cabling
    for (plane, kind), count in Counter(zip(plan.column("plane"), plan.column("kind"))).items():
        links[plane][kind] += count
    why = "a smaller plane cannot carry the other's load when it fails"
    return (_compare({p: dict(sorted(c.items())) for p, c in roles.items()}, "switches", why)
            + _compare({p: dict(sorted(c.items())) for p, c in links.items()}, "links", why))


@check("SYM-SPEED", "the planes use the same link speeds for each kind of link",
       reads={TOPOLOGY})
def speeds(ctx: Context) -> list[Finding]:
    per: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    plan = ctx.snap.cabling
    for plane, kind, speed in set(zip(plan.column("plane"), plan.column("kind"), plan.column("speed"))):
        per[plane][kind].add(speed)
    out = []
    for plane, kinds in per.items():
        for kind, values in kinds.items():
            if len(values) > 1:
                out.append(finding([], plane, f"plane {plane} {kind} links run at {sorted(values)}",
                                   "mixed speeds inside a plane skew ECMP"))
    return out + _compare({p: {k: sorted(v) for k, v in sorted(kinds.items())} for p, kinds in per.items()},
                          "link speeds", "a slower plane halves what the cluster keeps when the faster plane fails")


@check("SYM-FIRMWARE", "the planes run the same firmware per role and platform",
       reads={TOPOLOGY})
def firmware(ctx: Context) -> list[Finding]:
    per: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for meta in ctx.snap.manifest.devices.values():
        if meta.plane:
            per[meta.plane][f"{meta.role}/{meta.platform}"].add(meta.firmware)
    return _compare({p: {k: sorted(v) for k, v in sorted(r.items())} for p, r in per.items()},
                    "firmware", "planes on different releases fail differently: the redundancy is not real")
