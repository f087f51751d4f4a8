"""The Gmail push endpoint: verify Pub/Sub's caller, publish the notification, answer.

`POST /webhooks/gmail` takes a Pub/Sub push request. The caller is verified before the body is
parsed: either a shared token in the URL (`?token=`, MEMUBOT_GMAIL_PUSH_TOKEN), or the
Google-signed OIDC token in `Authorization: Bearer` (RS256 against Google's certificates,
fetched from MEMUBOT_GMAIL_CERTS_URL and cached for their max-age; audience
MEMUBOT_GMAIL_PUSH_AUDIENCE; issuer accounts.google.com; the service account
MEMUBOT_GMAIL_PUSH_SERVICE_ACCOUNT with a verified e-mail; not expired). Anything else is 401.
A verified notification is published to `memubot.in.gmail` with `Nats-Msg-Id` = its Pub/Sub
messageId, and only then answered 202 (Pub/Sub's ack); if the bus refuses, 503 and Pub/Sub
pushes it again. With no scope, or neither a token nor an audience configured, 404.
"""

from __future__ import annotations

import base64
import hmac
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web
from google.auth import jwt

from daemon import bounded_json
from daemon.config import Settings
from daemon.errors import InvalidEvent
from daemon.gmail.pull import notification_body
from daemon.runtime.metrics import Metrics
from daemon.subjects import GMAIL
from daemon.web.http import too_large

log = logging.getLogger(__name__)

PATH = "/webhooks/gmail"
MAX_BODY = 64 * 1024  # a push request is a small envelope around a ~100-byte notification
ISSUERS = frozenset({"accounts.google.com", "https://accounts.google.com"})
DEFAULT_MAX_AGE_S = 3600.0
REFETCH_AFTER_S = 60.0  # an unknown key id fetches the certificates again, at most this often
CLOCK_SKEW_S = 10
MAX_HEADER_BYTES = 8 * 1024  # a JWT header names an algorithm and a key id

Publish = Callable[[str, bytes, str], Awaitable[None]]
Fetch = Callable[[str], Awaitable[tuple[dict[str, str], float]]]


async def fetch_certs(url: str) -> tuple[dict[str, str], float]:
    """Google's signing certificates ({key id: PEM}) and for how long they may be cached."""
    timeout = aiohttp.ClientTimeout(total=10)
    async with aiohttp.ClientSession(timeout=timeout) as s, s.get(url) as r:
        r.raise_for_status()
        certs = await r.json(content_type=None)
        match = re.search(r"max-age=(\d+)", r.headers.get("Cache-Control", ""))
    if not isinstance(certs, dict) or not all(isinstance(v, str) for v in certs.values()):
        raise ValueError(f"{url} did not answer a JSON object of certificates")
    return certs, float(match[1]) if match else DEFAULT_MAX_AGE_S


class CertCache:
    """Google's certificates, kept until their max-age; fetched anew for an unknown key id."""

    def __init__(
        self, url: str, fetch: Fetch = fetch_certs, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.url = url
        self._fetch = fetch
        self._now = now
        self._certs: dict[str, str] = {}
        self._until = 0.0
        self._fetched = -REFETCH_AFTER_S
        self.fetches = 0

    async def get(self, kid: str | None) -> dict[str, str]:
        now = self._now()
        stale = now >= self._until
        unknown = kid is not None and kid not in self._certs and now - self._fetched >= REFETCH_AFTER_S
        if stale or unknown:
            self._certs, max_age = await self._fetch(self.url)
            self._fetched = now
            self._until = now + max_age
            self.fetches += 1
        return self._certs


def _header(token: str) -> dict[str, Any]:
    head = token.split(".", 1)[0]
    try:
        # bounded: the header is read before the signature is checked, from anyone
        value = bounded_json.load(
            base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)), max_bytes=MAX_HEADER_BYTES, what="header"
        )
    except (ValueError, InvalidEvent) as exc:
        raise ValueError("malformed token header") from exc
    if not isinstance(value, dict):
        raise ValueError("malformed token header")
    return value


async def verify_oidc(
    token: str, certs: CertCache, audience: str, service_account: str | None
) -> dict[str, Any]:
    """The token's claims if Google signed it for `audience` (and `service_account`); ValueError if not."""
    header = _header(token)
    if header.get("alg") != "RS256":
        raise ValueError(f"algorithm {header.get('alg')!r} is not RS256")
    kid = header.get("kid")
    keys = await certs.get(kid if isinstance(kid, str) else None)
    try:
        claims: dict[str, Any] = jwt.decode(  # type: ignore[no-untyped-call]
            token, certs=keys, audience=audience, clock_skew_in_seconds=CLOCK_SKEW_S
        )
    except Exception as exc:  # google-auth raises ValueError subclasses, and others for broken input
        raise ValueError(str(exc)) from exc
    if claims.get("iss") not in ISSUERS:
        raise ValueError(f"issuer {claims.get('iss')!r} is not Google")
    if service_account is not None and (
        claims.get("email") != service_account or claims.get("email_verified") is not True
    ):
        raise ValueError(f"signed for {claims.get('email')!r}, not the configured service account")
    return claims


class GmailWebhook:
    """The route's handler with its settings, publisher, certificate cache and metrics."""

    def __init__(
        self, settings: Settings, publish: Publish, metrics: Metrics, certs: CertCache | None = None
    ) -> None:
        self.settings = settings
        self.publish = publish
        self.metrics = metrics
        self.certs = certs or CertCache(settings.gmail_certs_url)

    def _answer(self, status: int, body: dict[str, Any]) -> web.Response:
        self.metrics.webhook("gmail", status)
        return web.json_response(body, status=status)

    async def _verified(self, request: web.Request) -> str | None:
        """None when the caller is verified, else why not (for the log, never the answer)."""
        s = self.settings
        given = request.query.get("token")
        if s.gmail_push_token and given is not None:
            ok = hmac.compare_digest(given.encode(), s.gmail_push_token.encode())
            return None if ok else "wrong token"
        if not s.gmail_push_audience:
            return "no token"
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or not auth[7:].strip():
            return "no bearer token"
        try:
            await verify_oidc(
                auth[7:].strip(), self.certs, s.gmail_push_audience, s.gmail_push_service_account
            )
        except ValueError as exc:
            return str(exc)
        except Exception as exc:  # the certificates could not be fetched: not verified
            return f"cannot verify: {type(exc).__name__}: {exc}"
        return None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        s = self.settings
        if not s.email_scope or not (s.gmail_push_token or s.gmail_push_audience):
            self.metrics.webhook("gmail", 404)
            raise web.HTTPNotFound()
        why = await self._verified(request)
        if why is not None:
            log.warning("gmail push from %s refused: %s", request.remote, why)
            return self._answer(401, {"error": "unauthenticated"})
        if request.content_length is not None and request.content_length > MAX_BODY:
            self.metrics.webhook("gmail", 413)
            raise too_large(MAX_BODY, request.content_length)
        body = await request.content.read(MAX_BODY + 1)
        if len(body) > MAX_BODY:
            self.metrics.webhook("gmail", 413)
            raise too_large(MAX_BODY, len(body))
        try:
            envelope = bounded_json.load(body, max_bytes=MAX_BODY, what="body")
        except InvalidEvent as exc:  # not UTF-8, not JSON, or nested too deep
            return self._answer(400, {"error": str(exc)})
        message = envelope.get("message") if isinstance(envelope, dict) else None
        mid = message.get("messageId") or message.get("message_id") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not isinstance(mid, str) or not mid.strip():
            return self._answer(400, {"error": "not a Pub/Sub push request (no message.messageId)"})
        data = notification_body(mid, message.get("data"), s.email_scope)
        try:
            await self.publish(GMAIL, data, mid)
        except Exception as exc:  # the bus is down or refuses: Pub/Sub must push again
            log.warning("gmail push %s not published: %s", mid, exc)
            return self._answer(503, {"error": "the event bus did not accept the notification; retry later"})
        log.info("gmail push %s published", mid)
        return self._answer(202, {"id": mid})


def add_gmail_webhook(
    app: web.Application, settings: Settings, publish: Publish, metrics: Metrics
) -> GmailWebhook:
    """Route POST /webhooks/gmail on `app` (it answers 404 while push is off)."""
    hook = GmailWebhook(settings, publish, metrics)
    app.router.add_post(PATH, hook.handle)
    return hook
