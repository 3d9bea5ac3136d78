"""WHAT is said: YARN's records and messages as frozen msgspec Structs, and the MessagePack codec."""

from __future__ import annotations

from yarnball.protocols._records import *  # noqa: F403
from yarnball.protocols._records import ANY, __all__ as _records_all

__all__ = ["ANY", *_records_all]
