"""upcoming: an event the person told us about → a reminder at a sensible lead time.

A timed event is announced `remind_lead_hours` before it starts (quiet hours move that to
their end, still before the event); an event without a time of day on the morning of its day. An event stated shortly
before it starts gets a short reminder half an hour before, or none. The reminder expires when
the event starts (all-day: at the end of its day), so it is never sent late, and it is re-checked
at delivery: a moved or cancelled event (a superseded item) withdraws it, and the new item brings
its own. At delivery it is enriched with related preferences ("you prefer dark-themed slides").
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from daemon.memory.suggestions import Suggestion
from daemon.predict import enrich, promise
from daemon.predict.base import (
    Ctx,
    NewItems,
    Recheck,
    Trigger,
    active,
    cancels,
    is_cjk,
    plain,
    said_by_person,
    short,
    what,
)
from daemon.predict.timing import at_local, is_timed, next_day_start

NAME = "upcoming"
SHORT_LEAD = timedelta(minutes=30)
MIN_NOTICE = timedelta(minutes=10)  # a reminder is not worth sending sooner than this after it was said


def when_text(due: datetime, now: datetime, timed: bool, zh: bool) -> str:
    """'today at 10:00' / 'Monday 9 March at 10:00' (zh: '今天15:00' / '3月11日（周三）15:00')."""
    d, n = due.date(), now.date()
    hhmm = due.strftime("%H:%M") if timed else ""
    if zh:
        day = (
            "今天"
            if d == n
            else "明天"
            if d == n + timedelta(days=1)
            else f"{d.month}月{d.day}日（周{'一二三四五六日'[d.weekday()]}）"
        )
        return f"{day}{hhmm}"
    day = "today" if d == n else "tomorrow" if d == n + timedelta(days=1) else due.strftime("%A %-d %B")
    return f"{day} at {hhmm}" if timed else day


def plan(item: dict[str, Any], ctx: Ctx) -> tuple[datetime, datetime] | None:
    """(remind at, expires at) for an event item, or None when no reminder makes sense."""
    tz = ctx.settings.tz
    due = item["due_at"].astimezone(tz)
    if due <= ctx.now:
        return None
    if not is_timed(due, tz):
        morning = at_local(due, ctx.settings.morning_at, tz)
        expires = next_day_start(due, tz)
        at = max(morning, ctx.now + MIN_NOTICE)
        return (at, expires) if at < expires else None
    lead = timedelta(hours=ctx.settings.remind_lead_hours)
    for at in (due - lead, due - SHORT_LEAD):
        if at >= ctx.now + MIN_NOTICE:
            return at, due
    return None


def reminder(item: dict[str, Any], scope: str, ctx: Ctx) -> Suggestion | None:
    if item.get("category") != "events" or item.get("due_at") is None or not said_by_person(item):
        return None
    if active(item) is not None or promise.is_promise(what(item)) or cancels(item):
        return None  # a promise gets a follow-up instead (promise.py); a cancellation nothing
    p = plan(item, ctx)
    if p is None:
        return None
    at, expires = p
    return Suggestion(
        scope=scope,
        kind="reminder",
        predictor=NAME,
        dedup_key=f"reminder:{item['id']}",
        about=f"item:{item['id']}",
        title="",  # written at delivery, when "today" is known
        body="",
        created_at=ctx.now,
        deliver_at=at,
        expires_at=expires,
        evidence=(item["id"],),
        source_ids=tuple(item.get("source_ids") or ()),
        confidence=0.8,
        data={"item_id": item["id"], "due_at": item["due_at"].isoformat()},
    )


class Upcoming:
    name = NAME

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
        if not isinstance(trigger, NewItems):
            return []
        out = [reminder(it, trigger.scope, ctx) for it in trigger.items]
        return [s for s in out if s is not None]

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck:
        item = ctx.memory.get_item(s.scope, s.data["item_id"])
        gone = active(item)
        if gone is not None or item is None:
            return Recheck(None, f"the event changed: {gone}")
        due = item["due_at"]
        if due is None or due.timestamp() != datetime.fromisoformat(s.data["due_at"]).timestamp():
            return Recheck(None, "the event moved")
        tz = ctx.settings.tz
        text = plain(item)
        zh = is_cjk(text)
        when = when_text(due.astimezone(tz), ctx.now.astimezone(tz), is_timed(due, tz), zh)
        rel = enrich.related(ctx, s.scope, item)
        if zh:
            title = f"提醒：{when} — {short(text, 60)}"
            body = f"{when}：{text}"
            if rel:
                body += "\n相关：" + "；".join(r.text for r in rel)
        else:
            title = f"Reminder: {when} — {short(text, 70)}"
            body = f"Coming up {when}: {text}"
            if rel:
                body += "\nWorth remembering: " + " · ".join(f"you said “{r.text}”" for r in rel)
        evidence = tuple(dict.fromkeys([*s.evidence, *(r.item_id for r in rel)]))
        sources = tuple(dict.fromkeys([*s.source_ids, *(x for r in rel for x in r.source_ids)]))
        return Recheck(replace(s, title=title, body=body, evidence=evidence, source_ids=sources))
