"""Verification of a large rendered folder in two processes that each parse what their checks read.

Sharing one parsed snapshot between processes is costly in CPython: sending objects means pickling
them, and a forked child that reads objects made before the fork copies every page it touches
(reference counts are writes). So the two processes here share almost nothing:

* the **base side** (this process) reads the switches' base parts (interfaces, QoS), the servers
  and the cabling plan, and runs every other check;
* the **routing side** (a new interpreter, ``python -m dualrail_net.verify.partitioned``) reads the
  switches' routing parts (frr.conf; a one-file platform such as EOS whole) and the cabling plan,
  and runs the checks that declare they read routing parts or sessions (``@check(reads=...)``:
  side "routing"); those that read only what both sides hold (side "either") run on the base side,
  which finishes first at 100k GPUs.

What crosses, in plain types: down, each switch's addressed ports (name, addresses, VRF, loopback),
VRF tables, kernel routes and policy rules (its interfaces file's `ip route` and `ip rule` commands), then each server's addressed ports (the routing side's topology needs every
address, and the base side reads them anyway); up, each switch's hostname and the statements
naming it, VRF names and BGP instance names as its routing part gives them (the base side's topology needs every routing
instance), the cabling plan's columns (the routing side reads it while it waits for the servers;
unmarshalling is half the reading), then the routing side's findings. Each side's snapshot leaves what it did not read as
``Elsewhere`` values, which refuse to be read, so a check whose declared reads are wrong fails
loudly instead of passing on empty data. The results are those of ``run_checks`` on the whole snapshot,
in registry order (tests compare both on every mutation)."""

from __future__ import annotations

import gc
import marshal
import os
import queue
import subprocess
import sys
import pickle
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, NoReturn, TypeVar, cast

from dualrail_net.gcpause import gc_paused
from dualrail_net.verify.cabling import CablingPlan, read_cabling
from dualrail_net.verify.findings import CheckResult
from dualrail_net.verify.checks import (
    CheckSpec,
    Context,
    registered,
    run_checks,
    run_group,
)
from dualrail_net.verify.checks.routing import PER_PLANE
from dualrail_net.verify.controlplane import PlanePlan, expected_plane, planned_bits
from dualrail_net.verify.model import DeviceConfig, Interface, KernelLookup, KernelRule, Qos, ServerConfig, ServerRoute, ServerRule, StaticRoute
from dualrail_net.verify.parsers import UnreadableFile, add_routing, parse_server, platform_parser
from dualrail_net.verify.prefetch import start_read_ahead
from dualrail_net.manifest import Manifest
from dualrail_net.verify.snapshot import Snapshot, assemble, cabling_path, load_snapshot, read_manifest

K = TypeVar("K")
V = TypeVar("V")


class WorkerFailed(Exception):
    """The routing side of a two-sided verification died or raised (its traceback is in the message)."""


class ElsewhereError(RuntimeError):
    """A check read a part of the snapshot that its side of verification does not parse."""


def _refuse(what: str) -> NoReturn:
    raise ElsewhereError(f"{what} is parsed on the other side of verification: the check that reads it "
                         "declares the wrong reads (@check(reads=...), verify/checks/__init__.py)")


class ElsewhereDict(dict[K, V]):
    """A mapping parsed on the other side. Its keys may be known (a switch's BGP instances by VRF,
    which the base side's topology needs); its values may not be read."""

    def __init__(self, what: str, keys: list[K] | None = None) -> None:
        super().__init__()
        for key in keys or []:
            super().__setitem__(key, cast(V, None))
        self.what, self.keys_known = what, keys is not None

    def __iter__(self) -> Iterator[K]:
        if not self.keys_known:
            _refuse(self.what)
        return super().__iter__()

    def __len__(self) -> int:
        if not self.keys_known:
            _refuse(self.what)
        return super().__len__()

    def __getitem__(self, key: K) -> NoReturn:
        _refuse(self.what)

    def get(self, key: K, default: Any = None) -> NoReturn:
        _refuse(self.what)

    def items(self) -> NoReturn:
        _refuse(self.what)

    def values(self) -> NoReturn:
        _refuse(self.what)


class ElsewhereList(list[V]):
    """A list parsed on the other side: it may not be read at all."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def __iter__(self) -> NoReturn:
        _refuse(self.what)

    def __len__(self) -> NoReturn:
        _refuse(self.what)

    def __getitem__(self, index: Any) -> NoReturn:
        _refuse(self.what)


def _elsewhere_routing(dev: DeviceConfig, hostname: str, names: list[tuple[str, str, int]], vrfs: list[str],
                       instances: list[str | None]) -> None:
    """A base part with what its routing part says that the base side may know: the hostname and
    the statements naming the device (added as add_routing adds them), the VRF names (likewise)
    and the names of the BGP instances."""
    dev.hostname = hostname
    dev.names += [(str(name), str(file), int(line)) for name, file, line in names]
    for vrf in vrfs:
        dev.vrfs.setdefault(vrf, None)
    dev.bgp = ElsewhereDict(f"{dev.name}'s BGP configuration", instances)
    dev.prefix_lists = ElsewhereDict(f"{dev.name}'s prefix lists")
    dev.route_maps = ElsewhereDict(f"{dev.name}'s route maps")
    dev.static_routes = ElsewhereList(f"{dev.name}'s static routes")
    dev.vrf_route_leaks = ElsewhereList(f"{dev.name}'s VRF imports")
    dev.vrf_leak_maps = ElsewhereDict(f"{dev.name}'s VRF leaks' route-maps")
    dev.unmodelled = ElsewhereList(f"{dev.name}'s unmodelled routing lines")
    dev.refused_lines = ElsewhereList(f"{dev.name}'s refused routing lines")
    dev.undefined_refs = ElsewhereList(f"{dev.name}'s undefined references")
    dev.match_list_names = ElsewhereDict(f"{dev.name}'s community and AS-path lists")
    dev.access_lists = ElsewhereDict(f"{dev.name}'s route-filter access lists")
    dev.community_lists = ElsewhereDict(f"{dev.name}'s community-lists")
    dev.as_path_lists = ElsewhereDict(f"{dev.name}'s AS-path access lists")
    dev.routing_off = ElsewhereList(f"{dev.name}'s IP routing state")
    dev.forwarding_off = ElsewhereList(f"{dev.name}'s IP forwarding state")
    dev.fib_filters = ElsewhereDict(f"{dev.name}'s FIB route-maps")
    dev.nht_default = ElsewhereDict(f"{dev.name}'s next-hop resolution through the default route")
    dev.acls = ElsewhereDict(f"{dev.name}'s access lists")
    dev.acl_in = ElsewhereDict(f"{dev.name}'s access-list bindings")
    dev.acl_out = ElsewhereDict(f"{dev.name}'s access-list bindings out")
    dev.control_plane_acls = ElsewhereDict(f"{dev.name}'s control-plane access lists")
    dev.service_acls = ElsewhereDict(f"{dev.name}'s services' access lists")


def _addressed_server(name: str, ports: Ports) -> ServerConfig:
    """A server as the routing side knows it: its addressed ports, nothing else."""
    routes: list[ServerRoute] = ElsewhereList(f"{name}'s routes")
    rules: list[ServerRule] = ElsewhereList(f"{name}'s policy rules")
    env: dict[str, str] = ElsewhereDict(f"{name}'s nccl.env")
    sysctl: dict[str, str] = ElsewhereDict(f"{name}'s sysctls")
    unmodelled: list[tuple[str, int, str]] = ElsewhereList(f"{name}'s unmodelled lines")
    added_later: dict[tuple[str, str], str] = ElsewhereDict(f"{name}'s addresses added by commands")
    return ServerConfig(name, _port_interfaces(ports), routes, rules, added_later=added_later, env=env, sysctl=sysctl,
                        unmodelled=unmodelled)


def _frame(pipe: BinaryIO, data: bytes) -> None:
    pipe.write(len(data).to_bytes(8, "little") + data)
    pipe.flush()


def _unframe(pipe: BinaryIO, sender: str = "the routing side") -> bytes:
    header = pipe.read(8)
    data = pipe.read(int.from_bytes(header, "little")) if len(header) == 8 else b""
    if not data:
        raise WorkerFailed(f"{sender} of verification died without an answer")
    return data


def _write(pipe: BinaryIO, kind: str, value: Any) -> None:
    """Up to the base side: pickled (findings are objects), with failures as kind "error"."""
    _frame(pipe, pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL))


def _read(pipe: BinaryIO) -> Any:
    """The next message from the routing side; its failure, raised here."""
    kind, value = pickle.loads(_unframe(pipe))
    if kind == "error":
        raise WorkerFailed(f"the routing side of verification failed:\n{value}")
    if kind == "unreadable":  # a file it refused to read: the same one-line error as in one process
        raise UnreadableFile(value)
    return value


def _write_each(pipe: BinaryIO, messages: list[Any]) -> None:
    for message in messages:
        _write(pipe, "ok", message)


def _write_quietly(pipe: BinaryIO, kind: str, value: Any) -> None:
    try:
        _write(pipe, kind, value)
    except OSError:  # the base side is gone: nobody is left to tell
        pass



def on_routing_side(spec: CheckSpec) -> bool:
    """From the check's declared reads: routing parts or sessions. A check of side "either" (it
    reads only what both sides hold) runs on the base side, which finishes first at 100k GPUs (the
    routing side's plane models are the longest work: docs/performance.md)."""
    return spec.side == "routing"

# From this many switches and servers two sides are faster than one: below it the new
# interpreter's start costs more than the split saves (measured: docs/performance.md).
TWO_SIDES_FROM = 1500


def check_folder(root: Path, only: set[str] | None = None, workers: int | None = None,
                 timings: dict[str, float] | None = None, read_ahead: bool = True) -> list[CheckResult]:
    """Parse and check the rendered folder: in two processes (see the module's text) from
    TWO_SIDES_FROM switches and servers, or when ``workers`` = 2; else load_snapshot and
    run_checks in this process. The results are the same either way. ``read_ahead``: the kernel
    reads the folders' files ahead of the parsers (verify/prefetch.py; off: the plain reads)."""
    manifest = read_manifest(root)
    if read_ahead:  # switches, then servers: the order both sides parse them in
        start_read_ahead([root / meta.dir for meta in manifest.devices.values()]
                         + [root / meta.dir for meta in manifest.servers.values()])
    size = len(manifest.devices) + len(manifest.servers)
    if workers is None:
        workers = 2 if size >= TWO_SIDES_FROM and len(os.sched_getaffinity(0)) > 1 else 1
    if workers <= 1:
        started = time.monotonic()
        snap = load_snapshot(root)
        if timings is not None:
            timings["parse"] = time.monotonic() - started
        return run_checks(snap, only, timings)
    with gc_paused():
        return _check_in_two(root, manifest, only, timings)


def _check_in_two(root: Path, manifest: Manifest, only: set[str] | None,
                  timings: dict[str, float] | None) -> list[CheckResult]:
    specs = registered(only)
    routing_specs = [spec for spec in specs if on_routing_side(spec)]
    base_specs = [spec for spec in specs if not on_routing_side(spec)]
    switches = list(manifest.devices.items())
    server_work = list(manifest.servers.items())
    parsers = [platform_parser(name, meta.platform) for name, meta in switches]
    up_read, up_write = os.pipe()  # routing side -> base side: instance names, cabling plan, findings
    down_read, down_write = os.pipe()  # base side -> routing side: the switches', then the servers' ports
    started = time.monotonic()
    # a new interpreter, not a fork: a forked child of a large process (``dualrail build`` holds the
    # fabric and its rendering) shares every page, and each side's first write to one copies it
    package_root = str(Path(__file__).resolve().parents[2])
    paths = (package_root, os.environ.get("PYTHONPATH"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in paths if path)}
    routing_side = subprocess.Popen(
        [sys.executable, "-m", "dualrail_net.verify.partitioned", str(root), str(up_write), str(down_read),
         *(spec.id for spec in routing_specs)], pass_fds=(up_write, down_read), env=env)
    os.close(up_write)
    os.close(down_read)
    # what goes down is written by a thread: the routing side reads it when its own parsing is done
    outbox: queue.Queue[bytes | None] = queue.Queue()
    writer = threading.Thread(target=_write_all, args=(os.fdopen(down_write, "wb"), outbox), daemon=True)
    writer.start()
    answered = False
    try:
        with os.fdopen(up_read, "rb") as up:
            base = [parser.base(name, root / meta.dir) for parser, (name, meta) in zip(parsers, switches)]
            # down in marshal's plain types (a third of pickle's time for the 1M ports)
            outbox.put(marshal.dumps([(list(dev.vrfs.items()), _addressed_ports(dev.interfaces),
                                       [_kernel_route(r) for r in dev.kernel_routes],
                                       [tuple(rule) for rule in dev.kernel_rules],
                                       [tuple(rule) for rule in dev.kernel_lookups])
                                      for parser, dev in zip(parsers, base) if parser.routing]))
            servers = [parse_server(name, root / meta.dir, [port.ifname for port in meta.ports])
                       for name, meta in server_work]
            outbox.put(marshal.dumps([(srv.name, _addressed_ports(srv.interfaces)) for srv in servers]))
            outbox.put(None)
            routing_names = iter(_read(up))
            columns = _read(up)  # the routing side reads the cabling plan while it waits for the servers
            plan = CablingPlan(*marshal.loads(columns)) if columns else read_cabling(cabling_path(root, manifest))
            for parser, dev in zip(parsers, base):
                if parser.routing:
                    _elsewhere_routing(dev, *next(routing_names))
            snap = assemble(root, manifest, {dev.name: dev for dev in base}, {srv.name: srv for srv in servers}, plan,
                            routing=False)
            parsed = time.monotonic() - started
            results, seconds = run_group(Context(snap), base_specs)
            # the parsed parts are freed while the routing side still works (at 100k GPUs their
            # millions of objects take seconds to free; the findings refer to none of them)
            del snap, base, servers
            routing_results, routing_seconds, routing_parsed = _read(up)
            answered = True
    finally:
        outbox.put(None)
        if not answered:  # this side failed: the other's work is of no use
            routing_side.kill()
        # reaped in the background: the answer is in (or the failure known)
        threading.Thread(target=routing_side.wait, daemon=True).start()
    if timings is not None:
        # what the run waited for: the slower side's parsing, and its topology
        timings["parse"] = max(parsed, routing_parsed)
        timings["topology"] = max(sum(seconds.values()), sum(routing_seconds.values()))
    by_id = {r.check: r for r in (*results, *routing_results)}
    return [by_id[spec.id] for spec in specs]


# (name, addresses, VRF, is a loopback, why it is down ("": up))
Ports = list[tuple[str, list[str], str | None, bool, str]]


def _addressed_ports(interfaces: dict[str, Interface]) -> Ports:
    return [(i.name, i.addresses, i.vrf, i.is_loopback, i.down) for i in interfaces.values() if i.addresses]


def _kernel_route(route: StaticRoute) -> tuple[str | None, str, str | None, str | None, int, int, str]:
    """A base part's kernel route (StaticRoute.kernel) in plain types, in StaticRoute's field order."""
    return route.vrf, route.prefix, route.nexthop, route.nexthop_vrf, route.distance, route.line, route.file


def _port_interfaces(ports: Ports) -> dict[str, Interface]:
    """What the routing side knows of a holder's interfaces: the addressed ones, their addresses,
    VRF, kind and state (nothing else; its checks read nothing else)."""
    return {name: Interface(name, addresses, vrf=vrf, is_loopback=loopback, down=down)
            for name, addresses, vrf, loopback, down in ports}


def _write_all(pipe: BinaryIO, outbox: queue.Queue[bytes | None]) -> None:
    with pipe:
        while (message := outbox.get()) is not None:
            try:
                _frame(pipe, message)
            except OSError:  # the other side died: it has said so on its own pipe, or is found dead
                return


def _routing_side(root: Path, specs: list[CheckSpec], up: BinaryIO, down: BinaryIO) -> None:
    started = time.monotonic()
    manifest = read_manifest(root)
    switches = list(manifest.devices.items())
    parsers = [platform_parser(name, meta.platform) for name, meta in switches]
    # the routing parts; a platform without one is read whole here (its one file holds both)
    parts = [parser.routing(name, root / meta.dir) if parser.routing else parser.base(name, root / meta.dir)
             for parser, (name, meta) in zip(parsers, switches)]
    names = [(part.hostname, part.names, list(part.vrfs), list(part.bgp))
             for parser, part in zip(parsers, parts) if parser.routing]
    plan = read_cabling(cabling_path(root, manifest))
    columns = plan.as_columns()
    # sent by a thread: the base side takes them only when its own parsing is done
    sender = threading.Thread(target=_write_each, args=(up, [names, columns and marshal.dumps(columns)]), daemon=True)
    sender.start()
    try:
        # the base parts' addressed ports, from the base side, which reads them anyway
        base_ports = iter(marshal.loads(_unframe(down, "the base side")))
        devices = {}
        for parser, part in zip(parsers, parts):
            if parser.routing:
                vrfs, ports, kernel, rules, lookups = next(base_ports)
                dev = DeviceConfig(part.name, part.platform, interfaces=_port_interfaces(ports), vrfs=dict(vrfs))
                dev.kernel_routes = [StaticRoute(vrf, prefix, hop, hop_vrf, distance, line, file, kernel=True)
                                     for vrf, prefix, hop, hop_vrf, distance, line, file in kernel]
                dev.kernel_rules = [KernelRule(*rule) for rule in rules]
                dev.kernel_lookups = [KernelLookup(*rule) for rule in lookups]
                dev.qos = Qos(ElsewhereDict(f"{part.name}'s DSCP map"), ElsewhereDict(f"{part.name}'s DSCP priorities"))
                part = add_routing(dev, part)
            devices[part.name] = part
        # the base side parses the servers now: their ports come next, and this side would wait
        # idle for them; the plan's routes need only the manifest and the cabling plan
        plans = _early_plans(root, manifest, plan, specs)
        servers = {name: _addressed_server(name, ports) for name, ports in marshal.loads(_unframe(down, "the base side"))}
        snap: Snapshot = assemble(root, manifest, devices, servers, plan)
        parsed = time.monotonic() - started
        sender.join()
        results = run_group(Context(snap, plans=plans), specs)
    finally:
        sender.join()  # one writer at a time on the pipe up, a failure's report included
    _write(up, "ok", (*results, parsed))


def _early_plans(root: Path, manifest: Manifest, plan: CablingPlan, specs: list[CheckSpec]) -> dict[str, PlanePlan]:
    """Every plane's planned routes, for the per-plane routing checks (when one of them runs)."""
    if not any(spec.id in PER_PLANE for spec in specs):
        return {}
    snap = Snapshot(root, manifest, {}, {}, plan)
    return {plane: expected_plane(snap, plane, planned_bits(snap, plane)) for plane in manifest.planes}


def main(argv: list[str]) -> int:
    """The routing side, as started by _check_in_two: ROOT UP_FD DOWN_FD CHECK_ID..."""
    root, up_fd, down_fd, *ids = argv
    gc.disable()  # as gc_paused: millions of acyclic objects, and the process ends with the checks
    specs = [spec for spec in registered() if spec.id in ids]
    with os.fdopen(int(up_fd), "wb") as up, os.fdopen(int(down_fd), "rb") as down:
        try:
            _routing_side(Path(root), specs, up, down)
        except UnreadableFile as exc:
            _write_quietly(up, "unreadable", str(exc))
            return 1
        except BaseException:  # noqa: BLE001  (everything must reach the base side)
            _write_quietly(up, "error", traceback.format_exc())
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
