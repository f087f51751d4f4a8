"""A linear classifier loaded from a committed `.npz`: standardise, score, softmax (numpy only).

The weights are written by `bench/train_understanding.py`; the file carries, beside the
weights, the class names, the feature layout it was trained on, the embedder whose vectors it
reads, the decision thresholds chosen by cross-validation and a digest of the training data
(so a test notices when the data changed and the model was not retrained).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class LinearModel:
    """Multinomial (or binary) logistic regression over standardised features."""

    name: str
    classes: tuple[str, ...]
    weights: np.ndarray  # (n_classes, d), or (1, d) for a binary model (the second class)
    bias: np.ndarray  # (n_classes,) or (1,)
    mean: np.ndarray  # (d,)
    scale: np.ndarray  # (d,)
    meta: dict[str, Any]

    @property
    def dim(self) -> int:
        return int(self.weights.shape[1])

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities, one row per input row, columns in `classes` order."""
        x = np.atleast_2d(np.asarray(x, dtype=np.float32))
        if x.shape[1] != self.dim:
            raise ValueError(f"model {self.name} expects {self.dim} features, got {x.shape[1]}")
        z = ((x - self.mean) / self.scale) @ self.weights.T + self.bias
        if len(self.classes) == 2 and z.shape[1] == 1:
            p1 = 1.0 / (1.0 + np.exp(-z[:, 0]))
            return np.stack([1.0 - p1, p1], axis=1).astype(np.float32)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out: np.ndarray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
        return out

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float32),
            bias=self.bias.astype(np.float32),
            mean=self.mean.astype(np.float32),
            scale=self.scale.astype(np.float32),
            meta=np.asarray(json.dumps({**self.meta, "name": self.name, "classes": list(self.classes)})),
        )

    @classmethod
    def load(cls, path: Path) -> LinearModel:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            return cls(
                name=str(meta.pop("name")),
                classes=tuple(meta.pop("classes")),
                weights=z["weights"].astype(np.float32),
                bias=z["bias"].astype(np.float32),
                mean=z["mean"].astype(np.float32),
                scale=z["scale"].astype(np.float32),
                meta=meta,
            )


def data_digest(paths: Iterable[Path]) -> str:
    """A digest of the training files (names and bytes), stored with the weights they made."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]
