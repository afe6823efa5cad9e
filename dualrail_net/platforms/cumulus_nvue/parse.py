"""An NVUE startup.yaml -> DeviceConfig (one file: interfaces, routing, QoS, management).

Read with NVUE's semantics: the QoS ``default-global`` profiles apply to every switch port (so the
ports share one PFC list and one ECN dict, as the port-group checks expect); a PFC profile that
does not both send (tx) and honour (rx) pauses is no lossless class; trust ``l3`` is DSCP (NVUE's
default is ``l2``, the 802.1p PCP); a VRF's BGP takes the global ``router bgp`` ASN and router-id
unless it sets its own; a neighbor or address family with ``enable: off`` carries nothing. The
file is read by the project's bounded YAML reader (line numbers for findings; a file it refuses is
reported, never a traceback); every key the model does not read is reported (PORTS-UNMODELLED for
interfaces, QoS and services; CONFIG-UNMODELLED for routing).
"""

from __future__ import annotations

import re

from functools import cache
from pathlib import Path
from typing import Any

from dualrail_net.secretref import is_reference
from dualrail_net.sot.yamlsource import PathKey, SourceMap, YamlSourceError, load_yaml_text
from dualrail_net.verify.model import (
    SYSLOG_TRANSPORT,
    Aggregate,
    BgpInstance,
    DeviceConfig,
    EcnProfile,
    Interface,
    ManagementUser,
    Neighbor,
    PfcHeadroom,
    PrefixListEntry,
    RouteMapEntry,
    StaticRoute,
    syslog_transport_astray,
)
from dualrail_net.verify.parsers.files import is_decimal, read_text
from dualrail_net.verify.parsers import link as linkset
from dualrail_net.verify.parsers.frr import (PORT_NAME, WORD_NAME, as_path_list_line, finish_bgp, is_ip, is_prefix,
                                             list_line_read, parse_asn, prefix_list_refusal, route_map_clause)

FILE = "startup.yaml"
TRUST = {"l3": "dscp", "l2": "pcp", "both": "pcp,dscp", "port": "port"}
ADMIN_ROLES = {"system-admin"}


class _Reader:
    """The document with its source map: values by path, and every key nobody read reported."""

    def __init__(self, dev: DeviceConfig, smap: SourceMap) -> None:
        self.dev = dev
        self.smap = smap
        self.tacacs: list[tuple[str, str]] = []  # (server, VRF)

    def line(self, path: PathKey) -> int:
        return self.smap.locate(path)[1]

    def base(self, path: PathKey, what: str) -> None:
        self.dev.base_unmodelled.append((FILE, self.line(path), what))

    def routing(self, path: PathKey, what: str) -> None:
        self.dev.unmodelled.append((self.line(path), what))

    def literal_secret(self, node: dict[str, Any], key: str, path: PathKey, what: str) -> None:
        """A credential key whose value is not the renderer's ``${secret:NAME}``."""
        value = node.get(key)
        if value is not None and not (isinstance(value, str) and is_reference(value)):
            self.dev.management.literal_secrets.append((FILE, self.line((*path, key)), what))

    def extra(self, node: Any, path: PathKey, known: set[str], routing: bool = False) -> None:
        if isinstance(node, _Looked):
            node.looked.update(dict.keys(node))  # (each key judged here: known, or said below)
        if isinstance(node, dict):
            for key in node:
                if key not in known:
                    where = " ".join(str(p) for p in (*path, key))
                    (self.routing if routing else self.base)((*path, key), f"{where}: not modelled")


def applied(doc: list[dict[str, Any]], smap: SourceMap) -> tuple[dict[str, Any], SourceMap]:
    """The configuration the operations leave, in order, as NVUE applies a file of them: each
    `set` merged into what is there (a later value replaces an earlier one), each `unset` taking
    the paths it names away (a key with no value under it: the key and all below). The source map
    is rewritten onto one `set` (0, "set", ...), each path at the line that last wrote it; each
    operation's lines are visited once (linear on a hostile file of operations)."""
    if len(doc) == 1 and list(doc[0]) == ["set"]:  # (what NVUE and the renderer write: one `set`)
        return _map(doc[0]["set"]), smap
    root: dict[str, Any] = {}
    lines: dict[PathKey, tuple[str, int]] = {(): smap.lines.get((), ("", 0))}
    by_operation: dict[PathKey, list[tuple[PathKey, tuple[str, int]]]] = {}  # (i, verb) -> its paths
    for path, where in smap.lines.items():
        by_operation.setdefault(path[:2], []).append((path, where))
    for i, op in enumerate(doc):
        for verb, body in op.items():
            if verb == "set" and isinstance(body, dict):
                _merge(root, body)
                for path, where in by_operation.get((i, "set"), ()):
                    lines[(0, "set", *path[2:])] = where
            elif verb == "unset" and isinstance(body, dict):
                # (the lines of what is gone stay in the map: nothing reads a path the configuration
                # no longer has, and a later `set` that writes it again writes its own lines)
                _unset(root, body)
    return root, SourceMap(lines)


def _merge(into: dict[str, Any], body: dict[str, Any]) -> None:
    pending = [(into, body)]
    while pending:  # (a loop: a hostile file nests deep)
        target, source = pending.pop()
        for key, value in source.items():
            if isinstance(value, dict) and isinstance(target.get(key), dict):
                pending.append((target[key], value))
            else:
                target[key] = _copy(value)


def _copy(value: Any) -> Any:
    """A mapping's own copy, so that a later operation never changes the document (an alias in it
    may stand in two places)."""
    if not isinstance(value, dict):
        return value
    top: dict[str, Any] = {}
    pending = [(top, value)]
    while pending:
        target, source = pending.pop()
        for key, item in source.items():
            if isinstance(item, dict):
                target[key] = {}
                pending.append((target[key], item))
            else:
                target[key] = item
    return top


def _unset(root: dict[str, Any], body: dict[str, Any]) -> None:
    """Take the paths ``body`` names out of ``root`` (a key with no value under it: all below)."""
    pending: list[tuple[dict[str, Any], dict[str, Any]]] = [(root, body)]
    while pending:
        target, names = pending.pop()
        for key, value in names.items():
            if key not in target:
                continue
            if isinstance(value, dict) and value and isinstance(target[key], dict):
                pending.append((target[key], value))
            else:
                del target[key]


_STATE = {"enabled": "on", "disabled": "off"}


def _state_spelling(r: _Reader, root: dict[str, Any], prefix: PathKey) -> None:
    """NVUE 5.15 and later write a switch `state: enabled|disabled` where 5.14 and earlier write
    `enable: on|off` (NVIDIA's NVUE reference says so of the keys it renamed, `address-family
    l2vpn-evpn state` among them; not every key is confirmed here): read as the older
    spelling, at the same line, and said (a device that runs 5.14 or earlier refuses the key, and
    `nv config apply` the file). Only under `router` and `vrf`, whose switches 5.14 spells
    `enable` throughout (`system api` and `service lldp` already said `state` before 5.15); a
    `state` with another value or beside an `enable` of its own is left as it is."""
    pending: list[tuple[dict[str, Any], PathKey]] = [(_map(root.get(top)), (*prefix, top))
                                                     for top in ("router", "vrf") if isinstance(root.get(top), dict)]
    while pending:  # (a loop: a hostile file nests deep)
        node, path = pending.pop()
        state = node.get("state")
        if isinstance(state, str) and state in _STATE and "enable" not in node:
            where = (*path, "state")
            r.smap.lines[(*path, "enable")] = r.smap.locate(where)
            del node["state"]
            node["enable"] = _STATE[state]
            words = " ".join(str(p) for p in where[2:])
            # (the reason first: a report keeps a line's first 100 characters)
            r.routing(where, f"read as NVUE 5.15's `enable {_STATE[state]}` (older NVUE refuses the key): "
                             f"{words} {state}")
        pending.extend((child, (*path, key)) for key, child in node.items() if isinstance(child, dict))


class _Looked(dict[str, Any]):
    """A mapping of the document that records the keys a reader looked at (get, [], in, and any
    walk of its keys: a map keyed by names or addresses is read whole): a key no reader looked at
    and no `extra` judged is said once the file is read (_say_unlooked), so a key pasted into a
    block whose reader asks for its keys by name is never passed over."""

    __slots__ = ("looked",)

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.looked: set[Any] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.looked.add(key)
        return dict.get(self, key, default)

    def __getitem__(self, key: str) -> Any:
        self.looked.add(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self.looked.add(key)
        return dict.__contains__(self, key)

    def _walked(self) -> None:  # (every key: a walk reads them all)
        self.looked.update(dict.keys(self))

    def items(self) -> Any:
        self._walked()
        return dict.items(self)

    def values(self) -> Any:
        self._walked()
        return dict.values(self)

    def keys(self) -> Any:
        self._walked()
        return dict.keys(self)

    def __iter__(self) -> Any:
        self._walked()
        return dict.__iter__(self)


def _looked_copy(root: dict[str, Any]) -> _Looked:
    """``root`` with every mapping in it (in lists too) a _Looked (a loop: a hostile file nests deep)."""
    top = _Looked(root)
    pending: list[Any] = [top]
    while pending:
        node = pending.pop()
        pairs = list(dict.items(node)) if isinstance(node, dict) else list(enumerate(node))
        for key, value in pairs:
            if isinstance(value, dict):
                node[key] = copy = _Looked(value)
                pending.append(copy)
            elif isinstance(value, list):
                node[key] = copied = list(value)
                pending.append(copied)
    return top


def _say_unlooked(r: _Reader, root: _Looked, path: PathKey) -> None:
    """Every key of the document no reader looked at and no `extra` judged, in a block a reader
    did look into, said at its line (its own keys are part of it: not said again). A block none
    of whose keys anyone looked at was judged whole where its own key was (an `extra` that knows
    the key and reads nothing under it: a harmless setting)."""
    pending: list[tuple[Any, PathKey]] = [(root, path)]
    while pending:
        node, at = pending.pop()
        if isinstance(node, list):
            pending.extend((item, at) for item in node if isinstance(item, (dict, list)))
            continue
        if isinstance(node, _Looked) and not node.looked:
            continue
        for key, value in dict.items(node):
            where = (*at, key)
            if isinstance(node, _Looked) and key not in node.looked:
                words = " ".join(str(p) for p in where[2:])[:80]
                (r.routing if "router" in where or "vrf" in where else r.base)(where, f"{words}: not modelled "
                                                                                     "(no reader takes it)")
            elif isinstance(value, (dict, list)):
                pending.append((value, where))


def _map(node: Any) -> dict[str, Any]:
    return node if isinstance(node, dict) else {}


def _name(value: Any) -> str | None:
    """A name as NVUE takes it (a string, or a number written bare); anything else None."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return str(value)


def _int(value: Any, limit: int = 1 << 32) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limit else None


def parse_device(name: str, folder: Path) -> DeviceConfig:
    return parse_text(name, read_text(folder / FILE))


# keys NVUE's object model always holds an object under (a value written in their place, a hand
# edit's slip such as `multipaths: 64`, is not what NVUE's schema takes there (not measured here:
# no NVUE), and the readers below read nothing from it)
_OBJECT_KEYS = frozenset({
    "aaa", "address", "api", "authorized-key", "bgp", "congestion-control", "dns", "dscp", "egress-queue-mapping",
    "egress-scheduler", "gateway", "inbound", "interface", "ip", "link", "lldp", "loopback", "mapping", "match",
    "multipaths", "neighbor", "network", "ntp", "outbound", "pfc", "policy", "prefix-list", "qos", "roce", "router",
    "rule", "server", "service", "ssh", "static", "syslog", "system", "tacacs", "user", "via"})


# keys NVUE's model holds a map of named objects under (ports, users, servers, addresses, lists,
# rules, neighbors ...): an entry whose value is not an object (a key pasted there at the wrong
# depth, `speed: "200G"` among the ports) is no object NVUE's schema takes, said at its line
_NAMED_MAPS = frozenset({
    "interface", "user", "authorized-key", "server", "gateway", "address", "prefix-list", "route-map", "rule", "vrf",
    "neighbor", "network", "static", "via", "action", "peer-group", "aggregate-route"})


def _scalars_for_objects(r: _Reader, node: dict[str, Any], path: PathKey) -> None:
    """Every value written where NVUE's model holds an object (_OBJECT_KEYS, and each entry of a
    map of named objects: _NAMED_MAPS), said at its line."""
    stack: list[tuple[dict[str, Any], PathKey]] = [(node, path)]
    while stack:
        here, at = stack.pop()
        named = bool(at) and at[-1] in _NAMED_MAPS and len(at) > 2
        for key, value in here.items():
            if isinstance(value, dict):
                stack.append((value, (*at, key)))
            elif value is not None and (key in _OBJECT_KEYS or named):
                where = (*at, key)
                said = f"{str(key)[:40]}: {str(value)[:20]} where NVUE takes an object (its keys under {at[-1]})"
                (r.routing if "router" in where or "policy" in where else r.base)(where, said)


def parse_text(name: str, text: str) -> DeviceConfig:
    dev = DeviceConfig(name=name, platform="cumulus-nvue")
    dev.routing_file = FILE
    smap = SourceMap()
    try:
        doc = load_yaml_text(text, FILE, smap, merge=True)  # (NVUE's loader merges `<<` keys)
    except YamlSourceError as exc:
        # (a YAML error NVUE's loader refuses too; or a form this bounded reader does not take, a
        # merge key, a duplicate key, a budget: either way nothing in the file is judged)
        dev.base_unmodelled.append((FILE, exc.line, f"not read, nothing in the file is judged: {exc.message[:120]}"))
        return dev
    r = _Reader(dev, smap)
    if not isinstance(doc, list) or not doc or not all(isinstance(op, dict) for op in doc):
        r.base((), "not a list of NVUE operations (- set: ...)")
        return dev
    for i, op in enumerate(doc):
        for verb in op:
            if verb not in ("set", "unset"):
                r.base((i, verb), f"operation {verb}: not modelled (only `set` and `unset`)")
    root, r.smap = applied(doc, smap)
    prefix: PathKey = (0, "set")
    _state_spelling(r, root, prefix)
    _scalars_for_objects(r, root, prefix)
    root = _looked_copy(root)
    r.extra(root, prefix, {"system", "interface", "router", "vrf", "qos", "service"})
    _system(r, _map(root.get("system")), (*prefix, "system"))
    sub_ports = _interfaces(r, _map(root.get("interface")), (*prefix, "interface"))
    router = _map(root.get("router"))
    r.extra(router, (*prefix, "router"), {"bgp", "policy"}, routing=True)
    glob = _map(router.get("bgp"))
    # the global BGP settings: the ASN and router ID every VRF takes unless it sets its own, and
    # `enable`, BGP's switch for the whole device (off: no VRF runs BGP, whatever each says);
    # `graceful-shutdown on`, FRR's global `bgp graceful-shutdown` (every instance of the device);
    # timing-only keys (read-only mode's waits, the policy update timer, waiting for the ASIC,
    # message queues, graceful restart) change no route the fabric settles on
    r.extra(glob, (*prefix, "router", "bgp"), {"enable", "autonomous-system", "router-id", "graceful-shutdown",
                                               "convergence-wait", "policy-update-timer", "wait-for-install",
                                               "queue-limit", "graceful-restart"}, routing=True)
    _policy(r, _map(router.get("policy")), (*prefix, "router", "policy"))
    _vrfs(r, _map(root.get("vrf")), (*prefix, "vrf"), glob)
    if _switch(r, glob, "graceful-shutdown", (*prefix, "router", "bgp")):
        for inst in dev.bgp.values():
            inst.graceful_shutdown_line = r.line((*prefix, "router", "bgp", "graceful-shutdown"))
    _qos(r, _map(root.get("qos")), (*prefix, "qos"))
    linkset.take_sub_port_parents(dev, sub_ports)
    _services(r, _map(root.get("service")), (*prefix, "service"))
    dev.management.tacacs = [server for server, vrf in r.tacacs if vrf == dev.management.vrf]
    _say_unlooked(r, root, prefix)
    finish_bgp(dev)
    return dev


def _system(r: _Reader, system: dict[str, Any], path: PathKey) -> None:
    dev, mgmt = r.dev, r.dev.management
    r.extra(system, path, {"hostname", "aaa", "api"})
    dev.hostname = _name(system.get("hostname")) or ""
    if dev.hostname:
        dev.names.append((dev.hostname, FILE, r.line((*path, "hostname"))))
    else:  # (none set: a replaced configuration leaves Cumulus Linux's default name)
        dev.names.append(("cumulus", FILE, r.line(path)))
    aaa = _map(system.get("aaa"))
    r.extra(aaa, (*path, "aaa"), {"user", "tacacs", "authentication-order"})
    _tacacs(r, aaa, (*path, "aaa"))
    mgmt.users_in_file = True  # NVUE owns the local users: a replace keeps only those in the file
    for user, body in _map(aaa.get("user")).items():
        body = _map(body)
        r.extra(body, (*path, "aaa", "user", user), {"role", "hashed-password", "password", "ssh"})
        keys = _map(_map(body.get("ssh")).get("authorized-key"))
        credential = bool(body.get("hashed-password") or body.get("password") or keys)
        for key in ("hashed-password", "password"):
            r.literal_secret(body, key, (*path, "aaa", "user", user), f"user {str(user)[:40]} {key}")
        role = _name(body.get("role")) or ""
        mgmt.users.append(ManagementUser(str(user), "admin" if role in ADMIN_ROLES else role, credential))
        for label, entry in keys.items():
            authorized = _map(entry)
            if authorized.get("type") is not None and authorized.get("key") is not None:
                mgmt.users[-1].ssh_keys.setdefault(f"{authorized['type']} {authorized['key']}", r.line(
                    (*path, "aaa", "user", user, "ssh", "authorized-key", label)))
        mgmt.located.setdefault(("user", str(user)), (FILE, r.line((*path, "aaa", "user", user))))
    api = system.get("api")
    if api is not None:
        mgmt.api = _map(api).get("state") == "enabled"


def _tacacs(r: _Reader, aaa: dict[str, Any], path: PathKey) -> None:
    """The TACACS+ servers (kept with their VRF until the management VRF is known: _finish_tacacs)
    and the login order: NVUE tries the methods of `authentication-order` by priority and moves on
    when one cannot answer, so `local` among them lets the local users in when TACACS+ is away."""
    tacacs = _map(aaa.get("tacacs"))
    r.extra(tacacs, (*path, "tacacs"), {"enable", "vrf", "secret", "server"})
    servers = _map(tacacs.get("server"))
    r.literal_secret(tacacs, "secret", (*path, "tacacs"), "tacacs secret")
    for key, body in servers.items():
        r.extra(body, (*path, "tacacs", "server", key), {"host", "port", "secret"})
        if str(_map(body).get("port", 49)) != "49":  # (another port than TACACS+'s: not judged)
            where = " ".join(str(p) for p in (*path, "tacacs", "server", key, "port"))
            r.base((*path, "tacacs", "server", key, "port"), f"{where} {_map(body)['port']}: not modelled")
        r.literal_secret(_map(body), "secret", (*path, "tacacs", "server", key), f"tacacs server {str(key)[:20]} secret")
    if tacacs.get("enable") == "on":
        r.tacacs = [(str(_map(b).get("host")), _name(tacacs.get("vrf")) or "default") for b in servers.values()]
        for key, body in servers.items():
            r.dev.management.located[("TACACS+", str(_map(body).get("host")))] = \
                (FILE, r.line((*path, "tacacs", "server", key)))
        # a server without its own secret uses the block's; without either it sends in clear
        r.dev.management.tacacs_key = bool(tacacs.get("secret")) or all(_map(b).get("secret") for b in servers.values())
    order = aaa.get("authentication-order")
    if order is not None:
        methods = [str(m) for m in _map(order).values()]
        r.dev.management.login_local = "local" in methods
        r.dev.management.login_methods = f"system aaa authentication-order {' '.join(methods)[:60]}"


def _breakout(r: _Reader, iface: Interface, value: Any, here: PathKey) -> None:
    """A port's `link breakout` (a mode, as a key or a value): `1x` keeps the port as it is; `Nx`
    (N > 1, with or without a speed) splits it into N sub-ports (swp1 into swp1s0 .. swp1s<N-1>),
    which replace it, so the port the plan cables is gone; `disabled` and `loopback` carry no traffic to the peer (NVIDIA's
    NVUE reference: "breakout 1x keeps ports as-is"; a split port's commands target the sub-ports).
    Anything else is reported and the port taken as it is."""
    modes = list(_map(value)) if isinstance(value, dict) else [value]
    mode = str(modes[0]) if len(modes) == 1 else ""
    ways = re.fullmatch(r"([1-9][0-9]?)x([0-9]+G)?", mode)
    if ways and ways.group(1) == "1":
        return
    if ways:
        count = int(ways.group(1))
        iface.down = f"broken out ({mode}: {iface.name}s0..{iface.name}s{count - 1} replace it)"
    elif mode in ("disabled", "loopback"):
        iface.down = f"{mode} by its breakout setting"
    else:
        r.base(here, f"interface {iface.name} link breakout {str(value)[:30]}: not read")
        return
    iface.down += f" ({FILE}:{r.line(here)})"


_NAMED_TYPES = ((re.compile(r"swp[0-9]+(s[0-9]+)?"), "swp"), (re.compile(r"swp[0-9]+(s[0-9]+)?\.[0-9]+"), "sub"),
                (re.compile(r"eth[0-9]+"), "eth"), (re.compile(r"lo"), "loopback"), (re.compile(r"vlan[0-9]+"), "svi"))


def _type_of_name(name: str) -> str | None:
    """The interface type NVUE gives a port of this name (it tells kinds apart by name: a bond may
    not be named like a port); None: a name of no fixed kind (a bond's, say)."""
    for pattern, kind in _NAMED_TYPES:
        if pattern.fullmatch(name):
            return kind
    return None


def _interfaces(r: _Reader, interfaces: dict[str, Any], path: PathKey) -> dict[str, str]:
    """The ports; returned: each VLAN sub-interface's parent (``type: sub``, ``base-interface``)."""
    dev, mgmt = r.dev, r.dev.management
    parents: dict[str, str] = {}
    for name, body in interfaces.items():
        body = _map(body)
        here = (*path, name)
        sub = body.get("type") == "sub"
        r.extra(body, here, {"type", "description", "link", "ip", "bond", "bridge"}
                | ({"base-interface", "vlan"} if sub else set()))
        named = _type_of_name(str(name))
        if "type" in body and named is not None and body["type"] != named:
            # (read as written below: a port typed as the loopback or the out-of-band port)
            r.base((*here, "type"), f"interface {name} type {str(body['type'])[:20]}: NVUE types it by name "
                   f"({named}); apply may refuse the file")
        if sub and (base := _name(body.get("base-interface"))) is not None:
            parents[str(name)] = base
        bond = _map(body.get("bond"))
        r.extra(bond, (*here, "bond"), {"member"})
        for member in _map(bond.get("member")):  # the member carries the bond's frames (link.lag_members_down)
            dev.lag_members[str(member)] = (str(name), FILE, r.line((*here, "bond", "member", member)))
        bridge = _map(body.get("bridge"))
        r.extra(bridge, (*here, "bridge"), {"domain"})
        for domain, settings in _map(bridge.get("domain")).items():
            # a bridge's member port: the ASIC routes nothing on it (its VLANs' settings not read)
            r.extra(_map(settings), (*here, "bridge", "domain", domain), set())
            dev.lag_members[str(name)] = (f"bridge domain {domain}", FILE, r.line((*here, "bridge", "domain", domain)))
        ip = _map(body.get("ip"))
        r.extra(ip, (*here, "ip"), {"address", "vrf", "gateway", "ipv4"})
        ipv4 = _map(ip.get("ipv4"))
        r.extra(ipv4, (*here, "ip", "ipv4"), {"forward"})
        link = _map(body.get("link"))
        r.extra(link, (*here, "link"), {"state", "mtu", "speed", "fec", "auto-negotiate", "breakout"})
        iface = Interface(str(name), is_loopback=body.get("type") == "loopback")
        iface.description = _name(body.get("description")) or ""
        for address in _map(ip.get("address")):
            if is_prefix(str(address)):
                iface.addresses.append(str(address))
            else:
                r.base((*here, "ip", "address", address), f"interface {name} address {address}: not an address")
        iface.vrf = _name(ip.get("vrf"))
        if "forward" in ipv4:  # (ifupdown2's `ip-forward`, which NVUE writes for it: the port's sysctl)
            if ipv4["forward"] in ("on", "off"):
                iface.forwarding = (ipv4["forward"] == "on", r.line((*here, "ip", "ipv4", "forward")),
                                    f"ip ipv4 forward {ipv4['forward']}", FILE)
            else:
                r.base((*here, "ip", "ipv4", "forward"), f"interface {name} ip ipv4 forward: not on or off")
        mtu = link.get("mtu")
        iface.mtu = _int(mtu, 65535)
        if mtu is not None and iface.mtu is None:
            r.base((*here, "link", "mtu"), f"interface {name} mtu {mtu}: not a number")
        state = _map(link.get("state"))
        if link.get("state") is not None and not isinstance(link["state"], dict):
            r.base((*here, "link", "state"), f"interface {name} link state {str(link['state'])[:20]}: not up or down")
        if "down" in state:
            iface.down = "shutdown"
        for other in set(state) - {"up", "down"}:  # (NVUE knows these two only)
            r.base((*here, "link", "state", other), f"interface {name} link state {str(other)[:20]}: neither up "
                   "nor down")
        if "breakout" in link:
            _breakout(r, iface, link["breakout"], (*here, "link", "breakout"))
        for key, read, setting in (("speed", linkset.speed_mbps, "speed"), ("fec", linkset.fec, "fec_mode"),
                                   ("auto-negotiate", linkset.autoneg, "negotiate")):
            if key in link:
                try:
                    linkset.set_link(iface, r.line((*here, "link", key)), file=FILE, **{setting: read(str(link[key]))})
                except linkset.Unreadable:
                    r.base((*here, "link", key), f"interface {name} link {key} {str(link[key])[:20]}: not read")
        if body.get("type") == "eth":  # the out-of-band port: in no plane
            mgmt.interfaces[str(name)] = iface
            gateways = [str(g) for g in _map(ip.get("gateway")) if is_ip(str(g))]
            if gateways:
                mgmt.default_gateway = gateways[0]
            mgmt.vrf = iface.vrf
            continue
        dev.interfaces[str(name)] = iface
    linkset.take_lag_members(dev)
    return parents


def _policy(r: _Reader, policy: dict[str, Any], path: PathKey) -> None:
    dev = r.dev
    r.extra(policy, path, {"prefix-list", "route-map", "as-path-list"}, routing=True)
    _as_path_lists(r, _map(policy.get("as-path-list")), (*path, "as-path-list"))
    for name, body in _map(policy.get("prefix-list")).items():
        body = _map(body)
        r.extra(body, (*path, "prefix-list", name), {"type", "rule"}, routing=True)
        if body.get("type", "ipv4") != "ipv4":  # an ipv6 list matches no IPv4 route
            r.routing((*path, "prefix-list", name, "type"), f"prefix-list {name} type {body.get('type')}: not modelled")
        entries = dev.prefix_lists.setdefault(str(name), [])
        for seq, rule in _map(body.get("rule")).items():
            rule = _map(rule)
            here = (*path, "prefix-list", name, "rule", seq)
            number = int(seq) if str(seq).isascii() and str(seq).isdigit() and len(str(seq)) < 10 else None
            action = rule.get("action")
            if number is None or action not in ("permit", "deny"):
                r.routing(here, f"prefix-list {name} rule {seq}: not modelled")
                continue
            r.extra(rule, here, {"action", "match"}, routing=True)
            for prefix, match in _map(rule.get("match")).items():
                r.extra(match, (*here, "match", prefix), {"min-prefix-len", "max-prefix-len"}, routing=True)
                match = _map(match)
                for bound in ("min-prefix-len", "max-prefix-len"):
                    if bound in match and _int(match[bound], 32) is None:
                        r.routing((*here, "match", prefix, bound), f"prefix-list {name} rule {seq} {bound}: not a length")
                if not is_prefix(str(prefix)):
                    r.routing((*here, "match", prefix), f"prefix-list {name} rule {seq} match {prefix}: not a prefix")
                    continue
                ranged = PrefixListEntry(number, str(action), str(prefix), _int(match.get("min-prefix-len"), 32),
                                         _int(match.get("max-prefix-len"), 32), r.line(here))
                if (refusal := prefix_list_refusal(ranged)) is not None:  # (bgpd refuses the line NVUE writes)
                    dev.refused_lines.append((r.line((*here, "match", prefix)), f"prefix-list {name} rule {seq} match "
                                                                                f"{prefix}", refusal))
                    continue
                entries.append(ranged)
    for name, body in _map(policy.get("route-map")).items():
        r.extra(_map(body), (*path, "route-map", name), {"rule"}, routing=True)
        for seq, rule in _map(_map(body).get("rule")).items():
            rule = _map(rule)
            here = (*path, "route-map", name, "rule", seq)
            action = next(iter(_map(rule.get("action"))), None)
            number = int(seq) if str(seq).isascii() and str(seq).isdigit() and len(str(seq)) <= 5 else None
            if number is None or action not in ("permit", "deny"):
                r.routing(here, f"route-map {name} rule {seq}: not modelled")
                continue
            entry = RouteMapEntry(number, str(action), line=r.line(here))
            match = _map(rule.get("match"))
            r.extra(rule, here, {"action", "match", "set"}, routing=True)
            r.extra(match, (*here, "match"), {"type", "ip-prefix-list", *_RULE_MATCHES}, routing=True)
            family = match.get("type", "ipv4")
            if family not in ("ipv4", "ipv6"):
                r.routing((*here, "match", "type"), f"route-map {name} rule {seq}: match type {family}")
            if "ip-prefix-list" in match:
                pl = _name(match["ip-prefix-list"])
                if pl is None:
                    r.routing((*here, "match", "ip-prefix-list"), f"route-map {name} rule {seq}: prefix-list name")
                elif family == "ipv6":
                    # NVUE writes it as FRR's `match ipv6 address prefix-list`, judged as FRR's is
                    # (finish_bgp: bgpd matches no IPv4 route on it, the rule matches nothing)
                    entry.match_lists.append(("ipv6 prefix-list", pl, r.line((*here, "match", "type"))))
                else:
                    entry.match_prefix_lists.append(pl)
            said = f"route-map {name} rule {seq}"
            for key, words in _RULE_MATCHES.items():
                if key in match:
                    _clause(r, entry, (*here, "match", key), [*words, *_words(match[key])], said)
            sets = _map(rule.get("set"))
            r.extra(sets, (*here, "set"), {"as-path-prepend", *_RULE_SETS}, routing=True)
            prepend = _map(sets.get("as-path-prepend"))
            r.extra(prepend, (*here, "set", "as-path-prepend"), {"as", "last-as"}, routing=True)
            if prepend.get("as") is not None:
                asns = [parse_asn(str(a)) for a in str(prepend["as"]).split()]
                if None in asns:
                    r.routing((*here, "set", "as-path-prepend"), f"route-map {name} rule {seq} prepend {prepend['as']}")
                else:
                    entry.prepend = tuple(a for a in asns if a is not None)
                    entry.prepend_line = r.line((*here, "set", "as-path-prepend"))
            elif prepend.get("last-as") is not None:
                _clause(r, entry, (*here, "set", "as-path-prepend", "last-as"),
                        ["set", "as-path", "prepend", "last-as", *_words(prepend["last-as"])], said)
            for key, words in _RULE_SETS.items():
                if key in sets:
                    _clause(r, entry, (*here, "set", key), [*words, *_words(sets[key])], said)
            dev.route_maps.setdefault(str(name), []).append(entry)


# A route-map rule's `match` and `set` keys NVUE writes as FRR's route-map lines (`match KEY VALUE`,
# `set KEY VALUE`): each read by the FRR reader's own clause (parsers.frr.route_map_clause), with
# bgpd's meaning; a value that reader does not take is reported. (`community` takes a mapping of
# communities: FRR's `set community C1 C2 ...`.)
_RULE_MATCHES = {"as-path-list": ["match", "as-path"],
                 "origin": ["match", "origin"], "metric": ["match", "metric"], "tag": ["match", "tag"],
                 "local-preference": ["match", "local-preference"], "peer": ["match", "peer"],
                 "source-protocol": ["match", "source-protocol"]}
_RULE_SETS = {"local-preference": ["set", "local-preference"], "weight": ["set", "weight"],
              "metric": ["set", "metric"], "origin": ["set", "origin"], "tag": ["set", "tag"],
              "ip-nexthop": ["set", "ip", "next-hop"], "community": ["set", "community"]}


def _as_path_lists(r: _Reader, lists: dict[str, Any], path: PathKey) -> None:
    """`router policy as-path-list NAME rule N action permit|deny aspath-exp REGEX`: FRR's `bgp
    as-path access-list NAME seq N permit|deny REGEX`, NVUE writes each rule so (in rule order), read
    by the FRR reader's own line reader; a list with a rule it does not read is reported, as FRR's,
    and what matches on it is not judged."""
    dev = r.dev
    for name, body in lists.items():
        body = _map(body)
        here = (*path, name)
        r.extra(body, here, {"rule"}, routing=True)
        dev.match_list_names.setdefault(("as-path", str(name)), r.line(here))
        rules = _map(body.get("rule"))
        numbered = sorted((int(seq), seq) for seq in rules if str(seq).isascii() and str(seq).isdigit()
                          and len(str(seq)) < 10)
        if len(numbered) != len(rules) or not WORD_NAME.fullmatch(str(name)):
            r.routing(here, f"as-path-list {str(name)[:40]}: a rule number or name FRR does not take")
            list_line_read(dev.as_path_lists, dev.as_path_lists_unread, str(name), None)
            continue
        for number, seq in numbered:
            rule = _map(rules[seq])
            r.extra(rule, (*here, "rule", seq), {"action", "aspath-exp"}, routing=True)
            words = ["bgp", "as-path", "access-list", str(name), "seq", str(number), str(rule.get("action")),
                     *str(rule.get("aspath-exp", "")).split()]
            entry = as_path_list_line(words, dev.as_path_lists.get(str(name), [])) \
                if rule.get("action") in ("permit", "deny") and len(words) > 7 else None
            if not list_line_read(dev.as_path_lists, dev.as_path_lists_unread, str(name), entry and [entry]):
                r.routing((*here, "rule", seq), f"as-path-list {name} rule {seq}: not modelled")
                break


def _words(value: Any) -> list[str]:
    """A key's value as the words of the FRR line NVUE writes (a mapping: its keys)."""
    items = list(value) if isinstance(value, dict) else [value]
    return [w for item in items for w in str(item).split()] if items else [""]


def _clause(r: _Reader, entry: RouteMapEntry, where: PathKey, words: list[str], what: str) -> None:
    """One FRR route-map line into ``entry``; one it does not read, or an empty value, reported."""
    if not all(words) or not route_map_clause(entry, words, r.line(where)):
        r.routing(where, f"{what} {' '.join(words)[:60]}: not modelled")


def _vrfs(r: _Reader, vrfs: dict[str, Any], path: PathKey, glob: dict[str, Any]) -> None:
    dev = r.dev
    for name, body in vrfs.items():
        body = _map(body)
        here = (*path, name)
        vrf = None if name == "default" else str(name)
        r.extra(body, here, {"router", "loopback", "table"})
        if vrf is not None:
            table = body.get("table")
            dev.vrfs[vrf] = table if isinstance(table, int) and not isinstance(table, bool) else None
            if table is not None and dev.vrfs[vrf] is None and table != "auto":
                # (NVUE takes `auto` or a number; which table a VRF gets otherwise is not known here)
                r.base((*here, "table"), f"vrf {name} table {str(table)[:20]!r}: not auto nor a number")
            loop = Interface(vrf, vrf=vrf, is_loopback=True)
            loop.addresses = [str(a) for a in _map(_map(_map(body.get("loopback")).get("ip")).get("address"))]
            dev.interfaces[vrf] = loop
        router = _map(body.get("router"))
        r.extra(router, (*here, "router"), {"bgp", "static"}, routing=True)
        for prefix, route in _map(router.get("static")).items():
            where = (*here, "router", "static", prefix)
            r.extra(_map(route), where, {"address-family", "via", "distance"}, routing=True)
            via = _map(_map(route).get("via"))
            hops = [str(h) for h in via]
            for hop, body in via.items():
                r.extra(_map(body), (*where, "via", hop), {"type"}, routing=True)
            distance = _int(_map(route).get("distance", 1), 255)
            family = _map(route).get("address-family", "ipv4-unicast")
            if family != "ipv4-unicast":  # (read as the IPv4 route its prefix is)
                r.routing((*where, "address-family"), f"static {prefix} address-family {str(family)[:20]}: "
                          "not ipv4-unicast")
            if not is_prefix(str(prefix)) or not hops or distance is None:
                r.routing(where, f"static {prefix}: not modelled")
                continue
            # each `via` is a next hop of the route, as each `ip route` line of one prefix is in FRR
            # (several: ECMP); NVUE hands a via to FRR's `ip route P VIA`, which takes `blackhole`,
            # `reject` and `Null0` as discards; a via that is no address or port name is said, not
            # taken for a gateway, and a discard beside gateways is not modelled
            odd = [h for h in hops if not (h in DISCARDS or is_ip(h) or PORT_NAME.fullmatch(h))]
            if odd or (DISCARDS.intersection(hops) and len(hops) > 1):
                r.routing(where, f"static {prefix} via {', '.join(odd or hops)[:60]}: not modelled")
                continue
            dev.static_routes += [StaticRoute(vrf, str(prefix), None if hop in DISCARDS else hop,
                                              distance=distance, line=r.line(where)) for hop in hops]
        bgp = _map(router.get("bgp"))
        if not bgp or bgp.get("enable", "on") != "on" or glob.get("enable", "on") != "on":
            if bgp and glob.get("enable", "on") != "on":
                r.routing((*path[:2], "router", "bgp", "enable"), f"router bgp enable {str(glob.get('enable'))[:10]}: "
                                                                  f"no BGP in VRF {name}")
            continue
        _bgp(r, bgp, (*here, "router", "bgp"), vrf, glob)


def _route_import(r: _Reader, imports: dict[str, Any], path: PathKey, inst: BgpInstance) -> None:
    """`route-import from-vrf list OTHER`: the VRF takes OTHER's BGP routes (a leak between
    plane VRFs when both are planes; ISO-VRF-LEAK judges it), through `route-import from-vrf
    route-map NAME` when set (FRR's `import vrf route-map`: finish_bgp and ISO-ROUTE-LEAK read
    both as bgpd does). `enable off` imports nothing."""
    r.extra(imports, path, {"from-vrf"}, routing=True)
    from_vrf = _map(imports.get("from-vrf"))
    r.extra(from_vrf, (*path, "from-vrf"), {"enable", "list", "route-map"}, routing=True)
    if from_vrf.get("enable", "on") != "on":
        return
    inst.vrf_imports += [str(source) for source in _map(from_vrf.get("list"))]
    if "route-map" in from_vrf:
        named = _name(from_vrf["route-map"])
        if named is None:
            r.routing((*path, "from-vrf", "route-map"), "route-map: not a name")
        else:
            inst.vpn_import_map = (named, r.line((*path, "from-vrf", "route-map")))


def _bgp(r: _Reader, bgp: dict[str, Any], path: PathKey, vrf: str | None, glob: dict[str, Any]) -> None:
    dev = r.dev
    r.extra(bgp, path, {"enable", "autonomous-system", "router-id", "path-selection", "address-family", "neighbor",
                        "peer-group"}, routing=True)
    asn = _int(bgp.get("autonomous-system", glob.get("autonomous-system")))
    if asn is None:
        r.routing(path, "router bgp without an autonomous-system")
        return
    router_id = _name(bgp.get("router-id", glob.get("router-id")))
    inst = dev.bgp[vrf] = BgpInstance(vrf, asn, router_id if router_id and is_ip(router_id) else None, line=r.line(path))
    _path_selection(r, _map(bgp.get("path-selection")), (*path, "path-selection"), inst)
    af = _map(_map(bgp.get("address-family")).get("ipv4-unicast"))
    r.extra(af, (*path, "address-family", "ipv4-unicast"), {"enable", "multipaths", "network", "redistribute",
                                                             "aggregate-route", "route-import", "admin-distance"},
            routing=True)
    distance = _map(af.get("admin-distance"))
    r.extra(distance, (*path, "address-family", "ipv4-unicast", "admin-distance"), {"external", "internal"},
            routing=True)
    if distance:  # FRR's `distance bgp EXTERNAL INTERNAL 200` (what is not said keeps FRR's default)
        external, internal = _int(distance.get("external", 20), 255), _int(distance.get("internal", 200), 255)
        if external and internal:
            inst.distance = (external, internal, 200)
            inst.distance_line = r.line((*path, "address-family", "ipv4-unicast", "admin-distance"))
        else:
            r.routing((*path, "address-family", "ipv4-unicast", "admin-distance"), "admin-distance: not 1-255")
    _route_import(r, _map(af.get("route-import")), (*path, "address-family", "ipv4-unicast", "route-import"), inst)
    # the instance's IPv4 unicast off: NVUE configures no such address family, so no neighbor
    # carries IPv4 routes (whatever its own enable says) and no network is announced
    af_off = af.get("enable", "on") != "on"
    if af_off:
        inst.default_ipv4_unicast = False
        af = {key: value for key, value in af.items() if key in ("enable", "multipaths")}
    paths = _map(af.get("multipaths")).get("ebgp")
    inst.maximum_paths = _int(paths, 1024)
    inst.maximum_paths_line = r.line((*path, "address-family", "ipv4-unicast", "multipaths"))
    for net in _map(af.get("network")):
        where = (*path, "address-family", "ipv4-unicast", "network", net)
        if not is_prefix(str(net)):
            r.routing(where, f"network {str(net)[:40]}: not a prefix")
            continue
        inst.networks.append(str(net))
        inst.network_lines[str(net)] = r.line(where)
    for kind, body in _map(af.get("redistribute")).items():
        where = (*path, "address-family", "ipv4-unicast", "redistribute", kind)
        if kind not in ("connected", "static"):
            r.routing(where, f"redistribute {str(kind)[:40]}: not modelled")
            continue
        r.extra(_map(body), where, {"enable"}, routing=True)  # (a route-map on it: reported)
        if _map(body).get("enable") == "on":
            inst.redistribute.append(str(kind))
    for prefix, body in _map(af.get("aggregate-route")).items():
        if not is_prefix(str(prefix)):
            r.routing((*path, "address-family", "ipv4-unicast", "aggregate-route", prefix),
                      f"aggregate-route {str(prefix)[:40]}: not a prefix")
            continue
        where = (*path, "address-family", "ipv4-unicast", "aggregate-route", prefix)
        r.extra(_map(body), where, {"summary-only", "as-set"}, routing=True)  # (a route-map: reported)
        inst.aggregates.append(Aggregate(str(prefix), _map(body).get("summary-only") == "on", r.line(where),
                                         as_set=_map(body).get("as-set") == "on"))
    # peer groups (`... router bgp peer-group NAME ...`): the same keys as a neighbor's; each member
    # (`neighbor N peer-group NAME`) takes what it does not set itself (finish_bgp, as FRR's)
    for name, body in _map(bgp.get("peer-group")).items():
        here = (*path, "peer-group", name)
        body = _map(body)
        r.extra(body, here, {"remote-as", "description", "address-family", "enable", *_SESSION_KEYS}, routing=True)
        group = Neighbor(str(name), line=r.line(here), defined=True)
        _peer(r, body, here, group, af_off)
        _literal_password(inst, group)
        inst.peer_groups.add(str(name))
        inst.neighbors[str(name)] = group
    for address, body in _map(bgp.get("neighbor")).items():
        body = _map(body)
        here = (*path, "neighbor", address)
        r.extra(body, here, {"type", "remote-as", "description", "address-family", "enable", "peer-group",
                             *_SESSION_KEYS}, routing=True)
        if not is_ip(str(address)) and body.get("type") != "unnumbered":
            r.routing(here, f"neighbor {str(address)[:40]}: not an address (and not unnumbered)")
            continue
        n = Neighbor(str(address), line=r.line(here))
        n.interface = body.get("type") == "unnumbered"
        if body.get("type", "numbered") not in ("numbered", "unnumbered"):  # (NVUE knows these two only)
            r.routing((*here, "type"), f"neighbor {address} type {str(body['type'])[:20]}: neither numbered nor "
                      "unnumbered; read as numbered")
        group_name = body.get("peer-group")
        if group_name is not None:
            n.peer_group = _name(group_name) or str(group_name)[:40]
        _peer(r, body, here, n, af_off)
        _literal_password(inst, n)
        inst.neighbors[str(address)] = n


def _path_selection(r: _Reader, ps: dict[str, Any], path: PathKey, inst: BgpInstance) -> None:
    """`router bgp path-selection` as FRR's `bgp bestpath ...` lines NVUE writes for it: multipath
    `aspath-ignore` (multipath-relax), med `compare-always` (always-compare-med) and `missing-as-max`
    (missing-as-worst) read; `routerid-compare`, the confederation comparisons and a deterministic
    MED (FRR's default) change no installed route of a fabric without confederations; an AS path
    length not compared (`bgp bestpath as-path ignore`), MEDs compared in arrival order and the
    multipath options beside aspath-ignore are reported."""
    r.extra(ps, path, {"aspath", "med", "multipath", "routerid-compare"}, routing=True)
    aspath, med, multipath = _map(ps.get("aspath")), _map(ps.get("med")), _map(ps.get("multipath"))
    r.extra(aspath, (*path, "aspath"), {"compare-lengths", "compare-confed"}, routing=True)
    r.extra(med, (*path, "med"), {"compare-always", "compare-confed", "compare-deterministic", "missing-as-max"},
            routing=True)
    r.extra(multipath, (*path, "multipath"), {"aspath-ignore"}, routing=True)
    if aspath.get("compare-lengths", "on") == "off":
        inst.as_path_ignore_line = r.line((*path, "aspath", "compare-lengths"))
    elif aspath.get("compare-lengths", "on") != "on":
        r.routing((*path, "aspath", "compare-lengths"),
                  f"path-selection aspath compare-lengths {str(aspath.get('compare-lengths'))[:40]}: not modelled")
    if med.get("compare-deterministic", "on") != "on":
        r.routing((*path, "med", "compare-deterministic"),
                  "path-selection med compare-deterministic off (no bgp deterministic-med): not modelled")
    inst.multipath_relax = multipath.get("aspath-ignore") == "on"
    inst.always_compare_med = med.get("compare-always") == "on"
    if med.get("missing-as-max") == "on":
        inst.med_missing_as_worst_line = r.line((*path, "med", "missing-as-max"))


def _literal_password(inst: BgpInstance, n: Neighbor) -> None:
    """A session password written as its value, where the renderer writes ``${secret:NAME}``."""
    if n.password is not None and not is_reference(n.password):
        inst.literal_passwords.append(n.password_line)


def _peer(r: _Reader, body: dict[str, Any], here: PathKey, n: Neighbor, af_off: bool) -> None:
    """What a neighbor or a peer group says: its remote AS, switches, session keys and IPv4
    unicast family (policy, AS-path options, the keys of ``_family``)."""
    remote = body.get("remote-as")
    if remote in ("external", "internal"):
        n.remote_kind = str(remote)
    else:
        n.remote_asn = parse_asn(str(remote)) if remote is not None else None
    n.description = _name(body.get("description")) or ""
    n.shutdown = body.get("enable", "on") != "on"
    _session(r, body, here, n)
    r.extra(_map(body.get("address-family")), (*here, "address-family"), {"ipv4-unicast"}, routing=True)
    naf = _map(_map(body.get("address-family")).get("ipv4-unicast"))
    naf_path = (*here, "address-family", "ipv4-unicast")
    r.extra(naf, naf_path, {"enable", "policy", "aspath", *_FAMILY_KEYS}, routing=True)
    _family(r, naf, naf_path, n)
    r.extra(_map(naf.get("policy")), (*naf_path, "policy"), {"inbound", "outbound"}, routing=True)
    for way in ("inbound", "outbound"):
        r.extra(_map(_map(naf.get("policy")).get(way)), (*naf_path, "policy", way), {"route-map", "prefix-list"},
                routing=True)
    aspath = _map(naf.get("aspath"))
    r.extra(aspath, (*naf_path, "aspath"), {"allow-my-asn", "replace-peer-as"}, routing=True)
    if aspath.get("replace-peer-as") == "on":  # FRR's `neighbor X as-override`
        n.as_override_line = r.line((*naf_path, "aspath", "replace-peer-as"))
    elif aspath.get("replace-peer-as", "off") != "off":
        r.routing((*naf_path, "aspath", "replace-peer-as"), "aspath replace-peer-as: not on or off")
    allow = _map(aspath.get("allow-my-asn"))
    r.extra(allow, (*naf_path, "aspath", "allow-my-asn"), {"enable", "occurrences", "origin"}, routing=True)
    if allow.get("enable") == "on":  # FRR's allowas-in: N copies of the own ASN (3), or as origin (1)
        n.allowas_in = 1 if allow.get("origin") == "on" else _int(allow.get("occurrences", 3), 10) or 3
    if "enable" in naf or af_off:
        n.activate = naf.get("enable") == "on" and not af_off
    policy = _map(naf.get("policy"))
    n.route_map_in = _name(_map(policy.get("inbound")).get("route-map"))
    n.route_map_out = _name(_map(policy.get("outbound")).get("route-map"))
    # FRR's `neighbor X prefix-list NAME in|out`: applied before the route-map, both must permit
    n.prefix_list_in = _name(_map(policy.get("inbound")).get("prefix-list"))
    n.prefix_list_out = _name(_map(policy.get("outbound")).get("prefix-list"))
    for way, key in (("in", "inbound"), ("out", "outbound")):
        if _map(policy.get(key)).get("prefix-list") is not None:
            n.prefix_list_lines[way] = r.line((*naf_path, "policy", key, "prefix-list"))


# A neighbor's session keys NVUE's reference documents (`nv set vrf V router bgp neighbor N ...`)
# that the model reads (timers: the hold time), or knows to change nothing a directly connected
# numbered session installs (BFD, graceful restart, enforce-first-as: the peer's own ASN is first
# anyway; the connected check: the peer is connected), `update-source` (FRR's). `capabilities
# source-address`, `peer-group` and the rest stay reported.
_SESSION_KEYS = frozenset({"shutdown", "password", "passive-mode", "multihop-ttl", "ttl-security", "local-as",
                           "timers", "bfd", "graceful-restart", "enforce-first-as", "nexthop-connected-check",
                           "update-source"})
# ... and of its IPv4 unicast family (`... address-family ipv4-unicast ...`)
_FAMILY_KEYS = frozenset({"weight", "prefix-limits", "community-advertise", "nexthop-setting", "add-path-tx",
                          "attribute-mod", "default-route-origination", "soft-reconfiguration"})
_ON_OFF_WORDS = ("on", "off")


def _switch(r: _Reader, node: dict[str, Any], key: str, path: PathKey) -> bool | None:
    """An `on`/`off` key: True/False, None when absent; any other value is reported (None)."""
    value = node.get(key)
    if value is None:
        return None
    if value not in _ON_OFF_WORDS:
        r.routing((*path, key), f"{key} {str(value)[:20]}: not on or off")
        return None
    return bool(value == "on")


def _session(r: _Reader, body: dict[str, Any], here: PathKey, n: Neighbor) -> None:
    """The session keys, as the FRR statements NVUE writes for them: `shutdown on` (`neighbor X
    shutdown`), `password P` (TCP MD5, both ends must agree), `passive-mode on`, `update-source
    PORT|A.B.C.D` (what the session opens from: controlplane._unopenable), `multihop-ttl N`
    (`ebgp-multihop N`: read for GTSM's TTL and reported, as FRR's), `ttl-security enable on` with
    `hops H` (`ttl-security hops H`), `local-as enable on` with `asn`, `prepend` and `replace`
    (`local-as N [no-prepend [replace-as]]`), `timers hold N` (`timers K N`: the hold time this end
    offers; `auto` keeps the global one)."""
    if _switch(r, body, "shutdown", here):
        n.shutdown = True
    password = body.get("password")
    if password is not None:
        if _name(password) is None or not str(password):
            r.routing((*here, "password"), "password: not a string")
        else:
            n.password, n.password_line = str(password), r.line((*here, "password"))
    if _switch(r, body, "passive-mode", here):
        n.passive = True
    source = body.get("update-source")
    if source is not None:  # FRR's `neighbor X update-source PORT|A.B.C.D`
        if _name(source) is None or not (is_ip(str(source)) or PORT_NAME.fullmatch(str(source))):
            r.routing((*here, "update-source"), f"update-source {str(source)[:20]}: not a port or an IPv4 address")
        else:
            n.update_source, n.update_source_line = str(source), r.line((*here, "update-source"))
    ttl = body.get("multihop-ttl")
    if ttl is not None and ttl != "auto":
        hops = _int(ttl, 255)
        if hops:
            n.ebgp_multihop = hops
        r.routing((*here, "multihop-ttl"), f"multihop-ttl {str(ttl)[:20]}: not modelled"
                  if hops else f"multihop-ttl {str(ttl)[:20]}: not 1-255 or auto")
    gtsm = _map(body.get("ttl-security"))
    r.extra(gtsm, (*here, "ttl-security"), {"enable", "hops"}, routing=True)
    if _switch(r, gtsm, "enable", (*here, "ttl-security")):
        hops = _int(gtsm.get("hops"), 254)
        if hops:
            n.ttl_security, n.ttl_security_line = hops, r.line((*here, "ttl-security"))
        else:  # NVUE's default hop count is not documented: not guessed
            r.routing((*here, "ttl-security"), "ttl-security without hops 1-254: not modelled")
    timers = _map(body.get("timers"))
    r.extra(timers, (*here, "timers"), {"keepalive", "hold", "connection-retry", "route-advertisement"},
            routing=True)
    if "hold" in timers and timers.get("hold") != "auto":  # (auto: the global value, NVUE's 9 s)
        hold = _int(timers.get("hold"), 65535)
        keepalive = timers.get("keepalive", "auto")
        if hold is None or 0 < hold < 3:
            r.routing((*here, "timers", "hold"), f"timers hold {str(timers.get('hold'))[:20]}: not 0 or 3-65535")
        else:  # (the keepalive decides nothing the model reads: how often, not how long)
            every = 3 if keepalive == "auto" else _int(keepalive, 65535) or 0
            n.timers, n.timers_line = (every, hold), r.line((*here, "timers", "hold"))
    local = _map(body.get("local-as"))
    r.extra(local, (*here, "local-as"), {"enable", "asn", "prepend", "replace"}, routing=True)
    if _switch(r, local, "enable", (*here, "local-as")):
        asn = _int(local.get("asn"))
        prepend = _switch(r, local, "prepend", (*here, "local-as"))
        replace = _switch(r, local, "replace", (*here, "local-as"))
        if not asn or replace and prepend is not False:  # FRR: replace-as only with no-prepend
            r.routing((*here, "local-as"), "local-as: no asn, or replace without prepend off: not modelled")
        else:
            n.local_as, n.local_as_line = asn, r.line((*here, "local-as"))
            n.local_as_no_prepend, n.local_as_replace = prepend is False, bool(replace)


def _family(r: _Reader, naf: dict[str, Any], path: PathKey, n: Neighbor) -> None:
    """The IPv4 unicast keys, as FRR's: `weight N`, `prefix-limits inbound maximum N`
    (`maximum-prefix N`; with `warning-only on` it only logs; the warning threshold and the wait
    before re-establishing change no route), `community-advertise regular on|off` (`[no]
    send-community`; extended and large carry nothing the fabric reads), `nexthop-setting self|force` (`next-hop-self`: over eBGP the sender's
    own address anyway), `add-path-tx all-paths|best-per-AS`, `attribute-mod nexthop off`
    (`attribute-unchanged next-hop`; `on` is bgpd's normal procedure, `aspath`/`med off` are
    reported), `default-route-origination enable on` (`default-originate`, with or without its
    `policy` route-map: what the peer's inbound policy does with the default decides),
    `soft-reconfiguration on|off` (a copy of what arrives, kept for re-reading: no route changes)."""
    if "weight" in naf:
        weight = _int(naf.get("weight"), 65535)
        if weight is None:
            r.routing((*path, "weight"), "weight: not 0-65535")
        else:
            n.weight, n.weight_line = weight, r.line((*path, "weight"))
    limits = _map(naf.get("prefix-limits"))
    r.extra(limits, (*path, "prefix-limits"), {"inbound"}, routing=True)
    inbound = _map(limits.get("inbound"))
    r.extra(inbound, (*path, "prefix-limits", "inbound"),
            {"maximum", "warning-threshold", "reestablish-wait", "warning-only"}, routing=True)
    if "maximum" in inbound:
        maximum = _int(inbound.get("maximum"))
        if maximum is None:
            r.routing((*path, "prefix-limits", "inbound", "maximum"), "prefix-limits inbound maximum: not a number")
        else:
            n.max_prefix, n.max_prefix_line = maximum, r.line((*path, "prefix-limits", "inbound", "maximum"))
    if _switch(r, inbound, "warning-only", (*path, "prefix-limits", "inbound")) and n.max_prefix is not None:
        n.max_prefix = 0  # (`maximum-prefix N warning-only`: logged, the session stays up)
    communities = _map(naf.get("community-advertise"))
    r.extra(communities, (*path, "community-advertise"), {"regular", "extended", "large"}, routing=True)
    regular = _switch(r, communities, "regular", (*path, "community-advertise"))
    if regular is not None:
        n.send_community = regular
    for key in ("extended", "large"):
        _switch(r, communities, key, (*path, "community-advertise"))
    setting = naf.get("nexthop-setting")
    if setting in ("self", "force"):
        n.next_hop_self = True
    elif setting not in (None, "auto"):
        r.routing((*path, "nexthop-setting"), f"nexthop-setting {str(setting)[:20]}: not auto, self or force")
    addpath = naf.get("add-path-tx")
    if addpath in ("all-paths", "best-per-AS"):
        n.addpath_tx_line = r.line((*path, "add-path-tx"))
    elif addpath not in (None, "off"):
        r.routing((*path, "add-path-tx"), f"add-path-tx {str(addpath)[:20]}: not off, all-paths or best-per-AS")
    origination = _map(naf.get("default-route-origination"))
    r.extra(origination, (*path, "default-route-origination"), {"enable", "policy"}, routing=True)
    if _switch(r, origination, "enable", (*path, "default-route-origination")):
        n.default_originate_line = r.line((*path, "default-route-origination", "enable"))
    _switch(r, naf, "soft-reconfiguration", path)
    unchanged = _map(naf.get("attribute-mod"))
    r.extra(unchanged, (*path, "attribute-mod"), {"aspath", "med", "nexthop"}, routing=True)
    if _switch(r, unchanged, "nexthop", (*path, "attribute-mod")) is False:
        n.next_hop_unchanged_line = r.line((*path, "attribute-mod", "nexthop"))
    for key in ("aspath", "med"):
        if _switch(r, unchanged, key, (*path, "attribute-mod")) is False:
            r.routing((*path, "attribute-mod", key), f"attribute-mod {key} off: not modelled")


# The QoS keys the model reads or knows to be harmless, as a tree: a dict names the keys allowed at
# that level ("#" stands for any number key, as NVUE's priorities and traffic classes are); a leaf
# says what value it takes ("int": a number, else the allowed words). Everything off the tree is
# reported, so a profile other than default-global (NVUE applies it to the ports that name it, which
# the model does not follow) or a misspelt key is never read as "not said".
_Schema = dict[str, "_Schema"] | str | frozenset[str]
_ON_OFF = frozenset({"enable", "disable"})
QOS_TREE: dict[str, _Schema] = {
    "roce": {"enable": frozenset({"on", "off"}), "mode": frozenset({"lossless", "lossy"})},
    "mapping": {"default-global": {"trust": frozenset(TRUST), "dscp": {"#": {"switch-priority": "int"}}}},
    "egress-queue-mapping": {"default-global": {"switch-priority": {"#": {"traffic-class": "int"}}}},
    "pfc": {"default-global": {"switch-priority": {"#": {}}, "rx": _ON_OFF, "tx": _ON_OFF,
                               "xoff-threshold": "int", "xon-threshold": "int", "cable-length": "int"}},
    "congestion-control": {"default-global": {"traffic-class": {"#": {
        "ecn": _ON_OFF, "red": _ON_OFF, "min-threshold": "int", "max-threshold": "int", "probability": "int"}}}},
    "egress-scheduler": {"default-global": {"traffic-class": {"#": {
        "mode": frozenset({"strict", "dwrr"}), "bw-percent": "int"}}}},
}


def _check_tree(r: _Reader, node: Any, path: PathKey, schema: _Schema) -> None:
    where = " ".join(str(p) for p in path[2:])
    if isinstance(schema, dict):
        if node is None or node == {}:
            return
        if not isinstance(node, dict):
            r.base(path, f"{where}: expected a mapping, found {str(node)[:40]!r}: not judged")
            return
        for key, body in node.items():
            sub = schema.get(str(key))
            if sub is None and "#" in schema and str(key).isascii() and str(key).isdigit():
                sub = schema["#"]
            if sub is None:
                r.base((*path, key), f"{where} {key}: not modelled")
            else:
                _check_tree(r, body, (*path, key), sub)
    elif schema == "int":
        if _int(node) is None:
            r.base(path, f"{where}: {str(node)[:40]!r} is not a number NVUE takes: not judged")
    elif isinstance(schema, frozenset) and str(node) not in schema:
        r.base(path, f"{where}: {str(node)[:40]!r} is none of {', '.join(sorted(schema))}: not judged")


DISCARDS = frozenset({"blackhole", "reject", "Null0"})  # the vias FRR's `ip route` takes as a discard


# NVIDIA's RoCE profile (`qos roce`, lossless unless `mode lossy`; "Default RoCE Configuration" in the
# Cumulus Linux 5.x user guide, and `nv show qos roce`): what a port runs for a QoS block the file
# leaves out while RoCE is on. Switch priority 3 (RoCE) to class 3, 6 (CNP) to class 6, every other
# to class 0; class 6 strict, classes 3 and 0 DWRR 50% each; ECN on classes 0 and 3 from 150,000 to
# 1,500,000 bytes ("146.48 KB", "1.43 MB"), probability 100, no RED; PFC on priority 3 both ways in
# lossless mode (the buffers and headroom NVUE sizes itself); trust pcp,dscp.
ROCE_PRIORITY_TO_TC = {**{p: 0 for p in range(8)}, 3: 3, 6: 6}
ROCE_STRICT = [6]
ROCE_SHARES = {3: 50, 0: 50}
ROCE_ECN = {tc: EcnProfile(150_000, 1_500_000, 100, False) for tc in (0, 3)}
ROCE_PFC = [3]
ROCE_TRUST = "both"
# NVUE's default-global mapping for a DSCP no `dscp` entry names: switch priority DSCP >> 3
DEFAULT_DSCP_TO_PRIORITY = {d: d >> 3 for d in range(64)}


@cache
def _default_classes(prio_tc: tuple[tuple[int, int], ...]) -> dict[int, int]:
    """Every DSCP's class by NVUE's default DSCP mapping and a switch priority -> class map (one
    dict per map: shared by the switches that have it)."""
    to_tc = dict(prio_tc)
    return {d: to_tc.get(p, p) for d, p in DEFAULT_DSCP_TO_PRIORITY.items()}


def _left_out(qos: dict[str, Any], block: str) -> bool:
    """Whether the file sets nothing in a QoS block's default-global profile (absent, or written
    empty: `{}` sets nothing)."""
    return not _map(_map(qos.get(block)).get("default-global"))


def _qos(r: _Reader, qos: dict[str, Any], path: PathKey) -> None:
    dev = r.dev
    _check_tree(r, qos, path, QOS_TREE)
    roce = _map(qos.get("roce"))
    # (`nv set qos roce` alone enables it, lossless: NVUE's defaults)
    roce_on = "roce" in qos and roce.get("enable", "on") == "on"
    lossy = roce_on and roce.get("mode") == "lossy"
    mapping = _map(_map(qos.get("mapping")).get("default-global"))
    default_trust = ROCE_TRUST if roce_on and _left_out(qos, "mapping") else "l2"
    trust = TRUST.get(str(mapping.get("trust", default_trust)), str(mapping.get("trust")))
    to_prio = {int(d): _int(_map(v).get("switch-priority"), 7) for d, v in _map(mapping.get("dscp")).items()
               if is_decimal(str(d)) and int(d) < 64}
    queues = _map(_map(_map(qos.get("egress-queue-mapping")).get("default-global")).get("switch-priority"))
    base_tc = ROCE_PRIORITY_TO_TC if roce_on and _left_out(qos, "egress-queue-mapping") else {}
    # (a class NVUE would not take is reported by _check_tree; read as class 0)
    prio_tc = {**base_tc, **{int(p): _int(_map(v).get("traffic-class"), 7) or 0 for p, v in queues.items()
                             if is_decimal(str(p))}}
    dev.qos.dscp_to_priority = {d: p for d, p in to_prio.items() if p is not None}
    dev.qos.dscp_to_tc = {d: prio_tc.get(p, p) for d, p in dev.qos.dscp_to_priority.items()}
    dev.qos.default_dscp_to_priority = DEFAULT_DSCP_TO_PRIORITY
    dev.qos.default_dscp_to_tc = _default_classes(tuple(sorted(prio_tc.items())))
    pfc = _map(_map(qos.get("pfc")).get("default-global"))
    prios = sorted(int(p) for p in _map(pfc.get("switch-priority")) if is_decimal(str(p)))
    if pfc.get("rx", "enable") != "enable" or pfc.get("tx", "enable") != "enable":
        prios = []  # a pause must be both sent and honoured: one direction off is no lossless class
    if lossy:
        prios = []  # RoCE lossy mode is ECN only: NVUE sends and honours no pause frames
    pfc_list: list[int] | None = prios if pfc else None
    if roce_on and _left_out(qos, "pfc"):
        pfc_list = [] if lossy else ROCE_PFC
    headroom = PfcHeadroom(_int(pfc.get("xoff-threshold")), _int(pfc.get("cable-length"))) if pfc else None
    ecn: dict[int, EcnProfile] = {}
    for tc, body in _map(_map(_map(qos.get("congestion-control")).get("default-global")).get("traffic-class")).items():
        body = _map(body)
        low, high, prob = (_int(body.get(k)) for k in ("min-threshold", "max-threshold", "probability"))
        if body.get("ecn", "enable") == "enable" and is_decimal(str(tc)) and None not in (low, high, prob):
            assert low is not None and high is not None and prob is not None
            ecn[int(tc)] = EcnProfile(low, high, prob, body.get("red", "disable") == "enable")
    if roce_on and _left_out(qos, "congestion-control"):
        ecn = dict(ROCE_ECN)
    scheduler = _map(_map(_map(qos.get("egress-scheduler")).get("default-global")).get("traffic-class"))
    strict = sorted(int(tc) for tc, body in scheduler.items() if is_decimal(str(tc)) and _map(body).get("mode") == "strict")
    shares = {int(tc): share for tc, body in scheduler.items() if is_decimal(str(tc)) and _map(body).get("mode") == "dwrr"
              and (share := _int(_map(body).get("bw-percent"), 100)) is not None}
    if roce_on and _left_out(qos, "egress-scheduler"):
        strict, shares = list(ROCE_STRICT), dict(ROCE_SHARES)
    shared_ecn = ecn or None
    for iface in dev.interfaces.values():
        if iface.is_loopback:
            continue
        # the default-global profiles apply to every port: one shared list and dict for all of them
        iface.pfc_priorities, iface.ecn, iface.strict_tcs, iface.trust = pfc_list, shared_ecn, strict, trust
        iface.dwrr_share = shares or None
        iface.pfc_headroom = headroom if headroom != PfcHeadroom() else None


_SERVICE_NAMES = {"ntp": "an NTP", "syslog": "a syslog", "dns": "a DNS"}
_SERVICE_KEYS = {"ntp": {"server", "listen"}, "syslog": {"server"}, "dns": {"server", "search"}}


def _services(r: _Reader, service: dict[str, Any], path: PathKey) -> None:
    mgmt = r.dev.management
    mgmt.services_in_file = True
    r.extra(service, path, {"ntp", "syslog", "dns", "lldp"})
    for kind, target in (("ntp", mgmt.ntp), ("syslog", mgmt.syslog), ("dns", mgmt.dns)):
        for vrf, body in _map(service.get(kind)).items():
            # (a key NVUE has beside the servers that names none: `listen` an address NTP answers
            # on, `search` a DNS search domain; any other is said, a pasted key among them too)
            r.extra(_map(body), (*path, kind, vrf), _SERVICE_KEYS[kind])
            servers = _map(_map(body).get("server"))
            if vrf != mgmt.vrf:  # outside the management VRF: the fabric would carry it, or nothing would
                mgmt.astray += [(FILE, r.line((*path, kind, vrf, "server", server)), str(server),
                                 f"{_SERVICE_NAMES[kind]} server in VRF {vrf}") for server in servers]
                if not servers:
                    r.base((*path, kind, vrf), f"service {kind} in VRF {vrf}, not the management VRF")
                continue
            for server, settings in servers.items():
                where = (*path, kind, vrf, "server", server)
                mgmt.located[({"ntp": "NTP", "dns": "DNS"}.get(kind, kind), str(server))] = (FILE, r.line(where))
                if kind != "syslog":
                    r.extra(_map(settings), where, {"iburst"} if kind == "ntp" else set())
                    target.append(str(server))
                    continue
                settings = _map(settings)
                r.extra(settings, where, {"port", "protocol"})
                transport = (str(settings.get("protocol", SYSLOG_TRANSPORT[0])).lower(),
                             str(settings.get("port", SYSLOG_TRANSPORT[1])))
                astray = syslog_transport_astray(transport)
                if astray is None:
                    target.append(str(server))
                else:
                    mgmt.astray.append((FILE, r.line(where), str(server), astray))
    lldp = service.get("lldp")
    if lldp is not None:
        r.extra(_map(lldp), (*path, "lldp"), {"state"})
        mgmt.lldp = _map(lldp).get("state", "enabled") == "enabled"
