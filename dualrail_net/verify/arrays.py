"""Sorting-based set operations on integer arrays.

numpy 2's ``np.unique`` hashes its input, which is far slower than a sort on a large fabric's
addresses (docs/performance.md). These give what np.unique gives, by sorting."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]


def _starts(ordered: Ints) -> npt.NDArray[np.bool_]:
    starts = np.ones(len(ordered), dtype=np.bool_)
    starts[1:] = ordered[1:] != ordered[:-1]
    return starts


def distinct(values: Ints) -> Ints:
    """The distinct values, sorted (np.unique(values))."""
    ordered = np.sort(values)
    result: Ints = ordered[_starts(ordered)]
    return result


def first_of_each(values: Ints) -> tuple[Ints, Ints]:
    """The distinct values, sorted, and where each first occurs (np.unique(values, return_index=True))."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = _starts(ordered)
    return ordered[starts], order[starts]
