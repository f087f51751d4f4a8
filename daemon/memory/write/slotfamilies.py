"""Slot families of one scope, kept beside its index: which stored items a new slotted statement
can contradict, found by looking its slot up instead of reading the whole family.

Dedup compares a new preference, profile fact or entity with every active item of the same
category and speaker (its slot family), because a contradiction need not be similar as a
vector. Reading and parsing the family from DuckDB on every batch made a write cost grow with
the scope. Here each slotted item's L1 is parsed once (when its row joins the index, or again
after a restatement merged new fields into it) and filed under the slot keys that
`dedup.contradicts` compares by equality. A lookup returns a superset of the members a
contradiction rule can fire on, plus every member similar enough for the cosine rules; the
rest could not change a decision (`dedup.decide` only reads a candidate through those rules),
so the decisions are the ones a full scan of the family makes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from daemon.memory.read.bm25 import tokenize
from daemon.memory.write.dedup import _HAN, SLOTTED, _norm
from daemon.memory.write.extract import SINGLE_VALUED, SINGULAR_RELATIONS

Key = tuple[str, str]  # (kind, normalised value)


def terms_key(value: Any) -> str | None:
    """A key equal for two values exactly when `dedup.same_terms` holds between them."""
    x = _norm(value)
    if not x:
        return None
    if _HAN.search(x):
        return "h:" + x  # CJK: the same text
    terms = tokenize(x)
    return "t:" + "\x00".join(sorted(set(terms))) if terms else None


def stored_keys(category: str, l1: dict[str, Any]) -> list[Key]:
    """The keys under which a stored item is found."""
    if category in ("profile", "entities"):
        attr = _norm(l1.get("attribute"))
        return [("attr", attr)] if attr else []
    if category == "preferences":
        keys: list[Key] = []
        key = _norm(l1.get("key"))
        if key:
            keys.append(("key", key))
        terms = terms_key(l1.get("value"))
        if terms is not None:
            keys.append(("terms", terms))
        return keys
    return []


def lookup_keys(category: str, l1: dict[str, Any]) -> list[Key] | None:
    """The keys whose members a new item's slot rules can fire on; None when any member may
    (a preference that rejects a value, "X, not Y", matches values by containment)."""
    if category == "profile":
        attr = _norm(l1.get("attribute"))
        return [("attr", attr)] if attr in SINGLE_VALUED else []
    if category == "entities":
        rel = _norm(l1.get("attribute"))
        return [("attr", rel)] if rel in SINGULAR_RELATIONS else []
    if category == "preferences":
        if l1.get("instead_of"):
            return None
        keys: list[Key] = []
        if l1.get("key"):
            key = _norm(l1.get("key"))
            if not key:  # a blank key equals every keyless item's
                return None
            keys.append(("key", key))
        terms = terms_key(l1.get("value"))
        if terms is not None:
            keys.append(("terms", terms))
        return keys
    return []


class SlotFamilies:
    """Parsed L1 and slot keys of a scope index's slotted rows, brought up to date per batch."""

    def __init__(self) -> None:
        self.l1: dict[str, dict[str, Any]] = {}
        self._where: dict[tuple[str, str, str, str], list[int]] = {}  # (category, speaker, *key) → rows
        self._covered = 0  # index rows read so far
        self._changed: set[str] = set()  # fields merged into since they were read
        self._told: dict[str, dict[str, Any]] = {}  # L1 the writer committed, not read back

    def changed(self, item_id: str) -> None:
        """A restatement merged new fields into the item: read its L1 again."""
        self._changed.add(item_id)

    def told(self, item_id: str, l1: dict[str, Any]) -> None:
        """The L1 a commit just stored for a slotted item (new, or merged into), as DuckDB will
        give it back: the next refresh takes it from here instead of reading it (a query of
        about 1.4 ms on most writes of a turn at a time)."""
        self._told[item_id] = l1

    def refresh(
        self,
        ids: list[str],
        categories: list[str],
        speakers: list[str | None],
        row_of: dict[str, int],
        read: Callable[[list[str]], dict[str, dict[str, Any]]],
    ) -> None:
        """Read the L1 of slotted rows added since the last refresh, and of changed items."""
        rows = [r for r in range(self._covered, len(ids)) if categories[r] in SLOTTED]
        rows += [row_of[i] for i in self._changed if i in row_of and row_of[i] < self._covered]
        self._covered = len(ids)
        self._changed.clear()
        told, self._told = self._told, {}  # every row told of is an added or changed one
        if not rows:
            return
        unknown = [ids[r] for r in rows if ids[r] not in told]
        got = read(unknown) if unknown else {}
        for r in rows:
            item_id, category = ids[r], categories[r]
            l1 = told[item_id] if item_id in told else got.get(item_id, {})
            self.l1[item_id] = l1
            # a changed item keeps its old keys too: a stale key only adds a candidate
            for key in stored_keys(category, l1):
                filed = self._where.setdefault((category, speakers[r] or "", *key), [])
                if not filed or filed[-1] != r:
                    filed.append(r)

    def candidates(
        self,
        category: str,
        speaker: str,
        l1: dict[str, Any],
        near: list[int],  # the family's rows at the stage-1 threshold: these always count
        in_family: Callable[[int], bool],  # whether a row is active, of the category and speaker
        family: Callable[[], np.ndarray],  # the family's mask over every row (only without keys)
    ) -> Iterable[int]:
        """Rows of the family the new item's slot or similarity rules can reach (unordered)."""
        keys = lookup_keys(category, l1)
        if keys is None:
            return np.flatnonzero(family()).tolist()
        out = set(near)
        for key in keys:
            out.update(r for r in self._where.get((category, speaker, *key), ()) if in_family(r))
        return out
