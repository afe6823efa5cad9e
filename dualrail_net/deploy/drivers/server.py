"""A GPU server's fabric files over SSH (netmiko ``linux``): the per-NIC-port interfaces file
(ifupdown2), ``nccl.env`` (with the model's ``nccl-topo.xml``), ``sysctl.conf``, and the NIC QoS program ``nic-qos.sh`` with its systemd
unit (applied at once, and at every boot).

The push machinery is the Linux switch driver's (SFTP upload, ``<file>.dualrail-prev``, a revert
job on the host that a confirm disarms); what differs is what a server takes, how it applies each
file, and what "healthy" means: every NIC port reaches its leaf (a ping from the port's own
address to the next hop of its own routing table). A server has no routing to steer, so there is
nothing to drain: it stays safe because its change is applied one plane's ports at a time
(``deploy --scope servers``, deploy/vrfstage.port_units)."""

from __future__ import annotations

from typing import Any

from dualrail_net.platforms.cumulus.driver import CumulusDriver
from dualrail_net.render.servers import HOST_PATHS
from dualrail_net.twin import nic_double
from dualrail_net.verify.parsers.ifupdown import read_interfaces, server_policy

# where a server keeps each file (render/servers.HOST_PATHS: nccl.env names the topology file's path);
# a path key is the rendered file's name. The topology file is pushed where the model renders one.
SERVER_PATHS = {**HOST_PATHS, "state_dir": "/var/lib/dualrail"}
SERVER_FILES = tuple((name, name) for name in HOST_PATHS)
PROBE_SCRIPT = "reachability.sh"


def port_gateways(interfaces_text: str) -> list[tuple[str, str, str]]:
    """(port, its address, the next hop of its own table) of every addressed NIC port: what the
    reachability gate pings."""
    parsed = read_interfaces(interfaces_text)
    routes, rules = server_policy(parsed.commands)
    table_of = {rule.source: rule.table for rule in rules if not rule.delete}
    out = []
    for name, iface in parsed.interfaces.items():
        for address in iface.addresses:
            source = address.split("/")[0]
            table = table_of.get(source)
            via = next((r.via for r in routes if r.dev == name and r.prefix == "default" and r.table == table
                        and r.via and r.verb != "delete"), None)
            if via is not None:
                out.append((name, source, via))
    return out


class ServerDriver(CumulusDriver):
    managed_files = SERVER_FILES

    def __init__(self, host: Any, connection: Any) -> None:
        super().__init__(host, connection)
        self.twin = bool(host.data.get("twin"))

    def _apply_commands(self, name: str, path: str) -> list[str]:
        if name == "interfaces":  # (as a switch's: ifupdown2, its state private to each twin run)
            return super()._apply_commands(name, path)
        if name == "sysctl.conf":
            return [f"sysctl -q -p {path} >/dev/null 2>&1"]
        if name == "nic-qos.sh":
            # the twin's NICs are veths without QoS: there the program sets a double of the NICs
            # (twin/nic_double.py), as it sets a real host's
            return [f"{self._nic_double()} sh {path} >/dev/null 2>&1"] if self.twin \
                else [f"chmod 755 {path} && {path} >/dev/null 2>&1"]
        if name == "dualrail-nic-qos.service":
            # the twin's namespaces run no systemd: the unit is placed, and enabled on real servers
            return [] if self.twin else ["systemctl daemon-reload && systemctl enable dualrail-nic-qos.service "
                                         ">/dev/null 2>&1"]
        return []  # nccl.env and nccl-topo.xml: read by the next job that starts

    def _nic_double(self) -> str:
        """The twin's NIC double as an environment prefix (it lives in the server's state folder)."""
        return nic_double.shell_prefix(f"{self.paths['state_dir']}/{nic_double.FOLDER}")

    def nic_qos_in_force(self) -> str | None:
        """What the installed NIC QoS program's dry run says is not in force (audit/qos.py reads
        it); on the twin, of its NIC double. None: a server without the program in its build. A
        program missing on the host says so in the program's own words."""
        path = self.paths.get("nic-qos.sh")
        if path is None or "nic-qos.sh" not in self.intended():
            return None
        prefix = f"{self._nic_double()} " if self.twin else ""
        rc, out = self._run(f"test -f {path} && {prefix}sh {path} --dry-run", timeout=120)
        if rc != 0 and not out.strip():
            return f"would set {path} (not possible here: the program is not installed)"
        return out

    def health(self) -> list[str]:
        """Every NIC port whose leaf (its table's next hop) does not answer on the port's own link."""
        ports = port_gateways(self.fetch().get("interfaces", ""))
        if not ports:
            return [f"{self.name}: no addressed NIC port to check"]
        # -r: straight out of the port to an attached neighbour, no routing table (a next hop that is
        # not the leaf at the port's other end fails even when the fabric could route to it)
        probe = "".join(f"ping -n -q -r -c 1 -W 1 -I {port} {via} >/dev/null 2>&1 || echo DOWN {port} {src} {via}\n"
                        for port, src, via in ports)
        # as a script file: one long command line wraps in the terminal and defeats netmiko's echo check
        script = self._state(PROBE_SCRIPT)
        self._run(f"mkdir -p {self._state('')}")
        self._upload(probe, script)
        _rc, out = self._run(f"sh {script}", timeout=10 + 2 * len(ports))
        return [f"{self.name}: {words[1]} ({words[2]}) does not reach its leaf {words[3]}"
                for words in (line.split() for line in out.splitlines()) if words[:1] == ["DOWN"] and len(words) == 4]

    def drain(self, vrf: str | None = None) -> None:
        """Nothing to steer: a server's safety is one plane's ports at a time."""

    def undrain(self, vrf: str | None = None) -> None:
        """Nothing was drained."""
