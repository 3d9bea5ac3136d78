"""yarnball: Hadoop YARN resource management as actors exchanging MessagePack heartbeats."""

from __future__ import annotations

__version__ = "0.1.0"
