#!/usr/bin/env python3
"""Benchmark the live audit's cabling comparison at 100k GPUs: the LLDP tables every device of the
synthetic 100k-GPU fabric would report (both ends of every planned cable, 1.2M neighbour entries)
against its 602k planned cables, clean and with 1% of the server cables swapped pairwise.
Prints figures; asserts nothing.

    python benchmarks/bench_audit.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from dualrail_net.audit.neighbors import Neighbor
from dualrail_net.audit.run import planned_cables
from dualrail_net.audit.cabling import compare_cabling
from dualrail_net.manifest import Manifest
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.synthetic import Shape, hundred_k_shape, synthetic_inventory, thousand_switch_shape


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a 1k-switch fabric instead of 100k GPUs")
    args = parser.parse_args()
    shape = thousand_switch_shape() if args.quick else hundred_k_shape()
    fabric = resolve_fabric(synthetic_inventory(shape))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        write_artifacts(render_fabric(fabric), out)
        manifest = Manifest.load(out)
        t0 = time.perf_counter()
        plan = planned_cables(out, manifest)
        t1 = time.perf_counter()
    neighbors = [n for c in plan for n in (Neighbor(c.a[0], c.a[1], c.b[0], c.b[1]),
                                           Neighbor(c.b[0], c.b[1], c.a[0], c.a[1]))]
    answered = {n.device for n in neighbors}
    planes: dict[str, str | None] = {name: meta.plane for name, meta in manifest.devices.items()}
    t2 = time.perf_counter()
    clean = compare_cabling(plan, neighbors, answered, device_plane=planes)
    t3 = time.perf_counter()
    servers = [c for c in plan if c.b[0] in manifest.servers or c.a[0] in manifest.servers]
    swapped = servers[: len(servers) // 100 // 2 * 2]
    moved = {}
    for one, two in zip(swapped[::2], swapped[1::2]):  # the a-ends trade cables: both ends see it
        moved[one.a], moved[two.b] = two.b, one.a
        moved[two.a], moved[one.b] = one.b, two.a
    bad = [Neighbor(n.device, n.port, *moved[(n.device, n.port)]) if (n.device, n.port) in moved else n
           for n in neighbors]
    t4 = time.perf_counter()
    dirty = compare_cabling(plan, bad, answered, device_plane=planes)
    t5 = time.perf_counter()
    print(f"{len(fabric.switches)} switches, {len(fabric.servers)} servers: {len(plan)} planned cables, "
          f"{len(neighbors)} LLDP entries from {len(answered)} devices")
    print(f"read the plan: {t1 - t0:.2f} s; compare, clean: {t3 - t2:.2f} s ({len(clean)} findings); "
          f"with {len(swapped)} server cables swapped: {t5 - t4:.2f} s ({len(dirty)} findings)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
