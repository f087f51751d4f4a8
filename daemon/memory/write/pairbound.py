"""The update model's P bounded before the older statement's words are read.

A write weighs a draft against its `UPDATE_CANDIDATES` most similar older statements, and every
pair used to cost the older statement's surface cues (a dozen patterns over its text, cached by
text). In a big scope the pool is full and its statements rarely repeat, so those cues were most
of what a write's update check cost there, and grew with the scope (issue 25: the cue cache hit
less as the scope grew, 2,625 → 4,255 computations for 500 writes from 10k to 100k items).

The model is linear in its features, and the features that read the older statement's words are
bounded (an overlap in [0, 1], a cue 0 or 1: `features.pair_feature_ranges`), while the rest (the
newer statement's cues, the cosine, the two vectors) are known. So P has an upper bound without
those words; a pair whose bound stays under the lowest bar the write compares P with cannot pass
any of them, whatever its words say, and its words are not read. Every comparison, and so every
decision, is the one the exact P gives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from daemon.memory.models import Understanding
from daemon.memory.models.features import pair_feature_ranges
from daemon.memory.models.linear import LinearModel

# A pair is skipped only when its bound is this far (in the model's log-odds) below the bar: the
# bound is summed in float64, the model's score in float32 (a gap of ~1e-5 on these scores).
MARGIN = 1e-2


class _Slopes(NamedTuple):
    """The model's score w · (x - mean) / scale + b as a linear function of the raw features x:
    a constant and a slope per part of x (the pair features, the newer vector, the older vector,
    their product)."""

    const: float
    pair: np.ndarray
    new: np.ndarray
    old: np.ndarray
    product: np.ndarray


_SLOPES: dict[int, tuple[LinearModel, _Slopes]] = {}  # id(model) → (the model, kept alive; its slopes)


def _slopes(m: LinearModel, k: int, d: int) -> _Slopes:
    got = _SLOPES.get(id(m))
    if got is None or got[0] is not m:
        a = m.weights[0].astype(np.float64) / m.scale.astype(np.float64)
        const = float(m.bias[0]) - float(a @ m.mean.astype(np.float64))
        got = (m, _Slopes(const, a[:k], a[k : k + d], a[k + d : k + 2 * d], a[k + 2 * d :]))
        _SLOPES[id(m)] = got
    return got[1]


def bounded(u: Understanding) -> bool:
    """Whether the update model is one whose P this module can bound: a binary linear model
    over the pair features, then (when it reads vectors) the two embeddings and their product."""
    m = u.update
    return m.hidden_weights is None and m.weights.shape[0] == 1 and m.classes[-1] == "update"


def upper_p(
    u: Understanding,
    olds: Sequence[tuple[str, np.ndarray, float]],
    new_text: str,
    new_category: str,
    new_vector: np.ndarray,
) -> np.ndarray:
    """The most P(update) can be for each older statement (category, vector, cosine to the
    newer one) whatever its words, the newer one being `new_text` (bare) of `new_category`.
    Call only when `bounded(u)`; all ones (no bound) for a feature layout it does not know."""
    m = u.update
    lo, hi = pair_feature_ranges(
        new_text, new_category, [c for c, _, _ in olds], [s for _, _, s in olds] if u.uses_vectors else None
    )
    k = lo.shape[1]
    d = int(np.asarray(new_vector).shape[-1]) if u.uses_vectors else 0
    if m.dim != k + 3 * d:  # another layout than update_probability's: no bound
        return np.ones(len(olds))
    s = _slopes(m, k, d)
    z_up = s.const + np.maximum(lo * s.pair, hi * s.pair).sum(axis=1)
    if d:
        new = np.asarray(new_vector, dtype=np.float32).reshape(-1)
        old = np.stack([v for _, v, _ in olds]).astype(np.float64)
        # new · a_new + old · a_old + (old * new) · a_product, the last two as one product; the
        # model multiplies old * new in float32 first: the difference is far inside MARGIN
        z_up = z_up + float(s.new @ new) + old @ (s.old + new.astype(np.float64) * s.product)
    out: np.ndarray = 1.0 / (1.0 + np.exp(-z_up))
    return out


def below(p_up: np.ndarray, bar: float) -> np.ndarray:
    """Which bounds keep P under `bar` with room to spare (`MARGIN` in log-odds)."""
    if not 0.0 < bar < 1.0:
        return np.zeros(p_up.shape, bool)
    logit = math.log(bar / (1.0 - bar)) - MARGIN
    out: np.ndarray = p_up < 1.0 / (1.0 + math.exp(-logit))
    return out
