"""Scheduled ticks: the daily consolidation now; the morning and heartbeat ticks wake predictors.

Predictors arrive with the predict → act work; until then a morning or heartbeat tick is only
recorded (outcome "noop"), which already proves it is handled once per scheduled moment.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from daemon import jobs
from daemon.events import Tick
from handlers.deps import Deps

log = logging.getLogger(__name__)


async def handle(ticks: Sequence[Tick], deps: Deps) -> list[str]:
    outcomes = []
    for tick in ticks:
        if tick.schedule == "consolidate":
            # the job runs at the tick's scheduled time: a replay decays memories in event time
            report = await asyncio.to_thread(
                jobs.consolidate, deps.memory, deps.settings, None, tick.fired_at
            )
            log.info("tick %s: consolidated %d scopes", tick.id, len(report["scopes"]))
            outcomes.append("consolidated")
        elif tick.schedule == "gmail_watch" and deps.gmail is not None and deps.settings.gmail_topic:
            # users.watch lapses after 7 days: renewed daily (a failure raises: the tick is retried)
            await deps.gmail.renew_watch(deps.settings.gmail_topic)
            outcomes.append("watch_renewed")
        elif tick.schedule == "heartbeat" and deps.gmail is not None:
            # the periodic history.list: catches notifications Pub/Sub dropped or never sent
            try:
                await deps.gmail.sync()
            except Exception as exc:  # Gmail unreachable: the next heartbeat tries again
                log.warning("tick %s: gmail catch-up failed: %s", tick.id, exc)
            outcomes.append("noop")
        else:
            outcomes.append("noop")
    return outcomes
