"""The DuckDB store: schema, forward migrations and the `Store` that runs the memory's SQL.

One writer (the process that opened the file) owns the connection. Every row carries a scope and
every read takes one: a missing scope raises ScopeRequired instead of meaning "all users".
Bulk writes go through `INSERT ... SELECT unnest(?)` because DuckDB's executemany runs row by row
(a few hundred rows a second here), which would make storage, not embedding, the slow step.

`Store` is the database (store/core.py: the connection, transactions, generations) composed with
one repository per concern, each a `Table` that takes the database: `resources`
(store/resources.py), `index` (postings, vectors, the embedding cache, snapshots: store/index.py),
`items` (items, provenance, dedup reads and updates, the op log: store/items.py), `lifecycle`
(tiers, archive, restore, categories: store/lifecycle.py) and `deletion` (forgetting for real:
store/forget.py). Trigger state (the ledger, the suggestion outbox, work items, workflow runs,
e-mail threads) lives in the same file and shares this connection, but its repositories are
daemon/state/tables/ and the state objects compose them; the schema of the whole file is here.
Nothing outside these modules runs SQL.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import duckdb

from daemon.errors import StoreError
from daemon.memory.store.core import Database, _utc
from daemon.memory.store.forget import DeletionTable
from daemon.memory.store.index import FieldPostings, IndexTable, ScopeColumns, ScopeSnapshot, group_postings
from daemon.memory.store.items import ItemRow, ItemTable
from daemon.memory.store.lifecycle import CATEGORY_TOP, LifecycleTable
from daemon.memory.store.resources import ResourceTable

# What `from daemon.memory.store import ...` has always offered (ledger.py takes _utc from here).
__all__ = [
    "CATEGORY_TOP",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "FieldPostings",
    "ItemRow",
    "ScopeColumns",
    "ScopeSnapshot",
    "Store",
    "_utc",
    "group_postings",
]

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
    (
        4,
        [
            # the state of the person's pull requests and issues (daemon/state/work_items.py):
            # a snapshot from the newest delivery (payload updated_at), for the predictors
            """CREATE TABLE work_items (
                scope TEXT NOT NULL,
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                kind TEXT NOT NULL,
                state TEXT NOT NULL,
                title TEXT NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL,
                url TEXT,
                author TEXT,
                requested TEXT[] NOT NULL,
                assignees TEXT[] NOT NULL,
                person_acted_at TIMESTAMPTZ,
                last_event TEXT,
                PRIMARY KEY (scope, repo, number))""",
        ],
    ),
    (
        5,
        [
            # e-mail threads (daemon/state/email_threads.py): what each message says about its
            # thread, and the thread state derived from all of them in Date order
            """CREATE TABLE email_messages (
                scope TEXT NOT NULL,
                thread TEXT NOT NULL,
                id TEXT NOT NULL,
                sent_at TIMESTAMPTZ NOT NULL,
                sender TEXT NOT NULL,
                sender_name TEXT NOT NULL,
                recipients TEXT[] NOT NULL,
                subject TEXT NOT NULL,
                outbound BOOLEAN NOT NULL,
                to_person BOOLEAN NOT NULL,
                ask TEXT,
                ask_due TIMESTAMPTZ,
                promise TEXT,
                promise_due TIMESTAMPTZ,
                PRIMARY KEY (scope, id))""",
            "CREATE INDEX email_messages_thread ON email_messages (scope, thread)",
            """CREATE TABLE email_threads (
                scope TEXT NOT NULL,
                thread TEXT NOT NULL,
                subject TEXT NOT NULL,
                counterparts TEXT[] NOT NULL,
                last_message_at TIMESTAMPTZ NOT NULL,
                last_message_id TEXT NOT NULL,
                last_inbound_at TIMESTAMPTZ,
                last_outbound_at TIMESTAMPTZ,
                waiting_on_person BOOLEAN NOT NULL,
                waiting_on_other BOOLEAN NOT NULL,
                ask TEXT,
                ask_due TIMESTAMPTZ,
                waiting_since TIMESTAMPTZ,
                person_promised TEXT,
                promise_due TIMESTAMPTZ,
                promised_at TIMESTAMPTZ,
                source_ids TEXT[] NOT NULL,
                PRIMARY KEY (scope, thread))""",
        ],
    ),
    (
        6,
        [
            # the suggestion outbox (daemon/state/suggestions.py): one row per suggestion a
            # predictor proposed, unique per (scope, dedup_key) so that nothing is said twice,
            # with when it may go out, when it stops making sense, and what became of it
            """CREATE TABLE suggestions (
                id TEXT PRIMARY KEY,
                scope TEXT NOT NULL,
                kind TEXT NOT NULL,
                predictor TEXT NOT NULL,
                dedup_key TEXT NOT NULL,
                about TEXT NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                evidence TEXT[] NOT NULL,
                source_ids TEXT[] NOT NULL,
                confidence DOUBLE NOT NULL,
                urgent BOOLEAN NOT NULL DEFAULT FALSE,
                created_at TIMESTAMPTZ NOT NULL,
                deliver_at TIMESTAMPTZ NOT NULL,
                expires_at TIMESTAMPTZ,
                status TEXT NOT NULL,
                reason TEXT,
                delivered_at TIMESTAMPTZ,
                deliveries INTEGER NOT NULL DEFAULT 0,
                data JSON,
                UNIQUE (scope, dedup_key))""",
            "CREATE INDEX suggestions_due ON suggestions (status, deliver_at)",
            # how the person answered each kind of suggestion, per scope: what moves the bar
            """CREATE TABLE suggestion_verdicts (
                scope TEXT NOT NULL,
                kind TEXT NOT NULL,
                accepted INTEGER NOT NULL DEFAULT 0,
                dismissed INTEGER NOT NULL DEFAULT 0,
                snoozed INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (scope, kind))""",
        ],
    ),
    (
        7,
        [
            # the items a handler drafted from a resource, kept with it: an external resource is
            # never read by the person's extractor, so after a forget these drafts are what it
            # is extracted from again (DuckDB refuses ALTER under an index: drop, alter, recreate)
            "DROP INDEX resources_scope_session",
            "ALTER TABLE resources ADD COLUMN drafts JSON",
            "CREATE INDEX resources_scope_session ON resources (scope, session)",
            # each delivery's snapshot of its pull request / issue (daemon/state/work_items.py),
            # so that forgetting one delivery derives the work item again from the others
            "CREATE SEQUENCE work_item_snapshot_seq START 1",
            """CREATE TABLE work_item_snapshots (
                scope TEXT NOT NULL,
                delivery TEXT NOT NULL,
                seq BIGINT NOT NULL DEFAULT nextval('work_item_snapshot_seq'),
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                kind TEXT NOT NULL,
                state TEXT NOT NULL,
                title TEXT NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL,
                url TEXT,
                author TEXT,
                requested TEXT[] NOT NULL,
                assignees TEXT[] NOT NULL,
                person_acted_at TIMESTAMPTZ,
                knows_reviewers BOOLEAN NOT NULL,
                PRIMARY KEY (scope, delivery))""",
            "CREATE INDEX work_item_snapshots_item ON work_item_snapshots (scope, repo, number)",
            # what was learnt before this version survives as one snapshot of the delivery the
            # stored state came from (the older deliveries' own snapshots were never kept)
            """INSERT INTO work_item_snapshots (scope, delivery, repo, number, kind, state, title,
                updated_at, url, author, requested, assignees, person_acted_at, knows_reviewers)
                SELECT scope, last_event, repo, number, kind, state, title, updated_at, url, author,
                requested, assignees, person_acted_at, TRUE FROM work_items WHERE last_event IS NOT NULL""",
            # completed workflow runs and check suites per lane (repository, workflow, branch):
            # a success right after a failure is a case (daemon/state/workflow_runs.py);
            # `case_in` names the delivery whose resource carries the case this run fixed
            """CREATE TABLE workflow_runs (
                scope TEXT NOT NULL,
                run_key TEXT NOT NULL,
                delivery TEXT NOT NULL,
                repo TEXT NOT NULL,
                workflow TEXT NOT NULL,
                workflow_name TEXT NOT NULL,
                branch TEXT NOT NULL,
                started_at TIMESTAMPTZ NOT NULL,
                conclusion TEXT NOT NULL,
                head_sha TEXT NOT NULL,
                head_message TEXT NOT NULL,
                head_author TEXT,
                url TEXT,
                case_in TEXT,
                PRIMARY KEY (scope, run_key))""",
            "CREATE INDEX workflow_runs_lane ON workflow_runs (scope, repo, workflow, branch)",
        ],
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


class Store(Database):
    """The memory's DuckDB file: the connection, the schema, and the memory's repositories."""

    def __init__(self, path: str | Path, *, read_only: bool = False, memory_limit: str = "512MB") -> None:
        super().__init__(path, read_only=read_only, memory_limit=memory_limit)
        if not read_only:
            self.migrate()
        else:
            self._check_version()
        self.resources = ResourceTable(self)
        self.index = IndexTable(self)
        self.items = ItemTable(self, self.index)
        self.lifecycle = LifecycleTable(self)
        self.deletion = DeletionTable(self, self.index, self.items)

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
                self.forget_generations()
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

    def stamp(self, key: str, value: str) -> str:
        """The file's `key` in `meta`: written as `value` the first time, read back after (what a
        file is for, e.g. which partition of a cluster it holds)."""
        with self.transaction():
            row = self.con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
            if row is not None:
                return str(row[0])
            self.con.execute("INSERT INTO meta VALUES (?, ?)", [key, value])
        return value

    # ---- scopes and stats ----------------------------------------------------------------

    def scopes(self) -> list[str]:
        rows = self.con.execute(
            "SELECT DISTINCT scope FROM resources UNION SELECT DISTINCT scope FROM items ORDER BY 1"
        ).fetchall()
        return [r[0] for r in rows]

    def has_scope(self, scope: str) -> bool:
        """Whether anything was ever stored for `scope` (and is not entirely forgotten)."""
        row = self.con.execute(
            "SELECT EXISTS (SELECT 1 FROM resources WHERE scope = ?) OR EXISTS (SELECT 1 FROM items WHERE scope = ?)",
            [scope, scope],
        ).fetchone()
        return bool(row and row[0])

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
