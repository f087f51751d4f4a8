"""The daemon's NATS connection against a real nats-server: backoff, down time, and a clean
close whatever state the connection is in."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from daemon.runtime import nats_server as S
from daemon.runtime.connection import MAX_DELAY_S, connect, reconnect_delay


async def wait_until(predicate: object, what: str, timeout: float = 60.0) -> None:
    assert callable(predicate)
    try:
        async with asyncio.timeout(timeout):
            while not predicate():
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}")


async def test_closing_while_the_broker_is_gone_never_raises(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = await S.start_embedded(tmp_path)
    try:
        async with connect(server.url) as (nc, link):
            assert link.connected and link.healthy(0.0)
            server.process.kill()
            await server.process.wait()
            await wait_until(lambda: not link.connected, "the drop to be noticed")
            assert link.down_for() >= 0.0 and not link.healthy(0.0) and link.healthy(3600.0)
            with caplog.at_level(logging.DEBUG, logger="daemon.runtime.connection"):
                await wait_until(lambda: link.failures >= 3, "three failed reconnect attempts")
            # one line for the drop, not one per attempt (nats-py alone logs every second)
            warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert sum("reconnect to" in r.getMessage() for r in caplog.records) >= 2
            assert not any("reconnect to" in r.getMessage() for r in warnings), warnings
            # an ack or a publish made while down waits in the client's buffer: the close
            # must not fail on flushing it into the dead socket
            await nc.publish("memubot.test", b"buffered")
        assert nc.is_closed
    finally:
        await S.stop(server)


async def test_the_connection_comes_back_when_the_server_does(tmp_path: Path) -> None:
    server = await S.start_embedded(tmp_path)
    port = server.port
    returned = asyncio.Event()

    async def hook() -> None:
        returned.set()

    try:
        async with connect(server.url) as (nc, link):
            link.after_reconnect.append(hook)
            await S.stop(server)
            await wait_until(lambda: link.down_since is not None, "the drop to be noticed")
            server = await S.start_embedded(tmp_path, port=port)
            await asyncio.wait_for(returned.wait(), 60)  # the hook runs once the link is back
            assert link.connected and link.down_since is None
            await nc.publish("memubot.test", b"after")
            await nc.flush()
    finally:
        await S.stop(server)


def test_reconnect_delays_back_off_to_a_bound() -> None:
    delays = [reconnect_delay(n) for n in range(30)]
    assert delays[0] == 0.0 and delays == sorted(delays) and delays[3] > delays[1] > 0
    assert max(delays) == MAX_DELAY_S
