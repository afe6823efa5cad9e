#!/usr/bin/env python3
"""Benchmark: seconds per device for resolve, render and write, and seconds to verify the written
folder (v/r: verify seconds per render second), on synthetic fabrics of growing size.

Prints figures; asserts nothing (machines here are shared and noisy). Usage:
    python benchmarks/bench_pipeline.py            # small, medium and the 100k-GPU fabric
    python benchmarks/bench_pipeline.py --quick    # skip the 100k-GPU fabric
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.synthetic import Shape, hundred_k_shape, synthetic_inventory
from dualrail_net.verify.partitioned import check_folder

SHAPES = {
    # comparable to the pyavd reference (10-130 devices, two-tier leaf-spine)
    "2-tier 12 sw": Shape(spines_per_pod=2, sus_per_pod=1, rails=4, servers_per_su=16),
    "2-tier 40 sw": Shape(spines_per_pod=4, sus_per_pod=2, rails=8, servers_per_su=16),
    "2-tier 136 sw": Shape(spines_per_pod=4, sus_per_pod=8, rails=8, servers_per_su=16, spine_downlinks=64),
    "3-tier 1k sw": Shape(tiers=3, rails=8, sus_per_pod=2, pods=12, spines_per_pod=16, super_spines_per_group=8,
                            servers_per_su=32, leaf_uplinks=32, spine_downlinks=32, spine_uplinks=32,
                            super_spine_downlinks=64, border_ports=0),
}


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(name: str, shape: Shape, write: bool, read_ahead: bool = True) -> dict[str, float | int | str]:
    t0 = time.perf_counter()
    inv = synthetic_inventory(shape)
    t1 = time.perf_counter()
    fabric = resolve_fabric(inv)
    t2 = time.perf_counter()
    result = render_fabric(fabric, include_resolved=False)
    t3 = time.perf_counter()
    written_s = verify_s = parse_s = iso_s = topo_s = 0.0
    if write:
        with tempfile.TemporaryDirectory() as tmp:
            t4 = time.perf_counter()
            write_artifacts(result, Path(tmp))
            # written = on disk: without the sync the kernel's flush of 730 MB overlapped the
            # verification and charged it 1-3 s (measured at 100k GPUs), the writing's cost, not its
            os.sync()
            written_s = time.perf_counter() - t4
            t5 = time.perf_counter()
            timings: dict[str, float] = {}
            results = check_folder(Path(tmp), timings=timings, read_ahead=read_ahead)
            verify_s = time.perf_counter() - t5
            parse_s = timings.get("parse", 0.0)
            topo_s = timings.get("topology", 0.0)
            # isolation = the L3 topology it is computed on + the ISO-* checks (incl. route propagation)
            iso_s = topo_s + sum(r.seconds for r in results if r.check.startswith("ISO-"))
            errors = sum(len(r.errors) for r in results)
            assert errors == 0, f"synthetic fabric {name} has {errors} verification errors"
    switches = len(fabric.switches)
    devices = switches + len(fabric.servers)
    return {
        "fabric": name, "gpus": shape.gpus, "switches": switches, "servers": len(fabric.servers),
        "files": len(result.artifacts), "generate_s": round(t1 - t0, 2), "resolve_s": round(t2 - t1, 2),
        "render_s": round(t3 - t2, 2), "write_s": round(written_s, 2),
        "resolve_ms_per_switch": round(1000 * (t2 - t1) / switches, 3),
        "render_ms_per_device": round(1000 * (t3 - t2) / devices, 3),
        "render_ms_per_switch_file_set": round(1000 * (t3 - t2) / switches, 3),
        "resolve_plus_render_s": round(t3 - t1, 2), "max_rss_mb": round(rss_mb()),
        "links": len(fabric.links), "verify_s": round(verify_s, 2), "verify_parse_s": round(parse_s, 2),
        "isolation_s": round(iso_s, 2), "topology_s": round(topo_s, 2),
        "verify_per_render": round(verify_s / (t3 - t2), 2) if write and t3 > t2 else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the 100k-GPU fabric")
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument("--no-write", action="store_true", help="do not time writing files")
    parser.add_argument("--no-read-ahead", action="store_true",
                        help="verify without the kernel's read-ahead of the folder (verify/prefetch.py): the plain reads")
    args = parser.parse_args()
    shapes = dict(SHAPES)
    if not args.quick:
        shapes["100k GPUs, 3-tier"] = hundred_k_shape()
    header = f"{'fabric':<20}{'GPUs':>8}{'switches':>9}{'links':>8}{'resolve s':>10}{'render s':>9}{'write s':>8}" \
             f"{'verify s':>9}{'(parse)':>8}{'(topo)':>7}{'v/r':>6}{'iso s':>7}{'ms/sw resolve':>14}{'ms/dev render':>14}{'RSS MB':>8}"
    if not args.json:
        print(header)
    for name, shape in shapes.items():
        row = measure(name, shape, not args.no_write, not args.no_read_ahead)
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{name:<20}{row['gpus']:>8}{row['switches']:>9}{row['links']:>8}{row['resolve_s']:>10}"
                  f"{row['render_s']:>9}{row['write_s']:>8}{row['verify_s']:>9}{row['verify_parse_s']:>8}{row['topology_s']:>7}"
                  f"{row['verify_per_render']:>6}{row['isolation_s']:>7}{row['resolve_ms_per_switch']:>14}{row['render_ms_per_device']:>14}"
                  f"{row['max_rss_mb']:>8}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
