"""TEST DOUBLE: a stateful simulator of an EOS switch's configuration sessions, for the driver and the
runner. No EOS runs on this machine; this models the behaviour the deploy path depends on, not a
canned "ok":

* a running-config, and named configuration sessions (``configure session NAME`` starts one from the
  running-config; ``rollback clean-config`` empties it; each further line is checked and added, an
  unknown top-level command answered ``% Invalid input``, as EOS's parser does);
* ``show session-config diffs`` (a unified diff, running -> session);
* ``commit timer HH:MM:SS``: the session becomes the running-config, and unless ``configure session
  NAME commit`` confirms it before the timer ends, the switch puts the previous running-config back
  by itself: the timer really expires (against ``clock``, a function returning seconds, so tests
  can move time) whether or not anyone is connected;
* ``configure session NAME abort``: drops a session, or rolls a pending commit back at once;
  ``commit`` inside a session: commits without a timer;
* ``show running-config`` and ``show ip bgp summary vrf all | json``: each neighbor of the running
  config is Established when its ``remote-as`` equals the ASN of the router really at that address
  (``peers``) and it is not shut down; otherwise Active;
* config lines sent outside a session (drain, undrain) apply to the running-config directly;
* ``show version | json``, ``install source URL`` (an ``EOS-<version>.swi`` becomes the boot image)
  and ``reload now`` (boots it; a pending commit is rolled back, as a reboot does);
* a session as a switch keeps one: ``connect()`` opens it (refused while the switch boots, for
  ``boot_seconds`` on ``clock`` after a reload); a reload ends it, and every later command on it
  fails as a closed socket does until ``connect()`` opens a new one.
"""

from __future__ import annotations

import difflib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dualrail_net.platforms.eos.parse_config import parse_eos
from dualrail_net.verify.model import DeviceConfig

# top-level commands this simulator's parser accepts (EOS accepts more; a rendered config uses these)
TOP_LEVEL = {"hostname", "interface", "ip", "router", "route-map", "vrf", "qos", "service", "management", "username",
             "ntp", "logging", "lldp", "no", "aaa", "tacacs-server", "radius-server", "snmp-server", "end",
             "transceiver", "spanning-tree", "default"}


@dataclass
class _Pending:
    session: str
    previous: list[str]
    deadline: float


@dataclass
class EosSessionSimulator:
    """TEST DOUBLE (see the module docstring): answers netmiko's ``send_command`` and
    ``send_config_set`` as one EOS switch would."""

    hostname: str
    running: list[str]
    peers: dict[str, int] = field(default_factory=dict)  # neighbor address -> the ASN really there
    clock: Callable[[], float] = time.monotonic
    sent: list[str] = field(default_factory=list)
    sessions: dict[str, list[str]] = field(default_factory=dict)
    pending: _Pending | None = None
    reverted: int = 0  # how many commits the timer rolled back
    version: str = "4.32.2F"  # the running image
    boot_image: str | None = None  # what `install source` made the next boot's image
    reloads: int = 0
    boot_seconds: float = 0.0  # a reload keeps the switch unreachable this long (on ``clock``)
    session_open: bool = True
    up_at: float = 0.0  # when the switch answers again after its last reload
    _current: str | None = None

    # -- the session ------------------------------------------------------------------------------
    def connect(self) -> EosSessionSimulator:
        """A new session (what netmiko's ConnectHandler opens); refused while the switch boots."""
        if self.clock() < self.up_at:
            raise ConnectionRefusedError(f"{self.hostname}: connection refused (booting)")
        self.session_open = True
        return self

    def _alive(self) -> None:
        if not self.session_open:
            raise OSError("Socket is closed")

    # -- time -------------------------------------------------------------------------------------
    def tick(self) -> None:
        """Let an expired commit timer do what EOS does: put the previous running-config back."""
        if self.pending is not None and self.clock() >= self.pending.deadline:
            self.running = self.pending.previous
            self.sessions.pop(self.pending.session, None)
            self.pending = None
            self.reverted += 1

    # -- netmiko's surface ------------------------------------------------------------------------
    def send_config_set(self, commands: list[str], **_: Any) -> str:
        self._alive()
        self.tick()
        out = []
        for command in commands:
            self.sent.append(command)
            m = re.fullmatch(r"configure session (\S+)", command)
            if m:
                self._current = m.group(1)
                self.sessions.setdefault(self._current, list(self.running))
                continue
            if command == "rollback clean-config" and self._current:
                self.sessions[self._current] = []
                continue
            error = self._invalid(command)
            if error:
                out.append(f"{command}\n{error}")
                continue
            if self._current is not None:
                self.sessions[self._current].append(command)
            else:
                self.running.append(command)  # config mode without a session: applies at once
        return "\n".join(out)

    def send_command(self, command: str, **_: Any) -> str:
        self._alive()
        self.sent.append(command)
        self.tick()
        if command == "show running-config":
            return "\n".join(self.running) + "\n"
        if command == "show session-config diffs":
            if self._current is None or self._current not in self.sessions:
                return "% No configuration session"
            return "".join(difflib.unified_diff([f"{x}\n" for x in self.running],
                                                [f"{x}\n" for x in self.sessions[self._current]],
                                                "system:/running-config", f"session:/{self._current}-session-config"))
        m = re.fullmatch(r"commit timer (\d\d):(\d\d):(\d\d)", command)
        if m:
            return self._commit(int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)))
        if command == "commit":
            return self._commit(None)
        m = re.fullmatch(r"configure session (\S+) (commit|abort)", command)
        if m:
            return self._confirm(m.group(1)) if m.group(2) == "commit" else self._abort(m.group(1))
        if command == "show ip bgp summary vrf all | json":
            return json.dumps(self._bgp_summary())
        if command == "show version | json":
            return json.dumps({"version": self.version, "modelName": "DCS-7060X6-64PE"})
        m = re.fullmatch(r"install source (\S+)", command)
        if m:  # copies the image to flash and makes it the boot image
            found = re.search(r"EOS-([A-Za-z0-9.]+)\.swi$", m.group(1))
            if not found:
                return "% Error: not an EOS image"
            self.boot_image = found.group(1)
            return "Copy completed successfully.\nInstallation succeeded.\n"
        if command == "reload now":  # boots the boot image; an uncommitted session and a pending timer die
            self.version = self.boot_image or self.version
            self.reloads += 1
            self.sessions.clear()
            if self.pending is not None:
                self.running = self.pending.previous
                self.pending = None
            self._current = None
            self.session_open = False  # the session ends with the switch
            self.up_at = self.clock() + self.boot_seconds
            raise OSError("Socket is closed")
        return f"% Invalid input (the simulator does not know {command!r})"

    # -- behaviour --------------------------------------------------------------------------------
    def _invalid(self, line: str) -> str:
        words = line.split()
        if not words or line.startswith((" ", "!")):
            return ""
        return "" if words[0] in TOP_LEVEL else "% Invalid input"

    def _commit(self, timer: int | None) -> str:
        name = self._current
        if name is None or name not in self.sessions:
            return "% No configuration session"
        if self.pending is not None and self.pending.session != name:
            return "% Another session has a pending commit"
        previous = self.pending.previous if self.pending is not None else list(self.running)
        self.running = list(self.sessions[name])
        self.pending = _Pending(name, previous, self.clock() + timer) if timer is not None else None
        if timer is None:
            del self.sessions[name]
            self._current = None
        return ""

    def _confirm(self, name: str) -> str:
        if self.pending is not None and self.pending.session == name:
            self.pending = None
            self.sessions.pop(name, None)
            self._current = None
            return ""
        if name in self.sessions:  # never committed: commit now
            self._current = name
            return self._commit(None)
        return f"% Session {name} not found (a commit timer that ran out has rolled it back)"

    def _abort(self, name: str) -> str:
        if self.pending is not None and self.pending.session == name:
            self.running = self.pending.previous
            self.pending = None
        self.sessions.pop(name, None)
        if self._current == name:
            self._current = None
        return ""

    def _bgp_summary(self) -> dict[str, Any]:
        dev = DeviceConfig(self.hostname, "eos")
        parse_eos("\n".join(self.running), dev)
        vrfs: dict[str, Any] = {}
        for vrf, inst in dev.bgp.items():
            peers = {}
            for address, n in inst.neighbors.items():
                up = self.peers.get(address) == n.remote_asn and n.remote_asn is not None
                peers[address] = {"peerState": "Established" if up else "Active", "asn": str(n.remote_asn)}
            for address in inst.shut_neighbors:
                peers[address] = {"peerState": "Idle", "asn": "", "peerStateIdleReason": "Admin"}
            vrfs[vrf or "default"] = {"peers": peers, "asn": str(inst.asn)}
        return {"vrfs": vrfs}
