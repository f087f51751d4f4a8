"""sd_notify against a real AF_UNIX datagram socket standing in for systemd."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.runtime.notify import Notifier, watchdog_interval, watchdog_loop

TIMEOUT = 5.0


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    """A bound datagram socket, as systemd's NOTIFY_SOCKET would be."""
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(TIMEOUT)
        yield path, sock


def _pending(sock: socket.socket) -> bytes | None:
    """The next datagram if one is already queued, else None (no waiting)."""
    timeout = sock.gettimeout()
    sock.setblocking(False)  # with a timeout set, Python would wait for it even with MSG_DONTWAIT
    try:
        return sock.recv(4096)
    except BlockingIOError:
        return None
    finally:
        sock.settimeout(timeout)


def test_ready_sends_ready_and_status_in_one_datagram(systemd: tuple[str, socket.socket]) -> None:
    path, sock = systemd
    assert Notifier(path).ready("consuming 3 subjects")
    assert sock.recv(4096) == b"READY=1\nSTATUS=consuming 3 subjects"
    assert _pending(sock) is None


def test_each_state_is_its_own_datagram(systemd: tuple[str, socket.socket]) -> None:
    path, sock = systemd
    notifier = Notifier(path)
    assert notifier.ready()
    assert notifier.watchdog()
    assert notifier.status("draining\n2 in flight")
    assert notifier.stopping()
    assert notifier.send("STATUS=a", "EXTEND_TIMEOUT_USEC=1000000")
    assert [sock.recv(4096) for _ in range(5)] == [
        b"READY=1",
        b"WATCHDOG=1",
        b"STATUS=draining 2 in flight",  # a newline would start a bogus KEY=value line
        b"STOPPING=1",
        b"STATUS=a\nEXTEND_TIMEOUT_USEC=1000000",
    ]


def test_abstract_namespace_socket() -> None:
    name = f"memubot-test-{os.getpid()}-{id(object())}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(TIMEOUT)
        assert Notifier("@" + name).watchdog()
        assert sock.recv(4096) == b"WATCHDOG=1"


def test_no_socket_is_a_quiet_no_op() -> None:
    for path in (None, ""):
        notifier = Notifier(path)
        assert not notifier.enabled
        assert not notifier.ready("up")
        assert not notifier.watchdog()
        assert not notifier.stopping()


def test_dead_socket_returns_false_without_raising(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    notifier = Notifier(str(tmp_path / "nobody-listens.sock"))
    assert notifier.enabled
    assert not notifier.ready("up")
    assert not notifier.watchdog()
    warnings = [r for r in caplog.records if r.name == "daemon.runtime.notify" and r.levelname == "WARNING"]
    assert len(warnings) == 1, "a run of failures warns once"


def test_socket_that_went_away_returns_false(systemd: tuple[str, socket.socket]) -> None:
    path, sock = systemd
    notifier = Notifier(path)
    assert notifier.watchdog()
    sock.close()
    Path(path).unlink()
    assert not notifier.watchdog()


def test_watchdog_interval_is_half_the_period() -> None:
    assert watchdog_interval(60_000_000) == 30.0
    assert watchdog_interval(None) is None
    assert watchdog_interval(0) is None


async def _recv(sock: socket.socket) -> bytes:
    loop = asyncio.get_running_loop()
    return await asyncio.wait_for(loop.sock_recv(sock, 4096), TIMEOUT)


async def test_watchdog_loop_pings_only_while_healthy(systemd: tuple[str, socket.socket]) -> None:
    path, sock = systemd
    sock.setblocking(False)  # loop.sock_recv needs a non-blocking socket
    ok = True
    checks: asyncio.Queue[bool] = asyncio.Queue()  # every health check the loop made, in order

    def healthy() -> bool:
        checks.put_nowait(ok)
        return ok

    task = asyncio.create_task(watchdog_loop(Notifier(path), 0.01, healthy))
    try:
        assert await _recv(sock) == b"WATCHDOG=1"
        assert await _recv(sock) == b"WATCHDOG=1"

        ok = False
        while _pending(sock) is not None:  # pings of earlier healthy checks: sent synchronously, queued
            pass
        unhealthy = 0
        while unhealthy < 3:  # three failing checks in a row, and not one ping among them
            unhealthy += not await asyncio.wait_for(checks.get(), TIMEOUT)
        assert _pending(sock) is None

        ok = True
        assert await _recv(sock) == b"WATCHDOG=1"
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_watchdog_loop_survives_a_raising_health_check(systemd: tuple[str, socket.socket]) -> None:
    path, sock = systemd
    sock.setblocking(False)
    calls = 0

    def healthy() -> bool:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("store wedged")
        return True

    task = asyncio.create_task(watchdog_loop(Notifier(path), 0.01, healthy))
    try:
        assert await _recv(sock) == b"WATCHDOG=1"
        assert calls >= 2, "the first (raising) check sent no ping"
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
