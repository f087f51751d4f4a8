"""Items: their rows, provenance, context, dedup reads and updates, and the memory-op log."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from daemon.memory.store.core import Database, Table, _require, _utc
from daemon.memory.store.index import IndexTable
from daemon.memory.types import ItemView

# an ItemView's columns, in its fields' order
_VIEW = (
    "id, scope, category, l0, l1, speaker, due_at, observed_at, happened_at, context_text,"
    " (SELECT list(resource_id ORDER BY resource_id) FROM item_sources s WHERE s.item_id = items.id),"
    " superseded_by, valid_until, archived"
)


def _view(r: tuple[Any, ...]) -> ItemView:
    l1 = json.loads(r[4]) if isinstance(r[4], str) else (r[4] or {})
    return ItemView(
        id=r[0],
        scope=r[1],
        category=r[2],
        l0=r[3],
        l1=l1 if isinstance(l1, dict) else {},
        speaker=r[5],
        due_at=r[6],
        observed_at=r[7],
        happened_at=r[8],
        context_text=r[9] or "",
        source_ids=tuple(r[10] or ()),
        superseded_by=r[11],
        valid_until=r[12],
        archived=bool(r[13]),
    )


# what recall can find (the same test as the index build in store/index.py)
_ACTIVE = "NOT archived AND superseded_by IS NULL AND valid_until IS NULL"


@dataclass(frozen=True, slots=True)
class ItemRow:
    """An item as written by the memory core (vectors and postings travel beside it)."""

    id: str
    scope: str
    category: str
    l0: str
    l1: dict[str, Any]
    search_text: str
    context_text: str
    speaker: str | None
    session: str | None
    content_hash: str
    importance: float
    confidence: float
    created_at: datetime
    happened_at: datetime | None
    due_at: datetime | None
    evergreen: bool
    doc_len: int
    ctx_len: int
    source_ids: tuple[str, ...]
    observed_at: datetime | None = None
    mentions: int = 1
    source_hashes: dict[str, str] = field(default_factory=dict)  # resource id → embed-cache key


class ItemTable(Table):
    """Items with their provenance; writing one writes its vector and postings (`index`)."""

    def __init__(self, db: Database, index: IndexTable) -> None:
        super().__init__(db)
        self.index = index

    def insert_items(
        self,
        items: Sequence[ItemRow],
        vectors: np.ndarray,
        postings: Sequence[tuple[str, str, str, int, int]] = (),
    ) -> None:
        """Write items with their provenance, vectors and postings (call inside a transaction;
        the caller bumps the scopes' generation once for everything it wrote). The write path
        passes no postings and writes them with its other postings, in one statement."""
        if not items:
            return
        for it in items:
            _require(it.scope)
        self.con.execute(
            "INSERT INTO items (id, scope, category, l0, l1, search_text, context_text, speaker, session,"
            " content_hash, importance, confidence, created_at, updated_at, happened_at, valid_from, due_at,"
            " evergreen, doc_len, ctx_len, observed_at, mentions)"
            " SELECT unnest(?), unnest(?), unnest(?), unnest(?), unnest(?)::JSON, unnest(?), unnest(?),"
            " unnest(?), unnest(?), unnest(?), unnest(?), unnest(?), unnest(?::TIMESTAMPTZ[]),"
            " unnest(?::TIMESTAMPTZ[]), unnest(?::TIMESTAMPTZ[]), unnest(?::TIMESTAMPTZ[]),"
            " unnest(?::TIMESTAMPTZ[]), unnest(?), unnest(?), unnest(?), unnest(?::TIMESTAMPTZ[]), unnest(?)",
            [
                [i.id for i in items],
                [i.scope for i in items],
                [i.category for i in items],
                [i.l0 for i in items],
                [json.dumps(i.l1, ensure_ascii=False) for i in items],
                [i.search_text for i in items],
                [i.context_text for i in items],
                [i.speaker for i in items],
                [i.session for i in items],
                [i.content_hash for i in items],
                [float(i.importance) for i in items],
                [float(i.confidence) for i in items],
                [_utc(i.created_at) for i in items],
                [_utc(i.created_at) for i in items],
                [_utc(i.happened_at) for i in items],
                [_utc(i.happened_at or i.created_at) for i in items],
                [_utc(i.due_at) for i in items],
                [bool(i.evergreen) for i in items],
                [int(i.doc_len) for i in items],
                [int(i.ctx_len) for i in items],
                [_utc(i.observed_at or i.happened_at) for i in items],
                [int(i.mentions) for i in items],
            ],
        )
        # The items are new (the INSERT above refuses an id that exists), and forgetting an item
        # deletes its sources and vector with it: no row of theirs can be there already, so
        # neither write pays DuckDB's conflict check (OR IGNORE / OR REPLACE: about 1.5 ms each).
        # (A source named twice is linked once, as OR IGNORE did.)
        links = [
            (i.id, s, i.scope, i.source_hashes.get(s)) for i in items for s in dict.fromkeys(i.source_ids)
        ]
        if links:
            self.con.execute(
                "INSERT INTO item_sources SELECT unnest(?), unnest(?), unnest(?), unnest(?)",
                [[x[i] for x in links] for i in range(4)],
            )
        self.index.insert_vectors([i.id for i in items], [i.scope for i in items], vectors, fresh=True)
        if postings:
            self.index.add_postings(postings)

    def extend_contexts(
        self, turns: Sequence[tuple[str, str, str, int, Sequence[tuple[str, str, str, int, int]]]]
    ) -> list[tuple[str, str, str, int, int]]:
        """Append the turns after items to their contexts (call inside a transaction): each
        (scope, item id, text, its length in terms, its postings), in order.

        Returns the postings of the items that are there, for the caller to write with its
        others (they carry field 2; readers add them to field 1); an item that is not there
        gets none.
        """
        out: list[tuple[str, str, str, int, int]] = []
        for scope, item_id, text, added_len, postings in turns:
            # one point UPDATE per turn: a joined UPDATE ... FROM (unnest) scans the whole
            # table (48 ms for 300 turns at 100k items against about 2 ms a turn here), and
            # the count of updated rows costs less than RETURNING (1.1 against 1.8 ms)
            row = self.con.execute(
                "UPDATE items SET context_text = context_text || chr(10) || ?, ctx_len = ctx_len + ?"
                " WHERE scope = ? AND id = ?",
                [text, added_len, _require(scope), item_id],
            ).fetchone()
            if row and row[0]:  # never postings for an item that is not there
                out.extend(postings)
        return out

    def item_texts(self, scope: str) -> list[tuple[str, str, str]]:
        """(id, search_text, context_text) of a scope's items."""
        rows = self.con.execute(
            "SELECT id, search_text, context_text FROM items WHERE scope = ? ORDER BY id", [_require(scope)]
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def item(self, scope: str, item_id: str) -> dict[str, Any] | None:
        cur = self.con.execute(
            "SELECT *, (SELECT list(resource_id ORDER BY resource_id) FROM item_sources s"
            " WHERE s.item_id = items.id) AS source_ids FROM items WHERE scope = ? AND id = ?",
            [_require(scope), item_id],
        )
        row = cur.fetchone()
        if row is None:
            return None
        names = [d[0] for d in cur.description or []]
        return dict(zip(names, row, strict=True))

    def list_items(self, scope: str, limit: int = 200, state: str = "all") -> list[dict[str, Any]]:
        """A scope's items for the inspector: active first, then by importance and recency.

        `state` "active" keeps what recall can find; "retired" what it cannot (archived,
        superseded, or no longer valid), newest retirement first; "all" both.
        """
        where = {"all": "", "active": f" AND {_ACTIVE}", "retired": f" AND NOT ({_ACTIVE})"}[state]
        order = (
            "coalesce(archived_at, valid_until, updated_at) DESC, id"
            if state == "retired"
            else "archived, superseded_by IS NOT NULL, importance DESC, created_at DESC, id"
        )
        cur = self.con.execute(
            "SELECT id, category, l0, l1, speaker, tier, importance, mentions, access_count, last_access,"
            " created_at, observed_at, happened_at, due_at, valid_from, valid_until, superseded_by,"
            " archived, archived_at, evergreen,"
            " (SELECT list(resource_id ORDER BY resource_id) FROM item_sources s WHERE s.item_id = items.id)"
            f" AS source_ids FROM items WHERE scope = ?{where} ORDER BY {order} LIMIT ?",
            [_require(scope), limit],
        )
        names = [d[0] for d in cur.description or []]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def item_l0(self, scope: str, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        rows = self.con.execute(
            "SELECT l0 FROM items WHERE scope = ? AND id IN (SELECT unnest(?))", [_require(scope), list(ids)]
        ).fetchall()
        return [r[0] for r in rows]

    def contexts_mentioning(
        self, scope: str, sessions: Sequence[str], exclude: Sequence[str]
    ) -> list[tuple[str, str]]:
        """(id, context_text) of the items in these sessions, except `exclude`."""
        if not sessions:
            return []
        rows = self.con.execute(
            "SELECT id, context_text FROM items WHERE scope = ? AND session IN (SELECT unnest(?))"
            " AND id NOT IN (SELECT unnest(?)) ORDER BY id",
            [_require(scope), list(sessions), list(exclude) or [""]],
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    # ---- dedup and update ------------------------------------------------------------------

    def items_by_hash(self, scope: str, hashes: Sequence[str]) -> dict[tuple[str, str, str], str]:
        """Active items with one of these content hashes: (category, speaker, hash) → item id."""
        if not hashes:
            return {}
        rows = self.con.execute(
            "SELECT category, coalesce(speaker, ''), content_hash, min(id) FROM items"
            " WHERE scope = ? AND content_hash IN (SELECT unnest(?)) AND NOT archived"
            " AND superseded_by IS NULL GROUP BY ALL",
            [_require(scope), sorted(set(hashes))],
        ).fetchall()
        return {(r[0], r[1], r[2]): r[3] for r in rows}

    def item_states(
        self, scope: str, ids: Sequence[str]
    ) -> dict[str, tuple[float, float, int, dict[str, Any]]]:
        """id → (importance, confidence, mentions, l1) for the items a batch updates."""
        if not ids:
            return {}
        rows = self.con.execute(
            "SELECT id, importance, confidence, mentions, l1 FROM items WHERE scope = ? AND id IN"
            " (SELECT unnest(?))",
            [_require(scope), sorted(set(ids))],
        ).fetchall()
        return {r[0]: (float(r[1]), float(r[2]), int(r[3]), json.loads(r[4]) if r[4] else {}) for r in rows}

    def due_times(self, scope: str, ids: Sequence[str]) -> dict[str, datetime | None]:
        """id → due time (None for items without one): which events are plans."""
        if not ids:
            return {}
        rows = self.con.execute(
            "SELECT id, due_at FROM items WHERE scope = ? AND id IN (SELECT unnest(?))",
            [_require(scope), sorted(set(ids))],
        ).fetchall()
        return {r[0]: r[1] for r in rows}

    def absorb(
        self,
        scope: str,
        item_id: str,
        *,
        source_ids: dict[str, str],
        importance: float,
        confidence: float,
        mentions: int,
        l1: dict[str, Any],
        at: datetime,
    ) -> None:
        """A restatement joins an existing item (SKIP or MERGE): provenance, counts, fields."""
        scope = _require(scope)
        self.con.execute(
            "UPDATE items SET importance = ?, confidence = ?, mentions = ?, l1 = ?::JSON, updated_at = ?"
            " WHERE scope = ? AND id = ?",
            [importance, confidence, mentions, json.dumps(l1, ensure_ascii=False), _utc(at), scope, item_id],
        )
        self.link_sources(scope, item_id, source_ids)

    def slot_items(
        self, scope: str, category: str, speaker: str | None
    ) -> list[tuple[str, str, dict[str, Any]]]:
        """(id, l0, l1) of the active items of one category and speaker: the slots a new
        preference, profile fact or entity may contradict."""
        rows = self.con.execute(
            "SELECT id, l0, l1 FROM items WHERE scope = ? AND category = ? AND coalesce(speaker, '') = ?"
            " AND NOT archived AND superseded_by IS NULL ORDER BY id",
            [_require(scope), category, speaker or ""],
        ).fetchall()
        return [(r[0], r[1], json.loads(r[2]) if r[2] else {}) for r in rows]

    def slot_families(
        self, scope: str, categories: Iterable[str]
    ) -> dict[tuple[str, str], list[tuple[str, str, dict[str, Any]]]]:
        """`slot_items` of every speaker of `categories` at once, keyed by (category, speaker or
        ""): one scan of the scope per batch instead of one per category and speaker."""
        rows = self.con.execute(
            "SELECT category, coalesce(speaker, ''), id, l0, l1 FROM items"
            " WHERE scope = ? AND category IN (SELECT unnest(?))"
            " AND NOT archived AND superseded_by IS NULL ORDER BY id",
            [_require(scope), sorted(set(categories))],
        ).fetchall()
        out: dict[tuple[str, str], list[tuple[str, str, dict[str, Any]]]] = {}
        for category, speaker, item_id, l0, l1 in rows:
            out.setdefault((category, speaker), []).append((item_id, l0, json.loads(l1) if l1 else {}))
        return out

    def item_l1(self, scope: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The parsed L1 fields of chosen items (the slot families' cache reads them once)."""
        if not ids:
            return {}
        rows = self.con.execute(
            "SELECT id, l1 FROM items WHERE scope = ? AND id IN (SELECT unnest(?))",
            [_require(scope), list(ids)],
        ).fetchall()
        return {r[0]: json.loads(r[1]) if r[1] else {} for r in rows}

    def link_sources(self, scope: str, item_id: str, source_ids: dict[str, str]) -> None:
        """Add provenance: resource id → the embed-cache key of the text it contributed."""
        if source_ids:
            self.con.execute(
                "INSERT OR IGNORE INTO item_sources SELECT ?, unnest(?), ?, unnest(?)",
                [item_id, list(source_ids), _require(scope), list(source_ids.values())],
            )

    def items_holding(self, scope: str, resource_id: str) -> list[tuple[str, bool]]:
        """The items with `resource_id` among their sources: (id, still active) in id order."""
        rows = self.con.execute(
            "SELECT i.id, i.superseded_by IS NULL AND NOT i.archived FROM item_sources s"
            " JOIN items i ON i.id = s.item_id AND i.scope = s.scope"
            " WHERE s.scope = ? AND s.resource_id = ? ORDER BY i.id",
            [_require(scope), resource_id],
        ).fetchall()
        return [(str(r[0]), bool(r[1])) for r in rows]

    def supersede(self, scope: str, old_id: str, new_id: str, at: datetime) -> None:
        """The old item stops being valid at `at`; it keeps its row, sources and history."""
        self.con.execute(
            "UPDATE items SET valid_until = ?, superseded_by = ?, updated_at = ? WHERE scope = ? AND id = ?",
            [_utc(at), new_id, _utc(at), _require(scope), old_id],
        )

    # ---- the memory-op log ---------------------------------------------------------------

    def log_ops(self, ops: Sequence[tuple[str, str, str, str | None]], at: datetime) -> None:
        """Append (scope, op, item id, other id) rows to the memory-op log."""
        if ops:
            self.con.execute(
                "INSERT INTO memory_ops (scope, op, item_id, other_id, op_at)"
                " SELECT unnest(?), unnest(?), unnest(?), unnest(?), ?",
                [[o[i] for o in ops] for i in range(4)] + [_utc(at)],
            )

    def recent_ops(self, scope: str, limit: int = 100) -> list[dict[str, Any]]:
        """The newest `limit` memory ops of a scope, newest first."""
        rows = self.con.execute(
            "SELECT seq, op, item_id, other_id, op_at FROM memory_ops WHERE scope = ? ORDER BY seq DESC LIMIT ?",
            [_require(scope), limit],
        ).fetchall()
        return [{"seq": r[0], "op": r[1], "item_id": r[2], "other_id": r[3], "at": r[4]} for r in rows]

    def ops(self, scope: str, after_seq: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        rows = self.con.execute(
            "SELECT seq, op, item_id, other_id, op_at FROM memory_ops WHERE scope = ? AND seq > ?"
            " ORDER BY seq LIMIT ?",
            [_require(scope), after_seq, limit],
        ).fetchall()
        return [{"seq": r[0], "op": r[1], "item_id": r[2], "other_id": r[3], "at": r[4]} for r in rows]

    # ---- what the predictors read of the items ---------------------------------------

    def views(self, scope: str, ids: Sequence[str]) -> list[ItemView]:
        """The items of these ids that exist, in the order asked, as the predictors read them."""
        rows = self.con.execute(
            f"SELECT {_VIEW} FROM items WHERE scope = ? AND id IN (SELECT unnest(?))",
            [_require(scope), list(ids)],
        ).fetchall()
        found = {r[0]: _view(r) for r in rows}
        return [found[i] for i in ids if i in found]

    def retired_by(self, scope: str, item_id: str) -> list[ItemView]:
        """The items `item_id` retired (superseded), oldest first."""
        rows = self.con.execute(
            f"SELECT {_VIEW} FROM items WHERE scope = ? AND superseded_by = ? ORDER BY created_at, id",
            [_require(scope), item_id],
        ).fetchall()
        return [_view(r) for r in rows]

    def due_items(self, scope: str, lo: datetime, hi: datetime) -> list[ItemView]:
        """Active (not superseded, not archived) items with a due time in [lo, hi), by due time."""
        rows = self.con.execute(
            f"SELECT {_VIEW} FROM items WHERE scope = ? AND due_at >= ? AND due_at < ?"
            " AND superseded_by IS NULL AND valid_until IS NULL AND NOT archived ORDER BY due_at, id",
            [_require(scope), _utc(lo), _utc(hi)],
        ).fetchall()
        return [_view(r) for r in rows]
