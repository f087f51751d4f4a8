"""The monitor: a durable JetStream pull consumer of `memubot.in.>` that acks after commit.

Messages are fetched in batches and handed to the dispatcher; each message is acknowledged
only after the dispatcher's verdict, i.e. after its effects (or its dead-letter record) are
committed to DuckDB. A failure is negatively acknowledged with a growing delay; on the last
delivery attempt the dispatcher dead-letters it instead. A crash before the ack means the
server delivers again, and the idempotency ledger makes that harmless.

Health is measured on the server's side too: a consumer that fetches and fails every batch
looks busy, so `backlog()` asks how old the oldest event not yet acknowledged is and how long
ago anything was acknowledged; events waiting while nothing is handled for `stall_after_s`
make the consumer unhealthy (not ready, and no watchdog ping).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

from daemon.runtime.dispatch import ACK, Incoming, Verdict
from daemon.runtime.metrics import Metrics
from daemon.runtime.streams import patiently
from daemon.subjects import IN_SUBJECTS

log = logging.getLogger(__name__)

IN_STREAM = "MEMUBOT_IN"
# a question about the consumer waits this long for a cluster that is electing its leader
PATIENCE_S = 15.0


@dataclass(frozen=True, slots=True)
class ConsumerParams:
    """How the consumer pulls and retries (docs/daemon.md lists the defaults)."""

    durable: str = "memubot"
    batch: int = 64  # turns embedded together: one batch is one commit
    max_deliver: int = 5  # the fifth failure is a dead letter
    backoff_s: tuple[float, ...] = (2.0, 10.0, 60.0, 300.0)  # delay before attempt 2, 3, 4, 5
    # A batch in hand is redelivered this long after its last sign of life, e.g. after a crash;
    # while a batch is being handled its messages are marked in progress every third of it.
    ack_wait_s: float = 30.0
    fetch_timeout_s: float = 1.0
    # Events waiting while none was acknowledged for this long is a stall. It must exceed the
    # longest retry delay (300 s), during which a lone failing event is rightly left alone.
    stall_after_s: float = 600.0
    backlog_every_s: float = 5.0  # how often the server is asked how far behind the consumer is
    # what the durable reads from MEMUBOT_IN: everything, or one partition, or the subjects
    # without a scope in a cluster (docs/cluster.md)
    filter_subjects: tuple[str, ...] = (IN_SUBJECTS,)


class Handles(Protocol):
    """What the consumer hands its batches to: the dispatcher, or a stage before it."""

    @property
    def metrics(self) -> Metrics: ...

    @property
    def handled(self) -> int: ...

    async def dispatch(self, batch: Sequence[Incoming]) -> list[Verdict]: ...


@dataclass(frozen=True, slots=True)
class Backlog:
    """How far behind the consumer is: events received (stored on the bus) but not yet handled."""

    unhandled: int  # waiting to be delivered, in flight, or waiting for a retry
    oldest_age_s: float  # how long the oldest of them has been on the bus; 0 when there is none
    since_progress_s: float  # since an event was last acknowledged; 0 while there is nothing to do
    stalled: bool  # events waiting, and none acknowledged, for longer than `stall_after_s`

    def as_json(self) -> dict[str, float | int | bool]:
        return {
            "unhandled": self.unhandled,
            "oldest_unhandled_age_s": round(self.oldest_age_s, 1),
            "since_progress_s": round(self.since_progress_s, 1),
            "stalled": self.stalled,
        }


class Consumer:
    """Pulls from MEMUBOT_IN, dispatches, acks or naks; `stop()` lets the current batch finish."""

    def __init__(
        self,
        js: JetStreamContext,
        dispatcher: Handles,
        params: ConsumerParams | None = None,
        after_batch: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.js = js
        self.dispatcher = dispatcher
        self.params = params or ConsumerParams()
        self.after_batch = after_batch
        self._sub: JetStreamContext.PullSubscription | None = None
        self._task: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self.last_batch_at = time.monotonic()
        self.last_progress_at = time.monotonic()  # an event acknowledged, or nothing to do
        self.last_backlog: Backlog | None = None  # the latest `backlog()`, for synchronous health checks

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def declare(self) -> None:
        """Create the durable consumer, or bring an existing one to this configuration."""
        # create, or bring an existing durable to this configuration (pull_subscribe would not)
        await patiently(
            lambda: self.js.add_consumer(IN_STREAM, self.durable_config()),
            f"declaring consumer {self.params.durable}",
        )

    def durable_config(self) -> ConsumerConfig:
        """The durable consumer on the server, as `declare()` creates it."""
        p = self.params
        return ConsumerConfig(
            durable_name=p.durable,
            ack_policy=AckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL,
            # The server never gives up on a message: the dispatcher dead-letters it after
            # `max_deliver` attempts, even when those attempts ended in crashes (a server-side
            # limit would drop it silently, with no dead letter and a stuck ack floor).
            max_deliver=-1,
            ack_wait=p.ack_wait_s,
            max_ack_pending=max(1000, 4 * p.batch),
            filter_subject=p.filter_subjects[0] if len(p.filter_subjects) == 1 else None,
            filter_subjects=list(p.filter_subjects) if len(p.filter_subjects) > 1 else None,
        )

    async def start(self) -> None:
        p = self.params
        await self.declare()
        # bind to the durable just declared (with its one filter, or several)
        self._sub = await self.js.pull_subscribe_bind(durable=p.durable, stream=IN_STREAM)
        self._task = asyncio.create_task(self._run(), name=f"{p.durable}-consumer")
        self._watch = asyncio.create_task(self._watch_backlog(), name=f"{p.durable}-backlog")
        log.info("consuming %s from %s as durable %r", ", ".join(p.filter_subjects), IN_STREAM, p.durable)

    async def _run(self) -> None:
        assert self._sub is not None
        while not self._stopping.is_set():
            try:
                msgs = await self._sub.fetch(self.params.batch, timeout=self.params.fetch_timeout_s)
            except (NatsTimeout, TimeoutError):
                # nats-py raises its own timeout, or the built-in one when its deadline ran out
                # between two internal requests: both just mean "nothing to fetch yet"
                self.last_batch_at = time.monotonic()
                continue
            except Exception as exc:  # a broken connection: nats-py reconnects; try again shortly
                if self._stopping.is_set():
                    break
                log.warning("fetching from %s failed: %s", IN_STREAM, exc)
                await asyncio.sleep(1.0)
                continue
            await self._handle_batch(msgs)
            self.last_batch_at = time.monotonic()

    async def _handle_batch(self, msgs: list[Msg]) -> None:
        """Dispatch one fetched batch and ack or nak each message; never raises for the store."""
        try:
            await self._process(msgs)
        except Exception:  # the store failed under the dispatcher: retry later, keep consuming
            log.exception("a batch of %d events failed outside any handler: retrying it later", len(msgs))
            for m in msgs:
                with contextlib.suppress(Exception):
                    await m.nak(delay=self._backoff(m.metadata.num_delivered))

    async def _process(self, msgs: list[Msg]) -> None:
        batch = []
        for m in msgs:
            meta = m.metadata
            batch.append(
                Incoming(
                    subject=m.subject,
                    data=m.data,
                    attempt=meta.num_delivered,
                    max_attempts=self.params.max_deliver,
                    stream_seq=meta.sequence.stream,
                )
            )
        alive = asyncio.create_task(self._keep_alive(msgs), name="memubot-in-progress")
        try:
            verdicts = await self.dispatcher.dispatch(batch)
        finally:
            alive.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await alive
        for m, msg, verdict in zip(msgs, batch, verdicts, strict=True):
            if verdict.action == ACK:
                await m.ack()
                self.last_progress_at = time.monotonic()
            else:
                await m.nak(delay=self._backoff(msg.attempt))
        if self.after_batch is not None:
            await self.after_batch()

    def _backoff(self, attempt: int) -> float:
        backoff = self.params.backoff_s
        return backoff[max(0, min(attempt, len(backoff)) - 1)]

    def healthy(self, max_batch_s: float) -> bool:
        """Running, a fetch or a batch finished within `max_batch_s` (a stuck store is not), and
        not stalled (batches that finish but acknowledge nothing, e.g. all failing, are not)."""
        stalled = self.last_backlog is not None and self.last_backlog.stalled
        return self.running and time.monotonic() - self.last_batch_at < max_batch_s and not stalled

    async def backlog(self) -> Backlog:
        """Ask the server how many events are not yet handled and how old the oldest one is."""
        info = await self.js.consumer_info(IN_STREAM, self.params.durable)
        unhandled = int(info.num_pending or 0) + int(info.num_ack_pending or 0)
        now = time.monotonic()
        oldest_age = 0.0
        if unhandled == 0:
            self.last_progress_at = now  # nothing to do is not a stall
        else:
            floor = int(info.ack_floor.stream_seq or 0) if info.ack_floor else 0
            # everything up to the ack floor is handled: the next event on the stream is the
            # oldest one that is not (`next` steps over a sequence number the stream dropped)
            with contextlib.suppress(Exception):
                filters = self.params.filter_subjects
                oldest = await self.js.get_msg(
                    IN_STREAM,
                    seq=floor + 1,
                    subject=filters[0] if len(filters) == 1 else IN_SUBJECTS,
                    next=True,
                )
                if oldest.time is not None:
                    oldest_age = max(0.0, (datetime.now(UTC) - oldest.time).total_seconds())
        since = now - self.last_progress_at
        stall = self.params.stall_after_s
        backlog = Backlog(
            unhandled, oldest_age, since, unhandled > 0 and since > stall and oldest_age > stall
        )
        if backlog.stalled and not (self.last_backlog and self.last_backlog.stalled):
            log.error(
                "consumer stalled: %d events unhandled, the oldest %.0fs old, none handled for %.0fs",
                unhandled,
                oldest_age,
                since,
            )
        self.last_backlog = backlog
        return backlog

    async def _watch_backlog(self) -> None:
        """Keep `last_backlog` and the backlog metrics fresh while the consumer runs."""
        metrics: Metrics = self.dispatcher.metrics
        while not self._stopping.is_set():
            try:
                b = await self.backlog()
                metrics.backlog(b.unhandled, b.oldest_age_s, b.since_progress_s)
            except Exception as exc:  # the broker is away: its own health check says so
                log.debug("backlog unknown: %s", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.params.backlog_every_s)

    async def _keep_alive(self, msgs: list[Msg]) -> None:
        """Tell the server the batch is still being worked on (a long embedding or LLM call)."""
        while True:
            await asyncio.sleep(self.params.ack_wait_s / 3)
            for m in msgs:
                with contextlib.suppress(Exception):
                    await m.in_progress()

    async def pending(self) -> tuple[int, int]:
        """(published but not yet delivered, delivered but not yet acked) according to the server."""
        info = await patiently(
            lambda: self.js.consumer_info(IN_STREAM, self.params.durable),
            f"asking for consumer {self.params.durable}",
            PATIENCE_S,
        )
        return int(info.num_pending or 0), int(info.num_ack_pending or 0)

    async def flush(self, timeout: float) -> int:
        """Wait until every event published before this call is acked; returns the stream position."""
        deadline = time.monotonic() + timeout
        target = await patiently(self.last_seq, "reading the stream position", max(0.1, timeout))
        while True:
            info = await patiently(
                lambda: self.js.consumer_info(IN_STREAM, self.params.durable),
                f"asking for consumer {self.params.durable}",
                max(0.1, deadline - time.monotonic()),
            )
            floor = int(info.ack_floor.stream_seq or 0) if info.ack_floor else 0
            if floor >= target:
                return target
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"after {timeout:.0f}s, events up to stream position {target} are not all handled "
                    f"(acked through {floor}; {info.num_ack_pending} in flight or waiting for a retry)"
                )
            await asyncio.sleep(0.05)

    async def last_seq(self) -> int:
        """The stream position of the last event this consumer's filter takes (0: none yet)."""
        if self.params.filter_subjects == (IN_SUBJECTS,):
            return int((await self.js.stream_info(IN_STREAM)).state.last_seq or 0)
        last = 0
        for subject in self.params.filter_subjects:
            with contextlib.suppress(NotFoundError):
                last = max(last, int((await self.js.get_last_msg(IN_STREAM, subject)).seq or 0))
        return last

    async def stop(self, timeout: float) -> None:
        """Stop fetching and let the batch in hand finish and ack (up to `timeout` seconds)."""
        self._stopping.set()
        if self._watch is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._watch, 5.0)
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            log.warning("the batch in hand did not finish within %.0fs: it will be redelivered", timeout)
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._sub is not None:
            # unsubscribing a pull subscription keeps the durable consumer on the server
            with contextlib.suppress(Exception):
                await self._sub.unsubscribe()
        log.info("consumer stopped after %d events", self.dispatcher.handled)
