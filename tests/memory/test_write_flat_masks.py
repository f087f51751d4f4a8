"""A draft's family masks over its probed rows read the index's columns once (issue 25).

Past `COARSE_MIN` a draft is compared with the rows of its probed lists, and each draft asks for
two masks over them: dedup's (its category and speaker) and the update pool's (its speaker). The
probed rows' columns are now picked once for both; the masks must be the ones `_family` gives,
row for row, for every category and speaker (known or not), active or retired rows, and for a
batch whose drafts follow one another.
"""

from __future__ import annotations

import numpy as np

from daemon.memory.read.bm25 import BM25Params
from daemon.memory.read.scope import ScopeIndex
from daemon.memory.read.vectors import IVFParams
from daemon.memory.write.decisions import _family, _Masks
from daemon.memory.write.neighbours import Reach

CATEGORIES = ["profile", "preferences", "events", "patterns"]
SPEAKERS = ["alice", "bob", "", "carol"]


def _index(n: int, rng: np.random.Generator) -> ScopeIndex:
    idx = ScopeIndex("s", 4, BM25Params(), IVFParams())
    idx.append(
        ids=[f"it_{i}" for i in range(n)],
        l0=[f"row {i}" for i in range(n)],
        categories=[CATEGORIES[i] for i in rng.integers(0, len(CATEGORIES), n)],
        source_ids=[[f"r{i}"] for i in range(n)],
        sessions=[None] * n,
        speakers=[SPEAKERS[i] or None for i in rng.integers(0, len(SPEAKERS), n)],
        importance=[0.5] * n,
        occurred=[float(i) for i in range(n)],
        evergreen=[False] * n,
        vectors=rng.normal(size=(n, 4)).astype(np.float32),
        own=[({"row": 1}, 1)] * n,
        context=[({}, 0)] * n,
    )
    idx.deactivate([f"it_{i}" for i in rng.choice(n, n // 5, replace=False)])
    return idx


def test_the_masks_over_probed_rows_are_the_familys() -> None:
    rng = np.random.default_rng(11)
    idx = _index(500, rng)
    masks = _Masks(idx)
    vec = np.ones(4, np.float32)
    for _ in range(40):  # a batch: draft after draft, each with its own probed rows
        rows = np.sort(rng.choice(500, int(rng.integers(0, 120)), replace=False)).astype(np.int32)
        r = Reach(rows, np.zeros(rows.shape[0], np.float32), vec, idx.vectors.matrix)
        for category in [*CATEGORIES, "cases", None]:  # "cases": a category the scope never had
            for speaker in [*SPEAKERS, "dave"]:
                got = masks.over(r, category, speaker)
                want = _family(idx, category, speaker, rows)
                assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_a_reach_over_every_row_takes_the_batch_mask() -> None:
    rng = np.random.default_rng(12)
    idx = _index(200, rng)
    masks = _Masks(idx)
    r = Reach(None, np.zeros(200, np.float32), np.ones(4, np.float32), idx.vectors.matrix)
    for category in [*CATEGORIES, None]:
        for speaker in SPEAKERS:
            assert masks.over(r, category, speaker).tolist() == _family(idx, category, speaker).tolist()
