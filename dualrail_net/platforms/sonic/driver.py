"""SONiC over SSH with netmiko's ``linux`` driver (SONiC is Debian with its own ``config``/``show``
CLI; the admin user runs them with sudo).

The lifecycle, NAPALM's: load = upload both files to a staging folder, have the device judge them
(``config replace --dry-run``: the Generic Config Updater validates against SONiC's YANG models;
``vtysh --dryrun`` in the bgp container for frr.conf) and diff them against what runs (config_db as
canonical JSON, frr.conf as text); commit = ``config checkpoint`` of the running config_db and a
copy of the running frr.conf, then a revert job armed on the switch *before* anything changes (a
transient systemd timer: ``config rollback`` to the checkpoint, the old frr.conf back, frr-reload),
then ``config replace`` and frr-reload; confirm = stop the timer (refused if it already fired),
``config save`` (the running config becomes the boot config) and drop the checkpoint; discard =
run the revert now. No SONiC runs here: tests drive this class against ``simulator.SonicSimulator``,
a stateful test double whose timers really fire.
"""

from __future__ import annotations

import json
import re
import shlex
import time
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
    unified_diff,
)
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers.frr import parse_frr

FRR_IN_CONTAINER = "/etc/frr"  # the bgp container sees /etc/sonic/frr here
FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
STAGED, PREVIOUS = ".dualrail-new", ".dualrail-prev"


def canonical(config_db: str) -> str:
    """config_db as sorted, indented JSON (what `sonic-cfggen --print-data` prints differs in layout
    from the rendered file, not in content); text that does not parse is compared as it is."""
    try:
        return json.dumps(json.loads(config_db), indent=2, sort_keys=True) + "\n"
    except ValueError:
        return config_db


class SonicDriver:
    def __init__(self, host: Any, connection: Any, session_name: str | None = None) -> None:
        self.host = host
        self.name: str = host.name
        self.conn = connection
        paths: dict[str, str | None] = host.data.get("paths") or {}
        self.config_db = paths.get("config_db") or "/etc/sonic/config_db.json"
        self.frr_conf = paths.get("frr_conf") or "/etc/sonic/frr/frr.conf"
        self.staging = paths.get("staging") or "/tmp/dualrail"
        self.session = session_name or f"dualrail-{int(time.time())}"
        self.last_diff = ""

    # -- helpers -------------------------------------------------------------------------------------
    def _run(self, command: str, timeout: float = 60) -> tuple[int, str]:
        return run_shell(self.conn, command, timeout)

    def _must(self, command: str, what: str, timeout: float = 300) -> str:
        return run_checked(self.conn, command, what, self.name, timeout)

    def _upload(self, text: str, dest: str) -> None:
        sftp_upload(self.conn, text, dest, self.name, 0o600)  # config_db.json carries the AAA keys

    def _vtysh(self, *args: str) -> str:
        return "sudo docker exec bgp vtysh " + " ".join(args)

    def _frr_path(self, suffix: str = "") -> str:
        """frr.conf (+ suffix) as the bgp container sees it."""
        return f"{FRR_IN_CONTAINER}/{Path(self.frr_conf).name}{suffix}"

    @property
    def _unit(self) -> str:
        return f"{self.session}-revert"

    def _revert_script(self) -> str:
        """What the switch runs to put the previous configuration back (by its timer or by discard)."""
        return (f"config rollback {self.session} && cp -p {self.frr_conf}{PREVIOUS} {self.frr_conf} && "
                f"docker exec bgp python3 {FRR_RELOAD} --reload {self._frr_path()}")

    # -- driver API ----------------------------------------------------------------------------------
    def intended(self) -> dict[str, str]:
        """The rendered files, ``${secret:NAME}`` placeholders filled from the secrets file (TACACS,
        RADIUS and SNMP keys are config_db fields)."""
        folder = Path(self.host.data["device_dir"])
        files = {"config_db.json": (folder / "config_db.json").read_text(), "frr.conf": (folder / "frr.conf").read_text()}
        if "${secret:" in files["config_db.json"]:
            files["config_db.json"] = substitute_secrets(files["config_db.json"], named_secrets(),
                                                         f"{self.name} config_db.json")
        return files

    def fetch(self) -> dict[str, str]:
        """The running config_db (Redis, as `sonic-cfggen -d` prints it) and the frr.conf FRR runs."""
        rc, db = self._run("sudo sonic-cfggen -d --print-data")
        rc_frr, frr = self._run(f"sudo cat {self.frr_conf}")
        return {"config_db.json": canonical(db) if rc == 0 else "", "frr.conf": frr if rc_frr == 0 else ""}

    def load(self, files: dict[str, str]) -> str:
        self._must(f"mkdir -p {self.staging}", "staging")
        self._upload(files["config_db.json"], f"{self.staging}/config_db.json")
        self._upload(files["frr.conf"], f"{self.staging}/frr.conf")
        self._must(f"sudo cp {self.staging}/frr.conf {self.frr_conf}{STAGED}", "staging frr.conf")
        rc, out = self._run(f"sudo config replace --dry-run {self.staging}/config_db.json", timeout=300)
        if rc != 0:
            self._drop_staged()
            raise PushRejected(f"{self.name}: SONiC refused config_db.json: {out.strip()[-300:]}")
        rc, out = self._run(self._vtysh("--dryrun", "-f", self._frr_path(STAGED)), timeout=120)
        if rc != 0:
            self._drop_staged()
            raise PushRejected(f"{self.name}: FRR refused frr.conf: {out.strip()[-300:]}")
        running = self.fetch()
        self.last_diff = unified_diff(running, {"config_db.json": canonical(files["config_db.json"]),
                                                "frr.conf": files["frr.conf"]})
        return self.last_diff

    def _drop_staged(self) -> None:
        self._run(f"sudo rm -f {self.frr_conf}{STAGED}; rm -f {self.staging}/config_db.json {self.staging}/frr.conf")

    def commit(self, revert_after: float) -> None:
        """Checkpoint, arm the revert timer, then apply; anything that fails reverts at once."""
        self._must(f"sudo config checkpoint {self.session}", "checkpoint", timeout=120)
        self._must(f"sudo cp -p {self.frr_conf} {self.frr_conf}{PREVIOUS}", "keeping the running frr.conf")
        seconds = max(1, int(round(revert_after)))
        self._must(f"sudo systemd-run --unit {self._unit} --on-active={seconds} --property=Type=oneshot "
                   f"/bin/sh -c {shlex.quote(self._revert_script())}", "arming the revert timer")
        try:
            self._must(f"sudo config replace {self.staging}/config_db.json", "config replace", timeout=600)
            self._must(f"sudo mv {self.frr_conf}{STAGED} {self.frr_conf}", "installing frr.conf")
            self._must(self._vtysh_reload(), "frr-reload")
        except PushRejected:
            self._revert_now()
            raise

    def _vtysh_reload(self) -> str:
        return f"sudo docker exec bgp python3 {FRR_RELOAD} --reload {self._frr_path()}"

    def _timer_pending(self) -> bool:
        rc, out = self._run(f"sudo systemctl is-active {self._unit}.timer")
        return rc == 0 and out.strip().splitlines()[-1:] == ["active"]

    def confirm(self) -> None:
        if not self._timer_pending():
            raise PushRejected(f"{self.name}: the revert timer already fired: the switch is back on its previous "
                               "configuration")
        self._must(f"sudo systemctl stop {self._unit}.timer", "stopping the revert timer")
        self._must("sudo config save -y", "config save")
        self._run(f"sudo config delete-checkpoint {self.session}")

    def discard(self) -> None:
        if self._timer_pending():
            self._revert_now()
        self._drop_staged()

    def _revert_now(self) -> None:
        """Stop the timer and run its revert here (not through its unit: a stopped transient timer's
        service may already be gone)."""
        self._run(f"sudo systemctl stop {self._unit}.timer")
        self._must(f"sudo /bin/sh -c {shlex.quote(self._revert_script())}", "revert", timeout=600)

    def rollback(self, files: dict[str, str]) -> None:
        """A backup, applied at once and saved (it is the known-good state)."""
        self.load(files)
        self._must(f"sudo config replace {self.staging}/config_db.json", "config replace", timeout=600)
        self._must(f"sudo mv {self.frr_conf}{STAGED} {self.frr_conf}", "installing frr.conf")
        self._must(self._vtysh_reload(), "frr-reload")
        self._must("sudo config save -y", "config save")

    def health(self) -> list[str]:
        rc, out = self._run(self._vtysh("-c", "'show bgp summary json'"))
        try:
            peers = json.loads(out).get("ipv4Unicast", {}).get("peers", {})
        except (ValueError, AttributeError):
            return [f"{self.name}: cannot read BGP state ({out.strip()[:100]})"]
        return [f"{self.name}: {addr} is {peers.get(addr, {}).get('state', 'not configured')}"
                for addr in sorted(self._expected_neighbors()) if peers.get(addr, {}).get("state") != "Established"]

    def wait_healthy(self, timeout: float) -> list[str]:
        return poll_healthy(self.health, timeout)

    def _running_frr(self) -> DeviceConfig:
        dev = DeviceConfig(self.name, "sonic")
        parse_frr(self.fetch().get("frr.conf") or self.intended()["frr.conf"], dev)
        return dev

    def _expected_neighbors(self) -> set[str]:
        return {a for inst in self._running_frr().bgp.values() for a in inst.neighbors}

    pfc_format = "sonic"

    def pfc_in_force(self, fetched: Mapping[str, str] | None = None) -> str:
        """The lossless priorities per port as the switch runs them (``show pfc priority``)."""
        rc, out = self._run("show pfc priority", timeout=60)
        if rc != 0:
            raise RuntimeError(f"{self.name}: show pfc priority failed ({out.strip()[-160:]})")
        return out

    route_format = "frr"

    def bgp_routes(self, vrf: str | None = None) -> str:
        command = frr_route_command(vrf)
        rc, out = self._run(self._vtysh("-c", f"'{command}'"), timeout=60)
        if rc != 0:
            raise RuntimeError(f"{self.name}: {command} failed ({out.strip()[-160:]})")
        return out

    def drain(self, vrf: str | None = None) -> None:
        """Prepend our ASN on everything the out-policies advertise, in FRR's running configuration
        (as on the other platforms); the next replace takes it away."""
        self._prepend(True, vrf)

    def undrain(self, vrf: str | None = None) -> None:
        self._prepend(False, vrf)

    def _prepend(self, drain: bool, vrf: str | None) -> None:
        cmds = ["configure terminal", *prepend_commands(self._running_frr(), drain, vrf)]
        self._must(self._vtysh(*(f"-c {shlex.quote(c)}" for c in cmds)), "drain" if drain else "undrain")
        self._run(self._vtysh("-c", "'clear bgp * soft out'"))

    # -- firmware (FirmwareDriver) -------------------------------------------------------------------
    def running_version(self) -> str:
        rc, out = self._run("show version")
        m = re.search(r"SONiC Software Version:\s*SONiC\.(\S+)", out)
        return m.group(1) if rc == 0 and m else ""

    def install_image(self, image: str) -> None:
        """``sonic-installer install``: the image is fetched, installed beside the running one and set
        to boot next; the running system is untouched until reboot()."""
        url = image_url(self.host, image)
        self._must(f"sudo sonic-installer install -y {shlex.quote(url)}", "sonic-installer install", timeout=1800)

    def reboot(self) -> None:
        try:
            self._run("sudo reboot", timeout=10)
        except Exception:  # noqa: BLE001  (the connection ends with the switch: expected)
            pass
