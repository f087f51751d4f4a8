"""The memory core: Resource → Item → Category in DuckDB with hybrid recall.

No transport imports live here (no NATS, aiohttp or APScheduler): handlers and the CLI use the
package API below, never SQL.
"""

from daemon.memory.embed import Embedder, make_embedder
from daemon.memory.facade import MAX_QUERY_CHARS, Memory
from daemon.memory.params import MemoryParams
from daemon.memory.read.stages import RecallParams
from daemon.memory.store import Store
from daemon.memory.types import CATEGORIES, TIERS, Clock, Hit, MemorizeReport, ResourceIn, system_clock

__all__ = [
    "CATEGORIES",
    "MAX_QUERY_CHARS",
    "TIERS",
    "Clock",
    "Embedder",
    "Hit",
    "MemorizeReport",
    "Memory",
    "MemoryParams",
    "RecallParams",
    "ResourceIn",
    "Store",
    "make_embedder",
    "system_clock",
]
