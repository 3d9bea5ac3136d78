"""The documentation's figures and code cannot go stale: each one it quotes from running something is checked here
against what that thing computes now (other figures are left to the examples and bench/RESULTS.md, which the pages
point to)."""

from __future__ import annotations

import ast
import re
import runpy
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EMBEDDING = (ROOT / "docs" / "guides" / "embedding.md").read_text(encoding="utf-8")
ADMINISTRATOR = (ROOT / "docs" / "guides" / "administrator.md").read_text(encoding="utf-8")
WORDS = {"no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def _first_python_block(page: str) -> str:
    block = re.search(r"```python\n(.*?)```", page, re.S)
    assert block is not None
    return block.group(1)


def test_the_embedding_block_is_the_embedding_example() -> None:
    """The embedding guide's program is examples/embedding.py's code, statement for statement and line for line
    (the module docstring aside)."""
    example = (ROOT / "examples" / "embedding.py").read_text(encoding="utf-8")
    body = ast.parse(example).body
    assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)  # the docstring
    code = "\n".join(example.splitlines()[body[0].end_lineno :]).strip()
    assert _first_python_block(EMBEDDING).strip() == code


def test_the_packing_figures_of_the_guide_are_what_the_example_computes() -> None:
    """'spread gives 2 per node, no node free, 20% utilisation; packing at 80% gives 8, 8 and 4, seven nodes free
    and 67% after downscaling': every figure of that sentence, read from the guide, against the example."""
    text = " ".join(ADMINISTRATOR.split())
    m = re.search(
        r"spread gives (\d+) per node, (\w+) node free, (\d+)% utilisation; packing at (\d+)% gives ([\d, and]+), "
        r"\*\*(\w+)\*\* nodes free and (\d+)% after downscaling",
        text,
    )
    assert m is not None, "the packing sentence of the administrator's guide changed: update this test with it"
    per_node, spread_free, spread_util, threshold, packed, packing_free, packing_util = m.groups()
    place = runpy.run_path(str(ROOT / "examples" / "container_packing.py"))["place"]
    spread: dict[str, Any] = place("spread")
    packing: dict[str, Any] = place("packing", threshold=int(threshold))
    assert set(spread["used_nodes"]) == {int(per_node)}
    assert spread["free_nodes"] == WORDS[spread_free]
    assert round(100 * spread["utilisation_after_downscaling"]) == int(spread_util)
    assert packing["used_nodes"] == [int(n) for n in re.findall(r"\d+", packed)]
    assert packing["free_nodes"] == WORDS[packing_free]
    assert round(100 * packing["utilisation_after_downscaling"]) == int(packing_util)
    assert f"default={threshold})" in (ROOT / "examples" / "container_packing.py").read_text()  # the default run


def test_the_seed_examples_default_output_is_ignored_by_git() -> None:
    """preemption_seed.py's default --out is ignored by git (the other examples write only where a command-line
    option names)."""
    seed = (ROOT / "examples" / "preemption_seed.py").read_text(encoding="utf-8")
    default = re.search(r'"--out", default="([^"]+)"', seed)
    assert default is not None
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", f"{default.group(1)}/preemption_seed.png"], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0, f"{default.group(1)} is not ignored by git"
