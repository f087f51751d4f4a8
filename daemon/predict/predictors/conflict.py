"""conflict: two of the person's events overlap → said once, a moment after the second becomes known.

A timed event lasts until the end time its sentence names ("3 to 4 pm", "三点到四点"), else an
hour. An event without a time of day takes the hours its sentence names ("the offsite, 9 to 5",
"九点到五点") or, said to take "the whole day" / 全天, the working day; else no hours (a birthday
clashes with nothing). Time off (a half day, 请假, annual leave: `time_off.py`) frees the
person's hours: it clashes with nothing, least of all the appointment it was taken for; nor does
a to-do that relays a mail's ask by a time ("HR mailed, the papers by Thursday noon"). A clock
written in 24-hour form ("08:00–14:30", "06h00-09h00") ends when written, not at a guessed pm.
A meeting set by e-mail is one of the person's events once they sent or accepted it
(`mail_plans.py`): the check runs when the e-mail's item is new and again when the person's reply
arrives in its thread; a plan told in chat and by mail is one plan, not a clash. Re-checked at
delivery: if either event moved or was cancelled, the conflict is withdrawn. It
waits `SETTLE` after the turn that made it: people correct themselves in the next message ("wait,
the call is at 3, not 2"), and a clash said in the same minute would then be a false alarm.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from daemon.memory.dates import resolve_dates
from daemon.memory.dates.en_time import hour_24h
from daemon.memory.dates.hant import simplified
from daemon.memory.dates.zh import number as zh_number
from daemon.memory.read.bm25 import tokenize
from daemon.memory.types import ItemView
from daemon.predict import mail_plans, moves, plan_news, said_when
from daemon.predict.base import (
    HAPPENINGS,
    Ctx,
    NewItems,
    Recheck,
    ThreadChanged,
    Trigger,
    active,
    cancels,
    due_of,
    is_cjk,
    plain,
    said_by_person,
    short,
    what,
)
from daemon.predict.plan_model import reader_for
from daemon.predict.plan_text import for_them, headline
from daemon.predict.plans import is_own_plan
from daemon.predict.predictors import upcoming
from daemon.predict.predictors.email import BEFORE_DEADLINE, NO_HISTORY
from daemon.predict.predictors.upcoming import when_text
from daemon.predict.spans import day_span, ends_the_whole_day, span_clause
from daemon.predict.time_off import is_time_off
from daemon.predict.timing import day_start, is_timed
from daemon.state.suggestions import DELIVERED, PENDING, Suggestion

NAME = "conflict"
DEFAULT_LENGTH = timedelta(hours=1)
MAIL_HORIZON = timedelta(days=60)  # how far ahead an e-mailed meeting is looked for when its thread changes
# a moment for the person to finish (or correct) what they were saying; people who wrote scenarios
# blind expected a clash said 10 minutes or more after its evidence, not 5 (blind8–12)
SETTLE = timedelta(minutes=15)
# how long a slot only told by mail waits for the person's own answer before its clash is said
ANSWER_WAIT = NO_HISTORY
ANSWER_BEFORE = BEFORE_DEADLINE
# the end's hour and minutes: "to 4", "until 16:30", "- 11.15", "-09h00" (a dash may stand apart: "8:00 – 9:30")
_EN_END = re.compile(
    r"(?:\b(?:to|until|till)|[-–])\s*(?P<h>\d{1,2})(?:[:.](?P<m>[0-5]\d)|(?P<hf>h)(?P<mh>[0-5]\d)?)?\s*(?:am|pm)?\b",
    re.IGNORECASE,
)
_ZH_END = re.compile(
    # "九点到下午五点": the part of the day may stand before the end's hour (read as the next hour
    # after the start, as any end is)
    r"(?:到|至|-|–)\s*(?:上午|中午|下午|傍晚|晚上|早上)?\s*(?P<h>十[一二]?|[一二两三四五六七八九]|\d{1,2})\s*(?:点|:|：)\s*(?P<m>半|\d{2})?"
)


# ... or the end said as the night: "早上九点就去接亲，然后 той 一直闹到半夜", "the party goes till late"
_LATE_END = re.compile(
    r"到(?:半夜|深夜|午夜|凌晨|很晚|天亮)|通宵|\b(?:till|until|til|into\s+the|through\s+the)\s+"
    r"(?:late|midnight|the\s+small\s+hours|night|the\s+night|(?:the\s+)?early\s+hours)\b|\ball\s+night\b",
    re.IGNORECASE,
)


# the start's clock written just before its end ("21:30–22:30")
_WRITTEN_START = re.compile(r"(?<![\d:.])(?P<h>[01]?\d|2[0-3])[:.：](?P<m>[0-5]\d)\s*$")


def _end_said(item: ItemView) -> bool:
    """The event's sentence names when it ends ("3 to 4pm", "九点到十点", "till midnight")."""
    text = what(item)
    return bool(
        (_ZH_END.search(simplified(text)) if is_cjk(text) else _EN_END.search(text)) or _LATE_END.search(text)
    )


def end_of(item: ItemView, start: datetime) -> datetime:
    """When the event ends: the end time its sentence names after the start, else an hour later."""
    text = what(item)
    m = _ZH_END.search(simplified(text)) if is_cjk(text) else _EN_END.search(text)  # 點 as 点
    if m:
        g = m.groupdict()
        n = zh_number(g["h"])  # the date rules' own reading of 十一, 两, 9
        hour = int(n) if n is not None and n == int(n) else None
        minutes = g["m"] or g.get("mh")
        minute = 30 if minutes == "半" else int(minutes) if minutes and minutes.isdigit() else 0
        if hour is not None and hour < 24 and minute < 60:
            if hour_24h(g["h"], bool(g.get("hf"))):
                # "08:00–14:30", "22:00 to 01:00": the hour as written, into the night if need be;
                # from the start as written, which may be another place's clock ("北京时间
                # 21:30–22:30" is 17:30–18:30 in Dubai): the hours between them
                began = _WRITTEN_START.search(simplified(text)[: m.start()])
                if began is not None:
                    length = (hour * 60 + minute - int(began["h"]) * 60 - int(began["m"])) % (24 * 60)
                    if 0 < length <= 12 * 60:
                        return start + timedelta(minutes=length)
                end = start.replace(hour=hour, minute=minute)
                end = end if end > start else end + timedelta(days=1)
                if end <= start + timedelta(hours=12):
                    return end
                return start + DEFAULT_LENGTH
            for h in (hour, hour + 12):  # "3 to 4" in the afternoon: 16:00, not 04:00
                end = start.replace(hour=h % 24, minute=minute)
                if h < 24 and start < end <= start + timedelta(hours=12):
                    return end
    if _LATE_END.search(simplified(text)) and start.hour >= 5:
        return (start + timedelta(days=1)).replace(hour=0, minute=0)  # till the day is over
    return start + DEFAULT_LENGTH


def span(item: ItemView, tz: ZoneInfo) -> tuple[datetime, datetime] | None:
    """When an event takes place, in the person's time zone, or None when it takes no hours."""
    due = due_of(item).astimezone(tz)
    if is_timed(due, tz):
        end = end_of(item, due)
        whole = day_span(item, due.replace(hour=0, minute=0)) if end == due + DEFAULT_LENGTH else None
        # a day said to take all of it, with the time it starts ("the field trip on Thursday, all
        # day, bus leaves at 7:40"): from that time to the end of the working day at least; or
        # with the time it ends ("一整天都要去 Rotterdam 做 audit，…晚上八点才能回到家"): the
        # working day up to then
        if whole is None:
            return due, end
        if ends_the_whole_day(item, due):
            return whole[0], due  # the hour it ends, not an hour after it
        return min(due, whole[0]), max(end, whole[1])
    return day_span(item, due)


def frees_hours(it: ItemView) -> bool:
    """Time off, which frees the hours it names — unless a clause of its own gives the day to
    something else ("周五搬家！！已经请了一天假 … 估计要折腾一整天": moving takes the day)."""
    clause = span_clause(it)
    return is_time_off(what(it)) and (not clause or is_time_off(clause))


def _theirs(it: ItemView, scope: str, ctx: Ctx) -> bool:
    """One of the person's own events: told by them as their plan (not someone else's
    appointment, a complaint or a wish; not time off, which frees the hours it names; not a
    time they gave a pull request; not called off or moved by someone's e-mail since), or a
    meeting set by e-mail that they sent or accepted."""
    if it.category not in HAPPENINGS or cancels(it):
        return False
    tz = ctx.settings.tz
    if not said_by_person(it):
        return (
            mail_plans.agreed(ctx.memory, scope, it, ctx.now, tz)
            or mail_plans.told_unanswered(ctx.memory, scope, it, ctx.now) is not None
        )
    text = what(it)
    return (
        not frees_hours(it)
        # a to-do that relays a mail's ask ("人事发了封邮件…要交材料，礼拜四中午之前") is that ask: a
        # thing to hand in by then takes no hours, and clashes with nothing, least of all the mail
        # (an arrival by a time — "at the airport before 3" — is no such thing and still clashes)
        and not (
            it.due_at is not None
            and upcoming.relays_mail_ask(
                ctx, scope, text, it.observed_at or it.happened_at or ctx.now, it.due_at
            )
        )
        and is_own_plan(it, tz, ctx.now, reader_for(ctx.memory.embedder))
        and not said_when.github_follows(text, ctx.settings.github_login)
        # not a plan someone's e-mail called off or moved since (its reminder says that)
        and not (
            it.due_at is not None
            and plan_news.changes_when(
                plan_news.news(ctx.memory, scope, text, it.observed_at or ctx.now, it.due_at, ctx.now, tz)
            )
        )
    )


def _clash_told_of_twin(
    scope: str,
    old: ItemView,
    new: ItemView,
    ctx: Ctx,
    by: datetime | None = None,
    delivered_only: bool = False,
) -> bool:
    """A clash of `old` with another telling of `new`'s plan is already out or going out (the
    interview by e-mail, then "二面约上了！周二下午两点 Google Meet" in chat): one notice per two
    plans, not one per source. A pending one counts only when it goes out `by` then: a clash held
    for the person's answer to a mailed slot does not hold back the one their word in chat makes
    now (the later one is withdrawn when it is due, `Conflict.recheck`)."""
    for status in (DELIVERED,) if delivered_only else (PENDING, DELIVERED):
        for s in ctx.memory.suggestions.of_scope(scope, status):
            if s.kind != "conflict" or old.id not in s.evidence or new.id in s.evidence:
                continue
            if status == PENDING and by is not None and s.deliver_at > by:
                continue
            for x in s.evidence:
                twin = ctx.memory.item_view(scope, x) if x != old.id else None
                if twin is not None and mail_plans.one_plan(twin, new):
                    return True
    return False


def _one_plan_moved(scope: str, a: ItemView, b: ItemView, ctx: Ctx) -> bool:
    """One of the two is the person's word that a plan moved ("the notary's office shifted it,
    Friday quarter past eleven now"), and the plan it moved is the other's (the office's mail that
    moved it): one plan, told by its move."""
    for move, other in ((a, b), (b, a)):
        moved = moves.moved_plan(ctx, scope, move)
        if moved is not None and moved.id != other.id and mail_plans.one_plan(moved, other):
            return True
    return False


def _told_apart(a: ItemView, b: ItemView, tz: ZoneInfo) -> bool:
    """A plan told in chat with its own clock and a mail's meeting that starts an hour or more
    away from it, the mail no news of the plan (`_theirs` leaves out a plan a mail moved): two
    things, though they share a word ("下礼拜三…工地验收，一整天。早上六点从 El Alto 出发" and the
    El Alto customs office's 15:00 inspection) — one plan told twice is told at one time."""
    mails = [x for x in (a, b) if mail_plans.is_mail_meeting(x)]
    if len(mails) != 1:
        return False
    chat = b if mails[0] is a else a
    said = chat.observed_at or chat.happened_at
    if said is None or not any(m.has_clock for m in resolve_dates(what(chat), said, tz)):
        return False
    told, mailed = span(chat, tz), span(mails[0], tz)
    return told is not None and mailed is not None and abs(told[0] - mailed[0]) >= DEFAULT_LENGTH


def _plans(ctx: Ctx, scope: str, lo: datetime, hi: datetime) -> list[ItemView]:
    return [it for it in ctx.memory.due_items(scope, lo, hi) if _theirs(it, scope, ctx)]


# "Re: ", "Fwd: ", "AW: ", "RES: " before a subject
_REPLY_PREFIX = re.compile(r"^(?:(?:re|aw|fwd?|wg|res|enc|答复|回复|转发)\s*[:：]\s*)+", re.IGNORECASE)


def _line(item: ItemView, tz: ZoneInfo, zh: bool, ctx: Ctx) -> str:
    """One of the two events in words written for it: its hours, what it is, and for a meeting
    set by e-mail, whose mail it is ("11:00 Flat inspection (Markus Leitner's e-mail)")."""
    took = span(item, tz)
    # (an end nobody said is not written: an hour is only how long a clash is looked for)
    said_end = took is not None and (took[1] != took[0] + DEFAULT_LENGTH or _end_said(item))
    hours = (
        (f"{took[0]:%H:%M}–{took[1]:%H:%M} " if said_end else f"{took[0]:%H:%M} ") if took is not None else ""
    )
    if mail_plans.is_mail_meeting(item):
        said = str(item.l1.get("sentence") or item.l1.get("subject") or what(item))
        thing = headline(said, item.observed_at or ctx.now, tz)
        subject = str(item.l1.get("subject") or "")
        if len(tokenize(thing)) < 2 and subject:
            # a sentence that only agrees ("Thursday 3pm works, talk then") says what by its subject
            thing = _REPLY_PREFIX.sub("", subject)
        who = mail_plans.sender_name(item)
        source = (f"（{who} 的邮件）" if zh else f" ({who}'s e-mail)") if who else ""
        return f"{hours}{short(thing, 70)}{source}"
    return f"{hours}{short(for_them(headline(what(item), item.observed_at or ctx.now, tz)), 80)}"


class Conflict:
    name = NAME

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
        if isinstance(trigger, NewItems):
            news = list(trigger.items)
            # an item drawn from the person's reply: the thread's meetings may be theirs now
            # (the reply's words are stored with its items, after the thread changed)
            threads = {it.l1.get("thread") for it in news if it.l1.get("source") == "email"}
            seen = {it.id for it in news}
            for thread in sorted(t for t in threads if isinstance(t, str) and t):
                news += [m for m in self._thread_meetings(trigger.scope, thread, ctx) if m.id not in seen]
        elif isinstance(trigger, ThreadChanged):
            # the person's reply may have made an e-mailed meeting of the thread theirs
            news = self._thread_meetings(trigger.scope, trigger.state.thread, ctx)
        else:
            return []
        out: list[Suggestion] = []
        for new in news:
            due = new.due_at
            if due is None or due <= ctx.now or active(new) is not None:
                continue
            if not _theirs(new, trigger.scope, ctx):
                continue
            # in the person's time zone: "九点到十点" ends at ten there, not at ten UTC
            took = span(new, ctx.settings.tz)
            if took is None:
                continue
            out.extend(self._clashes(trigger.scope, new, took, ctx))
        return out

    def _thread_meetings(self, scope: str, thread: str, ctx: Ctx) -> list[ItemView]:
        """The meetings ahead that e-mails of this thread named."""
        return [
            it
            for it in ctx.memory.due_items(scope, ctx.now, ctx.now + MAIL_HORIZON)
            if mail_plans.is_mail_meeting(it) and it.l1.get("thread") == thread
        ]

    def _clashes(
        self, scope: str, new: ItemView, took: tuple[datetime, datetime], ctx: Ctx
    ) -> list[Suggestion]:
        tz = ctx.settings.tz
        start, end = took
        out = []
        # the day's events without a time of day are due at its midnight: look from there; and to
        # the day's end, where a day-long thing told with the hour it ends is due ("一整天…晚上八点
        # 才能回到家")
        hi = max(end, day_start(start, tz) + timedelta(days=1))
        for old in _plans(ctx, scope, min(start - timedelta(hours=12), day_start(start, tz)), hi):
            if old.id == new.id:
                continue
            other = span(old, tz)
            if other is None or not (other[0] < end and start < other[1]):
                continue
            if (mail_plans.one_plan(old, new, tz) and not _told_apart(old, new, tz)) or _one_plan_moved(
                scope, old, new, ctx
            ):
                continue  # one event stored twice, or told by chat and by mail, is no clash
            notice = self._suggest(scope, old, new, max(start, other[0]), ctx)
            if _clash_told_of_twin(scope, old, new, ctx, by=notice.deliver_at):
                continue
            out.append(notice)
        return out

    def _suggest(self, scope: str, a: ItemView, b: ItemView, clash: datetime, ctx: Ctx) -> Suggestion:
        ids = sorted([a.id, b.id])
        tz = ctx.settings.tz
        zh = is_cjk(plain(a) + plain(b))
        la, lb = _line(a, tz, zh, ctx), _line(b, tz, zh, ctx)
        when = when_text(clash.astimezone(tz), ctx.now.astimezone(tz), True, zh)
        if zh:
            title = f"时间冲突：{when}有两件事"
            body = f"这两件事时间重叠：\n• {la}\n• {lb}\n要调整其中一个吗？"
        else:
            title = f"Conflict {when}: two things at once"
            body = f"These overlap:\n• {la}\n• {lb}\nMove one of them?"
        first = clash  # the overlap begins: after that the clash is no news
        # a slot only told by mail, not answered yet: the person may answer it themselves first (a
        # day, as the e-mail follow-up waits with no history; by the eve of the clash at the latest)
        told = [t for x in (a, b) if (t := mail_plans.told_unanswered(ctx.memory, scope, x, ctx.now))]
        at = ctx.now + SETTLE
        if told:
            at = max(at, min(max(told) + ANSWER_WAIT, first - ANSWER_BEFORE))
        return Suggestion(
            scope=scope,
            kind="conflict",
            predictor=NAME,
            dedup_key=f"conflict:{ids[0]}:{ids[1]}",
            about=f"item:{b.id}",
            title=title,
            body=body,
            created_at=ctx.now,
            # a clash that begins within the moment is said at once
            deliver_at=at if at < first else ctx.now,
            expires_at=first,
            evidence=(a.id, b.id),
            source_ids=tuple(dict.fromkeys([*(a.source_ids or ()), *(b.source_ids or ())])),
            confidence=0.85,
            data={"items": {a.id: due_of(a).isoformat(), b.id: due_of(b).isoformat()}},
        )

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck:
        for item_id, due in s.data["items"].items():
            item = ctx.memory.item_view(s.scope, item_id)
            gone = active(item)
            if gone is not None or item is None:
                return Recheck(None, f"one of the events changed: {gone}")
            if item.due_at is None or item.due_at.timestamp() != datetime.fromisoformat(due).timestamp():
                return Recheck(None, "one of the events moved")
            if mail_plans.is_mail_meeting(item) and not _theirs(item, s.scope, ctx):
                return Recheck(None, "the person's answer to the mail did not take the slot")
        items = [ctx.memory.item_view(s.scope, x) for x in s.data["items"]]
        a, b = items if len(items) == 2 else (None, None)
        if a is not None and b is not None:
            for one, other in ((a, b), (b, a)):
                if _clash_told_of_twin(s.scope, one, other, ctx, delivered_only=True):
                    return Recheck(None, "the clash went out with another telling of the plan")
        waiting = any(
            x is not None and mail_plans.told_unanswered(ctx.memory, s.scope, x, ctx.now) for x in items
        )
        if not waiting and s.deliver_at > ctx.now + SETTLE:
            # the person answered the mail that told the slot, taking it: no answer is awaited now
            return Recheck(replace(s, deliver_at=ctx.now + SETTLE), "the person took the mailed slot")
        return Recheck(replace(s))
