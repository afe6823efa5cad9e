"""The deploy-driver contract (NAPALM's lifecycle): load a full replacement and see the diff, commit
it with a revert timer the *device* enforces, confirm it once the post-checks pass, discard it (or let
the timer revert it) when they do not, roll back to a backup. Every platform's driver implements
``Driver``; firmware is a separate protocol, ``FirmwareDriver``, checked with isinstance before a
firmware run starts, so a platform without it is refused up front instead of failing mid-run."""

from __future__ import annotations

import difflib
import re
import secrets
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from dualrail_net.verify.model import DeviceConfig


class PushRejected(Exception):
    """The device refused the configuration (nothing of it is active after the driver returns)."""


class Driver(Protocol):
    name: str

    def intended(self) -> dict[str, str]:
        """The rendered files this device should run (file name -> text)."""
        ...

    def fetch(self) -> dict[str, str]:
        """The files the device runs now, by the same names (what a backup keeps)."""
        ...

    def load(self, files: dict[str, str]) -> str:
        """Stage ``files`` as a full replacement and return the diff against what runs; nothing is
        active yet. Raises PushRejected when the device refuses them (nothing staged remains)."""
        ...

    def commit(self, revert_after: float) -> None:
        """Activate what load() staged. The device itself puts the previous configuration back after
        ``revert_after`` seconds unless confirm() comes first (a lost session cannot strand it)."""
        ...

    def confirm(self) -> None:
        """Make the last commit permanent (stop the revert timer)."""
        ...

    def discard(self) -> None:
        """Drop what load() staged; after commit() and before confirm(): revert now."""
        ...

    def rollback(self, files: dict[str, str]) -> None:
        """Replace the running configuration with ``files`` (a backup), at once and for good."""
        ...

    def health(self) -> list[str]:
        """What is wrong now (BGP sessions not Established ...); empty when healthy."""
        ...

    def wait_healthy(self, timeout: float) -> list[str]:
        """health(), polled until it is empty or ``timeout`` seconds have passed."""
        ...

    def drain(self, vrf: str | None = None) -> None:
        """Make the fabric route around this device (it stays up); with ``vrf``, around that VRF's
        routing instance only (a multi-plane device drains one plane at a time)."""
        ...

    def undrain(self, vrf: str | None = None) -> None:
        """Take the drain back (of ``vrf`` only, if given)."""
        ...


@runtime_checkable
class FirmwareDriver(Protocol):
    """A driver that can also change the device's operating system image."""

    def running_version(self) -> str: ...
    def install_image(self, image: str) -> None: ...
    def reboot(self) -> None: ...


@runtime_checkable
class RouteReader(Protocol):
    """A driver that can print one VRF's BGP routes with their next hops (the live audit's ECMP
    width), as JSON in ``route_format`` ("frr" or "eos"; the audit reads both). ``vrf`` None: the
    default VRF (a single-plane switch); a name: that VRF (a gateway's plane)."""

    route_format: str

    def bgp_routes(self, vrf: str | None = None) -> str: ...


@runtime_checkable
class PfcReader(Protocol):
    """A switch driver that can print the lossless (PFC) priorities in force per port, as text in
    ``pfc_format`` (audit/qos.PFC_READERS: "sonic", ``show pfc priority``; "eos-running-config",
    ``show running-config``; "nvue-applied", NVUE's applied revision). ``fetched``: what ``fetch()``
    returned in the same collection: a platform whose PFC in force is the configuration it runs
    reads it there instead of asking the switch a second time."""

    pfc_format: str

    def pfc_in_force(self, fetched: Mapping[str, str] | None = None) -> str: ...


_VRF_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}")


def checked_vrf(vrf: str) -> str:
    """A VRF name about to reach a device's shell or CLI: only the names Linux accepts for a VRF
    device pass (the build names them after the plane)."""
    if not _VRF_NAME.fullmatch(vrf):
        raise ValueError(f"not a VRF name: {vrf[:40]!r}")
    return vrf


def frr_route_command(vrf: str | None) -> str:
    """FRR's command for one VRF's BGP routes in JSON (None: the default VRF)."""
    return "show ip route bgp json" if vrf is None else f"show ip route vrf {checked_vrf(vrf)} bgp json"


def run_shell(conn: Any, command: str, timeout: float = 30) -> tuple[int, str]:
    """(exit status, output) of one shell command over a netmiko ``linux`` session: the status is
    echoed after the output behind a marker unique to this call (255 when it cannot be read back).

    The read ends at the marker and the prompt line after it, not at a prompt netmiko searches for:
    its prompt search sleeps a quarter second or more per command. Reading on to the prompt leaves
    nothing in the session for the next command (a prompt left behind would end a later
    prompt-terminated read at once). A marker of its own per call means output a timed-out earlier
    command left in the session can never be taken for this command's status."""
    marker = f"__RC_{secrets.token_hex(4)}="
    out: str = conn.send_command(f"{command}; echo {marker}$?", read_timeout=timeout,
                                 expect_string=r"(?s)" + re.escape(marker) + r"\d+\s.*[#$>]\s*$")
    body, found, rc = out.rpartition(marker)
    try:
        if not found:
            raise ValueError(marker)
        return int(rc.strip().split()[0]), body
    except (ValueError, IndexError):
        return 255, out


def split_status(command: str) -> tuple[str, str | None]:
    """For the test doubles of a device's shell: (the command, its status marker) of a run_shell
    line, or (the line, None) for a line sent otherwise."""
    found = re.fullmatch(r"(?s)(.*); echo (__RC_[0-9a-f]{8}=)\$\?", command)
    return (found.group(1), found.group(2)) if found else (command, None)


def run_checked(conn: Any, command: str, what: str, device: str, timeout: float = 300) -> str:
    """run_shell's output, or PushRejected naming ``what`` failed (with the output's end)."""
    rc, out = run_shell(conn, command, timeout)
    if rc != 0:
        raise PushRejected(f"{device}: {what} failed: {out.strip()[-300:]}")
    return out


def sftp_upload(conn: Any, text: str, dest: str, device: str, mode: int | None = None) -> None:
    """``text`` to ``dest`` by SFTP over the SSH session netmiko opened (its host key already
    verified), written beside and renamed into place so a reader never sees half a file. ``mode``:
    set before a byte is written (a file that holds a pushed secret is never readable by others,
    not even for a moment)."""
    try:
        sftp = conn.remote_conn_pre.open_sftp()
        try:
            with sftp.file(dest + ".part", "w") as fh:
                if mode is not None:
                    fh.chmod(mode)
                fh.write(text)
            sftp.posix_rename(dest + ".part", dest)
        finally:
            sftp.close()
    except OSError as exc:
        raise PushRejected(f"{device}: upload of {dest} failed: {exc}") from exc


def image_url(host: Any, version: str) -> str:
    """Where a real switch gets ``version``: the playbook's URL for the host's platform (the runner
    puts the playbook's ``image_urls`` in ``host.data``), with {version} filled in. A platform the
    playbook gives no URL for is refused before anything is sent."""
    urls: dict[str, str] = host.data.get("image_urls") or {}
    template = urls.get(host.data.get("platform", ""))
    if not template:
        raise PushRejected(f"{host.name}: the playbook has no image_urls entry for platform "
                           f"{host.data.get('platform')!r}")
    if not re.fullmatch(r"[A-Za-z0-9._+-]{1,64}", version):
        raise PushRejected(f"{host.name}: {version!r} is not an image version")
    url = template.replace("{version}", version)
    if not re.fullmatch(r"(https?|ftp|scp|file)://[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]+", url) or "'" in url:
        raise PushRejected(f"{host.name}: image URL {url!r} is not a plain URL")
    return url


def revert_timer(seconds: float) -> str:
    """``seconds`` as HH:MM:SS (at least one second): the commit timer's spelling on EOS."""
    total = max(1, int(round(seconds)))
    return f"{total // 3600:02d}:{total % 3600 // 60:02d}:{total % 60:02d}"


def unified_diff(running: dict[str, str], intended: dict[str, str]) -> str:
    out: list[str] = []
    for name in sorted(set(running) | set(intended)):
        out += difflib.unified_diff(running.get(name, "").splitlines(keepends=True),
                                    intended.get(name, "").splitlines(keepends=True),
                                    fromfile=f"running/{name}", tofile=f"intended/{name}")
    return "".join(out)


class BackupRefused(PushRejected):
    """A backup folder that is not as this tool writes one (a symbolic link in its path or in it)."""


def _refuse_links(root: Path | None, folder: Path) -> None:
    """No folder from ``root`` (exclusive: the operator's choice) down to ``folder`` may be a
    symbolic link: one planted there would put a backup, filled-in secrets included, wherever it
    points, or feed a rollback a file of its choosing."""
    if root is None:
        return
    at = folder
    while at != root and at != at.parent:
        if at.is_symlink():
            raise BackupRefused(f"{at} is a symbolic link; backups are never written or read through one")
        at = at.parent


def write_backup(folder: Path, files: dict[str, str], root: Path | None = None) -> Path:
    """Backups are never overwritten: a new folder per run and device, refused if it exists, each
    file created exclusively (never through a link); ``root``: the backups folder (_refuse_links)."""
    _refuse_links(root, folder.parent)
    folder.mkdir(parents=True, exist_ok=False)
    for name, text in files.items():
        with open(folder / name, "x", encoding="utf-8") as out:
            out.write(text)
    return folder


def keep_in_backup(folder: Path, name: str, text: str, root: Path | None = None) -> None:
    """One more file of a device's backup (the image it ran before a firmware run), written once:
    a resumed run finds the first one's (the device may already run the new image by then)."""
    _refuse_links(root, folder)
    try:
        with open(folder / name, "x", encoding="utf-8") as out:
            out.write(text)
    except FileExistsError:
        if (folder / name).is_symlink():
            raise BackupRefused(f"{folder / name} is a symbolic link, not a file this tool wrote") from None


def read_backup_file(folder: Path, name: str, root: Path | None = None) -> str | None:
    """One file of a backup (None: there is none); a symbolic link is refused (read_backup)."""
    _refuse_links(root, folder / name)
    path = folder / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def read_backup(folder: Path, root: Path | None = None) -> dict[str, str]:
    """The files of a backup folder. A symbolic link in it (this tool writes none) refuses the
    whole backup: a rollback from a file of someone else's choosing, or from part of the backup,
    is no rollback."""
    _refuse_links(root, folder)
    files = {}
    for path in sorted(folder.iterdir()):
        if path.is_symlink():
            raise BackupRefused(f"{path} is a symbolic link, not a file this tool wrote: the backup is not restored")
        if path.is_file():
            files[path.name] = path.read_text(encoding="utf-8")
    return files


def poll_healthy(health: Callable[[], list[str]], timeout: float, interval: float = 1.0) -> list[str]:
    """``health()`` until it finds nothing or ``timeout`` seconds have passed: what wait_healthy is."""
    deadline = time.monotonic() + timeout
    while True:
        problems = health()
        if not problems or time.monotonic() > deadline:
            return problems
        time.sleep(interval)


def prepend_commands(dev: DeviceConfig, drain: bool, vrf: str | None = None) -> list[str]:
    """The route-map lines that drain a switch (prepend its ASN three times on every entry of every
    out-policy; with ``vrf``, of that VRF's instance only) or take the drain back; the same CLI on
    FRR and EOS."""
    cmds: list[str] = []
    for inst in dev.bgp.values():
        if vrf is not None and inst.vrf != vrf:
            continue
        for name in sorted({n.route_map_out for n in inst.neighbors.values() if n.route_map_out}):
            for entry in dev.route_maps.get(name, []):
                cmds += [f"route-map {name} {entry.action} {entry.seq}",
                         f"set as-path prepend {inst.asn} {inst.asn} {inst.asn}" if drain
                         else "no set as-path prepend", "exit"]
    return cmds
