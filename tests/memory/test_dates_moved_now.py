"""A new slot told after a move with "now" is ahead ("the garage rescheduled it, tuesday 2pm now"),
and 过去 as "going over" is no past ("我过去帮她搬"). Sentences written after the code (2026-12-07);
each case fails on the code before unless marked a guard."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates
from daemon.memory.dates.cues import tense

DUB = ZoneInfo("Europe/Dublin")
THU = datetime(2026, 3, 5, 18, 0, tzinfo=DUB)  # Thursday 5 March 2026


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("the garage rescheduled it, tuesday 2pm now", date(2026, 3, 10)),
        ("Orla shifted the fitting — monday at 11 now apparently", date(2026, 3, 9)),
        # guards: a "now" of another clause, and a move to a place
        ("we moved into the new flat on monday and now the boiler's dead", date(2026, 3, 2)),
    ],
)
def test_a_slot_told_with_now_after_a_move(text: str, day: date) -> None:
    [m] = resolve_dates(text, THU, DUB)
    assert m.value.date() == day, m


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("周六我过去帮她搬家", ""),
        # guards: a day ahead said too, and the past as a noun
        ("明天一早我开车过去接他们", "future"),
        ("过去两年我一直在广州上班", "past"),
        ("过去的事别提了", "past"),
    ],
)
def test_guoqu_as_going_over_is_no_past(text: str, said: str) -> None:
    assert tense(text) == said
