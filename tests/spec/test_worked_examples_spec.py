"""A judge step's ``worked_examples`` in a spec: loaded and capped in plain words, round-tripped
through JSON and YAML, compiled so the judge is shown them, and exported to Python unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime.judge.worked import HEADING
from scorer_runtime.spec import (
    SpecError,
    compile_spec,
    export_json,
    export_python,
    export_yaml,
    load_spec,
)
from scorer_runtime.spec.models.worked import (
    MAX_EXAMPLE_VALUE_CHARS,
    MAX_NOTE_CHARS,
    MAX_WORKED_EXAMPLES,
)
from tests.spec.conftest import with_api_base

SCORERS = Path(__file__).resolve().parents[2] / "data" / "scorers"
SCHEMA = SCORERS.parents[1] / "scorer_runtime" / "spec" / "scorer-spec.schema.json"

EXAMPLES = [
    {
        "input": "Where is my parcel?",
        "output": "Read the tracking page yourself.",
        "grade": 0.0,
        "grade_label": "rude",
        "note": "Blames the customer.",
    },
    {"output": "Happy to help, it ships Monday!", "ground_truth": "Monday", "grade": 1.0},
]


def _tone(examples: Any = None, **judge: Any) -> dict[str, Any]:
    data = json.loads((SCORERS / "tone-politeness.json").read_text(encoding="utf-8"))
    data["judge"].update(judge)
    if examples is not None:
        data["steps"][0]["worked_examples"] = examples
    return data


def test_worked_examples_round_trip_through_json_and_yaml(registry):
    spec = load_spec(_tone(EXAMPLES), registry=registry)
    assert load_spec(export_json(spec), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec
    written = json.loads(export_json(spec))["steps"][0]["worked_examples"]
    assert written[1] == EXAMPLES[1]  # only what the example sets is written
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert "worked_examples" in json.dumps(schema["$defs"]["PromptStepSpec"])
    assert schema["$defs"]["WorkedExampleSpec"]["required"] == ["output", "grade"]


def test_a_spec_without_examples_writes_no_such_field(registry):
    spec = load_spec(_tone(), registry=registry)
    assert "worked_examples" not in export_json(spec)
    assert "worked_examples" not in export_python(spec, registry)


@pytest.mark.parametrize(
    ("examples", "path", "words"),
    [
        (
            [{"output": "x", "grade": 1}] * (MAX_WORKED_EXAMPLES + 1),
            "steps[0].worked_examples",
            f"at most {MAX_WORKED_EXAMPLES} worked examples, and this one has 21; remove 1",
        ),
        (
            [{"output": "x" * (MAX_EXAMPLE_VALUE_CHARS + 1), "grade": 1}],
            "steps[0].worked_examples[0]",
            "this example's output is 8,001 characters long",
        ),
        (
            [{"output": "x", "grade": 1, "note": "n" * (MAX_NOTE_CHARS + 1)}],
            "steps[0].worked_examples[0].note",
            "at most 2000 characters",
        ),
        ([{"output": "x"}], "steps[0].worked_examples[0].grade", "is required"),
        ([{"output": "x", "grade": "pass"}], "steps[0].worked_examples[0].grade", "number"),
        ([{"output": "x", "grade": 1, "score": 1}], "steps[0].worked_examples[0].score", "Known"),
    ],
)
def test_bad_examples_are_refused_at_their_place_in_words(registry, examples, path, words):
    with pytest.raises(SpecError) as refused:
        load_spec(_tone(examples), registry=registry)
    problems = {problem.path: problem.message for problem in refused.value.problems}
    assert path in problems, problems
    assert words in problems[path]


def test_the_compiled_and_the_exported_scorer_show_the_judge_the_same_examples(
    registry, import_code, fake_judge, judge_key
):
    spec = with_api_base(load_spec(_tone(EXAMPLES), registry=registry), fake_judge.base_url)
    code = export_python(spec, registry)
    assert "WorkedExample(" in code
    fake_judge.reply({"verdict": "rude", "reason": "Curt."})
    example = {"input": "Where is my order?", "output": "Check your email."}
    studio = compile_spec(spec, registry).run_sync(**example)
    studio_request = fake_judge.last_request.json
    exported = import_code(code).scorer.run_sync(**example)
    assert fake_judge.last_request.json == studio_request
    assert exported.score == studio.score == 0.0
    user = studio_request["messages"][1]["content"]
    assert user.startswith(f"{HEADING}\n")
    assert "A person graded this: rude (0). Their note: Blames the customer." in user
    assert "Expected answer:\nMonday\nA person graded this: 1." in user
    assert user.endswith("Customer: Where is my order?\n\nAnswer: Check your email.")


def test_the_exported_python_fences_the_examples_as_the_studio_does(
    registry, import_code, fake_judge, judge_key
):
    spec = load_spec(_tone(EXAMPLES, harden_prompt=True), registry=registry)
    spec = with_api_base(spec, fake_judge.base_url)
    fake_judge.reply({"verdict": "rude", "reason": "Curt."})
    example = {"input": "Where is my order?", "output": "Check your email."}
    studio = compile_spec(spec, registry).run_sync(**example)
    exported = import_code(export_python(spec, registry)).scorer.run_sync(**example)
    assert exported.analyze_prompt == studio.analyze_prompt
    assert studio.analyze_prompt.count("<<<DATA NONCE\n") == 2 + 2 + 2  # two per example, two own
