"""A thing to hand in by a time, told done on its own day before it is due, with one word of it:
no reminder after ("签证那堆东西交掉了" on the Thursday the papers are due by 5pm). Sentences
written after the code (2026-12-07); the first case fails on 6955bef, the rest are guards (the
past-tense one failed on 2718a0e, which took any past tense on the day for done)."""

from __future__ import annotations

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict.outbox import SuggestionOutbox
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, deliver_at, tell_turns

_BEFORE = [
    ("2026-02-27 19:00", "周末想去宜家买个书架，宿舍的书堆不下了"),
    ("2026-02-28 12:30", "食堂新开的麻辣烫窗口还不错，就是排队太长"),
    ("2026-03-01 21:15", "室友又在半夜打游戏，明天得跟他说说"),
]
TO_DO = "学校发通知了，签证续签要护照复印件、在读证明跟两张蓝底照片，礼拜四下午五点前交到国际处。今天先不弄了"


async def _reminders(
    pmemory: Memory,
    settings: Settings,
    outbox: SuggestionOutbox,
    bus: Bus,
    pclock: FakeClock,
    later: list[tuple[str, str]],
) -> list[str]:
    # (a few days of other talk before it, as a person's memory has: in a memory of the two
    # statements alone, recall's nearness of the second to the first sits at the 0.3 bar of
    # `spoken_of_since` whatever they say — the past-tense guard below scored 0.3002 on one
    # install and under the bar on another)
    tell_turns(pmemory, settings, pclock, [*_BEFORE, ("2026-03-02 10:00", TO_DO), *later])
    # Wednesday, and Thursday before 5pm
    await deliver_at(outbox, pclock, ("2026-03-04 18:00", "2026-03-05 11:00", "2026-03-05 16:30"))
    return [b["title"] for _, b, _ in bus.sent if b["kind"] == "reminder"]


async def test_told_done_on_its_day_with_one_word_of_it_ends_the_reminder(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    got = await _reminders(
        pmemory, settings, outbox, bus, pclock, [("2026-03-05 09:10", "签证那堆东西交掉了，轻松")]
    )
    assert got == [], got


@pytest.mark.parametrize(
    "later",
    [
        # guards: told on its day with the same one word, but not done; and nothing told at all
        [("2026-03-05 09:10", "签证那堆东西还差照片，中午去拍")],
        # ... told of in the past tense on its day, but nothing done ("…午饭都没吃上"): known wrong.
        # One shared word (学校), near in recall (0.39 here), in any past tense reads as kept — the
        # rule that reads "快递帮她拿了" as the parcel fetched (three scenarios lose their right
        # silence without it, 2026-12-07)
        pytest.param(
            [("2026-03-05 09:10", "学校今天开会开疯了，午饭都没吃上")],
            marks=pytest.mark.xfail(
                strict=True, reason="one shared word near in recall, in any past tense, reads as done"
            ),
        ),
        [],
    ],
)
async def test_not_told_done_on_its_day_keeps_the_reminder(
    pmemory: Memory,
    settings: Settings,
    outbox: SuggestionOutbox,
    bus: Bus,
    pclock: FakeClock,
    later: list[tuple[str, str]],
) -> None:
    got = await _reminders(pmemory, settings, outbox, bus, pclock, later)
    assert got, bus.titles


@pytest.mark.parametrize(
    "evening",
    [
        "the new rota is mostly done tbh. also need to water the plants",
        "the new rota is mostly done. also told mum i'd fix her tap tomorrow",
    ],
)
async def test_a_promise_half_done_the_evening_before_still_gets_its_check_in(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock, evening: str
) -> None:
    """ "mostly done" said the evening before the promised day is no promise kept: nearly is not
    yet (the first case fails on 6955bef and before; the second on d7c7f7a, which took a done word
    and two words of the promise on any day)."""
    turns = [
        (
            "2026-03-02 17:00",
            "told Dara i'd email her the new rota for the cafe tomorrow, she's planning March",
        ),
        ("2026-03-02 18:30", evening),
    ]
    tell_turns(pmemory, settings, pclock, turns)
    await deliver_at(outbox, pclock, ("2026-03-03 12:00", "2026-03-04 09:30", "2026-03-04 12:00"))
    assert any("rota" in b["title"] for _, b, _ in bus.sent if b["kind"] == "follow_up"), bus.titles
