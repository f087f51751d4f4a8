"""A day's time said apart from it: a timetable in the present ("sunday we race at 7:30am"), a
clock naming a thing the Chinese way ("7:10 那班大巴"), a part of the day refined by a clock near
it ("周六一早 … 7:10"). Sentences written after the change (2026-12-05)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import planned, resolve_dates

TZ = ZoneInfo("Europe/London")
WED = datetime(2026, 5, 13, 12, 0, tzinfo=TZ)  # a Wednesday; Saturday is the 16th, Sunday the 17th


def plan_time(text: str) -> str | None:
    ahead = [m for m in resolve_dates(text, WED, TZ) if m.direction == "future"]
    p = planned(ahead)
    return p.value.strftime("%a %d %H:%M") if p is not None and p.has_time else None


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("sunday we race in Leeds at 7:30am, bring the spare wheel", "Sun 17 07:30"),
        ("周六一早去爬山，坐 7:10 那班大巴，别睡过头", "Sat 16 07:10"),
        ("周六一大早出发，赶7:25那趟高铁", "Sat 16 07:25"),  # no space: the clock ends at 那
        ("saturday morning the club rides out, meeting point is the 8:15 ferry", "Sat 16 08:15"),
    ],
)
def test_the_time_said_apart_from_its_day_is_the_plans(text: str, when: str) -> None:
    assert plan_time(text) == when


@pytest.mark.parametrize(
    "text",
    [
        "we race at 7:30am",  # no day: a routine
        "我一早同你讲咗啦",  # Cantonese 一早 alone is "long since", no morning
    ],
)
def test_no_day_no_time(text: str) -> None:
    assert resolve_dates(text, WED, TZ) == []


def test_a_clock_hours_away_from_the_part_of_the_day_does_not_move_the_plan() -> None:
    assert plan_time("saturday evening drinks at the Crown, then the 11:40 bus home") == "Sat 16 20:00"
