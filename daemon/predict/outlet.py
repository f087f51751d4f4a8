"""Outlet: what handlers may send straight out (prefetched context) and the timer they wake."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass


def _nothing() -> None:
    return None


@dataclass(frozen=True, slots=True)
class Outlet:
    """`context(subject, body)` publishes at once (no outbox: it is for the live moment only);
    `wake()` tells the delivery timer a new suggestion may be due sooner; `claim(scope, turn
    id)` is False when a turn's context was made already as it arrived (None: nothing is)."""

    context: Callable[[str, bytes], Awaitable[None]] | None = None
    claim: Callable[[str, str], bool] | None = None
    wake: Callable[[], None] = _nothing
