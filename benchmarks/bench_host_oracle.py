#!/usr/bin/env python3
"""The kernel as the host model's oracle, at length: seeded random edits of the example's servers'
interfaces files, each applied by ifupdown2 in a namespace of its own and asked `ip route get` for
every source address and plane destination, against verify/hostroute.py (twin/host_oracle.py).
Prints agreement figures and every disagreement; asserts nothing. Needs root and ifupdown2.

    sudo python3 benchmarks/bench_host_oracle.py [--edits 60] [--seed 1] [--servers gpu001,gpu017] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.load import load_inventory
from dualrail_net.twin import host_oracle
from dualrail_net.verify.snapshot import load_snapshot


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--servers", default="gpu001,gpu009,gpu017,gpu025",
                        help="comma-separated; the example has Ethernet (gpu001-016) and InfiniBand-addressed servers")
    parser.add_argument("--kinds", help="comma-separated edit kinds only (e.g. shell-form,delete-line); "
                        "default: every kind")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    kinds = set(args.kinds.split(",")) if args.kinds else None
    known = {host_oracle.edit_kind(e) for e in host_oracle.EDITS}
    if kinds and not kinds <= known:
        parser.error(f"unknown kind(s) {', '.join(sorted(kinds - known))}; known: {', '.join(sorted(known))}")
    inventory = Path(__file__).resolve().parents[1] / "inventory"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        write_artifacts(render_fabric(resolve_fabric(load_inventory(inventory).inventory)), out)
        servers = {name: out / "servers" / name for name in args.servers.split(",") if name}
        missing = [name for name, folder in servers.items() if not folder.is_dir()]
        if missing:
            parser.error(f"no rendered server {', '.join(missing)}")
        started = time.monotonic()
        results = host_oracle.differential(servers, host_oracle.plane_destinations(load_snapshot(out).routed),
                                           args.seed, args.edits, Path(tmp) / "work", kinds)
    disagreeing = [r for r in results if r.differences]
    figures = {"seed": args.seed, "servers": len(servers), "files_compared": len(results),
               "edits": sum(1 for r in results if r.edit), "probes": sum(r.probes for r in results),
               "disagreeing_files": len(disagreeing), "seconds": round(time.monotonic() - started, 1)}
    if args.json:
        print(json.dumps({**figures, "disagreements": [
            {"server": r.server, "edit": r.edit.description if r.edit else None,
             "differences": {f"{s} -> {d}": why for (s, d), why in r.differences.items()}} for r in disagreeing]}))
        return 0
    for key, value in figures.items():
        print(f"{key:>18}: {value}")
    for r in disagreeing:
        print(f"DISAGREE {r.server}: {r.edit.description if r.edit else 'the clean file'}")
        for (source, destination), why in list(r.differences.items())[:6]:
            print(f"    from {source} to {destination}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
