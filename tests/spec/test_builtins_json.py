"""JSON built-ins: validity and schema conformance of text, fenced text and parsed data."""

from __future__ import annotations

import pytest

from scorer_runtime import ScorerRun, StepResults
from scorer_runtime.spec.builtins import json_schema_valid, json_valid
from scorer_runtime.spec.registry import StepParamsError

ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "minLength": 1},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["answer", "confidence"],
}


def call(step, output, results=None):
    run = ScorerRun(input="q", output=output, run_id="r1")
    return step(run=run, results=results or StepResults())


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ('{"status": "ok", "items": [1, 2]}', 1.0),
        ("[1, 2, 3]", 1.0),
        ("42", 1.0),
        ("{status: ok}", 0.0),
        ('{"status": "ok"', 0.0),
        ("", 0.0),
        (None, 0.0),
        ('```json\n{"status": "ok"}\n```', 1.0),
        ('Here you go: {"status": "ok"}', 0.0),
    ],
)
def test_json_valid(output, expected):
    assert call(json_valid(), output) == expected


def test_json_valid_shape_and_fences():
    assert call(json_valid(expect="object"), "[1]") == 0.0
    assert call(json_valid(expect="array"), "[1]") == 1.0
    assert call(json_valid(expect="object"), {"already": "parsed"}) == 1.0
    assert call(json_valid(allow_code_fence=False), '```\n{"a": 1}\n```') == 0.0
    assert call(json_valid(), '```\n{"a": 1}\n```') == 1.0


def test_json_valid_on_agent_output_reads_the_assistant_text():
    output = [{"role": "assistant", "content": '{"order": "A1042", "status": "shipped"}'}]
    assert call(json_valid(expect="object"), output) == 1.0
    assert call(json_valid(), [{"role": "assistant", "content": "It shipped!"}]) == 0.0


def test_json_schema_valid_on_text_and_data():
    step = json_schema_valid(json_schema=ANSWER_SCHEMA)
    assert call(step, '{"answer": "Paris", "confidence": 0.9}') == 1.0
    assert call(step, '{"answer": "Paris", "confidence": 1.5}') == 0.0
    assert call(step, '{"answer": "Paris"}') == 0.0
    assert call(step, "Paris") == 0.0
    assert call(step, "") == 0.0
    assert call(step, '```json\n{"answer": "Paris", "confidence": 1}\n```') == 1.0


def test_json_schema_valid_reads_a_previous_result():
    step = json_schema_valid(json_schema=ANSWER_SCHEMA, field="results.preprocess_step_result")
    results = StepResults(preprocess_step_result={"answer": "Paris", "confidence": 0.5})
    assert call(step, "ignored", results=results) == 1.0


def test_an_invalid_schema_is_refused_with_where_it_is_wrong():
    with pytest.raises(StepParamsError) as caught:
        json_schema_valid(json_schema={"type": "object", "properties": {"a": {"type": "strng"}}})
    [(path, message)] = caught.value.problems
    assert path == "json_schema"
    assert message.startswith("not a valid JSON Schema at properties.a.type:")


def test_a_schema_is_required():
    with pytest.raises(StepParamsError, match="json_schema: this parameter is required"):
        json_schema_valid()
