"""Twenty-eighth session (blind34 read): a promise kept by a time is checked on, not reminded of;
a day's promise told done on its day with one word of it; what to have at hand is no ask; a
Japanese mail is read as a mail in another language. Sentences written after the code
(2026-12-07); each case fails on 69cb939 unless marked a guard."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.memory.types import ItemView
from daemon.predict.base import short
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.predictors.upcoming import _promised_for_a_day
from daemon.state.email_rules import ask_of, asks, due_in
from daemon.state.mail_words import foreign, reader
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, deliver_at, tell_turns

HOBART = ZoneInfo("Australia/Hobart")
OSAKA = ZoneInfo("Asia/Tokyo")


@pytest.mark.parametrize(
    ("text", "due", "for_a_day"),
    [
        ("promised dana i'd upload the audit notes tomorrow before her 2pm call", "2029-03-07 14:00", True),
        ("told the builder i'd transfer the deposit by 11am thursday", "2029-03-08 11:00", True),
        ("答应了房东明天下午四点之前把押金转过去", "2029-03-07 16:00", True),
        # guards (hold on 69cb939 too): the clock the promised thing happens at
        ("promised dana i'd ring her tomorrow at 2pm about the audit", "2029-03-07 14:00", False),
        ("答应了房东明天下午四点去看水管", "2029-03-07 16:00", False),
    ],
)
def test_a_clock_a_promise_is_kept_by_is_a_deadline(text: str, due: str, for_a_day: bool) -> None:
    said = datetime(2029, 3, 6, 18, 0, tzinfo=HOBART)
    when = datetime.fromisoformat(due).replace(tzinfo=HOBART)
    item = ItemView("i1", "alice", "events", text, {"what": text}, due_at=when, observed_at=said)
    assert _promised_for_a_day(item, HOBART) is for_a_day


async def _check_ins(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock, later: str
) -> list[str]:
    promised = "ugh also promised my flatmate i'd top up the gas meter tomorrow"
    tell_turns(pmemory, settings, pclock, [("2026-06-01 19:30", promised), ("2026-06-02 11:40", later)])
    await deliver_at(outbox, pclock, ("2026-06-02 18:00", "2026-06-03 09:30"))
    return [b["title"] for _, b, _ in bus.sent]


async def test_a_days_promise_told_done_on_its_day_with_one_word_gets_no_check_in(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    got = await _check_ins(
        pmemory, settings, outbox, bus, pclock, "sorted the meter at the corner shop, done ✅"
    )
    assert got == [], got


async def test_a_days_promise_not_told_done_gets_its_check_in(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # guard: on its day, with the same word, but not done
    got = await _check_ins(
        pmemory, settings, outbox, bus, pclock, "the meter thing will have to wait, slammed at work"
    )
    assert len(got) == 1 and "did it happen" in got[0], got


@pytest.mark.parametrize(
    ("sentence", "asks_now"),
    [
        ("Please have your Medicare card and a list of current medications handy.", False),
        ("Kindly keep your booking reference with you on the day.", False),
        ("Remember to have your student ID at hand for the exam.", False),
        # guards: a thing to get done is still asked
        ("Please have the signed lease ready by Monday.", True),
        ("Could you keep me posted on the move date?", True),
    ],
)
def test_what_to_have_at_hand_there_asks_no_reply(sentence: str, asks_now: bool) -> None:
    assert asks(sentence) is asks_now


JAPANESE = (
    "山田様\n\nいつもお世話になっております。駐車場の契約更新のため、車検証の写しを3月12日（木）までに"
    "メールでお送りいただけますようお願い申し上げます。\n\nよろしくお願いいたします。\n東町パーキング 管理係"
)


def test_a_japanese_mail_is_a_mail_in_another_language() -> None:
    assert foreign(JAPANESE)
    # guards: Chinese, with a borrowed の, and English stay as they are
    assert not foreign("周四下午的会改到周五了，记得带上我の笔记本电脑，别忘了哦各位同事")
    assert not foreign("Please send the signed form back to us by Thursday the 12th.")


def test_a_japanese_mail_that_asks_by_a_date_is_an_ask_with_its_date(ask_model) -> None:  # type: ignore[no-untyped-def]
    ask = ask_of(JAPANESE, ask_model)
    assert ask is not None and "車検証" in ask
    due = due_in(reader(JAPANESE)(ask), datetime(2026, 3, 9, 10, 0, tzinfo=OSAKA), OSAKA)
    assert due is not None and due.date().isoformat() == "2026-03-12"


@pytest.mark.parametrize(
    ("text", "n", "cut"),
    [
        ("drop the signed tenancy forms at the letting agency on Harcourt Street before 4", 60, True),
        ("bring back the borrowed ladder and the hedge trimmer to the neighbour across", 50, True),
        # guards: Chinese is cut at the character, and a text that fits is left whole
        ("把那批摩托车配件的报关单整理好发给阿强，他礼拜四一早去口岸清关", 20, False),
        ("water the plants", 60, False),
    ],
)
def test_a_shortened_text_ends_on_a_whole_word(text: str, n: int, cut: bool) -> None:
    got = short(text, n)
    assert len(got) <= n
    if cut:
        # the last word before the ellipsis is one of the text's own words, whole
        assert got.endswith("…") and got[:-1].split()[-1] in text.split(), got
