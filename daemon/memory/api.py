"""The Memory facade: memorize, recall and stats over one DuckDB file.

Handlers and the CLI talk to this class only. It is synchronous and owns the store; the daemon
runs it on one dedicated worker thread (the single writer), so embedding and SQL never block
the event loop.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from daemon.errors import InvalidInput, ScopeRequired
from daemon.memory import retrieve as R
from daemon.memory.embed import Embedder, content_hash, embed_cached, embed_missing
from daemon.memory.extract import TurnContext, context_line, extract
from daemon.memory.index import BM25Params, term_counts
from daemon.memory.recall import run_pipeline
from daemon.memory.scope import CONTEXT, LATER_CONTEXT, OWN, ScopeIndex
from daemon.memory.store import ItemRow, Store
from daemon.memory.types import Clock, Hit, ItemDraft, MemorizeReport, ResourceIn, system_clock
from daemon.memory.vectors import IVFParams

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
MAX_QUERY_CHARS = 2000


@dataclass(frozen=True, slots=True)
class MemoryParams:
    """Configuration of the memory core (built by daemon.config from TOML and environment)."""

    recall: R.RecallParams = field(default_factory=R.RecallParams)
    bm25: BM25Params = field(default_factory=BM25Params)
    ivf: IVFParams = field(default_factory=IVFParams)
    batch_size: int = 64  # turns per embedding batch / write transaction
    touch_flush: int = 256  # buffered access updates before they are written


def item_id_for(scope: str, source_id: str, n: int) -> str:
    """Deterministic item ids: re-extracting the same resource yields the same ids."""
    return "it_" + hashlib.sha256(f"{scope}\x00{source_id}\x00{n}".encode()).hexdigest()[:20]


@dataclass(slots=True)
class _Prepared:
    """One batch on its way through plan → embed → commit."""

    resources: list[ResourceIn]
    skipped: int
    drafts: list[tuple[str, str, ItemDraft]]  # (scope, item id, draft)
    extensions: list[tuple[str, str, str]]  # (scope, earlier item id, the turn after it)
    texts: list[str]
    hashes: list[str]
    known: dict[str, np.ndarray]
    noise: int
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    fresh: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))


class _Turn(NamedTuple):
    """The latest turn of a session while a batch is planned."""

    speaker: str
    text: str
    item_id: str | None
    at: datetime = datetime.min.replace(tzinfo=UTC)
    rid: str = ""


def _add(report: MemorizeReport, p: _Prepared) -> MemorizeReport:
    return MemorizeReport(
        resources_added=report.resources_added + len(p.resources),
        resources_skipped=report.resources_skipped + p.skipped,
        items_added=report.items_added + len(p.drafts),
        noise=report.noise + p.noise,
    )


class Memory:
    """Resource → Item → Category memory with hybrid recall; every call names its scope."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        params: MemoryParams | None = None,
        clock: Clock = system_clock,
        progress: Progress | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.params = params or MemoryParams()
        self.clock = clock
        self._indexes: dict[str, ScopeIndex] = {}
        self._touches: dict[str, tuple[int, datetime]] = {}
        # One caller at a time: the DuckDB connection and the indexes are not thread-safe,
        # and callers may use several threads (asyncio.to_thread in handlers).
        self._lock = threading.RLock()
        if store.ensure_vectors(embedder.name, embedder.dim) or store.count_items_without_vectors():
            self.reembed(progress)

    @classmethod
    def open(
        cls,
        path: str | Path,
        embedder: Embedder,
        params: MemoryParams | None = None,
        clock: Clock = system_clock,
        progress: Progress | None = None,
    ) -> Memory:
        return cls(Store(path), embedder, params, clock, progress)

    def close(self) -> None:
        with self._lock:
            self.flush_touches()
            self.store.checkpoint()
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- write path -----------------------------------------------------------------------

    def memorize(self, resources: Sequence[ResourceIn], progress: Progress | None = None) -> MemorizeReport:
        """Store resources and the items extracted from them; idempotent on resource id.

        Batches are pipelined: while batch n is embedded on a worker thread (the embedding
        engine releases the GIL), batch n-1 is written and batch n+1 is read and extracted on
        this thread, so storage and indexing hide behind the slow step. Only this thread
        touches the DuckDB connection.
        """
        with self._lock:
            return self._memorize(resources, progress)

    def _memorize(self, resources: Sequence[ResourceIn], progress: Progress | None) -> MemorizeReport:
        total = len(resources)
        bs = max(1, self.params.batch_size)
        batches = [list(resources[i : i + bs]) for i in range(0, total, bs)]
        seen: set[tuple[str, str]] = set()
        carry: dict[tuple[str, str], _Turn] = {}
        report = MemorizeReport()
        done = 0
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memubot-embed") as pool:
            inflight: tuple[_Prepared, Future[None]] | None = None
            for batch in [*batches, None]:
                nxt: tuple[_Prepared, Future[None]] | None = None
                if batch is not None:
                    plan = self._plan(batch, seen, carry)
                    nxt = (plan, pool.submit(self._embed, plan))
                if inflight is not None:
                    plan_done, fut = inflight
                    fut.result()
                    self._commit(plan_done)
                    report = _add(report, plan_done)
                    done += len(plan_done.resources) + plan_done.skipped
                    if progress:
                        progress(done, total)
                inflight = nxt
        return report

    def _plan(
        self, batch: list[ResourceIn], seen: set[tuple[str, str]], carry: dict[tuple[str, str], _Turn]
    ) -> _Prepared:
        """Drop known ids, extract item drafts with each turn's neighbours as context."""
        for r in batch:
            if not r.scope:
                raise ScopeRequired(f"resource {r.id!r} has no scope")
            if r.occurred_at.tzinfo is None or r.occurred_at.utcoffset() is None:
                raise InvalidInput(f"resource {r.id!r}: occurred_at has no time zone")
        existing = self.store.existing_resources([(r.scope, r.id) for r in batch])
        fresh: list[ResourceIn] = []
        for r in batch:
            key = (r.scope, r.id)
            if key in existing or key in seen:
                continue
            seen.add(key)
            fresh.append(r)
        drafts: list[tuple[str, str, ItemDraft]] = []
        position: dict[str, int] = {}
        extensions: list[tuple[str, str, str]] = []
        noise = 0
        for r in sorted(fresh, key=lambda x: (x.occurred_at, x.id)):
            last: _Turn | None = None
            prev = _Turn("", "", None)
            key = (r.scope, r.session or "")
            if r.session:
                last = carry.get(key)
                # The carried turn is the previous one only if it really came before this one;
                # a turn that arrives late takes its context from the store instead.
                if last is not None and (last.at, last.rid) < (r.occurred_at, r.id):
                    prev = last
                else:
                    speaker, text, item_id = self.store.previous_turn(r.scope, r.session, r.occurred_at, r.id)
                    prev = _Turn(speaker, text, None if last is not None else item_id)
            got = extract(r, TurnContext(prev_speaker=prev.speaker, prev_text=prev.text))
            if not got:
                noise += 1
            ids = [item_id_for(r.scope, r.id, n) for n in range(len(got))]
            if prev.item_id:  # this turn becomes part of the previous item's context
                line = context_line(r)
                at = position.get(prev.item_id)
                if at is None:
                    extensions.append((r.scope, prev.item_id, line))
                else:
                    scope, item_id, d = drafts[at]
                    drafts[at] = (scope, item_id, replace(d, context_text=f"{d.context_text}\n{line}"))
            for item_id, d in zip(ids, got, strict=True):
                position[item_id] = len(drafts)
                drafts.append((r.scope, item_id, d))
            if r.session and (last is None or (last.at, last.rid) < (r.occurred_at, r.id)):
                carry[key] = _Turn(
                    r.speaker or r.role or "", r.text, ids[0] if ids else None, r.occurred_at, r.id
                )
        texts = [d.l0 for _, _, d in drafts]  # an item is embedded by its one-line text
        hashes = [content_hash(self.embedder.name, t) for t in texts]
        known = self.store.cached_vectors(sorted(set(hashes)))
        return _Prepared(fresh, len(batch) - len(fresh), drafts, extensions, texts, hashes, known, noise)

    def _embed(self, plan: _Prepared) -> None:
        """The slow step, on the worker thread: no DuckDB access here."""
        plan.vectors, plan.fresh = embed_missing(self.embedder, plan.texts, plan.hashes, plan.known)

    def _commit(self, p: _Prepared) -> None:
        if not p.resources:
            return
        now = self.clock()
        rows: list[ItemRow] = []
        postings: list[tuple[str, str, str, int, int]] = []
        own: list[tuple[dict[str, int], int]] = []
        context: list[tuple[dict[str, int], int]] = []
        for scope, item_id, d in p.drafts:
            tf, length = term_counts(d.search_text)
            ctf, clen = term_counts(d.context_text)
            own.append((dict(tf), length))
            context.append((dict(ctf), clen))
            postings.extend((scope, term, item_id, OWN, c) for term, c in tf.items())
            postings.extend((scope, term, item_id, CONTEXT, c) for term, c in ctf.items())
            rows.append(
                ItemRow(
                    id=item_id,
                    scope=scope,
                    category=d.category,
                    l0=d.l0,
                    l1=d.l1,
                    search_text=d.search_text,
                    context_text=d.context_text,
                    speaker=d.speaker,
                    session=d.session,
                    content_hash=hashlib.sha256(d.l0.encode()).hexdigest()[:32],
                    importance=d.importance,
                    confidence=d.confidence,
                    created_at=now,
                    happened_at=d.happened_at,
                    due_at=d.due_at,
                    evergreen=d.evergreen,
                    doc_len=length,
                    ctx_len=clen,
                    source_ids=d.source_ids,
                )
            )
        grown = [(scope, item_id, line, term_counts(line)) for scope, item_id, line in p.extensions]
        scopes = {r.scope for r in p.resources}
        before = {s: self.store.generation(s) for s in scopes if s in self._indexes}
        self._flush_touches_unlocked()
        with self.store.transaction():
            self.store.insert_resources(p.resources, stored_at=now)
            self.store.cache_vectors(
                [h for h, f in zip(p.hashes, p.fresh, strict=True) if f], p.vectors[p.fresh]
            )
            self.store.insert_items(rows, p.vectors, postings)
            for scope, item_id, line, (tf, length) in grown:
                self.store.extend_context(
                    scope,
                    item_id,
                    line,
                    length,
                    [(scope, t, item_id, LATER_CONTEXT, c) for t, c in tf.items()],
                )
            self.store.bump_generation(scopes)
            for scope in scopes:
                self.store.refresh_categories(
                    scope, sorted({r.category for r in rows if r.scope == scope}), now
                )
        for scope, idx in list(self._indexes.items()):
            if scope not in scopes:
                continue
            if idx.generation != before.get(scope):
                del self._indexes[scope]  # someone else wrote: rebuild from DuckDB on next read
                continue
            sel = [i for i, r in enumerate(rows) if r.scope == scope]
            idx.append(
                ids=[rows[i].id for i in sel],
                l0=[rows[i].l0 for i in sel],
                categories=[rows[i].category for i in sel],
                source_ids=[sorted(rows[i].source_ids) for i in sel],
                sessions=[rows[i].session for i in sel],
                speakers=[rows[i].speaker for i in sel],
                importance=[rows[i].importance for i in sel],
                occurred=[(rows[i].happened_at or now).timestamp() for i in sel],
                evergreen=[rows[i].evergreen for i in sel],
                vectors=p.vectors[sel] if sel else np.zeros((0, self.embedder.dim), np.float32),
                own=[own[i] for i in sel],
                context=[context[i] for i in sel],
            )
            for g_scope, item_id, _, (tf, length) in grown:
                if g_scope == scope:
                    idx.extend_context(item_id, dict(tf), length)
            idx.generation = self.store.generation(scope)

    def reembed(self, progress: Progress | None = None) -> int:
        """Give every item without a vector one (after a model change); returns how many."""
        total = self.store.count_items_without_vectors()
        if not total:
            return 0
        log.info("re-embedding %d items with %s", total, self.embedder.name)
        done = 0
        while True:
            todo = self.store.items_without_vectors(self.params.batch_size * 4)
            if not todo:
                break
            vecs, hashes, fresh = embed_cached(self.embedder, self.store, [t[2] for t in todo])
            self.store.replace_vectors([t[0] for t in todo], [t[1] for t in todo], vecs)
            self.store.cache_vectors([h for h, f in zip(hashes, fresh, strict=True) if f], vecs[fresh])
            done += len(todo)
            if progress:
                progress(done, total)
        self._indexes.clear()
        return done

    # ---- read path ------------------------------------------------------------------------

    def warm(self) -> int:
        """Build every scope's index now (at start-up), so no recall pays for it; returns items."""
        with self._lock:
            return sum(len(self.scope_index(scope)) for scope in self.store.scopes())

    def scope_index(self, scope: str) -> ScopeIndex:
        """The scope's in-memory index, rebuilt from DuckDB when missing or stale."""
        if not scope:
            raise ScopeRequired("recall needs a scope")
        gen = self.store.generation(scope)
        idx = self._indexes.get(scope)
        if idx is None or idx.generation != gen:
            t0 = time.perf_counter()
            snap = self.store.snapshot(scope)
            idx = ScopeIndex.build(snap, scope, self.embedder.dim, self.params.bm25, self.params.ivf)
            self._indexes[scope] = idx
            log.info("built index for scope %s: %d items in %.2fs", scope, len(idx), time.perf_counter() - t0)
        return idx

    def recall(
        self,
        query: str,
        scope: str,
        *,
        k: int = 10,
        ts: datetime | None = None,
        session: str | None = None,
        explain: bool = False,
        query_vector: np.ndarray | None = None,
        params: R.RecallParams | None = None,
        reinforce: bool = True,
    ) -> list[Hit]:
        """The k best memories of `scope` for `query`, at time `ts` (default: the clock).

        What is returned is reinforced (access count, last access) unless `reinforce` is off,
        which evaluations use so that one question's answers do not favour the next's.
        """
        if not scope:
            raise ScopeRequired("recall needs a scope")
        if ts is not None and ts.utcoffset() is None:
            raise InvalidInput("recall: ts has no time zone")
        if not query.strip() and query_vector is None:
            return []
        p = params or self.params.recall
        with self._lock:
            qvec = (
                self.embedder.embed_query(query[:MAX_QUERY_CHARS]) if query_vector is None else query_vector
            )
            return self.recall_vector(
                query,
                qvec,
                scope,
                k=k,
                ts=ts,
                session=session,
                explain=explain,
                params=p,
                reinforce=reinforce,
            )

    def recall_vector(
        self,
        query: str,
        qvec: np.ndarray,
        scope: str,
        *,
        k: int,
        ts: datetime | None,
        session: str | None,
        explain: bool,
        params: R.RecallParams,
        reinforce: bool = True,
    ) -> list[Hit]:
        """Everything after the query embedding: the part the latency target is about."""
        with self._lock:
            idx = self.scope_index(scope)
            if len(idx) == 0 or k <= 0:
                return []
            when = ts or self.clock()
            c = run_pipeline(idx, query, qvec, when.timestamp(), session, k, params)
            hits = []
            for i, row in enumerate(c.rows.tolist()):
                trace = {name: float(v[i]) for name, v in c.trace.items() if name != "session_rank"}
                hits.append(
                    Hit(
                        item_id=idx.ids[row],
                        text=idx.l0[row],
                        score=float(c.score[i]),
                        category=idx.categories[row],
                        source_ids=list(idx.source_ids[row]),
                        occurred_at=datetime.fromtimestamp(float(idx.occurred[row]), tz=when.tzinfo),
                        source="session" if c.trace["session_rank"][i] >= 0 else "long_term",
                        trace=trace if explain else {},
                    )
                )
            if reinforce:
                self._reinforce(idx, c.rows, when)
            return hits

    def _reinforce(self, idx: ScopeIndex, rows: np.ndarray, at: datetime) -> None:
        """Recall reinforces what it returns: counted now in memory, written in batches."""
        if rows.size == 0:
            return
        idx.access_count[rows] += 1
        idx.last_access[rows] = np.fmax(np.nan_to_num(idx.last_access[rows], nan=-np.inf), at.timestamp())
        for row in rows.tolist():
            item_id = idx.ids[row]
            n, last = self._touches.get(item_id, (0, at))
            self._touches[item_id] = (n + 1, max(last, at))  # as the in-memory index keeps it
        if len(self._touches) >= self.params.touch_flush:
            self.flush_touches()

    def flush_touches(self) -> None:
        """Write buffered access statistics to DuckDB."""
        with self._lock, self.store.transaction():
            self._flush_touches_unlocked()

    def _flush_touches_unlocked(self) -> None:
        if not self._touches:
            return
        ids = list(self._touches)
        self.store.touch(ids, [self._touches[i][0] for i in ids], [self._touches[i][1] for i in ids])
        self._touches.clear()

    # ---- inspection -----------------------------------------------------------------------

    def stats(self, scope: str | None = None) -> dict[str, Any]:
        with self._lock:
            self.flush_touches()
            return self.store.stats(scope)

    def get_item(self, scope: str, item_id: str) -> dict[str, Any] | None:
        with self._lock:
            self.flush_touches()
            return self.store.item(scope, item_id)

    def get_category(self, scope: str, name: str) -> dict[str, Any] | None:
        with self._lock:
            return self.store.category(scope, name)
