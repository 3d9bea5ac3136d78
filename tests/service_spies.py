"""Shared by the tests that watch the RM's services by replacing a method on a service (no tests here).

The RM's services are mypyc native classes in the compiled build (yarnball/_native.py): their instances have no
``__dict__``, so ``rm.application_master_service.serve_allocate = spy`` fails there. An RM built inside
:func:`spyable_services` holds instances of plain Python subclasses of them instead (the classes are marked
``allow_interpreted_subclasses``), which take such a replacement in both builds; a compiled method calling the
replaced one on ``self`` calls the replacement, as a Python method would. :func:`spyable_ams` swaps the
ApplicationMasterService of an RM already built.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from yarnball.actors import _resourcemanager
from yarnball.actors._applicationmasterservice import ApplicationMasterService
from yarnball.actors._resourcetracker import ResourceTrackerService
from yarnball.actors._schedulerdispatcher import SchedulerEventDispatcher


class SpyableDispatcher(SchedulerEventDispatcher):
    """A SchedulerEventDispatcher whose methods a test may replace on the instance."""


class SpyableTracker(ResourceTrackerService):
    """A ResourceTrackerService whose methods a test may replace on the instance."""


class SpyableAMService(ApplicationMasterService):
    """An ApplicationMasterService whose methods a test may replace on the instance."""


@contextmanager
def spyable_services() -> Iterator[None]:
    """Every ResourceManager built inside holds the spyable services (ResourceManager.__init__ builds them)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_resourcemanager, "SchedulerEventDispatcher", SpyableDispatcher)
        m.setattr(_resourcemanager, "ResourceTrackerService", SpyableTracker)
        m.setattr(_resourcemanager, "ApplicationMasterService", SpyableAMService)
        yield


def spyable_ams(rm: Any) -> SpyableAMService:
    """Give the built ``rm`` a spyable ApplicationMasterService in place of its own (unless it has one: spies chain),
    and return it. The service holds no state of its own (its chain is chosen from the RM's services, again here), so
    nothing else changes."""
    ams = rm.application_master_service
    if not isinstance(ams, SpyableAMService):
        rm.application_master_service = ams = SpyableAMService(rm)
    return ams
