"""Moving scopes with their data from one DuckDB file to another: a partition handed from one
instance of a cluster to another (docs/cluster.md#moving-a-partition).

Both files are closed by their daemons first (DuckDB's lock refuses otherwise). The copy runs in
one transaction of the target, which is refused when it already holds rows of the scopes, and is
checked table by table (the target's rows of the scopes, counted, are the source's) before it
commits. Only then, and only when asked, are the rows deleted from the source, in a transaction
of its own that first checks again that the target holds every one of them. Stopped anywhere,
the move leaves the rows in the source, in the source and the target, or in the target: never
nowhere. Which tables move and why is daemon/memory/store/move.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from daemon.errors import MoveRefused, StoreError
from daemon.memory.read import indexfile as IF
from daemon.memory.store import SCHEMA_VERSION, Store
from daemon.memory.store import move as M

log = logging.getLogger(__name__)

SOURCE = "move_source"  # the source file, attached beside the target's while copying
TARGET = "move_target"  # the target file, attached beside the source's while deleting


@dataclass(slots=True)
class MoveReport:
    """What a move found and did."""

    source: str
    target: str
    scopes: list[str]
    rows: dict[str, int]  # the scopes' rows in the source, per table, before anything was done
    copied: dict[str, int] = field(default_factory=dict)
    kept_target: dict[str, int] = field(default_factory=dict)  # ledger ids the target had already
    cached_vectors: int = 0
    cursors: dict[str, int] = field(default_factory=dict)
    deleted: dict[str, int] | None = None
    already_copied: bool = False
    created_target: bool = False
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _table_list(counts: dict[str, int]) -> str:
    return ", ".join(f"{t} {n}" for t, n in counts.items() if n) or "none"


def _open(path: Path) -> Store:
    """The file, brought to this memubot's schema version (as `memubot run` would)."""
    store = Store(path)
    version = store.schema_version()
    if version != SCHEMA_VERSION:  # Store() migrates forward and refuses a newer file
        store.close()
        raise StoreError(f"{path} has schema version {version}, not {SCHEMA_VERSION}")
    return store


def _drop_index_copies(db_path: Path, scopes: Sequence[str]) -> None:
    """Delete the persisted index copies of these scopes beside a file (its pointers to them
    went in the same transaction as the rows)."""
    root = IF.index_dir_for(db_path)
    for scope in scopes:
        IF.remove_others(root, scope, keep=None)


def move_scopes(
    source: Path,
    target: Path,
    belongs: Callable[[str], bool],
    *,
    delete_source: bool = False,
    op_cursors: Sequence[str] = (),
    say: Callable[[str], None] | None = None,
) -> MoveReport:
    """Copy every row of the scopes of `source` for which `belongs(scope)` holds into `target`
    (created when missing), and with `delete_source` delete them from `source` afterwards.

    Raises MoveRefused (nothing changed) when the target already holds rows of those scopes (a
    move never merges), when a key of theirs is taken in the target, or when the files' vectors
    come from different embedding models; StoreLocked when a file is in use. A re-run after a
    copy without deletion finds the target holding every row: refused without `delete_source`,
    and with it only the deletion runs. `op_cursors`: the cursors that read the memory-op log
    (daemon/memory/store/move.py `copy`).
    """
    tell = say or (lambda line: None)

    def copied(table: str, n: int) -> None:
        if n:
            tell(f"  {table}: {n} rows")

    source, target = Path(source), Path(target)
    if not source.is_file():
        raise MoveRefused(f"no DuckDB file at {source}")
    if target.exists() and target.resolve() == source.resolve():
        raise MoveRefused(f"the source and the target are the same file ({source})")

    src = _open(source)
    try:
        scopes = [s for s in M.scopes_in(src) if belongs(s)]
        rows = M.counts(src, M.MAIN, scopes)
        model = M.embedding(src)
        dead = M.unreplayed_dead_letters(src)
        src.checkpoint()  # the target reads the file itself: nothing of it may wait in the WAL
    finally:
        src.close()
    report = MoveReport(str(source), str(target), scopes, rows)
    if not scopes:
        tell(f"{source} holds no scope of these partitions: nothing to move")
        return report
    tell(f"{source}: {len(scopes)} scopes to move ({_table_list(rows)})")
    if dead:
        report.warnings.append(
            f"{source} has {dead} dead letters not replayed; they stay in it (a replay there handles"
            " them there): replay or drop them before its daemon stops owning their scopes"
        )

    report.created_target = not target.exists()
    dst = _open(target)
    try:
        here = M.embedding(dst)
        if model is not None:
            if here is not None and here != model:
                raise MoveRefused(
                    f"{source}'s vectors were made by {model[0]} ({model[1]} dimensions) and {target}'s by"
                    f" {here[0]} ({here[1]}): vectors of two models cannot be compared; start both"
                    " instances with the same MEMUBOT_EMBEDDER first"
                )
            dst.ensure_vectors(*model)
        M.attach(dst, str(source), SOURCE)
        try:
            held = {t: n for t, n in M.counts(dst, M.MAIN, scopes).items() if n}
            if held:
                gaps = M.missing(dst, SOURCE, M.MAIN, scopes)
                if any(gaps.values()):
                    raise MoveRefused(
                        f"{target} already holds rows of these scopes ({_table_list(held)}) but not all of"
                        f" {source}'s (missing: {_table_list(gaps)}); a move never merges into scopes"
                        " the target has: nothing was changed"
                    )
                report.already_copied = True
                if not delete_source:
                    raise MoveRefused(
                        f"{target} already holds every row of these scopes ({_table_list(held)}): an"
                        " earlier move copied them. To delete them from the source now, run the same"
                        " command with --delete-source; nothing was changed"
                    )
                tell(f"{target} already holds every row of these scopes (an earlier copy)")
            else:
                clashes = M.collisions(dst, SOURCE, scopes)
                if clashes:
                    which = "; ".join(f"{t} {key!r}" for t, key in clashes.items())
                    raise MoveRefused(
                        f"{target} holds rows of other scopes under the same keys as rows to move ({which});"
                        " nothing was changed"
                    )
                tell(f"copying into {target}" + (" (a new file)" if report.created_target else ""))
                with dst.transaction():
                    done = M.copy(dst, SOURCE, scopes, op_cursors, say=copied)
                    after = M.counts(dst, M.MAIN, scopes)
                    expected = {t: n - done.kept_target.get(t, 0) for t, n in rows.items()}
                    wrong = {t: (after[t], expected[t]) for t in rows if after[t] != expected[t]}
                    if wrong:  # raised inside the transaction: it rolls back
                        raise StoreError(
                            "the copy does not count up, rolled back: "
                            + ", ".join(
                                f"{t} {got} rows, {want} expected" for t, (got, want) in wrong.items()
                            )
                        )
                    lost = M.cached_missing(dst, SOURCE, scopes)
                    if lost:
                        raise StoreError(f"{lost} cached vectors were not copied, rolled back")
                report.copied = done.rows
                report.kept_target = done.kept_target
                report.cached_vectors = done.cached_vectors
                report.cursors = done.cursors
                report.warnings += done.warnings
                tell(f"checked: {target} holds {_table_list(after)} of these scopes, as {source} does")
        finally:
            M.detach(dst, SOURCE)
        dst.checkpoint()
    finally:
        dst.close()
    _drop_index_copies(target, scopes)

    if not delete_source:
        return report
    src = _open(source)
    try:
        M.attach(src, str(target), TARGET)
        try:
            gaps = M.missing(src, M.MAIN, TARGET, scopes)
            if any(gaps.values()):
                raise MoveRefused(
                    f"not deleting from {source}: {target} lacks some of its rows of these scopes"
                    f" ({_table_list(gaps)})"
                )
            tell(f"deleting the moved rows from {source}")
            with src.transaction():
                report.deleted = M.delete(src, scopes)
        finally:
            M.detach(src, TARGET)
        src.checkpoint()
    finally:
        src.close()
    _drop_index_copies(source, scopes)
    tell(f"deleted from {source}: {_table_list(report.deleted)}")
    return report
