#!/usr/bin/env python3
"""Benchmark the real-program checks (vtysh --dryrun, ifup -s) on a synthetic fabric: files, shapes,
parser runs and seconds, once per shape. Prints figures; asserts nothing.

    python benchmarks/bench_consumers.py [--quick]    # --quick: the 1k-switch fabric
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.synthetic import hundred_k_shape, synthetic_inventory, thousand_switch_shape
from dualrail_net.verify.consumers import by_shape, check_frr, check_ifupdown
from dualrail_net.verify.shapes import FRR_COMMENTS, IFUPDOWN_COMMENTS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a 1k-switch fabric instead of 100k GPUs")
    args = parser.parse_args()
    shape = thousand_switch_shape() if args.quick else hundred_k_shape()
    fabric = resolve_fabric(synthetic_inventory(shape))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        write_artifacts(render_fabric(fabric), out)
        for name, pattern, comments, check in (("frr.conf", "frr.conf", FRR_COMMENTS, check_frr),
                                               ("interfaces", "interfaces", IFUPDOWN_COMMENTS, check_ifupdown)):
            files = sorted(out.rglob(pattern))
            t0 = time.perf_counter()
            groups = by_shape(files, comments)
            grouped = time.perf_counter() - t0
            t0 = time.perf_counter()
            result = check(out, files)
            seconds = time.perf_counter() - t0
            print(f"{name}: {len(files):,} files, {len(groups):,} shapes (grouping {grouped:.1f} s); checked in "
                  f"{seconds:.1f} s, {len(result.findings)} findings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
