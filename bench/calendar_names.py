#!/usr/bin/env python3
"""Write daemon/state/calendar_names.json: every language's weekday and month names, in English.

usage: python bench/calendar_names.py [--check]

Needs `babel` (the `train` extra: `pip install -e '.[train]'`), whose locale data is the Unicode
CLDR's. `--check` only compares the file with what babel gives now (exit 1 when they differ).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.state.calendar_names import DATA, from_cldr  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare the file with babel's data, write nothing")
    args = ap.parse_args()
    print("reading CLDR through babel (about ten seconds) …", file=sys.stderr)
    table = from_cldr()
    text = json.dumps(table, ensure_ascii=False, indent=0, sort_keys=True) + "\n"
    if args.check:
        same = DATA.exists() and DATA.read_text(encoding="utf-8") == text
        print(f"{DATA.relative_to(ROOT)}: {'up to date' if same else 'differs from babel'}")
        return 0 if same else 1
    DATA.write_text(text, encoding="utf-8")
    print(f"wrote {DATA.relative_to(ROOT)}: {len(table['words'])} words, {len(table['phrases'])} phrases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
