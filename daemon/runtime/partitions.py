"""Scopes over a cluster: the partitions an instance owns, their consumers, and the forwarder.

With MEMUBOT_PARTITIONS=N the MEMUBOT_IN stream stores each scoped event
(`memubot.in.scoped.<scope>.<rest>`) as `memubot.in.part.<p>.<scope>.<rest>`, p = NATS's
`partition(N, scope)`. An instance reads each partition it owns through one durable consumer,
`memubot-p<p>` (the name is the partition's, not the instance's: the instance that takes the
partition over resumes at the same ack floor), into its one DuckDB file. Events on the subjects
without a scope (agents that predate the scoped subjects, the GitHub webhook and poller, Gmail)
are read by one durable shared by every instance, `memubot-forward`, which puts each one back on
the bus under the scope it belongs to, or handles it here when it names none (docs/cluster.md).
An instance holds a lease per owned partition (`Leases`) while it reads it, so that two
instances configured to own one partition do not both read it.

Whatever reads a scoped subject (a partition, or the one-node consumer of `memubot.in.>`) hands
the dispatcher the subject without the scope, after checking that the scope of the body is the
scope of the subject: an event whose body names another scope would be stored on the wrong
instance, so it becomes a dead letter instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from nats.js import JetStreamContext
from nats.js.errors import KeyDeletedError, KeyNotFoundError, KeyWrongLastSequenceError

from daemon import bounded_json
from daemon.runtime.consumer import Backlog, Consumer, ConsumerParams, Handles
from daemon.runtime.dispatch import ACK, Incoming, Verdict
from daemon.runtime.metrics import Metrics
from daemon.runtime.streams import patiently
from daemon.subjects import (
    CONVERSATIONS,
    EMAIL,
    FEEDBACK,
    GITHUB,
    GMAIL,
    TICK_PREFIX,
    partition_filter,
    partition_of,
    scoped_subject,
    unscoped,
)

log = logging.getLogger(__name__)

FORWARD_DURABLE = "memubot-forward"
# the subjects without a scope that the forwarder reads in a cluster (everything memubot.in.>
# carries except the scoped and partitioned subjects)
UNSCOPED_SUBJECTS = (CONVERSATIONS, FEEDBACK, GITHUB, EMAIL, GMAIL, TICK_PREFIX + ">")
FORWARDED_SUFFIX = "@scoped"  # the Nats-Msg-Id of a forwarded event: its id plus this
# builds one durable's consumer (nats-py's loop, or FastStream's: MEMUBOT_CONSUMER), given the
# partition it reads (None: the forwarder)
MakeConsumer = Callable[[Handles, ConsumerParams, int | None], Consumer]


class Dispatches(Handles, Protocol):
    """A dispatcher, or what routes to several (runtime/shards.py): events in, verdicts out."""

    async def refuse(self, msg: Incoming, reason: str) -> Verdict: ...


def partition_durable(partition: int) -> str:
    return f"memubot-p{partition}"


@dataclass(frozen=True, slots=True)
class Plan:
    """How many partitions there are and which this instance owns."""

    partitions: int
    owned: tuple[int, ...]

    def owns(self, scope: str) -> bool:
        return partition_of(scope, self.partitions) in self.owned

    def partition(self, scope: str) -> int:
        return partition_of(scope, self.partitions)

    @property
    def name(self) -> str:
        """This instance, by what it owns (tells its memory ops from another's on the bus)."""
        return "p" + "-".join(str(p) for p in self.owned)


def body_scope(data: bytes) -> str | None:
    """The body's `scope`, when the body is a JSON object naming one."""
    try:
        body = bounded_json.load(data, max_bytes=4 * len(data) + 1024, what="event")
    except Exception:  # an unreadable body is the dispatcher's to refuse
        return None
    scope = body.get("scope") if isinstance(body, dict) else None
    return scope if isinstance(scope, str) and scope else None


class ScopedDispatch:
    """Scoped and partitioned subjects → the dispatcher, as the subject without its scope."""

    def __init__(self, dispatcher: Dispatches) -> None:
        self.dispatcher = dispatcher
        self.metrics: Metrics = dispatcher.metrics

    @property
    def handled(self) -> int:
        return self.dispatcher.handled

    async def dispatch(self, batch: Sequence[Incoming]) -> list[Verdict]:
        plain: list[Incoming] = []
        refused: dict[int, str] = {}
        for i, msg in enumerate(batch):
            scope, subject = unscoped(msg.subject)
            if scope is not None:
                named = body_scope(msg.data)
                if named is not None and named != scope:
                    refused[i] = f"the subject names scope {scope!r} and the body scope {named!r}"
            plain.append(replace(msg, subject=subject) if scope is not None else msg)
        if not refused:
            return await self.dispatcher.dispatch(plain)
        verdicts: list[Verdict | None] = [None] * len(plain)
        for i, reason in refused.items():
            # recorded under the subject it came on: a replay must not store it on this instance
            verdicts[i] = await self.dispatcher.refuse(batch[i], reason)
        rest = [i for i in range(len(plain)) if i not in refused]
        for i, verdict in zip(rest, await self.dispatcher.dispatch([plain[i] for i in rest]), strict=True):
            verdicts[i] = verdict
        return [v for v in verdicts if v is not None]


class Forwarder:
    """Reads the subjects without a scope and puts each event back on the bus under its scope's
    subject (the partition's owner stores it), or hands it to this instance's dispatcher when it
    belongs to no scope (a tick, an unreadable body: handled, or dead-lettered, here)."""

    def __init__(
        self,
        dispatcher: Dispatches,
        publish: Callable[[str, bytes, str], Awaitable[None]],
        scope_of: Callable[[str, bytes], str | None],
    ) -> None:
        self.local = ScopedDispatch(dispatcher)
        self.publish = publish
        self.scope_of = scope_of
        self.metrics = dispatcher.metrics
        self.handled = 0

    async def dispatch(self, batch: Sequence[Incoming]) -> list[Verdict]:
        verdicts: list[Verdict | None] = [None] * len(batch)
        here: list[int] = []
        for i, msg in enumerate(batch):
            scope = self.scope_of(msg.subject, msg.data)
            if scope is None:
                here.append(i)
                continue
            event_id = _event_id(msg.data)
            if event_id is None:
                here.append(i)  # the dispatcher dead-letters a body without an id
                continue
            try:
                target = scoped_subject(scope, msg.subject)
            except ValueError:
                here.append(i)  # a scope that is no subject token: the dispatcher refuses it
                continue
            try:
                # the id of the forwarded copy differs from the original's, which the stream's
                # duplicate window holds; a second forward of the same event has the same one
                await self.publish(target, msg.data, event_id + FORWARDED_SUFFIX)
            except Exception as exc:  # the bus refused it: nak, and forward again later
                log.warning("forwarding %s %s to %s failed: %s", msg.subject, event_id, target, exc)
                verdicts[i] = Verdict("retry", "retry", event_id, str(exc))
                continue
            log.info("%s %s: forwarded to %s", msg.subject, event_id, target)
            self.handled += 1
            verdicts[i] = Verdict(ACK, "forwarded", event_id)
        if here:
            done = await self.local.dispatch([batch[i] for i in here])
            for i, verdict in zip(here, done, strict=True):
                verdicts[i] = verdict
        return [v for v in verdicts if v is not None]


def _event_id(data: bytes) -> str | None:
    try:
        body = bounded_json.load(data, max_bytes=4 * len(data) + 1024, what="event")
    except Exception:
        return None
    event_id = body.get("id") if isinstance(body, dict) else None
    return event_id if isinstance(event_id, str) and event_id else None


def scope_finder(github_scope: str | None, email_scope: str | None) -> Callable[[str, bytes], str | None]:
    """Whose event this is: the body's `scope`, else the configured scope of its trigger."""

    def scope_of(subject: str, data: bytes) -> str | None:
        named = body_scope(data)
        if named is not None:
            return named
        if subject == GITHUB:
            return github_scope
        if subject == EMAIL:
            return email_scope
        # a Gmail notification only says "sync now": the instance that pulls it syncs, with its
        # fetcher, and the messages it publishes carry their scope (docs/cluster.md)
        return None

    return scope_of


class Partitioned:
    """One durable consumer per owned partition, plus the shared forwarder; to the daemon it
    looks like one consumer (start, stop, health, backlog, flush). Partition p's events go to
    `dispatchers[p]` (its own file's), or to `dispatcher` when there is none for it."""

    def __init__(
        self,
        js: JetStreamContext,
        plan: Plan,
        dispatcher: Dispatches,
        forwarder: Forwarder,
        after_batch: Callable[[], Awaitable[None]] | None = None,
        params: ConsumerParams | None = None,
        leases: Leases | None = None,
        make: MakeConsumer | None = None,
        dispatchers: Mapping[int, Dispatches] | None = None,
    ) -> None:
        base = params or ConsumerParams()
        self.leases = leases
        own = dispatchers or {}

        def nats_py(handles: Handles, p: ConsumerParams, part: int | None) -> Consumer:
            return Consumer(js, handles, p, after_batch)

        make = make or nats_py
        self.parts = [
            make(
                ScopedDispatch(own.get(p, dispatcher)),
                replace(base, durable=partition_durable(p), filter_subjects=(partition_filter(p),)),
                p,
            )
            for p in plan.owned
        ]
        self.forward = make(
            forwarder, replace(base, durable=FORWARD_DURABLE, filter_subjects=UNSCOPED_SUBJECTS), None
        )
        self.all = [self.forward, *self.parts]

    @property
    def running(self) -> bool:
        return all(c.running for c in self.all)

    @property
    def last_backlog(self) -> Backlog | None:
        seen = [c.last_backlog for c in self.all if c.last_backlog is not None]
        if not seen:
            return None
        return Backlog(
            sum(b.unhandled for b in seen),
            max(b.oldest_age_s for b in seen),
            max(b.since_progress_s for b in seen),
            any(b.stalled for b in seen),
        )

    async def declare(self) -> None:
        for c in self.all:
            await c.declare()

    async def start(self) -> None:
        for c in self.all:
            await c.start()

    def healthy(self, max_batch_s: float) -> bool:
        leased = self.leases is None or self.leases.healthy()
        return leased and all(c.healthy(max_batch_s) for c in self.all)

    async def pending(self) -> tuple[int, int]:
        # at once: while the cluster elects a leader each question may wait its patience
        counts = await asyncio.gather(*(c.pending() for c in self.all))
        return sum(a for a, _ in counts), sum(b for _, b in counts)

    async def flush(self, timeout: float) -> int:
        """Forwarded first (what it forwards lands in a partition), then each owned partition."""
        deadline = time.monotonic() + timeout
        position = 0
        for c in self.all:
            position = max(position, await c.flush(max(0.1, deadline - time.monotonic())))
        return position

    async def stop(self, timeout: float) -> None:
        await asyncio.gather(*(c.stop(timeout) for c in self.all))


def by_partition(
    plan: Plan, handles: Mapping[int, Callable[[Any], Awaitable[None]]]
) -> Callable[[Any], Awaitable[None]]:
    """A core-NATS callback that passes each turn of an owned partition to that partition's
    handler (the scope from the subject, else from the body), and drops the others."""

    async def on_message(msg: Any) -> None:
        scope, _ = unscoped(msg.subject)
        scope = scope or body_scope(msg.data)
        handle = handles.get(plan.partition(scope)) if scope is not None else None
        if handle is not None:
            await handle(msg)

    return on_message


LEASE_BUCKET = "memubot_partitions"
LEASE_TTL_S = 30.0


class Leases:
    """One lease per owned partition, in a JetStream key-value bucket: an instance reads a
    partition only while it holds the partition's key, so that a second instance configured to
    own it waits instead of splitting its scopes between two files (docs/cluster.md).

    A key is the holder's name (its host and state directory: the same instance restarted after a
    crash takes its own lease back at once) and lives `ttl` seconds after its last renewal, so a
    dead holder's partitions are free within `ttl`. A lease found taken by another holder while
    renewing (this instance could not renew for longer than `ttl`) makes the instance unhealthy:
    under systemd the watchdog restarts it, and the restart waits for the lease like any other.
    """

    def __init__(
        self,
        js: JetStreamContext,
        plan: Plan,
        holder: str,
        replicas: int = 1,
        ttl: float = LEASE_TTL_S,
        bucket: str = LEASE_BUCKET,
    ) -> None:
        self.js = js
        self.plan = plan
        self.holder = holder.encode()
        self.replicas = replicas
        self.ttl = ttl
        self.bucket = bucket
        self.revisions: dict[int, int] = {}
        self.lost: set[int] = set()
        self._kv: Any = None
        self._task: asyncio.Task[None] | None = None

    async def acquire(self) -> None:
        """Take every owned partition's lease, waiting for the ones another instance holds."""
        self._kv = await patiently(
            lambda: self.js.create_key_value(
                bucket=self.bucket, history=1, ttl=self.ttl, replicas=self.replicas
            ),
            "declaring the partition leases",
        )
        for part in self.plan.owned:
            self.revisions[part] = await self._take(part)
        log.info("holding the leases of partitions %s as %s", self.plan.owned, self.holder.decode())
        self._task = asyncio.create_task(self._renew(), name="memubot-leases")

    async def _take(self, part: int) -> int:
        key, warned = f"p{part}", False
        while True:
            try:
                return int(await patiently(lambda: self._kv.create(key, self.holder), f"taking lease {key}"))
            except KeyWrongLastSequenceError:
                pass
            try:
                entry = await self._kv.get(key)
            except (KeyNotFoundError, KeyDeletedError):  # expired or released in between: try again
                continue
            if entry.value == self.holder:  # ours, from before a crash
                return int(await self._kv.update(key, self.holder, last=entry.revision))
            if not warned:
                log.warning(
                    "partition %d is held by %s: waiting until it is free (two instances must not"
                    " own one partition)",
                    part,
                    (entry.value or b"").decode(errors="replace"),
                )
                warned = True
            await asyncio.sleep(self.ttl / 10)

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            for part, revision in list(self.revisions.items()):
                if part in self.lost:
                    continue
                try:
                    self.revisions[part] = int(await self._kv.update(f"p{part}", self.holder, last=revision))
                except KeyWrongLastSequenceError:
                    self.lost.add(part)
                    log.error("lost the lease of partition %d (not renewed within %.0fs)", part, self.ttl)
                except Exception as exc:  # a cluster electing a leader: the next round tries again
                    log.warning("renewing the lease of partition %d: %s", part, exc or type(exc).__name__)

    def healthy(self) -> bool:
        return not self.lost

    async def release(self) -> None:
        """Give the leases back (after the consumers stopped): the next owner need not wait."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for part, revision in self.revisions.items():
            if part in self.lost:
                continue
            try:
                await self._kv.delete(f"p{part}", last=revision)
            except Exception as exc:  # it expires on its own
                log.warning("releasing the lease of partition %d: %s", part, exc or type(exc).__name__)
