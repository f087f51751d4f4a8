"""Deps: what every handler receives (the memory, the settings, the injected clock)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from daemon.config import Settings
from daemon.memory import Clock, Memory
from daemon.predict.outlet import Outlet


class Mailbox(Protocol):
    """What the gmail handler and the ticks need of the Gmail fetcher (daemon/gmail/sync.py)."""

    async def sync(self, address: str | None = None, history_id: int | None = None) -> Any: ...

    async def renew_watch(self, topic: str) -> int: ...


class Enrichment(Protocol):
    """What the github handler needs of the API enricher (daemon/github/enrich.py)."""

    async def enrich(self, event: str, payload: dict[str, Any]) -> dict[str, Any] | None: ...


class Poller(Protocol):
    """What the github_poll tick needs of the GitHub poller (daemon/github/poll.py)."""

    async def poll(self) -> Any: ...


@dataclass(frozen=True, slots=True)
class Deps:
    """Handlers take their collaborators from here; time comes from `clock`, never the wall."""

    memory: Memory
    settings: Settings
    clock: Clock
    out: Outlet = field(default_factory=Outlet)  # prefetched context out, the delivery timer's wake-up
    gmail: Mailbox | None = None  # the Gmail fetcher, when the Gmail trigger is on
    github: Enrichment | None = None  # the GitHub API enricher, when a token is configured
    github_poll: Poller | None = None  # the GitHub poller, when polling mode is on
