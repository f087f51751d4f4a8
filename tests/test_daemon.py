"""The whole daemon in-process against a real nats-server: bus in, RPC, memory ops out, HTTP."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import nats
import pytest

from daemon.app import runtime_file, serve
from daemon.client import Client, RpcError
from daemon.config import Settings, load_settings
from daemon.subjects import scoped_subject
from tests.daemon_harness import daemon_env, running, wait_for


@dataclass
class Running:
    settings: Settings
    client: Client
    info: dict[str, Any]


@pytest.fixture
async def daemon(tmp_path: Path, nats_url: str) -> AsyncIterator[Running]:
    settings = load_settings(daemon_env(tmp_path, nats_url))
    async with running(settings) as info:
        assert info["nats_url"] == nats_url and not info["embedded_broker"]
        client = await Client.connect(nats_url)
        yield Running(settings, client, info)
        await client.close()
    assert not runtime_file(settings).exists()


def turn(i: int, text: str, scope: str = "alice") -> dict[str, Any]:
    return {
        "id": f"d{i}",
        "scope": scope,
        "agent": "main",
        "session": "s1",
        "role": "user",
        "speaker": "Alice",
        "text": text,
        "ts": f"2024-05-0{1 + i % 9}T10:00:00+02:00",
    }


async def test_published_turns_are_stored_once_and_recallable(daemon: Running) -> None:
    c = daemon.client
    texts = [
        "I adopted a grey cat called Miso last spring.",
        "My sister Jana lives in Brno.",
        "I'm allergic to peanuts.",
    ]
    for i, text in enumerate(texts):
        t = turn(i, text)
        await c.publish_turn(t["text"], scope="alice", id=t["id"], session="s1", speaker="Alice", ts=t["ts"])
    # a publisher retry (same Nats-Msg-Id) and a later redelivery with a new message id
    await c.publish("memubot.in.conversation.main", turn(0, texts[0]))
    await c.js.publish("memubot.in.conversation.main", json.dumps(turn(1, texts[1])).encode())
    await c.flush(timeout=60)
    stats = await c.stats("alice")
    assert stats["resources"] == 3
    assert stats["daemon"]["pending"] == 0 and stats["daemon"]["dead_letters"] == 0
    hits = await c.recall("what is my cat's name?", scope="alice", k=3)
    assert hits and "Miso" in hits[0]["text"] and hits[0]["source_ids"] == ["d0"]


async def test_malformed_events_are_dead_lettered_and_the_daemon_keeps_going(daemon: Running) -> None:
    c = daemon.client
    await c.js.publish("memubot.in.conversation.main", b"{broken")
    await c.js.publish("memubot.in.conversation.main", json.dumps({"id": "x1", "scope": "alice"}).encode())
    await c.js.publish("memubot.in.nobody", b"{}")
    await c.publish_turn("I run every Tuesday evening with my club.", scope="alice", id="ok1")
    await c.flush()
    listed = await c.request("deadletters", {"action": "list"})
    reasons = sorted(d["reason"] for d in listed["dead_letters"])
    assert len(reasons) == 3
    assert any("invalid JSON" in r for r in reasons)
    assert any("missing required field 'role'" in r for r in reasons)
    assert any("no handler for subject 'memubot.in.nobody'" in r for r in reasons)
    assert (await c.stats("alice"))["resources"] == 1
    with pytest.raises(RpcError, match="not_found"):
        await c.request("deadletters", {"action": "replay", "id": 999})


async def test_a_one_node_daemon_takes_the_scoped_subjects_too(daemon: Running) -> None:
    """Issue 25's scoped subjects on one node (no partitions): stored as the same turn on the old
    subject would be, once however it comes; a body of another scope is a dead letter."""
    c = daemon.client
    await c.publish_turn("I keep bees on the roof of the office.", scope="alice", id="sc1", scoped=True)
    # the same turn again on the old subject, past the server's duplicate window (no Nats-Msg-Id)
    again = turn(1, "I keep bees on the roof of the office.") | {"id": "sc1"}
    await c.js.publish("memubot.in.conversation.main", json.dumps(again).encode())
    await c.publish(
        scoped_subject("alice", "memubot.in.conversation.main"), turn(2, "My bike is a blue Brompton.")
    )
    await c.publish(scoped_subject("bob", "memubot.in.conversation.main"), turn(3, "Not Bob's turn at all."))
    await c.flush()
    stats = await c.stats("alice")
    assert stats["resources"] == 2 and stats["daemon"]["dead_letters"] == 1
    [dead] = (await c.request("deadletters", {"action": "list"}))["dead_letters"]
    assert "the subject names scope 'bob' and the body scope 'alice'" in dead["reason"]
    assert dead["subject"] == "memubot.in.scoped.bob.conversation.main"
    hits = await c.recall("where are the bees?", scope="alice", k=3)
    assert hits and hits[0]["source_ids"] == ["sc1"]


async def test_rpc_errors_are_replies_never_silence(daemon: Running) -> None:
    nc = daemon.client.nc
    for verb, data, kind in [
        ("recall", b"not json", "invalid_request"),
        ("recall", b"[]", "invalid_request"),
        ("recall", json.dumps({"query": "x"}).encode(), "invalid_request"),  # no scope: never all users
        ("recall", json.dumps({"scope": "a", "query": "x", "k": "ten"}).encode(), "invalid_request"),
        ("forget", json.dumps({"scope": "a"}).encode(), "invalid_request"),
        ("flush", json.dumps({"timeout": -1}).encode(), "invalid_request"),
        ("deadletters", json.dumps({"action": "explode"}).encode(), "invalid_request"),
    ]:
        reply = json.loads((await nc.request(f"memubot.rpc.{verb}", data, timeout=10)).data)
        assert reply["ok"] is False and reply["error"]["type"] == kind, (verb, data, reply)
        assert reply["error"]["message"]


async def test_memorize_rpc_forget_and_memory_ops_on_the_bus(daemon: Running) -> None:
    c = daemon.client
    ops: list[dict[str, Any]] = []
    sub = await c.nc.subscribe("memubot.out.memory.>", cb=functools.partial(_collect, ops))
    results = await c.memorize([turn(5, "My locker code at the gym is 4412.")])
    assert results[0]["outcome"] == "stored"
    again = await c.memorize([turn(5, "My locker code at the gym is 4412.")])
    assert again[0]["outcome"] == "duplicate"
    forgotten = await c.forget(scope="alice", query="locker code")
    assert forgotten["deleted"]["resources"] == 1
    await c.flush()
    await wait_for(lambda: {"created", "forgotten"} <= {o["op"] for o in ops}, timeout=10)
    await sub.unsubscribe()
    # redelivering a forgotten turn through the stream stores nothing
    await c.js.publish(
        "memubot.in.conversation.main", json.dumps(turn(5, "My locker code at the gym is 4412.")).encode()
    )
    await c.flush()
    assert (await c.stats())["resources"] == 0  # the whole file: nothing came back


async def _collect(into: list[dict[str, Any]], msg: Any) -> None:
    into.append(json.loads(msg.data))


async def test_http_health_ready_and_metrics(daemon: Running) -> None:
    await daemon.client.publish_turn("I take the 7:40 train to work.", scope="alice", id="h1")
    await daemon.client.flush()
    base = daemon.info["http"]
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as r:
            assert r.status == 200
        async with http.get(f"{base}/readyz") as r:
            body = await r.json()
            assert r.status == 200 and body["ready"] and all(body["checks"].values())
        # beside the checks, how far behind the consumer is (refreshed every few seconds)
        async with asyncio.timeout(30):
            while not body.get("backlog") or body["backlog"]["unhandled"]:
                await asyncio.sleep(0.2)
                async with http.get(f"{base}/readyz") as r:
                    body = await r.json()
        assert body["backlog"] == {
            "unhandled": 0,
            "oldest_unhandled_age_s": 0.0,
            "since_progress_s": 0.0,
            "stalled": False,
        }
        async with http.get(f"{base}/metrics") as r:
            text = await r.text()
        assert 'memubot_events_total{kind="conversation",outcome="stored"} 1.0' in text
        async with asyncio.timeout(30):  # store sizes are refreshed off the event loop every few seconds
            while 'memubot_store_rows{table="resources"} 1.0' not in text:
                await asyncio.sleep(0.2)
                async with http.get(f"{base}/metrics") as r:
                    text = await r.text()
    assert 'memubot_store_rows{table="dead_letters"} 0.0' in text
    assert "memubot_oldest_unhandled_event_age_seconds 0.0" in text
    assert "memubot_unhandled_events 0.0" in text


async def test_no_daemon_means_a_clear_error(nats_url: str) -> None:
    client = await Client.connect(nats_url)
    try:
        with pytest.raises(RpcError, match="unavailable"):
            await client.stats()
    finally:
        await client.close()


async def test_the_embedded_broker_starts_when_no_server_answers(tmp_path: Path) -> None:
    settings = load_settings(daemon_env(tmp_path, "nats://127.0.0.1:1"))
    async with running(settings) as info:
        assert info["embedded_broker"] and (tmp_path / "state" / "nats" / "jetstream").is_dir()
        nc = await nats.connect(info["nats_url"])
        reply = json.loads((await nc.request("memubot.rpc.stats", b"{}", timeout=10)).data)
        await nc.close()
        assert reply["ok"] and reply["result"]["resources"] == 0


async def test_systemd_hears_ready_watchdog_and_stopping(tmp_path: Path, nats_url: str) -> None:
    import socket

    sock_path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(sock_path))
    sock.setblocking(False)
    settings = load_settings(
        {
            "HOME": str(tmp_path),
            "MEMUBOT_STATE_DIR": str(tmp_path / "state"),
            "MEMUBOT_NATS_URL": nats_url,
            "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
            "NOTIFY_SOCKET": str(sock_path),
            "WATCHDOG_USEC": "400000",
        }
    )
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop))
    loop = asyncio.get_running_loop()
    heard: list[str] = []

    async def until(prefix: str) -> None:
        async with asyncio.timeout(60):
            while not any(m.startswith(prefix) for m in heard):
                heard.append((await loop.sock_recv(sock, 4096)).decode())

    try:
        await until("READY=1")
        assert "STATUS=ready" in next(m for m in heard if m.startswith("READY=1"))
        await until("WATCHDOG=1")
        stop.set()
        await until("STOPPING=1")
        assert await asyncio.wait_for(task, 60) == 0
    finally:
        stop.set()
        sock.close()


async def test_an_unknown_scope_is_an_error_not_an_empty_answer(daemon: Running) -> None:
    c = daemon.client
    for call in (
        c.recall("anything", scope="nobody"),
        c.stats("nobody"),
        c.forget(scope="nobody", query="x"),
    ):
        with pytest.raises(RpcError, match="not_found: no memories in scope 'nobody'"):
            await call


async def test_a_first_start_publishes_no_ticks_for_before_memubot_ran(daemon: Running) -> None:
    # an empty state dir: every schedule has a fire time within its grace (the heartbeat always
    # does), but none after the moment memubot first ran here
    await daemon.client.flush()  # everything published at start is handled
    assert (await daemon.client.stats())["daemon"]["handled"] == 0
