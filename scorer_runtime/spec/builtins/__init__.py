"""The built-in library of function steps a spec can ``use`` by name.

Each factory takes keyword parameters only, validates them with its params model (the same
one the studio's form is built from) and returns a :class:`BuiltinStep`, a step callable
whose ``repr`` is the call that builds it::

    from scorer_runtime.spec.builtins import keyword_coverage

    step = keyword_coverage(keywords=["refund", "14 days"])
    scorer = create_scorer(id="kw", description="mentions the policy").generate_score(step)
"""

from __future__ import annotations

from scorer_runtime.spec.builtins.agent_checks import (
    MaxToolCallsParams,
    NoToolErrorsParams,
    ToolCalledParams,
    ToolNotCalledParams,
    ToolOrderParams,
    max_tool_calls,
    no_tool_errors,
    tool_called,
    tool_not_called,
    tool_order,
)
from scorer_runtime.spec.builtins.base import BuiltinStep, BuiltinStepError, FieldPath, StepParams
from scorer_runtime.spec.builtins.catalogue import BUILTIN_ENTRIES
from scorer_runtime.spec.builtins.combine import (
    ClampParams,
    ThresholdParams,
    WeightedAverageParams,
    clamp,
    threshold,
    weighted_average,
)
from scorer_runtime.spec.builtins.json_checks import (
    JsonSchemaValidParams,
    JsonValidParams,
    json_schema_valid,
    json_valid,
)
from scorer_runtime.spec.builtins.labels import (
    LabelToScoreParams,
    ProportionParams,
    label_to_score,
    proportion,
)
from scorer_runtime.spec.builtins.matching import (
    ContainsParams,
    ExactMatchParams,
    ExcludesParams,
    KeywordCoverageParams,
    RegexMatchParams,
    contains,
    exact_match,
    excludes,
    keyword_coverage,
    regex_match,
)
from scorer_runtime.spec.builtins.measures import (
    LengthBoundsParams,
    NumericClosenessParams,
    length_bounds,
    numeric_closeness,
)
from scorer_runtime.spec.builtins.similarity import (
    TextDifferenceParams,
    TextSimilarityParams,
    text_difference,
    text_similarity,
)

__all__ = [
    "BUILTIN_ENTRIES",
    "BuiltinStep",
    "BuiltinStepError",
    "ClampParams",
    "ContainsParams",
    "ExactMatchParams",
    "ExcludesParams",
    "FieldPath",
    "JsonSchemaValidParams",
    "JsonValidParams",
    "KeywordCoverageParams",
    "LabelToScoreParams",
    "LengthBoundsParams",
    "MaxToolCallsParams",
    "NoToolErrorsParams",
    "NumericClosenessParams",
    "ProportionParams",
    "RegexMatchParams",
    "StepParams",
    "TextDifferenceParams",
    "TextSimilarityParams",
    "ThresholdParams",
    "ToolCalledParams",
    "ToolNotCalledParams",
    "ToolOrderParams",
    "WeightedAverageParams",
    "clamp",
    "contains",
    "exact_match",
    "excludes",
    "json_schema_valid",
    "json_valid",
    "keyword_coverage",
    "label_to_score",
    "length_bounds",
    "max_tool_calls",
    "no_tool_errors",
    "numeric_closeness",
    "proportion",
    "regex_match",
    "text_difference",
    "text_similarity",
    "threshold",
    "tool_called",
    "tool_not_called",
    "tool_order",
    "weighted_average",
]
