"""Feasibility prototype: compile the pure CapacityScheduler policy modules with mypyc.

``python setup_mypyc.py build_ext --inplace`` puts one extension per module (plus a shared ``*__mypyc*.so``) next to
the sources; the import system then prefers the .so over the .py. Delete the .so files to go back to pure Python.
Modules listed here must not have their classes' methods replaced on instances by the tests (mypyc native classes
forbid it). YB_MYPYC_MODULES (comma-separated short names) overrides the list for experiments.
"""

from __future__ import annotations

import os

from mypyc.build import mypycify
from setuptools import setup

PKG = "yarnball/policies/capacity"
DEFAULT = "_calculator,_state,_allocator,_leaf,_queues,_context"
modules = [f"{PKG}/{m.strip()}.py" for m in os.environ.get("YB_MYPYC_MODULES", DEFAULT).split(",") if m.strip()]

setup(
    name="yarnball-mypyc-prototype",
    packages=[],
    # follow-imports=silent: the rest of the package is imported as plain Python and is not type-clean under mypy.
    ext_modules=mypycify(["--follow-imports=silent", *modules], opt_level=os.environ.get("YB_MYPYC_OPT", "3")),
)
