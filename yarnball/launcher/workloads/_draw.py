"""The synthetic trace's per-task draws (_synthetic.py), compiled (yarnball/_native.py): a job's maps draw two
integers each, a hundred maps a job, and the job feed makes each job inside the run.

:class:`UniformDraw` draws ``random.Random.randrange(n)`` and ``randint(lo, hi)`` as CPython does
(``Random._randbelow_with_getrandbits``: ``n.bit_length()`` random bits, drawn again while ``>= n``), from the same
generator and so the same numbers, without their argument checks and three calls per number. tests/test_job_feed.py
holds it to ``Random``'s own.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

__all__ = ["UniformDraw", "draw_maps"]

#: The place of a map requested anywhere: the last entry of a shape table (_synthetic.py).
ANYWHERE: Final = -1


class UniformDraw:
    """``randrange`` and ``randint`` of ``rng``, one call to its ``getrandbits`` a number (two when rejected)."""

    __slots__ = ("_getrandbits",)

    def __init__(self, rng: random.Random) -> None:
        self._getrandbits: Callable[[int], int] = rng.getrandbits

    def below(self, n: int, lo: int = 0) -> int:
        """``lo + randrange(n)``, ``n >= 1``."""
        getrandbits = self._getrandbits
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return lo + r

    def integer(self, lo: int, hi: int) -> int:
        """``randint(lo, hi)``, ``lo <= hi``."""
        return self.below(hi - lo + 1, lo)


def draw_maps(
    draw: UniformDraw,
    rng: random.Random,
    maps: int,
    num_nodes: int,
    locality: bool,
    fraction: float,
    duration_ms: tuple[int, int],
    tables: tuple[list[int], list[int]],
    new_shape: Callable[[int, bool], int],
    durations: list[int],
    shapes: list[int],
) -> None:
    """Draw ``maps`` maps in the trace's order (preferred node, then whether OPPORTUNISTIC, then duration) onto
    ``durations`` and ``shapes``. ``tables`` hold the shape number of a map on each node, guaranteed and
    opportunistic (-1: not numbered yet, then numbered by ``new_shape(node, opportunistic)``)."""
    guaranteed, opportunistic = tables
    lo, hi = duration_ms
    span = hi - lo + 1  # (randint(lo, hi) is lo + randrange(span))
    for _ in range(maps):
        where = draw.below(num_nodes) if locality else ANYWHERE
        is_opportunistic = fraction > 0 and rng.random() < fraction
        table = opportunistic if is_opportunistic else guaranteed
        durations.append(draw.below(span, lo))
        shape = table[where]
        if shape < 0:
            shape = table[where] = new_shape(where, is_opportunistic)
        shapes.append(shape)
