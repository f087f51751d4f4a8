"""Related memories for a suggestion: how the person wants things done that matters for this event.

Said unasked, a related memory is a preference ("whenever you make slides for me, always use a
dark theme"), not any other fact told near the event: the turns around an event are in its
context, so the recall of that context finds them first. Over the project's scenarios
(2026-12-05) reminders carried 15 distinct related lines: the 8 filed as profile facts were the
chatter around the event (the morning's cold, a sister's drama, a colleague on leave, a deposit
paid) but for one (questions to ask at a viewing); the 7 filed as preferences held both real
preferences and a to-do for the event, and three reports or moods the category model filed there.

A note to self is the other thing said again with a reminder: what the person told themselves not
to forget before the plan ("gotta remember my fishing license card"), see `notes_to_self`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from daemon.memory.dates import resolve_dates
from daemon.memory.dates.hant import simplified
from daemon.memory.types import ItemView
from daemon.predict.base import HAPPENINGS, Ctx, active, cancels, said_by_person, short, what
from daemon.predict.plan_model import reader_for
from daemon.predict.plans import declines, is_own_plan, reasons
from daemon.predict.timing import is_timed

# recall scores are fused ranks plus decay; below this a preference is only "the nearest one"
MIN_SCORE = 0.35
CATEGORIES = ("preferences",)
# (not a condition: "if i've got a flight, always book me an aisle seat" is a preference)
_MOOD = frozenset(("vent", "world"))
_DAYDREAM = re.compile(
    r"\bif (?:i|we) ever\b|\bsome ?day\b|\bone day\b|如果哪天|要是哪天|总有一天|有一天"
    # "要是毕业以后留在意大利，我想去 Napoli 住", "如果能留下来的话"
    r"|(?:要是|如果|假如)[^，,。.]{0,20}(?:以后|之后|的话)",
    re.IGNORECASE,
)


# how a preference is said: a standing wish for how things are done ("whenever you make slides,
# always use a dark theme", "I now prefer…", 我不吃香菜); a report of what the person is doing
# ("reading the brief now, half of it is acronyms") says none of these and asks for nothing
_PREFERS = re.compile(
    r"\b(?:always|never|prefer\w*|rather|like|love|hate|can['’]?t stand|don['’]?t (?:like|want)|want|favou?rite"
    r"|please|make sure|allergic|vegetarian|vegan|whenever|every time|no more)\b"
    r"|喜欢|喜歡|讨厌|討厭|偏好|习惯|習慣|总是|總是|一直|从不|從不|不要|别再|最爱|最愛|不吃|过敏|過敏|每次|以后都|以後都",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Related:
    item_id: str
    text: str
    source_ids: tuple[str, ...]


def related(ctx: Ctx, scope: str, item: ItemView, limit: int = 2) -> list[Related]:
    """The person's preferences most related to `item` and the conversation around it (its
    context text: the turn before and after), still valid now."""
    query = str(item.context_text or "") or what(item)
    hits = ctx.memory.recall(query, scope, k=8, ts=ctx.now, reinforce=False)
    out: list[Related] = []
    for h in hits:
        if h.item_id == item.id or h.category not in CATEGORIES or h.score < MIN_SCORE:
            continue
        row = ctx.memory.item_view(scope, h.item_id)
        # never a superseded preference: newest truth wins, also in what memubot says unasked
        if row is None or active(row) is not None or not said_by_person(row):
            continue
        # nor a mood or a daydream the category model filed there ("Sheikh Zayed Road 又堵死了…
        # 如果哪天回国，最想念的绝对是 shawarma"): it says nothing of how this should be done
        said = what(row)
        # (nor what they said they would not go to: "told aunty i'm not coming to easter lunch")
        if _MOOD.intersection(reasons(said)) or _DAYDREAM.search(said) or declines(said):
            continue
        if not _PREFERS.search(said):
            continue  # a report or a remark the category model filed there, no preference
        out.append(Related(h.item_id, short(what(row), 120), tuple(h.source_ids)))
        if len(out) >= limit:
            break
    return out


# a note the person makes to themselves of something not to forget: "gotta remember my fishing
# license card", "don't let me forget the charger", "矿区进出要那个出入证…这次千万别再忘", "记得带护照"
_NOTE_TO_SELF = re.compile(
    r"\b(?:(?:got\s*ta|have\s+to|need\s+to|must|gotta|should)\s+remember|remember\s+(?:to\s+)?(?:bring|take|pack|grab)"
    r"|don['’]?t\s+(?:let\s+me\s+)?forget|do\s+not\s+forget|mustn['’]?t\s+forget|must\s+not\s+forget"
    r"|note\s+to\s+self|can['’]?t\s+forget)\b"
    r"|别忘|別忘|千万别|不能忘|不要忘|记得带|记得拿|别落下|唔好唔记得|唔好漏",
    re.IGNORECASE,
)
# how far before the plan a note to self still reads as being for it
NOTE_AHEAD = timedelta(days=7)


def notes_to_self(ctx: Ctx, scope: str, item: ItemView, due: datetime, limit: int = 2) -> list[Related]:
    """What the person told themselves not to forget, after telling the plan and before it, with
    no plan of theirs (told by then) due in between, which it would be for first ("Gotta remember
    my fishing license card" two days before the ice derby): said again in its reminder, as the
    note asks. A note that names another day is that day's, not this plan's."""
    said = item.observed_at or item.happened_at
    if said is None:
        return []
    tz = ctx.settings.tz
    own = reader_for(ctx.memory.embedder)
    out: list[Related] = []
    for turn in ctx.memory.user_turns(scope, max(said, due - NOTE_AHEAD), min(ctx.now, due)):
        if turn.at <= said or turn.text == what(item) or not _NOTE_TO_SELF.search(simplified(turn.text)):
            continue
        day = due.astimezone(tz).date()
        if any(
            m.direction == "future" and m.value.astimezone(tz).date() != day
            for m in resolve_dates(turn.text, turn.at, tz)
        ):
            continue  # a note for another day ("tomorrow don't let me forget the charger")
        between = [
            p
            for p in ctx.memory.due_items(scope, turn.at, due - timedelta(minutes=1))
            if p.id != item.id
            and p.due_at is not None
            and p.category in HAPPENINGS
            and said_by_person(p)
            and not cancels(p)
            # (a plan told after the note cannot be what it was for)
            and (p.observed_at or p.happened_at or ctx.now) < turn.at
            # (nor one told of the plan's day or a span around it, without an hour before it:
            # "这周末回国探亲" beside Saturday's 05:40 trip)
            and (is_timed(p.due_at, tz) or p.due_at.astimezone(tz).date() < due.astimezone(tz).date())
        ]
        if any(is_own_plan(p, tz, ctx.now, own) for p in between):
            continue
        out.append(Related(turn.id, short(turn.text, 160), (turn.id,)))
        if len(out) >= limit:
            break
    return out
