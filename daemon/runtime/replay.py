"""Replay: a recorded timeline through the daemon's own pipeline, with simulated time.

A scenario (../shared/bench/proactive/README.md) lists events with their times, a start and
an end, and config overrides. Replay sets a simulated clock to each event's time, fires the
scheduled ticks (morning, heartbeat, consolidation) at their simulated times, hands every
event to the same Dispatcher the bus consumer uses, and writes every outgoing message
(memory ops today; suggestions and context once predictors exist) with its simulated time
to a JSON-lines trace. Suggestions are delivered by the same outbox as in the daemon, at their
simulated `deliver_at` (between events, the clock jumps to each due delivery); each delivered
one is also written to `out`, one line per suggestion, as ../shared/bench/score_proactive.py
reads it. No NATS is involved: only the transport differs from the live daemon.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from daemon.config import Settings, email_addresses, quiet_hours
from daemon.errors import InvalidInput
from daemon.events import parse_ts, tick_body
from daemon.memory import Memory, make_embedder
from daemon.predict import engine
from daemon.predict.outbox import SuggestionOutbox
from daemon.predict.outlet import Outlet
from daemon.runtime.dispatch import Dispatcher, Incoming
from daemon.runtime.ops_outbox import OpsOutbox
from daemon.subjects import tick_subject
from handlers.deps import Deps
from schedules import SCHEDULES
from schedules.scheduler import fire_times

log = logging.getLogger(__name__)

# scenario `config` keys that map onto Settings; others are reported as not (yet) used
CONFIG_KEYS = {
    "timezone",
    "morning_at",
    "consolidate_at",
    "heartbeat_hours",
    "profile_scope",
    "github_login",  # MEMUBOT_GITHUB_LOGIN: which GitHub login is the person
    "github_scope",
    "email_address",  # MEMUBOT_EMAIL_ADDRESSES: the person's address (a string or a list)
    "email_addresses",
    "quiet_hours",  # MEMUBOT_QUIET_HOURS, as ["22:00", "07:00"]
    "remind_lead_hours",
    "followup_delay_minutes",
    "suggestions_per_hour",
}


class SimClock:
    """The simulated clock: replay moves it; everything that asks for "now" gets it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happens at a simulated time: an event from the scenario or a tick."""

    at: datetime
    subject: str
    data: bytes
    origin: str  # "event" or "tick"


@dataclass(slots=True)
class Scenario:
    name: str
    scope: str | None
    timezone: str | None
    start: datetime
    end: datetime
    config: dict[str, Any]
    events: list[Step] = field(default_factory=list)


def load_scenario(path: Path) -> Scenario:
    """Read and check a scenario file; a GitHub body's `payload_file` is inlined as `payload`."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot read scenario {path}: {exc}") from exc
    if not isinstance(raw, dict):
        raise InvalidInput(f"{path}: a scenario is a JSON object")
    for key in ("start", "end", "events"):
        if key not in raw:
            raise InvalidInput(f"{path}: missing required field {key!r}")
    scenario = Scenario(
        name=str(raw.get("name") or path.stem),
        scope=raw.get("scope"),
        timezone=raw.get("timezone"),
        start=parse_ts(raw["start"], "start"),
        end=parse_ts(raw["end"], "end"),
        config=dict(raw.get("config") or {}),
    )
    if scenario.end < scenario.start:
        raise InvalidInput(f"{path}: end {raw['end']} is before start {raw['start']}")
    for n, ev in enumerate(raw["events"]):
        if not isinstance(ev, dict) or not {"at", "subject", "body"} <= ev.keys():
            raise InvalidInput(f"{path}: events[{n}] needs 'at', 'subject' and 'body'")
        body = ev["body"]
        if isinstance(body, dict) and "payload_file" in body:
            payload_path = (path.parent / str(body["payload_file"])).resolve()
            try:
                payload = json.loads(payload_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise InvalidInput(f"{path}: events[{n}]: cannot read {payload_path}: {exc}") from exc
            body = {k: v for k, v in body.items() if k != "payload_file"} | {"payload": payload}
        data = json.dumps(body, ensure_ascii=False).encode() if not isinstance(body, str) else body.encode()
        scenario.events.append(Step(parse_ts(ev["at"], f"events[{n}].at"), str(ev["subject"]), data, "event"))
    return scenario


def scenario_settings(base: Settings, scenario: Scenario, state_dir: Path) -> tuple[Settings, list[str]]:
    """The settings for this replay: the base ones, its time zone and config, a private state dir."""
    over: dict[str, Any] = {"state_dir": state_dir, "db_path": state_dir / "memubot.duckdb"}
    if scenario.timezone:
        over["timezone"] = scenario.timezone
    ignored = []
    for key, value in scenario.config.items():
        if key in ("email_address", "email_addresses"):
            over["email_addresses"] = email_addresses(value, f"scenario config {key!r}")
        elif key == "quiet_hours":
            over[key] = quiet_hours(value, "config.quiet_hours")
        elif key in CONFIG_KEYS:
            over[key] = value
        else:
            ignored.append(key)
    settings = dataclasses.replace(base, **over)
    settings = dataclasses.replace(
        settings, memory=dataclasses.replace(settings.memory, timezone=settings.timezone)
    )
    return settings, ignored


def timeline(scenario: Scenario, settings: Settings) -> list[Step]:
    """Events and ticks in time order; at equal times the event comes first (it happened before)."""
    ticks = [
        Step(at, tick_subject(name), json.dumps(tick_body(name, at)).encode(), "tick")
        for at, name in fire_times(SCHEDULES, settings, scenario.start, scenario.end)
    ]
    steps = [*scenario.events, *ticks]
    return sorted(steps, key=lambda s: (s.at.timestamp(), s.origin != "event"))


async def replay(
    scenario_path: Path,
    out: IO[str],
    base: Settings,
    state_dir: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    trace: IO[str] | None = None,
) -> dict[str, Any]:
    """Run the scenario; write one line per delivered suggestion to `out` and one per outgoing
    message of any kind (memory ops, context, suggestions) to `trace`; return a summary."""
    scenario = load_scenario(scenario_path)
    with tempfile.TemporaryDirectory(prefix="memubot-replay-") as tmp:
        state = state_dir or Path(tmp)
        state.mkdir(parents=True, exist_ok=True)
        settings, ignored = scenario_settings(base, scenario, state)
        for key in ignored:
            log.warning("scenario config %r is not used by this version of memubot", key)
        clock = SimClock(scenario.start)
        embedder = make_embedder(
            settings.embedder,
            url=settings.embed_url,
            model=settings.embed_model,
            api_key=settings.embed_api_key,
        )
        memory = Memory.open(settings.db_path, embedder, settings.memory, clock=clock)
        try:
            counts = {"messages": 0, "suggestions": 0, "context": 0}

            async def write(subject: str, body: bytes, msg_id: str) -> None:
                counts["messages"] += 1
                if trace is not None:
                    line = {
                        "at": clock.now.isoformat(),
                        "subject": subject,
                        "id": msg_id,
                        "body": json.loads(body),
                    }
                    trace.write(json.dumps(line, ensure_ascii=False) + "\n")

            async def suggest(subject: str, body: bytes, msg_id: str) -> None:
                counts["suggestions"] += 1
                out.write(body.decode() + "\n")  # its deliver_at is the simulated delivery time
                await write(subject, body, msg_id)

            async def context(subject: str, body: bytes) -> None:
                counts["context"] += 1
                await write(subject, body, "")

            await asyncio.to_thread(engine.start_cursor, memory)
            dispatcher = Dispatcher(Deps(memory, settings, clock, Outlet(context=context)))
            outbox = OpsOutbox(memory.ledger, write)
            suggestions = SuggestionOutbox(memory, settings, suggest, clock)

            async def deliver_until(t: datetime) -> None:
                """Every delivery due up to `t`, each at its own simulated time."""
                for _ in range(10_000):
                    due = await suggestions.next_due()
                    if due is None or due > t:
                        return
                    clock.now = max(clock.now, due)
                    await suggestions.deliver_due()
                    await outbox.pump()

            steps = timeline(scenario, settings)
            outcomes: dict[str, int] = {}
            for n, step in enumerate(steps, start=1):
                await deliver_until(step.at)
                clock.now = step.at
                [verdict] = await dispatcher.dispatch([Incoming(step.subject, step.data)])
                outcomes[verdict.outcome] = outcomes.get(verdict.outcome, 0) + 1
                if verdict.outcome == "dead_letter":
                    log.warning("%s at %s: dead letter: %s", step.subject, step.at, verdict.reason)
                await outbox.pump()
                await deliver_until(step.at)
                if progress:
                    progress(n, len(steps))
            await deliver_until(scenario.end)
            clock.now = scenario.end
        finally:
            memory.close()
    return {
        "scenario": scenario.name,
        "events": len(scenario.events),
        "ticks": len(steps) - len(scenario.events),
        "outcomes": outcomes,
        "messages": counts["messages"],
        "suggestions": counts["suggestions"],
        "context": counts["context"],
        "ignored_config": ignored,
    }
