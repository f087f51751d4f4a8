"""The README's commands work as typed: the two commands, the tour, the systemd install, the example."""

from __future__ import annotations

import ast
import json
import re
import shlex
from pathlib import Path

import pytest

from daemon.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The README text from a heading to the next heading of the same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(title)}\n", README, flags=re.M)
    assert match, f"no section {title!r} in the README"
    lines, fenced = [], False
    for line in README[match.end() :].splitlines(keepends=True):
        fenced ^= line.startswith("```")
        # a shell comment inside a code block is not a heading
        if not fenced and re.match(rf"#{{1,{len(match[1])}}} ", line):
            break
        lines.append(line)
    return "".join(lines)


def sh_blocks(text: str) -> list[list[str]]:
    """The command lines of each ```sh block (comments and blank lines dropped)."""
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S)
    return [[ln for ln in b.splitlines() if ln.strip() and not ln.lstrip().startswith("#")] for b in blocks]


def test_two_commands_on_a_fresh_machine_and_ci_runs_the_second() -> None:
    run, test = sh_blocks(section("Two commands"))
    assert len(run) == 1 and len(test) == 1
    assert run[0].endswith(".venv/bin/memubot run")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == test[0]


def test_the_tour_runs_as_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    [lines] = sh_blocks(section("A short tour"))
    # neither of the two commands activates the venv: the tour does, before its first `memubot`
    assert lines[0] == ". .venv/bin/activate"
    commands = [ln.split("  #")[0] for ln in lines[1:]]
    assert all(c.startswith("memubot ") for c in commands)
    # in a scratch directory that sees the checkout's examples/, as the checkout itself would
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MEMUBOT_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("MEMUBOT_NATS_URL", "nats://127.0.0.1:1")  # no daemon: the tour works on a file
    monkeypatch.delenv("MEMUBOT_CONFIG", raising=False)
    monkeypatch.delenv("MEMUBOT_DB", raising=False)
    ran = 0
    for command in commands:
        if "it_0123..." in command:
            continue  # an item id the reader copies from their own output
        argv = shlex.split(command)[1:]
        assert main(argv) == 0, command
        out = capsys.readouterr()
        ran += 1
        if argv[0] == "import":
            # the example holds one empty turn: reported with its line number, then skipped
            assert "field 'text' is empty" in out.err and "10 valid turns (1 bad lines)" in out.out
        if argv[0] == "recall" and "--queries" not in argv:
            assert "support group yesterday" in out.out.splitlines()[0] and "relevance=" in out.out
    assert ran >= 7
    answers = [json.loads(x) for x in (tmp_path / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [a["id"] for a in answers] == ["q1", "q2", "q3", "q4", "q5"] and all(a["hits"] for a in answers)


def test_the_systemd_install_puts_memubot_on_the_path() -> None:
    blocks = sh_blocks(section("The daemon"))
    [install] = [b for b in blocks if any("systemctl --user enable" in ln for ln in b)]
    assert len(install) == 3, "three commands from a checkout"
    unit = (ROOT / "systemd" / "memubot.service").read_text(encoding="utf-8")
    [exec_start] = re.findall(r"^ExecStart=(\S+) run$", unit, flags=re.M)
    binary = exec_start.replace("%h", "~")
    assert f"ln -sf {binary} ~/.local/bin/memubot" in " ".join(install)
    assert binary.removesuffix("/bin/memubot") in install[0], "the venv the unit runs is the one installed"


def test_the_examples_docstring_runs_outside_an_activated_venv() -> None:
    doc = ast.get_docstring(ast.parse((ROOT / "examples" / "main_agent.py").read_text(encoding="utf-8")))
    assert doc is not None
    commands = [ln.strip() for ln in doc.splitlines() if ln.startswith("    ")]
    assert commands and all(c.startswith(".venv/bin/") for c in commands), commands
