"""What FRR's vtysh does with an frr.conf, asked of the real vtysh (``vtysh --dryrun``).

vtysh's file reader is what loads frr.conf on a switch (`vtysh -b`). Its exit status is no proof:
after a top-level `exit` it refuses every later line and may still exit 0, and a second `exit`
there ends it without a word and with exit 0, so the lines after it are never read (measured, FRR
8.4). To see where it stopped, a line no command completes follows each line of the file it is
given: refused where it stands, it changes no node, and the last one vtysh refused is the last
line of the file it read.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

READ_MARK = "dualrail-read-mark"  # no FRR command completes it
_REPORT = re.compile(r"^line (\d+): (%[^\n]*)", re.M)


def refusals(config: str, work: Path, vtysh: str = "vtysh") -> dict[int, str]:
    """The lines of ``config`` vtysh refuses or never reads, by line number, each with what it said
    (``work``: a folder for the probe file)."""
    lines = config.split("\n")  # (as vtysh and the reader number them: a form feed is no line break)
    path = work / "frr-dryrun.conf"
    path.write_text("".join(f"{line}\n{READ_MARK}\n" for line in lines))
    try:
        r = subprocess.run([vtysh, "--dryrun", "-f", str(path)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return {1: "line 1: vtysh did not finish reading the file in 60 s"}
    out: dict[int, str] = {}
    read = 0  # the last line of the file vtysh read
    for n, why in _REPORT.findall(r.stdout + r.stderr):
        number = int(n)
        if number % 2 == 0:
            read = max(read, number // 2)
        elif 0 < (number + 1) // 2 <= len(lines):
            out[(number + 1) // 2] = f"line {(number + 1) // 2}: {lines[(number - 1) // 2].strip()} (refused by vtysh: {why.strip()})"
    for number in range(read + 2, len(lines) + 1):  # (line read + 1 is the one that ended it)
        text = lines[number - 1].strip()
        if text and text[0] not in "!#" and text != "end":
            out[number] = f"line {number}: {text} (never read: vtysh ended at line {read + 1})"
    return out
