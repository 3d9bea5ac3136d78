"""The exact shortcuts' one settings object: ``yarnball.simulation.exact-shortcuts`` and its four sub-switches.

``yarnball.simulation.exact-shortcuts`` (default true) false turns every shortcut off at once. The sub-switches,
each default true and only effective with it, turn one family off for debugging (which shortcut is at fault?):
``yarnball.simulation.skip-idle-heartbeats`` (NM heartbeats that change nothing), ``skip-idle-am-heartbeats`` (AM
allocates that send and get nothing), ``dormant-idle-ams`` (idle AMs without events; needs the AM skipping) and
``lazy-running-reports`` (RUNNING-only heartbeats of dormant NMs; needs the NM skipping). Nothing else reads these
keys: the cluster builders hand the settings to :meth:`ShortcutSettings.install`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from yarnball.actors._shortcuts._amdormancy import DormantAMs
from yarnball.actors._shortcuts._lazyrunning import LazyRunning
from yarnball.actors._shortcuts._routes import InPlaceHeartbeats
from yarnball.protocols import keys

__all__ = ["ShortcutSettings"]


@dataclass(frozen=True)
class ShortcutSettings:
    """Which exact shortcuts a cluster runs with (each sub-switch is False whenever ``exact`` is)."""

    #: ``yarnball.simulation.exact-shortcuts``: False leaves no event out.
    exact: bool = True
    #: ``yarnball.simulation.skip-idle-heartbeats``
    skip_idle_heartbeats: bool = True
    #: ``yarnball.simulation.skip-idle-am-heartbeats``
    skip_idle_am_heartbeats: bool = True
    #: ``yarnball.simulation.dormant-idle-ams``
    dormant_idle_ams: bool = True
    #: ``yarnball.simulation.lazy-running-reports``
    lazy_running_reports: bool = True

    @classmethod
    def from_conf(cls, conf: Any, *, proven: bool = True) -> ShortcutSettings:
        """The settings of ``conf`` (a Configuration); ``proven`` False (a live run: the shortcuts are proven for
        virtual time) turns them all off as the master switch does."""
        exact = proven and conf.get_bool(keys.SIMULATION_EXACT_SHORTCUTS, keys.DEFAULT_SIMULATION_EXACT_SHORTCUTS)

        def switch(key: str, default: bool) -> bool:
            return exact and bool(conf.get_bool(key, default))

        return cls(
            exact=bool(exact),
            skip_idle_heartbeats=switch(
                keys.SIMULATION_SKIP_IDLE_HEARTBEATS, keys.DEFAULT_SIMULATION_SKIP_IDLE_HEARTBEATS
            ),
            skip_idle_am_heartbeats=switch(
                keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS, keys.DEFAULT_SIMULATION_SKIP_IDLE_AM_HEARTBEATS
            ),
            dormant_idle_ams=switch(keys.SIMULATION_DORMANT_IDLE_AMS, keys.DEFAULT_SIMULATION_DORMANT_IDLE_AMS),
            lazy_running_reports=switch(
                keys.SIMULATION_LAZY_RUNNING_REPORTS, keys.DEFAULT_SIMULATION_LAZY_RUNNING_REPORTS
            ),
        )

    def install(self, kernel: Any, clock: Any, rm: Any) -> None:
        """Switch the shortcuts of an embedded cluster on as these settings say: the kernel, the NM heartbeat clock
        (``rm.use_heartbeat_clock`` already called), and the RM's dormant AMs."""
        kernel.exact_shortcuts = self.exact
        clock.skip = self.skip_idle_heartbeats
        clock.skip_am = self.skip_idle_am_heartbeats
        if self.exact:
            clock.inline = InPlaceHeartbeats().__call__  # real heartbeats handed to the RM in place of the event
        if self.lazy_running_reports:
            LazyRunning(clock, rm)  # RUNNING-only heartbeats of dormant nodes settled lazily
        dormant: DormantAMs = rm.dormant
        dormant.enabled = self.dormant_idle_ams  # idle quiet AMs sleep until work appears; needs AM skipping

    def install_on_host(self, kernel: Any, clock: Any, proven: bool) -> None:
        """The same for a shard host with no modelled latency (one kernel with instant messages): only the NM and
        AM skipping, where ``proven`` (the embedded cluster's conditions)."""
        kernel.exact_shortcuts = self.exact
        clock.skip = proven and self.skip_idle_heartbeats
        clock.skip_am = proven and self.skip_idle_am_heartbeats
