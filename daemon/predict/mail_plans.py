"""mail_plans: a meeting set by e-mail that the person agreed to is their plan (one plan, several sources).

Lerato writes "let's do the sign-off call on Wednesday at 14:00" and the person answers "great,
speak then": the call is in the person's day as surely as what they said in chat, and it clashes
with the all-day expo stand they told of there. A meeting an e-mail names (an item the e-mail
handler drew, `l1.kind == "meeting"`) is the person's when the person sent that message, or when
a later message of theirs in the same thread accepts it — turns nothing down, asks nothing, and
says yes or names the meeting's day (`plan_news.accepts`, the rule that lets a reply accept a new
time). An invitation left unanswered, or answered with a question, is not yet theirs. And a plan
told twice — in chat and by the practice's confirmation, or by two messages of one thread — is one
plan (`same_plan`): it never clashes with itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from daemon.memory import Memory
from daemon.memory.dates import resolve_dates
from daemon.memory.dates.hant import simplified
from daemon.memory.models.features import shared_words
from daemon.memory.types import ItemView
from daemon.predict.base import what
from daemon.predict.mail_change_model import reader_for
from daemon.predict.plan_news import accepts, offers_a_time, refuses, tied
from daemon.predict.plan_text import sentence_spans
from daemon.state.email_rules import asks, fresh_text
from daemon.state.mail_words import NEGATION, NO_PROBLEM, NO_REPLY, as_english_always, foreign, pleads
from daemon.state.types import EmailMessage


def is_mail_meeting(item: ItemView) -> bool:
    """An item the e-mail handler drew from a message: a meeting it names, with its time."""
    return item.l1.get("source") == "email" and item.l1.get("kind") == "meeting" and item.due_at is not None


def agreed(memory: Memory, scope: str, item: ItemView, now: datetime, tz: ZoneInfo) -> bool:
    """Whether the person sent or, by `now`, accepted the e-mailed meeting `item`."""
    if not is_mail_meeting(item) or item.due_at is None:
        return False
    found = _set_in(memory, scope, item)
    if found is None:
        return False
    messages, setting = found
    told = set(item.source_ids)
    sent_at = setting.sent_at
    foreign_thread: bool | None = None  # read once, when a reply needs it
    answered = False  # the person's first reply after the mail has been read
    for msg in messages:
        if not msg.outbound or msg.sent_at > now:
            continue
        if msg.id in told:
            return True  # the person proposed it
        if msg.sent_at <= sent_at:
            continue
        own = memory.resources(scope, [msg.id])
        if not own:
            continue
        reply = fresh_text(own[0].text)
        if accepts(reply, item.due_at, msg.sent_at, tz):
            return True
        if answered:
            continue  # (a later "Danke" may thank for another slot offered since: only the first answers this one)
        answered = True
        if foreign_thread is None:
            mail = memory.resources(scope, [setting.id])
            foreign_thread = bool(mail) and foreign(_body(mail[0].text))
        if foreign_thread and not objects(_body(reply), reader_for(memory.embedder)):
            return True
    return False


def told_unanswered(memory: Memory, scope: str, item: ItemView, now: datetime) -> datetime | None:
    """When the mail was sent that told the person the e-mailed meeting `item` as a slot of theirs,
    asking nothing about it — a practice's confirmation or reminder of what they booked by phone
    ("potrjujemo vaš termin … četrtek ob 11:15", "Напоминаем, что вы записаны … пятница, 10:40")
    — while they have not answered in its thread by `now`; else None. Such a slot is theirs as it
    stands, unless their answer says otherwise (then `agreed` decides)."""
    if not is_mail_meeting(item) or not tells_a_slot(str(item.l1.get("sentence") or "")):
        return None
    found = _set_in(memory, scope, item)
    if found is None:
        return None
    messages, setting = found
    if setting.outbound or not setting.to_person:
        return None
    if any(m.outbound and setting.sent_at < m.sent_at <= now for m in messages):
        return None  # answered: the answer says whether it is theirs
    return setting.sent_at


def asks_only_the_slot(memory: Memory, scope: str, thread: str, ask: str, now: datetime) -> bool:
    """Whether a mail's "ask" is the sentence that tells the person a slot of a meeting ahead
    ("Напоминаем, что вы записаны … пятница, 18 сентября, 10:40", "obavještavamo Vas da je Vaš termin
    … premješten … na četvrtak … u 10:15"): it tells, it asks nothing to answer."""
    said = " ".join(ask.split())
    arrive = _BEFORE_IT_STARTS.search(said) is not None and not _SEND_BEFORE.search(said)
    return any(
        is_mail_meeting(it)
        and it.l1.get("thread") == thread
        and (
            # ... or how to come to it: "Merci de vous présenter à la gare maritime 45 minutes
            # avant le départ", "please arrive 15 minutes before your appointment"
            arrive
            or (
                " ".join(str(it.l1.get("sentence") or "").split()) == said
                and tells_a_slot(said)
                # (and names the appointment: an ask with its deadline in words the request lists
                # miss — "pakipadala … bago mag-12:00 ng tanghali sa Thursday" — still asks)
                and _A_BOOKING.search(simplified(as_english_always(said))) is not None
            )
        )
        for it in memory.due_items(scope, now, now + _AHEAD)
    )


# a time counted back from the start of the thing ("45 minutes avant le départ", "15 minutes before
# your appointment", "提前15分钟到"): how to come to it, nothing to answer
_BEFORE_IT_STARTS = re.compile(
    r"\b\d+\s*(?:minutes?|mins?|minutos|minuti|minuten|heures?|hours?|horas?|stunden?)\s+"
    r"(?:avant|before|prior\s+to|antes|vor(?:her)?|prima|earlier|early)\b|提前\s*\d+\s*分钟",
    re.IGNORECASE,
)


# ... but not what to send by then: "please submit the signed form 48 hours before your appointment"
_SEND_BEFORE = re.compile(
    r"\b(?:send|submit|return|upload|reply|respond|confirm|sign|fill|complete|pay|email|e-mail|forward"
    r"|envoy\w*|transmett\w*|envi(?:ar|e|en|ame|arnos|e[mn])|mand(?:ar|e|en|ame)|schick\w*|übermittel\w*"
    r"|invia\w*|inviare|pagar|payer|zahl\w*)\b|发|交|提交|寄|回复|确认",
    re.IGNORECASE,
)
_AHEAD = timedelta(days=366)


# an invitation or a request for an answer, as the word lists put it in English
_ASKS_BACK = re.compile(
    r"\b(?:invit\w*|rsvp|please (?:confirm|reply|let)|let (?:me|us) know|works? for you|suits? you)\b"
    # ("would Thursday at 9:20 work")
    r"|\bwould\b.{1,40}\bwork\b",
    re.IGNORECASE,
)


# an appointment named, as the word lists render one in any language ("termin", "записаны",
# "rendez-vous" → "meeting") or English, Chinese and Japanese name it
_A_BOOKING = re.compile(
    r"\b(?:meeting|appointment|appt|booking|booked|reservation|session|consultation|visit|fitting|inspection"
    r"|surgery|check-?up|scan|exam)\b|预约|预订|予約|面谈|体检|复诊|检查|就诊",
    re.IGNORECASE,
)


def tells_a_slot(sentence: str) -> bool:
    """A mail's sentence that states a slot's time rather than offering or asking: no question, no
    proposal ("could we", "how about", 能否), no invitation or request for an answer."""
    text = simplified(as_english_always(sentence))
    # (nor one that asks the person to do something by then: "Bitte senden Sie die Unterlagen bis
    # Mittwoch, 17:00 Uhr", "请于本周五中午12点前将申请表交回" — an ask with its deadline)
    return (
        bool(text.strip())
        and "?" not in text
        and "？" not in text
        and not (offers_a_time(text) or _ASKS_BACK.search(text))
        and not (pleads(sentence) or asks(sentence) or asks(text))
    )


def _set_in(memory: Memory, scope: str, item: ItemView) -> tuple[list[EmailMessage], EmailMessage] | None:
    """The messages of the thread an e-mailed meeting was drawn from, and the one that set it."""
    thread = item.l1.get("thread")
    if not isinstance(thread, str) or not thread:
        return None
    told = set(item.source_ids)
    messages = list(memory.email_messages(scope, thread))
    setting = next((m for m in messages if m.id in told), None)
    return (messages, setting) if setting is not None else None


def _body(text: str) -> str:
    """A stored mail without its header line ("E-mail from … to …: 'Re: …'"): the subject is the
    thread's, not what this message says."""
    return fresh_text(text.split("\n\n", 1)[-1])


# the words of change the word lists put in English ("avbokar" → "cancelled")
_CHANGE_READ = re.compile(r"\b(?:cancelled|moved to|reschedule)\b")


def objects(reply: str, change: Callable[[str], str] | None) -> bool:
    """A reply, in a thread whose mail is in neither English nor Chinese, that asks something,
    turns the time down or asks for another: a question mark, the word lists' no, or a sentence
    the mail-change model reads as a cancellation, a move or a proposal ("Не смогу прийти", "Kan
    vi flytte det til torsdag?"). A reply that does none of these — "Баярлалаа, би очно", "Danke,
    ich komme" — accepts what the mail set: people answer an appointment they cannot keep by saying
    so. (The word lists know "yes" in a dozen languages; the model reads refusals in any, but not
    assent, which it files with small talk as "other"; it misses some refusals too, so a reply
    holding a word that negates, `NEGATION`, is no acceptance read this way.)"""
    if change is None:
        return True  # without the model only the word lists read the reply (`accepts`)
    text = simplified(as_english_always(reply))
    if (
        "?" in text
        or "？" in text
        or refuses(text)
        or _CHANGE_READ.search(text)
        or NO_REPLY.search(reply)
        or NEGATION.search(NO_PROBLEM.sub(" ", reply))
    ):
        return True
    return any(change(s) in ("cancel", "move", "propose") for s in sentence_spans(text))


_SENDER = re.compile(r"^(?P<name>[^<]+?)\s*<[^>]+>")


def sender_name(item: ItemView) -> str:
    """Who wrote the mail an item was drawn from ("Markus Leitner"), or its address."""
    m = _SENDER.match(item.l0)
    return m.group("name").strip() if m else str(item.l1.get("from") or "")


def same_plan(a: ItemView, b: ItemView) -> bool:
    """Whether two of the person's events are one plan told by two sources: two messages of one
    thread ("sign-off call Wednesday 14:00" and the reply "speak then"), or a plan told in chat and
    the mail of its sender or about its words (the dentist in chat and the practice's
    confirmation). One plan never clashes with itself."""
    mails = [x for x in (a, b) if is_mail_meeting(x)]
    if len(mails) == 2:
        return a.l1.get("thread") == b.l1.get("thread") or tied(
            str(a.l1.get("sentence") or what(a)), what(b), sender_name(b), str(b.l1.get("from") or "")
        )
    if len(mails) == 1:
        mail = mails[0]
        chat = b if mail is a else a
        return tied(what(chat), what(mail), sender_name(mail), str(mail.l1.get("from") or ""))
    return False


def told_twice(a: ItemView, b: ItemView, tz: ZoneInfo | None = None) -> bool:
    """One plan told twice in chat: the same moment, and two words in common ("parents' evening at
    St Jude's on thursday at 6:15", then "swapped my late shift so I can do thursday 6:15 parents
    evening"). One word is not enough: "call with Acme at 3" and "call with Bob at 3" clash. With
    the person's `tz`, the moment of one may be another the other names: "present at 10 in the
    library, there by 9:30" (due 9:30) told again as "10 o'clock in the library, by 9:30" (due 10)."""
    if a.due_at is None or b.due_at is None:
        return False
    shared = len(shared_words(what(a), what(b)))
    if a.due_at == b.due_at:
        return shared >= 2
    # (a clock one names for the other, a word of the thing said in both: "library" above)
    return (
        shared >= 1
        and tz is not None
        and (a.due_at in _clocks_told(b, tz) or b.due_at in _clocks_told(a, tz))
    )


def _clocks_told(item: ItemView, tz: ZoneInfo) -> set[datetime]:
    """The moments with a clock that an item's sentence names, as said when it was told."""
    if item.observed_at is None:
        return set()
    return {m.value for m in resolve_dates(what(item), item.observed_at, tz) if m.has_clock}


def one_plan(a: ItemView, b: ItemView, tz: ZoneInfo | None = None) -> bool:
    """One event stored twice, told twice in chat, or told by chat and by mail (`same_plan`)."""
    return what(a) == what(b) or same_plan(a, b) or told_twice(a, b, tz)
