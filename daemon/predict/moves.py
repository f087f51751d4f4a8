"""moves: a plan the person said moved, told in a statement of its own, read as one plan.

"周四下午五点在新公寓做 Wohnungsübergabe, Weserstraße 58", then "靠 Übergabe 被改到周一早上 7:45";
"明天下午四点半约了牙医 … Clínica Dental Argüelles", then "诊所刚打电话来，…，给我改到下周一30号早上
10:15了". The memory keeps both statements when it is not sure the second retires the first (the
move shares no word with the plan, or one glued into a compound), since retiring is deleting from
the person's side. The predictors read them as one plan: the older one's reminder is withdrawn
(`moved_since`), and the move's reminder says what and where from the plan it moved
(`moved_plan`), which the move itself may not name.

The plan a move statement moves: the one plan the memory retired for it, if it did; else, of the
person's plans told before it, not over by the start of
the day it was said, and due at another time than the move's, the one that shares a word of what
it is with the move (a compound's part counts: "Übergabe" in "Wohnungsübergabe"). When the
move's dated clause names nothing but the move ("给我改到…了", "they moved me to the 30th") and no
plan shares a word, the one plan of the person due within `ANAPHORA_DAYS` of the move. None when
more than one fits: then both plans stay as the memory left them.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from daemon.memory.dates import resolve_dates
from daemon.memory.dates.common import PERIODS
from daemon.memory.dates.hant import simplified
from daemon.memory.models.features import activity_terms, shared_words
from daemon.memory.types import ItemView
from daemon.predict.base import HAPPENINGS, Ctx, cancels, is_cjk, said_by_person, what
from daemon.predict.plan_text import only_a_move
from daemon.predict.plans import PLAN_MOVED_EN, PLAN_MOVED_ZH
from daemon.predict.timing import day_start

ANAPHORA_DAYS = 14  # a move that names nothing is of the person's one plan this near
HORIZON = timedelta(days=120)  # how far ahead a moved plan or its move is looked for
COMPOUND_PART = 5  # a Latin word this long inside another names the same thing ("übergabe")


def is_move(text: str) -> bool:
    """A statement that says a plan moved to another time ("pushed the vet to tuesday", "改到周一")."""
    t = simplified(text)
    return bool(PLAN_MOVED_ZH.search(t) or PLAN_MOVED_EN.search(t))


def _names_the_same(a: str, b: str) -> bool:
    """Two statements name something in common: a shared word, or a Latin word of one that is
    the start or the end of a word of the other (German compounds: "Übergabe",
    "Wohnungsübergabe", "Übergabetermin")."""
    if shared_words(a, b):
        return True
    ta = {t for t in activity_terms(a) if _latin_word(t)}
    tb = {t for t in activity_terms(b) if _latin_word(t)}
    return any(
        x != y and (y.startswith(x) or y.endswith(x) or x.startswith(y) or x.endswith(y))
        for x in ta
        for y in tb
    )


def _latin_word(t: str) -> bool:
    return len(t) >= COMPOUND_PART and t.isalpha() and not is_cjk(t)


def _plans_before(ctx: Ctx, scope: str, move: ItemView) -> list[ItemView]:
    """The person's plans told before `move`, not over by the start of its day, due at another time."""
    said = move.observed_at or ctx.now
    start = day_start(said, ctx.settings.tz)
    return [
        p
        for p in ctx.memory.due_items(scope, start, said + HORIZON)
        if p.id != move.id
        and p.category in HAPPENINGS
        and said_by_person(p)
        and p.observed_at is not None
        and p.observed_at < said
        and p.due_at != move.due_at
        and not cancels(p)
        and not is_move(what(p))
    ]


def moved_plan(ctx: Ctx, scope: str, move: ItemView) -> ItemView | None:
    """The plan the move statement `move` moves, or None (see the module docstring)."""
    if move.due_at is None or not said_by_person(move) or not is_move(what(move)):
        return None
    # the memory retired it for this move: that is the plan, as the memory read it
    retired = [p for p in ctx.memory.retired_by(scope, move.id) if p.due_at is not None and said_by_person(p)]
    if len(retired) == 1:
        return retired[0]
    plans = _plans_before(ctx, scope, move)
    named = [p for p in plans if _names_the_same(what(p), what(move))]
    if len(named) == 1:
        return named[0]
    said = move.observed_at or ctx.now
    if named or not only_a_move(what(move), said, ctx.settings.tz):
        return None
    near = [p for p in plans if p.due_at is not None and p.due_at - said <= timedelta(days=ANAPHORA_DAYS)]
    return near[0] if len(near) == 1 else None


def names_part_of(move: ItemView, due: datetime, tz: ZoneInfo) -> bool:
    """The move names `due`'s day and only the part of it `due` falls in, no clock: "交钥匙改到周四
    早上了" after the agent's e-mail moved the handover to Thursday 10:30 tells the same time in
    fewer words, and is no second move."""
    said = move.observed_at or move.happened_at
    if said is None:
        return False
    local = due.astimezone(tz)
    for m in resolve_dates(what(move), said, tz):
        if m.value.date() != local.date() or m.has_clock or not m.has_time:
            continue
        span = next((p for p in PERIODS.values() if p[0] == m.value.hour), None)
        if span is not None and span[1] <= local.hour < span[2]:
            return True
    return False


def moved_since(ctx: Ctx, scope: str, plan: ItemView) -> ItemView | None:
    """A later statement of the person that moves `plan` to another time, or None."""
    if plan.observed_at is None:
        return None
    for m in ctx.memory.due_items(scope, day_start(plan.observed_at, ctx.settings.tz), ctx.now + HORIZON):
        if (
            m.id != plan.id
            and m.observed_at is not None
            and plan.observed_at < m.observed_at <= ctx.now
            and is_move(what(m))
        ):
            moved = moved_plan(ctx, scope, m)
            if moved is not None and moved.id == plan.id:
                return m
    return None
