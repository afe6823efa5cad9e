"""Arista EOS with netmiko's ``arista_eos`` driver and a configuration session.

netmiko has no commit/session helpers for EOS, so the sequence is explicit: ``configure session``,
``rollback clean-config`` + the rendered running-config (a full replace), ``show session-config
diffs`` (kept for the journal), ``commit timer`` (EOS rolls back by itself unless confirmed), then
``configure session NAME commit`` once the post-checks pass. No EOS runs here: the tests drive this
class against a recorded session transcript (RecordedEosConnection)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from dualrail_net.deploy.drivers.base import PushRejected

COMMIT_TIMER = "00:05:00"


class EosDriver:
    def __init__(self, host: Any, connection: Any, session_name: str | None = None) -> None:
        self.host = host
        self.name: str = host.name
        self.conn = connection
        self.session = session_name or f"dualrail-{int(time.time())}"
        self.last_diff = ""

    def intended(self) -> dict[str, str]:
        return {"running-config": (Path(self.host.data["device_dir"]) / "running-config").read_text()}

    def fetch(self) -> dict[str, str]:
        return {"running-config": self.conn.send_command("show running-config")}

    def _lines(self, text: str) -> list[str]:
        return [line.rstrip() for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("!") and line.strip() != "end"]

    def push(self, files: dict[str, str]) -> None:
        cmds = [f"configure session {self.session}", "rollback clean-config", *self._lines(files["running-config"])]
        out = self.conn.send_config_set(cmds, enter_config_mode=False, exit_config_mode=False,
                                        cmd_verify=False)
        if re.search(r"% (Invalid input|Incomplete command|Ambiguous command)", out):
            self.conn.send_command(f"configure session {self.session} abort")
            raise PushRejected(f"{self.name}: EOS rejected the config: {out.strip()[-200:]}")
        self.last_diff = self.conn.send_command("show session-config diffs")
        out = self.conn.send_command(f"commit timer {COMMIT_TIMER}")
        if "%" in out:
            self.conn.send_command(f"configure session {self.session} abort")
            raise PushRejected(f"{self.name}: commit failed: {out.strip()[:200]}")

    def confirm(self) -> None:
        out = self.conn.send_command(f"configure session {self.session} commit")
        if "%" in out:
            raise PushRejected(f"{self.name}: confirm failed: {out.strip()[:200]}")

    def health(self) -> list[str]:
        out = self.conn.send_command("show ip bgp summary")
        return [f"{self.name}: {m.group(1)} is {m.group(2)}"
                for m in re.finditer(r"^\s*(\d+\.\d+\.\d+\.\d+)\s+\d+\s+\d+\s+.*?\s(Idle|Active|Connect|OpenSent|"
                                     r"OpenConfirm)\b", out, re.MULTILINE)]

    def drain(self) -> None:
        self.conn.send_config_set(["router bgp", "bgp graceful-shutdown"], cmd_verify=False)
