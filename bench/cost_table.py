#!/usr/bin/env python3
"""What a scope costs from 10k to 300k items: issue 25's table, every size in one run.

usage: python bench/cost_table.py [--sizes 10000,30000,100000,300000] [--fill-limit 100000]
                                  [--queries 200] [--readme] [--reuse] [--out bench/out/cost]

Runs the existing benches, each in a fresh process as they are designed, and gathers their JSON:

- `bench/writes.py --items N --db F`: sizes up to --fill-limit are filled by real writes
  (`Memory.memorize` of bench/scale.py's synthetic generator, chunks of 1,000, the rate of the
  last 1,000 is reported); then 500 writes into a copy of the file, timed (every size). A file at
  --fill-limit is filled even when that size is not asked for, because the bigger ones grow from it.
- `bench/ready.py --db F [--grow-to N] --repeat 2 --daemon --keep-state`: sizes above
  --fill-limit are grown from the --fill-limit file by duplicating its rows under new ids in SQL
  (same texts, terms and vectors; the table says so). In process: the index's bytes per item
  beyond its vector matrix. Then a real `memubot run` started twice on one state dir: the first
  start builds the index from DuckDB (and persists it after READY), the second loads the copy.
- `bench/scale.py --items N --queries Q --db <copy of F>`: the index build from DuckDB, RSS
  after it, recall after the query vector p50/p95 against a numpy brute-force top 10 of the same
  run, and how often the dense top 10 equals the exact top 10.

For grown sizes, the 500 timed writes are turns --fill-limit+100 … +600 of the generator (the
ones that follow the file that was grown), so the fill limit and the sizes above it are timed on
the same turns. A grown file repeats every text: recall is cheaper there and writes flatter than
on distinct items, so the default fills 100k by writes (about 6 minutes here) and grows only 300k.

Every subprocess (and the daemon they start) runs with OPENBLAS_NUM_THREADS=1, as the daemon
sets for itself (daemon/__init__.py): the benches import numpy before `daemon` and would
otherwise run OpenBLAS with its default threads. The load average is taken before and after
each bench and printed with the numbers (read the ratios on a shared machine).

Prints one JSON document (also written to <out>/cost_table.json); progress goes to stderr.
--readme writes the table between the markers below in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from doc_block import commit, write_block

ROOT = Path(__file__).resolve().parents[1]
DOC = "docs/benchmarks.md"  # the page that holds this section
BEGIN, END = "<!-- cost-table:begin -->", "<!-- cost-table:end -->"

# the issue's single-machine targets (issue 25)
RATIO_MAX = 1.5  # recall after the query vector, p50, over the numpy brute-force top 10's p50
P95_MAX_MS = 30.0
BYTES_PER_ITEM_MAX = 1500  # "1.5 KB per item beyond the vectors", read strictly
RSS_MAX_MB = 600.0
READY_MAX_S = 3.0
WRITES_MIN_PER_S = 250.0


def log(msg: str) -> None:
    print(f"[cost_table {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load1() -> float:
    return os.getloadavg()[0]


def run_bench(argv: list[str], log_path: Path, timeout: float) -> dict[str, Any]:
    """Run one bench script in a fresh process; its stderr goes to ours and to `log_path`, its
    stdout is the JSON document it prints. Returns it with the load before/after and the wall
    time, or {"error": …} if the bench failed (the table then says so)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    cmd = [sys.executable, *argv]
    log("run: python " + " ".join(argv))
    before, t0 = load1(), time.perf_counter()
    with log_path.open("w", encoding="utf-8") as logf:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

        def pump() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                sys.stderr.write("    " + line)
                logf.write(line)

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            t.join(5)
            return {"error": f"timed out after {timeout:.0f}s", "argv": argv}
        t.join(5)
    took = time.perf_counter() - t0
    meta = {"argv": argv, "wall_s": round(took, 1), "load_before": before, "load_after": load1()}
    if proc.returncode != 0:  # with the exception the bench died of, from its log
        cause = cause_of(log_path.read_text(encoding="utf-8", errors="replace"))
        return {"error": f"exit status {proc.returncode}: {cause} (log: {rel(log_path)})", **meta}
    try:
        doc = json.loads(out[out.index("{") :])
    except ValueError:
        return {"error": f"no JSON on stdout (log: {rel(log_path)})", **meta}
    doc["_run"] = meta
    return doc


def rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def fmt(x: float | None, spec: str = ".1f", unit: str = "") -> str:
    return "–" if x is None else f"{x:{spec}}{unit}"


def get(d: Any, *path: Any) -> Any:
    for p in path:
        if isinstance(d, dict):
            d = d.get(p)
        elif isinstance(d, list) and isinstance(p, int) and -len(d) <= p < len(d):
            d = d[p]
        else:
            return None
    return d


def measure(args: argparse.Namespace) -> dict[str, Any]:
    out_dir: Path = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    logs = out_dir / "logs"
    logs.mkdir(exist_ok=True)
    sizes = sorted(args.sizes)
    limit = args.fill_limit
    fill_sizes = sorted(
        {n for n in sizes if n <= limit} | ({limit} if any(n > limit for n in sizes) else set())
    )
    res: dict[str, Any] = {
        "command": " ".join(["python", "bench/cost_table.py", *sys.argv[1:]]),
        "started": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "commit": commit(),
        "cpus": os.cpu_count(),
        "env": {"OPENBLAS_NUM_THREADS": "1"},
        "fill_limit": limit,
        "sizes": {},
    }
    if not args.reuse:  # one run, one set of files
        for f in out_dir.glob("*.duckdb*"):
            f.unlink()

    def db_for(n: int) -> Path:
        return out_dir / f"fill-{n}.duckdb"

    def scale(n: int, db: Path) -> dict[str, Any]:
        copy = out_dir / f"scale-{n}.duckdb"  # recall reinforces: the measured file stays as it was
        shutil.copy(db, copy)
        try:
            return run_bench(
                ["bench/scale.py", "--items", str(n), "--queries", str(args.queries), "--db", str(copy)],
                logs / f"scale-{n}.log",
                args.timeout,
            )
        finally:
            for f in out_dir.glob(f"scale-{n}.duckdb*"):
                f.unlink()

    def ready(n: int, db: Path, grow_to: int = 0) -> dict[str, Any]:
        argv = ["bench/ready.py", "--db", str(db), "--repeat", "2", "--daemon", "--keep-state"]
        if grow_to:
            argv += ["--grow-to", str(grow_to)]
        return run_bench(argv, logs / f"ready-{n}.log", args.timeout)

    for n in fill_sizes:
        entry: dict[str, Any] = {"made": "filled", "load_start": load1()}
        log(f"size {n}: filling by writes")
        entry["writes"] = run_bench(
            ["bench/writes.py", "--items", str(n), "--db", str(db_for(n))],
            logs / f"writes-{n}.log",
            args.timeout,
        )
        if n in sizes:
            entry["scale"] = scale(n, db_for(n))
            entry["ready"] = ready(n, db_for(n))
            entry["load_end"] = load1()
            res["sizes"][n] = entry
            log(f"size {n}: done")
        else:
            res["fill_only"] = {n: entry}
    for n in sizes:
        if n <= limit:
            continue
        entry = {"made": f"grown from the {limit:,}-turn file", "load_start": load1()}
        log(f"size {n}: grown in SQL from the {limit} file")
        entry["ready"] = ready(n, db_for(limit), grow_to=n)
        base = db_for(limit)
        grown_db = base.with_name(f"{base.stem}-grown{n}{base.suffix}")  # bench/ready.py's name for it
        if not grown_db.exists():
            entry["error"] = "bench/ready.py did not grow the file"
            res["sizes"][n] = entry
            continue
        # the turns after the fill-limit file's, the same as at the fill limit (see the docstring)
        entry["writes"] = run_bench(
            ["bench/writes.py", "--items", str(limit), "--db", str(grown_db)],
            logs / f"writes-{n}.log",
            args.timeout,
        )
        entry["scale"] = scale(n, grown_db)
        entry["load_end"] = load1()
        res["sizes"][n] = entry
        log(f"size {n}: done")
    res["finished"] = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    return res


def cause_of(text: str) -> str:
    """The last exception line of a traceback in `text` ("" if none)."""
    found = re.findall(r"^[\w.]*(?:Error|Exception): .*$", text, flags=re.M)
    return found[-1].strip()[:300] if found else ""


def short(msg: str) -> str:
    """An error's first line, and the exception line of a traceback quoted in it."""
    lines = [ln.strip() for ln in str(msg).splitlines() if ln.strip()]
    cause = cause_of("\n".join(lines[1:]))
    head = re.sub(r"; log: \S+", "", lines[0])[:300] if lines else ""  # a temporary dir's log
    return head + (f" ({cause})" if cause else "")


def errors(e: dict[str, Any]) -> list[str]:
    """What failed for one size: a bench that failed, or a step bench/ready.py reported as failed."""
    out = [f"{k}: {short(v['error'])}" for k, v in e.items() if isinstance(v, dict) and "error" in v]
    if isinstance(e.get("error"), str):
        out.append(e["error"])
    r = e.get("ready") or {}
    if isinstance(get(r, "in_process", "error"), str):
        out.append(f"bench/ready.py in process: {short(r['in_process']['error'])}")
    out += [f"bench/ready.py daemon: {short(x['error'])}" for x in r.get("daemon") or [] if "error" in x]
    return out


def derive(e: dict[str, Any]) -> dict[str, Any]:
    """The table's numbers for one size, from the benches' JSON (None when a bench did not report)."""
    w, s, r = e.get("writes", {}), e.get("scale", {}), e.get("ready", {})
    daemon = [x for x in (r.get("daemon") or []) if "spawn_to_ready_s" in x]
    built = next((x for x in daemon if x.get("index_builds")), None)
    loaded = next((x for x in daemon if x.get("index_loads") and not x.get("index_builds")), None)
    ms = get(w, "writes", "ms_per_item")
    d: dict[str, Any] = {
        "items": s.get("indexed_items") or get(r, "in_process", "items"),
        "fill_last_1000_per_s": get(w, "fill", "last_1000_per_s"),
        "fill_first_1000_per_s": get(w, "fill", "first_1000_per_s"),
        "fill_s": get(w, "fill", "seconds"),
        "writes_ms_per_item": ms,
        "writes_per_s": round(1000 / ms, 1) if ms else None,
        "recall_p50_ms": get(s, "recall_after_embedding_ms", "p50"),
        "recall_p95_ms": get(s, "recall_after_embedding_ms", "p95"),
        "brute_p50_ms": get(s, "numpy_bruteforce_top10_ms", "p50"),
        "ratio_p50": s.get("ratio_recall_to_bruteforce_p50"),
        "dense_exact": s.get("dense_recall_at_10_vs_exact"),
        "index_build_s": s.get("index_build_s"),
        "rss_after_index_mb": s.get("rss_after_index_build_mb"),
        "ready_built_s": get(built, "spawn_to_ready_s"),
        "ready_loaded_s": get(loaded, "spawn_to_ready_s"),
        "daemon_rss_built_mb": get(built, "rss_at_end_mb"),
        "daemon_peak_built_mb": get(built, "rss_peak_mb"),
        "daemon_rss_loaded_mb": get(loaded, "rss_at_end_mb"),
        "bytes_per_item_built": get(r, "in_process", "built_index_bytes_per_item"),
        "bytes_per_item_loaded": get(r, "in_process", "loaded_index_bytes_per_item"),
        "load": (e.get("load_start"), e.get("load_end")),
        "errors": errors(e),
    }
    ratio, p95, b = (
        d["ratio_p50"],
        d["recall_p95_ms"],
        d["bytes_per_item_loaded"] or d["bytes_per_item_built"],
    )
    d["targets"] = {
        "recall p50 ≤ 1.5 × brute force": None if ratio is None else ratio <= RATIO_MAX,
        "recall p95 ≤ 30 ms": None if p95 is None else p95 <= P95_MAX_MS,
        "index ≤ 1.5 KB per item beyond vectors": None if b is None else b <= BYTES_PER_ITEM_MAX,
        "daemon RSS ≤ 600 MB": None
        if d["daemon_rss_loaded_mb"] is None
        else d["daemon_rss_loaded_mb"] <= RSS_MAX_MB,
        "start → READY ≤ 3 s": None if d["ready_loaded_s"] is None else d["ready_loaded_s"] <= READY_MAX_S,
        "writes ≥ 250/s": None if d["writes_per_s"] is None else d["writes_per_s"] >= WRITES_MIN_PER_S,
    }
    return d


def markdown(res: dict[str, Any]) -> str:
    sizes = sorted(res["sizes"], key=int)
    ds = {n: derive(res["sizes"][n]) for n in sizes}
    head = "| one scope | " + " | ".join(f"{int(n) // 1000}k" for n in sizes) + " |"
    lines = [head, "|---" * (len(sizes) + 1) + "|"]

    def row(label: str, cell: Any, *keys: str) -> None:
        """One line of the table; a cell whose `keys` are all unmeasured reads "–"."""
        cells = ["–" if keys and all(ds[n][k] is None for k in keys) else cell(n, ds[n]) for n in sizes]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    row(
        "how the file was made",
        lambda n, d: "filled by writes" if res["sizes"][n]["made"] == "filled" else "grown in SQL¹",
    )
    row("items in the scope", lambda n, d: fmt(d["items"], ","))
    row(
        "writes, last 1,000 of the fill, items/s",
        lambda n, d: (
            fmt(d["fill_last_1000_per_s"], ".0f") + (f" (fill {d['fill_s']:.0f} s)" if d["fill_s"] else "")
        ),
    )
    row(
        "**writes, 500 timed into a copy, items/s** (ms per item)",
        lambda n, d: (
            "–"
            if d["writes_per_s"] is None
            else f"**{d['writes_per_s']:.0f}** ({d['writes_ms_per_item']:.2f})"
        ),
        "writes_per_s",
    )
    row(
        "**recall after the query vector, p50 / p95**",
        lambda n, d: f"**{fmt(d['recall_p50_ms'])} / {fmt(d['recall_p95_ms'])} ms**",
        "recall_p50_ms",
        "recall_p95_ms",
    )
    row("numpy brute-force top 10, same run, p50", lambda n, d: fmt(d["brute_p50_ms"], ".1f", " ms"))
    row("**ratio recall / brute force, p50**", lambda n, d: f"**{fmt(d['ratio_p50'], '.2f')}**", "ratio_p50")
    row("dense top 10 equal to the exact top 10", lambda n, d: fmt(d["dense_exact"], ".2f"))
    row("index build from DuckDB (bench process)", lambda n, d: fmt(d["index_build_s"], ".1f", " s"))
    row("RSS after that build (bench process)", lambda n, d: fmt(d["rss_after_index_mb"], ",.0f", " MB"))
    row(
        "spawn → READY, daemon building the index / loading its persisted copy",
        lambda n, d: f"{fmt(d['ready_built_s'], '.1f')} / **{fmt(d['ready_loaded_s'], '.1f')} s**",
        "ready_built_s",
        "ready_loaded_s",
    )
    row(
        "daemon RSS after the first recall, built / loaded (peak when built)",
        lambda n, d: (
            f"{fmt(d['daemon_rss_built_mb'], ',.0f')} / **{fmt(d['daemon_rss_loaded_mb'], ',.0f')} MB**"
            f" ({fmt(d['daemon_peak_built_mb'], ',.0f')})"
        ),
        "daemon_rss_built_mb",
        "daemon_rss_loaded_mb",
    )
    row(
        "index bytes per item beyond the vectors, built / loaded",
        lambda n, d: f"{fmt(d['bytes_per_item_built'], ',')} / {fmt(d['bytes_per_item_loaded'], ',')}",
        "bytes_per_item_built",
        "bytes_per_item_loaded",
    )
    row(
        "load average (1 min) at start → end",
        lambda n, d: f"{fmt(d['load'][0], '.1f')} → {fmt(d['load'][1], '.1f')}",
    )
    targets = list(next(iter(ds.values()))["targets"]) if ds else []
    for t in targets:
        row(
            f"target: {t}",
            lambda n, d, t=t: {True: "met", False: "**not met**", None: "not measured"}[d["targets"][t]],
        )
    failed = [f"{int(n):,}: {err}" for n in sizes for err in ds[n]["errors"]]
    limit = res["fill_limit"]
    notes = [
        "",
        f"¹ Sizes above {limit:,} turns are the {limit:,}-turn file grown by duplicating its rows under new ids "
        "in SQL (`bench/ready.py --grow-to N`: the same texts, terms and vectors); their 500 timed writes are "
        f"the generator's turns {limit + 100:,}–{limit + 600:,}, the same as at {limit // 1000}k. "
        "A file grown so repeats every text: recall there is cheaper and writes flatter than on distinct items.",
        "",
        f"Measured {res['started']} – {res['finished']} at commit {res['commit']} on {res['cpus']} cores shared "
        "with other jobs (load average in the table: read the ratios), every bench in a fresh process with "
        "`OPENBLAS_NUM_THREADS=1` as the daemon sets it, with "
        f"`{res['command']}`.",
    ]
    if failed:
        notes += ["", "Failed: " + "; ".join(failed) + "."]
    return "\n".join(lines + notes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,30000,100000,300000", help="comma-separated item counts")
    # 100k turns fill in about 6 minutes here since 2026-12-04 (was most of an hour): a grown file
    # repeats its texts, which understates recall and flatters writes
    ap.add_argument(
        "--fill-limit", type=int, default=100_000, help="fill by writes up to this; grow the rest"
    )
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--readme", action="store_true", help=f"write the table into {DOC}")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "cost")
    ap.add_argument("--reuse", action="store_true", help="keep the files of an earlier run (no new fill)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per bench before it is killed")
    ap.add_argument("--from-json", type=Path, help="only render the table of an earlier run's JSON")
    args = ap.parse_args()
    args.sizes = [int(x) for x in str(args.sizes).split(",") if x.strip()]
    if args.from_json:
        res = json.loads(args.from_json.read_text(encoding="utf-8"))
    else:
        res = measure(args)
        res["table"] = {n: derive(e) for n, e in res["sizes"].items()}
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "cost_table.json").write_text(json.dumps(res, indent=1, default=str), encoding="utf-8")
    text = markdown(res)
    print(json.dumps(res, indent=1, default=str))
    print(text, file=sys.stderr)
    if args.readme:
        write_block(DOC, BEGIN, END, text)
        log(f"wrote the table into {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
