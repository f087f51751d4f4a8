"""Faults injected into a running `memubot run` (a real subprocess, a real nats-server, a real
DuckDB file): the broker killed under it, the daemon killed over its broker, an external broker
restarted, a locked file, a busy port. Each test is a row of the "Faults" table in docs/daemon.md.

A daemon's log is printed when its test ends; pytest shows it only when the test failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import nats
import pytest

from daemon.client import Client, runtime_info
from daemon.memory.store import Store
from daemon.runtime.broker import probe
from daemon.runtime.nats_server import PID_FILE, is_ours, start_embedded, stop
from tests.daemon_harness import CONSUMER
from tests.test_reliability import poll, turn

READY_TIMEOUT = 180.0  # model load and index warm-up on a busy 2-core machine
STOP_WAIT = 60.0
FLUSH_TIMEOUT = 600.0  # a batch in hand when the broker died may wait out ack_wait (30 s)
EXIT_TIMEOUT = 120.0  # a start-up failure: the model is loaded before the DB is opened


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _quiet(exc: Exception) -> None:
    """The test's own client sees the broker go away too; nats-py would print every retry."""


async def connect_client(url: str) -> Client:
    """A client that, like an agent's, reconnects for as long as it takes, and keeps quiet."""
    nc = await nats.connect(url, max_reconnect_attempts=-1, reconnect_time_wait=0.2, error_cb=_quiet)
    return Client(nc, timeout=60)


class Memubot:
    """`memubot run` subprocesses on one state directory and one configured NATS URL."""

    def __init__(self, tmp_path: Path, nats_url: str) -> None:
        self.tmp_path = tmp_path
        self.nats_url = nats_url
        self.state_dir = tmp_path / "state"
        self.procs: list[tuple[asyncio.subprocess.Process, Path]] = []

    def env(self, **extra: str) -> dict[str, str]:
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
        env.update(extra)
        return env

    async def spawn(self, **extra: str) -> asyncio.subprocess.Process:
        log = self.tmp_path / f"daemon-{len(self.procs) + 1}.log"
        with log.open("wb") as out:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "daemon",
                "run",
                env=self.env(**extra),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )
        self.procs.append((proc, log))
        return proc

    async def start(self) -> tuple[asyncio.subprocess.Process, dict[str, Any]]:
        """Start one and wait for READY: a runtime file that names this process."""
        proc = await self.spawn()
        info: dict[str, Any] = {}

        async def ready() -> bool:
            if proc.returncode is not None:
                pytest.fail(f"memubot run exited with {proc.returncode} before READY")
            found = runtime_info(self.state_dir)
            if found is not None and found.get("pid") == proc.pid:
                info.update(found)
                return True
            return False

        await poll(ready, READY_TIMEOUT, f"daemon pid {proc.pid} to write its runtime file")
        return proc, info

    async def stop(self, proc: asyncio.subprocess.Process) -> int:
        proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(proc.wait(), STOP_WAIT)
        except TimeoutError:
            pytest.fail(f"daemon pid {proc.pid} did not exit within {STOP_WAIT:.0f}s of SIGTERM")

    def log_of(self, proc: asyncio.subprocess.Process) -> str:
        log = next(path for p, path in self.procs if p is proc)
        return log.read_text(encoding="utf-8", errors="replace")

    def broker_pid(self) -> int | None:
        """The pid our embedded server recorded, if it is still running."""
        try:
            pid = int((self.state_dir / "nats" / PID_FILE).read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if is_ours(pid, self.state_dir / "nats") else None

    async def cleanup(self) -> None:
        for proc, log in self.procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
            print(f"\n===== {log.name} (pid {proc.pid}, exit {proc.returncode}), last 80 lines =====")
            print("\n".join(lines[-80:]))
        # never leave a server of ours running past the test, whatever went wrong
        pid = self.broker_pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)


@contextlib.asynccontextmanager
async def memubot(tmp_path: Path, nats_url: str) -> AsyncIterator[Memubot]:
    runner = Memubot(tmp_path, nats_url)
    try:
        yield runner
    finally:
        await runner.cleanup()


async def readyz(http: str) -> tuple[int, dict[str, Any]]:
    """(status, body) of /readyz; (0, {}) when nothing answers."""
    try:
        async with (
            aiohttp.ClientSession() as s,
            s.get(f"{http}/readyz", timeout=aiohttp.ClientTimeout(10)) as r,
        ):
            return r.status, await r.json()
    except (aiohttp.ClientError, TimeoutError):
        return 0, {}


def check_store(runner: Memubot, scope: str, expected: set[str]) -> None:
    """Every expected turn stored exactly once (resources and the ledger), no dead letters."""
    store = Store(runner.state_dir / "memubot.duckdb", read_only=True)
    try:
        rows = store.con.execute("SELECT id FROM resources WHERE scope = ?", [scope]).fetchall()
        ids = [r[0] for r in rows]
        assert len(ids) == len(set(ids)) == len(expected) and set(ids) == expected
        [(ledger,)] = store.con.execute("SELECT count(*) FROM events WHERE scope = ?", [scope]).fetchall()
        assert ledger == len(expected)
        [(dead,)] = store.con.execute("SELECT count(*) FROM dead_letters").fetchall()
        assert dead == 0
    finally:
        store.close()


def ppid_of(pid: int) -> int:
    # /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ")"
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


async def test_killing_the_embedded_broker_mid_ingest_loses_and_doubles_nothing(tmp_path: Path) -> None:
    n, scope = 2000, "fault"
    async with memubot(tmp_path, f"nats://127.0.0.1:{free_port()}") as runner:
        daemon, info = await runner.start()
        assert info["embedded_broker"] and info["nats_url"] == runner.nats_url
        first = info["broker_pid"]
        assert first == runner.broker_pid()
        client = await connect_client(info["nats_url"])
        try:
            for i in range(n):
                await client.publish("memubot.in.conversation.main", turn(i, scope, prefix="f"))
            stored = 0

            async def ingesting() -> bool:
                nonlocal stored
                stored = int((await client.stats())["resources"])
                return stored >= 200

            await poll(ingesting, 600, "the daemon to store 200 turns", interval=0.05)
            os.kill(first, signal.SIGKILL)
            print(f"SIGKILL of nats-server pid {first} with {stored} of {n} turns stored")
            assert stored < n, "the daemon finished before the kill: nothing was interrupted"

            async def restarted() -> bool:
                pid = runner.broker_pid()
                return pid is not None and pid != first

            await poll(restarted, 120, "the daemon to restart its nats-server")
            second = runner.broker_pid()
            assert second is not None and ppid_of(second) == daemon.pid  # its child: it dies with it

            async def ready() -> bool:
                return (await readyz(info["http"]))[0] == 200

            await poll(ready, 120, "/readyz to answer 200 again", interval=0.2)
            await client.flush(timeout=FLUSH_TIMEOUT)
            stats = await client.stats(scope)
            assert stats["resources"] == n and stats["daemon"]["dead_letters"] == 0
        finally:
            with contextlib.suppress(Exception):
                await client.close()
        assert await runner.stop(daemon) == 0
        assert runner.broker_pid() is None and not await probe(runner.nats_url, timeout=0.5)
        check_store(runner, scope, {f"f{i}" for i in range(n)})
        log = runner.log_of(daemon)
        assert "Traceback" not in log
        assert log.count("restarting it on") == 1  # one incident, one line; no retry storm


async def test_sigkill_of_the_daemon_leaves_no_broker_and_the_next_start_adopts_nothing(
    tmp_path: Path,
) -> None:
    async with memubot(tmp_path, f"nats://127.0.0.1:{free_port()}") as runner:
        first, info = await runner.start()
        assert info["embedded_broker"]
        orphan = info["broker_pid"]
        first.kill()
        await first.wait()

        async def broker_gone() -> bool:
            return not is_ours(orphan, runner.state_dir / "nats")

        await poll(broker_gone, 60, f"nats-server pid {orphan} to stop with its daemon")
        assert not await probe(runner.nats_url, timeout=0.5)

        # a server of ours the kernel could not stop (no parent-death signal on this OS, or a
        # daemon that died in the instant after the fork): it answers at the configured address
        port = int(runner.nats_url.rsplit(":", 1)[1])
        leftover = await start_embedded(runner.state_dir, port=port)
        try:
            second, info = await runner.start()
            # not adopted as someone else's broker: stopped, and replaced by a server of its own
            assert leftover.process.returncode is not None
            assert info["embedded_broker"] and info["nats_url"] == runner.nats_url
            assert info["broker_pid"] not in (orphan, leftover.pid)
            assert ppid_of(info["broker_pid"]) == second.pid
            assert await runner.stop(second) == 0
        finally:
            await stop(leftover)
        assert runner.broker_pid() is None and not await probe(runner.nats_url, timeout=0.5)
        assert "Traceback" not in runner.log_of(second)


async def test_an_external_broker_restarted_under_the_daemon_is_recovered(tmp_path: Path) -> None:
    n, scope = 600, "ext"
    port = free_port()
    external_dir = tmp_path / "external"  # not the daemon's state dir: not ours to manage
    external = await start_embedded(external_dir, port=port)
    async with memubot(tmp_path, external.url) as runner:
        try:
            daemon, info = await runner.start()
            assert not info["embedded_broker"] and info["broker_pid"] is None
            client = await connect_client(external.url)
            for i in range(n // 2):
                await client.publish("memubot.in.conversation.main", turn(i, scope, prefix="x"))

            async def ingesting() -> bool:
                return int((await client.stats())["resources"]) >= 50

            await poll(ingesting, 600, "the daemon to store 50 turns", interval=0.05)
            external.process.kill()
            await external.process.wait()

            async def not_ready() -> bool:
                status, body = await readyz(info["http"])
                return status == 503 and body["checks"]["broker"] is False

            await poll(not_ready, 60, "/readyz to answer 503 with the broker down", interval=0.1)
            external = await start_embedded(external_dir, port=port)  # same data, same address

            async def ready() -> bool:
                return (await readyz(info["http"]))[0] == 200

            await poll(ready, 120, "/readyz to answer 200 again", interval=0.2)
            for i in range(n // 2, n):
                await client.publish("memubot.in.conversation.main", turn(i, scope, prefix="x"))
            await client.flush(timeout=FLUSH_TIMEOUT)
            assert (await client.stats(scope))["resources"] == n
            await client.close()

            # and a SIGTERM while the broker is away still exits cleanly
            external.process.kill()
            await external.process.wait()
            await poll(not_ready, 60, "/readyz to answer 503 with the broker down again", interval=0.1)
            assert await runner.stop(daemon) == 0
        finally:
            await stop(external)
        check_store(runner, scope, {f"x{i}" for i in range(n)})
        log = runner.log_of(daemon)
        assert "Traceback" not in log and "memubot stopped" in log


async def _fails_at_start(runner: Memubot, **env: str) -> tuple[int, str]:
    proc = await runner.spawn(**env)
    code = await asyncio.wait_for(proc.wait(), EXIT_TIMEOUT)
    return code, runner.log_of(proc)


def started(runner: Memubot) -> list[str]:
    """What a start that got past the memory leaves in the state dir: the broker, the runtime file."""
    return [p.name for p in (runner.state_dir / "nats", runner.state_dir / "memubot.json") if p.exists()]


_HOLD = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
print("locked", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


async def test_a_locked_duckdb_file_is_a_clear_error_at_start(tmp_path: Path) -> None:
    async with memubot(tmp_path, f"nats://127.0.0.1:{free_port()}") as runner:
        runner.state_dir.mkdir()
        db = runner.state_dir / "memubot.duckdb"
        holder = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _HOLD,
            str(db),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert await asyncio.wait_for(holder.stdout.readline(), 60) == b"locked\n"
            code, log = await _fails_at_start(runner)
        finally:
            holder.stdin.close()
            await asyncio.wait_for(holder.wait(), 30)
        assert code == 1
        assert f"memubot run: {db} is in use by process {holder.pid} (" in log
        assert "Traceback" not in log
        assert started(runner) == []  # no broker started, no runtime file written


async def test_a_busy_http_port_fails_before_anything_starts(tmp_path: Path) -> None:
    async with memubot(tmp_path, f"nats://127.0.0.1:{free_port()}") as runner:
        with socket.socket() as squatter:
            squatter.bind(("127.0.0.1", 0))
            squatter.listen()
            port = squatter.getsockname()[1]
            code, log = await _fails_at_start(runner, MEMUBOT_HTTP_ADDR=f"127.0.0.1:{port}")
        assert code == 1
        assert (
            f"memubot run: MEMUBOT_HTTP_ADDR: cannot listen on 127.0.0.1:{port}: [Errno 98] error while "
            f"attempting to bind on address ('127.0.0.1', {port}): address already in use"
        ) in log
        # found before the memory, the broker and the start-up ticks: none of them ran
        assert not (runner.state_dir / "memubot.duckdb").exists()
        assert started(runner) == []
        assert "tick" not in log and "nats-server" not in log


async def test_the_watchdog_is_withheld_while_the_broker_stays_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from daemon import app
    from daemon.config import load_settings

    monkeypatch.setattr(app, "BROKER_GRACE_S", 0.0)  # production waits 5 minutes
    external = await start_embedded(tmp_path / "external", port=free_port())
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.setblocking(False)
    settings = load_settings(
        {
            "HOME": str(tmp_path),
            "MEMUBOT_STATE_DIR": str(tmp_path / "state"),
            "MEMUBOT_NATS_URL": external.url,
            "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
            "NOTIFY_SOCKET": str(tmp_path / "notify.sock"),
            "WATCHDOG_USEC": "200000",
        }
    )
    stop_event = asyncio.Event()
    task = asyncio.create_task(app.serve(settings, stop_event))
    loop = asyncio.get_running_loop()
    heard: list[str] = []

    async def hear(what: str) -> None:
        async with asyncio.timeout(READY_TIMEOUT):
            while not any(what in m for m in heard):
                heard.append((await loop.sock_recv(notify, 4096)).decode())

    try:
        with caplog.at_level(logging.INFO, logger="daemon.runtime.notify"):
            await hear("WATCHDOG=1")
            external.process.kill()
            await external.process.wait()

            async def withheld() -> bool:
                return any("withholding the watchdog ping" in r.getMessage() for r in caplog.records)

            await poll(withheld, 60, "the watchdog ping to be withheld")
            external = await start_embedded(tmp_path / "external", port=external.port)

            async def resumed() -> bool:
                return any("watchdog pings resume" in r.getMessage() for r in caplog.records)

            await poll(resumed, 60, "the watchdog pings to resume once the broker is back")
        stop_event.set()
        assert await asyncio.wait_for(task, 60) == 0
    finally:
        stop_event.set()
        notify.close()
        await stop(external)
        if not task.done():
            task.cancel()


async def test_an_external_broker_back_without_its_data_gets_the_streams_again(tmp_path: Path) -> None:
    port = free_port()
    external = await start_embedded(tmp_path / "external", port=port)
    async with memubot(tmp_path, external.url) as runner:
        try:
            daemon, _ = await runner.start()
            await stop(external)
            # a new server at the same address with an empty store: no streams, no consumer
            external = await start_embedded(tmp_path / "external-new", port=port)
            client = await connect_client(external.url)

            async def streams_back() -> bool:
                with contextlib.suppress(Exception):
                    await client.js.consumer_info("MEMUBOT_IN", "memubot")
                    return True
                return False

            await poll(streams_back, 60, "the daemon to declare its stream and consumer again")
            await client.publish("memubot.in.conversation.main", turn(1, "back", prefix="b"))
            await client.flush(timeout=120)
            assert (await client.stats("back"))["resources"] == 1
            await client.close()
            assert await runner.stop(daemon) == 0
        finally:
            await stop(external)
