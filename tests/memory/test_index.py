"""Tokenisation (English and Chinese) and the inverted index staying consistent with the table."""

from __future__ import annotations

import numpy as np

from daemon.memory import Memory
from daemon.memory.read.bm25 import BM25Index, term_counts, tokenize
from tests.conftest import turn


def test_english_is_case_folded_stemmed_and_stopword_free() -> None:
    assert tokenize("The PAINTINGS she Painted") == ["paint", "paint"]
    assert tokenize("I'm running; Caroline's dogs") == ["run", "caroline", "dog"]
    assert "the" not in tokenize("the the the cat")


def test_chinese_is_segmented_into_words_not_only_characters() -> None:
    terms = tokenize("我昨天去了北京大学参加支持小组")
    assert "北京大学" in terms and "昨天" in terms and "小组" in terms
    assert any(len(t) >= 2 for t in terms)
    assert "了" not in terms  # a function word


def test_mixed_script_text() -> None:
    terms = tokenize("明天下午三点和Bob开会 about DuckDB")
    assert {"明天", "下午", "开会", "bob", "duckdb"} <= set(terms)


def test_bm25_prefers_rare_terms_and_handles_tf() -> None:
    idx = BM25Index()
    docs = ["cat dog", "cat cat cat", "dog bird", "fish"]
    for i, d in enumerate(docs):
        counts, n = term_counts(d)
        idx.add(i, dict(counts), n)
    s = idx.scores(["bird"])
    assert s.argmax() == 2 and s[0] == 0
    s = idx.scores(["cat"])
    assert s[1] > s[0] > 0 and s[3] == 0
    assert np.all(idx.scores(["unknownterm"]) == 0)


def test_postings_match_the_items_after_updates(memory: Memory) -> None:
    memory.memorize([turn(f"p{i}", f"I bought {i} red apples at the Saturday market.") for i in range(3)])
    memory.recall("apples", "alice")  # builds the in-memory index
    # a later turn of session s1 extends the context of the last item already indexed
    memory.memorize([turn("p9", "The farmer also sold fresh pears and plums.")])
    memory.memorize([turn(f"q{i}", f"我在超市买了{i}个苹果和香蕉", session="s2") for i in range(3)])
    # 1. the postings table equals a re-tokenisation of every item's two fields
    expected: dict[tuple[str, str, int], int] = {}
    for item_id, own, context in memory.store.items.item_texts("alice"):
        for field, text in ((0, own), (1, context)):
            for term, tf in term_counts(text)[0].items():
                expected[(term, item_id, field)] = tf
    stored = {(t, i, f): tf for t, i, f, tf in memory.store.index.item_postings("alice")}
    assert stored == expected
    contexts = {i: c for i, _, c in memory.store.items.item_texts("alice")}
    assert any("pears and plums" in c and "apples" in c for c in contexts.values())
    # 2. the incrementally updated in-memory index scores like one rebuilt from DuckDB
    live = memory.scope_index("alice")
    memory._indexes.clear()
    rebuilt = memory.scope_index("alice")
    assert sorted(live.ids) == sorted(rebuilt.ids)
    for q in (["apple"], ["苹果"], ["market", "red"], ["pear"]):
        for name in ("own", "context"):
            a = dict(zip(live.ids, getattr(live, name).scores(q), strict=True))
            b = dict(zip(rebuilt.ids, getattr(rebuilt, name).scores(q), strict=True))
            for key in a:
                assert abs(a[key] - b[key]) < 1e-5, (name, q, key)
        sa = dict(zip(live.session_docs, live.by_session.scores(q), strict=False))
        sb = dict(zip(rebuilt.session_docs, rebuilt.by_session.scores(q), strict=False))
        assert sa.keys() == sb.keys()
        for key in sa:
            assert abs(sa[key] - sb[key]) < 1e-5, ("session", q, key)


def test_index_notices_a_write_from_elsewhere(memory: Memory) -> None:
    memory.memorize([turn("w1", "Our dentist appointment is at the clinic on Elm Street.")])
    idx = memory.scope_index("alice")
    memory.store.bump_generation(["alice"])  # as if another writer had changed the scope
    assert memory.scope_index("alice") is not idx
