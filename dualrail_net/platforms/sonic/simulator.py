"""TEST DOUBLE: a stateful simulator of a SONiC switch's configuration commands, for the driver and
the runner. No SONiC runs on this machine; this models the behaviour the deploy path depends on,
not a canned "ok":

* a running config_db (what Redis holds) and a saved one (/etc/sonic/config_db.json, what a reboot
  loads); ``sonic-cfggen -d --print-data`` prints the running one;
* ``config replace [--dry-run] FILE``: refuses what SONiC's YANG validation refuses in the tables a
  rendered file has (not JSON, a table that is not an object, a PORT without lanes or with a
  non-numeric MTU, an INTERFACE/PORT_QOS_MAP/QUEUE/BUFFER_PG/PFC_WD/CABLE_LENGTH entry for a port
  PORT does not have, a VRF not named Vrf*, a map or profile reference to nothing), else replaces
  the running config; ``config checkpoint|rollback|delete-checkpoint NAME``; ``config save -y``;
* FRR in the bgp container: ``vtysh --dryrun -f`` runs the real vtysh of this machine on the file;
  frr-reload.py makes the file the running FRR config (refused, changing nothing, when vtysh
  refuses it); ``show bgp summary json``: a neighbor of the running frr.conf is Established when its
  remote-as is the ASN really at that address (``peers``) and it is not shut down;
* transient systemd units (``systemd-run --on-active=N``): the timer really expires (against
  ``clock``, so tests move time) and runs its command through this same simulator, connected or
  not; ``systemctl is-active|stop|start``;
* files, ``cp``/``mv``/``rm``/``mkdir``/``cat``, SFTP uploads (``remote_conn_pre.open_sftp``);
* ``show pfc priority`` (the running PORT_QOS_MAP's lossless priorities, as sonic-utilities prints
  them) and ``pfc config priority on|off PORT N`` (a run-time change, unsaved);
* ``show version``, ``sonic-installer install`` (the next boot's image) and ``reboot`` (boots it;
  the running config becomes the saved one and transient timers are gone, as on a real reboot).
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualrail_net.deploy.drivers.base import split_status
from dualrail_net.deploy.drivers.sftp_double import FilesTransport
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers.frr import parse_frr
from dualrail_net.verify.parsers.files import is_decimal

SAVED = "/etc/sonic/config_db.json"
FRR_HOST_DIR = "/etc/sonic/frr"
_PORT_KEYED = ("INTERFACE", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "PFC_WD")


def yang_errors(doc: Any) -> list[str]:
    """What SONiC's YANG validation would refuse in the tables a rendered config_db has."""
    if not isinstance(doc, dict):
        return ["the configuration is not a JSON object"]
    errors = [f"table {name} is not an object" for name, table in doc.items() if not isinstance(table, dict)]
    if errors:
        return errors
    ports = doc.get("PORT", {})
    for name, port in ports.items():
        if not isinstance(port, dict) or not port.get("lanes"):
            errors.append(f"PORT {name}: lanes is mandatory")
        elif not str(port.get("mtu", "9100")).isdigit():
            errors.append(f"PORT {name}: mtu {port.get('mtu')!r} is not a number")
    for table in _PORT_KEYED:
        for key in doc.get(table, {}):
            port = key.split("|", 1)[0]
            if port not in ports and not (table == "PFC_WD" and key == "GLOBAL"):
                errors.append(f"{table} {key}: leafref to PORT {port} not found")
    for port in doc.get("CABLE_LENGTH", {}).get("AZURE", {}):
        if port not in ports:
            errors.append(f"CABLE_LENGTH {port}: leafref to PORT {port} not found")
    for name in doc.get("VRF", {}):
        if not re.fullmatch(r"Vrf[A-Za-z0-9_-]*", name):
            errors.append(f"VRF {name}: a VRF name must start with Vrf")
    maps = {"dscp_to_tc_map": "DSCP_TO_TC_MAP", "tc_to_queue_map": "TC_TO_QUEUE_MAP",
            "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP", "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE"}
    for port, entry in doc.get("PORT_QOS_MAP", {}).items():
        for field_name, table in maps.items():
            if field_name in entry and entry[field_name] not in doc.get(table, {}):
                errors.append(f"PORT_QOS_MAP {port} {field_name}: leafref to {table} {entry[field_name]} not found")
    for key, entry in doc.get("QUEUE", {}).items():
        if "scheduler" in entry and entry["scheduler"] not in doc.get("SCHEDULER", {}):
            errors.append(f"QUEUE {key} scheduler: leafref to SCHEDULER {entry['scheduler']} not found")
        if "wred_profile" in entry and entry["wred_profile"] not in doc.get("WRED_PROFILE", {}):
            errors.append(f"QUEUE {key} wred_profile: leafref to WRED_PROFILE {entry['wred_profile']} not found")
    for key, entry in doc.get("BUFFER_PG", {}).items():
        if entry.get("profile") not in doc.get("BUFFER_PROFILE", {}):
            errors.append(f"BUFFER_PG {key} profile: leafref to BUFFER_PROFILE {entry.get('profile')} not found")
    return errors


def vtysh_dryrun(text: str) -> tuple[int, str]:
    """This machine's real FRR parser on ``text`` (exit status, messages)."""
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as fh:
        fh.write(text)
        fh.flush()
        proc = subprocess.run(["vtysh", "--dryrun", "-f", fh.name], capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout + proc.stderr


@dataclass
class _Timer:
    deadline: float
    command: str


@dataclass
class SonicSimulator:
    """TEST DOUBLE (see the module docstring): answers netmiko's ``send_command`` as one SONiC
    switch's shell would, each command followed by the driver's ``echo __RC=$?``."""

    hostname: str
    running: dict[str, Any]  # the running config_db
    frr_conf: str  # /etc/sonic/frr/frr.conf, also what FRR runs at the start
    peers: dict[str, int] = field(default_factory=dict)  # neighbor address -> the ASN really there
    clock: Callable[[], float] = time.monotonic
    version: str = "202311.1"
    files: dict[str, str] = field(default_factory=dict)
    checkpoints: dict[str, dict[str, Any]] = field(default_factory=dict)
    timers: dict[str, _Timer] = field(default_factory=dict)
    sent: list[str] = field(default_factory=list)
    next_version: str | None = None
    reverts: int = 0  # revert jobs their timer ran

    def __post_init__(self) -> None:
        self.files.setdefault(SAVED, json.dumps(self.running, indent=4))
        self.files.setdefault(f"{FRR_HOST_DIR}/frr.conf", self.frr_conf)
        self.frr_running = self.frr_conf
        self.remote_conn_pre = FilesTransport(self.files)

    # -- the session -----------------------------------------------------------------------------
    def send_command(self, command: str, **_: Any) -> str:
        self.fire_timers()
        self.sent.append(command)
        body, marker = split_status(command)
        rc, out = self.shell(body)
        return f"{out}\n{marker}{rc}\n" if marker else out

    def fire_timers(self) -> None:
        now = self.clock()
        for unit, timer in list(self.timers.items()):
            if timer.deadline <= now:
                del self.timers[unit]
                self.reverts += 1
                self.shell(timer.command)

    def shell(self, command: str) -> tuple[int, str]:
        """A command line as sh runs it: `;`-separated lists of `&&` chains (quotes respected)."""
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&")
        lexer.whitespace_split = True
        rc, skipping = 0, False
        out: list[str] = []
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token not in ("&&", ";"):
                words.append(token)
                continue
            if words and not skipping:
                rc, text = self._one(words)
                if text:
                    out.append(text)
            words = []
            skipping = token == "&&" and rc != 0  # the rest of a failed && chain does not run
            if token == ";":
                skipping = False
        return rc, "\n".join(out)

    def _one(self, w: list[str]) -> tuple[int, str]:
        if w[:1] == ["sudo"]:
            w = w[1:]
        if not w:
            return 0, ""
        head = w[0]
        if head == "mkdir":
            return 0, ""
        if head == "cat":
            return (0, self.files[w[1]]) if w[1] in self.files else (1, f"cat: {w[1]}: No such file or directory")
        if head in ("cp", "mv"):
            src, dst = [a for a in w[1:] if not a.startswith("-")]
            if src not in self.files:
                return 1, f"{head}: cannot stat '{src}'"
            self.files[dst] = self.files[src] if head == "cp" else self.files.pop(src)
            return 0, ""
        if head == "rm":
            for path in [a for a in w[1:] if not a.startswith("-")]:
                self.files.pop(path, None)
            return 0, ""
        if head == "sonic-cfggen" and "--print-data" in w:
            return 0, json.dumps(self.running, indent=4)
        if head == "config":
            return self._config(w[1:])
        if head == "docker" and w[1:3] == ["exec", "bgp"]:
            return self._bgp(w[3:])
        if head in ("sh", "/bin/sh") and w[1:2] == ["-c"] and len(w) == 3:
            return self.shell(w[2])
        if head == "systemd-run":
            return self._systemd_run(w[1:])
        if head == "systemctl":
            return self._systemctl(w[1:])
        if w[:3] == ["show", "pfc", "priority"]:
            return 0, self._pfc_table(w[3:])
        if w[:3] == ["pfc", "config", "priority"] and len(w) == 6:
            return self._pfc_config(*w[3:])
        if w[:2] == ["show", "version"]:
            return 0, f"SONiC Software Version: SONiC.{self.version}\nHwSKU: simulated\n"
        if head == "sonic-installer" and w[1:2] == ["install"]:
            m = re.search(r"sonic[-_.a-z]*?(\d{6}\.\d+)\.bin$", w[-1])
            if not m:
                return 1, f"Error: {w[-1]} is not a SONiC image"
            self.next_version = m.group(1)
            return 0, "Installed. Image will be used as the default on next boot."
        if head == "reboot":
            self._boot()
            return 0, ""
        return 127, f"sh: {head}: command not found"

    # -- config ----------------------------------------------------------------------------------
    def _config(self, w: list[str]) -> tuple[int, str]:
        if w[:1] == ["replace"]:
            dry = "--dry-run" in w or "-d" in w
            path = w[-1]
            if path not in self.files:
                return 1, f"Error: {path} does not exist"
            try:
                doc = json.loads(self.files[path])
            except ValueError as exc:
                return 1, f"Error: {path} is not valid JSON: {exc}"
            errors = yang_errors(doc)
            if errors:
                return 1, "Error: Failed to apply patch: YANG validation failed: " + "; ".join(errors[:5])
            if not dry:
                self.running = doc
            return 0, "Config replaced successfully." if not dry else "Dry run: patch is valid."
        if w[:1] == ["checkpoint"] and len(w) == 2:
            self.checkpoints[w[1]] = copy.deepcopy(self.running)
            return 0, f"Checkpoint {w[1]} created successfully."
        if w[:1] == ["rollback"] and len(w) == 2:
            if w[1] not in self.checkpoints:
                return 1, f"Error: checkpoint {w[1]} does not exist"
            self.running = copy.deepcopy(self.checkpoints[w[1]])
            return 0, "Config rolled back successfully."
        if w[:1] == ["delete-checkpoint"] and len(w) == 2:
            return (0, "") if self.checkpoints.pop(w[1], None) is not None else (1, "Error: no such checkpoint")
        if w[:1] == ["save"]:
            self.files[SAVED] = json.dumps(self.running, indent=4)
            return 0, ""
        return 2, f"Error: No such command {w[:1]}"

    # -- PFC in force --------------------------------------------------------------------------------
    def _pfc_table(self, only: list[str]) -> str:
        """``show pfc priority [PORT]`` as sonic-utilities prints it: the running PORT_QOS_MAP's
        pfc_enable per port (what the switch runs, saved or not)."""
        rows = [(port, str(entry.get("pfc_enable", "")) or "N/A")
                for port, entry in sorted(self.running.get("PORT_QOS_MAP", {}).items(), key=lambda kv: _port_key(kv[0]))
                if port.startswith("Ethernet") and (not only or port in only)]
        if only and not rows:
            return f"Cannot find interface {only[0]}"
        width = max([len("Interface")] + [len(port) for port, _ in rows])
        head = f"{'Interface':<{width}}  Lossless priorities"
        lines = ["", head, f"{'-' * width}  {'-' * len('Lossless priorities')}"]
        lines += [f"{port:<{width}}  {pfc}" for port, pfc in rows]
        return "\n".join(lines) + "\n"

    def _pfc_config(self, status: str, port: str, priority: str) -> tuple[int, str]:
        """``pfc config priority on|off PORT N``: changes the running PORT_QOS_MAP (not the saved
        file: ``config save`` does)."""
        entry = self.running.get("PORT_QOS_MAP", {}).get(port)
        if status not in ("on", "off") or entry is None or not is_decimal(priority) or int(priority) > 7:
            return 1, f"Error: cannot set PFC priority {priority} {status} on {port}"
        now = {p for p in str(entry.get("pfc_enable", "")).split(",") if p}
        now = now | {priority} if status == "on" else now - {priority}
        entry["pfc_enable"] = ",".join(sorted(now, key=int))
        return 0, ""

    # -- FRR in the bgp container ----------------------------------------------------------------
    def _host_path(self, path: str) -> str:
        return path.replace("/etc/frr/", f"{FRR_HOST_DIR}/", 1) if path.startswith("/etc/frr/") else path

    def _bgp(self, w: list[str]) -> tuple[int, str]:
        if w[:1] == ["vtysh"] and "--dryrun" in w:
            path = self._host_path(w[-1])
            if path not in self.files:
                return 1, f"{path}: No such file"
            return vtysh_dryrun(self.files[path])
        if w[:1] == ["python3"] and "--reload" in w:
            text = self.files.get(self._host_path(w[-1]))
            if text is None:
                return 1, "frr-reload: no such file"
            rc, out = vtysh_dryrun(text)
            if rc != 0:
                return 1, f"vtysh failed to process new configuration: {out.strip()[-200:]}"
            self.frr_running = text
            return 0, ""
        if w[:1] == ["vtysh"] and w[1:3] == ["-c", "show bgp summary json"]:
            return 0, json.dumps({"ipv4Unicast": {"peers": self._peers()}})
        if w[:1] == ["vtysh"] and w[1:2] == ["-c"] and w[2:3] and w[2].startswith("show ip route ") \
                and w[2].endswith(" bgp json"):
            return 0, "{}"  # no route: this double runs no routing daemon
        if w[:1] == ["vtysh"] and w[1:2] == ["-c"]:
            return 0, ""  # configuration lines (drain) and `clear bgp`: accepted
        return 1, f"unknown bgp container command {' '.join(w)[:80]}"

    def _peers(self) -> dict[str, dict[str, str]]:
        dev = DeviceConfig(self.hostname, "sonic")
        parse_frr(self.frr_running, dev)
        out = {}
        for inst in dev.bgp.values():
            for address, n in inst.neighbors.items():
                up = address in self.peers and self.peers[address] == n.remote_asn
                out[address] = {"state": "Established" if up else "Active"}
        return out

    # -- systemd ---------------------------------------------------------------------------------
    def _systemd_run(self, w: list[str]) -> tuple[int, str]:
        unit = w[w.index("--unit") + 1]
        active = next(a for a in w if a.startswith("--on-active="))
        seconds = float(active.split("=", 1)[1])
        command = w[-1] if w[-3:-1] == ["/bin/sh", "-c"] else ""
        if unit in self.timers or not command:
            return 1, f"Failed to start transient timer unit: Unit {unit}.timer already exists."
        self.timers[unit] = _Timer(self.clock() + seconds, command)
        return 0, f"Running timer as unit: {unit}.timer"

    def _systemctl(self, w: list[str]) -> tuple[int, str]:
        verb, unit = w[0], w[-1]
        base = unit.rsplit(".", 1)[0]
        if verb == "is-active":
            return (0, "active") if base in self.timers else (3, "inactive")
        if verb == "stop":
            self.timers.pop(base, None) if unit.endswith(".timer") else None
            return 0, ""
        return 1, f"systemctl {verb}: not simulated"

    def _boot(self) -> None:
        if self.next_version:
            self.version, self.next_version = self.next_version, None
        self.running = json.loads(self.files[SAVED])
        self.frr_running = self.files.get(f"{FRR_HOST_DIR}/frr.conf", "")
        self.timers.clear()


def _port_key(name: str) -> tuple[str, int]:
    digits = name[len(name.rstrip("0123456789")):]
    return name[:len(name) - len(digits)], int(digits or 0)


def simulator_for(folder: Path, hostname: str, peers: dict[str, int] | None = None,
                  clock: Callable[[], float] = time.monotonic) -> SonicSimulator:
    """A simulator already running the rendered files of ``folder`` (config_db.json, frr.conf)."""
    return SonicSimulator(hostname, json.loads((folder / "config_db.json").read_text()),
                          (folder / "frr.conf").read_text(), dict(peers or {}), clock)
