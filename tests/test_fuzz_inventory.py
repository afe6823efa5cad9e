"""Fuzzing the inventory (issue 14): random damage to the example files never gives a traceback.

Every mutated inventory must end in exit 0 (then it also renders), or exit 1 with every error as one
``FILE:LINE: error: ...`` line, within a time bound and under a memory ceiling (RLIMIT_AS is lowered
for the duration, so a runaway allocation fails the test instead of the machine).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import resource
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLE
from dualrail_net.cli import main

FILES = ("fabric.yaml", "qos.yaml", "servers.yaml", "infiniband.yaml")
ORIGINAL = {name: (EXAMPLE / name).read_bytes() for name in FILES}
SECONDS_PER_CASE = 10.0
HEADROOM = 2 << 30  # address space allowed above what the test process already maps
LINE = re.compile(r"^.+\.yaml:[1-9][0-9]*: (error|warning): .+$")


@pytest.fixture(scope="module")
def memory_ceiling() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as fh:
        vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (vm + HEADROOM, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue()


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(FILES))
    data = bytearray(ORIGINAL[name])
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "truncate", "duplicate", "unicode", "delete"]))
        pos = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "flip":
            continue
        elif kind == "truncate":
            del data[pos:]
        elif kind == "duplicate":
            end = min(len(data), pos + draw(st.integers(1, 400)))
            at = draw(st.integers(0, len(data)))
            data[at:at] = data[pos:end]
        elif kind == "unicode":
            text = draw(st.text(min_size=1, max_size=12)).encode("utf-8", "surrogatepass")
            data[pos:pos] = text
        else:
            end = min(len(data), pos + draw(st.integers(1, 200)))
            del data[pos:end]
    return name, bytes(data)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutation=mutations())
def test_mutated_inventory_never_crashes(memory_ceiling: None, mutation: tuple[str, bytes]) -> None:
    name, data = mutation
    with tempfile.TemporaryDirectory(prefix="dualrail-fuzz-") as tmp:
        root = Path(tmp) / "inventory"
        shutil.copytree(EXAMPLE, root)
        (root / name).write_bytes(data)
        started = time.monotonic()
        code, out = _run("validate", "-i", str(root), "--json")
        assert code in (0, 1), out
        doc = json.loads(out)
        for d in doc["diagnostics"]:
            line = f"{d['file']}:{d['line']}: {d['severity']}: {d['message']}"
            assert d["line"] >= 1 and LINE.match(line) and "\n" not in line, line
        if code == 0:
            code, out = _run("render", "-i", str(root), "-o", str(Path(tmp) / "build"), "--json")
            assert code == 0, out
        assert time.monotonic() - started < SECONDS_PER_CASE
