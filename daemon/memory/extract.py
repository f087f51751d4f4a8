"""Noise filter and the first rule-based extractor: resources in, item drafts out (pure functions).

Minimal form for the memory core: each turn that holds a fact becomes one item, categorised by
surface rules, with the speaker and the turn before it kept as context. The full extraction,
dedup and forgetting pipeline replaces `extract` without changing its signature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from daemon.memory.noise import is_noise
from daemon.memory.types import ItemDraft, ResourceIn

_PREFERENCE = re.compile(
    r"\b(i|we) (really )?(like|love|prefer|enjoy|hate|dislike|can't stand|adore)\b|\bmy favou?rite\b"
    r"|喜欢|讨厌|偏好|爱吃|不喜欢|最爱",
    re.IGNORECASE,
)
_PROFILE = re.compile(
    r"\b(my name is|i am a|i'm a|i work as|i work at|i live in|i was born|i grew up|years old|"
    r"my (wife|husband|partner|son|daughter|kids|children|mom|dad|mother|father|job))\b"
    r"|我叫|我是|我住在|我在.{0,8}工作|岁",
    re.IGNORECASE,
)
_PATTERN = re.compile(
    r"\b(always|usually|every (day|week|morning|night|weekend)|often|never|habit|routine)\b"
    r"|总是|经常|每天|每周|习惯|从不|以后都",
    re.IGNORECASE,
)
_CASE = re.compile(
    r"\b(fixed|solved|resolved|the (fix|solution|workaround) (is|was)|turned out|learned that)\b"
    r"|解决了|修好了|原来是",
    re.IGNORECASE,
)
_EXPLICIT = re.compile(
    r"\b(remember|always|never|important|don't forget)\b|记住|以后都|千万|重要", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What the extractor may know beyond the turn itself: the turn before it in the session."""

    prev_speaker: str = ""
    prev_text: str = ""


def categorise(text: str) -> str:
    """The first matching surface rule decides; most conversational facts are events."""
    if _PREFERENCE.search(text):
        return "preferences"
    if _PROFILE.search(text):
        return "profile"
    if _CASE.search(text):
        return "cases"
    if _PATTERN.search(text):
        return "patterns"
    return "events"


def importance(resource: ResourceIn, text: str) -> float:
    """Explainable importance: a base by role, raised by explicit markers and stated facts."""
    base = 0.5 if resource.role in (None, "user") else 0.35
    if _EXPLICIT.search(text):
        base += 0.2
    if _PROFILE.search(text) or _PREFERENCE.search(text):
        base += 0.1
    return min(base, 1.0)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def date_label(ts: datetime) -> str:
    """The event date as words ("8 May 2023"), so that date questions can match it lexically."""
    return f"{ts.day} {ts.strftime('%B %Y')}"


def extract(resource: ResourceIn, ctx: TurnContext) -> list[ItemDraft]:
    """Item drafts for one resource (empty for noise). Pure: same input, same drafts."""
    text = _one_line(resource.text)
    if is_noise(text):
        return []
    speaker = resource.speaker or resource.role or ""
    l0 = f"{speaker}: {text}" if speaker else text
    when = f"[{date_label(resource.occurred_at)}]"
    prev = _one_line(ctx.prev_text)
    # The turn before often holds the question whose words the answer omits ("What got you
    # into running?" → "My doctor suggested it"): it is indexed as the item's context, with the
    # turn after it once that arrives, but never cited as the item's source.
    context = f"{when} {ctx.prev_speaker}: {prev}\n{l0}" if prev else f"{when} {l0}"
    return [
        ItemDraft(
            category=categorise(text),
            l0=l0,
            search_text=f"{when} {l0}",
            context_text=context,
            speaker=speaker or None,
            session=resource.session,
            l1={"speaker": speaker, "text": text, "role": resource.role},
            importance=importance(resource, text),
            confidence=0.6 if resource.role in (None, "user") else 0.5,
            source_ids=(resource.id,),
            happened_at=resource.occurred_at,
        )
    ]


def context_line(resource: ResourceIn) -> str:
    """How a turn appears in its neighbours' context."""
    speaker = resource.speaker or resource.role or ""
    text = _one_line(resource.text)
    return f"{speaker}: {text}" if speaker else text
