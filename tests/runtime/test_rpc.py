"""The RPC server on a real nats-server over a real Memory: one reply per request, whatever is sent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client as NATS

from daemon.config import load_settings
from daemon.memory import MAX_QUERY_CHARS, Memory
from daemon.runtime.dispatch import Dispatcher
from daemon.runtime.rpc import VERBS, RpcServer
from handlers.deps import Deps
from tests.conftest import FakeClock


@pytest.fixture
async def rpc(memory: Memory, tmp_path: Path, clock: FakeClock, nats_url: str) -> AsyncIterator[NATS]:
    """An RpcServer answering on a real broker; returns a plain NATS connection to ask it."""
    settings = load_settings({"HOME": str(tmp_path), "MEMUBOT_STATE_DIR": str(tmp_path / "state")})
    dispatcher = Dispatcher(Deps(memory, settings, clock))

    async def flush(timeout: float) -> int:
        return 0

    async def pending() -> tuple[int, int]:
        return 0, 0

    async def after_write() -> None:
        return None

    server_nc = await nats.connect(nats_url)
    server = RpcServer(server_nc, dispatcher, flush=flush, pending=pending, after_write=after_write)
    await server.start()
    nc = await nats.connect(nats_url)
    yield nc
    await nc.close()
    await server.stop()
    await server_nc.close()


async def ask(nc: NATS, subject: str, body: Any) -> list[dict[str, Any]]:
    """Every reply to one request (a private inbox collects them all, not only the first)."""
    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox)
    await nc.publish(subject, json.dumps(body).encode(), reply=inbox)
    replies = [json.loads((await sub.next_msg(timeout=30)).data)]
    # a ping round trip through the server: any second reply would have arrived before the pong
    await nc.flush(timeout=10)
    while sub.pending_msgs:
        replies.append(json.loads((await sub.next_msg(timeout=1)).data))
    await sub.unsubscribe()
    return replies


TURN = {
    "id": "r1",
    "scope": "alice",
    "role": "user",
    "speaker": "Alice",
    "text": "My dentist is Dr. Okafor on Elm Street.",
    "ts": "2024-02-01T09:00:00+00:00",
}


async def test_an_unknown_verb_gets_one_invalid_request_reply_naming_the_verbs(rpc: NATS) -> None:
    for subject in ("memubot.rpc.recal", "memubot.rpc.recall.extra", "memubot.rpc.x" + "y" * 300):
        [reply] = await ask(rpc, subject, {})
        assert reply["ok"] is False and reply["error"]["type"] == "invalid_request", subject
        message = reply["error"]["message"]
        assert "unknown verb" in message and all(verb in message for verb in VERBS)
        assert len(message) < 400  # a long verb is not quoted back whole


async def test_known_verbs_still_get_exactly_one_reply(rpc: NATS) -> None:
    [stored] = await ask(rpc, "memubot.rpc.memorize", {"turns": [TURN]})
    assert stored["ok"] and stored["result"]["results"][0]["outcome"] == "stored"
    for verb, body in [
        ("recall", {"scope": "alice", "query": "who is my dentist?"}),
        ("stats", {}),
        ("flush", {}),
        ("deadletters", {}),
        ("forget", {"scope": "alice", "query": "nothing like this", "dry_run": True}),
    ]:
        replies = await ask(rpc, f"memubot.rpc.{verb}", body)
        assert len(replies) == 1 and replies[0]["ok"], (verb, replies)


async def test_unknown_request_keys_are_refused_by_name(rpc: NATS) -> None:
    await ask(rpc, "memubot.rpc.memorize", {"turns": [TURN]})
    for verb, body, key in [
        ("recall", {"scope": "alice", "query": "dentist", "explian": True}, "'explian'"),
        ("stats", {"scopes": "alice"}, "'scopes'"),
        ("forget", {"scope": "alice", "query": "dentist", "dryrun": True}, "'dryrun'"),
        ("flush", {"timeout": 5, "wait": 1}, "'wait'"),
        ("deadletters", {"action": "list", "limt": 3}, "'limt'"),
        ("memorize", {"turns": [TURN], "async": True}, "'async'"),
    ]:
        [reply] = await ask(rpc, f"memubot.rpc.{verb}", body)
        assert reply["ok"] is False and reply["error"]["type"] == "invalid_request", (verb, reply)
        assert key in reply["error"]["message"] and "known:" in reply["error"]["message"]
    # the dry run above was refused, not run without its flag: the memory is whole
    [stats] = await ask(rpc, "memubot.rpc.stats", {"scope": "alice"})
    assert stats["result"]["resources"] == 1


async def test_a_retired_item_is_shown_by_explain_and_restored_over_rpc(rpc: NATS, memory: Memory) -> None:
    [stored] = await ask(rpc, "memubot.rpc.memorize", {"turns": [TURN]})
    assert stored["ok"]
    [old] = memory.items("alice")
    new_id = await asyncio.to_thread(
        memory.correct, "alice", old["id"], "My dentist is Dr. Varga on Quay Road."
    )
    [reply] = await ask(
        rpc, "memubot.rpc.recall", {"scope": "alice", "query": "who is my dentist?", "explain": True}
    )
    [retired] = reply["result"]["retired"]
    assert retired["item_id"] == old["id"] and retired["retired_by"]["item_id"] == new_id
    assert "Varga" in retired["retired_by"]["text"] and retired["retired_at"]
    [plain] = await ask(rpc, "memubot.rpc.recall", {"scope": "alice", "query": "who is my dentist?"})
    assert "retired" not in plain["result"]
    [done] = await ask(rpc, "memubot.rpc.restore", {"scope": "alice", "item": old["id"]})
    assert done["ok"] and done["result"] == {"scope": "alice", "restored": old["id"]}
    [back] = await ask(rpc, "memubot.rpc.recall", {"scope": "alice", "query": "Okafor Elm Street", "k": 3})
    assert any(h["item_id"] == old["id"] for h in back["result"]["hits"])
    [again] = await ask(rpc, "memubot.rpc.restore", {"scope": "alice", "item": old["id"]})
    assert again["ok"] is False and again["error"]["type"] == "not_found"
    [bad] = await ask(rpc, "memubot.rpc.restore", {"scope": "alice"})
    assert bad["ok"] is False and "'item'" in bad["error"]["message"]


async def test_an_oversized_query_is_refused_and_not_echoed(rpc: NATS) -> None:
    await ask(rpc, "memubot.rpc.memorize", {"turns": [TURN]})
    query = "dentist " * (500_000 // 8)
    [reply] = await ask(rpc, "memubot.rpc.recall", {"scope": "alice", "query": query})
    assert reply["ok"] is False and reply["error"]["type"] == "invalid_request"
    assert f"at most {MAX_QUERY_CHARS}" in reply["error"]["message"]
    assert "dentist" not in reply["error"]["message"]
    [ok] = await ask(rpc, "memubot.rpc.recall", {"scope": "alice", "query": "who is my dentist?"})
    assert ok["ok"] and "query" not in ok["result"] and "Okafor" in ok["result"]["hits"][0]["text"]


async def test_an_error_quoting_a_huge_value_is_cut(rpc: NATS) -> None:
    await ask(rpc, "memubot.rpc.memorize", {"turns": [TURN]})
    [reply] = await ask(rpc, "memubot.rpc.recall", {"scope": "alice", "query": "x", "ts": "9" * 200_000})
    assert reply["ok"] is False and reply["error"]["type"] == "invalid_request"
    assert "not ISO-8601" in reply["error"]["message"] and len(reply["error"]["message"]) < 1100


async def test_memorize_refuses_an_empty_turn_with_a_reason(rpc: NATS) -> None:
    [reply] = await ask(rpc, "memubot.rpc.memorize", {"turns": [{**TURN, "text": "  \n"}]})
    [result] = reply["result"]["results"]
    assert result["outcome"] == "dead_letter" and result["id"] == "r1"
    assert "field 'text' is empty" in result["reason"]


async def test_a_refused_turn_sent_again_keeps_its_one_dead_letter(rpc: NATS, memory: Memory) -> None:
    # MCP's `remember` retried with a text too long: the same id, refused for the same reason
    too_long = {**TURN, "id": "long-1", "text": "x" * 70_000}
    first, again = [
        (await ask(rpc, "memubot.rpc.memorize", {"turns": [{**too_long, "ts": ts}]}))[0]["result"]["results"][
            0
        ]
        for ts in ("2024-02-01T09:00:00+00:00", "2024-02-01T09:05:00+00:00")
    ]
    assert first["outcome"] == again["outcome"] == "dead_letter"
    assert again["dead_letter"] == first["dead_letter"] and again["reason"] == first["reason"]
    [letter] = memory.ledger.dead_letters()
    assert letter["event_id"] == "long-1" and letter["attempts"] == 2
    # refused for another reason, it is another dead letter; so is another id
    await ask(rpc, "memubot.rpc.memorize", {"turns": [{**too_long, "role": "narrator"}]})
    await ask(rpc, "memubot.rpc.memorize", {"turns": [{**too_long, "id": "long-2"}]})
    assert memory.ledger.count_dead_letters() == 3


async def test_a_reply_too_large_for_the_bus_is_an_error_reply_not_silence(rpc: NATS, memory: Memory) -> None:
    # found by tests/test_fuzz_entrypoints.py: `deadletters` listing ~1,000 long reasons made a
    # reply over NATS's 1 MiB, which the bus refused: the caller waited out its timeout
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
    [reply] = await ask(rpc, "memubot.rpc.deadletters", {"limit": 1000})
    assert reply["ok"] is False and reply["error"]["type"] == "too_large", reply
    assert "more than the bus carries (1048576); ask for less" in reply["error"]["message"]
    [fewer] = await ask(rpc, "memubot.rpc.deadletters", {"limit": 10})
    assert fewer["ok"] is True and len(fewer["result"]["dead_letters"]) == 10


async def test_profile_returns_category_summaries_and_the_profile_block(rpc: NATS, memory: Memory) -> None:
    [missing] = await ask(rpc, "memubot.rpc.profile", {"scope": "alice"})
    assert missing["ok"] is False and missing["error"]["type"] == "not_found"
    await ask(rpc, "memubot.rpc.memorize", {"turns": [TURN]})
    memory.consolidate("alice")  # writes the category summaries, as the daily tick does
    [reply] = await ask(rpc, "memubot.rpc.profile", {"scope": "alice"})
    assert reply["ok"], reply
    result = reply["result"]
    assert result["scope"] == "alice"
    assert any("Okafor" in c["summary"] for c in result["categories"]), result["categories"]
    assert result["profile"].startswith("<!-- memubot:begin") and result["profile"].endswith(
        "<!-- memubot:end -->"
    )
    [refused] = await ask(rpc, "memubot.rpc.profile", {"scope": "alice", "all": True})
    assert refused["ok"] is False and "'all'" in refused["error"]["message"]


async def test_suggestions_lists_a_scopes_suggestions_newest_first(rpc: NATS, memory: Memory) -> None:
    from datetime import UTC, datetime, timedelta

    from daemon.state.suggestions import DELIVERED, Suggestion

    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    made = [
        Suggestion(
            scope="alice",
            kind="reminder",
            predictor="upcoming",
            dedup_key=f"k{i}",
            about=f"item:i{i}",
            title=f"Dentist visit {i}",
            body="at 10",
            created_at=t0,
            deliver_at=t0 + timedelta(hours=i),
        )
        for i in range(3)
    ]
    memory.suggestions.propose(made)
    memory.suggestions.mark(made[0].id, DELIVERED, t0, None)
    [reply] = await ask(rpc, "memubot.rpc.suggestions", {"scope": "alice"})
    assert reply["ok"], reply
    listed = reply["result"]["suggestions"]
    assert [s["title"] for s in listed] == ["Dentist visit 2", "Dentist visit 1", "Dentist visit 0"]
    assert [s["status"] for s in listed] == ["pending", "pending", "delivered"]
    [pending] = await ask(rpc, "memubot.rpc.suggestions", {"scope": "alice", "status": "pending", "limit": 1})
    assert [s["title"] for s in pending["result"]["suggestions"]] == ["Dentist visit 2"]
    [other] = await ask(rpc, "memubot.rpc.suggestions", {"scope": "bob"})
    assert other["ok"] and other["result"]["suggestions"] == []
    [bad] = await ask(rpc, "memubot.rpc.suggestions", {"scope": "alice", "status": "sent"})
    assert bad["ok"] is False and "'status'" in bad["error"]["message"]
    # one by id (what MCP's feedback asks before it queues a verdict); another scope's is not found
    [one] = await ask(rpc, "memubot.rpc.suggestions", {"scope": "alice", "id": made[1].id})
    assert [s["title"] for s in one["result"]["suggestions"]] == ["Dentist visit 1"]
    [theirs] = await ask(rpc, "memubot.rpc.suggestions", {"scope": "bob", "id": made[1].id})
    assert theirs["error"] == {"type": "not_found", "message": f"no suggestion {made[1].id!r} in scope 'bob'"}


async def test_a_deeply_nested_request_gets_one_error_reply(rpc: NATS) -> None:
    # 5,000 levels in 10 KB raised RecursionError in the parser; 65 is just past the bound
    for levels in (5000, 65):
        inbox = rpc.new_inbox()
        sub = await rpc.subscribe(inbox)
        query = "[" * levels + "]" * levels
        await rpc.publish(
            "memubot.rpc.recall", b'{"scope": "alice", "query": ' + query.encode() + b"}", reply=inbox
        )
        reply = json.loads((await sub.next_msg(timeout=30)).data)
        await sub.unsubscribe()
        assert reply == {
            "ok": False,
            "error": {"type": "invalid_request", "message": "request is nested deeper than 64 levels"},
        }, levels
    [ok] = await ask(rpc, "memubot.rpc.stats", {})
    assert ok["ok"]  # and the server still answers


async def test_the_responders_use_the_connection_they_are_given_and_leave_it_open(
    memory: Memory, tmp_path: Path, clock: FakeClock, nats_url: str
) -> None:
    # one connection, not FastStream's own next to the daemon's: its reconnect and /readyz
    # link state cover the RPC too, and stopping the responders leaves it to its owner
    settings = load_settings({"HOME": str(tmp_path)})

    async def nothing(*_: Any) -> Any:
        return (0, 0)

    server_nc = await nats.connect(nats_url)
    server = RpcServer(
        server_nc,
        Dispatcher(Deps(memory, settings, clock)),
        flush=nothing,
        pending=nothing,
        after_write=nothing,
    )
    await server.start()
    try:
        assert server.broker.connection is server_nc
        nc = await nats.connect(nats_url)
        [reply] = await ask(nc, "memubot.rpc.stats", {})
        assert reply["ok"]
        await nc.close()
    finally:
        await server.stop()
    assert server_nc.is_connected and not server_nc.is_draining
    await server_nc.close()
