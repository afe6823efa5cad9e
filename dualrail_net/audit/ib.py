"""InfiniBand planes seen live: ``ibnetdiscover`` run on a host of each IB plane (its SM host, else
its standby SM host: any HCA port of the subnet sees all of it), over the same SSH sessions the rest
of the audit uses. What it prints is compared with the plane's cabling plan by ``run.ib_findings``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dualrail_net.audit.cabling import unreachable
from dualrail_net.deploy.drivers.base import run_shell
from dualrail_net.manifest import Manifest
from dualrail_net.verify.findings import Finding

DISCOVER = "ibnetdiscover 2>&1"


def discover_ib(manifest: Manifest, planes: list[str], connect: Callable[[str], Any],
                timeout: float = 120) -> tuple[dict[str, str], list[Finding]]:
    """(plane -> ibnetdiscover's output, findings for planes no host could be asked about).
    ``connect(server)`` opens a shell session on a server (raises when it cannot)."""
    texts: dict[str, str] = {}
    findings: list[Finding] = []
    for plane in planes:
        meta = manifest.ib_planes.get(plane)
        if meta is None:
            raise ValueError(f"no IB plane {plane!r} in the build (planes: {', '.join(manifest.ib_planes) or 'none'})")
        errors: dict[str, str] = {}
        for host in [meta.sm_host, *([meta.sm_standby] if meta.sm_standby else [])]:
            try:
                rc, out = run_shell(connect(host), DISCOVER, timeout)
            except Exception as exc:  # an unreachable host: try the next one, report if none answers
                errors[host] = f"IB plane {plane}: {type(exc).__name__}: {exc}"[:300]
                continue
            if rc != 0:
                errors[host] = f"IB plane {plane}: ibnetdiscover exited {rc}: {out.strip()[-200:]}"
                continue
            texts[plane] = out
            break
        if plane not in texts:
            findings += unreachable(errors, errors)
    return texts, findings
