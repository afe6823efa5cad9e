"""Output folders we own: write only there, delete only what we wrote, never follow a symlink.

A folder is ours when we created it (it did not exist or was empty) or when it holds our marker file
(``.dualrail-owned``, JSON: who wrote it and every file it wrote). Rules, each a one-line refusal:

* the output may not be a file, a symlink, the inventory folder, inside it, or contain it, nor a
  repository root (a folder with ``.git``);
* a non-empty folder without our marker is refused (it is somebody else's files);
* inside the folder no symlink is ever followed: every directory is opened relative to its parent with
  ``O_NOFOLLOW`` and every file is opened, replaced and removed relative to its directory, so a link
  planted anywhere under the folder stops the write instead of redirecting it;
* a file at a path we would write that our marker does not list (somebody put it there) is refused,
  not overwritten;
* on a re-render only the files the previous marker listed and this render no longer produces are
  removed (then their directories, if empty).

Every refusal is looked for before the first write (``_refuse_before_writing``), so a refused write
changes nothing; the write still checks each path as it goes (a link planted in between is refused
there, part-way, and said so).

The marker is written before the files (listing old and new, so an interrupted write still owns what
it wrote) and again after them (listing exactly the new files).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

MARKER = ".dualrail-owned"
MAX_MARKER_BYTES = 256 * 1024 * 1024
_SEGMENT = re.compile(r"[A-Za-z0-9_.+@=-]{1,128}")  # one path segment we may create


class OutputRefused(Exception):
    """The output folder cannot be used; the message is one line. ``usage``: the argument itself is
    wrong (exit 2) rather than the folder's state (exit 1)."""

    def __init__(self, message: str, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class WriteReport:
    written: int  # files whose bytes changed
    removed: int  # files of the previous write that are no longer produced
    foreign: int  # files in the folder that we did not write and left alone


def _q(path: Path | str) -> str:
    return repr(str(path))


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


LEGACY = object()  # a build of a dualrail-net from before the marker: ours, but it lists no files


def check_folder(out: Path, protected: Iterable[Path] = (), kind: str = "output",
                 protected_name: str = "the inventory") -> list[str] | None | object:
    """Refuse ``out`` when it is not a folder we may write (see the module text). Returns the files our
    marker lists; None when the folder is new or empty; LEGACY for a build from before the marker
    (a ``manifest.json`` of ours: its files may be rewritten, none is removed)."""
    if out.is_symlink():
        raise OutputRefused(f"{kind} folder {_q(out)} is a symlink; dualrail never writes through links "
                            "(pass the real path)", usage=True)
    if out.exists() and not out.is_dir():
        raise OutputRefused(f"{kind} folder {_q(out)} is a file, not a folder", usage=True)
    real = Path(os.path.realpath(out))
    for other in protected:
        guarded = Path(os.path.realpath(other))
        if _inside(real, guarded) or _inside(guarded, real):
            raise OutputRefused(f"{kind} folder {_q(out)} overlaps {protected_name} {_q(other)}; choose a folder "
                                "outside it (default: build/)", usage=True)
    if not out.exists():
        return None
    if (out / ".git").exists():
        raise OutputRefused(f"{kind} folder {_q(out)} is a repository root; choose a folder of its own "
                            "(default: build/)", usage=True)
    owned = read_marker(out)
    if owned is None and _legacy_build(out):
        return LEGACY
    if owned is None:
        with os.scandir(out) as entries:
            if any(True for _ in entries):
                raise OutputRefused(f"{kind} folder {_q(out)} is not empty and was not written by dualrail "
                                    f"(no {MARKER}); choose a new or empty folder, nothing was changed")
    return owned


def _legacy_build(out: Path) -> bool:
    try:
        data = read_owned(out, "manifest.json")
        return data is not None and str(json.loads(data).get("generator", "")).startswith("dualrail-net ")
    except (ValueError, AttributeError, OSError):
        return False


def read_marker(out: Path) -> list[str] | None:
    """The files our marker in ``out`` lists, or None when there is no marker. A marker that is a
    link, not ours or unreadable is refused (never trusted)."""
    try:
        fd = os.open(out / MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputRefused(f"{_q(out / MARKER)} cannot be read ({exc.strerror}); it is not ours") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MARKER_BYTES:
            raise OutputRefused(f"{_q(out / MARKER)} is not a marker dualrail wrote")
        data = b""
        while chunk := os.read(fd, 1 << 20):
            data += chunk
    finally:
        os.close(fd)
    try:
        doc = json.loads(data)
        files = doc["files"]
        if doc.get("owner") != "dualrail-net" or not isinstance(files, list) or \
                not all(isinstance(f, str) for f in files):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise OutputRefused(f"{_q(out / MARKER)} is not a marker dualrail wrote; remove the folder by hand "
                            "if it is a stale build") from None
    return [f for f in files if _valid_relpath(f)]


def _valid_relpath(rel: str) -> bool:
    parts = rel.split("/")
    return all(_SEGMENT.fullmatch(p) and p not in (".", "..") for p in parts)


class _Dirs:
    """Directory file descriptors under the output root, opened one segment at a time with
    O_NOFOLLOW (a symlinked directory raises instead of being entered). At most MAX_OPEN stay open
    (least recently used first out): a large build has tens of thousands of folders, more than a
    process may hold open; an fd does not need its parent's to stay valid."""

    MAX_OPEN = 128

    def __init__(self, root_fd: int, root: Path) -> None:
        self.root_fd = root_fd
        self.root = root
        self.open: OrderedDict[str, int] = OrderedDict({"": root_fd})

    def get(self, rel_dir: str, create: bool) -> int | None:
        fd = self.open.get(rel_dir)
        if fd is not None:
            self.open.move_to_end(rel_dir)
            return fd
        parent, _, name = rel_dir.rpartition("/")
        parent_fd = self.get(parent, create)
        if parent_fd is None:
            return None
        try:
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)
        except FileNotFoundError:
            if not create:
                return None
            os.mkdir(name, 0o755, dir_fd=parent_fd)
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise OutputRefused(f"{_q(self.root / rel_dir)} is a symlink or not a folder; dualrail never "
                                    "follows links in its output (remove it)") from None
            raise
        self.open[rel_dir] = fd
        while len(self.open) > self.MAX_OPEN:
            oldest = next(rel for rel in self.open if rel)  # never the root
            os.close(self.open.pop(oldest))
        return fd

    def close(self) -> None:
        for rel, fd in self.open.items():
            if rel:
                os.close(fd)
        self.open = OrderedDict({"": self.root_fd})


class NotRegular(Exception):
    """A path that is a symlink (``link`` true) or not a regular file: never read through."""

    def __init__(self, link: bool) -> None:
        super().__init__("a symlink" if link else "not a regular file")
        self.link = link


class TooLarge(Exception):
    """A regular file longer than its reader takes (``size``: at least that many bytes)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes")
        self.size = size


def read_regular(name: str | Path, dir_fd: int | None = None, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file, opened without following a link and without blocking on a
    FIFO; None when it does not exist; NotRegular for a link, a FIFO or a device; TooLarge for one
    longer than ``limit`` bytes (checked before reading and while reading: a file that grows is
    not followed past it). One primitive for every reader of our folders (this module, verify's
    file reader)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegular(link=True) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(link=False)
        if limit is not None and info.st_size > limit:
            raise TooLarge(info.st_size)
        chunks = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if limit is not None and total > limit:
                raise TooLarge(total)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_nofollow(dir_fd: int, name: str, shown: Path, limit: int | None = None) -> bytes | None:
    try:
        return read_regular(name, dir_fd, limit)
    except NotRegular as exc:
        if exc.link:
            raise OutputRefused(f"{_q(shown)} is a symlink; dualrail never follows links in its output "
                                "(remove it)") from None
        raise OutputRefused(f"{_q(shown)} is not a regular file; remove it") from None


def _write_replace(dir_fd: int, name: str, data: bytes) -> None:
    tmp = f".{name}.dualrail-tmp"
    try:
        os.unlink(tmp, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def _marker_bytes(files: Iterable[str]) -> bytes:
    return (json.dumps({"owner": "dualrail-net", "files": sorted(files)}, indent=0) + "\n").encode()


def write_owned(files: Mapping[str, str | bytes], out: Path, protected: Iterable[Path] = (),
                kind: str = "output", protected_name: str = "the inventory") -> WriteReport:
    """Write ``files`` (relative path -> content) into ``out`` by the rules of the module text.
    Files that already hold the same bytes are left untouched (mtime kept)."""
    state = check_folder(out, protected, kind, protected_name)
    for rel in files:
        if not _valid_relpath(rel) or rel == MARKER:
            raise OutputRefused(f"refusing to write {rel!r}: not a plain relative path")
    previous = state if isinstance(state, list) else None
    ours = set(previous or ())
    out.mkdir(parents=True, exist_ok=True)
    root_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    dirs = _Dirs(root_fd, out)
    written = removed = 0
    try:
        _refuse_before_writing(dirs, files, ours if previous is not None else None, out)
        _write_replace(root_fd, MARKER, _marker_bytes(ours | set(files)))
        for rel, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            folder, _, name = rel.rpartition("/")
            dir_fd = dirs.get(folder, create=True)
            assert dir_fd is not None
            old = _read_nofollow(dir_fd, name, out / rel)
            if old is not None and rel not in ours and previous is not None:
                raise OutputRefused(f"{_q(out / rel)} exists but dualrail did not write it; move it away "
                                    "(nothing after it was written)")
            if old == data:
                continue
            _write_replace(dir_fd, name, data)
            written += 1
        stale = sorted(ours - set(files))
        for rel in stale:
            folder, _, name = rel.rpartition("/")
            dir_fd = dirs.get(folder, create=False)
            if dir_fd is None:
                continue
            try:
                os.unlink(name, dir_fd=dir_fd)  # unlink never follows a link: it removes the link itself
                removed += 1
            except FileNotFoundError:
                pass
        dirs.close()
        for folder in sorted({rel.rpartition("/")[0] for rel in stale}, key=len, reverse=True):
            _remove_empty_dirs(root_fd, folder)
        _write_replace(root_fd, MARKER, _marker_bytes(files))
    finally:
        dirs.close()
        os.close(root_fd)
    foreign = sum(1 for _ in _walk_files(out)) - len(files)
    return WriteReport(written, removed, max(0, foreign))


def _refuse_before_writing(dirs: _Dirs, files: Iterable[str], ours: set[str] | None, out: Path) -> None:
    """Every refusal the write would meet, found before it writes anything (so a refused write
    changes nothing): a link or a non-folder where one of the files' folders is, a link or a
    non-regular file where a file goes, a file ``ours`` (the previous marker's list; None: a new or
    empty folder) does not list. The write keeps its own checks: this is not a lock (a link planted
    between the two is still refused, by the write, part-way)."""
    for rel in files:
        folder, _, name = rel.rpartition("/")
        try:
            dir_fd = dirs.get(folder, create=False)
        except OutputRefused as exc:
            raise OutputRefused(f"{exc}; nothing was changed") from None
        if dir_fd is None:
            continue  # (a folder still to be made holds nothing yet)
        try:
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode):
            raise OutputRefused(f"{_q(out / rel)} is a symlink; dualrail never follows links in its output "
                                "(remove it); nothing was changed")
        if not stat.S_ISREG(mode):
            raise OutputRefused(f"{_q(out / rel)} is not a regular file; remove it; nothing was changed")
        if ours is not None and rel not in ours:
            raise OutputRefused(f"{_q(out / rel)} exists but dualrail did not write it; move it away; "
                                "nothing was changed")


def _remove_empty_dirs(root_fd: int, folder: str) -> None:
    """Remove ``folder`` and its parents below the root while they are empty (never through a link)."""
    while folder:
        parent, _, name = folder.rpartition("/")
        dirs = _Dirs(root_fd, Path("."))
        try:
            parent_fd = dirs.get(parent, create=False)
            if parent_fd is None:
                return
            try:
                os.rmdir(name, dir_fd=parent_fd)
            except OSError:
                return
        except OutputRefused:
            return
        finally:
            dirs.close()
        folder = parent


def _walk_files(out: Path) -> Iterable[str]:
    """Every file and link under ``out`` (links are listed, never entered), relative, with '/'."""
    if not out.is_dir() or out.is_symlink():
        return
    for root, dirnames, names in os.walk(out, followlinks=False):
        base = Path(root).relative_to(out).as_posix()
        for name in names + [d for d in dirnames if os.path.islink(os.path.join(root, d))]:
            rel = name if base == "." else f"{base}/{name}"
            if rel != MARKER:
                yield rel


def list_files(out: Path) -> list[str]:
    return sorted(_walk_files(out))


def read_owned(out: Path, rel: str, limit: int | None = None) -> bytes | None:
    """The bytes of ``out/rel`` without following any link on the way (None when absent; TooLarge
    past ``limit`` bytes)."""
    return next(iter(read_owned_many(out, [rel], limit)))[1]


def read_owned_many(out: Path, rels: Iterable[str], limit: int | None = None) -> Iterator[tuple[str, bytes | None]]:
    """(rel, bytes) of each file under ``out``, read as read_owned reads one (None: absent, or not
    something to read: a link, a path outside), through one set of directory descriptors: drift
    and the verification digest read every file of a build."""
    root_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    dirs = _Dirs(root_fd, out)
    try:
        for rel in rels:
            data = None
            if _valid_relpath(rel):
                folder, _, name = rel.rpartition("/")
                try:
                    dir_fd = dirs.get(folder, create=False)
                    data = _read_nofollow(dir_fd, name, out / rel, limit) if dir_fd is not None else None
                except OutputRefused:
                    data = None
            yield rel, data
    finally:
        dirs.close()
        os.close(root_fd)


def add_owned(out: Path, rel: str, content: str | bytes) -> None:
    """Write one more file into a folder we own, and list it in the marker (so the next full write
    removes it if it does not produce it again: a re-render invalidates a verification stamp)."""
    owned = read_marker(out)
    if owned is None:
        raise OutputRefused(f"{_q(out)} is not a folder dualrail wrote (no {MARKER})")
    if not _valid_relpath(rel) or rel == MARKER:
        raise OutputRefused(f"refusing to write {rel!r}: not a plain relative path")
    root_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    dirs = _Dirs(root_fd, out)
    try:
        folder, _, name = rel.rpartition("/")
        dir_fd = dirs.get(folder, create=True)
        assert dir_fd is not None
        if _read_nofollow(dir_fd, name, out / rel) is not None and rel not in owned:
            raise OutputRefused(f"{_q(out / rel)} exists but dualrail did not write it; move it away")
        _write_replace(root_fd, MARKER, _marker_bytes(set(owned) | {rel}))
        _write_replace(dir_fd, name, content.encode() if isinstance(content, str) else content)
    finally:
        dirs.close()
        os.close(root_fd)


class ReportFileError(Exception):
    """A report path we will not write: one line that says why."""


def write_report(path: Path, content: str, signature: str) -> None:
    """Write one report file the user named (``--html FILE``): atomically, never through a symlink,
    and never over a file we did not write (an existing file must start with ``signature``, the
    first line every report of that kind carries)."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_symlink():
        raise ReportFileError(f"{_q(path)} is a symlink: not followed, not replaced")
    if path.exists():
        if not path.is_file():
            raise ReportFileError(f"{_q(path)} exists and is not a regular file")
        head = read_regular(path) or b""
        if not head.startswith(signature.encode()):
            raise ReportFileError(f"{_q(path)} exists and was not written by dualrail-net: not overwritten "
                                  "(move it away or choose another name)")
    if not content.startswith(signature):
        raise ValueError("a report must start with its signature")
    parent.mkdir(parents=True, exist_ok=True)
    dir_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        _write_replace(dir_fd, path.name, content.encode())
    finally:
        os.close(dir_fd)
