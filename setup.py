"""Build script: the metadata is in setup.cfg; this file only adds the mypyc-compiled extension modules.

``pip install -e .`` (or ``pip install .``) compiles the modules listed in yarnball/_native.py (MYPYC_MODULES) with
mypyc into C extensions next to their sources: the pure, fully typed CapacityScheduler modules run about 2.6x faster
compiled, with byte-identical outputs. It also builds yarnball/_hugearena.c (huge-page arenas for CPython's
small-object allocator, launcher/_memory.py). ``YARNBALL_PURE_PYTHON=1 pip install -e .`` builds pure Python (no
compiler needed); compiling adds ~70 s to a clean install on 2 cores (mypyc, then gcc -O3 on every core).
After editing a listed module, rebuild (``pip install -e .``): until then yarnball warns and runs the sources.
"""

from __future__ import annotations

import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class _OptionalBuildExt(build_ext):
    """Compiles the extensions, and falls back to the pure-Python package when that fails (no C compiler or no
    Python headers on the machine): the modules compute the same outputs either way, only slower, so an install
    must not fail for want of gcc. The failure is reported loudly, once, with the way back."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # the modules' C files compile on every core (pip passes no -j)
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        # setuptools builds the extensions in parallel but compiles one extension's C files one after another, and
        # the mypyc group is one extension of ~60 C files: compile those on every core too.
        compile_serially = self.compiler.compile
        jobs = self.parallel if isinstance(self.parallel, int) else 1

        def compile_in_parallel(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
            if jobs <= 1 or len(sources) <= 1:
                return compile_serially(sources, *args, **kwargs)
            # the largest first, so that the last to start is a short one (gcc's time grows with the file)
            order = sorted(sources, key=lambda source: -Path(source).stat().st_size)
            with ThreadPoolExecutor(jobs) as pool:
                objects = dict(zip(order, pool.map(lambda source: compile_serially([source], *args, **kwargs), order)))
            return [obj for source in sources for obj in objects[source]]  # (in the sources' order, for the link)

        self.compiler.compile = compile_in_parallel  # type: ignore[method-assign]
        super().build_extensions()

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # setuptools raises CompileError, LinkError, DistutilsExecError, PlatformError...
            self._fallback(error)
            return
        if self.inplace:
            # The per-module extensions are small shims into the group's shared library: after an edit only the
            # library changes, and the copy into the source tree keeps each unchanged shim's old build time, which
            # yarnball/_native.py would then find older than the edited .py ("stale"): stamp them as built now.
            for ext in self.extensions:
                path = Path(self.get_ext_fullpath(ext.name))
                if path.exists():
                    os.utime(path)

    def _fallback(self, error: Exception) -> None:
        # All compiled or none (yarnball/_native.py): drop what was built before the failure, and any older build.
        for output in self.get_outputs():
            Path(output).unlink(missing_ok=True)
        _warn_pure(f"compiling the mypyc extensions failed ({type(error).__name__}: {error})")


def _listed_modules() -> tuple[str, ...]:
    """MYPYC_MODULES from yarnball/_native.py, read without importing the package (its dependencies may be absent)."""
    source = Path(__file__).parent / "yarnball" / "_native.py"
    namespace: dict[str, object] = {"__file__": str(source), "__name__": "yarnball._native"}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    modules = namespace["MYPYC_MODULES"]
    assert isinstance(modules, tuple)
    return modules


_BUILD_NOTE = Path(__file__).parent / "yarnball" / "_build.txt"  # read by yarnball/_native.py (yarnball --version)

# mypy's settings for mypyc's compile (pyproject.toml [tool.mypy] is the type check of the whole package, run by
# `mypy`). The compiled modules' imports are followed (their types make the C fast), but not the actors/launcher
# layers that `import yarnball` drags in: following those makes mypyc take ~90 s instead of ~3 s and does not change
# one byte of the generated C. The third-party imports are typed as Any: the build environment has only the build
# requirements (PEP 517 isolation), not the runtime dependencies, so mypy must not need their stubs.
MYPYC_CONFIG = """\
[mypy]
python_version = 3.11
follow_imports = silent

[mypy-structlog,structlog.*,msgspec,msgspec.*,msgpack,msgpack.*,ray,ray.*]
ignore_missing_imports = True
follow_imports = skip

[mypy-yarnball.actors.*,yarnball.launcher.*,yarnball.testing]
follow_imports = skip

[mypy-yarnball.policies.preemption.*,yarnball.policies.placement.*,yarnball.policies.opportunistic.*]
follow_imports = skip
"""


# The group's functions call each other and mypyc's runtime helpers (CPyTagged_DecRef, CPy_AddTraceback, ...), all
# in the one shared library; by default an ELF shared library makes every such call through its PLT (an indirect
# jump through the GOT), as if another library could replace the callee. Nothing does: bind them inside the library
# (about half of the library's calls; 2% fewer estimated cycles on the long-task benchmark, bench/history). GNU
# toolchains on Linux.
_LOCAL_CALLS_COMPILE = ["-fno-semantic-interposition"] if sys.platform.startswith("linux") else []
_LOCAL_CALLS_LINK = ["-Wl,-Bsymbolic-functions"] if sys.platform.startswith("linux") else []


def _note_build(text: str) -> None:
    """Leave why this install is pure Python (or nothing, when it is compiled) for `yarnball --version`."""
    try:
        _BUILD_NOTE.write_text(text + "\n" if text else "", encoding="utf-8")
    except OSError:
        pass


def _warn_pure(reason: str) -> None:
    _note_build(f"the install fell back to pure Python: {reason}")
    message = (
        f"yarnball: {reason}; installing the pure Python modules instead (same results, the scheduler ~2.6x slower). "
        "Install a C compiler and the Python headers, then `pip install -e .` again, to get the compiled build."
    )
    print("\n" + "!" * 80 + "\n" + message + "\n" + "!" * 80 + "\n", file=sys.stderr)


def _ext_modules() -> list[object]:
    if os.environ.get("YARNBALL_PURE_PYTHON", "") not in ("", "0"):
        _note_build("built pure: YARNBALL_PURE_PYTHON was set at install time")
        return []
    _note_build("")
    # Every failure of the compile stage falls back to the pure package: mypyc may be missing or broken, and mypy
    # (which mypycify runs before any C is written) may reject the sources; it reports through SystemExit.
    try:
        from mypyc.build import mypycify

        paths = [str(Path(*module.split(".")).with_suffix(".py")) for module in _listed_modules()]
        # MYPYC_CONFIG says which imports mypy follows. One group named inside the package: the shared library lands
        # in yarnball/ (yarnball/_native__mypyc.*.so), where the editable install's import finder, which maps only
        # the yarnball package, can find it.
        with tempfile.TemporaryDirectory(prefix="yarnball-mypyc-") as tmp:
            config = Path(tmp) / "mypyc.ini"
            config.write_text(MYPYC_CONFIG, encoding="utf-8")
            compiled = list(
                mypycify(
                    [f"--config-file={config}", *paths], opt_level="3", group_name="yarnball._native", multi_file=True
                )
            )
        # multi_file: one C file per module, so that the parallel build (_OptionalBuildExt.build_extensions) compiles
        # them on every core; their shared header lands in build/yarnball/ with the group's name.
        for ext in compiled:
            ext.include_dirs.append(str(Path("build") / "yarnball"))
            ext.extra_compile_args.extend(_LOCAL_CALLS_COMPILE)
            ext.extra_link_args.extend(_LOCAL_CALLS_LINK)
        # Huge-page arenas for pymalloc (yarnball/_hugearena.c, launcher/_memory.py): plain C, no dependency.
        return [*compiled, Extension("yarnball._hugearena", ["yarnball/_hugearena.c"])]
    except (Exception, SystemExit) as error:
        _warn_pure(f"mypyc could not compile the extensions ({type(error).__name__}: {error})")
        return []


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": _OptionalBuildExt})
