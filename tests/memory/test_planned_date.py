"""The date a plan is for, of the dates ahead in its turn (`dates.planned`): the first, or a time
said inside it ("this weekend … sunday 5:45am"); and the due time an event item gets from it.
Sentences written after the code, as someone who had not read it would."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import planned, resolve_dates

TZ = ZoneInfo("Europe/London")
SAID = datetime(2026, 6, 3, 19, 0, tzinfo=TZ)  # a Wednesday evening


def plan_of(text: str) -> datetime | None:
    found = planned([m for m in resolve_dates(text, SAID, TZ) if m.direction == "future"])
    return None if found is None else found.value.replace(tzinfo=None)


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("away this weekend, flight's sunday at 6:10am from gatwick", datetime(2026, 6, 7, 6, 10)),
        ("这周末去考科目三，周日早上八点半到考场", datetime(2026, 6, 7, 8, 30)),
        # a weekday later in a sentence about next week is next week's
        (
            "next week is chaos, only fixed thing is thursday 2pm with the auditors",
            datetime(2026, 6, 11, 14, 0),
        ),
        ("下礼拜好忙，礼拜二下午三点还要去签合同", datetime(2026, 6, 9, 15, 0)),
        # a time after a day outside it is another plan's: the first date stands
        (
            "friday is the school run, then saturday at 9 the car goes in for its MOT",
            datetime(2026, 6, 5, 0, 0),
        ),
        ("tomorrow, nothing fixed yet", datetime(2026, 6, 4, 0, 0)),
    ],
)
def test_the_date_a_plan_is_for(text: str, when: datetime) -> None:
    assert plan_of(text) == when


@pytest.mark.parametrize(
    ("text", "when"),
    [
        # the day a plan was moved to is its date, not the day it was moved from
        ("车行说周五修不了，帮我改到下周一下午两点", datetime(2026, 6, 8, 14, 0, tzinfo=TZ)),
        ("the salon pushed my cut from friday to saturday 10am", datetime(2026, 6, 6, 10, 0, tzinfo=TZ)),
    ],
)
def test_a_plan_moved_is_on_the_day_it_moved_to(text: str, when: datetime) -> None:
    found = planned([m for m in resolve_dates(text, SAID, TZ) if m.direction == "future"], text)
    assert found is not None and found.value == when
