"""`memubot mcp` driven by the MCP SDK's own client over stdio (a real subprocess), against the
whole daemon on a real nats-server: remember, recall, forget, the scope that cannot be changed,
and a clear error when no daemon runs."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextResourceContents

from daemon.client import Client as BusClient
from daemon.config import Settings, load_settings
from daemon.events import tick_body
from tests.daemon_harness import daemon_env, running

ROOT = Path(__file__).resolve().parents[2]


def env_for(tmp_path: Path, nats_url: str) -> dict[str, str]:
    return daemon_env(tmp_path, nats_url, MEMUBOT_CONFIG=str(tmp_path / "none.toml"))


@pytest.fixture
async def daemon(tmp_path: Path, nats_url: str) -> AsyncIterator[Settings]:
    settings = load_settings(env_for(tmp_path, nats_url))
    async with running(settings):
        yield settings


@asynccontextmanager
async def mcp_server(env: dict[str, str], *args: str, mode: str = "legacy") -> AsyncIterator[Client]:
    """`python -m daemon mcp ARGS` as a subprocess, connected over stdio. "legacy" is the
    initialize handshake today's clients (Claude Code, Cursor, Claude Desktop) speak."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "daemon", "mcp", *args], env=env, cwd=ROOT
    )
    async with asyncio.timeout(180), Client(params, mode=mode) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    [content] = result.content
    assert content.type == "text"
    return content.text


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, text_of(result)
    body = json.loads(text_of(result))
    assert isinstance(body, dict)
    return body


async def call_error(client: Client, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, text_of(result)
    return text_of(result)


async def test_remember_recall_forget_recall_again(daemon: Settings, tmp_path: Path, nats_url: str) -> None:
    async with mcp_server(env_for(tmp_path, nats_url), "--scope", "alice") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"recall", "remember", "forget", "restore", "stats", "suggestions", "feedback"}
        for tool in tools.values():
            assert "scope" not in tool.input_schema.get("properties", {}), tool.name
            assert tool.description
        assert tools["recall"].input_schema["required"] == ["query"]
        assert tools["forget"].annotations is not None and tools["forget"].annotations.destructive_hint

        # nothing stored yet: no memories, not a failure
        empty = await call(client, "recall", {"query": "who is my dentist?"})
        assert empty["hits"] == [] and "alice" in empty["note"]

        note = await call(client, "remember", {"text": "My dentist is Dr. Okafor on Elm Street."})
        assert [r["outcome"] for r in note["results"]] == ["stored"] and note["scope"] == "alice"
        turns = [
            {"role": "user", "text": "We adopted a grey cat called Miso last spring.", "speaker": "Alice"},
            {"role": "assistant", "text": "Miso is a lovely name for a cat!"},
        ]
        conversation = await call(client, "remember", {"turns": turns, "session": "chat-1"})
        assert [r["outcome"] for r in conversation["results"]] == ["stored", "stored"]
        # a retried call (same content) stores nothing twice
        again = await call(client, "remember", {"text": "My dentist is Dr. Okafor on Elm Street."})
        assert [r["outcome"] for r in again["results"]] == ["duplicate"]
        assert again["results"][0]["id"] == note["results"][0]["id"]
        retried = await call(client, "remember", {"turns": turns, "session": "chat-1"})
        assert [r["outcome"] for r in retried["results"]] == ["duplicate", "duplicate"]
        # a turn's own id: stable for a retry, and namespaced (bob's "b1" below is not this one)
        own = [{"role": "user", "text": "I swim on Thursdays.", "id": "b1"}]
        first = (await call(client, "remember", {"turns": own}))["results"][0]
        assert first["outcome"] == "stored" and first["id"] != "b1"
        assert (await call(client, "remember", {"turns": own}))["results"][0]["outcome"] == "duplicate"

        listed = await call(client, "suggestions", {"status": "pending"})
        assert listed["scope"] == "alice" and isinstance(listed["suggestions"], list)
        assert "status" in await call_error(client, "suggestions", {"status": "sent"})

        stats = await call(client, "stats", {})
        assert stats["resources"] == 4 and stats["daemon"]["dead_letters"] == 0

        found = await call(client, "recall", {"query": "who is my dentist?", "k": 3, "explain": True})
        assert found["scope"] == "alice"
        top = found["hits"][0]
        assert "Okafor" in top["text"] and top["source_ids"] == [note["results"][0]["id"]]
        assert top["trace"], "explain adds the stage scores"
        cat = await call(client, "recall", {"query": "what is our cat called?", "k": 3})
        assert any("Miso" in h["text"] for h in cat["hits"])

        dry = await call(client, "forget", {"item_id": top["item_id"], "dry_run": True})
        assert dry["dry_run"] is True and dry["deleted"]["items"] == 1
        still = await call(client, "recall", {"query": "who is my dentist?", "k": 3})
        assert any("Okafor" in h["text"] for h in still["hits"]), "a dry run deletes nothing"

        gone = await call(client, "forget", {"item_id": top["item_id"]})
        assert gone["dry_run"] is False and gone["deleted"]["items"] == 1
        after = await call(client, "recall", {"query": "who is my dentist?", "k": 10})
        assert not any("Okafor" in h["text"] for h in after["hits"])
        cat = await call(client, "recall", {"query": "what is our cat called?", "k": 3})
        assert any("Miso" in h["text"] for h in cat["hits"]), "forgetting one memory keeps the others"

        # restore: nothing retired or archived to undo is a tool error with the daemon's reason
        message = await call_error(client, "restore", {"item_id": cat["hits"][0]["item_id"]})
        assert "is neither retired nor archived" in message

        # the daemon's refusals come back as tool errors with its message
        message = await call_error(client, "forget", {"item_id": "no-such-item", "query": "cat"})
        assert "exactly one of" in message
        message = await call_error(
            client, "remember", {"turns": [{"role": "user", "text": "hi", "ts": "yesterday"}]}
        )
        assert "'turns[0].ts'" in message, message


async def test_the_scope_comes_from_the_server_never_from_the_model(
    daemon: Settings, tmp_path: Path, nats_url: str
) -> None:
    async with await BusClient.connect(nats_url) as bus:
        ts = "2024-02-01T09:00:00+00:00"
        stored = await bus.memorize(
            [
                {
                    "id": "b1",
                    "scope": "bob",
                    "role": "user",
                    "text": "My bank PIN hint is the blue door.",
                    "ts": ts,
                }
            ]
        )
        assert stored[0]["outcome"] == "stored"
    env = {**env_for(tmp_path, nats_url), "MEMUBOT_MCP_SCOPE": "alice"}
    async with mcp_server(env) as client:  # no --scope: MEMUBOT_MCP_SCOPE names it
        await call(client, "remember", {"text": "My front door is painted green."})
        for tool, args in [
            ("recall", {"query": "what is my PIN hint?", "scope": "bob"}),
            ("stats", {"scope": "bob"}),
            ("forget", {"all": True, "scope": "bob"}),
            ("remember", {"text": "I owe Alice 50 euros.", "scope": "bob"}),
        ]:
            message = await call_error(client, tool, args)
            assert "unknown argument 'scope'" in message and "fixed by the server's configuration" in message
        # nor can a turn carry one
        message = await call_error(
            client, "remember", {"turns": [{"role": "user", "text": "x", "scope": "bob"}]}
        )
        assert "scope" in message
        hits = (await call(client, "recall", {"query": "what is my PIN hint? blue door", "k": 10}))["hits"]
        assert hits and all("PIN" not in h["text"] for h in hits)
        assert (await call(client, "stats", {}))["resources"] == 1
    # --scope wins over the environment
    async with mcp_server(env, "--scope", "bob") as client:
        hits = (await call(client, "recall", {"query": "what is my PIN hint?", "k": 3}))["hits"]
        assert "blue door" in hits[0]["text"]
    async with await BusClient.connect(nats_url) as bus:
        assert (await bus.stats("bob"))["resources"] == 1, "bob's memory was neither written nor forgotten"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_without_a_daemon_every_tool_says_so(tmp_path: Path, nats_url: str) -> None:
    nobody = f"nats://127.0.0.1:{free_port()}"
    # "auto": the SDK's own default, which probes the 2026 protocol before the handshake
    async with mcp_server(env_for(tmp_path, nobody), "--scope", "alice", mode="auto") as client:
        assert {t.name for t in (await client.list_tools()).tools} >= {"recall", "remember"}
        for tool, args in [
            ("recall", {"query": "who is my dentist?"}),
            ("remember", {"text": "My dentist is Dr. Okafor."}),
            ("stats", {}),
            ("feedback", {"suggestion_id": "s1", "verdict": "accepted"}),
        ]:
            message = await call_error(client, tool, args)
            assert "memubot daemon not reachable" in message and nobody in message, message
            assert "`memubot run`" in message
    # a broker that answers, with no daemon behind it
    async with mcp_server(env_for(tmp_path, nats_url), "--scope", "alice") as client:
        message = await call_error(client, "recall", {"query": "who is my dentist?"})
        assert "memubot daemon not reachable" in message and "no daemon listens" in message, message
        message = await call_error(client, "feedback", {"suggestion_id": "s1", "verdict": "dismissed"})
        assert "memubot daemon not reachable" in message, message


async def test_feedback_reaches_the_daemon_once(tmp_path: Path, nats_url: str, embedder: Any) -> None:
    from daemon.memory import Memory, MemoryParams
    from daemon.state.suggestions import Suggestion

    settings = load_settings(env_for(tmp_path, nats_url))
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    made = Suggestion(
        scope="alice",
        kind="reminder",
        predictor="upcoming",
        dedup_key="k1",
        about="item:i1",
        title="Dentist",
        body="at 10",
        created_at=datetime(2024, 3, 1, 9, 0, tzinfo=UTC),
        deliver_at=datetime(2099, 3, 1, 9, 0, tzinfo=UTC),  # not due: nothing is delivered meanwhile
    )
    memory = Memory.open(settings.db_path, embedder, MemoryParams())
    try:
        memory.suggestions.propose([made])
    finally:
        memory.close()
    async with running(settings), await BusClient.connect(nats_url) as bus:
        handled = (await bus.stats())["daemon"]["handled"]
        async with mcp_server(env_for(tmp_path, nats_url), "--scope", "alice") as client:
            args = {"suggestion_id": made.id, "verdict": "snoozed", "until": "2024-03-02T09:00:00+01:00"}
            first = await call(client, "feedback", args)
            assert first["queued"] is True
            assert (await call(client, "feedback", args))["duplicate"] is True
            message = await call_error(client, "feedback", {**args, "verdict": "accepted"})
            assert "'until' goes with verdict 'snoozed' only" in message
            message = await call_error(client, "feedback", {"suggestion_id": made.id, "verdict": "maybe"})
            assert "verdict" in message
            # a suggestion that does not exist (or is another person's) is an error, not "queued"
            message = await call_error(
                client, "feedback", {"suggestion_id": "sug-404", "verdict": "accepted"}
            )
            assert message.endswith(
                "no suggestion 'sug-404' for this person: the `suggestions` tool lists their ids"
            ), message
        await bus.flush(timeout=60)
        stats = await bus.stats()
        assert stats["daemon"]["handled"] == handled + 1 and stats["daemon"]["dead_letters"] == 0


async def test_resources_show_the_category_summaries_and_the_profile_block(
    daemon: Settings, tmp_path: Path, nats_url: str
) -> None:
    async with mcp_server(env_for(tmp_path, nats_url), "--scope", "alice") as client:
        await call(client, "remember", {"text": "I'm allergic to peanuts."})
        async with await BusClient.connect(nats_url) as bus:
            # the daily consolidation writes the category summaries
            await bus.publish("memubot.in.tick.consolidate", tick_body("consolidate", datetime.now(UTC)))
            await bus.flush(timeout=60)
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert listed == {"memubot://profile", "memubot://categories"}
        [categories] = (await client.read_resource("memubot://categories")).contents
        assert isinstance(categories, TextResourceContents)
        summaries = json.loads(categories.text)
        assert any("peanuts" in c["summary"] for c in summaries), summaries
        [profile] = (await client.read_resource("memubot://profile")).contents
        assert isinstance(profile, TextResourceContents)
        assert profile.text.startswith("<!-- memubot:begin") and profile.text.endswith("<!-- memubot:end -->")


async def test_streamable_http_on_loopback(daemon: Settings, tmp_path: Path, nats_url: str) -> None:
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "daemon",
        "mcp",
        "--scope",
        "alice",
        "--http",
        f"127.0.0.1:{port}",
        env={**env_for(tmp_path, nats_url), "PATH": "/usr/bin:/bin"},
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(120):
            while True:  # wait for the port to accept a connection
                assert proc.returncode is None, await proc.stderr.read()  # type: ignore[union-attr]
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                    writer.close()
                    break
                except OSError:
                    await asyncio.sleep(0.1)
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
                await call(client, "remember", {"text": "My dentist is Dr. Okafor on Elm Street."})
                hits = (await call(client, "recall", {"query": "who is my dentist?"}))["hits"]
                assert "Okafor" in hits[0]["text"]
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 30)


async def test_the_http_transport_refuses_a_non_loopback_address(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "daemon",
        "mcp",
        "--scope",
        "alice",
        "--http",
        "0.0.0.0:8766",
        env={**env_for(tmp_path, "nats://127.0.0.1:1"), "PATH": "/usr/bin:/bin"},
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 1 and not out
    assert b"loopback only" in err


async def test_no_scope_is_an_error_before_serving(tmp_path: Path) -> None:
    for args, expected in [((), b"no scope"), (("--scope", "a.b"), b"--scope")]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "daemon",
            "mcp",
            *args,
            env={**env_for(tmp_path, "nats://127.0.0.1:1"), "PATH": "/usr/bin:/bin"},
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        assert proc.returncode in (1, 2) and not out and expected in err, err


async def test_doctor_reports_the_mcp_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from daemon.cli.main import main

    for k, v in env_for(tmp_path, "nats://127.0.0.1:1").items():
        monkeypatch.setenv(k, v)
    assert await asyncio.to_thread(main, ["doctor"]) == 0
    assert "[ok ] mcp        no scope configured: `memubot mcp` needs --scope" in capsys.readouterr().out
    monkeypatch.setenv("MEMUBOT_MCP_SCOPE", "alice")
    assert await asyncio.to_thread(main, ["doctor"]) == 0
    assert "[ok ] mcp        `memubot mcp` serves scope alice" in capsys.readouterr().out


def test_the_mcp_scope_setting_is_checked_like_every_scope(tmp_path: Path) -> None:
    from daemon.errors import ConfigError

    base = env_for(tmp_path, "nats://127.0.0.1:1")
    assert load_settings({**base, "MEMUBOT_MCP_SCOPE": "alice"}).mcp_scope == "alice"
    assert load_settings(base).mcp_scope is None
    with pytest.raises(ConfigError, match="MEMUBOT_MCP_SCOPE"):
        load_settings({**base, "MEMUBOT_MCP_SCOPE": "alice.*"})


async def test_the_docs_document_every_tool_argument_and_resource(tmp_path: Path) -> None:
    from daemon.mcp.server import build_server

    page = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    server = build_server(load_settings(env_for(tmp_path, "nats://127.0.0.1:1")), "alice")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \| (.*) \|$", page, flags=re.M)}
    tools = await server.list_tools()
    for tool in tools:
        assert tool.name in rows, f"docs/mcp.md has no row for tool {tool.name}"
        for argument in tool.input_schema.get("properties", {}):
            assert f"`{argument}`" in rows[tool.name], f"docs/mcp.md: {tool.name} lacks argument {argument}"
    for resource in await server.list_resources():
        assert f"`{resource.uri}`" in page
    # the README's one MCP line names every tool
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = readme[readme.index("\n## MCP\n") :].split("\n## ", 2)[1]
    for tool in tools:
        assert f"`{tool.name}`" in line, f"README's MCP section does not name {tool.name}"


async def test_a_restarted_daemon_is_found_again_without_restarting_the_server(
    tmp_path: Path, nats_url: str
) -> None:
    settings = load_settings(env_for(tmp_path, nats_url))
    async with mcp_server(env_for(tmp_path, nats_url), "--scope", "alice") as client:
        async with running(settings):
            await call(client, "remember", {"text": "My dentist is Dr. Okafor on Elm Street."})
        message = await call_error(client, "stats", {})
        assert "memubot daemon not reachable" in message and "no daemon listens" in message, message
        async with running(settings):
            hits = (await call(client, "recall", {"query": "who is my dentist?"}))["hits"]
            assert "Okafor" in hits[0]["text"]


async def test_a_deeply_nested_message_or_argument_never_stops_the_server(tmp_path: Path) -> None:
    """MCP's own parser (pydantic-core) bounds the depth of a message, and the line it refuses
    is answered with a parse error; a tool's arguments are typed, so a nested value is refused by
    name; what a tool forwards goes through the daemon's RPC bound. Raw JSON-RPC lines on stdio,
    as a hostile client would write them."""
    nobody = f"nats://127.0.0.1:{free_port()}"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "daemon",
        "mcp",
        "--scope",
        "alice",
        env=env_for(tmp_path, nobody),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def send(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line.encode() + b"\n")
        await proc.stdin.drain()

    async def reply() -> dict[str, Any]:
        assert proc.stdout is not None
        return dict(json.loads(await asyncio.wait_for(proc.stdout.readline(), 120)))

    def call_line(rid: int, query: str) -> str:
        return (
            f'{{"jsonrpc": "2.0", "id": {rid}, "method": "tools/call", '
            f'"params": {{"name": "recall", "arguments": {{"query": {query}}}}}}}'
        )

    try:
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        await send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
        assert (await reply())["id"] == 1
        await send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        await send(call_line(2, "[" * 5000 + "]" * 5000))  # 10 KB, 5,000 levels: refused by the parser
        await send(call_line(3, "[" * 150 + "]" * 150))  # parses; the argument is not a string
        await send(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}))
        replies = [await reply() for _ in range(3)]  # the parse error may come before or after
        by_id = {r["id"]: r for r in replies}
        # the line the parser refused is answered (it was dropped without a word: a client would
        # wait forever on id 2), with id null as JSON-RPC has it for a line it cannot read
        assert by_id[None]["error"] == {
            "code": -32700,
            "message": "Parse error: message is nested deeper than 64 levels",
        }
        typed, listed = by_id[3], by_id[4]
        assert typed["id"] == 3 and typed["result"]["isError"] is True
        assert "query" in typed["result"]["content"][0]["text"]
        assert listed["id"] == 4 and any(t["name"] == "recall" for t in listed["result"]["tools"])
    finally:
        proc.kill()
        await proc.wait()


async def test_mcp_help_names_every_tool_the_server_registers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from daemon.cli.main import main
    from daemon.mcp.server import build_server

    server = build_server(load_settings(env_for(tmp_path, "nats://127.0.0.1:1")), "alice")
    names = [t.name for t in await server.list_tools()]
    assert len(names) == 7
    with pytest.raises(SystemExit):
        await asyncio.to_thread(main, ["mcp", "--help"])  # the help runs its own event loop
    shown = " ".join(capsys.readouterr().out.split())
    assert f"with the tools {', '.join(names)}, asking the running daemon" in shown, shown


async def test_a_wrong_argument_is_one_line_naming_the_field_and_what_is_expected(tmp_path: Path) -> None:
    # issue 22: these were pydantic's multi-line dumps with links to its documentation
    nobody = f"nats://127.0.0.1:{free_port()}"  # refused before any request: no daemon needed
    async with mcp_server(env_for(tmp_path, nobody), "--scope", "alice") as client:
        cases = [
            ("remember", {"text": 5}, "remember: 'text' should be a valid string, got 5"),
            (
                "remember",
                {"turns": [{"role": "narrator", "text": "hi"}]},
                "remember: 'turns[0].role' should be 'user', 'assistant', 'system' or 'tool', got 'narrator'",
            ),
            (
                "recall",
                {"query": "dentist", "k": 0},
                "recall: 'k' should be greater than or equal to 1, got 0",
            ),
            ("recall", {}, "recall: 'query' is required"),
            (
                "feedback",
                {"suggestion_id": "s1", "verdict": "maybe"},
                "feedback: 'verdict' should be 'accepted', 'dismissed' or 'snoozed', got 'maybe'",
            ),
        ]
        for tool, args, expected in cases:
            assert await call_error(client, tool, args) == expected
