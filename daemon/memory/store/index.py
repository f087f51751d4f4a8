"""The inverted index and vectors on disk: postings, item vectors, the embedding cache, snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from daemon.errors import StoreError
from daemon.memory.store.core import Table, _require

# a scope's rows a snapshot reads vectors of at a time: about 30 MB of vectors at once
VECTOR_CHUNK = 20_000

# Up to this many rows a write passes them as statement parameters instead of registering numpy
# columns for DuckDB to scan: registering costs a fixed ~0.8 ms, parameters a little per row
# (1 vector: 0.8 against 1.5 ms; 16: 3.1 against 2.0 ms. 20 postings: 0.7 against 1.4 ms;
# 1,000: 3.9 against 2.5 ms).
SMALL_VECTORS = 4
SMALL_POSTINGS = 200


@dataclass(frozen=True, slots=True)
class FieldPostings:
    """One BM25 field of a scope in bulk: term i owns docs[starts[i]:starts[i+1]], sorted by doc."""

    terms: list[str]
    starts: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray


def _optional(column: np.ndarray) -> list[Any]:
    """A fetched column as Python values, None where SQL had NULL.

    `fetchnumpy` returns a masked array when a column holds NULLs, and iterating one yields
    `np.ma.masked` (whose str() is "--"), not None.
    """
    mask = np.ma.getmaskarray(column)
    return [None if m else x for x, m in zip(np.ma.getdata(column), mask.tolist(), strict=True)]


def _summed(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted keys made unique, with the values of equal keys added up."""
    if keys.shape[0] == 0:
        return keys, values
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[first], np.add.reduceat(values, first)


def _grouped(terms: np.ndarray, tid: np.ndarray, docs: np.ndarray, tfs: np.ndarray) -> FieldPostings:
    """Postings sorted by (term id, doc) as one field: term i owns docs[starts[i]:starts[i+1]]."""
    if tid.shape[0] == 0:
        return FieldPostings([], np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
    change = np.flatnonzero(tid[1:] != tid[:-1]) + 1
    starts = np.concatenate([[0], change, [tid.shape[0]]]).astype(np.int64)
    return FieldPostings(
        terms=[str(t) for t in terms[tid[starts[:-1]]]],
        starts=starts,
        docs=np.asarray(docs, dtype=np.int64),
        tfs=np.asarray(tfs, dtype=np.float32),
    )


_INDEX_FILE = "index_file:"  # meta key prefix: scope → "token generation" of its persisted index

# the per-row columns of a scope's rows (items with a vector, by id), as `_columns` reads them
_COLUMNS = (
    "i.id, i.category, i.importance, i.access_count,"
    " epoch(i.last_access) AS last_access, epoch(coalesce(i.observed_at, i.happened_at, i.created_at)) AS occurred,"
    " i.evergreen, (NOT i.archived AND i.superseded_by IS NULL AND i.valid_until IS NULL) AS active,"
    " i.doc_len, i.ctx_len, i.session, i.speaker"
)


@dataclass(slots=True)
class ScopeColumns:
    """The per-row columns of a scope, rows ordered by item id."""

    ids: list[str]
    categories: list[str]
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

    def row_sessions(self) -> tuple[np.ndarray, int]:
        """Each row's session document (-1: none) and the number of sessions.

        Sessions are numbered by the first row they appear in (rows: ORDER BY id), the order in
        which ScopeIndex numbers them when items are appended.
        """
        session_doc: dict[str, int] = {}
        row_session = np.fromiter(
            (-1 if s is None else session_doc.setdefault(s, len(session_doc)) for s in self.sessions),
            np.int64,
            len(self.sessions),
        )
        return row_session, len(session_doc)

    def session_len(self) -> np.ndarray:
        """The length of each session document: the own-text lengths of its rows."""
        row_session, n_sessions = self.row_sessions()
        in_session = row_session >= 0
        return np.bincount(
            row_session[in_session],
            weights=self.doc_len[in_session].astype(np.float64),
            minlength=n_sessions,
        ).astype(np.float32)


def _columns(rel: dict[str, np.ndarray]) -> ScopeColumns:
    last_access = np.ma.filled(np.ma.asarray(rel["last_access"], dtype=np.float64), np.nan)
    # a category, speaker or session repeats over many rows: one string object for all of them
    # (DuckDB hands out a new one per row; ~170 bytes per item at 30k)
    pool: dict[str, str] = {}
    return ScopeColumns(
        ids=[str(x) for x in rel["id"]],
        categories=[pool.setdefault(x, x) for x in map(str, rel["category"])],
        sessions=[None if x is None else pool.setdefault(str(x), str(x)) for x in _optional(rel["session"])],
        speakers=[None if x is None else pool.setdefault(str(x), str(x)) for x in _optional(rel["speaker"])],
        importance=np.asarray(rel["importance"], dtype=np.float32),
        access_count=np.asarray(rel["access_count"], dtype=np.float32),
        last_access=np.where(np.isfinite(last_access), last_access, np.nan),
        occurred=np.asarray(rel["occurred"], dtype=np.float64),
        evergreen=np.asarray(rel["evergreen"], dtype=bool),
        active=np.asarray(rel["active"], dtype=bool),
        doc_len=np.asarray(rel["doc_len"], dtype=np.float32),
        ctx_len=np.asarray(rel["ctx_len"], dtype=np.float32),
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

    @classmethod
    def of(
        cls,
        cols: ScopeColumns,
        *,
        generation: int,
        l0: list[str],
        source_ids: list[list[str]],
        vectors: np.ndarray,
        own: FieldPostings,
        context: FieldPostings,
        sessions_index: FieldPostings,
    ) -> ScopeSnapshot:
        """The per-row columns joined with the text, vectors and postings of the same rows."""
        return cls(
            generation=generation,
            ids=cols.ids,
            l0=l0,
            categories=cols.categories,
            source_ids=source_ids,
            sessions=cols.sessions,
            speakers=cols.speakers,
            importance=cols.importance,
            access_count=cols.access_count,
            last_access=cols.last_access,
            occurred=cols.occurred,
            evergreen=cols.evergreen,
            active=cols.active,
            doc_len=cols.doc_len,
            ctx_len=cols.ctx_len,
            vectors=vectors,
            own=own,
            context=context,
            sessions_index=sessions_index,
            session_len=cols.session_len(),
        )


def group_postings(
    terms: np.ndarray,
    field: np.ndarray,
    tid: np.ndarray,
    row: np.ndarray,
    tf: np.ndarray,
    row_session: np.ndarray,
    n_sessions: int,
) -> tuple[FieldPostings, FieldPostings, FieldPostings]:
    """Postings as (field 0/1, term number into `terms`, row, tf), in any order, grouped into
    the own-text, context and per-session fields, each sorted by (term, doc); equal
    (field, term, row) add up. The DuckDB read and a persisted snapshot both go through here.
    """
    # grouped and sorted here, not in SQL: one int64 key per posting, (field, term, row)
    # (DuckDB's GROUP BY + ORDER BY over 6.6M postings at 100k items took 3 of the 3.4 s)
    # The key is built in place and split without a field array: at 100k items each int64
    # temporary of the 6.6M postings is 53 MB, and the build's peak RSS is made here.
    n_terms, n_rows = max(terms.shape[0], 1), max(row_session.shape[0], 1)
    key = np.asarray(field).astype(np.int64)
    key *= n_terms
    key += tid
    key *= n_rows
    key += row
    order = np.argsort(key)
    key = key[order]
    tf = np.asarray(tf)[order]
    del order
    key, tf = _summed(key, tf)
    split = n_terms * n_rows  # field 0 (own text) below, field 1 (context) from here
    cut = int(np.searchsorted(key, split))
    own_tid, own_row = np.divmod(key[:cut], n_rows)
    key = key[cut:]
    key -= split
    context = _grouped(terms, *np.divmod(key, n_rows), tf[cut:])
    del key
    own = _grouped(terms, own_tid, own_row, tf[:cut])
    # per session: the own-text postings of its rows, summed per (term, session)
    doc = row_session[own_row]
    keep = doc >= 0
    n_docs = max(n_sessions, 1)
    key = own_tid[keep] * n_docs + doc[keep]
    order = np.argsort(key)
    key, sums = _summed(key[order], tf[:cut][keep][order])
    per_session = _grouped(terms, key // n_docs, key % n_docs, sums)
    return own, context, per_session


class IndexTable(Table):
    """Postings and vectors, written beside items and read back as a scope's snapshot."""

    def add_postings(self, postings: Sequence[tuple[str, str, str, int, int]]) -> None:
        """Append (scope, term, item_id, field, tf) rows."""
        if not postings:
            return
        if len(postings) <= SMALL_POSTINGS:
            # a few turns' postings: five list parameters cost about half of registering the
            # numpy columns below (0.7 against 1.4 ms for 20 rows)
            self.con.execute(
                "INSERT INTO postings SELECT unnest(?), unnest(?), unnest(?), unnest(?), unnest(?)",
                [[p[i] for p in postings] for i in range(5)],
            )
            return
        # scanned from numpy columns: unnesting five Python lists cost about three times more
        data = {
            "scope": np.asarray([p[0] for p in postings], dtype=object),
            "term": np.asarray([p[1] for p in postings], dtype=object),
            "item_id": np.asarray([p[2] for p in postings], dtype=object),
            "field": np.asarray([p[3] for p in postings], dtype=np.int8),
            "tf": np.asarray([p[4] for p in postings], dtype=np.int32),
        }
        self.con.register("_postings_in", data)
        try:
            self.con.execute("INSERT INTO postings SELECT scope, term, item_id, field, tf FROM _postings_in")
        finally:
            self.con.unregister("_postings_in")

    def insert_vectors(
        self, ids: list[str], scopes: list[str], vectors: np.ndarray, *, fresh: bool = False
    ) -> None:
        """Write the vectors of items, replacing what an item had; `fresh`: the items are new
        (their rows were just inserted), so none has a vector to replace."""
        if self.db.dim is None:
            raise StoreError("vector tables are not set up: call ensure_vectors() first")
        if vectors.shape != (len(ids), self.db.dim):
            raise StoreError(f"vector shape {vectors.shape} does not match ({len(ids)}, {self.db.dim})")
        # OR REPLACE costs DuckDB a conflict check (about 1.2 ms more per statement): a new
        # item's id is in no table yet (forgetting an item deletes its vector with it)
        insert = "INSERT INTO item_vectors" if fresh else "INSERT OR REPLACE INTO item_vectors"
        self._write_vectors(insert, [ids, scopes], vectors)

    def _write_vectors(self, insert: str, keys: list[list[str]], vectors: np.ndarray) -> None:
        """Vector rows written by `insert` ("INSERT ... INTO table"): (key columns..., vector)."""
        n = vectors.shape[0]
        if not n:
            return
        dim = self.db.dim
        if n <= SMALL_VECTORS:
            # a turn's vectors as list parameters of one VALUES: registering numpy columns costs
            # about 0.8 ms more for one row (and is 20x faster for hundreds)
            row = "(" + "?, " * len(keys) + f"?::FLOAT[{dim}])"
            params: list[object] = []
            for j in range(n):
                params.extend(k[j] for k in keys)
                params.append(vectors[j].tolist())
            self.con.execute(f"{insert} VALUES {', '.join([row] * n)}", params)
            return
        # Bulk-write vectors by scanning numpy arrays (a Python list per vector is 20x slower)
        rows = np.empty(n, dtype=object)
        rows[:] = list(np.ascontiguousarray(vectors, dtype=np.float32))
        data = {f"k{i + 1}": np.asarray(k, dtype=object) for i, k in enumerate(keys)}
        data["vec"] = rows
        cols = ", ".join([*(f"k{i + 1}" for i in range(len(keys))), f"vec::FLOAT[{dim}]"])
        self.con.register("_vectors_in", data)
        try:
            self.con.execute(f"{insert} SELECT {cols} FROM _vectors_in")
        finally:
            self.con.unregister("_vectors_in")

    def replace_vectors(self, ids: list[str], scopes: list[str], vectors: np.ndarray) -> None:
        with self.db.transaction():
            self.insert_vectors(ids, scopes, vectors)
            self.db.bump_generation(set(scopes))

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

    # ---- embedding cache -----------------------------------------------------------------

    def cached_vectors(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        if not hashes:
            return {}
        # a filter in the scan, not a join against the list (5.4 → 1.4 ms for 62 hashes in a
        # cache of 100k texts; the primary key's index is not used either way)
        rel = self.con.execute(
            "SELECT hash, vec FROM embed_cache WHERE list_contains(?, hash)", [list(hashes)]
        ).fetchnumpy()
        return {h: np.asarray(v, dtype=np.float32) for h, v in zip(rel["hash"], rel["vec"], strict=True)}

    def cache_vectors(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Add vectors to the embedding cache; a text cached already keeps its vector."""
        if not len(hashes):
            return
        # The ones cached already (since the caller looked, by an earlier batch of the same
        # memorize) are asked for and left out, and the rest inserted plainly. OR IGNORE costs
        # DuckDB a conflict check that grows with the cache: 1.7 ms against 1.1 ms for a turn's
        # two at 100k texts, and for a batch of 62 at 100k 10-18 ms against 1.3 ms for the look
        # (a scan of the hashes) and 3 ms for the plain INSERT.
        have = {
            r[0]
            for r in self.con.execute(
                "SELECT hash FROM embed_cache WHERE list_contains(?, hash)", [list(hashes)]
            ).fetchall()
        }
        keep: list[int] = []
        for j, h in enumerate(hashes):
            if h not in have:  # a hash named twice is written once, with its first vector
                have.add(h)
                keep.append(j)
        self._write_vectors("INSERT INTO embed_cache", [[hashes[j] for j in keep]], vectors[keep])

    # ---- reads for the indexes -------------------------------------------------------------

    def snapshot(self, scope: str) -> ScopeSnapshot:
        """Load one scope's items, vectors and postings: the source every index is built from."""
        scope = _require(scope)
        generation = self.db.generation(scope)
        rel = self.con.execute(
            f"SELECT {_COLUMNS}, i.l0,"
            " (SELECT list(s.resource_id ORDER BY s.resource_id) FROM item_sources s WHERE s.item_id = i.id)"
            "   AS sources"
            " FROM items i JOIN item_vectors v ON v.item_id = i.id WHERE i.scope = ? ORDER BY i.id",
            [scope],
        ).fetchnumpy()
        cols = _columns(rel)
        vectors = self._vectors(scope, cols.ids)
        row_session, n_sessions = cols.row_sessions()
        own, context, per_session = self._scope_postings(scope, row_session, n_sessions)
        return ScopeSnapshot.of(
            cols,
            generation=generation,
            l0=[str(x) for x in rel["l0"]],
            source_ids=[[str(s) for s in x] if x is not None else [] for x in _optional(rel["sources"])],
            vectors=vectors,
            own=own,
            context=context,
            sessions_index=per_session,
        )

    def _vectors(self, scope: str, ids: Sequence[str]) -> np.ndarray:
        """The vectors of `ids` (the scope's rows in id order), read VECTOR_CHUNK table rows at a
        time, in storage order, each put in its row.

        One query for all of them sorted every row with its 1.5 KB vector inside DuckDB's memory
        limit: at 300k items that is more than the store's 512 MB, and the start failed with an
        OutOfMemoryException (bench/cost_table.py). Chunks sorted by id still built a join or a
        top-n over the whole table per chunk: at 100k the read took 0.8-1.2 s and left the process
        500 MB above the matrix it made. Ranges of rowid are read as stored (no join, no sort):
        0.35 s, and the step's peak 190 MB lower. `ids` come sorted from DuckDB (byte order, which
        for UTF-8 is numpy's code-point order); a vector placed nowhere leaves a row unseen.
        """
        n = len(ids)
        order = np.asarray(ids, dtype=str)
        out = np.zeros((n, self.db.dim or 0), np.float32)
        seen = np.zeros(n, bool)
        # the chunks' bounds are the scope's own rowids, every VECTOR_CHUNK-th: as many queries as
        # the scope needs, whatever the table holds (and rows not yet committed, whose rowids
        # start at 2**55, make no empty ranges)
        rowids = self.con.execute(
            "SELECT rowid FROM item_vectors WHERE scope = ? ORDER BY rowid", [scope]
        ).fetchnumpy()["rowid"]
        for first in range(0, rowids.shape[0], VECTOR_CHUNK):
            low, high = int(rowids[first]), int(rowids[min(first + VECTOR_CHUNK, rowids.shape[0]) - 1])
            rel = self.con.execute(
                "SELECT item_id, vec FROM item_vectors WHERE rowid >= ? AND rowid <= ? AND scope = ?",
                [low, high, scope],
            ).fetchnumpy()
            if not len(rel["item_id"]):
                continue
            got = np.asarray(rel["item_id"], dtype=str)
            # the rows of the snapshot these vectors belong to (a vector of an item the snapshot
            # did not list is not one of its rows)
            at = np.minimum(np.searchsorted(order, got), max(n - 1, 0))
            mine = order[at] == got if n else np.zeros(got.shape[0], bool)
            if not mine.any():
                continue
            chunk = np.stack(list(rel["vec"][mine])).astype(np.float32)
            if out.shape[1] != chunk.shape[1]:  # a store that does not know its dim yet
                out = np.zeros((n, chunk.shape[1]), np.float32)
            out[at[mine]] = chunk
            seen[at[mine]] = True
        if not seen.all():  # a write between the two reads would need the caller's lock; it holds it
            raise RuntimeError(f"scope {scope!r}: {n} rows but {int(seen.sum())} vectors")
        return out

    def scope_columns(self, scope: str) -> ScopeColumns:
        """The per-row columns of a scope (rows as in `snapshot`) without text, vectors or
        postings: what a persisted snapshot does not keep, because some of it changes without a
        new generation (recall's access counts)."""
        rel = self.con.execute(
            f"SELECT {_COLUMNS} FROM items i JOIN item_vectors v ON v.item_id = i.id"
            " WHERE i.scope = ? ORDER BY i.id",
            [_require(scope)],
        ).fetchnumpy()
        return _columns(rel)

    def _scope_postings(
        self, scope: str, row_session: np.ndarray, n_sessions: int
    ) -> tuple[FieldPostings, FieldPostings, FieldPostings]:
        """The scope's postings in one scan: own text, context (fields 1 and 2 folded) and one
        document per session (the own-text postings of its rows), each sorted by (term, doc).

        Terms travel as integers (their rank among the scope's terms); each distinct term is
        read as a string once, not once per posting.
        """
        terms = self.con.execute(
            "SELECT DISTINCT term FROM postings WHERE scope = ? ORDER BY term", [scope]
        ).fetchnumpy()["term"]
        rel = self.con.execute(
            "WITH r AS (SELECT i.id, row_number() OVER (ORDER BY i.id) - 1 AS row"
            " FROM items i JOIN item_vectors v ON v.item_id = i.id WHERE i.scope = $scope),"
            " t AS (SELECT term, row_number() OVER (ORDER BY term) - 1 AS tid"
            " FROM (SELECT DISTINCT term FROM postings WHERE scope = $scope))"
            " SELECT least(p.field, 1)::TINYINT AS f, t.tid::INTEGER AS tid, r.row::INTEGER AS row, p.tf"
            " FROM postings p JOIN r ON r.id = p.item_id JOIN t ON t.term = p.term WHERE p.scope = $scope",
            {"scope": scope},
        ).fetchnumpy()
        return group_postings(  # in their own types: group_postings makes the one int64 key
            terms,
            np.asarray(rel["f"]),
            np.asarray(rel["tid"]),
            np.asarray(rel["row"]),
            np.asarray(rel["tf"]),
            row_session,
            n_sessions,
        )

    # ---- where a persisted copy of a scope's index is (daemon/memory/read/indexfile.py) ---------

    def index_file(self, scope: str) -> tuple[str, int] | None:
        """(token, generation) of the scope's persisted index, as last recorded; None if none."""
        row = self.con.execute(
            "SELECT value FROM meta WHERE key = ?", [_INDEX_FILE + _require(scope)]
        ).fetchone()
        if row is None:
            return None
        token, _, generation = str(row[0]).partition(" ")
        return (token, int(generation)) if generation.isdigit() else None

    def record_index_file(self, scope: str, token: str, generation: int) -> None:
        """Point the scope at a persisted index written at `generation` (committed at once)."""
        self.con.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [_INDEX_FILE + _require(scope), f"{token} {generation}"],
        )

    def forget_index_file(self, scope: str) -> None:
        """The scope has no persisted index any more (its copy was deleted)."""
        self.con.execute("DELETE FROM meta WHERE key = ?", [_INDEX_FILE + _require(scope)])

    def item_postings(self, scope: str) -> list[tuple[str, str, int, int]]:
        """(term, item_id, field, tf) of a scope, for consistency checks."""
        rows = self.con.execute(
            "SELECT term, item_id, least(field, 1) AS f, sum(tf)::INTEGER FROM postings WHERE scope = ?"
            " GROUP BY ALL ORDER BY item_id, f, term",
            [_require(scope)],
        ).fetchall()
        return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]
