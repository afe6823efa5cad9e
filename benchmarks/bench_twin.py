#!/usr/bin/env python3
"""Benchmark the emulated twin: bring-up time, time to full convergence (every session Established,
full ECMP width on every leaf) and memory per switch, for 24, 72 and 144 switches. Needs root.
Prints figures; asserts nothing.

Memory three ways: RSS of zebra + bgpd + staticd (counts the shared FRR libraries once per
process), PSS (shared pages divided among their users) and "host": the drop in the machine's
MemAvailable from before bring-up to convergence, divided by the switches (daemons, namespaces,
veths, sockets, page tables: what a switch really costs the host).

    sudo python3 benchmarks/bench_twin.py [--sizes 24,72,144] [--servers]
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
from dualrail_net.sot.synthetic import Shape, synthetic_inventory
from dualrail_net.twin import frr, lifecycle
from dualrail_net.twin.checks import wait_converged

SHAPES = {
    24: Shape(spines_per_pod=4, sus_per_pod=2, rails=4, servers_per_su=4),
    72: Shape(spines_per_pod=4, sus_per_pod=4, rails=8, servers_per_su=2, spine_downlinks=64),
    144: Shape(spines_per_pod=8, sus_per_pod=8, rails=8, servers_per_su=1, spine_downlinks=64),
}


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pss_kb(pid: int) -> int:
    """Proportional set size: shared pages (libfrr, libc) divided among the processes sharing them."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def mem_available_kb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    return 0


def wait_until_idle(limit: float = 60) -> None:
    """The kernel frees a removed twin's namespaces in the background: start each size on a quiet
    machine, or the previous size's teardown is billed to this one's bring-up."""
    def busy() -> float:
        v = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return float(sum(v) - v[3] - v[4])
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = busy()
        time.sleep(1)
        if busy() - before < 10:  # under 0.1 core busy (clock ticks of 10 ms)
            return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="24,72,144")
    parser.add_argument("--servers", action="store_true", help="also bring up the server namespaces")
    parser.add_argument("--ifupdown2", action="store_true",
                        help="apply interfaces with ifupdown2 (default here: the strict ip-batch translation)")
    args = parser.parse_args()
    print(f"interfaces applied with {'ifupdown2' if args.ifupdown2 else 'the ip-batch translation'}")
    print(f"{'switches':>8}{'sessions':>10}{'bring-up s':>12}{'converge s':>12}{'total s':>9}{'RSS MB/sw':>11}"
          f"{'PSS MB/sw':>11}{'host MB/sw':>12}")
    for size in (int(s) for s in args.sizes.split(",")):
        fabric = resolve_fabric(synthetic_inventory(SHAPES[size]))
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "build"
            write_artifacts(render_fabric(fabric), out)
            lifecycle.down()
            wait_until_idle()
            available_before = mem_available_kb()
            t0 = time.monotonic()
            result = lifecycle.up(out, servers=args.servers, workers=8,
                                  interfaces_mode="ifupdown2" if args.ifupdown2 else "translate")
            up_s = time.monotonic() - t0
            conv = wait_converged(timeout=300)
            host_kb = available_before - mem_available_kb()  # everything: daemons, namespaces, sockets
            state = lifecycle.load_state() or {}
            switches = state["plan"]["switches"]
            pids = [pid for sw in switches for pid in frr.pids(lifecycle.rundir(sw["ns"])).values()]
            total_kb = sum(rss_kb(pid) for pid in pids)
            total_pss = sum(pss_kb(pid) for pid in pids)
            sessions = sum(len(p.bgp_peers) for p in fabric.switches.values()) // 2
            print(f"{len(switches):>8}{sessions:>10}{up_s:>12.1f}{conv:>12.1f}{up_s + conv:>9.1f}"
                  f"{total_kb / 1024 / len(switches):>11.1f}{total_pss / 1024 / len(switches):>11.1f}"
                  f"{host_kb / 1024 / len(switches):>12.1f}")
            sys.stdout.flush()
            del result
            lifecycle.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
