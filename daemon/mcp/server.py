"""The MCP server: one person's memory as Model Context Protocol tools, over the daemon's RPC.

`memubot mcp --scope alice` speaks MCP on stdin/stdout (or streamable HTTP on loopback) and
turns each tool call into one request to the running daemon on `memubot.rpc.<verb>`: the
daemon owns the DuckDB file, so this process holds no memory of its own. The scope is the
server's configuration (`--scope` / `MEMUBOT_MCP_SCOPE`), never an argument: no tool has a
`scope` parameter, and an argument a tool does not declare is refused by name, so a prompt
cannot read or change another person's memory.

Tool results are JSON text; a failure (no daemon, a refused request) is an MCP tool error
(`isError: true`) carrying the daemon's message.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import sys
from collections.abc import AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from io import TextIOWrapper
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import mcp_types
import nats.errors
import nats.js.errors
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from daemon import __version__, bounded_json
from daemon.client import RpcError
from daemon.config import Settings
from daemon.errors import InvalidEvent, MemubotError
from daemon.events import parse_ts
from daemon.mcp.link import DaemonLink
from daemon.subjects import FEEDBACK

log = logging.getLogger(__name__)

AGENT = "mcp"  # the turns' `agent` field: their subject is memubot.in.conversation.mcp

INSTRUCTIONS = """\
memubot is this person's long-term memory. Call `recall` before answering anything that may
depend on what they told you earlier (people, plans, preferences, dates). Call `remember` with
what they tell you about themselves that is worth keeping (or with the conversation's turns).
`forget` deletes for good: use `dry_run` first and only when the person asks. All tools work
on one person's memory, chosen when this server was started."""


def stable_id(*parts: object) -> str:
    """An event id derived from what was sent: a retried call sends the same id, stored once."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()
    return f"{AGENT}-{digest[:32]}"


def _now() -> str:
    return datetime.now(UTC).isoformat()


class Turn(BaseModel):
    """One conversation turn for `remember`."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "system", "tool"] = Field(description="who spoke")
    text: str = Field(min_length=1, description="what was said")
    ts: str | None = Field(
        default=None,
        description="when, ISO-8601 with an offset (default: now)",
        examples=["2024-05-08T13:57:00Z"],
    )
    speaker: str | None = Field(default=None, description="the speaker's name, e.g. the person's first name")
    id: str | None = Field(
        default=None,
        description="your own stable id for the turn, so a retry stores it once "
        "(default: derived from the session, position and text)",
    )


def _tool_error(exc: Exception) -> ToolError:
    if isinstance(exc, RpcError):
        return ToolError(f"{exc.kind}: {exc.message}")
    return ToolError(str(exc) or type(exc).__name__)


def build_server(settings: Settings, scope: str) -> MCPServer[Any]:
    """The MCP server for `scope`; every tool asks the daemon found through `settings`."""
    link = DaemonLink(settings)

    async def ask(verb: str, body: dict[str, Any]) -> Any:
        try:
            return await link.request(verb, {k: v for k, v in body.items() if v is not None})
        except (MemubotError, TimeoutError) as exc:
            raise _tool_error(exc) from exc

    @asynccontextmanager
    async def lifespan(_: MCPServer[Any]) -> AsyncIterator[None]:
        try:
            yield None
        finally:
            await link.close()

    server: MCPServer[Any] = MCPServer(
        "memubot",
        title=f"memubot ({scope})",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        log_level="WARNING",
    )
    server.middleware.append(ArgumentCheck(server))

    @server.tool(
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False), structured_output=False
    )
    async def recall(
        query: Annotated[str, Field(min_length=1, max_length=2000, description="the question or cue")],
        k: Annotated[int, Field(ge=1, le=200, description="how many memories at most")] = 10,
        session: Annotated[
            str | None, Field(description="the live session's id, so its latest turns count too")
        ] = None,
        explain: Annotated[bool, Field(description="add each hit's score after every recall stage")] = False,
    ) -> str:
        """The person's memories that answer `query`, best first: each hit has its `item_id` (what
        `forget` takes), text, category, when it happened, score and the ids of its source turns."""
        body = {"scope": scope, "query": query, "k": k, "session": session, "explain": explain}
        try:
            result = await link.request("recall", {k_: v for k_, v in body.items() if v is not None})
        except RpcError as exc:
            if exc.kind != "not_found":
                raise _tool_error(exc) from exc
            # a scope with nothing stored yet: for an agent that is "no memories", not a failure
            result = {"hits": [], "note": exc.message}
        except (MemubotError, TimeoutError) as exc:
            raise _tool_error(exc) from exc
        return json.dumps(result, ensure_ascii=False)

    @server.tool(
        annotations=ToolAnnotations(idempotent_hint=True, open_world_hint=False), structured_output=False
    )
    async def remember(
        text: Annotated[
            str | None, Field(min_length=1, description="a note, stored as the person's own statement, now")
        ] = None,
        turns: Annotated[
            list[Turn] | None, Field(min_length=1, max_length=512, description="conversation turns to store")
        ] = None,
        session: Annotated[str | None, Field(description="the conversation's id (groups its turns)")] = None,
    ) -> str:
        """Store a note (`text`) or conversation turns (`turns`), exactly one of them, the way every
        turn is memorized: deduplicated, superseded by newer facts, forgettable. Ids are derived
        from the content, so retrying a call stores nothing twice (outcome `duplicate`)."""
        if (text is None) == (turns is None):
            raise ToolError("remember needs exactly one of: 'text', 'turns'")
        now = _now()
        if text is not None:
            events = [
                _event(stable_id(scope, session, "note", text), scope, session, "user", text, now, None)
            ]
        else:
            assert turns is not None
            events = []
            for i, t in enumerate(turns):
                if t.ts is not None:
                    try:
                        parse_ts(t.ts, f"turns[{i}].ts")
                    except InvalidEvent as exc:
                        raise ToolError(str(exc)) from exc
                # a given id is namespaced by the scope too: the ledger's ids span every scope, and
                # a bare one could collide with (and so reveal) another person's event
                event_id = (
                    stable_id(scope, "id", t.id)
                    if t.id
                    else stable_id(scope, session, i, t.role, t.text, t.ts or "")
                )
                events.append(_event(event_id, scope, session, t.role, t.text, t.ts or now, t.speaker))
        result = await ask("memorize", {"turns": events})
        failed = [r for r in result["results"] if r["outcome"] == "dead_letter"]
        if failed:
            reasons = "; ".join(f"{r['id']}: {r['reason']}" for r in failed)
            raise ToolError(f"not stored: {reasons} (the other turns were; a retry stores nothing twice)")
        return json.dumps({"scope": scope, **result}, ensure_ascii=False)

    @server.tool(
        annotations=ToolAnnotations(destructive_hint=True, open_world_hint=False), structured_output=False
    )
    async def forget(
        item_id: Annotated[
            str | None, Field(min_length=1, description="one memory's id (a recall hit's `item_id`)")
        ] = None,
        query: Annotated[
            str | None, Field(min_length=1, description="every memory and turn containing all these words")
        ] = None,
        all: Annotated[bool, Field(description="everything in this person's memory")] = False,
        dry_run: Annotated[bool, Field(description="only count what would be deleted")] = False,
    ) -> str:
        """Delete memories for good (the privacy path): exactly one of `item_id`, `query`, `all`.
        Returns how many rows went from each table; with `dry_run`, how many would."""
        if sum([item_id is not None, query is not None, all]) != 1:
            raise ToolError("forget needs exactly one of: 'item_id', 'query', 'all'")
        body = {"scope": scope, "items": [item_id] if item_id else None, "query": query, "dry_run": dry_run}
        return json.dumps(await ask("forget", {**body, "all": all or None}), ensure_ascii=False)

    @server.tool(
        annotations=ToolAnnotations(idempotent_hint=True, open_world_hint=False), structured_output=False
    )
    async def restore(
        item_id: Annotated[
            str, Field(min_length=1, description="the id of a retired or archived memory (see the inspector)")
        ],
    ) -> str:
        """Undo: put a memory that was retired (replaced by a newer statement) or archived (faded)
        back into recall. Use it when the person says an older fact still holds."""
        return json.dumps(await ask("restore", {"scope": scope, "item": item_id}), ensure_ascii=False)

    @server.tool(
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False), structured_output=False
    )
    async def stats() -> str:
        """Counts of this person's memory (turns, memories by category and tier) and the daemon's
        state (events handled, pending, dead letters)."""
        return json.dumps(await ask("stats", {"scope": scope}), ensure_ascii=False)

    @server.tool(
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False), structured_output=False
    )
    async def suggestions(
        status: Annotated[
            Literal["pending", "delivered", "withdrawn", "expired"] | None,
            Field(description="only these (default: all)"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="how many at most, newest first")] = 20,
    ) -> str:
        """What memubot means to say or has said to this person, newest first: reminders,
        follow-ups, conflicts, digests, each with its `id` (what `feedback` takes), status
        (pending / delivered / withdrawn / expired), why it was withdrawn, and its evidence."""
        return json.dumps(
            await ask("suggestions", {"scope": scope, "status": status, "limit": limit}), ensure_ascii=False
        )

    @server.tool(
        annotations=ToolAnnotations(idempotent_hint=True, open_world_hint=False), structured_output=False
    )
    async def feedback(
        suggestion_id: Annotated[str, Field(min_length=1, description="the suggestion's `id`")],
        verdict: Annotated[
            Literal["accepted", "dismissed", "snoozed"], Field(description="what the person did with it")
        ],
        until: Annotated[
            str | None, Field(description="for `snoozed`: until when, ISO-8601 with an offset")
        ] = None,
    ) -> str:
        """Report what the person did with a suggestion memubot made (its `id` from `suggestions`).
        The verdict is queued on the bus (`memubot.in.feedback`) for the daemon; repeating the
        same call queues nothing new; an id that names no suggestion of this person is an error."""
        if until is not None:
            if verdict != "snoozed":
                raise ToolError("'until' goes with verdict 'snoozed' only")
            try:
                parse_ts(until, "until")
            except InvalidEvent as exc:
                raise ToolError(str(exc)) from exc
        try:  # a verdict on nothing would be "queued" and then mean nothing: say so now
            await link.request("suggestions", {"scope": scope, "id": suggestion_id})
        except RpcError as exc:
            if exc.kind != "not_found":
                raise _tool_error(exc) from exc
            raise ToolError(
                f"no suggestion {suggestion_id!r} for this person: the `suggestions` tool lists their ids"
            ) from exc
        except (MemubotError, TimeoutError) as exc:
            raise _tool_error(exc) from exc
        event_id = stable_id(scope, "feedback", suggestion_id, verdict, until or "")
        body = {
            "id": event_id,
            "suggestion_id": suggestion_id,
            "verdict": verdict,
            "scope": scope,
            "ts": _now(),
            "until": until,
        }
        try:
            fresh = await link.publish(FEEDBACK, body)
        except (MemubotError, TimeoutError, nats.errors.Error) as exc:
            raise _tool_error(exc) from exc
        return json.dumps({"id": event_id, "queued": fresh, "duplicate": not fresh})

    async def profile() -> dict[str, Any]:
        try:
            return dict(await link.request("profile", {"scope": scope}))
        except (MemubotError, TimeoutError) as exc:
            raise ResourceError(str(_tool_error(exc))) from exc

    @server.resource(
        "memubot://profile",
        name="profile",
        title="What memubot has learned about the person",
        description="The core profile facts and preferences, as the managed block of the profile file (Markdown).",
        mime_type="text/markdown",
    )
    async def profile_block() -> str:
        return str((await profile())["profile"])

    @server.resource(
        "memubot://categories",
        name="categories",
        title="Memory categories with their summaries",
        description="Each category of the person's memory with its summary, item count and version (JSON).",
        mime_type="application/json",
    )
    async def categories() -> str:
        return json.dumps((await profile())["categories"], ensure_ascii=False, default=str)

    return server


def tool_names() -> list[str]:
    """The tools the server registers, in order (for `memubot mcp --help`): asked of a server
    built for no one, so the help cannot drift from the registry."""
    nowhere = Path("/nonexistent")
    server = build_server(Settings(state_dir=nowhere, db_path=nowhere / "memubot.duckdb"), "help")
    return [t.name for t in asyncio.run(server.list_tools())]


def _event(
    event_id: str, scope: str, session: str | None, role: str, text: str, ts: str, speaker: str | None
) -> dict[str, Any]:
    body = {
        "id": event_id,
        "scope": scope,
        "agent": AGENT,
        "session": session,
        "role": role,
        "speaker": speaker,
        "text": text,
        "ts": ts,
    }
    return {k: v for k, v in body.items() if v is not None}


class ArgumentCheck:
    """Refuses an argument a tool does not declare, by name, instead of dropping it silently: a
    `scope` slipped into a call must fail visibly, and a typo ("qurey") must not look like success.

    pydantic, under the SDK, ignores unknown arguments; this runs before it, on the raw request.
    """

    def __init__(self, server: MCPServer[Any]) -> None:
        self.server = server
        self._known: dict[str, frozenset[str]] | None = None

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params if isinstance(ctx.params, dict) else None
        if ctx.method != "tools/call" or params is None:
            return await call_next(ctx)
        if self._known is None:
            tools = await self.server.list_tools()
            self._known = {t.name: frozenset(t.input_schema.get("properties", {})) for t in tools}
        name = str(params.get("name"))
        known, arguments = self._known.get(name), params.get("arguments") or {}
        unknown = sorted(set(arguments) - known) if known is not None and isinstance(arguments, dict) else []
        if not unknown:
            refusal = self._invalid(name, arguments)
            if refusal is not None:
                return CallToolResult(content=[TextContent(type="text", text=refusal)], is_error=True)
            return await call_next(ctx)
        names = ", ".join(repr(a) for a in unknown)
        hint = " (the scope is fixed by the server's configuration)" if "scope" in unknown else ""
        message = (
            f"unknown argument{'s' if len(unknown) > 1 else ''} {names} for {name}{hint}; "
            f"known: {', '.join(sorted(known or ())) or 'none'}"
        )
        return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)

    def _invalid(self, name: str, arguments: Any) -> str | None:
        """The arguments' errors on one line, or None when they are valid: the SDK would answer
        pydantic's multi-line dump with its documentation URLs. The SDK has no public way to
        reach a tool's argument model (its minor version is pinned); without one, it answers."""
        manager = getattr(self.server, "_tool_manager", None)
        tool = manager.get_tool(name) if manager is not None else None
        if tool is None or not isinstance(arguments, dict):
            return None
        try:
            tool.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            return argument_errors(name, exc)
        return None


def _shown(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({type(value).__name__})"


def argument_errors(tool: str, exc: ValidationError) -> str:
    """`remember: 'turns[0].role' should be 'user', 'assistant', 'system' or 'tool', got 'narrator'`."""
    parts = []
    for error in exc.errors(include_url=False):
        path = "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" if i else str(p) for i, p in enumerate(error["loc"])
        )
        message = str(error["msg"])
        if error["type"] == "missing":
            parts.append(f"{path!r} is required")
            continue
        if error["type"] == "extra_forbidden":
            parts.append(f"{path!r} is not a known field")
            continue
        message = message.removeprefix("Input ").removeprefix("String ").removeprefix("List ")
        parts.append(f"{path!r} {message[0].lower()}{message[1:]}, got {_shown(error.get('input'))}")
    return f"{tool}: {'; '.join(parts)}"


def check_loopback(host: str) -> None:
    """The HTTP transport has no authentication: it binds to loopback only."""
    if host not in ("127.0.0.1", "::1", "localhost"):
        raise MemubotError(
            f"--http {host}: the MCP HTTP transport has no authentication and binds to loopback only "
            "(127.0.0.1, ::1 or localhost)"
        )


def refusal_of(line: str) -> mcp_types.JSONRPCError | None:
    """None for a line that is a JSON-RPC message (or blank); else the error that answers it:
    a parse error (-32700, id null) for a line that is not JSON (or nests too deep), an invalid
    request (-32600, with its id when one can be read) for JSON that is no JSON-RPC message."""
    if not line.strip():
        return None
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:
        pass
    else:
        return None
    try:
        value = bounded_json.load(line, max_bytes=1 << 30, what="message")
    except InvalidEvent as exc:
        error = mcp_types.ErrorData(code=mcp_types.PARSE_ERROR, message=f"Parse error: {exc}")
        return mcp_types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
    rid = value.get("id") if isinstance(value, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        rid = None
    error = mcp_types.ErrorData(
        code=mcp_types.INVALID_REQUEST,
        message="Invalid Request: not a JSON-RPC 2.0 request, notification or response",
    )
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=rid, error=error)


class _CheckedLines:
    """stdin's lines for the SDK's reader, which drops a line it cannot read without a word (a
    client would wait forever on its id): such a line is answered here and not passed on."""

    def __init__(
        self, lines: AsyncIterable[str], refusals: MemoryObjectSendStream[mcp_types.JSONRPCError]
    ) -> None:
        self.lines = lines
        self.refusals = refusals

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self.refusals:
            async for line in self.lines:
                refusal = refusal_of(line)
                if refusal is None:
                    yield line
                else:
                    log.warning("mcp: answered a line that is no JSON-RPC message: %s", refusal.error.message)
                    await self.refusals.send(refusal)


async def run_stdio(server: MCPServer[Any]) -> None:
    """`server` on stdin/stdout, every line answered (the SDK's `run()` with a checked stdin).

    The SDK has no public way to run a server on given streams; its minor version is pinned."""
    send, receive = anyio.create_memory_object_stream[mcp_types.JSONRPCError](64)
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=_CheckedLines(stdin, send)) as (read_stream, write_stream):  # type: ignore[arg-type]

        async def answer_refusals() -> None:
            async with receive:
                async for refusal in receive:
                    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                        await write_stream.send(SessionMessage(refusal))

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_refusals)
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()


def serve(settings: Settings, scope: str, http: tuple[str, int] | None = None) -> None:
    """Run the server until the client closes stdin (stdio) or SIGINT/SIGTERM (HTTP)."""
    server = build_server(settings, scope)
    if http is None:
        log.info("MCP on stdio for scope %s", scope)
        anyio.run(run_stdio, server)
        return
    host, port = http
    check_loopback(host)
    log.info("MCP on http://%s:%d/mcp for scope %s", host, port, scope)
    server.run("streamable-http", host=host, port=port)
