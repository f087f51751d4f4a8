"""Thirtieth session (blind36 read, then blind37): chat's "id" for I'd in a promise told to someone;
"still haven't sent it" keeps a promise open; 讲好/说定 promise; Cantonese 成日 after its day is
the whole day; a foreign mail's agency letters (SAT) are no weekday and its "départ" is a
departure; how to come to a slot asks nothing; one plan told again with its other hour is one
plan; a headline says what the day is for. Sentences written after the code (2026-12-07); each
case fails on f114bc6 unless marked a guard."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.memory.types import ItemView
from daemon.predict.mail_plans import told_twice
from daemon.predict.plan_text import headline
from daemon.predict.plans import is_own_plan
from daemon.predict.predictors.promise import is_promise, tells_done
from daemon.predict.spans import day_span
from daemon.state.mail_words import as_english_always


@pytest.mark.parametrize(
    ("text", "promised"),
    [
        ("told the fella who runs the co-op in town id get him the coffee bag tally friday", True),
        ("promised my cousin over in the next village id bring round the bride price list on friday", True),
        # guard: a verb of the promise list passed before too
        ("told the lady from the school board id drop the permission slips off tmrw", True),
        # guards: an ID, a wish, a thing said long ago of someone else
        ("told the guard at the front gate my id number twice", False),
        ("showed the clerk at the counter my id card and she waved me through", False),
        ("told my aunty in port moresby i'd love to visit next year", False),
    ],
)
def test_told_someone_id_do_it(text: str, promised: bool) -> None:
    assert is_promise(text) is promised


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("still havent posted the rego papers to the transport office", False),
        ("didn't manage to ring the plumber today, work was mental", False),
        ("totally forgot to pay the water bill", False),
        ("保险单还没寄给小陈，明天一定", False),
        ("昨天忘了把押金转给房东", False),
        # guards: a report of done with a "no" beside it, and plain reports
        ("rang the plumber, no dramas", True),
        ("还有明天一定得把电费转给物业，上个月晚了三天被罚了款", False),
        ("water bill paid 👍", True),
        ("押金已经转给房东了，不用担心", True),
    ],
)
def test_a_report_that_it_has_not_happened_keeps_the_promise_open(text: str, done: bool) -> None:
    assert tells_done(text) is done


@pytest.mark.parametrize(
    ("text", "promised"),
    [
        # 讲好 / 说定 (what was agreed with someone), Traditional and Cantonese too
        ("同裝修師傅講好咗，禮拜三之前將尾數過數俾佢", True),
        ("和物业说定了月底前把车位费交上去", True),
        # guard: an agreed price is no act to do
        ("跟老板讲好了价钱，还挺便宜的", False),
    ],
)
def test_what_was_agreed_with_someone_is_a_promise(text: str, promised: bool) -> None:
    assert is_promise(text) is promised


def test_a_cantonese_day_said_whole_takes_the_day() -> None:
    day = datetime(2026, 4, 16, tzinfo=ZoneInfo("Asia/Hong_Kong"))
    item = ItemView("i1", "wing", "events", "", {"what": "禮拜四成日要喺貨倉點貨，冇得走開"})
    assert day_span(item, day) == (day.replace(hour=9), day.replace(hour=18))
    # guard: 成日 as "always" takes no hours
    always = ItemView("i2", "wing", "events", "", {"what": "佢成日都話禮拜四要加班"})
    assert day_span(always, day) is None


@pytest.mark.parametrize(
    ("mail", "read", "not_read"),
    [
        # an agency's letters in capitals are no weekday; a calendar's capitals beside figures are
        (
            "Favor de enviar la Opinión de Cumplimiento del SAT antes del viernes 6 de noviembre.",
            "SAT",
            "Saturday",
        ),
        ("Rendez-vous de suivi : LUN 16 NOV à 10h, salle B.", "Monday 16", "LUN"),
        # a timetable's word before its clock is a departure
        ("Traversée confirmée: samedi 14 novembre, départ 07h45 du quai nord.", "departs 07:45", "départ"),
    ],
)
def test_a_foreign_mails_capitals_and_departures(mail: str, read: str, not_read: str) -> None:
    english = as_english_always(mail)
    assert read in english and not_read not in english, english


def test_a_mail_that_says_how_to_come_to_a_slot_asks_nothing() -> None:
    from daemon.predict.mail_plans import _BEFORE_IT_STARTS, _SEND_BEFORE

    for told in (
        "Bitte seien Sie 20 Minuten vor Ihrem Termin an der Rezeption.",
        "Please arrive 15 minutes before your appointment and bring your card.",
        "请提前15分钟到达登记处。",
    ):
        assert _BEFORE_IT_STARTS.search(told), told
    # guard: a reply asked for within hours is no way to come to anything
    assert not _BEFORE_IT_STARTS.search("Please reply within 48 hours by email with the signed form.")
    # guard: what to send by a time before the slot is still asked for
    assert _SEND_BEFORE.search("Please submit the signed consent form 48 hours before your appointment.")
    assert _SEND_BEFORE.search("Merci de nous envoyer le formulaire 48 heures avant le rendez-vous.")
    assert not _SEND_BEFORE.search("Merci de vous présenter à la gare maritime 45 minutes avant le départ.")


def test_one_plan_told_again_with_its_other_hour_is_one_plan() -> None:
    tz = ZoneInfo("Pacific/Port_Moresby")
    said = datetime(2026, 6, 8, 10, 0, tzinfo=tz)
    first = ItemView(
        "c1",
        "ana",
        "events",
        "",
        {"what": "thursday I give the budget talk at the council chambers at 11, need to be seated by 10:30"},
        due_at=datetime(2026, 6, 11, 10, 30, tzinfo=tz),
        observed_at=said,
    )
    again = ItemView(
        "c2",
        "ana",
        "events",
        "",
        {"what": "slides printed. thursday, 11 o'clock at the chambers, seated by 10:30, breathe"},
        due_at=datetime(2026, 6, 11, 11, 0, tzinfo=tz),
        observed_at=said.replace(day=10),
    )
    assert told_twice(first, again, tz) and told_twice(again, first, tz)
    # guard: two things that share a word at hours neither names for the other are two plans
    other = ItemView(
        "c3",
        "ana",
        "events",
        "",
        {"what": "thursday the council audit call is at 3pm"},
        due_at=datetime(2026, 6, 11, 15, 0, tzinfo=tz),
        observed_at=said,
    )
    assert not told_twice(first, other, tz)


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        # what is only where to be: the thing announced before
        (
            "finaly got the knee scan booked, the clinic rang back. tuesday the 16th, gotta be at Pacific "
            "International by 7:30, scan at 8",
            "Knee scan",
        ),
        # a day that is only "the big one": what the next sentence says it is
        (
            "ok so saturday's the big one. the whole choir is singing at the cathedral, we warm up at 9",
            "choir",
        ),
    ],
)
def test_the_headline_is_what_the_day_is_for(text: str, thing: str) -> None:
    said = datetime(2026, 6, 10, 12, 0, tzinfo=ZoneInfo("Pacific/Port_Moresby"))
    assert thing in headline(text, said, ZoneInfo("Pacific/Port_Moresby"))


def test_a_day_told_in_the_next_breath_is_the_persons_plan() -> None:
    # a guard (both codes, with the rules): the sentence after the day is judged with it
    tz = ZoneInfo("Pacific/Port_Moresby")
    said = datetime(2026, 6, 10, 12, 0, tzinfo=tz)
    text = (
        "right, friday's the one. I'm out at the mine site all day with the safety auditors, leaving Lae at 6"
    )
    item = ItemView("c1", "ana", "events", "", {"what": text}, due_at=datetime(2026, 6, 12, 6, 0, tzinfo=tz))
    assert is_own_plan(item, tz, said)
    # guard: the next breath says nothing the person does
    vent = "friday again tomorrow. the office coffee machine is broken and nobody cares"
    item = ItemView("c2", "ana", "events", "", {"what": vent}, due_at=datetime(2026, 6, 12, tzinfo=tz))
    assert not is_own_plan(item, tz, said)
