"""`match community NAME` judged on the fabric's routes, once every device is read.

No route of the fabric carries a community unless something gives it one: a route-map's `set
community` (FRR, EOS) or a device in `bgp graceful-shutdown` (its GRACEFUL_SHUTDOWN tag). Where
nothing in the snapshot does, a route-map entry's match on an FRR community-list read whole has one
answer for every route of the fabric: the list's verdict on a route without communities
(parsers/frr.matches_no_community). The clause is then written into what the model already
evaluates, so the bitset model, its plain references and every finding read it unchanged:

* the list matches such a route: the clause changes nothing (the entry matches as without it);
* it does not: the entry matches no route of the fabric (``never_line``, as bgpd's match on a list
  nobody defined), and only the external peers' routes when the plan has some (what they carry is
  outside the rendered files: a synthetic prefix-list of their planned prefixes keeps them matching,
  as every entry with a clause verify cannot judge does, and the clause is reported for them).

Where something gives routes communities, every such clause is reported (CONFIG-UNMODELLED) and
left as before: not evaluated."""

from __future__ import annotations

from dualrail_net.verify.ipfast import net_str, network_of
from dualrail_net.verify.model import OUTSIDE_PREFIX, PrefixListEntry
from dualrail_net.verify.snapshot import Snapshot


def community_sources(snap: Snapshot) -> list[str]:
    """What gives routes of the snapshot communities, as "device:line", in device order (a route-map
    entry's `set community`, a BGP instance's `bgp graceful-shutdown`)."""
    out: list[str] = []
    for name, dev in snap.devices.items():
        for entries in dev.route_maps.values():
            out += [f"{name}:{e.sets_community_line}" for e in entries if e.sets_community_line]
        out += [f"{name}:{inst.graceful_shutdown_line}" for inst in dev.bgp.values() if inst.graceful_shutdown_line]
    return out


def outside_prefixes(snap: Snapshot) -> list[str]:
    """Every prefix a planned external peer sends, once, in the manifest's order."""
    seen: dict[str, None] = {}
    for meta in snap.manifest.devices.values():
        for peer in meta.external.values():
            for prefix in peer.prefixes:
                seen.setdefault(net_str(network_of(prefix)), None)
    return list(seen)


def judge_community_matches(snap: Snapshot, external_untagged: bool = False) -> None:
    """Write each route-map entry's `match community` clauses (RouteMapEntry.community_clauses)
    into the entry, as the module's text says. Runs once, where the routing parts are read.
    ``external_untagged``: the external peers send no community either (the twin's stand-ins for
    them are FRR announcing the planned prefixes, nothing more), so they are judged too."""
    clauses = [(dev, entry, clause) for dev in snap.devices.values() for entries in dev.route_maps.values()
               for entry in entries for clause in entry.community_clauses]
    if not clauses:
        return
    sources = community_sources(snap)
    outside = [] if external_untagged else outside_prefixes(snap)
    for dev, entry, (listed, matches, line) in clauses:
        clause = f"match community {listed}"
        if sources:  # (kept short: CONFIG-UNMODELLED shows 100 characters of a line's text)
            dev.unmodelled.append((line, f"{clause}: not evaluated, routes get communities at {sources[0]}"))
            continue
        if outside:
            dev.unmodelled.append((line, f"{clause}: external peers' routes not judged (their communities are unknown)"))
        if matches:
            continue
        if not outside:
            entry.never_line = entry.never_line or line
            continue
        synthetic = OUTSIDE_PREFIX + listed
        dev.prefix_lists[synthetic] = [PrefixListEntry(5 * (i + 1), "permit", prefix, line=line)
                                       for i, prefix in enumerate(outside)]
        entry.match_prefix_lists.append(synthetic)
