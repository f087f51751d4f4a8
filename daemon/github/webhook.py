"""The GitHub webhook: verify the signature, normalise, publish to `memubot.in.github`, answer.

`POST /webhooks/github` answers 202 only after JetStream acknowledged the event (with
`Nats-Msg-Id` = `X-GitHub-Delivery`, so a redelivery is a duplicate on the bus and in the
ledger); if the bus refuses, 503, and GitHub's redelivery tries again. The signature is
checked on the raw bytes before anything is parsed. With no secret or no scope configured
the route answers 404 like any unknown path: the webhook is never open.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

from aiohttp import web

from daemon import bounded_json
from daemon.config import Settings
from daemon.errors import InvalidEvent
from daemon.events import MAX_EVENT_BYTES, MAX_ID_CHARS
from daemon.github.reduce import reduce_payload
from daemon.runtime.metrics import Metrics
from daemon.subjects import GITHUB
from daemon.web.http import too_large

log = logging.getLogger(__name__)

PATH = "/webhooks/github"
MAX_BODY = 25 * 1024 * 1024  # GitHub caps a delivery's payload at 25 MB
_CHUNK = 256 * 1024
# the bus event wraps the body in one more object, and must still be within the bus's bound
MAX_BODY_DEPTH = bounded_json.MAX_DEPTH - 1

Publish = Callable[[str, bytes, str], Awaitable[None]]  # (subject, body, Nats-Msg-Id)
Clock = Callable[[], datetime]


def sign(body: bytes, secret: str) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body` under `secret`."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify(body: bytes, header: str | None, secrets: Sequence[str]) -> bool:
    """Whether `header` is the HMAC-SHA256 of `body` under one of `secrets` (constant time).

    Every secret is compared, matched or not, so the time taken does not tell which one matched.
    """
    if not header or not secrets:
        return False
    given = header.strip().encode("ascii", "replace")
    ok = False
    for secret in secrets:
        ok |= hmac.compare_digest(given, sign(body, secret).encode("ascii"))
    return ok


def bus_body(delivery: str, scope: str, event: str, payload: dict[str, Any], received_at: datetime) -> bytes:
    """The event as it goes on the bus; a payload too large for it is reduced, never dropped."""

    def encode(p: dict[str, Any]) -> bytes:
        body = {
            "id": delivery,
            "scope": scope,
            "event": event,
            "action": p.get("action") if isinstance(p.get("action"), str) else None,
            "payload": p,
            "received_at": received_at.isoformat(),
        }
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    data = encode(payload)
    # the texts are cut further until it fits; the structure (who, what, state) always does
    for limit in (4000, 500, 0):
        if len(data) <= MAX_EVENT_BYTES:
            break
        data = encode(reduce_payload(payload, limit))
    return data


class GithubWebhook:
    """The route's handler with its settings, publisher, clock and metrics."""

    def __init__(self, settings: Settings, publish: Publish, clock: Clock, metrics: Metrics) -> None:
        self.settings = settings
        self.publish = publish
        self.clock = clock
        self.metrics = metrics

    def _answer(self, status: int, body: dict[str, Any]) -> web.Response:
        self.metrics.webhook("github", status)
        return web.json_response(body, status=status)

    async def _read(self, request: web.Request) -> bytes | None:
        """The raw body, or None past MAX_BODY (read in chunks: the app's own limit is 1 MiB)."""
        if request.content_length is not None and request.content_length > MAX_BODY:
            return None
        chunks, size = [], 0
        while chunk := await request.content.read(_CHUNK):
            size += len(chunk)
            if size > MAX_BODY:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        off = self.settings.github_webhook_off()
        scope = self.settings.github_webhook_scope
        if off is not None or scope is None:
            self.metrics.webhook("github", 404)
            raise web.HTTPNotFound()  # the same answer as any unknown path
        body = await self._read(request)
        if body is None:
            self.metrics.webhook("github", 413)
            # close the connection: the rest of an oversized body is not worth draining
            raise too_large(MAX_BODY, request.content_length or 0)
        if not verify(body, request.headers.get("X-Hub-Signature-256"), self.settings.github_webhook_secrets):
            log.warning("github webhook: bad or missing signature from %s", request.remote)
            return self._answer(401, {"error": "bad or missing X-Hub-Signature-256"})
        event = request.headers.get("X-GitHub-Event", "").strip()
        delivery = request.headers.get("X-GitHub-Delivery", "").strip()
        if not event:
            return self._answer(400, {"error": "missing X-GitHub-Event header"})
        if not delivery or len(delivery) > MAX_ID_CHARS or not delivery.isprintable():
            return self._answer(400, {"error": "missing or malformed X-GitHub-Delivery header"})
        try:
            payload = bounded_json.load(body, max_bytes=MAX_BODY, max_depth=MAX_BODY_DEPTH, what="body")
        except InvalidEvent as exc:  # not UTF-8, not JSON, or nested too deep: the sender's fault
            return self._answer(400, {"error": str(exc)})
        if not isinstance(payload, dict):
            return self._answer(400, {"error": "body must be a JSON object"})
        if event == "ping":
            log.info("github webhook: ping %s (hook %s)", delivery, payload.get("hook_id"))
            return self._answer(200, {"ok": True})
        data = bus_body(delivery, scope, event, payload, self.clock())
        try:
            await self.publish(GITHUB, data, delivery)
        except Exception as exc:  # the bus is down or refuses: the sender must retry
            log.warning("github webhook: %s %s not published: %s", event, delivery, exc)
            return self._answer(503, {"error": "the event bus did not accept the delivery; retry later"})
        log.info("github webhook: %s %s published (%d bytes)", event, delivery, len(data))
        return self._answer(202, {"id": delivery})


def add_github_webhook(
    app: web.Application, settings: Settings, publish: Publish, clock: Clock, metrics: Metrics
) -> None:
    """Route POST /webhooks/github on `app` (it answers 404 while the webhook is off)."""
    app.router.add_post(PATH, GithubWebhook(settings, publish, clock, metrics).handle)
