"""Hand the rendered files to the programs that will really consume them.

* ``frr.conf``: FRR's own parser, ``vtysh --dryrun -f FILE`` (``verify/vtysh.py``: a line it refuses,
  "line N: % Unknown command", or never reads; its exit status is no proof).
* ``interfaces``: ifupdown2's syntax check ``ifup -a -s -i FILE``. It exits 0 even for an unknown
  attribute (``adress``) and silently skips it, so every attribute is also checked against the
  list ifupdown2 itself publishes (``ifquery --syntax-help``).

Each program runs once per file *shape* (``verify/shapes.py``: the files with the values the parser
accepts whatever they are blanked); its verdict, with its line number, holds for every file of the
shape. The reference (``by_shape=False``) runs it on every file; tests hold the two equal.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.parsers.files import read_text
from dualrail_net.verify.parsers.ifupdown import PRIVATE_STATE, numbered_lines
from dualrail_net.verify.shapes import FRR_COMMENTS, IFUPDOWN_COMMENTS, shape_of
from dualrail_net.verify.vtysh import refusals

FRR_CHECK = "CONSUMER-FRR-PARSE"
IFUPDOWN_CHECK = "CONSUMER-IFUPDOWN2"
# ifupdown's own stanza keywords: valid everywhere, not listed by --syntax-help.
IFUPDOWN_CORE = {"pre-up", "up", "post-up", "down", "pre-down", "post-down", "source", "source-directory",
                 "auto", "allow-hotplug", "iface",
                 # `ifquery --syntax-help` leaves out the attributes its modules mark 'compat' (kept for
                 # ifupdown's files), which they still apply: address.py's netmask (a bare address's length)
                 "netmask"}


def _workers() -> int:
    return max(2, min(8, (os.cpu_count() or 2) * 2))


def _device_of(path: Path, out: Path) -> str:
    return path.parent.name


def by_shape(files: list[Path], comments: tuple[str, ...]) -> list[list[Path]]:
    """The files grouped by shape, each group in the given order (the first is the one parsed)."""
    groups: dict[str, list[Path]] = {}
    for path in files:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            text = f"\0unreadable {path}"  # a shape of its own: the parser reports it
        groups.setdefault(shape_of(text, comments), []).append(path)
    return list(groups.values())


def check_frr(out: Path, files: list[Path], shapes: bool = True) -> CheckResult:
    result = CheckResult(FRR_CHECK, "every frr.conf is accepted by FRR's parser (vtysh --dryrun)")
    vtysh = shutil.which("vtysh")
    if vtysh is None:
        result.skipped = "vtysh not found: apt-get install frr"
        return result
    started = time.monotonic()

    def one(group: list[Path]) -> list[Finding]:
        # exit 0 is no proof (verify/vtysh.py): a line vtysh refuses or never reads counts
        with tempfile.TemporaryDirectory(prefix="dualrail-vtysh-") as work:
            refused = refusals(read_text(group[0]), Path(work), vtysh)
        if not refused:
            return []
        detail = refused[min(refused)]
        return [Finding(FRR_CHECK, Severity.ERROR, (_device_of(path, out),), "",
                        f"{path.relative_to(out)}: FRR rejects it: {detail}",
                        "FRR would refuse or half-apply this config on the switch") for path in group]

    groups = by_shape(files, FRR_COMMENTS) if shapes else [[f] for f in files]
    with ThreadPoolExecutor(_workers()) as pool:
        result.findings = sorted((f for fs in pool.map(one, groups) for f in fs), key=lambda f: f.message)
    result.seconds = time.monotonic() - started
    return result


@lru_cache(maxsize=1)
def ifupdown_attributes() -> frozenset[str]:
    """Attribute names ifupdown2 knows, read from ifupdown2 itself."""
    proc = subprocess.run(["ifquery", "--syntax-help"], capture_output=True, text=True, timeout=60)
    names = set(re.findall(r"^  ([a-z0-9][a-z0-9_-]*)\s*$", proc.stdout, re.MULTILINE))
    return frozenset(names | IFUPDOWN_CORE)


def unknown_attributes(text: str, known: frozenset[str]) -> list[tuple[int, str]]:
    """(line, word) of each stanza line whose attribute ifupdown2 does not know, the file's lines
    read as ifupdown2 reads them (a line continued with a backslash is one attribute)."""
    bad = []
    in_iface = False
    for lineno, raw in numbered_lines(text):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keyword = line.split()[0]
        if keyword in ("auto", "source", "source-directory", "vlan") or keyword.startswith("allow-"):
            in_iface = False
            continue
        if keyword == "iface":
            in_iface = True
            continue
        if in_iface and raw[:1].isspace() and keyword not in known:
            bad.append((lineno, keyword))
    return bad


def check_ifupdown(out: Path, files: list[Path], shapes: bool = True) -> CheckResult:
    result = CheckResult(IFUPDOWN_CHECK, "every interfaces file is accepted by ifupdown2 (ifup -s, known attributes)")
    ifup = shutil.which("ifup")
    if ifup is None or shutil.which("ifquery") is None:
        result.skipped = "ifupdown2 not found: apt-get install ifupdown2"
        return result
    started = time.monotonic()
    known = ifupdown_attributes()
    # ifupdown2 takes a global lock in /run/network, so parallel checks need a private /run/network
    # each (a mount namespace, root only); otherwise they run one at a time. Its state file in
    # /var/tmp/network (what the last run configured) is kept private too: nothing of another
    # file's run may reach this one's reading (twin.translate.ifup_privately).
    private = os.geteuid() == 0 and shutil.which("unshare") is not None
    prefix = ["unshare", "-m", "sh", "-c", f'{PRIVATE_STATE} && exec "$0" "$@"'] if private else []

    def one(group: list[Path]) -> list[Finding]:
        found = []
        proc = subprocess.run([*prefix, ifup, "-a", "-s", "-i", str(group[0])], capture_output=True, text=True,
                              timeout=60)
        # attribute names and line numbers are part of the shape: one reading holds for the group
        unknown = unknown_attributes(group[0].read_text(), known)
        for path in group:
            rel = path.relative_to(out)
            dev = _device_of(path, out)
            if proc.returncode != 0:
                msg = (proc.stderr or proc.stdout).strip().splitlines()
                found.append(Finding(IFUPDOWN_CHECK, Severity.ERROR, (dev,), "",
                                     f"{rel}: ifupdown2 rejects it: {msg[-1] if msg else proc.returncode}",
                                     "ifreload would fail on the switch"))
            for lineno, word in unknown:
                found.append(Finding(IFUPDOWN_CHECK, Severity.ERROR, (dev,), "",
                                     f"{rel}:{lineno}: unknown attribute {word!r}",
                                     "ifupdown2 skips unknown attributes silently: the setting would never be applied"))
        return found

    groups = by_shape(files, IFUPDOWN_COMMENTS) if shapes else [[f] for f in files]
    with ThreadPoolExecutor(_workers() if private else 1) as pool:
        for fs in pool.map(one, groups):
            result.findings.extend(fs)
        result.findings.sort(key=lambda f: f.message)
    result.seconds = time.monotonic() - started
    return result


def run_consumers(out: Path) -> list[CheckResult]:
    frr = sorted(out.rglob("frr.conf"))
    ifaces = sorted(out.rglob("interfaces"))
    return [check_frr(out, frr), check_ifupdown(out, ifaces)]
