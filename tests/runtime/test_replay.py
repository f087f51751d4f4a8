"""`memubot replay`: a scenario through the real pipeline with simulated time."""

from __future__ import annotations

import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from daemon.config import load_settings
from daemon.errors import InvalidInput
from daemon.runtime.replay import load_scenario, replay, scenario_settings, timeline
from daemon.state.tables.work_items import WorkItemTable


def scenario(tmp_path: Path, **over: Any) -> Path:
    body = {
        "name": "tiny",
        "scope": "bob",
        "timezone": "Europe/Berlin",
        "start": "2026-03-02T08:00:00+01:00",
        "end": "2026-03-03T10:00:00+01:00",
        "config": {"quiet_hours": ["22:00", "07:00"], "heartbeat_hours": 6},
        "events": [
            {
                "at": "2026-03-02T15:10:00+01:00",
                "subject": "memubot.in.conversation.main",
                "body": {
                    "id": "e1",
                    "scope": "bob",
                    "role": "user",
                    "text": "Next Monday at 10:00 I have the board demo.",
                    "ts": "2026-03-02T15:10:00+01:00",
                },
            },
            {
                "at": "2026-03-02T16:00:00+01:00",
                "subject": "memubot.in.conversation.main",
                "body": {"id": "bad"},
            },
        ],
    }
    body.update(over)
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


async def test_replay_fires_ticks_at_simulated_times_and_writes_ops_with_them(tmp_path: Path) -> None:
    path = scenario(tmp_path)
    base = load_settings({"HOME": str(tmp_path)})
    out, trace = io.StringIO(), io.StringIO()
    summary = await replay(path, out, base, state_dir=tmp_path / "state", trace=trace)
    lines = [json.loads(line) for line in trace.getvalue().splitlines()]
    # the valid turn was stored at its simulated time; its creation op carries that time
    created = [x for x in lines if x["subject"] == "memubot.out.memory.created"]
    assert len(created) == 1 and created[0]["at"] == "2026-03-02T15:10:00+01:00"
    assert created[0]["body"]["scope"] == "bob" and created[0]["id"] == "memory-op:1"
    assert summary["outcomes"]["stored"] == 1 and summary["outcomes"]["dead_letter"] == 1
    assert summary["ignored_config"] == []  # quiet_hours is MEMUBOT_QUIET_HOURS now
    # a turn without a session has no live session to prefetch for; the demo (next Monday) is
    # after the scenario's end: nothing was delivered
    assert not [x for x in lines if x["subject"].startswith("memubot.out.context.")]
    assert out.getvalue() == "" and summary["suggestions"] == 0
    # ticks over 26 h: consolidation at 03:30, morning at 09:00, heartbeat every 6 h (config override)
    settings, _ = scenario_settings(base, load_scenario(path), tmp_path / "s2")
    ticks = [(s.at, s.subject) for s in timeline(load_scenario(path), settings) if s.origin == "tick"]
    local = [(at.astimezone(settings.tz).strftime("%d %H:%M"), subj.rsplit(".", 1)[1]) for at, subj in ticks]
    assert ("03 03:30", "consolidate") in local and ("03 09:00", "morning") in local
    assert sum(1 for _, name in local if name == "heartbeat") == 4
    assert summary["ticks"] == len(ticks)


async def test_replay_runs_in_event_time_not_wall_time(tmp_path: Path) -> None:
    path = scenario(tmp_path)
    await replay(path, io.StringIO(), load_settings({"HOME": str(tmp_path)}), state_dir=tmp_path / "state")
    from daemon.memory.store import Store

    store = Store(tmp_path / "state" / "memubot.duckdb", read_only=True)
    try:
        [(created, due)] = store.con.execute("SELECT created_at, due_at FROM items").fetchall()
        handled = store.con.execute("SELECT min(handled_at), max(handled_at) FROM events").fetchone()
    finally:
        store.close()
    assert created.year == 2026 and created.month == 3  # the simulated clock, not today
    assert due is not None and due.date().isoformat() == "2026-03-09"  # "next Monday" from 2 March 2026
    assert handled is not None and handled[0] >= datetime.fromisoformat("2026-03-02T07:00:00+00:00")


def test_scenario_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="missing required field 'end'"):
        load_scenario(_without(tmp_path, "end"))
    with pytest.raises(InvalidInput, match="before start"):
        load_scenario(scenario(tmp_path, end="2026-01-01T00:00:00+00:00"))
    with pytest.raises(InvalidInput, match=r"events\[0\] needs"):
        load_scenario(scenario(tmp_path, events=[{"at": "2026-03-02T08:00:00+01:00"}]))


def _without(tmp_path: Path, key: str) -> Path:
    path = scenario(tmp_path)
    body = json.loads(path.read_text(encoding="utf-8"))
    del body[key]
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def test_a_payload_file_is_inlined_relative_to_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "pr.json").write_text(
        json.dumps({"action": "review_requested"}), encoding="utf-8"
    )
    (tmp_path / "scenarios").mkdir()
    event = {"id": "gh1", "event": "pull_request", "payload_file": "../fixtures/pr.json"}
    path = scenario(
        tmp_path, events=[{"at": "2026-03-02T09:00:00+01:00", "subject": "memubot.in.github", "body": event}]
    )
    moved = tmp_path / "scenarios" / path.name
    path.rename(moved)
    [step] = load_scenario(moved).events
    assert json.loads(step.data) == {
        "id": "gh1",
        "event": "pull_request",
        "payload": {"action": "review_requested"},
    }
    missing = scenario(
        tmp_path, events=[{"at": "2026-03-02T09:00:00+01:00", "subject": "memubot.in.github", "body": event}]
    )
    with pytest.raises(InvalidInput, match="cannot read"):
        load_scenario(missing)  # from tmp_path, ../fixtures/pr.json does not exist


@pytest.mark.parametrize(
    ("name", "state", "waiting"),
    [("review-requested", "open", True), ("review-withdrawn", "closed", False)],
)
async def test_github_scenarios_replay_without_dead_letters(
    tmp_path: Path, name: str, state: str, waiting: bool
) -> None:
    from daemon.memory.store import Store
    from tests.shared_data import shared

    path = shared("bench", "proactive", f"{name}.json")
    summary = await replay(
        path, io.StringIO(), load_settings({"HOME": str(tmp_path)}), state_dir=tmp_path / "s"
    )
    assert summary["outcomes"].get("dead_letter", 0) == 0
    assert summary["outcomes"]["stored"] == 2
    assert "github_login" not in summary["ignored_config"]  # it is MEMUBOT_GITHUB_LOGIN now
    store = Store(tmp_path / "s" / "memubot.duckdb", read_only=True)
    try:
        [item] = WorkItemTable(store).work_items("alice")
        texts = [
            r[0] for r in store.con.execute("SELECT text FROM resources WHERE kind = 'github'").fetchall()
        ]
    finally:
        store.close()
    assert (item.repo, item.number, item.state) == ("Codertocat/Hello-World", 2, state)
    assert item.waiting_on("octocat") is waiting and item.requested == ("octocat",)
    assert any("requested a review from you on Codertocat/Hello-World#2" in t for t in texts)
