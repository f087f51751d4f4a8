""" "would" contracted is ahead as "would" is: "the tailor said it'd be done monday" is the coming
Monday, not the one before the sentence's "said". Sentences written after the code (2026-12-07);
each fails on the code before unless marked a guard."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates

LIM = ZoneInfo("America/Lima")
WED = datetime(2026, 6, 10, 12, 0, tzinfo=LIM)  # Wednesday 10 June 2026


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("the tailor said it'd be done monday, she was very sure about it", date(2026, 6, 15)),
        ("Lucho told me he'd be in town on friday. no idea why", date(2026, 6, 12)),
        # guard: "would" written out was read so before
        ("the garage said it would be ready thursday afternoon", date(2026, 6, 11)),
    ],
)
def test_a_contracted_would_is_ahead(text: str, day: date) -> None:
    [m] = resolve_dates(text, WED, LIM)
    assert (m.value.astimezone(LIM).date(), m.direction) == (day, "future")
