"""The short soak: bench/soak.py with one of each fault, its accounting checked (no timings).

A real nats-server and a real `memubot run`, turns, signed GitHub deliveries and Gmail pushes at
a steady rate, while the broker and the daemon are SIGKILLed, bad events are sent, the DuckDB
file is held by another process during a restart, and the daemon's disk is slowed. What is
asserted is what bench/soak.py checks: every event sent is stored or dead-lettered, none twice.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
NEEDS = (SHARED / "fixtures" / "github", SHARED / "bench" / "locomo" / "events.jsonl")
SOAK_TIMEOUT = 600.0  # a hang guard, not a bound: the run takes about a minute


def test_short_soak_with_every_fault_loses_and_doubles_nothing(tmp_path: Path) -> None:
    missing = [str(p) for p in NEEDS if not p.exists()]
    if missing:
        pytest.skip(f"the soak sends the shared GitHub fixtures and LoCoMo texts: not found {missing}")
    out = tmp_path / "soak.json"
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "soak.py"),
        *("--duration", "20", "--every", "2", "--slow-s", "3", "--no-readme"),
        *("--out", str(out), "--logs", str(tmp_path / "logs")),
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=SOAK_TIMEOUT)
    print(done.stdout)
    print(done.stderr[-6000:])
    assert out.exists(), f"bench/soak.py wrote no result (exit {done.returncode})"
    result = json.loads(out.read_text(encoding="utf-8"))
    acc = result["accounting"]
    assert acc["ok"], acc["failures"]
    assert acc["sent"] == acc["stored"] + acc["dead_lettered"]
    assert acc["duplicates"] == 0 and acc["lost"] == 0
    # the run did what it says: each fault once, bad events among the valid ones, all kinds sent
    assert [f["fault"] for f in result["faults"]] == ["bad", "broker", "daemon", "lock", "slowdisk"]
    assert acc["sent_by_kind"]["bad_bus"] == acc["dead_lettered_by_kind"]["bad_bus"] == 9
    assert all(acc["sent_by_kind"][k] > 0 for k in ("turn", "github", "gmail", "email"))
    assert result["refused_starts"] and "in use by process" in result["refused_starts"][0]
    assert done.returncode == 0
