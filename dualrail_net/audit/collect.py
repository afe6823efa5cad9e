"""Gather what every device runs and sees, through the nornir inventory (nornir's threaded runner:
one task per device): its LLDP neighbours, its ports' state, its running firmware, the difference
between its running files and the build, and its BGP sessions.

Per device the commands follow what it runs: Linux (Cumulus switches, servers, the twin's FRR
namespaces) through ``lldpcli``/``ip -j link``, EOS through ``show lldp neighbors detail | json`` and
``show interfaces | json``. The twin's lldpd instances listen on private control sockets
(twin/lldp.py); a gateway of the twin is one namespace per VRF, each asked in turn."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dualrail_net.audit.neighbors import (
    Neighbor,
    NeighborsUnreadable,
    PortState,
    eos_neighbors,
    ip_link_states,
    lldpcli_neighbors,
)
from dualrail_net.audit.qos import PFC_READERS, QosGap, nic_qos_gaps
from dualrail_net.audit.routes import eos_route_widths, frr_route_widths
from dualrail_net.deploy.credentials import named_secrets, redact_secrets
from dualrail_net.deploy.drivers import FirmwareDriver, driver_for
from dualrail_net.deploy.drivers.base import PfcReader, RouteReader, run_shell, unified_diff
from dualrail_net.deploy.drivers.server import ServerDriver
from dualrail_net.verify.parsers.files import is_decimal

SPEEDS = "for f in /sys/class/net/*/speed; do printf '%s %s\\n' \"${f%/speed}\" \"$(cat $f 2>/dev/null)\"; done"


@dataclass
class DeviceReport:
    name: str
    role: str
    plane: str | None
    neighbors: list[Neighbor] = field(default_factory=list)
    ports: list[PortState] = field(default_factory=list)
    firmware: str = ""  # "" when the device does not say
    planned_firmware: str = ""
    drift: str = ""  # unified diff of running against the build ("" when none)
    sessions: list[str] = field(default_factory=list)  # BGP sessions that are not up
    # plane -> BGP prefix -> installed next hops, from the plane's VRF (a single-plane switch: its
    # default VRF; a gateway: one table per plane it serves); None: not read
    routes: dict[str, dict[str, int]] | None = None
    pfc: dict[str, tuple[int, ...]] | None = None  # port -> lossless priorities in force (None: not shown)
    nic_qos: list[QosGap] | None = None  # a server's NIC settings not in force (None: not shown)
    error: str = ""  # why it could not be asked (unreachable, unreadable answer)


def _linux_lldp(conn: Any, device: str, socket: str | None) -> list[Neighbor]:
    command = f"lldpcli -u {socket} show neighbors -f json" if socket else "lldpcli show neighbors -f json"
    rc, out = run_shell(conn, command, timeout=60)
    if rc != 0:
        raise NeighborsUnreadable(f"{device}: lldpcli failed ({out.strip()[-160:]})")
    return lldpcli_neighbors(device, out)


def _linux_ports(conn: Any, device: str, speeds: bool) -> list[PortState]:
    rc, out = run_shell(conn, "ip -j link show", timeout=60)
    if rc != 0:
        raise NeighborsUnreadable(f"{device}: ip -j link failed ({out.strip()[-160:]})")
    known: dict[str, int] = {}
    if speeds:  # a real port says its speed; a veth's 10000 is not one (the twin asks for none)
        _rc, text = run_shell(conn, SPEEDS, timeout=60)
        for line in text.splitlines():
            words = line.split()
            if len(words) == 2 and is_decimal(words[1]) and int(words[1]) > 0:
                known[words[0].rsplit("/", 1)[-1]] = int(words[1])
    return [p for p in ip_link_states(device, out, known) if p.port not in ("lo", "mgmt0", "eth0")]


def _eos(conn: Any, device: str) -> tuple[list[Neighbor], list[PortState]]:
    neighbors = eos_neighbors(device, conn.send_command("show lldp neighbors detail | json"))
    try:
        doc = json.loads(conn.send_command("show interfaces | json"))
        ports = [PortState(device, name, body.get("lineProtocolStatus") == "up",
                           int(body["bandwidth"]) // 1_000_000 if body.get("bandwidth") else None)
                 for name, body in (doc.get("interfaces") or {}).items() if name.startswith("Ethernet")]
    except (ValueError, AttributeError, TypeError) as exc:
        raise NeighborsUnreadable(f"{device}: show interfaces | json not as EOS prints it ({exc})") from None
    return neighbors, ports


def _route_tables(drv: RouteReader, device: str, plane: str | None,
                  vrfs: dict[str, str]) -> dict[str, dict[str, int]]:
    """plane -> prefix -> next hops: the default VRF of a single-plane switch, each plane's VRF of
    a gateway (asked one VRF at a time: the width is judged per plane)."""
    wanted: dict[str, str | None] = {plane: None} if plane else dict(vrfs)
    tables = {}
    for p, vrf in sorted(wanted.items()):
        text = drv.bgp_routes(vrf)
        tables[p] = eos_route_widths(device, text, vrf or "default") if drv.route_format == "eos" \
            else frr_route_widths(device, text)
    return tables


def collect_device(host: Any, connection: Any) -> DeviceReport:
    """Everything the audit asks one device (never raises: a failure is the report's ``error``)."""
    data = host.data
    report = DeviceReport(host.name, data["role"], data["plane"], planned_firmware=data.get("firmware", ""))
    try:
        twin = bool(data.get("twin") or (data.get("paths") or {}).get("vty_socket"))
        if data.get("run_platform") == "eos":
            report.neighbors, report.ports = _eos(connection, host.name)
        elif data.get("twin_vrfs"):  # a twin gateway: each VRF's namespace has its own lldpd
            from dualrail_net.twin.gateway_driver import _InNamespace
            for where in data["twin_vrfs"].values():
                conn = connection if where.get("own") == "yes" else _InNamespace(connection, where["ns"])
                report.neighbors += _linux_lldp(conn, host.name, f"{where['rundir']}/lldpd.socket")
                report.ports += _linux_ports(conn, host.name, speeds=False)
        else:
            state_dir = (data.get("paths") or {}).get("state_dir")
            socket = f"{state_dir}/lldpd.socket" if twin and state_dir else None
            report.neighbors = _linux_lldp(connection, host.name, socket)
            report.ports = _linux_ports(connection, host.name, speeds=not twin)
        drv = driver_for(host, connection)
        # a device's running files hold the secrets pushed to it: the drift shows their names only
        fetched = drv.fetch()
        report.drift = redact_secrets(unified_diff(fetched, drv.intended()), named_secrets())
        if isinstance(drv, FirmwareDriver) and not data.get("server"):
            report.firmware = drv.running_version()
        if not data.get("server"):
            report.sessions = drv.health()
        if isinstance(drv, ServerDriver):
            shown = drv.nic_qos_in_force()
            report.nic_qos = None if shown is None else nic_qos_gaps(host.name, shown)
        if isinstance(drv, PfcReader):
            report.pfc = PFC_READERS[drv.pfc_format](host.name, drv.pfc_in_force(fetched))
        if not data.get("server") and isinstance(drv, RouteReader):
            report.routes = _route_tables(drv, host.name, data.get("plane"), data.get("vrfs") or {})
    except Exception as exc:  # noqa: BLE001  (one device's failure is a finding, not the audit's end)
        report.error = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
    return report


def collect(nr: Any, connect: Any, workers: int = 16, progress: Any = None) -> dict[str, DeviceReport]:
    """Every device of the inventory, asked concurrently by nornir's threaded runner."""
    from nornir.core.task import Result, Task

    def task(t: Task) -> Result:
        try:
            connection = connect(t.host)
        except Exception as exc:  # noqa: BLE001
            report = DeviceReport(t.host.name, t.host.data["role"], t.host.data["plane"],
                                  planned_firmware=t.host.data.get("firmware", ""),
                                  error=f"unreachable: {type(exc).__name__}: {str(exc).strip()[:200]}")
        else:
            report = collect_device(t.host, connection)
        if progress is not None:
            progress(1)
        return Result(host=t.host, result=report)

    from nornir.plugins.runners import ThreadedRunner
    results = nr.with_runner(ThreadedRunner(num_workers=workers)).run(task=task, on_failed=True)
    reports: dict[str, DeviceReport] = {}
    for name, host in nr.inventory.hosts.items():
        multi = results.get(name)
        found = multi[0].result if multi else None
        if isinstance(found, DeviceReport):
            reports[name] = found
        else:  # the task itself failed: the device is reported, never dropped
            reports[name] = DeviceReport(name, host.data["role"], host.data["plane"],
                                         error=f"not collected: {str(getattr(multi[0], 'exception', '') if multi else 'no result')[:200]}")
    return reports
