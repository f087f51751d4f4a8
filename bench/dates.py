#!/usr/bin/env python3
"""Date-resolution benchmark: `resolve_dates` on hand-labelled chat sentences in English and Chinese.

usage: python bench/dates.py [--data bench/data/dates.jsonl] [--failures N]

Each line of the data file is one sentence as a person would write it to an assistant or a friend
({"text", "lang", "at", "tz", "expect", "kind", "source"}): `at` is when it was said (ISO 8601 with
offset), `tz` the user's IANA zone, `expect` the dated mentions a careful reader finds in it, each a
{"date": "YYYY-MM-DD", "time": "HH:MM" | null, "direction": "future" | "past" | "present"} (a
"text" field only documents which words were meant). An empty `expect` means the sentence states no
one-off date: a habit ("I run at 6am"), a duration ("for 3 days") or a name ("Friday Night Lights").

A sentence passes when the set of (date, time, direction) triples resolved from it equals the
expected set: a missed mention, an extra one, a wrong day, a wrong time or a wrong direction all
fail it. Weeks and months are represented by their first day, period words by the module's
representative hours (morning 09:00, afternoon 15:00, evening/night 20:00), as documented in
daemon/memory/dates/__init__.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.memory.dates import resolve_dates  # noqa: E402

DEFAULT_DATA = ROOT / "bench" / "data" / "dates.jsonl"

Triple = tuple[str, str | None, str]  # (date, time or None, direction)


@dataclass(frozen=True, slots=True)
class Case:
    text: str
    lang: str
    at: datetime
    tz: ZoneInfo
    expect: frozenset[Triple]
    kind: str


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    got: tuple[tuple[str, Triple], ...]  # (matched words, triple) in text order

    @property
    def passed(self) -> bool:
        return frozenset(t for _, t in self.got) == self.case.expect


def load(path: Path) -> list[Case]:
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        raw = json.loads(line)
        try:
            expect = frozenset((e["date"], e["time"], e["direction"]) for e in raw["expect"])
            at = datetime.fromisoformat(raw["at"])
            if at.tzinfo is None:
                raise ValueError("`at` has no UTC offset")
            cases.append(Case(raw["text"], raw["lang"], at, ZoneInfo(raw["tz"]), expect, raw["kind"]))
        except (KeyError, TypeError, ValueError) as e:
            sys.exit(f"{path}:{n}: {e!r}")
    return cases


def run(case: Case) -> Outcome:
    got = tuple(
        (
            m.text,
            (m.value.date().isoformat(), m.value.strftime("%H:%M") if m.has_time else None, m.direction),
        )
        for m in resolve_dates(case.text, case.at, case.tz)
    )
    return Outcome(case, got)


def show(t: Triple) -> str:
    day, clock, direction = t
    return f"{day}{' ' + clock if clock else ''} {direction}"


def table(outcomes: list[Outcome]) -> str:
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for o in outcomes:
        for key in ((o.case.kind, o.case.lang), (o.case.kind, "all"), ("all", o.case.lang), ("all", "all")):
            counts[key][0] += o.passed
            counts[key][1] += 1

    def cell(key: tuple[str, str]) -> str:
        ok, n = counts.get(key, (0, 0))
        return f"{ok}/{n} ({ok / n:.0%})" if n else "–"

    kinds = [*sorted({o.case.kind for o in outcomes}), "all"]
    lines = ["| kind | en | zh | all |", "| --- | ---: | ---: | ---: |"]
    for k in kinds:
        name = "**all**" if k == "all" else k
        lines.append(f"| {name} | {cell((k, 'en'))} | {cell((k, 'zh'))} | {cell((k, 'all'))} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the labelled sentences (JSON lines)")
    ap.add_argument(
        "--failures", type=int, default=20, metavar="N", help="list at most N failures (default 20)"
    )
    args = ap.parse_args()

    cases = load(args.data)
    t0 = time.perf_counter()
    outcomes = [run(c) for c in cases]
    elapsed = time.perf_counter() - t0
    passed = sum(o.passed for o in outcomes)

    print(f"## Date resolution on {len(cases)} sentences ({args.data.name})\n")
    print(table(outcomes))
    print(
        f"\noverall: {passed}/{len(cases)} = {passed / len(cases):.1%} "
        f"({elapsed / len(cases) * 1e6:.0f} µs per sentence)"
    )

    failures = [o for o in outcomes if not o.passed]
    if failures and args.failures > 0:
        print(f"\nFailures ({min(len(failures), args.failures)} of {len(failures)}):")
        for o in failures[: args.failures]:
            c = o.case
            said = c.at.astimezone(c.tz).strftime("%a %d %b %Y %H:%M")
            want = ", ".join(show(t) for t in sorted(c.expect, key=str)) or "nothing"
            got = ", ".join(f"{words!r} {show(t)}" for words, t in o.got) or "nothing"
            print(f"  [{c.lang} {c.kind}] {c.text!r} (said {said} {c.tz.key})")
            print(f"      want {want}\n      got  {got}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
