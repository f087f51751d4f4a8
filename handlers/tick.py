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
        else:
            outcomes.append("noop")
    return outcomes
