"""ICMP echo prober, run *inside* a namespace: ``ip netns exec NS python3 -m dualrail_net.twin.probe``.

Reads JSON from stdin: {"pairs": [[src_ip or "", dst_ip], ...], "count": N, "interval": s,
"duration": s (continuous mode; overrides count), "timeout": s}. Writes JSON to stdout: per pair
sent, received and the send times of lost probes. One raw socket per source address, bound to it,
so the kernel's policy routing (ip rule from SRC) picks the NIC, as it would for real traffic."""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
import time
from typing import Any


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return int(~total & 0xFFFF)


def _echo(ident: int, seq: int) -> bytes:
    header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    payload = b"dualrail-twin-probe"
    return struct.pack("!BBHHH", 8, 0, _checksum(header + payload), ident, seq) + payload


def run_probes(spec: dict[str, Any]) -> dict[str, Any]:
    pairs: list[list[str]] = spec["pairs"]
    interval = float(spec.get("interval", 0.05))
    timeout = float(spec.get("timeout", 1.0))
    duration = spec.get("duration")
    count = int(spec.get("count", 3))
    base_id = (os.getpid() * 7) & 0xFFFF
    socks: dict[str, socket.socket] = {}
    for src, _ in pairs:
        if src not in socks:
            s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
            if src:
                s.bind((src, 0))
            s.setblocking(False)
            socks[src] = s
    ident = {i: (base_id + i) & 0xFFFF for i in range(len(pairs))}
    by_ident = {v: k for k, v in ident.items()}
    sent_at: dict[tuple[int, int], float] = {}
    received: set[tuple[int, int]] = set()
    seq = 0
    start = time.monotonic()
    end_send = start + (float(duration) if duration else count * interval)
    next_send = start
    stop_file = spec.get("stop_file")

    def drain(wait: float) -> None:
        ready, _, _ = select.select(list(socks.values()), [], [], max(0.0, wait))
        for s in ready:
            while True:
                try:
                    packet = s.recv(2048)
                except BlockingIOError:
                    break
                ihl = (packet[0] & 0x0F) * 4
                icmp_type, _, _, pid, pseq = struct.unpack("!BBHHH", packet[ihl:ihl + 8])
                if icmp_type == 0 and pid in by_ident:
                    received.add((by_ident[pid], pseq))

    while time.monotonic() < end_send:
        if stop_file and os.path.exists(stop_file):
            break
        now = time.monotonic()
        if now >= next_send:
            for i, (src, dst) in enumerate(pairs):
                try:
                    socks[src].sendto(_echo(ident[i], seq & 0xFFFF), (dst, 0))
                except OSError:
                    pass  # unreachable: counted as lost
                sent_at[(i, seq & 0xFFFF)] = now - start
            seq += 1
            next_send += interval
        drain(next_send - time.monotonic())
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(received) < len(sent_at):
        drain(deadline - time.monotonic())
    results = []
    for i, (src, dst) in enumerate(pairs):
        mine = [(k, t) for k, t in sent_at.items() if k[0] == i]
        lost = sorted(t for k, t in mine if k not in received)
        # lost_at counts from this prober's start; "started" is that start on the system's monotonic
        # clock (one clock for every process and namespace), so a caller can place the losses on its own
        results.append({"src": src, "dst": dst, "sent": len(mine), "received": len(mine) - len(lost),
                        "lost_at": [round(t, 3) for t in lost], "started": round(start, 6)})
    return {"results": results, "seconds": round(time.monotonic() - start, 3)}


def main() -> int:
    spec = json.loads(sys.stdin.read())
    json.dump(run_probes(spec), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
