"""Type checking: user code over the public API passes ``mypy --strict``, ``@handler`` included.

``mypy`` itself (pyproject.toml [tool.mypy]: the whole package) runs in the README's test command; these tests add
strict mode, as an AM author's project may run it, on the files in tests/typecheck/ and on the public modules.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import mypy.api
import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "typecheck"
PUBLIC_MODULES = [ROOT / "yarnball" / name for name in ("__init__.py", "testing.py", "launcher/__init__.py")]


@pytest.fixture(scope="module")
def strict_errors(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The error lines of one ``mypy --strict`` run, with the project's configuration otherwise, over the samples
    and the public modules; the modules they import are checked silently (as an installed package is)."""
    cache = tmp_path_factory.mktemp("mypy-cache")
    files = [str(p) for p in (SAMPLES / "user_am.py", SAMPLES / "public_api.py", *PUBLIC_MODULES)]
    config = f"--config-file={ROOT / 'pyproject.toml'}"
    out, err, status = mypy.api.run([config, "--strict", "--follow-imports=silent", f"--cache-dir={cache}", *files])
    assert status in (0, 1), err  # 2: mypy itself failed
    return [line for line in out.splitlines() if ": error:" in line]


def _of(errors: list[str], path: Path) -> list[str]:
    return [line for line in errors if Path(line.split(":", 1)[0]).resolve() == path]


def test_an_am_subclass_with_handlers_type_checks_strictly(strict_errors: list[str]) -> None:
    """@handler (bare, and naming the types) keeps the decorated method's signature: the AM passes --strict, and
    calls to the handlers are checked (the deliberate bad call's ignore is used)."""
    assert _of(strict_errors, SAMPLES / "user_am.py") == []


def test_the_public_api_passes_strict_mode(strict_errors: list[str]) -> None:
    """yarnball, yarnball.testing and yarnball.launcher, and a program using their names, pass --strict."""
    for path in (SAMPLES / "public_api.py", *PUBLIC_MODULES):
        assert _of(strict_errors, path) == [], path


def test_the_user_am_sample_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The type-checked AM is a working one: told to grow by two containers, it runs its three tasks."""
    spec = importlib.util.spec_from_file_location("user_am_sample", SAMPLES / "user_am.py")
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    am = module.run()
    assert am.done == 3 and am.finished
