#!/usr/bin/env python3
"""The twin as the verifier's oracle, at length: bring the twin up on the example inventory (no
servers), apply seeded random edits of the switches' frr.conf and interfaces files one at a time (twin/oracle.py), and
compare the control-plane model's predicted sessions and RIBs with real FRR's on every switch.
Prints agreement figures and every disagreement; asserts nothing. Needs root.

    sudo python3 benchmarks/bench_oracle.py [--edits 40] [--seed 1] [--kinds maximum-prefix,prepend] [--json]
                                            [--three-tier]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.load import load_inventory
from dualrail_net.sot.synthetic import small_three_tier_shape, synthetic_inventory
from dualrail_net.twin import lifecycle, oracle
from dualrail_net.twin.checks import wait_converged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--kinds", default="", help="only these edit kinds, comma-separated (e.g. maximum-prefix)")
    parser.add_argument("--no-interfaces", action="store_true", help="edit frr.conf files only")
    parser.add_argument("--devices", default="", help="edit only these devices, comma-separated (all are compared)")
    parser.add_argument("--list", action="store_true", help="also name every edit that agreed")
    parser.add_argument("--three-tier", action="store_true",
                        help="a small synthetic three-tier fabric (two pods, super-spines sharing an ASN per "
                             "plane) instead of the example: the paths through super-spines against FRR")
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    known = oracle.all_kinds()
    if set(kinds) - known:
        parser.error(f"unknown edit kind {', '.join(sorted(set(kinds) - known))}; there are {', '.join(sorted(known))}")
    if args.three_tier:
        inventory = synthetic_inventory(small_three_tier_shape())
    else:
        inventory = load_inventory(Path(__file__).resolve().parents[1] / "inventory").inventory
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        write_artifacts(render_fabric(resolve_fabric(inventory)), out)
        started = time.monotonic()
        lifecycle.up(out, servers=False)
        try:
            wait_converged()
            plan = lifecycle.plan_from_state(lifecycle.load_state() or {})
            switches = oracle.compared_devices(plan)
            clean = oracle.disagreements(oracle.predict(out, [sw.device for sw in switches]),
                                         oracle.settle(switches, lifecycle.rundir))
            results = oracle.differential(out, plan, lifecycle.rundir, args.seed, args.edits,
                                          lifecycle.restart_switch, Path(tmp), kinds,
                                          interfaces=not args.no_interfaces,
                                          only=[d for d in args.devices.split(",") if d])
        finally:
            lifecycle.down()
    compared = [r for r in results if not r.rejected]
    disagreeing = [r for r in compared if r.differences]
    by_kind = Counter(r.edit.kind for r in compared)
    figures = {
        "seed": args.seed, "edits": len(results), "rejected_by_frr": len(results) - len(compared),
        "rejections_verify_foresaw": sum(1 for r in results if r.rejected and r.verify_refused),
        "compared": len(compared), "devices_per_edit": compared[0].devices if compared else 0,
        "device_comparisons": sum(r.devices for r in compared) + len(switches),
        "disagreeing_edits": len(disagreeing), "clean_disagreements": len(clean),
        "seconds": round(time.monotonic() - started, 1), "edit_kinds": dict(by_kind),
    }
    if args.json:
        print(json.dumps({**figures, "disagreements": [
            {"device": r.edit.device, "edit": r.edit.description, "differences": r.differences} for r in disagreeing]}))
    else:
        for key, value in figures.items():
            print(f"{key:>20}: {value}")
        for r in disagreeing:
            print(f"DISAGREE {r.edit.device}: {r.edit.description}")
            for device, diff in r.differences.items():
                print(f"    {device}: {diff}")
        for r in compared:
            if args.list and not r.differences:
                print(f"agree    {r.edit.device}: {r.edit.description}")
        for r in results:
            if r.rejected:
                foreseen = f" (verify: {r.verify_refused[0]})" if r.verify_refused else " (not among verify's BGP-CONFIG-REFUSED findings)"
                print(f"rejected {r.edit.device}: {r.edit.description}: {r.rejected[:120]}{foreseen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
