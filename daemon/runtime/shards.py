"""Shards: in a cluster, one DuckDB file per owned partition beside the instance's own file.

With MEMUBOT_PARTITIONS=N each partition p an instance owns has its file,
`<state dir>/partitions/p<p>.duckdb` (its index copies beside it), opened as its own memory with
its own dispatcher, op outbox and suggestion timer; a scope's rows are only ever in the file of
`partition_of(scope, N)`. The instance's own file (MEMUBOT_DB) holds no scope: dead letters, the
tick history, the cursors of the Gmail fetcher and the GitHub poller, and the ledger of events
without a scope. A one-node daemon has the one file, as its `home`, and nothing else
(docs/cluster.md).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from daemon.errors import InvalidInput
from daemon.memory import Memory
from daemon.runtime.dispatch import ACK, Dispatcher, Incoming, Verdict
from daemon.runtime.partitions import Plan, body_scope
from daemon.state.ledger import Ledger
from daemon.subjects import TICK_PREFIX, unscoped

log = logging.getLogger(__name__)

PARTITIONS_DIR = "partitions"


def partition_db(state_dir: Path, partition: int) -> Path:
    """Where partition `partition`'s DuckDB file is, under an instance's state directory."""
    return state_dir / PARTITIONS_DIR / f"p{partition}.duckdb"


@dataclass(frozen=True, slots=True)
class Shard:
    """One DuckDB file and its dispatcher (whose Deps hold the file's memory); `partition` is
    None for the instance's own file."""

    dispatcher: Dispatcher
    partition: int | None = None

    @property
    def memory(self) -> Memory:
        return self.dispatcher.deps.memory


class Shards:
    """The instance's files, and which one a scope, an event or a request belongs to."""

    def __init__(
        self, home: Shard, parts: Mapping[int, Shard] | None = None, plan: Plan | None = None
    ) -> None:
        self.home = home
        self.parts = dict(sorted((parts or {}).items()))
        self.plan = plan
        self.metrics = home.dispatcher.metrics

    @classmethod
    def single(cls, dispatcher: Dispatcher) -> Shards:
        """One file for everything: a one-node daemon, the CLI, the tests of one memory."""
        return cls(Shard(dispatcher))

    @property
    def all(self) -> list[Shard]:
        """The instance's file first, then the partitions' in order."""
        return [self.home, *self.parts.values()]

    @property
    def handled(self) -> int:
        return sum(s.dispatcher.handled for s in self.all)

    @property
    def dead_letters(self) -> Ledger:
        """Every dead letter of the instance is in its own file (one id sequence)."""
        return self.home.dispatcher.dead_letters

    def of(self, scope: str) -> Shard:
        """The shard whose file holds `scope`: InvalidInput for a partition this instance does not
        own (the RPC router forwards those before asking)."""
        if self.plan is None or not self.parts:
            return self.home
        part = self.plan.partition(scope)
        shard = self.parts.get(part)
        if shard is None:
            raise InvalidInput(f"scope {scope!r} is in partition {part}, which this instance does not own")
        return shard

    def memory(self, scope: str) -> Memory:
        return self.of(scope).memory

    def _target(self, msg: Incoming) -> Shard | str:
        """The shard an event goes to, or why none here can take it."""
        scope = unscoped(msg.subject)[0] or body_scope(msg.data)
        if scope is None or self.plan is None:
            return self.home  # no scope: the instance's (its dispatcher refuses what needs one)
        part = self.plan.partition(scope)
        shard = self.parts.get(part)
        if shard is None:
            return f"scope {scope!r} is in partition {part}, which this instance does not own"
        return shard

    async def dispatch(self, batch: Sequence[Incoming]) -> list[Verdict]:
        """Each event to the file of its scope, the verdicts in the batch's order. A tick goes to
        every file (each ledger keeps it once); its verdict is the instance file's."""
        if not self.parts:
            return await self.home.dispatcher.dispatch(batch)
        verdicts: list[Verdict | None] = [None] * len(batch)
        groups: dict[int | None, list[int]] = {}
        ticks: list[int] = []
        for i, msg in enumerate(batch):
            if msg.subject.startswith(TICK_PREFIX):
                ticks.append(i)
                continue
            target = self._target(msg)
            if isinstance(target, str):
                verdicts[i] = await self.home.dispatcher.refuse(msg, target)
                continue
            groups.setdefault(target.partition, []).append(i)
        for part, indexes in groups.items():
            shard = self.home if part is None else self.parts[part]
            done = await shard.dispatcher.dispatch([batch[i] for i in indexes])
            for i, verdict in zip(indexes, done, strict=True):
                verdicts[i] = verdict
        if ticks:
            batch_of_ticks = [batch[i] for i in ticks]
            for shard in self.parts.values():
                for verdict in await shard.dispatcher.dispatch(batch_of_ticks):
                    if verdict.action != ACK or verdict.outcome == "dead_letter":
                        # not retried here: the file runs the schedule again at its next tick
                        log.warning(
                            "tick %s in partition %s: %s (%s)",
                            verdict.event_id,
                            shard.partition,
                            verdict.outcome,
                            verdict.reason,
                        )
            done = await self.home.dispatcher.dispatch(batch_of_ticks)
            for i, verdict in zip(ticks, done, strict=True):
                verdicts[i] = verdict
        return [v for v in verdicts if v is not None]

    async def refuse(self, msg: Incoming, reason: str) -> Verdict:
        return await self.home.dispatcher.refuse(msg, reason)

    async def replay_dead_letter(self, dead_id: int) -> Verdict:
        """A dead letter of the instance handled again, by the file of its scope."""
        return await self.home.dispatcher.replay_dead_letter(dead_id, via=self.dispatch)


def add_counts(into: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Sum two files' `stats` (nested counts); `schema_version` and other non-counts are kept."""
    for key, value in more.items():
        if isinstance(value, dict):
            add_counts(into.setdefault(key, {}), value)
        elif isinstance(value, int | float) and not isinstance(value, bool) and key != "schema_version":
            into[key] = into.get(key, 0) + value
        else:
            into.setdefault(key, value)
    return into
