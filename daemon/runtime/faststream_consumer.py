"""The monitor on FastStream: the consumer of `memubot.in.>` as a FastStream pull subscriber.

The same durable, the same batches and the same verdicts as daemon/runtime/consumer.py's
nats-py loop (this class inherits its batch handling, backlog, flush and health); only the way
messages arrive differs. FastStream 0.7's non-batch pull subscriber fetches like memubot's loop
(`fetch(batch, timeout)` once, which returns as soon as messages are there) and then calls the
handler once per message, all of a fetch at the same time. The handler puts its message in a
`Gather`: the first call of a fetch waits until the event loop brings no more calls, then hands
the whole gathering to the dispatcher as one batch (one embedding batch, one commit) and acks
or naks each message by its verdict; the other calls wait for their batch to be done.

FastStream's batch pull (`PullSub(batch=True)`) is not used: it keeps fetching until the batch
is full or its timeout ends, so a lone event waits out the timeout, and an inner fetch that
times out can leave a message to a pull request no one reads (docs/daemon.md has the numbers).

The subscriber runs on the daemon's own connection (SharedBroker), whose broker-wide ack policy
naks a message whose handler raised: only a bug in this module can get there, since a batch
that fails outside every handler is naked here with its retry delay, as the nats-py loop does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from faststream.nats import JStream, NatsMessage, PullSub
from faststream.nats.subscriber.usecases.stream_pull_subscriber import PullStreamSubscriber
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from daemon.runtime.consumer import IN_STREAM, Consumer, ConsumerParams, Handles
from daemon.runtime.shared_broker import SharedBroker
from daemon.subjects import IN_SUBJECTS

log = logging.getLogger(__name__)

# How many turns of the event loop without a new handler call end a gathering. FastStream starts
# a task per fetched message at once; each reaches the handler within its first turn or two
# (tests/runtime/test_faststream_consumer.py checks that a fetched burst is one batch).
QUIET_TURNS = 3


class Gather:
    """Gathers the handler calls of one fetch into one batch, run by the first call of it."""

    def __init__(self, run: Callable[[list[Msg]], Awaitable[None]], limit: int) -> None:
        self._run = run
        self._limit = limit
        self._waiting: list[tuple[Msg, asyncio.Future[None]]] = []
        self._leading = False
        self.busy_since: float | None = None  # when the batch in hand began, for health

    async def __call__(self, msg: Msg) -> None:
        """Return when `msg`'s batch has been dispatched and acked (or naked)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((msg, done))
        if not self._leading:
            self._leading = True
            try:
                await self._lead()
            finally:
                self._leading = False
                self.busy_since = None
                for _, left in self._waiting:  # cancelled midway (a stop that ran out of time)
                    left.cancel()
                self._waiting.clear()
        await done

    async def _lead(self) -> None:
        # calls that arrive while a batch is dispatched form the next batch, never a parallel one
        while self._waiting:
            quiet = 0
            while quiet < QUIET_TURNS and len(self._waiting) < self._limit:
                before = len(self._waiting)
                await asyncio.sleep(0)
                quiet = quiet + 1 if len(self._waiting) == before else 0
            batch, self._waiting = self._waiting[: self._limit], self._waiting[self._limit :]
            self.busy_since = time.monotonic()
            try:
                await self._run([m for m, _ in batch])
            except Exception as exc:  # the handlers raise it: the broker-wide policy naks them
                for _, done in batch:
                    done.set_exception(exc)
            else:
                for _, done in batch:
                    done.set_result(None)
            self.busy_since = None


def _as_message(msg: Any) -> Any:
    """No decoding: the dispatcher reads the bytes (a body FastStream cannot parse is a dead letter)."""
    return msg


class FastStreamConsumer(Consumer):
    """Pulls from MEMUBOT_IN through a FastStream subscriber; batches, acks and health as `Consumer`."""

    def __init__(
        self,
        nc: NATS,
        js: JetStreamContext,
        dispatcher: Handles,
        params: ConsumerParams | None = None,
        after_batch: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(js, dispatcher, params, after_batch)
        p = self.params
        self.broker = SharedBroker(nc, apply_types=False)
        self.gather = Gather(self._batch, p.batch)
        self.subscriber: PullStreamSubscriber = self.broker.subscriber(
            IN_SUBJECTS,
            stream=JStream(IN_STREAM, declare=False),
            durable=p.durable,
            pull_sub=PullSub(batch_size=p.batch, timeout=p.fetch_timeout_s),
            config=self.durable_config(),
            decoder=_as_message,
        )
        self.subscriber(self._on_message)

    @property
    def running(self) -> bool:
        return self.subscriber.running

    async def start(self) -> None:
        await self.declare()
        await self.broker.start()
        self._watch = asyncio.create_task(self._watch_backlog(), name="memubot-backlog")
        log.info(
            "consuming %s from %s as durable %r (FastStream)", IN_SUBJECTS, IN_STREAM, self.params.durable
        )

    async def _on_message(self, msg: NatsMessage) -> None:
        await self.gather(msg.raw_message)

    async def _batch(self, msgs: list[Msg]) -> None:
        await self._handle_batch(msgs)
        self.last_batch_at = time.monotonic()

    def healthy(self, max_batch_s: float) -> bool:
        """Running, no batch in hand for longer than `max_batch_s`, and not stalled. (The fetches
        happen inside FastStream, out of sight: an idle consumer is not a stuck one.)"""
        busy = self.gather.busy_since
        stuck = busy is not None and time.monotonic() - busy >= max_batch_s
        stalled = self.last_backlog is not None and self.last_backlog.stalled
        return self.running and not stuck and not stalled

    async def stop(self, timeout: float) -> None:
        """Stop fetching and let the batch in hand finish and ack (up to `timeout` seconds)."""
        self._stopping.set()
        if self._watch is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._watch, 5.0)
        # FastStream's own drain: no new message is handled, those in hand may finish for this
        # long, then the fetch task is cancelled (and with it a batch that did not finish: it is
        # redelivered). The pull subscription is unsubscribed; the durable stays on the server.
        self.broker.config.broker_config.graceful_timeout = timeout
        await self.broker.stop()
        log.info("consumer stopped after %d events", self.dispatcher.handled)
