"""What a plan is called, in words written for it: a day "gone" or "toast" says how full it is, and
the thing comes after it ("wednesday is gone, the whole day is the workshop up in Zomba"); a clock's
zone and a dated aside in brackets are no part of the thing; "Confirming our …" is what was
confirmed; "Av." ends no sentence; a place's own number is no time; a Chinese name with its group or
job before it ("我们组小刘", "翻译小刘") is someone else; an English headline says "your knee", not
"my knee". Sentences written after the
code (2026-12-07); each fails on the code before unless marked a guard."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.predict.plan_text import for_them, headline, said_of
from daemon.predict.plans import reasons
from daemon.predict.predictors.promise import is_promise
from daemon.predict.predictors.upcoming import _TIMEISH

TZ = ZoneInfo("Africa/Lusaka")
MON = datetime(2026, 8, 3, 9, 0, tzinfo=TZ)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("thursday is gone btw, the whole day is the cooperative's AGM out in Chongwe", "cooperative's AGM"),
        ("Saturday's toast. it's my niece's kitchen party in Kabwe, leaving at 7", "kitchen party in Kabwe"),
        ("friday is blocked, all day is the stock count at the Cairo Rd warehouse", "stock count"),
        # guard: a thing in the day's own clause
        ("wednesday is the vaccination drive at the clinic, all hands", "vaccination drive"),
    ],
)
def test_a_day_said_taken_is_called_by_the_thing_after_it(text: str, expected: str) -> None:
    assert expected.lower() in headline(text, MON, TZ).lower()


@pytest.mark.parametrize(
    ("text", "expected", "not_in"),
    [
        (
            "Confirming our quarterly review on Thursday 6 August at 14:00 Lusaka time (13:00 in Lagos).",
            "Quarterly review",
            ("Confirming", "Lagos", "Lusaka"),
        ),
        # guards (pass on the code before too): "Just confirming …" and a dated aside that the date
        # rules already cut
        (
            "Just confirming your dental check with Dr Phiri on Friday at 9:30.",
            "dental check",
            ("confirming",),
        ),
        (
            "supper with the Mwansas (friday at 7, their place in Rhodes Park)",
            "Supper with the Mwansas",
            ("7",),
        ),
    ],
)
def test_the_zone_of_a_clock_an_aside_of_a_date_and_a_confirmation_are_no_thing(
    text: str, expected: str, not_in: tuple[str, ...]
) -> None:
    got = headline(text, MON, TZ)
    assert expected.lower() in got.lower() and not any(w in got for w in not_in), got


def test_an_avenues_abbreviation_ends_no_sentence() -> None:
    text = "周五上午十点去公证处，就在Av. Independência那家3º Cartório，房东也去"
    assert "Independência那家3º Cartório" in said_of(text, MON, TZ)


@pytest.mark.parametrize(
    ("place", "timeish"),
    [
        ("3º Cartório", False),
        ("Gate 12", False),
        ("Block 4, Room 210", False),
        # guards: an end time after 到, as before
        ("10:30", True),
        ("十点", True),
        ("11点", True),
        ("5pm", True),
    ],
)
def test_a_places_own_number_is_no_time(place: str, timeish: bool) -> None:
    assert bool(_TIMEISH.search(place)) is timeish


@pytest.mark.parametrize(
    "text",
    [
        "我们科室小周下礼拜一去做胃镜，请了两天假",
        "导游阿明明天早上五点半就得去机场接另一个团",
        "会计老陈周三下午去税务局报税",
    ],
)
def test_a_name_with_their_group_or_job_before_it_is_someone_elses(text: str) -> None:
    assert "other" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        # guards: the speaker goes with them, stands in for them, or the group is the speaker's
        "我跟司机老赵明天早上七点去码头提货",
        "我们组小吴周五请假，那天下午三点的评审我替他讲",
        "周四下午我们部门团建，两点出发",
    ],
)
def test_the_speaker_with_a_named_colleague_still_takes_part(text: str) -> None:
    assert "other" not in reasons(text)


@pytest.mark.parametrize(
    ("thing", "said_back"),
    [
        ("Bone scan for my wrist", "Bone scan for your wrist"),
        ("I'm running the stall with Femi", "You're running the stall with Femi"),
        ("Our lease signing at the agent's", "Your lease signing at the agent's"),
        ("Lunch with Thandi and me", "Lunch with Thandi and you"),
        # guards: a country's letters and Chinese stay as written
        ("Visa interview at the US embassy", "Visa interview at the US embassy"),
        ("我妈的复查", "我妈的复查"),
    ],
)
def test_a_headline_is_said_to_the_person(thing: str, said_back: str) -> None:
    assert for_them(thing) == said_back


@pytest.mark.parametrize(
    ("text", "promised"),
    [
        ("礼拜天早上七点在码头集合，我六点就要从家里出发，好早", False),
        # guards: 开发 beside a report of done, and a send beside a setting off
        ("我们组周五开发布会，我负责开发的那部分已经写完了", False),
        ("我出发前把报价单发给陈经理", True),
        ("明天我一定把发票发过去", True),
    ],
)
def test_setting_off_is_no_send(text: str, promised: bool) -> None:
    assert is_promise(text) is promised
