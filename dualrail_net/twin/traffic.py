"""Running the prober inside namespaces, in parallel, once or in the background."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Pairs = list[tuple[str, str]]


def _cmd(ns: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "dualrail_net.twin.probe"]


def probe_once(jobs: dict[str, Pairs], count: int = 3, interval: float = 0.02, timeout: float = 1.0,
               workers: int = 16) -> dict[str, list[dict[str, Any]]]:
    """{namespace: pairs} -> {namespace: per-pair results}."""
    def one(item: tuple[str, Pairs]) -> tuple[str, list[dict[str, Any]]]:
        ns, pairs = item
        if not pairs:
            return ns, []
        spec = {"pairs": [list(p) for p in pairs], "count": count, "interval": interval, "timeout": timeout}
        proc = subprocess.run(_cmd(ns), input=json.dumps(spec), capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"prober failed in {ns}: {proc.stderr.strip()[:300]}")
        return ns, json.loads(proc.stdout)["results"]

    with ThreadPoolExecutor(workers) as pool:
        return dict(pool.map(one, jobs.items()))


class Background:
    """Continuous probes from many namespaces at once; ``collect`` waits for them to finish."""

    def __init__(self, jobs: dict[str, Pairs], duration: float, interval: float = 0.05,
                 stop_file: str | None = None) -> None:
        self.procs: dict[str, subprocess.Popen[str]] = {}
        for ns, pairs in jobs.items():
            spec = {"pairs": [list(p) for p in pairs], "duration": duration, "interval": interval, "timeout": 1.0,
                    "stop_file": stop_file}
            proc = subprocess.Popen(_cmd(ns), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(spec))
            proc.stdin.close()
            self.procs[ns] = proc

    def collect(self, timeout: float = 120) -> dict[str, list[dict[str, Any]]]:
        out = {}
        for ns, proc in self.procs.items():
            assert proc.stdout is not None and proc.stderr is not None
            stdout = proc.stdout.read()
            stderr = proc.stderr.read()
            if proc.wait(timeout=timeout) != 0:
                raise RuntimeError(f"prober failed in {ns}: {stderr.strip()[:300]}")
            out[ns] = json.loads(stdout)["results"]
        return out
