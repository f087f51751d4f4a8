"""One plan told by two sources is no clash with itself (predict/mail_plans.py). Written after the code."""

from __future__ import annotations

from datetime import UTC, datetime

from daemon.memory.types import ItemView
from daemon.predict.mail_plans import same_plan, sender_name


def mail(item_id: str, sender: str, address: str, sentence: str, thread: str) -> ItemView:
    return ItemView(
        item_id,
        "kim",
        "events",
        f"{sender} <{address}> wrote in the e-mail 'Appointment': {sentence}",
        {"kind": "meeting", "source": "email", "thread": thread, "sentence": sentence, "from": address},
        due_at=datetime(2026, 5, 7, 14, 30, tzinfo=UTC),
    )


def chat(item_id: str, text: str) -> ItemView:
    return ItemView(item_id, "kim", "events", f"user: {text}", {"what": text, "role": "user"})


def test_the_practices_confirmation_is_the_plan_told_in_chat() -> None:
    told = chat("c1", "physio with Hanna at Kinetic on thursday at 4.30, finally")
    confirmed = mail(
        "m1", "Kinetic Physio", "desk@kinetic.example", "Your physio session is on Thursday at 16:30.", "t1"
    )
    assert same_plan(told, confirmed) and same_plan(confirmed, told)
    assert sender_name(confirmed) == "Kinetic Physio"


def test_two_messages_of_one_thread_are_one_meeting() -> None:
    asked = mail("m1", "Ola Berg", "ola@firm.example", "Shall we do the budget call Friday at 10?", "t9")
    answered = mail("m2", "Kim Lee", "kim@home.example", "Friday 10 works, talk then.", "t9")
    assert same_plan(asked, answered)


def test_another_plan_on_the_same_day_is_not_the_mails() -> None:
    told = chat("c2", "haircut on friday at 10 at the barber on king st")
    asked = mail("m3", "Ola Berg", "ola@firm.example", "Budget call on Friday at 10, link to follow.", "t10")
    assert not same_plan(told, asked)
