"""Reading ahead: ask the kernel to start reading a rendered folder's files before the parsers get
to them.

Verification reads every file of the folder once (~900 MB at 100k GPUs) in a fixed order. Where
those files are not in the page cache (written a while ago, or evicted: machines that reclaim idle
page cache pay a disk read per file), the parsers wait for each read in turn. A daemon thread
walks the same folders in the same order and gives each regular file ``POSIX_FADV_WILLNEED``,
which queues its read and returns: the disk then works while the parsers compute, and a parser
finds its file in memory. Nothing is read into Python and nothing changes what is parsed (the
plain path is the same run without the thread). Symbolic links are not followed: the folder's own
files only."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

_ADVISE = getattr(os, "posix_fadvise", None)  # (not on every OS: there the thread does nothing)


def read_ahead(folders: Iterable[Path]) -> None:
    """Advise the kernel to read every regular file directly in each of ``folders``, in order. A
    folder or file that is missing, unreadable or a symbolic link is passed over."""
    if _ADVISE is None:
        return
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
            except OSError:
                continue
            try:
                _ADVISE(fd, 0, 0, os.POSIX_FADV_WILLNEED)
            except OSError:
                pass
            finally:
                os.close(fd)


def start_read_ahead(folders: list[Path]) -> threading.Thread:
    """``read_ahead`` in a daemon thread (started; nothing waits for it)."""
    thread = threading.Thread(target=read_ahead, args=(folders,), name="dualrail-read-ahead", daemon=True)
    thread.start()
    return thread
