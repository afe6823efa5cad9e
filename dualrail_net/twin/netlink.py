"""Read a namespace's kernel routing table over rtnetlink, without starting a process.

Convergence polling reads the kernel table of every leaf several times a second; one `ip -j route`
per leaf pays a process start each, which dominates a pass on a large twin; a netlink dump costs
almost nothing (figures: docs/performance.md). The answer has the shape of `ip -j route show` (main table)
for the fields the twin checks use: dst, gateway, nexthops, protocol, type."""

from __future__ import annotations

import ctypes
import os
import socket
import struct
from typing import Any

from dualrail_net.twin.shell import TwinError

CLONE_NEWNET = 0x40000000
NLMSG_DONE, NLMSG_ERROR = 3, 2
RTM_NEWROUTE, RTM_GETROUTE = 24, 26
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
RTA_DST, RTA_GATEWAY, RTA_MULTIPATH, RTA_TABLE, RTA_NH_ID = 1, 5, 9, 15, 30
RT_TABLE_MAIN = 254
PROTOCOLS = {1: "redirect", 2: "kernel", 3: "boot", 4: "static", 186: "bgp", 196: "static"}
TYPES = {1: "unicast", 2: "local", 3: "broadcast", 6: "blackhole", 7: "unreachable", 8: "prohibit"}

_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        raise TwinError(f"setns failed: {os.strerror(ctypes.get_errno())}")


def _socket_in(ns: str) -> socket.socket:
    """A rtnetlink socket bound to ``ns``: a socket keeps the namespace it was created in, so only
    this thread enters ``ns`` for the socket() call and returns at once."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    except OSError as exc:
        os.close(own)
        raise TwinError(f"namespace {ns} not found") from exc
    try:
        _setns(target)
        try:
            return socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        finally:
            _setns(own)
    finally:
        os.close(target)
        os.close(own)


def _attrs(data: bytes, offset: int, end: int) -> dict[int, bytes]:
    out = {}
    while offset + 4 <= end:
        length, kind = struct.unpack_from("HH", data, offset)
        if length < 4:
            break
        out[kind] = data[offset + 4:offset + length]
        offset += (length + 3) & ~3
    return out


def _nexthops(blob: bytes) -> list[dict[str, Any]]:
    hops = []
    offset = 0
    while offset + 8 <= len(blob):
        length = struct.unpack_from("H", blob, offset)[0]
        if length < 8:
            break
        gw = _attrs(blob, offset + 8, offset + length).get(RTA_GATEWAY)
        hops.append({"gateway": socket.inet_ntoa(gw)} if gw else {})
        offset += (length + 3) & ~3
    return hops


def _route(msg: bytes) -> dict[str, Any] | None:
    family, dst_len, _src, _tos, table, protocol, _scope, rtype = struct.unpack_from("BBBBBBBB", msg, 16)
    if family != socket.AF_INET:
        return None
    attrs = _attrs(msg, 28, len(msg))
    table_id = struct.unpack("I", attrs[RTA_TABLE])[0] if RTA_TABLE in attrs else table
    if table_id != RT_TABLE_MAIN:
        return None
    if RTA_NH_ID in attrs:
        raise TwinError("a route uses a kernel nexthop object; the twin turns them off (see twin/frr.py)")
    if RTA_DST in attrs:
        addr = socket.inet_ntoa(attrs[RTA_DST])
        dst = addr if dst_len == 32 else f"{addr}/{dst_len}"
    else:
        dst = "default"
    route: dict[str, Any] = {"dst": dst, "protocol": PROTOCOLS.get(protocol, str(protocol)),
                             "type": TYPES.get(rtype, str(rtype))}
    if RTA_GATEWAY in attrs:
        route["gateway"] = socket.inet_ntoa(attrs[RTA_GATEWAY])
    if RTA_MULTIPATH in attrs:
        route["nexthops"] = _nexthops(attrs[RTA_MULTIPATH])
    return route


def routes(ns: str) -> list[dict[str, Any]]:
    """IPv4 routes of the main table in ``ns``."""
    out: list[dict[str, Any]] = []
    with _socket_in(ns) as sock:
        sock.bind((0, 0))
        # nlmsghdr + rtmsg(family=AF_INET): dump every IPv4 route
        request = struct.pack("IHHII", 28, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
        request += struct.pack("BBBBBBBBI", socket.AF_INET, 0, 0, 0, 0, 0, 0, 0, 0)
        sock.sendall(request)
        while True:
            data = sock.recv(1 << 16)
            offset = 0
            while offset + 16 <= len(data):
                length, kind = struct.unpack_from("IH", data, offset)
                if kind == NLMSG_DONE:
                    return out
                if kind == NLMSG_ERROR:
                    raise TwinError(f"netlink route dump in {ns} failed")
                if kind == RTM_NEWROUTE:
                    route = _route(data[offset:offset + length])
                    if route is not None:
                        out.append(route)
                offset += (length + 3) & ~3
