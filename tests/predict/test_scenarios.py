"""The proactive scenarios, replayed and scored with the shared scorer's own rules.

memubot's own scenarios (tests/fixtures/proactive/) and the shared ones must meet every
expectation with no violation and no noise.
"""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from daemon.config import load_settings
from daemon.runtime.replay import replay
from tests.shared_data import shared

OWN = Path(__file__).resolve().parents[1] / "fixtures" / "proactive"


def scorer() -> ModuleType:
    path = shared("bench", "score_proactive.py")
    spec = importlib.util.spec_from_file_location("score_proactive", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


async def run(path: Path, tmp_path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    out = io.StringIO()
    await replay(path, out, load_settings({"HOME": str(tmp_path)}), state_dir=tmp_path / "state")
    delivered = [json.loads(line) for line in out.getvalue().splitlines()]
    result: dict[str, Any] = scorer().score(json.loads(path.read_text(encoding="utf-8")), delivered)
    return result, delivered


def test_there_are_enough_own_scenarios_of_each_sort() -> None:
    scenarios = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(OWN.glob("*.json"))]
    assert len(scenarios) >= 10
    silent = [s for s in scenarios if not s["expect"]]
    zh = [s for s in scenarios if any("\u4e00" <= c <= "\u9fff" for c in json.dumps(s, ensure_ascii=False))]
    assert len(silent) >= 3 and len(zh) >= 3
    kinds = {e.get("kind") for s in scenarios for e in s["expect"]}
    assert {"reminder", "follow_up", "conflict"} <= kinds


@pytest.mark.parametrize(
    "path",
    [*sorted(OWN.glob("*.json")), *sorted(shared("bench", "proactive").glob("*.json"))],
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
async def test_scenario(path: Path, tmp_path: Path) -> None:
    r, delivered = await run(path, tmp_path)
    said = [(d["deliver_at"], d["kind"], d["title"]) for d in delivered]
    assert r["violations"] == [], said
    assert r["met"] == r["expected"] and r["noise"] == 0, said
    # every delivery has the fields the scorer and an agent need, and nothing is said twice
    assert len({d["id"] for d in delivered}) == len(delivered)
    for d in delivered:
        assert {
            "id",
            "scope",
            "kind",
            "title",
            "body",
            "evidence",
            "source_ids",
            "deliver_at",
            "dedup_key",
        } <= d.keys()


async def test_a_replay_run_twice_delivers_the_same(tmp_path: Path) -> None:
    path = shared("bench", "proactive", "meeting-conflict-zh.json")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _, first = await run(path, tmp_path / "a")
    _, second = await run(path, tmp_path / "b")
    assert [d["id"] for d in first] == [d["id"] for d in second] and first
