#!/usr/bin/env python3
"""Updates benchmark: does memubot understand what it is told? The newest truth wins, both of two
compatible facts stay, chit-chat stays out.

usage: python bench/updates.py [--memubot .venv/bin/memubot] [--no-readme] [--failures N]

Runs `../shared/bench/score_updates.py` (the scorer other programs use, unchanged) on the dev
cases `../shared/bench/updates/cases.jsonl` and on our own check cases
`bench/check/update_cases.jsonl` (written apart from the training data, never fitted on) and
on the look-alike set `bench/check/lookalike_cases.jsonl` (211 cases written apart from the code
for issue 20: second items, someone else's change, temporary vs usual, history, two plans,
records, wishes; never fitted on) and on `bench/check/noise_cases_v2.jsonl` (60 short chats, en+zh,
whose talk around the chat should leave no item; written for issue 20 by someone who saw neither
the training data nor the code) and on `bench/check/lookalike_v2_cases.jsonl` (120 cases, 60 en /
60 zh, 80 keep_both in eight kinds of look-alike and 40 updates; written on 2026-12-03 by someone
who read only the scorer, never the code, the data or the other case files; its kinds are in
`bench/check/lookalike_v2_INDEX.md`) and on `bench/check/updates_v3_cases.jsonl` (160 cases, 80 en /
80 zh, 80 updates and 80 keep_both, written on 2026-12-04 by a helper that saw no code, no data
and no other case file; `bench/check/updates_v3_INDEX.md`), then writes the tables into docs/understanding.md between the `updates-table` markers, with the date and commit
they were measured at.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from doc_block import commit, write_block  # bench/: the script's own folder

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "bench"
SETS = (
    ("dev (`../shared/bench/updates/cases.jsonl`)", SHARED / "updates" / "cases.jsonl"),
    ("check (`bench/check/update_cases.jsonl`)", ROOT / "bench" / "check" / "update_cases.jsonl"),
    ("look-alikes (`bench/check/lookalike_cases.jsonl`)", ROOT / "bench" / "check" / "lookalike_cases.jsonl"),
    ("chat talk (`bench/check/noise_cases_v2.jsonl`)", ROOT / "bench" / "check" / "noise_cases_v2.jsonl"),
    (
        "look-alikes v2 (`bench/check/lookalike_v2_cases.jsonl`)",
        ROOT / "bench" / "check" / "lookalike_v2_cases.jsonl",
    ),
    ("blind v3 (`bench/check/updates_v3_cases.jsonl`)", ROOT / "bench" / "check" / "updates_v3_cases.jsonl"),
)
DOC = "docs/understanding.md"  # the page that holds this section
BEGIN, END = "<!-- updates-table:begin -->", "<!-- updates-table:end -->"
TABLE_ROW = re.compile(r"^(update|keep_both|noise|all)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$")


def score(cases: Path, memubot: str, failures: int) -> tuple[dict[str, tuple[str, str, str, str]], str]:
    """Run the scorer on one case file: its table rows by type, and its whole output."""
    cmd = [sys.executable, str(SHARED / "score_updates.py"), str(cases), "--memubot", memubot]
    if failures:
        cmd += ["--failures", str(failures)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = {m[1]: (m[2], m[3], m[4], m[5]) for m in map(TABLE_ROW.match, out.splitlines()) if m}
    if not {"update", "all"} <= set(rows) <= {"update", "keep_both", "noise", "all"}:
        raise SystemExit(f"unexpected scorer output for {cases}:\n{out}")
    return rows, out


def table(results: list[tuple[str, dict[str, tuple[str, str, str, str]]]]) -> str:
    head = "| set | update | keep_both | noise | all |\n|---|---|---|---|---|"
    lines = [
        f"| {name} | "
        + " | ".join(
            f"{r[t][2]} ({r[t][3]})" if t in r and r[t][2] != "-" else "—"
            for t in ("update", "keep_both", "noise", "all")
        )
        + " |"
        for name, r in results
    ]
    return "\n".join([head, *lines])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memubot", default=str(ROOT / ".venv" / "bin" / "memubot"))
    ap.add_argument(
        "--no-readme", action="store_true", help="print the table, leave docs/understanding.md alone"
    )
    ap.add_argument("--failures", type=int, default=0, help="print the first N failures of each set")
    args = ap.parse_args()
    results = []
    for name, path in SETS:
        if not path.exists():
            print(f"skipping {name}: {path} not found", file=sys.stderr)
            continue
        print(f"scoring {name} ...", file=sys.stderr)
        rows, out = score(path, args.memubot, args.failures)
        if args.failures:
            print(out)
        results.append((name, rows))
    text = table(results)
    print(text)
    if args.no_readme:
        return 0
    stamp = f"Measured {datetime.now(UTC):%Y-%m-%d} at commit {commit()} with `python bench/updates.py`."
    readme = write_block(DOC, BEGIN, END, f"{text}\n\n{stamp}")
    print(f"wrote the table into {readme}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
