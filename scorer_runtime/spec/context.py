"""The plain-data view of a run that formulas, templates and built-in steps read.

Spec-built steps never see Python objects a user could poke at: they get dicts, lists,
strings and numbers (pydantic models dumped), under fixed names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorer_runtime.results import plain
from scorer_runtime.run import ScorerRun, StepResults
from scorer_runtime.types import STEP_ORDER, STEP_RESULT_FIELD, StepName

STEP_NAMES: dict[str, StepName] = {
    f"step{n}": step for n, step in enumerate(STEP_ORDER, 1) if step in STEP_RESULT_FIELD
}
"""The name of each step's result, by its number in the builder: ``step2.solved`` reads the
field ``solved`` of what step 2 (analyze) gave (step 4 gives the reason, which no step
reads). The one way to read an earlier step; the older long form
``results.analyze_step_result.solved`` still reads the same value, so specs written with it
keep working."""

CONTEXT_NAMES = (
    "input",
    "output",
    "ground_truth",
    "request_context",
    *STEP_NAMES,
    "score",
    "judge_output",
    "extra",
    "results",
)
"""Top-level names of the context, in the order the studio lists them."""

OFFERED_NAMES = tuple(name for name in CONTEXT_NAMES if name != "results")
"""The names a message suggests: all but ``results``, the older way to write a step's name."""


def build_context(
    run: ScorerRun[Any, Any] | None = None,
    results: StepResults | None = None,
    score: float | None = None,
    judge_output: Any = None,
) -> dict[str, Any]:
    """The context for one step call: plain data under the names in :data:`CONTEXT_NAMES`.

    ``results`` holds each step result under its name in
    :data:`~scorer_runtime.types.STEP_RESULT_FIELD` (``analyze_step_result``, ...), and each
    step's result is also under its short name in :data:`STEP_NAMES` (``step2``); ``extra``
    the caller's extra keys of the run.
    """
    res = results or StepResults()
    given = {field: plain(value) for field, value in res.to_dict().items()}
    return {
        "input": plain(run.input) if run else None,
        "output": plain(run.output) if run else None,
        "ground_truth": plain(run.ground_truth) if run else None,
        "request_context": plain(run.request_context) if run else None,
        **{name: given.get(STEP_RESULT_FIELD[step]) for name, step in STEP_NAMES.items()},
        "score": score,
        "judge_output": plain(judge_output),
        "extra": plain(dict(run.extra)) if run else {},
        "results": given,
    }


_MISSING = object()


def get_path(context: Mapping[str, Any], path: str, default: Any = _MISSING) -> Any:
    """Read a dotted path such as ``step2.verdict`` or ``output.0.text``.

    Raises ``KeyError`` naming the part of the path that is missing, unless a default is given.
    """
    current: Any = context
    walked: list[str] = []
    for part in path.split("."):
        walked.append(part)
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, list | tuple) and part.lstrip("-").isdigit():
            index = int(part)
            if -len(current) <= index < len(current):
                current = current[index]
                continue
            if default is not _MISSING:
                return default
            raise KeyError(f"{'.'.join(walked)}: index {index} is out of range")
        else:
            if default is not _MISSING:
                return default
            raise KeyError(f"{'.'.join(walked)} is not there")
    return current


class ContextStep:
    """Base of the steps a spec builds (built-ins, formulas, templates).

    The pipeline calls a step with the keyword arguments it declares; a spec-built step
    declares all four and reads them through :func:`build_context`, so each kind only says
    what it does with the plain-data context, in :meth:`evaluate`.
    """

    __slots__ = ()

    def __call__(
        self,
        *,
        run: ScorerRun[Any, Any] | None = None,
        results: StepResults | None = None,
        score: float | None = None,
        judge_output: Any = None,
    ) -> Any:
        return self.evaluate(build_context(run, results, score, judge_output))

    def evaluate(self, context: Mapping[str, Any]) -> Any:
        """What the step gives for a context from :func:`build_context`."""
        raise NotImplementedError
