"""The contract between render and every later stage: ``manifest.json``, typed.

Render writes it (``Manifest.dumps``); verify, the twin, deploy, the IB checks and the Batfish export
read it (``Manifest.load``) instead of walking a JSON dict by string keys. The default paths of the
rendered folder are defined here, once.

Reading is strict: a manifest that is not what render writes (a hand edit, another tool's file) is a
``ManifestError`` naming the first field that is wrong, never a KeyError deep in a later stage.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from dualrail_net.outdir import read_owned

MANIFEST_FILE = "manifest.json"
CABLING_FILE = "resolved/cabling.csv"
RESOLVED_FILE = "resolved/fabric.json"
TWIN_SUBSTITUTES = "twin-substitutes"
STAMP_FILE = "verified.json"  # the verification stamp verify leaves beside the files (verify/stamp.py)
DEFAULT_OUTPUT = Path("build")


class ManifestError(Exception):
    """The rendered folder has no usable manifest; the message says where and why."""


@dataclass(frozen=True, slots=True)
class DeviceEntry:
    role: str
    plane: str | None  # None: a device in several planes (one VRF each)
    planes: list[str]
    platform: str
    firmware: str
    model: str
    mgmt_address: str | None
    dir: str  # its rendered folder, relative to the output folder
    files: list[str]
    twin_dir: str  # the folder the twin runs (its own, or its twin substitute's)


@dataclass(frozen=True, slots=True)
class ServerPortEntry:
    """One NIC port of a server as the plan has it (what the host checks compare the files with)."""

    ifname: str
    rdma_device: str
    plane: str
    rail: int


@dataclass(frozen=True, slots=True)
class ServerEntry:
    dir: str
    planes: list[str]
    files: list[str]
    ports: list[ServerPortEntry] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class IbSwitchEntry:
    role: str
    guid: str


@dataclass(frozen=True, slots=True)
class IbPlaneEntry:
    dir: str
    subnet_prefix: str
    sm_host: str
    sm_guid: str
    config_dir: str
    switches: dict[str, IbSwitchEntry]
    hosts: dict[str, str]  # server -> its port GUID in this plane
    # port GUID -> {P_Key (15 bits, hex): membership}: what the SM must program
    expected_pkeys: dict[str, dict[str, str]]


@dataclass(frozen=True, slots=True)
class QosMarkers:
    """The markers verification needs to tell RoCE data from CNPs in rendered QoS maps."""

    roce_dscp: int
    cnp_dscp: int


@dataclass(frozen=True)
class Manifest:
    generator: str
    fabric: str
    planes: list[str]
    routed_prefixes: dict[str, list[str]]
    pools: dict[str, dict[str, str]]
    qos_markers: dict[str, QosMarkers]
    devices: dict[str, DeviceEntry]
    servers: dict[str, ServerEntry]
    ib_planes: dict[str, IbPlaneEntry]
    cabling: str = CABLING_FILE

    def dumps(self) -> str:
        return json.dumps(asdict(self), indent=1) + "\n"

    @classmethod
    def loads(cls, text: str | bytes, source: str = MANIFEST_FILE) -> Manifest:
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise ManifestError(f"{source}: not JSON ({exc})") from None
        return _build(cls, doc, source)

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        """The manifest of a rendered folder (read without following links)."""
        try:
            data = read_owned(folder, MANIFEST_FILE)
        except FileNotFoundError:
            data = None
        except OSError as exc:
            raise ManifestError(f"{folder / MANIFEST_FILE}: {exc.strerror or exc}") from None
        if data is None:
            raise ManifestError(f"{folder / MANIFEST_FILE} not found: run `dualrail render` first")
        return cls.loads(data, str(folder / MANIFEST_FILE))

    def cabling_path(self, folder: Path) -> Path:
        return folder / self.cabling

    def plane_of(self, device: str) -> str | None:
        entry = self.devices.get(device)
        return entry.plane if entry is not None else None


T = TypeVar("T")

_NESTED: dict[tuple[type, str], type] = {
    (Manifest, "qos_markers"): QosMarkers,
    (Manifest, "devices"): DeviceEntry,
    (Manifest, "servers"): ServerEntry,
    (Manifest, "ib_planes"): IbPlaneEntry,
    (IbPlaneEntry, "switches"): IbSwitchEntry,
}
_NESTED_LISTS: dict[tuple[type, str], type] = {(ServerEntry, "ports"): ServerPortEntry}


def _build(cls: type[T], doc: Any, where: str) -> T:
    """``cls`` from a JSON object, checking every field is present with the right shape."""
    if not isinstance(doc, dict):
        raise ManifestError(f"{where}: expected an object")
    values: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in doc:
            if f.default is not MISSING or f.default_factory is not MISSING:
                continue
            raise ManifestError(f"{where}: field {f.name!r} is missing")
        value = doc[f.name]
        nested = _NESTED.get((cls, f.name))
        listed = _NESTED_LISTS.get((cls, f.name))
        if listed is not None:
            if not isinstance(value, list):
                raise ManifestError(f"{where}.{f.name}: expected a list")
            value = [_build(listed, v, f"{where}.{f.name}[{i}]") for i, v in enumerate(value)]
        elif nested is not None:
            if not isinstance(value, dict):
                raise ManifestError(f"{where}.{f.name}: expected an object")
            value = {str(k): _build(nested, v, f"{where}.{f.name}.{k}") for k, v in value.items()}
        elif not _shape_ok(value, str(f.type)):
            raise ManifestError(f"{where}.{f.name}: {value!r:.60} is not a {f.type}")
        values[f.name] = value
    unknown = set(doc) - {f.name for f in fields(cls)}  # type: ignore[arg-type]
    if unknown:
        raise ManifestError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    return cls(**values)


def _shape_ok(value: Any, annotation: str) -> bool:
    """A light check of a JSON value against the annotation text of a field."""
    if annotation.endswith("| None") and value is None:
        return True
    base = annotation.removesuffix(" | None")
    if base == "str":
        return isinstance(value, str)
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if base.startswith("list["):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if base.startswith("dict["):
        return isinstance(value, dict)
    return True


__all__ = ["CABLING_FILE", "DEFAULT_OUTPUT", "MANIFEST_FILE", "RESOLVED_FILE", "TWIN_SUBSTITUTES", "DeviceEntry",
           "IbPlaneEntry", "IbSwitchEntry", "Manifest", "ManifestError", "QosMarkers", "ServerEntry", "ServerPortEntry"]
