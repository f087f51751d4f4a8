"""A day out told in chat with the hour it leaves and the hour it is back, and a call a mail invites
the person to on that day, which they accept: one clash. A word of a place's name in the chat ("Kings
Point Road") is no word of what the mail is about ("your points"). Written after the code
(2026-12-07), in sentences of its own; each case fails on c6e8266 unless marked a guard (the
whole-day clash passes there too: its "half six" and "points" did not reach the misreadings
blind32's b32-08 found, so it guards the path end to end)."""

from __future__ import annotations

import pytest

from daemon.config import Settings
from daemon.events import EmailEvent
from daemon.memory import Memory
from daemon.predict import engine
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plan_news import tied
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, at, receive_mail, say, thread_mail

MINE = frozenset({"alice@home.example"})
DAY_OUT = (
    "wednesday is the orchard field day with the ag society, all day. bus goes from the Kings Point Road "
    "depot at half six and we won't be back before four"
)
INVITE = (
    "Hello Alice,\n\nThank you for the feedback on the draft bylaw. Could you join a 20-minute phone call "
    "with our policy team on Wednesday 4 March at 1:30pm to go through your points?\n\nBest wishes,\nDeepa Rao"
)


def _mail(mid: str, sender: str, to: str, text: str, minutes: int, labels: tuple[str, ...]) -> EmailEvent:
    return thread_mail(mid, sender, to, text, minutes, labels, "Draft bylaw feedback call")


async def test_an_accepted_call_clashes_with_a_day_out_told_with_its_hours(  # guard
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    engine.start_cursor(pmemory)
    pclock.now = at("2026-03-02 09:00")  # Monday
    say(pmemory, "c1", DAY_OUT, pclock.now)
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now = at("2026-03-02 10:00")
    council = "Deepa Rao <d.rao@council.example>"
    receive_mail(pmemory, settings, _mail("m1", council, "alice@home.example", INVITE, 0, ("INBOX",)), MINE)
    pclock.now = at("2026-03-02 11:00")
    reply = "Hi Deepa, Wednesday at 1:30 is fine, talk then. Alice"
    receive_mail(
        pmemory, settings, _mail("m2", "Alice <alice@home.example>", council, reply, 60, ("SENT",)), MINE
    )
    pclock.now = at("2026-03-02 12:00")
    await outbox.deliver_due()
    clash = [b for _, b, _ in bus.sent if b["kind"] == "conflict"]
    assert clash and "13:30" in clash[0]["title"] + clash[0]["body"], bus.titles
    assert "orchard" in clash[0]["body"].lower(), clash[0]["body"]


@pytest.mark.parametrize(
    ("plan", "mail", "tied_"),
    [
        (DAY_OUT, INVITE, False),
        # guards: the same word as a name on both sides, and in the sender's address
        ("pilates at Core Studio thursday 6pm", "Your Core class on Thursday is full.", True),
        ("dentist at Bright Smile Clinic wed 4pm", "E-mail from <bookings@brightsmile-clinic.example>", True),
    ],
)
def test_a_word_of_a_name_is_no_word_of_the_thing(plan: str, mail: str, tied_: bool) -> None:
    assert tied(plan, mail, "Someone", "someone@elsewhere.example") is tied_
