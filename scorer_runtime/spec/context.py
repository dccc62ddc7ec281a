"""The plain-data view of a run that formulas, templates and built-in steps read.

Spec-built steps never see Python objects a user could poke at: they get dicts, lists,
strings and numbers (pydantic models dumped), under fixed names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorer_runtime.results import plain
from scorer_runtime.run import ScorerRun, StepResults

CONTEXT_NAMES = (
    "input",
    "output",
    "ground_truth",
    "request_context",
    "results",
    "score",
    "judge_output",
    "extra",
)
"""Top-level names of the context, in the order the studio lists them."""


def build_context(
    run: ScorerRun[Any, Any] | None = None,
    results: StepResults | None = None,
    score: float | None = None,
    judge_output: Any = None,
) -> dict[str, Any]:
    """The context for one step call: plain data under the names in :data:`CONTEXT_NAMES`.

    ``results`` holds each step result under its name in
    :data:`~scorer_runtime.types.STEP_RESULT_FIELD` (``analyze_step_result``, ...); ``extra``
    the caller's extra keys of the run.
    """
    res = results or StepResults()
    return {
        "input": plain(run.input) if run else None,
        "output": plain(run.output) if run else None,
        "ground_truth": plain(run.ground_truth) if run else None,
        "request_context": plain(run.request_context) if run else None,
        "results": {field: plain(value) for field, value in res.to_dict().items()},
        "score": score,
        "judge_output": plain(judge_output),
        "extra": plain(dict(run.extra)) if run else {},
    }


_MISSING = object()


def get_path(context: Mapping[str, Any], path: str, default: Any = _MISSING) -> Any:
    """Read a dotted path such as ``results.analyze_step_result.verdict`` or ``output.0.text``.

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
