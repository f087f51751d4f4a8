"""What predictors share: the context they run in, the triggers they answer, their protocol."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from daemon.config import Settings
from daemon.memory import Memory
from daemon.memory.types import ItemView, TurnView
from daemon.state.suggestions import Suggestion
from daemon.state.types import ThreadState, WorkItem

_CJK = re.compile(r"[\u3400-\u9fff]")
_SPEAKER = re.compile(r"^(user|assistant|system|tool):\s*")


@dataclass(frozen=True, slots=True)
class Ctx:
    """One predictor run: the memory, the settings, and the (injected) time it runs at."""

    memory: Memory
    settings: Settings
    now: datetime


@dataclass(frozen=True, slots=True)
class NewItems:
    """Items the memory just created in `scope` (as `Memory.item_views` returns them)."""

    scope: str
    items: Sequence[ItemView]


@dataclass(frozen=True, slots=True)
class WorkItemChanged:
    """A GitHub delivery changed a pull request / issue; `event_id` is the delivery (a resource)."""

    scope: str
    state: WorkItem
    event_id: str


@dataclass(frozen=True, slots=True)
class Morning:
    """The morning tick, for one scope."""

    scope: str
    at: datetime


@dataclass(frozen=True, slots=True)
class NewTurns:
    """The person's turns that just arrived in `scope`."""

    scope: str
    turns: Sequence[TurnView]


@dataclass(frozen=True, slots=True)
class ThreadChanged:
    """An e-mail changed a thread's state; `event_id` is the message (a resource)."""

    scope: str
    state: ThreadState
    event_id: str


Trigger = NewItems | WorkItemChanged | Morning | NewTurns | ThreadChanged


@dataclass(slots=True)
class Recheck:
    """The verdict of a final re-check: keep (possibly with a fresher text) or withdraw."""

    suggestion: Suggestion | None
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Predictor(Protocol):
    """A small rule set: proposes suggestions on triggers, re-checks them before they go out."""

    name: str

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]: ...

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck: ...


def is_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def what(item: ItemView) -> str:
    """The sentence an item was said in, without the speaker prefix and the resolved-date note."""
    text = item.l1.get("what")
    if not isinstance(text, str) or not text.strip():
        text = _SPEAKER.sub("", item.l0)
        text = re.sub(r"\s*\([^()]*\)\s*$", "", text)
    return text.strip()


_NOTE = re.compile(r"\(([^()]*)\)\s*$")


def plain(item: ItemView) -> str:
    """`what` without the date phrases the date rules resolved ("Next Monday at 10:00 I have the
    demo" → "I have the demo"): on the day itself "next Monday" would mislead."""
    text = what(item)
    note = _NOTE.search(item.l0)
    if not note:
        return text
    for part in note.group(1).split(";"):
        cue = part.rsplit(":", 1)[0].strip() if part.count(":") else ""
        # "Next Monday at 10:00: 9 March 2026 10:00" → the cue is what comes before ": <date>"
        m = re.match(r"(.+?):\s*\d{1,2} \w+ \d{4}", part.strip())
        cue = m.group(1) if m else cue
        if cue and cue in text:
            # the cue and an end time right after it ("下周三下午三点到四点", "3 to 4pm")
            tail = r"(?:\s*(?:到|至|-|–|to|until)\s*(?:[一二两三四五六七八九十]{1,3}|\d{1,2})(?:[:：]\d{2})?\s*(?:点半?|am|pm)?)?"
            lead = r"(?:\b(?:on|at|by|to|until|from|for)\s+)?"
            text = re.sub(lead + re.escape(cue) + tail, " ", text, count=1, flags=re.IGNORECASE)
    text = re.sub(r"\s+([,.，。!?])", r"\1", " ".join(text.split())).strip(" ,，")
    text = re.sub(r"^(?:对了|另外|by the way|btw|oh)?\s*[,，、]\s*", "", text, flags=re.IGNORECASE)
    return (text[:1].upper() + text[1:]) if text else what(item)


_CANCEL = re.compile(
    r"\b(cancel+ed|cancel+ing|call(?:ed)? off|is off|won't happen|not happening|no longer (?:going|happening)|"
    r"not going (?:to|anymore)|no need to (?:pick (?:me|him|her|them|us) up|collect|drive|come))\b"
    # no need to fetch or see off: the one to be met calls it off ("阿 Ken 話唔使接佢喇")
    r"|取消|不去了|不开了|不办了|黄了|(?:唔使|不用|不必|无须|無須)(?:再|去)?[接送載载]",
    re.IGNORECASE,
)


def due_of(item: ItemView) -> datetime:
    """The due time of an item the caller knows is due (a due item, an event that carries one)."""
    if item.due_at is None:
        raise ValueError(f"item {item.id} has no due time")
    return item.due_at


def calls_off(text: str) -> bool:
    """A statement that calls an event off ("the demo is cancelled", "LEA 把我周四的 Termin 取消了")."""
    return bool(_CANCEL.search(text))


def cancels(item: ItemView) -> bool:
    """The statement calls an event off ("the demo is cancelled", "会议取消了"): it retires the
    event (the memory supersedes it) and is not itself something to remind of."""
    return bool(_CANCEL.search(what(item)))


# The categories a dated plan can be filed under: the category model files "knee scope is
# Tuesday, check in 6am" as a case and "公证预约好了，2号下午三点一刻，徐汇区公证处" as an entity as
# often as an event; the date ahead and the plan rules (plans.py: habits, the world's schedule,
# someone else's) are the stronger evidence. Only the patterns memubot derives itself are routines.
HAPPENINGS = frozenset(("events", "cases", "entities", "profile", "preferences", "patterns"))


def said_by_person(item: ItemView) -> bool:
    """The person's own statement (a user turn), not the assistant's summary of someone else's plan."""
    role = item.l1.get("role")
    if isinstance(role, str):
        return role == "user"
    return item.l0.startswith("user:")


def active(item: ItemView | None) -> str | None:
    """None when the item still holds; else why not."""
    if item is None:
        return "its memory was forgotten"
    if item.superseded_by:
        return f"superseded by {item.superseded_by}"
    if item.valid_until is not None:
        return "no longer valid"
    if item.archived:
        return "archived"
    return None


def short(text: str, n: int = 90) -> str:
    """`text` in at most `n` characters, cut after a whole word where one ends near the cut
    ("…for the batangas warehouse…", not "…warehouse befor…"); text without spaces (Chinese) at
    the character."""
    text = " ".join(text.split())
    if len(text) <= n:
        return text
    cut = text[: n - 1]
    space = cut.rfind(" ")
    if space >= n * 2 // 3 and not text[n - 1].isspace():
        cut = cut[:space]
    return cut.rstrip(" ,;:-–—") + "…"
