"""Build script: the metadata is in setup.cfg; this file only adds the mypyc-compiled extension modules.

``pip install -e .`` (or ``pip install .``) compiles the modules listed in yarnball/_native.py (MYPYC_MODULES) with
mypyc into C extensions next to their sources: the pure, fully typed CapacityScheduler modules run about 2.6x faster
compiled, with byte-identical outputs. ``YARNBALL_PURE_PYTHON=1 pip install -e .`` builds pure Python (no compiler
needed); compiling adds ~45 s to a clean install on 2 cores (mypyc ~3 s, gcc -O3 the rest). After editing a
listed module, rebuild (``pip install -e .``): until then yarnball warns and runs the sources.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup


def _listed_modules() -> tuple[str, ...]:
    """MYPYC_MODULES from yarnball/_native.py, read without importing the package (its dependencies may be absent)."""
    source = Path(__file__).parent / "yarnball" / "_native.py"
    namespace: dict[str, object] = {"__file__": str(source), "__name__": "yarnball._native"}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    modules = namespace["MYPYC_MODULES"]
    assert isinstance(modules, tuple)
    return modules


def _ext_modules() -> list[object]:
    if os.environ.get("YARNBALL_PURE_PYTHON", "") not in ("", "0"):
        return []
    from mypyc.build import mypycify

    paths = [str(Path(*module.split(".")).with_suffix(".py")) for module in _listed_modules()]
    # pyproject.toml [tool.mypy] says which imports mypy follows (the compiled modules' types, not the actor layers).
    # One group named inside the package: the shared library lands in yarnball/ (yarnball/_native__mypyc.*.so), where
    # the editable install's import finder, which maps only the yarnball package, can find it.
    config = Path(__file__).parent / "pyproject.toml"
    return mypycify([f"--config-file={config}", *paths], opt_level="3", group_name="yarnball._native")


setup(ext_modules=_ext_modules())
