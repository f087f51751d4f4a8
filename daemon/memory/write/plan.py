"""A batch's dedup decisions and the writes they imply (the bookkeeping of stage 2).

`BatchDecisions.plan` (decisions.py) decides, per draft, with `dedup.decide`; `DedupPlan.record`
turns each decision into what `_commit` writes: new items, restatements absorbed by existing
ones (provenance, mentions, importance), supersessions (in time order), aliases for drafts that
joined an item, and the memory-op log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from daemon.memory.store import Store
from daemon.memory.types import ItemDraft, MemorizeReport
from daemon.memory.write import dedup as D


def item_hash(l0: str) -> str:
    """Stage 1 of dedup compares this: the exact one-line text."""
    return hashlib.sha256(l0.encode()).hexdigest()[:32]


@dataclass(slots=True)
class Absorbed:
    """An item that absorbs restatements (SKIP/MERGE): what it becomes."""

    sources: dict[str, str]  # resource id → embed-cache key of the text it contributed
    importance: float
    confidence: float
    mentions: int
    l1: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Created:
    """An item created earlier in the same batch: later drafts may duplicate it."""

    item_id: str
    category: str
    speaker: str
    l0: str
    l1: dict[str, Any]
    vector: np.ndarray
    hash: str
    draft: ItemDraft
    embed_hash: str


REPEAT_BONUS = 0.05  # importance added per repeated mention (the rule of importance())


@dataclass(slots=True)
class DedupPlan:
    """Every dedup decision of a batch and the writes they imply."""

    decisions: dict[int, D.Decision] = field(default_factory=dict)  # draft index → decision
    absorbed: dict[tuple[str, str], Absorbed] = field(default_factory=dict)  # stored targets
    pending: dict[str, Absorbed] = field(default_factory=dict)  # targets created in this batch
    superseded: list[tuple[str, str, str, datetime]] = field(default_factory=list)  # scope, old, new, at
    alias: dict[str, str] = field(default_factory=dict)  # draft id → the item it joined
    merged_context: list[tuple[str, str, str]] = field(default_factory=list)
    ops: list[tuple[str, str, str, str | None]] = field(default_factory=list)
    categories: dict[str, set[str]] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)
    report: MemorizeReport = field(default_factory=MemorizeReport)

    def record(
        self,
        i: int,
        scope: str,
        item_id: str,
        d: ItemDraft,
        decision: D.Decision,
        store: Store,
        batch: list[Created],
        vector: np.ndarray,
        h: str,
        eh: str,
        now: datetime,
        said_at: Callable[[str], datetime | None],
    ) -> None:
        self.decisions[i] = decision
        self.categories.setdefault(scope, set()).add(d.category)
        r = self.report
        if decision.op in (D.CREATE, D.SUPERSEDE):
            batch.append(Created(item_id, d.category, d.speaker or "", d.l0, d.l1, vector, h, d, eh))
            self.ops.append((scope, "created", item_id, None))
            said = d.observed_at or d.happened_at or now
            gone = 0
            for old in decision.superseded:
                old_said = said_at(old)
                if old_said is not None and old_said > said:
                    # a statement that arrives late is older than what it contradicts: it is
                    # stored as history, superseded by the newer one, not the other way round
                    self.superseded.append((scope, item_id, old, old_said))
                    self.gone.add(item_id)
                    self.ops.append((scope, "superseded", item_id, old))
                    gone += 1
                    continue
                self.superseded.append((scope, old, item_id, said))
                self.gone.add(old)
                self.ops.append((scope, "superseded", old, item_id))
                gone += 1
            self.report = replace(r, items_added=r.items_added + 1, superseded=r.superseded + gone)
            return
        target = decision.target or ""
        self.alias[item_id] = target
        created = next((c for c in batch if c.item_id == target), None)
        if created is not None:
            a = self.pending.setdefault(
                target,
                Absorbed(
                    dict.fromkeys(created.draft.source_ids, created.embed_hash),
                    created.draft.importance,
                    created.draft.confidence,
                    1,
                    dict(created.l1),
                ),
            )
        else:
            key = (scope, target)
            if key not in self.absorbed:
                imp, conf, mentions, l1 = store.items.item_states(scope, [target])[target]
                self.absorbed[key] = Absorbed({}, imp, conf, mentions, l1)
            a = self.absorbed[key]
        a.sources.update(dict.fromkeys(d.source_ids, eh))
        a.mentions += 1
        a.importance = round(min(1.0, max(a.importance, d.importance) + REPEAT_BONUS), 3)
        a.confidence = max(a.confidence, d.confidence)
        if decision.op == D.MERGE:
            a.l1 = D.merge_l1(a.l1, d.l1)
            if created is None:  # its words become searchable as context of the item it joined
                self.merged_context.append((scope, target, d.l0))
            self.report = replace(r, merged=r.merged + 1)
        else:
            self.report = replace(r, skipped=r.skipped + 1)
        self.ops.append((scope, "merged" if decision.op == D.MERGE else "skipped", target, None))
