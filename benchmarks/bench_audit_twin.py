#!/usr/bin/env python3
"""Benchmark the live audit's collection on a synthetic twin (default 144 switches, no servers):
every switch asked over SSH through the nornir inventory (LLDP, ports, firmware, drift, BGP, installed
ECMP width), with nornir's threaded runner at several worker counts; then the comparison with the
plan. Needs root. Prints figures; asserts nothing (the twin has no servers, so their cables are
reported missing: the counts per check are printed).

    sudo python3 benchmarks/bench_audit_twin.py [--switches 144] [--workers 1,8,16,32]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from dualrail_net.audit.collect import collect
from dualrail_net.audit.run import audit_findings
from dualrail_net.deploy.session import connector, init_nornir
from dualrail_net.manifest import Manifest
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.synthetic import synthetic_inventory
from dualrail_net.twin import lifecycle
from dualrail_net.twin.checks import wait_converged

sys.path.insert(0, str(Path(__file__).parent))
from bench_rollout import SHAPES  # noqa: E402  (the same synthetic twins)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--switches", type=int, default=144, choices=sorted(SHAPES))
    parser.add_argument("--workers", default="1,8,16,32", help="worker counts to time, comma-separated")
    args = parser.parse_args()
    lifecycle.require_root()
    fabric = resolve_fabric(synthetic_inventory(SHAPES[args.switches]))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        write_artifacts(render_fabric(fabric), out)
        started = time.monotonic()
        lifecycle.up(out, servers=False, interfaces_mode="translate")
        wait_converged(timeout=600)
        print(f"twin: {len(fabric.switches)} switches up and converged in {time.monotonic() - started:.1f} s")
        time.sleep(8)  # lldpd's first frames (tx every second, hold 4)
        try:
            manifest = Manifest.load(out)
            for workers in (int(w) for w in args.workers.split(",") if w):
                nr = init_nornir(out, lifecycle.STATE_DIR / "state.json")
                began = time.monotonic()
                reports = collect(nr, connector(nr), workers)
                asked = time.monotonic() - began
                nr.close_connections()
                began = time.monotonic()
                findings = audit_findings(out, manifest, reports)
                compared = time.monotonic() - began
                errors = sum(1 for r in reports.values() if r.error)
                counts = Counter(f.check for f in findings)
                print(f"workers {workers:>2}: {len(reports)} devices asked in {asked:.1f} s "
                      f"({asked / max(len(reports), 1) * 1000:.0f} ms per device of wall time; {errors} unanswered), "
                      f"compared in {compared:.2f} s; findings: {dict(sorted(counts.items()))}")
        finally:
            lifecycle.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
