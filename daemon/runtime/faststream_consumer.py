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

It is the daemon's default (MEMUBOT_CONSUMER). Three things FastStream's own subscriber does are
replaced here: its stop (`stop`), its handling of a fetch that fails (`_watch_fetches`) and what
health can see of its fetches; docs/daemon.md says why, with the numbers.
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

log = logging.getLogger(__name__)

# after a fetch that failed at once (no durable, no stream, no link), the next one waits this long
FETCH_RETRY_S = 1.0

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
            try:
                await self._run([m for m, _ in batch])
            except Exception as exc:  # the handlers raise it: the broker-wide policy naks them
                for _, done in batch:
                    done.set_exception(exc)
            else:
                for _, done in batch:
                    done.set_result(None)


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
        self.returned = 0  # events fetched while stopping, naked back to the stream
        # the durable's filter decides what is fetched (declared by `declare()`, bound by name);
        # the subject names it for FastStream's logs and AsyncAPI
        self.subscriber: PullStreamSubscriber = self.broker.subscriber(
            p.filter_subjects[0],
            stream=JStream(IN_STREAM, declare=False),
            durable=p.durable,
            pull_sub=PullSub(batch_size=p.batch, timeout=p.fetch_timeout_s),
            config=self.durable_config(),
            decoder=_as_message,
        )
        self.subscriber(self._on_message)
        # Every fetched message passes here before FastStream's `consume`, which drops (leaves
        # unacked, for the server to send again after the ack wait) whatever a fetch returns once
        # the subscriber has stopped running. Set on the instance: `_create_subscription` reads
        # `self.consume` when it starts the fetch loop.
        self._consume = self.subscriber.consume
        self.subscriber.consume = self._consume_or_return  # type: ignore[method-assign]

    @property
    def running(self) -> bool:
        return self.subscriber.running

    async def start(self) -> None:
        await self.declare()
        await self.broker.start()
        self._watch_fetches()
        self._watch = asyncio.create_task(self._watch_backlog(), name="memubot-backlog")
        p = self.params
        log.info(
            "consuming %s from %s as durable %r (FastStream)",
            ", ".join(p.filter_subjects),
            IN_STREAM,
            p.durable,
        )

    def _watch_fetches(self) -> None:
        """Wrap the pull subscription's `fetch`, which FastStream's loop calls. A fetch that
        returned, or timed out with nothing to bring, is a sign of life for health. A fetch that
        failed is logged and waited on here and returns nothing: FastStream's loop would fetch
        again at once after the errors it expects (a missing durable fails at once: 3
        CPU-seconds in 5 s, measured) and end with a traceback on any other, such as the
        built-in TimeoutError nats-py raises when its deadline runs out between two requests."""
        sub = self.subscriber.subscription
        assert sub is not None, "the broker has started the subscriber"
        fetch = sub.fetch

        async def fetch_or_wait(*args: Any, **kwargs: Any) -> list[Msg]:
            try:
                msgs: list[Msg] = await fetch(*args, **kwargs)
            except TimeoutError:  # nats-py's (a subclass) or the built-in one: nothing yet
                self.last_batch_at = time.monotonic()
                return []
            except Exception as exc:  # a broken connection, a durable or stream that is gone
                if not self._stopping.is_set():
                    log.warning("fetching from %s failed: %s", IN_STREAM, exc)
                    await asyncio.sleep(FETCH_RETRY_S)
                return []
            self.last_batch_at = time.monotonic()
            return msgs

        sub.fetch = fetch_or_wait  # type: ignore[method-assign]

    async def _consume_or_return(self, msg: Msg) -> Any:
        if self._stopping.is_set():
            # fetched after the stop began: back to the stream now, not after the 30 s ack wait
            with contextlib.suppress(Exception):
                await msg.nak()
            self.returned += 1
            return None
        return await self._consume(msg)

    async def _on_message(self, msg: NatsMessage) -> None:
        await self.gather(msg.raw_message)

    async def _batch(self, msgs: list[Msg]) -> None:
        await self._handle_batch(msgs)
        self.last_batch_at = time.monotonic()

    @property
    def fetching(self) -> bool:
        """FastStream's fetch loop is alive (it ends when stopped; on an error FastStream restarts it)."""
        return any(not t.done() for t in self.subscriber.tasks)

    def healthy(self, max_batch_s: float) -> bool:
        """As `Consumer.healthy` (a fetch or a batch ended within `max_batch_s`, not stalled), and
        FastStream's fetch loop is alive."""
        return super().healthy(max_batch_s) and self.fetching

    async def stop(self, timeout: float) -> None:
        """Stop fetching, let the batch in hand finish and ack (up to `timeout` seconds), and give
        back at once what the last fetch brought."""
        self._stopping.set()
        if self._watch is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._watch, 5.0)
        # The fetch loop checks `running` before each fetch: it ends after the fetch in flight and
        # the batch in hand. Cancelling it mid-fetch (FastStream's own stop) would leave what the
        # server sends to that pull request in flight until the ack wait ends.
        self.subscriber.running = False
        loops = [t for t in self.subscriber.tasks if not t.done()]
        if loops:
            _, late = await asyncio.wait(loops, timeout=timeout + self.params.fetch_timeout_s)
            if late:
                log.warning("the batch in hand did not finish within %.0fs: it will be redelivered", timeout)
        # what is left (nothing, unless the wait ran out) is cancelled; the pull subscription is
        # unsubscribed; the durable stays on the server
        self.broker.config.broker_config.graceful_timeout = 0.1
        await self.broker.stop()
        if self.returned:
            log.info("%d events fetched during the stop went back to the stream", self.returned)
        log.info("consumer stopped after %d events", self.dispatcher.handled)
