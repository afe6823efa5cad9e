"""Arista EOS with netmiko's ``arista_eos`` driver and a configuration session.

netmiko has no commit/session helpers for EOS, so the sequence is explicit: load = ``configure
session`` + ``rollback clean-config`` + the rendered running-config (a full replace) + ``show
session-config diffs`` (kept for the journal); commit = ``commit timer`` (EOS rolls back by itself
unless confirmed); confirm = ``configure session NAME commit`` once the post-checks pass; discard =
``configure session NAME abort``. Firmware: ``install source URL`` (the playbook's
``image_urls``) then ``reload now``; the running version from ``show version | json``. No EOS runs here: the tests
drive this class (and the whole runner) against ``simulator.EosSessionSimulator``, a stateful test
double whose commit timers really expire and roll back."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dualrail_net.deploy.credentials import named_secrets, substitute_secrets
from dualrail_net.deploy.drivers.base import (
    PushRejected,
    checked_vrf,
    image_url,
    poll_healthy,
    prepend_commands,
    revert_timer,
)
from dualrail_net.platforms.eos.parse_config import parse_eos
from dualrail_net.verify.model import DeviceConfig



class EosDriver:
    def __init__(self, host: Any, connection: Any, session_name: str | None = None) -> None:
        self.host = host
        self.name: str = host.name
        self.conn = connection
        self.session = session_name or f"dualrail-{int(time.time())}"
        self.last_diff = ""

    def intended(self) -> dict[str, str]:
        """The rendered running-config with its ``${secret:NAME}`` placeholders filled from the secrets
        file (the rendered file never holds a secret; the device's running-config does)."""
        text = (Path(self.host.data["device_dir"]) / "running-config").read_text()
        if "${secret:" in text:
            text = substitute_secrets(text, named_secrets(), f"{self.name} running-config")
        return {"running-config": text}

    def fetch(self) -> dict[str, str]:
        return {"running-config": self.conn.send_command("show running-config")}

    # -- the audit's PFC in force (PfcReader) ---------------------------------------------------------
    pfc_format = "eos-running-config"

    def pfc_in_force(self, fetched: Mapping[str, str] | None = None) -> str:
        """EOS programs each committed line as it takes it: its running-config is what it runs
        (the one ``fetch`` read, when given)."""
        if fetched and fetched.get("running-config"):
            return fetched["running-config"]
        out: str = self.conn.send_command("show running-config")
        return out

    def _lines(self, text: str) -> list[str]:
        return [line.rstrip() for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("!") and line.strip() != "end"]

    def load(self, files: dict[str, str]) -> str:
        """A configuration session holding the full replacement; its diff is EOS's own."""
        cmds = [f"configure session {self.session}", "rollback clean-config", *self._lines(files["running-config"])]
        out = self.conn.send_config_set(cmds, enter_config_mode=False, exit_config_mode=False,
                                        cmd_verify=False)
        if re.search(r"% (Invalid input|Incomplete command|Ambiguous command)", out):
            self.conn.send_command(f"configure session {self.session} abort")
            raise PushRejected(f"{self.name}: EOS rejected the config: {out.strip()[-200:]}")
        self.last_diff = self.conn.send_command("show session-config diffs")
        return self.last_diff

    def commit(self, revert_after: float) -> None:
        """``commit timer``: EOS commits the session and rolls it back by itself unless
        ``configure session NAME commit`` (confirm) comes before the timer ends."""
        out = self.conn.send_command(f"commit timer {revert_timer(revert_after)}")
        if "%" in out:
            self.conn.send_command(f"configure session {self.session} abort")
            raise PushRejected(f"{self.name}: commit failed: {out.strip()[:200]}")

    def confirm(self) -> None:
        out = self.conn.send_command(f"configure session {self.session} commit")
        if "%" in out:
            raise PushRejected(f"{self.name}: confirm failed: {out.strip()[:200]}")

    def discard(self) -> None:
        """Abort the session: before commit it drops the staged change, during the commit timer it
        rolls the change back now."""
        out = self.conn.send_command(f"configure session {self.session} abort")
        if "%" in out:
            raise PushRejected(f"{self.name}: abort failed: {out.strip()[:200]}")

    def rollback(self, files: dict[str, str]) -> None:
        """A backup as a full replacement, committed at once (no timer: it is the known-good state)."""
        session, self.session = self.session, f"{self.session}-rollback"
        try:
            self.load(files)
            out = self.conn.send_command("commit")
            if "%" in out:
                self.conn.send_command(f"configure session {self.session} abort")
                raise PushRejected(f"{self.name}: rollback commit failed: {out.strip()[:200]}")
        finally:
            self.session = session

    def health(self) -> list[str]:
        """Every BGP peer of every VRF that is not Established (an administratively shut one is
        intended), from EOS's JSON (the text table's columns move between releases)."""
        out = self.conn.send_command("show ip bgp summary vrf all | json")
        try:
            doc = json.loads(out)
            vrfs = doc["vrfs"]
        except (ValueError, KeyError, TypeError):
            return [f"{self.name}: unreadable BGP summary: {out.strip()[:120]}"]
        problems = []
        for vrf, body in vrfs.items():
            for address, peer in (body.get("peers") or {}).items():
                state = peer.get("peerState", "?")
                if state != "Established" and peer.get("peerStateIdleReason") != "Admin":
                    where = f" (VRF {vrf})" if vrf != "default" else ""
                    problems.append(f"{self.name}: {address}{where} is {state}")
        return problems

    def wait_healthy(self, timeout: float) -> list[str]:
        return poll_healthy(self.health, timeout)

    route_format = "eos"

    def bgp_routes(self, vrf: str | None = None) -> str:
        """One VRF's BGP routes as EOS prints them in JSON (under ``vrfs.<name>``)."""
        command = "show ip route bgp | json" if vrf is None else f"show ip route vrf {checked_vrf(vrf)} bgp | json"
        out: str = self.conn.send_command(command)
        return out

    # -- firmware (FirmwareDriver) ------------------------------------------------------------------
    def running_version(self) -> str:
        try:
            return str(json.loads(self.conn.send_command("show version | json")).get("version", ""))
        except (ValueError, AttributeError):
            return ""

    def install_image(self, image: str) -> None:
        """``install source URL``: EOS copies the image to flash, checks it and makes it the boot image
        (boot-config); the running system is untouched until reboot()."""
        url = image_url(self.host, image)
        out = self.conn.send_command(f"install source {url}", read_timeout=1800)
        if "%" in out or not re.search(r"(?i)(installation succeeded|copy completed successfully)", out):
            raise PushRejected(f"{self.name}: install source failed: {out.strip()[-200:]}")

    def reboot(self) -> None:
        """``reload now``: the session drops with the switch; the runner's post-check reconnects and
        waits for it, then checks the running version."""
        try:
            self.conn.send_command("reload now", read_timeout=10)
        except Exception:  # noqa: BLE001  (the connection ends with the switch: expected)
            pass

    def drain(self, vrf: str | None = None) -> None:
        """Prepend our ASN three times on everything the out-policies advertise (as on Cumulus), in
        the running configuration; the next full replace takes it away again."""
        self.conn.send_config_set(self._prepend_commands(drain=True, vrf=vrf), cmd_verify=False)

    def undrain(self, vrf: str | None = None) -> None:
        self.conn.send_config_set(self._prepend_commands(drain=False, vrf=vrf), cmd_verify=False)

    def _prepend_commands(self, drain: bool, vrf: str | None = None) -> list[str]:
        # the route-maps the switch runs now, not the new config's (see the Cumulus driver)
        dev = DeviceConfig(self.name, "eos")
        parse_eos(self.fetch()["running-config"] or self.intended()["running-config"], dev)
        return prepend_commands(dev, drain, vrf)
