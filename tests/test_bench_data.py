"""The hand-labelled dedup pairs that bench/dedup_threshold.py calibrates on: shape only, no model."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

PAIRS = Path(__file__).resolve().parents[1] / "bench" / "data" / "dedup_pairs.jsonl"
CATEGORIES = {"profile", "preferences", "entities", "events", "cases", "patterns"}
LABELS = {"same", "update", "related", "unrelated"}
LANGS = {"en", "zh"}
KEYS = {"a", "b", "category", "lang", "label", "note"}
SPEAKER = re.compile(r"^[^:：\s][^:：]{0,30}: \S")  # stored items read `Speaker: text`
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, str]]:
    rows = []
    for n, line in enumerate(PAIRS.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            assert isinstance(row, dict), f"line {n} is not an object"
            rows.append(row)
    return rows


def test_rows_are_well_formed(pairs: list[dict[str, str]]) -> None:
    assert len(pairs) >= 150
    for n, p in enumerate(pairs, 1):
        assert set(p) == KEYS, f"pair {n}: keys {sorted(p)}"
        assert all(isinstance(p[k], str) and p[k].strip() for k in KEYS), f"pair {n}: empty field"
        assert p["label"] in LABELS, f"pair {n}: label {p['label']!r}"
        assert p["category"] in CATEGORIES, f"pair {n}: category {p['category']!r}"
        assert p["lang"] in LANGS, f"pair {n}: lang {p['lang']!r}"
        for side in ("a", "b"):
            text = p[side]
            assert SPEAKER.match(text), f"pair {n}: {side} lacks the `Speaker: ` prefix"
            assert "\n" not in text, f"pair {n}: {side} is not one line"
            assert bool(CJK.search(text)) == (p["lang"] == "zh"), f"pair {n}: {side} vs lang"
        assert p["a"].split(":", 1)[0] == p["b"].split(":", 1)[0], f"pair {n}: speakers differ"


def test_categories_match_the_store() -> None:
    from daemon.memory.types import CATEGORIES as STORE_CATEGORIES

    assert set(STORE_CATEGORIES) == CATEGORIES


def test_coverage(pairs: list[dict[str, str]]) -> None:
    assert {p["category"] for p in pairs} == CATEGORIES
    assert {p["lang"] for p in pairs} == LANGS
    assert {p["label"] for p in pairs} == LABELS
    for lang in LANGS:
        assert {p["label"] for p in pairs if p["lang"] == lang} == LABELS, lang
    share_zh = Counter(p["lang"] for p in pairs)["zh"] / len(pairs)
    assert 0.25 <= share_zh <= 0.45


def test_no_duplicate_or_degenerate_pairs(pairs: list[dict[str, str]]) -> None:
    seen: set[frozenset[str]] = set()
    for n, p in enumerate(pairs, 1):
        assert p["a"] != p["b"], f"pair {n}: a == b"
        key = frozenset((p["a"], p["b"]))  # (a, b) and (b, a) are the same pair
        assert key not in seen, f"pair {n} repeats an earlier pair"
        seen.add(key)
