"""SCHEDULES: the scheduled ticks as data — name, trigger, grace — in one visible list.

Each schedule publishes a tick on `memubot.in.tick.<name>` (DESIGN.md §4); the handlers decide
what a tick means. Add a schedule here and a handler for its subject, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]
from apscheduler.triggers.interval import IntervalTrigger  # type: ignore[import-untyped]

from daemon.errors import ConfigError

if TYPE_CHECKING:
    from daemon.config import Settings

HOUR = 3600.0
# The heartbeat counts its periods from here, not from start-up, so that its fire times (and the tick
# ids derived from them) are the same whenever the daemon was started or restarted.
GRID_ORIGIN = datetime(2000, 1, 1)


class Trigger(Protocol):
    """What memubot needs of an APScheduler 3 trigger (the library ships no type stubs)."""

    def get_next_fire_time(self, previous_fire_time: datetime | None, now: datetime) -> datetime | None: ...


@dataclass(frozen=True, slots=True)
class Schedule:
    """One scheduled tick; `trigger` and `grace_s` read the settings so that users can move them."""

    name: str
    trigger: Callable[[Settings], Trigger]  # an APScheduler trigger in `settings.tz`
    grace_s: Callable[[Settings], float]  # how late a fire may still run (after a suspend, say)
    about: str
    # why the schedule does not run with these settings (None: it runs); a trigger that is off
    # publishes no ticks at all rather than ticks that mean nothing
    off: Callable[[Settings], str | None] = lambda s: None


def daily(at: str, tz: ZoneInfo, key: str) -> Trigger:
    """Every day at the local time `at` ("HH:MM"); `key` names the setting in errors."""
    hh, sep, mm = at.strip().partition(":")
    if not (sep and hh.isdigit() and mm.isdigit() and int(hh) < 24 and int(mm) < 60):
        raise ConfigError(f"{key} must be a time of day as HH:MM, got {at!r}")
    trigger: Trigger = CronTrigger(hour=int(hh), minute=int(mm), timezone=tz)
    return trigger


def poll_period_s(settings: Settings) -> float:
    """GitHub polling's period (whole minutes, checked by the settings); 0 while polling is off."""
    return settings.github_poll_minutes * 60.0


def heartbeat_period_s(settings: Settings) -> float:
    """The heartbeat's period in whole seconds: a fractional second would drift off the minute ids."""
    period = round(settings.heartbeat_hours * HOUR)
    if period < 60:
        # tick ids have minute precision: two ticks in one minute would be one event
        raise ConfigError(f"heartbeat_hours must be at least one minute, got {settings.heartbeat_hours!r}")
    return float(period)


def every(period_s: float, tz: ZoneInfo) -> Trigger:
    """Every `period_s` seconds of elapsed time, on a grid counted from GRID_ORIGIN (local time).

    Elapsed time, not wall time: across a DST change the period stays exact and the local fire
    times shift by the offset change (a 4 h heartbeat at 00:00, 04:00 … in winter in Berlin fires at
    01:00, 05:00 … in summer).
    """
    trigger: Trigger = IntervalTrigger(
        seconds=int(period_s), start_date=GRID_ORIGIN.replace(tzinfo=tz), timezone=tz
    )
    return trigger


SCHEDULES: tuple[Schedule, ...] = (
    Schedule(
        "consolidate",
        trigger=lambda s: daily(s.consolidate_at, s.tz, "consolidate_at"),
        grace_s=lambda s: 12 * HOUR,
        about="daily memory upkeep: decay, tiers, consolidation, archiving (consolidate_at)",
    ),
    Schedule(
        "morning",
        trigger=lambda s: daily(s.morning_at, s.tz, "morning_at"),
        grace_s=lambda s: 2 * HOUR,
        about="the morning digest: what is due today and what to follow up (morning_at)",
    ),
    Schedule(
        "heartbeat",
        trigger=lambda s: every(heartbeat_period_s(s), s.tz),
        # one period: a missed heartbeat still counts until the next one is due
        grace_s=heartbeat_period_s,
        about="the periodic look for due reminders and stale follow-ups (heartbeat_hours)",
    ),
    Schedule(
        "gmail_watch",
        # users.watch lapses after 7 days; renewed daily (a no-op while Gmail is off)
        trigger=lambda s: daily(s.consolidate_at, s.tz, "consolidate_at"),
        grace_s=lambda s: 12 * HOUR,
        about="renews the Gmail users.watch (with consolidate_at; only while the Gmail trigger is on)",
    ),
    Schedule(
        "github_poll",
        trigger=lambda s: every(poll_period_s(s) or HOUR, s.tz),
        # one period: a poll missed during a suspend runs once; it reads all it missed anyway
        grace_s=lambda s: poll_period_s(s) or HOUR,
        about="reads the person's GitHub events through the API (github_poll_minutes; off at 0)",
        off=lambda s: s.github_poll_off(),
    ),
)


def active(schedules: Iterable[Schedule], settings: Settings) -> list[Schedule]:
    """The schedules that run with these settings."""
    return [s for s in schedules if s.off(settings) is None]
