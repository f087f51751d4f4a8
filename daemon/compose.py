"""Building the memory from Settings: the embedder, the optional LLM, the DuckDB file.

The CLI and the daemon open the memory the same way through `open_memory`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from daemon.config import Settings
from daemon.memory import Clock, Memory, make_embedder, system_clock
from daemon.memory.llm import LLMConfig, LLMExtractor
from daemon.memory.read.indexfile import index_dir_for


def make_llm(settings: Settings) -> LLMExtractor | None:
    """The LLM extractor when MEMUBOT_LLM_URL is set; None means the rules do everything."""
    if not settings.llm_url:
        return None
    return LLMExtractor(
        LLMConfig(
            url=settings.llm_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key,
            timeout_s=settings.llm_timeout,
        )
    )


def open_memory(
    settings: Settings,
    db: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    clock: Clock = system_clock,
) -> Memory:
    embedder = make_embedder(
        settings.embedder, url=settings.embed_url, model=settings.embed_model, api_key=settings.embed_api_key
    )
    path = db or settings.db_path
    return Memory.open(
        path,
        embedder,
        settings.memory,
        clock=clock,
        progress=progress,
        llm=make_llm(settings),
        index_dir=index_dir_for(path),
    )


def open_memories(settings: Settings, paths: Sequence[Path], clock: Clock = system_clock) -> list[Memory]:
    """One memory per DuckDB file (in a cluster, the instance's and one per owned partition:
    docs/cluster.md), sharing one embedder and one LLM extractor (the embedders serialise their
    engine, so the files' writers may share it)."""
    embedder = make_embedder(
        settings.embedder, url=settings.embed_url, model=settings.embed_model, api_key=settings.embed_api_key
    )
    llm = make_llm(settings)
    opened: list[Memory] = []
    try:
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            opened.append(
                Memory.open(
                    path, embedder, settings.memory, clock=clock, llm=llm, index_dir=index_dir_for(path)
                )
            )
    except BaseException:
        for memory in opened:
            memory.close()
        raise
    return opened
