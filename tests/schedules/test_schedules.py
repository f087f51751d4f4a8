"""SCHEDULES and TickScheduler: fire times in local time, scheduled tick ids, a real APScheduler."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]

from daemon.config import Settings
from daemon.errors import ConfigError
from daemon.events import tick_body, tick_id, tick_time
from daemon.memory import Store
from daemon.state.ledger import Handled, Ledger
from daemon.subjects import tick_subject
from schedules import SCHEDULES, Schedule, active
from schedules.scheduler import TickScheduler, fire_times, latest_fire_time

BERLIN = ZoneInfo("Europe/Berlin")
ID = re.compile(r"^[a-z-]+:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$")


def settings(**overrides: Any) -> Settings:
    return Settings(state_dir=Path("/nonexistent"), db_path=Path("/nonexistent/m.duckdb"), **overrides)


def by_name(name: str) -> Schedule:
    return next(s for s in SCHEDULES if s.name == name)


def ids(pairs: list[tuple[datetime, str]]) -> list[str]:
    return [tick_id(name, at) for at, name in pairs]


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# ---- the list ---------------------------------------------------------------------------


def test_schedules_have_unique_names_triggers_and_graces() -> None:
    names = [s.name for s in SCHEDULES]
    assert names == ["consolidate", "morning", "heartbeat", "gmail_watch", "github_poll"]
    s = settings(timezone="Europe/Berlin")
    for schedule in SCHEDULES:
        trigger = schedule.trigger(s)
        assert trigger.get_next_fire_time(None, datetime.now(UTC)) is not None
        assert schedule.grace_s(s) > 0 and schedule.about
    assert tick_subject("morning") == "memubot.in.tick.morning"


def test_graces() -> None:
    s = settings(heartbeat_hours=6)
    assert {x.name: x.grace_s(s) for x in SCHEDULES} == {
        "consolidate": 12 * 3600,
        "morning": 2 * 3600,
        "heartbeat": 6 * 3600,
        "gmail_watch": 12 * 3600,
        "github_poll": 3600,  # off: its trigger is never built into a job
    }


def test_malformed_times_name_the_setting() -> None:
    with pytest.raises(ConfigError, match="morning_at"):
        by_name("morning").trigger(settings(morning_at="9h"))
    with pytest.raises(ConfigError, match="heartbeat_hours"):
        by_name("heartbeat").trigger(settings(heartbeat_hours=0.001))


# ---- fire times in local time -------------------------------------------------------------


def test_morning_stays_at_nine_local_across_the_dst_change() -> None:
    s = settings(timezone="Europe/Berlin")
    got = fire_times(
        [by_name("morning")], s, datetime(2024, 3, 29, tzinfo=BERLIN), datetime(2024, 4, 2, tzinfo=BERLIN)
    )
    assert [(at.hour, at.minute) for at, _ in got] == [(9, 0)] * 4
    # Berlin moves from UTC+1 to UTC+2 on 31 March: the UTC hour of the tick moves, the local one not
    assert ids(got) == [
        "morning:2024-03-29T08:00Z",
        "morning:2024-03-30T08:00Z",
        "morning:2024-03-31T07:00Z",
        "morning:2024-04-01T07:00Z",
    ]


def test_consolidate_at_half_past_three_local() -> None:
    s = settings(timezone="Europe/Berlin")
    got = fire_times(
        [by_name("consolidate")],
        s,
        datetime(2024, 3, 30, tzinfo=BERLIN),
        datetime(2024, 4, 1, 12, tzinfo=BERLIN),
    )
    assert [at.isoformat() for at, _ in got] == [
        "2024-03-30T03:30:00+01:00",
        "2024-03-31T03:30:00+02:00",
        "2024-04-01T03:30:00+02:00",
    ]


def test_heartbeat_every_four_hours_on_a_fixed_grid() -> None:
    s = settings(timezone="UTC")
    got = fire_times([by_name("heartbeat")], s, utc(2024, 5, 1, 1, 17), utc(2024, 5, 2, 1, 17))
    assert ids(got) == [f"heartbeat:2024-05-01T{h:02d}:00Z" for h in (4, 8, 12, 16, 20)] + [
        "heartbeat:2024-05-02T00:00Z"
    ]


def test_heartbeat_grid_is_counted_in_elapsed_time_across_dst() -> None:
    s = settings(timezone="Europe/Berlin")
    got = fire_times(
        [by_name("heartbeat")],
        s,
        datetime(2024, 3, 30, 20, tzinfo=BERLIN),
        datetime(2024, 3, 31, 9, tzinfo=BERLIN),
    )
    # exactly 4 h apart; local times shift by the hour the clocks moved
    assert [at.isoformat() for at, _ in got] == [
        "2024-03-30T20:00:00+01:00",
        "2024-03-31T00:00:00+01:00",
        "2024-03-31T05:00:00+02:00",
        "2024-03-31T09:00:00+02:00",
    ]


def test_heartbeat_fire_times_do_not_depend_on_when_the_trigger_was_made() -> None:
    s = settings(timezone="Europe/Berlin")
    first = by_name("heartbeat").trigger(s)
    # a "restart" later builds a new trigger; both agree on every fire time
    after_restart = by_name("heartbeat").trigger(s)
    for now in (utc(2024, 7, 1, 2, 59), utc(2024, 7, 1, 3, 0, 1), utc(2024, 7, 1, 5, 30)):
        assert first.get_next_fire_time(None, now) == after_restart.get_next_fire_time(None, now)
    # the grid starts at 2000-01-01 00:00 CET (23:00 UTC): 23, 03, 07 … UTC all year round
    assert latest_fire_time(first, utc(2024, 7, 1, 2, 59), 4 * 3600) == utc(2024, 6, 30, 23)
    assert latest_fire_time(after_restart, utc(2024, 7, 1, 3, 20), 4 * 3600) == utc(2024, 7, 1, 3)


def test_heartbeat_every_six_hours() -> None:
    s = settings(timezone="UTC", heartbeat_hours=6)
    got = fire_times([by_name("heartbeat")], s, utc(2024, 5, 1), utc(2024, 5, 1, 23, 59))
    assert ids(got) == [f"heartbeat:2024-05-01T{h:02d}:00Z" for h in (0, 6, 12, 18)]


def test_fire_times_over_three_days_is_the_exact_list() -> None:
    # morning at 08:00 meets the heartbeat at 08:00: ties are ordered by name
    s = settings(timezone="UTC", morning_at="08:00")
    got = fire_times(SCHEDULES, s, utc(2024, 5, 1), utc(2024, 5, 3, 23, 59, 59))
    day = [
        "heartbeat:{d}T00:00Z",
        "consolidate:{d}T03:30Z",
        "gmail_watch:{d}T03:30Z",
        "heartbeat:{d}T04:00Z",
        "heartbeat:{d}T08:00Z",
        "morning:{d}T08:00Z",
        "heartbeat:{d}T12:00Z",
        "heartbeat:{d}T16:00Z",
        "heartbeat:{d}T20:00Z",
    ]
    assert ids(got) == [x.format(d=d) for d in ("2024-05-01", "2024-05-02", "2024-05-03") for x in day]
    assert [name for _, name in got[:2]] == ["heartbeat", "consolidate"]


def test_fire_times_bounds_are_inclusive_and_need_offsets() -> None:
    s = settings(timezone="UTC")
    assert ids(fire_times([by_name("morning")], s, utc(2024, 5, 1, 9), utc(2024, 5, 2, 9))) == [
        "morning:2024-05-01T09:00Z",
        "morning:2024-05-02T09:00Z",
    ]
    with pytest.raises(ValueError, match="start"):
        fire_times(SCHEDULES, s, datetime(2024, 5, 1), utc(2024, 5, 2))


# ---- latest_fire_time and tick ids --------------------------------------------------------


def test_latest_fire_time_on_time_late_and_too_late() -> None:
    trigger = by_name("morning").trigger(settings(timezone="Europe/Berlin"))
    nine = datetime(2024, 6, 3, 9, tzinfo=BERLIN)
    assert latest_fire_time(trigger, nine, 7200) == nine
    assert latest_fire_time(trigger, nine + timedelta(minutes=95), 7200) == nine
    assert latest_fire_time(trigger, nine + timedelta(hours=2), 7200) == nine  # the window is inclusive
    assert latest_fire_time(trigger, nine + timedelta(hours=2, seconds=1), 7200) is None
    assert latest_fire_time(trigger, nine - timedelta(seconds=1), 7200) is None
    with pytest.raises(ValueError, match="now"):
        latest_fire_time(trigger, datetime(2024, 6, 3, 9), 7200)


def test_latest_fire_time_picks_the_newest_of_several_missed_fires() -> None:
    trigger = by_name("heartbeat").trigger(settings(timezone="UTC", heartbeat_hours=1))
    assert latest_fire_time(trigger, utc(2024, 5, 1, 10, 59), 5 * 3600) == utc(2024, 5, 1, 10)


def test_latest_fire_time_window_is_in_elapsed_time_across_dst() -> None:
    trigger = by_name("morning").trigger(settings(timezone="Europe/Berlin", morning_at="01:30"))
    # 04:30 CEST on 31 March is 2 h after 01:30 CET (the 02:00-03:00 hour does not exist)
    at = datetime(2024, 3, 31, 4, 30, tzinfo=BERLIN)
    assert latest_fire_time(trigger, at, 2 * 3600) == datetime(2024, 3, 31, 1, 30, tzinfo=BERLIN)
    assert latest_fire_time(trigger, at + timedelta(seconds=1), 2 * 3600) is None


def test_tick_id_is_the_scheduled_time_whenever_the_job_runs() -> None:
    s = settings(timezone="Europe/Berlin")
    for schedule in SCHEDULES:
        trigger = schedule.trigger(s)
        grace = schedule.grace_s(s)
        scheduled = trigger.get_next_fire_time(None, utc(2024, 10, 26, 12))
        assert scheduled is not None
        seen = set()
        for late in (0, 1, 59, 61, grace / 2, grace - 1):  # at one period the next heartbeat is due
            fire = latest_fire_time(trigger, scheduled + timedelta(seconds=late), grace)
            assert fire is not None
            seen.add(tick_body(schedule.name, fire)["id"])
        assert seen == {tick_id(schedule.name, scheduled)}, schedule.name


# ---- TickScheduler ------------------------------------------------------------------------


class Recorder:
    """An async `publish` that records, can fail on chosen calls, and signals each success."""

    def __init__(self, fail_on: tuple[int, ...] = ()) -> None:
        self.sent: list[tuple[str, dict[str, str]]] = []
        self.calls = 0
        self.fail_on = fail_on
        self.event = asyncio.Event()

    async def __call__(self, subj: str, body: dict[str, str]) -> None:
        self.calls += 1
        if self.calls in self.fail_on:
            raise ConnectionError("bus is down")
        self.sent.append((subj, body))
        self.event.set()

    async def wait_for(self, count: int, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while len(self.sent) < count:
                self.event.clear()
                await self.event.wait()


EVERY_SECOND = (
    Schedule(
        "each-second",
        trigger=lambda s: CronTrigger(second="*", timezone=s.tz),
        grace_s=lambda s: 5.0,
        about="test",
    ),
)


async def test_real_scheduler_publishes_ticks() -> None:
    recorder = Recorder()
    sched = TickScheduler(settings(timezone="Europe/Berlin"), recorder, EVERY_SECOND)
    sched.start()
    try:
        [(name, next_at)] = sched.jobs()
        assert name == "each-second" and next_at is not None
        await recorder.wait_for(1)
    finally:
        await asyncio.wait_for(sched.shutdown(), 5)
    subj, body = recorder.sent[0]
    assert subj == "memubot.in.tick.each-second"
    assert (
        ID.match(body["id"]) and body["id"].startswith("each-second:") and body["schedule"] == "each-second"
    )
    assert body["id"] == tick_id("each-second", datetime.fromisoformat(body["ts"]))
    assert not sched.running


async def test_a_failing_publish_does_not_stop_later_ticks(caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder(fail_on=(1,))
    sched = TickScheduler(settings(), recorder, EVERY_SECOND)
    with caplog.at_level(logging.INFO, logger="schedules.scheduler"):
        sched.start()
        try:
            await recorder.wait_for(1)
        finally:
            await asyncio.wait_for(sched.shutdown(), 5)
    assert recorder.calls >= 2
    failed = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "schedules.scheduler"]
    assert failed and re.search(r"tick each-second:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z", failed[0].getMessage())
    assert any("next tick at" in r.getMessage() for r in caplog.records)
    assert any("published to memubot.in.tick.each-second" in r.getMessage() for r in caplog.records)


async def test_shutdown_waits_for_a_publish_under_way() -> None:
    started, gate, finished = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def slow(subj: str, body: dict[str, str]) -> None:
        started.set()
        await gate.wait()
        finished.set()

    sched = TickScheduler(settings(), slow, EVERY_SECOND)
    sched.start()
    await asyncio.wait_for(started.wait(), 10)
    stopping = asyncio.create_task(sched.shutdown())
    done, _ = await asyncio.wait({stopping}, timeout=0.2)
    assert not done  # still waiting for the publish
    gate.set()
    await asyncio.wait_for(stopping, 5)
    assert finished.is_set() and not sched.running


async def test_shutdown_gives_up_on_a_hung_publish(caplog: pytest.LogCaptureFixture) -> None:
    started = asyncio.Event()

    async def hung(subj: str, body: dict[str, str]) -> None:
        started.set()
        await asyncio.Event().wait()

    sched = TickScheduler(settings(), hung, EVERY_SECOND)
    sched.start()
    await asyncio.wait_for(started.wait(), 10)
    await asyncio.wait_for(sched.shutdown(timeout=0.05), 5)
    assert "still publishing" in caplog.text


async def test_shutdown_before_any_fire_is_prompt() -> None:
    sched = TickScheduler(settings(), Recorder())  # the real SCHEDULES: nothing due for hours
    sched.start()
    assert [name for name, _ in sched.jobs()] == ["consolidate", "morning", "heartbeat", "gmail_watch"]
    await asyncio.wait_for(sched.shutdown(), 5)
    await sched.shutdown()  # twice is harmless


async def test_a_late_run_publishes_the_scheduled_id() -> None:
    # after a suspend the job runs at 09:40; the tick stands for 09:00
    now = datetime(2024, 6, 3, 9, 40, tzinfo=BERLIN)
    recorder = Recorder()
    sched = TickScheduler(settings(timezone="Europe/Berlin"), recorder, clock=lambda: now)
    assert await sched.fire("morning") == "morning:2024-06-03T07:00Z"
    assert recorder.sent == [
        (
            "memubot.in.tick.morning",
            {"id": "morning:2024-06-03T07:00Z", "schedule": "morning", "ts": "2024-06-03T09:00:00+02:00"},
        )
    ]


async def test_a_run_beyond_the_grace_publishes_nothing(caplog: pytest.LogCaptureFixture) -> None:
    now = datetime(2024, 6, 3, 11, 30, tzinfo=BERLIN)
    recorder = Recorder()
    sched = TickScheduler(settings(timezone="Europe/Berlin"), recorder, clock=lambda: now)
    assert await sched.fire("morning") is None
    assert recorder.sent == [] and "no tick" in caplog.text


def test_jobs_before_start_come_from_the_triggers() -> None:
    now = utc(2024, 5, 1, 10)
    sched = TickScheduler(settings(timezone="UTC"), Recorder(), clock=lambda: now)
    assert sched.jobs() == [
        ("consolidate", utc(2024, 5, 2, 3, 30)),
        ("morning", utc(2024, 5, 2, 9)),
        ("heartbeat", utc(2024, 5, 1, 12)),
        ("gmail_watch", utc(2024, 5, 2, 3, 30)),
    ]


def test_duplicate_schedule_names_are_refused() -> None:
    with pytest.raises(ValueError, match="each-second"):
        TickScheduler(settings(), Recorder(), EVERY_SECOND * 2)


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    """The tick history catch-up reads: a real ledger in a real DuckDB file."""
    store = Store(tmp_path / "memory.duckdb")
    yield Ledger(store, threading.RLock())
    store.close()


def handled(ledger: Ledger, tick_ids: list[str], at: datetime) -> None:
    """Record ticks as the dispatcher does once their handler committed."""
    ledger.record([Handled(t, tick_subject(t.split(":")[0]), None, "noop") for t in tick_ids], at)


async def test_a_first_start_publishes_no_tick_from_before_memubot_ran(ledger: Ledger) -> None:
    # started for the first time at 10:15 Berlin: the 09:00 morning and heartbeat ticks and the
    # 03:30 consolidation are within their grace, but memubot did not exist then
    now = datetime(2024, 6, 3, 10, 15, tzinfo=BERLIN)
    recorder = Recorder()
    sched = TickScheduler(settings(timezone="Europe/Berlin"), recorder, clock=lambda: now)
    assert await sched.catch_up(ledger) == [] and recorder.sent == []
    # restarted five minutes later: still nothing was missed
    again = TickScheduler(
        settings(timezone="Europe/Berlin"), recorder, clock=lambda: now + timedelta(minutes=5)
    )
    assert await again.catch_up(ledger) == [] and recorder.sent == []
    # the first start stays where it was: a heartbeat missed after it is caught up
    late = TickScheduler(
        settings(timezone="Europe/Berlin"), recorder, clock=lambda: now.replace(hour=13, minute=30)
    )
    assert await late.catch_up(ledger) == ["heartbeat:2024-06-03T11:00Z"]


async def test_catch_up_publishes_only_ticks_after_the_last_one_handled(ledger: Ledger) -> None:
    ledger.first_start(datetime(2024, 6, 1, 12, 0, tzinfo=UTC))
    # running until 08:30 Berlin: it handled the 03:30 consolidation and the 05:00 heartbeat
    handled(
        ledger,
        ["consolidate:2024-06-03T01:30Z", "gmail_watch:2024-06-03T01:30Z", "heartbeat:2024-06-03T03:00Z"],
        utc(2024, 6, 3, 3),
    )
    # back at 10:15: the 09:00 morning and heartbeat ticks were missed, the consolidation was not
    now = datetime(2024, 6, 3, 10, 15, tzinfo=BERLIN)
    recorder = Recorder()
    sched = TickScheduler(settings(timezone="Europe/Berlin"), recorder, clock=lambda: now)
    sent = await sched.catch_up(ledger)
    assert sorted(sent) == ["heartbeat:2024-06-03T07:00Z", "morning:2024-06-03T07:00Z"]
    assert sorted(body["id"] for _, body in recorder.sent) == sorted(sent)
    # once handled, a restart does not publish them again
    handled(ledger, sent, utc(2024, 6, 3, 8, 16))
    again = TickScheduler(
        settings(timezone="Europe/Berlin"), Recorder(), clock=lambda: now.replace(minute=20)
    )
    assert await again.catch_up(ledger) == []
    # published but not handled (the daemon stopped first): published again, the ledger dedups
    late = TickScheduler(settings(timezone="Europe/Berlin"), Recorder(), clock=lambda: now.replace(hour=23))
    assert await late.catch_up(ledger) == ["heartbeat:2024-06-03T19:00Z"]  # the others are past grace


def test_the_first_start_of_an_older_ledger_is_its_oldest_event(ledger: Ledger) -> None:
    handled(ledger, ["morning:2024-05-01T07:00Z"], utc(2024, 5, 1, 7, 1))
    assert ledger.first_start(utc(2024, 6, 3)) == utc(2024, 5, 1, 7, 1)
    assert ledger.first_start(utc(2024, 7, 1)) == utc(2024, 5, 1, 7, 1)  # recorded once


def test_tick_time_reads_the_id_back() -> None:
    at = datetime(2024, 6, 3, 9, 0, tzinfo=BERLIN)
    assert tick_time(tick_id("morning", at)) == at
    assert tick_time("morning") is None and tick_time("morning:soon") is None


def test_github_polling_runs_only_when_it_is_configured() -> None:
    off = settings()
    assert by_name("github_poll").off(off) == "not enabled (set MEMUBOT_GITHUB_POLL_MINUTES, e.g. 5)"
    assert "github_poll" not in [s.name for s in active(SCHEDULES, off)]
    no_login = settings(github_poll_minutes=5.0, profile_scope="alice")
    assert "MEMUBOT_GITHUB_LOGIN" in str(by_name("github_poll").off(no_login))
    on = settings(github_poll_minutes=5.0, github_login="octocat", github_scope="alice")
    assert by_name("github_poll").off(on) is None
    got = fire_times(SCHEDULES, on, utc(2024, 5, 1), utc(2024, 5, 1, 0, 20))
    assert [i for i in ids(got) if i.startswith("github_poll")] == [
        f"github_poll:2024-05-01T00:{m:02d}Z" for m in (0, 5, 10, 15, 20)
    ]
    # a replay with polling off fires no poll ticks
    assert not [
        n for _, n in fire_times(SCHEDULES, off, utc(2024, 5, 1), utc(2024, 5, 2)) if n == "github_poll"
    ]
