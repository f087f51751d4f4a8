"""The CLI against a running daemon (send, stats, recall, deadletters, doctor) and without one."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from daemon.cli.main import main
from daemon.config import load_settings
from daemon.memory.store import SCHEMA_VERSION
from tests.daemon_harness import daemon_env
from tests.daemon_harness import running as daemon_running


def env(tmp_path: Path, nats_url: str) -> dict[str, str]:
    return daemon_env(tmp_path, nats_url, MEMUBOT_CONFIG=str(tmp_path / "none.toml"))


@pytest.fixture
async def running(
    tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[dict[str, str]]:
    values = env(tmp_path, nats_url)
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    async with daemon_running(load_settings(values)):
        yield values


async def cli(*argv: str) -> int:
    # the CLI runs its own event loop: give it a thread, as a shell would give it a process
    return await asyncio.to_thread(main, list(argv))


async def test_send_then_stats_recall_and_deadletters_through_the_daemon(
    running: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        await cli(
            "send", "My dentist is Dr. Okafor on Elm Street.", "--scope", "zoe", "--id", "c1", "--wait", "60"
        )
        == 0
    )
    assert capsys.readouterr().out.strip() == "c1"
    assert await cli("stats", "--scope", "zoe", "--json") == 0
    stats: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert stats["resources"] == 1 and stats["daemon"]["handled"] >= 1 and stats["scope"] == "zoe"
    assert await cli("recall", "who is my dentist?", "--scope", "zoe", "--json") == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert "Okafor" in hits[0]["text"]
    assert await cli("deadletters") == 0
    assert "no dead letters" in capsys.readouterr().out
    assert await cli("doctor") == 0
    out = capsys.readouterr().out
    assert "[ok ] daemon" in out and "1 resources" in out
    assert "[ok ] backlog" in out


async def test_without_a_daemon_the_cli_uses_the_file(
    tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for k, v in env(tmp_path, "nats://127.0.0.1:1").items():
        monkeypatch.setenv(k, v)
    assert await cli("send", "hello", "--scope", "zoe") == 1
    assert "no NATS server answers" in capsys.readouterr().err
    turns = tmp_path / "t.jsonl"
    turns.write_text(
        json.dumps(
            {
                "id": "f1",
                "scope": "zoe",
                "role": "user",
                "text": "I play cello in a quartet.",
                "ts": "2024-01-01T10:00:00Z",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert await cli("import", str(turns), "--quiet") == 0
    capsys.readouterr()
    assert await cli("stats", "--json") == 0
    assert json.loads(capsys.readouterr().out)["resources"] == 1
    assert await cli("doctor") == 0  # no daemon is a warning, not a failure
    out = capsys.readouterr().out
    assert "[warn] daemon" in out and "[ok ] model" in out and f"schema v{SCHEMA_VERSION}" in out
    assert "[ok ] github     webhook off: no secret" in out  # off by choice: said, not a failure
    assert "[ok ] gmail      trigger off: no scope" in out


async def test_the_example_main_agent_chats_recalls_and_shows_suggestions(running: dict[str, str]) -> None:
    import os
    import sys

    import nats

    script = Path(__file__).resolve().parents[2] / "examples" / "main_agent.py"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        "--scope",
        "zoe",
        "--session",
        "ex1",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, **running},
    )
    assert proc.stdin and proc.stdout
    out = b""

    async def read_until(marker: bytes) -> None:
        nonlocal out
        try:
            async with asyncio.timeout(60):
                while marker not in out:
                    chunk = await proc.stdout.read(4096)  # type: ignore[union-attr]
                    assert chunk, out.decode()  # the example exited early: show what it printed
                    out += chunk
        except TimeoutError:
            raise AssertionError(f"no {marker!r} in the example's output:\n{out.decode()}") from None

    await read_until(b"> ")
    proc.stdin.write(b"My favourite tea is genmaicha.\n")
    await read_until(b"(nothing remembered about that yet)\n> ")
    nc = await nats.connect(running["MEMUBOT_NATS_URL"])
    await nc.request("memubot.rpc.flush", b"{}", timeout=60)  # the daemon has stored the turn
    proc.stdin.write(b"Which tea do I like?\n")
    await read_until(b"My favourite tea is genmaicha.")  # stdin is not echoed: this is the recall
    assert b"(remembered)" in out.split(b"My favourite tea")[0]
    # a suggestion published by memubot reaches the agent while it waits for input
    body = json.dumps(
        {"id": "sg1", "scope": "zoe", "kind": "reminder", "title": "Tea", "body": "Restock genmaicha"}
    )
    await nc.jetstream().publish("memubot.out.suggestion.zoe", body.encode(), headers={"Nats-Msg-Id": "sg1"})
    await nc.close()
    await read_until(b"[reminder] Tea: Restock genmaicha")
    proc.stdin.write(b"/stats\n/quit\n")
    await read_until(b"memories")
    assert await asyncio.wait_for(proc.wait(), 30) == 0


async def test_deadletters_print_the_same_from_the_daemon_and_from_the_file(
    running: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    import nats

    nc = await nats.connect(running["MEMUBOT_NATS_URL"])
    await nc.jetstream().publish("memubot.in.conversation.main", b'{"id": "dl1", "scope": "zoe"}')
    await nc.request("memubot.rpc.flush", b"{}", timeout=60)
    await nc.close()
    assert await cli("deadletters") == 0
    from_daemon = capsys.readouterr().out
    assert await cli("deadletters", "--json") == 0
    json_from_daemon = json.loads(capsys.readouterr().out)
    [row] = json_from_daemon["dead_letters"]
    assert row["event_id"] == "dl1" and "missing required field" in row["reason"]
    # --db reads the file, never the daemon (in this one process DuckDB shares the open file)
    settings = load_settings(running)
    assert await cli("deadletters", "--db", str(settings.db_path)) == 0
    from_file = capsys.readouterr().out
    assert await cli("deadletters", "--db", str(settings.db_path), "--json") == 0
    json_from_file = json.loads(capsys.readouterr().out)
    assert from_file == from_daemon and json_from_file == json_from_daemon
    when = from_daemon.split()[1:3]
    assert len(when[0]) == 10 and when[1].endswith("Z") and len(when[1]) == 9  # 2024-05-01 10:00:00Z


async def test_a_daemon_unreachable_over_nats_is_named_not_a_duckdb_lock_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a real `memubot run` process holds the DuckDB file; then its broker goes away
    import os
    import signal
    import sys

    from daemon.client import runtime_info
    from daemon.runtime.broker import start_embedded
    from daemon.runtime.broker import stop as stop_server

    server = await start_embedded(tmp_path / "broker")
    values = env(tmp_path, server.url)
    settings = load_settings(values)
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("MEMUBOT_", "STATE_DIRECTORY", "XDG_"))}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "daemon",
        "run",
        env={**keep, **values},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(180):
            while (runtime_info(settings.state_dir) or {}).get("pid") != proc.pid:
                assert proc.returncode is None, "memubot run exited before READY"
                await asyncio.sleep(0.1)
        await stop_server(server)
        for k, v in values.items():
            monkeypatch.setenv(k, v)
        assert await cli("recall", "who is my dentist?", "--scope", "zoe") == 1
        err = capsys.readouterr().err
        assert f"the memubot daemon (pid {proc.pid}) is running" in err, err
        assert "does not answer over NATS" in err and "`memubot doctor`" in err
        assert "IO Error" not in err and "Conflicting lock" not in err
        assert await cli("stats") == 1
        assert f"pid {proc.pid}" in capsys.readouterr().err
        assert await cli("doctor") == 1
        out = capsys.readouterr().out
        assert f"[FAIL] daemon     pid {proc.pid} is running but does not answer over NATS" in out, out
        assert "[FAIL] database" in out and "Conflicting lock" not in out
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        await proc.wait()
        await stop_server(server)


def test_the_doctor_backlog_line_says_what_waits_and_whether_it_moves() -> None:
    from daemon.cli.bus import _backlog_line

    idle = {"unhandled": 0, "oldest_unhandled_age_s": 0.0, "since_progress_s": 0.0, "stalled": False}
    assert _backlog_line(idle) == "nothing waiting: every event received is handled"
    stuck = {"unhandled": 64, "oldest_unhandled_age_s": 1830.2, "since_progress_s": 1801.0, "stalled": True}
    line = _backlog_line(stuck)
    assert line.startswith(
        "64 events not yet handled, the oldest received 1830s ago; the last one handled 1801s ago"
    )
    assert "stalled" in line


async def test_importing_forgotten_turns_through_the_daemon_says_they_were_forgotten(
    running: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 22: `forget --all`, then the same file said "2 already stored" while stats said 0
    turns = tmp_path / "turns.jsonl"
    turns.write_text(
        "".join(
            json.dumps(
                {"id": f"f{n}", "scope": "fay", "role": "user", "text": text, "ts": "2024-03-01T09:00:00Z"}
            )
            + "\n"
            for n, text in enumerate(["I keep bees on the roof.", "My sister Ada lives in Porto."])
        ),
        encoding="utf-8",
    )
    assert await cli("import", str(turns), "--quiet") == 0
    assert await cli("forget", "--scope", "fay", "--all") == 0
    capsys.readouterr()
    assert await cli("import", str(turns), "--quiet") == 0
    out = capsys.readouterr().out
    assert "0 stored, 0 already stored, 2 forgotten" in out, out
    assert "2 of these turns were forgotten (`memubot forget`)" in out and "give their lines new ids" in out
    assert await cli("import", str(turns), "--json", "--quiet") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["forgotten"] == 2 and summary["already_stored"] == 0 and summary["resources_added"] == 0
