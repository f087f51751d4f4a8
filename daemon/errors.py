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
    """The DuckDB file is held by another process (DuckDB allows one writer per file)."""


class ScopeRequired(StoreError):
    """A read or write was attempted without a scope: never means "all users"."""


class EmbeddingError(MemubotError):
    """The embedding model could not be loaded or did not answer."""
