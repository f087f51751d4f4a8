#!/usr/bin/env python3
"""Proactive benchmark: replay scenarios with simulated time, score what memubot said.

usage: python bench/proactive.py [SCENARIO.json ...] [--readme] [--json]

Without arguments: the shared scenarios (../shared/bench/proactive/*.json) and memubot's own
(tests/fixtures/proactive/*.json). Each is replayed through `daemon.runtime.replay.replay` (the daemon's
own pipeline, a fresh memory, ticks at their simulated times) and scored by
`../shared/bench/score_proactive.py`'s own `score` function. `--readme` writes the table between
the `proactive-table` markers of docs/predict.md, with the date and commit.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import io
import json
import logging
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from doc_block import commit, write_block  # noqa: E402  (bench/, the script's folder)

from daemon.config import load_settings  # noqa: E402
from daemon.runtime.replay import replay  # noqa: E402

SHARED = ROOT.parent / "shared" / "bench"
OWN = ROOT / "tests" / "fixtures" / "proactive"
DOC = "docs/predict.md"  # the page that holds this section
BEGIN, END = "<!-- proactive-table:begin -->", "<!-- proactive-table:end -->"
# scenarios whose events other work delivers: replayed and scored, but reported as waiting
WAITING: dict[str, str] = {}


def scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("score_proactive", SHARED / "score_proactive.py")
    assert spec and spec.loader, f"no scorer at {SHARED / 'score_proactive.py'}"
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(path: Path, score: Any) -> dict[str, Any]:
    """Replay one scenario in a fresh memory and score it (the scorer's own dict)."""
    out = io.StringIO()
    settings = load_settings({"HOME": str(Path("/nonexistent"))})
    summary = asyncio.run(replay(path, out, settings))
    delivered = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    result: dict[str, Any] = score(json.loads(path.read_text(encoding="utf-8")), delivered)
    result["outcomes"] = summary["outcomes"]
    result["suggestions"] = delivered
    return result


def table(rows: list[tuple[str, dict[str, Any]]]) -> str:
    lines = [
        "| scenario | set | met | delivered | useful | noise | violations | precision | strict | median delay (min) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    tot = {"expected": 0, "met": 0, "delivered": 0, "useful": 0, "noise": 0, "violations": 0}
    shared = dict(tot)
    for origin, r in rows:
        useful_all = r["delivered"] - r["noise"]  # a day's first digest is neither useful nor noise
        prec = f"{(useful_all / r['delivered']):.2f}" if r["delivered"] else "–"
        strict = f"{(r['useful'] / r['delivered']):.2f}" if r["delivered"] else "–"
        note = f" ({WAITING[r['name']]})" if r["name"] in WAITING else ""
        lines.append(
            f"| {r['name']}{note} | {origin} | {r['met']}/{r['expected']} | {r['delivered']} | {r['useful']} | "
            f"{r['noise']} | {len(r['violations'])} | {prec} | {strict} | {r['median_delay_min'] if r['median_delay_min'] is not None else '–'} |"
        )
        if r["name"] not in WAITING:
            for t in (tot, shared) if origin == "shared" else (tot,):
                for k in ("expected", "met", "delivered", "useful", "noise"):
                    t[k] += r[k]
                t["violations"] += len(r["violations"])
    for label, t in (("**shared, all but waiting**", shared), ("**all but waiting**", tot)):
        prec = f"{(t['delivered'] - t['noise']) / t['delivered']:.2f}" if t["delivered"] else "–"
        strict = f"{t['useful'] / t['delivered']:.2f}" if t["delivered"] else "–"
        lines.append(
            f"| {label} | | {t['met']}/{t['expected']} | {t['delivered']} | {t['useful']} | "
            f"{t['noise']} | {t['violations']} | {prec} | {strict} | |"
        )
    return "\n".join(lines)


def write_readme(text: str) -> None:
    stamp = f"Measured {datetime.now(UTC):%Y-%m-%d} at commit {commit()} with `python bench/proactive.py --readme`."
    write_block(DOC, BEGIN, END, f"{text}\n\n{stamp}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "scenarios", nargs="*", type=Path, help="scenario files or folders of them (default: shared + own)"
    )
    ap.add_argument("--readme", action="store_true", help="write the table into docs/predict.md")
    ap.add_argument("--json", action="store_true", help="print every result as a JSON line")
    a = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    score = scorer().score
    given = [f for p in a.scenarios for f in (sorted(p.glob("*.json")) if p.is_dir() else [p])]
    paths = [(p, "given") for p in given] or [
        *((p, "shared") for p in sorted((SHARED / "proactive").glob("*.json"))),
        *((p, "own") for p in sorted(OWN.glob("*.json"))),
    ]
    rows = []
    for path, origin in paths:
        r = run(path, score)
        rows.append((origin, r))
        if a.json:
            print(json.dumps({k: v for k, v in r.items()}, ensure_ascii=False, default=str))
        else:
            print(
                f"{r['name']}: met {r['met']}/{r['expected']} delivered {r['delivered']} (useful {r['useful']}, "
                f"noise {r['noise']}) violations {len(r['violations'])}",
                file=sys.stderr,
            )
            for v in r["violations"]:
                print(f"  violation ({v['why']}): {v['suggestion']}", file=sys.stderr)
    text = table(rows)
    print(text)
    if a.readme:
        write_readme(text)


if __name__ == "__main__":
    main()
