"""Run a function in a forked child and take its (pickled) result back: the one way this package
uses a second core for CPU-bound work on data the parent already holds (the fabric while
rendering, a plane's sessions while modelling it).

A forked child reads the parent's objects without copying them up front; only what it returns
crosses, pickled, through a pipe. The parent reads the pipe in a thread while it does its own
share, so a child with a large result never blocks on a full pipe. A child that raises sends the
exception, which the parent raises again (an exception that cannot be pickled comes as a
``ForkedFailed`` with its traceback); a child that dies without a word is a ``ForkedFailed`` too. Where ``os.fork`` does not exist the function runs in the parent."""

from __future__ import annotations

import os
import pickle
import struct
import threading
import traceback
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
Tick = Callable[[int], None]

_TICK, _RESULT = b"t", b"r"
_HEADER = struct.Struct("!cQ")


class ForkedFailed(RuntimeError):
    """The forked child raised (its traceback is in the message) or died."""


def can_fork() -> bool:
    return hasattr(os, "fork")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 22))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


class Forked(Generic[T]):
    """A function running in a forked child. ``on_tick`` (called in a reader thread of the parent)
    receives the counts the child passes to its ``tick`` argument: live progress from the child."""

    def __init__(self, fn: Callable[[Tick], T], what: str, on_tick: Tick | None = None) -> None:
        self.what = what
        self._value: T | None = None
        self._done = False
        if not can_fork():
            self._value, self._done = fn(on_tick or (lambda _n: None)), True
            return
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run, send, leave without running the parent's cleanups
            os.close(read_fd)
            code = 0
            try:
                def tick(n: int) -> None:
                    _write_all(write_fd, _HEADER.pack(_TICK, n))
                payload = pickle.dumps(("ok", fn(tick)), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:
                code = 1
                try:  # the exception itself, so the parent raises what the function raised
                    payload = pickle.dumps(("raise", exc))
                    pickle.loads(payload)
                except BaseException:
                    payload = pickle.dumps(("error", traceback.format_exc()))
            try:
                _write_all(write_fd, _HEADER.pack(_RESULT, len(payload)))
                _write_all(write_fd, payload)
            finally:
                os._exit(code)
        os.close(write_fd)
        self._pid = pid
        self._payload: bytes | None = None
        self._reader = threading.Thread(target=self._read, args=(read_fd, on_tick), daemon=True)
        self._reader.start()

    def _read(self, fd: int, on_tick: Tick | None) -> None:
        try:
            while True:
                head = _read_exact(fd, _HEADER.size)
                if head is None:
                    return
                kind, n = _HEADER.unpack(head)
                if kind == _TICK:
                    if on_tick is not None:
                        on_tick(n)
                    continue
                self._payload = _read_exact(fd, n)
                return
        finally:
            os.close(fd)

    def result(self) -> T:
        """Wait for the child and return its value (raises ``ForkedFailed`` if it raised or died)."""
        if self._done:
            return self._value  # type: ignore[return-value]
        self._reader.join()
        os.waitpid(self._pid, 0)
        self._done = True
        if self._payload is None:
            raise ForkedFailed(f"{self.what} died in its process")
        kind, value = pickle.loads(self._payload)
        self._payload = None
        if kind == "raise":
            raise value
        if kind != "ok":
            raise ForkedFailed(f"{self.what} failed:\n{value}")
        self._value = value
        return value  # type: ignore[no-any-return]
