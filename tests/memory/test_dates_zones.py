"""Clock times said in another place's time (daemon/memory/dates/zones.py). Sentences written
after the code (2026-12-06), as someone who had not read it would; each failed on the code before
unless it says it is a guard."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates

LISBON = ZoneInfo("Europe/Lisbon")
SHANGHAI = ZoneInfo("Asia/Shanghai")
FRI_13_MARCH = datetime(2026, 3, 13, 10, 0, tzinfo=LISBON)  # the US is on summer time, Europe not yet


@pytest.mark.parametrize(
    ("text", "local"),
    [
        # 9am in New York is 13:00 in Lisbon in the three weeks between the two clock changes
        ("the investor sync got pushed, it's now monday 9am new york time", "2026-03-16T13:00"),
        ("webinar for the partners: Wed 11:30 EDT, link to follow", "2026-03-18T15:30"),
        ("the SF folks want the retro at 10am PT on thursday", "2026-03-19T17:00"),
        ("kick-off call friday 8am (CET) with the Berlin team", "2026-03-20T07:00"),
    ],
)
def test_a_clock_in_another_places_time_is_moved_into_the_speakers(text: str, local: str) -> None:
    [m] = [m for m in resolve_dates(text, FRI_13_MARCH, LISBON) if m.has_clock]
    assert m.value.astimezone(LISBON).isoformat()[:16] == local, (m.text, m.value)


def test_beijing_time_said_before_the_clock() -> None:
    said = datetime(2026, 3, 13, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))
    [m] = resolve_dates("北京时间下周一晚上九点线上答辩", said, ZoneInfo("Europe/Berlin"))
    assert m.value.astimezone(SHANGHAI).isoformat()[:16] == "2026-03-16T21:00", m


@pytest.mark.parametrize(
    "text",
    [
        # guards (pass on the code before too): no zone named, a lower-case word that is no zone,
        # the speaker's own time
        "drinks at 7pm et on ramène du vin",
        "call at 4pm my time",
        "gym at 6 tomorrow",
    ],
)
def test_a_clock_without_another_zone_stays_the_speakers(text: str) -> None:
    found = [m for m in resolve_dates(text, FRI_13_MARCH, LISBON) if m.has_clock]
    assert found and all(m.value.utcoffset() == FRI_13_MARCH.utcoffset() for m in found)
    assert all(m.value.astimezone(LISBON).hour in (16, 18, 19, 6) for m in found), found
