"""The profile file (DESIGN.md path B, "from memory to learning"): core memories as Markdown.

Core-tier preferences and profile facts are written into a clearly marked managed block of a
Markdown file (e.g. `USER.md` in the Main Agent's workspace), which the agent reads at start.
Everything outside the block belongs to the person and is kept byte for byte. The file is
replaced atomically (write a temporary file beside it, fsync, rename), so a reader never sees
half a file, and only paths inside the configured directory are written.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from daemon.errors import ConfigError, InvalidInput

BEGIN = "<!-- memubot:begin — managed by memubot; edits inside this block are replaced -->"
END = "<!-- memubot:end -->"
_BEGIN_PREFIX = "<!-- memubot:begin"
_HEADINGS = {"profile": "About you", "preferences": "Preferences"}


def resolve_target(root: Path, name: str) -> Path:
    """The profile file `name` inside `root`; anything that would land outside is refused."""
    base = root.expanduser().resolve()
    if not base.is_dir():
        raise ConfigError(f"profile directory {root} does not exist or is not a directory")
    target = (base / name).resolve()
    if not target.is_relative_to(base) or target == base:
        raise InvalidInput(f"profile file {name!r} is outside the profile directory {base}")
    return target


def _safe(text: object) -> str:
    """One line, and never a comment marker: a remembered "<!-- memubot:end -->" must not end
    the block early (what follows it would stay in the file for good)."""
    return " ".join(str(text).split()).replace("<!--", "&lt;!--").replace("-->", "--&gt;")


def render(items: Sequence[dict[str, Any]]) -> str:
    """The managed block for these items (core preferences and profile facts), deterministic."""
    lines = [BEGIN, "## What memubot has learned", ""]
    if not items:
        lines.append("_Nothing core yet._")
    for category in ("profile", "preferences"):
        mine = [i for i in items if i["category"] == category]
        if not mine:
            continue
        lines.append(f"### {_HEADINGS[category]}")
        lines.extend(f"- {_safe(i['l0'])} [ref:{i['id']}]" for i in mine)
        lines.append("")
    while lines[-1] == "":
        lines.pop()
    lines.append(END)
    return "\n".join(lines)


def splice(existing: str, block: str) -> str:
    """`existing` with its managed block replaced by `block` (appended when there is none)."""
    start = existing.find(_BEGIN_PREFIX)
    if start < 0:
        if END in existing:
            raise InvalidInput("profile file has a memubot:end marker without a begin marker; fix it by hand")
        # one blank line between what the person wrote and the block
        sep = (
            "" if not existing or existing.endswith("\n\n") else ("\n" if existing.endswith("\n") else "\n\n")
        )
        return f"{existing}{sep}{block}\n"
    end = existing.find(END, start)
    if end < 0:
        raise InvalidInput("profile file has a memubot:begin marker without an end marker; fix it by hand")
    if existing.find(_BEGIN_PREFIX, start + 1) >= 0:
        raise InvalidInput("profile file has more than one memubot block; fix it by hand")
    return existing[:start] + block + existing[end + len(END) :]


def write_profile(root: Path, name: str, items: Sequence[dict[str, Any]]) -> bool:
    """Update the managed block of `root/name`; True when the file changed."""
    target = resolve_target(root, name)
    # newline="" keeps the person's line endings (CRLF stays CRLF) byte for byte
    existing = ""
    if target.exists():
        with target.open(encoding="utf-8", newline="") as f:
            existing = f.read()
    updated = splice(existing, render(items))
    if updated == existing:
        return False
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(updated)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)  # the rename itself survives a crash
    return True


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
