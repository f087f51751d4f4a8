#!/usr/bin/env python3
"""What a GitHub webhook delivery costs: HTTP answer time and delivery → committed latency.

usage: python bench/webhook.py [--rounds 3] [--gap 0.25]

A real `memubot run` process (bench/daemon.py's harness: fresh state directory, a real
nats-server, configured only by environment) with a webhook secret and scope. Every shared
GitHub fixture (../shared/fixtures/github/, 72 payloads) is signed and POSTed to
`/webhooks/github` with a fresh delivery id, one at a time with `--gap` seconds between them
(a live repository's pace, not a flood), `--rounds` times. Measured per delivery:

- **answer**: wall time of the POST until its 202 (verify the signature, parse, publish to
  JetStream and wait for its ack);
- **committed**: from just before the POST until the daemon's idempotency ledger says the
  event was handled (`events.handled_at`, written right after the batch committed the
  resource and the work-item state), read from the DuckDB file after the daemon stops.

Baseline in the same run: a conversation turn published through JetStream by the client, at
the same pace, through the same consumer (publish → committed), so the webhook's own cost is
the difference. The result is a markdown table on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.client import Client  # noqa: E402
from daemon.github.webhook import sign  # noqa: E402

# bench/daemon.py's harness (a file named like the package, so loaded by path)
_spec = importlib.util.spec_from_file_location("bench_daemon", ROOT / "bench" / "daemon.py")
assert _spec is not None and _spec.loader is not None
harness = importlib.util.module_from_spec(_spec)
sys.modules["bench_daemon"] = harness
_spec.loader.exec_module(harness)
Daemon, Results, ledger, loadavg, log = (
    harness.Daemon,
    harness.Results,
    harness.ledger,
    harness.loadavg,
    harness.log,
)
ms, nats_server, pct, tempdir = harness.ms, harness.nats_server, harness.pct, harness.tempdir

FIXTURES = ROOT.parent / "shared" / "fixtures" / "github"
SECRET = "bench-secret"
SCOPE = "bench"


class WebhookDaemon(Daemon):
    def env(self) -> dict[str, str]:
        env = super().env()
        env.update(
            MEMUBOT_GITHUB_WEBHOOK_SECRET=SECRET, MEMUBOT_GITHUB_SCOPE=SCOPE, MEMUBOT_GITHUB_LOGIN="octocat"
        )
        return env


def fixtures() -> list[tuple[str, bytes]]:
    files = sorted(p for p in FIXTURES.glob("*/*.json") if p.parent.name != "ping")
    if not files:
        sys.exit(f"no GitHub fixtures at {FIXTURES}")
    return [(p.parent.name, p.read_bytes()) for p in files]


def summary(xs: list[float]) -> str:
    return f"{ms(statistics.median(xs))} / {ms(pct(xs, 0.95))} / {ms(max(xs))}"


async def run(args: argparse.Namespace, res: Results) -> None:
    payloads = fixtures()
    with tempdir("memubot-webhook-") as root:
        async with nats_server(root / "broker") as broker:
            state = root / "state"
            d = WebhookDaemon(state, broker.url, root / "memubot.log")
            await d.start()
            try:
                url = d.info["http"] + "/webhooks/github"
                answered: list[float] = []
                sent: dict[str, float] = {}
                statuses: dict[int, int] = {}
                async with aiohttp.ClientSession() as http:
                    for _ in range(args.rounds):
                        for event, body in payloads:
                            delivery = str(uuid.uuid4())
                            headers = {
                                "X-GitHub-Event": event,
                                "X-GitHub-Delivery": delivery,
                                "X-Hub-Signature-256": sign(body, SECRET),
                                "Content-Type": "application/json",
                            }
                            sent[delivery] = time.time()
                            t0 = time.perf_counter()
                            async with http.post(url, data=body, headers=headers) as resp:
                                await resp.read()
                                statuses[resp.status] = statuses.get(resp.status, 0) + 1
                            answered.append(time.perf_counter() - t0)
                            await asyncio.sleep(args.gap)
                turns: dict[str, float] = {}
                client = await Client.connect(broker.url)
                try:
                    for i in range(len(payloads)):
                        tid = f"bench-turn-{i}"
                        turns[tid] = time.time()
                        await client.publish_turn(
                            f"Note {i}: the deploy went out at {9 + i % 8}:30.", scope=SCOPE, id=tid
                        )
                        await asyncio.sleep(args.gap)
                    await client.request("flush", {})
                finally:
                    await client.close()
                await asyncio.sleep(1.0)
            finally:
                d.stop()
            done = ledger(d.state_dir / "memubot.duckdb")
        res.add("webhook", "deliveries posted", str(len(answered)), f"answers {json.dumps(statuses)}")
        res.add(
            "webhook",
            "POST → 202 p50 / p95 / max",
            summary(answered),
            "verify, parse, publish, JetStream ack",
        )
        hooks = [done[k][0] - t for k, t in sent.items() if k in done]
        res.add(
            "webhook",
            "POST → committed p50 / p95 / max",
            summary(hooks),
            f"{len(hooks)} of {len(sent)} in the ledger",
        )
        base = [done[k][0] - t for k, t in turns.items() if k in done]
        res.add("baseline", "turn publish → committed p50 / p95 / max", summary(base), f"{len(base)} turns")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gap", type=float, default=0.25, help="seconds between deliveries")
    args = ap.parse_args()
    res = Results()
    start_load = loadavg()
    log(f"load average at start: {start_load}")
    asyncio.run(run(args, res))
    print(
        f"`python bench/webhook.py --rounds {args.rounds} --gap {args.gap}`; load average {start_load} → {loadavg()}\n"
    )
    print(res.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
