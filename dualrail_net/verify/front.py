"""The front door of verification: ``verify_folder(out, options)`` runs every offline verification
of a rendered folder that the options and this machine allow, and returns their results. The CLI's
``verify`` and ``build`` call it; nothing else decides what "verification passed" covers."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dualrail_net.manifest import Manifest
from dualrail_net.verify.consumers import run_consumers
from dualrail_net.verify.findings import CheckResult
from dualrail_net.verify.partitioned import check_folder
from dualrail_net.verify.snapshot import load_snapshot


@dataclass(frozen=True)
class VerifyOptions:
    consumers: bool = True  # the real programs: FRR's parser, ifupdown2
    ib_sim: bool | None = None  # opensm on ibsim per IB plane; None: when the tools are installed
    batfish: Any = None  # a connected pybatfish Session (verify.batfish.client.connect), or None


def verify_folder(out: Path, options: VerifyOptions = VerifyOptions()) -> list[CheckResult]:
    """Our checks on the parsed configs (two processes at scale), the IB static checks and the IB
    simulation, the real consumers, and the Batfish question suite when a session is given."""
    results = check_folder(out)
    if Manifest.load(out).ib_planes:
        from dualrail_net.verify.ib.sim import run_simulation, tools_missing
        from dualrail_net.verify.ib.static import run_static
        results += run_static(out)
        if options.ib_sim or (options.ib_sim is None and not tools_missing()):
            sim_results, _stats = run_simulation(out)
            results += sim_results
    if options.consumers:
        results += run_consumers(out)
    if options.batfish is not None:
        results += run_batfish(out, options.batfish)
    return results


def run_batfish(out: Path, session: Any) -> list[CheckResult]:
    from dualrail_net.verify.batfish.questions import run_suite
    from dualrail_net.verify.batfish.snapshot import export_snapshot
    with tempfile.TemporaryDirectory(prefix="dualrail-batfish-") as tmp:
        export_snapshot(out, Path(tmp) / "snapshot")
        return run_suite(session, Path(tmp) / "snapshot", load_snapshot(out))
