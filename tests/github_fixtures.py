"""The shared GitHub payload fixtures (../shared/fixtures/github/), read as the exact bytes sent."""

from __future__ import annotations

from pathlib import Path

from tests.shared_data import shared

FIXTURES = shared("fixtures", "github")  # fails, naming the path, when ../shared is missing


def fixture_files() -> list[tuple[str, Path]]:
    """(event, file) for every payload: the folder names the X-GitHub-Event header."""
    return [(p.parent.name, p) for p in sorted(shared("fixtures", "github").glob("*/*.json"))]
