"""TEST DOUBLE of a server's ConnectX NICs for the twin (and the NIC QoS program's tests).

A twin server's ports are veths: they have an MTU and nothing else, so the NIC QoS program
(``nic-qos.sh``) could only ever run dry there and the audit could not read the QoS in force. This
double gives each planned port what the program reads and writes on a real host: a private /sys
tree (``DUALRAIL_NIC_QOS_ROOT``) with the port's ECN files per priority, its CNP marking and its
RDMA-CM ToS, and an ``mlnx_qos`` on PATH that keeps each port's trust and PFC in a state folder and
prints them as mlnx_qos does. A new double starts as a NIC out of the factory (PCP trust, no PFC,
no ECN, ToS 0), so the program has real work to do, and what it sets stays set until someone
changes it (a test resets a port to PCP trust like a firmware update would).

The MTU is the one setting the double does not hold: in the twin it is a link to the namespace's
own /sys entry (the program reads the veth's real MTU and sets it with the real ``ip link``); in
a test without a namespace it is a file, and a stand-in ``ip`` writes it.

Layout under the double's folder: ``root/`` (the /sys tree), ``bin/`` (mlnx_qos, and ``ip`` when the
MTU is a file), ``state/`` (``<port>.trust``, ``<port>.pfc``, ``calls``: every change asked)."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from dualrail_net.verify.model import ServerConfig
from dualrail_net.verify.parsers import read_nic_qos

# keeps each port's trust and PFC in $DUALRAIL_NIC_DOUBLE_STATE/<port>.{trust,pfc}; reads print
# the two lines nic-qos.sh reads from the real tool's report ("Priority trust state", "enabled")
MLNX_QOS = """#!/bin/sh
# TEST DOUBLE of mlnx_qos (mlnx-tools): dualrail_net/twin/nic_double.py
state=${DUALRAIL_NIC_DOUBLE_STATE:?}
[ "$1" = "-i" ] && [ -n "${2:-}" ] || { echo "usage: mlnx_qos -i IF [--trust T | --pfc LIST]" >&2; exit 2; }
port=$2
[ -f "$state/$port.trust" ] || { echo "$port: no such NIC port" >&2; exit 1; }
if [ $# -eq 2 ]; then
    echo "DCBX mode: OS controlled"
    echo "Priority trust state: $(cat "$state/$port.trust")"
    echo "PFC configuration:"
    echo "        priority    0   1   2   3   4   5   6   7"
    echo "        enabled     $(cat "$state/$port.pfc")"
    exit 0
fi
echo "$*" >> "$state/calls"
case "$3" in
    --trust) case "$4" in pcp|dscp|both) echo "$4" > "$state/$port.trust" ;; *) exit 1 ;; esac ;;
    --pfc) echo "$4" | tr ',' ' ' > "$state/$port.pfc" ;;
    *) exit 1 ;;
esac
"""

# `ip link set dev IF mtu N` on the double's MTU file (only where the MTU is a file)
IP_FOR_FILE_MTU = """#!/bin/sh
# TEST DOUBLE of ip(8) for the NIC double's MTU files: dualrail_net/twin/nic_double.py
[ "$1 $2 $3 $5" = "link set dev mtu" ] || exit 1
echo "$6" > "$DUALRAIL_NIC_QOS_ROOT/sys/class/net/$4/mtu"
"""

FACTORY_PFC = "0 0 0 0 0 0 0 0"
# the double's folder inside a twin server's run directory (its drivers' state directory)
FOLDER = "nic-double"


@dataclass(frozen=True)
class NicDouble:
    """A built double: where its parts are, and the environment that points the program at it."""

    folder: Path

    @property
    def root(self) -> Path:
        return self.folder / "root"

    @property
    def state(self) -> Path:
        return self.folder / "state"

    def env(self) -> dict[str, str]:
        return {"DUALRAIL_NIC_QOS_ROOT": str(self.root), "DUALRAIL_NIC_DOUBLE_STATE": str(self.state),
                "PATH": f"{self.folder / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')}"}

    def run_program(self, program: Path, *args: str) -> list[str]:
        """The command that runs ``program`` (a nic-qos.sh) against this double."""
        return ["env", *(f"{key}={value}" for key, value in self.env().items()), "sh", str(program), *args]

    def trust(self, port: str) -> str:
        return (self.state / f"{port}.trust").read_text().strip()

    def set_trust(self, port: str, trust: str) -> None:
        """What a firmware update or a driver reload does: the port back to another trust."""
        (self.state / f"{port}.trust").write_text(f"{trust}\n")


def shell_prefix(folder: str) -> str:
    """The double's environment as a shell prefix for a command run on the twin's server (the
    driver knows the folder from the server's state directory); ``$PATH`` is left to that shell."""
    double = NicDouble(Path(folder))
    return (f"DUALRAIL_NIC_QOS_ROOT={shlex.quote(str(double.root))} "
            f"DUALRAIL_NIC_DOUBLE_STATE={shlex.quote(str(double.state))} "
            f"PATH={shlex.quote(str(double.folder / 'bin'))}:$PATH")


def planned_ports(program: str) -> list[tuple[str, str]]:
    """(port, RDMA device) of every port line of a rendered nic-qos.sh, read by verify's reader."""
    srv = ServerConfig(name="")
    read_nic_qos(program, srv)
    return [(port.ifname, port.rdma_device) for port in srv.nic_qos.values()]


def build(folder: Path, ports: list[tuple[str, str]], live_mtu: bool) -> NicDouble:
    """A factory-fresh double for ``ports`` under ``folder`` (made anew: an old one is replaced).
    ``live_mtu``: each port's MTU is the namespace's own (``/sys/class/net/<port>/mtu``, read where
    the program runs), else a file at 1500 with a stand-in ``ip`` that writes it."""
    for name in (n for port in ports for n in port):
        # each name is one path component under the double's folder (the plan's reader admits
        # [A-Za-z0-9_.:-]: "." and ".." would name a folder above the port's)
        if name in ("", ".", "..") or "/" in name:
            raise ValueError(f"NIC double: {name!r} cannot name a NIC port or RDMA device")
    double = NicDouble(folder)
    for sub in (double.root, double.state, folder / "bin"):
        sub.mkdir(parents=True, exist_ok=True)
    (double.state / "calls").write_text("")
    for port, rdma in ports:
        net = double.root / "sys/class/net" / port
        for kind in ("roce_np", "roce_rp"):
            enable = net / "ecn" / kind / "enable"
            enable.mkdir(parents=True, exist_ok=True)
            for prio in range(8):
                (enable / str(prio)).write_text("0\n")
        (net / "ecn/roce_np/cnp_dscp").write_text("0\n")
        (net / "ecn/roce_np/cnp_802p_prio").write_text("0\n")
        mtu = net / "mtu"
        if mtu.is_symlink() or mtu.exists():
            mtu.unlink()
        if live_mtu:
            mtu.symlink_to(f"/sys/class/net/{port}/mtu")
        else:
            mtu.write_text("1500\n")
        (double.root / "sys/class/infiniband" / rdma).mkdir(parents=True, exist_ok=True)
        tos = double.root / "sys/kernel/config/rdma_cm" / rdma / "ports/1"
        tos.mkdir(parents=True, exist_ok=True)
        (tos / "default_roce_tos").write_text("0\n")
        (double.state / f"{port}.trust").write_text("pcp\n")
        (double.state / f"{port}.pfc").write_text(FACTORY_PFC + "\n")
    tools = {"mlnx_qos": MLNX_QOS, **({} if live_mtu else {"ip": IP_FOR_FILE_MTU})}
    for name, text in tools.items():
        path = folder / "bin" / name
        path.write_text(text)
        path.chmod(0o755)
    return double
