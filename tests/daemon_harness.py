"""One way for a test to run the whole daemon: `serve` in this process, READY on entry (its
runtime file is written), stopped cleanly on exit (exit code 0, asserted)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from daemon.app import runtime_file, serve
from daemon.client import runtime_info
from daemon.config import Settings

# Which consumer the spawned daemons of the delivery, fault and cluster tests run
# (MEMUBOT_CONSUMER): the default, FastStream's; `MEMUBOT_TEST_CONSUMER=nats-py pytest
# tests/test_reliability.py` runs them on memubot's own nats-py loop.
CONSUMER = os.environ.get("MEMUBOT_TEST_CONSUMER", "faststream")


async def wait_for(predicate: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> None:
    """Poll `predicate` until it holds; TimeoutError after `timeout` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not predicate():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise TimeoutError(f"{what} not reached within {timeout:.0f}s") from None


def daemon_env(tmp_path: Path, nats_url: str, **extra: str) -> dict[str, str]:
    """The environment of a test daemon: its home and state under `tmp_path`, the given NATS,
    HTTP on a free port; `extra` adds or overrides MEMUBOT_* settings."""
    return {
        "HOME": str(tmp_path),
        "MEMUBOT_STATE_DIR": str(tmp_path / "state"),
        "MEMUBOT_NATS_URL": nats_url,
        "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
        **extra,
    }


@asynccontextmanager
async def running(
    settings: Settings, clock: Any = None, ready_within: float = 120.0
) -> AsyncIterator[dict[str, Any]]:
    """The daemon of `settings` (with an injected clock if given), READY on entry; yields its
    runtime info (pid, NATS URL, HTTP address)."""
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop) if clock is None else serve(settings, stop, clock=clock))
    try:
        await wait_for(lambda: runtime_file(settings).exists() or task.done(), ready_within, "READY")
        assert not task.done(), task.result()
        info = runtime_info(settings.state_dir)
        assert info is not None, "READY without a runtime file"
        yield info
    finally:
        stop.set()
        assert await asyncio.wait_for(task, 60) == 0
