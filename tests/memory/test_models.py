"""The committed understanding models: in step with their training data, loadable, and used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from daemon.memory.models import MODELS_DIR
from daemon.memory.models.linear import LinearModel, data_digest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("path", sorted(MODELS_DIR.glob("*.npz")), ids=lambda p: p.name)
def test_weights_match_the_data_they_were_trained_on(path: Path) -> None:
    model = LinearModel.load(path)
    files = [ROOT / "bench" / "data" / name for name in model.meta["trained_on"]]
    assert all(f.exists() for f in files), f"{path.name}: training data missing"
    assert data_digest(files) == model.meta["data_digest"], (
        f"{path.name} is stale: retrain with `python bench/train_understanding.py`"
    )


def test_a_model_survives_save_and_load(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    m = LinearModel(
        "toy",
        ("a", "b", "c"),
        rng.normal(size=(3, 5)).astype(np.float32),
        np.zeros(3, np.float32),
        np.zeros(5, np.float32),
        np.ones(5, np.float32),
        {"drop_below": 0.1},
    )
    m.save(tmp_path / "toy.npz")
    back = LinearModel.load(tmp_path / "toy.npz")
    x = rng.normal(size=(4, 5)).astype(np.float32)
    assert back.classes == m.classes and back.meta["drop_below"] == 0.1
    np.testing.assert_allclose(back.proba(x), m.proba(x), rtol=1e-6)
    assert np.allclose(back.proba(x).sum(axis=1), 1.0)
