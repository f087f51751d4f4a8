"""The JetStream streams memubot declares at start-up (their subjects: daemon/subjects.py).

`MEMUBOT_IN` holds every trigger (`memubot.in.>`) until memubot has committed its effects;
`MEMUBOT_OUT` holds what memubot says (`memubot.out.>`) for agents that were not listening.
Publishers set `Nats-Msg-Id` to the event id, so a retry inside the duplicate window is
dropped by the server; the idempotency ledger covers everything older.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig, SubjectTransform
from nats.js.errors import NoStreamResponseError, NotFoundError, ServiceUnavailableError

from daemon.subjects import IN_SUBJECTS, OUT_SUBJECTS, partition_transform

log = logging.getLogger(__name__)

DAY_S = 86400.0
# A JetStream cluster answers its API only once it has a meta leader, and a stream's or a
# consumer's change waits for its replicas: just after the nodes start, or while one is being
# replaced, a call times out or is refused as unavailable. It is tried again for this long.
JS_API_PATIENCE_S = 60.0

T = TypeVar("T")


async def patiently(call: Callable[[], Awaitable[T]], what: str, patience: float = JS_API_PATIENCE_S) -> T:
    """`call()`, tried again while JetStream times out, says it is unavailable or has no stream
    to answer yet (a cluster electing a leader, a stream just created); the last failure is
    raised after `patience` seconds."""
    deadline = time.monotonic() + patience
    delay = 0.25
    while True:
        try:
            return await call()
        except (
            nats.errors.TimeoutError,
            nats.errors.NoRespondersError,
            NoStreamResponseError,
            ServiceUnavailableError,
            TimeoutError,
        ) as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.info("%s: %s; trying again in %.2fs", what, exc or type(exc).__name__, delay)
            await asyncio.sleep(delay)
            delay = min(2.0, delay * 2)


@dataclass(frozen=True, slots=True)
class StreamLimits:
    """How much each stream keeps; the daemon's consumer normally drains MEMUBOT_IN at once."""

    in_max_age_days: float = 30.0
    in_max_bytes: int = 1 << 30
    out_max_age_days: float = 7.0
    out_max_bytes: int = 256 << 20
    duplicate_window_s: float = 2 * 3600.0  # publisher retries (e.g. after a reconnect) are dropped


def stream_configs(
    limits: StreamLimits | None = None, partitions: int = 0, replicas: int = 1
) -> list[StreamConfig]:
    """The two streams; with `partitions`, MEMUBOT_IN maps each scoped subject to its partition
    as it stores it (`memubot.in.scoped.<scope>.…` → `memubot.in.part.<p>.<scope>.…`, see
    docs/cluster.md), and `replicas` copies of each stream are kept on a cluster's nodes."""
    lim = limits or StreamLimits()
    transform = None
    if partitions:
        src, dest = partition_transform(partitions)
        transform = SubjectTransform(src=src, dest=dest)
    common = {
        "retention": RetentionPolicy.LIMITS,
        "storage": StorageType.FILE,
        # a full stream refuses new messages: the publisher sees an error, nothing is dropped silently
        "discard": DiscardPolicy.NEW,
        "duplicate_window": lim.duplicate_window_s,
        "num_replicas": replicas,
    }
    return [
        StreamConfig(
            name="MEMUBOT_IN",
            description="memubot triggers: conversation turns, ticks, GitHub, Gmail, feedback",
            subjects=[IN_SUBJECTS],
            max_age=lim.in_max_age_days * DAY_S,
            max_bytes=lim.in_max_bytes,
            subject_transform=transform,
            **common,  # type: ignore[arg-type]
        ),
        StreamConfig(
            name="MEMUBOT_OUT",
            description="memubot output: suggestions, prefetched context, memory operations",
            subjects=[OUT_SUBJECTS],
            max_age=lim.out_max_age_days * DAY_S,
            max_bytes=lim.out_max_bytes,
            **common,  # type: ignore[arg-type]
        ),
    ]


async def ensure_streams(
    js: JetStreamContext, limits: StreamLimits | None = None, partitions: int = 0, replicas: int = 1
) -> list[str]:
    """Create the streams, or bring an existing one to this configuration; returns their names."""
    names = []
    for config in stream_configs(limits, partitions, replicas):
        name = config.name
        assert name is not None

        async def ensure(config: StreamConfig = config, name: str = name) -> None:
            try:
                await js.stream_info(name)
            except NotFoundError:
                # another instance may create it at the same moment: the same configuration
                # twice is no error for the server
                await js.add_stream(config)
                log.info("created stream %s (%s)", name, ", ".join(config.subjects or []))
            else:
                await js.update_stream(config)

        await patiently(ensure, f"declaring stream {name}")
        names.append(name)
    return names
