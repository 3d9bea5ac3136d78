"""Huge pages for the simulation's small objects (``yarnball.simulation.huge-page-arenas``, default true).

A large run is bound by memory access: at 10,000 busy nodes a container's path touches objects spread over ~1 GB,
and a good part of the time goes to TLB misses on 4 KiB pages (the per-container cost is ~1.7x that at 2,000
nodes). CPython's small-object allocator takes its memory in 1 MiB arenas; yarnball/_hugearena.c gives it arenas
carved from 2 MiB-aligned chunks marked ``MADV_HUGEPAGE``, which Linux's transparent huge pages (the usual
``madvise`` setting of /sys/kernel/mm/transparent_hugepage/enabled) back with 2 MiB pages.

It is installed when the first cluster (or shard host) of the process is built, before the cluster's own objects
exist, and stays for the life of the process: objects already allocated stay where they are, freed arenas are
kept for reuse instead of returned to the system (a run frees almost none). Outputs do not depend on it (the same
objects in the same order; tests/test_memory.py compares whole runs with it on and off). Nothing happens where
the extension was not built (a pure-Python install) or the platform has no ``MADV_HUGEPAGE``; set the key to false
to keep CPython's own arenas.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from yarnball.protocols import Configuration, keys

__all__ = ["arena_extension", "huge_page_arenas", "transparent_huge_pages"]

_THP_SETTING = "/sys/kernel/mm/transparent_hugepage/enabled"


def arena_extension() -> ModuleType | None:
    """yarnball/_hugearena.c's module, None where it was not built (a pure-Python install)."""
    try:
        from yarnball import _hugearena
    except ImportError:
        return None
    return _hugearena


def huge_page_arenas(conf: Configuration) -> bool:
    """Install the huge-page arena allocator unless ``conf`` turns it off; whether it is in effect."""
    if not conf.get_bool(keys.SIMULATION_HUGE_PAGE_ARENAS, keys.DEFAULT_SIMULATION_HUGE_PAGE_ARENAS):
        return False
    extension = arena_extension()
    return extension is not None and bool(extension.install())


def transparent_huge_pages() -> str | None:
    """The kernel's transparent-huge-page mode (``always``, ``madvise``, ``never``), None where it cannot be read."""
    try:
        text = Path(_THP_SETTING).read_text(encoding="ascii")
    except OSError:
        return None
    if "[" not in text or "]" not in text:
        return None
    return text.split("[", 1)[1].split("]", 1)[0]
