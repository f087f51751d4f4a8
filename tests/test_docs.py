"""The README's commands work as typed (the two commands, the tour, the systemd install, the
examples), and docs/ says what the code does: every setting, every RPC verb, the bus bodies."""

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
    blocks = sh_blocks(section("Install with systemd"))
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


# ---- the agent example ----------------------------------------------------------------


def python_block(text: str) -> str:
    [block] = re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)
    return str(block)


def test_the_agent_example_calls_the_client_as_it_is() -> None:
    """Every client call of the README's example exists and takes the arguments it is given, and
    every key it reads from a suggestion is one a suggestion has."""
    import inspect

    from daemon.client import Client
    from daemon.contract.outbound import Suggestion

    tree = ast.parse(python_block(section("Your agent")))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("Client", "memubot")
    ]
    used = {call.func.attr for call in calls if isinstance(call.func, ast.Attribute)}
    assert {"connect", "publish_turn", "suggestions", "send_feedback"} <= used, used
    for call in calls:
        assert isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
        method = getattr(Client, call.func.attr)  # AttributeError: the client has no such call
        bound = call.func.value.id == "Client"  # a classmethod, called on the class
        args = [object()] * len(call.args)
        kwargs = {kw.arg: object() for kw in call.keywords if kw.arg}
        inspect.signature(method).bind(*([] if bound else [object()]), *args, **kwargs)
    keys = {
        node.slice.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "s"
        and isinstance(node.slice, ast.Constant)
    }
    assert keys and keys <= set(Suggestion.model_fields), keys


def test_the_subject_an_agent_publishes_turns_on_is_in_the_readme_and_the_contracts() -> None:
    from daemon.subjects import conversation_subject

    subject = conversation_subject("<agent>")
    assert f"`{subject}`" in section("Your agent")
    assert f"`{subject}`" in (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")


# ---- docs/contracts.md ------------------------------------------------------------------

CONTRACTS = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")


def json_values(text: str) -> list[object]:
    """The JSON values of every ```json block in `text`, in order (a block may hold several)."""
    values: list[object] = []
    decoder = json.JSONDecoder()
    for block in re.findall(r"^```json\n(.*?)^```", text, flags=re.M | re.S):
        at = 0
        while block[at:].strip():
            at += len(block[at:]) - len(block[at:].lstrip())
            value, at = decoder.raw_decode(block, at)
            values.append(value)
    return values


def contracts_section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", CONTRACTS, flags=re.M | re.S)
    assert match, f"no section {title!r} in docs/contracts.md"
    return match[1]


def test_the_bodies_shown_in_the_contracts_are_what_the_daemon_reads_and_writes() -> None:
    from daemon.contract import inbound, outbound, requests

    [turn] = json_values(contracts_section("A conversation turn"))
    inbound.validate(inbound.ConversationTurn, turn)
    [readme_turn] = json_values(section("Your agent"))
    assert readme_turn == turn
    [feedback] = json_values(contracts_section("Feedback"))
    inbound.validate(inbound.Feedback, feedback)
    [suggestion] = json_values(contracts_section("A suggestion"))
    outbound.Suggestion.model_validate(suggestion)
    [context] = json_values(contracts_section("Context"))
    outbound.Context.model_validate(context)
    [op] = json_values(contracts_section("A memory operation"))
    outbound.MemoryOp.model_validate(op)
    request, reply = json_values(contracts_section("Request/reply (`memubot.rpc.<verb>`)"))
    recall_request, recall_reply = requests.VERBS["recall"]
    recall_request.model_validate(request)
    recall_reply.model_validate(reply)


def test_the_contracts_name_every_rpc_verb_and_each_key_it_reads() -> None:
    from daemon.contract import requests

    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \| (.*?) \|", CONTRACTS, flags=re.M)}
    for verb in requests.VERBS:
        assert verb in rows, f"docs/contracts.md has no row for the RPC verb {verb}"
        for key in requests.keys(verb):
            assert f"`{key}`" in rows[verb], f"docs/contracts.md: {verb} lacks the key {key}"


# ---- docs/settings.md -------------------------------------------------------------------


def settings_rows() -> list[list[str]]:
    """The cells of each row of docs/settings.md's table (variable, TOML key, default, meaning)."""
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("| variable |")
    ]
    assert rows and all(len(row) == 4 for row in rows), [row for row in rows if len(row) != 4]
    return rows


def variables_read_by_config() -> set[str]:
    """The variable names daemon/config.py (the only reader of the environment) mentions."""
    tree = ast.parse((ROOT / "daemon" / "config.py").read_text(encoding="utf-8"))
    names = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"MEMUBOT_[A-Z_]+|NOTIFY_SOCKET|WATCHDOG_USEC", node.value)
    }
    return names - {"MEMUBOT_CONFIG"}  # the file itself, not a setting in it


# Settings fields set otherwise than through config._ENV: the variable that sets each
# (the test below sets it and checks that the field changed)
NOT_IN_ENV_TABLE = {
    "state_dir": ("MEMUBOT_STATE_DIR", "/tmp/memubot-doc-test"),
    "embed_api_key": ("MEMUBOT_EMBED_API_KEY", "k"),
    "llm_api_key": ("MEMUBOT_LLM_API_KEY", "k"),
    "ui_token": ("MEMUBOT_UI_TOKEN", "t"),
    "github_token": ("MEMUBOT_GITHUB_TOKEN", "t"),
    "github_webhook_secrets": ("MEMUBOT_GITHUB_WEBHOOK_SECRET", "s"),
    "gmail_push_token": ("MEMUBOT_GMAIL_PUSH_TOKEN", "t"),
    "notify_socket": ("NOTIFY_SOCKET", "/run/notify"),
    "watchdog_usec": ("WATCHDOG_USEC", "1000"),
}


def test_every_setting_has_a_row_in_docs_settings(tmp_path: Path) -> None:
    import dataclasses

    from daemon import config

    rows = settings_rows()

    def row_of(var: str) -> list[str]:
        found = [row for row in rows if f"`{var}`" in row[0]]
        assert found, f"docs/settings.md has no row for {var}"
        return found[0]

    for var, key, _ in config._ENV:
        assert f"`{key}`" in row_of(var)[1], f"docs/settings.md: {var}'s row lacks its TOML key {key}"
    for var in variables_read_by_config():
        row_of(var)
    for section_name in config._TABLES:
        assert any(f"`[{section_name}]`" in row[1] for row in rows), f"no row for [{section_name}]"
    # every field of Settings is set by a documented variable (or is the memory's TOML tables)
    base = {"HOME": str(tmp_path), "MEMUBOT_STATE_DIR": str(tmp_path / "state")}
    default = config.load_settings(base, config_file=None)
    from_env = {name for _, _, name in config._ENV}
    for f in dataclasses.fields(config.Settings):
        if f.name in from_env or f.name == "memory":
            continue
        assert f.name in NOT_IN_ENV_TABLE, f"Settings.{f.name}: which variable sets it? Document it."
        var, value = NOT_IN_ENV_TABLE[f.name]
        row_of(var)
        changed = config.load_settings({**base, var: value})
        assert getattr(changed, f.name) != getattr(default, f.name), f"{var} does not set {f.name}"
    # and no row names a variable memubot does not read
    documented = set(re.findall(r"`((?:MEMUBOT|NOTIFY|WATCHDOG)_[A-Z_]+)`", " ".join(r[0] for r in rows)))
    read = variables_read_by_config()
    for var in documented:
        assert var in read or var.removesuffix("_FILE") in read, f"docs/settings.md documents {var}: unknown"


# ---- bench scripts that write their tables into docs/ -------------------------------------


def test_every_bench_that_writes_a_table_finds_its_markers_in_its_page() -> None:
    """`--readme` (the flag keeps its name) writes between the script's markers in the page DOC."""
    writers = 0
    for script in sorted((ROOT / "bench").glob("*.py")):
        tree = ast.parse(script.read_text(encoding="utf-8"))
        if not any(
            isinstance(node, ast.ImportFrom) and node.module == "doc_block" for node in ast.walk(tree)
        ):
            continue
        constants: dict[str, object] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    continue
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    constants[target.id] = value
                elif isinstance(target, ast.Tuple) and isinstance(value, tuple):
                    constants.update(
                        {t.id: v for t, v in zip(target.elts, value, strict=True) if isinstance(t, ast.Name)}
                    )
        doc, begin, end = (constants.get(k) for k in ("DOC", "BEGIN", "END"))
        assert isinstance(doc, str) and isinstance(begin, str) and isinstance(end, str), script.name
        assert doc.startswith("docs/"), f"{script.name} writes into {doc}, not a page of docs/"
        page = (ROOT / doc).read_text(encoding="utf-8")
        assert page.count(begin) == 1 and page.count(end) == 1, f"{doc} lacks {script.name}'s markers"
        assert page.index(begin) < page.index(end)
        writers += 1
    assert writers == 6  # context_latency, cost_table, proact, proactive, soak, updates


# ---- links between the pages ------------------------------------------------------------


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown page (code blocks skipped)."""
    found, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")
        if not fenced and (m := re.match(r"#+ (.*)", line)):
            slug = re.sub(r"[^\w\- ]", "", m[1].strip().lower()).replace(" ", "-")
            found.add(slug)
    return found


def test_every_link_between_the_readme_and_docs_leads_somewhere() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    checked = 0
    for page in pages:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not ours to check
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.name}: link to {target}: no such file"
            if anchor:
                assert anchor in anchors(dest), f"{page.name}: link to {target}: no such heading"
            checked += 1
    assert checked > 30
