"""The part of the twin's state file other stages read: how to reach its switches (deploy, plan).

``twin up`` writes ``/run/dualrail-twin/state.json``; its ``management`` section says where each
switch's sshd listens, with the twin's throwaway key and known_hosts. Deploy reads it through
``TwinManagement.load`` (typed, checked) instead of walking the JSON by string keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class TwinStateError(Exception):
    """No usable twin state: no twin is up, or it was started without a management network."""


@dataclass(frozen=True, slots=True)
class TwinHostAccess:
    ns: str  # the switch's network namespace
    address: str  # its sshd's address on the management bridge
    rundir: str  # its private FRR directory (config, vty sockets)


@dataclass(frozen=True)
class TwinManagement:
    bridge: str
    host_address: str
    hosts: dict[str, TwinHostAccess]  # device name -> how to reach it
    identity: str  # the twin's client key
    known_hosts: str  # the twin's sshd host keys

    @classmethod
    def from_dict(cls, doc: Any, source: str = "twin state") -> TwinManagement:
        try:
            hosts = {str(name): TwinHostAccess(str(h["ns"]), str(h["address"]), str(h["rundir"]))
                     for name, h in doc["hosts"].items()}
            return cls(str(doc["bridge"]), str(doc["host_address"]), hosts, str(doc["identity"]),
                       str(doc["known_hosts"]))
        except (KeyError, TypeError, AttributeError) as exc:
            raise TwinStateError(f"{source}: the management section is not what `twin up` writes ({exc})") from None

    @classmethod
    def load(cls, state_path: Path) -> TwinManagement:
        try:
            doc = json.loads(state_path.read_text())
        except (OSError, ValueError) as exc:
            raise TwinStateError(f"{state_path}: no twin state ({exc}); run `dualrail twin up` first") from None
        if not isinstance(doc, dict) or not doc.get("management"):
            raise TwinStateError(f"{state_path}: the twin has no management network (sshd)")
        return cls.from_dict(doc["management"], str(state_path))
