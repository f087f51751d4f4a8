"""A terminal chat that plays the Main Agent: it publishes its turns to memubot, shows
suggestions as they arrive, and answers with the context memubot prefetched for the turn.

    .venv/bin/memubot run &                               # or the systemd unit
    .venv/bin/python examples/main_agent.py --scope alice

(from the checkout, after the README's first command; with the venv activated, `memubot run`
and `python` do the same: the script imports memubot's `daemon` package, which the system's
Python does not have).

Type a line to say it. `/recall QUERY` searches memory, `/forget QUERY` deletes what matches,
`/stats` counts, `/ok N`, `/no N` and `/later N MINUTES` answer suggestion N, `/quit` leaves.
This agent has no language model: its "answer" is the context memubot publishes on
`memubot.out.context.<session>` right after the turn (recall is the fallback when none comes
in time), which is what a real agent would put in its prompt. The daemon is found like the CLI
finds it (its runtime file, else MEMUBOT_NATS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from daemon.client import Client, RpcError
from daemon.client.discovery import candidate_urls
from daemon.config import load_settings

CONTEXT_WAIT_S = 2.0  # how long the answer waits for the prefetched context before recalling itself
shown: list[dict[str, Any]] = []  # suggestions as numbered on screen
contexts: dict[str, dict[str, Any]] = {}  # prefetched context by turn id
arrived = asyncio.Event()


async def show_suggestions(client: Client, scope: str) -> None:
    async for s in client.suggestions(scope, durable=f"main-agent-{scope}"):
        shown.append(s)
        print(
            f"\n  💡 {len(shown)} [{s.get('kind')}] {s.get('title')}: {s.get('body')}\n> ",
            end="",
            flush=True,
        )


async def keep_context(client: Client, session: str) -> None:
    async for c in client.context(session):
        contexts[str(c.get("turn_id"))] = c
        arrived.set()


async def context_for(turn_id: str) -> dict[str, Any] | None:
    try:
        async with asyncio.timeout(CONTEXT_WAIT_S):
            while turn_id not in contexts:
                arrived.clear()
                await arrived.wait()
    except TimeoutError:
        return None
    return contexts.pop(turn_id)


async def answer_suggestion(client: Client, scope: str, line: str) -> None:
    verb, _, rest = line.partition(" ")
    number, _, minutes = rest.strip().partition(" ")
    if not number.isdigit() or not 1 <= int(number) <= len(shown):
        print("  no such suggestion")
        return
    s = shown[int(number) - 1]
    verdict = {"/ok": "accepted", "/no": "dismissed", "/later": "snoozed"}[verb]
    until = datetime.now(UTC) + timedelta(minutes=int(minutes or 60)) if verdict == "snoozed" else None
    await client.send_feedback(str(s["id"]), verdict, scope=scope, until=until)
    print(f"  told memubot: {verdict}")


async def read_line() -> str | None:
    line = await asyncio.to_thread(sys.stdin.readline)
    return line.rstrip("\n") if line else None


async def chat(client: Client, scope: str, session: str) -> None:
    while True:
        print("> ", end="", flush=True)
        line = await read_line()
        if line is None or line.strip() == "/quit":
            return
        if not line.strip():
            continue
        try:
            if line.startswith("/recall "):
                for h in await client.recall(line[8:], scope=scope, k=5):
                    print(f"  [{h['score']:.2f}] {h['text']}")
            elif line.startswith("/forget "):
                result = await client.forget(scope=scope, query=line[8:])
                print(f"  forgot {result['deleted']}")
            elif line.split(" ", 1)[0] in ("/ok", "/no", "/later"):
                await answer_suggestion(client, scope, line)
            elif line.strip() == "/stats":  # (not_found until the first turn is stored)
                stats = await client.stats(scope)
                print(
                    f"  {stats['resources']} turns, {stats['items']} memories, {stats['daemon']['pending']} pending"
                )
            else:
                # the turn goes to memubot, which answers at once with the context it needs
                turn_id = await client.publish_turn(line, scope=scope, role="user", session=session)
                context = await context_for(turn_id)
                if context is not None:
                    hits = context["memories"][:3]
                    for w in context.get("waiting", []):
                        print(f"  (waiting on you) {w['ref']} {w['title']}")
                else:
                    try:
                        hits = await client.recall(line, scope=scope, k=3, session=session)
                    except RpcError as exc:
                        if exc.kind != "not_found":  # a new person: nothing remembered yet
                            raise
                        hits = []
                for h in hits:
                    print(f"  (remembered) {h['text']}")
                if not hits:
                    print("  (nothing remembered about that yet)")
        except (RpcError, TimeoutError) as exc:
            print(f"  memubot: {exc}")


async def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scope", required=True, help="whose memory (the person you are)")
    parser.add_argument("--session", default=f"chat-{uuid.uuid4().hex[:8]}", help="session id")
    args = parser.parse_args()
    settings = load_settings()
    client = None
    for url in candidate_urls(settings):
        with contextlib.suppress(Exception):
            client = await Client.connect(url)
            await client.stats()  # a daemon answers
            break
        client = None
    if client is None:
        print("no memubot daemon answers: start one with `memubot run`", file=sys.stderr)
        return 1
    listeners = [
        asyncio.create_task(show_suggestions(client, args.scope)),
        asyncio.create_task(keep_context(client, args.session)),
    ]
    try:
        await chat(client, args.scope, args.session)
    finally:
        for listener in listeners:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listener
        await client.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
