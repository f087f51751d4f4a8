"""Each recall stage on its own: fusion, rerank, decay, length, session, MMR, minimum score."""

from __future__ import annotations

import numpy as np
import pytest

from daemon.memory.read import stages as R

P = R.RecallParams()


def test_union_keeps_first_seen_order_without_duplicates() -> None:
    rows = R.union_candidates(np.array([5, 3]), np.array([3, 9]), np.array([], dtype=np.int64))
    assert rows.tolist() == [5, 3, 9]


def test_top_rows_respects_eligibility_and_positivity() -> None:
    scores = np.array([0.0, 3.0, 2.0, 5.0], dtype=np.float32)
    assert R.top_rows(scores, 2).tolist() == [3, 1]
    assert R.top_rows(scores, 5, np.array([True, True, True, False])).tolist() == [1, 2]


def test_minmax_fusion_weights_both_sources() -> None:
    dense = np.array([0.9, 0.5, 0.1], dtype=np.float32)
    bm25 = np.array([0.0, 10.0, 5.0], dtype=np.float32)
    fused = R.fuse(dense, bm25, R.RecallParams(w_dense=0.5, w_bm25=0.5))
    assert fused.tolist() == pytest.approx([0.5, 0.75, 0.25])
    only_dense = R.fuse(dense, bm25, R.RecallParams(w_dense=1.0, w_bm25=0.0))
    assert only_dense.argmax() == 0


def test_rrf_fusion_is_rank_based() -> None:
    dense = np.array([0.9, 0.8, 0.1], dtype=np.float32)
    bm25 = np.array([0.0, 50.0, 0.0], dtype=np.float32)
    fused = R.fuse(dense, bm25, R.RecallParams(fusion="rrf", w_dense=1.0, w_bm25=1.0))
    assert fused[1] > fused[0] > fused[2]
    with pytest.raises(ValueError, match="unknown fusion"):
        R.fuse(dense, bm25, R.RecallParams(fusion="max"))


def test_rerank_hook_reorders_the_head() -> None:
    fused = np.array([0.9, 0.8, 0.1], dtype=np.float32)
    p = R.RecallParams(reranker=lambda q, texts: [len(t) for t in texts], rerank_n=2)
    out = R.rerank("q", ["a", "bbbb", "cc"], fused, p)
    assert out.argmax() == 1 and out[2] == pytest.approx(0.1)
    assert R.rerank("q", ["a"], fused[:1], P)[0] == pytest.approx(0.9)  # no hook: unchanged


def test_decay_prefers_recent_used_important_and_spares_evergreen() -> None:
    day = 86400.0
    now = 100 * day
    occurred = np.array([99 * day, 10 * day, 10 * day, 10 * day, 10 * day])
    last = np.array([np.nan, np.nan, 99 * day, np.nan, np.nan])
    count = np.array([0, 0, 3, 0, 0], dtype=np.float32)
    imp = np.array([0.5, 0.5, 0.5, 0.9, 0.5], dtype=np.float32)
    ever = np.array([False, False, False, False, True])
    w = R.decay(now, occurred, last, count, imp, ever, P)
    assert w[0] > w[1]  # recent beats old
    assert w[2] > w[1]  # a recent access reinforces
    assert w[3] > w[1]  # importance lifts
    assert w[4] == pytest.approx(w[0], abs=0.01)  # evergreen does not fade
    assert w.min() >= (1 - P.decay_weight) * (1 - P.importance_weight) - 1e-6  # old facts can still win


def test_length_norm_damps_only_long_items() -> None:
    f = R.length_norm(np.array([10, P.length_anchor, 4 * P.length_anchor], dtype=np.float32), P)
    assert f[0] == f[1] == 1.0 and f[2] < 1.0


def test_deictic_queries_shift_weight_to_the_session() -> None:
    assert R.is_deictic("what did you say just now?") and R.is_deictic("刚才说的那个餐厅叫什么")
    assert not R.is_deictic("where does Bob live?")
    rank = np.array([0, 3, -1])
    rel = np.array([0.2, 0.9, 0.9], dtype=np.float32)
    st = R.short_term(rank, rel)
    assert st[2] == 0 and st[0] > st[1] > 0
    long_term = np.array([0.1, 0.1, 0.9], dtype=np.float32)
    normal = R.blend(long_term, st, False, P)
    deictic = R.blend(long_term, st, True, P)
    assert normal.argmax() == 2  # an ordinary query keeps the best long-term memory first
    assert deictic.argmax() == 0  # "just now" puts the newest turn of the session first


def test_mmr_skips_near_duplicates() -> None:
    v = np.array([[1, 0], [0.999, 0.045], [0, 1]], dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    scores = np.array([1.0, 0.99, 0.8], dtype=np.float32)
    assert R.mmr(scores, v, 3, 0.5, 10).tolist() == [0, 2, 1]
    assert R.mmr(scores, v, 3, 1.0, 10).tolist() == [0, 1, 2]


def test_min_score_drops_weak_hits() -> None:
    mask = R.min_score_mask(np.array([0.5, 0.01], dtype=np.float32), R.RecallParams(min_score=0.05))
    assert mask.tolist() == [True, False]
