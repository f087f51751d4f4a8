"""The Gmail and Pub/Sub APIs through google-api-python-client (blocking: run off the loop).

The discovery documents ship inside google-api-python-client (`static_discovery=True`): nothing
is fetched to build a client. MEMUBOT_GMAIL_API_URL / MEMUBOT_PUBSUB_API_URL replace the API
roots (tests, proxies).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import google_auth_httplib2  # type: ignore[import-untyped]
import httplib2  # type: ignore[import-untyped]
from googleapiclient.discovery import build  # type: ignore[import-untyped]
from googleapiclient.errors import HttpError  # type: ignore[import-untyped]

from daemon.gmail.oauth import CredentialFile

log = logging.getLogger(__name__)

TIMEOUT_S = 60.0
# what history.list reports that memubot reads: new messages (drafts and spam are skipped)
SKIP_LABELS = frozenset({"DRAFT", "SPAM", "TRASH"})


class HistoryGone(Exception):
    """history.list answered 404: the start historyId is too old (about a week); resync."""


@dataclass(frozen=True, slots=True)
class Changes:
    message_ids: list[str]
    history_id: int


def _service(name: str, version: str, creds: CredentialFile, root: str | None) -> Any:
    http = google_auth_httplib2.AuthorizedHttp(creds.fresh(), http=httplib2.Http(timeout=TIMEOUT_S))
    options = {"api_endpoint": root.rstrip("/")} if root else None
    return build(
        name, version, http=http, static_discovery=True, cache_discovery=False, client_options=options
    )


class GmailApi:
    """users.history / messages / watch and Pub/Sub pull / acknowledge for one mailbox ("me")."""

    def __init__(
        self, creds: CredentialFile, gmail_url: str | None = None, pubsub_url: str | None = None
    ) -> None:
        self.creds = creds
        self._gmail_url = gmail_url
        self._pubsub_url = pubsub_url
        self._gmail: Any = None
        self._pubsub: Any = None

    def _call(self, request: Any) -> Any:
        self.creds.fresh()
        try:
            return request.execute(num_retries=2)
        finally:
            self.creds.save_if_changed()  # AuthorizedHttp refreshes on a 401 by itself

    def close(self) -> None:
        """Close the kept-alive connections of both clients."""
        for service in (self._gmail, self._pubsub):
            if service is not None:
                service._http.close()
        self._gmail = self._pubsub = None

    @property
    def gmail(self) -> Any:
        if self._gmail is None:
            self._gmail = _service("gmail", "v1", self.creds, self._gmail_url)
        return self._gmail

    @property
    def pubsub(self) -> Any:
        if self._pubsub is None:
            self._pubsub = _service("pubsub", "v1", self.creds, self._pubsub_url)
        return self._pubsub

    def history(self, start: int, max_pages: int = 50) -> Changes:
        """The messages added since historyId `start`, every page; HistoryGone on 404."""
        ids: list[str] = []
        latest = start
        token: str | None = None
        for _ in range(max_pages):
            request = (
                self.gmail.users()
                .history()
                .list(userId="me", startHistoryId=str(start), historyTypes=["messageAdded"], pageToken=token)
            )
            try:
                page = self._call(request)
            except HttpError as exc:
                if exc.resp.status == 404:
                    raise HistoryGone(str(start)) from exc
                raise
            latest = max(latest, int(page.get("historyId") or latest))
            for h in page.get("history") or []:
                for added in h.get("messagesAdded") or []:
                    msg = added.get("message") or {}
                    if msg.get("id") and not SKIP_LABELS & set(msg.get("labelIds") or []):
                        ids.append(str(msg["id"]))
            token = page.get("nextPageToken")
            if not token:
                break
        return Changes(list(dict.fromkeys(ids)), latest)

    def recent(self, limit: int) -> list[str]:
        """The ids of the `limit` most recent messages (a resync after history is gone)."""
        page = self._call(
            self.gmail.users().messages().list(userId="me", maxResults=limit, includeSpamTrash=False)
        )
        return [str(m["id"]) for m in page.get("messages") or [] if m.get("id")][:limit]

    def message(self, message_id: str) -> dict[str, Any] | None:
        """messages.get (format=full), or None when the message is gone (deleted meanwhile)."""
        try:
            got: dict[str, Any] = self._call(
                self.gmail.users().messages().get(userId="me", id=message_id, format="full")
            )
        except HttpError as exc:
            if exc.resp.status == 404:
                return None
            raise
        return got

    def profile(self) -> dict[str, Any]:
        got: dict[str, Any] = self._call(self.gmail.users().getProfile(userId="me"))
        return got

    def watch(self, topic: str) -> dict[str, Any]:
        """users.watch: notifications to `topic` for a week; returns historyId and expiration."""
        got: dict[str, Any] = self._call(
            self.gmail.users().watch(
                userId="me",
                body={"topicName": topic, "labelIds": ["INBOX", "SENT"], "labelFilterBehavior": "include"},
            )
        )
        return got

    def pull(self, subscription: str, max_messages: int = 20) -> list[dict[str, Any]]:
        page = self._call(
            self.pubsub.projects()
            .subscriptions()
            .pull(subscription=subscription, body={"maxMessages": max_messages})
        )
        return list(page.get("receivedMessages") or [])

    def ack(self, subscription: str, ack_ids: list[str]) -> None:
        if ack_ids:
            self._call(
                self.pubsub.projects()
                .subscriptions()
                .acknowledge(subscription=subscription, body={"ackIds": ack_ids})
            )
