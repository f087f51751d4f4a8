"""The CLI beside a real `memubot run` process: forget, restore and consolidate go through the
daemon (which holds the DuckDB file), and a second `memubot run` says which daemon runs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from daemon.client import runtime_info
from daemon.config import load_settings
from tests.cli.test_cli_bus import cli, env


@dataclass
class Daemon:
    pid: int
    env: dict[str, str]


def _child_env(values: dict[str, str]) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("MEMUBOT_", "STATE_DIRECTORY", "XDG_"))}
    return {**keep, **values}


@pytest.fixture
async def daemon(tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Daemon]:
    # a separate process, as in use: it holds the DuckDB file's lock, so the CLI cannot succeed
    # by opening the file itself — only through the daemon
    values = env(tmp_path, nats_url)
    settings = load_settings(values)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "daemon",
        "run",
        env=_child_env(values),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(180):
            while (runtime_info(settings.state_dir) or {}).get("pid") != proc.pid:
                assert proc.returncode is None, "memubot run exited before READY"
                await asyncio.sleep(0.1)
        for k, v in values.items():
            monkeypatch.setenv(k, v)
        yield Daemon(proc.pid, values)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), 60)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def _send(text: str, scope: str, id: str, ts: str) -> None:
    assert await cli("send", text, "--scope", scope, "--id", id, "--ts", ts, "--wait", "120") == 0


async def _stats(scope: str, capsys: pytest.CaptureFixture[str]) -> dict[str, int]:
    assert await cli("stats", "--json") == 0
    whole = json.loads(capsys.readouterr().out)
    assert "daemon" in whole, "stats came from the daemon, not the file"
    code = await cli("stats", "--scope", scope, "--json")
    out = capsys.readouterr()
    if code != 0:  # the daemon refuses a scope it has nothing of: an empty scope
        assert f"no memories in scope {scope!r}" in out.err, out.err
        return {"resources": 0, "items": 0}
    return dict(json.loads(out.out))


async def test_forget_all_of_a_scope_while_the_daemon_runs(
    daemon: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    await _send("My dentist is Dr. Okafor on Elm Street.", "zoe", "z1", "2024-05-01T10:00:00Z")
    await _send("Our cat is called Miso.", "zoe", "z2", "2024-05-01T10:01:00Z")
    await _send("I play cello in a quartet.", "ann", "a1", "2024-05-01T10:02:00Z")
    capsys.readouterr()
    assert (await _stats("zoe", capsys))["resources"] == 2

    # a dry run counts through the daemon and deletes nothing
    assert await cli("forget", "--scope", "zoe", "--all", "--dry-run", "--json") == 0
    dry = json.loads(capsys.readouterr().out)
    assert dry["dry_run"] is True and dry["resources"] == 2
    assert (await _stats("zoe", capsys))["resources"] == 2

    assert await cli("forget", "--scope", "zoe", "--all") == 0
    out = capsys.readouterr()
    assert out.out.startswith("zoe: deleted ") and "2 resources" in out.out, out
    assert "does not answer" not in out.err
    assert (await _stats("zoe", capsys)) == {"resources": 0, "items": 0}
    assert (await _stats("ann", capsys))["resources"] == 1, "another scope is untouched"

    # the other forms: by query, then by item id
    await _send("I swim at the lido every Thursday.", "ann", "a2", "2024-05-02T10:00:00Z")
    capsys.readouterr()
    assert await cli("forget", "--scope", "ann", "--query", "lido Thursday", "--json") == 0
    assert json.loads(capsys.readouterr().out)["resources"] == 1
    assert await cli("recall", "where do I swim?", "--scope", "ann", "--json", "--no-reinforce") == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and all("lido" not in h["text"] for h in hits)
    assert await cli("forget", "--scope", "ann", "--item", hits[0]["item_id"], "--json") == 0
    assert json.loads(capsys.readouterr().out)["items"] == 1

    # a scope with nothing in it is said so, not a lock error
    assert await cli("forget", "--scope", "nobody", "--all") == 1
    assert "no memories in scope 'nobody'" in capsys.readouterr().err


async def test_restore_and_consolidate_while_the_daemon_runs(
    daemon: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    # a move said in so many words retires the old home (tests/memory/test_nothing_lost.py; an
    # indirect one, "got the keys to our new house in Leeds", is kept beside it since the slot
    # route is off, docs/understanding.md)
    await _send("I live in a small flat in Bristol, near the harbour.", "alice", "h1", "2024-01-01T10:00:00Z")
    await _send("I don't live in Bristol any more, we moved to Leeds.", "alice", "h2", "2024-02-10T10:00:00Z")
    capsys.readouterr()
    assert await cli("recall", "where do I live?", "--scope", "alice", "--explain", "--json") == 0
    [retired] = json.loads(capsys.readouterr().out)["retired"]
    assert "Bristol" in retired["text"]

    assert await cli("restore", "--scope", "alice", "--item", retired["item_id"]) == 0
    assert capsys.readouterr().out.strip() == f"restored {retired['item_id']}"
    assert await cli("recall", "where do I live?", "--scope", "alice", "--explain", "--json") == 0
    assert json.loads(capsys.readouterr().out)["retired"] == []

    assert await cli("restore", "--scope", "alice", "--item", retired["item_id"]) == 1
    assert "is neither retired nor archived" in capsys.readouterr().err
    assert await cli("restore", "--scope", "alice", "--item", "no-such-item") == 1
    err = capsys.readouterr().err
    assert "no item 'no-such-item' in scope 'alice'" in err and "archived" not in err, err

    # consolidate is a request too: fourteen months later an ordinary event has faded and is
    # archived (tests/cli/test_cli.py's file-path case)
    await _send("I painted a sunrise over the lake last week.", "mel", "m1", "2023-05-08T13:57:30Z")
    capsys.readouterr()
    assert await cli("consolidate", "--scope", "mel", "--at", "2024-07-08T00:00:00Z", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["scopes"]) == {"mel"} and report["scopes"]["mel"]["archived"] >= 1, report
    assert await cli("stats", "--scope", "mel", "--json") == 0
    assert json.loads(capsys.readouterr().out)["items_archived"] >= 1


async def test_a_second_run_names_the_daemon_that_runs(
    daemon: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "daemon",
        "run",
        env=_child_env(daemon.env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 120)
    message = err.decode()
    assert proc.returncode == 1
    info = runtime_info(Path(daemon.env["MEMUBOT_STATE_DIR"]))
    assert info is not None
    assert f"a memubot daemon is already running (pid {daemon.pid}" in message, message
    assert info["nats_url"] in message and info["http"] in message
    assert "does not answer" not in message
    # the first one is untouched and still answers
    assert await cli("stats", "--json") == 0
    assert "daemon" in json.loads(capsys.readouterr().out)


async def test_a_command_that_reads_the_file_says_the_daemon_answers(
    daemon: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    await _send("My dentist is Dr. Okafor on Elm Street.", "zoe", "z1", "2024-05-01T10:00:00Z")
    capsys.readouterr()
    db = Path(daemon.env["MEMUBOT_STATE_DIR"]) / "memubot.duckdb"
    assert await cli("stats", "--db", str(db)) == 1
    err = capsys.readouterr().err
    assert f"the memubot daemon (pid {daemon.pid}) is running" in err, err
    assert "does not answer" not in err and "reads the file itself" in err


async def test_import_goes_through_the_daemon_with_progress(
    daemon: Daemon, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        json.dumps(
            {"id": f"i{n}", "scope": "kim", "role": "user", "text": text, "ts": f"2024-03-0{n}T09:00:00Z"}
        )
        for n, text in enumerate(
            ["I keep bees on the roof.", "My sister Ada lives in Porto.", "I am learning the oboe."], start=1
        )
    ]
    lines.insert(2, '{"id": "bad", "scope": "kim"')  # line 3: not JSON
    turns = tmp_path / "turns.jsonl"
    turns.write_text("\n".join(lines) + "\n", encoding="utf-8")

    assert await cli("import", str(turns), "--json") == 0
    out = capsys.readouterr()
    summary = json.loads(out.out)
    assert summary["through_daemon"] is True and summary["resources_added"] == 3 and summary["bad_lines"] == 1
    assert f"{turns}:3: skipped:" in out.err and "importing: 4/4" in out.err, out.err
    assert (await _stats("kim", capsys))["resources"] == 3
    assert await cli("recall", "who lives in Porto?", "--scope", "kim", "--json") == 0
    assert "Ada" in json.loads(capsys.readouterr().out)["hits"][0]["text"]

    # the same file again adds nothing; --strict makes the bad line an exit 1
    assert await cli("import", str(turns), "--quiet", "--strict") == 1
    out = capsys.readouterr()
    assert "through the running daemon" in out.out and "0 stored, 3 already stored" in out.out, out.out
    assert (await _stats("kim", capsys))["resources"] == 3
