"""Cumulus Linux (and every FRR switch of the twin) over SSH with netmiko's ``linux`` driver.

Push: upload the rendered files, apply frr.conf with frr-reload.py (it fails, changing nothing, when
FRR rejects a line) and the interfaces file with ifreload (ifup in the twin's namespace), keep
the previous files (the caller backs them up first) so rollback is a push of the backup."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dualrail_net.deploy.credentials import named_secrets, substitute_secrets
from dualrail_net.deploy.drivers.base import (
    PushRejected,
    frr_route_command,
    image_url,
    poll_healthy,
    prepend_commands,
    run_shell,
    sftp_upload,
    unified_diff,
)
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.twin.translate import ifup_privately, without_management
from dualrail_net.verify.parsers.frr import parse_frr

FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
# the files a Cumulus switch takes, by the deploy_paths key of their location
MANAGED = (("frr.conf", "frr_conf"), ("interfaces", "interfaces"), ("qos_features.conf", "qos"),
           ("ntp.conf", "ntp"), ("rsyslog.conf", "syslog"), ("resolv.conf", "resolv"), ("tacplus_servers", "tacacs"))
STAGED, PREVIOUS = ".dualrail-new", ".dualrail-prev"
SECRET_FILES = ("tacplus_servers",)  # files that hold a filled-in secret on the switch
REVERT_SCRIPT, REVERT_TOKEN, REVERT_PID = "revert.sh", "revert-pending", "revert.pid"


class CumulusDriver:
    # (file name, the deploy_paths key of its location) of every file the device takes
    managed_files: tuple[tuple[str, str], ...] = MANAGED

    def __init__(self, host: Any, connection: Any) -> None:
        self.host = host
        self.name: str = host.name
        self.conn = connection
        self.paths: dict[str, str | None] = host.data["paths"]
        self.twin = self.paths.get("vty_socket") is not None

    # -- helpers ---------------------------------------------------------------------------------
    def _run(self, command: str, timeout: float = 30) -> tuple[int, str]:
        return run_shell(self.conn, command, timeout)

    def _vtysh(self) -> str:
        sock = self.paths.get("vty_socket")
        return f"vtysh --vty_socket {sock}" if sock else "vtysh"

    def _upload(self, text: str, dest: str) -> None:
        # the TACACS+ file holds its key once pushed: owner-only, as the tacplus client keeps it
        secret = Path(dest).name.startswith(SECRET_FILES)
        sftp_upload(self.conn, text, dest, self.name, 0o600 if secret else None)

    # -- what is managed ---------------------------------------------------------------------------
    def _managed(self) -> list[tuple[str, str]]:
        """(file name, path on the device) of every file this device takes. In the twin a file its
        twin folder does not hold is not managed (an EOS device's Cumulus substitute has no
        qos_features.conf); qos_features.conf is placed there but nothing reads it (no switchd)."""
        folder = Path(self.host.data["twin_dir"]) if self.twin else None
        return [(name, str(self.paths[key])) for name, key in self.managed_files
                if self.paths.get(key) and (folder is None or (folder / name).exists())]

    def _state(self, name: str) -> str:
        return f"{self.paths.get('state_dir') or '/var/lib/dualrail'}/{name}"

    # -- driver API ------------------------------------------------------------------------------
    def intended(self) -> dict[str, str]:
        folder = Path(self.host.data["twin_dir"] if self.twin else self.host.data["device_dir"])
        files = {name: (folder / name).read_text() for name, _path in self._managed()}
        if self.twin and "interfaces" in files:  # the twin has its own management network (twin up)
            files["interfaces"] = without_management(files["interfaces"])
        for name in [n for n, text in files.items() if "${secret:" in text]:  # the TACACS+ key
            files[name] = substitute_secrets(files[name], named_secrets(), f"{self.name} {name}")
        return files

    def fetch(self) -> dict[str, str]:
        out = {}
        for name, path in self._managed():
            rc, text = self._run(f"cat {path}")
            out[name] = text.lstrip("\n") if rc == 0 else ""
        return out

    def load(self, files: dict[str, str]) -> str:
        """Stage every file that differs as <path>.dualrail-new; return the diff against the running files."""
        running = self.fetch()
        self._staged = {name: text for name, text in files.items() if text != running.get(name)}
        for name, path in self._managed():
            if name in self._staged:
                self._upload(self._staged[name], path + STAGED)
        return unified_diff(running, {**running, **files})

    def commit(self, revert_after: float) -> None:
        """Keep the running files as <path>.dualrail-prev, apply the staged ones, then arm a revert job
        on the switch: unless confirm() removes its token within ``revert_after`` seconds, it puts the
        previous files back and applies them (the switch reverts itself; no session needed)."""
        staged = getattr(self, "_staged", {})
        paths = dict(self._managed())
        self._run(f"mkdir -p {self._state('')}")
        for name, path in paths.items():
            self._run(f"cp -p {path} {path}{PREVIOUS} 2>/dev/null || : > {path}{PREVIOUS}")
        try:
            self._apply({name: text for name, text in staged.items() if name in paths}, from_staged=True)
        except PushRejected:
            self._revert_now(paths)
            raise
        self._upload(self._revert_script(paths), self._state(REVERT_SCRIPT))
        token, pidfile = self._state(REVERT_TOKEN), self._state(REVERT_PID)
        rc, out = self._run(f"touch {token} && (nohup sh -c 'sleep {max(1, int(revert_after))}; "
                            f"sh {self._state(REVERT_SCRIPT)}' >/dev/null 2>&1 & echo $! > {pidfile})")
        if rc != 0:
            self._revert_now(paths)
            raise PushRejected(f"{self.name}: cannot arm the revert timer: {out.strip()[-200:]}")
        self._staged = {}

    def confirm(self) -> None:
        pidfile = self._state(REVERT_PID)
        rc, out = self._run(f"rm -f {self._state(REVERT_TOKEN)} && {{ kill $(cat {pidfile}) 2>/dev/null; "
                            f"rm -f {pidfile}; true; }}")
        if rc != 0:
            raise PushRejected(f"{self.name}: confirm failed: {out.strip()[-200:]}")

    def discard(self) -> None:
        paths = dict(self._managed())
        rc, _ = self._run(f"test -f {self._state(REVERT_TOKEN)}")
        if rc == 0:  # committed and not confirmed: revert now instead of waiting for the timer
            self._run(f"kill $(cat {self._state(REVERT_PID)}) 2>/dev/null; true")
            self._revert_now(paths)
        for path in paths.values():
            self._run(f"rm -f {path}{STAGED}")
        self._staged = {}

    def rollback(self, files: dict[str, str]) -> None:
        self._apply(files, from_staged=False)

    def _revert_now(self, paths: dict[str, str]) -> None:
        self._upload(self._revert_script(paths), self._state(REVERT_SCRIPT))
        rc, out = self._run(f"touch {self._state(REVERT_TOKEN)} && sh {self._state(REVERT_SCRIPT)}", timeout=300)
        if rc != 0:
            raise PushRejected(f"{self.name}: revert failed: {out.strip()[-300:]}")

    def _revert_script(self, paths: dict[str, str]) -> str:
        """The script the switch runs to put the previous files back (by the timer or by discard):
        a no-op once confirm() has removed its token."""
        lines = ["#!/bin/sh", f"[ -f {self._state(REVERT_TOKEN)} ] || exit 0", f"rm -f {self._state(REVERT_TOKEN)}"]
        for name, path in paths.items():
            lines.append(f"cp -p {path}{PREVIOUS} {path}")
            lines += self._apply_commands(name, path)
        lines.append("exit 0")
        return "\n".join(lines) + "\n"

    def _frr_reload(self, path: str) -> str:
        """frr-reload.py applying ``path`` (in the twin: against the namespace's private daemons)."""
        opts = ""
        if self.twin:
            d = self.paths["frr_dir"]
            opts = f" --bindir /usr/bin --confdir {d} --rundir {d} --vty_socket {self.paths['vty_socket']}"
        return f"python3 {FRR_RELOAD} --reload --stdout{opts} {path}"

    def _apply_commands(self, name: str, path: str) -> list[str]:
        """Shell lines that make the device run ``path`` (file ``name``)."""
        if name == "frr.conf":
            out = [f"{self._frr_reload(path)} >/dev/null 2>&1"]
            if self.twin:  # frr-reload removes the twin's runtime settings: put them back
                out.append(self._twin_settings_command())
            return out
        if name == "interfaces":
            if self.twin:
                return [f"{ifup_privately(path)} >/dev/null 2>&1"]
            return ["ifreload -a >/dev/null 2>&1"]
        if name == "qos_features.conf":
            return [] if self.twin else ["systemctl reload switchd.service >/dev/null 2>&1"]
        if name == "ntp.conf":  # placed in the twin (nothing runs ntpsec there)
            return [] if self.twin else ["systemctl restart ntpsec@mgmt.service >/dev/null 2>&1"]
        if name == "rsyslog.conf":
            return [] if self.twin else ["systemctl restart rsyslog.service >/dev/null 2>&1"]
        return []

    def _apply(self, files: dict[str, str], from_staged: bool) -> None:
        """Make the device run ``files`` (those that differ from what runs): frr-reload applies
        nothing of a file FRR refuses; interfaces and QoS are applied by their own services."""
        running = self.fetch()
        for name, path in self._managed():
            if name not in files or files[name] == running.get(name):
                continue
            staged = path + STAGED
            if not from_staged:
                self._upload(files[name], staged)
            if name == "frr.conf":
                rc, out = self._run(self._frr_reload(staged), timeout=300)
                # "Failed to execute" lines are frr-reload retrying shorter "no" forms; the exit code and
                # its own validation message are what say the new file was refused.
                if rc != 0 or "vtysh failed to process new configuration" in out:
                    self._run(f"rm -f {staged}")
                    raise PushRejected(f"{self.name}: FRR rejected the config: {out.strip()[-300:]}")
                self._run(f"mv {staged} {path}")
                if self.twin:
                    self._restore_twin_settings()
                continue
            self._run(f"mv {staged} {path}")
            command = " && ".join(c.replace(" >/dev/null 2>&1", "") for c in self._apply_commands(name, path))
            if not command:
                continue  # placed; nothing on this device reads it at once (the twin's QoS file)
            rc, out = self._run(command, timeout=300)
            if rc != 0:
                raise PushRejected(f"{self.name}: {name} reload failed: {out.strip()[-300:]}")

    def _restore_twin_settings(self) -> None:
        self._run(self._twin_settings_command())

    def _twin_settings_command(self) -> str:
        """The twin's runtime settings (its <daemon>-twin.conf start-up files) are not part of the
        rendered config, so frr-reload removes them: this shell line puts them back (run by the
        driver after an apply, and by the revert script on the switch)."""
        return (f"cat {self.paths['frr_dir']}/*-twin.conf 2>/dev/null | while read -r l; do "
                f"[ -n \"$l\" ] && {self._vtysh()} -c 'configure terminal' -c \"$l\" >/dev/null; done; true")

    def health(self) -> list[str]:
        rc, out = self._run(f"{self._vtysh()} -c 'show bgp summary json'")
        try:
            peers = json.loads(out).get("ipv4Unicast", {}).get("peers", {})
        except json.JSONDecodeError:
            return [f"{self.name}: cannot read BGP state ({out.strip()[:100]})"]
        expected = self._expected_neighbors()
        problems = [f"{self.name}: {addr} is {peers.get(addr, {}).get('state', 'not configured')}"
                    for addr in sorted(expected) if peers.get(addr, {}).get("state") != "Established"]
        return problems

    def wait_healthy(self, timeout: float) -> list[str]:
        return poll_healthy(self.health, timeout)

    route_format = "frr"

    def bgp_routes(self, vrf: str | None = None) -> str:
        """One VRF's BGP routes as FRR prints them in JSON (the live audit's ECMP width)."""
        command = frr_route_command(vrf)
        rc, out = self._run(f"{self._vtysh()} -c '{command}'", timeout=60)
        if rc != 0:
            raise RuntimeError(f"{self.name}: {command} failed ({out.strip()[-160:]})")
        return out

    def _expected_neighbors(self) -> set[str]:
        # the neighbors of the file the switch runs now: a staged push (one VRF of a gateway) or a
        # pre-change check must not wait for sessions only the final file configures
        dev = DeviceConfig(self.name, "cumulus")
        parse_frr(self.fetch().get("frr.conf") or self.intended()["frr.conf"], dev)
        return {a for inst in dev.bgp.values() for a in inst.neighbors}

    # -- firmware ----------------------------------------------------------------------------------
    def firmware_marker(self) -> str:
        return f"{self.paths['frr_dir']}/firmware-version"

    def running_version(self) -> str:
        """Twin: its version marker. A real switch: the release it booted (/etc/lsb-release)."""
        if self.twin:
            rc, out = self._run(f"cat {self.firmware_marker()}")
            return out.strip() if rc == 0 else ""
        rc, out = self._run("cat /etc/lsb-release")
        m = re.search(r"^DISTRIB_RELEASE=\s*\"?([^\"\s]+)", out, re.M)
        return m.group(1) if rc == 0 and m else ""

    def install_image(self, image: str) -> None:
        """Twin: an image is a version marker. A real switch: Cumulus's optimized image upgrade
        (it keeps /etc: our files survive), fetched from the playbook's URL for this platform, then
        set to boot next; reboot() boots it."""
        if self.twin:
            rc, out = self._run(f"printf '%s\\n' '{image}' > {self.firmware_marker()}.new")
            if rc != 0:
                raise PushRejected(f"{self.name}: cannot stage image {image}: {out.strip()[:200]}")
            return
        url = image_url(self.host, image)
        name = url.rsplit("/", 1)[-1]
        for command, what in ((f"nv action fetch system image {url}", "fetch"),
                              (f"nv action install system image files {name} force", "install")):
            rc, out = self._run(command, timeout=1800)
            if rc != 0 or re.search(r"(?i)\b(error|failed)\b", out):
                raise PushRejected(f"{self.name}: image {what} failed: {out.strip()[-200:]}")

    def reboot(self) -> None:
        """Twin: restart the routing daemons (the sessions really drop); the staged image becomes
        the running version when the box comes back. A real switch reboots into the installed image
        (the connection drops; the runner's post-check reconnects and waits for it)."""
        if not self.twin:
            self._run("nv action reboot system no-confirm >/dev/null 2>&1 &", timeout=30)
            return
        marker = self.firmware_marker()
        self._run(f"[ -f {marker}.new ] && mv {marker}.new {marker} || true")
        rc, out = self._run(f"sh {self.paths['frr_dir']}/restart-routing.sh", timeout=120)
        if rc != 0:
            raise PushRejected(f"{self.name}: restart failed: {out.strip()[-200:]}")

    def drain(self, vrf: str | None = None) -> None:
        """Make the fabric route around this switch before it changes: prepend our ASN three times
        on everything we advertise (the rendered out-policy still filters first). Committing the
        rendered config afterwards removes the drain too (it has no prepend)."""
        self._prepend(drain=True, vrf=vrf)

    def undrain(self, vrf: str | None = None) -> None:
        self._prepend(drain=False, vrf=vrf)

    def _prepend(self, drain: bool, vrf: str | None = None) -> None:
        # the route-maps the switch runs now (the new file's may have entries it does not have yet:
        # a prepend on one of those would create a match-all entry)
        dev = DeviceConfig(self.name, "cumulus")
        parse_frr(self.fetch().get("frr.conf") or self.intended()["frr.conf"], dev)
        cmds = ["configure terminal", *prepend_commands(dev, drain, vrf)]
        args = " ".join(f"-c '{c}'" for c in cmds)
        rc, out = self._run(f"{self._vtysh()} {args}")
        if rc != 0:
            raise PushRejected(f"{self.name}: {'drain' if drain else 'undrain'} failed: {out.strip()[:200]}")
        self._run(f"{self._vtysh()} -c 'clear bgp * soft out'")
