"""Bench results into the docs: the text between a script's own begin/end markers in its page.

Each script that writes its table names the page that holds its section (`DOC`, a path from the
checkout's root, e.g. docs/predict.md) and its markers (`BEGIN`, `END`); tests/test_docs.py checks
that the page has them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commit() -> str:
    """The short hash of HEAD (what the numbers were measured at), or "unknown"."""
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_block(doc: str, begin: str, end: str, text: str) -> Path:
    """Replace what stands between `begin` and `end` in the page `doc` with `text`."""
    page = ROOT / doc
    body = page.read_text(encoding="utf-8")
    if begin not in body or end not in body:
        raise SystemExit(f"{doc} has no {begin} … {end} block")
    head, rest = body.split(begin, 1)
    _, tail = rest.split(end, 1)
    page.write_text(f"{head}{begin}\n{text}\n{end}{tail}", encoding="utf-8")
    return page
