"""The seam of the sharded backends: :class:`HostGroup`, the shard hosts of one run wherever they live (in this
process, launcher/_hosts.py; in Ray actors, launcher/_ray.py and _live.py; wrapped by launcher/_hostrecovery.py)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["HostGroup", "WindowResult"]

# What a host returns per window: (batches by destination host, next event time, done time, last event time,
# earliest deliver time among the batches, seconds the host was busy with the window).
WindowResult = tuple[dict[int, bytes], "float | None", "float | None", float, "float | None", float]


class HostGroup(ABC):
    """The shard hosts of one run, wherever they live."""

    size: int

    @abstractmethod
    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        """Apply setup steps on every host."""

    @abstractmethod
    def run_window(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        """Run one window on the ``active`` hosts (in parallel where possible); results in host order, None for a
        host left idle (nothing due in the window and nothing delivered to it)."""

    @abstractmethod
    def call(self, index: int, method: str, *args: Any) -> Any:
        """Call ``method`` on the :class:`HostView` of host ``index`` and return its result."""

    @abstractmethod
    def close(self) -> None:
        """Stop the hosts (and whatever was started for them)."""
