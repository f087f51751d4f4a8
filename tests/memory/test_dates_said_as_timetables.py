"""Clocks said the way tickets and rosters say them: after what happens at them ("departs 7:20",
"boarding time 5:50"), as four figures ("0610", "1415 hrs"), and deadlines said as "end of day" or
"COB" (daemon/memory/dates/en.py, en_time.py `four_figures`). Sentences written after the change
(2026-12-07), none of them from a scenario."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import planned, resolve_dates

TZ = ZoneInfo("Pacific/Port_Moresby")
WED = datetime(2026, 6, 10, 13, 0, tzinfo=TZ)  # a Wednesday; Friday is the 12th, Sunday the 14th


def plan_time(text: str) -> str | None:
    ahead = [m for m in resolve_dates(text, WED, TZ) if m.direction == "future"]
    p = planned(ahead, text)
    return p.value.strftime("%a %d %H:%M") if p is not None and p.has_time else None


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("coach to lae is friday morning, departs 7:20 from the gordons market stop", "Fri 12 07:20"),
        ("sunday arvo footy, kick-off 3:45 at the oval", "Sun 14 15:45"),
        ("PX flight on friday, boarding time 9:35 so dont be late", "Fri 12 09:35"),
        ("the charter is sunday, takes off 0610 from jacksons", "Sun 14 06:10"),
        ("roster says friday, start time 0430 at the wharf gate", "Fri 12 04:30"),
        ("induction friday 1415 hrs in the site office", "Fri 12 14:15"),
        # a day then four zero-led figures straight after it: the 24-hour clock, not 18:10
        ("the flight home is sunday 0610", "Sun 14 06:10"),
    ],
)
def test_a_clock_said_as_a_timetable_says_it_is_the_plans(text: str, when: str) -> None:
    assert plan_time(text) == when


@pytest.mark.parametrize(
    "text",
    [
        "sunday we counted 212 bags at the depot",  # a count, no clock
        "meet me friday at 1130 Hubert Murray Hwy",  # a street number after "at"
        "the gate code is 0420 for friday",  # a code: nothing happens at it
        "season starts 2027 on friday, can't wait",  # a year after "starts"
    ],
)
def test_figures_that_are_no_clock_give_no_time(text: str) -> None:
    assert plan_time(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "told the inspector last week i'd have the forms in by end of day friday",
        "she said it had to reach head office COB friday",
        "the auditor wanted the log by close of business on friday, I sent half already",
    ],
)
def test_end_of_day_before_a_weekday_is_a_deadline_ahead(text: str) -> None:
    days = [m for m in resolve_dates(text, WED, TZ) if m.text.lower().endswith("friday")]
    assert [(m.value.strftime("%a %d"), m.direction) for m in days] == [("Fri 12", "future")]


@pytest.mark.parametrize(
    ("text", "when"),
    [
        # a bare hour after "at" is the time of the day named with it, in its sentence or the one before
        ("on sunday the whole crew is heading up to the ridge at 8", "Sun 14 08:00"),
        ("friday's the golf day. we tee off around 10 with the Kokopo lads", "Fri 12 10:00"),
        # a departure's clock of 4-6 without am/pm is read as a ticket writes it
        ("we're on the 5:35 coach to goroka on friday, cant wait", "Fri 12 05:35"),
        ("dinghy to the island is sunday, departs 6:10 from the yacht club", "Sun 14 06:10"),
    ],
)
def test_an_hour_said_apart_from_its_day_is_its_time(text: str, when: str) -> None:
    assert plan_time(text) == when


@pytest.mark.parametrize(
    ("text", "when"),
    [
        # guards: an hour of something else, a count, a bare hour with no day, a trip home at dusk
        ("friday is sorted, the briefing's at 9 so I'll go after", None),
        ("on sunday (mass is at 8) we'll do the market", None),
        ("see you at 6 then", None),
        ("on friday I'll be at 10 Downing Street, no joke", None),
        ("friday I'm on the 5:40 bus home from work", "Fri 12 17:40"),
    ],
)
def test_an_hour_of_another_thing_or_of_no_day_is_not_the_plans(text: str, when: str | None) -> None:
    assert plan_time(text) == when


def test_a_clock_told_in_another_places_time_apart_from_its_day_is_read_here() -> None:
    tz = ZoneInfo("Asia/Urumqi")  # two hours behind Beijing
    said = datetime(2026, 9, 23, 11, 0, tzinfo=tz)  # a Wednesday
    text = "周五去伊犁的大巴，车票上写北京时间9:30发车，我们这边就是七点半，别睡过头"
    ahead = [m for m in resolve_dates(text, said, tz) if m.direction == "future"]
    p = planned(ahead, text)
    assert p is not None and p.value.strftime("%a %H:%M") == "Fri 07:30"
