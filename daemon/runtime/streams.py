"""The JetStream streams memubot declares at start-up (their subjects: daemon/subjects.py).

`MEMUBOT_IN` holds every trigger (`memubot.in.>`) until memubot has committed its effects;
`MEMUBOT_OUT` holds what memubot says (`memubot.out.>`) for agents that were not listening.
Publishers set `Nats-Msg-Id` to the event id, so a retry inside the duplicate window is
dropped by the server; the idempotency ledger covers everything older.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig, SubjectTransform
from nats.js.errors import NotFoundError

from daemon.subjects import IN_SUBJECTS, OUT_SUBJECTS, partition_transform

log = logging.getLogger(__name__)

DAY_S = 86400.0


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
        assert config.name is not None
        try:
            await js.stream_info(config.name)
        except NotFoundError:
            await js.add_stream(config)
            log.info("created stream %s (%s)", config.name, ", ".join(config.subjects or []))
        else:
            await js.update_stream(config)
        names.append(config.name)
    return names
