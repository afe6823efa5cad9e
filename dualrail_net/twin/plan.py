"""What the twin builds, derived from the rendered output folder only: one namespace per switch
(one per VRF for devices that touch several planes: kernel VRF is not available here), one per
server, a veth pair per cable named after the real ports, and a management address per switch."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from dualrail_net.manifest import Manifest
from dualrail_net.verify.cabling import read_cabling
from dualrail_net.verify.parsers.files import UnreadableFile
from dualrail_net.twin.shell import TwinError
from dualrail_net.verify.parsers.ifupdown import read_interfaces

NS_PREFIX = "drt-"


@dataclass
class SwitchNs:
    ns: str
    device: str
    plane: str
    role: str
    config_dir: str  # folder holding the frr.conf / interfaces this namespace runs
    vrf: str | None = None  # set for one VRF of a multi-plane device
    mgmt_address: str | None = None
    substitute: bool = False  # FRR rendering of a platform that cannot run here (EOS)
    firmware: str = ""  # the planned version: the twin's firmware marker starts as it


@dataclass
class ServerNs:
    ns: str
    server: str
    config_dir: str
    mgmt_address: str | None = None  # the twin gives it sshd there (`deploy --scope servers`)


@dataclass
class ExternalNs:
    """A gateway's planned external peer (storage, the outside), stood in for by FRR announcing the
    planned prefixes: the plan says what the peer sends, the twin makes it send exactly that."""

    ns: str
    name: str
    plane: str
    address: str  # its end of the link, with length
    asn: int
    gateway_ip: str
    gateway_asn: int
    prefixes: list[str] = field(default_factory=list)


EXTERNAL_PORT = "ext0"  # the stand-in's port (the plan does not name the far end's port)


@dataclass
class Cable:
    a_ns: str
    a_port: str
    b_ns: str
    b_port: str
    plane: str
    kind: str


@dataclass
class TwinPlan:
    output: str
    switches: list[SwitchNs] = field(default_factory=list)
    servers: list[ServerNs] = field(default_factory=list)
    cables: list[Cable] = field(default_factory=list)
    mgmt_network: str | None = None
    planes: list[str] = field(default_factory=list)
    externals: list[ExternalNs] = field(default_factory=list)

    def switch(self, ns: str) -> SwitchNs:
        return next(s for s in self.switches if s.ns == ns)


def ns_name(device: str, vrf: str | None = None) -> str:
    return f"{NS_PREFIX}{device}" + (f".{vrf}" if vrf else "")


def external_ns(peer: str, plane: str) -> str:
    """An external peer's stand-in, per plane (one storage system may face every plane)."""
    return f"{NS_PREFIX}ext-{plane}-{peer}"


def external_frr(ext: ExternalNs) -> str:
    """The stand-in's FRR: the planned prefixes held by blackholes and announced to the gateway."""
    lines = ["frr defaults datacenter", f"hostname {ext.name}", "!"]
    lines += [f"ip route {p} blackhole" for p in ext.prefixes]
    lines += ["!", f"router bgp {ext.asn}", f" bgp router-id {ext.address.split('/')[0]}",
              f" neighbor {ext.gateway_ip} remote-as {ext.gateway_asn}", " address-family ipv4 unicast"]
    lines += [f"  network {p}" for p in ext.prefixes]
    lines += [" exit-address-family", "exit", "!", "end"]
    return "\n".join(lines) + "\n"


CABLE_FIELDS = ("plane", "kind", "a_device", "a_port", "a_address", "b_device", "b_port", "b_address")


def _cabling_rows(path: Path) -> list[dict[str, str]]:
    """The cabling plan's rows, each with every field the twin reads (a hand-edited file whose row
    lacks one is refused in one line naming it, never a KeyError)."""
    if not path.is_file():
        raise TwinError(f"{path}: missing: the twin cables what the plan says (re-render)")
    try:
        plan = read_cabling(path)  # (a column missing: its one line)
    except UnreadableFile as exc:
        raise TwinError(str(exc)) from None
    rows = list(plan)
    for number, row in enumerate(rows, 2):
        # may be empty: an address (a cable without IP), the far port of an external peer (the plan
        # names none); a short row's missing field is None
        optional = {"a_address", "b_address"} | ({"b_port"} if row.get("kind") == "external" else set())
        empty = [name for name in CABLE_FIELDS if row.get(name) is None or not row[name] and name not in optional]
        if empty:
            raise TwinError(f"{path}:{number}: error: a cable without its {', '.join(empty)}")
    return rows


def build_plan(output: Path) -> TwinPlan:
    manifest = Manifest.load(output)
    rows = _cabling_rows(manifest.cabling_path(output))
    output = output.resolve()
    plan = TwinPlan(output=str(output), planes=list(manifest.planes))
    port_ns: dict[tuple[str, str], str] = {}
    for name, meta in manifest.devices.items():
        folder = output / meta.twin_dir
        if meta.plane:
            sw = SwitchNs(ns_name(name), name, meta.plane, meta.role, str(folder),
                          mgmt_address=meta.mgmt_address, substitute=meta.twin_dir != meta.dir, firmware=meta.firmware)
            plan.switches.append(sw)
            continue
        ifaces = read_interfaces((folder / "interfaces").read_text()).interfaces
        vrf_plane: dict[str, str] = {}
        for row in rows:
            for dev, port in ((row["a_device"], row["a_port"]), (row["b_device"], row["b_port"])):
                if dev == name and port in ifaces and ifaces[port].vrf:
                    vrf_plane[ifaces[port].vrf or ""] = row["plane"]
                    port_ns[(dev, port)] = ns_name(name, ifaces[port].vrf)
        for i, (vrf, plane) in enumerate(sorted(vrf_plane.items())):
            plan.switches.append(SwitchNs(ns_name(name, vrf), name, plane, meta.role, str(folder), vrf=vrf,
                                          mgmt_address=meta.mgmt_address if i == 0 else None, firmware=meta.firmware))
    for name, server in manifest.servers.items():
        plan.servers.append(ServerNs(ns_name(name), name, str(output / server.dir), server.mgmt_address))
    for number, row in enumerate(rows, 2):
        a_ns = port_ns.get((row["a_device"], row["a_port"]), ns_name(row["a_device"]))
        if row["kind"] == "external":
            gateway = manifest.devices.get(row["a_device"])
            ip = row["b_address"].split("/")[0]
            peer = gateway.external.get(ip) if gateway is not None else None
            if gateway is None or peer is None:  # the cabling plan edited apart from the manifest
                raise TwinError(f"{manifest.cabling_path(output)}:{number}: error: external cable "
                                f"{row['a_device']}:{row['a_port']} -> {row['b_address']} is not an external peer "
                                "the manifest plans")
            ext = ExternalNs(external_ns(peer.name, row["plane"]), peer.name, row["plane"], row["b_address"], peer.asn,
                             row["a_address"].split("/")[0], gateway.asn, list(peer.prefixes))
            plan.externals.append(ext)
            plan.cables.append(Cable(a_ns, row["a_port"], ext.ns, EXTERNAL_PORT, row["plane"], row["kind"]))
            continue
        b_ns = port_ns.get((row["b_device"], row["b_port"]), ns_name(row["b_device"]))
        plan.cables.append(Cable(a_ns, row["a_port"], b_ns, row["b_port"], row["plane"], row["kind"]))
    mgmt = [m.mgmt_address for m in manifest.devices.values() if m.mgmt_address]
    if mgmt:
        plan.mgmt_network = str(ipaddress.IPv4Interface(mgmt[0]).network)
    return plan
