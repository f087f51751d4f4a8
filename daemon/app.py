"""Composition root: builds the parts from Settings, runs them on one AsyncExitStack, stops on signal.

Today it holds the memory open (migrated, model loaded) and shuts down cleanly; the bus,
schedules and HTTP attach here, in that order, as the daemon grows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from contextlib import AsyncExitStack

from daemon.compose import open_memory
from daemon.config import Settings

log = logging.getLogger(__name__)


async def serve(settings: Settings, stop: asyncio.Event | None = None) -> int:
    """Run until SIGTERM/SIGINT (or `stop` is set); every teardown unwinds in reverse order."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    async with AsyncExitStack() as stack:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
            stack.callback(loop.remove_signal_handler, sig)
        memory = await asyncio.to_thread(open_memory, settings)
        stack.callback(memory.close)  # DuckDB checkpoints last
        indexed = await asyncio.to_thread(memory.warm)
        log.info("indexes built for %d items", indexed)
        stats = memory.stats()
        log.info(
            "memubot ready: %s (%d resources, %d items), embedder %s; the NATS bus, schedules and HTTP "
            "endpoints are not wired in yet, use the CLI for import and recall",
            settings.db_path,
            stats["resources"],
            stats["items"],
            memory.embedder.name,
        )
        with contextlib.suppress(asyncio.CancelledError):
            await stop.wait()
        log.info("memubot stopping: closing the memory")
    return 0
