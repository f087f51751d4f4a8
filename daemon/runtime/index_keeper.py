"""The index keeper: writes the scope indexes' persisted copies once the memory has been quiet.

A start loads a scope's index from its copy only if the copy is at DuckDB's current generation
(daemon/memory/read/indexfile.py); otherwise it rebuilds from DuckDB (about 8 s at 100k items).
Copies were written at READY and at a clean stop, so after a crash every write since the last
clean stop meant the slow start. The keeper reads the indexes' generations every `every_s`
seconds; when two readings are equal (no write for a whole period) it writes the copies that
are behind. Not during a burst of writes: a copy costs 0.2-0.7 s under the memory's lock (a
recall waits), and the next write would make it stale at once. A crash now costs the slow start
only if it comes within a period of the last write. A quiet period is also when the memory gives
back what DuckDB cached meanwhile (`Memory.release_memory`, for a big scope).
"""

from __future__ import annotations

import asyncio
import logging

from daemon.memory import Memory

log = logging.getLogger(__name__)

QUIET_S = 60.0  # a period with no write before the copies are written


class IndexKeeper:
    """Persists the scope indexes after a quiet period; `step` is one reading (for tests)."""

    def __init__(self, memory: Memory, every_s: float = QUIET_S) -> None:
        self.memory = memory
        self.every_s = every_s
        self._seen: dict[str, int] | None = None

    async def step(self) -> int:
        """Read the generations; if nothing moved since the last reading, write the copies that
        are behind. Returns how many were written."""
        now = await asyncio.to_thread(self.memory.index_generations)
        quiet, self._seen = now == self._seen, now
        if not quiet:
            return 0
        written = await asyncio.to_thread(self.memory.persist_indexes)
        # and what the period's recalls and writes left cached goes back (a big scope only)
        await asyncio.to_thread(self.memory.release_memory)
        return written

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                written = await self.step()
            except Exception as exc:  # closed at shutdown, a store error: the copy is only a cache
                log.debug("index keeper: %s", exc)
                continue
            if written:
                log.info(
                    "index keeper: wrote %d index cop%s after a quiet minute",
                    written,
                    "y" if written == 1 else "ies",
                )
