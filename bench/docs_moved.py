"""Did moving text out of the README lose a measurement? (issue 23)

usage: python bench/docs_moved.py [COMMIT]   (default 4e5e73d, the last 2,373-line README)

Every line of the README at COMMIT that bears a digit must survive in README.md + docs/*.md:
verbatim (stripped), or, when it was edited (a link put in, a line reflowed), with every number
on it present within three lines of its closest match. Prints the lines that fail and exits 1 if
any does; run it again after moving a paragraph out of the README.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"\d[\d,.:/×x%-]*\d|\d")
# taken out on purpose, not lost: pointers into DESIGN.md, which a reader of the repository does
# not have (docs/contracts.md says it instead), and a sentence that was no longer true
REMOVED = ("DESIGN.md §4", "(the predictors arrive with issue 12)")


def main() -> int:
    base = sys.argv[1] if len(sys.argv) > 1 else "4e5e73d"
    old = subprocess.run(
        ["git", "show", f"{base}:README.md"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    lines = [ln.strip() for page in pages for ln in page.read_text(encoding="utf-8").splitlines()]
    verbatim, edited, lost = set(lines), 0, 0
    for n, line in enumerate(old.splitlines(), 1):
        s = line.strip()
        if not re.search(r"\d", s) or s in verbatim or any(r in s for r in REMOVED):
            continue
        edited += 1
        numbers = NUMBER.findall(s)
        match = difflib.get_close_matches(s, lines, n=1, cutoff=0.5)
        if match:
            i = lines.index(match[0])
            window = "\n".join(lines[max(0, i - 3) : i + 4])
        else:
            window = ""
        missing = [x for x in numbers if x not in window]
        if missing:
            lost += 1
            print(f"{base}:README.md:{n}: {missing} not found near its closest line: {s[:140]}")
    print(f"{edited} number-bearing lines were edited, {lost} of them lost a number")
    return 1 if lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
