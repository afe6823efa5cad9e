"""The QoS in force, where a device can show it, against the plan. Drift compares files; this asks
what the hardware runs, which can differ with unchanged files: a NIC reset to PCP trust by a
firmware update or a driver reload, a boot where the NIC QoS unit did not run, a switch port whose
lossless priorities were changed at run time.

* A server: its installed NIC QoS program (``nic-qos.sh``, the plan itself) run with ``--dry-run``
  reads every setting in force and prints each one that differs ("would set eth1 trust: pcp ->
  dscp") or that this host cannot show ("not possible here: ..."). QOS-LIVE-NIC names each setting
  not in force; QOS-LIVE-UNREADABLE (a warning) each one the host cannot show.
* A switch whose platform prints its lossless priorities per port (SONiC ``show pfc priority``), or
  the configuration it runs (EOS ``show running-config``: EOS programs each committed line as it
  takes it; NVUE's applied revision, ``nv config show -r applied``: what NVUE set the system to),
  read by the platform's own parser, the reading verify gives the rendered file: QOS-LIVE-PFC for
  each port whose priorities in force differ from the rendered files'. Drift says the text
  differs; this names the port and its priorities, whatever else the text holds.

Readers are bounded and strict: an answer that is not in the expected form is an error of the
device's collection, never an empty table."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from dualrail_net.audit.neighbors import MAX_ANSWER, NeighborsUnreadable
from dualrail_net.platforms import get_platform
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.parsers.files import is_decimal


class QosGap(NamedTuple):
    """One setting of a device that is not in force as planned (``unreadable``: the device cannot
    show it, so nobody knows)."""

    where: str  # a port or a settings path
    setting: str  # "trust", "pfc", "mtu", or the sysfs/configfs path's last parts
    in_force: str  # as the device shows it ("?" when it shows nothing)
    planned: str
    unreadable: str = ""  # why it cannot be shown ("" when it was read)


_WOULD = re.compile(r"would set (\S+) (trust|pfc|mtu): (.*) -> (\S+)$")
_WOULD_PATH = re.compile(r"would set (/\S+): (.*) -> (\S+)$")
_NOT_HERE = re.compile(r"would set (.+?) \(not possible here: (.+)\)$")
_PORT_OF_PATH = re.compile(r"/sys/class/net/([^/]+)/(.+)$|/rdma_cm/([^/]+)/(.+)$")


def nic_qos_gaps(device: str, text: str) -> list[QosGap]:
    """What ``nic-qos.sh --dry-run`` says is not in force. Every line is one of the program's own:
    a line it never prints means another program answered (an error, not a clean NIC)."""
    if len(text) > MAX_ANSWER:
        raise NeighborsUnreadable(f"{device}: nic-qos --dry-run: answer larger than {MAX_ANSWER} bytes")
    gaps: list[QosGap] = []
    clean = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "nic-qos: every setting already in place":
            clean = True
        elif m := _NOT_HERE.match(line):
            what, why = m.groups()
            port, _, setting = what.partition(" ")
            if port.startswith("/"):
                port, setting = _split_path(port)
            gaps.append(QosGap(port, setting, "?", "", why))
        elif m := _WOULD.match(line):
            port, setting, now, want = m.groups()
            gaps.append(QosGap(port, setting, now or "?", want))
        elif m := _WOULD_PATH.match(line):
            path, now, want = m.groups()
            port, setting = _split_path(path)
            gaps.append(QosGap(port, setting, now or "?", want))
        elif line.startswith("error: "):
            raise NeighborsUnreadable(f"{device}: nic-qos: {line[7:][:160]}")
        else:
            raise NeighborsUnreadable(f"{device}: nic-qos --dry-run printed a line it never prints ({line[:80]!r})")
    if clean and any(not g.unreadable for g in gaps):  # (what it cannot read leaves "in place" said)
        raise NeighborsUnreadable(f"{device}: nic-qos --dry-run said both in place and not")
    if not clean and not gaps:
        raise NeighborsUnreadable(f"{device}: nic-qos --dry-run printed nothing (not the installed program?)")
    return gaps


def _split_path(path: str) -> tuple[str, str]:
    m = _PORT_OF_PATH.search(path)
    if m is None:
        return path, ""
    return (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))


def sonic_pfc_priorities(device: str, text: str) -> dict[str, tuple[int, ...]]:
    """port -> lossless priorities in force, from SONiC's ``show pfc priority`` table."""
    if len(text) > MAX_ANSWER:
        raise NeighborsUnreadable(f"{device}: show pfc priority: answer larger than {MAX_ANSWER} bytes")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines or lines[0].split() != ["Interface", "Lossless", "priorities"]:
        raise NeighborsUnreadable(f"{device}: show pfc priority is not SONiC's table ({text.strip()[:80]!r})")
    out: dict[str, tuple[int, ...]] = {}
    for line in lines[1:]:
        if set(line) <= {"-", " "}:
            continue
        words = line.split()
        if len(words) > 2 or not words[0].startswith("Ethernet"):
            raise NeighborsUnreadable(f"{device}: show pfc priority: not a port line ({line[:80]!r})")
        listed = words[1].split(",") if len(words) == 2 and words[1] != "N/A" else []
        if not all(is_decimal(p) and int(p) < 8 for p in listed):  # (str.isdigit takes '²', int() not)
            raise NeighborsUnreadable(f"{device}: show pfc priority: {words[0]} priorities {words[1]!r}")
        out[words[0]] = tuple(sorted(int(p) for p in listed))
    return out


def nic_findings(device: str, gaps: Iterable[QosGap]) -> list[Finding]:
    out = []
    for gap in gaps:
        if gap.unreadable:
            out.append(Finding("QOS-LIVE-UNREADABLE", Severity.WARNING, (device,), "",
                               f"{device} {gap.where}: {gap.setting or 'a setting'} cannot be read "
                               f"({gap.unreadable})",
                               "nobody knows whether this NIC runs the RoCE profile: install what the "
                               "program needs to read it"))
        else:
            out.append(Finding("QOS-LIVE-NIC", Severity.ERROR, (device,), "",
                               f"{device} {gap.where}: {gap.setting} in force is {gap.in_force}, the plan "
                               f"says {gap.planned}",
                               "the NIC does not run the RoCE profile the leaves expect (lossy RoCE, no "
                               "congestion notification): run dualrail-nic-qos or find what reset it"))
    return out


def pfc_findings(device: str, plane: str, in_force: dict[str, tuple[int, ...]],
                 planned: dict[str, tuple[int, ...]]) -> list[Finding]:
    """``planned``: port -> lossless priorities the rendered files give it (ports without PFC: ())."""
    out = []
    for port in sorted(set(planned) | set(in_force)):
        want, got = planned.get(port, ()), in_force.get(port)
        if got is None:
            if want:
                out.append(Finding("QOS-LIVE-PFC", Severity.ERROR, (device,), plane,
                                   f"{device} {port}: not in the switch's PFC table, the plan makes "
                                   f"priorities {','.join(map(str, want))} lossless",
                                   "RoCE on this port is lossy: its traffic is dropped under congestion"))
        elif got != want:
            shown = ",".join(map(str, got)) or "none"
            out.append(Finding("QOS-LIVE-PFC", Severity.ERROR, (device,), plane,
                               f"{device} {port}: lossless priorities in force {shown}, the plan says "
                               f"{','.join(map(str, want)) or 'none'}",
                               "PFC must match on both ends of a link and across the plane, or RoCE "
                               "is lossy here (or pauses traffic the plan keeps lossy)"))
    return out


def configured_pfc(platform: str, shown: str) -> Callable[[str, str], dict[str, tuple[int, ...]]]:
    """A reader of the configuration a ``platform`` switch reports running (``shown``: the command,
    for messages): port -> its lossless priorities (none: ()), through the platform's text parser.
    An answer that names no interface (an error, an empty or unreadable file) is the collection's
    error, never a switch without PFC."""

    def read(device: str, text: str) -> dict[str, tuple[int, ...]]:
        if len(text) > MAX_ANSWER:
            raise NeighborsUnreadable(f"{device}: {shown}: answer larger than {MAX_ANSWER} bytes")
        parse = get_platform(platform).parser().text
        assert parse is not None  # (a format is only given to a platform with a text reader)
        dev = parse(device, text)
        if not dev.interfaces:
            raise NeighborsUnreadable(f"{device}: {shown} names no interface ({text.strip()[:80]!r})")
        return {name: tuple(sorted(iface.pfc_priorities or ())) for name, iface in dev.interfaces.items()}

    return read


# a PfcReader's format -> its reader (deploy/drivers/base.PfcReader)
PFC_READERS = {"sonic": sonic_pfc_priorities,
               "eos-running-config": configured_pfc("eos", "show running-config"),
               "nvue-applied": configured_pfc("cumulus-nvue", "nv config show -r applied")}
