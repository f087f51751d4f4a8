"""Cantonese days and parts of the day (聽日, 後日, 琴日; 朝早, 晏晝, 下晝, 晚黑), read as the date
rules read Simplified. Sentences written after the code."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates

HK = ZoneInfo("Asia/Hong_Kong")
SAID = datetime(2026, 9, 8, 9, 30, tzinfo=HK)  # a Tuesday


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("聽日朝早九點半要去灣仔交文件", datetime(2026, 9, 9, 9, 30, tzinfo=HK)),
        ("後日下晝兩點同經理開會", datetime(2026, 9, 10, 14, 0, tzinfo=HK)),
        ("聽晚八點喺尖沙咀睇戲", datetime(2026, 9, 9, 20, 0, tzinfo=HK)),
        ("禮拜五晚黑七點半食飯", datetime(2026, 9, 11, 19, 30, tzinfo=HK)),
    ],
)
def test_a_cantonese_day_and_hour(text: str, when: datetime) -> None:
    assert when in [m.value for m in resolve_dates(text, SAID, HK)]


def test_yesterday_in_cantonese_and_a_word_that_is_no_day() -> None:
    [m] = resolve_dates("琴日去咗飲茶，好飽", SAID, HK)
    assert m.value.date() == datetime(2026, 9, 7).date() and m.direction == "past"
    assert resolve_dates("以後日子會好啲", SAID, HK) == []


@pytest.mark.parametrize(
    ("text", "when"),
    [
        # written after the change (2026-12-06): signing up and booking with 咗 are arrangements, the
        # day they are for is ahead
        ("禮拜四我報咗名去上陶藝堂，夜晚七點", datetime(2026, 9, 10, 19, 0, tzinfo=HK)),
        ("我同阿Ken約咗禮拜六打波", datetime(2026, 9, 12, 0, 0, tzinfo=HK)),
    ],
)
def test_an_arrangement_made_with_zo_is_for_a_day_ahead(text: str, when: datetime) -> None:
    assert [m.value for m in resolve_dates(text, SAID, HK) if m.direction == "future"] == [when]


@pytest.mark.parametrize(
    ("text", "when"),
    [
        # 今個 / 呢個: this week's day, this month
        ("今個禮拜四下晝三點半睇牙", datetime(2026, 9, 10, 15, 30, tzinfo=HK)),
        ("呢個星期日朝早八點行山，喺西貢集合", datetime(2026, 9, 13, 8, 0, tzinfo=HK)),
    ],
)
def test_this_week_in_cantonese(text: str, when: datetime) -> None:
    assert when in [d.value for d in resolve_dates(text, SAID, HK)]


def test_this_month_in_cantonese_and_a_word_that_is_no_week() -> None:
    assert [d.value.day for d in resolve_dates("呢個月尾要交稅", SAID, HK)] == [1]
    assert resolve_dates("今個人好攰", SAID, HK) == []
