"""The item lifecycle and categories: accesses, tiers, archive and restore, category summaries."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from daemon.memory.store.core import Table, _require, _utc

CATEGORY_TOP = 20  # items cited by a category summary


class LifecycleTable(Table):
    """What consolidation and recall reinforcement write, and the derived category summaries."""

    def touch(self, ids: Sequence[str], counts: Sequence[int], at: Sequence[datetime]) -> None:
        """Record recall accesses: access_count += n, last_access = latest (reinforcement)."""
        if not ids:
            return
        self.con.execute(
            "UPDATE items SET access_count = items.access_count + t.n,"
            " last_access = greatest(coalesce(items.last_access, t.at), t.at)"
            " FROM (SELECT unnest(?) AS id, unnest(?) AS n, unnest(?::TIMESTAMPTZ[]) AS at) t"
            " WHERE items.id = t.id",
            [list(ids), list(counts), [_utc(a) for a in at]],
        )

    def lifecycle_rows(self, scope: str) -> dict[str, np.ndarray]:
        """Per item: id, category, tier, accesses, last seen, importance, evergreen, archived."""
        rel = self.con.execute(
            "SELECT id, category, tier, access_count, importance, evergreen, archived,"
            " epoch(greatest(coalesce(observed_at, created_at), coalesce(last_access, observed_at, created_at)))"
            "   AS last_seen"
            " FROM items WHERE scope = ? AND superseded_by IS NULL ORDER BY id",
            [_require(scope)],
        ).fetchnumpy()
        return {k: np.asarray(v) for k, v in rel.items()}

    def set_lifecycle(
        self,
        scope: str,
        tiers: dict[str, str],
        archive: Sequence[str],
        evergreen: Sequence[str],
        at: datetime,
    ) -> None:
        """Write a consolidation step: new tiers, newly archived and newly evergreen items."""
        scope = _require(scope)
        if tiers:
            self.con.execute(
                "UPDATE items SET tier = t.tier, updated_at = $at FROM"
                " (SELECT unnest($ids) AS id, unnest($tiers) AS tier) t"
                " WHERE items.scope = $scope AND items.id = t.id",
                {"ids": list(tiers), "tiers": list(tiers.values()), "scope": scope, "at": _utc(at)},
            )
        if archive:
            self.con.execute(
                "UPDATE items SET archived = TRUE, archived_at = ?, updated_at = ?"
                " WHERE scope = ? AND id IN (SELECT unnest(?))",
                [_utc(at), _utc(at), scope, list(archive)],
            )
        if evergreen:
            self.con.execute(
                "UPDATE items SET evergreen = TRUE, updated_at = ? WHERE scope = ? AND id IN (SELECT unnest(?))",
                [_utc(at), scope, list(evergreen)],
            )

    def restore(self, scope: str, item_id: str, at: datetime) -> str | None:
        """Bring an archived or retired item back into recall (as a fresh peripheral item).

        Returns what it was: "archived", "superseded" (with the item that retired it named in
        the op log) or None when it was neither. A retirement is undone whole: the item is valid
        again from its old start, with no end and nothing replacing it.
        """
        row = self.con.execute(
            "SELECT archived, superseded_by, valid_until IS NOT NULL FROM items WHERE scope = ? AND id = ?",
            [_require(scope), item_id],
        ).fetchone()
        if row is None or not (row[0] or row[1] is not None or row[2]):
            return None
        self.con.execute(
            "UPDATE items SET archived = FALSE, archived_at = NULL, superseded_by = NULL, valid_until = NULL,"
            " tier = 'peripheral', last_access = ?, updated_at = ? WHERE scope = ? AND id = ?",
            [_utc(at), _utc(at), _require(scope), item_id],
        )
        return "archived" if row[0] else "superseded"

    def profile_items(self, scope: str) -> list[dict[str, Any]]:
        """Core-tier, active preferences and profile facts: what the profile file shows."""
        cur = self.con.execute(
            "SELECT id, category, l0, l1, importance, updated_at FROM items WHERE scope = ? AND tier = 'core'"
            " AND category IN ('profile', 'preferences') AND NOT archived AND superseded_by IS NULL"
            " ORDER BY category, importance DESC, id",
            [_require(scope)],
        )
        names = [d[0] for d in cur.description or []]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    # ---- categories ------------------------------------------------------------------------

    def refresh_categories(
        self, scope: str, names: Sequence[str], at: datetime, top: int = CATEGORY_TOP
    ) -> list[str]:
        """Rebuild the summaries of categories whose items changed; returns the names rebuilt.

        The summary is derived, never the source of truth: the category's `top` active items by
        importance then recency, one line each, citing the item as `[ref:<id>]`. A digest of
        those lines and the item count decides whether anything changed: only then is the
        summary rewritten and its version raised, so the version counts real changes.
        """
        if not names:
            return []
        scope = _require(scope)
        wanted = sorted(set(names))
        # One pass over the scope's active items of these categories, ranked per category: a
        # correlated subquery per category cost several times more while the embedder ran.
        # The first row of each category also carries the count when `top` is 0.
        ranked = self.con.execute(
            "SELECT category, id, l0, n, rank FROM (SELECT category, id, l0,"
            "   count(*) OVER (PARTITION BY category) AS n,"
            "   row_number() OVER (PARTITION BY category ORDER BY importance DESC, created_at DESC, id) AS rank"
            " FROM items WHERE scope = $scope AND category IN (SELECT unnest($names)) AND NOT archived"
            "   AND superseded_by IS NULL)"
            " WHERE rank <= greatest($top, 1) ORDER BY category, rank",
            {"scope": scope, "names": wanted, "top": top},
        ).fetchall()
        lines: dict[str, list[str]] = {name: [] for name in wanted}
        counts: dict[str, int] = dict.fromkeys(wanted, 0)
        for name, item_id, l0, n, rank in ranked:
            counts[name] = int(n)
            if rank <= top:
                lines[name].append(f"- {l0} [ref:{item_id}]")
        return self.write_categories(scope, {name: (counts[name], lines[name]) for name in wanted}, at)

    def write_categories(
        self, scope: str, summaries: dict[str, tuple[int, list[str]]], at: datetime
    ) -> list[str]:
        """Store category summaries (name → (active items, summary lines)) whose digest changed;
        returns the names rewritten. The write path ranks them itself (`CategoryRanks`)."""
        if not summaries:
            return []
        scope = _require(scope)
        wanted = sorted(summaries)
        stored = dict(
            self.con.execute(
                "SELECT name, digest FROM categories WHERE scope = $scope AND name IN (SELECT unnest($names))",
                {"scope": scope, "names": wanted},
            ).fetchall()
        )
        changed: list[tuple[str, str, int, str]] = []  # name, summary, item count, digest
        for name in wanted:
            count, lines = summaries[name]
            summary = "\n".join(lines)
            digest = hashlib.sha256(f"{count}\x00{summary}".encode()).hexdigest()[:32]
            if stored.get(name) != digest:
                changed.append((name, summary, count, digest))
        if not changed:
            return []
        # Rows there are updated and missing ones inserted, not upserted: the digests read above
        # say which is which, and ON CONFLICT cost DuckDB about 2 ms more per write.
        with self.db.atomic():
            self._write_changed(
                scope, [c for c in changed if c[0] in stored], [c for c in changed if c[0] not in stored], at
            )
        return [c[0] for c in changed]

    def _write_changed(
        self,
        scope: str,
        rewrite: list[tuple[str, str, int, str]],
        new: list[tuple[str, str, int, str]],
        at: datetime,
    ) -> None:
        """Rewrite the stored summaries `rewrite` and insert the `new` ones: (name, summary,
        item count, digest)."""
        if len(rewrite) == 1:  # the usual write: a point UPDATE (a join scans the table)
            name, summary, count, digest = rewrite[0]
            self.con.execute(
                "UPDATE categories SET summary = ?, version = version + 1, item_count = ?, updated_at = ?,"
                " digest = ? WHERE scope = ? AND name = ?",
                [summary, count, _utc(at), digest, scope, name],
            )
        elif rewrite:
            self.con.execute(
                "UPDATE categories SET summary = c.summary, version = categories.version + 1,"
                " item_count = c.n, updated_at = $at, digest = c.digest"
                " FROM (SELECT unnest($names) AS name, unnest($summaries) AS summary, unnest($counts) AS n,"
                " unnest($digests) AS digest) c WHERE categories.scope = $scope AND categories.name = c.name",
                {
                    "scope": scope,
                    "names": [c[0] for c in rewrite],
                    "summaries": [c[1] for c in rewrite],
                    "counts": [c[2] for c in rewrite],
                    "digests": [c[3] for c in rewrite],
                    "at": _utc(at),
                },
            )
        if new:
            self.con.execute(
                "INSERT INTO categories (scope, name, summary, version, item_count, updated_at, digest)"
                " SELECT $scope, unnest($names), unnest($summaries), 1, unnest($counts), $at, unnest($digests)",
                {
                    "scope": scope,
                    "names": [c[0] for c in new],
                    "summaries": [c[1] for c in new],
                    "counts": [c[2] for c in new],
                    "digests": [c[3] for c in new],
                    "at": _utc(at),
                },
            )

    def item_ranks(self, scope: str) -> dict[str, tuple[float, int]]:
        """Every item of the scope: id → (importance, created_at in epoch µs), the keys a
        category summary orders by (read once per index by the write path)."""
        rows = self.con.execute(
            "SELECT id, importance, epoch_us(created_at) FROM items WHERE scope = ?", [_require(scope)]
        ).fetchall()
        return {r[0]: (float(r[1]), int(r[2])) for r in rows}

    def drop_categories(self, scope: str) -> int:
        rows = self.con.execute(
            "DELETE FROM categories WHERE scope = ? RETURNING name", [_require(scope)]
        ).fetchall()
        return len(rows)

    def category(self, scope: str, name: str) -> dict[str, Any] | None:
        cur = self.con.execute(
            "SELECT * FROM categories WHERE scope = ? AND name = ?", [_require(scope), name]
        )
        row = cur.fetchone()
        names = [d[0] for d in cur.description or []]
        return dict(zip(names, row, strict=True)) if row else None
