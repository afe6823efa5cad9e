"""Run groups of work in forked children that inherit this process's memory.

Used by load_snapshot for a large folder: the parsing child reads the routing parts, whose small
model goes back as marshalled tuples (verify/routing_wire.py; pickling a switch's models takes
about half as long as parsing its files). Verification itself (verify/partitioned.py) runs its
second side in a new interpreter instead: a fork of a large process pays copy-on-write for every
page either side writes."""

from __future__ import annotations

import os
import pickle
import threading
import traceback
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


class WorkerFailed(Exception):
    pass


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def run_forked(groups: list[list[T]], run: Callable[[list[T]], R]) -> list[R]:
    """``run`` each group: the first in this process, the others in forked children. Results come
    back in group order; a child that fails raises WorkerFailed with its traceback."""
    children: list[tuple[int, int]] = []
    for group in groups[1:]:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: never return into the caller's stack
            os.close(read_fd)
            status = 0
            try:
                payload = pickle.dumps(("ok", run(group)), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException:  # noqa: BLE001  (everything must reach the parent)
                payload = pickle.dumps(("error", traceback.format_exc()))
                status = 1
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
            os._exit(status)
        os.close(write_fd)
        children.append((pid, read_fd))
    results = [run(groups[0])] if groups else []
    for pid, read_fd in children:
        data = _read_all(read_fd)  # read before waiting: a full pipe would block the child
        os.close(read_fd)
        # reaped in the background: the kernel takes ~0.2 s per GB to tear down the child's copy of
        # this process's memory, and the answer is already here
        threading.Thread(target=os.waitpid, args=(pid, 0), daemon=True).start()
        try:
            kind, value = pickle.loads(data)
        except Exception as exc:  # noqa: BLE001
            raise WorkerFailed(f"a verification worker died without an answer ({exc})") from exc
        if kind != "ok":
            raise WorkerFailed(f"a verification worker failed:\n{value}")
        results.append(value)
    return results
