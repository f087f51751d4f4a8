"""The shared GitHub fixtures, signed, posted to the real app of a running daemon over a real
nats-server: every one accepted and stored once, again stored nothing, a wrong signature 401."""

from __future__ import annotations

import io
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from daemon.client import Client
from daemon.config import load_settings
from daemon.github.webhook import sign
from tests.daemon_harness import daemon_env, running
from tests.github_fixtures import fixture_files

SECRET = "fixture-secret"
TIMEOUT = aiohttp.ClientTimeout(total=60)


@pytest.fixture
async def daemon(tmp_path: Path, nats_url: str) -> AsyncIterator[tuple[Client, str]]:
    env = daemon_env(
        tmp_path,
        nats_url,
        MEMUBOT_GITHUB_WEBHOOK_SECRET=SECRET,
        MEMUBOT_GITHUB_SCOPE="alice",
        MEMUBOT_GITHUB_LOGIN="octocat",
    )
    async with running(load_settings(env)) as info:
        client = await Client.connect(nats_url)
        yield client, info["http"] + "/webhooks/github"
        await client.close()


async def post(
    session: aiohttp.ClientSession, url: str, event: str, delivery: str, body: bytes, secret: str
) -> int:
    hdrs = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": sign(body, secret),
    }
    async with session.post(url, data=io.BytesIO(body), headers=hdrs) as resp:
        return resp.status


async def test_every_fixture_is_stored_once_and_forgeries_are_refused(daemon: tuple[Client, str]) -> None:
    client, url = daemon
    files = fixture_files()
    assert len(files) == 72  # the README of the fixtures counts 72
    deliveries = [(event, str(uuid.uuid4()), path.read_bytes()) for event, path in files]
    pings = sum(1 for event, _, _ in deliveries if event == "ping")
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        for event, delivery, body in deliveries:
            status = await post(session, url, event, delivery, body, SECRET)
            assert status == (200 if event == "ping" else 202), (event, status)
        await client.flush(timeout=120)
        stats = await client.stats("alice")
        assert stats["resources"] == len(deliveries) - pings  # a ping is answered, not remembered
        assert stats["daemon"]["dead_letters"] == 0 and stats["daemon"]["pending"] == 0
        handled = stats["daemon"]["handled"]
        # GitHub redelivers every one: accepted again, stored nothing
        for event, delivery, body in deliveries:
            assert await post(session, url, event, delivery, body, SECRET) == (
                200 if event == "ping" else 202
            )
        await client.flush(timeout=120)
        again = await client.stats("alice")
        assert again["resources"] == stats["resources"] and again["daemon"]["dead_letters"] == 0
        assert again["daemon"]["handled"] == handled  # the bus dropped them as duplicates
        # the same bodies signed with a wrong secret: every one refused, nothing new
        for event, _, body in deliveries:
            assert await post(session, url, event, str(uuid.uuid4()), body, "not-the-secret") == 401
        await client.flush(timeout=120)
        assert (await client.stats("alice"))["resources"] == stats["resources"]
        async with session.get(url.replace("/webhooks/github", "/metrics")) as resp:
            text = await resp.text()
    assert f'memubot_webhook_requests_total{{source="github",status="401"}} {float(len(deliveries))}' in text
    assert 'memubot_events_total{kind="github",outcome="stored"}' in text
