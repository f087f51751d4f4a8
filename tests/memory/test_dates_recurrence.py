"""recurrence(): the schedule a habit states, in place of a date."""

from __future__ import annotations

import pytest

from daemon.memory.dates import Recurrence, recurrence


def rec(time: str | None, period: str | None, weekdays: list[str], frequency: str | None) -> Recurrence:
    return Recurrence(time=time, period=period, weekdays=weekdays, frequency=frequency)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I cycle to the office at 7:45", rec("07:45", None, [], None)),
        ("He texts me at 11pm most nights", rec("23:00", "evening", [], "daily")),
        ("Saturday mornings I do the market run", rec(None, "morning", ["saturday"], "weekly")),
        ("We play five-a-side twice a week", rec(None, None, [], "times_per_week:2")),
        ("Piano on Mondays and Wednesdays at 6", rec("18:00", None, ["monday", "wednesday"], "weekly")),
        ("Every second Sunday we call grandpa", rec(None, None, ["sunday"], "biweekly")),
        (
            "I work from home tuesdays through thursdays",
            rec(None, None, ["tuesday", "wednesday", "thursday"], "weekly"),
        ),
        ("My rent goes out monthly", rec(None, None, [], "monthly")),
        ("I always take a nap after lunch on weekends", rec(None, None, [], "weekends")),
        ("我每周二和周四早上七点游泳", rec("07:00", "morning", ["tuesday", "thursday"], "weekly")),
        ("工作日早上六点半起床", rec("06:30", "morning", [], "weekdays")),
        ("每个月15号还信用卡", rec(None, None, [], "monthly")),
        ("周末一般睡懒觉", rec(None, None, [], "weekends")),
        ("每两周去一次超市", rec(None, None, [], "biweekly")),
        ("他一天吃三次药", rec(None, None, [], "times_per_day:3")),
        ("我天天晚上十一点半才睡", rec("23:30", "evening", [], "daily")),
    ],
)
def test_the_schedule_of_a_habit(text: str, expected: Recurrence) -> None:
    assert recurrence(text) == expected


def test_only_the_habitual_clause_counts() -> None:
    # "this Friday" is a one-off in the contrast clause, not part of the routine
    assert recurrence("We usually swim on Tuesdays, but this Friday we're skipping") == rec(
        None, None, ["tuesday"], "weekly"
    )
    assert recurrence("平时周末去公园，但是这周六要加班") == rec(None, None, [], "weekends")


@pytest.mark.parametrize(
    "text",
    [
        "Can you book a table for Friday at 8?",
        "I loved the concert last night",
        "I'm meeting Jo at 3pm",
        "I like strong coffee",
        "I usually like strong coffee",  # a habit, but no schedule in it
        "我明天早上七点起床",
        "下周三下午开会",
        "",
    ],
)
def test_no_schedule(text: str) -> None:
    assert recurrence(text) is None
