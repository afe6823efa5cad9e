"""The run journal, in SQLite: every run, device, step, result, backup location and timing; and the
maintenance lock that makes "two planes are never in maintenance at the same time" an invariant."""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


@dataclass
class Journal:
    path: Path

    def __post_init__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.executescript(SCHEMA)

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        return db

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
                rows = db.execute("SELECT plane, run_id FROM maintenance WHERE plane != ?", (plane,)).fetchall()
                if rows:
                    raise InvariantViolation(f"plane {rows[0]['plane']} is in maintenance (run {rows[0]['run_id']}): "
                                             f"plane {plane} must wait until it is healthy again")
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
