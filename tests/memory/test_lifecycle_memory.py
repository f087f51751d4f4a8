"""Memorize and forget through the Memory facade, on a real DuckDB file and the real model:
supersession, merges with provenance, consolidation and archiving, forgetting without a trace."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from daemon.memory import Memory
from daemon.memory.embed import content_hash
from tests.conftest import FakeClock, turn

T0 = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)


def _ids_of(memory: Memory, query: str, k: int = 5) -> list[str]:
    return [h.item_id for h in memory.recall(query, "alice", k=k, reinforce=False)]


def test_contradiction_supersedes_and_the_old_item_stops_winning(memory: Memory) -> None:
    memory.memorize([turn("p1", "I like MySQL for my side projects.", at=T0)])
    report = memory.memorize([turn("p2", "Use PostgreSQL, not MySQL.", at=T0 + timedelta(days=3))])
    assert report.superseded == 1 and report.items_added == 1
    rows = memory.store.con.execute(
        "SELECT id, l0, valid_until, superseded_by FROM items WHERE scope = 'alice' ORDER BY created_at, id"
    ).fetchall()
    old = next(r for r in rows if "MySQL for my side" in r[1])
    new = next(r for r in rows if "PostgreSQL" in r[1])
    assert old[3] == new[0] and old[2] == T0 + timedelta(days=3)  # valid until the new statement
    assert memory.get_item("alice", old[0]) is not None  # history kept
    hits = memory.recall("which database does Alice like", "alice", k=5, reinforce=False)
    assert [h.item_id for h in hits] == [new[0]]  # the superseded one never comes back
    ops = [(o["op"], o["item_id"]) for o in memory.ops("alice")]
    assert ("superseded", old[0]) in ops and ("created", new[0]) in ops
    # after a restart (index rebuilt from DuckDB) the same holds
    memory._indexes.clear()
    assert _ids_of(memory, "MySQL") == [new[0]]


def test_chinese_contradiction_supersedes(memory: Memory) -> None:
    memory.memorize([turn("z1", "我喜欢MySQL", at=T0)])
    report = memory.memorize([turn("z2", "以后都用PostgreSQL，不要用MySQL", at=T0 + timedelta(days=1))])
    assert report.superseded == 1


def test_restatements_merge_and_keep_all_provenance(memory: Memory) -> None:
    memory.memorize([turn("a1", "I live in Lisbon.", at=T0)])
    report = memory.memorize(
        [
            turn("a2", "I live in Lisbon.", at=T0 + timedelta(days=1), session="s2"),
            turn("a3", "I live in Lisbon!", at=T0 + timedelta(days=2), session="s3"),
        ]
    )
    assert report.items_added == 0 and report.skipped + report.merged == 2
    items = memory.store.con.execute(
        "SELECT id, mentions, importance FROM items WHERE scope='alice'"
    ).fetchall()
    assert len(items) == 1
    item_id, mentions, imp = items[0]
    assert mentions == 3 and imp > 0.65  # repeated mentions raise importance
    assert memory.get_item("alice", item_id)["source_ids"] == ["a1", "a2", "a3"]  # type: ignore[index]
    assert memory.recall("where does Alice live", "alice", k=1, reinforce=False)[0].source_ids == [
        "a1",
        "a2",
        "a3",
    ]


def test_duplicates_inside_one_batch_are_caught(memory: Memory) -> None:
    report = memory.memorize(
        [
            turn("b1", "My favourite tea is sencha.", at=T0),
            turn("b2", "My favourite tea is sencha.", at=T0 + timedelta(minutes=1)),
        ]
    )
    assert report.items_added == 1 and report.skipped == 1
    assert memory.stats("alice")["items"] == 1


def test_events_append(rule_memory: Memory) -> None:
    report = rule_memory.memorize(
        [
            turn("e1", "I went hiking at Mount Tam with my sister.", at=T0),
            turn("e2", "I went hiking at Mount Tam with my brother.", at=T0 + timedelta(days=7)),
        ]
    )
    assert report.items_added == 2


def test_consolidation_promotes_and_archives_and_restore_brings_back(
    rule_memory: Memory, clock: FakeClock
) -> None:
    memory = rule_memory  # decay mechanics: the rules file the market trip as an ordinary event
    memory.memorize(
        [
            turn("c1", "I went to the farmers market and bought apples.", at=T0),
            turn("c2", "Remember that I am allergic to penicillin.", at=T0),
            turn("c3", "I adopted a greyhound from the shelter.", at=T0),
        ]
    )
    ids = {
        r[0]: r[1]
        for r in memory.store.con.execute("SELECT s.resource_id, s.item_id FROM item_sources s").fetchall()
    }
    for _ in range(4):  # the greyhound is recalled again and again: it earns a higher tier
        memory.recall("greyhound shelter", "alice", k=1, ts=T0 + timedelta(days=2))
    report = memory.consolidate("alice", at=T0 + timedelta(days=3))["alice"]
    assert report["promoted"] >= 1 and report["archived"] == 0
    # six months on, nothing ordinary has been archived yet (people ask about last season)
    assert memory.consolidate("alice", at=T0 + timedelta(days=180))["alice"]["archived"] == 0
    tiers = dict(memory.store.con.execute("SELECT id, tier FROM items").fetchall())
    assert tiers[ids["c3"]] == "working" and tiers[ids["c1"]] == "peripheral"
    # fourteen months later the market trip (never used, ordinary) has faded; the pinned fact has not
    later = memory.consolidate("alice", at=T0 + timedelta(days=420))["alice"]
    assert later["archived"] >= 1
    state = {r[0]: r[1] for r in memory.store.con.execute("SELECT id, archived FROM items").fetchall()}
    assert state[ids["c1"]] and not state[ids["c2"]]
    assert ids["c1"] not in _ids_of(memory, "farmers market apples")
    assert memory.stats("alice")["resources"] == 3  # resources are never deleted by decay
    assert memory.consolidate("alice", at=T0 + timedelta(days=420))["alice"]["archived"] == 0  # idempotent
    clock.now = T0 + timedelta(days=421)
    assert memory.restore("alice", ids["c1"]) and not memory.restore("alice", ids["c1"])
    assert ids["c1"] in _ids_of(memory, "farmers market apples")
    assert memory.consolidate("alice", at=T0 + timedelta(days=422))["alice"]["archived"] == 0


def test_category_summaries_are_versioned_and_rebuilt_only_on_change(memory: Memory) -> None:
    memory.memorize([turn("k1", "I love rock climbing.", at=T0)])
    first = memory.get_category("alice", "preferences")
    assert first is not None and first["version"] == 1 and "[ref:" in first["summary"]
    memory.memorize([turn("k2", "We went to a concert in the park.", at=T0 + timedelta(days=1))])
    same = memory.get_category("alice", "preferences")
    assert same is not None and same["version"] == 1  # its items did not change
    memory.memorize([turn("k3", "I love sushi.", at=T0 + timedelta(days=2))])
    changed = memory.get_category("alice", "preferences")
    assert changed is not None and changed["version"] == 2 and "sushi" in changed["summary"]


def test_forget_leaves_no_trace(memory: Memory, embedder: object) -> None:
    memory.memorize(
        [
            turn("f1", "We planned the trip to Kyoto for April.", at=T0),
            turn("f2", "My bank PIN is hidden in the blue notebook.", at=T0 + timedelta(minutes=1)),
            turn("f3", "The trip needs a rail pass and a hotel.", at=T0 + timedelta(minutes=2)),
        ]
    )
    secret = memory.store.con.execute("SELECT item_id FROM item_sources WHERE resource_id = 'f2'").fetchone()
    assert secret is not None
    l0 = memory.get_item("alice", secret[0])["l0"]  # type: ignore[index]
    counts = memory.forget("alice", item_ids=[secret[0]])
    assert counts["items"] == 1 and counts["resources"] == 1 and counts["item_vectors"] == 1
    assert counts["postings"] > 0 and counts["embed_cache"] == 1 and counts["contexts_rewritten"] == 2
    con = memory.store.con
    for table, col in (
        ("resources", "text"),
        ("items", "l0"),
        ("items", "search_text"),
        ("items", "context_text"),
    ):
        assert con.execute(f"SELECT count(*) FROM {table} WHERE {col} ILIKE '%notebook%'").fetchone() == (0,)
    assert con.execute(
        "SELECT count(*) FROM postings WHERE term LIKE 'notebook%' OR term = 'pin'"
    ).fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM item_vectors WHERE item_id = ?", [secret[0]]).fetchone() == (0,)
    h = content_hash(memory.embedder.name, l0)
    assert con.execute("SELECT count(*) FROM embed_cache WHERE hash = ?", [h]).fetchone() == (0,)
    assert not memory.recall("notebook PIN", "alice", k=5, reinforce=False) or all(
        "notebook" not in h.text for h in memory.recall("notebook PIN", "alice", k=5, reinforce=False)
    )
    # the postings left are exactly what the remaining texts produce (nothing stale)
    from daemon.memory.read.bm25 import term_counts

    expected = set()
    for item_id, search, ctx in memory.store.items.item_texts("alice"):
        expected |= {(t, item_id, 0, c) for t, c in term_counts(search)[0].items()}
        expected |= {(t, item_id, 1, c) for t, c in term_counts(ctx)[0].items()}
    assert set(memory.store.index.item_postings("alice")) == expected


def test_forget_by_query_and_everything(memory: Memory) -> None:
    memory.memorize(
        [
            turn("q1", "My ex Jordan still has my bike.", at=T0),
            turn("q2", "Jordan called about the bike again.", at=T0 + timedelta(minutes=1)),
            turn("q3", "I bought a new helmet.", at=T0 + timedelta(minutes=2)),
            turn("o1", "Bob's notes.", scope="bob", at=T0),
        ]
    )
    dry = memory.forget("alice", query="Jordan bike", dry_run=True)
    assert dry["items"] == 2 and dry["resources"] == 2
    assert memory.stats("alice")["items"] == 3  # a dry run deletes nothing
    counts = memory.forget("alice", query="Jordan bike")
    assert counts["items"] == 2 and counts["resources"] == 2
    assert memory.stats("alice")["resources"] == 1
    everything = memory.forget("alice", everything=True)
    assert everything["resources"] == 1 and memory.stats("alice")["items"] == 0
    assert memory.stats("alice")["index_postings"] == 0
    assert memory.stats("bob")["resources"] == 1  # other scopes untouched


def test_forget_validates_its_arguments(memory: Memory) -> None:
    import pytest

    from daemon.errors import InvalidInput, ScopeRequired

    with pytest.raises(ScopeRequired):
        memory.forget("", everything=True)
    with pytest.raises(InvalidInput, match="exactly one"):
        memory.forget("alice")
    with pytest.raises(InvalidInput, match="no item"):
        memory.forget("alice", item_ids=["it_nope"])
    with pytest.raises(InvalidInput, match="no searchable words"):
        memory.forget("alice", query="the a of")


def test_schema_v1_file_migrates(tmp_path: Path) -> None:
    from daemon.memory.store import MIGRATIONS, Store

    path = tmp_path / "old.duckdb"
    import duckdb

    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TIMESTAMPTZ)")
    for sql in MIGRATIONS[0][1]:
        con.execute(sql)
    con.execute("INSERT INTO schema_version VALUES (1, now())")
    con.execute(
        "INSERT INTO items (id, scope, category, l0, search_text, content_hash, created_at, updated_at, happened_at)"
        " VALUES ('i1', 's', 'events', 'x', 'x', 'h', now(), now(), TIMESTAMPTZ '2023-01-01 00:00:00+00')"
    )
    con.close()
    store = Store(path)
    assert store.schema_version() == MIGRATIONS[-1][0]
    row = store.con.execute("SELECT mentions, observed_at FROM items WHERE id = 'i1'").fetchone()
    assert row == (1, datetime(2023, 1, 1, tzinfo=UTC))
    store.close()


def test_a_merge_keeps_provenance_and_makes_the_new_words_searchable(
    db_path: Path, embedder: object, clock: FakeClock
) -> None:
    with _merging(db_path, embedder, clock) as memory:
        memory.memorize([turn("l1", "I live in Lisbon.", at=T0)])
        report = memory.memorize(
            [
                turn(
                    "l2",
                    "I live in Lisbon, in a flat near the river.",
                    at=T0 + timedelta(days=2),
                    session="s2",
                )
            ]
        )
        assert report.merged == 1 and report.items_added == 0
        (item_id,) = [r[0] for r in memory.store.con.execute("SELECT id FROM items").fetchall()]
        item = memory.get_item("alice", item_id)
        assert item is not None and item["source_ids"] == ["l1", "l2"] and item["mentions"] == 2
        assert item["l0"] == "Alice: I live in Lisbon."  # the item keeps its text ...
        hit = memory.recall("flat near the river", "alice", k=1, reinforce=False)[0]
        assert hit.item_id == item_id and hit.source_ids == ["l1", "l2"]  # ... and finds the new words
        assert [o["op"] for o in memory.ops("alice")] == ["created", "merged"]
        memory._indexes.clear()  # the same after a rebuild from DuckDB
        assert memory.recall("flat near the river", "alice", k=1, reinforce=False)[0].source_ids == [
            "l1",
            "l2",
        ]


def test_a_late_older_statement_becomes_history_not_the_truth(memory: Memory) -> None:
    memory.memorize([turn("n1", "I live in Paris.", at=T0 + timedelta(days=120))])
    report = memory.memorize(
        [turn("n0", "I live in Boston.", at=T0, session="s0")]
    )  # said earlier, arrives later
    assert report.superseded == 1
    rows = dict(memory.store.con.execute("SELECT l0, superseded_by IS NOT NULL FROM items").fetchall())
    assert rows == {"Alice: I live in Paris.": False, "Alice: I live in Boston.": True}
    assert [h.text for h in memory.recall("where does Alice live", "alice", k=3, reinforce=False)] == [
        "Alice: I live in Paris."
    ]
    boston = memory.store.con.execute("SELECT valid_until FROM items WHERE l0 LIKE '%Boston%'").fetchone()
    assert boston == (T0 + timedelta(days=120),)  # valid until the newer statement was made


def _merging(db_path: Path, embedder: object, clock: FakeClock) -> Memory:
    """Thresholds under which a paraphrase lands between "similar" and "near-identical"."""
    from daemon.memory import MemoryParams
    from daemon.memory.write.dedup import DedupParams

    params = MemoryParams(
        dedup=DedupParams(same_threshold=0.85, skip_threshold=0.999, skip_threshold_latin=0.999), batch_size=1
    )
    return Memory.open(db_path, embedder, params, clock=clock)  # type: ignore[arg-type]


def test_forgetting_a_merged_restatement_removes_its_words_and_keeps_the_rest(
    db_path: Path, embedder: object, clock: FakeClock
) -> None:
    with _merging(db_path, embedder, clock) as memory:
        memory.memorize([turn("h1", "I really love hiking in the mountains.", at=T0)])
        report = memory.memorize(
            [
                turn(
                    "h2",
                    "I really love hiking in the mountains with my secret lover.",
                    at=T0 + timedelta(days=1),
                    session="s2",
                )
            ]
        )
        assert report.merged == 1
        cached = memory.store.con.execute("SELECT count(*) FROM embed_cache").fetchone()
        counts = memory.forget("alice", query="lover")
        assert counts["resources"] == 1 and counts["reextracted"] == 1
        con = memory.store.con
        for sql in (
            "SELECT count(*) FROM items WHERE l0 ILIKE '%lover%' OR l1::TEXT ILIKE '%lover%' OR context_text ILIKE '%lover%'",
            "SELECT count(*) FROM postings WHERE term LIKE 'lover%'",
            "SELECT count(*) FROM resources WHERE text ILIKE '%lover%'",
        ):
            assert con.execute(sql).fetchone() == (0,), sql
        # the merged draft's cached vector went too; the surviving text's is still there
        assert cached is not None and con.execute("SELECT count(*) FROM embed_cache").fetchone() == (
            cached[0] - 1,
        )
        hits = memory.recall("hiking in the mountains", "alice", k=3, reinforce=False)
        assert [h.source_ids for h in hits] == [["h1"]]  # what h1 said is still remembered


def test_the_turn_after_a_skipped_restatement_joins_the_item_it_repeated(
    db_path: Path, embedder: object, clock: FakeClock
) -> None:
    with _merging(db_path, embedder, clock) as memory:
        memory.memorize(
            [
                turn("x1", "My favourite tea is sencha.", at=T0),
                turn("x2", "Which one again?", speaker="Bob", at=T0 + timedelta(minutes=1)),
                turn("x3", "My favourite tea is sencha.", at=T0 + timedelta(minutes=2)),  # SKIP
                turn("x4", "Noted, the secret code is zebra42.", speaker="Bob", at=T0 + timedelta(minutes=3)),
            ]
        )
        con = memory.store.con
        orphans = con.execute(
            "SELECT count(*) FROM postings p ANTI JOIN items i ON i.id = p.item_id"
        ).fetchone()
        assert orphans == (0,)  # no posting without its item
        owner = con.execute("SELECT item_id FROM postings WHERE term = 'zebra42' AND field = 2").fetchall()
        first = con.execute("SELECT item_id FROM item_sources WHERE resource_id = 'x1'").fetchone()
        assert first is not None and (first[0],) in owner  # the repeated item got the turn after it
        memory.forget("alice", everything=True)
        assert con.execute("SELECT count(*) FROM postings").fetchone() == (0,)
