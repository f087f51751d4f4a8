"""A scope index's per-row columns grow in place (issue 25).

`ScopeIndex.append` used to rebuild ten per-row columns with `np.concatenate` on every batch, a
copy of the whole column that grew with the scope. The columns are now views of buffers with
room to spare; they must hold what the concatenation held, row for row and dtype for dtype,
after any sequence of appends and of the in-place changes the lifecycle makes between them; a
column someone replaced must be the one the next append extends; a view handed out before an
append keeps its rows.
"""

from __future__ import annotations

import numpy as np

from daemon.memory.read.bm25 import BM25Params
from daemon.memory.read.scope import ScopeIndex
from daemon.memory.read.vectors import IVFParams

COLUMNS = (
    "session_no",
    "importance",
    "access_count",
    "last_access",
    "occurred",
    "evergreen",
    "active",
    "text_len",
    "category_no",
    "speaker_no",
)
CATEGORIES = ["profile", "preferences", "events"]
SPEAKERS = ["alice", "bob", None]
SESSIONS = ["s1", "s2", None]


def _batch(idx: ScopeIndex, start: int, n: int, rng: np.random.Generator) -> dict[str, list]:
    """Append n rows; returns what each column gains, as `np.concatenate` would have added it."""
    sessions = [SESSIONS[i] for i in rng.integers(0, 3, n)]
    speakers = [SPEAKERS[i] for i in rng.integers(0, 3, n)]
    categories = [CATEGORIES[i] for i in rng.integers(0, 3, n)]
    importance = rng.random(n).tolist()
    occurred = (rng.random(n) * 1e9).tolist()
    evergreen = (rng.random(n) < 0.3).tolist()
    l0 = [f"row {start + i} " + "x" * int(k) for i, k in enumerate(rng.integers(0, 9, n))]
    idx.append(
        ids=[f"it_{start + i}" for i in range(n)],
        l0=l0,
        categories=categories,
        source_ids=[[f"r{start + i}"] for i in range(n)],
        sessions=sessions,
        speakers=speakers,
        importance=importance,
        occurred=occurred,
        evergreen=evergreen,
        vectors=rng.normal(size=(n, 4)).astype(np.float32),
        own=[({"row": 1}, 1)] * n,
        context=[({}, 0)] * n,
    )
    return {
        "session_no": [idx.session_docs[s] if s else -1 for s in sessions],
        "importance": importance,
        "access_count": [0.0] * n,
        "last_access": [np.nan] * n,
        "occurred": occurred,
        "evergreen": evergreen,
        "active": [True] * n,
        "text_len": [float(len(t)) for t in l0],
        "category_no": [idx.category_codes[c] for c in categories],
        "speaker_no": [idx.speaker_codes[s or ""] for s in speakers],
    }


DTYPES = {
    "session_no": np.int64,
    "importance": np.float32,
    "access_count": np.float32,
    "last_access": np.float64,
    "occurred": np.float64,
    "evergreen": bool,
    "active": bool,
    "text_len": np.float32,
    "category_no": np.int32,
    "speaker_no": np.int32,
}


def _same(idx: ScopeIndex, want: dict[str, np.ndarray]) -> None:
    for name in COLUMNS:
        got = getattr(idx, name)
        assert got.dtype == want[name].dtype, name
        assert got.shape == (len(idx),), name
        np.testing.assert_array_equal(got, want[name], err_msg=name)


def test_the_columns_hold_what_concatenation_held() -> None:
    rng = np.random.default_rng(25)
    idx = ScopeIndex("s", 4, BM25Params(), IVFParams())
    want = {name: np.zeros(0, DTYPES[name]) for name in COLUMNS}
    n = 0
    for size in [1, 3, 64, 0, 2, 130, 7, 64, 64, 1, 300, 5]:
        added = _batch(idx, n, size, rng)
        for name in COLUMNS:
            want[name] = np.concatenate([want[name], np.asarray(added[name], dtype=DTYPES[name])])
        n += size
        _same(idx, want)
        if not n:
            continue
        # what the lifecycle and the write path change in place between batches
        retired = rng.choice(n, max(1, n // 7), replace=False)
        idx.deactivate([f"it_{r}" for r in retired])
        want["active"][retired] = False
        touched = rng.choice(n, max(1, n // 5), replace=False)
        idx.touch([f"it_{r}" for r in touched], 1234.5)
        want["access_count"][touched] += 1.0
        want["last_access"][touched] = 1234.5
        pinned = int(rng.integers(0, n))
        idx.pin([f"it_{pinned}"])
        want["evergreen"][pinned] = True
        revived = int(retired[0])
        idx.revive(f"it_{revived}", 99.0)
        want["active"][revived] = True
        want["last_access"][revived] = 99.0
        absorbed = int(rng.integers(0, n))
        idx.absorb(f"it_{absorbed}", ["r_more"], 0.875)
        want["importance"][absorbed] = np.float32(0.875)
        _same(idx, want)


def test_a_replaced_column_is_the_one_the_next_append_extends() -> None:
    rng = np.random.default_rng(26)
    idx = ScopeIndex("s", 4, BM25Params(), IVFParams())
    _batch(idx, 0, 40, rng)
    _batch(idx, 40, 10, rng)  # the buffers have room to spare now
    replaced = np.zeros(50, bool)
    replaced[::3] = True
    idx.active = replaced  # someone swapped a column for their own array
    idx.importance = np.full(50, 0.25, np.float32)
    _batch(idx, 50, 5, rng)
    assert idx.active.tolist() == [*replaced.tolist(), True, True, True, True, True]
    assert idx.importance[:50].tolist() == [0.25] * 50


def test_a_view_handed_out_before_an_append_keeps_its_rows() -> None:
    rng = np.random.default_rng(27)
    idx = ScopeIndex("s", 4, BM25Params(), IVFParams())
    _batch(idx, 0, 30, rng)
    _batch(idx, 30, 2, rng)
    held = idx.active
    before = held.copy()
    for start in range(32, 200, 24):  # some appends fit the buffer, some grow it
        _batch(idx, start, 24, rng)
    assert held.shape == before.shape
    np.testing.assert_array_equal(held, before)
    np.testing.assert_array_equal(idx.active[:32], before)
