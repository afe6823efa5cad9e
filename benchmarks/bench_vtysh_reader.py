"""The FRR reader against the real vtysh, at length: seeded line edits of every rendered frr.conf
of a build (verify/vtysh_oracle.py); prints how many edits were compared and each disagreement.

    python3 benchmarks/bench_vtysh_reader.py --edits 2000 --seed 1 [--build DIR]
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
from dualrail_net.sot import load_inventory
from dualrail_net.verify import vtysh_oracle


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edits", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", type=Path, default=None, help="a build folder (default: the example, rendered)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        build = args.build
        if build is None:
            build = Path(tmp) / "build"
            write_artifacts(render_fabric(resolve_fabric(load_inventory(Path("inventory")).inventory)), build)
        texts = [p.read_text() for p in sorted(build.rglob("frr.conf"))]
        started = time.monotonic()
        found = vtysh_oracle.run(args.seed, args.edits, texts, Path(tmp))
        seconds = time.monotonic() - started
    print(f"seed {args.seed}: {args.edits} edits of {len(texts)} files, {len(found)} disagreements, "
          f"{seconds:.1f} s")
    for d in found:
        for line, what, text in d.lines[:3]:
            print(f"  line {line}: {what}: {text.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
