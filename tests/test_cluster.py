"""Scopes over a NATS JetStream cluster (issue 25, docs/cluster.md): three real `nats-server`
processes on loopback, two real `memubot run` instances each owning half of the partitions,
real DuckDB files, the real embedder.

A daemon's and the nodes' logs are printed when the test ends; pytest shows them only on failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import string
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.js import JetStreamContext

from daemon.client import Client, RpcError
from daemon.memory.store import Store
from daemon.runtime.shards import PARTITIONS_DIR, partition_db
from daemon.runtime.streams import ensure_streams
from daemon.subjects import (
    conversation_subject,
    partition_of,
    rpc_partition_subject,
    scoped_subject,
)
from tests.daemon_harness import CONSUMER
from tests.nats_cluster import Cluster, nats_cluster
from tests.test_faults import Memubot, _quiet

PARTITIONS = 4
OWNERS = {"a": "0,1", "b": "2,3"}  # instance -> MEMUBOT_OWN_PARTITIONS
FLUSH_TIMEOUT = 300.0


# ---- the hash: ours is the server's ---------------------------------------------------------


def _scopes(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "-_éü€"
    return sorted({"".join(rng.choices(alphabet, k=rng.randint(1, 24))) for _ in range(n)})


@pytest.mark.parametrize("partitions", [1, 3, 4, 7, 64])
async def test_partition_of_is_where_the_server_maps_a_scope(js: JetStreamContext, partitions: int) -> None:
    """The stream's subject transform (partition(N, scope)) and `partition_of`, which the RPC
    router uses, put every scope in the same partition; an unscoped subject is stored as sent."""
    await ensure_streams(js, partitions=partitions)
    scopes = _scopes(max(150, 12 * partitions), seed=partitions)
    seen = set()
    for scope in scopes:
        ack = await js.publish(scoped_subject(scope, conversation_subject("main")), b"{}")
        stored = (await js.get_msg("MEMUBOT_IN", ack.seq)).subject
        assert stored == f"memubot.in.part.{partition_of(scope, partitions)}.{scope}.conversation.main"
        seen.add(partition_of(scope, partitions))
    assert seen == set(range(partitions))  # the scopes really spread over every partition
    ack = await js.publish(conversation_subject("main"), b"{}")
    assert (await js.get_msg("MEMUBOT_IN", ack.seq)).subject == "memubot.in.conversation.main"
    await ensure_streams(js)  # one node again: no transform
    ack = await js.publish(scoped_subject("alice", "memubot.in.feedback"), b"{}")
    assert (await js.get_msg("MEMUBOT_IN", ack.seq)).subject == "memubot.in.scoped.alice.feedback"


# ---- two instances over a three-node cluster ------------------------------------------------


class Instance(Memubot):
    """A `memubot run` of its own state directory, partitioned, on the cluster."""

    def __init__(self, tmp_path: Path, cluster: Cluster, own: str) -> None:
        tmp_path.mkdir(parents=True, exist_ok=True)
        super().__init__(tmp_path, cluster.url)
        self.own = own
        self.proc: asyncio.subprocess.Process | None = None

    async def spawn(self, **extra: str) -> asyncio.subprocess.Process:
        return await super().spawn(
            MEMUBOT_PARTITIONS=str(PARTITIONS),
            MEMUBOT_OWN_PARTITIONS=self.own,
            MEMUBOT_STREAM_REPLICAS="3",
            MEMUBOT_CONSUMER=CONSUMER,
            **extra,
        )

    async def up(self) -> None:
        self.proc, _ = await self.start()

    def kill(self) -> None:
        assert self.proc is not None and self.proc.returncode is None
        self.proc.kill()

    @property
    def db(self) -> Path:
        """The instance's own file: dead letters, tick history, no scope."""
        return self.state_dir / "memubot.duckdb"

    def part_db(self, partition: int) -> Path:
        return partition_db(self.state_dir, partition)


def turn(scope: str, i: int) -> dict[str, Any]:
    return {
        "id": f"{scope}-t{i}",
        "scope": scope,
        "agent": "main",
        "session": f"{scope}-s1",
        "role": "user",
        "speaker": "Alice",
        "text": f"In project {scope} we decided to use colour number {i} for the banner.",
        "ts": f"2024-05-01T08:{i:02d}:00+00:00",
        "meta": {},
    }


async def publish(js: JetStreamContext, subject: str, body: dict[str, Any]) -> None:
    """Publish until the stream has it (a node may be dying under the client): the same
    Nats-Msg-Id each time, so a retry after a lost ack is dropped by the server."""
    data = json.dumps(body).encode()
    async with asyncio.timeout(120):
        while True:
            try:
                await js.publish(subject, data, headers={"Nats-Msg-Id": body["id"]}, timeout=5)
                return
            except Exception:
                await asyncio.sleep(0.2)


async def request(nc: nats.NATS, subject: str, body: dict[str, Any], timeout: float = 60.0) -> Any:
    async with asyncio.timeout(timeout + 60):
        while True:  # "no responders" while an instance is on its way back
            try:
                msg = await nc.request(subject, json.dumps(body).encode(), timeout=timeout)
                break
            except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
                await asyncio.sleep(0.5)
    reply = json.loads(msg.data)
    assert reply["ok"], reply
    return reply["result"]


async def patient_stats(client: Client, scope: str) -> dict[str, Any]:
    """`stats` of a scope, asked again when no reply came: core NATS request/reply is at most
    once, and a request sent while the cluster replaces a node can be lost (docs/cluster.md)."""
    for attempt in range(1, 7):
        try:
            return await client.stats(scope)
        except TimeoutError:
            print(f"stats {scope}: no reply to attempt {attempt}")
    pytest.fail(f"no reply to stats {scope} in 6 attempts")


async def flush_all(nc: nats.NATS) -> None:
    """Every partition's owner has handled everything published so far (and the forwarder
    before it)."""
    for p in range(PARTITIONS):
        await request(nc, rpc_partition_subject(p, "flush"), {"timeout": FLUSH_TIMEOUT}, FLUSH_TIMEOUT + 5)


def stored(db: Path) -> dict[str, list[str]]:
    """scope -> ids of its stored turns (a duplicate would appear twice), from one file."""
    store = Store(db, read_only=True)
    try:
        rows = store.con.execute("SELECT scope, id FROM resources ORDER BY scope, id").fetchall()
        [(dead,)] = store.con.execute("SELECT count(*) FROM dead_letters").fetchall()
        [(ledger,)] = store.con.execute(
            "SELECT count(*) FROM events WHERE subject LIKE 'memubot.in.conversation.%'"
        ).fetchall()
    finally:
        store.close()
    assert dead == 0
    found: dict[str, list[str]] = {}
    for scope, rid in rows:
        found.setdefault(scope, []).append(rid)
    assert ledger == len(rows)  # the ledger holds each stored turn once
    return found


def stored_by_partition(inst: Instance) -> dict[int, dict[str, list[str]]]:
    """partition -> scope -> ids of its stored turns, one file per partition the instance has;
    its own file holds none."""
    assert stored(inst.db) == {}
    found = {}
    for db in sorted((inst.state_dir / PARTITIONS_DIR).glob("p*.duckdb")):
        found[int(db.stem.removeprefix("p"))] = stored(db)
    return found


def assert_each_scope_in_its_partitions_file(
    files: dict[str, dict[int, dict[str, list[str]]]], owner: dict[str, str], expected: dict[str, list[str]]
) -> None:
    """Every scope's turns in exactly one file, its partition's on its owner, each turn once."""
    for s in owner:
        holders = [(name, p) for name, parts in files.items() for p, found in parts.items() if s in found]
        assert holders == [(owner[s], partition_of(s, PARTITIONS))], (s, holders)
        assert files[owner[s]][partition_of(s, PARTITIONS)][s] == sorted(expected[s])
    for name, parts in files.items():
        for p, found in parts.items():
            assert all(partition_of(s, PARTITIONS) == p for s in found), (name, p, sorted(found))


@contextlib.asynccontextmanager
async def two_instances(tmp_path: Path, cluster: Cluster) -> AsyncIterator[dict[str, Instance]]:
    instances = {name: Instance(tmp_path / name, cluster, own) for name, own in OWNERS.items()}
    try:
        yield instances
    finally:
        for inst in instances.values():
            await inst.cleanup()
        print(cluster.logs())


async def test_scopes_over_a_three_node_cluster_are_stored_once_each_on_its_owner(tmp_path: Path) -> None:
    """Turns for many scopes (on the scoped subjects, and some on the old subject without a scope)
    are stored exactly once, each scope on exactly one instance, the owner of its partition, in
    that partition's file and no other; recall for every scope is answered through either
    instance; a node and an instance killed with SIGKILL mid-ingest and restarted lose nothing
    and double nothing."""
    scopes = [f"team{i}" for i in range(12)]
    owner = {s: ("a" if partition_of(s, PARTITIONS) in (0, 1) else "b") for s in scopes}
    assert set(owner.values()) == {"a", "b"}, "the scopes must land on both instances"
    expected = {s: [f"{s}-t{i}" for i in range(7)] for s in scopes}
    async with nats_cluster(tmp_path / "nats") as cluster, two_instances(tmp_path, cluster) as inst:
        await asyncio.gather(*(i.up() for i in inst.values()))
        nc = await nats.connect(
            cluster.urls,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.2,
            connect_timeout=2,
            error_cb=_quiet,
        )
        js = nc.jetstream()
        client = Client(nc, timeout=10)
        try:
            info = await js.stream_info("MEMUBOT_IN")
            assert info.config.num_replicas == 3 and info.config.subject_transform is not None

            # round 1: three turns per scope; the third on the old subject (the forwarder's)
            for s in scopes:
                for i in range(3):
                    subject = conversation_subject("main")
                    await publish(js, scoped_subject(s, subject) if i < 2 else subject, turn(s, i))
            await flush_all(nc)
            # memorize (stored at once, not through the stream) goes to the owner like any request
            for s in scopes:
                [result] = await client.memorize([turn(s, 6)])
                assert result["outcome"] == "stored", (s, result)
            a_scope = next(s for s in scopes if owner[s] == "a")
            b_scope = next(s for s in scopes if owner[s] == "b")
            with pytest.raises(RpcError, match="one request per scope"):
                await client.memorize([turn(a_scope, 7), turn(b_scope, 7)])

            # recall through whichever instance the queue group picks: a scope of the other is
            # forwarded to its owner. Each scope several times, so both instances route both ways.
            for _ in range(4):
                for s in scopes:
                    hits = await client.recall(f"which colour did {s} decide on for the banner?", scope=s)
                    assert hits, s
                    stats = await client.stats(s)
                    assert stats["resources"] == 4, (s, stats)
                    owned = stats["daemon"]["partitions"]["owned"]
                    assert partition_of(s, PARTITIONS) in owned
            for name, i in inst.items():
                assert "rpc recall: forwarded" in i.log_of(i.procs[-1][0]), f"{name} never forwarded"

            # round 2: a node and an instance killed mid-ingest, both started again
            victim = cluster.nodes[0]
            for n, s in enumerate(scopes):
                if n == 4:
                    cluster.kill(victim)
                    inst["b"].kill()
                for i in range(3, 6):
                    subject = conversation_subject("main")
                    await publish(js, scoped_subject(s, subject) if i != 4 else subject, turn(s, i))
            await cluster.wait_killed(victim)
            # while b is down, a's instance answers every request: its own scopes at once,
            # b's not at all (the owner is away), said so rather than answered from nothing
            print(f"client on {nc.connected_url}, node {victim.url} killed")
            assert (await patient_stats(client, a_scope))["resources"] >= 4
            with pytest.raises(RpcError, match="unavailable: no memubot instance owns partition"):
                await patient_stats(client, b_scope)
            await cluster.start(victim)
            await cluster.ready()
            await inst["b"].up()
            await flush_all(nc)
            for s in scopes:
                assert (await patient_stats(client, s))["resources"] == 7, s
        finally:
            await nc.close()
        for i in inst.values():
            assert i.proc is not None
            assert await i.stop(i.proc) == 0
        files = {name: stored_by_partition(i) for name, i in inst.items()}
        assert {name: sorted(parts) for name, parts in files.items()} == {"a": [0, 1], "b": [2, 3]}
        assert_each_scope_in_its_partitions_file(files, owner, expected)
        assert sorted(s for parts in files.values() for found in parts.values() for s in found) == sorted(
            scopes
        )


# ---- a partition handed over, with its file, to the other instance --------------------------

MOVED = 1  # one of a's partitions, handed to b


async def test_a_partition_handed_over_as_its_file_is_recalled_through_either_instance(
    tmp_path: Path,
) -> None:
    """Both instances stopped, partition 1's file (and its index copies) goes from a's state
    directory to b's; restarted with the partition b's, recall for its scopes through either
    instance answers from their old turns, new turns of them land in that file on b, and every
    turn is stored once, in its partition's file."""
    scopes = [f"team{i}" for i in range(12)]
    moved = [s for s in scopes if partition_of(s, PARTITIONS) == MOVED]
    assert moved and len(moved) < len([s for s in scopes if partition_of(s, PARTITIONS) in (0, 1)])
    owner = {s: ("a" if partition_of(s, PARTITIONS) == 0 else "b") for s in scopes}  # after the move
    async with nats_cluster(tmp_path / "nats") as cluster, two_instances(tmp_path, cluster) as inst:
        a, b = inst["a"], inst["b"]
        await asyncio.gather(a.up(), b.up())
        nc = await nats.connect(cluster.urls, max_reconnect_attempts=-1, connect_timeout=2, error_cb=_quiet)
        js = nc.jetstream()
        client = Client(nc, timeout=30)
        try:
            for s in scopes:
                for i in range(3):
                    await publish(js, scoped_subject(s, conversation_subject("main")), turn(s, i))
            await flush_all(nc)
            for runner in (a, b):
                assert runner.proc is not None and await runner.stop(runner.proc) == 0
            assert sorted(stored(a.part_db(MOVED))) == sorted(moved)

            # the hand-over: the partition's file and what sits beside it (its index copies)
            handed = sorted(a.part_db(MOVED).parent.glob(a.part_db(MOVED).name + "*"))
            assert a.part_db(MOVED) in handed and len(handed) >= 2, handed  # the file, its .index/
            for path in handed:
                shutil.move(path, b.part_db(MOVED).parent / path.name)

            a.own, b.own = "0", "1-3"
            await asyncio.gather(a.up(), b.up())
            for _ in range(6):  # the queue group picks either instance; a forwards to b
                for s in moved:
                    hits = await client.recall(f"which colour did {s} decide on for the banner?", scope=s)
                    said = {sid for h in hits for sid in h["source_ids"]}
                    assert said & {f"{s}-t{i}" for i in range(3)}, (s, hits)
                    stats = await client.stats(s)
                    assert stats["resources"] == 3 and MOVED in stats["daemon"]["partitions"]["owned"], stats
                    assert stats["daemon"]["partitions"]["owned"] == [1, 2, 3]
            assert a.proc is not None and "rpc recall: forwarded" in a.log_of(a.proc), "a never forwarded"
            # the index copies came along: b loaded the moved scopes' indexes, it did not rebuild them
            assert b.proc is not None and all(
                f"loaded index for scope {s}:" in b.log_of(b.proc) for s in moved
            )

            # new turns of a moved scope: scoped, and on the old subject (the forwarder's)
            for s in moved:
                await publish(js, scoped_subject(s, conversation_subject("main")), turn(s, 3))
                await publish(js, conversation_subject("main"), turn(s, 4))
            await flush_all(nc)
            for s in moved:
                assert (await client.stats(s))["resources"] == 5, s
        finally:
            await nc.close()
        for runner in (a, b):
            assert runner.proc is not None and await runner.stop(runner.proc) == 0
        files = {name: stored_by_partition(r) for name, r in inst.items()}
        assert {name: sorted(parts) for name, parts in files.items()} == {"a": [0], "b": [1, 2, 3]}
        expected = {s: [f"{s}-t{i}" for i in range(5 if s in moved else 3)] for s in scopes}
        assert_each_scope_in_its_partitions_file(files, owner, expected)
