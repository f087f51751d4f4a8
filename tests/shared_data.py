"""The shared data the tests read: `../shared` beside this checkout (the GitHub and Gmail payload
fixtures, the proactive scenarios and their scorer, the LoCoMo dev texts). One place and one
behaviour when it is missing: the test that needs it fails and names the path, never skips and
never runs on a stand-in body (a skip would count as nothing checked)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
MISSING = (
    "is missing: the tests read the shared fixtures and bench data in ../shared, beside this "
    "checkout (what .ci/run is given)"
)


def shared(*parts: str) -> Path:
    """`../shared/<parts>`, which must exist: the calling test fails with the path otherwise."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"{path} {MISSING}", pytrace=False)
    return path
