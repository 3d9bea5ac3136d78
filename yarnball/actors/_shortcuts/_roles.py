"""The role actors' classes, as the shortcuts compare against them: registered by the role modules at import.

A shortcut replaces a role actor's own method (``ResourceManager.on_allocate``, ``NodeManager.on_heartbeat_response``
and the like) and must switch off when that method is overridden or replaced; so it compares against the base
class's. Importing the role modules from here would close an import cycle (they import the shortcuts through the
seam, actors/_shortcuts/__init__.py), so each role module registers its class in :data:`ROLES` as its last
statement instead, and the shortcuts read them at run time (a role actor exists, so its module has run).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ROLES", "Roles"]


class Roles:
    """The registered role classes (None until their module is imported)."""

    __slots__ = ("application_master", "node_manager", "resource_manager", "resource_tracker", "running_status")

    def __init__(self) -> None:
        #: actors/_resourcemanager.py ``ResourceManager``
        self.resource_manager: Any = None
        #: actors/_resourcetracker.py ``ResourceTrackerService``
        self.resource_tracker: Any = None
        #: actors/_nodemanager.py ``NodeManager``
        self.node_manager: Any = None
        #: actors/_nodemanager.py ``running_status`` (the status reporting a container newly RUNNING)
        self.running_status: Any = None
        #: actors/_appmaster.py ``ApplicationMaster``
        self.application_master: Any = None


ROLES = Roles()
