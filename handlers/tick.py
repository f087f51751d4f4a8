"""Scheduled ticks: the daily consolidation; the morning digest; the heartbeat catches predictors up;
GitHub polling reads the person's events (published on `memubot.in.github`, handled there).

The morning tick runs the digest predictor for every scope (nothing is sent when there is
nothing to say). The heartbeat re-reads the memory-op log after the predict cursor, so that
ops a failed prediction left behind are predicted from within hours, not at the next turn, and
re-arms the delivery timer (after a suspend, the wall clock has moved past its sleep).
Delivering what is due is the delivery timer's job, not a tick's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from daemon import jobs
from daemon.events import Tick
from daemon.predict import engine
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
        elif tick.schedule == "github_poll" and deps.github_poll is not None:
            try:
                report = await deps.github_poll.poll()
            # GitHub unreachable or limiting: the cursor stays, the next tick reads on
            except Exception as exc:
                log.warning("tick %s: github poll failed: %s", tick.id, exc)
                outcomes.append("poll_failed")
            else:
                outcomes.append("polled" if getattr(report, "published", 0) else "noop")
        elif tick.schedule == "morning":
            proposed = await asyncio.to_thread(engine.morning, deps.memory, deps.settings, tick.fired_at)
            log.info("tick %s: %d digest(s) proposed", tick.id, len(proposed))
            if proposed:
                deps.out.wake()
            outcomes.append("digest" if proposed else "noop")
        elif tick.schedule == "heartbeat":
            if deps.gmail is not None:
                # the periodic history.list: catches notifications Pub/Sub dropped or never sent
                try:
                    await deps.gmail.sync()
                except Exception as exc:  # Gmail unreachable: the next heartbeat tries again
                    log.warning("tick %s: gmail catch-up failed: %s", tick.id, exc)
            proposed = await asyncio.to_thread(engine.after_memory, deps.memory, deps.settings, tick.fired_at)
            # also re-arms the delivery timer: after a suspend the wall clock is ahead of its sleep
            deps.out.wake()
            outcomes.append("predicted" if proposed else "noop")
        else:
            outcomes.append("noop")
    return outcomes
