"""A plan told in chat, called off or moved by someone else's e-mail (predict/plan_news.py)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.predict.plan_news import accepts, changes_when, read_mail, tied

TZ = ZoneInfo("Europe/Lisbon")
# the plan: Friday 6 March 2026 at 20:00; the mails come on Wednesday 4 March
DUE = datetime(2026, 3, 6, 20, 0, tzinfo=TZ)
SENT = datetime(2026, 3, 4, 18, 30, tzinfo=TZ)
PLAN = "pub quiz with Tomasz at the Crown on friday at 8"


def read(text: str) -> datetime | str | None:
    got = read_mail(text, SENT, PLAN, DUE, TZ, "m1", "Tomasz")
    return "no news" if got is None else got.moved_to


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mate I can't make Friday after all, work trip. Sorry!", None),
        ("friday's off for me, my sister is in town", None),
        # asked, not settled: Friday is off, Saturday is not a plan until someone says yes
        ("Can't do Friday, can we move it to Saturday at 7pm? Same place.", None),
        ("Can't do Friday. Moved it to Saturday at 7pm, same place.", datetime(2026, 3, 7, 19, 0, tzinfo=TZ)),
        ("Friday won't work, moving it to Saturday instead", datetime(2026, 3, 7, 20, 0, tzinfo=TZ)),
        ("周五去不了了，改到周日下午三点吧", datetime(2026, 3, 8, 15, 0, tzinfo=TZ)),
        # in Traditional characters (written after the rule)
        ("禮拜五臨時要加班，改到週六晚上七點好嗎，地點不變", datetime(2026, 3, 7, 19, 0, tzinfo=TZ)),
        ("週五的聚會取消了，抱歉", None),
        # the same day at another time is a move, not a cancellation
        ("heads up, friday's quiz now starts at 9pm instead", datetime(2026, 3, 6, 21, 0, tzinfo=TZ)),
        # a proposal is no new plan: the Friday one is off, nothing is set yet
        ("have to bail on friday, maybe next week instead?", None),
    ],
)
def test_a_mail_that_calls_off_or_moves_the_plans_day(text: str, expected: datetime | None) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "See you Friday! I'll bring the team sheet.",  # no change
        "I can't make Thursday's standup, sorry",  # another day
        "The invoice is no longer due, cancelled it",  # no day of the plan
    ],
)
def test_a_mail_that_is_no_news_of_the_plan(text: str) -> None:
    assert read(text) == "no news"


def test_the_mail_is_tied_to_the_plan_by_its_sender_or_its_words() -> None:
    assert tied(PLAN, "can't make friday", "Tomasz Nowak", "tnowak@example.com")
    assert tied(PLAN, "the quiz at the crown is cancelled friday", "The Crown", "events@crown.example")
    assert not tied(PLAN, "can't make friday", "Priya", "priya@example.com")


def test_a_part_of_the_day_names_the_plans_evening_and_moves_nothing() -> None:
    """Written after the clock check (issue 21): "tonight" is the plan's evening (20:00 by
    convention), not a new time for a 18:30 session; a clock time is."""
    due = datetime(2026, 3, 6, 18, 30, tzinfo=TZ)
    sent = datetime(2026, 3, 6, 9, 0, tzinfo=TZ)
    plan = "climbing wall friday 6:30pm with Ana"

    def moved(text: str) -> datetime | str | None:
        got = read_mail(text, sent, plan, due, TZ, "m2", "Ana")
        return "no news" if got is None else got.moved_to

    assert moved("Bad news: the wall is closed tonight, burst pipe. All sessions cancelled.") is None
    assert moved("今晚攀岩馆停水，课取消了") is None
    assert moved("Tonight's session moved to 8pm, same wall") == datetime(2026, 3, 6, 20, 0, tzinfo=TZ)


def test_a_new_place_at_the_same_time_keeps_the_plan_with_the_news() -> None:
    """Written after the change (issue 21): a venue change restates the day and the time and
    calls nothing off; the reminder stands and carries the mail's sentence."""
    mail = "E-mail from Tomasz: 'friday'\n\nChange of plan: quiz is at the Anchor instead on friday. Same time, 8pm."
    got = read_mail(mail, SENT, PLAN, DUE, TZ, "m3", "Tomasz")
    assert got is not None and got.moved_to == DUE and "Anchor" in got.update
    assert not changes_when(got)
    off = read_mail(
        "Friday's quiz is cancelled, the Anchor is shut. Same time next week?", SENT, PLAN, DUE, TZ, "m4", "T"
    )
    assert off is not None and off.moved_to is None and changes_when(off)


# written after the change (2026-12-05): the person's own reply decides a proposal
PROPOSED = datetime(2026, 3, 7, 19, 0, tzinfo=TZ)  # "could we do Saturday at 7 instead?"
REPLIED = datetime(2026, 3, 4, 21, 0, tzinfo=TZ)


@pytest.mark.parametrize(
    ("reply", "yes"),
    [
        ("Saturday at 7 works, see you at the Crown", True),
        ("sure thing", True),
        ("好的，那就周六见", True),
        ("Saturday's no good for me, I'm away. Sunday?", False),
        ("Could we do Sunday instead?", False),
        ("周六不行，我要加班", False),
        # a calendar's answer, and plain words of one (written after the change, 2026-12-05)
        ("Accepted. Thanks Kasia!", True),
        ("looking forward to it, I'll bring the slides", True),
        ("已接受，届时准时参加", True),
        ("I can't accept Saturday, sorry", False),
    ],
)
def test_a_reply_accepts_a_proposed_time_only_when_it_says_yes(reply: str, yes: bool) -> None:
    assert accepts(reply, PROPOSED, REPLIED, TZ) is yes


def test_a_weekday_beside_the_past_tense_of_the_change_is_the_plans_day() -> None:
    # "has filled up" and "asked us to move" are past; the Friday they speak of is still ahead
    got = read_mail(
        "Sorry, my Friday evening has filled up with a work thing. Could we do Saturday at 7pm instead?",
        SENT,
        PLAN,
        DUE,
        TZ,
        "m4",
        "Tomasz",
    )
    assert got is not None and got.moved_to is None and got.proposed == PROPOSED


def test_a_part_of_the_day_beside_the_plans_weekday_moves_nothing() -> None:
    # written after the rule: "Friday afternoon" is the reason, "Saturday at 7:30pm" the new time
    got = read(
        "Sorry Tomasz here, because of a staff shortage on Friday afternoon the Crown moved the quiz "
        "from Friday 8pm to Saturday at 7:30pm. Same table."
    )
    assert got == datetime(2026, 3, 7, 19, 30, tzinfo=TZ)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # written after the tuning set (bench/data/plan_news_pairs_tune.jsonl), not from it
        ("Gutted, but count me out for Friday, my flight home got changed.", None),
        (
            "Heads up, they rebooked Friday's quiz for Saturday 7pm.",
            datetime(2026, 3, 7, 19, 0, tzinfo=TZ),
        ),
        ("Tomasz: 周五嘅quiz搞唔成喇，我要返深圳", None),
        ("周五的quiz顺延至周六晚上七点，地点不变", datetime(2026, 3, 7, 19, 0, tzinfo=TZ)),
        ("Friday's quiz, 我要cancel咗佢, sorry", None),
    ],
)
def test_more_ways_to_call_off_or_move_a_plan(text: str, expected: datetime | None) -> None:
    assert read(text) == expected
