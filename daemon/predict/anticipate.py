"""Anticipation: the memories a turn's context carries for the question after this one.

A person who asks about one thing usually asks next about the same thing's other attributes,
the next step of the same procedure, or what was told alongside it. So the context holds the
turn's own best answer first, and fills the other slots with the memories most likely to be
needed next, chosen among three neighbourhoods of the answer: the turn's own recall (deeper
than the slots), a recall with the best answer as the query (what else is about the same
thing), and what was told just before and after the two best answers in their conversation.
A small logistic model (`next_need.npz`, fitted by bench/train_next_need.py on half of a
public benchmark's dev set; the other half is the check figure) weighs where a candidate sits
in each: its recall rank and score, its rank in the answer's recall, its told-order distance
from each answer, its cosine to the question and to the answer. No language model, no rules
about particular sentences: the same memory gives the same context.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path

import numpy as np

from daemon.memory import MAX_QUERY_CHARS, Memory
from daemon.memory.models.linear import LinearModel
from daemon.memory.types import Hit

MODEL = Path(__file__).with_name("next_need.npz")

# the model's inputs, in order (the .npz records them; a mismatch is an error, not a guess)
AFTER, BEFORE = (1, 2, 3), (1, 2)
_TOLD = tuple(
    f"seed{s}_{'after' if d > 0 else 'before'}{abs(d)}"
    for s in (1, 2)
    for d in (*AFTER, *(-b for b in BEFORE))
)
FEATURES = (
    "recall_inv_rank",
    "recall_top5",
    "recall_score_ratio",
    "like_inv_rank",
    *_TOLD,
    "cos_question",
    "cos_answer",
)


@dataclass(frozen=True, slots=True)
class Anticipation:
    """How the k slots of a context are filled."""

    k: int = 5  # memories published
    keep: int = 1  # the turn's own best answers, always first
    pool: int = 15  # how deep the turn's recall reads for candidates
    like_k: int = 8  # recall with the best answer as the query
    seeds: int = 2  # best answers whose told neighbours are read …
    after: int = max(AFTER)  # … this many items after …
    before: int = max(BEFORE)  # … and this many before
    learned: bool = True  # False: plain recall, the turn's own k best answers


PLAIN = Anticipation(keep=5, pool=5, learned=False)
LEARNED = Anticipation()
# On the check half the learned context did not beat plain recall (docs/predict.md, "Context that
# anticipates"): contexts are plain recall by default, and LEARNED stays to try again.
DEFAULT = PLAIN


@dataclass(frozen=True, slots=True)
class Candidates:
    """What anticipation weighs for one turn: the answers kept first, then the other
    candidates with one feature row each (FEATURES)."""

    kept: list[Hit]
    others: list[Hit]
    x: np.ndarray  # (len(others), len(FEATURES))


def candidates(
    memory: Memory, text: str, scope: str, *, session: str | None, at: datetime, p: Anticipation = LEARNED
) -> Candidates:
    """The turn's recall, its best answer's neighbourhoods, and where each candidate sits."""
    qvec = memory.embedder.embed_query(text[:MAX_QUERY_CHARS])
    # speculative: what prefetch returns is not reinforced (only what the agent asks for is)
    hits = memory.recall(text, scope, k=p.pool, ts=at, session=session, reinforce=False, query_vector=qvec)
    if not hits:
        return Candidates([], [], np.zeros((0, len(FEATURES)), np.float32))
    kept = hits[: p.keep]
    answer = hits[0]
    seeds = hits[: p.seeds]
    like = memory.recall_like(scope, answer.item_id, k=p.like_k, ts=at) if p.like_k > 0 else []
    near = memory.told_near(scope, [h.item_id for h in seeds], before=p.before, after=p.after, ts=at)
    pool: dict[str, Hit] = {}
    for h in [*hits, *like, *(h for s in seeds for h, _ in near.get(s.item_id, []))]:
        pool.setdefault(h.item_id, h)
    for h in kept:
        pool.pop(h.item_id, None)
    others = list(pool.values())
    if not others:
        return Candidates(kept, [], np.zeros((0, len(FEATURES)), np.float32))
    rank = {h.item_id: r for r, h in enumerate(hits)}
    like_rank = {h.item_id: r for r, h in enumerate(like)}
    told = [{h.item_id: d for h, d in near.get(s.item_id, [])} for s in seeds]
    top = hits[0].score
    vecs = memory.item_vectors(scope, [answer.item_id] + [h.item_id for h in others])
    cos_q, cos_a = vecs[1:] @ qvec, vecs[1:] @ vecs[0]
    x = np.zeros((len(others), len(FEATURES)), np.float32)
    for i, h in enumerate(others):
        r = rank.get(h.item_id)
        row = [
            0.0 if r is None else 1.0 / (r + 1),
            float(r is not None and r < 5),
            0.0 if r is None or top <= 0 else hits[r].score / top,
            1.0 / (like_rank[h.item_id] + 1) if h.item_id in like_rank else 0.0,
        ]
        for s in range(2):
            d = told[s].get(h.item_id) if s < len(told) else None
            row += [float(d == a) for a in AFTER] + [float(d == -b) for b in BEFORE]
        row += [float(cos_q[i]), float(cos_a[i])]
        x[i] = row
    return Candidates(kept, others, x)


@cache
def model() -> LinearModel:
    m = LinearModel.load(MODEL)
    if tuple(m.meta.get("features", ())) != FEATURES:
        raise ValueError(f"{MODEL.name} was fitted on other features; run bench/train_next_need.py")
    return m


def anticipate(
    memory: Memory,
    text: str,
    scope: str,
    *,
    session: str | None,
    at: datetime,
    p: Anticipation | None = None,
) -> list[Hit]:
    """The context's memories for a turn: its own best answer, then what it most likely leads to."""
    p = p or DEFAULT
    if not p.learned:
        return memory.recall(text, scope, k=p.k, ts=at, session=session, reinforce=False)
    c = candidates(memory, text, scope, session=session, at=at, p=p)
    if len(c.others) == 0:
        return c.kept[: p.k]
    likely = model().proba(c.x)[:, 1]
    # a stable order: the likelier first, on a tie the one met first (recall order)
    order = sorted(range(len(c.others)), key=lambda i: -float(likely[i]))
    return (c.kept + [c.others[i] for i in order])[: p.k]
