"""Parsers from rendered files back into the vendor-neutral model (verify.model).

Each platform's reader of a device folder is part of its plug-in (``Platform.parser()``, see
``dualrail_net/platforms``); this package holds the format readers they share (FRR, ifupdown2,
the indented-tree reader), the servers' reader, and the joining of a device's two parts."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import replace
from collections.abc import Iterable
from pathlib import Path

from dualrail_net.platforms import PlatformError, PlatformParser, get_platform
from dualrail_net.verify.ipfast import MASKS, ip_int, network_of
from dualrail_net.verify.model import NicQosPort, DeviceConfig, ServerConfig, StaticRoute
from dualrail_net.verify.parsers.hostfiles import TOPOLOGY_FILE, UNIT_FILE, read_topology, read_unit
from dualrail_net.verify.parsers.files import UnreadableFile, read_text, read_text_noting_cr
from dualrail_net.verify.parsers.ifupdown import NOT_AUTO, apply_link_commands, read_interfaces, server_policy
from dualrail_net.verify.parsers.link import lag_members_down

__all__ = ["ROUTING_FIELDS", "PlatformParser", "UnreadableFile", "add_routing", "parse_device", "parse_server",
           "platform_parser", "read_text"]

# what a routing part sets; it also names VRFs (DeviceConfig.vrfs, without tables)
ROUTING_FIELDS = ("hostname", "bgp", "prefix_lists", "route_maps", "static_routes", "vrf_route_leaks", "vrf_leak_maps",
                  "unmodelled",
                  "routing_file", "frr_defaults", "undefined_refs", "match_list_names", "routing_off", "forwarding_off", "fib_filters",
                  "nht_default",
                  "acls", "acl_in", "acl_out", "control_plane_acls", "service_acls", "acl_file", "api_port", "as_path_lists",
                  "refused_lines")


_PARSERS: dict[str, PlatformParser] = {}

POST_UP_UNREAD = "post-up command: "  # how a server's post-up command the host model does not read is reported


def platform_parser(name: str, platform: str) -> PlatformParser:
    parser = _PARSERS.get(platform)
    if parser is None:
        try:
            parser = _PARSERS[platform] = get_platform(platform).parser()
        except PlatformError as exc:
            raise ValueError(f"{exc} (device {name})") from None
    return parser


def add_routing(dev: DeviceConfig, routing: DeviceConfig) -> DeviceConfig:
    """``dev`` (a base part) with ``routing`` (its routing part) added: the same model as reading
    the routing file after the others, VRFs named only there included (after the others, untabled)."""
    for name in ROUTING_FIELDS:
        setattr(dev, name, getattr(routing, name))
    if any(route.via_port is not None for route in dev.static_routes):
        settle_port_gateways(dev)
    if dev.kernel_routes:  # (after the routing file's own: a file's `no ip route` does not take them back)
        dev.static_routes = [*dev.static_routes, *dev.kernel_routes]
    for vrf in routing.vrfs:
        dev.vrfs.setdefault(vrf, None)
    dev.names += routing.names  # each part's own statements naming the device (SONiC: config_db and frr.conf)
    return dev


def settle_port_gateways(dev: DeviceConfig) -> None:
    """Each `ip route PREFIX GATEWAY PORT` of ``dev`` as zebra takes it (its nexthop_active: an
    IPV4_IFINDEX hop is active only when the gateway's connected route, the longest, is on that
    port): a plain gateway route when the port is up and holds that subnet in the route's next-hop
    VRF, else out of the table, with why (``inactive_statics``)."""
    # the up ports' connected subnets, per VRF: (length, network) -> the port (the first to hold
    # it, as the kernel keeps the first route of a prefix); a lookup is one probe per length
    connected: dict[str | None, dict[tuple[int, int], str]] = {}
    for iface in dev.interfaces.values():
        if not iface.down:
            held = connected.setdefault(iface.vrf, {})
            for address in iface.addresses:
                net, length = network_of(address)
                held.setdefault((length, net), iface.name)
    kept = []
    for route in dev.static_routes:
        if route.via_port is None:
            kept.append(route)
            continue
        off_port = _port_gateway_refusal(dev, connected, route, route.via_port)
        why = _onlink_refusal(dev, route, route.via_port) if route.onlink else off_port
        if why:
            dev.inactive_statics.append((route, why))
            continue
        # an onlink gateway on no subnet of the port is installed all the same: what leaves by the
        # port is the model's (a route out of the port); the kernel asks the link for the gateway
        kept.append(replace(route, nexthop=route.via_port if off_port else route.nexthop, via_port=None,
                            onlink=False))
    dev.static_routes = kept


def _next_hop_vrf(route: StaticRoute) -> str | None:
    """The VRF a static route's next hop is looked up in (None: the default VRF)."""
    vrf = route.nexthop_vrf if route.nexthop_vrf is not None else route.vrf
    return None if vrf == "default" else vrf


def _onlink_refusal(dev: DeviceConfig, route: StaticRoute, port: str) -> str:
    """Why zebra leaves an `onlink` hop out of ``port`` inactive (staticd's onlink flag: the
    port's state and VRF alone decide); "" when it installs it. A port the routing side does not
    know (it knows the addressed ones: partitioned.py) is judged as one without an address."""
    named = dev.interfaces.get(port)
    if named is None or not named.addresses:
        return f"{port} is no addressed port of the device (an onlink hop out of it is taken as not installed)"
    vrf = _next_hop_vrf(route)
    if named.vrf != vrf:
        return f"{port} is in {'VRF ' + named.vrf if named.vrf else 'the default VRF'}, not the next hop's"
    return f"{port} is down" if named.down else ""


def _port_gateway_refusal(dev: DeviceConfig, connected: dict[str | None, dict[tuple[int, int], str]],
                          route: StaticRoute, port: str) -> str:
    """Why zebra leaves ``route`` (a gateway on ``port``) inactive; "" when it installs it."""
    assert route.nexthop is not None
    vrf = _next_hop_vrf(route)
    named = dev.interfaces.get(port)
    if named is not None and named.down:
        return f"{port} is down"
    holder = connected_holder(connected.get(vrf, {}), ip_int(route.nexthop))
    if holder is None:
        return f"no up port of {'VRF ' + vrf if vrf else 'the default VRF'} has a subnet holding {route.nexthop}"
    return f"{route.nexthop} is on {holder}'s subnet, not on {port}'s" if holder != port else ""


def connected_holder(held: dict[tuple[int, int], str], address: int) -> str | None:
    """The port of the longest of ``held`` (connected subnets: (length, network) -> port) holding
    ``address``: one probe per prefix length, longest first (``connected_holder_plain`` is the
    reference, a scan of every subnet)."""
    return next((held[key] for length in range(32, -1, -1) if (key := (length, address & MASKS[length])) in held),
                None)


def connected_holder_plain(held: dict[tuple[int, int], str], address: int) -> str | None:
    best: tuple[int, str] | None = None
    for (length, net), port in held.items():
        if address & MASKS[length] == net and (best is None or length > best[0]):
            best = (length, port)
    return best[1] if best else None


def parse_device(name: str, platform: str, folder: Path) -> DeviceConfig:
    parser = platform_parser(name, platform)
    dev = parser.base(name, folder)
    return add_routing(dev, parser.routing(name, folder)) if parser.routing else dev


_VRF_LINE = re.compile(r"\s*vrf(?:-table)?\s")


# the MTU ifupdown2 gives a physical port whose stanza sets none, on every ifup and ifreload
# (addons/address.py: DEFAULT_MTU_STRING, unless a policy file says otherwise; the rendered folder
# ships none for servers)
IFUPDOWN2_DEFAULT_MTU = 1500


def parse_server(name: str, folder: Path, nic_ports: Iterable[str] = ()) -> ServerConfig:
    """``nic_ports``: the server's NIC ports (the manifest's): a stanza of one without an `mtu`
    line runs ifupdown2's default MTU (a bond's member keeps the bond's)."""
    interfaces_text = read_text(folder / "interfaces")
    parsed = read_interfaces(interfaces_text)
    defaulted = {port for port in nic_ports if port in parsed.interfaces and parsed.interfaces[port].mtu is None
                 and port not in parsed.lag_members}
    for port in defaulted:
        parsed.interfaces[port].mtu = IFUPDOWN2_DEFAULT_MTU
    # a stanza without its `auto` line is never applied at boot: no address, no gateway, none of
    # its post-up commands (the port is there, down)
    skipped = {name for name, iface in parsed.interfaces.items() if iface.down == NOT_AUTO}
    for name in skipped:
        parsed.interfaces[name].addresses = []
        parsed.gateways.pop(name, None)
    other: list[int] = []
    # in the order ifupdown2 brings the stanzas up: a stanza's `gateway` route, then its post-up
    # commands (a route is installed only over the ports that are up by then)
    order = {name: i for i, name in enumerate(parsed.interfaces)}
    tagged = [(name, f"ip route add default via {gw} dev {name}", parsed.gateway_lines.get(name, 0))
              for name, gw in parsed.gateways.items()]
    applied = apply_link_commands(parsed, bounce=False, forwarding=False)  # `ip link set`, `ip address`
    tagged += [t for number, t in enumerate(zip(parsed.command_ports, parsed.commands, parsed.command_lines))
               if t[0] not in skipped and number not in applied]
    tagged.sort(key=lambda t: order.get(t[0], len(order)))
    routes, rules = server_policy([cmd for _, cmd, _ in tagged], other, [port for port, _, _ in tagged])
    srv = ServerConfig(name=name, interfaces=parsed.interfaces, routes=routes, rules=rules,
                       added_later=parsed.added_later, default_mtu=defaulted)
    srv.unmodelled += [("interfaces", line, text) for line, text in parsed.unmodelled]
    for port, line in parsed.stanza_lines.items():
        srv.line_of[("interfaces", port)] = line
    if parsed.lag_members:  # a bond's members: down as routed ports (but in a bond with an address)
        srv.unmodelled += lag_members_down(parsed.interfaces, {
            port: (bond, "interfaces", line) for port, (bond, line) in parsed.lag_members.items()})
    # a server port in a VRF (or a VRF device): its routes, rules and lookups leave the main
    # table's model (the l3mdev rule decides first): not judged, and said so
    if "vrf" in interfaces_text:  # (rare: a rendered server file has none)
        srv.unmodelled += [("interfaces", number, line.strip())
                           for number, line in enumerate(interfaces_text.split("\n"), 1) if _VRF_LINE.match(line)]
    srv.unmodelled += [("interfaces", tagged[i][2], f"{POST_UP_UNREAD}{tagged[i][1]}") for i in other]
    env_text, cr = read_text_noting_cr(folder / "nccl.env")
    srv.carriage_returns += [("nccl.env", cr)] if cr else []
    _read_env(env_text, srv)
    _read_sysctl(read_text(folder / "sysctl.conf"), srv)
    if (folder / "nic-qos.sh").exists():
        program, cr = read_text_noting_cr(folder / "nic-qos.sh")
        srv.carriage_returns += [("nic-qos.sh", cr)] if cr else []
        read_nic_qos(program, srv)
    if (folder / UNIT_FILE).exists():
        read_unit(read_text(folder / UNIT_FILE), srv)
    if (folder / TOPOLOGY_FILE).exists():
        read_topology(read_text(folder / TOPOLOGY_FILE), srv)
    return srv


PLAN_START = "# --- the plan:"
PLAN_END = "# --- end of the plan ---"
_PORT_WORD = re.compile(r"[A-Za-z0-9_.:-]+")
_SETTING = re.compile(r"([a-z_]+)=([0-9a-z,]+)")


def read_nic_qos_plain(text: str, srv: ServerConfig) -> None:
    """nic-qos.sh: the plan's ``port IF RDMA key=value...`` lines (anything else inside the plan is
    not modelled), and the program's code lines around it (compared with the shipped program). The
    reference of ``read_nic_qos``."""
    srv.nic_qos_file = True
    _scan_nic_qos(text, 1, False, srv)


def _scan_nic_qos(text: str, first: int, inside: bool, srv: ServerConfig) -> bool:
    """The lines of ``text`` (numbered from ``first``) from state ``inside``; the state at its end."""
    for number, line in enumerate(text.split("\n"), first):
        stripped = line.strip()
        if stripped.startswith(PLAN_START):
            inside = True
            continue
        if stripped == PLAN_END:
            inside = False
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if not inside:
            srv.nic_qos_program.append((number, stripped))
            continue
        words = stripped.split()
        if srv.nic_qos_exit is not None:  # the shell never gets here: nothing below is applied
            continue
        if words[0] == "exit" and len(words) <= 2:
            # (still reported: the status the program would end with after the plan is not reached)
            srv.nic_qos_exit = (number, stripped)
            srv.unmodelled.append(("nic-qos.sh", number, stripped))
            continue
        settings = {}
        ok = len(words) >= 3 and words[0] == "port" and all(_PORT_WORD.fullmatch(w) for w in words[1:3])
        for word in words[3:]:
            m = _SETTING.fullmatch(word)
            if m is None or m.group(1) in settings:
                ok = False
                break
            settings[m.group(1)] = m.group(2)
        earlier = srv.nic_qos.get(words[1]) if ok else None
        if ok and earlier is None:
            srv.nic_qos[words[1]] = NicQosPort(words[1], words[2], settings, number)
        elif ok and earlier is not None and earlier.rdma_device == words[2]:
            srv.nic_qos[words[1]] = NicQosPort(words[1], words[2], port_again(earlier.settings, settings), number)
        else:
            srv.unmodelled.append(("nic-qos.sh", number, stripped))
    return inside


def port_again(before: dict[str, str], line: dict[str, str]) -> dict[str, str]:
    """A port's settings once the program has run a second ``port`` line for it: each call applies
    trust and PFC from its own line (an absent one as empty), enables ECN on its priorities without
    disabling any (the writes only ever set 1), and writes any other setting its line names."""
    after = {key: value for key, value in before.items() if key not in ("trust", "pfc")}
    after.update((key, value) for key, value in line.items() if key != "ecn")
    if "ecn" in line:
        prios = {p for p in (before.get("ecn", "") + "," + line["ecn"]).split(",") if p}
        after["ecn"] = ",".join(sorted(prios, key=lambda p: (len(p), p)))
    return after


# the program's code between its two header lines (the second names the server) and the plan is
# the same text on every server: its code lines, numbered from that text's first line, read once
_PROGRAM_MEMO: dict[str, tuple[tuple[int, str], ...] | None] = {}
_PROGRAM_MEMO_SIZE = 64


def read_nic_qos(text: str, srv: ServerConfig) -> None:
    """``read_nic_qos_plain``, with the program's code read once per distinct text: the part from
    its third line to the plan's start line is scanned from the same state (outside the plan) on
    every server, so its code lines are the same, shifted by where it starts. A file whose first
    two lines start the plan, or whose middle part is not only code and comments, is read the plain
    way (tests/test_parsers.py holds the two equal)."""
    srv.nic_qos_file = True
    second = text.find("\n", text.find("\n") + 1) + 1
    cut = text.find("\n" + PLAN_START, second - 1)
    head = text[:second - 1]
    if second <= 0 or cut < second or PLAN_START in head:
        _scan_nic_qos(text, 1, False, srv)
        return
    middle = text[second:cut]
    code = _PROGRAM_MEMO.get(middle, ())
    if code == ():  # not seen (None: seen, and not plain code)
        # without a plan marker the scan stays outside the plan: only code lines come out
        plain = not any(line.strip().startswith(PLAN_START) or line.strip() == PLAN_END for line in middle.split("\n"))
        code = None
        if plain:
            probe = ServerConfig(name="")
            _scan_nic_qos(middle, 0, False, probe)
            code = tuple(probe.nic_qos_program)
        if len(_PROGRAM_MEMO) >= _PROGRAM_MEMO_SIZE:
            _PROGRAM_MEMO.clear()
        _PROGRAM_MEMO[middle] = code
    if code is None:
        _scan_nic_qos(text, 1, False, srv)
        return
    _scan_nic_qos(head, 1, False, srv)  # lines 1-2: outside the plan at their end (no start in them)
    srv.nic_qos_program += [(number + 3, line) for number, line in code]
    _scan_nic_qos(text[cut + 1:], middle.count("\n") + 4, False, srv)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# A shell word made of plain characters, single-quoted text and double-quoted text without
# expansions, then an optional comment: what `. nccl.env` assigns without expanding anything
_SHELL_WORD = re.compile(r"""((?:[^\s'"$`\\;&|<>()]|'[^']*'|"[^"$`\\]*")*)(?:\s+#.*)?""")
_SHELL_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")


def _shell_value(value: str) -> str | None:
    """The value a POSIX shell assigns for ``NAME=value`` (quotes removed), or None where it would
    expand, split or run something (not modelled)."""
    if not any(c in value for c in " \t'\"$`\\;&|<>()#"):
        return value  # (the common case: nothing to remove)
    match = _SHELL_WORD.fullmatch(value)
    if match is None:
        return None
    return _SHELL_QUOTED.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), match.group(1))


_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_PLAIN_VALUE = re.compile(r"[^\s'\"$`\\;&|<>()#]*")


def _expanded(value: str, env: dict[str, str]) -> str | None:
    """``value`` with each `$NAME` / `${NAME}` outside single quotes replaced by what the file set
    NAME to before (an assignment does not split what it expands); None for a name the file did
    not set (the launcher's environment is not known) or a form this reading does not follow."""
    if "$" not in value:
        return value
    out: list[str] = []
    quoted = False  # inside single quotes: `$` is itself
    i = 0
    while i < len(value):
        c = value[i]
        if c == "'":
            quoted = not quoted
        elif c == "$" and not quoted:
            m = _REFERENCE.match(value, i)
            name = (m.group(1) or m.group(2)) if m else None
            if m is None or name not in env or not _PLAIN_VALUE.fullmatch(env[name]):
                return None
            out.append(env[name])
            i = m.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _read_env(text: str, srv: ServerConfig) -> None:
    """nccl.env as a shell that sources it sets it: NAME=VALUE (``export`` allowed), the last one
    wins; quotes are removed as the shell removes them (`NAME="3"` sets 3); `$NAME` / `${NAME}`
    of a name set above is expanded (_expanded); `unset NAME...` takes names out; a value the shell
    would expand otherwise or split (backquotes, unquoted spaces) is not modelled. A `return` (or
    `exit`, which ends the sourcing shell itself) stops the reading: nothing below it is set; the
    line is reported (what the launcher does next is not followed)."""
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = stripped.split("#", 1)[0].split()
        if words and words[0] in ("return", "exit") and len(words) <= 2:
            srv.unmodelled.append(("nccl.env", number, stripped))
            return
        if words[0] == "unset" and len(words) > 1 and all(_ENV_NAME.fullmatch(w) for w in words[1:]):
            for name in words[1:]:
                srv.env.pop(name, None)
                srv.line_of[("nccl.env", name)] = number
            continue
        body = stripped[7:].lstrip() if stripped.startswith("export ") else stripped
        key, eq, value = body.partition("=")
        expanded = _expanded(value, srv.env) if eq else None
        assigned = _shell_value(expanded) if expanded is not None and _ENV_NAME.fullmatch(key) else None
        if assigned is not None:
            srv.env[key] = assigned
            srv.line_of[("nccl.env", key)] = number
        else:
            srv.unmodelled.append(("nccl.env", number, stripped))


def _read_sysctl(text: str, srv: ServerConfig) -> None:
    """sysctl.conf as systemd-sysctl reads it (sysctl.d(5)): ``key = value``; '#' and ';' start
    comments; a leading '-' only silences a failure to set the key; a key with a glob
    (``net.ipv4.conf.*.rp_filter``) sets every name it matches under /proc/sys: here the
    server's ports and ``all`` (``default`` as well, which only ports made later take: not in the
    model); later lines override earlier ones, as applied."""
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        key, eq, value = stripped.partition("=")
        key = key.strip().removeprefix("-").strip().replace("/", ".")
        if not (eq and key):
            srv.unmodelled.append(("sysctl.conf", number, stripped))
            continue
        keys = [key]
        if any(c in key for c in "*?["):
            names = [*srv.interfaces, "all"]
            keys = sorted({pattern_key for name in names
                           if fnmatch.fnmatchcase(pattern_key := _sysctl_for(key, name), key)})
            if not keys:
                srv.unmodelled.append(("sysctl.conf", number, stripped))
        for one in keys:
            srv.sysctl[one] = value.strip()
            srv.line_of[("sysctl.conf", one)] = number


def _sysctl_for(pattern: str, port: str) -> str:
    """The key a globbed ``net.ipv4.conf.<glob>.X`` would set for ``port`` (the pattern itself when
    its glob is elsewhere: matched against nothing, reported)."""
    parts = pattern.split(".")
    return ".".join([*parts[:3], port, *parts[4:]]) if parts[:3] == ["net", "ipv4", "conf"] and len(parts) > 4 else pattern
