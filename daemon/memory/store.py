"""The DuckDB store: schema, forward migrations and *all* of memubot's SQL.

One writer (the process that opened the file) owns the connection. Every row carries a scope and
every read takes one: a missing scope raises ScopeRequired instead of meaning "all users".
Bulk writes go through `INSERT ... SELECT unnest(?)` because DuckDB's executemany runs row by row
(a few hundred rows a second here), which would make storage, not embedding, the slow step.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from daemon.errors import ScopeRequired, StoreError
from daemon.memory.types import ResourceIn

log = logging.getLogger(__name__)

# Forward-only migrations: (version, statements). Never edit a shipped step; append a new one.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE SEQUENCE resource_seq START 1",
            # An event id identifies a resource within its scope: the same id in two scopes is
            # two resources (a collision must not silently drop one user's data).
            """CREATE TABLE resources (
                id TEXT NOT NULL,
                scope TEXT NOT NULL,
                seq BIGINT NOT NULL DEFAULT nextval('resource_seq'),
                kind TEXT NOT NULL,
                session TEXT,
                role TEXT,
                speaker TEXT,
                agent TEXT,
                text TEXT NOT NULL,
                occurred_at TIMESTAMPTZ NOT NULL,
                utc_offset_min INTEGER NOT NULL DEFAULT 0,
                trust TEXT NOT NULL DEFAULT 'normal',
                meta JSON,
                stored_at TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (scope, id))""",
            "CREATE INDEX resources_scope_session ON resources (scope, session)",
            """CREATE TABLE items (
                id TEXT PRIMARY KEY,
                scope TEXT NOT NULL,
                category TEXT NOT NULL,
                l0 TEXT NOT NULL,
                l1 JSON,
                search_text TEXT NOT NULL,
                context_text TEXT NOT NULL DEFAULT '',
                speaker TEXT,
                session TEXT,
                content_hash TEXT NOT NULL,
                importance DOUBLE NOT NULL DEFAULT 0.5,
                confidence DOUBLE NOT NULL DEFAULT 0.5,
                tier TEXT NOT NULL DEFAULT 'peripheral',
                access_count INTEGER NOT NULL DEFAULT 0,
                last_access TIMESTAMPTZ,
                created_at TIMESTAMPTZ NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL,
                happened_at TIMESTAMPTZ,
                valid_from TIMESTAMPTZ,
                valid_until TIMESTAMPTZ,
                superseded_by TEXT,
                due_at TIMESTAMPTZ,
                evergreen BOOLEAN NOT NULL DEFAULT FALSE,
                archived BOOLEAN NOT NULL DEFAULT FALSE,
                doc_len INTEGER NOT NULL DEFAULT 0,
                ctx_len INTEGER NOT NULL DEFAULT 0)""",
            "CREATE INDEX items_scope ON items (scope)",
            """CREATE TABLE item_sources (
                item_id TEXT NOT NULL,
                resource_id TEXT NOT NULL,
                scope TEXT NOT NULL,
                PRIMARY KEY (item_id, resource_id))""",
            "CREATE INDEX item_sources_resource ON item_sources (scope, resource_id)",
            """CREATE TABLE categories (
                scope TEXT NOT NULL,
                name TEXT NOT NULL,
                summary TEXT NOT NULL DEFAULT '',
                version INTEGER NOT NULL DEFAULT 0,
                item_count INTEGER NOT NULL DEFAULT 0,
                updated_at TIMESTAMPTZ,
                PRIMARY KEY (scope, name))""",
            # field 0: the item's own text; field 1: its conversational context (the turn
            # before and the item); field 2: context that arrived later (the turn after).
            # Append-only and without a key: a document's tf is the sum of its rows, so a
            # growing context never updates a row, and bulk inserts skip index upkeep.
            """CREATE TABLE postings (
                scope TEXT NOT NULL,
                term TEXT NOT NULL,
                item_id TEXT NOT NULL,
                field TINYINT NOT NULL,
                tf INTEGER NOT NULL)""",
            """CREATE TABLE scope_state (
                scope TEXT PRIMARY KEY,
                generation BIGINT NOT NULL DEFAULT 0)""",
        ],
    ),
    (
        2,
        [
            # DuckDB refuses ALTER on a table that an index depends on: drop, alter, recreate.
            "DROP INDEX items_scope",
            # how often the fact was stated (exact or near-duplicate restatements raise it)
            "ALTER TABLE items ADD COLUMN mentions INTEGER NOT NULL DEFAULT 1",
            "ALTER TABLE items ADD COLUMN archived_at TIMESTAMPTZ",
            # when the fact was said (happened_at is when it happened: "yesterday" resolved)
            "ALTER TABLE items ADD COLUMN observed_at TIMESTAMPTZ",
            "UPDATE items SET observed_at = happened_at",
            "CREATE INDEX items_scope ON items (scope)",
            "CREATE INDEX items_hash ON items (scope, content_hash)",
            # a digest of what a summary was built from: unchanged items, no new version
            "ALTER TABLE categories ADD COLUMN digest TEXT NOT NULL DEFAULT ''",
            # the embedding-cache key of the text each source contributed (a skipped or merged
            # restatement has its own), so that forgetting the source can drop its cached vector
            "DROP INDEX item_sources_resource",
            "ALTER TABLE item_sources ADD COLUMN embed_hash TEXT",
            "CREATE INDEX item_sources_resource ON item_sources (scope, resource_id)",
            "CREATE SEQUENCE memory_op_seq START 1",
            # what the memory did, in order: created / merged / skipped / superseded / archived /
            # restored / promoted / demoted / forgotten (the daemon publishes these on the bus)
            """CREATE TABLE memory_ops (
                seq BIGINT NOT NULL DEFAULT nextval('memory_op_seq'),
                scope TEXT NOT NULL,
                op TEXT NOT NULL,
                item_id TEXT NOT NULL,
                other_id TEXT,
                op_at TIMESTAMPTZ NOT NULL)""",
        ],
    ),
    (
        3,
        [
            # The idempotency ledger: every event id the daemon has handled, and a tombstone
            # for every forgotten resource, so that redelivery, publisher retries and restarts
            # never store anything twice, and a forgotten turn never comes back.
            """CREATE TABLE events (
                event_id TEXT PRIMARY KEY,
                subject TEXT NOT NULL,
                scope TEXT,
                outcome TEXT NOT NULL,
                handled_at TIMESTAMPTZ NOT NULL)""",
            "CREATE SEQUENCE dead_letter_seq START 1",
            # events the daemon could not handle, with the reason and the raw bytes to replay
            """CREATE TABLE dead_letters (
                id BIGINT PRIMARY KEY DEFAULT nextval('dead_letter_seq'),
                event_id TEXT,
                subject TEXT NOT NULL,
                reason TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                payload BLOB NOT NULL,
                stream_seq BIGINT,
                failed_at TIMESTAMPTZ NOT NULL,
                replayed_at TIMESTAMPTZ)""",
            # what the person said about a suggestion (accepted / dismissed / snoozed)
            """CREATE TABLE feedback (
                event_id TEXT PRIMARY KEY,
                scope TEXT,
                suggestion_id TEXT NOT NULL,
                verdict TEXT NOT NULL,
                given_at TIMESTAMPTZ NOT NULL)""",
            # positions of the daemon's outboxes (e.g. the last memory op published)
            "CREATE TABLE cursors (name TEXT PRIMARY KEY, position BIGINT NOT NULL)",
            # tombstones: resources forgotten for good, per scope (resource ids are scope-local)
            """CREATE TABLE forgotten (
                scope TEXT NOT NULL,
                resource_id TEXT NOT NULL,
                forgotten_at TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (scope, resource_id))""",
        ],
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _require(scope: str | None) -> str:
    if not scope or not isinstance(scope, str):
        raise ScopeRequired("a scope is required for every read and write")
    return scope


def _utc(ts: datetime | None) -> datetime | None:
    return ts.astimezone(UTC) if ts is not None else None


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


@dataclass(frozen=True, slots=True)
class FieldPostings:
    """One BM25 field of a scope in bulk: term i owns docs[starts[i]:starts[i+1]], sorted by doc."""

    terms: list[str]
    starts: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray


def _field_postings(rel: dict[str, np.ndarray]) -> FieldPostings:
    terms = np.asarray(rel["term"], dtype=object)
    if terms.shape[0] == 0:
        return FieldPostings([], np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
    change = np.flatnonzero(terms[1:] != terms[:-1]) + 1
    starts = np.concatenate([[0], change, [terms.shape[0]]]).astype(np.int64)
    return FieldPostings(
        terms=[str(t) for t in terms[starts[:-1]]],
        starts=starts,
        docs=np.asarray(rel["doc"], dtype=np.int64),
        tfs=np.asarray(rel["tf"], dtype=np.float32),
    )


@dataclass(slots=True)
class ScopeSnapshot:
    """Everything the in-memory indexes of one scope are derived from, column by column."""

    generation: int
    ids: list[str]
    l0: list[str]
    categories: list[str]
    source_ids: list[list[str]]
    sessions: list[str | None]
    speakers: list[str | None]
    importance: np.ndarray
    access_count: np.ndarray
    last_access: np.ndarray  # epoch seconds, NaN when never accessed
    occurred: np.ndarray  # epoch seconds of happened_at or created_at
    evergreen: np.ndarray
    active: np.ndarray  # not archived and not superseded
    doc_len: np.ndarray
    ctx_len: np.ndarray
    vectors: np.ndarray  # (n, d) float32, rows aligned with ids
    own: FieldPostings  # docs are rows
    context: FieldPostings  # docs are rows
    sessions_index: FieldPostings  # docs are sessions, numbered by their first row
    session_len: np.ndarray  # length of each session document


class Store:
    """The one DuckDB connection and every statement memubot runs against it."""

    def __init__(self, path: str | Path, *, read_only: bool = False, memory_limit: str = "512MB") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.Error as exc:
            raise StoreError(f"cannot open DuckDB file {self.path}: {exc}") from exc
        self.con.execute("SET TimeZone = 'UTC'")
        # DuckDB's buffer pool may otherwise grow to 80% of RAM and keep what the index
        # rebuild read; memubot's own indexes live in Python, so a modest cache suffices.
        self.con.execute(f"SET memory_limit = '{memory_limit}'")
        self.dim: int | None = None
        self.read_only = read_only
        if not read_only:
            self.migrate()
        else:
            self._check_version()

    # ---- schema ---------------------------------------------------------------------------

    def schema_version(self) -> int:
        exists = self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
        ).fetchone()
        if not exists or not exists[0]:
            return 0
        row = self.con.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def _check_version(self) -> int:
        current = self.schema_version()
        if current == 0 and self.read_only:
            raise StoreError(f"{self.path} is not a memubot database (no schema_version table)")
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {current}, newer than this memubot "
                f"understands ({SCHEMA_VERSION}); upgrade memubot"
            )
        return current

    def migrate(self) -> list[int]:
        """Apply every migration newer than the file, each in its own transaction."""
        self.con.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at TIMESTAMPTZ)"
        )
        current = self._check_version()
        applied = []
        for version, statements in MIGRATIONS:
            if version <= current:
                continue
            try:
                with self.transaction():
                    for sql in statements:
                        self.con.execute(sql)
                    self.con.execute("INSERT INTO schema_version VALUES (?, now())", [version])
            except duckdb.Error as exc:
                raise StoreError(f"cannot migrate {self.path} to schema version {version}: {exc}") from exc
            applied.append(version)
            log.info("migrated %s to schema version %d", self.path, version)
        return applied

    def ensure_vectors(self, model: str, dim: int) -> bool:
        """Create the FLOAT[dim] vector tables for `model`; True when existing vectors were dropped.

        A vector is only comparable with vectors of the same model, so a model change drops
        the stored vectors and the embedding cache; the memory core then re-embeds every item.
        """
        if not isinstance(dim, int) or dim <= 0:
            raise StoreError(f"invalid embedding dimension {dim!r}")
        stored = dict(self.con.execute("SELECT key, value FROM meta").fetchall())
        changed = stored.get("embed_model") not in (None, model) or stored.get("embed_dim") not in (
            None,
            str(dim),
        )
        with self.transaction():
            if changed:
                log.warning(
                    "embedding model changed (%s/%s → %s/%d): dropping stored vectors",
                    stored.get("embed_model"),
                    stored.get("embed_dim"),
                    model,
                    dim,
                )
                self.con.execute("DROP TABLE IF EXISTS item_vectors")
                self.con.execute("DROP TABLE IF EXISTS embed_cache")
                self.con.execute("UPDATE scope_state SET generation = generation + 1")
            self.con.execute(
                f"CREATE TABLE IF NOT EXISTS item_vectors (item_id TEXT PRIMARY KEY, "
                f"scope TEXT NOT NULL, vec FLOAT[{dim}] NOT NULL)"
            )
            self.con.execute(
                f"CREATE TABLE IF NOT EXISTS embed_cache (hash TEXT PRIMARY KEY, vec FLOAT[{dim}] NOT NULL)"
            )
            self.con.execute(
                "INSERT OR REPLACE INTO meta VALUES ('embed_model', ?), ('embed_dim', ?)", [model, str(dim)]
            )
        self.dim = dim
        return changed

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    def checkpoint(self) -> None:
        self.con.execute("CHECKPOINT")

    def close(self) -> None:
        self.con.close()

    # ---- resources -----------------------------------------------------------------------

    def existing_resources(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (scope, id) pairs are already stored, or were forgotten (their tombstone stays)."""
        if not keys:
            return set()
        rows = self.con.execute(
            "WITH k AS (SELECT unnest(?) AS scope, unnest(?) AS id)"
            " SELECT r.scope, r.id FROM resources r JOIN k ON k.scope = r.scope AND k.id = r.id"
            " UNION SELECT k.scope, k.id FROM forgotten f JOIN k ON k.scope = f.scope AND k.id = f.resource_id",
            [[k[0] for k in keys], [k[1] for k in keys]],
        ).fetchall()
        return {(r[0], r[1]) for r in rows}

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
        ]
        self.con.execute(
            "INSERT INTO resources (id, scope, kind, session, role, speaker, agent, text, occurred_at,"
            " utc_offset_min, trust, meta, stored_at) SELECT unnest(?), unnest(?), unnest(?), unnest(?),"
            " unnest(?), unnest(?), unnest(?), unnest(?), unnest(?::TIMESTAMPTZ[]), unnest(?),"
            " unnest(?), unnest(?)::JSON, ?",
            [*cols, _utc(stored_at)],
        )

    def previous_turn(
        self, scope: str, session: str, before: datetime, before_id: str
    ) -> tuple[str, str, str | None]:
        """The turn before (`before`, `before_id`) in a session: (speaker, text, its item id or None)."""
        row = self.con.execute(
            "SELECT coalesce(r.speaker, r.role, ''), r.text,"
            " (SELECT min(s.item_id) FROM item_sources s WHERE s.scope = r.scope AND s.resource_id = r.id)"
            " FROM resources r WHERE r.scope = ? AND r.session = ?"
            " AND (r.occurred_at < ? OR (r.occurred_at = ? AND r.id < ?))"
            " ORDER BY r.occurred_at DESC, r.id DESC LIMIT 1",
            [_require(scope), session, _utc(before), _utc(before), before_id],
        ).fetchone()
        return (row[0], row[1], row[2]) if row else ("", "", None)

    # ---- items, provenance, postings, vectors ----------------------------------------------

    def insert_items(
        self,
        items: Sequence[ItemRow],
        vectors: np.ndarray,
        postings: Sequence[tuple[str, str, str, int, int]],
    ) -> None:
        """Write items with their provenance, vectors and postings (call inside a transaction;
        the caller bumps the scopes' generation once for everything it wrote)."""
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
        links = [(i.id, s, i.scope, i.source_hashes.get(s)) for i in items for s in i.source_ids]
        if links:
            self.con.execute(
                "INSERT OR IGNORE INTO item_sources SELECT unnest(?), unnest(?), unnest(?), unnest(?)",
                [[x[i] for x in links] for i in range(4)],
            )
        self._insert_vectors([i.id for i in items], [i.scope for i in items], vectors)
        self._add_postings(postings)

    def _add_postings(self, postings: Sequence[tuple[str, str, str, int, int]]) -> None:
        """Append (scope, term, item_id, field, tf) rows."""
        if not postings:
            return
        self.con.execute(
            "INSERT INTO postings SELECT unnest(?), unnest(?), unnest(?), unnest(?), unnest(?)",
            [[p[i] for p in postings] for i in range(5)],
        )

    def extend_context(
        self,
        scope: str,
        item_id: str,
        text: str,
        added_len: int,
        postings: Sequence[tuple[str, str, str, int, int]],
    ) -> None:
        """Append the turn after an item to its context (call inside a transaction).

        `postings` carry field 2; readers add them to field 1.
        """
        updated = self.con.execute(
            "UPDATE items SET context_text = context_text || chr(10) || ? , ctx_len = ctx_len + ?"
            " WHERE scope = ? AND id = ? RETURNING id",
            [text, added_len, _require(scope), item_id],
        ).fetchall()
        if updated:  # never postings for an item that is not there
            self._add_postings(postings)

    def _insert_vectors(self, ids: list[str], scopes: list[str], vectors: np.ndarray) -> None:
        if self.dim is None:
            raise StoreError("vector tables are not set up: call ensure_vectors() first")
        if vectors.shape != (len(ids), self.dim):
            raise StoreError(f"vector shape {vectors.shape} does not match ({len(ids)}, {self.dim})")
        self._write_vectors(
            "INSERT OR REPLACE INTO item_vectors SELECT k1, k2, vec::FLOAT[{dim}] FROM _vectors_in",
            [ids, scopes],
            vectors,
        )

    def _write_vectors(self, sql: str, keys: list[list[str]], vectors: np.ndarray) -> None:
        """Bulk-write vectors by scanning numpy arrays (a Python list per vector is 20× slower)."""
        rows = np.empty(vectors.shape[0], dtype=object)
        rows[:] = list(np.ascontiguousarray(vectors, dtype=np.float32))
        data = {f"k{i + 1}": np.asarray(k, dtype=object) for i, k in enumerate(keys)}
        data["vec"] = rows
        self.con.register("_vectors_in", data)
        try:
            self.con.execute(sql.format(dim=self.dim))
        finally:
            self.con.unregister("_vectors_in")

    def replace_vectors(self, ids: list[str], scopes: list[str], vectors: np.ndarray) -> None:
        with self.transaction():
            self._insert_vectors(ids, scopes, vectors)
            self.bump_generation(set(scopes))

    def items_without_vectors(self, limit: int) -> list[tuple[str, str, str]]:
        """(id, scope, l0) of items that have no vector yet (after a model change)."""
        rows = self.con.execute(
            "SELECT i.id, i.scope, i.l0 FROM items i ANTI JOIN item_vectors v ON v.item_id = i.id"
            " ORDER BY i.id LIMIT ?",
            [limit],
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def count_items_without_vectors(self) -> int:
        row = self.con.execute(
            "SELECT count(*) FROM items i ANTI JOIN item_vectors v ON v.item_id = i.id"
        ).fetchone()
        return int(row[0]) if row else 0

    def bump_generation(self, scopes: Iterable[str]) -> None:
        scopes = sorted(set(scopes))
        if scopes:
            self.con.execute(
                "INSERT INTO scope_state SELECT unnest(?), 1"
                " ON CONFLICT (scope) DO UPDATE SET generation = scope_state.generation + 1",
                [scopes],
            )

    def generation(self, scope: str) -> int:
        row = self.con.execute(
            "SELECT generation FROM scope_state WHERE scope = ?", [_require(scope)]
        ).fetchone()
        return int(row[0]) if row else 0

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

    # ---- embedding cache -----------------------------------------------------------------

    def cached_vectors(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        if not hashes:
            return {}
        rel = self.con.execute(
            "SELECT hash, vec FROM embed_cache WHERE hash IN (SELECT unnest(?))", [list(hashes)]
        ).fetchnumpy()
        return {h: np.asarray(v, dtype=np.float32) for h, v in zip(rel["hash"], rel["vec"], strict=True)}

    def cache_vectors(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        if not len(hashes):
            return
        self._write_vectors(
            "INSERT OR IGNORE INTO embed_cache SELECT k1, vec::FLOAT[{dim}] FROM _vectors_in",
            [list(hashes)],
            vectors,
        )

    # ---- reads for the indexes -------------------------------------------------------------

    def snapshot(self, scope: str) -> ScopeSnapshot:
        """Load one scope's items, vectors and postings: the source every index is built from."""
        scope = _require(scope)
        generation = self.generation(scope)
        rel = self.con.execute(
            "SELECT i.id, i.l0, i.category, i.importance, i.access_count,"
            " epoch(i.last_access) AS last_access, epoch(coalesce(i.observed_at, i.happened_at, i.created_at)) AS occurred,"
            " i.evergreen, (NOT i.archived AND i.superseded_by IS NULL AND i.valid_until IS NULL) AS active,"
            " i.doc_len, i.ctx_len, i.session, i.speaker, v.vec,"
            " (SELECT list(s.resource_id ORDER BY s.resource_id) FROM item_sources s WHERE s.item_id = i.id)"
            "   AS sources"
            " FROM items i JOIN item_vectors v ON v.item_id = i.id WHERE i.scope = ? ORDER BY i.id",
            [scope],
        ).fetchnumpy()
        n = len(rel["id"])
        dim = self.dim or 0
        vectors = np.stack(list(rel["vec"])).astype(np.float32) if n else np.zeros((0, dim), np.float32)
        # Rows are numbered as above (ORDER BY id); sessions by the first row they appear in,
        # the order in which ScopeIndex numbers them when items are appended.
        rows_cte = (
            "WITH r AS (SELECT i.id, i.session, row_number() OVER (ORDER BY i.id) - 1 AS row"
            " FROM items i JOIN item_vectors v ON v.item_id = i.id WHERE i.scope = $scope),"
            " s AS (SELECT session, row_number() OVER (ORDER BY min(row)) - 1 AS doc FROM r"
            " WHERE session IS NOT NULL GROUP BY session) "
        )
        fields = []
        for field_no in (0, 1):
            fields.append(
                _field_postings(
                    self.con.execute(
                        rows_cte + "SELECT p.term, r.row AS doc, sum(p.tf)::INTEGER AS tf FROM postings p"
                        " JOIN r ON r.id = p.item_id WHERE p.scope = $scope AND least(p.field, 1) = $field"
                        " GROUP BY p.term, r.row ORDER BY p.term, r.row",
                        {"scope": scope, "field": field_no},
                    ).fetchnumpy()
                )
            )
        per_session = _field_postings(
            self.con.execute(
                rows_cte + "SELECT p.term, s.doc, sum(p.tf)::INTEGER AS tf FROM postings p"
                " JOIN r ON r.id = p.item_id JOIN s ON s.session = r.session"
                " WHERE p.scope = $scope AND p.field = 0 GROUP BY p.term, s.doc ORDER BY p.term, s.doc",
                {"scope": scope},
            ).fetchnumpy()
        )
        session_len = self.con.execute(
            rows_cte + "SELECT s.doc, sum(i.doc_len)::INTEGER AS len FROM r JOIN s ON s.session = r.session"
            " JOIN items i ON i.id = r.id GROUP BY s.doc ORDER BY s.doc",
            {"scope": scope},
        ).fetchnumpy()
        last_access = np.ma.filled(np.ma.asarray(rel["last_access"], dtype=np.float64), np.nan)
        return ScopeSnapshot(
            generation=generation,
            ids=[str(x) for x in rel["id"]],
            l0=[str(x) for x in rel["l0"]],
            categories=[str(x) for x in rel["category"]],
            source_ids=[list(x) if x is not None else [] for x in rel["sources"]],
            sessions=[None if x is None else str(x) for x in rel["session"]],
            speakers=[None if x is None else str(x) for x in rel["speaker"]],
            importance=np.asarray(rel["importance"], dtype=np.float32),
            access_count=np.asarray(rel["access_count"], dtype=np.float32),
            last_access=np.where(np.isfinite(last_access), last_access, np.nan),
            occurred=np.asarray(rel["occurred"], dtype=np.float64),
            evergreen=np.asarray(rel["evergreen"], dtype=bool),
            active=np.asarray(rel["active"], dtype=bool),
            doc_len=np.asarray(rel["doc_len"], dtype=np.float32),
            ctx_len=np.asarray(rel["ctx_len"], dtype=np.float32),
            vectors=vectors,
            own=fields[0],
            context=fields[1],
            sessions_index=per_session,
            session_len=np.asarray(session_len["len"], dtype=np.float32),
        )

    def item_postings(self, scope: str) -> list[tuple[str, str, int, int]]:
        """(term, item_id, field, tf) of a scope, for consistency checks."""
        rows = self.con.execute(
            "SELECT term, item_id, least(field, 1) AS f, sum(tf)::INTEGER FROM postings WHERE scope = ?"
            " GROUP BY ALL ORDER BY item_id, f, term",
            [_require(scope)],
        ).fetchall()
        return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]

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

    # ---- stats ---------------------------------------------------------------------------

    def scopes(self) -> list[str]:
        rows = self.con.execute(
            "SELECT DISTINCT scope FROM resources UNION SELECT DISTINCT scope FROM items ORDER BY 1"
        ).fetchall()
        return [r[0] for r in rows]

    def stats(self, scope: str | None) -> dict[str, Any]:
        """Counts by layer; `scope=None` is the operator's whole-file view, never used by recall."""
        where, params = ("WHERE scope = ?", [scope]) if scope is not None else ("", [])
        one = self.con.execute
        resources = one(f"SELECT count(*) FROM resources {where}", params).fetchone()
        items = one(f"SELECT count(*) FROM items {where}", params).fetchone()
        categories = one(f"SELECT count(*) FROM categories {where}", params).fetchone()
        by_cat = one(f"SELECT category, count(*) FROM items {where} GROUP BY 1 ORDER BY 1", params).fetchall()
        by_tier = one(f"SELECT tier, count(*) FROM items {where} GROUP BY 1 ORDER BY 1", params).fetchall()
        archived = one(
            f"SELECT count(*) FROM items {where} {'AND' if where else 'WHERE'} archived", params
        ).fetchone()
        terms = one(f"SELECT count(DISTINCT term), count(*) FROM postings {where}", params).fetchone()
        sessions = one(f"SELECT count(DISTINCT session) FROM resources {where}", params).fetchone()
        return {
            "resources": int(resources[0]) if resources else 0,
            "items": int(items[0]) if items else 0,
            "categories": int(categories[0]) if categories else 0,
            "items_by_category": {c: int(n) for c, n in by_cat},
            "items_by_tier": {t: int(n) for t, n in by_tier},
            "items_archived": int(archived[0]) if archived else 0,
            "index_terms": int(terms[0]) if terms else 0,
            "index_postings": int(terms[1]) if terms else 0,
            "sessions": int(sessions[0]) if sessions else 0,
            "schema_version": self.schema_version(),
        }

    def refresh_categories(self, scope: str, names: Sequence[str], at: datetime, top: int = 20) -> list[str]:
        """Rebuild the summaries of categories whose items changed; returns the names rebuilt.

        The summary is derived, never the source of truth: the category's `top` active items by
        importance then recency, one line each, citing the item as `[ref:<id>]`. A digest of
        those lines and the item count decides whether anything changed: only then is the
        summary rewritten and its version raised, so the version counts real changes.
        """
        if not names:
            return []
        params = {"scope": _require(scope), "names": sorted(set(names)), "top": top}
        rows = self.con.execute(
            "SELECT c.name, coalesce(("
            "   SELECT string_agg('- ' || t.l0 || ' [ref:' || t.id || ']', chr(10)"
            "     ORDER BY t.importance DESC, t.created_at DESC, t.id)"
            "   FROM (SELECT id, l0, importance, created_at FROM items"
            "     WHERE scope = $scope AND category = c.name AND NOT archived AND superseded_by IS NULL"
            "     ORDER BY importance DESC, created_at DESC, id LIMIT $top) t), '') AS summary,"
            " (SELECT count(*) FROM items WHERE scope = $scope AND category = c.name AND NOT archived"
            "   AND superseded_by IS NULL) AS n"
            " FROM (SELECT unnest($names) AS name) c",
            params,
        ).fetchall()
        stored = dict(
            self.con.execute(
                "SELECT name, digest FROM categories WHERE scope = $scope AND name IN (SELECT unnest($names))",
                {"scope": params["scope"], "names": params["names"]},
            ).fetchall()
        )
        changed = []
        for name, summary, n in rows:
            digest = hashlib.sha256(f"{n}\x00{summary}".encode()).hexdigest()[:32]
            if stored.get(name) == digest:
                continue
            changed.append(name)
            self.con.execute(
                "INSERT INTO categories (scope, name, summary, version, item_count, updated_at, digest)"
                " VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT (scope, name) DO UPDATE SET"
                " summary = excluded.summary, version = categories.version + 1,"
                " item_count = excluded.item_count, updated_at = excluded.updated_at, digest = excluded.digest",
                [params["scope"], name, summary, int(n), _utc(at), digest],
            )
        return changed

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

    def link_sources(self, scope: str, item_id: str, source_ids: dict[str, str]) -> None:
        """Add provenance: resource id → the embed-cache key of the text it contributed."""
        if source_ids:
            self.con.execute(
                "INSERT OR IGNORE INTO item_sources SELECT ?, unnest(?), ?, unnest(?)",
                [item_id, list(source_ids), _require(scope), list(source_ids.values())],
            )

    def supersede(self, scope: str, old_id: str, new_id: str, at: datetime) -> None:
        """The old item stops being valid at `at`; it keeps its row, sources and history."""
        self.con.execute(
            "UPDATE items SET valid_until = ?, superseded_by = ?, updated_at = ? WHERE scope = ? AND id = ?",
            [_utc(at), new_id, _utc(at), _require(scope), old_id],
        )

    def log_ops(self, ops: Sequence[tuple[str, str, str, str | None]], at: datetime) -> None:
        """Append (scope, op, item id, other id) rows to the memory-op log."""
        if ops:
            self.con.execute(
                "INSERT INTO memory_ops (scope, op, item_id, other_id, op_at)"
                " SELECT unnest(?), unnest(?), unnest(?), unnest(?), ?",
                [[o[i] for o in ops] for i in range(4)] + [_utc(at)],
            )

    def ops(self, scope: str, after_seq: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        rows = self.con.execute(
            "SELECT seq, op, item_id, other_id, op_at FROM memory_ops WHERE scope = ? AND seq > ?"
            " ORDER BY seq LIMIT ?",
            [_require(scope), after_seq, limit],
        ).fetchall()
        return [{"seq": r[0], "op": r[1], "item_id": r[2], "other_id": r[3], "at": r[4]} for r in rows]

    # ---- lifecycle -----------------------------------------------------------------------

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

    def restore(self, scope: str, item_id: str, at: datetime) -> bool:
        """Bring an archived item back into recall (as a fresh peripheral item)."""
        row = self.con.execute(
            "UPDATE items SET archived = FALSE, archived_at = NULL, tier = 'peripheral', last_access = ?,"
            " updated_at = ? WHERE scope = ? AND id = ? AND archived RETURNING id",
            [_utc(at), _utc(at), _require(scope), item_id],
        ).fetchone()
        return row is not None

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

    # ---- forgetting (real deletion) ------------------------------------------------------

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

    def resources(self, scope: str, ids: Sequence[str]) -> list[ResourceIn]:
        """Stored resources as the memory core reads them (for extracting them again)."""
        if not ids:
            return []
        rows = self.con.execute(
            "SELECT id, scope, text, occurred_at, utc_offset_min, kind, session, role, speaker, agent, trust,"
            " meta FROM resources WHERE scope = ? AND id IN (SELECT unnest(?)) ORDER BY occurred_at, id",
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

    def item_l0(self, scope: str, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        rows = self.con.execute(
            "SELECT l0 FROM items WHERE scope = ? AND id IN (SELECT unnest(?))", [_require(scope), list(ids)]
        ).fetchall()
        return [r[0] for r in rows]

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

        with self.transaction():
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
                self._add_postings(postings)
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
            delete("resources", f"scope = ? AND id IN ({q})", [scope, res])
            # Tombstones: a forgotten turn imported again stays forgotten, and one redelivered by
            # the bus is a duplicate for the ledger (an event handled before keeps its record).
            self.con.execute(
                "INSERT INTO forgotten SELECT ?, id, ? FROM (SELECT unnest(?) AS id) WHERE id <> ''"
                " ON CONFLICT DO NOTHING",
                [scope, _utc(forgotten_at), res],
            )
            self.con.execute(
                "INSERT INTO events (event_id, subject, scope, outcome, handled_at)"
                " SELECT id, 'forget', ?, 'forgotten', ? FROM (SELECT unnest(?) AS id) WHERE id <> ''"
                " ON CONFLICT (event_id) DO NOTHING",
                [scope, _utc(forgotten_at), res],
            )
            self.log_ops([(scope, "forgotten", i, None) for i in items if i], forgotten_at)
            if cache_hashes:
                delete("embed_cache", f"hash IN ({q})", [list(cache_hashes)])
            self.bump_generation([scope])
        return counts

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


def _offset_minutes(ts: datetime) -> int:
    off = ts.utcoffset()
    return int(off.total_seconds() // 60) if off is not None else 0
