"""POST /webhooks/gmail on the real aiohttp app, publishing to a real nats-server's JetStream.

The OIDC tokens are signed with a locally generated RSA key whose certificate a local
endpoint serves in Google's format ({key id: PEM}); google-auth verifies them for real.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from google.auth import crypt, jwt
from nats.js import JetStreamContext

from daemon.config import Settings, load_settings
from daemon.gmail.push import add_gmail_webhook
from daemon.runtime.metrics import Metrics
from daemon.web.http import make_app, serve_http

AUDIENCE = "https://memubot.example/webhooks/gmail"
ACCOUNT = "gmail-push@project.iam.gserviceaccount.com"
TIMEOUT = aiohttp.ClientTimeout(total=30)


def key_pair() -> tuple[bytes, str]:
    """A fresh RSA key (PEM) and a self-signed certificate for it (PEM), as Google publishes them."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return private, cert.public_bytes(serialization.Encoding.PEM).decode()


GOOD_KEY, GOOD_CERT = key_pair()
OTHER_KEY, _ = key_pair()


def token(key: bytes = GOOD_KEY, **over: Any) -> str:
    now = int(time.time())
    claims = {
        "iss": "https://accounts.google.com",
        "aud": AUDIENCE,
        "email": ACCOUNT,
        "email_verified": True,
        "sub": "1234567890",
        "iat": now,
        "exp": now + 3600,
    } | over
    signer = crypt.RSASigner.from_string(key, key_id="k1")
    return jwt.encode(signer, claims).decode()


def envelope(mid: str, history: int = 130) -> bytes:
    data = base64.b64encode(json.dumps({"emailAddress": "alice@example.com", "historyId": history}).encode())
    return json.dumps(
        {
            "message": {"data": data.decode(), "messageId": mid},
            "subscription": "projects/p/subscriptions/push",
        }
    ).encode()


@pytest.fixture
async def certs_url() -> AsyncIterator[tuple[str, list[int]]]:
    fetched: list[int] = []

    async def certs(request: web.Request) -> web.Response:
        fetched.append(1)
        return web.json_response({"k1": GOOD_CERT}, headers={"Cache-Control": "public, max-age=3600"})

    app = web.Application()
    app.router.add_get("/oauth2/v1/certs", certs)
    async with serve_http(app, "127.0.0.1:0") as (host, port):
        yield f"http://{host}:{port}/oauth2/v1/certs", fetched


class Push:
    def __init__(self, url: str, metrics: Metrics) -> None:
        self.url = url
        self.metrics = metrics

    async def post(self, body: bytes, bearer: str | None = None, query: str = "") -> int:
        headers = {"Content-Type": "application/json"}
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as s,
            s.post(self.url + query, data=body, headers=headers) as r,
        ):
            await r.read()
            return r.status

    def count(self, status: int) -> float:
        value = self.metrics.registry.get_sample_value(
            "memubot_webhook_requests_total", {"source": "gmail", "status": str(status)}
        )
        return value or 0.0


def settings(tmp_path: Path, certs: str, **env: str) -> Settings:
    base = {
        "HOME": str(tmp_path),
        "MEMUBOT_GMAIL_SCOPE": "alice",
        "MEMUBOT_GMAIL_PUSH_AUDIENCE": AUDIENCE,
        "MEMUBOT_GMAIL_PUSH_SERVICE_ACCOUNT": ACCOUNT,
        "MEMUBOT_GMAIL_CERTS_URL": certs,
    }
    return load_settings({k: v for k, v in (base | env).items() if v})


def serve(s: Settings, js: JetStreamContext | None) -> Any:
    metrics = Metrics()
    app = make_app(metrics, lambda: {})

    async def publish(subject: str, body: bytes, msg_id: str) -> None:
        if js is None:
            raise ConnectionError("no JetStream")
        await js.publish(subject, body, headers={"Nats-Msg-Id": msg_id}, timeout=5)

    add_gmail_webhook(app, s, publish, metrics)

    class _Ctx:
        async def __aenter__(self) -> Push:
            self.cm = serve_http(app, "127.0.0.1:0")
            host, port = await self.cm.__aenter__()
            return Push(f"http://{host}:{port}/webhooks/gmail", metrics)

        async def __aexit__(self, *exc: object) -> None:
            await self.cm.__aexit__(None, None, None)

    return _Ctx()


async def test_a_google_signed_push_is_published_once(
    tmp_path: Path, certs_url: tuple[str, list[int]], js: JetStreamContext
) -> None:
    url, fetched = certs_url
    async with serve(settings(tmp_path, url), js) as push:
        assert await push.post(envelope("m-1"), token()) == 202
        assert await push.post(envelope("m-1"), token()) == 202  # Pub/Sub pushes it again
        info = await js.stream_info("MEMUBOT_IN")
        assert info.state.messages == 1  # a duplicate on the bus
        msg = await js.get_last_msg("MEMUBOT_IN", "memubot.in.gmail")
        assert msg.data is not None
        assert json.loads(msg.data) == {
            "id": "m-1",
            "emailAddress": "alice@example.com",
            "historyId": 130,
            "scope": "alice",
        }
        assert len(fetched) == 1 and push.count(202) == 2  # the certificates were fetched once


@pytest.mark.parametrize(
    ("why", "bearer"),
    [
        ("expired", token(iat=int(time.time()) - 7200, exp=int(time.time()) - 3600)),
        ("wrong audience", token(aud="https://elsewhere.example/")),
        ("wrong issuer", token(iss="https://evil.example")),
        ("forged signature", token(OTHER_KEY)),
        ("other service account", token(email="someone@project.iam.gserviceaccount.com")),
        ("unverified e-mail", token(email_verified=False)),
        ("not a token", "abc.def.ghi"),
        ("missing header", None),
    ],
)
async def test_anything_but_a_valid_token_is_401(
    tmp_path: Path, certs_url: tuple[str, list[int]], js: JetStreamContext, why: str, bearer: str | None
) -> None:
    async with serve(settings(tmp_path, certs_url[0]), js) as push:
        assert await push.post(envelope("m-2"), bearer) == 401, why
        info = await js.stream_info("MEMUBOT_IN")
        assert info.state.messages == 0 and push.count(401) == 1


async def test_a_shared_token_verifies_instead(
    tmp_path: Path, certs_url: tuple[str, list[int]], js: JetStreamContext
) -> None:
    s = settings(
        tmp_path, certs_url[0], MEMUBOT_GMAIL_PUSH_AUDIENCE="", MEMUBOT_GMAIL_PUSH_TOKEN="s3cret-token"
    )
    async with serve(s, js) as push:
        assert await push.post(envelope("m-3"), query="?token=s3cret-token") == 202
        assert await push.post(envelope("m-4"), query="?token=wrong") == 401
        assert await push.post(envelope("m-5")) == 401
        assert await push.post(b"{not json", query="?token=s3cret-token") == 400
        assert await push.post(b'{"message": {}}', query="?token=s3cret-token") == 400
        info = await js.stream_info("MEMUBOT_IN")
        assert info.state.messages == 1


async def test_off_is_404_and_a_refusing_bus_is_503(tmp_path: Path, certs_url: tuple[str, list[int]]) -> None:
    async with serve(settings(tmp_path, certs_url[0], MEMUBOT_GMAIL_PUSH_AUDIENCE=""), None) as push:
        assert await push.post(envelope("m-6"), token()) == 404
    async with serve(settings(tmp_path, certs_url[0]), None) as push:
        assert await push.post(envelope("m-7"), token()) == 503
        assert push.count(503) == 1


async def test_deeply_nested_json_is_a_4xx_never_a_500(
    tmp_path: Path, certs_url: tuple[str, list[int]], js: JetStreamContext
) -> None:
    deep = b'{"message": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    s = settings(tmp_path, certs_url[0], MEMUBOT_GMAIL_PUSH_TOKEN="s3cret-token")
    async with serve(s, js) as push:
        # a body from the verified sender: refused as a bad request
        assert await push.post(deep, query="?token=s3cret-token") == 400
        # a token whose header (read before any signature is checked) nests 2,500 levels deep
        head = base64.urlsafe_b64encode(b"[" * 2500 + b"]" * 2500).rstrip(b"=").decode()
        assert await push.post(envelope("m-8"), f"{head}.e30.c2ln") == 401
        assert push.count(400) == 1 and push.count(401) == 1 and push.count(500) == 0
        info = await js.stream_info("MEMUBOT_IN")
        assert info.state.messages == 0
