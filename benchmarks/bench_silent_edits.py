"""Hunt for edits verify passes over in silence: one word of one line of a rendered file replaced
(an address by another, a number by another, a word by another word of the file or a keyword), or
the line deleted (--mode delete), a line of the same file of another device or server (or of this
one) inserted before it (--mode insert: a paste from the wrong place), the line swapped with the
next (--mode swap: order matters to FRR, ifupdown2 and the shell), its indentation changed (--mode
indent: EOS and NVUE's YAML read by it), or the file replaced whole by the file of the same name of
another device or server (--mode copy: a push to the wrong switch). After each edit the model checks
and the IB static checks run, and an edit after which they say nothing at all is printed for a
person to judge. Most such edits change nothing (a description, a `pre-down` command); the rest are
a reading to mend (docs/performance.md, fifty-second and fifty-third sessions). Prints each silent
edit and how many there were; with --passing, every edit verify passes (warnings only: exit 0), each
with the ids of what it said, since an outage that is only warned about passes the gate too.

    python3 benchmarks/bench_silent_edits.py --edits 800 --seed 1 [--mode word|delete|insert|swap|indent|copy] [--passing] [--build DIR ...]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot import load_inventory
from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.findings import Severity
from dualrail_net.verify.ib.static import run_static
from dualrail_net.verify.snapshot import load_snapshot

# not what a device or server reads: the build's bookkeeping, and the NCCL topology (XML)
SKIPPED_NAMES = {"manifest.json", "cabling.csv", "verified.json", ".dualrail-owned"}
SKIPPED_PARTS = {"resolved", "twin-substitutes"}
WORD = re.compile(r"[A-Za-z0-9_.:/-]+")
ADDRESS = re.compile(r"\d+\.\d+\.\d+\.\d+(/\d+)?")
KEYWORDS = ["on", "off", "true", "false", "yes", "no", "enable", "disable", "up", "down", "none"]


def files_of(build: Path) -> list[Path]:
    return sorted(p.relative_to(build) for p in build.rglob("*")
                  if p.is_file() and p.name not in SKIPPED_NAMES and not SKIPPED_PARTS & set(p.parts)
                  and p.suffix != ".xml")


def replacement(rng: random.Random, word: str, lines: list[str]) -> str:
    if ADDRESS.fullmatch(word):
        address, _, length = word.partition("/")
        octets = address.split(".")
        octets[rng.randrange(4)] = str(rng.choice([0, 1, 2, 9, 10, 100, 255]))
        return ".".join(octets) + (f"/{rng.choice([8, 24, 30, 31, 32])}" if length else "")
    if word.isdigit():
        n = int(word)
        return str(rng.choice([0, 1, 2, n + 1, max(0, n - 1), n * 2, 9000, 65535]))
    if rng.random() < 0.5:
        return rng.choice([m.group(0) for line in lines for m in re.finditer(r"[A-Za-z][A-Za-z0-9_-]+", line)])
    return rng.choice(KEYWORDS)


MODES = ("word", "delete", "insert", "swap", "indent", "copy")


def edit_once(rng: random.Random, text: str, mode: str, donors: list[str]) -> tuple[int, str, str] | None:
    """(line number, the line, what replaces it: one line, or two joined by a newline for an insert or
    a swap) or None when the line drawn has no word (or the edit changes nothing). ``donors``: the
    texts of the files of the same name elsewhere in the build, for an insert."""
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if WORD.search(line) and line.strip()[:1] not in ("#", "!")]
    if not candidates:
        return None
    i = rng.choice(candidates)
    if mode == "delete":
        return i + 1, lines[i], ""
    if mode == "swap":
        if i + 1 >= len(lines) or lines[i + 1] == lines[i]:
            return None
        return i + 1, lines[i], lines[i + 1] + "\n" + lines[i]
    if mode == "indent":  # (a paste that lost or gained its indentation: EOS, NVUE's YAML read it by it)
        body = lines[i].lstrip(" ")
        now = len(lines[i]) - len(body)
        new = " " * rng.choice([k for k in (0, 2, 3, 6, now + 2, now + 3) if k != now])
        return i + 1, lines[i], new + body
    if mode == "insert":
        donor = rng.choice(donors).split("\n")
        pasted = [line for line in donor if WORD.search(line) and line.strip()[:1] not in ("#", "!")]
        if not pasted:
            return None
        return i + 1, lines[i], rng.choice(pasted) + "\n" + lines[i]
    found = rng.choice(list(WORD.finditer(lines[i])))
    new = replacement(rng, found.group(0), lines)
    if new == found.group(0):
        return None
    return i + 1, lines[i], lines[i][:found.start()] + new + lines[i][found.end():]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edits", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", choices=MODES, default="word",
                    help="word: replace one word; delete: the line; insert: a line of the same file elsewhere "
                         "before it; swap: the line with the next; indent: the line's indentation; copy: the file by "
                         "another device's of the same name")
    ap.add_argument("--delete", action="store_true", help="the same as --mode delete")
    ap.add_argument("--passing", action="store_true",
                    help="print the edits verify passes (warnings only, exit 0) with the warnings' check ids, "
                         "not only those with no finding at all: an outage among them passes the gate")
    ap.add_argument("--build", type=Path, action="append", default=[],
                    help="a build folder (repeatable; default: the example, rendered)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    silent: list[tuple[str, int, str, str]] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        builds = args.build
        if not builds:
            builds = [Path(tmp) / "example"]
            write_artifacts(render_fabric(resolve_fabric(load_inventory(Path("inventory")).inventory)), builds[0])
        files = {build: files_of(build) for build in builds}
        mode = "delete" if args.delete else args.mode
        same_name: dict[tuple[Path, str], list[Path]] = {}
        for build, rels in files.items():
            for rel in rels:
                same_name.setdefault((build, rel.name), []).append(rel)
        done = 0
        while done < args.edits:
            build = rng.choice(builds)
            rel = rng.choice(files[build])
            text = (build / rel).read_text()
            peers = same_name[(build, rel.name)]
            donors = [(build / other).read_text() for other in rng.sample(peers, min(3, len(peers)))] \
                if mode == "insert" else []
            if mode == "copy":  # the file of the same name of another device or server, whole (a mis-push)
                others = [other for other in same_name[(build, rel.name)] if (build / other).read_text() != text]
                if not others:
                    continue
                other = rng.choice(others)
                made: tuple[int, str, str] | None = (0, str(other), (build / other).read_text())
            else:
                made = edit_once(rng, text, mode, donors)
            if made is None:
                continue
            done += 1
            number, old, new = made
            work = Path(tmp) / "edited"
            shutil.copytree(build, work, symlinks=True)
            if mode == "copy":
                (work / rel).write_text(new)
                new = f"(the file of {old})"
            else:
                lines = (work / rel).read_text().split("\n")
                # (a swap's two lines replace the line and the next; an insert's, the line alone)
                lines[number - 1:number + (mode == "swap")] = new.split("\n")
                (work / rel).write_text("\n".join(lines))
            results = run_checks(load_snapshot(work)) + run_static(work)
            found = [f for r in results for f in r.findings]
            if not any(f.severity is Severity.ERROR for f in found) and (args.passing or not found):
                label = build.parent.name if build.name == "build" else build.name  # (a variant's build/)
                shown = (old, new) if mode == "indent" else (old.strip(), new.strip())  # (the indentation is the edit)
                said = ",".join(sorted({f.check for f in found}))
                silent.append((f"{label}/{rel}" + (f" [{said}]" if said else ""), number, *shown))
            shutil.rmtree(work)
    for where, number, old, new in silent:
        print(f"{where}:{number}: {old[:100]!r} -> {new[:100]!r}")
    what = "passed (no error)" if args.passing else "with no finding"
    print(f"seed {args.seed}, {mode}: {args.edits} edits, {len(silent)} {what}, {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
