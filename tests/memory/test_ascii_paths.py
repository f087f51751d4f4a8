"""ASCII text is read by plain patterns: the update model's statement cues through lower-cased
patterns (`features._LOWER`), BM25's terms through a plain word pattern (`bm25._WORD_ASCII`).
They must give what the general path gives, on every sentence the project holds and on its
upper- and title-cased forms."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from daemon.memory.models import features as F

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _sentences() -> list[str]:
    out: set[str] = set()
    for path in sorted(DATA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.update(s for s in _strings(json.loads(line)) if s.isascii() and " " in s)
    return sorted(out)


def _reference(text: str) -> F._Cues:
    """The cues as read before the lower-cased patterns: each IGNORECASE pattern on the text."""
    return F._Cues(
        frozenset(F._content_terms(text)),
        frozenset(F._names(text)),
        F._relations(text),
        F._cue(F._CHANGE_EN, F._CHANGE_ZH, text),
        F._cue(F._HISTORY_EN, F._HISTORY_ZH, text),
        F._cue(F._ADD_EN, F._ADD_ZH, text),
        F._cue(F._NEG_EN, F._NEG_ZH, text),
        F._cue(F._TRIP_EN, F._TRIP_ZH, text),
    )


SENTENCES = _sentences()


def test_there_are_sentences_to_compare() -> None:
    assert len(SENTENCES) > 2000


@pytest.mark.parametrize("form", [str, str.upper, str.title, str.swapcase])
def test_ascii_cues_are_the_ignorecase_cues(form: Any) -> None:
    differ = [
        text
        for text in map(form, SENTENCES)
        if F._statement_cues.__wrapped__(text) != _reference(text)  # type: ignore[attr-defined]
    ]
    assert differ == []


def test_every_cue_fires_somewhere() -> None:
    """The comparison means something: each cue is on for some sentences and off for others."""
    cues = [F._statement_cues.__wrapped__(t) for t in SENTENCES]  # type: ignore[attr-defined]
    for field in ("change", "history", "additive", "negation", "trip"):
        on = sum(getattr(c, field) for c in cues)
        assert 0 < on < len(cues), field
    assert any(c.relations for c in cues)


@pytest.mark.parametrize("form", [str, str.upper, str.title])
def test_ascii_tokens_are_the_general_tokens(form: Any) -> None:
    """`tokenize` reads ASCII text with a plain word pattern: the terms are the general path's."""
    from daemon.memory.read import bm25

    texts = [*map(form, SENTENCES), "don't can't o'clock rock'n'roll 3pm 10:30 e-mail __init__ a_b x''y"]
    assert [t for t in texts if bm25.tokenize(t) != bm25._tokenize_any(t)] == []
