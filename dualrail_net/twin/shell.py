"""Running commands, in the root namespace or inside a twin namespace."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence


class TwinError(Exception):
    pass


def run(cmd: Sequence[str], check: bool = True, timeout: float = 60, input_text: str | None = None) -> str:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, input=input_text)
    if check and proc.returncode != 0:
        raise TwinError(f"{' '.join(cmd)} failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[:500]}")
    return proc.stdout


def in_ns(ns: str, cmd: Sequence[str], check: bool = True, timeout: float = 60) -> str:
    return run(["ip", "netns", "exec", ns, *cmd], check=check, timeout=timeout)


def link_names(namespace: str | None = None) -> list[str]:
    """Names of the links in a namespace (the root one when None), from `ip -o link show`."""
    cmd = ["ip"] + (["-n", namespace] if namespace else []) + ["-o", "link", "show"]
    return [line.split(":")[1].strip().split("@")[0] for line in run(cmd, check=False).splitlines()]


MGMT_PORT = "mgmt0"  # a namespace's port on the twin's management bridge (twin/lifecycle.py)


def fabric_ports(namespace: str) -> list[str]:
    """A namespace's cabled ports: its links but the loopback and the management port."""
    return [name for name in link_names(namespace) if name not in ("lo", MGMT_PORT)]


def ip_batch(commands: list[str], namespace: str | None = None, force: bool = False) -> None:
    """Many ip commands in one process (creating hundreds of veths one process each is slow).
    ``force``: keep going past errors (for clean-up, where some links may already be gone)."""
    if not commands:
        return
    base = ["ip"] + (["-n", namespace] if namespace else []) + (["-force"] if force else []) + ["-batch", "-"]
    run(base, input_text="\n".join(commands) + "\n", timeout=300, check=not force)
