"""sshd inside a switch namespace, on its management address: key-only root login with throwaway
keys, and a known_hosts file so clients verify host keys (nothing is trusted blindly)."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

from dualrail_net.twin.shell import in_ns, run


@dataclass(frozen=True)
class Keys:
    folder: Path
    host_key: Path
    client_key: Path
    known_hosts: Path


def make_keys(folder: Path) -> Keys:
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    keys = Keys(folder, folder / "ssh_host_ed25519_key", folder / "id_ed25519", folder / "known_hosts")
    for key in (keys.host_key, keys.client_key):
        if not key.exists():
            run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "dualrail-twin", "-f", str(key)])
    (folder / "authorized_keys").write_text(Path(str(keys.client_key) + ".pub").read_text())
    os.chmod(folder / "authorized_keys", 0o600)
    return keys


def write_known_hosts(keys: Keys, addresses: list[str]) -> None:
    pub = " ".join(Path(str(keys.host_key) + ".pub").read_text().split()[:2])
    keys.known_hosts.write_text("".join(f"{a} {pub}\n" for a in addresses))


def start(ns: str, hostname: str, rundir: Path, address: str, keys: Keys) -> None:
    Path("/run/sshd").mkdir(exist_ok=True)
    config = rundir / "sshd_config"
    config.write_text("\n".join([
        f"ListenAddress {address}",
        f"HostKey {keys.host_key}",
        f"PidFile {rundir}/sshd.pid",
        f"AuthorizedKeysFile {keys.folder}/authorized_keys",
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "StrictModes no",
        "Subsystem sftp internal-sftp",
        "",
    ]))
    in_ns(ns, ["unshare", "--uts", "sh", "-c", f"hostname {hostname}; exec /usr/sbin/sshd -f {config}"])


def stop(rundir: Path) -> None:
    pidfile = rundir / "sshd.pid"
    try:
        pid = int(pidfile.read_text().strip())
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError):
        pass
    pidfile.unlink(missing_ok=True)
