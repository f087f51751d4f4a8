"""MemoryParams: the memory core's configuration, one frozen value (built by daemon.config).

Its own module so that the facade (facade.py) and the write path (write/pipeline.py) both read it without
importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from daemon.memory import lifecycle as L
from daemon.memory.read import stages as R
from daemon.memory.read.bm25 import BM25Params
from daemon.memory.read.vectors import IVFParams
from daemon.memory.write import dedup as D


@dataclass(frozen=True, slots=True)
class MemoryParams:
    """Configuration of the memory core (built by daemon.config from TOML and environment)."""

    recall: R.RecallParams = field(default_factory=R.RecallParams)
    bm25: BM25Params = field(default_factory=BM25Params)
    ivf: IVFParams = field(default_factory=IVFParams)
    dedup: D.DedupParams = field(default_factory=D.DedupParams)
    lifecycle: L.LifecycleParams = field(default_factory=L.LifecycleParams)
    timezone: str = "UTC"  # the scope's time zone: "tomorrow" and "下周一" are resolved in it
    batch_size: int = 64  # turns per embedding batch / write transaction
    understand: bool = True  # the learned models (daemon/memory/models); off: the rules alone
    # Retire older statements by the update model (updates.py) when it is sure (P >= its
    # read-time bar) and the pair has a deletion's evidence.
    retire_by_model: bool = True
    # Also retire by slot (updates.py, SAME_SLOT): the nearest older statement of the same
    # single-valued slot and person, when the update model finds it plausible. Off since
    # 2026-12-04: a slot is a family of attributes (a GP and a dentist are both "doctor", the rent
    # and the floor both "home"): on the six update sets it passed 24 more update cases and
    # failed 12 more keep_both ones, each a true fact deleted (docs/understanding.md, "The slot
    # route, off"). A retirement needs positive evidence; one in three wrong is not that.
    retire_by_slot: bool = False
    # At read time, of two hits of the same person the older is demoted (never dropped) when the
    # newer updates it.
    newest_wins: bool = True
    touch_flush: int = 256  # buffered access updates before they are written
