"""``TwinGatewayDriver``: the test double that stands for a multi-plane switch (a gateway) in the
twin, named as one.

The twin has no kernel VRFs, so each VRF of a gateway runs in its own namespace with its own FRR,
from a mechanical translation of the device's files (twin/translate.py). A deploy, however, treats
the gateway as one device with one set of files. This driver bridges the two without pretending:

* the device's whole files are recorded in the twin (``gateway_record``; written by ``twin up``,
  updated by every commit, confirm, discard and rollback) and are what ``fetch`` returns;
* each push translates the whole files per VRF and hands each translation to a real
  ``CumulusDriver`` on that VRF's namespace (frr-reload, ifup, revert timer on the "switch"), so
  a stage that changes one VRF changes exactly that namespace's FRR;
* a drain, the health and the revert timers are those of the VRF namespaces.

A VRF namespace whose own timer reverted an unconfirmed commit is noticed by ``fetch`` (its files
no longer translate from the record, but from the record before the commit), which then takes the
record back as well."""

from __future__ import annotations

import base64
import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dualrail_net.deploy.drivers.base import PushRejected, poll_healthy, unified_diff
from dualrail_net.platforms.cumulus.driver import CumulusDriver
from dualrail_net.twin.translate import frr_for_vrf, interfaces_for_vrf, without_management

RECORD = "gateway-record"
FILES = ("frr.conf", "interfaces", "qos_features.conf", "ntp.conf", "rsyslog.conf", "resolv.conf")
PREVIOUS, PENDING = ".prev", "pending"


def record_dir(device_rundir: Path) -> Path:
    """Where the twin keeps a gateway's whole files (beside its VRF namespaces' folders)."""
    return device_rundir / RECORD


def write_record(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def translate(files: dict[str, str], vrf: str) -> dict[str, str]:
    """What one VRF's namespace runs of the device's whole files (QoS and services stay device-wide)."""
    out = {}
    if "frr.conf" in files:
        out["frr.conf"] = frr_for_vrf(files["frr.conf"], vrf)
    if "interfaces" in files:
        out["interfaces"] = interfaces_for_vrf(without_management(files["interfaces"]), vrf)
    return out


class _InNamespace:
    """A netmiko session whose shell commands run in another network namespace of the twin (the
    VRF namespaces other than the one whose sshd took the session)."""

    def __init__(self, conn: Any, ns: str) -> None:
        self._conn, self._ns = conn, ns

    def send_command(self, command: str, **kwargs: Any) -> Any:
        # base64: no quoting of the command inside the line; no echo check (the long line wraps)
        encoded = base64.b64encode(command.encode()).decode()
        return self._conn.send_command(f"echo {encoded} | base64 -d | ip netns exec {shlex.quote(self._ns)} sh",
                                       **{**kwargs, "cmd_verify": False})

    def __getattr__(self, name: str) -> Any:  # SFTP and the rest: the same session (one filesystem)
        return getattr(self._conn, name)


class TwinGatewayDriver:
    """One multi-plane switch of the twin as one device (see the module's description)."""

    def __init__(self, host: Any, connection: Any) -> None:
        self.host = host
        self.name: str = host.name
        self.conn = connection
        vrfs: dict[str, dict[str, str]] = host.data["twin_vrfs"]  # VRF -> {"ns", "rundir", "own"}
        self.record = Path(host.data["twin_record"])
        self.subs: dict[str, CumulusDriver] = {}
        for vrf, where in vrfs.items():
            rd = where["rundir"]
            sub_host = SimpleNamespace(name=f"{self.name}[{vrf}]", data={
                "paths": {"frr_conf": f"{rd}/frr.conf", "interfaces": f"{rd}/interfaces", "frr_dir": rd,
                          "vty_socket": rd, "state_dir": rd},
                "twin_dir": host.data["device_dir"], "device_dir": host.data["device_dir"]})
            conn = connection if where.get("own") == "yes" else _InNamespace(connection, where["ns"])
            self.subs[vrf] = CumulusDriver(sub_host, conn)
        self._pending: dict[str, str] | None = None

    # -- the record of the whole device ------------------------------------------------------------
    def _read(self, suffix: str = "") -> dict[str, str]:
        return {name: (self.record / (name + suffix)).read_text() for name in FILES
                if (self.record / (name + suffix)).exists()}

    def _write(self, files: dict[str, str], suffix: str = "") -> None:
        write_record(self.record, {name + suffix: text for name, text in files.items()})

    def _vrf_files(self, vrf: str) -> dict[str, str]:
        return {name: text for name, text in self.subs[vrf].fetch().items() if name in ("frr.conf", "interfaces")}

    # -- driver contract -----------------------------------------------------------------------------
    def intended(self) -> dict[str, str]:
        folder = Path(self.host.data["device_dir"])
        files = {name: (folder / name).read_text() for name in FILES if (folder / name).exists()}
        if "interfaces" in files:  # the twin has its own management network
            files["interfaces"] = without_management(files["interfaces"])
        return files

    def fetch(self) -> dict[str, str]:
        current = self._read()
        if (self.record / PENDING).exists():
            before = self._read(PREVIOUS)
            if all(self._vrf_files(v) == translate(before, v) for v in self.subs) and \
                    any(self._vrf_files(v) != translate(current, v) for v in self.subs):
                self._write(before)  # every namespace's own timer took the commit back
                (self.record / PENDING).unlink()
                return before
        return current

    def load(self, files: dict[str, str]) -> str:
        running = self.fetch()
        self._pending = dict(files)
        return unified_diff(running, {**running, **files})

    def commit(self, revert_after: float) -> None:
        files = self._pending or {}
        before = self.fetch()
        done: list[CumulusDriver] = []
        try:
            for vrf, sub in self.subs.items():
                wanted = translate(files, vrf)
                if wanted != self._vrf_files(vrf):
                    sub.load(wanted)
                    sub.commit(revert_after)
                    done.append(sub)
        except PushRejected:
            for sub in done:
                sub.discard()
            raise
        self._write(before, PREVIOUS)
        self._write({**before, **files})
        (self.record / PENDING).write_text("")
        self._committed = done
        self._pending = None

    def confirm(self) -> None:
        for sub in getattr(self, "_committed", []):
            sub.confirm()
        self._committed = []
        (self.record / PENDING).unlink(missing_ok=True)

    def discard(self) -> None:
        for sub in getattr(self, "_committed", []):
            sub.discard()
        self._committed = []
        if (self.record / PENDING).exists():
            self._write(self._read(PREVIOUS))
            (self.record / PENDING).unlink()
        self._pending = None

    def rollback(self, files: dict[str, str]) -> None:
        for vrf, sub in self.subs.items():
            sub.rollback(translate(files, vrf))
        self._write(files)
        (self.record / PENDING).unlink(missing_ok=True)

    def health(self) -> list[str]:
        return [problem for sub in self.subs.values() for problem in sub.health()]

    route_format = "frr"

    def bgp_routes(self, vrf: str | None = None) -> str:
        """A VRF's routes: inside its own namespace they are the default VRF's."""
        if vrf not in self.subs:
            raise RuntimeError(f"{self.name}: no VRF {vrf!r} in the twin (it has {', '.join(sorted(self.subs))})")
        return self.subs[vrf].bgp_routes()

    def wait_healthy(self, timeout: float) -> list[str]:
        return poll_healthy(self.health, timeout)

    def drain(self, vrf: str | None = None) -> None:
        # inside its namespace a VRF's instance is the default one: drain all of that namespace
        for name, sub in self.subs.items():
            if vrf is None or name == vrf:
                sub.drain()

    def undrain(self, vrf: str | None = None) -> None:
        for name, sub in self.subs.items():
            if vrf is None or name == vrf:
                sub.undrain()
