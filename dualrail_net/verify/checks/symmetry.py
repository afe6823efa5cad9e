"""Symmetry: the planes match in device counts, link speeds and firmware."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping

from dualrail_net.verify.checks import Context, TOPOLOGY, check, finding
from dualrail_net.verify.findings import Finding, Severity


def _compare(per_plane: Mapping[str, object], what: str, why: str,
             severity: Severity = Severity.ERROR) -> list[Finding]:
    planes = sorted(per_plane)
    out = []
    for other in planes[1:]:
        if per_plane[other] != per_plane[planes[0]]:
            out.append(finding([], "", f"{what}: plane {planes[0]} {per_plane[planes[0]]} vs plane {other} "
                               f"{per_plane[other]}", why, severity))
    return out


SERVER_LINKS = "server-leaf"
# link kinds whose asymmetry between the planes the inventory's validation already reports as a
# warning the operator may accept (SYM-SERVER-BANDWIDTH: a server model giving the planes unequal
# ports or speeds; SYM-EXTERNAL: a gateway with unequal external peerings per plane). A plan that
# validates with them must not fail verification for them: here too they are warnings
WARNED_KINDS = frozenset({SERVER_LINKS, "external"})


def _split(per_plane: Mapping[str, Mapping[str, object]]) -> tuple[dict[str, dict[str, object]],
                                                                    dict[str, dict[str, object]]]:
    """Each plane's values by link kind, as (the kinds held as errors, the WARNED_KINDS)."""
    held = {p: {k: v for k, v in kinds.items() if k not in WARNED_KINDS} for p, kinds in per_plane.items()}
    warned = {p: {k: v for k, v in kinds.items() if k in WARNED_KINDS} for p, kinds in per_plane.items()}
    return held, warned


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
    held, warned = _split({p: dict(sorted(c.items(), key=_said)) for p, c in links.items()})
    return (_compare({p: dict(sorted(c.items())) for p, c in roles.items()}, "switches", why)
            + _compare(held, "links", why)
            + _compare(warned, "server and external links", why + " (the inventory's validation warned of it)",
                       Severity.WARNING))


def _said(value: object) -> str:
    """A sort key for a plan's values, or for (value, count) items by their value: a short row's
    missing value (None) sorts as the empty text."""
    first = value[0] if isinstance(value, tuple) else value
    return "" if first is None else str(first)


@check("SYM-SPEED", "the planes use the same link speeds for each kind of link (switch links: one speed per plane)",
       reads={TOPOLOGY})
def speeds(ctx: Context) -> list[Finding]:
    """Switch-to-switch links of one kind carry ECMP, so they share one speed within a plane. Server
    links are each a host's own port: a fleet of two server generations mixes speeds, and the planes
    should then carry the same number of ports at each speed (a warning, WARNED_KINDS)."""
    per: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    plan = ctx.snap.cabling
    for (plane, kind, speed), count in Counter(zip(plan.column("plane"), plan.column("kind"),
                                                   plan.column("speed"))).items():
        per[plane][kind][speed] += count
    out = []
    for plane, kinds in per.items():
        for kind, values in kinds.items():
            if len(values) > 1 and kind != SERVER_LINKS:
                out.append(finding([], plane, f"plane {plane} {kind} links run at {sorted(values, key=_said)}",
                                   "mixed speeds inside a plane skew ECMP"))
    shape = {p: {k: sorted(v.items(), key=_said) if k == SERVER_LINKS else sorted(v, key=_said)
                 for k, v in sorted(kinds.items(), key=_said)}
             for p, kinds in per.items()}
    held, warned = _split(shape)
    why = "a slower plane halves what the cluster keeps when the faster plane fails"
    return (out + _compare(held, "link speeds", why)
            + _compare(warned, "server and external link speeds", why + " (the inventory's validation warned of it)",
                       Severity.WARNING))


@check("SYM-FIRMWARE", "the planes run the same firmware per role and platform",
       reads={TOPOLOGY})
def firmware(ctx: Context) -> list[Finding]:
    per: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for meta in ctx.snap.manifest.devices.values():
        if meta.plane:
            per[meta.plane][f"{meta.role}/{meta.platform}"].add(meta.firmware)
    return _compare({p: {k: sorted(v) for k, v in sorted(r.items())} for p, r in per.items()},
                    "firmware", "planes on different releases fail differently: the redundancy is not real")
