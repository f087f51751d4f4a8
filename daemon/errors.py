"""The exception hierarchy: every error memubot raises on purpose is a MemubotError."""


class MemubotError(Exception):
    """Base class; the message names the offending key, field or value."""


class ConfigError(MemubotError):
    """A setting is missing, malformed or contradicts another one."""


class InvalidInput(MemubotError):
    """A value given to memubot is malformed (a time without zone, an unknown option)."""


class InvalidEvent(InvalidInput):
    """An incoming event cannot be accepted (bad JSON, missing field, wrong type, too large)."""


class StoreError(MemubotError):
    """The DuckDB store refused an operation (schema too new, missing scope, corrupt row)."""


class StoreLocked(StoreError):
    """Another process holds the DuckDB file (DuckDB allows one writer process per file)."""

    def __init__(self, path: str, pid: int | None, detail: str, exe: str | None = None) -> None:
        holder = f" (PID {pid}, {exe})" if pid is not None and exe else (f" (PID {pid})" if pid else "")
        # the usual cause is a second memubot (or a CLI command) on the same file
        super().__init__(
            f"DuckDB file {path} is locked by another process{holder}: only one program may use it at "
            "a time; stop that one (another `memubot run`, or a memubot command still running) and "
            "start again"
        )
        self.path = path
        self.pid = pid
        self.detail = detail  # DuckDB's own words, for -v logs


class MoveRefused(StoreError):
    """Scopes cannot be moved between two DuckDB files as asked; nothing was changed."""


class ScopeRequired(StoreError):
    """A read or write was attempted without a scope: never means "all users"."""


class EmbeddingError(MemubotError):
    """The embedding model could not be loaded or did not answer."""
