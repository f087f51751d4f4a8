"""One recall over one scope's index: the stages of read/stages.py applied in order.

Kept apart from the Memory facade so that the pipeline reads top to bottom in one place and
the facade only adds clock, reinforcement and the Hit objects.
"""

from __future__ import annotations

import numpy as np

from daemon.memory.read import stages as R
from daemon.memory.read.bm25 import tokenize
from daemon.memory.read.scope import ScopeIndex


def session_rows(idx: ScopeIndex, session: str | None, window: int) -> np.ndarray:
    """The newest `window` items of the live session, newest first."""
    if not session or window <= 0:
        return np.zeros(0, np.int64)
    mine = np.asarray(idx.session_rows.get(session, []), dtype=np.int64)
    mine = mine[idx.active[mine]] if mine.size else mine  # archived/superseded never come back
    if mine.size == 0:
        return mine
    order = np.argsort(-idx.occurred[mine], kind="stable")
    return mine[order][:window]


def run_pipeline(
    idx: ScopeIndex, query: str, qvec: np.ndarray, now: float, session: str | None, k: int, p: R.RecallParams
) -> R.Candidates:
    """Candidates of the k best rows with every stage's score in `trace` (and `final`)."""
    terms = tokenize(query)
    inactive = len(idx) - int(np.count_nonzero(idx.active))
    # 1. dense candidates (ask for extra rows so that archived/superseded ones can be dropped)
    dense_rows, _, floor = idx.vectors.search_with_floor(qvec, p.dense_n + inactive)
    dense_rows = dense_rows[idx.active[dense_rows]][: p.dense_n]
    # 2. BM25 candidates: the context field plus a share of the item's own text
    lexical = np.zeros(len(idx), np.float32)
    if terms:  # summed in place: each temporary is a pass over the scope
        lexical = idx.context.scores(terms)
        lexical += np.float32(p.own_field_weight) * idx.own.scores(terms)
    bm25_rows = R.top_rows(lexical, p.bm25_n, idx.active)
    window = session_rows(idx, session, p.session_window)
    c = R.Candidates(R.union_candidates(dense_rows, bm25_rows, window))
    rows = c.rows
    # 3. fusion, normalised against the scope, plus conversation topic and named speaker
    c.trace["dense"] = idx.vectors.similarity(qvec, rows)
    c.trace["bm25"] = lexical[rows]
    top_dense = float(c.trace["dense"].max()) if rows.size else 1.0
    if len(idx) <= p.dense_n:
        # A small scope has no "unrelated" tail: its worst item would be stretched to 0 and
        # dropped however relevant it is (two facts about design tools, one of them lost).
        floor = min(floor, top_dense - p.dense_floor_margin)
    c.trace["fused"] = R.fuse(
        c.trace["dense"], c.trace["bm25"], p, (floor, top_dense), (0.0, float(lexical.max()))
    )
    session_scores = idx.by_session.scores(terms) if terms else np.zeros(0, np.float32)
    c.trace["topic"] = R.topic(session_scores, idx.session_no[rows], p)
    named = R.named_speakers(query, idx.speaker_names)
    c.trace["speaker"] = R.speaker_bonus([idx.speakers[r] for r in rows.tolist()], named, p)
    c.trace["relevance"] = c.trace["fused"] + c.trace["topic"] + c.trace["speaker"]
    # 4. optional rerank, 5. decay, 6. length normalisation. The trace names only the stages
    # that ran: a "rerank" score with no reranker configured would claim one had.
    relevance = c.trace["relevance"]
    if p.reranker is not None:
        c.trace["rerank"] = relevance = R.rerank(query, [idx.l0[r] for r in rows.tolist()], relevance, p)
    c.trace["decay"] = R.decay(
        now,
        idx.occurred[rows],
        idx.last_access[rows],
        idx.access_count[rows],
        idx.importance[rows],
        idx.evergreen[rows],
        p,
    )
    c.trace["length"] = R.length_norm(idx.text_len[rows], p)
    long_term = relevance * c.trace["decay"] * c.trace["length"]
    # the short-term source: the live session's recent turns
    rank = np.full(rows.shape[0], -1, dtype=np.int64)
    if window.size:
        pos = {int(r): i for i, r in enumerate(window.tolist())}
        rank = np.asarray([pos.get(int(r), -1) for r in rows.tolist()], dtype=np.int64)
    c.trace["session"] = R.short_term(rank, c.trace["fused"])
    c.score = R.blend(long_term, c.trace["session"], R.is_deictic(query), p)
    c.trace["session_rank"] = rank.astype(np.float32)
    # 7. MMR, 8. minimum score
    c.keep(R.mmr(c.score, idx.vectors.matrix[rows], k, p.mmr_lambda, p.mmr_pool))
    c.trace["final"] = c.score
    c.keep(R.min_score_mask(c.score, p))
    c.keep(np.arange(min(k, c.rows.shape[0])))
    return c
