"""Resources: the stored turns every item is extracted from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from daemon.memory.store.core import Table, _offset_minutes, _require, _utc
from daemon.memory.types import ResourceIn, TurnView
from daemon.memory.write import drafts as draftcodec

# up to this many ids per scope, `existing_resources` filters the scan with a list (see there)
FEW_IDS = 20


class ResourceTable(Table):
    """Resources in, resources out: idempotent inserts, session neighbours, reads for re-extraction."""

    def is_stored(self, scope: str, resource_id: str) -> bool:
        """Whether the resource is stored now (a forgotten one is not, whatever its tombstone)."""
        row = self.con.execute(
            "SELECT count(*) FROM resources WHERE scope = ? AND id = ?", [_require(scope), resource_id]
        ).fetchone()
        return bool(row and row[0])

    def existing_resources(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (scope, id) pairs are already stored, or were forgotten (their tombstone stays)."""
        if not keys:
            return set()
        scopes = {k[0] for k in keys}
        if len(scopes) > 1:
            rows = self.con.execute(
                "WITH k AS (SELECT unnest(?) AS scope, unnest(?) AS id)"
                " SELECT r.scope, r.id FROM resources r JOIN k ON k.scope = r.scope AND k.id = r.id"
                " UNION SELECT k.scope, k.id FROM forgotten f JOIN k ON k.scope = f.scope AND k.id = f.resource_id",
                [[k[0] for k in keys], [k[1] for k in keys]],
            ).fetchall()
            return {(r[0], r[1]) for r in rows}
        # One scope (every write of the daemon's, and of a conversation import): the ids filter
        # the scan instead of a join with the keys: for a few ids a list_contains (1 id: 0.8
        # against 1.9 ms at 1k resources, 2.1 against 2.9 ms at 100k), for many a semi-join
        # (500 ids: 2.2 against 3.1 ms at 1k, 5.5 against 6.5 at 100k).
        (scope,) = scopes
        ids = [k[1] for k in keys]
        r_in, f_in = (
            ("list_contains(?, id)", "list_contains(?, resource_id)")
            if len(ids) <= FEW_IDS
            else ("id IN (SELECT unnest(?))", "resource_id IN (SELECT unnest(?))")
        )
        rows = self.con.execute(
            f"SELECT scope, id FROM resources WHERE scope = ? AND {r_in}"
            f" UNION ALL SELECT scope, resource_id FROM forgotten WHERE scope = ? AND {f_in}",
            [scope, ids, scope, ids],
        ).fetchall()
        return {(r[0], r[1]) for r in rows}

    def aliased_resources(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (scope, id) pairs are the `aka` of a stored resource (its other name)."""
        if not keys:
            return set()
        rows = self.con.execute(
            "WITH k AS (SELECT unnest(?) AS scope, unnest(?) AS id)"
            " SELECT k.scope, k.id FROM resources r JOIN k"
            " ON k.scope = r.scope AND k.id = json_extract_string(r.meta, '$.aka')",
            [[k[0] for k in keys], [k[1] for k in keys]],
        ).fetchall()
        return {(r[0], r[1]) for r in rows}

    def is_forgotten(self, scope: str, resource_id: str) -> bool:
        """Whether this resource was forgotten (its tombstone stays)."""
        row = self.con.execute(
            "SELECT count(*) FROM forgotten WHERE scope = ? AND resource_id = ?",
            [_require(scope), resource_id],
        ).fetchone()
        return bool(row and row[0])

    def forgotten_among(self, scope: str, ids: Sequence[str]) -> set[str]:
        """Which of these resource ids were forgotten (have a tombstone)."""
        if not ids:
            return set()
        rows = self.con.execute(
            "SELECT resource_id FROM forgotten WHERE scope = ? AND resource_id IN (SELECT unnest(?))",
            [_require(scope), list(ids)],
        ).fetchall()
        return {r[0] for r in rows}

    def insert_resources(self, resources: Sequence[ResourceIn], stored_at: datetime) -> None:
        if not resources:
            return
        for r in resources:
            _require(r.scope)
        cols: list[list[Any]] = [
            [r.id for r in resources],
            [r.scope for r in resources],
            [r.kind for r in resources],
            [r.session for r in resources],
            [r.role for r in resources],
            [r.speaker for r in resources],
            [r.agent for r in resources],
            [r.text for r in resources],
            [_utc(r.occurred_at) for r in resources],
            [_offset_minutes(r.occurred_at) for r in resources],
            [r.trust for r in resources],
            [json.dumps(r.meta, ensure_ascii=False) for r in resources],
            [draftcodec.dumps(r.drafts) for r in resources],
        ]
        self.con.execute(
            "INSERT INTO resources (id, scope, kind, session, role, speaker, agent, text, occurred_at,"
            " utc_offset_min, trust, meta, drafts, stored_at) SELECT unnest(?), unnest(?), unnest(?),"
            " unnest(?), unnest(?), unnest(?), unnest(?), unnest(?), unnest(?::TIMESTAMPTZ[]), unnest(?),"
            " unnest(?), unnest(?)::JSON, unnest(?)::JSON, ?",
            [*cols, _utc(stored_at)],
        )

    def previous_turn(
        self, scope: str, session: str, before: datetime, before_id: str
    ) -> tuple[str, str, str | None]:
        """The turn before (`before`, `before_id`) in a session: (speaker, text, its item id or None).

        Two lookups, not one query with a correlated subquery: DuckDB decorrelates that into a
        hash join over all of the scope's item sources, which made every write's cost grow with
        the scope.
        """
        scope = _require(scope)
        row = self.con.execute(
            "SELECT coalesce(speaker, role, ''), text, id FROM resources WHERE scope = ? AND session = ?"
            " AND (occurred_at < ? OR (occurred_at = ? AND id < ?))"
            " ORDER BY occurred_at DESC, id DESC LIMIT 1",
            [scope, session, _utc(before), _utc(before), before_id],
        ).fetchone()
        if row is None:
            return ("", "", None)
        item = self.con.execute(
            "SELECT min(item_id) FROM item_sources WHERE scope = ? AND resource_id = ?", [scope, row[2]]
        ).fetchone()
        return (row[0], row[1], item[0] if item else None)

    def read(self, scope: str, ids: Sequence[str]) -> list[ResourceIn]:
        """Stored resources as the memory core reads them (for extracting them again), with the
        drafts their handler made."""
        if not ids:
            return []
        rows = self.con.execute(
            "SELECT id, scope, text, occurred_at, utc_offset_min, kind, session, role, speaker, agent, trust,"
            " meta, drafts FROM resources WHERE scope = ? AND id IN (SELECT unnest(?)) ORDER BY occurred_at, id",
            [_require(scope), list(ids)],
        ).fetchall()
        return [
            ResourceIn(
                id=r[0],
                scope=r[1],
                text=r[2],
                occurred_at=r[3].astimezone(timezone(timedelta(minutes=int(r[4])))),
                kind=r[5],
                session=r[6],
                role=r[7],
                speaker=r[8],
                agent=r[9],
                trust=r[10],
                meta=json.loads(r[11]) if r[11] else {},
                drafts=draftcodec.loads(r[12]),
            )
            for r in rows
        ]

    def resource_texts(self, scope: str, ids: Sequence[str] | None = None) -> list[tuple[str, str, str, str]]:
        """(id, session, speaker-or-role, text) of a scope's resources (all, or the given ids)."""
        sql = "SELECT id, coalesce(session, ''), coalesce(speaker, role, ''), text FROM resources WHERE scope = ?"
        params: list[Any] = [_require(scope)]
        if ids is not None:
            sql += " AND id IN (SELECT unnest(?))"
            params.append(list(ids))
        return [(r[0], r[1], r[2], r[3]) for r in self.con.execute(sql + " ORDER BY id", params).fetchall()]

    def user_turns(self, scope: str, since: datetime, until: datetime) -> list[TurnView]:
        """The person's own conversation turns in [since, until): what patterns are found in."""
        rows = self.con.execute(
            "SELECT id, text, occurred_at, session FROM resources WHERE scope = ?"
            " AND kind = 'turn' AND role = 'user' AND occurred_at >= ? AND occurred_at < ? ORDER BY occurred_at, id",
            [_require(scope), _utc(since), _utc(until)],
        ).fetchall()
        return [TurnView(r[0], r[1], r[2], r[3]) for r in rows]
