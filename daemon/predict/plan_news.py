"""plan_news: a plan told in chat, called off or moved by someone else's e-mail (one plan, two sources).

"yoga w hannah wednesday 6:30" in the conversation, then Hannah writes "I have to bail on
tomorrow": the reminder for Wednesday is wrong. "周四晚上七点跟大学室友在小院子聚", then a friend
writes "周四去不了了，改到周六中午十二点吧，还是小院子": the reminder moves to Saturday. The memory
keeps both (the e-mail is the friend's statement, which never retires the person's own), so the
reminder asks at delivery. An e-mail is news of the plan when all of these hold:

- it came after the plan was told, and from someone else (the person's own mail is not news to them);
- it says a plan changed (moved, cancelled, can't make it, instead, 改到, 去不了, bail, 鸽);
- it names the plan's day (a date that resolves to the day of the plan), and
- it is tied to the plan by more than the day: the sender's name is in the plan ("w hannah"),
  or a word of the plan is in the mail ("小院子", "yoga").

It moves the plan when it names another day or time ahead that is not a question or a vague
"next week" (a proposal is no new plan); otherwise it calls the plan off. A proposal the person
accepts in their own reply in the thread ("Could we do Thursday at 10:30 instead?" — "Thursday
10:30 works for me") moves the plan to the proposed time: the two messages together are the new
plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from daemon.memory import Memory
from daemon.memory.dates import resolve_dates
from daemon.memory.dates.hant import simplified
from daemon.memory.models.features import activity_terms, plan_change_cue
from daemon.predict.plan_text import sentences
from daemon.state.email_rules import fresh_text

# colloquial ways to call something off that the memory's change cues leave to context
# (English words are bounded by letters, not \b: a Chinese mail writes "要cancel咗佢")
_OFF = re.compile(
    r"(?<![a-z])(?:bail(?:ed|ing)?|flak(?:e|ed|ing)|skip(?:ping)?|scrap(?:ped|ping)?|count me out"
    r"|can['’]?t swing it|pull(?:ed|ing)? out|drop(?:ped|ping)? out|bow(?:ed|ing)? out"
    r"|(?:won['’]?t|will not|not) be able to (?:make|come|do)|no (?:class|lesson|session|practice))(?![a-z])"
    r"|鸽|放鸽子|来不成|搞唔成|唔去住|去唔到|停课|暂停|不签了|不租了|不出租了|不用过来了",
    re.IGNORECASE,
)
# a plan moved in so many words beyond the memory's change cues: "rebooked your tour for Sunday",
# "retimed", "swapped our 1:1 to Wednesday", 顺延至, 调到, 调整至, 搬咗去
_MOVED = re.compile(
    r"(?<![a-z])(?:rebook(?:ed|ing)?|retimed|swap(?:ped|ping)?|bump(?:ed|ing)? (?:to|back))(?![a-z])"
    r"|顺延|调到|调整至|调整为|调整到|搬咗去|搬到|改咗",
    re.IGNORECASE,
)
_QUESTION_TAIL = re.compile(r"^[^.!。！\n]*[?？]")
# a part of the day without a clock ("tonight", 今晚): "pottery tonight" names the plan's
# evening, it does not move a 6:30 class to 20:00
_PART_OF_DAY = re.compile(
    # "due to a technician shortage on Thursday afternoon": the day's part, no new clock
    r"^(?:(?:this|tomorrow|tmrw|(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:mon|tue|wed|thu|fri|sat|sun)\.?)\s+)?"
    r"(?:tonight|morning|afternoon|evening|night)$"
    r"|^(?:今|明|今天|明天)?(?:晚|晚上|早|早上|上午|下午|中午)$",
    re.IGNORECASE,
)
_LAST = re.compile(r"\blast\b|上(?:周|週|个|個)|前天|昨", re.IGNORECASE)
_WEEKDAY = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|(?:周|週|星期|礼拜|禮拜)[一二三四五六日天]", re.IGNORECASE
)
MAX_MAIL_CHARS = 2000  # the news is in the first lines; a long quote below is old news


# a plan called off in so many words, beside a move ("instead", "moved") that may only be a new
# place: "book club is at Lena's tomorrow instead … same time, 7pm" calls nothing off
_CANCEL = re.compile(
    r"(?<![a-z])(?:cancel+[a-z]*|call(?:ed|ing)? off|(?:is|are|'s|’s) off|can['’]?t make|cannot make"
    r"|won['’]?t make|no longer|not happening|rain check)(?![a-z])|取消|去不了|来不了|不去了|泡汤|改天",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class PlanNews:
    """What an e-mail did to a plan: `moved_to` the new time, or None when it called it off;
    `update`, the mail's sentence of a change that keeps the day and time (a new place)."""

    mail_id: str
    sender: str
    moved_to: datetime | None
    update: str = ""
    proposed: datetime | None = None  # a time the mail asks about instead ("Thursday at 10:30?")


def changes_when(n: PlanNews | None) -> bool:
    """The news calls the plan off or moves it to another time (not only a new place)."""
    return n is not None and not n.update


def _sender_names(name: str, address: str) -> set[str]:
    words = re.findall(r"[a-z]{3,}", f"{name} {address.split('@')[0]}".lower())
    cjk = {name} if re.search(r"[\u4e00-\u9fff]", name) else set()
    return set(words) | cjk


def tied(plan_text: str, mail: str, sender: str, address: str) -> bool:
    """Whether a mail is about the plan told as `plan_text`: its sender is named in the plan
    ("w hannah"), or it names a word of what the plan is about ("小院子", "yoga")."""
    low = plan_text.lower()
    if any(re.search(rf"(?<![a-z]){re.escape(n)}(?![a-z])", low) for n in _sender_names(sender, address)):
        return True
    return bool(activity_terms(plan_text) & activity_terms(mail))


def read_mail(
    text: str, sent: datetime, plan_text: str, due: datetime, tz: ZoneInfo, mail_id: str, sender: str
) -> PlanNews | None:
    """What the mail `mail_id` (sent at `sent` by `sender`, whose words are `text`) does to the
    plan told as `plan_text`, due at `due`: None when it is no news of it."""
    # read as Simplified, one character for one: the cues are written in it ("取消", "改到")
    written = text[:MAX_MAIL_CHARS]
    text = simplified(written)
    # _CANCEL reads both languages: a mail that mixes them ("明天吃饭 cannot make it liao") is
    # read for the English words too
    if not (plan_change_cue(text) or _OFF.search(text) or _CANCEL.search(text) or _MOVED.search(text)):
        return None
    mentions = resolve_dates(text, sent, tz)
    day = due.astimezone(tz).date()
    # a weekday beside the past tense of the change ("they asked us to move Wednesday's showing",
    # "my Wednesday afternoon has filled up") is read as last week's; news of a plan still ahead
    # is of the coming one
    if not any(
        m.value.astimezone(tz).date() == day
        or (
            m.direction == "past"
            and m.granularity in ("day", "time")
            and _WEEKDAY.search(m.text)
            and not _LAST.search(m.text)
            and (m.value.astimezone(tz) + timedelta(days=7)).date() == day
        )
        for m in mentions
    ):
        return None
    moved = None
    local_due = due.astimezone(tz)
    restated = False  # the mail says the plan's own day and time again ("same time, 7pm")
    proposed: datetime | None = None
    for m in mentions:
        when = m.value.astimezone(tz)
        if m.direction == "past" or m.granularity not in ("day", "time"):
            continue
        restated |= (
            when.date() == day
            and m.has_time
            and (when.hour, when.minute) == (local_due.hour, local_due.minute)
        )
        if when.date() == day and not (
            m.has_time
            and (when.hour, when.minute) != (local_due.hour, local_due.minute)
            and not _PART_OF_DAY.match(m.text.strip())
        ):
            continue  # the plan's own day (and time, or its part of the day): the old plan, not the new one
        if _QUESTION_TAIL.match(text[m.end :]):
            # "next Tuesday instead?": a proposal, not the new plan (unless the person accepts it)
            if proposed is None:
                proposed = when if m.has_time else when.replace(hour=local_due.hour, minute=local_due.minute)
            continue
        moved = when if m.has_time else when.replace(hour=local_due.hour, minute=local_due.minute)
        break
    if moved is None and restated and not (_CANCEL.search(text) or _OFF.search(text)):
        # the same day and time, something else changed (the place): the plan stands, with news
        body, as_written = (t.split("\n\n", 1)[-1] for t in (text, written))  # after the header line
        said = next(
            (w for x, w in zip(sentences(body), sentences(as_written), strict=True) if plan_change_cue(x)), ""
        )
        return PlanNews(mail_id, sender, local_due, update=said or as_written.strip())
    return PlanNews(mail_id, sender, moved, proposed=proposed if moved is None else None)


# the person's reply turns a proposal down, or asks about it again
_REFUSES = re.compile(
    r"\b(?:can['’]?t|cannot|won['’]?t|doesn['’]?t work|does not work|not work|unfortunately|no good|busy)\b"
    r"|不行|不可以|没空|沒空|来不了|去不了|不方便|不太行",
    re.IGNORECASE,
)
_ACCEPTS = re.compile(
    r"\b(?:works|sounds good|fine|ok(?:ay)?|sure|perfect|great|see you|confirmed|yes|yep|no problem|deal)\b"
    r"|好的|好啊|可以|没问题|沒問題|就这么定|就這麼定|到时见|到時見",
    re.IGNORECASE,
)


def accepts(reply: str, proposed: datetime, sent: datetime, tz: ZoneInfo) -> bool:
    """The person's reply `reply` (its new part, sent at `sent`) accepts a proposed time: it
    turns nothing down, asks nothing, and says yes or names the proposed day."""
    text = simplified(reply[:MAX_MAIL_CHARS])
    if "?" in text or "？" in text or _REFUSES.search(text):
        return False
    day = proposed.astimezone(tz).date()
    named = any(m.value.astimezone(tz).date() == day for m in resolve_dates(text, sent, tz))
    return named or bool(_ACCEPTS.search(text))


def news(
    memory: Memory, scope: str, plan_text: str, said: datetime, due: datetime, now: datetime, tz: ZoneInfo
) -> PlanNews | None:
    """The newest e-mail from someone else, received after the plan was told (`said`) and by
    `now`, that calls the plan off or moves it; None when there is none."""
    found: list[tuple[datetime, PlanNews]] = []
    for thread in memory.email_threads(scope):
        if thread.last_message_at <= said:
            continue
        messages = memory.email_messages(scope, thread.thread)
        for msg in messages:
            if msg.outbound or not (said < msg.sent_at <= now):
                continue
            stored = memory.resources(scope, [msg.id])
            if not stored:
                continue
            res = stored[0]
            got = read_mail(res.text, msg.sent_at, plan_text, due, tz, msg.id, msg.sender_name or msg.sender)
            if got is None or not tied(plan_text, res.text, msg.sender_name, msg.sender):
                continue
            found.append((msg.sent_at, got))
            if got.moved_to is None and got.proposed is not None:
                # the person's own reply in the thread, after the proposal, that accepts it
                for reply in messages:
                    if not reply.outbound or not (msg.sent_at < reply.sent_at <= now):
                        continue
                    own = memory.resources(scope, [reply.id])
                    if own and accepts(fresh_text(own[0].text), got.proposed, reply.sent_at, tz):
                        found.append((reply.sent_at, PlanNews(reply.id, got.sender, got.proposed)))
                        break
    return max(found, key=lambda f: f[0])[1] if found else None
