"""A terminal chat that plays the Main Agent: it publishes its turns to memubot, shows
suggestions as they arrive, and uses recall before it answers.

    .venv/bin/memubot run &                               # or the systemd unit
    .venv/bin/python examples/main_agent.py --scope alice

(from the checkout, after the README's first command; with the venv activated, `memubot run`
and `python` do the same: the script imports memubot's `daemon` package, which the system's
Python does not have).

Type a line to say it. `/recall QUERY` searches memory, `/forget QUERY` deletes what matches,
`/stats` counts, `/quit` leaves. This agent has no language model: its "answer" is the
memories that recall found for what you said, which is what a real agent would put in its
prompt. The daemon is found like the CLI finds it (its runtime file, else MEMUBOT_NATS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import uuid

from daemon.cli_bus import candidate_urls
from daemon.client import Client, RpcError
from daemon.config import load_settings


async def show_suggestions(client: Client, scope: str) -> None:
    async for s in client.suggestions(scope, durable=f"main-agent-{scope}"):
        print(f"\n  💡 [{s.get('kind')}] {s.get('title')}: {s.get('body')}\n> ", end="", flush=True)


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
            elif line.strip() == "/stats":  # (not_found until the first turn is stored)
                stats = await client.stats(scope)
                print(
                    f"  {stats['resources']} turns, {stats['items']} memories, {stats['daemon']['pending']} pending"
                )
            else:
                # what memory knows about this goes into the answer; then the turn itself is remembered
                try:
                    hits = await client.recall(line, scope=scope, k=3, session=session)
                except RpcError as exc:
                    if exc.kind != "not_found":  # a new person: nothing remembered yet
                        raise
                    hits = []
                await client.publish_turn(line, scope=scope, role="user", session=session)  # a fresh id
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
    listener = asyncio.create_task(show_suggestions(client, args.scope))
    try:
        await chat(client, args.scope, args.session)
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await listener
        await client.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
