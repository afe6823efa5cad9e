"""Cumulus Linux 5.x through NVUE over SSH (netmiko ``linux``): NVUE's own revision lifecycle.

load = upload startup.yaml to a staging folder and ``nv config replace`` it into the pending
revision (NVUE validates it against its object model; a refusal detaches the revision, nothing
applies), the diff is NVUE's ``nv config diff``; commit = ``nv config apply --confirm <N>s``:
NVUE applies it and rolls back by itself unless ``nv config apply --confirm-yes`` comes in time;
confirm = that, then ``nv config save`` (the applied revision becomes the startup configuration);
discard = ``--confirm-no`` while a confirmation is pending, else ``nv config detach``. NVUE writes
the Linux files (frr.conf, interfaces, qos_features.conf) itself: they are never edited here.
No NVUE runs here: tests drive this class against ``simulator.NvueSimulator`` (TEST DOUBLE).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dualrail_net.deploy.credentials import named_secrets, substitute_secrets
from dualrail_net.deploy.drivers.base import (
    PushRejected,
    frr_route_command,
    image_url,
    poll_healthy,
    prepend_commands,
    run_checked,
    run_shell,
    sftp_upload,
)
from dualrail_net.verify.model import DeviceConfig


class NvueDriver:
    def __init__(self, host: Any, connection: Any) -> None:
        self.host = host
        self.name: str = host.name
        self.conn = connection
        paths: dict[str, str | None] = host.data.get("paths") or {}
        self.staging = paths.get("staging") or "/tmp/dualrail"
        self.last_diff = ""

    def _run(self, command: str, timeout: float = 120) -> tuple[int, str]:
        return run_shell(self.conn, command, timeout)

    def _must(self, command: str, what: str, timeout: float = 600) -> str:
        return run_checked(self.conn, command, what, self.name, timeout)

    def _upload(self, text: str, dest: str) -> None:
        sftp_upload(self.conn, text, dest, self.name, 0o600)  # startup.yaml carries the users' and AAA secrets

    # -- driver API ----------------------------------------------------------------------------------
    def intended(self) -> dict[str, str]:
        """startup.yaml with its ``${secret:NAME}`` placeholders (user hashes, TACACS key) filled."""
        text = (Path(self.host.data["device_dir"]) / "startup.yaml").read_text()
        if "${secret:" in text:
            text = substitute_secrets(text, named_secrets(), f"{self.name} startup.yaml")
        return {"startup.yaml": text}

    def fetch(self) -> dict[str, str]:
        rc, out = self._run("nv config show -r applied -o yaml")
        return {"startup.yaml": out if rc == 0 else ""}

    # -- the audit's PFC in force (PfcReader) ---------------------------------------------------------
    pfc_format = "nvue-applied"

    def pfc_in_force(self, fetched: Mapping[str, str] | None = None) -> str:
        """The applied revision: what NVUE set the system to (its docs: operational state and the
        applied revision are the same unless an apply failed, which its logs say); the one ``fetch``
        read, when given."""
        if fetched and fetched.get("startup.yaml"):
            return fetched["startup.yaml"]
        rc, out = self._run("nv config show -r applied -o yaml")
        if rc != 0:
            raise RuntimeError(f"{self.name}: nv config show -r applied failed ({out.strip()[-160:]})")
        return out

    def load(self, files: dict[str, str]) -> str:
        self._must(f"mkdir -p {self.staging}", "staging")
        path = f"{self.staging}/startup.yaml"
        self._upload(files["startup.yaml"], path)
        rc, out = self._run(f"nv config replace {path}")
        if rc != 0:
            self._run("nv config detach")
            raise PushRejected(f"{self.name}: NVUE refused startup.yaml: {out.strip()[-300:]}")
        self.last_diff = self._must("nv config diff", "nv config diff")
        return self.last_diff

    def commit(self, revert_after: float) -> None:
        seconds = max(1, int(round(revert_after)))
        rc, out = self._run(f"nv config apply --confirm {seconds}s -y", timeout=900)
        if rc != 0:
            self._run("nv config apply --confirm-no")
            self._run("nv config detach")
            raise PushRejected(f"{self.name}: nv config apply failed: {out.strip()[-300:]}")

    def _pending(self) -> bool:
        rc, out = self._run("nv config apply --confirm-status")
        said = out.lower()
        return rc == 0 and "pending" in said and "no pending" not in said

    def confirm(self) -> None:
        if not self._pending():
            raise PushRejected(f"{self.name}: no confirmation is pending (the confirm timer already rolled the "
                               "switch back)")
        self._must("nv config apply --confirm-yes", "confirm")
        self._must("nv config save", "nv config save")

    def discard(self) -> None:
        if self._pending():
            self._must("nv config apply --confirm-no", "roll back")
        self._run("nv config detach")

    def rollback(self, files: dict[str, str]) -> None:
        self.load(files)
        self._must("nv config apply -y", "nv config apply", timeout=900)
        self._must("nv config save", "nv config save")

    def health(self) -> list[str]:
        rc, out = self._run("sudo vtysh -c 'show bgp vrf all summary json'")
        try:
            doc = json.loads(out)
        except ValueError:
            return [f"{self.name}: cannot read BGP state ({out.strip()[:100]})"]
        peers: dict[str, Any] = {}
        for body in (doc.values() if isinstance(doc, dict) else []):
            peers.update(body.get("ipv4Unicast", {}).get("peers", {}) if isinstance(body, dict) else {})
        return [f"{self.name}: {addr} is {peers.get(addr, {}).get('state', 'not configured')}"
                for addr in sorted(self._expected_neighbors()) if peers.get(addr, {}).get("state") != "Established"]

    def wait_healthy(self, timeout: float) -> list[str]:
        return poll_healthy(self.health, timeout)

    def _running(self) -> DeviceConfig:
        from dualrail_net.platforms.cumulus_nvue.parse import parse_text
        return parse_text(self.name, self.fetch()["startup.yaml"] or self.intended()["startup.yaml"])

    def _expected_neighbors(self) -> set[str]:
        return {a for inst in self._running().bgp.values() for a in inst.neighbors}

    route_format = "frr"

    def bgp_routes(self, vrf: str | None = None) -> str:
        command = frr_route_command(vrf)
        rc, out = self._run(f"sudo vtysh -c '{command}'", timeout=60)
        if rc != 0:
            raise RuntimeError(f"{self.name}: {command} failed ({out.strip()[-160:]})")
        return out

    def drain(self, vrf: str | None = None) -> None:
        """Prepend our ASN in FRR's running configuration (as on the other platforms); NVUE's next
        apply rewrites FRR's configuration and takes it away."""
        self._prepend(True, vrf)

    def undrain(self, vrf: str | None = None) -> None:
        self._prepend(False, vrf)

    def _prepend(self, drain: bool, vrf: str | None) -> None:
        cmds = ["configure terminal", *prepend_commands(self._running(), drain, vrf)]
        self._must("sudo vtysh " + " ".join(f"-c {shlex.quote(c)}" for c in cmds), "drain" if drain else "undrain")

    # -- firmware (FirmwareDriver) -------------------------------------------------------------------
    def running_version(self) -> str:
        rc, out = self._run("cat /etc/lsb-release")
        m = re.search(r"^DISTRIB_RELEASE=\s*\"?([^\"\s]+)", out, re.M)
        return m.group(1) if rc == 0 and m else ""

    def install_image(self, image: str) -> None:
        url = image_url(self.host, image)
        self._must(f"nv action fetch system image {shlex.quote(url)}", "image fetch", timeout=1800)
        self._must(f"nv action install system image files {shlex.quote(url.rsplit('/', 1)[-1])} force",
                   "image install", timeout=1800)

    def reboot(self) -> None:
        try:
            self._run("nv action reboot system no-confirm", timeout=10)
        except Exception:  # noqa: BLE001  (the connection ends with the switch: expected)
            pass
