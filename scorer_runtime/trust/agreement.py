"""How far the judge agrees with people, with how sure the measurement is.

On the examples that have both a person's grade and a score of one scorer version, this
measures n, percent agreement, Cohen's kappa (pass/fail and labels; quadratic-weighted for
three or more labels, which are ordered), and for number scales also Spearman's rank
correlation and the mean absolute error (with kappa on pass/fail at the pass mark). Each figure
comes with a 95 % interval that never claims more than the data holds (the methods and their
sources are in :mod:`scorer_runtime.trust.intervals`): percent agreement by Wilson's score
interval, kappa by a Bayesian bootstrap over the confusion table (Dirichlet draws of the cell
probabilities with Perks' prior, 1 / cells in each cell; seeded, so the same data gives the
same interval), with the base rates, the confusion matrix and a reading in plain words. With
30 agreements of 30 the share of the same verdict reads 89 % to 100 % and kappa's lower end
stays below 1.

The point estimate of kappa is scikit-learn's ``cohen_kappa_score``. Undefined figures are
``None`` with the reason in words, never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorer_runtime.trust.intervals import DRAWS, dirichlet_tables, percentile_interval, wilson
from scorer_runtime.trust.scale import Scale, ScaleKind

RESAMPLES = DRAWS
SEED = 20261201
"""The seed of the Dirichlet draws: the same data always gives the same interval."""
SETTLED_WIDTH = 0.2
"""An interval of kappa narrower than this (± 0.1) reads as settled; wider asks for more grades."""

_LANDIS_KOCH = (
    (0.0, "poor"),
    (0.2, "slight"),
    (0.4, "fair"),
    (0.6, "moderate"),
    (0.8, "substantial"),
    (math.inf, "almost perfect"),
)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A figure and its 95 % interval; ``None`` where it cannot be measured."""

    value: float | None
    low: float | None = None
    high: float | None = None

    @property
    def width(self) -> float | None:
        """How wide the interval is (``None`` without one)."""
        return None if self.low is None or self.high is None else self.high - self.low


NONE = Estimate(None)


@dataclass(frozen=True, slots=True)
class Agreement:
    """What agreement between people and the judge was measured, and how sure it is.

    ``confusion`` counts examples by the person's grade (rows) and the judge's (columns), in
    the order of ``categories``. ``problems`` says, in words, why a figure is missing.
    """

    n: int
    kind: ScaleKind
    kappa_name: str
    kappa: Estimate
    percent_agreement: Estimate
    human_pass_rate: float | None
    judge_pass_rate: float | None
    categories: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]
    spearman: Estimate | None
    mae: Estimate | None
    problems: tuple[str, ...]
    reading: str
    more_to_grade: int | None

    def as_json(self) -> dict[str, Any]:
        """Plain data for ``--json`` (undefined figures are ``null``)."""
        data: dict[str, Any] = {
            "n": self.n,
            "scale": self.kind,
            "kappa_kind": self.kappa_name,
            "kappa": self.kappa.value,
            "ci_low": self.kappa.low,
            "ci_high": self.kappa.high,
            "percent_agreement": self.percent_agreement.value,
            "percent_agreement_ci": [self.percent_agreement.low, self.percent_agreement.high],
            "human_pass_rate": self.human_pass_rate,
            "judge_pass_rate": self.judge_pass_rate,
            "confusion": {
                "labels": list(self.categories),
                "rows_people_columns_judge": [list(row) for row in self.confusion],
            },
            "reading": self.reading,
            "more_to_grade": self.more_to_grade,
            "problems": list(self.problems),
        }
        for name, figure in (("spearman", self.spearman), ("mae", self.mae)):
            if figure is not None:
                data[name] = figure.value
                data[f"{name}_ci"] = [figure.low, figure.high]
        return data


def categories_of(scale: Scale) -> tuple[str, ...]:
    """The grades compared between people and the judge: the labels, else pass and fail."""
    if scale.kind == "labels" and scale.labels:
        return tuple(name for name, _ in scale.labels)
    return ("pass", "fail")


def landis_koch(kappa: float) -> str:
    """Landis and Koch's (1977) words for a kappa: poor, slight, fair, moderate, ..."""
    return next(word for bound, word in _LANDIS_KOCH if kappa <= bound)


def kappa_from_counts(counts: NDArray[Any], weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """Kappa of each confusion table in ``counts`` (shape ``(..., K, K)``) at once.

    ``weights`` are disagreement weights: ``1 - identity`` gives Cohen's kappa,
    ``(i - j)² / (K - 1)²`` the quadratic-weighted one. NaN where kappa is undefined.
    """
    table = np.asarray(counts, dtype=np.float64)
    n = table.sum(axis=(-2, -1))
    expected = table.sum(axis=-1)[..., :, None] * table.sum(axis=-2)[..., None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (weights * table).sum(axis=(-2, -1)) / n
        chance = (weights * expected).sum(axis=(-2, -1)) / (n * n)
        result: NDArray[np.float64] = np.where(chance > 0, 1.0 - observed / chance, np.nan)
    return result


def disagreement_weights(size: int, *, quadratic: bool) -> NDArray[np.float64]:
    """Cohen's (0 on the diagonal, 1 elsewhere) or quadratic ((i - j)² / (K - 1)²) weights."""
    index = np.arange(size, dtype=np.float64)
    if quadratic and size > 2:
        return np.asarray((index[:, None] - index[None, :]) ** 2 / (size - 1) ** 2)
    return np.asarray(1.0 - np.eye(size))


def more_to_grade(n: int, width: float, target: float = SETTLED_WIDTH) -> int:
    """About how many more examples to grade for an interval of ``width`` to shrink to
    ``target``: an interval narrows with the square root of n."""
    if width <= target or n <= 0:
        return 0
    return max(1, math.ceil(n * (width / target) ** 2) - n)


def measure(
    pairs: Sequence[tuple[float, float]],
    scale: Scale,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Agreement:
    """Agreement of ``pairs`` of (person's grade, judge's score) on ``scale``.

    ``resamples`` is the number of Dirichlet draws of the confusion table for kappa's interval,
    ``seed`` seeds them (and the mean distance's bootstrap on a number scale).
    """
    categories = categories_of(scale)
    human = np.array([h for h, _ in pairs], dtype=np.float64)
    judge = np.array([j for _, j in pairs], dtype=np.float64)
    n = len(pairs)
    quadratic = scale.kind == "labels" and len(categories) > 2
    name = "quadratic-weighted kappa" if quadratic else "Cohen's kappa"
    if scale.kind == "number":
        name = "Cohen's kappa at the pass mark"
    h_codes, j_codes = _codes(human, scale), _codes(judge, scale)
    if n < 2:
        return _too_few(n, scale, categories, name, agreed=int(np.sum(h_codes == j_codes)))
    counts = np.bincount(h_codes * len(categories) + j_codes, minlength=len(categories) ** 2)
    table = counts.reshape(len(categories), len(categories))
    problems = list(_one_class_problems(h_codes, j_codes, categories))
    weights = disagreement_weights(len(categories), quadratic=quadratic)
    kappa = (
        NONE
        if problems
        else _estimate(
            _sklearn_kappa(h_codes, j_codes, len(categories), quadratic),
            kappa_from_counts(dirichlet_tables(table, draws=resamples, seed=seed), weights),
        )
    )
    agreed = int(np.trace(table))
    percent = Estimate(agreed / n, *wilson(agreed, n))
    spearman = mae = None
    if scale.kind == "number":
        from scorer_runtime.trust.numbers import number_agreement

        spearman, mae, words = number_agreement(human, judge, scale, seed=seed)
        problems.extend(words)
    reading, more = _reading(n, name, kappa, problems)
    return Agreement(
        n=n,
        kind=scale.kind,
        kappa_name=name,
        kappa=kappa,
        percent_agreement=percent,
        human_pass_rate=_pass_rate(human, scale),
        judge_pass_rate=_pass_rate(judge, scale),
        categories=categories,
        confusion=tuple(tuple(int(c) for c in row) for row in table),
        spearman=spearman,
        mae=mae,
        problems=tuple(problems),
        reading=reading,
        more_to_grade=more,
    )


def _codes(scores: NDArray[np.float64], scale: Scale) -> NDArray[np.int64]:
    """Each score's category: its label's place (best first), else 0 for pass and 1 for fail."""
    if scale.kind == "labels" and scale.labels:
        values = np.array([score for _, score in scale.labels])
        return np.asarray(np.abs(scores[:, None] - values[None, :]).argmin(axis=1), np.int64)
    return np.where(scores >= scale.pass_mark, 0, 1).astype(np.int64)


def _sklearn_kappa(
    human: NDArray[np.int64], judge: NDArray[np.int64], size: int, quadratic: bool
) -> float:
    from sklearn.metrics import cohen_kappa_score

    weights = "quadratic" if quadratic else None
    return float(cohen_kappa_score(human, judge, labels=list(range(size)), weights=weights))


def _estimate(point: float, drawn: NDArray[np.float64]) -> Estimate:
    """The point and the 2.5th and 97.5th percentiles of the draws that are defined."""
    if not math.isfinite(point):
        return NONE
    return Estimate(point, *percentile_interval(drawn))


def _one_class_problems(
    human: NDArray[np.int64], judge: NDArray[np.int64], categories: tuple[str, ...]
) -> list[str]:
    """Why kappa cannot be measured: one side gave every example the same grade."""
    problems = []
    for who, codes in (("People", human), ("The judge", judge)):
        if np.all(codes == codes[0]):
            grade = categories[int(codes[0])]
            problems.append(
                f"{who} gave every example the same grade ({grade}), so agreement beyond "
                f"chance (kappa) cannot be measured: grade examples that are not {grade} too."
            )
    return problems


def _pass_rate(scores: NDArray[np.float64], scale: Scale) -> float | None:
    return float(np.mean(scores >= scale.pass_mark)) if scores.size else None


def _too_few(
    n: int, scale: Scale, categories: tuple[str, ...], name: str, *, agreed: int
) -> Agreement:
    """One example or none: no kappa, but one example's verdict still has Wilson's interval."""
    words = (
        f"Only {n} example{'' if n == 1 else 's'} graded by a person and scored by this "
        "version: at least 2 are needed to measure agreement. Grade more examples on the "
        "Review page."
    )
    size = len(categories)
    empty = tuple(tuple(0 for _ in range(size)) for _ in range(size))
    number = NONE if scale.kind == "number" else None
    return Agreement(
        n=n,
        kind=scale.kind,
        kappa_name=name,
        kappa=NONE,
        percent_agreement=Estimate(agreed / n, *wilson(agreed, n)) if n else NONE,
        human_pass_rate=None,
        judge_pass_rate=None,
        categories=categories,
        confusion=empty,
        spearman=number,
        mae=number,
        problems=(words,),
        reading=words,
        more_to_grade=None,
    )


def _reading(n: int, name: str, kappa: Estimate, problems: list[str]) -> tuple[str, int | None]:
    """The reading in words, and about how many more examples to grade (None: no kappa)."""
    if kappa.value is None or kappa.low is None or kappa.high is None:
        return (problems[0] if problems else f"{name} cannot be measured."), None
    word = landis_koch(kappa.value).capitalize()
    text = (
        f"{word} agreement with people on {n} examples ({name} {kappa.value:.2f}, "
        f"95 % interval {kappa.low:.2f} to {kappa.high:.2f})"
    )
    more = more_to_grade(n, kappa.high - kappa.low)
    if more:
        return f"{text}, but the interval is wide: grade about {more} more examples.", more
    return f"{text}.", 0
