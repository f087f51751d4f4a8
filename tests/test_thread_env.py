"""The thread settings `import daemon` makes before numpy and the embedding engine load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _after_import(env: dict[str, str]) -> str:
    code = "import os, daemon; print(os.environ['OMP_WAIT_POLICY'], os.environ['OPENBLAS_NUM_THREADS'])"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_openmp_threads_sleep_while_they_wait_unless_the_environment_says_otherwise() -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS")}
    assert _after_import(base) == "PASSIVE 1"
    assert _after_import({**base, "OMP_WAIT_POLICY": "ACTIVE", "OPENBLAS_NUM_THREADS": "2"}) == "ACTIVE 2"
