"""Pause the cyclic garbage collector around bulk object creation.

Resolving or rendering a 100k-GPU fabric creates millions of small acyclic objects; CPython's
generational GC would rescan them again and again (half of the resolve time, measured)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
