"""The in-memory view of one scope: vectors, postings and per-item columns, derived from DuckDB.

A `ScopeIndex` is built from a `ScopeSnapshot` and updated after each committed write; it
remembers the scope's generation so that a stale copy is noticed and rebuilt. Lifecycle writes
(archive, retire, restore, pin, reinforce) change columns only, never rows: they patch the index
in step with DuckDB (`follow`) instead of forcing a rebuild. Only a deletion (`forget`)
renumbers rows and so rebuilds.

Three BM25 indexes share the item postings: the item's own text (field 0), its conversational
context (field 1), and one document per session (all own-text postings of the session's items),
which says how much a whole conversation is about the query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from daemon.memory.read.bm25 import BM25Index, BM25Params
from daemon.memory.read.vectors import IVFParams, VectorIndex
from daemon.memory.store import FieldPostings, ScopeSnapshot, group_postings
from daemon.memory.write.categoryranks import CategoryRanks
from daemon.memory.write.neighbours import CoarseLists
from daemon.memory.write.samecontent import SameContent
from daemon.memory.write.slotfamilies import SlotFamilies

OWN, CONTEXT, LATER_CONTEXT = 0, 1, 2  # postings fields; readers fold 2 into 1


class _Growing:
    """The per-row numpy columns of an index, each a view of the first n rows of a buffer with
    room to spare, so that appending a batch writes its rows in place instead of copying the
    whole column (ten `np.concatenate`s of every row on every batch grew with the scope).

    A column someone replaced (not the view handed out last) is taken as it is and copied
    into a new buffer on the next append, so nothing depends on the columns being views.
    """

    __slots__ = ("_buffers",)

    def __init__(self) -> None:
        self._buffers: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # name → (buffer, view)

    def append(
        self, column: np.ndarray, name: str, values: list[float] | list[bool] | list[int], dtype: type
    ) -> np.ndarray:
        """`column` with `values` after its rows (as `dtype`), as a new view."""
        n, k = column.shape[0], len(values)
        got = self._buffers.get(name)
        buffer = got[0] if got is not None and got[1] is column and column.dtype == dtype else None
        if buffer is None or buffer.shape[0] < n + k:
            grown = np.empty(max(n + k, 2 * n, 64), dtype=dtype)
            grown[:n] = column
            buffer = grown
        buffer[n : n + k] = np.asarray(values, dtype=dtype)
        view = buffer[: n + k]
        self._buffers[name] = (buffer, view)
        return view


def _codes(names: list[str], known: dict[str, int]) -> list[int]:
    """A small integer per distinct name (new names get the next one): masks compare integers."""
    return [known.setdefault(name, len(known)) for name in names]


@dataclass(slots=True)
class Derived:
    """What of a scope's snapshot is costly to read from DuckDB and changes only with a new
    generation: the text, provenance, vectors and postings of its rows (rows by item id)."""

    ids: list[str]
    l0: list[str]
    source_ids: list[list[str]]
    vectors: np.ndarray
    own: FieldPostings
    context: FieldPostings
    sessions_index: FieldPostings
    # the write quantiser in these rows' numbering, every row in a list (None: not trained)
    coarse: CoarseLists | None = None


class ScopeIndex:
    """Rows 0..n-1 are the scope's items; every column below is aligned with them."""

    def __init__(self, scope: str, dim: int, bm25: BM25Params, ivf: IVFParams) -> None:
        self.scope = scope
        self.generation = -1
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.l0: list[str] = []
        self.categories: list[str] = []
        self.source_ids: list[list[str]] = []
        self.sessions: list[str | None] = []
        self.speakers: list[str | None] = []
        self.session_no = np.zeros(0, np.int64)  # row → session document (-1: no session)
        self.session_docs: dict[str, int] = {}
        self.session_rows: dict[str, list[int]] = {}  # session → its rows, in insertion order
        self.speaker_names: set[str] = set()
        self.importance = np.zeros(0, np.float32)
        self.access_count = np.zeros(0, np.float32)
        self.last_access = np.zeros(0, np.float64)
        self.occurred = np.zeros(0, np.float64)
        self.evergreen = np.zeros(0, bool)
        self.active = np.zeros(0, bool)
        self.text_len = np.zeros(0, np.float32)
        self.vectors = VectorIndex(dim, ivf)
        self.own = BM25Index(bm25)
        self.context = BM25Index(bm25)
        self.by_session = BM25Index(bm25)
        self.slots = SlotFamilies()  # dedup's slot lookup, filled on the first slotted write
        self.same = SameContent()  # dedup's exact-text lookup, filled on the first write
        # the write quantiser, trained on the first write past neighbours.COARSE_MIN rows
        self.coarse: CoarseLists | None = None
        self.ranks: CategoryRanks | None = None  # category summaries, filled on the first write
        # per row: its category and speaker ("" for none) as integers, for dedup's masks
        self.category_codes: dict[str, int] = {}
        self.speaker_codes: dict[str, int] = {}
        self.category_no = np.zeros(0, np.int32)
        self.speaker_no = np.zeros(0, np.int32)
        self._growing = _Growing()  # the buffers the columns above are appended into

    def __len__(self) -> int:
        return len(self.ids)

    def _note(self, row: int, session: str | None, speaker: str | None) -> None:
        if session:
            self.session_rows.setdefault(session, []).append(row)
        if speaker:
            self.speaker_names.add(speaker)

    def _session_doc(self, session: str | None) -> int:
        if not session:
            return -1
        doc = self.session_docs.get(session)
        if doc is None:
            doc = len(self.session_docs)
            self.session_docs[session] = doc
            self.by_session.add(doc, {}, 0)
        return doc

    @classmethod
    def build(cls, snap: ScopeSnapshot, scope: str, dim: int, bm25: BM25Params, ivf: IVFParams) -> ScopeIndex:
        idx = cls(scope, dim, bm25, ivf)
        n = len(snap.ids)
        idx.ids = list(snap.ids)
        idx.row_of = {item_id: row for row, item_id in enumerate(idx.ids)}
        idx.l0 = list(snap.l0)
        idx.categories = list(snap.categories)
        idx.source_ids = [list(s) for s in snap.source_ids]
        idx.sessions = list(snap.sessions)
        idx.speakers = list(snap.speakers)
        idx.importance = snap.importance.astype(np.float32)
        idx.access_count = snap.access_count.astype(np.float32)
        idx.last_access = snap.last_access.astype(np.float64)
        idx.occurred = snap.occurred.astype(np.float64)
        idx.evergreen = snap.evergreen.astype(bool)
        idx.active = snap.active.astype(bool)
        idx.text_len = np.asarray([len(t) for t in idx.l0], dtype=np.float32)
        idx.category_no = np.asarray(_codes(idx.categories, idx.category_codes), dtype=np.int32)
        idx.speaker_no = np.asarray(
            _codes([s or "" for s in idx.speakers], idx.speaker_codes), dtype=np.int32
        )
        if n:
            idx.vectors.add(snap.vectors)
        docs = [idx._session_doc(s) for s in idx.sessions]
        idx.session_no = np.asarray(docs, dtype=np.int64)
        for row in range(n):
            idx._note(row, idx.sessions[row], idx.speakers[row])
        # one term → number dict for the three fields (sorted, the order of their terms)
        vocabulary = {
            term: i
            for i, term in enumerate(
                sorted({*snap.own.terms, *snap.context.terms, *snap.sessions_index.terms})
            )
        }
        for index, field, lengths in (
            (idx.own, snap.own, snap.doc_len),
            (idx.context, snap.context, snap.ctx_len),
            (idx.by_session, snap.sessions_index, snap.session_len),
        ):
            index.load(
                field.terms, field.starts, field.docs, field.tfs, lengths.astype(np.float32), vocabulary
            )
        idx.generation = snap.generation
        return idx

    def append(
        self,
        *,
        ids: list[str],
        l0: list[str],
        categories: list[str],
        source_ids: list[list[str]],
        sessions: list[str | None],
        speakers: list[str | None],
        importance: list[float],
        occurred: list[float],
        evergreen: list[bool],
        vectors: np.ndarray,
        own: list[tuple[dict[str, int], int]],
        context: list[tuple[dict[str, int], int]],
        created: list[int] | None = None,
    ) -> None:
        """Add freshly committed items (the same rows a rebuild from DuckDB would produce).

        `created`: each item's creation time in epoch µs, needed once the category ranks are
        kept (`ensure_ranks`); `importance` is then the exact stored value.
        """
        start = len(self.ids)
        self.ids.extend(ids)
        for offset, item_id in enumerate(ids):
            self.row_of[item_id] = start + offset
        self.l0.extend(l0)
        self.categories.extend(categories)
        self.source_ids.extend(source_ids)
        self.sessions.extend(sessions)
        self.speakers.extend(speakers)
        n = len(ids)
        docs = [self._session_doc(s) for s in sessions]
        grow = self._growing.append
        self.session_no = grow(self.session_no, "session_no", docs, np.int64)
        self.importance = grow(self.importance, "importance", importance, np.float32)
        self.access_count = grow(self.access_count, "access_count", [0.0] * n, np.float32)
        self.last_access = grow(self.last_access, "last_access", [np.nan] * n, np.float64)
        self.occurred = grow(self.occurred, "occurred", occurred, np.float64)
        self.evergreen = grow(self.evergreen, "evergreen", evergreen, bool)
        self.active = grow(self.active, "active", [True] * n, bool)
        self.text_len = grow(self.text_len, "text_len", [float(len(t)) for t in l0], np.float32)
        self.category_no = grow(
            self.category_no, "category_no", _codes(categories, self.category_codes), np.int32
        )
        self.speaker_no = grow(
            self.speaker_no, "speaker_no", _codes([s or "" for s in speakers], self.speaker_codes), np.int32
        )
        if self.ranks is not None:
            if created is None:
                self.ranks = None  # cannot follow: read again on the next write
            else:
                for offset in range(n):
                    self.ranks.add(start + offset, importance[offset], created[offset])
        self.vectors.add(vectors)
        for offset in range(n):
            self._note(start + offset, sessions[offset], speakers[offset])
            self.own.add(start + offset, *own[offset])
            self.context.add(start + offset, *context[offset])
            if docs[offset] >= 0:
                self.by_session.extend(docs[offset], *own[offset])

    def extend_context(self, item_id: str, counts: dict[str, int], length: int) -> None:
        """The turn after an item arrived: its context field grows."""
        row = self.row_of.get(item_id)
        if row is not None:
            self.context.extend(row, counts, length)

    def absorb(self, item_id: str, source_ids: list[str], importance: float) -> None:
        """A restatement joined the item: more provenance, a new importance."""
        row = self.row_of.get(item_id)
        if row is not None:
            self.source_ids[row] = sorted({*self.source_ids[row], *source_ids})
            self.importance[row] = importance
            self.slots.changed(item_id)  # a MERGE may have changed its L1 fields
            if self.ranks is not None:
                self.ranks.set_importance(row, importance)

    def deactivate(self, item_ids: list[str]) -> None:
        """Superseded or archived: kept in the rows, never returned by recall."""
        for item_id in item_ids:
            row = self.row_of.get(item_id)
            if row is not None:
                self.active[row] = False
                if self.ranks is not None:
                    self.ranks.deactivate(row)

    def pin(self, item_ids: list[str]) -> None:
        """Core-tier profile facts become evergreen (consolidation)."""
        for item_id in item_ids:
            row = self.row_of.get(item_id)
            if row is not None:
                self.evergreen[row] = True

    def revive(self, item_id: str, at: float) -> None:
        """Restored: active again, last accessed `at` (as `Store.restore` writes it)."""
        row = self.row_of.get(item_id)
        if row is not None:
            self.active[row] = True
            self.last_access[row] = at
            if self.ranks is not None:
                self.ranks.activate(row)

    def touch(self, item_ids: list[str], at: float) -> None:
        """One access each at `at`, as `Store.touch` counts it: the latest access is kept, and an
        id named twice counts once (DuckDB's UPDATE … FROM matches a row once)."""
        rows = np.unique(np.asarray([self.row_of[i] for i in item_ids if i in self.row_of], dtype=np.int64))
        if rows.size:
            self.access_count[rows] += 1.0
            self.last_access[rows] = np.fmax(np.nan_to_num(self.last_access[rows], nan=-np.inf), at)

    def ensure_ranks(self, read: Callable[[], dict[str, tuple[float, int]]]) -> CategoryRanks:
        """The category ranks, filled from `read` (item id → exact importance, creation epoch
        µs) the first time; later writes keep them in step."""
        if self.ranks is None:
            got = read()
            rows = [got[i] for i in self.ids]
            self.ranks = CategoryRanks.build(
                self.ids,
                self.categories,
                self.active.tolist(),
                [imp for imp, _ in rows],
                [at for _, at in rows],
            )
        return self.ranks

    def export(self) -> Derived:
        """The derived part of this index as a rebuild from DuckDB would read it: rows ordered
        by item id, sessions numbered by their first row, postings sorted by (term, doc); and
        the write quantiser, when trained, renumbered to those rows.

        A patched index keeps appended rows in write order; this puts them where a rebuild puts
        them, so that an index loaded from the export equals the rebuilt one row for row.
        """
        n = len(self.ids)
        order = sorted(range(n), key=self.ids.__getitem__)
        perm = np.asarray(order, dtype=np.int64)
        new_row = np.empty(n, dtype=np.int64)
        new_row[perm] = np.arange(n, dtype=np.int64)
        matrix = self.vectors.matrix
        in_order = bool(np.array_equal(perm, np.arange(n)))
        vectors = matrix if in_order else matrix[perm]
        coarse = (
            self.coarse.exported(matrix, None if in_order else new_row)
            if self.coarse is not None and self.coarse.centroids is not None
            else None
        )
        if in_order:  # as built (rows appended since would be in the tails): no re-sort
            fields = [f.bulk() for f in (self.own, self.context, self.by_session)]
            if all(f is not None for f in fields):
                own, context, per_session = (FieldPostings(*f) for f in fields if f is not None)
                return Derived(
                    ids=list(self.ids),
                    l0=list(self.l0),
                    source_ids=[list(s) for s in self.source_ids],
                    vectors=np.ascontiguousarray(matrix, dtype=np.float32),
                    own=own,
                    context=context,
                    sessions_index=per_session,
                    coarse=coarse,
                )
        sessions = [self.sessions[r] for r in order]
        numbered: dict[str, int] = {}
        row_session = np.fromiter(
            (-1 if s is None else numbered.setdefault(s, len(numbered)) for s in sessions), np.int64, n
        )
        o_terms, o_tid, o_doc, o_tf = self.own.postings()
        c_terms, c_tid, c_doc, c_tf = self.context.postings()
        vocab = sorted({*o_terms, *c_terms})
        number = {term: i for i, term in enumerate(vocab)}
        o_map = np.asarray([number[t] for t in o_terms], dtype=np.int64)
        c_map = np.asarray([number[t] for t in c_terms], dtype=np.int64)
        own, context, per_session = group_postings(
            np.asarray(vocab, dtype=object),
            np.concatenate([np.zeros(o_tid.shape[0], np.int64), np.ones(c_tid.shape[0], np.int64)]),
            np.concatenate([o_map[o_tid], c_map[c_tid]]),
            new_row[np.concatenate([o_doc, c_doc])],
            np.rint(np.concatenate([o_tf, c_tf])).astype(np.int64),
            row_session,
            len(numbered),
        )
        return Derived(
            ids=[self.ids[r] for r in order],
            l0=[self.l0[r] for r in order],
            source_ids=[list(self.source_ids[r]) for r in order],
            vectors=np.ascontiguousarray(vectors, dtype=np.float32),
            own=own,
            context=context,
            sessions_index=per_session,
            coarse=coarse,
        )

    def category_summaries(self, names: list[str], top: int) -> dict[str, tuple[int, list[str]]]:
        """name → (active items, the summary lines of its first `top`), from the ranks."""
        assert self.ranks is not None, "ensure_ranks first"
        out: dict[str, tuple[int, list[str]]] = {}
        for name in names:
            count, rows = self.ranks.summary(name, top)
            out[name] = (count, [f"- {self.l0[r]} [ref:{self.ids[r]}]" for r in rows])
        return out


def follow(
    indexes: dict[str, ScopeIndex], scope: str, before: int, after: int, change: Callable[[ScopeIndex], None]
) -> bool:
    """Apply a committed change of `scope` (DuckDB went from generation `before` to `after`) to
    its in-memory index, if that index reflected `before`; returns whether it did.

    A stale index (someone else wrote in between) is dropped instead: the next read rebuilds it.
    """
    idx = indexes.get(scope)
    if idx is None:
        return False
    if idx.generation != before:
        del indexes[scope]
        return False
    change(idx)
    idx.generation = after
    return True
