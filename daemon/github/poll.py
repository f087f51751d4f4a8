"""GitHub polling: the person's events read through the API, for a workstation GitHub cannot reach.

On each `github_poll` tick the poller reads two feeds of the Events API — what the person did
(`/users/{login}/events`) and what happened in the repositories and to the people they follow
(`/users/{login}/received_events`) — newest first, until it meets the feed's cursor (a row of
the ledger's cursors table, the highest event id published). Each new event is rewritten into
the webhook form (daemon/github/events_api.py) and published on `memubot.in.github` oldest first,
with the id a webhook delivery of the same event is also known by (daemon/github/ids.py): a
webhook and a poll of one event store it once. The cursor moves only after every event of the
feed was published; a crash in between publishes some again, and they are duplicates.

Requests are conditional (`If-None-Match` with the feed's last ETag): an unchanged feed costs a
304, which GitHub does not count against the rate limit. The first poll (no cursor) publishes
what the API still holds (at most MAX_PAGES pages; GitHub keeps 90 days): the memory starts with
the recent past. Blocking PyGithub calls run on a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from github import Auth, Github, GithubException

from daemon.errors import InvalidEvent
from daemon.github.events_api import webhook_form
from daemon.github.ids import resource_id
from daemon.github.webhook import bus_body
from daemon.subjects import GITHUB

log = logging.getLogger(__name__)

FEEDS = ("events", "received_events")  # the person's own events first: their review clears a request
PER_PAGE = 100
MAX_PAGES = 3  # GitHub serves at most 300 events of a feed
TIMEOUT_S = 15

Publish = Callable[[str, bytes, str], Awaitable[None]]  # (subject, body, Nats-Msg-Id)


class Cursors(Protocol):
    """Where the feeds' positions are kept (daemon/state/ledger.py)."""

    def cursor(self, name: str) -> int: ...

    def has_cursor(self, name: str) -> bool: ...

    def set_cursor(self, name: str, position: int) -> None: ...


class PollFailed(Exception):
    """GitHub could not be read (network, rate limit, 4xx/5xx); the next tick tries again."""


@dataclass(frozen=True, slots=True)
class PollReport:
    published: int  # events put on the bus
    skipped: int  # items that were not Events API events (logged)
    unchanged: int  # feeds GitHub answered 304 Not Modified


def cursor_name(login: str, feed: str) -> str:
    return f"github:{login.lower()}:{feed}"


def _event_id(item: dict[str, Any]) -> int:
    try:
        return int(item.get("id") or 0)
    except (TypeError, ValueError):
        return 0


class GithubPoller:
    """Reads the person's GitHub events and publishes the new ones; one poll at a time."""

    def __init__(
        self,
        *,
        token: str | None,
        api_url: str,
        login: str,
        scope: str,
        cursors: Cursors,
        publish: Publish,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.login = login
        self.scope = scope
        self.cursors = cursors
        self.publish = publish
        # no token: public events only, and GitHub's 60 requests an hour for the address
        self.gh = Github(
            auth=Auth.Token(token) if token else None, base_url=self.api_url, timeout=TIMEOUT_S, retry=None
        )
        self.etags: dict[str, str] = {}
        self._lock = asyncio.Lock()

    async def poll(self) -> PollReport:
        """Publish every event newer than each feed's cursor; PollFailed when GitHub cannot be read."""
        published = skipped = unchanged = 0
        async with self._lock:
            for feed in FEEDS:
                name = cursor_name(self.login, feed)
                since = await asyncio.to_thread(self.cursors.cursor, name)
                read = await asyncio.to_thread(self._read, feed, since)
                if read is None:
                    unchanged += 1
                    continue
                items, etag = read
                newest = since
                for item in sorted(items, key=_event_id):
                    try:
                        event, payload, when = webhook_form(item, self.api_url)
                    except InvalidEvent as exc:
                        log.warning("github poll %s: item %s skipped: %s", feed, item.get("id"), exc)
                        skipped += 1
                        newest = max(newest, _event_id(item))  # it will not read better next time
                        continue
                    event_id = resource_id(event, payload, f"github-event:{item['id']}")
                    # raises when the bus refuses: the cursor stays, the next poll publishes again
                    await self.publish(GITHUB, bus_body(event_id, self.scope, event, payload, when), event_id)
                    published += 1
                    newest = max(newest, _event_id(item))
                if newest > since or not await asyncio.to_thread(self.cursors.has_cursor, name):
                    await asyncio.to_thread(self.cursors.set_cursor, name, newest)
                # only now: an ETag kept before a failed publish would answer 304 for events never sent
                if etag:
                    self.etags[feed] = etag
                log.info("github poll %s: %d new events published (cursor %d)", feed, len(items), newest)
        return PollReport(published, skipped, unchanged)

    def _read(self, feed: str, since: int) -> tuple[list[dict[str, Any]], str | None] | None:
        """The feed's events newer than `since` and its ETag; None when it is unchanged (304)."""
        url = f"/users/{self.login}/{feed}"
        found: list[dict[str, Any]] = []
        etag = None
        for page in range(1, MAX_PAGES + 1):
            headers = {"If-None-Match": self.etags[feed]} if page == 1 and feed in self.etags else {}
            try:
                answer_headers, data = self.gh.requester.requestJsonAndCheck(
                    "GET", url, parameters={"per_page": PER_PAGE, "page": page}, headers=headers
                )
            except (GithubException, OSError, ValueError) as exc:
                raise PollFailed(f"GET {url} page {page}: {exc}") from exc
            if page == 1:
                if data is None:  # 304 Not Modified: nothing new, and it did not cost a request
                    return None
                etag = {k.lower(): v for k, v in answer_headers.items()}.get("etag")
            if not isinstance(data, list):
                raise PollFailed(f"GET {url}: expected a list of events, got {type(data).__name__}")
            events = [d for d in data if isinstance(d, dict)]
            found.extend(e for e in events if _event_id(e) > since)
            if len(data) < PER_PAGE or any(_event_id(e) <= since for e in events):
                break  # the end of the feed, or the cursor reached
        return found, etag
