"""Two plans told in one message, on different days: each gets its own reminder (upcoming.other_plans).
The memory keeps one item per message, due at its first plan; the second used to be reminded of
never. Sentences written after the code, as someone who had not read it would."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict import engine
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plan_text import headline, other_days
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, say

BERLIN = ZoneInfo("Europe/Berlin")


async def _told(
    pmemory: Memory, settings: Settings, pclock: FakeClock, when: str, text: str, rid: str = "m0"
) -> None:
    """Tell `text` at `when` (the first turn, `m0`, starts the predictors' cursor), then run them."""
    if rid == "m0":
        engine.start_cursor(pmemory)
    pclock.now = at(when)
    say(pmemory, rid, text, pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)


async def _delivered_by(outbox: SuggestionOutbox, pclock: FakeClock, when: str) -> int:
    pclock.now = at(when)
    return await outbox.deliver_due()


async def test_the_second_plan_of_a_message_gets_its_own_reminder(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",  # a Monday
        "right, busy week. haircut wednesday at 8:15 before work. "
        "and on saturday at 11am the car's booked in for its service at Halden Motors on Mill Road.",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-04 08:10") == 1
    assert "08:15" in bus.titles[0] and "haircut" in bus.titles[0].lower(), bus.titles
    assert await _delivered_by(outbox, pclock, "2026-03-07 10:55") == 1
    title, body = bus.titles[1], bus.sent[1][1]["body"]
    assert "11:00" in title and "service" in (title + body).lower() and "Halden" in body, (title, body)


async def test_a_second_plan_in_chinese(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "周三下午两点要去银行面签房贷。另外这周六晚上七点半约了大学室友在望京吃烤鸭，好久没见了",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-04 13:55") == 1
    assert await _delivered_by(outbox, pclock, "2026-03-07 19:25") == 1
    assert "19:30" in bus.titles[1] and "烤鸭" in bus.titles[1] + bus.sent[1][1]["body"], bus.titles


async def test_someone_elses_second_plan_gets_nothing(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # guard (passes on the code before too): the flight is Ana's, only the physio is the person's
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "physio tuesday at 5:30pm, the place by the station. Ana flies to Lisbon on friday at 6am, lucky her.",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-03 17:20") == 1
    assert "17:30" in bus.titles[0], bus.titles
    assert await _delivered_by(outbox, pclock, "2026-03-06 05:55") == 0


async def test_a_plan_moved_to_another_day_is_one_plan(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # guard (passes on the code before too): the old day is the one it left, not a second plan
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "can't make the optician thursday at 4 after all. They've put me down for monday 9:30 instead.",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-05 15:55") == 0  # the old slot
    assert await _delivered_by(outbox, pclock, "2026-03-09 09:25") == 1
    assert "09:30" in bus.titles[0], bus.titles


def test_other_days_keeps_a_sentence_of_the_first_day_with_its_plan() -> None:
    said = datetime(2026, 3, 2, 10, 0, tzinfo=BERLIN)
    # "from thursday to monday" is one plan's sentence; the sentence after names a day of its own
    got = other_days(
        "moved the plumber from thursday to monday at 8. then drinks with Sam next friday at 7pm.",
        said,
        BERLIN,
    )
    assert [(s, d.value.day) for s, d in got] == [("then drinks with Sam next friday at 7pm.", 13)], got


def test_a_date_told_over_several_clauses_leaves_the_thing_in_the_headline() -> None:
    said = datetime(2026, 3, 9, 10, 0, tzinfo=BERLIN)  # a Monday: that Saturday is the 14th
    thing = headline("the pottery taster is on the 14th, sat, 6.30pm at Clayworks on King St.", said, BERLIN)
    assert "pottery taster" in thing.lower(), thing


async def test_a_call_off_of_something_else_in_another_sentence_leaves_the_plan(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # written after the change (2026-12-06; failed on the code before): the whole message was
    # read as a call-off because another sentence of it calls something else off
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "bloods wednesday at 8:40 at the health centre, fasting from midnight. "
        "oh and choir's cancelled this week so tuesday's free.",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-04 08:35") == 1
    assert "08:40" in bus.titles[0], bus.titles


async def test_a_plan_called_off_in_its_own_sentence_gets_nothing(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # guard (passes on the code before too)
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "the wednesday 8:40 bloods are cancelled, the lab is closed. will rebook.",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-04 08:35") == 0


def test_a_bracketed_date_and_aside_leave_no_bracket_or_clock_in_the_headline() -> None:
    # written after the change (2026-12-06; failed on the code before)
    said = datetime(2026, 3, 2, 10, 0, tzinfo=BERLIN)
    thing = headline("下周四（12号）上午10点去区政务中心换身份证（旧的过期了），记得带户口本", said, BERLIN)
    assert thing.startswith("去区政务中心换身份证") and "（" not in thing and "）" not in thing, thing


async def test_the_second_plan_called_off_leaves_the_first(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # written after the change (2026-12-06; failed on the code before, which never reminded of
    # the second plan, and withdrew the first with it once it could read the call-off)
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "picking up grandma from the station wednesday at 17:20. "
        "and Theo lands friday at 21:05, I'm getting him from the airport",
    )
    reminders = [s for s in pmemory.suggestions.of_scope("alice", "pending") if s.kind == "reminder"]
    assert len(reminders) == 2, [s.data for s in reminders]  # one per plan
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-03 18:00",
        "Theo says no need to pick him up, he'll grab a taxi",
        "m1",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-04 17:10") == 1
    assert "17:20" in bus.titles[0], bus.titles
    assert await _delivered_by(outbox, pclock, "2026-03-06 21:00") == 0  # Theo's: called off


async def test_a_second_plan_stands_when_the_first_is_called_off(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # written after the change (2026-12-06; failed on the code before)
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "dinner at the Hendersons' on wednesday is cancelled, they've all got flu. "
        "saturday at 7pm it's drinks with Jo at the Crown though",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-04 20:00") == 0  # wednesday: called off
    assert await _delivered_by(outbox, pclock, "2026-03-07 18:55") == 1
    assert "19:00" in bus.titles[0], bus.titles


async def test_a_call_off_naming_a_word_of_another_sentence_of_a_one_plan_message(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # written after the change (2026-12-06): a guard of the code before, which a first version of
    # the change broke (it read the call-off only against the sentence of the plan's time)
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-02 10:00",
        "终于约到 Bürgeramt 了！！周四上午9:40，Yorckstraße 那个办公室。刷了三个礼拜才抢到的 Termin 😭",
    )
    await _told(
        pmemory,
        settings,
        pclock,
        "2026-03-03 17:00",
        "无语，Bürgeramt 把我周四的 Termin 取消了，说会邮件发新时间",
        "m1",
    )
    assert await _delivered_by(outbox, pclock, "2026-03-05 09:35") == 0
