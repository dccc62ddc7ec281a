"""Comparing a text with a reference: a similarity score, and the differences as data.

rapidfuzz does the work; it is imported when a step runs, not when the library loads.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from scorer_runtime.results import NotScorable, not_scorable
from scorer_runtime.spec.builtins.base import BuiltinStep, FieldPath, StepParams, make_params
from scorer_runtime.spec.builtins.context_values import as_text, read_optional, read_text

Method = Literal["ratio", "token_set_ratio", "token_sort_ratio", "partial_ratio"]

_FIELD = Field("output", description="The text to compare: usually the answer.")
_REFERENCE = Field(
    None, description="A fixed reference text; when empty, reference_field is read instead."
)
_REFERENCE_FIELD = Field(
    "ground_truth",
    description="The text to compare with when no fixed reference text is given: "
    "usually the expected answer.",
)
_NORMALIZE = Field(True, description="Ignore upper/lower case, punctuation and extra spaces.")


def _references(ctx: dict[str, Any], reference: Any, path: str, step: str) -> list[str] | None:
    """The reference texts (a list of accepted ones), or None when the run has none."""
    value = reference if reference is not None else read_optional(ctx, path, step)
    if value is None:
        return None
    values = (
        value if isinstance(value, list) and all(isinstance(v, str) for v in value) else [value]
    )
    return [as_text(v, step, path) for v in values]


def _missing(step: str, path: str) -> NotScorable:
    return not_scorable(f"{step}: there is no {path} to compare with")


# -- similarity -----------------------------------------------------------------------------


class TextSimilarityParams(StepParams):
    """Parameters of :func:`text_similarity`."""

    field: FieldPath = _FIELD
    reference: str | list[str] | None = _REFERENCE
    reference_field: FieldPath = _REFERENCE_FIELD
    method: Method = Field(
        "ratio",
        description="'ratio': overall likeness; 'token_set_ratio': same words in any order, "
        "extra words forgiven; 'token_sort_ratio': same words in any order; "
        "'partial_ratio': the best matching part of the longer text.",
    )
    normalize: bool = _NORMALIZE


def text_similarity(**params: Any) -> BuiltinStep:
    """How alike the text and the reference are, from 0 (nothing alike) to 1 (the same).

    With several accepted references, the closest counts. No reference: not scorable.
    """
    p = make_params(TextSimilarityParams, params, "text_similarity")

    def apply(ctx: dict[str, Any]) -> float | NotScorable:
        from rapidfuzz import fuzz, utils

        refs = _references(ctx, p.reference, p.reference_field, "text_similarity")
        if refs is None:
            return _missing("text_similarity", p.reference_field)
        scorer = getattr(fuzz, p.method)
        processor = utils.default_process if p.normalize else None
        text = read_text(ctx, p.field, "text_similarity")
        return max(_similarity(scorer, processor, text, ref) for ref in refs)

    return BuiltinStep("text_similarity", p, apply)


def _similarity(scorer: Any, processor: Any, text: str, ref: str) -> float:
    a, b = (processor(text), processor(ref)) if processor else (text, ref)
    if not a.strip() or not b.strip():  # rapidfuzz's methods disagree on empty texts
        return 1.0 if a.strip() == b.strip() else 0.0
    return float(scorer(a, b)) / 100.0


# -- difference -----------------------------------------------------------------------------


class TextDifferenceParams(StepParams):
    """Parameters of :func:`text_difference`."""

    field: FieldPath = _FIELD
    reference: str | None = _REFERENCE
    reference_field: FieldPath = _REFERENCE_FIELD
    unit: Literal["words", "characters"] = Field(
        "words", description="Compare word by word (readable) or character by character."
    )
    normalize: bool = Field(True, description="Ignore upper/lower case when comparing.")
    max_changes: int = Field(
        50, ge=1, le=1000, description="Report at most this many changed segments."
    )


def text_difference(**params: Any) -> BuiltinStep:
    """What changed between the reference and the text, as data.

    Returns ``{"distance", "similarity", "change_count", "changes"}``: distance is the
    normalised edit distance (0 = identical, 1 = nothing in common); each change is
    ``{"change": "replaced"|"added"|"removed", "expected": ..., "actual": ...}``.
    No reference: not scorable.
    """
    p = make_params(TextDifferenceParams, params, "text_difference")

    def apply(ctx: dict[str, Any]) -> dict[str, Any] | NotScorable:
        refs = _references(ctx, p.reference, p.reference_field, "text_difference")
        if refs is None:
            return _missing("text_difference", p.reference_field)
        text = read_text(ctx, p.field, "text_difference")
        return _difference(" ".join(refs), text, p)

    return BuiltinStep("text_difference", p, apply)


_CHANGE = {"replace": "replaced", "insert": "added", "delete": "removed"}


def _difference(reference: str, text: str, p: TextDifferenceParams) -> dict[str, Any]:
    from rapidfuzz.distance import Levenshtein

    ref_units: list[str] = reference.split() if p.unit == "words" else list(reference)
    out_units: list[str] = text.split() if p.unit == "words" else list(text)
    keys = (lambda u: [x.casefold() for x in u]) if p.normalize else (lambda u: u)
    a, b = keys(ref_units), keys(out_units)
    joiner = " " if p.unit == "words" else ""
    changes = [
        {
            "change": _CHANGE[op.tag],
            "expected": joiner.join(ref_units[op.src_start : op.src_end]),
            "actual": joiner.join(out_units[op.dest_start : op.dest_end]),
        }
        for op in Levenshtein.opcodes(a, b)
        if op.tag != "equal"
    ]
    distance = float(Levenshtein.normalized_distance(a, b))
    return {
        "distance": distance,
        "similarity": 1.0 - distance,
        "change_count": len(changes),
        "changes": changes[: p.max_changes],
    }
