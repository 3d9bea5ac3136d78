"""The documentation: the README stays a short front page, the code and docs speak only of the project, the generated
references are the code's own, every code block of the docs runs (or names the test or example that runs it), and
the output reference covers what a run writes."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from yarnball.launcher._faults import FAULT_KINDS, parse_faults

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)

#: Project history that must not appear in the code or the docs: issue and session numbers, build tags, the load of
#: the machine a figure was measured on (a figure is stated with its command and date instead).
HISTORY = re.compile(
    r"\b(issue|session)\s*#?\d+|\(nat\d+\)|\bmachine load\b|\bat load \d|\bload \d+(\.\d+)?-\d+|\bthis (2-core )?VM\b",
    re.I,
)
#: A fenced block, with the marker comment right above it if any: ``<!-- docs: ci -->`` (the README's commands,
#: which CI runs), ``<!-- docs: example PATH -->`` or ``<!-- docs: test PATH -->`` (a script or test file that runs
#: it, which a test names). ``text`` blocks are outputs and usage patterns, not run.
BLOCK = re.compile(
    r"^(?:<!-- docs: (?P<kind>\w+)(?: (?P<arg>[^\s>]+))?[^>]*-->\n)?```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.M | re.S
)
RUNNABLE = ("python", "bash", "json", "toml", "xml", "text")


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference_hook", DOCS / "_hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _blocks(path: Path) -> list[re.Match[str]]:
    return list(BLOCK.finditer(path.read_text(encoding="utf-8")))


def _where(path: Path, m: re.Match[str]) -> str:
    return f"{path.relative_to(ROOT)}:{m.string[: m.start('body')].count(chr(10))}"


# -- the README and project history ------------------------------------------------------------------------------
def test_readme_is_a_short_front_page_opening_with_the_two_commands() -> None:
    """At most 150 lines; its first two bash blocks are the one-line commands CI runs: the main job, then the
    install, lint, type check, documentation build and tests."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    blocks = re.findall(r"```bash\n(.*?)\n```", text, re.S)
    assert len(blocks) >= 2 and all("\n" not in b.strip() for b in blocks[:2])
    assert blocks[0].startswith("pip install -e . && yarnball simulate ")
    assert "mkdocs build --strict" in blocks[1] and "python -m pytest" in blocks[1]
    assert "&& mypy &&" in blocks[1]  # the type check of the whole package (pyproject.toml [tool.mypy])
    assert text.index("```bash") < text.index("## ")  # the commands come before any section


def _history_files() -> list[Path]:
    code = [p for ext in ("*.py", "*.pyi", "*.c") for p in (ROOT / "yarnball").rglob(ext)]
    extra = [README, ROOT / "mkdocs.yml", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]
    extra.append(ROOT / "bench" / "RESULTS.md")
    extra.append(ROOT / "tests" / "conformance" / "README.md")  # included in the site's fidelity page
    return sorted(code) + PAGES + list((DOCS / "_hooks").glob("*.py")) + [p for p in extra if p.exists()]


def test_code_and_docs_speak_only_of_the_project() -> None:
    """No issue or session numbers, build tags or machine loads in the package, the README, the docs or the current
    benchmark table."""
    found = [
        f"{path.relative_to(ROOT)}:{i}: {m.group(0)!r}"
        for path in _history_files()
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in [HISTORY.search(line)]
        if m
    ]
    assert not found, "project history in code or docs:\n" + "\n".join(found)


def test_the_history_check_catches_issue_and_session_numbers() -> None:
    for text in ("fixed in issue 18", "Issue #5:", "(session 11, quiet)", "helpers (nat7)", "at load 13-28"):
        assert HISTORY.search(text), text
    for text in ("--load 6 --warmup-seconds", "see the issue tracker", "a session-scoped cluster"):
        assert not HISTORY.search(text), text


# -- the generated references ------------------------------------------------------------------------------------
def test_cli_reference_is_every_commands_help(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """The generated page holds, verbatim, what each command prints for --help (run through ``cli.main``, as a user
    runs it), and every option of every parser with its help text."""
    from yarnball.launcher.cli import main

    hook = _hook()
    page = hook.cli_page()
    monkeypatch.setenv("COLUMNS", hook.HELP_COLUMNS)
    for command, parser in hook.parsers():
        try:
            status = main([*command.split()[1:], "--help"])
        except SystemExit as exc:  # yarnball preempt lets argparse exit, as its --help does
            status = exc.code
        assert status in (0, None), command
        printed = capsys.readouterr().out
        indented = "\n".join(f"    {line}".rstrip() for line in printed.rstrip("\n").splitlines())
        assert indented in page, command
        for action in parser._actions:
            if action.help == "==SUPPRESS==":  # hidden from --help, so from the page too (SLS's deprecated aliases)
                continue
            for option in action.option_strings:
                assert f"`{option}" in page, (command, option)


def test_every_fault_kind_is_in_the_help_and_the_fault_reference() -> None:
    """``simulate --help``, the error message and the fault reference name the same kinds (FAULT_KINDS)."""
    help_ = " ".join(_hook().help_text(dict(_hook().parsers())["yarnball simulate"]).split())
    reference = (DOCS / "reference" / "faults.md").read_text(encoding="utf-8")
    for kind in FAULT_KINDS:
        assert kind in help_, kind
        assert f"| `{kind}` |" in reference, kind


def test_configuration_reference_is_keys_py() -> None:
    """Every key with a default in keys.DEFAULTS (built from the module's globals, not from its source) is on the
    generated page with that default, and every key there has a meaning (a ``#:`` comment in keys.py)."""
    from yarnball.protocols import keys

    hook = _hook()
    page = hook.config_page()
    for key, default in keys.DEFAULTS.items():
        assert f"| `{key}` | `{default}` |" in page, key
    entries = hook.key_entries()
    assert {e["key"] for e in entries} >= set(keys.DEFAULTS)
    assert [e["key"] for e in entries if not e["meaning"]] == []
    assert [e["key"] for e in entries if e["key"].startswith("yarnball.")]  # yarnball's own keys are listed too


def test_configuration_reference_marks_keys_the_package_does_not_read() -> None:
    read = {e["key"]: e["read"] for e in _hook().key_entries()}
    assert read["yarn.resourcemanager.scheduler.monitor.enable"] is True
    assert read["yarn.resourcemanager.scheduler.client.thread-count"] is False


# -- every code block runs -----------------------------------------------------------------------------------------
def _all_blocks() -> list[tuple[Path, re.Match[str]]]:
    return [(path, m) for path in [README, *PAGES] for m in _blocks(path)]


def test_every_code_block_has_a_language_and_a_known_marker() -> None:
    for path, m in _all_blocks():
        assert m.group("lang") in RUNNABLE, f"{_where(path, m)}: fenced block without a known language"
        kind, arg = m.group("kind"), m.group("arg")
        if kind is None or path == README:  # CI runs the README's blocks
            continue
        assert kind in ("ci", "example", "test"), _where(path, m)
        if kind == "ci":
            assert m.group("body").strip() in README.read_text(encoding="utf-8"), _where(path, m)
            continue
        target = ROOT / str(arg)
        assert target.is_file(), f"{_where(path, m)}: {arg} does not exist"
        if kind == "example":  # an example is run by a test that names it
            tests = [t for t in (ROOT / "tests").glob("test_*.py") if Path(str(arg)).name in t.read_text("utf-8")]
            assert tests, f"{_where(path, m)}: no test runs {arg}"


def _sandbox(tmp_path: Path) -> Path:
    """A working directory where the docs' relative paths (examples/...) resolve, and outputs stay out of the repo."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.parametrize("path", [p for p in PAGES if any(m.group("lang") == "python" for m in _blocks(p))],
                         ids=lambda p: str(p.relative_to(DOCS)))
def test_python_blocks_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's unmarked Python blocks run in order in one namespace, as a reader would paste them."""
    monkeypatch.chdir(_sandbox(tmp_path))
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for m in _blocks(path):
        if m.group("lang") == "python" and m.group("kind") is None:
            exec(compile(m.group("body"), _where(path, m), "exec"), namespace)


def _commands() -> list[tuple[str, str]]:
    out = []
    for path, m in _all_blocks():
        if m.group("lang") == "bash" and m.group("kind") is None and path != README:  # CI runs the README's
            body = m.group("body").replace("\\\n", " ")
            out += [(_where(path, m), line.strip()) for line in body.splitlines() if line.strip()]
    return out


@pytest.mark.parametrize(("where", "command"), _commands(), ids=[w for w, _ in _commands()])
def test_shell_commands_run(where: str, command: str, tmp_path: Path) -> None:
    """Each unmarked shell command runs and exits 0: ``yarnball ...`` through ``python -m yarnball.launcher``."""
    argv = shlex.split(command)
    assert argv[0] in ("yarnball", "python"), f"{where}: unknown command {argv[0]}"
    prefix = [sys.executable, "-m", "yarnball.launcher"] if argv[0] == "yarnball" else [sys.executable]
    argv = [*prefix, *argv[1:]]
    done = subprocess.run(argv, cwd=_sandbox(tmp_path), env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{where}: {command}\n{done.stderr[-2000:]}"


def test_data_blocks_are_valid() -> None:
    """JSON fault schedules parse as fault schedules, TOML sweep specs as sweep specs, XML as Hadoop XML."""
    from yarnball.launcher.sweep._spec import parse_spec

    for path, m in _all_blocks():
        body, lang = m.group("body"), m.group("lang")
        if lang == "json":
            data = json.loads(body)
            if isinstance(data, list) and data and "kind" in data[0]:
                parse_faults(data, _where(path, m))
        elif lang == "toml":
            parse_spec(tomllib.loads(body), source=_where(path, m), base_dir=ROOT / "examples" / "sweeps")
        elif lang == "xml":
            wrapped = body if body.lstrip().startswith("<configuration") else f"<configuration>{body}</configuration>"
            root = ET.fromstring(wrapped)
            assert all(p.find("name") is not None and p.find("value") is not None for p in root.iter("property"))


# -- outputs -------------------------------------------------------------------------------------------------------
def test_output_reference_covers_what_a_run_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled trace's run: every file it writes, every column of yarnball's tables and SLS's job table, and
    every top-level field of summary.json and realtimetrack.json (queue names aside) are on the output page."""
    from yarnball.launcher.cli import main

    page = (DOCS / "reference" / "outputs.md").read_text(encoding="utf-8")
    out = tmp_path / "out"
    monkeypatch.chdir(ROOT)
    argv = ["simulate", "--tracelocation", "examples/traces/sample-sls.json", "--nodes",
            "examples/traces/sample-nodes.json", "--output-dir", str(out), "--seed", "1", "--no-progress"]
    assert main(argv) == 0
    for f in out.rglob("*"):
        name = f.relative_to(out).as_posix()
        if f.is_file() and not re.match(r"metrics/(variable|counter|sampler)\.", name):
            assert f"`{name}`" in page or f"`{f.name}`" in page, name
    for f in [out / "jobruntime.csv", *[out / "metrics" / n for n in ("cluster.csv", "queues.csv", "scheduler_ops.csv",
                                                                      "scheduler_timecost.csv", "applications.csv")]]:
        for column in f.read_text().splitlines()[0].split(","):
            assert f"`{column}`" in page, (f.name, column)
    for key in json.loads((out / "summary.json").read_text()):
        assert f"`{key}`" in page, key
    for key in json.loads((out / "realtimetrack.json").read_text())[0]:
        generic = re.sub(r"^queue\.[^.]+\.", "queue.<leaf>.", key)
        assert f"`{generic}`" in page or "handle-" in key, key
