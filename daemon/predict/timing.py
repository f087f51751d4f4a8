"""Timing rules of suggestions: local days, quiet hours, the morning, how an event is timed."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from daemon.config import Settings


def hm(value: str) -> time:
    hh, _, mm = value.partition(":")
    return time(int(hh), int(mm))


def local(t: datetime, settings: Settings) -> datetime:
    return t.astimezone(settings.tz)


def day_start(t: datetime, tz: ZoneInfo) -> datetime:
    """Local midnight of `t`'s day (as an aware time in `tz`)."""
    d = t.astimezone(tz).date()
    return datetime(d.year, d.month, d.day, tzinfo=tz)


def next_day_start(t: datetime, tz: ZoneInfo) -> datetime:
    d = t.astimezone(tz).date() + timedelta(days=1)
    return datetime(d.year, d.month, d.day, tzinfo=tz)


def at_local(t: datetime, clock: str, tz: ZoneInfo) -> datetime:
    """`clock` (HH:MM) on the local day of `t`."""
    d = t.astimezone(tz).date()
    c = hm(clock)
    return datetime(d.year, d.month, d.day, c.hour, c.minute, tzinfo=tz)


def is_timed(due: datetime, tz: ZoneInfo) -> bool:
    """The date rules resolve a day without a time ("on Friday") to local midnight — or, on a day
    whose clocks go forward at midnight (Beirut, Santiago), to the first hour that exists, 01:00."""
    t = due.astimezone(tz)
    if (t.hour, t.minute, t.second) == (0, 0, 0):
        return False
    first = day_start(t, tz).astimezone(UTC).astimezone(tz)  # a midnight in the gap: 01:00
    return t != first


def in_quiet(t: datetime, settings: Settings) -> bool:
    """Inside the quiet hours, both ends included: "until 07:00" means nothing at 07:00 sharp."""
    if settings.quiet_hours is None:
        return False
    start, end = (hm(x) for x in settings.quiet_hours)
    now = t.astimezone(settings.tz).time()
    if start < end:
        return start <= now <= end
    return now >= start or now <= end  # the window spans midnight


def allowed_at(t: datetime, settings: Settings, urgent: bool = False) -> datetime:
    """`t`, or the first minute after the quiet hours it falls in (urgent ones ignore them)."""
    if urgent or not in_quiet(t, settings):
        return t
    assert settings.quiet_hours is not None
    tz = settings.tz
    end = at_local(t, settings.quiet_hours[1], tz)
    if end < t:  # in the evening part of the window: it ends tomorrow (at its end exactly: today)
        end = at_local(next_day_start(t, tz), settings.quiet_hours[1], tz)
    return end + timedelta(minutes=1)


def last_allowed_before(t: datetime, settings: Settings) -> datetime:
    """`t`, or the last minute before the quiet hours it falls in (the evening before a 06:40
    train): a reminder that cannot come at its time comes earlier, never later."""
    if not in_quiet(t, settings):
        return t
    assert settings.quiet_hours is not None
    tz = settings.tz
    start = at_local(t, settings.quiet_hours[0], tz)
    if start > t:  # in the morning part of a window that began the evening before
        start = at_local(day_start(t, tz) - timedelta(hours=12), settings.quiet_hours[0], tz)
    return start - timedelta(minutes=1)
