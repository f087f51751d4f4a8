"""Reliability: the daemon as a real subprocess against a real nats-server, killed and restarted.

The stream lives in the test's nats-server, so it outlives every daemon process: a SIGKILL, a
SIGTERM under load, malformed input and duplicate publishes must each leave every turn stored
exactly once, every bad event in the dead-letter table with its reason, and the daemon serving.
Turn texts come from a pool of 100 sentences, so the daemon's embedding cache (keyed by text
hash) embeds each text once while every turn still becomes its own resource.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from daemon.client import Client, runtime_info
from daemon.memory.store import Store
from daemon.runtime.streams import ensure_streams
from tests.daemon_harness import CONSUMER

READY_TIMEOUT = 180.0  # model load and index warm-up on a busy 2-core machine
STOP_WAIT = 60.0  # MEMUBOT_STOP_TIMEOUT is 30 s; the exit must come well within this
FLUSH_TIMEOUT = 900.0  # generous: a batch in flight at a SIGKILL is redelivered after ack_wait
LOG_TAIL = 120

_PEOPLE = ["Alice", "my sister Jana", "Tomas", "my boss Ruth", "the neighbours"]
_TEMPLATES = [
    "I went hiking near Lake Bled with {p} last weekend.",
    "I need to call {p} about the dentist appointment on Friday.",
    "Dinner with {p} was at that new ramen place downtown.",
    "I lent {p} my copy of The Left Hand of Darkness.",
    "{P} recommended a podcast about Roman history.",
    "The flight to Lisbon with {p} leaves at 6:15 on Tuesday.",
    "I'm allergic to peanuts, so {p} always checks the menu for me.",
    "My gym routine is deadlifts on Monday; {p} spots me.",
    "We adopted a grey cat called Miso; {p} thinks she is too fat.",
    "{P} and I argued about whether to repaint the kitchen yellow.",
    "I started learning Czech on Duolingo because of {p}.",
    "The quarterly report is due next Thursday and {p} is reviewing it.",
    "I prefer oat milk in my coffee, {p} says that is weird.",
    "My car's MOT expires in June; {p} offered to drive it to the garage.",
    "I have been sleeping badly since the move, {p} suggested melatonin.",
    "Birthday present idea for {p}: a vintage film camera.",
    "I'm reading a book on Bayesian statistics that {p} gave me.",
    "{P} is visiting from Brno for a week in August.",
    "I sold my old bike to {p} for 200 euros.",
    "The piano lesson with {p} moved to Wednesday evenings.",
]
POOL = [t.format(p=p, P=p[0].upper() + p[1:]) for t in _TEMPLATES for p in _PEOPLE]
assert len(set(POOL)) == 100

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)


def turn(i: int, scope: str, prefix: str = "r") -> dict[str, Any]:
    """Turn `i` of a long conversation: texts repeat from POOL, timestamps increase."""
    return {
        "id": f"{prefix}{i}",
        "scope": scope,
        "agent": "main",
        "session": f"{scope}-s{i // 200}",
        "role": "user" if i % 3 else "assistant",
        "speaker": "Alice" if i % 3 else None,
        "text": POOL[i % len(POOL)],
        "ts": (T0 + timedelta(minutes=i)).isoformat(),
        "meta": {},
    }


def _tail(path: Path, n: int = LOG_TAIL) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return f"(no log: {exc})"
    notable = [ln for ln in lines[:-n] if ln.startswith(("WARNING", "ERROR", "CRITICAL", "Traceback"))]
    head = [f"... {len(notable)} warnings/errors before the tail:", *notable[-60:]] if notable else []
    return "\n".join([*head, f"... last {min(n, len(lines))} of {len(lines)} lines:", *lines[-n:]])


async def stored_count(client: Client) -> int:
    """Resources in the whole file (a scope is not_found until its first turn is stored)."""
    return int((await client.stats())["resources"])


async def poll(
    predicate: Callable[[], Awaitable[bool]], timeout: float, what: str, interval: float = 0.1
) -> None:
    """Wait until `predicate()` is true; fail with `what` after `timeout` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not await predicate():
                await asyncio.sleep(interval)
    except TimeoutError:
        pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}")


@dataclass
class Daemon:
    """One `memubot run` subprocess and its log file."""

    proc: asyncio.subprocess.Process
    log: Path
    info: dict[str, Any] = field(default_factory=dict)


class Runner:
    """Starts and stops daemon subprocesses sharing one state directory; prints their logs on failure."""

    def __init__(self, tmp_path: Path, nats_url: str) -> None:
        self.tmp_path = tmp_path
        self.nats_url = nats_url
        self.state_dir = tmp_path / "state"
        self.db_path = self.state_dir / "memubot.duckdb"
        self.daemons: list[Daemon] = []

    def env(self) -> dict[str, str]:
        drop = ("MEMUBOT_", "STATE_DIRECTORY", "XDG_", "NOTIFY_SOCKET", "WATCHDOG_", "LISTEN_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env.update(
            HOME=str(self.tmp_path),
            MEMUBOT_STATE_DIR=str(self.state_dir),
            MEMUBOT_NATS_URL=self.nats_url,
            MEMUBOT_HTTP_ADDR="127.0.0.1:0",
            MEMUBOT_STOP_TIMEOUT="30",
            MEMUBOT_CONSUMER=CONSUMER,
        )
        return env

    async def start(self) -> Daemon:
        """Start `memubot run` and wait for READY: a runtime file that names this process."""
        log = self.tmp_path / f"daemon-{len(self.daemons) + 1}.log"
        with log.open("wb") as out:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "daemon",
                "run",
                env=self.env(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )
        daemon = Daemon(proc, log)
        self.daemons.append(daemon)

        async def ready() -> bool:
            if proc.returncode is not None:
                pytest.fail(f"memubot run exited with {proc.returncode} before READY")
            info = runtime_info(self.state_dir)
            if info is not None and info.get("pid") == proc.pid:
                daemon.info = info
                return True
            return False

        await poll(ready, READY_TIMEOUT, f"daemon pid {proc.pid} to write its runtime file")
        assert daemon.info["nats_url"] == self.nats_url and not daemon.info["embedded_broker"]
        return daemon

    async def stop(self, daemon: Daemon) -> int:
        """SIGTERM, then wait for the exit; returns the exit code."""
        daemon.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(daemon.proc.wait(), STOP_WAIT)
        except TimeoutError:
            daemon.proc.kill()
            await daemon.proc.wait()
            pytest.fail(f"daemon pid {daemon.proc.pid} did not exit within {STOP_WAIT:.0f}s of SIGTERM")

    async def kill(self, daemon: Daemon) -> None:
        daemon.proc.kill()
        code = await asyncio.wait_for(daemon.proc.wait(), 30)
        assert code == -signal.SIGKILL
        with pytest.raises(ProcessLookupError):
            os.kill(daemon.proc.pid, 0)  # reaped: no such process any more

    async def cleanup(self, failed: bool) -> None:
        for d in self.daemons:
            if d.proc.returncode is None:
                d.proc.kill()
                await d.proc.wait()
        if failed:
            for d in self.daemons:
                print(f"\n===== {d.log.name} (pid {d.proc.pid}, exit {d.proc.returncode}) =====")
                print(_tail(d.log))

    def open_store(self) -> Store:
        """The daemon's DuckDB file, read-only (only once no daemon runs)."""
        assert all(d.proc.returncode is not None for d in self.daemons)
        return Store(self.db_path, read_only=True)


@contextlib.asynccontextmanager
async def running(tmp_path: Path, nats_url: str) -> AsyncIterator[tuple[Runner, Client]]:
    runner = Runner(tmp_path, nats_url)
    client = await Client.connect(nats_url, timeout=60)
    failed = True
    try:
        yield runner, client
        failed = False
    finally:
        with contextlib.suppress(Exception):
            await client.close()
        await runner.cleanup(failed)


async def batch_in_hand(client: Client) -> tuple[int, int]:
    """Wait until the daemon holds delivered, unacknowledged events; returns (ack floor, delivered)."""
    seen: tuple[int, int] = (0, 0)

    async def holding() -> bool:
        nonlocal seen
        info = await client.js.consumer_info("MEMUBOT_IN", "memubot")
        floor = int(info.ack_floor.stream_seq or 0) if info.ack_floor else 0
        delivered = int(info.delivered.stream_seq or 0) if info.delivered else 0
        seen = (floor, delivered)
        return int(info.num_ack_pending or 0) > 0

    await poll(holding, 120, "the daemon to fetch a batch", interval=0.02)
    return seen


def scope_ids(store: Store, scope: str) -> tuple[set[str], int]:
    rows = store.con.execute("SELECT id FROM resources WHERE scope = ?", [scope]).fetchall()
    return {r[0] for r in rows}, len(rows)


async def test_sigkill_in_the_middle_of_5000_turns_stores_each_exactly_once(
    tmp_path: Path, nats_url: str
) -> None:
    n, scope = 5000, "rel"
    async with running(tmp_path, nats_url) as (runner, client):
        first = await runner.start()
        for i in range(n):
            await client.publish("memubot.in.conversation.main", turn(i, scope))

        progress = 0

        async def consuming() -> bool:
            nonlocal progress
            progress = await stored_count(client)
            return progress >= 200

        await poll(consuming, 600, "the daemon to store 200 turns", interval=0.05)
        # kill with a batch delivered but not acknowledged: the server redelivers it only after
        # the consumer's ack_wait, so the flush below waits that long (hence FLUSH_TIMEOUT)
        floor, delivered = await batch_in_hand(client)
        await runner.kill(first)
        print(f"SIGKILL with {progress} of {n} turns stored, acked through {floor}, delivered {delivered}")
        assert progress < n, "the daemon finished before the kill: nothing was interrupted"
        stale = runtime_info(runner.state_dir)
        assert stale is not None and stale["pid"] == first.proc.pid  # left behind by the killed daemon

        # a publisher retry beyond the server's de-duplication: same event, a new Nats-Msg-Id
        again = list(range(0, n, 17))
        for i in again:
            data = json.dumps(turn(i, scope)).encode()
            await client.js.publish(
                "memubot.in.conversation.main", data, headers={"Nats-Msg-Id": f"again-r{i}"}
            )

        second = await runner.start()
        assert second.info["pid"] != first.proc.pid
        await client.flush(timeout=FLUSH_TIMEOUT)
        stats = await client.stats(scope)
        assert stats["resources"] == n
        assert stats["daemon"]["dead_letters"] == 0
        assert await runner.stop(second) == 0
        assert runtime_info(runner.state_dir) is None

        store = runner.open_store()
        try:
            ids, count = scope_ids(store, scope)
            assert ids == {f"r{i}" for i in range(n)}
            assert count == n
            [(total, distinct)] = store.con.execute(
                "SELECT count(*), count(DISTINCT id) FROM resources WHERE scope = ?", [scope]
            ).fetchall()
            assert (total, distinct) == (n, n)
            [(ledger,)] = store.con.execute(
                "SELECT count(*) FROM events WHERE scope = ? AND event_id LIKE 'r%'", [scope]
            ).fetchall()
            assert ledger == n
            [(dead,)] = store.con.execute("SELECT count(*) FROM dead_letters").fetchall()
            assert dead == 0
        finally:
            store.close()


# (subject, raw body, what the dead-letter reason must say) for each kind of bad event
def _malformed(k: int) -> list[tuple[str, bytes, str]]:
    def body(**changes: Any) -> dict[str, Any]:
        t = turn(k, "mixed", prefix="bad")
        t.update(changes)
        return {key: v for key, v in t.items() if v is not None}

    def dumps(obj: Any) -> bytes:
        return json.dumps(obj).encode()

    conv = "memubot.in.conversation.main"
    return [
        (conv, b'{"id": "bad-json-%d", "scope": "mixed", "text": ' % k, "invalid JSON"),
        (conv, dumps(body(text=None)), "missing required field 'text'"),
        (conv, dumps(body(role=7)), "field 'role' must be a string"),
        (conv, dumps(body(role="narrator")), "field 'role' must be one of"),
        (conv, dumps(body(ts="2024-05-01T10:00:00")), "no UTC offset"),
        (conv, b'{"id": "bad-utf8-%d", "scope": "mixed", "role": "user", "text": "\xff\xfe"}' % k, "UTF-8"),
        (conv, dumps(body(text="x" * (300 * 1024))), "too large"),
        ("memubot.in.nobody.listens", dumps(body()), "no handler for subject 'memubot.in.nobody.listens'"),
        (
            "memubot.in.feedback",
            dumps(
                {"id": f"fb-bad-{k}", "suggestion_id": "sg-1", "verdict": "loved it", "ts": T0.isoformat()}
            ),
            "field 'verdict' must be one of",
        ),
        ("memubot.in.conversation.main", dumps([1, 2, 3]), "must be a JSON object"),
    ]


async def test_mixed_valid_and_malformed_events(tmp_path: Path, nats_url: str) -> None:
    scope, valid = "mixed", 200
    async with running(tmp_path, nats_url) as (runner, client):
        daemon = await runner.start()
        readyz: list[int] = []
        done = asyncio.Event()

        async def probe() -> None:
            async with aiohttp.ClientSession() as http:
                while not done.is_set():
                    async with http.get(f"{daemon.info['http']}/readyz") as r:
                        readyz.append(r.status)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(done.wait(), 0.2)

        prober = asyncio.create_task(probe())
        expected: dict[int, tuple[str, str]] = {}  # stream seq → (subject, reason substring)
        bad = 0
        for i in range(valid):
            await client.publish("memubot.in.conversation.main", turn(i, scope, prefix="ok"))
            if i % 5 == 4:  # every fifth valid turn is followed by one bad event of the next kind
                kinds = _malformed(i)
                subject, data, reason = kinds[bad % len(kinds)]
                ack = await client.js.publish(subject, data, headers={"Nats-Msg-Id": f"bad-{bad}"})
                expected[ack.seq] = (subject, reason)
                bad += 1
        assert bad == 40

        await client.flush(timeout=600)
        done.set()
        await asyncio.wait_for(prober, 30)
        assert readyz and set(readyz) == {200}, readyz

        stats = await client.stats(scope)
        assert stats["resources"] == valid
        assert stats["daemon"]["dead_letters"] == bad
        listed = (await client.request("deadletters", {"action": "list", "limit": 500}))["dead_letters"]
        by_seq = {d["stream_seq"]: d for d in listed}
        assert set(by_seq) == set(expected)
        for seq, (subject, reason) in expected.items():
            dead = by_seq[seq]
            assert dead["subject"] == subject
            assert reason in dead["reason"], (seq, reason, dead["reason"])
            assert dead["attempts"] == 1  # a malformed event is never worth a retry
        # still serving after all of it
        assert (await client.stats(scope))["resources"] == valid
        assert await runner.stop(daemon) == 0


async def test_sigterm_under_load_exits_0_and_acks_nothing_uncommitted(tmp_path: Path, nats_url: str) -> None:
    n, scope = 1500, "term"
    async with running(tmp_path, nats_url) as (runner, client):
        daemon = await runner.start()
        seq_to_id: dict[int, str] = {}
        for i in range(n):
            t = turn(i, scope, prefix="t")
            ack = await client.js.publish(
                "memubot.in.conversation.main", json.dumps(t).encode(), headers={"Nats-Msg-Id": t["id"]}
            )
            seq_to_id[ack.seq] = t["id"]

        progress = 0

        async def storing() -> bool:
            nonlocal progress
            progress = await stored_count(client)
            return progress > 0

        await poll(storing, 600, "the daemon to start storing", interval=0.05)
        floor, delivered = await batch_in_hand(client)
        assert await runner.stop(daemon) == 0
        print(f"SIGTERM with {progress} of {n} turns stored, acked through {floor}, delivered {delivered}")

        store = runner.open_store()
        try:
            stored, count = scope_ids(store, scope)
            handled = {r[0] for r in store.con.execute("SELECT event_id FROM events").fetchall()}
        finally:
            store.close()
        assert count == len(stored) and stored <= handled
        info = await client.js.consumer_info("MEMUBOT_IN", "memubot")
        floor = int(info.ack_floor.stream_seq or 0) if info.ack_floor else 0
        print(
            f"after SIGTERM: {count} stored, {len(handled)} events handled, ack floor {floor}, "
            f"{info.num_ack_pending} ack-pending"
        )
        # the stream may also hold ticks the scheduler published: every message is one event
        assert floor <= len(handled)
        assert floor >= delivered  # the batch in hand at SIGTERM was finished and acked, not abandoned
        # ... and nothing delivered is left unacknowledged to wait out ack_wait after a restart
        assert info.num_ack_pending == 0
        acked_not_committed = []
        for seq in range(1, floor + 1):
            if seq in seq_to_id:
                if seq_to_id[seq] not in stored:
                    acked_not_committed.append(seq_to_id[seq])
            else:  # not one of our turns (a tick): it must be in the ledger all the same
                other = json.loads((await client.js.get_msg("MEMUBOT_IN", seq)).data or b"{}")
                if other.get("id") not in handled:
                    acked_not_committed.append(f"seq {seq}: {other}")
        assert not acked_not_committed, f"acked but not committed: {acked_not_committed[:20]}"

        again = await runner.start()
        await client.flush(timeout=FLUSH_TIMEOUT)
        assert await runner.stop(again) == 0
        store = runner.open_store()
        try:
            ids, count = scope_ids(store, scope)
        finally:
            store.close()
        assert ids == set(seq_to_id.values()) and count == n


async def test_duplicate_publish_and_redelivery_before_ack(tmp_path: Path, nats_url: str) -> None:
    scope = "dup"
    async with running(tmp_path, nats_url) as (runner, client):
        daemon = await runner.start()
        event = turn(1, scope, prefix="dup")
        data = json.dumps(event).encode()
        subject = "memubot.in.conversation.main"
        first = await client.js.publish(subject, data, headers={"Nats-Msg-Id": event["id"]})
        second = await client.js.publish(subject, data, headers={"Nats-Msg-Id": event["id"]})
        assert second.duplicate and second.seq == first.seq  # the server dropped the retry
        third = await client.js.publish(subject, data, headers={"Nats-Msg-Id": "retry-" + event["id"]})
        assert not third.duplicate and third.seq > first.seq  # this one reaches the daemon twice
        await client.flush(timeout=120)
        stats = await client.stats(scope)
        assert stats["resources"] == 1
        assert stats["daemon"]["dead_letters"] == 0
        assert await runner.stop(daemon) == 0
        store = runner.open_store()
        try:
            ids, count = scope_ids(store, scope)
            [(ledger,)] = store.con.execute(
                "SELECT count(*) FROM events WHERE event_id = ?", [event["id"]]
            ).fetchall()
        finally:
            store.close()
        assert ids == {event["id"]} and count == 1 and ledger == 1


def _deep(k: int, scope: str, levels: int = 5000) -> bytes:
    """Issue 22's stall: a 10 KB conversation turn whose `meta` nests `levels` arrays."""
    body = json.dumps(turn(k, scope, prefix="deep"))
    return (body[:-1] + ', "x": ' + "[" * levels + "]" * levels + "}").encode()


async def test_a_deeply_nested_event_among_valid_turns_is_a_dead_letter_and_stalls_nothing(
    tmp_path: Path, nats_url: str
) -> None:
    # Before: json.loads raised RecursionError, the whole batch of 64 was nak'd and redelivered
    # forever (never dead-lettered, every valid turn in it unstored, the flush below timing out)
    scope, valid = "stall", 150
    async with running(tmp_path, nats_url) as (runner, client):
        await ensure_streams(client.js)
        expected: dict[int, str] = {}  # stream seq → the deep event's id
        for i in range(valid):
            await client.publish("memubot.in.conversation.main", turn(i, scope, prefix="ok"))
            if i % 50 == 10:  # published before the daemon starts: they share batches with good turns
                data = _deep(i, scope)
                assert len(data) < 11_000
                ack = await client.js.publish(
                    "memubot.in.conversation.main", data, headers={"Nats-Msg-Id": f"deep{i}"}
                )
                expected[ack.seq] = f"deep{i}"
        daemon = await runner.start()
        await client.flush(timeout=FLUSH_TIMEOUT)

        stats = await client.stats(scope)
        assert stats["resources"] == valid
        assert stats["daemon"]["dead_letters"] == len(expected) == 3
        listed = (await client.request("deadletters", {"action": "list"}))["dead_letters"]
        assert {d["stream_seq"]: d["event_id"] for d in listed} == expected
        for dead in listed:
            assert dead["reason"] == "event is nested deeper than 64 levels", dead
            assert dead["attempts"] == 1  # dead at the first delivery, not after five retries
        # the daemon still answers, over RPC and over HTTP
        hits = await client.recall("what did my sister recommend?", scope=scope, k=3)
        assert hits
        async with aiohttp.ClientSession() as http, http.get(f"{daemon.info['http']}/readyz") as r:
            assert r.status == 200
        assert await runner.stop(daemon) == 0

        store = runner.open_store()
        try:
            ids, count = scope_ids(store, scope)
            assert ids == {f"ok{i}" for i in range(valid)} and count == valid  # each exactly once
            [(ledger,)] = store.con.execute(
                "SELECT count(*) FROM events WHERE scope = ? AND event_id LIKE 'ok%'", [scope]
            ).fetchall()
            assert ledger == valid
        finally:
            store.close()
