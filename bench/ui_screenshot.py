"""The README's screenshot of /ui: the example conversation in a fresh daemon, a search, Chromium.

    .venv/bin/python bench/ui_screenshot.py [--out docs/inspector.png]

Needs Debian's `chromium` (or another Chromium on PATH). The daemon runs in this process on a
temporary state directory with its embedded broker; nothing of yours is read or written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # before bench/, whose daemon.py would shadow the package

from daemon.app import runtime_file, serve  # noqa: E402
from daemon.client import Client, runtime_info  # noqa: E402
from daemon.config import load_settings  # noqa: E402


async def main(out: Path) -> None:
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
            await bus.memorize(turns)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = await browser.new_page(viewport={"width": 1280, "height": 900})
            await page.goto(
                f"{info['http']}/ui?scope=caroline&q=When+did+Caroline+go+to+the+support+group%3F"
            )
            await page.screenshot(path=str(out), full_page=False)
            await browser.close()
        stop.set()
        await task
    print(f"wrote {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "inspector.png")
    asyncio.run(main(parser.parse_args().out))
