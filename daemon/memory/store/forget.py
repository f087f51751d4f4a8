"""Forgetting for real: what deleting items and resources touches, and the deletion itself."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from daemon.memory.store.core import Database, Table, _require, _utc
from daemon.memory.store.index import IndexTable
from daemon.memory.store.items import ItemTable


class DeletionTable(Table):
    """The privacy path: rows, postings, vectors and cached vectors go, tombstones stay.

    Deletion reaches across the memory's tables (items, resources, postings, vectors, the op log
    and the ledger's tombstones) in one transaction, so it takes the repositories it writes through.
    """

    def __init__(self, db: Database, index: IndexTable, items: ItemTable) -> None:
        super().__init__(db)
        self.index = index
        self.items = items

    def forget_closure(
        self, scope: str, item_ids: Sequence[str], resource_ids: Sequence[str]
    ) -> tuple[list[str], list[str], list[str]]:
        """What forgetting these items and resources touches: (items, resources, orphans).

        Forgetting an item forgets every resource it came from. Every item linked to a forgotten
        resource goes too, even if it has other sources: a merge may have copied the forgotten
        words into it. Its other sources are the orphans: resources that stay and are extracted
        again, so what they said is still remembered, without the forgotten part.
        """
        scope = _require(scope)
        res = set(resource_ids)
        if item_ids:
            rows = self.con.execute(
                "SELECT DISTINCT resource_id FROM item_sources WHERE scope = ? AND item_id IN (SELECT unnest(?))",
                [scope, list(item_ids)],
            ).fetchall()
            res |= {r[0] for r in rows}
        items = set(item_ids)
        if res:
            rows = self.con.execute(
                "SELECT DISTINCT item_id FROM item_sources WHERE scope = ? AND resource_id IN (SELECT unnest(?))",
                [scope, sorted(res)],
            ).fetchall()
            items |= {r[0] for r in rows}
        orphans: set[str] = set()
        if items:
            rows = self.con.execute(
                "SELECT DISTINCT resource_id FROM item_sources WHERE scope = ? AND item_id IN (SELECT unnest(?))",
                [scope, sorted(items)],
            ).fetchall()
            orphans = {r[0] for r in rows} - res
        return sorted(items), sorted(res), sorted(orphans)

    def forget(
        self,
        scope: str,
        item_ids: Sequence[str],
        resource_ids: Sequence[str],
        cache_hashes: Sequence[str],
        contexts: Sequence[tuple[str, str, int, Sequence[tuple[str, str, str, int, int]]]],
        forgotten_at: datetime,
    ) -> dict[str, int]:
        """Delete items, resources, their postings, vectors and cached vectors (in a transaction).

        `contexts` rewrites neighbours whose context quoted a forgotten turn: (item id, new
        context text, its length, its new context postings). Items that a forgotten item had
        superseded become valid again. Returns the number of rows deleted per table.
        """
        scope = _require(scope)
        items, res = list(item_ids) or [""], list(resource_ids) or [""]
        counts: dict[str, int] = {}

        def delete(table: str, where: str, params: list[Any]) -> None:
            row = self.con.execute(
                f"WITH d AS (DELETE FROM {table} WHERE {where} RETURNING 1) SELECT count(*) FROM d", params
            ).fetchone()
            counts[table] = int(row[0]) if row and row[0] is not None else 0

        with self.db.transaction():
            linked = self.con.execute(
                "SELECT DISTINCT embed_hash FROM item_sources WHERE scope = ? AND embed_hash IS NOT NULL"
                " AND (item_id IN (SELECT unnest(?)) OR resource_id IN (SELECT unnest(?)))",
                [scope, items, res],
            ).fetchall()
            cache_hashes = sorted({*cache_hashes, *(r[0] for r in linked)})
            for item_id, text, length, postings in contexts:
                self.con.execute(
                    "DELETE FROM postings WHERE scope = ? AND item_id = ? AND field > 0", [scope, item_id]
                )
                self.con.execute(
                    "UPDATE items SET context_text = ?, ctx_len = ? WHERE scope = ? AND id = ?",
                    [text, length, scope, item_id],
                )
                self.index.add_postings(postings)
            self.con.execute(
                "UPDATE items SET superseded_by = NULL, valid_until = NULL WHERE scope = ?"
                " AND superseded_by IN (SELECT unnest(?))",
                [scope, items],
            )
            q = "SELECT unnest(?)"
            delete("postings", f"scope = ? AND item_id IN ({q})", [scope, items])
            delete("item_vectors", f"scope = ? AND item_id IN ({q})", [scope, items])
            delete(
                "item_sources",
                f"scope = ? AND (item_id IN ({q}) OR resource_id IN ({q}))",
                [scope, items, res],
            )
            delete(
                "memory_ops", f"scope = ? AND (item_id IN ({q}) OR other_id IN ({q}))", [scope, items, items]
            )
            delete("items", f"scope = ? AND id IN ({q})", [scope, items])
            # a resource's other name (its `aka`: a GitHub event's content id) is forgotten with it
            also = self.con.execute(
                "SELECT json_extract_string(meta, '$.aka') FROM resources WHERE scope = ?"
                f" AND id IN ({q}) AND json_extract_string(meta, '$.aka') IS NOT NULL",
                [scope, res],
            ).fetchall()
            tombs = res + [str(r[0]) for r in also]
            delete("resources", f"scope = ? AND id IN ({q})", [scope, res])
            # Tombstones: a forgotten turn imported again stays forgotten, and one redelivered by
            # the bus is a duplicate for the ledger (an event handled before keeps its record).
            self.con.execute(
                "INSERT INTO forgotten SELECT ?, id, ? FROM (SELECT unnest(?) AS id) WHERE id <> ''"
                " ON CONFLICT DO NOTHING",
                [scope, _utc(forgotten_at), tombs],
            )
            self.con.execute(
                "INSERT INTO events (event_id, subject, scope, outcome, handled_at)"
                " SELECT id, 'forget', ?, 'forgotten', ? FROM (SELECT unnest(?) AS id) WHERE id <> ''"
                " ON CONFLICT (event_id) DO NOTHING",
                [scope, _utc(forgotten_at), tombs],
            )
            self.items.log_ops([(scope, "forgotten", i, None) for i in items if i], forgotten_at)
            if cache_hashes:
                delete("embed_cache", f"hash IN ({q})", [list(cache_hashes)])
            self.db.bump_generation([scope])
        return counts
