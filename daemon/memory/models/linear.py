"""A linear classifier loaded from a committed `.npz`: standardise, score, softmax (numpy only),
optionally over one hidden ReLU layer (`bench/train_understanding.py --hidden-update`, an experiment
for the update model: which dimensions of two statements agree matters only together with what
they are about, which a linear score cannot read; not the committed model).

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
    """Multinomial (or binary) logistic regression over standardised features, or over one hidden
    ReLU layer of them when `hidden_weights` is set."""

    name: str
    classes: tuple[str, ...]
    weights: np.ndarray  # (n_classes, d), or (1, d) for a binary model (the second class)
    bias: np.ndarray  # (n_classes,) or (1,)
    mean: np.ndarray  # (d,)
    scale: np.ndarray  # (d,)
    meta: dict[str, Any]
    hidden_weights: np.ndarray | None = None  # (h, d): the hidden layer, when there is one
    hidden_bias: np.ndarray | None = None  # (h,)

    @property
    def dim(self) -> int:
        return int((self.weights if self.hidden_weights is None else self.hidden_weights).shape[1])

    def reads(self, embedder_name: str) -> bool:
        """Whether the model reads the vectors of the embedder so named (the one it was fitted on)."""
        return embedder_name.startswith(str(self.meta.get("embedder", "?")))

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities, one row per input row, columns in `classes` order."""
        x = np.atleast_2d(np.asarray(x, dtype=np.float32))
        if x.shape[1] != self.dim:
            raise ValueError(f"model {self.name} expects {self.dim} features, got {x.shape[1]}")
        h = (x - self.mean) / self.scale
        if self.hidden_weights is not None and self.hidden_bias is not None:
            h = np.maximum(h @ self.hidden_weights.T + self.hidden_bias, 0.0)
        z = h @ self.weights.T + self.bias
        if len(self.classes) == 2 and z.shape[1] == 1:
            p1 = 1.0 / (1.0 + np.exp(-z[:, 0]))
            return np.stack([1.0 - p1, p1], axis=1).astype(np.float32)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out: np.ndarray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
        return out

    def save(self, path: Path) -> None:
        # Any: numpy's stub reads a ** of arrays as possibly its allow_pickle flag
        arrays: dict[str, Any] = {
            "weights": self.weights.astype(np.float32),
            "bias": self.bias.astype(np.float32),
            "mean": self.mean.astype(np.float32),
            "scale": self.scale.astype(np.float32),
            "meta": np.asarray(json.dumps({**self.meta, "name": self.name, "classes": list(self.classes)})),
        }
        if self.hidden_weights is not None and self.hidden_bias is not None:
            arrays["hidden_weights"] = self.hidden_weights.astype(np.float32)
            arrays["hidden_bias"] = self.hidden_bias.astype(np.float32)
        np.savez_compressed(path, **arrays)

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
                hidden_weights=z["hidden_weights"].astype(np.float32)
                if "hidden_weights" in z.files
                else None,
                hidden_bias=z["hidden_bias"].astype(np.float32) if "hidden_bias" in z.files else None,
            )


def data_digest(paths: Iterable[Path]) -> str:
    """A digest of the training files (names and bytes), stored with the weights they made."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]
