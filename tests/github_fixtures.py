"""The shared GitHub payload fixtures (../shared/fixtures/github/), read as the exact bytes sent."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "github"
SCENARIOS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "proactive"


def fixture_files() -> list[tuple[str, Path]]:
    """(event, file) for every payload: the folder names the X-GitHub-Event header."""
    if not FIXTURES.is_dir():
        pytest.skip(f"the shared GitHub fixtures are not at {FIXTURES}")
    return [(p.parent.name, p) for p in sorted(FIXTURES.glob("*/*.json"))]
