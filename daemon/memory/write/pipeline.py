"""The write path: resources → item drafts → embedded, understood, deduplicated, committed.

`Writer` is the memorize pipeline, a part the Memory facade (daemon/memory/facade.py) is composed
of: batches are planned (known ids dropped, drafts extracted with each turn's neighbours as
context), embedded on a worker thread, read by the understanding models, linked to the session's
earlier items and committed with their dedup / update decisions, one transaction per batch.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple, ParamSpec, Protocol, TypeVar
from zoneinfo import ZoneInfo

import numpy as np

from daemon.errors import InvalidInput, ScopeRequired
from daemon.memory.embed import Embedder, content_hash, embed_missing
from daemon.memory.llm import LLMExtractor, LLMTurn
from daemon.memory.models import Understanding
from daemon.memory.read.bm25 import term_counts
from daemon.memory.read.scope import CONTEXT, LATER_CONTEXT, OWN, ScopeIndex
from daemon.memory.store import CATEGORY_TOP, ItemRow, Store
from daemon.memory.types import EXTERNAL, Clock, ItemDraft, MemorizeReport, ResourceIn
from daemon.memory.write import dedup as D
from daemon.memory.write.categoryranks import epoch_us
from daemon.memory.write.correction import KIND as CORRECTION
from daemon.memory.write.decisions import BatchDecisions
from daemon.memory.write.extract import TurnContext, context_line, extract, from_facts
from daemon.memory.write.plan import DedupPlan, item_hash
from daemon.memory.write.readersfirst import ReadersFirst

if TYPE_CHECKING:
    from daemon.memory.params import MemoryParams

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
P = ParamSpec("P")
T = TypeVar("T")


def item_id_for(scope: str, source_id: str, n: int) -> str:
    """Deterministic item ids: re-extracting the same resource yields the same ids."""
    return "it_" + hashlib.sha256(f"{scope}\x00{source_id}\x00{n}".encode()).hexdigest()[:20]


class _Turn(NamedTuple):
    """The latest turn of a session while a batch is planned."""

    speaker: str
    text: str
    item_id: str | None
    at: datetime = datetime.min.replace(tzinfo=UTC)
    rid: str = ""


@dataclass(slots=True)
class _Prepared:
    """One batch on its way through plan → embed (+ understand) → link → commit."""

    resources: list[ResourceIn]  # the fresh turns, in time order
    skipped: int
    prevs: list[_Turn]  # each turn's previous turn in its session
    raw: list[tuple[int, ItemDraft, bool]]  # (turn index, draft, from the rules) as extracted
    texts: list[str]  # what is embedded: one text per raw draft
    embed_hashes: list[str]
    known: dict[str, np.ndarray]
    again: bool  # the resources are stored already: only their items are written
    ctxs: list[TurnContext] = field(default_factory=list)
    embedded: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    fresh: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    kinds: list[str] = field(default_factory=list)  # per raw draft: fact / ask / social
    # set when the batch is linked, at commit: the drafts that become items, aligned
    drafts: list[tuple[str, str, ItemDraft]] = field(default_factory=list)  # (scope, item id, draft)
    hashes: list[str] = field(default_factory=list)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    extensions: list[tuple[str, str, str]] = field(default_factory=list)  # (scope, earlier item, turn)
    later: dict[str, list[str]] = field(default_factory=dict)  # draft id → context lines of this batch
    noise: int = 0
    report: MemorizeReport = field(default_factory=MemorizeReport)  # dedup outcome, set at commit


def _add(report: MemorizeReport, p: _Prepared) -> MemorizeReport:
    r = p.report
    return MemorizeReport(
        resources_added=report.resources_added + len(p.resources),
        resources_skipped=report.resources_skipped + p.skipped,
        items_added=report.items_added + r.items_added,
        noise=report.noise + p.noise,
        merged=report.merged + r.merged,
        skipped=report.skipped + r.skipped,
        superseded=report.superseded + r.superseded,
    )


class _OnThisThread(Executor):
    """Runs what is submitted at once, on the calling thread (a memorize of one batch)."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        done: Future[T] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # as a pool's worker does: raised again by result()
            done.set_exception(exc)
        return done


class WriteHost(Protocol):
    """What the writer works with, owned by the Memory facade and read at every write (so that
    a model or store swapped on the facade is the one the next write uses)."""

    store: Store
    embedder: Embedder
    llm: LLMExtractor | None
    params: MemoryParams
    understanding: Understanding | None
    clock: Clock
    tz: ZoneInfo
    _indexes: dict[str, ScopeIndex]
    _lock: threading.RLock
    _readers: ReadersFirst

    def scope_index(self, scope: str) -> ScopeIndex: ...

    def _flush_touches_unlocked(self) -> None: ...


class Writer:
    """The memorize pipeline: one per Memory, run by one writer at a time (the facade's `_write`
    lock); the facade's data lock is taken only to plan and to commit a batch."""

    def __init__(self, host: WriteHost) -> None:
        self.host = host
        # scratch of one memorize call, reset at its start
        self._alias: dict[str, str] = {}  # draft id → the item it joined
        self._turn_item: dict[tuple[str, str], str | None] = {}  # (scope, turn) → its first item

    def _before_lock(self) -> None:
        """Before the writer takes the data lock: let the recalls in progress finish first."""
        if not self.host._lock._is_owned():  # type: ignore[attr-defined]  # (a forget re-extracts under it)
            self.host._readers.let_readers_finish()

    def memorize(
        self, resources: Sequence[ResourceIn], progress: Progress | None, again: bool = False
    ) -> MemorizeReport:
        self._alias = {}
        self._turn_item = {}
        total = len(resources)
        bs = max(1, self.host.params.batch_size)
        batches = [list(resources[i : i + bs]) for i in range(0, total, bs)]
        seen: set[tuple[str, str]] = set()
        carry: dict[tuple[str, str], _Turn] = {}
        report = MemorizeReport()
        done = 0
        # One batch (the daemon's usual write: a turn or a few) has nothing to embed beside:
        # it is embedded on this thread, still without the data lock, which saves starting and
        # joining a thread per call (about 3 ms on two cores).
        pool: Executor = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="memubot-embed")
            if len(batches) > 1
            else _OnThisThread()
        )
        with pool:
            inflight: tuple[_Prepared, Future[None]] | None = None
            for batch in [*batches, None]:
                nxt: tuple[_Prepared, Future[None]] | None = None
                if batch is not None:
                    self._before_lock()
                    with self.host._lock:
                        plan = self._plan(batch, seen, carry, again)
                    nxt = (plan, pool.submit(self._embed, plan))
                if inflight is not None:
                    plan_done, fut = inflight
                    fut.result()  # without the data lock: recalls run while the batch embeds
                    self._before_lock()
                    with self.host._lock:
                        self._commit(plan_done)
                    report = _add(report, plan_done)
                    done += len(plan_done.resources) + plan_done.skipped
                    if progress:
                        progress(done, total)
                inflight = nxt
        return report

    def _plan(
        self,
        batch: list[ResourceIn],
        seen: set[tuple[str, str]],
        carry: dict[tuple[str, str], _Turn],
        again: bool = False,
    ) -> _Prepared:
        """Drop known ids, extract item drafts with each turn's neighbours as context.

        `again`: the resources are stored already and are extracted anew (after a forget).
        """
        for r in batch:
            if not r.scope:
                raise ScopeRequired(f"resource {r.id!r} has no scope")
            if r.occurred_at.tzinfo is None or r.occurred_at.utcoffset() is None:
                raise InvalidInput(f"resource {r.id!r}: occurred_at has no time zone")
        existing = (
            set() if again else self.host.store.resources.existing_resources([(r.scope, r.id) for r in batch])
        )
        fresh: list[ResourceIn] = []
        for r in batch:
            key = (r.scope, r.id)
            if key in existing or key in seen:
                continue
            seen.add(key)
            fresh.append(r)
        ordered = sorted(fresh, key=lambda x: (x.occurred_at, x.id))
        # pass 1: each turn's previous turn in its session (from this call, or from the store)
        prevs: list[_Turn] = []
        for r in ordered:
            prev = _Turn("", "", None)
            key = (r.scope, r.session or "")
            last = carry.get(key) if r.session else None
            if r.session:
                # The carried turn is the previous one only if it really came before this one;
                # a turn that arrives late takes its context from the store instead.
                if last is not None and (last.at, last.rid) < (r.occurred_at, r.id):
                    prev = last
                else:
                    speaker, text, item_id = self.host.store.resources.previous_turn(
                        r.scope, r.session, r.occurred_at, r.id
                    )
                    prev = _Turn(speaker, text, None if last is not None else item_id)
            prevs.append(prev)
            if r.session and (last is None or (last.at, last.rid) < (r.occurred_at, r.id)):
                carry[key] = _Turn(r.speaker or r.role or "", r.text, None, r.occurred_at, r.id)
        # pass 2: extraction (rules, or the LLM in batches with the rules as fallback); the
        # rules' drafts are checked by the understanding models once they are embedded
        ctxs = [TurnContext(prev_speaker=p.speaker, prev_text=p.text, tz=self.host.tz) for p in prevs]
        extracted = self._extract(ordered, ctxs)
        raw = [(t, d, ruled) for t, (got, ruled) in enumerate(extracted) for d in got]
        texts = [d.l0 for _, d, _ in raw]  # an item is embedded by its one-line text
        hashes = [content_hash(self.host.embedder.name, t) for t in texts]
        known = self.host.store.index.cached_vectors(sorted(set(hashes)))
        return _Prepared(ordered, len(batch) - len(fresh), prevs, raw, texts, hashes, known, again, ctxs)

    def _link(self, p: _Prepared) -> None:
        """Item ids for the drafts that stay, and each turn as context of the item before it.

        Runs at commit, in batch order, so that a turn's previous turn has its final item
        (or none, when the models found it to be a question or chit-chat) whatever batch it
        was in; `self._turn_item` remembers the first item of every turn of this memorize.
        """
        kept: dict[int, list[tuple[int, ItemDraft]]] = {}
        for j, (t, d, _) in enumerate(p.raw):
            if not p.kinds or p.kinds[j] == "fact":
                kept.setdefault(t, []).append((j, d))
        position: dict[str, int] = {}
        rows: list[int] = []
        for t, (r, prev) in enumerate(zip(p.resources, p.prevs, strict=True)):
            mine = kept.get(t, [])
            if not mine:
                p.noise += 1
            prev_item = self._turn_item.get((r.scope, prev.rid), prev.item_id) if prev.rid else prev.item_id
            if prev_item:  # this turn becomes part of the previous item's context
                line = context_line(r)
                at = position.get(prev_item)
                if at is None:
                    p.extensions.append((r.scope, prev_item, line))
                else:
                    scope, item_id, d = p.drafts[at]
                    p.drafts[at] = (scope, item_id, replace(d, context_text=f"{d.context_text}\n{line}"))
                    p.later.setdefault(item_id, []).append(line)
            ids = [item_id_for(r.scope, r.id, n) for n in range(len(mine))]
            self._turn_item[(r.scope, r.id)] = ids[0] if ids else None
            for item_id, (j, d) in zip(ids, mine, strict=True):
                if r.kind == CORRECTION:
                    # a correction names the one item it replaces (Memory.correct retires it);
                    # the update model must not guess at others ("a /ui correction retired an
                    # unrelated item too")
                    d = replace(d, retires=False)
                position[item_id] = len(p.drafts)
                p.drafts.append((r.scope, item_id, d))
                rows.append(j)
        p.hashes = [p.embed_hashes[j] for j in rows]
        p.vectors = p.embedded[rows] if rows else np.zeros((0, self.host.embedder.dim), np.float32)

    def _extract(
        self, turns: list[ResourceIn], ctxs: list[TurnContext]
    ) -> list[tuple[list[ItemDraft], bool]]:
        """Drafts per turn, and whether they are the rules' (checked by the understanding models
        after embedding) or the LLM's (trusted: it was asked for facts only)."""
        # An external resource (a GitHub delivery, an e-mail) is somebody else's words: the
        # person's extractor would file "X starred the repo" as the person's preference. It is
        # kept as a resource; its items come from its own handler (`drafts`), not from here,
        # and are neither re-read by the understanding models nor sent to the LLM.
        # A resource that brings its own drafts (a derived pattern, handlers' items) is not re-read
        # either: the drafts are what it says.
        rules = [
            list(r.drafts) if r.drafts or r.trust == EXTERNAL else extract(r, c)
            for r, c in zip(turns, ctxs, strict=True)
        ]
        out = [(got, r.trust != EXTERNAL and not r.drafts) for got, r in zip(rules, turns, strict=True)]
        if self.host.llm is None:
            return out
        # the noise filter has spoken: no drafts
        kept = [
            i for i, got in enumerate(rules) if got and turns[i].trust != EXTERNAL and not turns[i].drafts
        ]
        size = max(1, self.host.llm.cfg.batch_size)
        for start in range(0, len(kept), size):
            chunk = kept[start : start + size]
            facts = self.host.llm.extract(
                [
                    LLMTurn(
                        turns[i].speaker or turns[i].role or "",
                        turns[i].role,
                        turns[i].text,
                        turns[i].occurred_at,
                    )
                    for i in chunk
                ]
            )
            if facts is None:
                continue  # the LLM failed (logged): this chunk keeps the rules' drafts
            for n, i in enumerate(chunk):
                mine = [f for f in facts if f.turn == n]
                out[i] = (
                    from_facts(
                        turns[i],
                        ctxs[i],
                        rules[i][0],
                        [(f.category, f.l0, f.l1, f.importance, f.confidence) for f in mine],
                    ),
                    False,
                )
        return out

    def _embed(self, plan: _Prepared) -> None:
        """The slow step, on the worker thread: no DuckDB access here. Then the understanding
        models read the vectors: which rule drafts are facts, and under which category."""
        plan.embedded, plan.fresh = embed_missing(
            self.host.embedder, plan.texts, plan.embed_hashes, plan.known
        )
        u = self.host.understanding
        if u is None or not plan.raw:
            return
        ruled = [j for j, (_, _, by_rules) in enumerate(plan.raw) if by_rules]
        plan.kinds = ["fact"] * len(plan.raw)
        if not ruled:
            return
        turns = [plan.resources[plan.raw[j][0]] for j in ruled]
        vecs = plan.embedded[ruled]
        kinds = u.turn_kinds([r.text for r in turns], [r.role for r in turns], vecs)
        facts = [n for n, k in enumerate(kinds) if k.kind == "fact"]
        cats = u.categories([turns[n].text for n in facts], vecs[facts])
        for n, k in enumerate(kinds):
            plan.kinds[ruled[n]] = k.kind
        for n, cat in zip(facts, cats, strict=True):
            j = ruled[n]
            t, d, _ = plan.raw[j]
            if cat != d.category:
                again = extract(plan.resources[t], plan.ctxs[t], category=cat)
                plan.raw[j] = (t, replace(again[0], context_text=d.context_text), True)

    def _commit(self, p: _Prepared) -> None:
        if not p.resources:
            return
        now = self.host.clock()
        self._link(p)
        plan = self._dedup(p, now)
        rows: list[ItemRow] = []
        vec_rows: list[int] = []
        postings: list[tuple[str, str, str, int, int]] = []
        own: list[tuple[dict[str, int], int]] = []
        context: list[tuple[dict[str, int], int]] = []
        for i, (scope, item_id, d) in enumerate(p.drafts):
            if plan.decisions[i].op not in (D.CREATE, D.SUPERSEDE):
                continue
            tf, length = term_counts(d.search_text)
            ctf, clen = term_counts(d.context_text)
            own.append((dict(tf), length))
            context.append((dict(ctf), clen))
            postings.extend((scope, term, item_id, OWN, c) for term, c in tf.items())
            postings.extend((scope, term, item_id, CONTEXT, c) for term, c in ctf.items())
            absorbed = plan.pending.get(item_id)
            rows.append(
                ItemRow(
                    id=item_id,
                    scope=scope,
                    category=d.category,
                    l0=d.l0,
                    l1=absorbed.l1 if absorbed else d.l1,
                    search_text=d.search_text,
                    context_text=d.context_text,
                    speaker=d.speaker,
                    session=d.session,
                    content_hash=item_hash(d.l0),
                    importance=absorbed.importance if absorbed else d.importance,
                    confidence=absorbed.confidence if absorbed else d.confidence,
                    created_at=now,
                    happened_at=d.happened_at,
                    due_at=d.due_at,
                    evergreen=d.evergreen,
                    doc_len=length,
                    ctx_len=clen,
                    source_ids=tuple(sorted({*d.source_ids, *(absorbed.sources if absorbed else ())})),
                    source_hashes={
                        **dict.fromkeys(d.source_ids, p.hashes[i]),
                        **(absorbed.sources if absorbed else {}),
                    },
                    observed_at=d.observed_at,
                    mentions=absorbed.mentions if absorbed else 1,
                )
            )
            vec_rows.append(i)
        vectors = p.vectors[vec_rows] if vec_rows else np.zeros((0, self.host.embedder.dim), np.float32)
        # A draft that joined another item (SKIP/MERGE) hands the turns after it to that item,
        # also when the next turn comes in a later batch (self._alias lives for one memorize).
        self._alias.update(plan.alias)
        moved = [
            (scope, item_id, line)
            for scope, item_id, _ in p.drafts
            if item_id in plan.alias
            for line in p.later.get(item_id, [])
        ]
        grown = [
            (scope, self._alias.get(item_id, item_id), line, term_counts(line))
            for scope, item_id, line in [*p.extensions, *plan.merged_context, *moved]
        ]
        scopes = {r.scope for r in p.resources}
        before = {s: self.host.store.generation(s) for s in scopes if s in self.host._indexes}
        for scope in scopes:  # read once per index; the batches after keep the ranks in step
            idx = self.host._indexes.get(scope)
            if idx is not None and idx.generation == before[scope]:
                idx.ensure_ranks(functools.partial(self.host.store.lifecycle.item_ranks, scope))
        self.host._flush_touches_unlocked()
        patched: list[str] = []
        try:
            with self.host.store.transaction():
                if not p.again:
                    self.host.store.resources.insert_resources(p.resources, stored_at=now)
                self.host.store.index.cache_vectors(
                    [h for h, f in zip(p.embed_hashes, p.fresh, strict=True) if f], p.embedded[p.fresh]
                )
                self.host.store.items.insert_items(rows, vectors)
                for (scope, target), a in plan.absorbed.items():
                    self.host.store.items.absorb(
                        scope,
                        target,
                        source_ids=a.sources,
                        importance=a.importance,
                        confidence=a.confidence,
                        mentions=a.mentions,
                        l1=a.l1,
                        at=now,
                    )
                for scope, old, new, at in plan.superseded:
                    self.host.store.items.supersede(scope, old, new, at)
                later = self.host.store.items.extend_contexts(
                    [
                        (
                            scope,
                            item_id,
                            line,
                            length,
                            [(scope, t, item_id, LATER_CONTEXT, c) for t, c in tf.items()],
                        )
                        for scope, item_id, line, (tf, length) in grown
                    ]
                )
                # the new items' postings and the turns after items' in one statement, in the
                # order they were written in before
                self.host.store.index.add_postings([*postings, *later])
                self.host.store.items.log_ops(plan.ops, now)
                generations = self.host.store.bump_generation(scopes)
                for scope in sorted(scopes):
                    names = sorted(plan.categories.get(scope, set()))
                    idx = self.host._indexes.get(scope)
                    if idx is None or idx.generation != before.get(scope):
                        self.host._indexes.pop(scope, None)  # someone else wrote: rebuild on next read
                        self.host.store.lifecycle.refresh_categories(scope, names, now)
                        continue
                    # the index follows the batch inside the transaction (and is dropped if the
                    # transaction fails): its category ranks give the summaries, so the scope is
                    # not ranked in DuckDB on every batch
                    patched.append(scope)
                    self._patch_index(idx, rows, vectors, own, context, plan, grown, now)
                    self.host.store.lifecycle.write_categories(
                        scope, idx.category_summaries(names, CATEGORY_TOP), now
                    )
                    idx.generation = generations[scope]  # what the transaction reads (no query)
        except BaseException:
            for scope in patched:
                self.host._indexes.pop(scope, None)
            raise
        p.report = plan.report

    def _patch_index(
        self,
        idx: ScopeIndex,
        rows: list[ItemRow],
        vectors: np.ndarray,
        own: list[tuple[dict[str, int], int]],
        context: list[tuple[dict[str, int], int]],
        plan: DedupPlan,
        grown: list[tuple[str, str, str, tuple[Counter[str], int]]],
        now: datetime,
    ) -> None:
        """Apply a batch's writes to the scope's index (the rows a rebuild from DuckDB gives)."""
        scope = idx.scope
        sel = [i for i, r in enumerate(rows) if r.scope == scope]
        idx.append(
            ids=[rows[i].id for i in sel],
            l0=[rows[i].l0 for i in sel],
            categories=[rows[i].category for i in sel],
            source_ids=[sorted(rows[i].source_ids) for i in sel],
            sessions=[rows[i].session for i in sel],
            speakers=[rows[i].speaker for i in sel],
            importance=[rows[i].importance for i in sel],
            occurred=[(rows[i].observed_at or rows[i].happened_at or now).timestamp() for i in sel],
            evergreen=[rows[i].evergreen for i in sel],
            vectors=vectors[sel] if sel else np.zeros((0, self.host.embedder.dim), np.float32),
            own=[own[i] for i in sel],
            context=[context[i] for i in sel],
            created=[epoch_us(rows[i].created_at) for i in sel],
        )
        for (a_scope, target), a in plan.absorbed.items():
            if a_scope == scope:
                idx.absorb(target, sorted(a.sources), a.importance)
        for s_scope, old, _, _ in plan.superseded:
            if s_scope == scope:
                idx.deactivate([old])
        for g_scope, item_id, _, (tf, length) in grown:
            if g_scope == scope:
                idx.extend_context(item_id, dict(tf), length)
        # the slotted L1 just stored, as DuckDB gives it back (JSON), so that dedup's next look
        # at the slot families does not read back what this process wrote
        for i in sel:
            if rows[i].category in D.SLOTTED:
                idx.slots.told(rows[i].id, json.loads(json.dumps(rows[i].l1, ensure_ascii=False)))
        for (a_scope, target), a in plan.absorbed.items():
            row = idx.row_of.get(target) if a_scope == scope else None
            if row is not None and idx.categories[row] in D.SLOTTED:
                idx.slots.told(target, json.loads(json.dumps(a.l1, ensure_ascii=False)))

    def _dedup(self, p: _Prepared, now: datetime) -> DedupPlan:
        """Stage 1 and 2 of dedup, and the update model, for every draft of a batch."""
        decide = BatchDecisions(
            self.host.store,
            self.host.scope_index,
            self.host.params.dedup,
            self.host.params.retire_by_model,
            self.host.understanding,
            self.host.llm,
            self.host.params.retire_by_slot,
        )
        return decide.plan(p.drafts, p.vectors, p.hashes, now)
