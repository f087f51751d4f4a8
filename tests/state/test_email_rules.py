"""The e-mail rules (asks, promises, the new part of a reply) and the thread derivation, as pure functions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from daemon.events import EmailEvent
from daemon.state.email_rules import ask_of, asks, due_in, fresh_text, promise_of
from daemon.state.email_threads import derive
from daemon.state.types import EmailMessage
from handlers.email.items import message_from


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        # written after the change (2026-12-05), as booking confirmations and colleagues write
        # a standing instruction for a case the reader may not be in asks nothing now
        (
            "Your table for 4 is confirmed for Friday 8pm. If you need to change the booking, please ring us.",
            None,
        ),
        ("Appointment: Tue 14 Jan, 10:20. To cancel, reply CANCEL to this message.", None),
        ("您的体检已预约在3月5日上午8点。如有疑问请致电客服。", None),
        ("預約已確認。若需改期，請提前一天來電。", None),
        # a prohibition asks that nothing be done; "don't forget to" asks that something be
        ("Please do not bring liquids over 100ml. Arrive 2 hours early.", None),
        ("请勿直接回复此邮件。", None),
        (
            "Please don't forget to send me your timesheet by Friday.",
            "Please don't forget to send me your timesheet by Friday.",
        ),
        ("别忘了周四前把发票发我。", "别忘了周四前把发票发我。"),
        # a field label is no verb
        ("Outbound: Mon 3 Mar LHR 09:40\nReturn: Fri 7 Mar JFK 18:05", None),
        # written after the change (2026-12-06): a question that leads into a pitch asks nothing of
        # this reader; a request before an offer still does
        ("Heading home for the holidays? Book your airport shuttle by December 15 and save 10%.", None),
        (
            "Could you confirm the venue by Monday? Register for the parking pass on the portal.",
            "Could you confirm the venue by Monday?",
        ),
        # written after the change (2026-12-06): a verb joined by a hyphen is a noun
        ("Bag drop-off and check-in open 3 hours before your departure.", None),
        ("Sign-in sheets will be at the front desk.", None),
        ("Check in online and print your boarding pass.", "Check in online and print your boarding pass."),
        # the polite conditional is a request
        (
            "If you could get the signed copy back to me by Wednesday, that'd be brilliant.",
            "If you could get the signed copy back to me by Wednesday, that'd be brilliant.",
        ),
    ],
)
def test_standing_instructions_prohibitions_and_labels_ask_nothing(text: str, ask: str | None) -> None:
    assert ask_of(text) == ask


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        (
            "Do you prefer the lake venue or the city one? Bob",
            "Do you prefer the lake venue or the city one?",
        ),
        ("Please send me the report. Thanks", "Please send me the report."),
        ("Thanks, could you check the numbers.", "Thanks, could you check the numbers."),
        ("Let me know when you are back.", "Let me know when you are back."),
        ("李经理，麻烦把合同发给我", "李经理，麻烦把合同发给我"),
        ("你明天有空吗", "你明天有空吗"),
        ("请在周五之前回复。", "请在周五之前回复。"),
        # answers and courtesies ask nothing
        ("The lake one, please.", None),
        ("Please find attached the slides.", None),
        ("Attached. Alice", None),
        ("收到，谢谢。", None),
        ("请查收附件。", None),
        # the same characters that are no request
        ("我们已经把申请材料交上去了。", None),
        ("感谢邀请，周六我们一家都会到。", None),
        ("报销流程实在太麻烦了。", None),
        ("上次搬家多亏了你帮忙！", None),
        ("麻烦您确认一下周四的时间", "麻烦您确认一下周四的时间"),
        ("See https://example.com/doc?id=3 for the numbers.", None),
        # a question in the quoted earlier message is not this message's question
        ("Done.\n\nOn Tue, 3 Mar 2026, Bob wrote:\n> could you send it?", None),
        ("好的。\n在 2026年3月3日，王伟 写道：\n> 能不能发给我？", None),
        # a parenthesis is part of its sentence, whatever it holds (written after blind10)
        (
            "Hi all, I need your RSVP (yes/no!) and dietary needs by Friday noon so I can book.",
            "Hi all, I need your RSVP (yes/no!) and dietary needs by Friday noon so I can book.",
        ),
    ],
)
def test_what_asks(text: str, ask: str | None) -> None:
    assert ask_of(text) == ask


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        # calling something off and offering another time leaves nobody waiting on an answer
        ("Really sorry, I can't make the climbing session on Saturday. Sunday instead?", None),
        ("The supper club is off this month, the host is ill. Some other time?", None),
        ("明晚的羽毛球我来不了了，下周再约？", None),
        # a real ask beside the cancellation still is one
        (
            "I have to cancel Friday's tasting. Could you return the deposit form by Monday?",
            "Could you return the deposit form by Monday?",
        ),
        # offering times without calling anything off is a question to answer
        (
            "Would next Tuesday instead of Monday suit you for the survey?",
            "Would next Tuesday instead of Monday suit you for the survey?",
        ),
    ],
)
def test_another_time_offered_with_a_cancellation_is_no_ask(text: str, ask: str | None) -> None:
    assert ask_of(text) == ask


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        # mail to a list: its opt-out line says nobody waits on this reader
        ("年货节提前购！坚果礼盒第二件半价，点击领券。\n\n回复TD退订", None),
        ("Tell us what you think! Rate your last order by Sunday.\n\nManage preferences | Unsubscribe", None),
        # an ask in Traditional characters, quoted as written (written after the rule)
        ("同意書請在週五中午前簽好交回給我，謝謝。", "同意書請在週五中午前簽好交回給我，謝謝。"),
        # in traditional characters too
        ("週年慶最後三天，會員再享九折，要不要來看看？\n\n如不想收到此類信件，請點此退訂", None),
        # a person's mail that mentions unsubscribing, early on, still asks
        (
            "Could you unsubscribe me from the parents' WhatsApp list? It pings all night.\n\nThanks,\nRuth\nSent from my phone\n-- \nRuth Adeyemi",
            "Could you unsubscribe me from the parents' WhatsApp list?",
        ),
    ],
)
def test_mail_sent_to_a_list_asks_nothing(text: str, ask: str | None) -> None:
    assert ask_of(text) == ask


@pytest.mark.parametrize(
    ("text", "promise"),
    [
        ("Thanks. I'll send the numbers tomorrow.", "I'll send the numbers tomorrow."),
        ("We will have it ready by Friday.", "We will have it ready by Friday."),
        ("好的，我明天发给你。", "好的，我明天发给你。"),
        ("I won't make it, sorry.", None),
        ("Sure, Thursday works.", None),
        ("Here it is.\n> I'll send it later", None),
    ],
)
def test_what_promises(text: str, promise: str | None) -> None:
    assert promise_of(text) == promise


def test_the_new_part_stops_at_the_quote_and_the_signature() -> None:
    assert fresh_text("Hi\n> old\nnew\n-- \nBob\nCEO") == "Hi\nnew"
    assert fresh_text("Hi\n-----Original Message-----\nFrom: x") == "Hi"


def test_due_times_lie_ahead_of_the_mail() -> None:
    tz = ZoneInfo("Europe/Berlin")
    sent = datetime(2026, 3, 3, 9, 12, tzinfo=tz)  # a Tuesday
    assert due_in("could you send it by Thursday?", sent, tz) == datetime(2026, 3, 5, tzinfo=tz)
    assert due_in("I'll send it tomorrow at 10am.", sent, tz) == datetime(2026, 3, 4, 10, tzinfo=tz)
    assert due_in("can we talk this week?", sent, tz) is None  # this week began on Monday
    assert due_in("it arrived yesterday", sent, tz) is None


def message(n: int, outbound: bool, ask: str | None = None, promise: str | None = None) -> EmailMessage:
    return EmailMessage(
        scope="alice",
        thread="t",
        id=f"m-{n}",
        sent_at=datetime(2026, 3, 3, 9, tzinfo=UTC) + timedelta(minutes=n),
        sender="alice@example.com" if outbound else f"p{n % 2}@example.com",
        sender_name="",
        recipients=(f"p{n % 2}@example.com",) if outbound else ("alice@example.com",),
        subject="Plan" if n == 0 else "Re: Plan",
        outbound=outbound,
        to_person=not outbound,
        ask=ask,
        promise=promise,
    )


THREAD = [
    message(0, False, ask="Can you send the plan?"),
    message(1, True, promise="I'll send it tomorrow."),
    message(2, False),
    message(3, True, ask="Does Friday work?"),
    message(4, False, ask="Which version?"),
]


@given(st.permutations(THREAD))
def test_the_state_does_not_depend_on_arrival_order(order: list[EmailMessage]) -> None:
    assert derive(order) == derive(THREAD)


def test_who_waits_on_whom() -> None:
    state = derive(THREAD)
    assert state.waiting_on_person and state.ask == "Which version?" and not state.waiting_on_other
    assert state.person_promised is None  # the person's later message (m-3) cleared the promise
    assert state.counterparts == ("p0@example.com", "p1@example.com") and state.subject == "Plan"
    assert derive(THREAD[:2]).person_promised == "I'll send it tomorrow."
    mine = derive(THREAD[:4])
    assert mine.waiting_on_other and not mine.waiting_on_person and mine.ask == "Does Friday work?"
    assert derive(THREAD[:3]).ask is None  # a statement last: nobody waits


def test_mail_gmail_files_as_promotions_asks_nothing() -> None:
    def mail(labels: tuple[str, ...]) -> EmailEvent:
        return EmailEvent(
            id="m1",
            scope="s",
            sender="Corner Bakery <hello@bakery.example>",
            to=("me@example.com",),
            date=datetime(2026, 5, 4, 9, 0, tzinfo=UTC),
            subject="Fresh sourdough Fridays?",
            labels=labels,
            text="Would you like a loaf set aside every Friday? Reply and tell us which one.",
        )

    tz = ZoneInfo("UTC")
    assert message_from(mail(("INBOX", "CATEGORY_PROMOTIONS")), frozenset({"me@example.com"}), tz).ask is None
    # the same words in the person's primary inbox ask
    assert message_from(mail(("INBOX",)), frozenset({"me@example.com"}), tz).ask is not None


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        # an update from a list that only invites (written after the change, 2026-12-05)
        ("This month in solar: three case studies. Sign up before Thursday for the installer meetup.", False),
        ("本周精选：储能新政解读。立即报名周五的线上分享会！", False),
        # a notice there that asks for something of this reader still asks
        ("Your card ending 4411 expires soon. Please confirm your new address by 30 June.", True),
    ],
)
def test_an_update_that_only_invites_asks_nothing(text: str, asks: bool) -> None:
    event = EmailEvent(
        id="u1",
        scope="s",
        sender="Updates <updates@list.example>",  # (a list's, not a campaign box)
        to=("me@example.com",),
        date=datetime(2026, 6, 2, 8, 0, tzinfo=UTC),
        subject="This week",
        labels=("INBOX", "CATEGORY_UPDATES"),
        text=text,
    )
    assert (message_from(event, frozenset({"me@example.com"}), ZoneInfo("UTC")).ask is not None) is asks


def test_the_due_time_of_an_ask_is_its_deadline_not_the_first_date() -> None:
    # written after the change: the event's date comes first, the deadline after "by" / 前
    tz = ZoneInfo("Europe/Madrid")
    sent = datetime(2026, 5, 4, 10, 0, tzinfo=tz)  # a Monday
    got = due_in("Menus for the 22 May gala need to reach me by Thursday 6pm, please.", sent, tz)
    assert got == datetime(2026, 5, 7, 18, 0, tzinfo=tz)
    got = due_in("下个月十号的年会，请大家周三之前把节目报给我。", sent, tz)
    assert got is not None and got.date() == datetime(2026, 5, 6).date()


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        # nobody reads the replies: instructions ask for no answer
        (
            "Hello Ana,\n\nYour blood test is booked for 14 May at 08:10. Please bring your NHS number "
            "and fast from midnight.\n\nPlease do not reply to this email.",
            None,
        ),
        (
            "您好，您预约的护照办理时间为5月20日上午9点，请携带身份证原件和户口本。\n\n此邮件为系统自动发送，请勿直接回复。",
            None,
        ),
        # ... but a thing due by a time still is ("by")
        (
            "Hi,\n\nPlease submit your meter reading by 31 May.\n\nThis inbox is not monitored.",
            "Please submit your meter reading by 31 May.",
        ),
    ],
)
def test_a_message_whose_replies_nobody_reads(text: str, asks: str | None) -> None:
    assert ask_of(text) == asks


@pytest.mark.parametrize(
    ("sentence", "asks_now"),
    [
        # written after the change (2026-12-06): a reply asked for only in a case the reader may
        # not be in asks nothing now (the first three failed on the code before; the rest guard)
        ("If the new time doesn't work, please call us on 0161 555 0199.", False),
        ("Please reply to this message only if Tuesday is no good for you.", False),
        ("Should Thursday not work for you, please let us know and we will find another day.", False),
        ("Could you confirm Thursday works for you?", True),
        ("Please send the signed form back by Wednesday.", True),
    ],
)
def test_a_reply_asked_only_in_a_case(sentence: str, asks_now: bool) -> None:
    assert asks(sentence) is asks_now


@pytest.mark.parametrize(
    ("sentence", "asks_now"),
    [
        # written after the change (2026-12-06): what to bring or wear to an appointment, or
        # when to arrive, is done there, not answered (three of the first four failed on the code
        # before)
        ("Please bring your old glasses and a list of medications.", False),
        ("Please arrive 15 minutes before your slot to fill in the forms.", False),
        ("请带上身份证原件和复印件。", False),
        ("請提前十五分鐘到達診所。", False),
        ("Please send me the floor plan before the visit.", True),
    ],
)
def test_what_to_bring_to_an_appointment_asks_no_reply(sentence: str, asks_now: bool) -> None:
    assert asks(sentence) is asks_now


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        # Portuguese and Spanish ask by thanking for it, with "até" for "by" (2026-12-07, after the code)
        (
            "Bom dia,\n\nAgradecemos que nos remeta o contrato assinado até sexta-feira, às 17h00.\n\nObrigado",
            "Agradecemos que nos remeta o contrato assinado até sexta-feira, às 17h00.",
        ),
        (
            "Estimado Sr. Ruiz:\n\nLe agradecería que nos envíe las facturas antes del jueves 14.\n\nSaludos",
            "Le agradecería que nos envíe las facturas antes del jueves 14.",
        ),
        # guard: "até" of a closing greeting asks nothing
        ("Olá Ana,\n\nObrigada pela visita de ontem. Até amanhã!\n\nBeijinhos", None),
    ],
)
def test_asks_by_thanking_for_it(text: str, ask: str | None) -> None:
    assert ask_of(text) == ask
