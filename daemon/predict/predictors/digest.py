"""digest: on the morning tick, what no other message says — or nothing.

Nothing is said twice, nor what the person has just said: an event told within the last day
(`FRESH`) is still in mind. An event of today with a reminder of its own (the evening before,
earlier today, or later today) is left out: the reminder says it at a better time, and a digest
listing an event that gets its own reminder a few hours later is noise; so is an event a clash
message already named (the all-day offsite beside the 14:00 call); nor is an event due within
the hour, which is under way or about to be (its reminder, if any, came before). What waits on the person
(a review, an assigned issue) appears once its own follow-up was delivered on an earlier day and
nothing has been said about it for three days: one reminder, then a repeat at that pace, not a
nag every morning. Events alone are listed only two or more (`AT_LEAST`): what the digest lists
of the day is by construction what no reminder says — a day without a clock, or a plan the
reminder found not worth one — so a digest of one event is a reminder of a thing judged not worth
a reminder, in a digest's clothes. (What waits on the person is the digest's own repeat of a
follow-up, and goes out alone.) The content is rebuilt at delivery (an event cancelled or a review
done since the tick drops out; if what is left would not be sent, the digest is withdrawn).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from daemon.memory.types import ItemView
from daemon.predict import mail_plans, plan_news, said_when
from daemon.predict.base import (
    HAPPENINGS,
    Ctx,
    Morning,
    Recheck,
    Trigger,
    cancels,
    due_of,
    is_cjk,
    said_by_person,
    short,
    what,
)
from daemon.predict.plan_model import reader_for
from daemon.predict.plan_text import for_them, headline
from daemon.predict.plans import declined_reminder, is_own_plan
from daemon.predict.predictors import promise, upcoming
from daemon.predict.predictors.github import ref, waits_for
from daemon.predict.timing import day_start, is_timed, next_day_start
from daemon.state.suggestions import Suggestion

NAME = "digest"
SOON = timedelta(hours=1, seconds=1)  # a suggestion due within the hour speaks for itself
EVENING_BEFORE = timedelta(hours=6)  # a reminder since 18:00 the day before has told today's event
REPEAT_AFTER = timedelta(days=3)  # what still waits is repeated once its last mention is this old
# a plan told within the last day is still in mind: listing it the next morning repeats what the
# person said last night ("doing a shop tomorrow", "明天继续"); the digest is for what was told
# before, which a night and a day may have pushed out of mind (like a reminder's JUST_SAID)
FRESH = timedelta(days=1)
# an overview of the day is of two events or more. In the first runs of six scenario sets nobody
# here had read (blind23, 25–29) the 23 digests were all of one line, and 20 broke a rule their
# writers kept (someone else's appointment, a declined invitation, the clash day's event, the
# day's single appointment repeated); across all 29 blind sets and the own ones at the code of
# 2026-12-07, 25 digests, all of one line, 1 met an expectation (a deadline day, "rego runs out on
# the 3rd") — docs/predict.md, "Twenty-fourth session"
AT_LEAST = 2


def _content(scope: str, ctx: Ctx) -> tuple[list[ItemView], list[Any]]:
    tz = ctx.settings.tz
    events = [
        it
        for it in ctx.memory.due_items(scope, day_start(ctx.now, tz), next_day_start(ctx.now, tz))
        if it.category in HAPPENINGS
        and said_by_person(it)
        and not cancels(it)
        and not promise.is_promise(what(it))  # the promise's own follow-up knows when it is kept
        and is_own_plan(it, tz, ctx.now, reader_for(ctx.memory.embedder))
        and not declined_reminder(it)  # "Want me to remind you?" — "no need"
        # "I'll go through #742 properly by thursday": the pull request's follow-up speaks for it
        # (as for a reminder or a clash of its own)
        and not said_when.github_follows(what(it), ctx.settings.github_login)
        and it.due_at is not None  # always, for a due item
        and (it.observed_at or it.happened_at or ctx.now) <= ctx.now - FRESH
        # a timed event within the hour is under way or about to be: no news for the day ahead
        and (it.due_at >= ctx.now + SOON or not is_timed(it.due_at, tz))
        # not a plan someone's e-mail called off or moved to another day (its reminder says that)
        and not plan_news.changes_when(
            plan_news.news(ctx.memory, scope, what(it), it.observed_at or ctx.now, it.due_at, ctx.now, tz)
        )
        # ... nor one the person called off since, which the memory kept beside it
        and upcoming.called_off_since(ctx, scope, it) is None
        # ... nor an e-mail's ask the person relayed in chat: the mail's follow-up speaks for it
        and upcoming.relays_mail_ask(ctx, scope, what(it), it.observed_at or ctx.now, it.due_at) is None
    ]
    login = ctx.settings.github_login
    waiting = [w for w in ctx.memory.work_items.of_scope(scope, state="open") if waits_for(w, login)]
    abouts = [f"item:{e.id}" for e in events] + [f"{w.kind}:{ref(w)}" for w in waiting]
    today = day_start(ctx.now, tz)
    # an event with a reminder of its own — the evening before, earlier today or later today —
    # is that reminder's to say
    told = ctx.memory.suggestions.covered(scope, abouts, today - EVENING_BEFORE, next_day_start(ctx.now, tz))
    keys = [f"{w.kind}:{ref(w)}" for w in waiting]
    older = ctx.memory.suggestions.said_before(scope, keys, today)
    recent = ctx.memory.suggestions.covered(scope, keys, today - REPEAT_AFTER, ctx.now + SOON)
    # … and one a clash named when it was made: the person heard of that day's event then, with
    # what it collides with (strangers counted a digest re-listing it as noise)
    clashed = {
        i
        for c in ctx.memory.suggestions.of_scope(scope, "delivered")
        if c.kind == "conflict"
        for i in c.evidence
    }
    events = [e for e in events if f"item:{e.id}" not in told and e.id not in clashed]
    waiting = [w for w in waiting if f"{w.kind}:{ref(w)}" in older - recent]
    return events, waiting


def _worth_sending(events: list[ItemView], waiting: list[Any]) -> bool:
    return bool(waiting) or len(events) >= AT_LEAST


def _write(s: Suggestion, events: list[ItemView], waiting: list[Any], ctx: Ctx) -> Suggestion:
    tz = ctx.settings.tz
    zh = any(is_cjk(what(e)) for e in events)
    lines = []
    for e in events:
        t = due_of(e).astimezone(tz)
        thing = headline(what(e), e.observed_at or ctx.now, tz)
        thing = thing if mail_plans.is_mail_meeting(e) else for_them(thing)
        lines.append(f"• {t.strftime('%H:%M') + ' ' if is_timed(t, tz) else ''}{short(thing, 90)}")
    for w in waiting:
        why = waits_for(w, ctx.settings.github_login)
        lines.append(f"• {'review' if why == 'review' else 'assigned'}: {ref(w)} {short(w.title, 70)}")
    if zh:
        title = f"今日概要：{len(events)} 件日程" + (f"，{len(waiting)} 项待处理" if waiting else "")
    else:
        parts = [f"{len(events)} event{'s' * (len(events) != 1)}"] if events else []
        if waiting:
            parts.append(f"{len(waiting)} waiting on you")
        title = "Today: " + ", ".join(parts)
    evidence = tuple(e.id for e in events)
    sources = tuple(
        dict.fromkeys(
            [*(x for e in events for x in e.source_ids), *(w.last_event for w in waiting if w.last_event)]
        )
    )
    return replace(s, title=title, body="\n".join(lines), evidence=evidence, source_ids=sources)


class Digest:
    name = NAME

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
        if not isinstance(trigger, Morning):
            return []
        events, waiting = _content(trigger.scope, ctx)
        if not _worth_sending(events, waiting):
            return []
        tz = ctx.settings.tz
        day = trigger.at.astimezone(tz).date().isoformat()
        s = Suggestion(
            scope=trigger.scope,
            kind="digest",
            predictor=NAME,
            dedup_key=f"digest:{day}",
            about=f"day:{day}",
            title="",
            body="",
            created_at=ctx.now,
            deliver_at=ctx.now,
            expires_at=next_day_start(ctx.now, tz),
            confidence=0.9,
            data={"day": day},
        )
        return [_write(s, events, waiting, ctx)]

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck:
        events, waiting = _content(s.scope, ctx)
        if not _worth_sending(events, waiting):
            return Recheck(None, "nothing waits and fewer than two events are left for today")
        return Recheck(_write(s, events, waiting, ctx))
