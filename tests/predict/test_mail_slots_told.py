"""A mail to the person that tells them a slot — a practice's confirmation or reminder of what they
booked by phone — is their plan without a reply, and clashes with a day they told in chat; one that
offers or asks is not theirs until they answer. A date written "22. 10. 2026" ends no sentence,
nor does a year with its dot ("5. ožujka 2026. u 10:15"), which no longer parts a day from its clock.
A reply that takes the told slot says the clash at once; a sender's name ties a mail to the chat's
plan with its accents or without ("Maârif" / "Maarif"). A mail whose "ask" is the sentence telling
the slot is no unanswered question.

Written after the code (2026-12-07), in sentences of its own; each case fails on 4a4c422 unless
marked a guard."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from daemon.config import Settings
from daemon.events import EmailEvent
from daemon.memory import Memory
from daemon.predict import engine
from daemon.predict.mail_plans import tells_a_slot
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plan_news import tied
from daemon.state.email_rules import sentences
from daemon.state.mail_words import as_english_always
from handlers.email.items import drafts_from, message_from
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, receive_mail, say


@pytest.mark.parametrize(
    ("sentence", "tells"),
    [
        ("Ihr Termin zur Zahnreinigung ist am Donnerstag, 5. März, um 9:20 Uhr.", True),
        ("Vi bekräftar din tid hos fotterapeuten torsdag 5 mars kl. 9.20.", True),
        ("Your MRI is booked for Thursday 5 March at 9:20 in the east wing.", True),
        # (an ask with its deadline tells no slot: "bitte … bis", 请…前)
        ("Bitte senden Sie uns die Unterlagen bis Mittwoch, 4. März, 17:00 Uhr.", False),
        ("请于本周五中午12点前把签好字的表交回前台。", False),
        # guards for what stays unanswered: offered, asked or invited
        ("Could we move your cleaning to Thursday 5 March at 9:20?", False),
        ("Would Thursday at 9:20 work for the walkthrough", False),
        ("You are invited to the open evening on Thursday 5 March at 18:00.", False),
        ("Please confirm the visit on Thursday 5 March at 9:20 by replying to this mail.", False),
    ],
)
def test_a_sentence_that_tells_a_slot(sentence: str, tells: bool) -> None:
    assert tells_a_slot(sentence) is tells


def test_a_date_with_spaced_dots_ends_no_sentence() -> None:
    text = "Pozdravljeni,\n\nvaš pregled bo v četrtek, 5. 3. 2026, ob 9:20 v ambulanti na Vošnjakovi.\n\nLep pozdrav"
    assert any("5. 3. 2026, ob 9:20" in s for s in sentences(text))


def _confirmation(when: datetime, text: str, subject: str = "Termin") -> EmailEvent:
    return EmailEvent(
        id="m1",
        scope="alice",
        sender="Praxis Dr. Brandt <termine@praxis-brandt.example>",
        to=("alice@home.example",),
        date=when,
        subject=subject,
        thread="t1",
        labels=("INBOX",),
        text=text,
    )


MINE = frozenset({"alice@home.example"})
CONFIRMED = (
    "Guten Tag,\n\nwir bestätigen Ihren Termin zur Zahnreinigung am Donnerstag, 5. 3. 2026, um 10:40 Uhr."
    "\n\nPraxis Dr. Brandt"
)


def _course_then_mail(pmemory: Memory, settings: Settings, pclock: FakeClock, text: str) -> None:
    """Thursday's all-day course told in chat, then, two hours later, the practice's mail `text`."""
    engine.start_cursor(pmemory)
    say(
        pmemory,
        "c1",
        "thursday is the whole-day first aid course at the red cross hall, 8 till 5, no way out of it",
        pclock.now,
    )
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now += timedelta(hours=2)
    receive_mail(pmemory, settings, _confirmation(pclock.now, text), MINE)


def _reply(when: datetime, text: str) -> EmailEvent:
    """The person's answer in the practice's thread."""
    return EmailEvent(
        id="m2",
        scope="alice",
        sender="Alice <alice@home.example>",
        to=("termine@praxis-brandt.example",),
        date=when,
        subject="Re: Termin",
        thread="t1",
        labels=("SENT",),
        text=text,
    )


async def test_a_confirmed_slot_clashes_with_a_whole_day_told_in_chat(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    _course_then_mail(pmemory, settings, pclock, CONFIRMED)
    # the person may answer the practice first: not said within the hour
    pclock.now += timedelta(minutes=30)
    await outbox.deliver_due()
    assert not any("onflict" in t for t in bus.titles), bus.titles
    # ... and said once a day has passed without an answer
    pclock.now += timedelta(hours=24)
    await outbox.deliver_due()
    clash = [b for _, b, _ in bus.sent if "onflict" in b["title"]]
    assert clash and "10:40" in clash[0]["title"] + clash[0]["body"], bus.titles


async def test_a_told_slot_turned_down_by_the_person_clashes_with_nothing(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    _course_then_mail(pmemory, settings, pclock, CONFIRMED)
    pclock.now += timedelta(hours=1)
    receive_mail(
        pmemory,
        settings,
        _reply(
            pclock.now,
            "Guten Tag, am Donnerstag kann ich leider nicht, ich bin den ganzen Tag auf einem Kurs. Alice",
        ),
        MINE,
    )
    pclock.now += timedelta(hours=30)
    await outbox.deliver_due()
    assert not any("onflict" in t for t in bus.titles), bus.titles


async def test_an_offered_slot_waits_for_the_answer(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # guard: an offer left unanswered is not the person's, and clashes with nothing
    _course_then_mail(
        pmemory,
        settings,
        pclock,
        "Guten Tag,\n\nkönnten Sie am Donnerstag, 5. 3. 2026, um 10:40 Uhr zur Zahnreinigung kommen?"
        "\n\nPraxis Dr. Brandt",
    )
    pclock.now += timedelta(hours=30)
    await outbox.deliver_due()
    assert not any("onflict" in t for t in bus.titles), bus.titles


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("pregled je pomeren za petak, 12. jun 2026. u 08:30 časova", "Friday, 12 June 2026 at 08:30"),
        # guard: a year before its month (Hungarian) keeps its dot, and its date
        ("a vizsga 2026. június 12-én, pénteken 8:30-kor kezdődik", "2026. June 12"),
    ],
)
def test_a_year_with_its_dot_keeps_its_clock(text: str, read: str) -> None:
    assert read in as_english_always(text)


def test_a_year_with_its_dot_ends_no_sentence() -> None:
    text = "Poštovani,\n\nvaš termin je pomeren na petak, 12. jun 2026. u 08:30 časova, šalter 2.\n\nPozdrav"
    assert any("2026. u 08:30" in s for s in sentences(text))


async def test_a_reply_taking_the_told_slot_says_the_clash_at_once(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    _course_then_mail(pmemory, settings, pclock, CONFIRMED)
    pclock.now += timedelta(minutes=40)
    receive_mail(pmemory, settings, _reply(pclock.now, "Vielen Dank, ich komme am Donnerstag. Alice"), MINE)
    pclock.now += timedelta(minutes=20)
    await outbox.deliver_due()
    assert any("onflict" in t for t in bus.titles), bus.titles


@pytest.mark.parametrize(
    ("plan", "sender"),
    [
        ("car service at the Gonçalves garage on monday at 9", "Oficina Goncalves"),
        ("monday 9am the car goes to Goncalves for its service", "Oficina Gonçalves"),
    ],
)
def test_a_senders_name_ties_with_or_without_its_accents(plan: str, sender: str) -> None:
    assert tied(plan, "Confirmamos a revisão.", sender, "marcacoes@oficina.example")


@pytest.mark.parametrize(
    "text",
    [
        "Здравствуйте!\n\nНапоминаем, что вы записаны на прием к терапевту: четверг, 5 марта, 16:10, ул. Ленина,"
        " 5, каб. 3.\n\nПри себе иметь полис.",
        "Poštovani,\n\nobavještavamo Vas da je Vaš pregled premješten sa srijede, 4. ožujka 2026. u 8:00 sati, na"
        " četvrtak, 5. ožujka 2026. u 9:20 sati.\n\nMolimo ponesite zdravstvenu iskaznicu.",
    ],
)
async def test_a_told_slot_is_no_unanswered_question(
    text: str, pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    state = receive_mail(pmemory, settings, _confirmation(pclock.now, text), MINE)
    for _ in range(72):  # up to Thursday 08:00, past the eve of the slot the sentence names
        pclock.now += timedelta(hours=1)
        await outbox.deliver_due()
    assert state.ask is not None  # read as an ask: the slot's own sentence, with a date
    assert not any(t.startswith("Unanswered") for t in bus.titles), bus.titles


def test_a_day_takes_the_clock_the_next_sentence_gives_alone() -> None:
    mail = _confirmation(
        datetime(2026, 3, 2, 9, 0, tzinfo=UTC),
        "Dear Alice,\n\nYour hearing aid fitting is confirmed for Thursday 5 March 2026. Please come to the "
        "second floor at 14:30, having stopped using ear drops the day before.\n\nBest wishes",
    )
    meetings = [
        d
        for d in drafts_from(mail, message_from(mail, MINE, UTC), MINE, UTC)
        if d.l1.get("kind") == "meeting"
    ]
    assert [d.due_at.isoformat() if d.due_at else None for d in meetings] == ["2026-03-05T14:30:00+00:00"]


async def test_an_ask_with_its_deadline_in_unread_words_keeps_its_follow_up(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # no appointment in it: "send the receipt by Thursday noon", in Tagalog the request lists miss
    engine.start_cursor(pmemory)
    text = (
        "Magandang araw po,\n\nPara matapos ang inyong aplikasyon, ipadala ang resibo ng bayad at kopya ng "
        "pasaporte bago mag-12:00 ng tanghali sa Huwebes, Marso 5, 2026.\n\nSalamat po"
    )
    state = receive_mail(pmemory, settings, _confirmation(pclock.now, text), MINE)
    for _ in range(72):
        pclock.now += timedelta(hours=1)
        await outbox.deliver_due()
    assert state.ask is not None
    assert any(t.startswith("Unanswered") for t in bus.titles), bus.titles


def test_a_deadlines_clock_joins_no_day() -> None:
    # "by 17:00" is an hour to be done by, not the day's appointment
    mail = _confirmation(
        datetime(2026, 3, 2, 9, 0, tzinfo=UTC),
        "Dear Alice,\n\nOur office stays closed on Thursday 5 March 2026 for the inventory. Please send the "
        "signed lease by 17:00.\n\nBest wishes",
    )
    drafts = drafts_from(mail, message_from(mail, MINE, UTC), MINE, UTC)
    assert not any(
        d.due_at is not None and d.due_at.isoformat() == "2026-03-05T17:00:00+00:00" for d in drafts
    ), [(d.l1.get("kind"), d.due_at) for d in drafts]
