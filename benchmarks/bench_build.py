#!/usr/bin/env python3
"""Benchmark `dualrail build` end to end on the synthetic 100k-GPU fabric: the same stages the
command runs (resolve, render, write, then every offline verification: our checks with the
control-plane model, and the real consumers `vtysh --dryrun` / `ifup -s` once per file shape),
each timed. The inventory is built in memory (no YAML of 12.5k servers to read). Prints figures;
asserts nothing.

    python benchmarks/bench_build.py [--quick]    # --quick: the 1k-switch fabric
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_render
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.synthetic import hundred_k_shape, synthetic_inventory, thousand_switch_shape
from dualrail_net.verify.front import verify_folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a 1k-switch fabric instead of 100k GPUs")
    args = parser.parse_args()
    shape = thousand_switch_shape() if args.quick else hundred_k_shape()
    inventory = synthetic_inventory(shape)
    figures: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        t0 = time.perf_counter()
        fabric = resolve_fabric(inventory)
        figures.append(("resolve", time.perf_counter() - t0))
        t0 = time.perf_counter()
        result = render_fabric(fabric)
        figures.append(("render", time.perf_counter() - t0))
        t0 = time.perf_counter()
        report = write_render(result, out)
        figures.append(("write", time.perf_counter() - t0))
        t0 = time.perf_counter()
        results = verify_folder(out)
        figures.append(("verify (our checks, IB when present, consumers)", time.perf_counter() - t0))
        status = Counter("skipped" if r.skipped else "passed" if r.passed else "failed" for r in results)
        findings = sum(len(r.findings) for r in results)
        slowest = sorted(results, key=lambda r: -r.seconds)[:5]
    print(f"{shape.gpus:,} GPUs: {len(fabric.switches):,} switches, {len(fabric.servers):,} servers, "
          f"{report.written:,} files")
    for name, seconds in figures:
        print(f"  {name:<50} {seconds:8.1f} s")
    print(f"  {'total':<50} {sum(s for _, s in figures):8.1f} s")
    print(f"checks: {dict(status)}, {findings} findings; slowest: "
          + ", ".join(f"{r.check} {r.seconds:.1f} s" for r in slowest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
