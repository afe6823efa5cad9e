"""The twin as the verifier's oracle: what real FRR does with a config, against what verify's
control-plane model (verify/controlplane.py) predicts for the same files.

For one rendered folder the model predicts, per switch (per VRF of a multi-plane gateway, which the
twin runs as one namespace per VRF), the BGP sessions that carry IPv4 unicast and every BGP route
it installs with its number of next hops; the running twin is read for the same
(`show bgp summary json`, `show ip route json`). ``differential`` applies seeded random edits of the
files the twin runs (remove, duplicate, reorder, renumber, rename, toggle ...), one device at a time,
restarts that device's FRR with the edited file, waits until the fabric settles, and compares every
switch. Every disagreement is a bug in the model (or a semantic it does not claim, listed in its
docstring); each one found becomes a regression test.

The twin runs the Cumulus rendering of every EOS device (its twin substitute), so the prediction is
made on the same substitutes, with the twin's FRR ECMP default (Debian's build: 256 paths).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dualrail_net.manifest import Manifest
from dualrail_net.twin import frr
from dualrail_net.twin.host_oracle import address_form
from dualrail_net.twin.plan import SwitchNs, TwinPlan
from dualrail_net.twin.shell import TwinError, fabric_ports, in_ns
from dualrail_net.verify.cabling import read_cabling
from dualrail_net.verify.controlplane import (
    compute_plane,
    connected,
    external_peers,
    kept_out_of_fib,
    maximum_paths,
    static_wins,
)
from dualrail_net.verify.parsers import frr_cli
from dualrail_net.verify.parsers import parse_device, parse_server
from dualrail_net.verify.parsers.ifupdown import REJECT_KINDS, parse_stanzas
from dualrail_net.verify.ipfast import dotted, ip_int, net_str, network_of
from dualrail_net.verify.routes import bits
from dualrail_net.verify.snapshot import Snapshot, assemble
from dualrail_net.verify.topology import NodeId, build_topology

TWIN_MAXIMUM_PATHS = {"cumulus": 256}  # Debian's FRR is built with --enable-multipath=256


@dataclass(frozen=True)
class DeviceRouting:
    """One switch's routing outcome: what is compared."""

    sessions: frozenset[str]  # neighbor addresses with IPv4 unicast Established
    routes: tuple[tuple[str, int], ...]  # (prefix, installed next hops) of its selected BGP routes, sorted

    def describe_difference(self, other: DeviceRouting) -> str:
        parts = []
        if self.sessions != other.sessions:
            parts.append(f"sessions predicted-only {sorted(self.sessions - other.sessions)} "
                         f"twin-only {sorted(other.sessions - self.sessions)}")
        mine, theirs = dict(self.routes), dict(other.routes)
        for prefix in sorted(set(mine) | set(theirs)):
            if mine.get(prefix) != theirs.get(prefix):
                parts.append(f"{prefix}: predicted {mine.get(prefix, 0)} next hops, twin {theirs.get(prefix, 0)}")
        return "; ".join(parts[:6]) + (f" (+{len(parts) - 6} more)" if len(parts) > 6 else "")


def twin_snapshot(output: Path) -> Snapshot:
    """The folder as the twin runs it: every device from its twin folder (EOS devices as their Cumulus
    substitutes)."""
    manifest = Manifest.load(output)
    devices = {}
    for name, meta in manifest.devices.items():
        substitute = meta.twin_dir != meta.dir
        devices[name] = parse_device(name, "cumulus" if substitute else meta.platform, output / meta.twin_dir)
    servers = {name: parse_server(name, output / meta.dir) for name, meta in manifest.servers.items()}
    # the twin's external peers are FRR announcing the planned prefixes: no community on them
    return assemble(output, manifest, devices, servers, read_cabling(manifest.cabling_path(output)),
                    external_untagged=True)


def compared_devices(plan: TwinPlan) -> list[SwitchNs]:
    """The namespaces compared: every switch, a multi-plane gateway once per VRF it runs."""
    return list(plan.switches)


def label(device: str, vrf: str | None) -> str:
    """What a comparison is keyed by: the device, or one VRF of a multi-plane device."""
    return device if vrf is None else f"{device} VRF {vrf}"


def predict(output: Path, devices: list[str]) -> dict[str, DeviceRouting]:
    """The model's sessions and installed BGP routes of every routing instance of ``devices`` the
    twin runs (a device's default VRF; each VRF of a multi-plane device: keyed by ``label``)."""
    snap = twin_snapshot(output)
    topo = build_topology(snap)
    out: dict[str, DeviceRouting] = {}
    wanted = set(devices)
    for plane in snap.planes:
        control = compute_plane(snap, topo, plane, path_overrides=TWIN_MAXIMUM_PATHS)
        up: dict[NodeId, set[str]] = {}
        for state in control.sessions:
            if state.up:
                s = state.session
                up.setdefault(s.a, set()).add(s.a_neighbor)
                up.setdefault(s.b, set()).add(s.b_neighbor)
        for node in control.nodes:
            dev = snap.devices.get(node[0])
            if node[0] not in wanted or dev is None or (node[1] is not None and node[1] not in dev.vrfs):
                continue
            conn = connected(snap, topo, node)
            # connected routes, and statics below BGP's distance, take the FIB from BGP
            local = set(conn) | static_wins(dev, node[1], conn)
            learned = control.reach.get(node, 0) & ~control.origin.get(node, 0)
            routes = []
            # an active aggregate is installed by its own device too (a blackhole: one next hop)
            for agg in dev.bgp[node[1]].aggregates:
                bit = control.index.prefixes.index(net_str(network_of(agg.prefix)))
                if (control.origin.get(node, 0) | control.sent_nowhere.get(node, 0)) >> bit & 1 \
                        and control.index.prefixes[bit] not in local:
                    routes.append((control.index.prefixes[bit], 1))
            # a gateway's planned external peers (the twin stands them in with FRR): each one up is
            # a session; a prefix they send is installed over every one that sends it (eBGP, one
            # AS hop: it beats the fabric's copies)
            external = [peer for peer in external_peers(snap, topo, node) if peer.established]
            sent = Counter(prefix for peer in external for prefix in peer.prefixes)
            paths = maximum_paths(dev, dev.bgp[node[1]], TWIN_MAXIMUM_PATHS)
            sources: dict[str, bool] = {}  # (kept_out_of_fib's `set src` lookups, once per address)
            routes += [(prefix, min(count, paths)) for prefix, count in sent.items()
                       if prefix not in local and kept_out_of_fib(dev, node[1], prefix, sources) is None]
            for bit in bits(learned):
                prefix = control.index.prefixes[bit]
                if prefix in local or prefix in sent or kept_out_of_fib(dev, node[1], prefix, sources) is not None:
                    continue
                width = control.width(node, bit)
                routes.append((prefix, width))
            sessions = up.get(node, set()) | {peer.address for peer in external}
            out[label(*node)] = DeviceRouting(frozenset(sessions), tuple(sorted(routes)))
    return out


def observe(switches: list[SwitchNs], rundir: Callable[[str], Path]) -> dict[str, DeviceRouting]:
    """What each running switch (each VRF namespace of a gateway) has: IPv4 unicast sessions
    Established at both ends, selected BGP routes the kernel holds; keyed by ``label``. A session
    one end reports Established and the other does not is not up: one end's GTSM drops what the
    other sends, and the other flaps between Established and Idle, each spell longer than settle's
    quiet window (figures: docs/performance.md), while no route crosses it for long."""
    out = {}
    established: dict[str, set[str]] = {}
    owner: dict[str, str] = {}  # an address of a compared instance -> its label
    for sw in switches:
        d = rundir(sw.ns)
        summary = frr.vtysh_json(d, "show bgp summary json")
        peers = summary.get("ipv4Unicast", {}).get("peers", {}) if isinstance(summary, dict) else {}
        established[label(sw.device, sw.vrf)] = {addr for addr, peer in peers.items()
                                                 if peer.get("state") == "Established"}
        for address in own_addresses(sw.ns):
            owner.setdefault(address, label(sw.device, sw.vrf))
    for sw in switches:
        d = rundir(sw.ns)
        mine = label(sw.device, sw.vrf)
        # a peer among the compared instances must have this instance's side Established too
        sessions = frozenset(addr for addr in established[mine]
                             if addr not in owner or any(owner.get(back) == mine for back in established[owner[addr]]))
        table = frr.vtysh_json(d, "show ip route json", daemon="zebra")
        routes = []
        for prefix, entries in (table.items() if isinstance(table, dict) else []):
            for entry in entries:
                # selected and in the kernel: a route the kernel refused (zebra's `set src` of no
                # local address: "Invalid prefsrc address") stays selected, not installed
                if entry.get("protocol") == "bgp" and entry.get("selected") and entry.get("installed"):
                    hops = [h for h in entry.get("nexthops", []) if h.get("active")]
                    routes.append((prefix, len(hops)))
        out[label(sw.device, sw.vrf)] = DeviceRouting(sessions, tuple(sorted(routes)))
    return out


def own_addresses(ns: str) -> list[str]:
    """The IPv4 addresses configured in a namespace (`ip -4 -o addr`)."""
    text = in_ns(ns, ["ip", "-4", "-o", "addr", "show"], check=False)
    return [m.group(1) for m in re.finditer(r"\sinet (\d+\.\d+\.\d+\.\d+)/", text)]


def disagreements(predicted: dict[str, DeviceRouting], observed: dict[str, DeviceRouting]) -> dict[str, str]:
    """Per compared instance (``observed``'s keys), how the prediction differs; an instance the
    model has no routing for is predicted to have no session and no route."""
    nothing = DeviceRouting(frozenset(), ())
    return {name: predicted.get(name, nothing).describe_difference(observed[name])
            for name in observed if predicted.get(name, nothing) != observed[name]}


# --- the edit generator ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Edit:
    device: str
    description: str
    text: str  # the edited file
    file: str = "frr.conf"  # which of the device's files (frr.conf or interfaces)
    kind: str = ""  # the generator's edit kind (edit_kind)


_STATEMENT = re.compile(r"^ *(network |ip route |ip prefix-list |neighbor \S+ (remote-as|route-map)|maximum-paths|"
                        r"bgp bestpath|route-map |match )")


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _remove(rng: random.Random, text: str) -> tuple[str, str] | None:
    lines = _lines(text)
    candidates = [i for i, line in enumerate(lines) if _STATEMENT.match(line)]
    if not candidates:
        return None
    i = rng.choice(candidates)
    return f"remove `{lines[i].strip()}`", "\n".join(lines[:i] + lines[i + 1:])


def _duplicate(rng: random.Random, text: str) -> tuple[str, str] | None:
    lines = _lines(text)
    candidates = [i for i, line in enumerate(lines) if _STATEMENT.match(line)]
    if not candidates:
        return None
    i = rng.choice(candidates)
    return f"duplicate `{lines[i].strip()}`", "\n".join(lines[:i + 1] + lines[i:])


def _neighbors(text: str) -> list[str]:
    """The neighbors of the `router bgp` node, in the file's order."""
    return re.findall(r"^ neighbor (\S+) remote-as .*$", text, re.M)


def _after_remote_as(text: str, n: str, statement: str) -> str:
    """``text`` with `neighbor N STATEMENT` on the line after N's `remote-as`."""
    return re.sub(rf"^( neighbor {re.escape(n)} remote-as .*)$", rf"\1\n neighbor {n} {statement}", text,
                  count=1, flags=re.M)


def _shutdown(rng: random.Random, text: str) -> tuple[str, str] | None:
    neighbors = _neighbors(text)
    if not neighbors:
        return None
    n = rng.choice(neighbors)
    return f"shut down neighbor {n}", _after_remote_as(text, n, "shutdown")


def _deny_own_prefix(rng: random.Random, text: str) -> tuple[str, str] | None:
    networks = re.findall(r"^  network (\S+)$", text, re.M)
    lists = re.findall(r"^ip prefix-list (\S+) seq", text, re.M)
    if not networks or not lists:
        return None
    prefix, name = rng.choice(networks), rng.choice(sorted(set(lists)))
    return (f"prefix-list {name} denies {prefix} first",
            text.replace(f"ip prefix-list {name} seq", f"ip prefix-list {name} seq 1 deny {prefix}\n"
                                                       f"ip prefix-list {name} seq", 1))


def _rename_reference(rng: random.Random, text: str) -> tuple[str, str] | None:
    refs = re.findall(r"^  neighbor (\S+) route-map (\S+) (in|out)$", text, re.M)
    if not refs:
        return None
    n, name, direction = rng.choice(refs)
    return (f"neighbor {n} route-map {name}X {direction} (undefined)",
            text.replace(f"  neighbor {n} route-map {name} {direction}", f"  neighbor {n} route-map {name}X {direction}", 1))


def _no_default_af(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`no bgp default ipv4-unicast` above every neighbor, or below the first k of them (bgpd
    reads the default when it creates each neighbor), with every neighbor but one activated or not."""
    if " bgp router-id" not in text:
        return None
    activate = rng.random() < 0.5
    created = list(re.finditer(r"^ neighbor (\S+) remote-as .*\n", text, re.M))
    below = rng.choice(range(len(created) + 1)) if created and rng.random() < 0.5 else 0
    if below:
        at = created[below - 1].end()
        edited = text[:at] + " no bgp default ipv4-unicast\n" + text[at:]
    else:
        edited = text.replace(" bgp router-id", " no bgp default ipv4-unicast\n bgp router-id", 1)
    if activate:  # activate every neighbor but one
        neighbors = re.findall(r"^ neighbor (\S+) remote-as", edited, re.M)
        lines = "".join(f"  neighbor {n} activate\n" for n in neighbors[1:])
        edited = edited.replace(" address-family ipv4 unicast\n", " address-family ipv4 unicast\n" + lines, 1)
    return ("no bgp default ipv4-unicast" + (f" below {below} neighbor(s)" if below else "")
            + (" (all but one neighbor activated)" if activate else "")), edited


def _peer_group_as(rng: random.Random, text: str) -> tuple[str, str] | None:
    """The instance's neighbors made members of a peer-group G, their own `remote-as` lines kept
    above the binding, G given the right AS, a wrong one (bgpd gives its members the group's), none
    (each keeps its own) or `external`; G's remote-as above or below the bindings."""
    found = list(re.finditer(r"^ neighbor (\S+) remote-as (\S+)\n", text, re.M))
    if not found:
        return None
    block_end = text.find("\nexit\n", found[0].start())  # (the first instance's: the gateway has one per VRF)
    found = [m for m in found if block_end < 0 or m.end() <= block_end]
    asn = found[0].group(2)
    given = rng.choice(["right", "wrong", "none", "external"])
    said = {"right": f" neighbor G remote-as {asn}\n", "wrong": " neighbor G remote-as 64999\n", "none": "",
            "external": " neighbor G remote-as external\n"}[given]
    late = bool(said) and rng.random() < 0.5
    binds = "".join(f" neighbor {m.group(1)} peer-group G\n" for m in found)
    at = found[-1].end()
    edited = (text[:found[0].start()] + " neighbor G peer-group\n" + ("" if late else said) + text[found[0].start():at]
              + binds + (said if late else "") + text[at:])
    return f"neighbors in peer-group G (its remote-as {given}{', below the members' if late else ''})", edited


def _maximum_paths(rng: random.Random, text: str) -> tuple[str, str] | None:
    if "maximum-paths" not in text:
        return None
    n = rng.choice([1, 2, 3])
    return f"maximum-paths {n}", re.sub(r"maximum-paths \d+", f"maximum-paths {n}", text, count=1)


def _maximum_prefix(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A receive limit on one neighbor: small enough to tear the session down, or not, or only logged."""
    neighbors = _neighbors(text)
    if not neighbors or " address-family ipv4 unicast\n" not in text:
        return None
    n = rng.choice(neighbors)
    limit = rng.choice([1, 2, 4, 8, 16, 1000])
    option = rng.choice(["", "", " warning-only", " 90 restart 5"])
    line = f"  neighbor {n} maximum-prefix {limit}{option}"
    return line.strip(), text.replace(" address-family ipv4 unicast\n", f" address-family ipv4 unicast\n{line}\n", 1)


def _session_option(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A TCP MD5 password or `passive` on one end of one session (the other end keeps its config)."""
    neighbors = _neighbors(text)
    if not neighbors:
        return None
    n = rng.choice(neighbors)
    option = rng.choice(["password s3cret", "passive"])
    return f"neighbor {n} {option}", _after_remote_as(text, n, option)


def _session_transport(rng: random.Random, text: str) -> tuple[str, str] | None:
    """How one end opens its session: from its loopback (`update-source lo`), to another TCP port
    (`port 1790`), over more hops (`ebgp-multihop`), with GTSM (`ttl-security hops 1`) or without
    the connected check, or with another ASN toward the peer (`local-as`, the peer left expecting
    the old one: the session stays down), or with its capabilities left out, overridden or held to
    the peer's (`dont-capability-negotiate`: its 4-octet ASN goes as AS_TRANS). The transport lines
    verify reports as CONFIG-UNMODELLED are compared all the same."""
    neighbors = _neighbors(text)
    if not neighbors:
        return None
    n = rng.choice(neighbors)
    option = rng.choice(["update-source lo", "ebgp-multihop 2", "ttl-security hops 1", "disable-connected-check",
                         "local-as 4200009999", "port 1790", "dont-capability-negotiate",
                         "override-capability", "strict-capability-match"])
    return f"neighbor {n} {option}", _after_remote_as(text, n, option)


def _session_knob(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A per-session or per-instance knob an operator adds while tuning: BGP roles (RFC 9234, with
    and without strict mode), a neighbor bound to a port, first-AS enforcement, the sender's loop
    check, the TCP MSS, dynamic capability; the instance's best-path and convergence switches
    (`as-path ignore`, `peer-type multipath-relax`, `reject-as-sets`, `fast-convergence`,
    `suppress-fib-pending`). Most change nothing on a fabric like this one; the twin says which do."""
    neighbors = _neighbors(text)
    if not neighbors:
        return None
    if rng.random() < 0.35:
        line = " bgp " + rng.choice(["bestpath as-path ignore", "bestpath peer-type multipath-relax",
                                     "reject-as-sets", "fast-convergence", "suppress-fib-pending",
                                     "disable-ebgp-connected-route-check"])
        edited = _after_router_id(text, line)
        return None if edited is None else (line.strip(), edited)
    n = rng.choice(neighbors)
    option = rng.choice(["local-role customer", "local-role provider", "local-role peer",
                         "local-role customer strict-mode", "local-role peer strict-mode", "interface lo",
                         "interface swp33", "interface swp34", "enforce-first-as", "sender-as-path-loop-detection",
                         "tcp-mss 1400", "capability dynamic"])
    return f"neighbor {n} {option}", _after_remote_as(text, n, option)


def _fib_source(rng: random.Random, text: str) -> tuple[str, str] | None:
    """zebra's `ip protocol bgp route-map` with `set src A`: the device's loopback (the routes
    install with that source), its neighbor's address, another plane's or a documentation address
    (none of the device's: the kernel refuses every route, "Invalid prefsrc address", and zebra
    keeps them selected but out of the FIB, which `observe` reads)."""
    m = re.search(r"^ bgp router-id (\S+)$", text, re.M)
    if m is None or "router bgp " not in text:
        return None
    own = m.group(1)
    a, b, c, d = (int(x) for x in own.split("."))
    src = rng.choice([own, own, f"{a}.{b}.{c}.{d ^ 1}", f"{a}.{b + 10}.{c}.{d}", "192.0.2.1"])
    at = text.index("router bgp ")
    block = f"route-map FIB-SRC permit 10\n set src {src}\nexit\nip protocol bgp route-map FIB-SRC\n"
    return f"ip protocol bgp route-map FIB-SRC: set src {src}", text[:at] + block + text[at:]


def _tag_or_nht(rng: random.Random, text: str) -> tuple[str, str] | None:
    """What an operator adds that routes nothing by itself: a plain community tag (AA:NN, additive
    or not) in a route-map entry the device uses, or `ip nht resolve-via-default`, alone or with a
    static default through its first neighbor (the one case verify reports instead of judging)."""
    if rng.random() < 0.5:
        entries = [m.end() for m in re.finditer(r"^route-map \S+ permit \d+\n", text, re.M)]
        if not entries:
            return None
        at = rng.choice(entries)
        tag = f"{rng.randint(1, 65534)}:{rng.randint(0, 65535)}"
        line = f" set community {tag}{' additive' if rng.random() < 0.5 else ''}"
        return line.strip(), text[:at] + line + "\n" + text[at:]
    neighbors = _neighbors(text)
    at = text.find("ip prefix-list ")
    if at < 0:
        return None
    with_default = bool(neighbors) and rng.random() < 0.4
    block = "ip nht resolve-via-default\n" + (f"ip route 0.0.0.0/0 {neighbors[0]}\n" if with_default else "")
    return block.strip().replace("\n", "; "), text[:at] + block + text[at:]


def _unindent(rng: random.Random, text: str) -> tuple[str, str] | None:
    return "every line un-indented", "\n".join(line.strip() for line in _lines(text))


def _abbreviate(rng: random.Random, text: str) -> tuple[str, str] | None:
    """Keywords cut short as an operator types them (`nei X shut`): FRR completes what is unique and
    refuses what is not (frr_cli); the refused lines are the edit's real change."""
    short, refused = frr_cli.abbreviated(text, rng, share=rng.choice([0.1, 0.3]), unique_only=rng.random() < 0.5)
    return f"keywords abbreviated ({len(refused)} line(s) FRR refuses)", short


def _after_router_id(text: str, line: str) -> str | None:
    m = re.search(r"^ bgp router-id \S+$", text, re.M)
    return None if m is None else text[:m.end()] + "\n" + line + text[m.end():]


def _max_med(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`bgp max-med administrative [N]`: every route the device sends carries MED N."""
    line = " bgp max-med administrative" + rng.choice(["", " 0", " 100"])
    edited = _after_router_id(text, line)
    return None if edited is None else (line.strip(), edited)


def _confederation(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`bgp confederation identifier N`: the device shows its peers AS N."""
    line = " bgp confederation identifier " + rng.choice(["65000", "4200009999"])
    edited = _after_router_id(text, line)
    return None if edited is None else (line.strip(), edited)


def _negate(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A `no ...` line appended that takes back an earlier statement, as a pasted CLI snippet does:
    a static route, a prefix-list entry or list, a route-map entry or clause, a neighbor, a network,
    a neighbor's route-map."""
    candidates: list[str] = []
    candidates += [f"no {m}" for m in re.findall(r"^(ip route .+)$", text, re.M)]
    candidates += [f"no ip prefix-list {n} seq {q}" for n, q in re.findall(r"^ip prefix-list (\S+) seq (\d+) ", text, re.M)]
    candidates += [f"no ip prefix-list {n}" for n in set(re.findall(r"^ip prefix-list (\S+) ", text, re.M))]
    for name, action, seq, body in re.findall(r"^route-map (\S+) (permit|deny) (\d+)\n((?: .*\n)*)", text, re.M):
        candidates.append(f"no route-map {name} {action} {seq}")
        candidates += [f"route-map {name} {action} {seq}\n no {clause.strip()}\nexit"
                       for clause in body.splitlines() if clause.strip().startswith(("match ", "set "))]
    asn = re.search(r"^router bgp (\d+)$", text, re.M)
    if asn:
        candidates += [f"router bgp {asn.group(1)}\n no neighbor {n}\nexit"
                       for n in re.findall(r"^ neighbor (\S+) remote-as ", text, re.M)]
        candidates += [f"router bgp {asn.group(1)}\n address-family ipv4 unicast\n  no network {p}\n exit-address-family\nexit"
                       for p in re.findall(r"^  network (\S+)$", text, re.M)]
        candidates += [f"router bgp {asn.group(1)}\n address-family ipv4 unicast\n  no neighbor {n} route-map {m} {d}\n"
                       " exit-address-family\nexit"
                       for n, m, d in re.findall(r"^  neighbor (\S+) route-map (\S+) (in|out)$", text, re.M)]
    if not candidates:
        return None
    line = rng.choice(candidates)
    body = text[:-len("end\n")] if text.endswith("\nend\n") else text
    return line.replace("\n", " / "), body + line + "\n" + ("end\n" if body is not text else "")


def _prefix_list_entry(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A prefix-list entry added after the list: without `seq` (numbered after the last), or with the
    number of an existing entry (which it replaces), denying or permitting one of the list's prefixes."""
    found = re.findall(r"^ip prefix-list (\S+) seq (\d+) (?:permit|deny) (\S+)(.*)$", text, re.M)
    if not found:
        return None
    name, seq, prefix, rest = rng.choice(found)
    action = rng.choice(["deny", "permit"])
    numbered = rng.choice(["", f"seq {seq} ", f"seq {rng.choice([1, 7, int(seq) + 1])} "])
    line = f"ip prefix-list {name} {numbered}{action} {prefix}{rest}"
    body = text[:-len("end\n")] if text.endswith("\nend\n") else text
    return line, body + line + "\n" + ("end\n" if body is not text else "")


def _prefix_range(rng: random.Random, text: str) -> tuple[str, str] | None:
    """An entry's range rewritten: `ge`/`le` below, at or above the prefix's length, or `ge` above
    `le` (bgpd refuses some of these: the list then lacks the entry)."""
    found = list(re.finditer(r"^(ip prefix-list \S+ seq \d+ (?:permit|deny) \S+/(\d+))(.*)$", text, re.M))
    if not found:
        return None
    m = rng.choice(found)
    length = int(m.group(2))
    ge = rng.choice([None, length - 4, length, length + 1, 26, 32])
    le = rng.choice([None, length - 1, length, 24, 26, 32])
    rest = (f" ge {ge}" if ge is not None and ge >= 0 else "") + (f" le {le}" if le is not None and le >= 0 else "")
    line = m.group(1) + rest
    return line, text[:m.start()] + line + text[m.end():]


def _zebra_interface(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A zebra `interface PORT` block appended: the port shut down there (zebra takes it down), or
    only described, or shut and brought back with `no shutdown`. The port: one of the neighbors'."""
    if not re.search(r"^hostname \S*leaf", text, re.M):
        return None
    # a leaf's own ports are not named in its frr.conf: its uplinks are swp33-36 in the example
    port = rng.choice(["swp33", "swp34", "swp35", "swp36"])
    body_lines = rng.choice([[" shutdown"], [" description a hand edit"], [" shutdown", " no shutdown"]])
    block = f"interface {port}\n" + "\n".join(body_lines) + "\nexit"
    body = text[:-len("end\n")] if text.endswith("\nend\n") else text
    return block.replace("\n", " / "), body + block + "\n" + ("end\n" if body is not text else "")


def _renumber(rng: random.Random, text: str) -> tuple[str, str] | None:
    seqs = re.findall(r"^ip prefix-list (\S+) seq (\d+) ", text, re.M)
    if not seqs:
        return None
    name, seq = rng.choice(seqs)
    new = rng.choice([1, 5, 15, 25, 99])
    return (f"prefix-list {name} seq {seq} renumbered {new}",
            text.replace(f"ip prefix-list {name} seq {seq} ", f"ip prefix-list {name} seq {new} ", 1))


def _external(rng: random.Random, text: str) -> tuple[str, str] | None:
    neighbors = re.findall(r"^ neighbor (\S+) remote-as \d+$", text, re.M)
    if not neighbors:
        return None
    n = rng.choice(neighbors)
    kind = rng.choice(["external", "internal"])
    return f"neighbor {n} remote-as {kind}", re.sub(rf"^ neighbor {re.escape(n)} remote-as \d+$",
                                                    f" neighbor {n} remote-as {kind}", text, count=1, flags=re.M)


def _toggle_action(rng: random.Random, text: str) -> tuple[str, str] | None:
    entries = re.findall(r"^route-map (\S+) (permit|deny) (\d+)$", text, re.M)
    if not entries:
        return None
    name, action, seq = rng.choice(entries)
    other = "deny" if action == "permit" else "permit"
    return (f"route-map {name} {seq} {action} -> {other}",
            text.replace(f"route-map {name} {action} {seq}\n", f"route-map {name} {other} {seq}\n", 1))


def _aggregate(rng: random.Random, text: str) -> tuple[str, str] | None:
    networks = re.findall(r"^  network (\d+\.\d+\.\d+\.\d+)/(\d+)$", text, re.M)
    if not networks or "  maximum-paths" not in text:
        return None
    address, _ = rng.choice(networks)
    a, b, _c, _d = address.split(".")
    block = f"{a}.{b}.0.0/16"
    options = (" as-set" if rng.random() < 0.4 else "") + (" summary-only" if rng.random() < 0.5 else "")
    text = text.replace("  maximum-paths", f"  aggregate-address {block}{options}\n  maximum-paths", 1)
    # half the time the outbound policy lets the aggregate out too: where it then goes (an as-set
    # aggregate's path holds the ASes of what it covers) is what the twin shows
    outbound = set(re.findall(r"^  neighbor \S+ route-map (\S+) out$", text, re.M))
    lists = sorted({m for name in outbound for m in re.findall(
        rf"^route-map {re.escape(name)} permit \d+\n match ip address prefix-list (\S+)$", text, re.M)})
    if lists and rng.random() < 0.5:
        text = text.replace("\nip prefix-list ", "".join(f"\nip prefix-list {name} seq 1 permit {block}"
                                                          for name in lists) + "\nip prefix-list ", 1)
        options += " (let out)"
    return (f"aggregate-address {block}{options}", text)


def _change_asn(rng: random.Random, text: str) -> tuple[str, str] | None:
    asn = re.search(r"^router bgp (\d+)$", text, re.M)
    if not asn:
        return None
    new = int(asn.group(1)) + rng.choice([1, -1])
    return f"router bgp {new} (was {asn.group(1)})", text.replace(f"router bgp {asn.group(1)}\n", f"router bgp {new}\n", 1)


def _prepend(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A drain: one neighbor's route-map (or the route-map every neighbor uses) prepends the
    sender's ASN once or twice: outbound the device's own, inbound the neighbor's."""
    refs = re.findall(r"^ *neighbor (\S+) route-map (\S+) (in|out)$", text, re.M)
    own = re.search(r"^router bgp (\d+)$", text, re.M)
    if not refs or not own:
        return None
    n, name, direction = rng.choice(refs)
    if direction == "out":
        asn = own.group(1)
    else:
        peer = re.search(rf"^ *neighbor {re.escape(n)} remote-as (\d+)$", text, re.M)
        if not peer:
            return None
        asn = peer.group(1)
    prepend = " ".join([asn] * rng.choice([1, 2]))
    if "router bgp" not in text:
        return None
    return _route_map_sets(rng, text, n, name, direction, f"set as-path prepend {prepend}", "-P")


def _prepend_foreign(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A prepend of an ASN that is not on the path: outbound the neighbor's own (it then drops what
    it receives by loop prevention), or either way an ASN next to the device's own (in a fabric of
    numbered leaves, another leaf's, which drops the path when it reaches it)."""
    refs = re.findall(r"^ *neighbor (\S+) route-map (\S+) (in|out)$", text, re.M)
    own = re.search(r"^router bgp (\d+)$", text, re.M)
    if not refs or not own:
        return None
    n, name, direction = rng.choice(refs)
    peer = re.search(rf"^ *neighbor {re.escape(n)} remote-as (\d+)$", text, re.M)
    choices = [str(int(own.group(1)) + 1)] + ([peer.group(1)] if peer and direction == "out" else [])
    prepend = rng.choice(choices)
    if "router bgp" not in text:
        return None
    return _route_map_sets(rng, text, n, name, direction, f"set as-path prepend {prepend}", "-F")


def _as_path_ignore(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A drain undone: one neighbor's paths made longer inbound (its ASN prepended once or twice, in
    a copy of its route-map) beside `bgp bestpath as-path ignore` (8 times in 10), with which the
    length no longer decides and the drained neighbor's paths stay in ECMP."""
    refs = re.findall(r"^ *neighbor (\S+) route-map (\S+) in$", text, re.M)
    if not refs or "router bgp" not in text:
        return None
    n, name = rng.choice(refs)
    peer = re.search(rf"^ *neighbor {re.escape(n)} remote-as (\d+)$", text, re.M)
    if not peer:
        return None
    prepend = " ".join([peer.group(1)] * rng.choice([1, 2]))
    entries = re.findall(rf"^route-map {re.escape(name)} (permit|deny) (\d+)\n((?:[ \t]+.*\n)*)", text, re.M)
    if not entries:
        return None
    edited = _neighbors_own_copy(text, entries, name, "-I", f"set as-path prepend {prepend}", n, "in")
    said = f"neighbor {n} route-map {name}-I in prepends {prepend}"
    if rng.random() < 0.8:
        with_ignore = _after_router_id(edited, " bgp bestpath as-path ignore")
        if with_ignore is None:
            return None
        return said + ", bgp bestpath as-path ignore", with_ignore
    return said, edited


def _a_neighbor_map(rng: random.Random, text: str) -> tuple[list[tuple[str, str, str]], tuple[str, str, str]] | None:
    """Every `neighbor X route-map NAME in|out` of a BGP config, and one of them drawn: (all,
    (neighbor, route-map, direction)); None when there is none."""
    refs: list[tuple[str, str, str]] = re.findall(r"^ *neighbor (\S+) route-map (\S+) (in|out)$", text, re.M)
    if not refs or "router bgp" not in text:
        return None
    return refs, rng.choice(refs)


def _origin(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`set origin igp|egp|incomplete` on one neighbor's route-map (a copy of it) or on the one
    every neighbor uses, either way: a path of a higher ORIGIN loses to the others."""
    chosen = _a_neighbor_map(rng, text)
    if chosen is None:
        return None
    _, (n, name, direction) = chosen
    return _route_map_sets(rng, text, n, name, direction, f"set origin {rng.choice(['igp', 'egp', 'incomplete'])}",
                           "-O")


def _flow(rng: random.Random, text: str) -> tuple[str, str] | None:
    """FRR's route-map flow control on one neighbor's route-map (a copy of it) or the one every
    neighbor uses: `on-match next` with nothing after it (the route leaves permitted), or with a
    later entry that matches everything (setting a MED) or only one prefix-list (what it does not
    match leaves denied: bgpd's result turns to deny on an entry that does not match); `on-match goto N` over a deny
    entry; `call` of a map that denies what one prefix-list matches, sets local preference, or that
    nobody defines."""
    refs = re.findall(r"^ *neighbor (\S+) route-map (\S+) (in|out)$", text, re.M)
    lists = sorted(set(re.findall(r"^ip prefix-list (\S+) ", text, re.M)))
    if not refs or not lists or "router bgp" not in text:
        return None
    n, name, direction = rng.choice(refs)
    entries = re.findall(rf"^route-map {re.escape(name)} (permit|deny) (\d+)\n((?:[ \t]+.*\n)*)", text, re.M)
    if not entries:
        return None
    style = rng.choice(["next-alone", "next-all", "next-list", "goto", "call-deny", "call-set", "call-undefined"])
    listed = rng.choice(lists)
    target = name
    if rng.random() >= 0.3:  # one neighbor's own copy
        target = name + "-C"
        text = _neighbors_own_copy(text, entries, name, "-C", "", n, direction).replace(" \nexit\n", "exit\n")
    flow = {"next-alone": "on-match next", "next-all": "on-match next", "next-list": "on-match next",
            "goto": "on-match goto 1000", "call-deny": "call SUB-F", "call-set": "call SUB-F",
            "call-undefined": "call NOPE-F"}[style]
    edited = re.sub(rf"^(route-map {re.escape(target)} permit \d+\n(?:[ \t]+.*\n)*)", rf"\1 {flow}\n", text,
                    flags=re.M)
    after = {"next-all": f"route-map {target} permit 1000\n set metric 50\nexit\n!\n",
             "next-list": f"route-map {target} permit 1000\n match ip address prefix-list {listed}\nexit\n!\n",
             "goto": f"route-map {target} deny 500\nexit\n!\nroute-map {target} permit 1000\nexit\n!\n",
             "call-deny": f"route-map SUB-F deny 10\n match ip address prefix-list {listed}\nexit\n!\n"
                          "route-map SUB-F permit 20\nexit\n!\n",
             "call-set": "route-map SUB-F permit 10\n set local-preference 50\nexit\n!\n"}.get(style, "")
    edited = edited.replace("router bgp", after + "router bgp", 1)
    return f"route-map {target} ({'every neighbor' if target == name else 'neighbor ' + n} {direction}): {style}" \
        + (f" ({listed})" if "list" in style or style == "call-deny" else ""), edited


def _neighbors_own_copy(text: str, entries: list[tuple[str, str, str]], name: str, suffix: str, line: str,
                        neighbor: str, direction: str) -> str:
    """``text`` with a copy of route-map ``name`` whose permit entries also say ``line``, used by
    ``neighbor`` alone in ``direction``."""
    copy = "".join(f"route-map {name}{suffix} {action} {seq}\n{body}" + (f" {line}\n" if action == "permit" else "")
                   + "exit\n!\n" for action, seq, body in entries)
    edited = text.replace("router bgp", copy + "router bgp", 1)
    return re.sub(rf"^( *neighbor {re.escape(neighbor)} route-map ){re.escape(name)} {direction}$",
                  rf"\g<1>{name}{suffix} {direction}", edited, count=1, flags=re.M)


def _attribute(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A best-path attribute on one neighbor's route-map (a copy of it) or on the route-map every
    neighbor uses: local preference or weight (inbound), MED (either way)."""
    chosen = _a_neighbor_map(rng, text)
    if chosen is None:
        return None
    _, (n, name, direction) = chosen
    kind = rng.choice(["metric"] if direction == "out" else ["local-preference", "weight", "metric"])
    value = {"local-preference": rng.choice([50, 200]), "weight": rng.choice([100, 32768]),
             "metric": rng.choice([10, 500])}[kind]
    return _route_map_sets(rng, text, n, name, direction, f"set {kind} {value}", "-A")


def _match_next_hop(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A `match` clause on the route's next hop, or bgpd's `match probability` at its two ends,
    in one neighbor's route-map (a copy of it) or in the one every neighbor uses."""
    chosen = _a_neighbor_map(rng, text)
    if chosen is None:
        return None
    refs, (n, name, direction) = chosen
    peers = sorted({m for m, _, _ in refs})
    clause = rng.choice([f"match ip next-hop address {rng.choice(peers)}", "match ip next-hop type blackhole",
                         f"match probability {rng.choice([0, 100])}"])
    return _route_map_sets(rng, text, n, name, direction, clause, "-H")


def _prepend_last_as(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`set as-path prepend last-as N` on one neighbor's route-map (a copy of it) or on the one
    every neighbor uses, either way (outbound, a route of the device's own has no last AS)."""
    chosen = _a_neighbor_map(rng, text)
    if chosen is None:
        return None
    _, (n, name, direction) = chosen
    return _route_map_sets(rng, text, n, name, direction, f"set as-path prepend last-as {rng.choice([1, 3])}", "-L")


def _default_local_pref(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`bgp default local-preference N` on a device, and (half the time) one neighbor's inbound
    route-map (a copy) setting local preference 100: the default decides whether it wins."""
    edited = _after_router_id(text, f"bgp default local-preference {rng.choice([50, 100, 200])}")
    refs = re.findall(r"^ *neighbor (\S+) route-map (\S+) in$", edited or "", re.M)
    if edited is None:
        return None
    said = edited.split("bgp default local-preference ")[1].split("\n")[0]
    if not refs or rng.random() < 0.5:
        return f"bgp default local-preference {said}", edited
    n, name = rng.choice(refs)
    entries = re.findall(rf"^route-map {re.escape(name)} (permit|deny) (\d+)\n((?:[ \t]+.*\n)*)", edited, re.M)
    if not entries:
        return None
    return (f"bgp default local-preference {said}, neighbor {n} route-map {name}-D in sets local-preference 100",
            _neighbors_own_copy(edited, entries, name, "-D", "set local-preference 100", n, "in"))


def _relative_attribute(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A relative best-path attribute on one neighbor's route-map (a copy of it) or on the one
    every neighbor uses: MED (either way) or local preference (inbound) raised or lowered by N."""
    chosen = _a_neighbor_map(rng, text)
    if chosen is None:
        return None
    _, (n, name, direction) = chosen
    kind = rng.choice(["metric"] if direction == "out" else ["local-preference", "metric"])
    return _route_map_sets(rng, text, n, name, direction, f"set {kind} {rng.choice('+-')}{rng.choice([10, 150])}",
                           "-R")


def _route_map_sets(rng: random.Random, text: str, neighbor: str, name: str, direction: str, line: str,
                    suffix: str) -> tuple[str, str] | None:
    """``line`` (a `set ...`) in every permit entry of route-map ``name``, which every neighbor
    using it then carries (3 times in 10), or in a copy of it (``name`` + ``suffix``) that
    ``neighbor`` alone uses in ``direction``."""
    entries = re.findall(rf"^route-map {re.escape(name)} (permit|deny) (\d+)\n((?:[ \t]+.*\n)*)", text, re.M)
    if not entries:
        return None
    said = ("sets " + line.removeprefix("set ")) if line.startswith("set ") else f"says `{line}`"
    if rng.random() < 0.3:
        edited = re.sub(rf"^(route-map {re.escape(name)} permit \d+\n)", rf"\1 {line}\n", text, flags=re.M)
        return f"route-map {name} {said}", edited
    edited = _neighbors_own_copy(text, entries, name, suffix, line, neighbor, direction)
    return f"neighbor {neighbor} route-map {name}{suffix} {direction} {said}", edited


def _match_attribute(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A `match` clause on a route's attributes or source in one neighbor's route-map (a copy of
    it) or in the one every neighbor uses: ORIGIN, MED, tag, local preference, the peer, the
    source protocol, the prefix's length (a clause some daemons do not implement)."""
    chosen = _a_neighbor_map(rng, text)
    if chosen is None:
        return None
    refs, (n, name, direction) = chosen
    peers = sorted({m for m, _, _ in refs})
    clause = rng.choice([
        f"match origin {rng.choice(['igp', 'egp', 'incomplete'])}",
        f"match metric {rng.choice([0, 10])}",
        f"match tag {rng.choice([1, 5])}",
        f"match local-preference {rng.choice([100, 200])}",
        f"match peer {rng.choice(peers + ['local'])}",
        f"match source-protocol {rng.choice(['bgp', 'connected', 'static'])}",
        f"match ip address prefix-len {rng.choice([26, 32])}"])
    return _route_map_sets(rng, text, n, name, direction, clause, "-M")


def _med_missing_as_worst(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`bgp bestpath med missing-as-worst` on the receiver, sometimes with one neighbor's inbound
    routes given a MED (a copy of its route-map): that neighbor then beats every one whose paths
    carry none (without the setting, it loses to them)."""
    bgp = re.search(r"^router bgp .*\n", text, re.M)
    if bgp is None:
        return None
    edited = text[:bgp.end()] + " bgp bestpath med missing-as-worst\n" + text[bgp.end():]
    refs = re.findall(r"^ *neighbor (\S+) route-map (\S+) in$", edited, re.M)
    if refs and rng.random() < 0.7:
        n, name = rng.choice(refs)
        entries = re.findall(rf"^route-map {re.escape(name)} (permit|deny) (\d+)\n((?:[ \t]+.*\n)*)", edited, re.M)
        if entries:
            value = rng.choice([0, 10, 500])
            return (f"bgp bestpath med missing-as-worst, neighbor {n} route-map {name}-M in sets metric {value}",
                    _neighbors_own_copy(edited, entries, name, "-M", f"set metric {value}", n, "in"))
    return "bgp bestpath med missing-as-worst", edited


def _next_hop(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`set ip next-hop` on one neighbor's route-map (a copy of it) or on the route-map every
    neighbor uses, either way: the peer's address or `peer-address` (nothing changes), `unchanged`
    (the learned next hop, out of the receiver's reach but for the sender's own prefixes), the
    switch's loopback or an address nobody has (inaccessible at the receiver)."""
    refs = re.findall(r"^ *neighbor (\S+) route-map (\S+) (in|out)$", text, re.M)
    router_id = re.search(r"^ bgp router-id (\S+)$", text, re.M)
    if not refs or "router bgp" not in text or router_id is None:
        return None
    n, name, direction = rng.choice(refs)
    choices = ["peer-address", "192.0.2.1", n] + (["unchanged", router_id.group(1)] if direction == "out" else [])
    hop = rng.choice(choices)
    return _route_map_sets(rng, text, n, name, direction, f"set ip next-hop {hop}", "-N")


def _neighbor_prefix_list(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`neighbor X prefix-list NAME in|out` on one neighbor or on all: one of the file's lists (the
    plane's own passes everything planned, the switch's local one only its own prefixes) or one
    nobody defines."""
    neighbors = _neighbors(text)
    lists = sorted(set(re.findall(r"^ip prefix-list (\S+) seq", text, re.M)))
    if not neighbors or not lists or " address-family ipv4 unicast\n" not in text:
        return None
    name = rng.choice(lists + ["UNDEFINED-LIST"])
    direction = rng.choice(["in", "out"])
    chosen = neighbors if rng.random() < 0.3 else [rng.choice(neighbors)]
    lines = "".join(f"  neighbor {n} prefix-list {name} {direction}\n" for n in chosen)
    what = "every neighbor" if len(chosen) > 1 else f"neighbor {chosen[0]}"
    return f"{what} prefix-list {name} {direction}", text.replace(" address-family ipv4 unicast\n",
                                                                   f" address-family ipv4 unicast\n{lines}", 1)


def _neighbor_option(rng: random.Random, text: str, options: Sequence[str]) -> tuple[str, str] | None:
    """One of ``options`` on one neighbor, in the IPv4 unicast address family (a choice among
    several options draws once more from ``rng``)."""
    neighbors = _neighbors(text)
    if not neighbors or " address-family ipv4 unicast\n" not in text:
        return None
    n = rng.choice(neighbors)
    line = f"  neighbor {n} {options[0] if len(options) == 1 else rng.choice(options)}"
    return line.strip(), text.replace(" address-family ipv4 unicast\n", f" address-family ipv4 unicast\n{line}\n", 1)


def _next_hop_unchanged(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`neighbor X attribute-unchanged next-hop` or `next-hop-self` on one neighbor: a spine then
    sends the next hops it learned (out of the leaf's reach), a leaf its own (nothing changes)."""
    return _neighbor_option(rng, text, ["attribute-unchanged next-hop", "next-hop-self"])


def _remove_private_as(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`neighbor X remove-private-AS [all]` on one neighbor: a spine's paths to that leaf then
    arrive one AS long (the leaf installs it alone); a leaf's own prefixes are unchanged."""
    return _neighbor_option(rng, text, ["remove-private-AS", "remove-private-AS all"])


def _as_override(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`neighbor X as-override` on one neighbor: X's own ASN in what it is sent becomes the
    sender's, so X's loop prevention lets those paths in (its own prefixes stay its own)."""
    return _neighbor_option(rng, text, ["as-override"])


def _addpath(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`neighbor X addpath-tx-all-paths` or `addpath-tx-bestpath-per-AS` on one neighbor: over eBGP
    every extra path has the sender as next hop, so what X installs does not change."""
    return _neighbor_option(rng, text, ["addpath-tx-all-paths", "addpath-tx-bestpath-per-AS"])


def _default_originate(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`neighbor X default-originate` on one neighbor: the receiver's inbound policy decides
    whether the default route gets in (the fabric's takes only the plane's prefixes)."""
    return _neighbor_option(rng, text, ["default-originate"])


def _router_id(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A router ID typo: another address of the loopbacks' /24 (the plane's spines number theirs
    first, so .0-.3 is a spine's ID, a neighbor's when this is a leaf), or a class E address."""
    current = re.search(r"^ bgp router-id (\d+\.\d+\.\d+)\.(\d+)$", text, re.M)
    if not current:
        return None
    new = rng.choice(["240.0.0.1", f"{current.group(1)}.{rng.randrange(0, 4)}",
                      f"{current.group(1)}.{int(current.group(2)) ^ 1}"])
    return f"bgp router-id {new}", text.replace(current.group(0), f" bgp router-id {new}", 1)


def _bgp_shutdown(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A whole BGP instance shut down (`bgp shutdown`), sometimes taken back again further down."""
    instances = list(re.finditer(r"^router bgp .*\n", text, re.M))
    if not instances:
        return None
    m = rng.choice(instances)
    back = rng.random() < 0.25
    line = " bgp shutdown\n" + (" no bgp shutdown\n" if back else "")
    return (f"{m.group(0).strip()}: bgp shutdown{' then no bgp shutdown' if back else ''}",
            text[:m.end()] + line + text[m.end():])


def _minimum_holdtime(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`bgp minimum-holdtime N` on a BGP instance, at, below or above what its peers offer (the
    datacenter profile's 9 s), sometimes with one neighbor offering more (`neighbor X timers 3 30`:
    that peer's OPEN is refused by the other end's minimum, not by this one's)."""
    instances = list(re.finditer(r"^router bgp .*\n", text, re.M))
    if not instances:
        return None
    m = rng.choice(instances)
    least = rng.choice([3, 9, 10, 30])
    edited = text[:m.end()] + f" bgp minimum-holdtime {least}\n" + text[m.end():]
    neighbors = _neighbors(edited)
    if neighbors and rng.random() < 0.3:
        n = rng.choice(neighbors)
        return (f"{m.group(0).strip()}: bgp minimum-holdtime {least}, neighbor {n} timers 3 30",
                _after_remote_as(edited, n, "timers 3 30"))
    return f"{m.group(0).strip()}: bgp minimum-holdtime {least}", edited


def _network_backdoor(rng: random.Random, text: str) -> tuple[str, str] | None:
    """One of the file's `network` statements as a backdoor network (bgpd withdraws it), sometimes
    stated again plainly below it (the last statement decides)."""
    networks = re.findall(r"^(\s*network (\S+))$", text, re.M)
    if not networks:
        return None
    line, prefix = rng.choice(networks)
    again = rng.random() < 0.3
    edited = text.replace(line + "\n", f"{line} backdoor\n" + (f"{line}\n" if again else ""), 1)
    return f"network {prefix} backdoor" + (f", then network {prefix} again" if again else ""), edited


def _graceful_shutdown(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`bgp graceful-shutdown` on a BGP instance (a spine's paths then lose to every other spine's
    at the leaves; a leaf's own prefixes arrive tagged everywhere alike), sometimes with one
    neighbor that is sent no communities (`no neighbor X send-community`: the tag does not reach it)."""
    instances = list(re.finditer(r"^router bgp .*\n", text, re.M))
    if not instances:
        return None
    m = rng.choice(instances)
    edited = text[:m.end()] + " bgp graceful-shutdown\n" + text[m.end():]
    neighbors = _neighbors(edited)
    if neighbors and rng.random() < 0.4 and " address-family ipv4 unicast\n" in edited:
        n = rng.choice(neighbors)
        return (f"{m.group(0).strip()}: bgp graceful-shutdown, no neighbor {n} send-community",
                edited.replace(" address-family ipv4 unicast\n",
                               f" address-family ipv4 unicast\n  no neighbor {n} send-community\n", 1))
    return f"{m.group(0).strip()}: bgp graceful-shutdown", edited


def _redistribute(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`redistribute connected|static`, with the neighbors' outbound policy or a route-map of its own
    (one of the file's, or one nobody defines), sometimes with a metric; sometimes in place of the
    `network` statements."""
    if " address-family ipv4 unicast\n" not in text:
        return None
    sources = rng.choice([["connected"], ["static"], ["connected", "static"]])
    maps = sorted(set(re.findall(r"^route-map (\S+) ", text, re.M)))
    draw = rng.random()
    with_map = f" route-map {rng.choice(maps)}" if maps and draw < 0.5 else " route-map UNDEFINED-MAP" if draw < 0.6 else ""
    metric = " metric 50" if rng.random() < 0.3 else ""  # (the MED at origin)
    lines = "".join(f"  redistribute {source}{with_map}{metric}\n" for source in sources)
    edited = text.replace(" address-family ipv4 unicast\n", f" address-family ipv4 unicast\n{lines}", 1)
    said = "; ".join(line.strip() for line in lines.splitlines())
    if rng.random() < 0.4:
        edited = re.sub(r"^\s*network \S+\n", "", edited, flags=re.M)
        said += ", in place of the network statements"
    return said, edited


def _network_map(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`network PREFIX route-map NAME` on one of the file's network statements: one of the file's
    route-maps (it permits the prefix or not by its prefix-lists), one nobody defines, or a new map
    that denies everything or permits only what one of the file's prefix-lists permits."""
    networks = re.findall(r"^(\s*network (\S+))$", text, re.M)
    if not networks:
        return None
    line, prefix = rng.choice(networks)
    maps = sorted(set(re.findall(r"^route-map (\S+) ", text, re.M)))
    lists = sorted(set(re.findall(r"^ip prefix-list (\S+) ", text, re.M)))
    draw = rng.random()
    defined = ""
    if maps and draw < 0.4:
        name = rng.choice(maps)
    elif draw < 0.6:
        name = "UNDEFINED-NET-MAP"
    elif lists and draw < 0.85:
        name = "NET-MAP"
        defined = f"route-map NET-MAP permit 10\n match ip address prefix-list {rng.choice(lists)}\nexit\n!\n"
    else:
        name = "NET-MAP"
        defined = "route-map NET-MAP deny 10\nexit\n!\n"
    edited = text.replace(line + "\n", f"{line} route-map {name}\n", 1)
    if defined:
        edited = re.sub(r"^router bgp ", lambda m: defined + m.group(0), edited, count=1, flags=re.M)
    return f"network {prefix} route-map {name}" + (f" ({defined.splitlines()[0]}...)" if defined else ""), edited


def _static_route(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A static route beside BGP: over a neighbor (its next hop on a connected subnet; sometimes
    with a port named, right or wrong, and `onlink`), into a blackhole, or toward a next hop no
    port reaches (sometimes `onlink` out of a named port);
    for one of the switch's own prefixes or a
    prefix the switch learns (a loopback or server block of the plane's other switches); or the
    switch's own blackhole (its `network` statement's route) given a distance, 255 among them (never
    installed: the statement then advertises nothing)."""
    neighbors = _neighbors(text)
    lists = re.findall(r"^ip prefix-list \S+ seq \d+ permit (\d+)\.(\d+)\.\d+\.\d+/\d+", text, re.M)
    if not neighbors or not lists:
        return None
    own = re.findall(r"^ip route (\S+) blackhole$", text, re.M)
    if own and rng.random() < 0.3:
        prefix, distance = rng.choice(own), rng.choice([250, 255, 255])
        line = f"ip route {prefix} blackhole {distance}"
        return line, re.sub(rf"^ip route {re.escape(prefix)} blackhole$", line, text, count=1, flags=re.M)
    a, b = rng.choice(lists)
    prefix = rng.choice([f"{a}.{b}.0.{rng.randrange(0, 48)}/32", f"{a}.{b}.{rng.randrange(0, 4)}.0/26",
                         f"{a}.{b}.0.0/16"])
    via = rng.choice([rng.choice(neighbors), "blackhole", "192.0.2.1"])
    if via != "blackhole" and rng.random() < (0.4 if via != "192.0.2.1" else 0.3):
        # the gateway with a port named too (`ip route P GW PORT`): the port its subnet is on, or
        # another one (zebra then never installs it), sometimes `onlink` (the port alone decides:
        # also for a gateway on no subnet of the switch)
        via += " " + rng.choice(["swp33", "swp34", "swp35", "swp1", "swp2", "swp99"])
        via += " onlink" if via.startswith("192.0.2.1 ") or rng.random() < 0.4 else ""
    # sometimes with a distance: below BGP's it still wins, above it floats
    line = f"ip route {prefix} {via}" + (f" {rng.choice([10, 200, 250, 255])}" if rng.random() < 0.3 else "")
    return line, re.sub(r"^(router bgp )", f"{line}\n\\1", text, count=1, flags=re.M)


def _static_over_link(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A static route more specific than a link's connected subnet that holds the neighbor's
    address: into a blackhole, toward another neighbor, toward the neighbor itself (harmless), or
    a longer prefix around it; sometimes with a distance (which does not matter against a
    connected route of another length)."""
    neighbors = [n for n in _neighbors(text) if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", n)]
    if not neighbors:
        return None
    n = rng.choice(neighbors)
    others = [o for o in neighbors if o != n]
    via = rng.choice(["blackhole", "blackhole", n] + ([rng.choice(others)] if others else []))
    line = f"ip route {n}/32 {via}" + (f" {rng.choice([10, 250])}" if rng.random() < 0.3 else "")
    return line, re.sub(r"^(router bgp )", f"{line}\n\\1", text, count=1, flags=re.M)


def _weight(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`neighbor X weight N` on one neighbor (its routes outrank the others': ECMP narrows), on
    every neighbor alike (nothing changes), or 0 (the default)."""
    neighbors = _neighbors(text)
    if not neighbors or " address-family ipv4 unicast\n" not in text:
        return None
    chosen = neighbors if rng.random() < 0.25 else [rng.choice(neighbors)]
    weight = rng.choice([0, 100, 100, 32768])
    lines = "".join(f"  neighbor {n} weight {weight}\n" for n in chosen)
    what = "every neighbor" if len(chosen) > 1 else f"neighbor {chosen[0]}"
    return f"{what} weight {weight}", text.replace(" address-family ipv4 unicast\n",
                                                    f" address-family ipv4 unicast\n{lines}", 1)


def _distance(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`distance bgp E I L`: BGP's routes kept out of the FIB (255), or at another distance, with a
    static route beside it on a prefix the switch learns that wins or floats accordingly."""
    lists = re.findall(r"^ip prefix-list \S+ seq \d+ permit (\d+)\.(\d+)\.\d+\.\d+/\d+", text, re.M)
    if " address-family ipv4 unicast\n" not in text or not lists:
        return None
    external = rng.choice([20, 120, 150, 255])
    line = f"  distance bgp {external} 200 200"
    edited = text.replace(" address-family ipv4 unicast\n", f" address-family ipv4 unicast\n{line}\n", 1)
    if rng.random() < 0.6:
        a, b = rng.choice(lists)
        static = f"ip route {a}.{b}.{rng.randrange(0, 4)}.0/26 blackhole {rng.choice([100, 140, 200])}"
        edited = re.sub(r"^(router bgp )", f"{static}\n\\1", edited, count=1, flags=re.M)
        return f"{line.strip()} and {static}", edited
    return line.strip(), edited


def _table_map(rng: random.Random, text: str) -> tuple[str, str] | None:
    """`table-map NAME`: one of the file's route-maps (the inbound one permits what the switch
    learns, the outbound one only its own prefixes), one that denies one learned prefix, or one
    nobody defines."""
    maps = sorted(set(re.findall(r"^route-map (\S+) ", text, re.M)))
    lists = re.findall(r"^ip prefix-list (\S+) seq \d+ permit (\d+\.\d+)\.\d+\.\d+/\d+", text, re.M)
    if " address-family ipv4 unicast\n" not in text or not maps or not lists:
        return None
    choice = rng.random()
    if choice < 0.5:
        name = rng.choice(maps)
    elif choice < 0.8:
        pl, ab = rng.choice(lists)
        name = "NOINSTALL"
        text = re.sub(r"^(router bgp )", f"ip prefix-list ONE seq 5 permit {ab}.{rng.randrange(0, 4)}.0/26\n"
                      f"route-map {name} deny 10\n match ip address prefix-list ONE\nexit\n"
                      f"route-map {name} permit 20\nexit\n\\1", text, count=1, flags=re.M)
    else:
        name = "UNDEFINED-MAP"
    line = f"  table-map {name}"
    return line.strip(), text.replace(" address-family ipv4 unicast\n", f" address-family ipv4 unicast\n{line}\n", 1)


def _fib_filter(rng: random.Random, text: str) -> tuple[str, str] | None:
    """zebra's `ip protocol bgp route-map NAME` (top level): one of the file's route-maps or one
    nobody defines."""
    maps = sorted(set(re.findall(r"^route-map (\S+) ", text, re.M)))
    if "router bgp " not in text or not maps:
        return None
    name = rng.choice(maps + ["UNDEFINED-MAP"])
    line = f"ip protocol bgp route-map {name}"
    return line, re.sub(r"^(router bgp )", f"{line}\n\\1", text, count=1, flags=re.M)


def _match_list(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route-map entry also matches on a community list, an AS-path access list, an access list or
    a next-hop prefix-list that the file does not define (bgpd: no list, no match: the entry
    matches nothing)."""
    entries = re.findall(r"^route-map (\S+) (permit|deny) (\d+)$", text, re.M)
    if not entries:
        return None
    name, action, seq = rng.choice(entries)
    clause = rng.choice(["match community UNDEFINED-COMMUNITIES", "match as-path UNDEFINED-PATHS",
                         "match community UNDEFINED-COMMUNITIES exact-match", "match ip address UNDEFINED-ACL",
                         "match ip next-hop prefix-list UNDEFINED-NEXT-HOPS"])
    head = f"route-map {name} {action} {seq}\n"
    return f"route-map {name} {action} {seq}: {clause}", text.replace(head, head + f" {clause}\n", 1)


def _stacked_match(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A second match of a kind the entry already has: a route-map entry that matches a prefix-list
    also matches another of the file's, written above or below the first (bgpd keeps one rule per
    match command: the line read last replaces the other)."""
    entries = re.findall(r"^(route-map \S+ (?:permit|deny) \d+\n)( match ip address prefix-list (\S+)\n)", text, re.M)
    lists = sorted(set(re.findall(r"^ip prefix-list (\S+) ", text, re.M)))
    if not entries or len(lists) < 2:
        return None
    head, clause, listed = rng.choice(entries)
    other = rng.choice([name for name in lists if name != listed])
    added = f" match ip address prefix-list {other}\n"
    above = rng.random() < 0.5
    edited = text.replace(head + clause, head + (added + clause if above else clause + added), 1)
    return f"{head.strip()}: also matches {other} ({'above' if above else 'below'} {listed})", edited


def _match_family(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route-map entry that matches an IPv4 prefix-list also (or instead) matches an IPv6 list:
    the same name, an IPv6 prefix-list or access list that permits everything, one that is only
    described (no entry), or one nobody defines (bgpd looks the name up among the IPv6 lists)."""
    entries = re.findall(r"^(route-map \S+ (?:permit|deny) \d+\n)( match ip address prefix-list (\S+)\n)", text, re.M)
    if not entries:
        return None
    head, clause, listed = rng.choice(entries)
    style = rng.choice(["same-name", "prefix-list-any", "prefix-list-empty", "access-list-any", "undefined"])
    defined = {"prefix-list-any": "ipv6 prefix-list ORACLE-V6 seq 5 permit any\n",
               "prefix-list-empty": "ipv6 prefix-list ORACLE-V6 description no entry\n",
               "access-list-any": "ipv6 access-list ORACLE-ACL6 seq 5 permit any\n"}.get(style, "")
    added = (f" match ipv6 address prefix-list {listed}\n" if style == "same-name"
             else " match ipv6 address ORACLE-ACL6\n" if style.startswith("access-list")
             else f" match ipv6 address prefix-list {'ORACLE-V6' if defined else 'UNDEFINED-V6'}\n")
    instead = rng.random() < 0.5
    edited = text.replace(head + clause, head + (added if instead else clause + added), 1)
    if defined:
        edited = re.sub(r"^route-map ", lambda head: defined + head.group(0), edited, count=1, flags=re.M)
    return f"{head.strip()}: {added.strip()} ({style}, {'instead of' if instead else 'beside'} {listed})", edited


def _access_list(rng: random.Random, text: str) -> tuple[str, str] | None:
    """One of the file's prefix-lists written as an access list, in a style drawn at random
    (prefixes, one entry exact-match, cisco wildcards, a `deny host` of one of its /32s first, a
    remark only, `permit any`, extended entries `ip ADDRESS WILDCARD any|host NETMASK`, or with
    `host 255.255.255.255`: /32s only), used in place of the list by the route-map entry that matched it
    (`match ip address NAME`) or by one neighbor (`distribute-list NAME in|out`)."""
    rows = re.findall(r"^ip prefix-list (\S+) seq (\d+) (permit|deny) (\S+)( le 32)?$", text, re.M)
    if not rows:
        return None
    listed = rng.choice(sorted({r[0] for r in rows}))
    entries = [(int(seq), action, prefix, bool(le)) for name, seq, action, prefix, le in rows if name == listed]
    style = rng.choice(["prefixes", "exact", "cisco", "deny-host", "remark", "any", "extended", "extended-hosts"])
    lines: list[str] = []
    if style == "remark":
        lines.append("access-list ORACLE-ACL remark written by the oracle")
    elif style == "any":
        lines.append("access-list ORACLE-ACL seq 5 permit any")
    else:
        exact_one = rng.randrange(len(entries)) if style == "exact" else -1
        if style == "deny-host":
            hosts = re.findall(r"^\s*network (\d+\.\d+\.\d+\.\d+)/32$", text, re.M) or ["10.10.0.0"]
            lines.append(f"access-list ORACLE-ACL seq 1 deny host {rng.choice(hosts)}")
        for i, (seq, action, prefix, le) in enumerate(entries):
            address, length = prefix.split("/")
            wildcard = (1 << (32 - int(length))) - 1
            if style == "cisco" and le:
                match = f"{address} {dotted(wildcard)}"
            elif style.startswith("extended"):  # the prefix's address, and its netmask: any, or /32 only
                netmask = dotted(0xFFFFFFFF ^ wildcard)
                mask = "host 255.255.255.255" if style == "extended-hosts" else "any" if le else f"host {netmask}"
                match = f"ip {address} {dotted(wildcard)} {mask}"
            else:
                match = prefix + ("" if le and i != exact_one else " exact-match")
            lines.append(f"access-list ORACLE-ACL seq {seq} {action} {match}")
    acl = "".join(line + "\n" for line in lines)
    clause = f" match ip address prefix-list {listed}\n"
    neighbors = _neighbors(text)
    if clause in text and (rng.random() < 0.6 or not neighbors):
        edited = text.replace(clause, " match ip address ORACLE-ACL\n")
        where = f"the route-maps matching {listed}"
    elif (on_neighbor := _on_a_neighbor(rng, text, neighbors, "distribute-list ORACLE-ACL")) is not None:
        where, edited = on_neighbor
    else:
        return None
    return f"{listed} as an access list ({style}) in {where}", _defined_above_bgp(edited, acl)


def _community_list(rng: random.Random, text: str) -> tuple[str, str] | None:
    """A route-map entry also matches on a community-list the file defines, drawn at random:
    standard (AA:NN values, well-known names; numbered or named, `exact-match` or not) or expanded
    (expressions that match the empty string or not, deny entries first); in the fabric no route
    carries a community, so each list either matches every route or none (verify/communities.py).
    Sometimes a new entry in front denies what the list matches, before the entry that permitted."""
    entries = re.findall(r"^route-map (\S+) (permit|deny) (\d+)$", text, re.M)
    if not entries:
        return None
    name, action, seq = rng.choice(entries)
    style = rng.choice(["standard", "numbered-standard", "expanded", "numbered-expanded"])
    values = rng.choice([["65000:100"], ["no-export"], ["65000:1", "no-advertise"], ["graceful-shutdown"]])
    expressions = rng.choice([[("permit", ".*")], [("permit", "^$")], [("permit", "_")], [("permit", "65000:.*")],
                              [("deny", "^$"), ("permit", ".*")], [("deny", "^65000:1$"), ("permit", "^$")],
                              [("permit", "^65[0-9]+:.*$")]])
    listed = {"standard": "ORACLE-COMM", "numbered-standard": "42", "expanded": "ORACLE-RE",
              "numbered-expanded": "142"}[style]
    kind = "expanded" if "expanded" in style else "standard"
    named = "numbered" not in style
    head_words = f"bgp community-list {kind + ' ' if named else ''}{listed}"
    if kind == "standard":
        lines = [f"{head_words} seq 5 {rng.choice(['permit', 'deny'])} {' '.join(values)}",
                 f"{head_words} seq 10 permit {values[0]}"]
    else:
        lines = [f"{head_words} {verb} {expression}" for verb, expression in expressions]
    definition = "".join(line + "\n" for line in lines)
    clause = f"match community {listed}" + (" exact-match" if rng.random() < 0.3 else "")
    head = f"route-map {name} {action} {seq}\n"
    edited = text.replace(head, head + f" {clause}\n", 1)
    if rng.random() < 0.3 and int(seq) > 1:  # an entry in front that denies what the list matches
        front = f"route-map {name} deny {int(seq) - 1}\n {clause}\nexit\n"
        edited = edited.replace(head, front + head, 1)
    edited = re.sub(r"^(route-map )", definition.replace("\\", "\\\\") + "\\1", edited, count=1, flags=re.M)
    return f"route-map {name} {action} {seq}: {clause} ({'; '.join(lines)})", edited


def _as_path_list(rng: random.Random, text: str) -> tuple[str, str] | None:
    """An AS-path access list drawn at random (the empty path, every path, one-AS or two-AS paths,
    paths from or originated by one of the file's neighbor ASNs; sometimes a deny entry first, or
    without `seq`), used by one neighbor as `filter-list NAME in|out` or by a route-map entry as
    `match as-path NAME` (verify/aspaths.py judges either on each route's path)."""
    peers = sorted(set(re.findall(r"^\s*neighbor \S+ remote-as (\d+)$", text, re.M)))
    if not peers:
        return None
    peer = rng.choice(peers)
    rows = rng.choice([[("permit", "^$")], [("permit", ".*")], [("permit", "_")], [("permit", f"^{peer}$")],
                       [("permit", f"^{peer}_")], [("permit", f"_{peer}$")], [("permit", "^[0-9]+$")],
                       [("permit", "^[0-9]+ [0-9]+$")], [("deny", f"_{peer}$"), ("permit", ".*")],
                       [("deny", "^[0-9]+$"), ("permit", ".*")], [("deny", f"^{peer}_"), ("permit", "^$")]])
    numbered = rng.random() < 0.7
    lines = [f"bgp as-path access-list ORACLE-PATHS{f' seq {5 * (i + 1)}' if numbered else ''} {verb} {expression}"
             .rstrip() for i, (verb, expression) in enumerate(rows)]
    definition = "".join(line + "\n" for line in lines)
    entries = re.findall(r"^route-map (\S+) (permit|deny) (\d+)$", text, re.M)
    neighbors = _neighbors(text)
    if entries and (rng.random() < 0.4 or not neighbors):
        name, action, seq = rng.choice(entries)
        head = f"route-map {name} {action} {seq}\n"
        edited = text.replace(head, head + " match as-path ORACLE-PATHS\n", 1)
        where = f"route-map {name} {action} {seq}: match as-path"
    elif (on_neighbor := _on_a_neighbor(rng, text, neighbors, "filter-list ORACLE-PATHS")) is not None:
        where, edited = on_neighbor
    else:
        return None
    return f"{where} ({'; '.join(lines)})", _defined_above_bgp(edited, definition)


def _on_a_neighbor(rng: random.Random, text: str, neighbors: list[str], statement: str) -> tuple[str, str] | None:
    """`neighbor N STATEMENT in|out` for one of ``neighbors`` drawn at random, in the IPv4 address
    family: (what was done, the edited text); None without an address family."""
    if not neighbors or " address-family ipv4 unicast\n" not in text:
        return None
    n, direction = rng.choice(neighbors), rng.choice(["in", "out"])
    edited = text.replace(" address-family ipv4 unicast\n",
                          f" address-family ipv4 unicast\n  neighbor {n} {statement} {direction}\n", 1)
    return f"neighbor {n} {statement.split()[0]} {direction}", edited


def _defined_above_bgp(text: str, definition: str) -> str:
    """``definition`` (list lines) written above the first `router bgp`."""
    return re.sub(r"^(router bgp )", definition.replace("\\", "\\\\") + "\\1", text, count=1, flags=re.M)


# --- edits of a switch's interfaces file (ifupdown2 applies them in the twin) -----------------------

def _stanza_spans(text: str) -> list[tuple[str, int, int]]:
    """(interface, first line, end line exclusive) of each `iface` block, its `auto` line included
    when it directly precedes the block."""
    lines = _lines(text)
    spans = []
    for i, line in enumerate(lines):
        words = line.split()
        if words[:1] != ["iface"] or len(words) < 2:
            continue
        start = i - 1 if i and lines[i - 1].split() == ["auto", words[1]] else i
        end = i + 1
        while end < len(lines) and lines[end].strip() and lines[end][:1] in (" ", "\t"):
            end += 1
        spans.append((words[1], start, end))
    return spans


def _port_addresses(text: str, ports: frozenset[str]) -> list[tuple[int, str, str]]:
    """(line index, interface, address) of every `address` line of a cabled port or the loopback
    (its 127/8 aside): the lines whose edit changes routing in the twin."""
    lines = _lines(text)
    out = []
    for name, start, end in _stanza_spans(text):
        if name not in ports and name != "lo":
            continue
        for i in range(start, end):
            words = lines[i].split()
            if words[:1] == ["address"] and len(words) == 2 and not words[1].startswith("127."):
                out.append((i, name, words[1]))
    return out


def _iface_drop_address(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    found = _port_addresses(text, ports)
    if not found:
        return None
    i, name, address = rng.choice(found)
    lines = _lines(text)
    return f"interfaces: {name} loses `address {address}`", "\n".join(lines[:i] + lines[i + 1:])


def _iface_readdress(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """An address typo: the other host of the /31 (the peer's own), another subnet, another length."""
    found = _port_addresses(text, ports)
    if not found:
        return None
    i, name, address = rng.choice(found)
    ip, _, length = address.partition("/")
    octets = [int(o) for o in ip.split(".")]
    how = rng.choice(["other-host", "other-subnet", "length"])
    if how == "other-host":
        octets[3] ^= 1
    elif how == "other-subnet":
        octets[2] = (octets[2] + 37) % 256
    else:
        length = rng.choice([l for l in ("24", "30", "32") if l != length])
    new = ".".join(map(str, octets)) + "/" + length
    if new == address:
        return None
    lines = _lines(text)
    lines[i] = lines[i].replace(address, new)
    return f"interfaces: {name} address {address} -> {new}", "\n".join(lines)


def _iface_link_down(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    spans = [s for s in _stanza_spans(text) if s[0] in ports]
    if not spans:
        return None
    name, start, end = rng.choice(spans)
    lines = _lines(text)
    return f"interfaces: {name} link-down yes", "\n".join(lines[:end] + ["    link-down yes"] + lines[end:])


def _iface_drop_stanza(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    spans = [s for s in _stanza_spans(text) if s[0] in ports or s[0] == "lo"]
    if not spans:
        return None
    name, start, end = rng.choice(spans)
    lines = _lines(text)
    return f"interfaces: the {name} stanza removed", "\n".join(lines[:start] + lines[end:])


def _iface_mtu(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """One end of a link with another MTU than its peer's."""
    lines = _lines(text)
    found = [(i, name) for name, start, end in _stanza_spans(text) if name in ports
             for i in range(start, end) if lines[i].split()[:1] == ["mtu"]]
    if not found:
        return None
    i, name = rng.choice(found)
    mtu = rng.choice(["1500", "9000"])
    lines[i] = f"    mtu {mtu}"
    return f"interfaces: {name} mtu {mtu}", "\n".join(lines)


def _iface_duplicate_stanza(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """A port's block pasted twice, the copy with a second address (ifupdown2 merges the two)."""
    found = _port_addresses(text, ports)
    if not found:
        return None
    i, name, address = rng.choice(found)
    octets = [int(o) for o in address.split("/")[0].split(".")]
    octets[1] = (octets[1] + 50) % 256
    extra = ".".join(map(str, octets)) + "/31"
    return (f"interfaces: {name} defined twice, the second with {extra}",
            text.rstrip("\n") + f"\n\nauto {name}\niface {name}\n    address {extra}\n")


def _iface_unindent(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    return "interfaces: every line un-indented", "\n".join(line.strip() for line in _lines(text))


def _iface_address_command(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """A post-up `ip address add|del|flush` in one stanza on its own port or another's, before or
    after the other's stanza (ifupdown2 purges what a later stanza does not name), sometimes with
    `address-purge no` on the port it changes. On a multi-plane device the two ports share a VRF:
    the twin runs each VRF in its own namespace (translate.py), where another VRF's port, and the
    loopback's stanza, are not there to run or take the command."""
    vrf_of = {st.name: dict(st.attrs).get("vrf") for st in parse_stanzas(text)}
    spans = [s for s in _stanza_spans(text) if s[0] in ports or s[0] == "lo"]
    found = _port_addresses(text, ports)
    if not spans or not found:
        return None
    runner = rng.choice(spans)
    if any(vrf_of.values()):
        found = [f for f in found if vrf_of.get(f[1]) is not None and vrf_of.get(f[1]) == vrf_of.get(runner[0])]
        if not found:
            return None
    _, target, address = rng.choice(found)
    ip, _, length = address.partition("/")
    octets = [int(o) for o in ip.split(".")]
    verb = rng.choice(["add", "add", "del", "flush"])
    if verb == "add":
        how = rng.choice(["other-host", "other-subnet"])
        octets[3 if how == "other-host" else 2] ^= 1 if how == "other-host" else 64
        command = f"ip {rng.choice(['addr', 'a', 'address'])} {rng.choice(['add', 'a'])} " \
                  f"{'.'.join(map(str, octets))}/{length} dev {target}"
    elif verb == "del":
        command = f"ip {rng.choice(['addr', 'a'])} {rng.choice(['del', 'd'])} {address} dev {target}"
    else:
        command = f"ip -4 addr flush dev {target}"
    lines = _lines(text)
    name, _, end = runner
    extra: list[tuple[int, str]] = [(end, f"    post-up {command}")]
    purge = rng.random() < 0.3
    if purge:
        target_end = next(e for n, _, e in _stanza_spans(text) if n == target)
        extra.append((target_end, "    address-purge no"))
    for at, line in sorted(extra, reverse=True):
        lines.insert(at, line)
    return f"interfaces: {name} post-up {command}{' (address-purge no on ' + target + ')' if purge else ''}", \
        "\n".join(lines)


def _iface_address_form(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """One of a cabled port's or the loopback's addresses in a form ifupdown2 takes otherwise than
    as written (host_oracle.address_form: two words, a bad octet, a length above 32 ...)."""
    lines = _lines(text)
    spans = [(start, end) for name, start, end in _stanza_spans(text) if name in ports or name == "lo"]
    if not spans:
        return None
    start, end = rng.choice(spans)
    edited = address_form(rng, "\n".join(lines[start:end]) + "\n")
    if edited is None:
        return None
    return f"interfaces: {edited[0]}", "\n".join(lines[:start] + edited[1].rstrip("\n").split("\n") + lines[end:])


def _listen_range(rng: random.Random, text: str) -> tuple[str, str] | None:
    """The instance's numbered neighbors replaced by dynamic ones: a peer-group G with `bgp listen
    range R peer-group G` that covers all their addresses, only the first one's, or none of them;
    G's remote-as `external`, `internal`, the first neighbor's ASN or none (bgpd refuses the range);
    sometimes a `bgp listen limit` of exactly the peers it admits, or the first neighbor kept as
    configured (bgpd prefers it)."""
    found = list(re.finditer(r"^ neighbor (\d+\.\d+\.\d+\.\d+) remote-as (\S+)\n", text, re.M))
    if not found or " bgp router-id" not in text:
        return None
    block_end = text.find("\nexit\n", found[0].start())  # (the first instance's: the gateway has one per VRF)
    found = [m for m in found if block_end < 0 or m.end() <= block_end]
    addresses = [m.group(1) for m in found]
    values = [ip_int(a) for a in addresses]
    cover = rng.choice(["all", "all", "first", "none"])
    if cover == "all":
        length = 32
        while length and len({v >> (32 - length) for v in values}) > 1:
            length -= 1
        base = values[0] >> (32 - length) << (32 - length) if length else 0
    elif cover == "first":
        length, base = 32, values[0]
    else:
        length, base = 32, 0xC6336401  # 198.51.100.1: no neighbor's
    given = rng.choice(["external", "external", "internal", "asn", "none"])
    said = {"external": " neighbor G remote-as external\n", "internal": " neighbor G remote-as internal\n",
            "asn": f" neighbor G remote-as {found[0].group(2)}\n", "none": ""}[given]
    keep_first = len(addresses) > 1 and rng.random() < 0.25
    # a limit below the peers that would connect leaves which ones to chance (the first to connect):
    # only limits the model can decide
    covered = {"all": len(addresses) - keep_first, "first": 0 if keep_first else 1, "none": 0}[cover]
    limit = rng.choice([0, 0, covered]) if covered else 0
    dropped = addresses[1:] if keep_first else addresses
    maps = re.findall(rf"^  neighbor {re.escape(addresses[0])} route-map (\S+) (in|out)$", text, re.M)
    edited = text
    for a in dropped:
        edited = re.sub(rf"^ +neighbor {re.escape(a)} .*\n", "", edited, flags=re.M)
    prefix = dotted(base)
    group = (" neighbor G peer-group\n" + said + f" bgp listen range {prefix}/{length} peer-group G\n"
             + (f" bgp listen limit {limit}\n" if limit else ""))
    edited = re.sub(r"^( bgp router-id .*\n)", lambda m: m.group(1) + group, edited, count=1, flags=re.M)
    edited = edited.replace(" address-family ipv4 unicast\n", " address-family ipv4 unicast\n" + "".join(
        f"  neighbor G route-map {name} {way}\n" for name, way in maps), 1)
    return (f"neighbors made dynamic: listen range {prefix}/{length} ({cover}), G's remote-as {given}"
            + (f", listen limit {limit}" if limit else "") + (f", {addresses[0]} kept" if keep_first else "")), edited


def _cabled_peers(text: str, ports: frozenset[str]) -> tuple[list[tuple[str, int, int]], list[tuple[str, str]]] | None:
    """The cabled ports' stanza spans and (port, the peer of its /31) pairs of an interfaces file;
    None when there are none, or on a switch with fabric VRFs (the twin runs each VRF in a
    namespace of its own, without the VRF's table)."""
    if any(st.name not in ("mgmt", "eth0") and {"vrf", "vrf-table"} & dict(st.attrs).keys()
           for st in parse_stanzas(text)):
        return None
    spans = [s for s in _stanza_spans(text) if s[0] in ports]
    peers = [(name, ".".join(ip.split(".")[:3] + [str(int(ip.split(".")[3]) ^ 1)]))
             for _, name, address in _port_addresses(text, ports) if name != "lo" and address.endswith("/31")
             for ip in [address.partition("/")[0]]]
    return (spans, peers) if spans and peers else None


def _iface_kernel_route(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """A post-up `ip route add|replace` in a cabled port's stanza (a kernel route: zebra reads it in
    at distance 0, above BGP's route for the prefix): for the switch's own loopback or block (of a
    link's or a server port's address), another switch's (a neighbouring loopback, the next block),
    or a short prefix over them all; over a neighbor (the peer of a cabled /31), over two
    (`nexthop ... nexthop ...`), `onlink` (over a neighbor or a gateway on no subnet of the
    switch), over a neighbor named out of another port (refused by the kernel), or into a
    blackhole. Not on a switch with fabric VRFs (the twin runs each VRF in a namespace of its own,
    without the VRF's table)."""
    cabled = _cabled_peers(text, ports)
    if cabled is None:
        return None
    spans, peers = cabled
    own, learned = [], []  # (the switch's own prefixes; those of its neighbours, which it learns by BGP)
    everywhere = frozenset(st.name for st in parse_stanzas(text) if st.name not in ("mgmt", "eth0"))
    for _, name, address in _port_addresses(text, everywhere):  # (server ports too: their blocks)
        a, b, c, d = (int(o) for o in address.partition("/")[0].split("."))
        if name == "lo":
            own.append(f"{a}.{b}.{c}.{d}/32")
            learned.append(f"{a}.{b}.{c}.{d ^ 1}/32")
        else:
            own.append(f"{a}.{b}.{c}.{d & ~63 & 255}/26")
            learned.append(f"{a}.{b}.{c}.{(d & ~63) + 64 & 255}/26")
    draw = rng.random()
    prefix = (rng.choice(learned) if draw < 0.7 else rng.choice(own) if draw < 0.9
              else rng.choice(own).rsplit(".", 2)[0] + ".0.0/16")
    port, peer = rng.choice(peers)
    how = rng.choice(["via", "via-dev", "blackhole", "multipath", "onlink", "other-dev"])
    others = [(p, q) for p, q in peers if p != port]
    if how in ("multipath", "other-dev") and not others:
        how = "via-dev"
    verb = rng.choice(["add", "replace"])
    if how == "multipath":
        # two hops, each over a neighbor on its own port; run from the later port's stanza (both
        # ports are up by then)
        second, peer2 = rng.choice(others)
        command = f"ip route {verb} {prefix} nexthop via {peer} dev {port} nexthop via {peer2} dev {second}"
        order = [s[0] for s in spans]
        port = max(port, second, key=order.index)
    elif how == "onlink":  # the neighbor, or a gateway on no subnet of the switch: the port decides
        command = f"ip route {verb} {prefix} via {rng.choice([peer, '192.0.2.1'])} dev {port} onlink"
    elif how == "other-dev":  # a neighbor named out of another port: the kernel refuses the route
        command = f"ip route {verb} {prefix} via {peer} dev {rng.choice(others)[0]}"
    else:
        command = (f"ip route {verb} blackhole {prefix}" if how == "blackhole" else
                   f"ip route {verb} {prefix} via {peer}" + (f" dev {port}" if how == "via-dev" else ""))
    name, _, end = rng.choice([s for s in spans if s[0] == port] if how != "blackhole" else spans)
    lines = _lines(text)
    lines.insert(end, f"    post-up {command}")
    return f"interfaces: {name} post-up {command}", "\n".join(lines)


def _iface_kernel_rule(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """A post-up `ip rule add` of a reject type (prohibit, blackhole, unreachable) in a cabled
    port's stanza: for every packet, the switch's own (`iif lo`), those to one neighbor or to all
    but the fabric's links (`not to`), those from the servers' block; sometimes with a priority
    after main's (then it ends nothing). Not on a switch with fabric VRFs (as _iface_kernel_route)."""
    cabled = _cabled_peers(text, ports)
    if cabled is None:
        return None
    spans, peers = cabled
    _, peer = rng.choice(peers)
    a, b = peer.split(".")[:2]
    selector = rng.choice(["", "iif lo", f"to {peer}/31", f"not to {a}.{b}.0.0/16", f"from {a}.{int(b) + 1}.0.0/20",
                           "iif lo to " + peer])
    kind = rng.choice(["prohibit", "blackhole", "unreachable"])
    priority = " pref 32767" if rng.random() < 0.15 else ""
    command = " ".join(f"ip rule add {selector} {kind}{priority}".split())
    name, _, end = rng.choice(spans)
    lines = _lines(text)
    lines.insert(end, f"    post-up {command}")
    return f"interfaces: {name} post-up {command}", "\n".join(lines)


def _iface_route_delete(rng: random.Random, text: str, ports: frozenset[str]) -> tuple[str, str] | None:
    """A post-up `ip route del` in a cabled port's stanza: of a cabled port's connected /31 (with or
    without `dev`, the kernel's route of the port's address: the switch then reaches no address on
    that link), the same subnet named out of another port, or a prefix the switch has no route for
    (the command fails; nothing changes). Putting the file back boots the ports again (their
    addresses flushed and set anew), which brings the route back."""
    cabled = _cabled_peers(text, ports)
    if cabled is None:
        return None
    spans, peers = cabled
    port, peer = rng.choice(peers)
    a, b, c, d = (int(x) for x in peer.split("."))
    subnet = f"{a}.{b}.{c}.{d & ~1}/31"
    others = [p for p, _ in peers if p != port]
    how = rng.choice(["dev", "dev", "bare", "other-dev", "absent"])
    if how == "other-dev" and not others:
        how = "dev"
    command = {"dev": f"ip route del {subnet} dev {port}", "bare": f"ip route del {subnet}",
               "other-dev": f"ip route del {subnet} dev {rng.choice(others)}",
               "absent": "ip route del 198.18.7.0/24"}[how]
    # run from the port's own stanza or a later one: the port is up by then, as `ifreload -a`
    # finds every port on a running switch (from an earlier stanza at a boot the route is not
    # there yet and the command fails: the model judges the running switch, where a deploy runs it)
    order = [sp[0] for sp in spans]
    later = [sp for sp in spans if port not in order or order.index(sp[0]) >= order.index(port)]
    name, _, end = rng.choice(later or spans)
    lines = _lines(text)
    lines.insert(end, f"    post-up {command}")
    return f"interfaces: {name} post-up {command}", "\n".join(lines)


IFACE_EDITS: tuple[Callable[[random.Random, str, frozenset[str]], tuple[str, str] | None], ...] = (
    _iface_drop_address, _iface_readdress, _iface_readdress, _iface_link_down, _iface_drop_stanza, _iface_mtu,
    _iface_duplicate_stanza, _iface_unindent, _iface_address_command, _iface_address_form,
    _iface_kernel_route, _iface_kernel_rule, _iface_route_delete)


EDITS: tuple[Callable[[random.Random, str], tuple[str, str] | None], ...] = (
    _remove, _remove, _duplicate, _shutdown, _deny_own_prefix, _rename_reference, _no_default_af, _maximum_paths,
    _unindent, _abbreviate, _renumber, _external, _toggle_action, _aggregate, _change_asn, _prepend, _prepend, _attribute,
    _attribute, _maximum_prefix, _maximum_prefix, _session_option, _router_id, _redistribute, _static_route,
    _bgp_shutdown, _session_transport, _weight, _distance, _table_map, _fib_filter, _next_hop,
    _neighbor_prefix_list, _next_hop_unchanged, _remove_private_as, _default_originate, _as_override,
    _graceful_shutdown, _med_missing_as_worst, _addpath, _match_list, _access_list, _community_list,
    _as_path_list, _prepend_foreign, _origin, _flow, _network_map, _max_med, _confederation, _negate, _negate, _prefix_list_entry, _zebra_interface,
    _match_attribute, _relative_attribute, _match_next_hop, _prepend_last_as, _default_local_pref, _peer_group_as,
    _stacked_match, _prefix_range, _listen_range, _static_over_link, _match_family, _minimum_holdtime,
    _network_backdoor, _session_knob, _fib_source, _tag_or_nht, _as_path_ignore)


# frr.conf edits whose effect outlives the daemons (zebra sets a port admin-down in the kernel)
KERNEL_STATE_KINDS = frozenset({"zebra-interface"})
# interfaces edits that leave routes in the kernel: ifupdown2 runs a post-up command when a port
# comes up and nothing takes its route out again when the line is gone (a real switch keeps it
# until it reboots too), so the namespace's command-made routes are flushed when the file is put
# back (the rendered files add none: zebra's and the connected routes are of other protocols)
KERNEL_ROUTE_KINDS = frozenset({"iface-kernel-route"})
# ... and that leave policy rules behind (taken out by priority, the kernel's own kept)
KERNEL_RULE_KINDS = frozenset({"iface-kernel-rule"})
KERNEL_OWN_RULES = frozenset({0, 1000, 32766, 32767})


def _drop_added_rules(ns: str) -> None:
    """Every IPv4 policy rule of the namespace but the kernel's own (local, l3mdev, main, default)."""
    shown = in_ns(ns, ["ip", "-4", "-j", "rule", "show"], check=False)
    try:
        rules = json.loads(shown) if shown.strip() else []
    except ValueError:
        rules = []
    for rule in rules:
        priority, action = rule.get("priority"), rule.get("action")
        if isinstance(priority, int) and action in REJECT_KINDS:  # (the type named: not the default rule)
            in_ns(ns, ["ip", "-4", "rule", "del", "pref", str(priority), action], check=False)
        elif isinstance(priority, int) and priority not in KERNEL_OWN_RULES:
            in_ns(ns, ["ip", "-4", "rule", "del", "pref", str(priority)], check=False)



def edit_kind(edit: Callable[..., tuple[str, str] | None]) -> str:
    return edit.__name__.lstrip("_").replace("_", "-")


def all_kinds() -> set[str]:
    return {edit_kind(e) for e in EDITS} | {edit_kind(e) for e in IFACE_EDITS}


def random_edits(seed: int, count: int, configs: dict[str, str], kinds: Sequence[str] = (),
                 interfaces: dict[str, tuple[str, frozenset[str]]] | None = None) -> Iterator[Edit]:
    """``count`` seeded edits, each of one device's frr.conf (``configs``: device -> its text) or,
    when ``interfaces`` is given (device -> its interfaces file and the ports cabled in the twin),
    of its interfaces file; ``kinds``: only edits of those kinds (``edit_kind``), else any."""
    frr_edits = [e for e in EDITS if not kinds or edit_kind(e) in kinds]
    iface_edits = [e for e in IFACE_EDITS if interfaces is not None and (not kinds or edit_kind(e) in kinds)]
    if not frr_edits and not iface_edits:
        raise ValueError(f"no edit of the kinds {', '.join(kinds)}; there are {', '.join(sorted(all_kinds()))}")
    rng = random.Random(seed)
    names = sorted(configs)
    made = 0
    while made < count:
        device = rng.choice(names)
        # frr.conf edits as often as before; an interfaces edit one time in four when offered
        if iface_edits and interfaces is not None and device in interfaces and (not frr_edits or rng.random() < 0.25):
            text, ports = interfaces[device]
            iface_edit = rng.choice(iface_edits)
            change = iface_edit(rng, text, ports)
            if change is None or change[1] == text:
                continue
            made += 1
            yield Edit(device, change[0], change[1], "interfaces", edit_kind(iface_edit))
            continue
        if not frr_edits:
            continue
        frr_edit = rng.choice(frr_edits)
        change = frr_edit(rng, configs[device])
        if change is None or change[1] == configs[device]:
            continue
        made += 1
        yield Edit(device, change[0], change[1], kind=edit_kind(frr_edit))


# --- running it against the twin -----------------------------------------------------------------

@dataclass
class Comparison:
    edit: Edit
    rejected: str = ""  # FRR refused the edited file (the edit is not compared)
    # what verify's parse says bgpd refuses in the edited file (BGP-CONFIG-REFUSED): set when FRR
    # refused it, to tell a refusal verify foresaw from one it did not
    verify_refused: tuple[str, ...] = ()
    devices: int = 0
    differences: dict[str, str] = field(default_factory=dict)


def settle(switches: list[SwitchNs], rundir: Callable[[str], Path], quiet: float = 3.0,
           timeout: float = 60.0) -> dict[str, DeviceRouting]:
    """Observe until nothing has changed for ``quiet`` seconds."""
    started = time.monotonic()
    last = observe(switches, rundir)
    stable_since = time.monotonic()
    while time.monotonic() - started < timeout:
        time.sleep(0.5)
        now = observe(switches, rundir)
        if now != last:
            last, stable_since = now, time.monotonic()
        elif time.monotonic() - stable_since >= quiet:
            return now
    return last


def differential(output: Path, plan: TwinPlan, rundir: Callable[[str], Path], seed: int, count: int,
                 restart: Callable[[SwitchNs, str, str | None], None], work: Path, kinds: Sequence[str] = (),
                 interfaces: bool = True, only: Sequence[str] = ()) -> list[Comparison]:
    """Apply ``count`` seeded edits to the running twin one at a time (``restart`` loads a device's
    frr.conf, and its interfaces file when one is given, as at boot), compare predicted and observed
    routing on every switch after each, and put the device back before the next. ``interfaces``:
    edit interfaces files too (the ports cabled in the twin and the loopback); ``only``: edit only
    these devices (every switch is compared all the same)."""
    switches = compared_devices(plan)
    by_device: dict[str, list[SwitchNs]] = {}
    for sw in switches:
        by_device.setdefault(sw.device, []).append(sw)
    manifest = Manifest.load(output)
    edited_root = work / "edited"
    if edited_root.exists():
        shutil.rmtree(edited_root)
    shutil.copytree(output, edited_root, symlinks=True)
    folders = {name: edited_root / manifest.devices[name].twin_dir for name in by_device}
    originals = {name: (folder / "frr.conf").read_text() for name, folder in folders.items()}
    iface_originals = {name: (folder / "interfaces").read_text() for name, folder in folders.items()}
    cabled = {name: frozenset(p for sw in by_device[name] for p in fabric_ports(sw.ns)) for name in by_device}
    devices = list(by_device)
    results = []
    offered = {name: (iface_originals[name], cabled[name]) for name in by_device} if interfaces else None
    unknown = set(only) - set(by_device)
    if unknown:
        raise ValueError(f"no twin switch {', '.join(sorted(unknown))}; there are {', '.join(sorted(by_device))}")
    editable = {name: text for name, text in originals.items() if not only or name in only}
    for edit in random_edits(seed, count, editable, kinds, offered):
        comparison = Comparison(edit, devices=len(switches))
        (folders[edit.device] / edit.file).write_text(edit.text)
        try:
            try:
                for sw in by_device[edit.device]:  # a gateway: each VRF's namespace
                    if edit.file == "interfaces":
                        restart(sw, originals[edit.device], edit.text)
                    else:
                        restart(sw, edit.text, None)
            except TwinError as exc:
                comparison.rejected = str(exc)[:200]
                dev = twin_snapshot(edited_root).devices[edit.device]
                comparison.verify_refused = tuple(
                    f"line {line}: {statement}" for line, statement, _why in
                    sorted([r for inst in dev.bgp.values() for r in inst.refused] + dev.refused_lines))
                results.append(comparison)
                continue
            observed = settle(switches, rundir)
            comparison.differences = disagreements(predict(edited_root, devices), observed)
            results.append(comparison)
        finally:
            (folders[edit.device] / "frr.conf").write_text(originals[edit.device])
            (folders[edit.device] / "interfaces").write_text(iface_originals[edit.device])
            for sw in by_device[edit.device]:
                # an edit that left kernel state behind (a port zebra took down stays down when
                # the daemons restart) is put back as at boot: both files again
                again = edit.file == "interfaces" or edit.kind in KERNEL_STATE_KINDS
                if edit.kind in KERNEL_ROUTE_KINDS:
                    in_ns(sw.ns, ["ip", "-4", "route", "flush", "proto", "boot", "table", "all"], check=False)
                if edit.kind in KERNEL_RULE_KINDS:
                    _drop_added_rules(sw.ns)
                restart(sw, originals[edit.device], iface_originals[edit.device] if again else None)
            settle(switches, rundir)
    return results
