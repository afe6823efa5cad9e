#!/usr/bin/env python3
"""Benchmark `dualrail capacity` on the synthetic 100k-GPU fabric, as a user runs it: the inventory
written as YAML, then read, validated, resolved, the figures, the standard failure scenarios, the
model, the JSON and the HTML report. Prints seconds per phase; asserts nothing.

    python benchmarks/bench_capacity.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import yaml

from dualrail_net.capacity.report import html_report
from dualrail_net.capacity.run import capacity_report, to_json
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.load import INVENTORY_FILES, load_inventory
from dualrail_net.sot.synthetic import Shape, hundred_k_shape, synthetic_inventory, thousand_switch_shape
from dualrail_net.sot.validate import validate


def write_inventory(shape: Shape, folder: Path) -> None:
    data = synthetic_inventory(shape).model_dump(mode="json", exclude_none=True)
    for field, (name, _required) in INVENTORY_FILES.items():
        if field in data:
            (folder / name).write_text(yaml.safe_dump(data[field], sort_keys=False))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a 1k-switch fabric instead of 100k GPUs")
    args = parser.parse_args()
    shape = thousand_switch_shape() if args.quick else hundred_k_shape()
    with tempfile.TemporaryDirectory() as tmp:
        inv_dir = Path(tmp) / "inventory"
        inv_dir.mkdir()
        write_inventory(shape, inv_dir)
        times: dict[str, float] = {}
        t0 = time.perf_counter()
        loaded = load_inventory(inv_dir)
        times["load"] = time.perf_counter() - t0
        t = time.perf_counter()
        errors = [d for d in validate(loaded) if d.severity.value == "error"]
        times["validate"] = time.perf_counter() - t
        assert not errors, errors[:3]
        t = time.perf_counter()
        fabric = resolve_fabric(loaded.inventory)
        times["resolve"] = time.perf_counter() - t
        t = time.perf_counter()
        report = capacity_report(loaded.inventory, fabric)
        times["figures+scenarios+model"] = time.perf_counter() - t
        t = time.perf_counter()
        doc = json.dumps(to_json(report))
        times["json"] = time.perf_counter() - t
        t = time.perf_counter()
        page = html_report(report, fabric)
        times["html"] = time.perf_counter() - t
        total = time.perf_counter() - t0
    print(f"capacity on {shape.gpus:,} GPUs, {len(fabric.switches):,} switches, {len(fabric.links):,} cables, "
          f"{len(report.impacts)} scenarios")
    for name, seconds in times.items():
        print(f"  {name:26s} {seconds:6.2f} s")
    print(f"  {'total':26s} {total:6.2f} s   (JSON {len(doc) / 1e6:.1f} MB, HTML {len(page) / 1e3:.0f} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
