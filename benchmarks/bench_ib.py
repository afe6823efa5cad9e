#!/usr/bin/env python3
"""Benchmark the simulated IB verification: time to verify the example's two IB planes and one
2048-host plane, and P_Key read-back with parallel queries vs one query at a time.

    python3 benchmarks/bench_ib.py [--hosts 2048] [--skip-sequential]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.load import load_inventory
from dualrail_net.sot.schema import InfinibandFile
from dualrail_net.sot.synthetic import Shape, synthetic_inventory
from dualrail_net.verify.ib.sim import run_simulation

REPO = Path(__file__).resolve().parents[1]


def big_ib_inventory(hosts: int):  # type: ignore[no-untyped-def]
    inv = synthetic_inventory(Shape(spines_per_pod=1, sus_per_pod=1, rails=1, servers_per_su=2))
    leaves = (hosts + 31) // 32
    ib = InfinibandFile.model_validate({
        "ib_planes": {
            "IBA": {"subnet_prefix": "0xfe80000000000a01", "leaves": leaves, "spines": 16, "hosts_per_leaf": 32,
                    "sm_host": "h00001"},
            "IBB": {"subnet_prefix": "0xfe80000000000b01", "leaves": 1, "spines": 1, "hosts_per_leaf": 32,
                    "sm_host": "h00001"},
        },
        "partitions": [{"name": f"t{t}", "pkey": 0x100 + t, "members": [
            {"server": f"h{i:05d}", "membership": "full"} for i in range(1 + t * hosts // 8, 1 + (t + 1) * hosts // 8)]}
            for t in range(8)],
        "hosts": [{"server": f"h{i:05d}", "guids": {"IBA": f"0x0c42a103{i:08x}"} | (
            {"IBB": f"0x0c42a104{i:08x}"} if i <= 32 else {})} for i in range(1, hosts + 1)],
    })
    return inv.model_copy(update={"infiniband": ib})


def timed(out: Path, workers: int) -> tuple[float, dict]:  # type: ignore[type-arg]
    started = time.monotonic()
    results, stats = run_simulation(out, workers=workers)
    bad = [f.message for r in results for f in r.findings]
    assert not bad, bad[:3]
    return time.monotonic() - started, stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=2048)
    parser.add_argument("--skip-sequential", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "example"
        write_artifacts(render_fabric(resolve_fabric(load_inventory(REPO / "inventory").inventory)), out)
        total, stats = timed(out, 0)
        print(f"example (2 IB planes x 32 hosts): {total:.1f}s  {stats}")
        out = Path(tmp) / "big"
        write_artifacts(render_fabric(resolve_fabric(big_ib_inventory(args.hosts))), out)
        total, stats = timed(out, 0)
        print(f"{args.hosts}-host plane, P_Keys from one process (libibmad SMPs): total {total:.1f}s  {stats['IBA']}")
        if not args.skip_sequential:
            total8, stats8 = timed(out, 8)
            print(f"{args.hosts}-host plane, 8 parallel smpquery processes: total {total8:.1f}s  {stats8['IBA']}")
            total1, stats1 = timed(out, 1)
            print(f"{args.hosts}-host plane, one smpquery per port: total {total1:.1f}s  {stats1['IBA']}")
            print(f"P_Key read-back speed-up vs one smpquery per port: "
                  f"{stats1['IBA']['pkeys_s'] / stats['IBA']['pkeys_s']:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
