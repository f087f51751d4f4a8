"""Issue 21, twenty-fifth session: whose plan, read from the grammar instead of a list of relations.

English says whose thing an appointment is with its possessive: "X has his / her / their …" is
X's, whoever X is ("my chum", "my mamá", "our downstairs neighbour Ilse"), with no list of
relations to fall out of. Being wished well ("pray for me", "fingers crossed for us") is no part
in someone else's plan. A no is a no in the words chat borrows for it ("non merci", "nein", "nope")
and to whoever it is told ("told dem nah"). An "if" in a clause of its own after the plan's day
is about what may go wrong, not a condition on the plan. A weekday after "since" is one gone by.
A review promised "after the 2pm retro" is fair once the retro is over, not once it begins; "X wants
me on 2614" names the pull request.

Sentences written after the code, in words not taken from any scenario. Each case fails on the
code before the change (4a4c422) unless its comment says it is a guard that holds on both.
"""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.dates import resolve_dates
from daemon.predict.plans import declines, reasons
from daemon.predict.said_when import GRACE, MEETING, names_a_work_item, promised_at


@pytest.mark.parametrize(
    "text",
    [
        "my old roommie has his citizenship oath on friday at 10",
        "the twins have their swimming gala saturday at 2, carpool sorted by the other parents",
        "my nan's carer is having her day off thursday so the agency sends someone at 9",
        "Priyanka from accounts sits her CPA exam on saturday at 8",
        "Odile at the bakery takes her citizenship interview monday 10:30",
        "Bongani from church flies to Durban on friday for his cousin's funeral",
        # guards (the lists knew these: a neighbour, a capitalised name, someone's son)
        "our downstairs neighbour Ilse has her cataract op wednesday at 7:40",
        "Tomasz has got his MOT retest tomorrow at 8.15",
        "the landlord's son has his graduation thurs at 11, whole family's flying in",
    ],
)
def test_what_someone_has_by_his_or_her_is_theirs(text: str) -> None:
    assert "other" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        # guards (hold before and after): the speaker's own, told with "my" / "our"
        "I have my eye test on friday at 4",
        "we've got our mortgage meeting monday at 11",
        "got my bloods at 8 tomorrow, no breakfast",
        # the speaker takes part in the other's plan
        "my brother has his court date tuesday at 9:30 and I'm going with him",
        "mum has her knee scan thursday at 2, I'm driving her",
    ],
)
def test_a_plan_of_ones_own_or_one_taken_part_in_stays(text: str) -> None:
    assert "other" not in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        "Juno has her driving test friday at 11, pray for me, I lent her my car",
        "boss has his big pitch thursday 3pm, wish us luck",
        # guard: a relation of the list, and "us" after "crossed for" was no part before either
        "my cousin has her bar exam tomorrow at 8, keep your fingers crossed for us",
    ],
)
def test_being_wished_well_is_no_part_in_it(text: str) -> None:
    assert "other" in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        "the volleyball lot want a pub quiz thursday night, I said nope, early shift",
        "Ayla's crew want a bbq sunday at 4, i said nein danke",
        "the church choir want us at the carol service saturday 6pm, told dem nah this year",
        "the book club wants a night out friday at 8, we said non, too tired",
    ],
)
def test_a_no_in_any_words_declines(text: str) -> None:
    assert declines(text)
    assert "other" in reasons(text)


def test_a_no_that_opens_a_plan_declines_nothing() -> None:
    # guard: "said no" before what the speaker will do still names their own plan
    text = "said yes to the dentist's 3pm slot on friday, she wanted 9 but no chance"
    assert not declines(text)


@pytest.mark.parametrize(
    "text",
    [
        "gig at the brudenell friday 8pm, if the bus is late again i'm getting a taxi",
        "the removals van comes tuesday at 7, and if it rains we're doomed",
        "周四下午三点半面试，万一迟到就完了",
        "礼拜天早上六点的高铁，如果睡过头就只能改签",
    ],
)
def test_an_if_after_the_day_in_its_own_clause_is_no_wish(text: str) -> None:
    assert "hypothetical" not in reasons(text)


@pytest.mark.parametrize(
    "text",
    [
        # guards: a condition told before the day, or on the plan in its own clause
        "if the weather holds we might drive to the coast on sunday",
        "we'd go to the lake on saturday if the car was fixed",
        "要是周六不加班就去看展",
    ],
)
def test_a_condition_on_the_plan_is_still_one(text: str) -> None:
    assert "hypothetical" in reasons(text)


WELLINGTON = ZoneInfo("Pacific/Auckland")
WED = datetime(2027, 5, 12, 18, 30, tzinfo=WELLINGTON)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("the landlord has been ignoring my texts since Monday", 10),
        ("my back has been playing up ever since sunday's run, physio friday", 9),
        ("haven't slept properly since tuesday", 11),
    ],
)
def test_a_weekday_after_since_is_gone_by(text: str, day: int) -> None:
    since = next(m for m in resolve_dates(text, WED, WELLINGTON) if m.text.lower().startswith("since"))
    assert since.value.day == day
    assert since.direction == "past"


def test_the_plan_told_beside_since_keeps_its_day() -> None:
    # the day ahead told beside it is the only one ahead (before, "since sunday" was another)
    found = resolve_dates(
        "my back has been playing up ever since sunday's run, physio friday", WED, WELLINGTON
    )
    assert [m.value.day for m in found if m.direction == "future"] == [14]


HOBART = ZoneInfo("Australia/Hobart")
MORNING = datetime(2027, 5, 12, 8, 45, tzinfo=HOBART)


@pytest.mark.parametrize(
    ("text", "hour", "minute"),
    [
        ("Ruth wants eyes on #552, I'll do it after the 11am standup", 11, 0),
        ("#552 after my 1:30pm dentist then", 13, 30),
        ("#552 等下午两点的周会开完再说", 14, 0),
    ],
)
def test_after_a_thing_at_a_clock_is_after_it_is_over(text: str, hour: int, minute: int) -> None:
    fair = promised_at(text, MORNING, HOBART, time(9, 0))
    assert fair == MORNING.replace(hour=hour, minute=minute) + MEETING + GRACE


def test_after_a_bare_clock_is_that_clock() -> None:
    # guard: "after 2pm" is the hour itself
    fair = promised_at("#552 after 2pm, promise", MORNING, HOBART, time(9, 0))
    assert fair == MORNING.replace(hour=14, minute=0) + GRACE


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Tariq wants me on 1187 before the release", True),
        ("the lead put me on 9042. dull but fine", True),
        # guards: a phone number is no work item
        ("text me on 0421 889 302 if you're lost", False),
        ("ring me on 555 0199 after work", False),
    ],
)
def test_put_on_a_number_names_a_work_item(text: str, named: bool) -> None:
    assert names_a_work_item(text) is named
