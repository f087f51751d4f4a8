"""Writes read the scope index, not a scan of DuckDB (issue 25).

A write batch finds its exact-text candidates (`SameContent`) and its category summaries
(`CategoryRanks`) in structures kept beside the scope index. These tests hold both to the scan
they replace: the structures against a brute-force recount after random changes, and, through a
real Memory on a real DuckDB file, the summaries against DuckDB's own ranking after writes,
restatements, retirements, archiving, restores and a correction.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from daemon.memory import Memory
from daemon.memory.store import CATEGORY_TOP
from daemon.memory.write.categoryranks import CategoryRanks
from daemon.memory.write.plan import item_hash
from daemon.memory.write.samecontent import SameContent
from tests.conftest import FakeClock, turn

T0 = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)
CATEGORIES = ["profile", "preferences", "entities", "events", "cases", "patterns"]


def _ranked(
    ids: list[str], cats: list[str], active: list[bool], imp: list[float], created: list[int], c: str
) -> list[int]:
    rows = [r for r in range(len(ids)) if active[r] and cats[r] == c]
    return sorted(rows, key=lambda r: (-imp[r], -created[r], ids[r]))


def test_category_ranks_follow_random_changes_like_a_full_ranking() -> None:
    rng = random.Random(5)
    ids: list[str] = []
    cats: list[str] = []
    active: list[bool] = []
    imp: list[float] = []
    created: list[int] = []
    ranks = CategoryRanks.build(ids, cats, active, imp, created)
    for step in range(3000):
        op = rng.random()
        if op < 0.4 or not ids:  # a new row; few distinct keys, so ties are common
            ids.append(f"it_{rng.randrange(10**6):06d}_{step}")
            cats.append(rng.choice(CATEGORIES[:3]))
            active.append(True)
            imp.append(rng.choice([0.5, 0.55, 0.6, 0.7]))
            created.append(rng.choice([10, 20, 30]))
            ranks.add(len(ids) - 1, imp[-1], created[-1])
        else:
            row = rng.randrange(len(ids))
            if op < 0.6:
                active[row] = False
                ranks.deactivate(row)
            elif op < 0.75:
                active[row] = True
                ranks.activate(row)
            else:
                imp[row] = round(min(1.0, imp[row] + 0.05), 3)
                ranks.set_importance(row, imp[row])
        if step % 100 == 0 or step == 2999:
            for c in CATEGORIES[:3]:
                full = _ranked(ids, cats, active, imp, created, c)
                assert ranks.summary(c, 20) == (len(full), full[:20])
    # built from scratch over the final state: the same order
    again = CategoryRanks.build(ids, cats, active, imp, created)
    for c in CATEGORIES[:3]:
        assert again.summary(c, 10**6) == ranks.summary(c, 10**6)


def test_same_content_finds_the_lowest_active_id_like_a_scan() -> None:
    rng = random.Random(9)
    texts = ["I like tea.", "I like coffee.", "Bob is my boss."]
    l0: list[str] = []
    cats: list[str] = []
    speakers: list[str | None] = []
    ids: list[str] = []
    active = np.zeros(0, bool)
    same = SameContent()
    for step in range(600):
        l0.append(rng.choice(texts))
        cats.append(rng.choice(["preferences", "entities"]))
        speakers.append(rng.choice([None, "", "Alice"]))
        ids.append(f"it_{rng.randrange(10**6):06d}")
        active = np.append(active, rng.random() < 0.7)
        if step % 7 == 0:
            active[rng.randrange(len(ids))] ^= True
        if step % 25 == 0:
            same.refresh(l0, cats, speakers)
            keys = [
                (c, s, item_hash(t))
                for c in ("preferences", "entities")
                for s in ("", "Alice")
                for t in texts
            ]
            scan: dict[Any, str] = {}
            for r in range(len(ids)):
                if r < len(l0) and active[r]:
                    key = (cats[r], speakers[r] or "", item_hash(l0[r]))
                    scan[key] = min(scan.get(key, ids[r]), ids[r])
            assert same.find(keys, ids, active) == {k: v for k, v in scan.items() if k in keys}


def _duckdb_summaries(memory: Memory, scope: str) -> dict[str, tuple[int, list[str]]]:
    """What `Store.refresh_categories` ranks: the scan the write path no longer runs."""
    out: dict[str, tuple[int, list[str]]] = {c: (0, []) for c in CATEGORIES}
    rows = memory.store.con.execute(
        "SELECT category, id, l0, count(*) OVER (PARTITION BY category),"
        " row_number() OVER (PARTITION BY category ORDER BY importance DESC, created_at DESC, id) AS rank"
        " FROM items WHERE scope = ? AND NOT archived AND superseded_by IS NULL ORDER BY category, rank",
        [scope],
    ).fetchall()
    for c, item_id, l0, n, rank in rows:
        _, lines = out.setdefault(c, (0, []))
        if rank <= CATEGORY_TOP:
            lines.append(f"- {l0} [ref:{item_id}]")
        out[c] = (int(n), lines)
    return out


def _check(memory: Memory, scope: str = "alice", stored_too: bool = True) -> None:
    idx = memory.scope_index(scope)
    assert idx.ranks is not None, "the write path keeps the ranks"
    assert idx.category_summaries(CATEGORIES, CATEGORY_TOP) == _duckdb_summaries(memory, scope)
    if not stored_too:  # a restore does not rewrite the summaries (it never did)
        return
    # after a write, the stored summaries are what a full refresh computes: nothing to rewrite
    stored = [
        r[0]
        for r in memory.store.con.execute("SELECT name FROM categories WHERE scope = ?", [scope]).fetchall()
    ]
    assert stored
    with memory.store.transaction():
        assert memory.store.lifecycle.refresh_categories(scope, stored, memory.clock()) == []


TURNS = [
    "I like MySQL for my side projects.",
    "My boss is Dana Whitfield.",
    "I live in Leeds.",
    "We went to the farmers market and bought apples on Saturday.",
    "I prefer green tea over coffee in the morning.",
    "My sister Maria lives in Porto.",
    "I work as a nurse at the city hospital.",
    "I adopted a greyhound named Pixel from the shelter.",
]
LATER = [
    "I like MySQL for my side projects.",  # the same words again: absorbed, importance up
    "I prefer green tea over coffee in the morning.",
    "I switched to PostgreSQL, I don't use MySQL anymore.",  # retires the MySQL preference
    "I moved to Bristol last month.",  # a new location retires Leeds
    "My new boss is Priya Raman.",
    "We watched a documentary about octopuses last night.",
]


def test_writes_keep_category_summaries_equal_to_a_duckdb_ranking(memory: Memory, clock: FakeClock) -> None:
    at = iter(T0 + timedelta(minutes=i) for i in range(1000))
    memory.memorize([turn(f"a{i}", t, at=next(at)) for i, t in enumerate(TURNS)])
    _check(memory)
    clock.advance(days=1)
    memory.memorize([turn(f"b{i}", t, session="s2", at=next(at)) for i, t in enumerate(LATER)])
    assert (
        memory.store.con.execute("SELECT count(*) FROM items WHERE superseded_by IS NOT NULL").fetchone()[0]
        > 0
    )
    assert memory.store.con.execute("SELECT max(mentions) FROM items").fetchone()[0] > 1
    _check(memory)
    # archive most of it, restore one, correct one: the lifecycle patches the index, the ranks follow
    clock.advance(days=400)
    memory.consolidate("alice")
    archived = [
        r[0] for r in memory.store.con.execute("SELECT id FROM items WHERE archived ORDER BY id").fetchall()
    ]
    assert archived, "consolidation archived something"
    assert memory.restore("alice", archived[0])
    _check(memory, stored_too=False)
    live = memory.store.con.execute(
        "SELECT id FROM items WHERE NOT archived AND superseded_by IS NULL AND category = 'profile' ORDER BY id"
    ).fetchone()
    if live:
        memory.correct("alice", live[0], "I live in Cardiff now.")
    clock.advance(minutes=5)
    memory.memorize([turn(f"c{i}", t, session="s3", at=next(at)) for i, t in enumerate(TURNS[::-1])])
    _check(memory)


def test_a_write_batch_reads_its_candidates_and_summaries_from_the_index(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.memorize([turn(f"a{i}", t, at=T0 + timedelta(minutes=i)) for i, t in enumerate(TURNS)])
    scans: list[str] = []
    for repo, name in ((memory.store.lifecycle, "refresh_categories"), (memory.store.items, "items_by_hash")):
        real = getattr(repo, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            scans.append(_name)
            return _real(*args, **kw)

        monkeypatch.setattr(repo, name, counted)
    report = memory.memorize(
        [turn(f"b{i}", t, session="s2", at=T0 + timedelta(hours=1, minutes=i)) for i, t in enumerate(LATER)]
    )
    assert report.items_added + report.merged + report.skipped > 0
    assert scans == []
    monkeypatch.undo()
    _check(memory)


def test_a_failed_commit_drops_the_patched_index(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    memory.memorize([turn(f"a{i}", t, at=T0 + timedelta(minutes=i)) for i, t in enumerate(TURNS)])
    before = len(memory.scope_index("alice"))

    def broken(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("disk full")

    monkeypatch.setattr(memory.store.lifecycle, "write_categories", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        memory.memorize([turn("b0", LATER[3], session="s2", at=T0 + timedelta(hours=1))])
    # the index had followed the batch inside the transaction; the transaction rolled back
    assert "alice" not in memory._indexes
    monkeypatch.undo()
    assert len(memory.scope_index("alice")) == before
    memory.memorize([turn("b0", LATER[3], session="s2", at=T0 + timedelta(hours=1))])
    _check(memory)


def test_previous_turn_in_two_lookups_equals_the_one_query_it_replaced(memory: Memory) -> None:
    """`Store.previous_turn` (two indexed lookups) against the correlated query it replaced,
    for every turn of a few sessions: late turns, equal times, noise turns without an item."""
    same_time = T0 + timedelta(minutes=30)
    turns = [
        turn("t1", TURNS[0], session="s1", at=T0),
        turn("t2", "haha ok", session="s1", at=T0 + timedelta(minutes=1)),
        turn("t4", TURNS[1], session="s1", at=same_time),
        turn("t3", TURNS[2], session="s1", at=same_time),  # same time, smaller id: before t4
        turn("u1", TURNS[3], session="s2", at=T0 + timedelta(minutes=2)),
        turn("u2", LATER[0], session="s2", at=T0 + timedelta(minutes=3)),  # absorbed into u1's item
    ]
    memory.memorize(turns)
    memory.memorize([turn("t0", TURNS[4], session="s1", at=T0 - timedelta(minutes=5))])  # late
    old = (
        "SELECT coalesce(r.speaker, r.role, ''), r.text,"
        " (SELECT min(s.item_id) FROM item_sources s WHERE s.scope = r.scope AND s.resource_id = r.id)"
        " FROM resources r WHERE r.scope = ? AND r.session = ?"
        " AND (r.occurred_at < ? OR (r.occurred_at = ? AND r.id < ?))"
        " ORDER BY r.occurred_at DESC, r.id DESC LIMIT 1"
    )
    rows = memory.store.con.execute("SELECT session, occurred_at, id FROM resources ORDER BY ALL").fetchall()
    seen_items = 0
    for session, at, rid in [*rows, ("s1", T0 + timedelta(days=1), "z"), ("s3", T0, "a")]:
        want = memory.store.con.execute(old, ["alice", session, at, at, rid]).fetchone()
        got = memory.store.resources.previous_turn("alice", session, at, rid)
        assert got == (tuple(want) if want else ("", "", None))
        seen_items += got[2] is not None
    assert seen_items >= 3
