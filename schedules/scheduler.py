"""TickScheduler: APScheduler runs the SCHEDULES and publishes one tick per scheduled moment.

A tick's id is its *scheduled* fire time (minute precision, UTC), never the moment the job happened
to run: a job that runs late (after a suspend, within its grace) or again after a restart publishes
the same id, and the bus's de-duplication keeps it to one event.

At start, `catch_up` publishes what was missed while memubot was down — only moments after the
last tick this state directory handled, and never before memubot first ran on it.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]

from daemon.events import tick_body, tick_time
from daemon.subjects import tick_subject
from schedules import SCHEDULES, Schedule, Trigger, active

if TYPE_CHECKING:
    from daemon.config import Settings

log = logging.getLogger(__name__)

Publish = Callable[[str, dict[str, str]], Awaitable[None]]
Clock = Callable[[], datetime]


class TickHistory(Protocol):
    """What catch-up needs to know of the past (the ledger answers it from the DuckDB file)."""

    def first_start(self, now: datetime) -> datetime:
        """When memubot first ran on this state directory (recorded as `now` the first time)."""
        ...

    def last_ticks(self, prefix: str) -> dict[str, str]:
        """The newest handled tick id per subject under `prefix`."""
        ...


def _aware(value: datetime, name: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must carry a UTC offset, got {value.isoformat()}")
    return value


def _next(trigger: Trigger, previous: datetime | None, now: datetime) -> datetime | None:
    nxt: datetime | None = trigger.get_next_fire_time(previous, now)
    return nxt


def _times(trigger: Trigger, start: datetime, end: datetime) -> Iterator[datetime]:
    """Fire times in [start, end]; compared as instants (same-zone datetimes compare as wall times)."""
    stop = end.timestamp()
    fire = _next(trigger, None, start)
    while fire is not None and fire.timestamp() <= stop:
        yield fire
        nxt = _next(trigger, fire, fire)
        if nxt is None or nxt.timestamp() <= fire.timestamp():
            return  # a trigger that does not move forward would loop for ever
        fire = nxt


def latest_fire_time(trigger: Trigger, now: datetime, window_s: float) -> datetime | None:
    """The latest fire time t of `trigger` with now - window_s <= t <= now, or None.

    A job does not learn which scheduled moment it runs for; this recovers it, so that a late
    (coalesced) run publishes the id of the moment it stands for.
    """
    if window_s < 0:
        raise ValueError(f"window_s must not be negative, got {window_s!r}")
    # arithmetic in UTC: subtracting from a local time is wall-clock arithmetic, wrong across DST
    now_utc = _aware(now, "now").astimezone(UTC)
    latest = None
    for fire in _times(trigger, now_utc - timedelta(seconds=window_s), now_utc):
        latest = fire
    return latest


def fire_times(
    schedules: Iterable[Schedule], settings: Settings, start: datetime, end: datetime
) -> list[tuple[datetime, str]]:
    """Every (fire time, schedule name) in [start, end], by time then name: ticks for a replay."""
    start_utc = _aware(start, "start").astimezone(UTC)
    end_utc = _aware(end, "end").astimezone(UTC)
    found = [
        (fire, s.name)
        for s in active(schedules, settings)
        for fire in _times(s.trigger(settings), start_utc, end_utc)
    ]
    found.sort(key=lambda pair: (pair[0].timestamp(), pair[1]))
    return found


class TickScheduler:
    """One APScheduler job per schedule; each run publishes `tick_body` on `tick_subject(name)`."""

    def __init__(
        self,
        settings: Settings,
        publish: Publish,
        schedules: Iterable[Schedule] = SCHEDULES,
        clock: Clock | None = None,
    ) -> None:
        self._publish = publish
        self._clock: Clock = clock or (lambda: datetime.now(UTC))
        # triggers are built here so that a malformed setting fails at start-up, not at the first fire
        self._plans: dict[str, tuple[Trigger, float]] = {}
        for schedule in active(schedules, settings):
            if schedule.name in self._plans:
                raise ValueError(f"schedule {schedule.name!r} is listed twice")
            self._plans[schedule.name] = (schedule.trigger(settings), schedule.grace_s(settings))
        self._scheduler = AsyncIOScheduler(timezone=settings.tz)
        self._inflight: set[asyncio.Task[bool]] = set()
        self._stopping = False

    @property
    def running(self) -> bool:
        """True between start() and shutdown()."""
        return bool(self._scheduler.running) and not self._stopping

    def start(self) -> None:
        """Add one job per schedule and start firing (call from inside the running event loop)."""
        self._scheduler.start()  # first: jobs added to a running scheduler are scheduled at once
        for name, (trigger, grace) in self._plans.items():
            self._scheduler.add_job(
                self.fire,
                trigger,
                args=(name,),
                id=name,
                name=f"tick {name}",
                # several fires missed during a suspend run once, for the latest one within grace
                coalesce=True,
                misfire_grace_time=max(1, math.ceil(grace)),  # APScheduler wants whole seconds
                max_instances=1,
                replace_existing=True,
            )
        for name, next_at in self.jobs():
            log.info("schedule %s: next tick at %s", name, next_at.isoformat() if next_at else "never")

    async def catch_up(self, history: TickHistory) -> list[str]:
        """Publish each schedule's latest tick within its grace that was missed while we were down.

        A restart around a fire time would otherwise lose that tick. Missed means: after the last
        tick of that schedule this state directory handled, and after memubot first ran here — a
        first start publishes nothing for moments before memubot existed, and a restart does not
        publish again what was handled before it.
        """
        now = self._clock()
        first = await asyncio.to_thread(history.first_start, now)
        handled = await asyncio.to_thread(history.last_ticks, tick_subject(""))
        sent = []
        for name, (trigger, grace) in self._plans.items():
            fire_time = latest_fire_time(trigger, now, grace)
            if fire_time is None:
                continue
            last = tick_time(handled[tick_subject(name)]) if tick_subject(name) in handled else None
            since = max(first, last) if last is not None else first
            if fire_time.timestamp() <= since.timestamp():
                continue
            tick = await self.fire(name)
            if tick:
                sent.append(tick)
        return sent

    def jobs(self) -> list[tuple[str, datetime | None]]:
        """(schedule, next fire time) for each schedule: the scheduler's own while it runs."""
        if self._scheduler.running:
            next_run = {job.id: getattr(job, "next_run_time", None) for job in self._scheduler.get_jobs()}
            return [(name, next_run.get(name)) for name in self._plans]
        now = self._clock()
        return [(name, _next(trigger, None, now)) for name, (trigger, _) in self._plans.items()]

    async def fire(self, name: str) -> str | None:
        """Publish the tick schedule `name` stands for now; the tick id if it was published.

        This is the job APScheduler runs; the CLI may call it too. The fire time is the latest
        scheduled one within the grace, so a late run still publishes the scheduled id.
        """
        if self._stopping:
            return None  # submitted as shutdown began: nothing is published half-way through a stop
        trigger, grace = self._plans[name]
        now = self._clock()
        fire_time = latest_fire_time(trigger, now, grace)
        if fire_time is None:
            log.warning("schedule %s: no fire time in the %.0f s before %s; no tick", name, grace, now)
            return None
        body = tick_body(name, fire_time)
        task = asyncio.create_task(self._send(name, body), name=f"tick {body['id']}")
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        # asyncio.wait, not a plain await: APScheduler cancels its job tasks when it shuts down, and
        # a publish under way should finish rather than be cut off (shutdown waits for it)
        await asyncio.wait({task})
        return body["id"] if not task.cancelled() and task.result() else None

    async def _send(self, name: str, body: dict[str, str]) -> bool:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            await self._publish(tick_subject(name), body)
        except Exception:
            # one failed tick must not stop the schedule: the next fire publishes again
            log.exception("tick %s: publish to %s failed", body["id"], tick_subject(name))
            return False
        log.info(
            "tick %s: published to %s in %.0f ms",
            body["id"],
            tick_subject(name),
            (loop.time() - started) * 1e3,
        )
        return True

    async def shutdown(self, timeout: float = 10.0) -> None:
        """Stop firing, let a publish under way finish (at most `timeout` s), stop APScheduler."""
        if self._stopping or not self._scheduler.running:
            return
        self._stopping = True
        self._scheduler.pause()  # no new submissions from here on
        # a job submitted in this same loop iteration starts now, sees _stopping and returns
        await asyncio.sleep(0)
        if self._inflight:
            _, pending = await asyncio.wait(set(self._inflight), timeout=timeout)
            for task in pending:
                log.warning("%s: still publishing after %g s; cancelled", task.get_name(), timeout)
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=timeout)
        # APScheduler defers its shutdown to the next loop iteration (call_soon_threadsafe)
        self._scheduler.shutdown(wait=False)
        for _ in range(100):
            if not self._scheduler.running:
                break
            await asyncio.sleep(0)
        else:
            log.warning("the scheduler did not confirm its shutdown")
        log.info("scheduler stopped")
