"""The scale a scorer grades on, read from its spec, so people grade on the judge's own scale.

Three kinds: ``pass_fail`` (the score step can only give 0 or 1: a schema check, a match, a
threshold), ``labels`` (the score step maps the judge's labels to scores, e.g. polite = 1,
neutral = 0.5, rude = 0), and ``number`` (any other score, on its range). Every kind has a pass
mark, so a verdict (pass or fail, or the label) can be compared between a person and the judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from scorer_runtime.spec.builtins.catalogue import builtin_names
from scorer_runtime.spec.models import (
    FunctionScoreSpec,
    FunctionStepSpec,
    PromptStepSpec,
    ScorerSpec,
    StepSpec,
)

ScaleKind = Literal["pass_fail", "labels", "number"]


@dataclass(frozen=True, slots=True)
class Scale:
    """What a grade can be: the labels (best first), or a number from ``low`` to ``high``."""

    kind: ScaleKind
    labels: tuple[tuple[str, float], ...] = ()
    low: float = 0.0
    high: float = 1.0
    pass_mark: float = 0.5

    def with_pass_mark(self, pass_mark: float) -> Scale:
        """The same scale with another pass mark (a scorer's trust policy may set one)."""
        return replace(self, pass_mark=pass_mark)

    def passes(self, score: float) -> bool:
        """Whether ``score`` is at or above the pass mark."""
        return score >= self.pass_mark

    def choices(self) -> tuple[tuple[str, float], ...]:
        """The grades a person picks from (``pass``/``fail`` or the labels); none for numbers."""
        if self.kind == "pass_fail":
            return (("pass", self.high), ("fail", self.low))
        return self.labels

    def verdict(self, score: float) -> str:
        """``pass``/``fail``, or for labels the label whose score is nearest."""
        if self.kind == "labels" and self.labels:
            return min(self.labels, key=lambda label: abs(label[1] - score))[0]
        return "pass" if self.passes(score) else "fail"

    def problem(self, value: float) -> str | None:
        """Why ``value`` is not a grade on this scale, in words; ``None`` when it is."""
        allowed = self.choices()
        if allowed and all(value != score for _, score in allowed):
            names = ", ".join(f"{name} = {score:g}" for name, score in allowed)
            return f"{value:g} is not a grade of this scorer; its grades are {names}"
        if not allowed and not self.low <= value <= self.high:
            return f"{value:g} is outside this scorer's range, {self.low:g} to {self.high:g}"
        return None


def scale_of(spec: ScorerSpec) -> Scale:
    """The scale of ``spec``'s score step (a number from 0 to 1 when it cannot be told)."""
    step = next((s for s in spec.steps if s.step == "generate_score"), None)
    use, params = _score_function(step)
    if use == "label_to_score":
        return _labels_scale(params.get("mapping"))
    if use in builtin_names(verdict="pass_fail"):  # each entry says so: its ``verdict``
        return Scale("pass_fail")
    return Scale("number")


def _score_function(step: StepSpec | None) -> tuple[str | None, Mapping[str, Any]]:
    """The built-in a score step uses (itself, or its prompt's calculation) and its params."""
    if isinstance(step, FunctionStepSpec):
        return step.use, step.with_
    if isinstance(step, PromptStepSpec) and isinstance(step.calculate_score, FunctionScoreSpec):
        return step.calculate_score.use, step.calculate_score.with_
    return None, {}


def _labels_scale(mapping: object) -> Scale:
    if not isinstance(mapping, Mapping) or not mapping:
        return Scale("number")
    labels = sorted(((str(k), float(v)) for k, v in mapping.items()), key=lambda x: -x[1])
    scores = [score for _, score in labels]
    low, high = min(scores), max(scores)
    return Scale("labels", tuple(labels), low, high, (low + high) / 2)
