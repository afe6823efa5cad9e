"""The Linux kernel as the host model's oracle: a server's forwarding decision as verify predicts it
(verify/hostroute.py, what HOST-FORWARDING judges) against the kernel's own, for the same file.

A server's rendered interfaces file is applied by ifupdown2 in a namespace of its own, each port a
veth whose far end stays in the namespace, up and unaddressed (the decision needs addresses, routes
and rules, not cables; the port has carrier like a cabled NIC port), and the kernel is asked `ip route get DST from SRC` for every
address of the server and a destination in every routed prefix of every plane (and one outside
them all). ``differential`` applies seeded random edits of the file (rules and routes dropped,
renumbered, re-tabled, re-pointed, metrics, `add` over an existing route, a port down or
unaddressed) one at a time, and every disagreement is a bug in the model or a construct it does
not claim. Needs root and ifupdown2; touches nothing outside its namespace.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from ipaddress import IPv4Network
from pathlib import Path

from dualrail_net.twin.lifecycle import ifup_in
from dualrail_net.twin.shell import TwinError, in_ns, ip_batch, run
from dualrail_net.verify.hostroute import host_routing
from dualrail_net.verify.ipfast import dotted, ip_int
from dualrail_net.verify.parsers import parse_server
from dualrail_net.verify.parsers.ifupdown import parse_stanzas

NS = "drt-host-oracle"
Probe = tuple[str, str]  # (source address, or "" for a socket bound to none; destination address)
# where a packet leaves: (port, gateway, source) — the source only for a socket bound to none (the
# address the kernel picks); ("local", None, None): delivered to the server itself; None: no route
Decision = tuple[str, str | None, str | None] | None
_GET = re.compile(r"^(?P<local>local )?\S+ (?:from \S+ )?(?:via (?P<via>\S+) )?dev (?P<dev>\S+)"
                  r"(?:.*? src (?P<src>\S+))?")


def probes(folder: Path, destinations: Sequence[str]) -> list[Probe]:
    """Every address of the server's ports as a source, and no source, to each destination, to
    every source, and to an address inside every route of the model's tables (a route more specific
    than the planes' prefixes decides for its part only)."""
    srv = parse_server(folder.name, folder)
    sources = [a.partition("/")[0] for iface in srv.interfaces.values() if not iface.is_loopback
               for a in iface.addresses]
    routing = host_routing(srv)
    inside = [dotted(routing.address_inside(net, length))
              for entries in routing.tables.values() for net, length, *_ in entries if length >= 8]
    return [(s, d) for s in [*sources, ""] for d in dict.fromkeys([*destinations, *sources, *inside])]


def predicted(folder: Path, wanted: Sequence[Probe]) -> dict[Probe, tuple[Decision, ...]]:
    """verify's host model on the folder's interfaces file: per probe, the decisions the kernel may
    take (one, or one per next hop of a multipath route: the kernel hashes the flow onto one)."""
    routing = host_routing(parse_server(folder.name, folder))
    out: dict[Probe, tuple[Decision, ...]] = {}
    for source, destination in wanted:
        found = routing.lookup(ip_int(source) if source else 0, ip_int(destination))
        if found is None:
            out[(source, destination)] = (None,)
        elif found.dev is None:
            out[(source, destination)] = (("local", None, None),)
        else:
            decisions: list[Decision] = []
            for egress in found.each():
                chosen = routing.source_for(egress) if not source else None
                decisions.append((egress.dev or "", egress.via, dotted(chosen) if chosen is not None else None))
            out[(source, destination)] = tuple(decisions)
    return out


def _ports(text: str) -> list[str]:
    """The ports a file configures (what the namespace gets as links)."""
    return list(dict.fromkeys(st.name for st in parse_stanzas(text)  # a stanza written twice is one port
                              if st.name != "lo" and re.fullmatch(r"[A-Za-z0-9_.-]{1,15}", st.name)))


def observed(text: str, wanted: Sequence[Probe]) -> dict[Probe, Decision]:
    """The kernel's decisions after ifupdown2 applied ``text`` in a fresh namespace."""
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)
    run(["ip", "netns", "add", NS])
    work = Path(tempfile.mkdtemp(prefix="drt-host-oracle-"))
    try:
        ports = _ports(text)
        # each port a veth whose other end (unaddressed) is up: carrier, as on a cabled NIC port
        # (no dummy driver in every kernel the twin runs on)
        ip_batch(["link set dev lo up"]
                 + [f"link add {port} type veth peer name drt-far{i}" for i, port in enumerate(ports)]
                 + [f"link set dev drt-far{i} up" for i in range(len(ports))], namespace=NS)
        (work / "interfaces").write_text(text)
        ifup_in(NS, work / "interfaces")  # its exit status is not trusted: the decisions are what count
        # one line per probe whatever ip prints (its first line, or its error)
        script = "".join(f'echo "$(ip route get {d}{f" from {s}" if s else ""} 2>&1 | head -1)"\n'
                         for s, d in wanted)
        answer = in_ns(NS, ["sh", "-c", script], check=False, timeout=300).split("\n")
    finally:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    lines = answer[:len(wanted)]
    if len(lines) != len(wanted):
        raise TwinError(f"ip route get answered {len(lines)} of {len(wanted)} probes")
    return {probe: _decision(line, bound=bool(probe[0])) for probe, line in zip(wanted, lines)}


def _decision(line: str, bound: bool = True) -> Decision:
    m = _GET.match(line)
    if m is None:  # "RTNETLINK answers: Network is unreachable" and the like
        return None
    if m.group("local"):
        return ("local", None, None)
    return (m.group("dev"), m.group("via"), None if bound else m.group("src"))


def disagreements(model: dict[Probe, tuple[Decision, ...]], kernel: dict[Probe, Decision]) -> dict[Probe, str]:
    """The probes whose kernel decision is none of the model's."""
    return {p: f"predicted {' or '.join(map(str, model[p]))}, kernel {kernel.get(p)}" for p in model
            if kernel.get(p) not in model[p]}


# --- the edit generator ---------------------------------------------------------------------------

_RULE = re.compile(r"^(\s*post-up ip rule add from \S+ lookup )(\d+)( priority )(\d+)$", re.M)
_ROUTE = re.compile(r"^(\s*post-up ip route )(replace|add) (\S+) via (\S+) dev (\S+)(.*)$", re.M)


def _drop_line(rng: random.Random, text: str) -> tuple[str, str] | None:
    lines = [m for m in re.finditer(r"^\s*post-up ip (rule|route) .*$", text, re.M)]
    if not lines:
        return None
    m = rng.choice(lines)
    return f"drop `{m.group(0).strip()}`", text[:m.start()] + text[m.end() + 1:]


def _rule_priority(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A rule renumbered (before another port's, after main's) or left to the kernel's numbering."""
    rules = list(_RULE.finditer(text))
    if not rules:
        return None
    m = rng.choice(rules)
    new = rng.choice(["", "100", "32767", "50", str(int(m.group(4)) + rng.choice([1, 2, 3]))])
    line = f"{m.group(1)}{m.group(2)}" + (f"{m.group(3)}{new}" if new else "")
    return f"rule of table {m.group(2)}: priority {new or 'left out'}", text[:m.start()] + line + text[m.end():]


def _rule_table(rng: random.Random, text: str) -> tuple[str, str] | None:
    rules = list(_RULE.finditer(text))
    if len(rules) < 2:
        return None
    m, other = rng.sample(rules, 2)
    line = f"{m.group(1)}{other.group(2)}{m.group(3)}{m.group(4)}"
    return f"rule {m.group(4)} looks up table {other.group(2)}", text[:m.start()] + line + text[m.end():]


def _route_gateway(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route's gateway or port retyped: another port's gateway, a gateway off every subnet, the
    other port with its gateway kept, or `onlink` added."""
    routes = list(_ROUTE.finditer(text))
    if len(routes) < 2:
        return None
    m, other = rng.sample(routes, 2)
    how = rng.choice(["via", "dev", "off-subnet", "onlink"])
    via, dev, rest = m.group(4), m.group(5), m.group(6)
    if how == "via":
        via = other.group(4)
    elif how == "dev":
        dev = other.group(5)
    elif how == "off-subnet":
        via = dotted(ip_int(via) ^ (1 << 12))
    else:
        via, dev, rest = other.group(4), dev, rest + " onlink"
    line = f"{m.group(1)}{m.group(2)} {m.group(3)} via {via} dev {dev}{rest}"
    return f"route {m.group(3)}{' ' + rest.strip() if rest.strip() else ''}: {how} -> via {via} dev {dev}", \
        text[:m.start()] + line + text[m.end():]


def _route_second(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A second route to a prefix through another port: `add` (refused when one exists), `replace`
    (wins), or `add` with another metric (both kept, the lower metric wins)."""
    routes = list(_ROUTE.finditer(text))
    if len(routes) < 2:
        return None
    m, other = rng.sample(routes, 2)
    how = rng.choice(["add", "replace", "metric-lower", "metric-higher"])
    verb = "replace" if how == "replace" else "add"
    metric = {"metric-lower": " metric 10", "metric-higher": " metric 2000"}.get(how, "")
    first = m.group(0)
    if how == "metric-lower":  # the existing route's metric is raised so the new one can be lower
        first = f"{m.group(1)}{m.group(2)} {m.group(3)} via {m.group(4)} dev {m.group(5)}{m.group(6)} metric 100"
    line = f"{m.group(1)}{verb} {m.group(3)} via {other.group(4)} dev {other.group(5)}{m.group(6)}{metric}"
    return f"second route {m.group(3)} ({how}) via {other.group(4)} dev {other.group(5)}", \
        text[:m.start()] + first + "\n" + line + text[m.end():]


def _addressed_stanzas(text: str) -> list[re.Match[str]]:
    """The stanzas with an `address` line (group 1 the port, group 2 its indented lines)."""
    return [m for m in re.finditer(r"^iface (\S+)\n((?:[ \t]+\S.*\n)*)", text, re.M) if "address " in m.group(2)]


def _port_state(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A port kept down (`link-down yes`) or left without its address."""
    stanzas = _addressed_stanzas(text)
    if not stanzas:
        return None
    m = rng.choice(stanzas)
    if rng.random() < 0.5:
        return f"{m.group(1)} link-down yes", text[:m.end()] + "    link-down yes\n" + text[m.end():]
    body = re.sub(r"^\s*address \S+\n", "", m.group(2), count=1, flags=re.M)
    return f"{m.group(1)} without its address", text[:m.start(2)] + body + text[m.end(2):]


def _client_method(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A port's stanza given a method: `inet dhcp` (ifupdown2 applies none of its addresses and
    starts a client, absent here: no lease), `inet manual` or `inet static` (addresses applied)."""
    stanzas = _addressed_stanzas(text)
    if not stanzas:
        return None
    m = rng.choice(stanzas)
    method = rng.choice(["dhcp", "dhcp", "manual", "static"])
    return f"{m.group(1)} inet {method}", text[:m.start()] + f"iface {m.group(1)} inet {method}\n" + text[m.start(2):]


def _link_set(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A post-up `ip link set` on a port, in its own stanza or another's: down (its routes go with
    it), up (nothing changes) or another MTU (routing does not move)."""
    stanzas = _addressed_stanzas(text)
    if not stanzas:
        return None
    port = rng.choice(stanzas).group(1)
    host = rng.choice(stanzas)
    what = rng.choice(["down", "down", "up", "mtu 1500"])
    line = f"    post-up ip {rng.choice(['link', 'l', 'li'])} {rng.choice(['set', 's'])} " \
           f"{rng.choice(['', 'dev '])}{port} {what}\n"
    at = host.end() if rng.random() < 0.5 else host.start(2)
    return f"{port} {what} (from the {host.group(1)} stanza)", text[:at] + line + text[at:]


def _no_auto(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A port's `auto` line dropped: `ifup -a` never applies its stanza."""
    lines = [m for m in re.finditer(r"^auto (\S+)\n", text, re.M) if m.group(1) != "lo"]
    if not lines:
        return None
    m = rng.choice(lines)
    return f"{m.group(1)} without its auto line", text[:m.start()] + text[m.end():]


# ip's options that only say IPv4, as an operator writes them (ip(8): -4, -f|-family inet)
_FAMILY = ("", "", "-4 ", "-f inet ", "-family inet ", "--family inet ", "-fam inet ")


def _respell(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A rule or route written as an operator might: iproute2's abbreviations and synonyms, `-4` or
    `-f inet`,
    a table by name, numbers in hex or octal, a `|| true` tail; or a rule for every source (`from all`)."""
    lines = [m for m in re.finditer(r"^(\s+post-up )ip (rule|route) (add|replace) (.*)$", text, re.M)]
    if not lines:
        return None
    m = rng.choice(lines)
    obj, verb, rest = m.group(2), m.group(3), m.group(4)
    if obj == "rule":
        rest = rest.replace("lookup", rng.choice(["lookup", "table"])).replace(
            "priority", rng.choice(["pref", "prio", "order", "preference"]))
        if rng.random() < 0.25:
            rest = re.sub(r"from \S+", "from all", rest)
        new = f"ip {rng.choice(_FAMILY)}{rng.choice(['rule', 'ru', 'rul'])} {rng.choice(['add', 'a'])} {rest}"
    else:
        if "table" not in rest and rng.random() < 0.5:
            rest += " table main"
        new = f"ip {rng.choice(_FAMILY)}{rng.choice(['route', 'r', 'ro'])} {verb} {rest}"
    if rng.random() < 0.3:  # numbers as C reads them (strtoul base 0): 0x65 and 0145 are 101
        new = re.sub(r"\b(table|lookup|pref|prio|order|preference|priority|metric) (\d+)\b",
                     lambda n: f"{n.group(1)} {rng.choice([hex(int(n.group(2))), '0' + oct(int(n.group(2)))[2:]])}",
                     new)
    if rng.random() < 0.3:
        new += " || true"
    return f"respelt: {new}", text[:m.start()] + m.group(1) + new + text[m.end():]


def _reject_route(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route that forwards nothing (blackhole, unreachable, prohibit) over a part of a plane or a
    whole prefix, in a port's table or main, at metric 0 or floating behind the others."""
    tables = re.findall(r"lookup (\d+)", text)
    nets = re.findall(r"^\s*post-up ip route \S+ (\d+\.\d+\.\d+\.\d+/\d+) ", text, re.M)
    stanzas = [m for m in re.finditer(r"^iface (\S+)\n((?:[ \t]+\S.*\n)*)", text, re.M)]
    if not nets or not stanzas:
        return None
    net = IPv4Network(rng.choice(nets), strict=False)
    longer = max(net.prefixlen, min(net.prefixlen + rng.choice([2, 6]), 30))
    prefix = str(net) if rng.random() < 0.4 else str(next(net.subnets(new_prefix=longer)))
    kind = rng.choice(["blackhole", "unreachable", "prohibit"])
    where = f" table {rng.choice(tables)}" if tables and rng.random() < 0.6 else ""
    metric = rng.choice(["", "", " metric 4000"])
    line = f"post-up ip route {rng.choice(['add', 'replace'])} {kind} {prefix}{where}{metric}"
    m = rng.choice(stanzas)
    return line, text[:m.end()] + f"    {line}\n" + text[m.end():]


def _main_route(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route in the main table toward one prefix of the routed space, through some port."""
    routes = list(_ROUTE.finditer(text))
    if not routes:
        return None
    m = rng.choice(routes)
    target = rng.choice(["default", "10.0.0.0/8", "10.20.0.0/16", "10.10.0.0/16"])
    line = f"{m.group(1)}replace {target} via {m.group(4)} dev {m.group(5)}"
    return f"main-table route {target} via {m.group(5)}", text[:m.end()] + "\n" + line + text[m.end():]


def _host_bits(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route's destination written with bits beyond its length (`10.12.0.2/30`): the kernel
    refuses the command ("Invalid prefix for given prefix length"); or such a prefix deleted after
    the route (refused as well: the route stays)."""
    routes = [m for m in _ROUTE.finditer(text) if "/" in m.group(3) and int(m.group(3).split("/")[1]) < 31]
    if not routes:
        return None
    m = rng.choice(routes)
    network = IPv4Network(m.group(3))
    odd = f"{network.network_address + rng.choice([1, 2, 3])}/{network.prefixlen}"
    if rng.random() < 0.5:
        line = f"{m.group(1)}{m.group(2)} {odd} via {m.group(4)} dev {m.group(5)}{m.group(6)}"
        return f"route {m.group(3)} written {odd}", text[:m.start()] + line + text[m.end():]
    table = re.search(r" table \d+", m.group(6))
    line = f"{m.group(1)}del {odd}{table.group(0) if table else ''}"
    return f"route {m.group(3)} deleted as {odd}", text[:m.end()] + "\n" + line + text[m.end():]


def _double_stanza(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A port's stanza pasted again at the end with a route of its own into the table of one of the
    port's routes, through some port's gateway (when does ifupdown2 run it: with the port)."""
    routes = list(_ROUTE.finditer(text))
    if not routes:
        return None
    m = rng.choice(routes)
    port = m.group(5)
    other = rng.choice(routes)
    line = f"    post-up ip route replace 10.0.0.0/8 via {other.group(4)} dev {other.group(5)}{m.group(6)}"
    return f"{port} stanza repeated with a route 10.0.0.0/8 via {other.group(5)}", \
        text.rstrip("\n") + f"\n\nauto {port}\niface {port}\n{line}\n"


def _route_source(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route given a preferred source (`src`): its own port's address, another port's (one
    configured before it or after it), or an address the server does not have."""
    routes = list(_ROUTE.finditer(text))
    addresses = re.findall(r"^\s*address (\d+\.\d+\.\d+\.\d+)", text, re.M)
    if not routes or not addresses:
        return None
    m = rng.choice(routes)
    src = rng.choice([*addresses, "10.99.0.1"])
    line = f"{m.group(0)} src {src}"
    return f"route {m.group(3)} via {m.group(5)}: src {src}", text[:m.start()] + line + text[m.end():]


def _multipath(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route made multipath: its own next hop and another port's (the other plane's: flows are
    hashed across planes), or the same port twice, or a second hop whose gateway is off every
    subnet (the kernel then refuses the whole route), written with `nexthop` groups."""
    routes = list(_ROUTE.finditer(text))
    if len(routes) < 2:
        return None
    m, other = rng.sample(routes, 2)
    how = rng.choice(["other-port", "other-port", "same-port", "off-subnet"])
    via, dev = other.group(4), other.group(5)
    if how == "same-port":
        via, dev = m.group(4), m.group(5)
    elif how == "off-subnet":
        via = dotted(ip_int(via) ^ (1 << 12))
    weight = rng.choice(["", " weight 2"])
    line = (f"{m.group(1)}{m.group(2)} {m.group(3)}{m.group(6)} nexthop via {m.group(4)} dev {m.group(5)}"
            f"{weight} nexthop via {via} dev {dev}")
    return f"route {m.group(3)}{m.group(6)} multipath: {how} -> +via {via} dev {dev}", \
        text[:m.start()] + line + text[m.end():]


def _rule_selector(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A rule that selects by destination (`to PREFIX`), by arriving port (`iif lo`: the server's
    own traffic; `iif PORT`: never it), by firewall mark (the server's own traffic carries none: a
    mark under its mask that is not 0 never takes it, `fwmark 0` takes everything), or inverted
    (`not`), into another port's table, before or after the rendered rules."""
    rules = list(_RULE.finditer(text))
    nets = re.findall(r"^\s*post-up ip route \S+ (\d+\.\d+\.\d+\.\d+/\d+) ", text, re.M)
    ports = re.findall(r"^iface (\S+)", text, re.M)
    if not rules or not nets:
        return None
    m = rng.choice(rules)
    selector = rng.choice([f"to {rng.choice(nets)}", "iif lo", f"iif {rng.choice(ports)}",
                           f"from {m.group(1).split()[-2]} to {rng.choice(nets)}",
                           rng.choice(["fwmark 1", "fwmark 0", "fwmark 0x0/0xffffffff", "fwmark 0x100/0xff",
                                       "fwmark 0x10/0xf0", "fwmark 010"])])
    negated = "not " if rng.random() < 0.25 else ""
    table = rng.choice(rules).group(2)
    priority = rng.choice([" priority 50", " priority 150", " priority 40000", ""])
    line = f"    post-up ip rule add {negated}{selector} lookup {table}{priority}"
    return line.strip(), text[:m.end()] + "\n" + line + text[m.end():]


def _reject_rule(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A rule of a type that forwards nothing (blackhole, unreachable, prohibit: bare, abbreviated
    or after `type`), selecting a port's source or a plane's prefix, before or after the rendered
    rules; or an `ip rule del` of such a rule of one type or another."""
    rules = list(_RULE.finditer(text))
    nets = re.findall(r"^\s*post-up ip route \S+ (\d+\.\d+\.\d+\.\d+/\d+) ", text, re.M)
    if not rules or not nets:
        return None
    m = rng.choice(rules)
    kind = rng.choice(["blackhole", "unreachable", "prohibit"])
    spelled = rng.choice([kind, f"type {kind}", kind[:rng.randint(2, len(kind))]])
    selector = rng.choice([f"from {m.group(1).split()[-2]}", f"to {rng.choice(nets)}",
                           f"from {m.group(1).split()[-2]} to {rng.choice(nets)}"])
    priority = rng.choice([" priority 50", " priority 150", " priority 40000", ""])
    line = f"    post-up ip rule add {selector} {spelled}{priority}"
    if rng.random() < 0.3:  # taken back again, by its type or by another one
        other = rng.choice(["blackhole", "unreachable", "prohibit"])
        line += f"\n    post-up ip rule del {selector} {other}{priority}"
    return line.strip(), text[:m.end()] + "\n" + line + text[m.end():]


_COMMAND = re.compile(r"^(\s+post-up )(ip (rule add from (\S+) lookup (\d+) priority (\d+)|route (?:replace|add) "
                      r"(\S+) via (\S+) dev (\S+)(?: table (\d+))?))$", re.M)


def _undo(m: re.Match[str], rng: random.Random) -> str:
    """An `ip rule del` / `ip route del` for the command ``m`` matched (_COMMAND), with a random part
    of its selectors (at least one), or with one of them wrong (it then deletes nothing, or another)."""
    if m.group(4) is not None:
        given = [f"from {m.group(4)}", f"lookup {m.group(5)}", f"priority {m.group(6)}"]
        if rng.random() < 0.2:
            given[rng.randrange(3)] = rng.choice(["priority 32766", "lookup 254", "from 10.99.0.1"])
        chosen = [g for g in given if rng.random() < 0.6] or [rng.choice(given)]
        return f"ip rule {rng.choice(['del', 'delete', 'd'])} {' '.join(chosen)}"
    table = f" table {m.group(10)}" if m.group(10) else ""
    extra = [f"via {m.group(8)}", f"dev {m.group(9)}"]
    chosen = [e for e in extra if rng.random() < 0.5]
    if rng.random() < 0.2:
        chosen.append("metric 5")  # a metric above the route's 0: nothing of at least 5 to take
    return f"ip route {rng.choice(['del', 'delete'])} {m.group(7)}{table}{''.join(' ' + c for c in chosen)}"


def _shell_form(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A rendered rule or route written in a shell form an operator might use (ifupdown2 hands a
    post-up line to /bin/sh): after `true &&` or `false ||`, with a comment or a redirection after
    it, inside `sh -c '...'`, or followed by a command that takes it back again (`; ip ... del`,
    `&& ip ... del`, `|| ip ... del`)."""
    lines = list(_COMMAND.finditer(text))
    if not lines:
        return None
    m = rng.choice(lines)
    cmd = m.group(2)
    form = rng.choice(["true && {}", "false || {}", "{} # rail", "{} 2>/dev/null", "{} >/dev/null 2>&1",
                       "sh -c '{}'", "{} ; {undo}", "{} && {undo}", "{} || {undo}", ": ; {}"])
    new = form.format(cmd, undo=_undo(m, rng)) if "{undo}" in form else form.format(cmd)
    return f"shell: {new}", text[:m.start()] + m.group(1) + new + text[m.end():]


def _delete_line(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A post-up `ip rule del` or `ip route del` of a rendered rule or route, after its line or at
    the end of a later stanza, with some of its selectors."""
    lines = list(_COMMAND.finditer(text))
    if not lines:
        return None
    m = rng.choice(lines)
    later = [n for n in lines if n.start() >= m.start()]
    at = rng.choice(later)
    line = f"{m.group(1)}{_undo(m, rng)}"
    return line.strip(), text[:at.end()] + "\n" + line + text[at.end():]


def _continued(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A rule or route split over two lines with a trailing backslash (ifupdown2 joins them)."""
    lines = list(_COMMAND.finditer(text))
    if not lines:
        return None
    m = rng.choice(lines)
    words = m.group(2).split(" ")
    cut = rng.randrange(2, len(words))
    new = " ".join(words[:cut]) + rng.choice([" \\\n        ", "\\\n    "]) + " ".join(words[cut:])
    return f"continued: {m.group(2)}", text[:m.start()] + m.group(1) + new + text[m.end():]


def _iface_variable(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`dev $IFACE` in a route of a stanza (ifupdown2 puts the stanza's interface in), in its own
    port's stanza or another's."""
    routes = [m for m in _ROUTE.finditer(text)]
    if not routes:
        return None
    m = rng.choice(routes)
    line = f"{m.group(1)}{m.group(2)} {m.group(3)} via {m.group(4)} dev $IFACE{m.group(6)}"
    return f"dev $IFACE in {line.strip()}", text[:m.start()] + line + text[m.end():]


def _netmask(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A port's address written bare with a `netmask` line: after it (its own), before it (ifupdown2
    drops it: the address is a /32), or another length."""
    addresses = list(re.finditer(r"^(\s+)address (\d+\.\d+\.\d+\.\d+)/(\d+)$", text, re.M))
    if not addresses:
        return None
    m = rng.choice(addresses)
    length = int(m.group(3)) if rng.random() < 0.6 else rng.choice([24, 30, 32])
    mask = dotted(((1 << length) - 1) << (32 - length) if length else 0)
    indent = m.group(1)
    bare = f"{indent}address {m.group(2)}"
    how = rng.choice(["after", "after", "before"])
    new = f"{bare}\n{indent}netmask {mask}" if how == "after" else f"{indent}netmask {mask}\n{bare}"
    return f"address {m.group(2)} with netmask {mask} {how} it", text[:m.start()] + new + text[m.end():]


def address_form(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A port's address written in a form ifupdown2 takes otherwise than as written: a second word,
    an octet above 255 or with a leading zero, a length above 32 or with leading zeros, or a second
    `address` line (IPv4 or a broken IPv6 one) before or after it."""
    addresses = list(re.finditer(r"^(\s+)address (\d+)\.(\d+)\.(\d+)\.(\d+)/(\d+)$", text, re.M))
    if not addresses:
        return None
    m = rng.choice(addresses)
    indent, octets, length = m.group(1), list(m.groups()[1:5]), m.group(6)
    own = f"{'.'.join(octets)}/{length}"
    how = rng.choice(["two-words", "octet-256", "leading-zero", "length-33", "length-zeros", "second-line"])
    if how == "two-words":
        new = f"{indent}address {own} {'.'.join(octets[:3])}.{int(octets[3]) ^ 2}/{length}"
    elif how == "octet-256":
        new = f"{indent}address {'.'.join(octets[:3])}.256/{length}"
    elif how == "leading-zero":
        new = f"{indent}address {'.'.join(octets[:3])}.0{octets[3]}/{length}"
    elif how == "length-33":
        new = f"{indent}address {own}\n{indent}address {'.'.join(octets[:3])}.{int(octets[3]) ^ 2}/33"
        if rng.random() < 0.5:
            new = f"{indent}address {'.'.join(octets[:3])}.{int(octets[3]) ^ 2}/33\n{indent}address {own}"
    elif how == "length-zeros":
        new = f"{indent}address {'.'.join(octets)}/0{length}"
    else:
        extra = rng.choice([f"2001:db8::{rng.randrange(1, 99)}/64", "2001:db8::zz/64",
                            f"{'.'.join(octets[:3])}.{int(octets[3]) ^ 2}/{length}"])
        new = f"{indent}address {own}\n{indent}address {extra}"
    return f"address {own} written {how}: {new.strip()!r}", text[:m.start()] + new + text[m.end():]


def address_command(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A post-up `ip address` command on a port, in its own stanza or another's, first or last of
    its lines: another address added (a free one of the port's subnet, the other plane's port's, a
    host address), one of its own deleted, or all flushed."""
    stanzas = _addressed_stanzas(text)
    if not stanzas:
        return None
    target = rng.choice(stanzas)
    port = target.group(1)
    own = re.search(r"address (\d+\.\d+\.\d+\.\d+)/(\d+)", target.group(2))
    if own is None:
        return None
    address, length = own.group(1), own.group(2)
    other = rng.choice(stanzas)
    theirs = re.search(r"address (\S+)", other.group(2))
    octets = address.split(".")
    what = rng.choice(["add-free", "add-other", "add-host", "delete", "delete", "flush"])
    verb = rng.choice(["address", "addr", "a"])
    if what == "add-free":
        arg = f"{rng.choice(['add', 'replace'])} {'.'.join(octets[:3])}.{int(octets[3]) ^ 4}/{length} dev {port}"
    elif what == "add-other" and theirs is not None:
        arg = f"add {theirs.group(1)} dev {port}"
    elif what == "add-host":
        arg = f"add 192.0.2.{rng.randrange(1, 250)}/32 dev {port}"
    elif what == "flush":
        arg = f"flush dev {port}"
    else:
        arg = f"{rng.choice(['del', 'delete'])} {address}/{length} dev {port}"
    line = f"    post-up ip {rng.choice(_FAMILY)}{verb} {arg}\n"
    host = rng.choice([target, other])
    at = host.end() if rng.random() < 0.5 else host.start(2)
    return f"ip {verb} {arg} (from the {host.group(1)} stanza)", text[:at] + line + text[at:]


EDITS: tuple[Callable[[random.Random, str], tuple[str, str] | None], ...] = (
    _shell_form, _delete_line, _continued, _iface_variable, _netmask,
    _route_source, _route_source, _drop_line, _rule_priority, _rule_priority, _rule_table, _route_gateway,
    _route_gateway, _route_second, _route_second, _port_state, _main_route, _double_stanza, _no_auto,
    _respell, _reject_route, _multipath, _rule_selector, _link_set, _client_method, _reject_rule, address_form,
    address_command, _host_bits)


@dataclass(frozen=True)
class HostEdit:
    server: str
    description: str
    text: str


def edit_kind(edit: Callable[[random.Random, str], tuple[str, str] | None]) -> str:
    """An edit function's kind as the benchmark's --kinds names it (`_shell_form`: shell-form)."""
    return edit.__name__.strip("_").replace("_", "-")


def random_edits(seed: int, count: int, files: dict[str, str],
                 kinds: set[str] | None = None) -> Iterator[HostEdit]:
    """``count`` seeded edits of the files (``kinds``: of those kinds only, edit_kind's names)."""
    rng = random.Random(seed)
    edits = [e for e in EDITS if kinds is None or edit_kind(e) in kinds]
    if not edits:
        raise ValueError(f"no edit kind of {sorted(kinds or ())}; known: {sorted({edit_kind(e) for e in EDITS})}")
    names = sorted(files)
    made = 0
    for _ in range(count * 50):
        if made == count:
            return
        server = rng.choice(names)
        change = rng.choice(edits)(rng, files[server])
        if change is None or change[1] == files[server]:
            continue
        made += 1
        yield HostEdit(server, change[0], change[1])


@dataclass
class HostComparison:
    edit: HostEdit | None  # None: the clean file
    server: str
    probes: int = 0
    differences: dict[Probe, str] = field(default_factory=dict)


def compare(folder: Path, text: str, destinations: Sequence[str]) -> tuple[int, dict[Probe, str]]:
    """Model against kernel for one server folder whose interfaces file is ``text``."""
    (folder / "interfaces").write_text(text)
    wanted = probes(folder, destinations)
    return len(wanted), disagreements(predicted(folder, wanted), observed(text, wanted))


def differential(servers: dict[str, Path], destinations: Sequence[str], seed: int, count: int,
                 work: Path, kinds: set[str] | None = None) -> list[HostComparison]:
    """The clean file of each server, then ``count`` seeded edits, each compared on its own copy."""
    results = []
    files = {name: (folder / "interfaces").read_text() for name, folder in servers.items()}
    for name, folder in servers.items():
        copy = work / name
        shutil.copytree(folder, copy, dirs_exist_ok=True)
        n, diff = compare(copy, files[name], destinations)
        results.append(HostComparison(None, name, n, diff))
    for edit in random_edits(seed, count, files, kinds):
        copy = work / edit.server
        n, diff = compare(copy, edit.text, destinations)
        results.append(HostComparison(edit, edit.server, n, diff))
    return results


def plane_destinations(routed: dict[str, list[IPv4Network]]) -> list[str]:
    """One address inside every routed prefix of every plane (its network + 2, as HOST-FORWARDING
    probes), and one outside them all."""
    return [*(dotted(int(net.network_address) + 2) for nets in routed.values() for net in nets), "192.0.2.77"]
