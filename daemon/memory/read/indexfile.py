"""A scope's persisted index: the derived part of its snapshot, written beside the DuckDB file.

Reading a big scope's vectors and postings out of DuckDB is most of a start (6 s of 9.5 s at
100k items). The index is derived from DuckDB, so a copy of it on disk is only ever a cache:
`<db>.index/<scope key>-<token>/` holds the rows' ids, text, provenance, vectors (`.npy`,
memory-mapped copy-on-write when loaded) and the three postings fields as flat arrays, and
DuckDB's `meta` names the one directory that belongs to the scope, with the generation it
was written at. A directory is used only when DuckDB points at it, the generation is still
DuckDB's, the model and format match, and its ids are the rows DuckDB has now; otherwise the
index is rebuilt from DuckDB and the reason is logged. A write is a new directory, completed
and renamed into place before DuckDB points at it, so a crash at any point leaves either the
old pointer (to an older generation: rebuilt) or the new one (to a complete directory).

What changes without a new generation (recall's access counts) and the cheap per-row columns
are never persisted: they are read from DuckDB on every load.

Format 2 adds the write quantiser (`write/neighbours.py`, trained on a scope's first write
past `COARSE_MIN` rows: 1.9–2.5 s at 100k, which stalled the first write after every start):
its mean, centroids and lists (`coarse.*.npy`, rows in the directory's row order) and, in
`meta.json`, its parameters, known rows and training size. A format 1 directory, or a
quantiser that does not check out (other parameters than this code's, files that do not
agree), still loads: the quantiser is then trained on the next write, as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from daemon.memory.read.scope import Derived
from daemon.memory.store import FieldPostings
from daemon.memory.write.neighbours import CoarseLists, CoarseParams

log = logging.getLogger(__name__)

FORMAT = 2  # written; 2 adds the write quantiser
READABLE = (1, 2)  # read (1: no quantiser)
_FIELDS = ("own", "context", "sessions")


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a persisted index must agree with to be used."""

    scope: str
    token: str
    generation: int
    model: str
    dim: int


class Unusable(Exception):
    """The persisted index cannot be used; the message says why (it is logged)."""


def index_dir_for(db_path: Path) -> Path:
    """Where the persisted indexes of a DuckDB file live: beside it."""
    return db_path.with_name(db_path.name + ".index")


def new_token() -> str:
    return uuid.uuid4().hex


def _key(scope: str) -> str:
    return hashlib.sha256(scope.encode("utf-8")).hexdigest()[:16]


def scope_dir(root: Path, scope: str, token: str) -> Path:
    return root / f"{_key(scope)}-{token}"


def _pack(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one UTF-8 byte array and the offsets of each string in it."""
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8)


def _unpack(offsets: np.ndarray, blob: np.ndarray) -> list[str]:
    data = blob.tobytes()
    at = offsets.tolist()
    return [data[at[i] : at[i + 1]].decode("utf-8") for i in range(len(at) - 1)]


def _save(folder: Path, name: str, arr: np.ndarray) -> None:
    with open(folder / f"{name}.npy", "wb") as fh:
        np.save(fh, np.ascontiguousarray(arr), allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())


def _load(folder: Path, name: str, mmap: bool = False) -> np.ndarray:
    arr: np.ndarray = np.load(folder / f"{name}.npy", mmap_mode="c" if mmap else None, allow_pickle=False)
    return arr.view(np.ndarray) if mmap else arr  # a plain array over the mapping


def write(root: Path, stamp: Stamp, derived: Derived) -> Path:
    """Write a complete directory for `stamp` (under a temporary name, fsynced, then renamed)."""
    root.mkdir(parents=True, exist_ok=True)
    final = scope_dir(root, stamp.scope, stamp.token)
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    _save(tmp, "vectors", derived.vectors.astype(np.float32, copy=False))
    for name, strings in (("ids", derived.ids), ("l0", derived.l0)):
        offsets, blob = _pack(strings)
        _save(tmp, f"{name}.offsets", offsets)
        _save(tmp, f"{name}.blob", blob)
    offsets, blob = _pack([s for row in derived.source_ids for s in row])
    _save(tmp, "sources.offsets", offsets)
    _save(tmp, "sources.blob", blob)
    _save(tmp, "sources.count", np.asarray([len(row) for row in derived.source_ids], dtype=np.int64))
    for name, field in zip(_FIELDS, (derived.own, derived.context, derived.sessions_index), strict=True):
        offsets, blob = _pack(field.terms)
        _save(tmp, f"{name}.terms.offsets", offsets)
        _save(tmp, f"{name}.terms.blob", blob)
        _save(tmp, f"{name}.starts", field.starts.astype(np.int64, copy=False))
        _save(tmp, f"{name}.docs", field.docs.astype(np.int32))
        _save(tmp, f"{name}.tfs", field.tfs.astype(np.float32, copy=False))
    coarse: dict[str, Any] | None = None
    if derived.coarse is not None:
        q = derived.coarse
        assert q.centroids is not None and q.known == len(derived.ids)
        rows, starts = q.flat()
        _save(tmp, "coarse.mean", q.mean.astype(np.float32, copy=False))
        _save(tmp, "coarse.centroids", q.centroids.astype(np.float32, copy=False))
        _save(tmp, "coarse.rows", rows)
        _save(tmp, "coarse.starts", starts)
        coarse = {
            "params": asdict(q.params),
            "known": q.known,
            "trained_at": q.trained_at,
            "lists": len(q.lists),
        }
    meta = {
        "format": FORMAT,
        "scope": stamp.scope,
        "token": stamp.token,
        "generation": stamp.generation,
        "model": stamp.model,
        "dim": stamp.dim,
        "rows": len(derived.ids),
        "coarse": coarse,
    }
    with open(tmp / "meta.json", "w", encoding="utf-8") as fh:
        json.dump(meta, fh)
        fh.flush()
        os.fsync(fh.fileno())
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    fd = os.open(root, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename is durable before DuckDB points at the directory
    finally:
        os.close(fd)
    return final


def read(root: Path, stamp: Stamp) -> Derived:
    """The persisted index DuckDB points at (`stamp`), or `Unusable` saying why not."""
    folder = scope_dir(root, stamp.scope, stamp.token)
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise Unusable(f"no directory {folder.name}") from exc
    except (OSError, ValueError) as exc:
        raise Unusable(f"unreadable meta.json: {exc}") from exc
    if meta.get("format") not in READABLE:
        raise Unusable(f"format {meta.get('format')!r} on disk, one of {READABLE} expected")
    want = {
        "scope": stamp.scope,
        "token": stamp.token,
        "generation": stamp.generation,
        "model": stamp.model,
        "dim": stamp.dim,
    }
    for name, value in want.items():
        if meta.get(name) != value:
            raise Unusable(f"{name} {meta.get(name)!r} on disk, {value!r} expected")
    try:
        vectors = _load(folder, "vectors", mmap=True)
        ids = _unpack(_load(folder, "ids.offsets"), _load(folder, "ids.blob"))
        l0 = _unpack(_load(folder, "l0.offsets"), _load(folder, "l0.blob"))
        flat = _unpack(_load(folder, "sources.offsets"), _load(folder, "sources.blob"))
        counts = _load(folder, "sources.count").tolist()
        fields = []
        for name in _FIELDS:
            fields.append(
                FieldPostings(
                    terms=_unpack(
                        _load(folder, f"{name}.terms.offsets"), _load(folder, f"{name}.terms.blob")
                    ),
                    starts=_load(folder, f"{name}.starts"),
                    docs=_load(folder, f"{name}.docs", mmap=True),
                    tfs=_load(folder, f"{name}.tfs", mmap=True),
                )
            )
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise Unusable(f"unreadable: {exc}") from exc
    n = int(meta.get("rows", -1))
    if not (len(ids) == len(l0) == len(counts) == vectors.shape[0] == n) or vectors.shape[1:] != (stamp.dim,):
        raise Unusable("files of different lengths")
    if sum(counts) != len(flat) or any(f.starts.shape[0] != len(f.terms) + 1 for f in fields):
        raise Unusable("files of different lengths")
    sources: list[list[str]] = []
    at = 0
    for c in counts:
        sources.append(flat[at : at + c])
        at += c
    return Derived(
        coarse=_read_coarse(folder, meta, n, stamp.dim),
        ids=ids,
        l0=l0,
        source_ids=sources,
        vectors=vectors,
        own=fields[0],
        context=fields[1],
        sessions_index=fields[2],
    )


def _read_coarse(folder: Path, meta: dict[str, Any], rows: int, dim: int) -> CoarseLists | None:
    """The persisted write quantiser, or None (logged) when there is none or it cannot be used:
    the index loads all the same, and the next write trains the quantiser as before."""
    about = meta.get("coarse")
    if about is None:  # format 1, or not trained when written
        return None
    try:
        params = CoarseParams(**about["params"])
        if params != CoarseParams():
            raise ValueError(f"parameters {params} on disk, {CoarseParams()} in this code")
        known, trained_at = int(about["known"]), int(about["trained_at"])
        if known > rows:
            raise ValueError(f"{known} rows known of {rows}")
        return CoarseLists.restore(
            params,
            mean=_load(folder, "coarse.mean"),
            centroids=_load(folder, "coarse.centroids"),
            rows=_load(folder, "coarse.rows"),
            starts=_load(folder, "coarse.starts"),
            known=known,
            trained_at=trained_at,
            dim=dim,
        )
    except (OSError, ValueError, TypeError, KeyError) as exc:
        log.warning("write quantiser in %s not used (trained on the next write): %s", folder.name, exc)
        return None


def remove_others(root: Path, scope: str, keep: str | None) -> None:
    """Delete the scope's directories other than `keep`'s (older writes, unfinished ones)."""
    if not root.is_dir():
        return
    prefix = _key(scope) + "-"
    for path in root.iterdir():
        if path.name.startswith(prefix) and (keep is None or path.name != f"{prefix}{keep}"):
            shutil.rmtree(path, ignore_errors=True)
