"""``twin up`` / ``down`` / ``status``: build the namespaces, cables, FRR instances, server stacks
and the management network from the rendered output; remove exactly what was made."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dualrail_net.manifest import Manifest, ManifestError
from dualrail_net.render.servers import HOST_PATHS
from dualrail_net.twin import frr, lldp, nic_double, sshd
from dualrail_net.twin.gateway_driver import record_dir, write_record
from dualrail_net.twin.plan import (
    EXTERNAL_PORT,
    NS_PREFIX,
    Cable,
    ExternalNs,
    SwitchNs,
    TwinPlan,
    build_plan,
    external_frr,
    ns_name,
)
from dualrail_net.twin.shell import MGMT_PORT, TwinError, fabric_ports, in_ns, ip_batch, link_names, run
from dualrail_net.twin.translate import (frr_for_vrf, ifup_privately, interfaces_for_vrf, interfaces_to_ip_batch,
                                         without_management)

STATE_DIR = Path(os.environ.get("DUALRAIL_TWIN_STATE", "/run/dualrail-twin"))
MGMT_BRIDGE = "drt-mgmt"
SWITCH_SYSCTLS = {
    "net.ipv4.ip_forward": "1",
    "net.ipv4.conf.all.rp_filter": "0",
    "net.ipv4.conf.default.rp_filter": "0",
    "net.ipv4.fib_multipath_hash_policy": "1",
    "net.ipv4.conf.all.ignore_routes_with_linkdown": "1",
    "net.ipv6.conf.all.disable_ipv6": "1",
}
VETH_MTU = 1500  # what `ip link add ... type veth` gives a port before its interfaces file sets one
# The host's neighbour table is shared by every namespace (NOTES: ~1024 entries overflow).
NEIGH_SYSCTLS = ("net.ipv4.neigh.default.gc_thresh1", "net.ipv4.neigh.default.gc_thresh2",
                 "net.ipv4.neigh.default.gc_thresh3")

Progress = Callable[[str], None]


def require_root() -> None:
    if os.geteuid() != 0:
        raise TwinError("the twin needs root (network namespaces, veth pairs, FRR): run it with sudo")
    for tool in ("ip", "ifup", "vtysh"):
        if shutil.which(tool) is None:
            raise TwinError(f"{tool} not found: run .ci/setup (apt-get install frr ifupdown2 iproute2)")
    if not (frr.FRR_DIR / "zebra").exists():
        raise TwinError("FRR daemons not found in /usr/lib/frr: apt-get install frr")


def rundir(ns: str) -> Path:
    return STATE_DIR / "ns" / ns


def _state_path() -> Path:
    return STATE_DIR / "state.json"


def load_state() -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads(_state_path().read_text())
        return state
    except (OSError, json.JSONDecodeError):
        return None


def _sysctl_get(name: str) -> str:
    return Path("/proc/sys", *name.split(".")).read_text().strip()


def _sysctl_set(name: str, value: str) -> None:
    Path("/proc/sys", *name.split(".")).write_text(value)


def our_namespaces() -> list[str]:
    out = run(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in out.splitlines() if line.startswith(NS_PREFIX)]


def down(progress: Progress | None = None) -> dict[str, Any]:
    """Remove everything a twin made: its daemons (by their pid files), namespaces, bridge, sysctls."""
    say = progress or (lambda _m: None)
    state = load_state() or {}
    stopped = 0
    ns_root = STATE_DIR / "ns"
    if ns_root.exists():
        for d in ns_root.iterdir():
            if not d.is_dir():
                continue
            frr.stop(d)
            sshd.stop(d)
            lldp.stop(d)
            stopped += 1
    namespaces = our_namespaces()
    say(f"removing {len(namespaces)} namespaces")
    ip_batch([f"netns del {ns}" for ns in namespaces], force=True)
    run(["ip", "link", "del", MGMT_BRIDGE], check=False)
    stale = [name for name in link_names() if name.startswith("drm")]
    ip_batch([f"link del {name}" for name in stale], force=True)
    for name, value in state.get("sysctls", {}).items():
        try:
            _sysctl_set(name, value)
        except OSError:
            pass
    if STATE_DIR.exists():
        shutil.rmtree(STATE_DIR)
    return {"namespaces_removed": len(namespaces), "instances_stopped": stopped}


def _switch_configs(sw: SwitchNs) -> tuple[str, str]:
    folder = Path(sw.config_dir)
    frr_text = (folder / "frr.conf").read_text()
    ifaces = without_management((folder / "interfaces").read_text())
    if sw.vrf:
        return frr_for_vrf(frr_text, sw.vrf), interfaces_for_vrf(ifaces, sw.vrf)
    return frr_text, ifaces


# files a switch takes that no process of the twin reads: placed where the switch keeps them
DEVICE_WIDE = ("qos_features.conf", "ntp.conf", "rsyslog.conf", "resolv.conf")

# the shell line that sets a twin switch's kernel settings before its daemons start
SWITCH_SYSCTL_PRELUDE = "sysctl -q -w " + " ".join(f"{k}={v}" for k, v in SWITCH_SYSCTLS.items())


def restart_switch(sw: SwitchNs, frr_text: str, interfaces_text: str | None = None) -> None:
    """Restart one running switch's routing daemons on ``frr_text`` (what the oracle's edits do;
    raises TwinError when FRR refuses a line of it). With ``interfaces_text`` the switch boots again
    on both files: its ports are put back as the kernel made them (no address, down, the veth's
    MTU; the loopback up with 127.0.0.1 only), the daemons start, then ifupdown2 applies the new
    interfaces file, as at bring-up."""
    d = rundir(sw.ns)
    frr.stop(d)
    if sw.vrf:
        frr_text = frr_for_vrf(frr_text, sw.vrf)
    if interfaces_text is None:
        frr.start(sw.ns, sw.device, d, frr_text, prelude=[SWITCH_SYSCTL_PRELUDE])
        return
    ifaces = without_management(interfaces_text)
    if sw.vrf:
        ifaces = interfaces_for_vrf(ifaces, sw.vrf)
    reset = [cmd for port in fabric_ports(sw.ns)
             for cmd in (f"addr flush dev {port}", f"link set dev {port} down", f"link set dev {port} mtu {VETH_MTU}")]
    # the loopback as the system leaves it at boot, whatever the file says (systemd brings lo up)
    ip_batch(reset + ["link set dev lo down", "addr flush dev lo", "link set dev lo up"], namespace=sw.ns)
    (d / "interfaces").write_text(ifaces)
    frr.start(sw.ns, sw.device, d, frr_text, prelude=[SWITCH_SYSCTL_PRELUDE])
    ifup_in(sw.ns, d / "interfaces")


def ifup_in(ns: str, path: Path) -> None:
    """ifupdown2 applies ``path`` in ``ns`` as at boot, with its lock and state private to the call
    (translate.ifup_privately). Its exit status is not trusted either way (it exits 0 past
    unknown attributes): the callers test the result (`twin check`, the host oracle)."""
    in_ns(ns, ["sh", "-c", ifup_privately(str(path))], check=False, timeout=120)


def _bring_up_switch(sw: SwitchNs, cabled: set[str], cabling: Future[None], interfaces_mode: str = "ifupdown2") -> None:
    """Routing first, ports second: when a port comes up its BGP session starts against a peer
    that is already configured. The other order lets sessions come up half-way through
    `vtysh -b` (before the out-policy line is applied: a transient unfiltered advertisement and a
    route refresh later) and makes every early connect attempt fail and back off."""
    d = rundir(sw.ns)
    d.mkdir(parents=True, exist_ok=True)
    frr_text, ifaces = _switch_configs(sw)
    (d / "interfaces").write_text(ifaces)
    if sw.vrf:  # what the gateway runs as a whole (twin/gateway_driver.py reads and updates it)
        whole = {"frr.conf": (Path(sw.config_dir) / "frr.conf").read_text(),
                 "interfaces": without_management((Path(sw.config_dir) / "interfaces").read_text())}
        for name in DEVICE_WIDE:
            if (Path(sw.config_dir) / name).exists():
                whole[name] = (Path(sw.config_dir) / name).read_text()
        write_record(record_dir(rundir(ns_name(sw.device))), whole)
    for name in DEVICE_WIDE:  # placed as on a switch; no switchd/ntpsec/rsyslog reads them (TWIN-QOS-FILE)
        if (Path(sw.config_dir) / name).exists() and not sw.vrf:
            shutil.copyfile(Path(sw.config_dir) / name, d / name)
    (d / "firmware-version").write_text(sw.firmware + "\n")  # the drivers' firmware marker (twin)
    frr.start(sw.ns, sw.device, d, frr_text, prelude=[SWITCH_SYSCTL_PRELUDE])
    cabling.result()  # the ports exist from here on (raises if creating them failed)
    if interfaces_mode == "translate":
        ip_batch(interfaces_to_ip_batch(ifaces, cabled | {"lo"}), namespace=sw.ns)
    else:
        ifup_in(sw.ns, d / "interfaces")


def _bring_up_external(ext: ExternalNs) -> None:
    """A gateway's external peer: its address on its port, FRR announcing the planned prefixes."""
    d = rundir(ext.ns)
    d.mkdir(parents=True, exist_ok=True)
    in_ns(ext.ns, ["ip", "link", "set", "lo", "up"])
    in_ns(ext.ns, ["ip", "addr", "add", ext.address, "dev", EXTERNAL_PORT])
    in_ns(ext.ns, ["ip", "link", "set", EXTERNAL_PORT, "up"])
    frr.start(ext.ns, ext.name, d, external_frr(ext))


def _bring_up_server(ns: str, folder: Path) -> None:
    d = rundir(ns)
    d.mkdir(parents=True, exist_ok=True)
    # where the server's driver finds them (the NIC QoS program and unit only where rendered)
    for name in HOST_PATHS:
        if (folder / name).exists():
            shutil.copy(folder / name, d / name)
    in_ns(ns, ["sysctl", "-q", "-p", str(folder / "sysctl.conf")], check=False)
    in_ns(ns, ["ip", "link", "set", "lo", "up"])
    ifup_in(ns, d / "interfaces")
    if (d / "nic-qos.sh").exists():
        # veths take no NIC QoS: a double of the NICs does (twin/nic_double.py), factory-fresh, and
        # the program runs as the boot unit would, for real against it (it must exit 0)
        program = (d / "nic-qos.sh").read_text()
        double = nic_double.build(d / nic_double.FOLDER, nic_double.planned_ports(program), live_mtu=True)
        in_ns(ns, double.run_program(d / "nic-qos.sh"))


def up(output: Path, progress: Progress | None = None, workers: int = 6, servers: bool = True,
       management: bool = True, interfaces_mode: str = "ifupdown2") -> dict[str, Any]:
    """``interfaces_mode``: "ifupdown2" applies the rendered interfaces files with ifupdown2 itself
    (the default: the real consumer); "translate" applies them through a strict translation to
    `ip -batch` (for large twins; refuses any attribute it does not know)."""
    require_root()
    say = progress or (lambda _m: None)
    try:
        Manifest.load(output)
    except ManifestError as exc:
        raise TwinError(str(exc)) from None
    if load_state() or our_namespaces() or "drm0" in link_names():
        say("cleaning up a previous twin")
        down()
    started = time.monotonic()
    plan = build_plan(output)
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    state: dict[str, Any] = {"output": plan.output, "plan": asdict(plan), "started": time.time(),
                             "sysctls": {n: _sysctl_get(n) for n in NEIGH_SYSCTLS}}
    _state_path().write_text(json.dumps(state))
    links = len(plan.cables)
    _sysctl_set(NEIGH_SYSCTLS[0], str(max(1024, links * 2)))
    _sysctl_set(NEIGH_SYSCTLS[1], str(max(2048, links * 4)))
    _sysctl_set(NEIGH_SYSCTLS[2], str(max(4096, links * 8)))
    namespaces = [s.ns for s in plan.switches] + ([s.ns for s in plan.servers] if servers else [])
    namespaces += [e.ns for e in plan.externals]
    say(f"creating {len(namespaces)} namespaces and {links} cables")
    ip_batch([f"netns add {ns}" for ns in namespaces])
    cables = [c for c in plan.cables if servers or c.kind != "server-leaf"]
    say(f"starting FRR on {len(plan.switches)} switches")
    ports = _ports_by_namespace(cables)
    with ThreadPoolExecutor(workers) as pool:
        # the daemons need no cables: start them while the kernel creates the veth pairs
        cabling = pool.submit(ip_batch, [f"link add name {c.a_port} netns {c.a_ns} type veth peer name {c.b_port} "
                                         f"netns {c.b_ns}" for c in cables])
        list(pool.map(lambda sw: _bring_up_switch(sw, ports[sw.ns], cabling, interfaces_mode), _start_order(plan)))
        list(pool.map(_bring_up_external, plan.externals))
        if servers:
            say(f"configuring {len(plan.servers)} servers")
            list(pool.map(lambda s: _bring_up_server(s.ns, Path(s.config_dir)), plan.servers))
    if lldp.available():  # real LLDP frames on every cable, for the live audit
        say("starting lldpd in every namespace")
        speakers = [(s.ns, s.device) for s in plan.switches]
        speakers += [(s.ns, s.server) for s in plan.servers] if servers else []
        speakers += [(e.ns, e.name) for e in plan.externals]
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(lambda item: lldp.start(item[0], item[1], rundir(item[0])), speakers))
        state["lldp"] = True
    mgmt: dict[str, Any] = {}
    if management and plan.mgmt_network:
        say("starting the management network and sshd")
        mgmt = _management(plan, servers)
        state["management"] = mgmt
    state["bringup_seconds"] = round(time.monotonic() - started, 2)
    state["interfaces_mode"] = interfaces_mode
    state["servers_up"] = servers
    _state_path().write_text(json.dumps(state))
    return {"switch_namespaces": len(plan.switches), "server_namespaces": len(plan.servers) if servers else 0,
            "cables": len(cables), "seconds": state["bringup_seconds"], "management": mgmt}


def _start_order(plan: TwinPlan) -> list[SwitchNs]:
    """Upper tiers first: a leaf that starts after all its spines brings its sessions up together,
    so each prefix arrives over every spine at once and is installed once at full ECMP width,
    instead of being reinstalled with one more next hop as each spine appears."""
    tier = {"super_spine": 0, "spine": 1}
    return sorted(plan.switches, key=lambda s: tier.get(s.role, 2))


def _ports_by_namespace(cables: list[Cable]) -> dict[str, set[str]]:
    ports: dict[str, set[str]] = defaultdict(set)
    for c in cables:
        ports[c.a_ns].add(c.a_port)
        ports[c.b_ns].add(c.b_port)
    return ports


def _management(plan: TwinPlan, servers: bool = True) -> dict[str, Any]:
    net = ipaddress.IPv4Network(plan.mgmt_network or "")
    host_ip = f"{net.broadcast_address - 1}/{net.prefixlen}"
    run(["ip", "link", "add", MGMT_BRIDGE, "type", "bridge"])
    run(["ip", "addr", "add", host_ip, "dev", MGMT_BRIDGE])
    run(["ip", "link", "set", MGMT_BRIDGE, "up"])
    keys = sshd.make_keys(STATE_DIR / "ssh")
    commands = []
    # switches, and the servers that have a management address (when their namespaces are up)
    members: list[tuple[str, str, str]] = [(s.ns, s.device, s.mgmt_address) for s in plan.switches if s.mgmt_address]
    members += [(s.ns, s.server, s.mgmt_address) for s in plan.servers if s.mgmt_address and servers]
    for i, (ns, _name, _address) in enumerate(members):
        commands += [f"link add name drm{i} type veth peer name {MGMT_PORT} netns {ns}",
                     f"link set drm{i} master {MGMT_BRIDGE}", f"link set drm{i} up"]
    ip_batch(commands)
    hosts: dict[str, Any] = {}
    for ns, name, address in members:
        in_ns(ns, ["ip", "addr", "add", address, "dev", MGMT_PORT])
        in_ns(ns, ["ip", "link", "set", MGMT_PORT, "up"])
        ip = address.split("/")[0]
        sshd.start(ns, name, rundir(ns), ip, keys)
        hosts[name] = {"ns": ns, "address": ip, "rundir": str(rundir(ns))}
    sshd.write_known_hosts(keys, [h["address"] for h in hosts.values()])
    return {"bridge": MGMT_BRIDGE, "host_address": host_ip, "hosts": hosts, "identity": str(keys.client_key),
            "known_hosts": str(keys.known_hosts)}


def status() -> dict[str, Any]:
    state = load_state()
    if not state:
        return {"up": False, "namespaces": our_namespaces()}
    switches = state["plan"]["switches"]
    alive = {}
    for sw in switches:
        procs = frr.pids(rundir(sw["ns"]))
        alive[sw["ns"]] = {d: frr.alive(p) for d, p in procs.items()}
    return {"up": True, "output": state["output"], "bringup_seconds": state.get("bringup_seconds"),
            "namespaces": len(our_namespaces()), "daemons": alive,
            "substitutes": sorted(s["device"] for s in switches if s.get("substitute")),
            "vrf_namespaces": sorted(s["ns"] for s in switches if s.get("vrf"))}


def plan_from_state(state: dict[str, Any]) -> TwinPlan:
    from dualrail_net.twin.plan import ServerNs
    p = state["plan"]
    return TwinPlan(output=p["output"], switches=[SwitchNs(**s) for s in p["switches"]],
                    servers=[ServerNs(**s) for s in p["servers"]], cables=[Cable(**c) for c in p["cables"]],
                    mgmt_network=p.get("mgmt_network"), planes=p.get("planes", []),
                    externals=[ExternalNs(**e) for e in p.get("externals", [])])


def processes_of(ns: str) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]
