"""A date written in figures ("Thursday 5/21", "on 21/5", "5/22/2026"): read when a weekday, a
preposition or a year stands with it, month first on an American clock and day first elsewhere
unless only one reading is a date or the weekday picks one. Written after the code."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates

SAID = (2026, 9, 14, 9, 0)  # a Monday


def days(text: str, tz: str) -> list[tuple[str, date]]:
    zone = ZoneInfo(tz)
    return [(m.text, m.value.date()) for m in resolve_dates(text, datetime(*SAID, tzinfo=zone), zone)]


@pytest.mark.parametrize(
    ("text", "tz", "day"),
    [
        ("your cleaning is confirmed for Wed 9/16 at 10:40", "America/Chicago", date(2026, 9, 16)),
        ("the venue needs the final numbers by 9/30", "America/Denver", date(2026, 9, 30)),
        ("delivery on 18/9, between 8 and 12", "Europe/Berlin", date(2026, 9, 18)),
        ("we rebooked you onto Saturday 19/9 at 07:15", "Australia/Perth", date(2026, 9, 19)),
        # only one reading is a date: 25 is no month, on any clock
        ("tickets for 25/9 are on hold", "America/Toronto", date(2026, 9, 25)),
        ("it should be arriving on 9/25", "Europe/Dublin", date(2026, 9, 25)),
        # a weekday picks the reading: 10/9 is the 10th of September only on a Thursday
        ("Thursday 10/9 works for the call", "America/New_York", date(2026, 9, 10)),
        ("renewal due 3/15/2027", "America/Phoenix", date(2027, 3, 15)),
        # in a Chinese sentence, with its weekday after it or a word before it
        ("原定9/18（五）下午三点的面试改期了", "Asia/Shanghai", date(2026, 9, 18)),
        ("新的时间是于9/22下午两点", "Asia/Shanghai", date(2026, 9, 22)),
    ],
)
def test_a_date_in_figures(text: str, tz: str, day: date) -> None:
    assert day in [d for _, d in days(text, tz)]


@pytest.mark.parametrize(
    "text",
    ["support is 24/7 now", "we split it 60/40", "add 3/4 cup of oats", "score was 7/10 at best"],
)
def test_figures_that_are_no_date(text: str) -> None:
    assert days(text, "America/Chicago") == []


def clocks(text: str, tz: str) -> list[tuple[str, datetime]]:
    zone = ZoneInfo(tz)
    return [
        (m.text, m.value.replace(tzinfo=None))
        for m in resolve_dates(text, datetime(*SAID, tzinfo=zone), zone)
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # the weekday a notice writes between a date and its hour: one date and time
        (
            "您预约的9月17日（星期四）下午3点半复诊",
            ("9月17日（星期四）下午3点半", datetime(2026, 9, 17, 15, 30)),
        ),
        ("9月18日（五）上午10时面谈", ("9月18日（五）上午10时", datetime(2026, 9, 18, 10, 0))),
        # 周一下午 is Monday afternoon (一下 starts 一下子, not this)
        ("下周一下午两点半交房", ("下周一下午两点半", datetime(2026, 9, 21, 14, 30))),
    ],
)
def test_a_chinese_date_and_its_hour_are_one_mention(text: str, said: tuple[str, datetime]) -> None:
    assert clocks(text, "Asia/Shanghai") == [said]


def test_a_clock_and_a_part_of_the_day_are_told_apart() -> None:
    zone = ZoneInfo("Asia/Shanghai")
    at = datetime(*SAID, tzinfo=zone)
    clocked, part = (resolve_dates(t, at, zone)[0] for t in ("周三上午十点见", "周三上午见"))
    assert clocked.has_clock and clocked.has_time
    assert part.has_time and not part.has_clock
