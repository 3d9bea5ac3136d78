"""SynthTraceJobProducer.Sample and SynthUtils.getWeighted: the SYNTH generator's random draws, with bounds.

Every sample knows where it was written (file, field), so a value out of its domain, when read or when drawn, is
an error naming that field and the allowed range, never an endless loop, a division by zero or an overflow.
"""

from __future__ import annotations

import math
import random
from typing import Any

from ._json import Where
from ._keys import SYNTH_SAMPLE

__all__ = ["Sample", "bounded", "check_weights", "weighted"]


class Sample:
    """SynthTraceJobProducer.Sample: a constant, a LOGNORM/NORM distribution or a weighted discrete choice.

    ``low``/``high`` bound the constant, the mean of a distribution and every discrete value (a count of tasks
    cannot be negative, a probability lies in [0, 1]); draws are bounded again where they are used.
    """

    __slots__ = ("discrete", "dist", "mode", "mu", "path", "rng", "sigma", "val", "weights", "where")

    def __init__(self, where: Where, path: str, raw: Any, *, low: float | None = None, high: float | None = None):
        self.where, self.path = where, path
        self.rng: random.Random | None = None
        self.mu = self.sigma = 0.0
        self.dist = ""
        self.discrete: list[float] = []
        self.weights: list[float] = []
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = {"val": raw}  # yarnball convenience: a bare number is a constant
        d = where.obj(raw, path)
        where.check_keys(d, SYNTH_SAMPLE, path)
        val, std = d.get("val"), d.get("std")
        if val is not None:
            self.val = bounded(where, f"{path}.val", where.number(val, f"{path}.val"), low, high)
            if std is None:
                if any(d.get(k) is not None for k in ("dist", "discrete", "weights")):
                    where.fail(path, "a constant {val} takes no dist, discrete or weights")
                self.mode = "CONST"
                return
            if d.get("discrete") is not None or d.get("weights") is not None:
                where.fail(path, "a distribution {val, std} takes no discrete or weights")
            self.mode = "DIST"
            self.dist = "LOGNORM" if d.get("dist") is None else where.string(d["dist"], f"{path}.dist")
            if self.dist not in ("LOGNORM", "NORM"):
                where.fail(f"{path}.dist", f"expected LOGNORM or NORM, got {self.dist!r}")
            self.set_dist(self.val, where.number(std, f"{path}.std"), f"{path}.val", f"{path}.std")
            return
        if d.get("discrete") is None:
            where.fail(path, "a sample needs 'val' (with optional 'std', 'dist') or 'discrete' (and 'weights')")
        self.mode, self.val = "DISC", 0.0
        values = where.list(d["discrete"], f"{path}.discrete")
        if not values:
            where.fail(f"{path}.discrete", "needs at least one value")
        self.discrete = [
            bounded(where, f"{path}.discrete[{i}]", where.number(v, f"{path}.discrete[{i}]"), low, high)
            for i, v in enumerate(values)
        ]
        if d.get("weights") is None:
            self.weights = [1.0] * len(self.discrete)
        else:
            weights = where.list(d["weights"], f"{path}.weights")
            self.weights = [where.number(w, f"{path}.weights[{i}]") for i, w in enumerate(weights)]
        if len(self.weights) != len(self.discrete):
            where.fail(f"{path}.weights", f"{len(self.weights)} weights for {len(self.discrete)} discrete values")
        check_weights(where, f"{path}.weights", self.weights)

    @classmethod
    def legacy(cls, where: Where, path: str, mean: float, std: float | None, mean_field: str, std_field: str) -> Sample:
        """``new Sample(avg, stddev)`` (a LOGNORM distribution) or ``new Sample(val)`` of the legacy job format."""
        sample = cls.__new__(cls)
        sample.where, sample.path = where, path
        sample.rng, sample.mu, sample.sigma, sample.discrete, sample.weights = None, 0.0, 0.0, [], []
        sample.val = mean
        if std is None:
            sample.mode, sample.dist = "CONST", ""
        else:
            sample.mode, sample.dist = "DIST", "LOGNORM"
            sample.set_dist(mean, std, mean_field, std_field)
        return sample

    def set_dist(self, mean: float, std: float, mean_field: str, std_field: str) -> None:
        # SynthUtils.getLogNormalDist / getNormalDist return no distribution for mean <= 0, and SLS then fails with
        # a NullPointerException on the first draw: refuse the trace instead.
        if mean <= 0:
            self.where.fail(mean_field, f"a distribution needs a positive mean, got {mean:g}")
        if std < 0:
            self.where.fail(std_field, f"a standard deviation must be >= 0, got {std:g}")
        if std == 0:
            std = mean / 6  # "set default for missing param"
        if self.dist == "LOGNORM":
            square = mean * mean
            if square > 0:
                sigmasq = math.log1p(std * std / square)
            else:  # the mean's square underflowed to 0: divide before squaring rather than by zero
                sigmasq = math.log1p((std / mean) ** 2) if std / mean < 1e154 else math.inf
            self.sigma = math.sqrt(sigmasq)
            self.mu = math.log(mean) - 0.5 * sigmasq
            if not (math.isfinite(self.mu) and math.isfinite(self.sigma)):
                self.where.fail(std_field, f"std {std:g} is too large for a LOGNORM of mean {mean:g}")
        else:
            self.mu, self.sigma = mean, std

    def init(self, master: random.Random) -> None:
        """Sample.init: distributions get their own generator seeded from the master; discrete draws use it."""
        self.rng = random.Random(master.getrandbits(64)) if self.mode == "DIST" else master

    def get_double(self) -> float:
        assert self.rng is not None, "Sample used before init"
        if self.mode == "CONST":
            return self.val
        if self.mode == "DIST":
            try:
                if self.dist == "LOGNORM":
                    return self.rng.lognormvariate(self.mu, self.sigma)
                return self.rng.normalvariate(self.mu, self.sigma)
            except OverflowError:  # exp() of a huge draw; Java's double would be Infinity
                return math.inf
        return self.discrete[weighted(self.weights, self.rng)]

    def get_long(self, low: int, high: int) -> int:
        """Math.round of a draw, which must lie in ``[low, high]`` (else an error naming the sample's field)."""
        value = self.get_double()
        if not math.isfinite(value) or not low - 0.5 <= value < high + 0.5:
            self.where.fail(self.path, f"drew {value:g}, outside [{low}, {high}]; narrow the distribution")
        return math.floor(value + 0.5)  # Math.round


def bounded(where: Where, field: str, value: float, low: float | None, high: float | None) -> float:
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        where.fail(field, f"must be in [{lo}, {hi}], got {value:g}")
    return value


def weighted(weights: list[float], rng: random.Random) -> int:
    """SynthUtils.getWeighted: the first index whose running total exceeds a uniform draw."""
    total = sum(weights)
    draw = rng.random() * total
    cur = 0.0
    for i, w in enumerate(weights):
        cur += w
        if cur > draw:
            return i
    return len(weights) - 1  # Java would index past the end; weights are validated to sum > 0


def check_weights(where: Where, path: str, weights: list[float]) -> None:
    if any(w < 0 for w in weights):
        where.fail(path, "weights must not be negative")
    total = sum(weights)
    if not 0 < total < math.inf:
        where.fail(path, f"weights must add up to a finite number more than 0, got {total:g}")
