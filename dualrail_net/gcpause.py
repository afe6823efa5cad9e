"""Pause the cyclic garbage collector around bulk object creation.

Resolving or rendering a 100k-GPU fabric creates millions of small acyclic objects; CPython's
generational GC would rescan them again and again, for no cycle found (figures: docs/performance.md)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """On the way out everything the collector tracks is frozen (gc.freeze) before it resumes:
    the objects made meanwhile all sit in its youngest generation, and its next run would walk
    every one of them to find no cycle. Frozen
    objects are still freed by reference counting; only a reference cycle among them would
    outlive its use."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
