"""bench/plan_news.py reads a labelled pair as the daemon reads the mail (no scores asserted)."""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import datetime
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "check" / "plan_news_pairs.jsonl"
KEYS = {"id", "lang", "tz", "plan", "said_at", "due", "sender", "address", "sent_at", "mail", "label", "why"}


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_plan_news", ROOT / "bench" / "plan_news.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_plan_news"] = module
    spec.loader.exec_module(module)
    return module


PAIR = {
    "tz": "Europe/Lisbon",
    "plan": "climbing with Inês at the wall on thursday at 7",
    "said_at": "2026-03-02T10:00:00+00:00",
    "due": "2026-03-05T19:00:00+00:00",
    "sender": "Inês Duarte",
    "address": "ines@example.pt",
    "sent_at": "2026-03-04T09:00:00+00:00",
}


def test_a_pair_is_read_as_the_daemon_reads_it() -> None:
    bench = load()
    off = {**PAIR, "mail": "thursday\n\nSo sorry, I can't make Thursday, my knee is acting up."}
    moved = {**PAIR, "mail": "climbing\n\nCan't do Thursday, moved us to Friday at 6pm instead."}
    other = {**PAIR, "mail": "Newsletter\n\nOur spring catalogue is out. Cancel anytime."}
    assert bench.verdict(off) == ("cancel", None)
    label, when = bench.verdict(moved)
    assert label == "move" and when is not None and (when.day, when.hour) == (6, 18)
    assert bench.verdict(other) == ("none", None)


@pytest.mark.parametrize("data", [DATA, DATA.with_name("plan_news_foreign.jsonl")], ids=lambda p: p.name)
def test_the_labelled_pairs_are_well_formed(data: Path) -> None:
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 180
    for row in rows:
        assert set(row) >= KEYS, row.get("id")
        assert row["label"] in {"cancel", "move", "update", "proposal", "none"}, row["id"]
        assert ("moved_to" in row) == (row["label"] == "move"), row["id"]
        said, sent, due = (datetime.fromisoformat(row[k]) for k in ("said_at", "sent_at", "due"))
        assert said < sent < due, row["id"]
