"""Read P_Key tables of many ports in one process: SubnGet(PKeyTable) SMPs through libibmad.

Run with the simulator's environment (LD_PRELOAD=libumad2sim.so, SIM_HOST, IBSIM_SOCKNAME):
``python3 -m dualrail_net.verify.ib.pkey_reader`` reads {"lids": [...]} on stdin and writes
{"tables": {lid: [raw 16-bit P_Keys, non-zero]}, "errors": {lid: message}}. It sends the same SMP
smpquery sends, without starting a process (and attaching to ibsim) per port: that start-up, not
the query, was what made the one-port-at-a-time read-back slow."""

from __future__ import annotations

import ctypes
import json
import struct
import sys
from typing import Any

IB_SMI_CLASS = 0x01
IB_SMI_DIRECT_CLASS = 0x81
IB_ATTR_PKEY_TBL = 0x16
BLOCK_ENTRIES = 32
MAX_BLOCKS = 64  # 2048 entries: the largest P_Key table an HCA port can have


def _library() -> Any:
    mad = ctypes.CDLL("libibmad.so.5")
    mad.mad_rpc_open_port.restype = ctypes.c_void_p
    mad.mad_rpc_open_port.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    mad.smp_query_via.restype = ctypes.c_void_p
    mad.smp_query_via.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                  ctypes.c_void_p]
    return mad


def read_tables(lids: list[int]) -> dict[str, Any]:
    mad = _library()
    classes = (ctypes.c_int * 2)(IB_SMI_CLASS, IB_SMI_DIRECT_CLASS)
    port = mad.mad_rpc_open_port(None, 0, classes, 2)
    if not port:
        return {"tables": {}, "errors": {"*": "cannot open an umad port (is the simulator running?)"}}
    tables: dict[str, list[int]] = {}
    errors: dict[str, str] = {}
    for lid in lids:
        # ib_portid_t starts with the LID; zeroed otherwise: a LID-routed SMP on QP0
        portid = ctypes.create_string_buffer(512)
        struct.pack_into("<i", portid, 0, lid)
        keys: list[int] = []
        for block in range(MAX_BLOCKS):
            buf = ctypes.create_string_buffer(256)
            if not mad.smp_query_via(buf, portid, IB_ATTR_PKEY_TBL, block, 0, port):
                errors[str(lid)] = f"SubnGet(PKeyTable) block {block} failed"
                break
            entries = struct.unpack(f">{BLOCK_ENTRIES}H", buf.raw[:2 * BLOCK_ENTRIES])
            keys += [k for k in entries if k & 0x7FFF]
            if not any(entries):
                break
        tables[str(lid)] = keys
    return {"tables": tables, "errors": errors}


def main() -> int:
    spec = json.loads(sys.stdin.read())
    json.dump(read_tables([int(x) for x in spec["lids"]]), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
