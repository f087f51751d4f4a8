"""The Gmail trigger in a running daemon over a real nats-server: a pulled notification becomes
the mailbox's messages in memory, once, and Pub/Sub is acknowledged."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

from daemon.client import Client
from daemon.config import load_settings
from daemon.state.tables.email import EmailTable
from tests.daemon_harness import daemon_env, running, wait_for
from tests.gmail.test_gmail import credentials
from tests.gmail_fake import serve_fake


async def test_a_pulled_notification_ends_as_stored_emails_and_thread_state(
    tmp_path: Path, nats_url: str
) -> None:
    async with serve_fake() as fake:
        data = base64.b64encode(json.dumps({"emailAddress": "alice@example.com", "historyId": 160}).encode())
        fake.pulls = [[{"ackId": "ack-1", "message": {"messageId": "ps-1", "data": data.decode()}}]]
        env = daemon_env(
            tmp_path,
            nats_url,
            MEMUBOT_GMAIL_SCOPE="alice",
            MEMUBOT_EMAIL_ADDRESSES="alice@example.com",
            MEMUBOT_GMAIL_CREDENTIALS=str(credentials(tmp_path, fake)),
            MEMUBOT_GMAIL_SUBSCRIPTION="projects/p/subscriptions/s",
            MEMUBOT_GMAIL_TOPIC="projects/p/topics/gmail",
            MEMUBOT_GMAIL_API_URL=fake.url,
            MEMUBOT_PUBSUB_API_URL=fake.url,
            MEMUBOT_GMAIL_TOKEN_URL=f"{fake.url}/token",
        )
        settings = load_settings(env)
        async with running(settings):
            await wait_for(lambda: fake.acked == ["ack-1"])
            async with await Client.connect(nats_url) as client:
                # users.watch at start sets the cursor, and the notification reads history from it;
                # or, should the notification come first, with no cursor the recent messages are read
                await wait_for_resources(client, 3)
                await client.flush(timeout=60)
                stats = await client.stats("alice")
                assert stats["resources"] == 3 and stats["daemon"]["dead_letters"] == 0
    from daemon.memory.store import Store

    store = Store(settings.db_path, read_only=True)
    try:
        threads = {t.thread: t for t in EmailTable(store).email_threads("alice")}
        cursor = store.con.execute(
            "SELECT position FROM cursors WHERE name = 'gmail:alice@example.com'"
        ).fetchone()
    finally:
        store.close()
    assert cursor == (160,)
    assert any(p == "/gmail/v1/users/me/watch?alt=json" for _, p, _ in fake.requests)
    assert threads["18e2b"].waiting_on_person and not threads["18e1a"].waiting_on_person
    assert threads["18e1a"].person_promised is not None
    saved = json.loads(Path(settings.gmail_credentials or "").read_text(encoding="utf-8"))
    assert saved["token"] == "fresh-token"


async def wait_for_resources(client: Client, n: int) -> None:
    async with asyncio.timeout(60):
        while (await client.stats())["resources"] < n:  # the whole file: "alice" is unknown at first
            await asyncio.sleep(0.1)
