"""The pure parts of scopes over a cluster: subjects with and without a scope, whose event an
unscoped one is, what an instance owns (the cluster itself: tests/test_cluster.py)."""

from __future__ import annotations

import asyncio
import json

import pytest
from nats.js import JetStreamContext

from daemon.runtime.partitions import Leases, Plan, scope_finder
from daemon.subjects import (
    EMAIL,
    FEEDBACK,
    GITHUB,
    GMAIL,
    conversation_subject,
    partition_of,
    scoped_subject,
    tick_subject,
    unscoped,
)


@pytest.mark.parametrize(
    "subject", [conversation_subject("main"), FEEDBACK, GITHUB, EMAIL, GMAIL, tick_subject("morning")]
)
def test_a_scoped_subject_comes_back_to_the_subject_without_its_scope(subject: str) -> None:
    scoped = scoped_subject("alice", subject)
    assert scoped.startswith("memubot.in.scoped.alice.")
    assert unscoped(scoped) == ("alice", subject)
    partitioned = scoped.replace("memubot.in.scoped.", "memubot.in.part.3.", 1)  # as the stream stores it
    assert unscoped(partitioned) == ("alice", subject)
    assert unscoped(subject) == (None, subject)


@pytest.mark.parametrize(
    ("scope", "subject"),
    [("a.b", FEEDBACK), ("", FEEDBACK), ("a b", FEEDBACK), ("alice", "memubot.out.memory.created")],
)
def test_a_scope_must_be_a_token_and_the_subject_an_unscoped_input(scope: str, subject: str) -> None:
    with pytest.raises(ValueError):
        scoped_subject(scope, subject)
    with pytest.raises(ValueError):
        scoped_subject("alice", scoped_subject("bob", FEEDBACK))


def test_the_forwarder_finds_the_scope_in_the_body_else_the_triggers_setting() -> None:
    scope_of = scope_finder(github_scope="gh-person", email_scope="mail-person")
    assert scope_of(conversation_subject("main"), json.dumps({"scope": "alice"}).encode()) == "alice"
    assert scope_of(GITHUB, json.dumps({"id": "x", "event": "push"}).encode()) == "gh-person"
    assert scope_of(EMAIL, b"{}") == "mail-person"
    assert scope_of(GMAIL, b"{}") is None  # "sync now": the instance that pulls it syncs
    assert scope_of(EMAIL, json.dumps({"scope": "bob"}).encode()) == "bob"
    assert scope_of(tick_subject("morning"), b"{}") is None  # handled where it is pulled
    assert scope_of(conversation_subject("main"), b"{broken") is None
    assert scope_finder(None, None)(GITHUB, b"{}") is None


def test_a_plan_owns_the_scopes_of_its_partitions() -> None:
    plan = Plan(4, (0, 2))
    assert plan.name == "p0-2"
    for scope in ("alice", "bob", "team7", "ünï"):
        assert plan.owns(scope) == (partition_of(scope, 4) in (0, 2))
        assert plan.partition(scope) == partition_of(scope, 4)
    assert partition_of("alice", 1) == 0


async def test_a_partition_has_one_leaseholder_and_a_restart_takes_its_own_back(js: JetStreamContext) -> None:
    """A second instance owning the same partition waits for the lease (instead of splitting the
    partition's scopes between two files); the holder restarted after a crash (the same name, the
    lease not released) takes it back at once; a release frees it for the waiting one."""
    plan = Plan(4, (1, 3))
    first = Leases(js, plan, "host:/state/a", ttl=5.0, bucket="test_leases")
    await first.acquire()
    kv = await js.key_value("test_leases")
    assert (await kv.get("p1")).value == b"host:/state/a"
    second = Leases(js, Plan(4, (3,)), "host:/state/b", ttl=5.0, bucket="test_leases")
    waiting = asyncio.create_task(second.acquire())
    with pytest.raises(TimeoutError):  # still waiting after a while (it never takes a held lease)
        await asyncio.wait_for(asyncio.shield(waiting), 2.0)
    # the first instance "crashes" (no release) and comes back under its own name
    assert first._task is not None
    first._task.cancel()
    again = Leases(js, plan, "host:/state/a", ttl=5.0, bucket="test_leases")
    await asyncio.wait_for(again.acquire(), 5.0)
    assert not waiting.done() and again.healthy()
    await again.release()
    await asyncio.wait_for(waiting, 10.0)
    assert (await kv.get("p3")).value == b"host:/state/b"
    await second.release()
