"""`group_postings` builds its key in place (the build's peak RSS is made there): it must group
exactly as the plain expression did, whatever integer types the columns come in."""

from __future__ import annotations

import numpy as np
import pytest

from daemon.memory.store import FieldPostings, group_postings
from daemon.memory.store.index import _grouped, _summed


def _reference(terms, field, tid, row, tf, row_session, n_sessions):  # type: ignore[no-untyped-def]
    """group_postings as it was written before (int64 columns, one expression per step)."""
    field, tid, row, tf = (np.asarray(x, np.int64) for x in (field, tid, row, tf))
    n_terms, n_rows = max(terms.shape[0], 1), max(row_session.shape[0], 1)
    key = (field * n_terms + tid) * n_rows + row
    order = np.argsort(key)
    key, tf = _summed(key[order], tf[order])
    field, rest = np.divmod(key, n_terms * n_rows)
    tid, row = np.divmod(rest, n_rows)
    cut = int(np.searchsorted(field, 1))
    own = _grouped(terms, tid[:cut], row[:cut], tf[:cut])
    context = _grouped(terms, tid[cut:], row[cut:], tf[cut:])
    doc = row_session[row[:cut]]
    keep = doc >= 0
    n_docs = max(n_sessions, 1)
    key = tid[:cut][keep] * n_docs + doc[keep]
    order = np.argsort(key)
    key, sums = _summed(key[order], tf[:cut][keep][order])
    return own, context, _grouped(terms, key // n_docs, key % n_docs, sums)


def _same(a: FieldPostings, b: FieldPostings) -> bool:
    return (
        a.terms == b.terms
        and np.array_equal(a.starts, b.starts)
        and np.array_equal(a.docs, b.docs)
        and np.array_equal(a.tfs, b.tfs)
        and a.docs.dtype == b.docs.dtype
        and a.tfs.dtype == b.tfs.dtype
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("types", [(np.int8, np.int32, np.int32, np.int32), (np.int64,) * 4])
def test_grouped_as_before(seed: int, types: tuple[type, ...]) -> None:
    rng = np.random.default_rng(seed)
    n_terms, n_rows, n = int(rng.integers(1, 60)), int(rng.integers(1, 80)), int(rng.integers(0, 3000))
    terms = np.array([f"t{i}" for i in range(n_terms)], dtype=object)
    cols = (
        rng.integers(0, 2, n),
        rng.integers(0, n_terms, n),
        rng.integers(0, n_rows, n),  # repeats: equal (field, term, row) add up
        rng.integers(1, 5, n),
    )
    field, tid, row, tf = (c.astype(t) for c, t in zip(cols, types, strict=True))
    n_sessions = int(rng.integers(0, 7))
    row_session = rng.integers(-1, max(n_sessions, 1), n_rows) if n_sessions else np.full(n_rows, -1)
    got = group_postings(terms, field, tid, row, tf, row_session, n_sessions)
    want = _reference(terms, field, tid, row, tf, row_session, n_sessions)
    assert all(_same(g, w) for g, w in zip(got, want, strict=True))
    assert n == 0 or sum(g.docs.shape[0] for g in got[:2]) > 0
