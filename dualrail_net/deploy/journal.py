"""The run journal: every run, device, step, result, backup location and timing; and the maintenance
lock that makes "two planes are never in maintenance at the same time" an invariant, and "one plane
is changed by one run at a time".

SQLite (a file) is the embedded default, for one operator's machine. A PostgreSQL URL
(``--journal postgresql://...`` or ``DUALRAIL_JOURNAL``) shares the journal and the lock between
operators and CI runners (``PostgresJournal``): the maintenance check and claim run in one
transaction under a transaction-scoped advisory lock, so two runners racing for a plane (or for two
planes) cannot both win. ``open_journal`` picks the backend from the spelling."""

from __future__ import annotations

import os
import re
import socket
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOST = socket.gethostname()

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, playbook TEXT NOT NULL, output TEXT NOT NULL,
    started REAL NOT NULL, ended REAL, status TEXT NOT NULL, pid INTEGER, detail TEXT DEFAULT ''
);
CREATE TABLE IF NOT EXISTS steps (
    id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL REFERENCES runs(id), plane TEXT NOT NULL,
    batch INTEGER NOT NULL, device TEXT NOT NULL, step TEXT NOT NULL, status TEXT NOT NULL,
    started REAL NOT NULL, ended REAL, backup TEXT, detail TEXT DEFAULT ''
);
CREATE TABLE IF NOT EXISTS maintenance (
    plane TEXT PRIMARY KEY, run_id INTEGER NOT NULL, since REAL NOT NULL
);
"""


class InvariantViolation(Exception):
    pass


def _claim_refusal(plane: str, rows: list[tuple[str, int, str, int | None, str]], run_id: int, host: str) -> str | None:
    """Why ``run_id`` may not put ``plane`` in maintenance, from the current claims
    (plane, run, that run's status, its pid, its host); None: it may. Another plane in maintenance
    refuses; this plane held by another run that is still running (its process alive, where that can
    be seen) refuses; a claim left by an ended or dead run is taken over (resume, recovery)."""
    for other, owner, status, pid, owner_host in rows:
        if other != plane:
            return f"plane {other} is in maintenance (run {owner}): plane {plane} must wait until it is healthy again"
        if owner != run_id and status == "running" and not (owner_host == host and pid and not _alive(pid)):
            return f"plane {plane} is being changed by run {owner} (still running): one run per plane at a time"
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Journal:
    path: Path

    def __post_init__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """One connection per call, closed at the end (autocommit; explicit transactions say BEGIN):
        sqlite3's own context manager only commits, and an unclosed connection holds its file
        descriptors until the garbage collector runs (a run of many steps reached hundreds)."""
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            yield db
        finally:
            db.close()

    def start_run(self, kind: str, playbook: str, output: str) -> int:
        with self._db() as db:
            cur = db.execute("INSERT INTO runs(kind, playbook, output, started, status, pid) VALUES (?,?,?,?,?,?)",
                             (kind, playbook, output, time.time(), "running", os.getpid()))
            return int(cur.lastrowid or 0)

    def end_run(self, run_id: int, status: str, detail: str = "") -> None:
        with self._db() as db:
            db.execute("UPDATE runs SET ended=?, status=?, detail=? WHERE id=?", (time.time(), status, detail, run_id))

    def step(self, run_id: int, plane: str, batch: int, device: str, step: str, backup: str | None = None) -> int:
        with self._db() as db:
            cur = db.execute("INSERT INTO steps(run_id, plane, batch, device, step, status, started, backup) "
                             "VALUES (?,?,?,?,?,?,?,?)", (run_id, plane, batch, device, step, "started",
                                                          time.time(), backup))
            return int(cur.lastrowid or 0)

    def finish(self, step_id: int, status: str, detail: str = "") -> None:
        with self._db() as db:
            db.execute("UPDATE steps SET ended=?, status=?, detail=? WHERE id=?", (time.time(), status, detail, step_id))

    # -- maintenance invariant --------------------------------------------------------------------
    def enter_maintenance(self, plane: str, run_id: int) -> None:
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                rows = db.execute("SELECT m.plane, m.run_id, r.status, r.pid FROM maintenance m "
                                  "LEFT JOIN runs r ON r.id = m.run_id").fetchall()
                refusal = _claim_refusal(plane, [(r[0], r[1], r[2] or "", r[3], HOST) for r in rows], run_id, HOST)
                if refusal:
                    raise InvariantViolation(refusal)
                db.execute("INSERT OR REPLACE INTO maintenance(plane, run_id, since) VALUES (?,?,?)",
                           (plane, run_id, time.time()))
                db.execute("COMMIT")
            except Exception:
                db.execute("ROLLBACK")
                raise

    def leave_maintenance(self, plane: str) -> None:
        with self._db() as db:
            db.execute("DELETE FROM maintenance WHERE plane=?", (plane,))

    def in_maintenance(self) -> dict[str, int]:
        with self._db() as db:
            return {r["plane"]: r["run_id"] for r in db.execute("SELECT plane, run_id FROM maintenance")}

    # -- reading ---------------------------------------------------------------------------------
    def runs(self) -> list[dict[str, Any]]:
        with self._db() as db:
            return [dict(r) for r in db.execute("SELECT * FROM runs ORDER BY id")]

    def run(self, run_id: int) -> dict[str, Any]:
        with self._db() as db:
            row = db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
            if row is None:
                raise KeyError(run_id)
            steps = [dict(r) for r in db.execute("SELECT * FROM steps WHERE run_id=? ORDER BY id", (run_id,))]
        return {**dict(row), "steps": steps}

    def device_state(self, run_id: int) -> dict[str, dict[str, Any]]:
        """Per device: its last step and status, and its backup (to resume safely)."""
        state: dict[str, dict[str, Any]] = {}
        for s in self.run(run_id)["steps"]:
            entry = state.setdefault(s["device"], {"backup": None})
            entry.update(last_step=s["step"], status=s["status"], plane=s["plane"])
            if s["backup"]:
                entry["backup"] = s["backup"]
        return state


PG_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, playbook TEXT NOT NULL, output TEXT NOT NULL,
    started DOUBLE PRECISION NOT NULL, ended DOUBLE PRECISION, status TEXT NOT NULL, pid INTEGER,
    host TEXT DEFAULT '', detail TEXT DEFAULT ''
);
CREATE TABLE IF NOT EXISTS steps (
    id BIGSERIAL PRIMARY KEY, run_id BIGINT NOT NULL REFERENCES runs(id), plane TEXT NOT NULL,
    batch INTEGER NOT NULL, device TEXT NOT NULL, step TEXT NOT NULL, status TEXT NOT NULL,
    started DOUBLE PRECISION NOT NULL, ended DOUBLE PRECISION, backup TEXT, detail TEXT DEFAULT ''
);
CREATE TABLE IF NOT EXISTS maintenance (
    plane TEXT PRIMARY KEY, run_id BIGINT NOT NULL, since DOUBLE PRECISION NOT NULL
);
"""
# the one advisory lock every claim of a plane takes (transaction scope: released at commit/rollback)
MAINTENANCE_LOCK = 0x64726E6574  # "drnet"


class PostgresJournal(Journal):
    """The journal in PostgreSQL, shared by every operator and CI runner that names the same URL.
    Same interface and rows as the SQLite journal; a connection per call (runs are long, calls few)."""

    def __init__(self, url: str) -> None:  # noqa: D107  (not the dataclass's: no file)
        self.url = url
        self.path = Path(url)  # what `runs` prints as the journal's place
        import psycopg  # imported here: the SQLite default needs no PostgreSQL client
        self._psycopg = psycopg
        with self._pg() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MAINTENANCE_LOCK,))  # concurrent first runs
            db.execute(PG_SCHEMA)

    def _pg(self) -> Any:
        from psycopg.rows import dict_row
        return self._psycopg.connect(self.url, row_factory=dict_row, connect_timeout=10)

    def start_run(self, kind: str, playbook: str, output: str) -> int:
        with self._pg() as db:
            row = db.execute("INSERT INTO runs(kind, playbook, output, started, status, pid, host) "
                             "VALUES (%s,%s,%s,%s,%s,%s,%s) RETURNING id",
                             (kind, playbook, output, time.time(), "running", os.getpid(), HOST)).fetchone()
            return int(row["id"])

    def end_run(self, run_id: int, status: str, detail: str = "") -> None:
        with self._pg() as db:
            db.execute("UPDATE runs SET ended=%s, status=%s, detail=%s WHERE id=%s", (time.time(), status, detail, run_id))

    def step(self, run_id: int, plane: str, batch: int, device: str, step: str, backup: str | None = None) -> int:
        with self._pg() as db:
            row = db.execute("INSERT INTO steps(run_id, plane, batch, device, step, status, started, backup) "
                             "VALUES (%s,%s,%s,%s,%s,%s,%s,%s) RETURNING id",
                             (run_id, plane, batch, device, step, "started", time.time(), backup)).fetchone()
            return int(row["id"])

    def finish(self, step_id: int, status: str, detail: str = "") -> None:
        with self._pg() as db:
            db.execute("UPDATE steps SET ended=%s, status=%s, detail=%s WHERE id=%s", (time.time(), status, detail, step_id))

    def enter_maintenance(self, plane: str, run_id: int) -> None:
        with self._pg() as db:  # one transaction: lock, check, claim, commit
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MAINTENANCE_LOCK,))
            rows = db.execute("SELECT m.plane, m.run_id, r.status, r.pid, r.host FROM maintenance m "
                              "LEFT JOIN runs r ON r.id = m.run_id").fetchall()
            refusal = _claim_refusal(plane, [(r["plane"], int(r["run_id"]), r["status"] or "", r["pid"], r["host"] or "")
                                             for r in rows], run_id, HOST)
            if refusal:
                raise InvariantViolation(refusal)
            db.execute("INSERT INTO maintenance(plane, run_id, since) VALUES (%s,%s,%s) ON CONFLICT (plane) "
                       "DO UPDATE SET run_id = EXCLUDED.run_id, since = EXCLUDED.since", (plane, run_id, time.time()))

    def leave_maintenance(self, plane: str) -> None:
        with self._pg() as db:
            db.execute("DELETE FROM maintenance WHERE plane=%s", (plane,))

    def in_maintenance(self) -> dict[str, int]:
        with self._pg() as db:
            return {r["plane"]: int(r["run_id"]) for r in db.execute("SELECT plane, run_id FROM maintenance")}

    def runs(self) -> list[dict[str, Any]]:
        with self._pg() as db:
            return [dict(r) for r in db.execute("SELECT * FROM runs ORDER BY id")]

    def run(self, run_id: int) -> dict[str, Any]:
        with self._pg() as db:
            row = db.execute("SELECT * FROM runs WHERE id=%s", (run_id,)).fetchone()
            if row is None:
                raise KeyError(run_id)
            steps = [dict(r) for r in db.execute("SELECT * FROM steps WHERE run_id=%s ORDER BY id", (run_id,))]
        return {**dict(row), "steps": steps}


class JournalUnusable(Exception):
    """``--journal`` names nothing a journal can be kept in (one line for the user)."""


def open_journal(spec: str | Path) -> Journal:
    """A journal from ``--journal``: a PostgreSQL URL (shared) or a file path (SQLite). A file that
    is not a SQLite database (or a device, or a folder), or a server that does not answer, is a
    JournalUnusable naming it."""
    text = str(spec)
    try:
        if text.startswith(("postgresql://", "postgres://")):
            return PostgresJournal(text)
        return Journal(Path(text))
    except sqlite3.DatabaseError as exc:
        raise JournalUnusable(f"{text}: error: cannot keep the journal there ({exc}): name a SQLite file "
                              "dualrail may create, or a postgresql:// URL") from None
    except Exception as exc:
        if type(exc).__module__.split(".")[0] != "psycopg":
            raise
        said = " ".join(str(exc).split())  # (the client's message spans lines)
        raise JournalUnusable(f"{journal_label(text)}: error: cannot keep the journal there "
                              f"({type(exc).__name__}: {said})") from None


def journal_label(spec: str | Path) -> str:
    """The journal's place for people and logs: a URL without its password."""
    return re.sub(r"^(postgres(?:ql)?://[^:/@]+):[^@]*@", r"\1:***@", str(spec))
