"""The contract between render and every later stage: ``manifest.json``, typed.

Render writes it (``Manifest.dumps``); verify, the twin, deploy, the IB checks and the Batfish export
read it (``Manifest.load``) instead of walking a JSON dict by string keys. The default paths of the
rendered folder are defined here, once.

Reading is strict: a manifest that is not what render writes (a hand edit, another tool's file) is a
``ManifestError`` naming the first field that is wrong, never a KeyError deep in a later stage.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from dualrail_net.outdir import TooLarge, read_owned

MANIFEST_FILE = "manifest.json"
CABLING_FILE = "resolved/cabling.csv"
RESOLVED_FILE = "resolved/fabric.json"
TWIN_SUBSTITUTES = "twin-substitutes"
STAMP_FILE = "verified.json"  # the verification stamp verify leaves beside the files (verify/stamp.py)
DEFAULT_OUTPUT = Path("build")
# what Manifest.load reads at most: render writes ~14 MB for a 100k-GPU fabric (docs/performance.md)
MAX_MANIFEST_BYTES = 256 << 20


class ManifestError(Exception):
    """The rendered folder has no usable manifest; the message says where and why. ``where``: the
    place inside the document (a dotted path) of an error found while reading its fields."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


@dataclass(frozen=True, slots=True)
class ExternalPeerEntry:
    """A gateway's planned eBGP peer outside the fabric (storage, the outside), in one plane's VRF:
    what verify holds the gateway's configuration to (the peer itself is not rendered)."""

    plane: str
    vrf: str | None
    name: str
    port: str  # the gateway's port toward it
    asn: int
    prefixes: list[str]  # what the plane takes from it (the plan has the gateway bring them in)


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
    # plane -> the prefixes the plan has this device originate there (what every device of the
    # plane must learn: verify's control-plane model compares the configs' outcome with it)
    originates: dict[str, list[str]] = field(default_factory=dict)
    asn: int = 0  # its planned BGP ASN (0: not known): AS-path loop prevention is part of the design
    # a multi-plane device: plane -> its VRF there (its maintenance window changes one at a time)
    vrfs: dict[str, str] = field(default_factory=dict)
    # a gateway's external peers: peer address -> the planned peering
    external: dict[str, ExternalPeerEntry] = field(default_factory=dict)


class ServerPortEntry(NamedTuple):
    """One NIC port of a server as the plan has it (what the host checks compare the files with).
    A named tuple: a 100k-GPU manifest has 100k of them, and a frozen dataclass builds 5x slower."""

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
    mgmt_address: str | None = None  # how the deploy reaches it ("198.51.100.201/24"); None: not deployed
    model: str = ""  # its server model (Manifest.server_models: the GPUs its NCCL topology must name)


@dataclass(frozen=True, slots=True)
class TopologyNetEntry:
    """Where an RDMA device sits in the NCCL topology file, and the attributes NCCL takes from the file
    over what it detects (its xml initialises an attribute only when the file lacks it)."""
    nic_busid: str  # the NIC's PCI function
    bridge: str  # the PCIe switch above it (the GPUs it is beside)
    dev: int  # NCCL's net device index (the verbs library's order)
    port: int
    speed: int  # Mb/s
    # the NIC's PCIe link as the file writes it on the NIC's <pci> ("" / 0: not written, NCCL
    # detects it); NCCL weighs the GPU-NIC path by it
    link_speed: str = ""
    link_width: int = 0


@dataclass(frozen=True, slots=True)
class ServerModelEntry:
    """What a server model's inside must look like to NCCL (the topology file, the bootstrap port)."""
    gpus: dict[str, int]  # bus id -> socket, in CUDA order
    nic_numa: dict[str, int]  # RDMA device -> the socket of its NIC (devices of a placed NIC only)
    bootstrap_ifname: str | None = None
    gpu_bridge: dict[str, str] = field(default_factory=dict)  # bus id -> the PCIe switch above it
    nets: dict[str, TopologyNetEntry] = field(default_factory=dict)  # RDMA device -> its place (placed NICs)


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
    sm_standby: str | None = None  # the standby SM's host (opensm-standby.conf), and its port GUID
    sm_standby_guid: str = ""
    devices: dict[str, str] = field(default_factory=dict)  # server -> its RDMA device in this plane (if known)
    routing_engine: str = "ftree"  # the inventory's routing engine for the plane (opensm.conf's `routing_engine`)


@dataclass(frozen=True, slots=True)
class QosMarkers:
    """The markers verification needs to tell RoCE data from CNPs in rendered QoS maps, and the
    RoCE class's planned scheduling."""

    roce_dscp: int
    cnp_dscp: int
    # the RoCE class's share of a port's bandwidth under contention, in percent (None: not planned)
    roce_bandwidth_percent: int | None = None
    # the lossless class's PFC headroom: bytes kept above the pause threshold, and the cable length
    # it is sized for (None: not planned)
    pfc_xoff_bytes: int | None = None
    pfc_cable_length_m: int | None = None


@dataclass(frozen=True, slots=True)
class ManagementEntry:
    """What the plan says every switch's management must keep (the MGMT-* checks read it)."""

    gateway: str  # the management VRF's default route
    ssh: bool
    api: bool
    users: list[str]  # local users every switch must have
    ntp: list[str] = field(default_factory=list)
    syslog: list[str] = field(default_factory=list)
    dns: list[str] = field(default_factory=list)
    lldp: bool = True
    tacacs: list[str] = field(default_factory=list)  # TACACS+ servers, reached in the management VRF
    # each user's SSH public keys as "TYPE BASE64" (the comment is a label, not part of the key)
    ssh_keys: dict[str, list[str]] = field(default_factory=dict)


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
    management: dict[str, ManagementEntry] = field(default_factory=dict)  # management VRF -> its plan (one)
    server_models: dict[str, ServerModelEntry] = field(default_factory=dict)

    @property
    def management_vrf(self) -> tuple[str, ManagementEntry] | None:
        return next(iter(self.management.items()), None)

    def dumps(self) -> str:
        """One line per device, server and IB plane (a diff of the build shows which one changed;
        json's indenting encoder is pure Python and took seconds at 100k GPUs)."""
        doc = _plain(self)
        parts = []
        for key, value in doc.items():
            if key in ("devices", "servers", "ib_planes") and value:
                body = ",\n".join(f"  {json.dumps(name)}: {json.dumps(entry)}" for name, entry in value.items())
                parts.append(f" {json.dumps(key)}: {{\n{body}\n }}")
            else:
                parts.append(f" {json.dumps(key)}: {json.dumps(value)}")
        return "{\n" + ",\n".join(parts) + "\n}\n"

    @classmethod
    def loads(cls, text: str | bytes, source: str = MANIFEST_FILE) -> Manifest:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ManifestError(f"{source}:{exc.lineno}: error: not JSON ({exc.msg}, column {exc.colno})") from None
        except ValueError as exc:  # (bytes that are not UTF-8)
            raise ManifestError(f"{source}:1: error: not JSON ({exc})") from None
        try:
            manifest = _build(cls, doc, "")
            _check_meaning(manifest)
            return manifest
        except ManifestError as exc:  # (the file and its one line in front, then where in the document)
            at = f" at {exc.where}" if exc.where else ""
            raise ManifestError(f"{source}:1: error: manifest{at}: {exc}") from None

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        """The manifest of a rendered folder (read without following links). A manifest already
        read in this process is reused while the file is unchanged (same inode, size and mtime):
        verification asks for it several times, and at 100k GPUs reading it costs a second."""
        try:
            info = os.lstat(folder / MANIFEST_FILE)
            key = (str(Path(folder).resolve()), info.st_ino, info.st_size, info.st_mtime_ns)
        except OSError:
            key = None
        held = _LOADED.get(key) if key is not None else None  # (one lookup: another thread may clear it)
        if held is not None:
            return held
        manifest = cls._load(folder)
        if key is not None:
            _LOADED.clear()  # one build at a time is what a process verifies
            _LOADED[key] = manifest
        return manifest

    @classmethod
    def _load(cls, folder: Path) -> Manifest:
        try:
            data = read_owned(folder, MANIFEST_FILE, MAX_MANIFEST_BYTES)
        except FileNotFoundError:
            data = None
        except TooLarge as exc:
            raise ManifestError(f"{folder / MANIFEST_FILE}: error: longer than any render writes (at least "
                                f"{exc.size} bytes, the limit is {MAX_MANIFEST_BYTES}): not read") from None
        except OSError as exc:
            raise ManifestError(f"{folder / MANIFEST_FILE}: error: {exc.strerror or exc}") from None
        if data is None:
            raise ManifestError(f"{folder / MANIFEST_FILE}: error: not found: run `dualrail render` first")
        return cls.loads(data, str(folder / MANIFEST_FILE))

    def cabling_path(self, folder: Path) -> Path:
        return folder / self.cabling

    def plane_of(self, device: str) -> str | None:
        entry = self.devices.get(device)
        return entry.plane if entry is not None else None


def key_identity(key: str) -> str:
    """An SSH public key as "TYPE BASE64": what sshd matches (the comment after them is a label)."""
    return " ".join(key.split()[:2])


T = TypeVar("T")

_LOADED: dict[tuple[str, int, int, int], Manifest] = {}

_NESTED: dict[tuple[type, str], type] = {
    (Manifest, "qos_markers"): QosMarkers,
    (Manifest, "devices"): DeviceEntry,
    (DeviceEntry, "external"): ExternalPeerEntry,
    (Manifest, "servers"): ServerEntry,
    (Manifest, "ib_planes"): IbPlaneEntry,
    (IbPlaneEntry, "switches"): IbSwitchEntry,
    (Manifest, "management"): ManagementEntry,
    (Manifest, "server_models"): ServerModelEntry,
    (ServerModelEntry, "nets"): TopologyNetEntry,
}
# lists of entries, written compactly (see _port)
_NESTED_LISTS: dict[tuple[type, str], type] = {(ServerEntry, "ports"): ServerPortEntry}
_CLASSES = (Manifest, DeviceEntry, ServerEntry, IbSwitchEntry, IbPlaneEntry, QosMarkers, ManagementEntry,
            ServerModelEntry, TopologyNetEntry, ExternalPeerEntry)


@dataclass(frozen=True)
class _Rule:
    """How one field is read: a shape check for a plain value, or the class of its nested entries."""

    name: str
    required: bool
    check: Callable[[Any], bool]
    nested: type | None = None  # a mapping of these (by name)
    listed: type | None = None  # a list of these


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _checker(annotation: str) -> Callable[[Any], bool]:
    """A shape check for a plain field's annotation, nested containers included (`dict[str,
    list[str]]` checks every key and every item: a value of the wrong type deep in a mapping was an
    AttributeError in a later stage)."""
    if annotation.endswith(" | None"):
        inner = _checker(annotation.removesuffix(" | None"))
        return lambda v: v is None or inner(v)
    if annotation == "str":
        return _is_str
    if annotation == "int":
        return _is_int
    if annotation == "bool":
        return lambda v: isinstance(v, bool)
    if annotation.startswith("list[") and annotation.endswith("]"):
        item = _checker(annotation[5:-1])
        return lambda v: isinstance(v, list) and all(item(x) for x in v)
    if annotation.startswith("dict[str, ") and annotation.endswith("]"):
        value = _checker(annotation[10:-1])
        return lambda v: isinstance(v, dict) and all(isinstance(k, str) and value(x) for k, x in v.items())
    return lambda v: True  # (an entry class: _build reads it field by field)


@lru_cache(maxsize=None)
def _rules(cls: Any) -> tuple[tuple[_Rule, ...], frozenset[str]]:
    rules = tuple(_Rule(f.name, f.default is MISSING and f.default_factory is MISSING, _checker(str(f.type)),
                        _NESTED.get((cls, f.name)), _NESTED_LISTS.get((cls, f.name)))
                  for f in fields(cls))
    return rules, frozenset(r.name for r in rules)


def _port(row: Any) -> ServerPortEntry:
    """A NIC port is written as [ifname, rdma_device, plane, rail] (a 100k-GPU fabric has 100k)."""
    if (type(row) is not list or len(row) != 4 or type(row[0]) is not str or type(row[1]) is not str
            or type(row[2]) is not str or type(row[3]) is not int):
        raise ManifestError(f"a port is [ifname, rdma_device, plane, rail], not {row!r:.60}")
    return ServerPortEntry._make(row)


def _located(error: ManifestError, where: str) -> ManifestError:
    """The error with the path of where it happened in front (paths are made only for an error)."""
    return ManifestError(str(error), f"{where}.{error.where}" if error.where else where)


def _build(cls: type[T], doc: Any, where: str) -> T:
    """``cls`` from a JSON object, checking every field is present with the right shape (rules
    precompiled per class: a 100k-GPU manifest has ~130k entries)."""
    if not isinstance(doc, dict):
        raise ManifestError("expected an object", where)
    rules, names = _rules(cls)  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for rule in rules:
        if rule.name not in doc:
            if rule.required:
                raise ManifestError(f"field {rule.name!r} is missing", where)
            continue
        value = doc[rule.name]
        if rule.listed is not None:
            if not isinstance(value, list):
                raise ManifestError("expected a list", _joined(where, rule.name))
            try:
                value = [_port(v) for v in value]
            except ManifestError as exc:
                raise _located(exc, _joined(where, rule.name)) from None
        elif rule.nested is not None:
            if not isinstance(value, dict):
                raise ManifestError("expected an object", _joined(where, rule.name))
            nested = rule.nested
            built: dict[str, Any] = {}
            for k, v in value.items():
                try:
                    built[str(k)] = _build(nested, v, "")
                except ManifestError as exc:
                    raise _located(exc, _joined(where, f"{rule.name}.{k}")) from None
            value = built
        elif not rule.check(value):
            raise ManifestError(f"{value!r:.60} has the wrong type", _joined(where, rule.name))
        values[rule.name] = value
    if len(doc) > len(values) and not set(doc) <= names:
        raise ManifestError(f"unknown field(s) {', '.join(sorted(set(doc) - names))}", where)
    return cls(**values)


def _inside(path: str) -> bool:
    """A path the manifest names inside the rendered folder: relative, and no `..` step (with the
    links verify refuses on the way, every file it reads is the folder's own)."""
    return bool(path) and path[0] != "/" and not ("\\" in path or "\0" in path) \
        and not (".." in path and ".." in path.split("/"))


# the form render writes a prefix in (ipaddress also takes a bare address, `/032`, a netmask)
_NETWORK_FORM = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}/(?:0|[1-9][0-9]?)")


def _network_error(prefix: str) -> str:
    """Why ``prefix`` is not an IPv4 network as ipaddress.IPv4Network (strict) reads one, written
    `a.b.c.d/len` ("": it is)."""
    try:
        ipaddress.IPv4Network(prefix)
    except ValueError as exc:
        return str(exc)
    return "" if _NETWORK_FORM.fullmatch(prefix) else "not in the a.b.c.d/len form"


def _check_meaning(manifest: Manifest) -> None:
    """What the shapes do not say: every folder and file the manifest names is inside the rendered
    folder, every prefix is one (as the stages that read them parse them), and every platform is
    one this installation has."""
    from dualrail_net.platforms import PlatformError, get_platform  # (the registry imports this module)
    if not _inside(manifest.cabling):
        raise ManifestError(f"{manifest.cabling!r:.80} is not a path inside the rendered folder", "cabling")
    planes = set(manifest.planes)
    for what, keys in (("routed_prefixes", manifest.routed_prefixes), ("pools", manifest.pools),
                       ("qos_markers", manifest.qos_markers)):
        for plane in keys:
            if plane not in planes:
                raise ManifestError(f"plane {plane!r:.40} is not one of the manifest's planes", what)
    for plane, prefixes in manifest.routed_prefixes.items():
        _check_prefixes(prefixes, f"routed_prefixes.{plane}")
    for plane, pools in manifest.pools.items():
        for pool, prefix in pools.items():
            _check_prefixes([prefix], f"pools.{plane}.{pool}")
    for group, entries in (("devices", manifest.devices), ("servers", manifest.servers)):
        for name, entry in entries.items():
            paths = [("dir", entry.dir)] + [("files", f) for f in entry.files]
            if not planes.issuperset(entry.planes):
                raise ManifestError(f"{sorted(set(entry.planes) - planes)!r:.60} not among the manifest's planes",
                                    f"{group}.{name}.planes")
            if entry.mgmt_address is not None and not _is_interface(entry.mgmt_address):
                raise ManifestError(f"{entry.mgmt_address!r:.60} is not an IPv4 address with its prefix length",
                                    f"{group}.{name}.mgmt_address")
            if isinstance(entry, ServerEntry):
                for port in entry.ports:
                    if port.plane not in planes or port.rail < 0:
                        raise ManifestError(f"port {port.ifname!r:.40}: plane {port.plane!r:.20} rail {port.rail} "
                                            "is not a rail of one of the manifest's planes", f"{group}.{name}.ports")
            if isinstance(entry, DeviceEntry):
                if entry.plane is not None and entry.plane not in planes:
                    raise ManifestError(f"plane {entry.plane!r:.40} is not one of the manifest's planes",
                                        f"{group}.{name}.plane")
                paths.append(("twin_dir", entry.twin_dir))
                for plane, prefixes in entry.originates.items():
                    _check_prefixes(prefixes, f"{group}.{name}.originates.{plane}")
                for peer, external in entry.external.items():
                    _check_prefixes(external.prefixes, f"{group}.{name}.external.{peer}.prefixes")
                try:
                    get_platform(entry.platform)
                except PlatformError as exc:
                    raise ManifestError(str(exc), f"{group}.{name}.platform") from None
            for field_name, path in paths:
                if not _inside(path):
                    raise ManifestError(f"{path!r:.80} is not a path inside the rendered folder",
                                        f"{group}.{name}.{field_name}")
    for plane, ib in manifest.ib_planes.items():
        if not _inside(ib.dir):
            raise ManifestError(f"{ib.dir!r:.80} is not a path inside the rendered folder", f"ib_planes.{plane}.dir")
        for guid, pkeys in ib.expected_pkeys.items():
            for pkey, membership in pkeys.items():
                if not _PKEY.fullmatch(pkey) or membership not in ("full", "limited", "both"):
                    raise ManifestError(f"{pkey!r:.20}: {membership!r:.20} is not a P_Key (0x and up to 4 hex "
                                        "digits) with a membership (full, limited, both)",
                                        f"ib_planes.{plane}.expected_pkeys.{guid}")


_PKEY = re.compile(r"0x[0-9a-fA-F]{1,4}")


def _is_interface(text: str) -> bool:
    """An address with its prefix length (`198.51.100.1/24`), as a deploy target is written."""
    address, slash, length = text.partition("/")
    return bool(slash) and length.isdigit() and len(length) <= 2 and int(length) <= 32 \
        and not _network_error(f"{address}/32")


def _check_prefixes(prefixes: list[str], where: str) -> None:
    for prefix in prefixes:
        if why := _network_error(prefix):
            raise ManifestError(f"{prefix!r:.60} is not an IPv4 prefix ({why})", where)


def _joined(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


@lru_cache(maxsize=None)
def _field_names(cls: Any) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _plain(value: Any) -> Any:
    """A dataclass tree as plain JSON types, in field order (asdict's deep copies cost seconds at
    100k GPUs); a NIC port as [ifname, rdma_device, plane, rail]."""
    kind = type(value)
    if kind is ServerPortEntry:
        return [value.ifname, value.rdma_device, value.plane, value.rail]
    if kind in _CLASSES:
        return {name: _plain(getattr(value, name)) for name in _field_names(kind)}  # type: ignore[arg-type]
    if kind is dict:
        return {k: _plain(v) for k, v in value.items()}
    if kind is list:
        return [_plain(v) for v in value]
    return value


__all__ = ["CABLING_FILE", "DEFAULT_OUTPUT", "MANIFEST_FILE", "RESOLVED_FILE", "TWIN_SUBSTITUTES", "DeviceEntry",
           "ExternalPeerEntry",
           "IbPlaneEntry", "IbSwitchEntry", "Manifest", "ManifestError", "QosMarkers", "ServerEntry", "ServerPortEntry"]
