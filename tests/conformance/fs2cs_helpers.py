"""Helpers for the fs2cs ports: queues as Hadoop's tests mock them (``WeightConverterTestBase``), a converter's
warnings and errors collected, and the converted keys under a prefix."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from yarnball.policies.fair import AllocationConfiguration
from yarnball.policies.fair.converter import (
    ConversionOptions,
    ConvertedConfiguration,
    ConvertedQueue,
    DryRunResultHolder,
    FSConfigToCSConfigRuleHandler,
)
from yarnball.protocols import Configuration

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fs2cs"
CS_PREFIX = "yarn.scheduler.capacity."


def queue(name: str, weight: float = 1.0, *, leaf: bool = True, **settings: Any) -> ConvertedQueue:
    """A queue with the default settings of an allocation without file, changed by ``settings``."""
    base = AllocationConfiguration.defaults(Configuration()).init_fs_queue(name)
    return ConvertedQueue(name, leaf=leaf, settings=replace(base, weight=weight, **settings))


def parent(name: str, children: list[ConvertedQueue], weight: float = 1.0, **settings: Any) -> ConvertedQueue:
    node = queue(name, weight, leaf=False, **settings)
    for child in children:
        child.parent = node
    node.children = list(children)
    return node


def create_fs_queues(*weights: int) -> ConvertedQueue:
    """``WeightConverterTestBase.createFSQueues``: root (weight 1) with children root.a, root.b, ... of ``weights``."""
    return parent("root", [queue(f"root.{chr(ord('a') + i)}", float(w)) for i, w in enumerate(weights)])


class Recorder:
    """A dry-run ConversionOptions whose warnings and errors the test reads."""

    def __init__(self) -> None:
        self.holder = DryRunResultHolder()
        self.options = ConversionOptions(self.holder, dry_run=True)

    def handler(self, **actions: str) -> FSConfigToCSConfigRuleHandler:
        """A rule handler with ``<rule>.action`` values (``minResources="abort"``)."""
        return FSConfigToCSConfigRuleHandler(self.options, {f"{k}.action": v for k, v in actions.items()})

    @property
    def warnings(self) -> set[str]:
        return self.holder.warnings

    @property
    def errors(self) -> set[str]:
        return self.holder.errors


def props(conf: ConvertedConfiguration, prefix: str = CS_PREFIX) -> dict[str, str]:
    return {key: value for key, value in conf.items() if key.startswith(prefix)}
