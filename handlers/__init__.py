"""ROUTES: the one visible list of trigger handlers, subject → event parser → handler.

Each handler is a plain async function in its own module that takes a batch of parsed events
of its kind and the Deps, and returns one outcome per event. The daemon's dispatcher
(daemon/runtime/dispatch.py) matches an incoming subject here; a subject no route claims is
dead-lettered with that reason.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from daemon import subjects as S
from daemon.events import (
    email_from_dict,
    feedback_from_dict,
    github_from_dict,
    gmail_from_dict,
    tick_from_dict,
    turn_from_dict,
)
from handlers import conversation, email, feedback, github, gmail, tick
from handlers.deps import Deps


@dataclass(frozen=True, slots=True)
class Route:
    """Which subjects a handler takes (an exact subject, or a prefix ending in '.')."""

    kind: str
    subject: str
    parse: Callable[[Any], Any]  # a decoded JSON object → the event dataclass (InvalidEvent if not)
    handle: Callable[[Sequence[Any], Deps], Awaitable[list[str]]]

    def matches(self, subject: str) -> bool:
        if self.subject.endswith("."):
            return subject.startswith(self.subject) and len(subject) > len(self.subject)
        return subject == self.subject


ROUTES: tuple[Route, ...] = (
    Route("conversation", S.CONVERSATION_PREFIX, turn_from_dict, conversation.handle),
    Route("tick", S.TICK_PREFIX, tick_from_dict, tick.handle),
    Route("feedback", S.FEEDBACK, feedback_from_dict, feedback.handle),
    Route("github", S.GITHUB, github_from_dict, github.handle),
    Route("email", S.EMAIL, email_from_dict, email.handle),
    Route("gmail", S.GMAIL, gmail_from_dict, gmail.handle),
)


def route_for(subject: str, routes: Sequence[Route] = ROUTES) -> Route | None:
    return next((r for r in routes if r.matches(subject)), None)
