"""The host model's fast lookup (a source's table chain worked out once) against the plain
per-packet lookup, on the example's servers and on random rules and routes."""

from __future__ import annotations

import random
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.hostroute import HostRouting, host_routing
from dualrail_net.verify.ipfast import ip_int
from dualrail_net.verify.parsers import parse_server


def _agree(routing: HostRouting, sources: list[int], destinations: list[int]) -> int:
    compared = 0
    for source in sources:
        chain = routing.chain(source)
        for destination in destinations:
            assert routing.lookup_in(chain, destination) == routing.lookup(source, destination), (source, destination)
            compared += 1
    return compared


def test_the_chain_answers_as_the_plain_lookup_on_the_example(tmp_path: Path, example_fabric: Fabric) -> None:
    write_artifacts(render_fabric(example_fabric), tmp_path)
    rng = random.Random(7)
    compared = 0
    for srv in example_fabric.servers:
        parsed = parse_server(srv.name, tmp_path / "servers" / srv.name)
        routing = host_routing(parsed)
        own = [ip_int(a.partition("/")[0]) for i in parsed.interfaces.values() for a in i.addresses]
        destinations = own + [d + k for d in own for k in (-2, -1, 1, 2, 64, 1 << 16)] + \
            [rng.getrandbits(32) for _ in range(20)]
        compared += _agree(routing, own + [rng.getrandbits(32) for _ in range(4)],
                           [d & 0xFFFFFFFF for d in destinations])
    assert compared > 10_000


def test_the_chain_answers_as_the_plain_lookup_on_random_rules() -> None:
    rng = random.Random(11)
    for _ in range(200):
        def net(length: int) -> tuple[int, int]:
            mask = ((1 << length) - 1) << (32 - length) if length else 0
            return rng.choice([0x0A000000, 0x0A0C0000, rng.getrandbits(32)]) & mask, length
        tables = {t: sorted([(*net(rng.choice([0, 8, 16, 24, 26, 31, 32])), rng.choice(["a", "b", None]), None)
                             for _ in range(rng.randrange(5))], key=lambda r: -r[1])
                  for t in rng.sample([100, 101, 254, 253], rng.randrange(1, 5))}
        rules = sorted([(rng.randrange(32768), *net(rng.choice([0, 16, 24, 32])), rng.choice(list(tables) + [7]))
                        for _ in range(rng.randrange(6))] + [(0, 0, 0, 255), (32766, 0, 0, 254)], key=lambda r: r[0])
        routing = HostRouting(rules, tables, {0x0A000001})
        points = [rng.choice([rng.getrandbits(32), 0x0A000001, 0x0A0C0001, 0x0A0C00FF]) for _ in range(12)]
        _agree(routing, points, points)
