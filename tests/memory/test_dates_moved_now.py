"""A new slot told after a move with "now" is ahead ("the garage rescheduled it, tuesday 2pm now");
过去 as "going over" and 别忘了 ("don't forget") are no past; a start is read before the end its
sentence gives ("head off at 5:30 and won't be home till 4"); 五点四十 is a clock without 分.
Sentences written after the code (2026-12-07); each case fails on the code before unless marked a
guard."""

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


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        # a start read in the afternoon would come after the end the sentence gives it
        ("saturday is the shearing at my uncle's, we head off at 5:30 and won't be home till 4", 5),
        ("Sunday: bus leaves the depot at quarter past six, back by three", 6),
        # guards: an end after the afternoon start, and an end said with its own pm
        ("friday at 5, drinks till 11", 17),
        ("sunday at 3, back home by 5:30", 15),
    ],
)
def test_a_start_is_read_before_the_end_its_sentence_gives(text: str, hour: int) -> None:
    first = resolve_dates(text, THU, DUB)[0]
    assert first.value.hour == hour, first


@pytest.mark.parametrize(
    ("text", "hm"),
    [
        # minutes of twenty and more need no 分; the clock refines the part of the day told first
        ("礼拜天一早去机场送我姐，她说六点二十在楼下等我", (6, 20)),
        ("周五下午开家长会，老师说三点四十到教室", (15, 40)),
        # guard: a count after 点 is no minute
        ("周五下午去爬山，集合完大概有三点四十个人", (15, 0)),
    ],
)
def test_a_chinese_clock_with_its_minutes_and_no_fen(text: str, hm: tuple[int, int]) -> None:
    from daemon.memory.dates import planned

    found = resolve_dates(text, THU, DUB)
    when = planned(found, text) or found[0]
    assert (when.value.hour, when.value.minute) == hm, found


@pytest.mark.parametrize(
    ("text", "past"),
    [
        ("明早千万别忘了把护照放包里", False),
        # guards: a day ahead said too, and forgetting that happened
        ("周六去换证，不要忘了带两张一寸照片", False),
        ("昨天又忘了带门禁卡", True),
    ],
)
def test_dont_forget_is_no_past(text: str, past: bool) -> None:
    assert (tense(text) == "past") is past


@pytest.mark.parametrize(
    ("text", "day", "hm"),
    [
        # a sentence without a date between the day's and the lone time's
        (
            "My aunt lands Saturday at 2:10, Emirates from Dubai. She won't manage the trains on her own. "
            "I'll leave the house at 12:45.",
            date(2026, 3, 7),
            (12, 45),
        ),
        ("周六早上九点半老妈的火车到南站。她腿脚不好。我八点五十从家出发去接", date(2026, 3, 7), (8, 50)),
    ],
)
def test_a_lone_time_after_an_aside_is_the_days(text: str, day: date, hm: tuple[int, int]) -> None:
    last = resolve_dates(text, THU, DUB)[-1]
    assert (last.value.date(), (last.value.hour, last.value.minute)) == (day, hm), last


def test_seats_got_for_a_day_an_aside_of_last_week_and_the_next_clock() -> None:
    # the seats are for a day ahead; the sentence of last week is an aside; the day's time goes on
    # to the clock of the sentence after it
    text = (
        "yesss we got tickets for the gondola ride on sunday. paid for them online last week. "
        "first car goes up at 7.15am. need to leave the hostel by 6.40"
    )
    found = resolve_dates(text, THU, DUB)
    sunday = [(m.value.date(), m.value.hour, m.value.minute) for m in found if m.direction == "future"]
    assert sunday == [(date(2026, 3, 8), 7, 15), (date(2026, 3, 8), 6, 40)], found


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("saturday is the whole-day first aid course in Naas, bus from the depot at 6:50", 6),
        ("周日全天在工厂盘点，班车四点四十到宿舍楼下接", 4),
        # guards: no whole day said, or said of another thing: the afternoon guess stands
        ("saturday the kids' party at the leisure centre, doors at 3:30", 15),
        ("spent the whole day at the garage. saturday's the barbecue at Sam's, we head over at 4:30", 16),
    ],
)
def test_a_whole_day_starts_in_the_morning(text: str, hour: int) -> None:
    first = resolve_dates(text, THU, DUB)[0]
    assert first.value.hour == hour, first
