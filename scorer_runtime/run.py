"""What a step sees: the run being scored, and the results of the steps before it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from scorer_runtime.types import STEP_RESULT_FIELD

InputT = TypeVar("InputT")
OutputT = TypeVar("OutputT")
# The run is read-only, so it is covariant in its shapes (a step typed for a wider shape fits).
_In_co = TypeVar("_In_co", covariant=True)
_Out_co = TypeVar("_Out_co", covariant=True)

_FIELDS = frozenset({"input", "output", "ground_truth", "request_context", "run_id", "extra"})


@dataclass(frozen=True, slots=True)
class ScorerRun(Generic[_In_co, _Out_co]):
    """One input/output pair being scored.

    Extra keys passed to ``Scorer.run(...)`` are kept in ``extra`` and readable as attributes
    (``run.trace_id``), so steps can use whatever the caller attached.
    """

    input: _In_co
    output: _Out_co
    run_id: str
    ground_truth: Any = None
    request_context: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names that are not fields: look them up among the extras.
        if name.startswith("__"):
            raise AttributeError(name)
        extra = object.__getattribute__(self, "extra")
        try:
            return extra[name]
        except KeyError:
            raise AttributeError(
                f"The run has no field or extra key {name!r}; extra keys: {sorted(extra)}"
            ) from None

    def replace(self, **changes: Any) -> ScorerRun[Any, Any]:
        """A copy with some fields changed; unknown names become extra keys."""
        extra_changes = {k: changes.pop(k) for k in list(changes) if k not in _FIELDS}
        if extra_changes:
            changes["extra"] = {**self.extra, **extra_changes}
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The run as plain data: the fields, then the extra keys."""
        return {
            "run_id": self.run_id,
            "input": self.input,
            "output": self.output,
            "ground_truth": self.ground_truth,
            "request_context": self.request_context,
            **self.extra,
        }


@dataclass(frozen=True, slots=True)
class StepResults:
    """The results of the steps that ran before the current one (None when not defined)."""

    preprocess_step_result: Any = None
    analyze_step_result: Any = None
    generate_score_step_result: Any = None
    """The score, seen only by generate_reason."""

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in STEP_RESULT_FIELD.values()}
