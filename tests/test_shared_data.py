"""A test that needs ../shared fails and names what is missing: it never skips."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_data import SHARED, shared

ROOT = Path(__file__).resolve().parents[1]


def test_a_missing_shared_file_fails_the_test_naming_its_path() -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        shared("fixtures", "no-such-folder", "payload.json")
    message = str(failed.value)
    assert str(SHARED / "fixtures" / "no-such-folder" / "payload.json") in message
    assert "../shared" in message


def test_a_present_shared_file_is_its_path() -> None:
    assert shared("bench", "proactive") == SHARED / "bench" / "proactive"
    assert shared("bench", "proactive").is_dir()


def test_without_shared_the_suite_fails_with_the_reason_and_skips_nothing(tmp_path: Path) -> None:
    """A checkout with no ../shared beside it: collecting the tests that read it fails, naming it."""
    checkout = tmp_path / "memubot"
    (checkout / "tests").mkdir(parents=True)
    for name in ("__init__.py", "shared_data.py", "github_fixtures.py"):
        (checkout / "tests" / name).write_text((ROOT / "tests" / name).read_text())
    (checkout / "tests" / "test_reads_shared.py").write_text(
        "from tests.github_fixtures import FIXTURES\n\n\ndef test_it():\n    assert FIXTURES.is_dir()\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/test_reads_shared.py"],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    assert str(tmp_path / "shared" / "fixtures" / "github") in out and "is missing" in out, out
    assert "skipped" not in out, out
