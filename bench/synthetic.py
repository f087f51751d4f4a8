"""The synthetic scope of the scale benches (bench/scale.py, bench/writes.py): LoCoMo dev turns
recombined into N distinct turns, each with a vector prepared from the real model's vectors of its
parts, so that filling a big scope costs no embedding. `daemon` is imported only when called:
bench/writes.py runs another checkout's `daemon` (--code) and must import it first."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "bench" / "locomo"
BASE = ROOT / "bench" / "out" / "locomo_turn_vectors.npy"
START = datetime(2023, 1, 1, tzinfo=UTC)


class Turn(NamedTuple):
    """One synthetic turn: what a ResourceIn is made of."""

    id: str
    text: str
    occurred_at: datetime
    session: str
    speaker: str


class TableEmbedder:
    """Returns the vector prepared for each text; the real model embeds only the queries."""

    def __init__(self, name: str, dim: int, table: dict[str, np.ndarray], real: Any) -> None:
        self.name = name
        self.dim = dim
        self.table = table
        self.real = real

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        # an item's text may end with its resolved-date note: "… (#12) (last week: 19 December 2022)"
        return np.stack([self.table[t] if t in self.table else self.table[t[: t.rfind(" (")]] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self.real.embed_query(text)  # type: ignore[no-any-return]


def locomo_texts_and_vectors(real: Any) -> tuple[list[str], np.ndarray]:
    """The LoCoMo dev turns' texts and their vectors (embedded once, cached under bench/out)."""
    turns = [json.loads(x) for x in (DATA / "events.jsonl").read_text().splitlines() if x.strip()]
    texts = [t["text"] for t in turns]
    if BASE.exists():
        return texts, np.load(BASE)
    print(f"embedding {len(texts)} LoCoMo turns once (cached in {BASE})", file=sys.stderr)
    embed = real.embed_passages
    base = np.concatenate([embed(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    BASE.parent.mkdir(parents=True, exist_ok=True)  # a fresh clone has no bench/out
    np.save(BASE, base)
    return texts, base


def synthetic_turns(
    n: int, texts: list[str], base: np.ndarray, rng: np.random.Generator, table: dict[str, np.ndarray]
) -> Iterator[Turn]:
    """Turns 0..n-1, drawn from `rng` (the same seed gives the same turns); each item text's
    vector goes into `table`."""
    for i in range(n):
        j, k = rng.integers(0, len(texts), 2)
        extra = " ".join(rng.choice(texts[k].split(), size=min(4, len(texts[k].split())), replace=False))
        text = f"{texts[j]} {extra} (#{i})"
        mix = base[j] + 0.5 * base[k] + 0.025 * np.asarray(rng.normal(size=base.shape[1]), np.float32)
        table[f"Person{i % 7}: {' '.join(text.split())}"] = (mix / np.linalg.norm(mix)).astype(np.float32)
        yield Turn(f"syn-{i}", text, START + timedelta(minutes=i), f"syn-s{i // 20}", f"Person{i % 7}")


def synthetic_scope(n: int, real: Any, rng: np.random.Generator) -> tuple[list[Any], dict[str, np.ndarray]]:
    """The turns 0..n-1 as the person's resources of scope "big", and each item text's vector."""
    from daemon.memory import ResourceIn  # the caller's daemon (see the module docstring)

    texts, base = locomo_texts_and_vectors(real)
    table: dict[str, np.ndarray] = {}
    resources = [
        ResourceIn(
            id=t.id,
            scope="big",
            text=t.text,
            occurred_at=t.occurred_at,
            session=t.session,
            speaker=t.speaker,
            role="user",
        )
        for t in synthetic_turns(n, texts, base, rng, table)
    ]
    return resources, table
