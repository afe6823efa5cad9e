"""The host's collective-communication setup (issue 20): what NCCL and UCX will use, and whether the
NIC QoS program runs at every boot.

* HOST-NCCL-TOPO: a server whose model lists its GPUs has an ``nccl-topo.xml`` that parses, that
  ``NCCL_TOPO_FILE`` names where it is deployed, and that places exactly the planned GPUs (by bus id)
  and RDMA devices, each on its planned socket. NCCL takes the file as the machine's truth: a GPU or
  NIC it lacks or misplaces pairs GPUs with far NICs (traffic over the CPU interconnect).
* HOST-NCCL-TRANSPORT: UCX uses exactly the server's RDMA devices, the RoCEv2 GID and the RoCE
  traffic class; each plane's HCA list (``DUALRAIL_PLANE_<P>_HCA``) holds exactly that plane's
  devices, each IB plane's (``DUALRAIL_IB_<P>_HCA``) the server's HCA port there; the QP timeout/retry are in the verbs range; NCCL bootstraps over the planned front-end
  interface, never a fabric port.
* HOST-NIC-QOS-UNIT: the unit runs the deployed NIC QoS program once per boot, before the network,
  and is installed for multi-user.target (otherwise a reboot comes up without PFC/ECN on the NICs).
"""

from __future__ import annotations

import re

from dualrail_net.manifest import TopologyNetEntry
from dualrail_net.render.servers import HOST_PATHS
from dualrail_net.resolve.model import BGP_TIMERS
from dualrail_net.verify.checks import BASE, TOPOLOGY, Context, check, finding
from dualrail_net.verify.checks.hosts import (
    ROCE_V2_IPV4_GID_INDEX,
    UCX_AUTO,
    UCX_REFUSED,
    hca_devices,
    nccl_number,
    roce_classes,
    traffic_class_fault,
    ucx_traffic_class,
    ucx_units,
)
from dualrail_net.verify.findings import Finding
from dualrail_net.verify.model import TopologyNet
from dualrail_net.verify.parsers.hostfiles import unit_conditions
MAX_IB_TIMEOUT = 31  # 5 bits in the QP attribute
MAX_RETRY_CNT = 7  # 3 bits
# NCCL's own values when the variable is not set (NCCL 2.14 and later)
NCCL_DEFAULT_IB_TIMEOUT = 20
NCCL_DEFAULT_RETRY_CNT = 7
# the QP's patience: (variable, NCCL's default, the verbs' largest value)
QP_SETTINGS = (("NCCL_IB_TIMEOUT", NCCL_DEFAULT_IB_TIMEOUT, MAX_IB_TIMEOUT),
               ("NCCL_IB_RETRY_CNT", NCCL_DEFAULT_RETRY_CNT, MAX_RETRY_CNT))
# How long a plane may lose a path's packets before it routes around the loss by itself: a link that
# dies without its carrier going down is found when BGP's hold time runs out, the plan's (every
# session is held to it: BGP-HOLD-TIME). A QP that gives up sooner fails the job where the plane recovers.
PLANE_RECOVERY_S = float(BGP_TIMERS[1])


@check("HOST-NCCL-TOPO", "the NCCL topology file places the planned GPUs and NICs on their sockets, and NCCL reads it",
       reads={BASE, TOPOLOGY})
def nccl_topology(ctx: Context) -> list[Finding]:
    out = []
    models = ctx.snap.manifest.server_models
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        plan = models.get(entry.model)
        if srv is None or plan is None or not plan.gpus:
            continue
        where = f"servers/{name}/nccl-topo.xml"
        path = HOST_PATHS["nccl-topo.xml"]
        if srv.env.get("NCCL_TOPO_FILE") != path:
            out.append(finding([name], "", f"{name}: NCCL_TOPO_FILE is {srv.env.get('NCCL_TOPO_FILE') or 'not set'}, "
                               f"not {path}", "NCCL then guesses the PCIe tree (or reads another file)"))
        topo = srv.topology
        if topo is None:
            out.append(finding([name], "", f"{where}: missing (model {entry.model} lists its GPUs)",
                               "NCCL_TOPO_FILE names a file that is not deployed: NCCL fails at init"))
            continue
        if topo.error:
            out.append(finding([name], "", f"{where}: does not parse ({topo.error})",
                               "NCCL refuses the file and the job fails at init"))
            continue
        for busid, numa in plan.gpus.items():
            got = topo.gpus.get(busid, -1)
            if got == -1:
                out.append(finding([name], "", f"{where}: GPU {busid} is not in the file",
                                   "NCCL pairs that GPU with no local NIC: its traffic crosses the CPU"))
            elif got != numa:
                out.append(finding([name], "", f"{where}: GPU {busid} is under socket {got}, the plan says {numa}",
                                   "NCCL pairs it with the wrong socket's NICs"))
            elif (bridge := plan.gpu_bridge.get(busid)) is not None and topo.gpu_bridges.get(busid) != bridge:
                out.append(finding([name], "", f"{where}: GPU {busid} is under PCIe switch "
                                   f"{topo.gpu_bridges.get(busid) or '(none)'}, the plan says {bridge}",
                                   "NCCL pairs it with another switch's NIC: its traffic crosses the CPU and "
                                   "leaves on another rail"))
        for busid in sorted(set(topo.gpus) - set(plan.gpus)):
            out.append(finding([name], "", f"{where}: GPU {busid} is not one of model {entry.model}'s GPUs",
                               "NCCL builds rings over a device the server does not have"))
        planned = {p.rdma_device: p.plane for p in entry.ports}
        seen: set[str] = set()
        for net in topo.nets:
            if net.name not in planned:
                out.append(finding([name], "", f"{where}:{net.line}: net {net.name or '(no name)'} is not an RDMA "
                                   "device of the server", "NCCL uses a device outside the fabric plan"))
                continue
            if net.name in seen:
                out.append(finding([name], planned[net.name], f"{where}:{net.line}: net {net.name} appears twice",
                                   "NCCL counts the port twice and overloads it"))
            seen.add(net.name)
            want = plan.nic_numa.get(net.name)
            if want is not None and net.numa != want:
                out.append(finding([name], planned[net.name], f"{where}:{net.line}: {net.name} is under socket "
                                   f"{net.numa}, the plan says {want}", "NCCL pairs it with the wrong GPUs"))
            elif (place := plan.nets.get(net.name)) is not None:
                out += _net_faults(name, planned[net.name], where, net, place)
        for device in sorted(set(planned) - seen):
            out.append(finding([name], planned[device], f"{where}: RDMA device {device} (plane {planned[device]}) "
                               "is not in the file", "NCCL does not see the port: its plane loses that rail"))
    return out


def _net_faults(server: str, plane: str, where: str, net: TopologyNet, place: TopologyNetEntry) -> list[Finding]:
    """One ``<net>`` against its planned place and attributes. NCCL takes an attribute the file
    writes over what it detects (its xml initialises one only when the file lacks it): a wrong
    ``dev`` drives another device than the name says, a wrong speed skews its rings, ``gdr="0"``
    stages every transfer through host memory."""
    at = f"{where}:{net.line}: {net.name}"
    if net.nic_busid != place.nic_busid:
        return [finding([server], plane, f"{at} is on the NIC at {net.nic_busid or '(none)'}, the plan says "
                        f"{place.nic_busid}", "NCCL pairs the GPUs beside that NIC with this port: their traffic "
                        "crosses the CPU and leaves on another rail")]
    if net.bridge != place.bridge:
        return [finding([server], plane, f"{at}'s NIC is under PCIe switch {net.bridge or '(none)'}, the plan says "
                        f"{place.bridge}", "NCCL pairs it with the wrong GPUs")]
    out = []
    for attribute, value, planned, why in (
            ("dev", net.dev, str(place.dev), "NCCL drives the device of that index, not the one named"),
            ("port", net.port, str(place.port), "NCCL opens another port of the device"),
            ("speed", net.speed, str(place.speed), "NCCL weighs the port's bandwidth wrongly in its rings and trees"),
            ("gdr", net.gdr, "1", "NCCL stops using GPUDirect RDMA: every transfer is staged through host memory")):
        if value is not None and value.strip() != planned:
            out.append(finding([server], plane, f"{at} has {attribute}=\"{value}\", the plan says {planned}", why))
    # the NIC's PCIe link: NCCL takes the file's over what it detects (one not written is detected,
    # the hardware's own) and weighs the GPU-NIC path by it
    for attribute, value, planned in (("link_speed", net.link_speed, place.link_speed),
                                      ("link_width", net.link_width, str(place.link_width) if place.link_width else "")):
        if value is not None and value.strip() != planned:
            out.append(finding([server], plane, f"{at}'s NIC has {attribute}=\"{value}\", the plan says "
                               f"{planned or '(not written: detected)'}",
                               "NCCL weighs the GPU-NIC path by the PCIe link the file gives: a wrong one sends "
                               "GPUs' traffic to a farther NIC or shrinks their rings' bandwidth"))
    return out


def ucx_net_devices(value: str | None) -> list[str]:
    """The resources UCX_NET_DEVICES selects, as ucp_is_resource_in_device_list matches them: the
    comma-separated names (empty ones skipped, nothing stripped, no ranges or `^`) each equal to a
    resource's name exactly, an RDMA port's being `device:port` and a TCP one's its interface;
    `all` anywhere (and the variable unset: UCX's default) selects every resource of the host,
    returned as ["all"]. Sorted, each once."""
    names = {item for item in (value if value is not None else "all").split(",") if item}
    return ["all"] if "all" in names else sorted(names)


@check("HOST-NCCL-TRANSPORT", "UCX and per-plane HCA lists use exactly the planned devices, RoCEv2 and the RoCE class; "
       "sane QP timeouts; bootstrap off the fabric", reads={BASE, TOPOLOGY})
def nccl_transport(ctx: Context) -> list[Finding]:
    out = []
    markers = ctx.snap.manifest.qos_markers
    models = ctx.snap.manifest.server_models
    for name, entry in ctx.snap.manifest.servers.items():
        srv = ctx.snap.servers.get(name)
        if srv is None or not entry.ports:
            continue
        env = srv.env
        planned = sorted(p.rdma_device for p in entry.ports)
        ucx = ucx_net_devices(env.get("UCX_NET_DEVICES"))
        ports = sorted(f"{device}:1" for device in planned)  # (sorted as names: mlx5_10:1 after mlx5_1:1)
        if ucx != ports:
            bare = [entry for entry in ucx if ":" not in entry and entry in planned]
            said = "is not set (UCX's default):" if "UCX_NET_DEVICES" not in env else "selects"
            out.append(finding([name], "", f"{name}: UCX_NET_DEVICES {said} {', '.join(ucx) or 'nothing'}, the "
                               f"server's RDMA ports are {', '.join(ports)}"
                               + (f" (UCX matches `device:port` names exactly: {', '.join(bare)} names no port)"
                                  if bare else ""),
                               "MPI traffic leaves part of the fabric idle or uses a device outside the plan"))
        gid = ucx_units(env.get("UCX_IB_GID_INDEX"))
        if gid != ROCE_V2_IPV4_GID_INDEX:
            # (auto, UCX's default, is held to the plan as NCCL's unset index is: which GID UCX then
            # picks depends on its version and on the port's GID table)
            reading = ("not set" if "UCX_IB_GID_INDEX" not in env else f"{env['UCX_IB_GID_INDEX']}"
                       + (" (UCX refuses it: its context does not start)" if gid == UCX_REFUSED
                          else " (UCX chooses the GID itself)" if gid == UCX_AUTO else f" (UCX reads {gid})"))
            out.append(finding([name], "", f"{name}: UCX_IB_GID_INDEX is {reading}, "
                               f"not {ROCE_V2_IPV4_GID_INDEX} (RoCEv2, IPv4-mapped)",
                               "UCX picks another GID: RoCEv1 or IPv6 link-local is not routed between leaves"))
        wanted = roce_classes(markers, entry.planes)
        fault = traffic_class_fault(env.get("UCX_IB_TRAFFIC_CLASS"), wanted, ucx_traffic_class) if wanted else None
        if fault:
            out.append(finding([name], "", f"{name}: UCX_IB_TRAFFIC_CLASS {fault}",
                               "MPI traffic arrives in a class without PFC and ECN, or marked congested"))
        for plane in entry.planes:
            key = f"DUALRAIL_PLANE_{plane}_HCA"
            mine = sorted(p.rdma_device for p in entry.ports if p.plane == plane)
            got = sorted(hca_devices(env.get(key)))
            if got != mine:
                out.append(finding([name], plane, f"{name}: {key} lists {', '.join(got) or 'nothing'}, plane {plane}'s "
                                   f"devices are {', '.join(mine)}",
                                   "a job pinned to this plane would run over the other plane (or none)"))
        for ib_plane, meta in ctx.snap.manifest.ib_planes.items():
            device = meta.devices.get(name)
            if device is None:
                continue
            key = f"DUALRAIL_IB_{ib_plane}_HCA"
            got_ib = hca_devices(env.get(key))
            if got_ib != [device]:
                out.append(finding([name], "", f"{name}: {key} is {env.get(key) or 'not set'}, its HCA port in IB plane "
                                   f"{ib_plane} is {device}", "an IB job would use another plane's port, or none"))
        for key, _, top in QP_SETTINGS:
            value = env.get(key)
            number = nccl_number(value)
            if value and (number is None or not 0 < number <= top):
                out.append(finding([name], "", f"{name}: {key}={value} is outside 1-{top}",
                                   "the verbs layer rejects the QP attribute: NCCL fails to connect"))
        out += _qp_patience(name, env)
        plan = models.get(entry.model)
        if plan is not None and plan.bootstrap_ifname:
            value = env.get("NCCL_SOCKET_IFNAME", "")
            if value.lstrip("=") != plan.bootstrap_ifname:
                out.append(finding([name], "", f"{name}: NCCL_SOCKET_IFNAME is {value or 'not set'}, the model "
                                   f"bootstraps over {plan.bootstrap_ifname}",
                                   "NCCL's bootstrap may pick a fabric port: a plane fault then kills the job"))
        out += _transport_choice(name, env, len(entry.planes))
        if plan is not None and plan.bootstrap_ifname and "OMPI_MCA_btl_tcp_if_include" in env \
                and env["OMPI_MCA_btl_tcp_if_include"] != plan.bootstrap_ifname:
            out.append(finding([name], "", f"{name}: OMPI_MCA_btl_tcp_if_include is "
                               f"{env['OMPI_MCA_btl_tcp_if_include'] or 'empty'}, the model's front-end interface is "
                               f"{plan.bootstrap_ifname}", "Open MPI's TCP traffic may ride a fabric port: a plane "
                               "fault then kills the job"))
        fabric_ports = {p.ifname for p in entry.ports}
        named = {item.lstrip("=^") for item in env.get("NCCL_SOCKET_IFNAME", "").split(",") if item}
        if named & fabric_ports and not env.get("NCCL_SOCKET_IFNAME", "").startswith("^"):
            out.append(finding([name], "", f"{name}: NCCL_SOCKET_IFNAME names fabric port(s) "
                               f"{', '.join(sorted(named & fabric_ports))}",
                               "bootstrap and out-of-band traffic would die with that port's plane"))
    return out


def qp_gives_up_after(timeout: int, retries: int) -> float:
    """Seconds a QP waits for an ACK before it fails: 4.096 us x 2^timeout for the first try and
    for each of ``retries`` retries (the verbs' local ACK timeout; 0 is "wait forever")."""
    return float("inf") if timeout == 0 else 4.096e-6 * (1 << timeout) * (retries + 1)


def _qp_patience(name: str, env: dict[str, str]) -> list[Finding]:
    """NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT (NCCL's defaults when not set; an out-of-range value is
    reported above) against the time the plane takes to route around a silently dead link."""
    values = []
    for key, default, top in QP_SETTINGS:
        number = nccl_number(env.get(key))
        if number is None:
            values.append(default)
        elif 0 < number <= top:
            values.append(number)
        else:
            return []
    waits = qp_gives_up_after(*values)
    if waits >= PLANE_RECOVERY_S:
        return []
    said = ", ".join(f"{key}={env[key]}" if key in env else f"{key} not set (NCCL's default {default})"
                     for key, default, _ in QP_SETTINGS)
    return [finding([name], "", f"{name}: {said}: a QP gives up after {_duration(waits)} without an ACK; a link "
                    f"that dies silently in a plane loses packets until BGP's hold time ({PLANE_RECOVERY_S:g} s) "
                    "takes its paths away", "the job fails on a fault its plane recovers from by itself")]


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.1f} s"


NCCL_MAX_QPS = 128  # NCCL_IB_QPS_PER_CONNECTION's largest value (NCCL_IB_MAX_QPS)
# UCX's transports over RDMA (verbs and mlx5 accelerated), and the aliases that take them all
UCX_RDMA_TRANSPORTS = frozenset({"rc", "rc_v", "rc_x", "rc_verbs", "rc_mlx5", "dc", "dc_x", "dc_mlx5",
                                 "ud", "ud_v", "ud_x", "ud_verbs", "ud_mlx5"})
UCX_RDMA_ALIASES = frozenset({"all", "ib"})


def ucx_takes_rdma(tls: str) -> bool:
    """Whether UCX_TLS leaves UCX an RDMA transport: a list names what it may use ("all" and "ib"
    take every RDMA transport); a list after "^" names what it may not."""
    excluded = tls.startswith("^")
    items = {item.strip().split("\\")[0].lower() for item in tls.lstrip("^").split(",") if item.strip()}
    if excluded:
        return not (items & UCX_RDMA_ALIASES or UCX_RDMA_TRANSPORTS <= items)
    return bool(items & (UCX_RDMA_TRANSPORTS | UCX_RDMA_ALIASES))


# NCCL's path levels, nearest first (NCCL_P2P_LEVEL, NCCL_NET_GDR_LEVEL): LOC (or 0) never uses the path
NCCL_NEVER_LEVELS = frozenset({"LOC", "0"})


def _paths_turned_off(env: dict[str, str]) -> list[tuple[str, str, str]]:
    """The data paths a server's NCCL settings switch off for every GPU: (variable, value, what)."""
    out = []
    if nccl_number(env.get("NCCL_P2P_DISABLE")):
        out.append(("NCCL_P2P_DISABLE", env["NCCL_P2P_DISABLE"], "GPUs never reach each other directly (NVLink, PCIe)"))
    if env.get("NCCL_P2P_LEVEL", "").strip().upper() in NCCL_NEVER_LEVELS:
        out.append(("NCCL_P2P_LEVEL", env["NCCL_P2P_LEVEL"], "GPUs never reach each other directly (NVLink, PCIe)"))
    if env.get("NCCL_NET_GDR_LEVEL", "").strip().upper() in NCCL_NEVER_LEVELS:
        out.append(("NCCL_NET_GDR_LEVEL", env["NCCL_NET_GDR_LEVEL"], "NCCL never uses GPUDirect RDMA, though every "
                    "NIC sits beside its GPUs"))
    return out


def _transport_choice(name: str, env: dict[str, str], planes: int) -> list[Finding]:
    """Whether NCCL takes the RDMA transport at all, and keeps each ring on one NIC."""
    out = []
    if nccl_number(env.get("NCCL_IB_DISABLE")):
        out.append(finding([name], "", f"{name}: NCCL_IB_DISABLE={env['NCCL_IB_DISABLE']}: NCCL never uses the "
                           "RDMA ports", "every collective falls back to TCP sockets: a fraction of the fabric's "
                           "bandwidth"))
    for variable, value, why in _paths_turned_off(env):
        out.append(finding([name], "", f"{name}: {variable}={value}: {why}", "the server's GPUs move their data "
                           "through host memory: collectives run at a fraction of the fabric's bandwidth"))
    net = env.get("NCCL_NET")
    if net is not None and net.upper() != "IB":
        why = ("every collective runs over TCP sockets" if net.lower() == "socket" else
               "collectives leave the planned RDMA ports (a network plugin the plan does not know)")
        out.append(finding([name], "", f"{name}: NCCL_NET={net or '(empty)'}: NCCL uses that network, not its RDMA "
                           "(IB verbs) transport", why))
    qps = nccl_number(env.get("NCCL_IB_QPS_PER_CONNECTION"))
    if qps is not None and not 1 <= qps <= NCCL_MAX_QPS:
        out.append(finding([name], "", f"{name}: NCCL_IB_QPS_PER_CONNECTION={env['NCCL_IB_QPS_PER_CONNECTION']}: not "
                           f"1 to {NCCL_MAX_QPS} queue pairs per connection", "NCCL refuses the value or opens no "
                           "queue pair: the job fails at connect"))
    tls = env.get("UCX_TLS")
    if tls is not None and not ucx_takes_rdma(tls):
        out.append(finding([name], "", f"{name}: UCX_TLS={tls or '(empty)'}: UCX takes no RDMA transport (rc, dc, ud)",
                           "MPI traffic (Open MPI's pml ucx) runs over TCP or not at all, never the RDMA ports"))
    cross = nccl_number(env.get("NCCL_CROSS_NIC"))
    if planes > 1 and cross != 0:
        said = f"{env['NCCL_CROSS_NIC']}" if cross is not None else "not set (NCCL takes its default, 2)"
        out.append(finding([name], "", f"{name}: NCCL_CROSS_NIC is {said}: a ring may join different NICs on two "
                           "servers", "on planes that never reach each other a plane-A NIC cannot connect to a "
                           "plane-B NIC: the job hangs at connect (0 keeps each ring on its NIC)"))
    return out


# What verify judges in nccl.env (any other name is reported by HOST-UNMODELLED): the names the
# checks read, and what changes nothing on these planes: debug output; the service level (routed,
# untagged ports carry no PCP: the switch and the NIC classify by DSCP); the RoCE version, address
# family and address range NCCL looks for when it picks a GID itself (NCCL_IB_GID_INDEX left at -1:
# HOST-NCCL-GID requires the index set, and a set index wins over all three).
JUDGED_ENV = frozenset({
    "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_CROSS_NIC", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT",
    "NCCL_TOPO_FILE", "NCCL_SOCKET_IFNAME", "NCCL_IB_DISABLE", "NCCL_NET", "OMPI_MCA_btl_tcp_if_include",
    "UCX_NET_DEVICES", "UCX_IB_GID_INDEX", "UCX_IB_TRAFFIC_CLASS", "UCX_TLS",
    "NCCL_IB_QPS_PER_CONNECTION", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_IB_SL",
    "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL",
    "NCCL_NET_GDR_LEVEL"})
JUDGED_ENV_PATTERN = re.compile(r"DUALRAIL_(?:PLANE|IB)_[A-Za-z0-9]+_HCA")


def judged_env(key: str) -> bool:
    return key in JUDGED_ENV or JUDGED_ENV_PATTERN.fullmatch(key) is not None


@check("HOST-NIC-QOS-UNIT", "the NIC QoS program runs at every boot, before the network comes up",
       reads={BASE, TOPOLOGY})
def nic_qos_unit(ctx: Context) -> list[Finding]:
    out = []
    program = HOST_PATHS["nic-qos.sh"]
    expected = {"Service.ExecStart": program, "Service.Type": "oneshot", "Install.WantedBy": "multi-user.target",
                "Unit.Before": "network.target"}
    why = {"Service.ExecStart": "the unit runs something other than the deployed NIC QoS program",
           "Service.Type": "a non-oneshot unit is not finished before the network starts",
           "Install.WantedBy": "the unit is not started at boot: after a reboot the NICs run without PFC/ECN",
           "Unit.Before": "the ports may come up and carry RoCE before the NICs' QoS is set"}
    for name, srv in ctx.snap.servers.items():
        if not srv.nic_qos_file:
            continue  # HOST-NIC-QOS reports a missing program
        unit = srv.nic_qos_unit
        if unit is None:
            out.append(finding([name], "", f"servers/{name}/dualrail-nic-qos.service: missing",
                               "nothing runs nic-qos.sh at boot: after a reboot the NICs run without PFC/ECN"))
            continue
        for key, want in expected.items():
            got = unit.get(key)
            words = (got or "").split()
            if (got != want) if key != "Unit.Before" else (want not in words):
                reason = why[key]
                if key == "Service.ExecStart" and got is not None and got.lstrip("-@:+!") == want and "-" in \
                        got[:len(got) - len(want)]:
                    # systemd's `-` prefix: the program's failure is ignored
                    reason = ("its failure is ignored (systemd's `-` prefix): the unit succeeds while the NICs run "
                              "without the QoS it could not set, and nothing reports it")
                out.append(finding([name], "", f"servers/{name}/dualrail-nic-qos.service: {key.replace('.', ' ')}="
                                   f"{got if got is not None else '(not set)'}, not {want}", reason))
        for key, value in unit_conditions(unit):
            out.append(finding([name], "", f"servers/{name}/dualrail-nic-qos.service: {key.partition('.')[2]}="
                               f"{value.splitlines()[-1]}: the program runs only when that holds on the host",
                               "systemd skips the unit (or fails it) when the condition does not hold, and verify "
                               "cannot know the host's state: the NICs may boot without PFC/ECN"))
    return out
