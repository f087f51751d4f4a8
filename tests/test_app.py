"""The lifecycle of `memubot run`: opens (and migrates) the memory, stops cleanly on request."""

from __future__ import annotations

import asyncio
from pathlib import Path

from daemon.app import serve
from daemon.config import load_settings
from daemon.memory.store import SCHEMA_VERSION, Store


async def test_serve_opens_the_memory_and_stops_on_request(tmp_path: Path) -> None:
    settings = load_settings({"MEMUBOT_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path)})
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop))
    for _ in range(200):  # wait for the file to exist: the memory is open
        if settings.db_path.exists():
            break
        await asyncio.sleep(0.05)
    assert settings.db_path.exists()
    stop.set()
    assert await asyncio.wait_for(task, timeout=30) == 0
    store = Store(settings.db_path, read_only=True)  # closed and checkpointed: readable again
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
