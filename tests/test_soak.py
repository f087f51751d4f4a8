"""The short soak: bench/soak.py with one of each fault, its accounting checked (no timings).

A real nats-server and a real `memubot run`, turns, signed GitHub deliveries and Gmail pushes at
a steady rate, while the broker and the daemon are SIGKILLed, bad events are sent, the DuckDB
file is held by another process during a restart, and the daemon's disk is slowed. What is
asserted is what bench/soak.py checks: every event sent is stored or dead-lettered, none twice.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

from tests.shared_data import shared

ROOT = Path(__file__).resolve().parents[1]
NEEDS = (("fixtures", "github"), ("bench", "locomo", "events.jsonl"))
SOAK_TIMEOUT = 600.0  # a hang guard, not a bound: the run takes about a minute


def test_short_soak_with_every_fault_loses_and_doubles_nothing(tmp_path: Path) -> None:
    for need in NEEDS:  # the soak sends the shared GitHub fixtures and LoCoMo texts
        shared(*need)
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


def load_report() -> ModuleType:
    """bench/soak_report.py as a module (bench/ is no package)."""
    spec = importlib.util.spec_from_file_location("bench_soak_report", ROOT / "bench" / "soak_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_soak_report"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_accounting_catches_a_loss_a_double_and_a_bad_event_stored() -> None:
    """The checks are not vacuous: a ledger made to lack, double or keep what it must not fails them."""
    r = load_report()
    t0 = time.time() - 10
    sent = [
        r.Sent(kind, f"e{i}", t0 + i) for i, kind in enumerate(["turn", "turn", "turn", "email", "github"])
    ]
    bad = [r.Bad("bus", "deep", t0, "b0", seq=100), r.Bad("github", "deep", t0, "b1", status=400)]
    good = {f"e{i}": (t0 + i + 1, "stored") for i in range(5)}
    db = r.Db(good, [r.DeadLetter("b0", 100, t0 + 1)], r.Counter({"e0": 1, "e1": 1, "e2": 1, "e3": 1}))
    acc = r.account(sent, bad, db)
    assert acc["ok"] and acc["failures"] == [] and acc["sent"] == 6 == acc["stored"] + acc["dead_lettered"]
    assert r.timings(sent, [], db, t0, time.time())["latency"]["all"]["n"] == 4  # e-mails apart

    broken = dict(good)
    del broken["e1"]  # lost
    dead = [r.DeadLetter("e2", 7, t0 + 3), r.DeadLetter("b0", 100, t0 + 1), r.DeadLetter("b0", 100, t0 + 2)]
    bad[1].status = 500
    acc = r.account(sent, bad, r.Db(broken, dead, r.Counter({"e0": 1, "e2": 1})))  # e3 has no resource
    text = "\n".join(acc["failures"])
    assert not acc["ok"]
    assert "1 events neither stored nor dead-lettered, e.g. ['e1']" in text
    assert "e2 stored and dead-lettered" in text
    assert "dead letter twice for stream seq 100" in text
    assert "without exactly one resource, e.g. ['e3']" in text
    assert "bad HTTP requests not answered 4xx: ['github deep: 500']" in text
    assert acc["duplicates"] == 3 and acc["lost"] == 1
