"""TEST DOUBLE: a stateful simulator of NVUE's revision lifecycle on one Cumulus 5.x switch, for the
driver. No NVUE runs here; this models what the deploy path depends on, not a canned "ok":

* an applied revision, a pending one, and the saved startup configuration (what a reboot applies);
* ``nv config replace FILE``: refused (nothing pending) when the file is not an NVUE document this
  repository's own reader accepts, or when an object the driver sends breaks NVUE's schema as far
  as it is modelled here (an unknown top-level object, an interface type other than swp, loopback,
  eth, an MTU outside 552-9216, a link state other than up/down, a neighbor without remote-as);
* ``nv config diff`` (applied -> pending), ``nv config detach``, ``nv config show -r applied``;
* ``nv config apply --confirm Ns``: the pending revision is applied and a confirm timer starts; unless
  ``--confirm-yes`` comes in time the switch rolls back by itself (against ``clock``, connected or
  not); ``--confirm-no`` rolls back now; ``--confirm-status``; ``nv config apply`` without a timer;
  ``nv config save``;
* FRR as NVUE drives it: ``vtysh -c 'show bgp vrf all summary json'`` from the applied revision's
  neighbors (Established when the remote-as is the ASN really at that address, ``peers``);
* ``cat /etc/lsb-release``, ``nv action fetch/install system image`` and ``nv action reboot``.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.deploy.drivers.base import split_status
from dualrail_net.deploy.drivers.sftp_double import FilesTransport
from dualrail_net.platforms.cumulus_nvue.parse import applied, parse_text
from dualrail_net.sot.yamlsource import SourceMap, YamlSourceError, load_yaml_text

TOP_LEVEL = {"system", "interface", "router", "vrf", "qos", "service"}


def schema_errors(text: str) -> list[str]:
    """What NVUE's validation refuses in the objects the rendered file uses."""
    try:
        doc = load_yaml_text(text, "startup.yaml", SourceMap())
    except YamlSourceError as exc:
        return [f"Invalid config: {exc}"]
    if not isinstance(doc, list) or not doc or not all(isinstance(op, dict) for op in doc) \
            or not isinstance(doc[0].get("set"), dict):
        return ["Invalid config: expected a list of operations (- set: ...)"]
    root, _ = applied(doc, SourceMap())  # (the operations in order, as NVUE applies them)
    errors = [f"Additional properties are not allowed ('{k}' was unexpected)" for k in root if k not in TOP_LEVEL]
    for name, body in (root.get("interface") or {}).items():
        body = body if isinstance(body, dict) else {}
        if body.get("type") not in ("swp", "loopback", "eth"):
            errors.append(f"interface {name}: type {body.get('type')!r} is not one of swp, loopback, eth")
        link: dict[str, Any] = body["link"] if isinstance(body.get("link"), dict) else {}
        mtu = link.get("mtu")
        if mtu is not None and not (isinstance(mtu, int) and 552 <= mtu <= 9216):
            errors.append(f"interface {name} link mtu: {mtu!r} is not between 552 and 9216")
        for state in (link.get("state") or {}):
            if state not in ("up", "down"):
                errors.append(f"interface {name} link state: {state!r} is not up or down")
    for vrf, body in (root.get("vrf") or {}).items():
        bgp = (((body or {}).get("router") or {}).get("bgp") or {}) if isinstance(body, dict) else {}
        for address, n in (bgp.get("neighbor") or {}).items():
            if not isinstance(n, dict) or "remote-as" not in n:
                errors.append(f"vrf {vrf} router bgp neighbor {address}: remote-as is required")
    return errors


@dataclass
class NvueSimulator:
    """TEST DOUBLE (see the module docstring): answers netmiko's ``send_command`` as one NVUE switch."""

    hostname: str
    applied: str  # the applied revision (startup.yaml text)
    peers: dict[str, int] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic
    release: str = "5.9.2"
    pending: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    sent: list[str] = field(default_factory=list)
    confirm_deadline: float | None = None
    before_confirm: str | None = None
    rollbacks: int = 0  # confirm timers that rolled back by themselves
    next_release: str | None = None

    def __post_init__(self) -> None:
        self.saved = self.applied
        self.remote_conn_pre = FilesTransport(self.files)

    def send_command(self, command: str, **_: Any) -> str:
        self.fire_timer()
        self.sent.append(command)
        body, marker = split_status(command)
        rc, out = self._one(shlex.split(body))
        return f"{out}\n{marker}{rc}\n" if marker else out

    def fire_timer(self) -> None:
        if self.confirm_deadline is not None and self.clock() >= self.confirm_deadline:
            self._roll_back()
            self.rollbacks += 1

    def _roll_back(self) -> None:
        assert self.before_confirm is not None
        self.applied, self.before_confirm, self.confirm_deadline = self.before_confirm, None, None

    def _one(self, w: list[str]) -> tuple[int, str]:
        if w[:1] == ["sudo"]:
            w = w[1:]
        if w[:1] == ["mkdir"]:
            return 0, ""
        if w[:2] == ["cat", "/etc/lsb-release"]:
            return 0, f'DISTRIB_ID="Cumulus Linux"\nDISTRIB_RELEASE={self.release}\n'
        if w[:2] == ["nv", "config"]:
            return self._config(w[2:])
        if w[:2] == ["nv", "action"]:
            return self._action(w[2:])
        if w[:1] == ["vtysh"] and w[1:3] == ["-c", "show bgp vrf all summary json"]:
            return 0, json.dumps(self._summary())
        if w[:1] == ["vtysh"]:
            return 0, ""
        return 127, f"sh: {w[0] if w else ''}: command not found"

    def _config(self, w: list[str]) -> tuple[int, str]:
        if w[:1] == ["replace"] and len(w) == 2:
            text = self.files.get(w[1])
            if text is None:
                return 1, f"Error: {w[1]}: no such file"
            errors = schema_errors(text)
            if errors:
                return 1, "Error: Invalid config: " + "; ".join(errors[:4])
            self.pending = text
            return 0, ""
        if w[:1] == ["diff"]:
            if self.pending is None:
                return 0, ""
            return 0, "".join(difflib.unified_diff(self.applied.splitlines(keepends=True),
                                                   self.pending.splitlines(keepends=True), "applied", "pending"))
        if w[:1] == ["detach"]:
            self.pending = None
            return 0, ""
        if w[:3] == ["show", "-r", "applied"]:
            return 0, self.applied
        if w[:1] == ["save"]:
            self.saved = self.applied
            return 0, ""
        if w[:1] == ["apply"]:
            return self._apply(w[1:])
        return 2, f"Error: unknown command nv config {' '.join(w)}"

    def _apply(self, w: list[str]) -> tuple[int, str]:
        if w == ["--confirm-status"]:
            if self.confirm_deadline is None:
                return 0, "No pending confirmation."
            return 0, f"Confirmation pending: {max(0, int(self.confirm_deadline - self.clock()))}s left"
        if w == ["--confirm-yes"]:
            if self.confirm_deadline is None:
                return 1, "Error: no apply is waiting for confirmation"
            self.confirm_deadline, self.before_confirm = None, None
            return 0, "Confirmed."
        if w == ["--confirm-no"]:
            if self.confirm_deadline is None:
                return 1, "Error: no apply is waiting for confirmation"
            self._roll_back()
            return 0, "Rolled back."
        if self.pending is None:
            return 1, "Error: nothing to apply (no pending revision)"
        if self.confirm_deadline is not None:
            return 1, "Error: an apply is waiting for confirmation"
        if "--confirm" in w:
            m = re.fullmatch(r"(\d+)s", w[w.index("--confirm") + 1])
            if not m:
                return 1, "Error: --confirm takes a duration such as 600s"
            self.before_confirm, self.confirm_deadline = self.applied, self.clock() + int(m.group(1))
        self.applied, self.pending = self.pending, None
        return 0, "applied"

    def _action(self, w: list[str]) -> tuple[int, str]:
        if w[:3] == ["fetch", "system", "image"]:
            m = re.search(r"cumulus-linux-(\d+\.\d+\.\d+)-", w[3])
            if not m:
                return 1, f"Error: {w[3]} is not a Cumulus Linux image"
            self.files["image"] = m.group(1)
            return 0, "Fetched."
        if w[:4] == ["install", "system", "image", "files"]:
            if "image" not in self.files:
                return 1, "Error: no image fetched"
            self.next_release = self.files.pop("image")
            return 0, "Installed."
        if w[:2] == ["reboot", "system"]:
            if self.next_release:
                self.release, self.next_release = self.next_release, None
            self.applied, self.pending, self.confirm_deadline = self.saved, None, None
            return 0, ""
        return 2, "Error: unknown action"

    def _summary(self) -> dict[str, Any]:
        dev = parse_text(self.hostname, self.applied)
        out: dict[str, Any] = {}
        for vrf, inst in dev.bgp.items():
            peers = {address: {"state": "Established" if self.peers.get(address) == n.remote_asn else "Active"}
                     for address, n in inst.neighbors.items()}
            out[vrf or "default"] = {"ipv4Unicast": {"peers": peers}}
        return out


def simulator_for(folder: Path, hostname: str, peers: dict[str, int] | None = None,
                  clock: Callable[[], float] = time.monotonic) -> NvueSimulator:
    return NvueSimulator(hostname, (folder / "startup.yaml").read_text(), dict(peers or {}), clock)
