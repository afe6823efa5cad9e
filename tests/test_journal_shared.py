"""The run journal and the plane lock, shared: SQLite for one machine, and a real PostgreSQL server
(Debian's, started here in a private directory, unix socket only) for operators and CI runners.
Two runners racing for one plane: exactly one wins, whichever backend."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dualrail_net.deploy.journal import InvariantViolation, Journal, open_journal

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None) if Path("/usr/lib/postgresql").exists() else None


@pytest.fixture(scope="module")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if PG_BIN is None or os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("needs Debian's postgresql package and root (it runs the server as user postgres)")
    # not under pytest's own tmp folders: they are 0700 root, and the server runs as postgres
    base = Path(tempfile.mkdtemp(prefix="dualrail-pg-"))
    os.chown(base, *_postgres_ids())
    data, sock = base / "data", base
    port = 54329

    def as_postgres(*cmd: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *cmd], check=True, capture_output=True, timeout=120)

    as_postgres(str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust")
    as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", f"-k {sock} -p {port} -c listen_addresses=",
                "-l", str(base / "log"), "-w", "start")
    try:
        yield f"postgresql://postgres@/postgres?host={sock}&port={port}"
    finally:
        as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(base, ignore_errors=True)


def _postgres_ids() -> tuple[int, int]:
    import pwd
    entry = pwd.getpwnam("postgres")
    return entry.pw_uid, entry.pw_gid


def _race(make: "callable[[], Journal]", plane: str = "A") -> tuple[list[int], list[str]]:  # type: ignore[valid-type]
    """Two runners (each its own journal connection and run) claim ``plane`` at the same moment."""
    journals = [make(), make()]
    runs = [j.start_run("config", "race", "build") for j in journals]
    barrier = threading.Barrier(2)
    won: list[int] = []
    refused: list[str] = []

    def claim(i: int) -> None:
        barrier.wait()
        try:
            journals[i].enter_maintenance(plane, runs[i])
            won.append(runs[i])
        except InvariantViolation as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for j, run in zip(journals, runs):
        j.end_run(run, "ok")
    return won, refused


def test_postgres_journal_records_runs_and_steps(postgres: str) -> None:
    journal = open_journal(postgres)
    run = journal.start_run("config", "cfg", "build")
    step = journal.step(run, "A", 0, "a-leaf-su1-r0", "push", "/backups/x")
    journal.finish(step, "ok", "diff")
    journal.end_run(run, "ok")
    got = journal.run(run)
    assert got["status"] == "ok" and [s["step"] for s in got["steps"]] == ["push"]
    assert journal.device_state(run)["a-leaf-su1-r0"]["backup"] == "/backups/x"
    assert run in [r["id"] for r in journal.runs()]


def test_two_runners_racing_for_one_plane_on_postgres(postgres: str) -> None:
    for _ in range(5):
        won, refused = _race(lambda: open_journal(postgres))
        assert len(won) == 1 and len(refused) == 1 and "one run per plane" in refused[0]
        open_journal(postgres).leave_maintenance("A")


def test_the_other_plane_waits_while_one_is_in_maintenance_on_postgres(postgres: str) -> None:
    first, second = open_journal(postgres), open_journal(postgres)
    run_a = first.start_run("config", "a", "build")
    run_b = second.start_run("config", "b", "build")
    first.enter_maintenance("A", run_a)
    with pytest.raises(InvariantViolation, match="plane A is in maintenance"):
        second.enter_maintenance("B", run_b)
    first.end_run(run_a, "failed")  # ended with its plane still claimed: another run may take it over
    second.enter_maintenance("A", run_b)
    assert second.in_maintenance() == {"A": run_b}
    second.leave_maintenance("A")
    second.end_run(run_b, "ok")


def test_two_runners_racing_for_one_plane_on_sqlite(tmp_path: Path) -> None:
    won, refused = _race(lambda: Journal(tmp_path / "j.sqlite"))
    assert len(won) == 1 and len(refused) == 1
