"""What sits in a build's device and server folders that the build did not write.

A deploy pushes exactly the files the manifest lists for each device and server, and verify reads
exactly those: a file added by hand beside them (``frr.conf.orig``, a second config), or a device
or server folder the plan does not have, is neither verified nor deployed. Left unsaid, an operator
would take it as checked; it is reported instead (BUILD-FOREIGN-FILE). Only the folders a deploy
reads are looked at (each device's and server's folder, and the folders that hold them): the top
of the output folder may keep foreign files (a JUnit report, notes), which a render leaves alone."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from dualrail_net.manifest import Manifest


def foreign_entries(root: Path, manifest: Manifest) -> list[str]:
    """The paths (relative to ``root``, sorted; a folder ends in '/') of the entries of the device and
    server folders that the manifest does not list, and of the folders holding them that are no
    device or server of the manifest. Links are entries like any other (never followed); a folder
    that cannot be listed is passed over (the parsers report a missing file)."""
    entries = [(entry.dir, entry.files) for entry in manifest.devices.values()]
    entries += [(entry.dir, entry.files) for entry in manifest.servers.values()]
    expected: dict[str, set[str]] = {}  # folder -> the names the manifest expects in it
    for folder, _ in entries:
        parent, _, name = folder.rpartition("/")
        if parent:  # (the top of the output folder is not looked at)
            expected.setdefault(parent, set()).add(name)
    for folder, files in entries:
        expected.setdefault(folder, set()).update(files)
    out = []
    for folder in sorted(expected):
        try:
            extra = set(os.listdir(root / folder)) - expected[folder]
        except OSError:
            continue
        for name in extra:
            try:
                is_dir = stat.S_ISDIR(os.lstat(root / folder / name).st_mode)
            except OSError:
                is_dir = False
            out.append(f"{folder}/{name}{'/' if is_dir else ''}")
    return sorted(out)
