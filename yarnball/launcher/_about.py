"""What this install is: ``yarnball --version`` (version, build, Python, Ray) and the checks that need those facts.

Nothing here imports Ray (``find_spec`` and the installed metadata answer whether it is there), so the answers are
quick on every machine.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import sys

from yarnball import _native
from yarnball._version import __version__
from yarnball.errors import ConfigurationError
from yarnball.launcher._memory import arena_extension, transparent_huge_pages

__all__ = ["RAY_INSTALL", "build_line", "ray_version", "require_ray", "version_text"]

# The exact command that adds the optional Ray backend to an install from this source tree.
RAY_INSTALL = "pip install -e '.[ray]'"


def ray_version() -> str | None:
    """The installed Ray's version, or None when Ray cannot be imported here (it is an optional extra)."""
    if importlib.util.find_spec("ray") is None:
        return None
    try:
        return importlib.metadata.version("ray")
    except importlib.metadata.PackageNotFoundError:
        return "unknown version"


def require_ray(what: str) -> None:
    """Raise a ConfigurationError (the CLI's exit 2) naming the install command when Ray is missing."""
    if ray_version() is None:
        raise ConfigurationError(
            f"{what} needs Ray, which is not installed: install the extra with `{RAY_INSTALL}` "
            "(or `pip install 'yarnball[ray]'`)"
        )


def build_line() -> str:
    """``compiled (14 modules compiled with mypyc)`` or ``pure Python (why)``."""
    compiled, detail = _native.build_status()
    return f"{'compiled' if compiled else 'pure Python'} ({detail})"


def version_text() -> str:
    """The lines ``yarnball --version`` prints."""
    ray = ray_version()
    return "\n".join(
        [
            f"yarnball {__version__}",
            f"build: {build_line()}",
            f"Python {platform.python_version()} ({sys.executable})",
            f"Ray: {ray} available" if ray else f"Ray: not installed (the ray backend needs `{RAY_INSTALL}`)",
            f"memory: {huge_pages_line()}",
        ]
    )


def huge_pages_line() -> str:
    """Whether runs put their small objects on huge pages (launcher/_memory.py), and the kernel's THP setting."""
    if arena_extension() is None:
        return "CPython's own arenas (the huge-page arena extension is not built)"
    setting = transparent_huge_pages() or "unknown"
    return f"huge-page arenas (yarnball.simulation.huge-page-arenas; transparent huge pages: {setting})"
