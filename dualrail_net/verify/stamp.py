"""The verification stamp: what ``verify`` (and ``build``) leave in the rendered folder, and what
``deploy`` checks before it touches a device.

``verified.json`` holds the tool version, whether every check passed, the check ids that ran, and
a digest of every file of the build (path and content). A re-render removes it (the folder's marker
lists it, the render does not produce it), so a stamp always speaks of the files it sits beside or
is gone. The gate refuses a build without a stamp, one that did not pass, or one whose files are
no longer the ones verified.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from dualrail_net import __version__
from dualrail_net.manifest import STAMP_FILE
from dualrail_net.outdir import MARKER, add_owned, read_marker, read_owned, read_owned_many
from dualrail_net.verify.findings import CheckResult



class StampError(Exception):
    """No stamp, or one that does not vouch for these files."""


@dataclass(frozen=True)
class Stamp:
    tool: str
    passed: bool
    errors: int
    checks: list[str]
    digest: str  # sha256 over every file of the build but the stamp and the marker

    def dumps(self) -> str:
        return json.dumps(asdict(self), indent=1) + "\n"


def build_digest(out: Path) -> str:
    """One digest of every file the folder's marker lists (path and content), the stamp excluded."""
    files = read_marker(out)
    if files is None:
        raise StampError(f"{out} is not a folder dualrail rendered (no {MARKER})")
    total = hashlib.sha256()
    for rel, data in read_owned_many(out, sorted(f for f in files if f != STAMP_FILE)):
        total.update(rel.encode() + b"\0" + (hashlib.sha256(data).hexdigest().encode() if data is not None
                                              else b"missing") + b"\n")
    return total.hexdigest()


def write_stamp(out: Path, results: list[CheckResult]) -> Stamp:
    errors = sum(len(r.errors) for r in results)
    stamp = Stamp(f"dualrail-net {__version__}", errors == 0, errors, sorted({r.check for r in results}),
                  build_digest(out))
    add_owned(out, STAMP_FILE, stamp.dumps())
    return stamp


def read_stamp(out: Path) -> Stamp:
    data = read_owned(out, STAMP_FILE) if out.is_dir() else None
    if data is None:
        raise StampError(f"{out} was never verified (no {STAMP_FILE}): run `dualrail verify` or `dualrail build`")
    try:
        doc = json.loads(data)
        return Stamp(str(doc["tool"]), bool(doc["passed"]), int(doc["errors"]), [str(c) for c in doc["checks"]],
                     str(doc["digest"]))
    except (ValueError, KeyError, TypeError):
        raise StampError(f"{out / STAMP_FILE} is not a stamp dualrail wrote") from None


def check_stamp(out: Path) -> Stamp:
    """The stamp, if it vouches for the files as they are now; StampError saying why not."""
    stamp = read_stamp(out)
    if not stamp.passed:
        raise StampError(f"{out} failed verification ({stamp.errors} error(s)); fix them and verify again")
    if build_digest(out) != stamp.digest:
        raise StampError(f"{out} changed since it was verified (the files differ from {STAMP_FILE}); verify again")
    skipped = [check for check in REQUIRED_FOR_DEPLOY if check not in stamp.checks]
    if skipped:
        raise StampError(f"{out} was verified without {', '.join(skipped)} (`verify --no-consumers`?): the real "
                         "programs must accept the files before they are pushed; run `dualrail verify`")
    return stamp


# what a build must have passed to be pushed: the model checks and the real consumers
REQUIRED_FOR_DEPLOY = ("CONSUMER-FRR-PARSE", "CONSUMER-IFUPDOWN2", "ROUTE-MISSING", "MGMT-ADDRESS")
