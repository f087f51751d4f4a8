"""Twenty-ninth session (blind35, then blind36 read): a promise beside a done act of another thing
is still a promise; what to have ready for the meeting, and a notice to the offices, ask no reply;
a moved plan's new place "will be held at"; a clause that is the plan's place is quoted with it;
"booked X finally" is relief; a slot alone is quoted with what it is for. Sentences written after
the code (2026-12-07); each case fails on 444dfdc unless marked a guard."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plan_news import _new_place
from daemon.predict.plan_text import said_of
from daemon.predict.plans import _judged, own_plan, reasons
from daemon.predict.predictors.promise import is_promise
from daemon.state.email_rules import ask_of, asks
from daemon.state.mail_words import as_english_always
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, deliver_at, tell_turns

LIMA = ZoneInfo("America/Lima")


@pytest.mark.parametrize(
    ("text", "promised"),
    [
        # a done act before it, or someone else's after it, is another act
        ("paid the van deposit this morning, i'll send the hire form back to kwame on monday", True),
        ("刚把车送去保养了，答应老婆明天把水电费交了，她念叨好几天了", True),
        ("called the insurer at lunch, promised the landlord i'd email him the claim number friday", True),
        ("答应了小周后天把合同扫描件发给她，她已经问了三遍了", True),
        # 了 after the act committed to is its result, not its report
        ("跟房东说好了下礼拜一把这个月的物业费缴了", True),
        ("記得後天一定要把保單續了", True),
        # guards: the promise's own clauses say it is done
        ("答应表姐的那份体检报告已经寄了", False),
        ("前几天答应同事帮忙带的资料今天交了", False),
        ("i'll pay the plumber tomorrow, actually paid him already", False),
        ("答应他周五把报价发过去，刚发了", False),
    ],
)
def test_a_promise_is_read_apart_from_other_acts_told_beside_it(text: str, promised: bool) -> None:
    assert is_promise(text) is promised


async def test_a_promise_told_after_a_done_errand_gets_its_check_in(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    tell_turns(
        pmemory,
        settings,
        pclock,
        [
            (
                "2026-06-01 16:10",
                "finished the site visit at last, told kemal i'd send him the snag list tomorrow",
            )
        ],
    )
    await deliver_at(outbox, pclock, ("2026-06-02 18:00", "2026-06-03 09:30"))
    titles = [b["title"] for _, b, _ in bus.sent]
    assert len(titles) == 1 and "snag list" in titles[0] and "did it happen" in titles[0], titles


@pytest.mark.parametrize(
    ("sentence", "asks_now"),
    [
        ("Please have the revised floor plan ready to present to the board.", False),
        ("Kindly have your portfolio ready for the interview.", False),
        # guards: ready by a time is a thing to get done, and a question still asks
        ("Please have the revised floor plan ready by Tuesday noon.", True),
        ("Could you have the floor plan ready for the meeting?", True),
    ],
)
def test_what_to_have_ready_to_show_at_the_meeting_asks_no_reply(sentence: str, asks_now: bool) -> None:
    assert asks(sentence) is asks_now


def test_a_notice_to_the_offices_asks_only_for_what_is_handed_in() -> None:
    notice = (
        "各部门：\n\n兹定于下周二上午九点召开年度安全生产大会。请各部门主要负责人按时出席，并做好发言准备。"
    )
    assert ask_of(notice) is None
    # guard: a notice that asks for something to be handed in still asks
    hand_in = "各部门：\n\n请于本周五下班前提交年度培训计划。"
    assert ask_of(hand_in) == "请于本周五下班前提交年度培训计划。"


@pytest.mark.parametrize(
    ("mail", "place"),
    [
        (
            "Bonjour,\n\nLa réunion des parents est déplacée au jeudi 14 mai à 18h et aura lieu à la "
            "Salle des Fêtes de Plouzané (entrée côté parking).\n\nCordialement",
            "Salle des Fêtes de Plouzané",
        ),
        (
            "Hi all,\n\nQuick change: Saturday's volunteer briefing is now 10:30 and will take place at "
            "Hollis Street Library, upstairs.\n\nThanks, Gemma",
            "Hollis Street Library, upstairs",
        ),
        (
            "各位家长：\n\n原定周三在礼堂举行的开放日改到周四上午九点半，在新建的体育馆二楼举行。",
            "新建的体育馆二楼",
        ),
        # guard: a move that names no new place
        ("Hi,\n\nWe need to move your cleaning to Friday at 3pm instead. Same address.\n\nBest, Sparkle", ""),
    ],
)
def test_a_moved_plans_new_place_is_where_it_will_be_held(mail: str, place: str) -> None:
    assert _new_place(mail, mail, "the briefing") == place


def test_a_clause_that_is_the_plans_place_is_quoted_with_it() -> None:
    said = datetime(2026, 9, 14, 12, 5, tzinfo=LIMA)
    text = (
        "finally!! renewal slot for my DNI is wednesday 8:40am, need the old card and the receipt, "
        "at the RENIEC office in Jockey Plaza next to the food court. took me 3 weeks to get it"
    )
    assert "Jockey Plaza" in said_of(text, said, LIMA)
    # guard: a clause that only goes on ("at least…") is not kept for being a place
    other = "dentist wednesday 8:40am, the usual cleaning, at least it's not a filling this time, ugh"
    assert "at least" not in said_of(other, said, LIMA)


async def test_a_place_read_as_a_title_alone_is_not_said_as_where(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    told = "the gp booked my bloods for thursday at 10:15, at Dr Ólafsdóttir's practice on Laugavegur, fasting from 10pm"
    tell_turns(pmemory, settings, pclock, [("2026-06-01 12:00", told)])
    await deliver_at(outbox, pclock, ("2026-06-04 06:00", "2026-06-04 09:00"))
    reminders = [b for _, b, _ in bus.sent if b["title"].startswith("Reminder")]
    assert len(reminders) == 1, [b["title"] for _, b, _ in bus.sent]
    assert not reminders[0]["title"].endswith(", at Dr"), reminders[0]["title"]
    assert "Laugavegur" in reminders[0]["body"], reminders[0]["body"]


@pytest.mark.parametrize(
    ("sentence", "own"),
    [
        ("booked my smog check finally, thursday at 3:20 at the test-only place on grand ave.", True),
        ("scheduled my colonoscopy finally. it's on the 28th at 8am", True),
        # guard: what was done is still done
        ("finally finished the tax return yesterday at 11pm", False),
    ],
)
def test_finally_after_what_was_booked_is_relief_not_done(sentence: str, own: bool) -> None:
    said = datetime(2026, 9, 14, 12, 5, tzinfo=LIMA)
    assert ("done" not in reasons(sentence)) is own
    if own:
        assert _judged(sentence, said, LIMA, own_plan)


def test_a_slot_with_nothing_of_what_it_is_for_is_quoted_with_the_sentence_before() -> None:
    said = datetime(2026, 9, 14, 12, 5, tzinfo=LIMA)
    text = (
        "the visiting audiologist is back in town!! got a slot monday 11:15 at the health centre. about time"
    )
    assert "audiologist" in said_of(text, said, LIMA)
    # guard: a plan that says what it is quotes no sentence before it
    other = "the bakery was out of rye again. eye test friday 9:40 by the church hall"
    assert "bakery" not in said_of(other, said, LIMA)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("a sua consulta de terça-feira, 10/02/2026, às 9h00", "Tuesday 10 February 2026"),
        ("su cita del lunes 2/11 a las 8", "Monday 2 November"),
        # guards: dots as before, and a weekday with no figures after it
        ("am Donnerstag, 05.03.2026 um 14 Uhr", "Thursday 5 March 2026"),
        ("vendredi prochain à 10h", "Friday"),
    ],
)
def test_a_foreign_mails_day_and_month_in_figures_are_read_day_first(text: str, read: str) -> None:
    assert read in as_english_always(text)


def test_a_moved_plans_new_place_is_on_the_line_that_labels_it() -> None:
    mail = (
        "Olá,\n\nA sua vistoria de quinta-feira, 12/02/2026, às 10h00 foi remarcada.\n\n"
        "Nova data: sexta-feira, 13/02/2026, às 12h30\nLocal: Pátio do Detran Zona Norte, portão 2\n\n"
        "Atenciosamente"
    )
    assert _new_place(as_english_always(mail), mail, "a vistoria") == "Pátio do Detran Zona Norte, portão 2"
