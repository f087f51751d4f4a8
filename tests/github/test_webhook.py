"""POST /webhooks/github on the real aiohttp app, publishing to a real nats-server's JetStream."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import nats
import pytest
from nats.js import JetStreamContext

from daemon.config import Settings, load_settings
from daemon.errors import ConfigError
from daemon.events import MAX_EVENT_BYTES
from daemon.github.webhook import MAX_BODY, add_github_webhook, sign, verify
from daemon.runtime.metrics import Metrics
from daemon.web.http import make_app, serve_http
from tests.shared_data import shared

TIMEOUT = aiohttp.ClientTimeout(total=60)
NOW = datetime(2026, 3, 3, 8, 0, tzinfo=UTC)
# a recorded delivery (GitHub's review_requested payload), the exact bytes sent
BODY = shared("fixtures", "github", "pull_request", "review_requested.payload.json").read_bytes()


def settings_for(tmp_path: Path, **env: str) -> Settings:
    return load_settings({"HOME": str(tmp_path), **env})


ON = {"MEMUBOT_GITHUB_WEBHOOK_SECRET": "old-secret, new-secret", "MEMUBOT_GITHUB_SCOPE": "alice"}


def headers(body: bytes, secret: str | None = "new-secret", **over: str) -> dict[str, str]:
    h = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": str(uuid.uuid4()),
    }
    if secret is not None:
        h["X-Hub-Signature-256"] = sign(body, secret)
    h.update(over)
    return {k: v for k, v in h.items() if v != ""}


class Hook:
    """The app with the webhook on a free port, and what it published."""

    def __init__(self, url: str, js: JetStreamContext | None, metrics: Metrics) -> None:
        self.url = url
        self.js = js
        self.metrics = metrics

    async def post(self, body: bytes, hdrs: Mapping[str, str]) -> tuple[int, Any]:
        # a large body goes as a stream: aiohttp warns (an error here) about big raw bytes
        data = io.BytesIO(body) if len(body) > 1 << 20 else body
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as s,
            s.post(self.url, data=data, headers=hdrs) as r,
        ):
            return r.status, await r.json() if r.content_type == "application/json" else await r.text()

    async def published(self) -> int:
        assert self.js is not None
        info = await self.js.stream_info("MEMUBOT_IN")
        return int(info.state.messages)

    async def last(self) -> dict[str, Any]:
        assert self.js is not None
        msg = await self.js.get_last_msg("MEMUBOT_IN", "memubot.in.github")
        assert msg.data is not None
        return dict(json.loads(msg.data))

    def count(self, status: int) -> float:
        value = self.metrics.registry.get_sample_value(
            "memubot_webhook_requests_total", {"source": "github", "status": str(status)}
        )
        return value or 0.0


@pytest.fixture
def make_hook(js: JetStreamContext) -> Any:
    def make(settings: Settings, jsc: JetStreamContext | None = js) -> Any:
        metrics = Metrics()
        app = make_app(metrics, lambda: {})

        async def publish(subject: str, body: bytes, msg_id: str) -> None:
            assert jsc is not None
            await jsc.publish(subject, body, headers={"Nats-Msg-Id": msg_id}, timeout=5)

        add_github_webhook(app, settings, publish, lambda: NOW, metrics)

        class _Ctx:
            async def __aenter__(self) -> Hook:
                self.cm = serve_http(app, "127.0.0.1:0")
                host, port = await self.cm.__aenter__()
                return Hook(f"http://{host}:{port}/webhooks/github", jsc, metrics)

            async def __aexit__(self, *exc: object) -> None:
                await self.cm.__aexit__(None, None, None)

        return _Ctx()

    return make


async def test_a_signed_delivery_is_published_once_and_answered_202(tmp_path: Path, make_hook: Any) -> None:
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        h = headers(BODY)
        assert await hook.post(BODY, h) == (202, {"id": h["X-GitHub-Delivery"]})
        assert await hook.published() == 1
        got = await hook.last()
        assert got["id"] == h["X-GitHub-Delivery"] and got["scope"] == "alice"
        assert got["event"] == "pull_request" and got["action"] == "review_requested"
        assert got["payload"] == json.loads(BODY) and got["received_at"] == NOW.isoformat()
        # GitHub's redelivery of the same delivery: accepted, and a duplicate on the bus
        assert (await hook.post(BODY, h))[0] == 202
        assert await hook.published() == 1
        assert hook.count(202) == 2


async def test_secret_rotation_old_and_new_both_verify(tmp_path: Path, make_hook: Any) -> None:
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        assert (await hook.post(BODY, headers(BODY, "old-secret")))[0] == 202
        assert (await hook.post(BODY, headers(BODY, "new-secret")))[0] == 202
        assert (await hook.post(BODY, headers(BODY, "other-secret")))[0] == 401
        assert await hook.published() == 2


async def test_bad_signatures_are_401_and_publish_nothing(tmp_path: Path, make_hook: Any) -> None:
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        tampered = BODY.replace(b"Update the README", b"Update the READMF")
        for body, hdrs in (
            (BODY, headers(BODY, None)),  # unsigned
            (BODY, headers(BODY, "wrong")),
            (tampered, headers(BODY, "new-secret")),  # signed, then changed on the way
            (BODY, headers(BODY, "new-secret") | {"X-Hub-Signature-256": "sha1=" + "0" * 40}),
            (BODY, headers(BODY, "new-secret") | {"X-Hub-Signature-256": "sha256=zz"}),
        ):
            status, answer = await hook.post(body, hdrs)
            assert status == 401 and "X-Hub-Signature-256" in answer["error"]
        assert await hook.published() == 0 and hook.count(401) == 5


async def test_malformed_but_signed_requests_are_400(tmp_path: Path, make_hook: Any) -> None:
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        assert (await hook.post(BODY, headers(BODY, **{"X-GitHub-Event": ""})))[1] == {
            "error": "missing X-GitHub-Event header"
        }
        status, answer = await hook.post(BODY, headers(BODY, **{"X-GitHub-Delivery": ""}))
        assert status == 400 and "X-GitHub-Delivery" in answer["error"]
        for bad in (b"{broken", b"\xff\xfe{}", b"[1, 2]"):
            status, answer = await hook.post(bad, headers(bad))
            assert status == 400, bad
        assert await hook.published() == 0 and hook.count(400) == 5


async def test_ping_is_200_and_not_published(tmp_path: Path, make_hook: Any) -> None:
    ping = shared("fixtures", "github", "ping", "payload.json").read_bytes()
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        assert await hook.post(ping, headers(ping, **{"X-GitHub-Event": "ping"})) == (200, {"ok": True})
        assert await hook.published() == 0


@pytest.mark.parametrize(
    "env",
    [
        {"MEMUBOT_GITHUB_SCOPE": "alice"},  # no secret: never open
        {"MEMUBOT_GITHUB_WEBHOOK_SECRET": "s"},  # a secret but nobody's memory to feed
        {"MEMUBOT_GITHUB_WEBHOOK_SECRET": " , ", "MEMUBOT_PROFILE_SCOPE": "alice"},  # blank is no secret
    ],
)
async def test_off_is_404_like_any_unknown_path(tmp_path: Path, make_hook: Any, env: dict[str, str]) -> None:
    settings = settings_for(tmp_path, **env)
    assert settings.github_webhook_off() is not None
    async with make_hook(settings) as hook:
        status, _ = await hook.post(BODY, headers(BODY, "s"))
        assert status == 404 and await hook.published() == 0


def test_the_scope_defaults_to_the_profile_scope_and_secrets_come_from_a_file(tmp_path: Path) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_text("s3cret-one,s3cret-two\n", encoding="utf-8")
    s = settings_for(
        tmp_path, MEMUBOT_PROFILE_SCOPE="alice", MEMUBOT_GITHUB_WEBHOOK_SECRET_FILE=str(secret_file)
    )
    assert s.github_webhook_scope == "alice" and s.github_webhook_secrets == ("s3cret-one", "s3cret-two")
    assert s.github_webhook_off() is None and "s3cret" not in repr(s)
    own = settings_for(tmp_path, MEMUBOT_PROFILE_SCOPE="alice", MEMUBOT_GITHUB_SCOPE="work")
    assert own.github_webhook_scope == "work"
    with pytest.raises(ConfigError, match="MEMUBOT_GITHUB_WEBHOOK_SECRET_FILE"):
        settings_for(tmp_path, MEMUBOT_GITHUB_WEBHOOK_SECRET_FILE=str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="MEMUBOT_GITHUB_SCOPE"):
        settings_for(tmp_path, MEMUBOT_GITHUB_SCOPE="a.b")
    toml = tmp_path / "memubot.toml"
    toml.write_text('github_scope = "t"\ngithub_login = "octocat"\n', encoding="utf-8")
    from_toml = load_settings({"HOME": str(tmp_path)}, toml)
    assert (from_toml.github_scope, from_toml.github_login) == ("t", "octocat")


def test_verify_is_hmac_sha256_of_the_raw_body() -> None:
    # GitHub's documented example: secret "It's a Secret to Everybody", body "Hello, World!"
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign(b"Hello, World!", "It's a Secret to Everybody") == expected
    assert verify(b"Hello, World!", expected, ["x", "It's a Secret to Everybody"])
    assert not verify(b"Hello, World!", expected, [])
    assert not verify(b"Hello, World!", None, ["It's a Secret to Everybody"])


async def test_a_payload_over_the_bus_limit_is_reduced_not_dropped(tmp_path: Path, make_hook: Any) -> None:
    payload = json.loads(BODY)
    payload["pull_request"]["body"] = "z" * (4 * MAX_EVENT_BYTES)
    big = json.dumps(payload).encode()
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        assert (await hook.post(big, headers(big)))[0] == 202
        got = await hook.last()
        assert got["payload"]["memubot_reduced"] is True
        assert got["payload"]["pull_request"]["requested_reviewers"] == [{"login": "octocat"}]
        assert len(json.dumps(got)) <= MAX_EVENT_BYTES


async def test_25_mb_is_accepted_and_more_is_413(tmp_path: Path, make_hook: Any) -> None:
    payload = json.loads(BODY)
    payload["pull_request"]["body"] = ""
    base = len(json.dumps(payload).encode())
    payload["pull_request"]["body"] = "b" * (MAX_BODY - base)
    at_cap = json.dumps(payload).encode()
    assert len(at_cap) == MAX_BODY
    over = at_cap + b" "
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        assert (await hook.post(at_cap, headers(at_cap)))[0] == 202
        # its own session, closed before the server stops (see test_http's 413 test)
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as sender,
            sender.post(hook.url, data=io.BytesIO(over), headers=headers(over)) as resp,
        ):
            assert resp.status == 413
            # JSON like every other refusal (aiohttp's own 413 is plain text)
            assert resp.content_type == "application/json"
            assert (await resp.json()) == {"error": f"body is too large: more than {MAX_BODY} bytes"}
        assert hook.count(413) == 1 and await hook.published() == 1


async def test_bus_refusing_the_publish_is_503(tmp_path: Path, nats_url: str, make_hook: Any) -> None:
    nc = await nats.connect(nats_url)
    try:
        bare = nc.jetstream()  # a broker without memubot's streams: nobody acknowledges the publish
        await bare.delete_stream("MEMUBOT_IN")
        async with make_hook(settings_for(tmp_path, **ON), bare) as hook:
            status, answer = await hook.post(BODY, headers(BODY))
            assert status == 503 and "retry" in answer["error"]
            assert hook.count(503) == 1
    finally:
        await nc.close()


def _deep_payload(levels: int) -> bytes:
    """A pull_request body whose payload hides `levels` nested arrays (issue 22's 500)."""
    head = json.loads(BODY)
    return (json.dumps(head)[:-1] + ', "x": ' + "[" * levels + "]" * levels + "}").encode()


async def test_a_signed_deeply_nested_body_is_400_with_the_reason_not_500(
    tmp_path: Path, make_hook: Any
) -> None:
    async with make_hook(settings_for(tmp_path, **ON)) as hook:
        for levels in (5000, 900, 63):  # past the parser's limit, within it, just past the bound
            body = _deep_payload(levels)
            status, answer = await hook.post(body, headers(body))
            assert status == 400, (levels, answer)
            assert answer == {"error": "body is nested deeper than 63 levels"}, levels
        assert await hook.published() == 0 and hook.count(400) == 3 and hook.count(500) == 0
        # 63 levels with the body itself: its bus event (one more level) is within the bus's 64
        body = _deep_payload(62)
        status, answer = await hook.post(body, headers(body))
        assert status == 202, answer
        assert await hook.published() == 1
