"""Forgetting: the lifecycle job (tiers, archive, restore) and the real deletion of memories."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol

import numpy as np

from daemon.errors import InvalidInput, ScopeRequired
from daemon.memory import lifecycle as L
from daemon.memory.embed import content_hash
from daemon.memory.read.bm25 import term_counts, tokenize
from daemon.memory.read.scope import CONTEXT, ScopeIndex, follow
from daemon.memory.store import Store
from daemon.memory.types import CATEGORIES, TIERS, Clock, ResourceIn
from daemon.memory.write.extract import context_line

# The functions below work on the Memory's store and indexes; `Memory` takes its locks and
# flushes buffered accesses first, so they run as the one writer and see current counts.

log = logging.getLogger(__name__)


class ForgetHook(Protocol):
    """What else was learnt from a scope's resources (trigger state: daemon/state/), forgotten
    with them: the memory does not know these tables, it calls their owners' hooks."""

    def forget(self, scope: str, resource_ids: Sequence[str] | None) -> dict[str, int]:
        """Drop what the forgotten resources taught (None: the whole scope was forgotten);
        returns rows deleted per table. Called as the one writer, holding the memory's locks."""
        ...


def _quotes(line: str, turn: str) -> bool:
    """Whether a context line quotes this turn ("Speaker: text"): alone, after a "[date] "
    prefix, or followed by its resolved-date note. Whole lines, never substrings."""
    body = line.split("] ", 1)[1] if line.startswith("[") and "] " in line else line
    return body == turn or body.startswith(turn + " (")


# ---- the lifecycle job ----------------------------------------------------------------------


def consolidate(
    store: Store,
    indexes: dict[str, ScopeIndex],
    scopes: Sequence[str],
    now: datetime,
    params: L.LifecycleParams,
) -> dict[str, dict[str, int]]:
    """Consolidate each scope at `now`: counts per scope (see `Memory.consolidate`)."""
    out: dict[str, dict[str, int]] = {}
    for sc in scopes:
        out[sc] = consolidate_scope(store, indexes, sc, now, params)
    return out


def consolidate_scope(
    store: Store, indexes: dict[str, ScopeIndex], scope: str, now: datetime, params: L.LifecycleParams
) -> dict[str, int]:
    """Move one scope's active items between tiers, archive the faded, pin core profile facts.

    The scope's in-memory index, if built, is patched in step (archived rows inactive, pinned
    rows evergreen; tiers are not in it) rather than rebuilt from DuckDB.
    """
    rows = store.lifecycle.lifecycle_rows(scope)
    live = ~rows["archived"].astype(bool) if len(rows["id"]) else np.zeros(0, bool)
    ids = [str(x) for x in rows["id"][live]]
    report = {"active_before": len(ids), "promoted": 0, "demoted": 0, "archived": 0, "evergreen": 0}
    if ids:
        tier = np.asarray([TIERS.index(str(t)) for t in rows["tier"][live]], dtype=np.int64)
        plan = L.plan(
            now.timestamp(),
            rows["last_seen"][live].astype(np.float64),
            rows["access_count"][live].astype(np.float64),
            rows["importance"][live].astype(np.float64),
            tier,
            rows["evergreen"][live].astype(bool),
            params,
        )
        changed = np.flatnonzero(plan.tier != tier)
        tiers = {ids[i]: TIERS[int(plan.tier[i])] for i in changed.tolist()}
        archive = [ids[i] for i in np.flatnonzero(plan.archive).tolist()]
        cats = rows["category"][live]
        ever = rows["evergreen"][live].astype(bool)
        pinned = [
            ids[i]
            for i in np.flatnonzero((plan.tier == TIERS.index("core")) & (cats == "profile") & ~ever).tolist()
        ]
        ops: list[tuple[str, str, str, str | None]] = [
            (scope, "promoted" if plan.tier[i] > tier[i] else "demoted", ids[i], None)
            for i in changed.tolist()
        ]
        ops += [(scope, "archived", item_id, None) for item_id in archive]
        report.update(
            promoted=int((plan.tier > tier).sum()),
            demoted=int((plan.tier < tier).sum()),
            archived=len(archive),
            evergreen=len(pinned),
        )
        if tiers or archive or pinned:
            before = store.generation(scope)
            with store.transaction():
                store.lifecycle.set_lifecycle(scope, tiers, archive, pinned, now)
                store.items.log_ops(ops, now)
                store.bump_generation([scope])
                store.lifecycle.refresh_categories(scope, sorted({str(c) for c in cats}), now)

            def change(idx: ScopeIndex) -> None:
                idx.deactivate(archive)
                idx.pin(pinned)

            follow(indexes, scope, before, store.generation(scope), change)
    report["active_after"] = report["active_before"] - report["archived"]
    return report


def restore(store: Store, indexes: dict[str, ScopeIndex], scope: str, item_id: str, now: datetime) -> bool:
    """Bring an archived or retired item back into recall; False when it is neither.

    Undoing a retirement is how the person says "that was not replaced": the op log keeps
    both the retirement and its undoing (`restored`, naming the item that had retired it).
    The scope's in-memory index, if built, gets the row back in step.
    """
    before = store.generation(scope)
    with store.transaction():
        item = store.items.item(scope, item_id)
        was = store.lifecycle.restore(scope, item_id, now)
        if was is not None:
            by = item.get("superseded_by") if item else None
            store.items.log_ops([(scope, "restored", item_id, by)], now)
            store.bump_generation([scope])
    if was is not None:
        follow(
            indexes, scope, before, store.generation(scope), lambda idx: idx.revive(item_id, now.timestamp())
        )
    return was is not None


# ---- real deletion --------------------------------------------------------------------------


def check_target(scope: str, item_ids: Sequence[str], query: str | None, everything: bool) -> None:
    """A forget names its scope and exactly one target (checked before any lock is taken)."""
    if not scope:
        raise ScopeRequired("forget needs a scope")
    if sum([bool(item_ids), query is not None, everything]) != 1:
        raise InvalidInput("forget needs exactly one of: item ids, a query, everything")


def forget(
    store: Store,
    indexes: dict[str, ScopeIndex],
    scope: str,
    *,
    item_ids: Sequence[str],
    query: str | None,
    everything: bool,
    dry_run: bool,
    embedder: str,
    clock: Clock,
    reextract: Callable[[list[ResourceIn]], object],
    hooks: Sequence[ForgetHook] = (),
) -> dict[str, int]:
    """Delete what the target covers (see `Memory.forget`); returns rows deleted per table.

    `embedder` names the model whose cached vectors of the forgotten texts are dropped;
    `reextract` memorizes the forgotten items' other sources again (they are stored already).
    """
    items: list[str] = []
    resources: list[str] = []
    if everything:
        items = [t[0] for t in store.items.item_texts(scope)]
        resources = [r[0] for r in store.resources.resource_texts(scope)]
    elif query is not None:
        terms = set(tokenize(query))
        if not terms:
            raise InvalidInput(f"forget: the query {query!r} has no searchable words")
        items = [i for i, text, _ in store.items.item_texts(scope) if terms <= set(tokenize(text))]
        resources = [r[0] for r in store.resources.resource_texts(scope) if terms <= set(tokenize(r[3]))]
    else:
        known = {t[0] for t in store.items.item_texts(scope)}
        missing = sorted(set(item_ids) - known)
        if missing:
            raise InvalidInput(f"forget: no item {', '.join(missing)} in scope {scope!r}")
        items = list(item_ids)
    items, resources, orphans = store.deletion.forget_closure(scope, items, resources)
    gone = store.resources.read(scope, resources)
    quoted = [context_line(r) for r in gone]
    sessions = sorted({r.session for r in gone if r.session})
    contexts = []
    for item_id, ctx in store.items.contexts_mentioning(scope, sessions, items):
        lines = ctx.split("\n")
        kept = [ln for ln in lines if not any(_quotes(ln, q) for q in quoted)]
        if len(kept) != len(lines):
            text = "\n".join(kept)
            tf, length = term_counts(text)
            contexts.append((item_id, text, length, [(scope, t, item_id, CONTEXT, c) for t, c in tf.items()]))
    if dry_run:
        return {
            "items": len(items),
            "resources": len(resources),
            "contexts_rewritten": len(contexts),
            "reextracted": len(orphans),
        }
    hashes = [content_hash(embedder, t) for t in store.items.item_l0(scope, items)]
    kept_sources = store.resources.read(scope, orphans)
    counts = store.deletion.forget(scope, items, resources, hashes, contexts, clock())
    counts["contexts_rewritten"] = len(contexts)
    if everything:
        counts["categories"] = store.lifecycle.drop_categories(scope)
    else:
        store.lifecycle.refresh_categories(scope, list(CATEGORIES), clock())
    # what was learnt from the forgotten resources goes with them: the pull request / issue
    # state from GitHub deliveries, e-mail threads (who waits on whom), workflow runs, and for a
    # whole scope its suggestions (each hook says what it dropped)
    for hook in hooks:
        counts.update(hook.forget(scope, None if everything else resources))
    indexes.pop(scope, None)
    if kept_sources:
        # Other resources of a forgotten item stay: extract them again, without the
        # forgotten part (their resource rows are written back unchanged). A handler's draft
        # that cites a forgotten resource (a case citing the failing run), now or before, goes.
        cited = {s for r in kept_sources for d in r.drafts for s in d.source_ids}
        tombstoned = store.resources.forgotten_among(scope, sorted(cited))
        reextract(
            [
                replace(r, drafts=tuple(d for d in r.drafts if not tombstoned & set(d.source_ids)))
                for r in kept_sources
            ]
        )
    counts["reextracted"] = len(kept_sources)
    log.info("forgot in scope %s: %s", scope, counts)
    return counts
