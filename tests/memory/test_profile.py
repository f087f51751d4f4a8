"""The profile file: a managed block, atomic writes, user edits kept, paths confined."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from daemon.errors import InvalidInput
from daemon.memory.profile import BEGIN, END, render, resolve_target, splice, write_profile


def _items() -> list[dict[str, Any]]:
    return [
        {"id": "it_a", "category": "preferences", "l0": "Alice: I prefer tea over coffee."},
        {"id": "it_b", "category": "profile", "l0": "Alice: I live in Lisbon."},
    ]


def test_render_groups_by_category_and_cites_items() -> None:
    block = render(_items())
    assert block.startswith(BEGIN) and block.endswith(END)
    assert block.index("### About you") < block.index("Lisbon") < block.index("### Preferences")
    assert "- Alice: I prefer tea over coffee. [ref:it_a]" in block
    assert render(_items()) == block  # deterministic


def test_user_text_outside_the_block_is_kept_byte_for_byte(tmp_path: Path) -> None:
    f = tmp_path / "USER.md"
    mine_before = "# Me\n\nI write this part myself.  \n"
    f.write_text(mine_before, encoding="utf-8")
    assert write_profile(tmp_path, "USER.md", _items()) is True
    first = f.read_text(encoding="utf-8")
    assert first.startswith(mine_before) and "Lisbon" in first
    # the person edits above and below the block; memubot rewrites only the block
    edited = first.replace("# Me", "# Me (edited)") + "\nA footnote of mine.\n"
    f.write_text(edited, encoding="utf-8")
    assert write_profile(tmp_path, "USER.md", _items()[:1]) is True
    after = f.read_text(encoding="utf-8")
    assert after.startswith("# Me (edited)\n\nI write this part myself.  \n")
    assert after.endswith("\nA footnote of mine.\n")
    assert "Lisbon" not in after and "tea over coffee" in after
    assert write_profile(tmp_path, "USER.md", _items()[:1]) is False  # unchanged: not rewritten


def test_write_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    f = tmp_path / "USER.md"
    f.write_text("mine\n", encoding="utf-8")
    os.chmod(f, 0o600)
    inode = f.stat().st_ino
    write_profile(tmp_path, "USER.md", _items())
    assert f.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert f.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["USER.md"]  # no temporary file left


@pytest.mark.parametrize("name", ["../USER.md", "/etc/passwd", "sub/../../x.md", "."])
def test_paths_outside_the_directory_are_refused(tmp_path: Path, name: str) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with pytest.raises(InvalidInput, match="outside"):
        resolve_target(root, name)


def test_a_symlink_out_of_the_directory_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "USER.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(InvalidInput, match="outside"):
        write_profile(root, "USER.md", _items())
    assert not (tmp_path / "elsewhere.md").exists()


def test_broken_markers_are_not_clobbered() -> None:
    with pytest.raises(InvalidInput, match="without an end"):
        splice(f"mine\n{BEGIN}\nhalf a block\n", render(_items()))
    with pytest.raises(InvalidInput, match="without a begin"):
        splice(f"mine\n{END}\n", render(_items()))
    assert splice("", "B") == "B\n"
    assert splice("text", "B") == "text\n\nB\n"


def test_remembered_markers_are_escaped_and_line_endings_kept(tmp_path: Path) -> None:
    f = tmp_path / "USER.md"
    f.write_bytes(b"# Mine\r\nline two\r\n")
    sly = [{"id": "it_x", "category": "profile", "l0": "Alice: my bio ends with <!-- memubot:end --> oops"}]
    write_profile(tmp_path, "USER.md", sly)
    raw = f.read_bytes()
    assert raw.startswith(b"# Mine\r\nline two\r\n")  # CRLF kept byte for byte
    assert raw.count(b"<!-- memubot:end -->") == 1 and b"&lt;!-- memubot:end --&gt;" in raw
    write_profile(tmp_path, "USER.md", [])  # the block is replaced whole: nothing stale remains
    assert b"oops" not in f.read_bytes()
