"""Whose plan, read from how Chinese names people: a name (阿芳, 小王, 老李) with where they are from
before it ("隔壁铺的阿芳") is someone else's. A part of the day refined by a clock in another clause
keeps the plan's clause as its headline. A move an e-mail made, which the person then confirms in
chat, is one reminder. Sentences written after the code (2026-12-07), as a stranger would say
them; each fails on c6e8266 unless marked a guard."""

from __future__ import annotations

import pytest

from daemon.config import Settings
from daemon.events import EmailEvent
from daemon.memory import Memory
from daemon.predict import engine
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plans import reasons
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, receive_mail, say


@pytest.mark.parametrize(
    "text",
    [
        "对门杂货店的阿珍下礼拜二去做胃镜，店里叫她侄女看两天",
        "隔壁班的小周周四下午考科目三",
        "车队里的老郑后天上午去社保局办退休",
    ],
)
def test_a_name_with_where_they_are_from_is_someone_elses(text: str) -> None:
    assert "other" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        # guards: the speaker takes part, or the modifier is the speaker's own group and no name follows
        "楼上的阿伟周六搬家，我过去帮他抬冰箱",
        "我的小组周三下午两点答辩",
    ],
)
def test_a_plan_the_speaker_is_in_stays_theirs(text: str) -> None:
    assert "other" not in reasons(text)


def test_the_headline_of_a_part_of_the_day_refined_by_a_clock_is_the_plans_clause() -> None:
    # guard on c6e8266, where 六点二十 was no clock; it fails once that clock is read and the headline
    # follows it into the clause of who waits where
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from daemon.predict.plan_text import headline

    tz = ZoneInfo("Asia/Shanghai")
    text = "礼拜天一早要陪我爸去省医院复查，护工说六点二十在住院部楼下碰头"
    title = headline(text, datetime(2026, 3, 5, 20, 0, tzinfo=tz), tz)
    assert "复查" in title and "碰头" not in title, title


async def test_a_move_by_mail_the_person_confirms_in_chat_is_reminded_once(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:00")  # Monday
    say(
        pmemory,
        "c1",
        "Notary appointment to sign the flat purchase at Kanzlei Weber on Thursday at 9.",
        pclock.now,
    )
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-02 14:00")
    moved = EmailEvent(
        id="m1",
        scope="alice",
        sender="Kanzlei Weber <termine@kanzlei-weber.example>",
        to=("alice@home.example",),
        date=pclock.now,
        subject="Ihr Notartermin",
        thread="t1",
        labels=("INBOX",),
        text="Sehr geehrte Frau Wong,\n\nIhr Notartermin wurde auf Freitag, 6. März, 11:15 Uhr verlegt.\n\nKanzlei Weber",
    )
    receive_mail(pmemory, settings, moved, frozenset({"alice@home.example"}))
    pclock.now = at("2026-03-02 15:00")
    say(pmemory, "c2", "The notary's office shifted it, Friday quarter past eleven now. Fine.", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-06 10:30")
    await outbox.deliver_due()
    reminders = [b for _, b, _ in bus.sent if b["kind"] == "reminder"]
    assert len(reminders) == 1 and "11:15" in reminders[0]["title"], bus.titles


def test_the_headline_of_seats_got_by_the_speaker_and_friends() -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from daemon.predict.plan_text import headline

    tz = ZoneInfo("Australia/Perth")
    text = "me n my sister finally got tickets for the rottnest snorkel tour on friday, 8.15am from B Shed"
    assert (
        headline(text, datetime(2026, 3, 2, 19, 0, tzinfo=tz), tz).lower().startswith("rottnest snorkel tour")
    )
