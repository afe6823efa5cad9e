"""The real vtysh as the oracle of the FRR reader's line fates (issue 16's differential, at the
level of reading the file): seeded line edits of rendered frr.conf files (a line deleted, moved,
repeated, or one of a list of lines that change where FRR stands inserted: `exit`, `end`, block
headers, lines of other nodes), then every line the reader applies (a static route, a BGP instance,
neighbor, network, maximum-paths, prefix-list or route-map entry) must be a line vtysh reads and
does not refuse, and every line the reader says vtysh never gets to (out of configuration mode)
must be one vtysh refuses or never reads (verify/vtysh.py). The twin compares what the daemons
then do; this compares what reaches them (its cost per edit: docs/performance.md).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from dualrail_net.verify import vtysh
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers import frr

# lines that move FRR between nodes, or belong to one node and not another
INSERTS = ("exit", "end", "quit", " exit", "exit-address-family", "exit-vrf", "!", "configure terminal", "conf t",
           "router ospf", "bfd", " profile x", "key chain K", " key 1", "foo bar", " match ip address prefix-list P",
           "no ipv6 forwarding", "ip route 9.9.9.0/24 blackhole", "router bgp 1", " address-family ipv4 unicast",
           " exit-address-family", "  network 9.9.9.0/24", "vrf x", "exit-vrf", "line vty", "interface swp1",
           "no bgp ebgp-requires-policy", "  no network 10.12.0.0/26", " bgp router-id 1.1.1.1",
           "ip prefix-list Z seq 5 permit 9.0.0.0/8", " set local-preference 5", "route-map Z permit 5",
           "  maximum-paths 2", " ip nht resolve-via-default", "address-family ipv4 unicast", "exit-vni", " vni 10",
           " address-family l2vpn evpn")


@dataclass(frozen=True)
class Disagreement:
    text: str  # the edited file
    lines: tuple[tuple[int, str, str], ...]  # (line, what the reader did, the line)


def applied_lines(dev: DeviceConfig) -> dict[int, str]:
    """The lines whose statement the reader applied, by line number."""
    out: dict[int, str] = {r.line: "static route" for r in dev.static_routes}
    for inst in dev.bgp.values():
        if inst.line:
            out[inst.line] = "router bgp"
        for neighbor in inst.neighbors.values():
            if neighbor.line:
                out[neighbor.line] = "neighbor"
        for line in inst.network_lines.values():
            if line:
                out[line] = "network"
        if inst.maximum_paths_line:
            out[inst.maximum_paths_line] = "maximum-paths"
    for entries in dev.prefix_lists.values():
        out.update((e.line, "prefix-list entry") for e in entries)
    for maps in dev.route_maps.values():
        out.update((e.line, "route-map entry") for e in maps)
    out.pop(0, None)
    return out


def compare(text: str, work: Path) -> Disagreement | None:
    dev = DeviceConfig("oracle", "cumulus")
    frr.parse_frr(text, dev)
    refused = vtysh.refusals(text, work)
    lines = text.split("\n")
    wrong = [(n, f"applied by the reader ({what}), refused or never read by vtysh", lines[n - 1])
             for n, what in sorted(applied_lines(dev).items()) if n in refused]
    wrong += [(n, "out of configuration mode to the reader, read by vtysh", lines[n - 1])
              for n, _s, why in dev.refused_lines if "configuration mode" in why and n not in refused]
    return Disagreement(text, tuple(wrong)) if wrong else None


def random_edits(seed: int, count: int, texts: Sequence[str]) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        lines = rng.choice(texts).split("\n")
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(lines))
            op = rng.random()
            if op < 0.35:
                del lines[k]
            elif op < 0.55:
                lines.insert(k, rng.choice(INSERTS))
            elif op < 0.75:
                lines.insert(rng.randrange(len(lines)), lines[k])
            else:
                j = rng.randrange(len(lines))
                lines[k], lines[j] = lines[j], lines[k]
        yield "\n".join(lines)


def run(seed: int, count: int, texts: Sequence[str], work: Path) -> list[Disagreement]:
    return [d for text in random_edits(seed, count, texts) if (d := compare(text, work)) is not None]
