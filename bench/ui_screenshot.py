"""The screenshot of /ui in the README and docs/ui.md: the example conversation in a fresh daemon, Chromium at 1280 px.

    .venv/bin/python bench/ui_screenshot.py [--out docs/inspector.png] [--tab items|retired|recall]

Needs Debian's `chromium` (or another Chromium on PATH). The daemon runs in this process on a
temporary state directory with its embedded broker; nothing of yours is read or written.

The example conversation (May 2023) is moved, whole, to end three days before today, so the
survival plots show memories a few weeks old rather than three years past their archive floor;
one question is then asked through the bus (a real recall, so the items it finds count a use and
their curves stretch), and one statement is corrected, so the retired tab has something in it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # before bench/, whose daemon.py would shadow the package

from daemon.app import runtime_file, serve  # noqa: E402
from daemon.client import Client, runtime_info  # noqa: E402
from daemon.config import load_settings  # noqa: E402

QUESTION = "When did Caroline go to the support group?"


def redated(turns: list[dict[str, object]], now: datetime) -> list[dict[str, object]]:
    """The turns moved together so that the last one was said three days before `now`."""
    times = [datetime.fromisoformat(str(t["ts"])) for t in turns]
    shift = now - timedelta(days=3) - max(times)
    return [{**t, "ts": (at + shift).isoformat()} for t, at in zip(turns, times, strict=True)]


async def main(out: Path, tab: str) -> None:
    chromium = next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
    )
    if chromium is None:
        raise SystemExit("no Chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            {
                "HOME": tmp,
                "MEMUBOT_STATE_DIR": f"{tmp}/state",
                "MEMUBOT_NATS_URL": "nats://127.0.0.1:14333",
                "MEMUBOT_HTTP_ADDR": "127.0.0.1:0",
                "MEMUBOT_CONFIG": f"{tmp}/none.toml",
            }
        )
        stop = asyncio.Event()
        task = asyncio.create_task(serve(settings, stop))
        while not runtime_file(settings).exists():
            if task.done():
                raise SystemExit(f"the daemon stopped: {task.result()}")
            await asyncio.sleep(0.05)
        info = runtime_info(settings.state_dir) or {}
        turns = [
            json.loads(line) for line in (ROOT / "examples/turns.jsonl").read_text().splitlines() if line
        ]
        async with await Client.connect(str(info["nats_url"])) as bus:
            await bus.memorize(redated(turns, datetime.now(UTC)))
            await bus.recall(QUESTION, scope="caroline", k=3)  # a use: these items live longer
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = await browser.new_page(viewport={"width": 1280, "height": 900})
            base = f"{info['http']}/ui?scope=caroline"
            await page.goto(base)
            # a correction through the page itself: the old statement moves to the retired tab
            card = page.locator("article.item", has_text="allergic to cats")
            await card.locator("details.correct-box summary").click()
            await card.locator("input[name=text]").fill(
                "We adopted a cat after all: the allergy shots worked."
            )
            await card.locator("form.correct button").click()
            await page.wait_for_selector("#notice")
            query = {"items": "", "retired": "&tab=retired", "recall": "&q=" + QUESTION.replace(" ", "+")}
            await page.goto(base + query[tab])
            out.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(out), full_page=False)
            await browser.close()
        stop.set()
        await task
    print(f"wrote {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "inspector.png")
    parser.add_argument("--tab", choices=("items", "retired", "recall"), default="items")
    args = parser.parse_args()
    asyncio.run(main(args.out, args.tab))
