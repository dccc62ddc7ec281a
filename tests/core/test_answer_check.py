"""The quick check of the usual answer schemas never accepts an answer the JSON Schema
validator rejects; answers it does not accept still get the validator's verdict and words."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from scorer_runtime.judge.structured import (
    SCORE_SCHEMA,
    AnswerFormatError,
    StructuredOutput,
    simple_object_check,
)

SCHEMAS: list[dict[str, Any]] = [
    SCORE_SCHEMA,
    {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": ["good", "bad"]}},
        "required": ["verdict"],
    },
    {
        "type": "object",
        "title": "Grade",
        "properties": {
            "n": {"type": "integer", "description": "how many"},
            "ok": {"type": "boolean"},
            "why": {"type": "string"},
            "pick": {"enum": ["a", "b"]},
        },
        "required": ["n", "ok"],
        "additionalProperties": False,
    },
]

NAMES = st.sampled_from(["score", "verdict", "n", "ok", "why", "pick", "other"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["good", "bad", "a", "b", "", "x"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=4),
    max_leaves=8,
)


@pytest.mark.parametrize("schema", SCHEMAS, ids=["score", "enum", "closed"])
@settings(max_examples=400, deadline=None)
@given(value=VALUES | st.dictionaries(NAMES, SCALARS, max_size=5))
def test_the_quick_check_accepts_only_what_the_validator_accepts(schema, value):
    check = simple_object_check(schema)
    assert check is not None
    if check(value):
        assert validator_for(schema)(schema).is_valid(value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"s": {"type": "number", "minimum": 0}}},
        {"type": "object", "properties": {"s": {"type": ["number", "null"]}}},
        {"type": "object", "properties": {"s": {"enum": [1, True]}}},
        {"type": "object", "properties": {"s": {"type": "object"}}},
        {"type": "array", "items": {"type": "number"}},
        {"$schema": "https://json-schema.org/draft-07/schema", "type": "object"},
    ],
)
def test_other_schemas_are_left_to_the_validator(schema):
    assert simple_object_check(schema) is None


def test_the_usual_answers_pass_quickly_and_wrong_ones_say_what_is_wrong():
    output = StructuredOutput.of(SCORE_SCHEMA)
    assert output.parse('{"score": 0.5}') == {"score": 0.5}
    assert output.parse('```json\n{"score": 2, "extra": "kept"}\n```') == {
        "score": 2,
        "extra": "kept",
    }
    with pytest.raises(AnswerFormatError, match="at score: True is not of type 'number'"):
        output.parse('{"score": true}')
    with pytest.raises(AnswerFormatError, match="'score' is a required property"):
        output.parse('{"points": 1}')
