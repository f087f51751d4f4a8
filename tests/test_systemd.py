"""The user unit passes systemd's own checker and keeps the settings the daemon relies on."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from daemon.config import default_env_file, load_settings, read_env_file

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "memubot.service"
ENV_EXAMPLE = ROOT / "systemd" / "memubot.env.example"


def _directives(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if match := re.fullmatch(r"(\w+)=(.*)", line.strip()):
            found.setdefault(match[1], []).append(match[2])
    return found


def _verify(unit: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.fail("systemd-analyze not found: install systemd, the unit file must be verified")
    # --user needs a runtime directory to set up its (offline) manager; a private one keeps the
    # check off the real user session, and a private HOME keeps %h away from real files
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    (tmp_path / "home").mkdir()
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "XDG_RUNTIME_DIR": str(runtime),
        "LANG": "C.UTF-8",
        "SYSTEMD_LOG_COLOR": "0",
    }
    return subprocess.run(
        [analyze, "--user", "verify", str(unit)], capture_output=True, text=True, env=env, timeout=60
    )


def test_unit_verifies_without_a_single_message(tmp_path: Path) -> None:
    # verify checks that ExecStart's binary exists; the installed path is the user's, so point it
    # at this venv's console script instead
    memubot = Path(sys.executable).parent / "memubot"
    assert memubot.is_file(), f"{memubot} missing: pip install -e . first"
    text = UNIT.read_text(encoding="utf-8")
    unit = tmp_path / "memubot.service"  # verify wants the real unit name
    unit.write_text(re.sub(r"^ExecStart=\S+", f"ExecStart={memubot}", text, count=1, flags=re.M))
    result = _verify(unit, tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_verify_does_report_mistakes(tmp_path: Path) -> None:
    # so that the silence above means something: a typo and a missing binary are reported
    unit = tmp_path / "memubot.service"
    unit.write_text(
        "[Service]\nType=notify\nWatchdogSecs=60\nExecStart=/nonexistent/memubot run\n", encoding="utf-8"
    )
    result = _verify(unit, tmp_path)
    assert "WatchdogSecs" in result.stderr
    assert "/nonexistent/memubot" in result.stderr


def test_unit_keeps_what_the_daemon_relies_on() -> None:
    d = _directives(UNIT.read_text(encoding="utf-8"))
    assert d["Type"] == ["notify"]
    assert d["NotifyAccess"] == ["main"]
    assert d["ExecStart"] == ["%h/.local/share/memubot/venv/bin/memubot run"]
    assert d["WatchdogSec"] == ["60"]
    assert d["Restart"] == ["on-failure"]
    assert d["KillMode"] == ["mixed"]
    assert int(d["TimeoutStopSec"][0]) > 30, "must outlast the daemon's 30 s drain"
    assert d["EnvironmentFile"] == ["-%h/.config/memubot/memubot.env"]
    assert d["WantedBy"] == ["default.target"]
    # sandboxing by seccomp and process flags, which a user manager applies without privileges
    assert d["SystemCallFilter"] == ["@system-service"]
    assert d["SystemCallErrorNumber"] == ["EPERM"]
    assert d["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    for flag in (
        "NoNewPrivileges",
        "LockPersonality",
        "RestrictRealtime",
        "RestrictSUIDSGID",
        "RestrictNamespaces",
    ):
        assert d[flag] == ["yes"], flag
    assert "MemoryDenyWriteExecute" not in d
    # mount-namespace options need unprivileged user namespaces in a user unit: the unit would
    # not start where a distribution disables them
    for option in ("ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateDevices", "PrivateUsers"):
        assert option not in d, option


def _unit_environment(home: Path) -> dict[str, str]:
    """The unit's Environment= assignments, with %h expanded as systemd does for a user unit."""
    env = {}
    for assignment in _directives(UNIT.read_text(encoding="utf-8")).get("Environment", []):
        key, _, value = assignment.partition("=")
        env[key] = value.replace("%h", str(home))
    return env


@pytest.mark.parametrize("systemd", ["<= 253", ">= 254"])
def test_the_daemon_and_the_cli_agree_on_the_state_dir(tmp_path: Path, systemd: str) -> None:
    # what StateDirectory= would give a user unit on each side of systemd 254
    home = tmp_path / "home"
    state_directory = home / (".config/memubot" if systemd == "<= 253" else ".local/state/memubot")
    under_systemd = {"HOME": str(home), "STATE_DIRECTORY": str(state_directory), **_unit_environment(home)}
    in_a_shell = {"HOME": str(home)}
    daemon, cli = load_settings(under_systemd), load_settings(in_a_shell)
    assert daemon.state_dir == cli.state_dir == home / ".local/state/memubot"
    assert daemon.db_path == cli.db_path
    # moved in the environment file: systemd lets the file override Environment=, and the CLI
    # reads the same file (the unit's EnvironmentFile= is where config.py looks)
    env_file = Path(_directives(UNIT.read_text(encoding="utf-8"))["EnvironmentFile"][0].lstrip("-"))
    env_file = Path(str(env_file).replace("%h", str(home)))
    assert env_file == default_env_file(in_a_shell)
    env_file.parent.mkdir(parents=True)
    env_file.write_text(f"# moved\nMEMUBOT_STATE_DIR={tmp_path / 'elsewhere'}\n", encoding="utf-8")
    daemon = load_settings({**under_systemd, **read_env_file(env_file)})
    assert daemon.state_dir == load_settings(in_a_shell).state_dir == tmp_path / "elsewhere"


def test_env_example_names_only_real_settings_all_commented_out() -> None:
    config = (ROOT / "daemon" / "config.py").read_text(encoding="utf-8")
    names = []
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        assert not line.strip() or line.startswith("#"), f"active setting in the example: {line}"
        if match := re.fullmatch(r"# (MEMUBOT_\w+)=.*", line):
            names.append(match[1])
    for name in names:
        # config.py builds each secret's *_FILE variant from the base name
        assert name.removesuffix("_FILE") in config, f"{name} is not a setting config.py reads"
    required = {
        "MEMUBOT_NATS_URL",
        "MEMUBOT_HTTP_ADDR",
        "MEMUBOT_TIMEZONE",
        "MEMUBOT_LLM_URL",
        "MEMUBOT_LLM_API_KEY_FILE",
        "MEMUBOT_PROFILE_DIR",
        "MEMUBOT_PROFILE_SCOPE",
        "MEMUBOT_HEARTBEAT_HOURS",
        "MEMUBOT_MORNING_AT",
    }
    assert required <= set(names)
