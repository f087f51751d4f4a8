"""The shared GitHub fixtures, signed, posted to the real app of a running daemon over a real
nats-server: every one accepted and stored once, again stored nothing, a wrong signature 401."""

from __future__ import annotations

import asyncio
import io
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from daemon.app import runtime_file, serve
from daemon.client import Client, runtime_info
from daemon.config import load_settings
from daemon.webhook_github import sign
from tests.github_fixtures import fixture_files

SECRET = "fixture-secret"
TIMEOUT = aiohttp.ClientTimeout(total=60)


async def wait_for(predicate: Any, timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)


@pytest.fixture
async def daemon(tmp_path: Path, nats_url: str) -> AsyncIterator[tuple[Client, str]]:
    settings = load_settings(
        {
            "HOME": str(tmp_path),
            "MEMUBOT_STATE_DIR": str(tmp_path / "state"),
            "MEMUBOT_NATS_URL": nats_url,
            "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
            "MEMUBOT_GITHUB_WEBHOOK_SECRET": SECRET,
            "MEMUBOT_GITHUB_SCOPE": "alice",
            "MEMUBOT_GITHUB_LOGIN": "octocat",
        }
    )
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop))
    await wait_for(lambda: runtime_file(settings).exists() or task.done())
    assert not task.done(), task.result()
    info = runtime_info(settings.state_dir)
    assert info is not None
    client = await Client.connect(nats_url)
    yield client, info["http"] + "/webhooks/github"
    await client.close()
    stop.set()
    assert await asyncio.wait_for(task, 60) == 0


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
