"""E-mail messages → a resource text, item drafts and the thread facts (pure functions).

Everything in a message is untrusted: the text is kept as the resource (trust `external`), and
the few items drawn from it are about the message, never the person's own facts: the people
the person corresponds with (entities) and the meetings, deadlines and promises it names
with a resolved time (events), each attributed to its sender and sourced to the message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime, time
from email.utils import getaddresses
from typing import Any
from zoneinfo import ZoneInfo

from daemon.events import EmailEvent
from daemon.memory.dates import only_a_clock, resolve_dates
from daemon.memory.types import ItemDraft
from daemon.state.email_rules import (
    ask_due,
    ask_of,
    due_in,
    first_clock,
    fresh_text,
    from_a_campaign_box,
    is_offer,
    promise_of,
    sentences,
)
from daemon.state.mail_words import reader
from daemon.state.types import EmailMessage
from handlers.github.summary import one_line

MAX_BODY_CHARS = 32 * 1024  # of a body kept in the resource; the rest is counted in meta, not stored
MAX_CONTACTS = 5  # contacts drawn from one message (a mail to a list names hundreds)
MAX_DATED = 3  # meetings / deadlines / promises drawn from one message

_REPLY_PREFIX = re.compile(r"^\s*((re|fwd?|aw|wg|sv|antw|回复|答复|转发)\s*[:：]\s*)+", re.IGNORECASE)
_AUTOMATED = re.compile(
    r"^(no-?reply|do-?not-?reply|mailer-daemon|postmaster|notifications?|bounce)", re.IGNORECASE
)
_DEADLINE = re.compile(
    r"\b(by|before|until|till|due|deadline|no later than|latest)\b|截止|之前|以前|为止|最晚|最迟",
    re.IGNORECASE,
)
# what takes the person's time at a place or on a line: meetings, and the visits and appointments
# that services set by mail (an inspection of the flat, a fitting, a consultation, 看房, 体检)
_MEETING = re.compile(
    r"\b(meet|meeting|call|sync|lunch|dinner|breakfast|coffee|review|demo|interview|standup|workshop|"
    r"offsite|appointment|catch up|talk|inspection|viewing|visit|consultation|fitting|session|hearing|"
    r"check-?up|webinar|training)\b|会议|开会|见面|碰头|面试|午饭|晚饭|吃饭|电话|评审|看房|体检|检查|面谈|拜访|"
    r"培训|上门|预约",
    re.IGNORECASE,
)


def address(value: str) -> tuple[str, str]:
    """("Bob Chen", "bob@example.com") from "Bob Chen <bob@example.com>"; the address lower-case."""
    [(name, addr)] = getaddresses([value]) or [("", value)]
    addr = (addr or value).strip().lower()
    return one_line(name, 80), addr


def addresses(values: Iterable[str]) -> list[tuple[str, str]]:
    return [(one_line(n, 80), a.strip().lower()) for n, a in getaddresses(list(values)) if a.strip()]


def clean_subject(subject: str) -> str:
    """The subject without its reply and forward prefixes ("Re: Fwd: X" → "X"), on one line."""
    return one_line(_REPLY_PREFIX.sub("", subject), 200)


def _label(name: str, addr: str) -> str:
    return f"{name} <{addr}>" if name and name.lower() != addr else addr


def resource_text(event: EmailEvent) -> tuple[str, int]:
    """A one-line header and the body, cut at MAX_BODY_CHARS; returns (text, characters cut)."""
    name, addr = address(event.sender)
    to = ", ".join(_label(n, a) for n, a in addresses(event.to)) or "(no recipient)"
    header = f"E-mail from {_label(name, addr)} to {one_line(to, 300)}: {one_line(event.subject, 200)!r}"
    body = event.text.strip()
    cut = max(0, len(body) - MAX_BODY_CHARS)
    if cut:
        body = body[:MAX_BODY_CHARS] + f"\n[… {cut} more characters not kept]"
    return (f"{header}\n\n{body}" if body else header), cut


def is_outbound(event: EmailEvent, mine: frozenset[str]) -> bool:
    """The person sent it: the sender is one of their addresses (without any known: Gmail's SENT label)."""
    if mine:
        return address(event.sender)[1] in mine
    return "SENT" in event.labels


# Gmail's category labels of mail sent to many (not CATEGORY_PERSONAL, not CATEGORY_UPDATES:
# a bank's or a school's notice there may ask this reader for something)
BULK_LABELS = frozenset({"CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL", "CATEGORY_FORUMS"})


def message_from(
    event: EmailEvent, mine: frozenset[str], tz: ZoneInfo, ask_model: Callable[[str], bool] | None = None
) -> EmailMessage:
    """What the message says about its thread (the rules: daemon/state/email_rules.py; `ask_model`
    reads the asks of mail in another language, `daemon/predict/ask_model.py`)."""
    name, addr = address(event.sender)
    to = [a for _, a in addresses(event.to)]
    outbound = is_outbound(event, mine)
    # without known addresses, a message the person did not send is taken as addressed to them
    to_person = not outbound and (any(a in mine for a in to) if mine else True)
    # mail Gmail files as promotions, social or list updates waits on nobody's answer, whatever
    # its sentences ask ("不想再收到？")
    # (so does mail from a shop's campaign mailbox: "offers@…", "news@…")
    bulk = any(label in BULK_LABELS for label in event.labels) or from_a_campaign_box(addr)
    # (not the ask model on a list's update: it cannot tell "sign up by Friday for our workshop"
    # from a request, which `is_offer` below reads only in English)
    updates = "CATEGORY_UPDATES" in event.labels
    ask = None if bulk else ask_of(event.text, None if updates else ask_model)
    if ask is not None and updates and is_offer(ask):
        # a list's update that only invites ("Register by Friday for our free webinar"): a bank's
        # or a school's notice there that asks for something still asks
        ask = None
    if (
        ask is None
        and not bulk
        and event.subject.strip().endswith(("?", "？"))
        and not _REPLY_PREFIX.match(event.subject)
    ):
        ask = one_line(event.subject, 300)  # "Q3 budget numbers?" asks, even over a one-word body
    promise = promise_of(event.text) if outbound else None
    return EmailMessage(
        scope=event.scope,
        thread=event.thread or event.message_id or event.id,
        id=event.id,
        sent_at=event.date,
        sender=addr,
        sender_name=name,
        # the other people it went to (the person copying themselves is no counterpart)
        recipients=tuple(dict.fromkeys(a for _, a in addresses((*event.to, *event.cc)) if a not in mine)),
        subject=clean_subject(event.subject),
        outbound=outbound,
        to_person=to_person,
        ask=ask,
        ask_due=ask_due(event.text, ask, event.date, tz) if ask else None,
        promise=promise,
        promise_due=due_in(promise, event.date, tz) if promise else None,
    )


def meta_of(event: EmailEvent, outbound: bool, cut: int) -> dict[str, Any]:
    return {
        "from": event.sender,
        "to": list(event.to),
        "cc": list(event.cc),
        "subject": event.subject,
        "date": event.date.isoformat(),
        "thread": event.thread or event.message_id or event.id,
        "labels": list(event.labels),
        "message_id": event.message_id,
        "direction": "outbound" if outbound else "inbound",
        "chars_not_kept": cut,
        "truncated": bool(cut) or event.truncated,
        "size": event.size,
    }


# An item's speaker decides what the memory compares it with: dedup merges the same text of the
# same speaker, and the update model lets a speaker's newer statement retire an older one. Other
# people's mail is no person's running statement: one contact is its own speaker (the same
# contact from many mails merges; Carol never retires Bob), and a sender's dated sentences
# compare only within their thread ("lunch moved to Thursday" retires "lunch on Friday" there,
# but Bob's budget request never retires Bob's lunch invitation in another thread).


def contact_speaker(addr: str) -> str:
    return f"e-mail contact {addr}"


def thread_speaker(sender: str, thread: str) -> str:
    return f"{sender} (e-mail thread {thread})"


def _contact(name: str, addr: str, event: EmailEvent) -> ItemDraft:
    l0 = f"E-mail contact: {_label(name, addr)}"
    return ItemDraft(
        category="entities",
        l0=l0,
        search_text=f"{l0} {clean_subject(event.subject)}",
        speaker=contact_speaker(addr),
        l1={"kind": "contact", "name": name or None, "email": addr, "source": "email"},
        importance=0.3,
        confidence=0.9,
        source_ids=(event.id,),
        happened_at=event.date,
        observed_at=event.date,
    )


def _kind(sentence: str, outbound: bool, timed: bool = False) -> str | None:
    if outbound and promise_of(sentence):
        return "promise"
    if _DEADLINE.search(sentence):
        return "deadline"
    if _MEETING.search(sentence):
        return "meeting"
    if timed:
        # a day with its clock in a received mail is when something is set for the reader, in any language and
        # whatever the thing is called ("სამშაბათი, 12 ოქტომბერი, 14:30"; "our packing crew will
        # arrive at your flat on Wednesday 16 May at 13:30"): no list of meeting words holds every
        # visit a service sets by mail. It is the person's only once they accept it
        # (`mail_plans.agreed`)
        return "meeting"
    return None


def _lone_clock(sentence: str, event: EmailEvent, tz: ZoneInfo) -> time | None:
    """The first clock of a sentence that names a clock and no day ("Please bring her at 13:00,
    having fasted from 22:00 the night before"), or None. (Its clocks are read as written: the date
    rules leave those of a sentence told in the past tense alone.)"""
    if any(not only_a_clock(m) for m in resolve_dates(sentence, event.date, tz)):
        return None
    found = first_clock(sentence)
    return time(*found) if found is not None else None


def drafts_from(
    event: EmailEvent, msg: EmailMessage, mine: frozenset[str], tz: ZoneInfo
) -> tuple[ItemDraft, ...]:
    """Contacts (the sender of a received message, the recipients of a sent one) and the
    meetings, deadlines and promises with a time ahead, as the sender's words. `mine`: the
    person's addresses (the person is no contact of their own)."""
    speaker = _label(msg.sender_name, msg.sender)
    people = addresses(event.to) if msg.outbound else [address(event.sender)]
    out = [
        _contact(n, a, event)
        for n, a in people[:MAX_CONTACTS]
        if "@" in a and not _AUTOMATED.match(a) and a not in mine
    ]
    subject = clean_subject(event.subject)
    dated = 0
    # a mail in another language: its meetings and deadlines read in English words, quoted as written
    read = reader(event.text)
    lead = ""
    told = sentences(fresh_text(event.text))
    joined = False  # the sentence before gave this one's clock to its day
    for k, sentence in enumerate(told):
        if joined:
            joined = False
            continue
        # a line that ends with a colon announces the one after it: "Vi bekrefter herved din time
        # hos tannpleier:" then "onsdag 29. mars kl. 11.15" is the appointment's slot
        due = due_in(read(sentence), event.date, tz)
        timed = due is not None and due.astimezone(tz).time() != time(0)
        # ... and a day told without its clock takes the clock the next sentence gives alone:
        # "We confirm Biscuit's dental surgery for Wednesday 17 May. Please bring her at 13:00."
        clock = (
            _lone_clock(read(told[k + 1]), event, tz)
            if due is not None and not timed and k + 1 < len(told)
            else None
        )
        if due is not None and clock is not None:
            due = datetime.combine(due.astimezone(tz).date(), clock, tzinfo=tz)
            timed, joined = True, True
        # (the person's own mail restates a time it answers — "Tuesday at 14:00 works for me" — and
        # sets nothing new: their meetings are the ones they name as such)
        # (what it is, the day's sentence says: the clock's may go on about "the night before")
        kind = _kind(
            read(f"{lead} {sentence}" if lead else sentence), msg.outbound, timed and not msg.outbound
        )
        if joined:
            sentence = f"{sentence} {told[k + 1]}"
        lead = sentence if sentence.rstrip().endswith((":", "：")) else ""
        if kind is None or due is None:
            continue
        said = one_line(sentence, 300)
        verb = "promised" if kind == "promise" else "wrote"
        l0 = f"{speaker} {verb} in the e-mail {subject!r}: {said}"
        out.append(
            ItemDraft(
                category="events",
                l0=l0,
                search_text=f"{due.date().isoformat()} {l0}",
                speaker=thread_speaker(speaker, msg.thread),
                l1={
                    "kind": kind,
                    "from": msg.sender,
                    "thread": msg.thread,
                    "subject": subject,
                    "sentence": said,
                    "due": due.isoformat(),
                    "source": "email",
                },
                importance=0.6,
                confidence=0.6,
                source_ids=(event.id,),
                happened_at=event.date,
                observed_at=event.date,
                due_at=due,
            )
        )
        dated += 1
        if dated >= MAX_DATED:
            break
    return tuple(out)
