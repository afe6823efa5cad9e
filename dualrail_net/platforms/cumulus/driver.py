"""Cumulus Linux (and every FRR switch of the twin) over SSH with netmiko's ``linux`` driver.

Push: upload the rendered files, apply frr.conf with frr-reload.py (it fails, changing nothing, when
FRR rejects a line) and the interfaces file with ifreload (ifup in the twin's namespace), keep
the previous files (the caller backs them up first) so rollback is a push of the backup."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from dualrail_net.deploy.drivers.base import PushRejected
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers.frr import parse_frr

FRR_RELOAD = "/usr/lib/frr/frr-reload.py"


class CumulusDriver:
    def __init__(self, host: Any, connection: Any) -> None:
        self.host = host
        self.name: str = host.name
        self.conn = connection
        self.paths: dict[str, str | None] = host.data["paths"]
        self.twin = self.paths.get("vty_socket") is not None

    # -- helpers ---------------------------------------------------------------------------------
    def _run(self, command: str, timeout: float = 30) -> tuple[int, str]:
        out: str = self.conn.send_command(f"{command}; echo __RC=$?", read_timeout=timeout)
        body, _, rc = out.rpartition("__RC=")
        try:
            return int(rc.strip().split()[0]), body
        except (ValueError, IndexError):
            return 255, out

    def _vtysh(self) -> str:
        sock = self.paths.get("vty_socket")
        return f"vtysh --vty_socket {sock}" if sock else "vtysh"

    def _upload(self, text: str, dest: str) -> None:
        """SFTP over the same SSH session netmiko opened (host key already verified)."""
        try:
            sftp = self.conn.remote_conn_pre.open_sftp()
            try:
                with sftp.file(dest + ".part", "w") as fh:
                    fh.write(text)
                sftp.posix_rename(dest + ".part", dest)
            finally:
                sftp.close()
        except OSError as exc:
            raise PushRejected(f"{self.name}: upload of {dest} failed: {exc}") from exc

    # -- driver API ------------------------------------------------------------------------------
    def intended(self) -> dict[str, str]:
        folder = Path(self.host.data["twin_dir"] if self.twin else self.host.data["device_dir"])
        return {name: (folder / name).read_text() for name in ("frr.conf", "interfaces")}

    def fetch(self) -> dict[str, str]:
        out = {}
        for name, key in (("frr.conf", "frr_conf"), ("interfaces", "interfaces")):
            rc, text = self._run(f"cat {self.paths[key]}")
            out[name] = text.lstrip("\n") if rc == 0 else ""
        return out

    def push(self, files: dict[str, str]) -> None:
        frr_path = str(self.paths["frr_conf"])
        running = self.fetch()
        if "frr.conf" in files and files["frr.conf"] != running.get("frr.conf"):
            staged = frr_path + ".dualrail-new"
            self._upload(files["frr.conf"], staged)
            opts = ""
            if self.twin:
                d = self.paths["frr_dir"]
                opts = f"--bindir /usr/bin --confdir {d} --rundir {d} --vty_socket {self.paths['vty_socket']}"
            rc, out = self._run(f"python3 {FRR_RELOAD} --reload --stdout {opts} {staged}", timeout=300)
            # "Failed to execute" lines are frr-reload retrying shorter "no" forms; the exit code and
            # its own validation message are what say the new file was refused.
            if rc != 0 or "vtysh failed to process new configuration" in out:
                # frr-reload applies nothing it could not parse; put the running file back to be sure
                self._run(f"rm -f {staged}")
                raise PushRejected(f"{self.name}: FRR rejected the config: {out.strip()[-300:]}")
            self._run(f"mv {staged} {frr_path}")
            if self.twin:
                self._restore_twin_settings()
        if "interfaces" in files and files["interfaces"] != running.get("interfaces"):
            path = str(self.paths["interfaces"])
            self._upload(files["interfaces"], path)
            if self.twin:
                cmd = (f"unshare -m sh -c 'mkdir -p /run/network && mount -t tmpfs none /run/network && "
                       f"ifup -a -i {path}'")
            else:
                cmd = "ifreload -a"
            rc, out = self._run(cmd, timeout=300)
            if rc != 0:
                raise PushRejected(f"{self.name}: interfaces reload failed: {out.strip()[-300:]}")

    def _restore_twin_settings(self) -> None:
        """The twin's runtime settings (its <daemon>-twin.conf start-up files) are not part of the
        rendered config, so frr-reload just removed them: put them back."""
        rc, text = self._run(f"cat {self.paths['frr_dir']}/*-twin.conf")
        lines = [line.strip() for line in text.splitlines() if line.strip()] if rc == 0 else []
        if lines:
            args = " ".join(f"-c '{line}'" for line in lines)
            self._run(f"{self._vtysh()} -c 'configure terminal' {args}")

    def health(self) -> list[str]:
        rc, out = self._run(f"{self._vtysh()} -c 'show bgp summary json'")
        try:
            peers = json.loads(out).get("ipv4Unicast", {}).get("peers", {})
        except json.JSONDecodeError:
            return [f"{self.name}: cannot read BGP state ({out.strip()[:100]})"]
        expected = self._expected_neighbors()
        problems = [f"{self.name}: {addr} is {peers.get(addr, {}).get('state', 'not configured')}"
                    for addr in sorted(expected) if peers.get(addr, {}).get("state") != "Established"]
        return problems

    def wait_healthy(self, timeout: float = 60) -> list[str]:
        deadline = time.monotonic() + timeout
        while True:
            problems = self.health()
            if not problems or time.monotonic() > deadline:
                return problems
            time.sleep(1)

    def _expected_neighbors(self) -> set[str]:
        dev = DeviceConfig(self.name, "cumulus")
        parse_frr(self.intended()["frr.conf"], dev)
        return {a for inst in dev.bgp.values() for a in inst.neighbors}

    # -- firmware ----------------------------------------------------------------------------------
    def firmware_marker(self) -> str:
        return f"{self.paths['frr_dir']}/firmware-version" if self.twin else "/etc/dualrail-firmware-version"

    def running_version(self) -> str:
        rc, out = self._run(f"cat {self.firmware_marker()}")
        return out.strip() if rc == 0 else ""

    def install_image(self, image: str) -> None:
        """Twin: an image is a version marker. Real switches: onie/`nv action install` goes here."""
        if not self.twin:
            raise PushRejected(f"{self.name}: image installation on real Cumulus switches is not implemented")
        rc, out = self._run(f"printf '%s\\n' '{image}' > {self.firmware_marker()}.new")
        if rc != 0:
            raise PushRejected(f"{self.name}: cannot stage image {image}: {out.strip()[:200]}")

    def reboot(self) -> None:
        """Twin: restart the routing daemons (the sessions really drop); the staged image becomes
        the running version when the box comes back."""
        marker = self.firmware_marker()
        self._run(f"[ -f {marker}.new ] && mv {marker}.new {marker} || true")
        rc, out = self._run(f"sh {self.paths['frr_dir']}/restart-routing.sh", timeout=120)
        if rc != 0:
            raise PushRejected(f"{self.name}: restart failed: {out.strip()[-200:]}")

    def drain(self) -> None:
        """Make the fabric route around this switch before it changes: prepend our ASN three times
        on everything we advertise (the rendered out-policy still filters first). Pushing the rendered
        config afterwards removes the drain (undrain = converge to the rendered config)."""
        dev = DeviceConfig(self.name, "cumulus")
        parse_frr(self.intended()["frr.conf"], dev)
        cmds = ["configure terminal"]
        for inst in dev.bgp.values():
            for name in {n.route_map_out for n in inst.neighbors.values() if n.route_map_out}:
                for entry in dev.route_maps.get(name, []):
                    cmds += [f"route-map {name} {entry.action} {entry.seq}",
                             f"set as-path prepend {inst.asn} {inst.asn} {inst.asn}", "exit"]
        args = " ".join(f"-c '{c}'" for c in cmds)
        rc, out = self._run(f"{self._vtysh()} {args}")
        if rc != 0:
            raise PushRejected(f"{self.name}: drain failed: {out.strip()[:200]}")
        self._run(f"{self._vtysh()} -c 'clear bgp * soft out'")
