"""The memory-op outbox: in order, once per op, from a cursor that survives restarts."""

from __future__ import annotations

import json

import pytest

from daemon.memory import Memory
from daemon.runtime.ops_outbox import OpsOutbox
from tests.conftest import turn


class Bus:
    def __init__(self, fail_after: int | None = None) -> None:
        self.sent: list[tuple[str, dict[str, object], str]] = []
        self.fail_after = fail_after

    async def __call__(self, subject: str, body: bytes, msg_id: str) -> None:
        if self.fail_after is not None and len(self.sent) >= self.fail_after:
            raise ConnectionError("bus down")
        self.sent.append((subject, json.loads(body), msg_id))


async def test_ops_made_before_the_daemon_ever_ran_are_not_announced(memory: Memory) -> None:
    memory.memorize([turn("a", "I live in Porto."), turn("b", "I work as a nurse.")])
    bus = Bus()
    outbox = OpsOutbox(memory.ledger, bus)
    start = await outbox.start_cursor()
    assert start == memory.ledger.last_op_seq() > 0
    assert await outbox.pump() == 0
    memory.memorize([turn("c", "My brother Luis plays the drums.")])
    assert await outbox.pump() == 1
    [(subject, body, msg_id)] = bus.sent
    assert subject == "memubot.out.memory.created" and body["scope"] == "alice"
    assert msg_id == f"memory-op:{body['seq']}"
    assert await OpsOutbox(memory.ledger, bus).start_cursor() == body["seq"]  # a restart resumes


async def test_a_failed_publish_keeps_the_cursor_so_nothing_is_lost(memory: Memory) -> None:
    outbox = OpsOutbox(memory.ledger, Bus(fail_after=1))
    await outbox.start_cursor()
    memory.memorize(
        [turn("a", "I live in Porto."), turn("b", "I work as a nurse."), turn("c", "I speak Czech.")]
    )
    with pytest.raises(ConnectionError):
        await outbox.pump()
    retry = Bus()
    assert await OpsOutbox(memory.ledger, retry).pump() == 2  # the two that did not go out
    first = Bus()
    await OpsOutbox(memory.ledger, first).pump()
    assert first.sent == []
    assert [b["seq"] for _, b, _ in retry.sent] == sorted(b["seq"] for _, b, _ in retry.sent)
