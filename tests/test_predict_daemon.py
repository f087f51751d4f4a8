"""End to end over a real nats-server: a turn published → context at once, and a suggestion
received by a subscriber at the right (injected) time."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import nats
import pytest

from daemon.client import Client
from daemon.config import Settings, load_settings
from daemon.events import tick_body
from tests.conftest import FakeClock
from tests.daemon_harness import daemon_env, wait_for
from tests.daemon_harness import running as daemon_running

BERLIN = ZoneInfo("Europe/Berlin")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=BERLIN)


@pytest.fixture
async def running(tmp_path: Path, nats_url: str) -> AsyncIterator[tuple[Settings, FakeClock, Client]]:
    settings = load_settings(daemon_env(tmp_path, nats_url, MEMUBOT_TIMEZONE="Europe/Berlin"))
    clock = FakeClock(at("2026-03-02 15:10"))
    async with daemon_running(settings, clock=clock):
        client = await Client.connect(nats_url)
        yield settings, clock, client
        await client.close()


async def test_a_turn_brings_context_at_once_and_a_reminder_at_its_time(
    running: tuple[Settings, FakeClock, Client], nats_url: str
) -> None:
    settings, clock, client = running
    got: dict[str, list[dict[str, Any]]] = {"context": [], "suggestion": []}
    nc = await nats.connect(nats_url)

    async def collect(msg: Any) -> None:
        got["context" if ".context." in msg.subject else "suggestion"].append(json.loads(msg.data))

    await nc.subscribe("memubot.out.context.s1", cb=collect)
    await nc.subscribe("memubot.out.suggestion.alice", cb=collect)
    await client.publish_turn(
        "Whenever you make slides for me, always use a dark theme.",
        scope="alice",
        session="s1",
        id="t1",
        ts=clock.now,
    )
    await client.flush()
    await client.publish_turn(
        "Next Monday at 10:00 I have the board demo, I will show the new slides.",
        scope="alice",
        session="s1",
        id="t2",
        ts=clock.now,
    )
    await client.flush()
    await wait_for(lambda: len(got["context"]) == 2)
    first, second = got["context"]
    assert (first["turn_id"], second["turn_id"]) == ("t1", "t2") and second["session"] == "s1"
    # the second turn's context holds what the first one said: the agent has it before it asks
    assert any("dark theme" in m["text"] for m in second["memories"])
    assert got["suggestion"] == []  # nothing is due yet
    # a week later, 08:00 on the day (two hours before 10:00): the heartbeat re-arms the timer
    clock.now = at("2026-03-09 08:00")
    when = at("2026-03-09 08:00")
    await client.publish("memubot.in.tick.heartbeat", tick_body("heartbeat", when))
    await wait_for(lambda: len(got["suggestion"]) == 1)
    [s] = got["suggestion"]
    assert s["kind"] == "reminder" and s["deliver_at"] == "2026-03-09T08:00:00+01:00"
    assert "demo" in s["title"] and "dark theme" in s["body"] and set(s["source_ids"]) == {"t1", "t2"}
    # an agent that was offline catches up from the stream, once
    seen = []
    async for sug in client.suggestions("alice", durable="agent-1"):
        seen.append(sug["id"])
        break
    assert seen == [s["id"]]
    await nc.close()
    assert settings.quiet_hours == ("22:00", "07:00")
