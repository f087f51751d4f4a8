"""The RPC handlers on FastStream's in-memory broker (TestNatsBroker): requests, refusals and the
reply envelope, where the bus itself does not matter. No nats-server runs here; the memory is
real. What depends on the bus (exactly one reply per request, unknown verbs answered by the
catch-all subscription, the bus's real payload limit, draining on stop) is tested on a real
nats-server in tests/runtime/test_rpc.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from faststream.nats import NatsBroker, TestNatsBroker
from nats.aio.client import Client as NATS

from daemon.config import load_settings
from daemon.memory import MAX_QUERY_CHARS, Memory
from daemon.runtime.dispatch import Dispatcher
from daemon.runtime.rpc import KEYS, VERBS, RpcServer
from daemon.subjects import rpc_subject
from handlers.deps import Deps
from tests.conftest import FakeClock
from tests.runtime.test_rpc import TURN


@pytest.fixture
async def broker(memory: Memory, tmp_path: Path, clock: FakeClock) -> AsyncIterator[NatsBroker]:
    """The RpcServer's FastStream broker, patched in memory."""
    settings = load_settings({"HOME": str(tmp_path), "MEMUBOT_STATE_DIR": str(tmp_path / "state")})
    dispatcher = Dispatcher(Deps(memory, settings, clock))

    async def flush(timeout: float) -> int:
        return 7

    async def pending() -> tuple[int, int]:
        return 2, 1

    async def after_write() -> None:
        return None

    # a client that never connects: the server reads only its payload limit (1 MiB until a
    # server says otherwise)
    server = RpcServer(NATS(), dispatcher, flush=flush, pending=pending, after_write=after_write)
    async with TestNatsBroker(server.broker) as br:
        yield br


async def ask(broker: NatsBroker, verb: str, body: Any) -> dict[str, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    reply = await broker.request(data, rpc_subject(verb), timeout=30)
    result: dict[str, Any] = json.loads(reply.body)
    return result


async def test_every_verb_refuses_an_unknown_key_by_name(broker: NatsBroker) -> None:
    for verb in VERBS:
        # memorize without `turns` takes the request as one turn, whose keys the turn model checks
        body = {"turns": [TURN], "no_such_key": 1} if verb == "memorize" else {"no_such_key": 1}
        reply = await ask(broker, verb, body)
        assert reply["ok"] is False and reply["error"]["type"] == "invalid_request", (verb, reply)
        message = reply["error"]["message"]
        assert "'no_such_key'" in message and all(key in message for key in KEYS[verb]), (verb, message)


async def test_bodies_that_are_not_a_json_object_get_an_error_reply(broker: NatsBroker) -> None:
    for body, words in [
        (b"{not json", "invalid JSON"),
        (b"[1, 2]", "must be a JSON object, got list"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"scope": ' + b"[" * 100 + b"]" * 100 + b"}", "nested deeper than 64 levels"),
    ]:
        reply = await ask(broker, "stats", body)
        assert reply["ok"] is False and reply["error"]["type"] == "invalid_request", body
        assert words in reply["error"]["message"], (body, reply)


async def test_recall_refusals_name_the_field_and_an_unknown_scope_is_not_found(broker: NatsBroker) -> None:
    assert (await ask(broker, "memorize", {"turns": [TURN]}))["ok"]
    for body, words in [
        ({"query": "dentist"}, "missing required field 'scope'"),
        ({"scope": "alice", "query": "dentist", "k": 0}, "field 'k' must be between 1 and"),
        ({"scope": "alice", "query": "dentist", "k": True}, "field 'k' must be int, got bool"),
        ({"scope": "alice", "query": "q" * (MAX_QUERY_CHARS + 1)}, f"at most {MAX_QUERY_CHARS}"),
    ]:
        reply = await ask(broker, "recall", body)
        assert reply["ok"] is False and reply["error"]["type"] == "invalid_request", (body, reply)
        assert words in reply["error"]["message"], (body, reply)
    missing = await ask(broker, "recall", {"scope": "bob", "query": "dentist"})
    assert missing["error"]["type"] == "not_found" and "'bob'" in missing["error"]["message"]
    found = await ask(broker, "recall", {"scope": "alice", "query": "who is my dentist?", "k": 1})
    assert found["ok"] and "Okafor" in found["result"]["hits"][0]["text"]


async def test_stats_and_flush_answer_from_the_consumer_they_are_given(broker: NatsBroker) -> None:
    assert (await ask(broker, "memorize", {"turns": [TURN]}))["ok"]
    stats = await ask(broker, "stats", {})
    assert (
        stats["ok"]
        and stats["result"]["daemon"]["pending"] == 2
        and stats["result"]["daemon"]["in_flight"] == 1
    )
    assert stats["result"]["daemon"]["handled"] == 1 and stats["result"]["scopes"] == 1
    assert (await ask(broker, "flush", {"timeout": 5}))["result"] == {"position": 7}
    refused = await ask(broker, "flush", {"timeout": 10_000})
    assert refused["ok"] is False and "field 'timeout' must be in" in refused["error"]["message"]


async def test_a_reply_over_the_payload_limit_is_a_too_large_error(
    broker: NatsBroker, memory: Memory
) -> None:
    from datetime import UTC, datetime

    for n in range(700):
        memory.ledger.dead_letter(
            subject="memubot.in.conversation.main",
            reason="x" * 2000,
            payload=b"{}",
            attempts=1,
            at=datetime(2024, 3, 1, tzinfo=UTC),
            event_id=f"big-{n}",
        )
    reply = await ask(broker, "deadletters", {"limit": 1000})
    assert reply["error"]["type"] == "too_large" and "(1048576)" in reply["error"]["message"]
    assert len((await ask(broker, "deadletters", {"limit": 10}))["result"]["dead_letters"]) == 10
