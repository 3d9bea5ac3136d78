"""MkDocs hook: the generated reference pages, rendered from the code on every build.

- ``reference/cli.md``: every ``yarnball`` command, from the argparse parsers themselves (``cli.build_parser``,
  ``whatif.build_parser``, ``sweep.build_parser``), with each command's ``--help`` text verbatim;
- ``reference/configuration.md``: every configuration key of ``yarnball/protocols/keys.py`` with its default and the
  comment above it, split into the keys the package reads and the ones it only names.

The same functions are imported by ``tests/test_docs_reference.py``. Nothing here reaches the network.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import sys
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "yarnball"
KEYS_FILE = PACKAGE / "protocols" / "keys.py"
CLI_PAGE = "reference/cli.md"
CONFIG_PAGE = "reference/configuration.md"
HELP_COLUMNS = "100"  # argparse wraps --help to $COLUMNS; the page shows it as a 100-column terminal would

if str(ROOT) not in sys.path:  # document the checked-out sources, installed or not
    sys.path.insert(0, str(ROOT))

# (Hadoop's keys may be camelCase: yarn.scheduler.fair.waitTimeBeforeKill)
_KEY = re.compile(r"^(yarn|yarnball|mapreduce)\.[A-Za-z0-9.\-_]*[A-Za-z0-9_]$")


# -- the command line --------------------------------------------------------------------------------------------
def parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """(command, parser) for ``yarnball`` and each of its subcommands, in the order ``yarnball --help`` lists them."""
    from yarnball.launcher import cli, fs2cs, whatif
    from yarnball.launcher import sweep as sweep_cli

    main = cli.build_parser()
    out = [("yarnball", main)]
    sub = next(a for a in main._actions if isinstance(a, argparse._SubParsersAction))
    delegated = {
        "preempt": whatif.build_parser(),
        "sweep": sweep_cli.build_parser(),
        "fs2cs": fs2cs.build_parser(),
    }
    for name, parser in sub.choices.items():
        out.append((f"yarnball {name}", delegated.get(name, parser)))
    return out


def help_text(parser: argparse.ArgumentParser) -> str:
    """``parser``'s ``--help`` exactly as the command prints it in a terminal of HELP_COLUMNS columns."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        buf = io.StringIO()
        with redirect_stdout(buf):
            parser.print_help()
        return buf.getvalue()
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _option_rows(parser: argparse.ArgumentParser) -> Iterator[str]:
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        if action.option_strings:
            metavar = "" if action.nargs == 0 else " " + formatter._format_args(action, action.dest.upper())
            name = ", ".join(f"`{o}{metavar}`" for o in action.option_strings)
        else:
            name = f"`{formatter._format_args(action, action.dest)}`"
        help_ = formatter._expand_help(action) if action.help else ""
        default = action.default
        shown = "" if default in (None, False, [], "", argparse.SUPPRESS) or action.nargs == 0 else f"`{default}`"
        yield f"| {name} | {shown} | {_cell(help_)} |"


def cli_page() -> str:
    lines = [
        "# Command line",
        "",
        "Generated from the argparse parsers on every build of this site: each section is the command's own",
        "`--help`, so the two cannot disagree. Exit status: 0 when the run went well, 2 for a user error (bad",
        "options, traces or configuration files: one `yarnball: error:` line naming the file, key or field), 3 when",
        "the run itself went wrong (an actor handler raised, every application was rejected, or none finished);",
        "`yarnball sweep` exits 1 when a scenario failed.",
        "",
    ]
    for command, parser in parsers():
        lines += [f"## `{command}`", ""]
        if parser.description:
            lines += [parser.description, ""]
        rows = list(_option_rows(parser))
        if rows:
            lines += ["| option | default | meaning |", "|---|---|---|", *rows, ""]
        if parser.epilog:
            lines += [parser.epilog, ""]
        lines += [f'??? note "`{command} --help`"', "", "    ```text"]
        lines += [f"    {line}".rstrip() for line in help_text(parser).rstrip("\n").splitlines()]
        lines += ["    ```", ""]
    return "\n".join(lines)


# -- configuration keys --------------------------------------------------------------------------------------------
def _referenced_names() -> set[str]:
    """Names of keys.py constants that the package's other modules use (``keys.X``, ``k.X`` or imported)."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if path == KEYS_FILE:
            continue
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"\b(?:keys|k)\.([A-Z][A-Z0-9_]+)\b", text))
        for m in re.finditer(r"from yarnball\.protocols\.keys import \(([^)]*)\)|from yarnball\.protocols\.keys "
                             r"import ([^\n(]+)", text):
            names |= set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", m.group(1) or m.group(2)))
    return names


def _comment_above(lines: list[str], lineno: int) -> str:
    """The ``#:`` comment right above line ``lineno`` (1-based); else the line's own trailing comment; else the plain
    ``#`` comment block right above it."""
    block: list[str] = []
    i = lineno - 2
    while i >= 0 and lines[i].startswith("#:"):
        block.insert(0, lines[i][2:].strip())
        i -= 1
    if block:
        return " ".join(block)
    own = lines[lineno - 1]
    if "#" in own and not own.lstrip().startswith("#"):
        return own.split("#", 1)[1].strip()
    i = lineno - 2
    while i >= 0 and lines[i].startswith("# ") and not lines[i].startswith(("# --", "# ==")):
        block.insert(0, lines[i][2:].strip())
        i -= 1
    return " ".join(block)


def key_entries() -> list[dict[str, Any]]:
    """One entry per full configuration key in keys.py: constant, key, default (or None), meaning, section, read."""
    from yarnball.protocols import keys

    source = KEYS_FILE.read_text(encoding="utf-8")
    lines = source.splitlines()
    used = _referenced_names()
    section = ""
    starts: dict[int, str] = {}
    for i, line in enumerate(lines):
        # a section title: the comment line after a "# ----" rule, or "# -- title ---" on one line
        if line.startswith("# ---") and i + 1 < len(lines) and lines[i + 1].startswith("# ") and \
                not lines[i + 1].startswith("# ---"):
            starts[i + 2] = lines[i + 1][2:].strip()
        m = re.match(r"# -- (.+?) -+$", line)
        if m:
            starts[i + 1] = m.group(1)
    entries = []
    seen: set[str] = set()
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        for start in sorted(s for s in starts if s <= node.lineno):
            section = starts[start]
        name = node.targets[0].id
        value = getattr(keys, name, None)
        if name.startswith("DEFAULT_") or not isinstance(value, str) or not _KEY.match(value) or value in seen:
            continue
        seen.add(value)
        default = getattr(keys, "DEFAULT_" + name, getattr(keys, name + "_DEFAULT", None))
        entries.append(
            {
                "constant": name,
                "key": value,
                "default": None if default is None else keys._as_hadoop_string(default),
                "meaning": _comment_above(lines, node.lineno),
                "section": section.split(" (")[0].split(". ")[0].rstrip(".") if section else "",
                "read": name in used,
            }
        )
    return entries


def config_page() -> str:
    entries = key_entries()
    lines = [
        "# Configuration keys",
        "",
        "Generated from `yarnball/protocols/keys.py` on every build of this site: every key it names, the default",
        "yarnball applies when the key is not set, and the comment beside it in that module. Keys are read from",
        "`yarn-site.xml`, `capacity-scheduler.xml` and `sls-runner.xml` in `--conf-dir`, from `--conf KEY=VALUE`, or",
        "from the mapping given to `Cluster(conf, ...)`. `yarn.*` keys are Hadoop's names with Hadoop's defaults;",
        "`yarnball.*` keys are yarnball's own. Per-queue keys (`yarn.scheduler.capacity.<queue-path>.<suffix>`) are",
        "described in the [administrator's guide](../guides/administrator.md#queues).",
        "",
        "## Keys yarnball reads",
        "",
    ]
    section = None
    for entry in (e for e in entries if e["read"]):
        if entry["section"] != section:
            section = entry["section"]
            lines += ["", f"### {section or 'General'}", "", "| key | default | meaning |", "|---|---|---|"]
        default = "" if entry["default"] is None else f"`{entry['default']}`"
        lines.append(f"| `{entry['key']}` | {default} | {_cell(entry['meaning'])} |")
    unread = [e for e in entries if not e["read"]]
    lines += [
        "",
        "## Keys named but not read",
        "",
        "Hadoop keys that `keys.py` names (with Hadoop's default) but that change nothing in a yarnball run: the",
        "behaviour they configure is not modelled. Setting them is not an error.",
        "",
        "| key | Hadoop's default | note |",
        "|---|---|---|",
    ]
    for entry in unread:
        default = "" if entry["default"] is None else f"`{entry['default']}`"
        lines.append(f"| `{entry['key']}` | {default} | {_cell(entry['meaning'])} |")
    return "\n".join(lines) + "\n"


# -- the benchmark table ------------------------------------------------------------------------------------------
BENCH_MARKER = "<!-- bench/RESULTS.md table -->"


def bench_table() -> str:
    """The current-figures table that opens bench/RESULTS.md, as it is in the checkout."""
    lines = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| benchmark |"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


# -- the MkDocs hook -------------------------------------------------------------------------------------------------
def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path, render in ((CLI_PAGE, cli_page), (CONFIG_PAGE, config_page)):
        files.append(File.generated(config, path, content=render()))
    return files


CONFORMANCE_MARKER = "<!-- tests/conformance/README.md -->"


def conformance_tables() -> str:
    """tests/conformance/README.md below its title, its headings one level down, as it is in the checkout."""
    text = (ROOT / "tests" / "conformance" / "README.md").read_text(encoding="utf-8")
    body = text.split("\n", 1)[1]
    return re.sub(r"^(#+) ", lambda m: "#" + m.group(1) + " ", body, flags=re.M)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if BENCH_MARKER in markdown:
        markdown = markdown.replace(BENCH_MARKER, bench_table())
    if CONFORMANCE_MARKER in markdown:
        markdown = markdown.replace(CONFORMANCE_MARKER, conformance_tables())
    return markdown
