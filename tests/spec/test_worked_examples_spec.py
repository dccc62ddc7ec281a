"""Worked examples on a judge step: the judge is shown each graded example (over real HTTP, as
the fake provider received it), they survive JSON, YAML and the Python export, the exported
module asks exactly what the studio asks, and a step without them asks as before."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime.judge.fence import PLACEHOLDER
from scorer_runtime.spec import (
    SpecError,
    compile_spec,
    export_json,
    export_python,
    export_yaml,
    load_spec,
)
from scorer_runtime.spec.templates import template
from scorer_runtime.spec.worked import INTRO, MAX_WORKED_EXAMPLES
from tests.spec.conftest import with_api_base

SCORERS = Path(__file__).resolve().parents[2] / "data" / "scorers"
SCHEMA = SCORERS.parents[1] / "scorer_runtime" / "spec" / "scorer-spec.schema.json"
CODE = re.compile(r"<<<DATA ([0-9a-f]{16})\n")
EXAMPLES = [
    {
        "input": "Can I return shoes after 40 days?",
        "output": "No. Read the policy.",
        "grade": 0.0,
        "grade_label": "rude",
        "note": "Blames the customer: rude, not neutral.",
    },
    {"output": {"text": "Happy to help!"}, "grade": 1.0, "note": "Warm."},
]


def _tone(examples: list[dict[str, Any]] | None = None, **judge: Any) -> dict[str, Any]:
    data = json.loads((SCORERS / "tone-politeness.json").read_text(encoding="utf-8"))
    data["judge"].update(judge)
    if examples is not None:
        data["steps"][0]["worked_examples"] = examples
    return data


def _user(server) -> str:
    return str(server.last_request.last_user_content)


def test_the_judge_is_shown_each_example_with_the_persons_grade_and_note(
    registry, fake_judge, judge_key
):
    spec = with_api_base(load_spec(_tone(EXAMPLES), registry=registry), fake_judge.base_url)
    fake_judge.reply({"verdict": "neutral", "reason": "Curt."})
    result = compile_spec(spec, registry).run_sync(input="Where is my parcel?", output="Wait.")
    sent = _user(fake_judge)
    assert sent.startswith(INTRO)
    assert (
        "Example 1\nQuestion:\nCan I return shoes after 40 days?\nAnswer:\nNo. Read the policy.\n"
        "The person's grade: rude\nThe person's note: Blames the customer: rude, not neutral."
    ) in sent
    assert 'Example 2\nAnswer:\n{"text": "Happy to help!"}\nThe person\'s grade: 1\n' in sent
    assert sent.endswith("Customer: Where is my parcel?\n\nAnswer: Wait.")
    assert result.analyze_prompt == sent


def test_a_step_without_examples_asks_exactly_what_it_asked_before(registry, fake_judge, judge_key):
    spec = with_api_base(load_spec(_tone(), registry=registry), fake_judge.base_url)
    fake_judge.reply({"verdict": "polite", "reason": "Kind."})
    compile_spec(spec, registry).run_sync(input="Hi", output="Hello!")
    assert _user(fake_judge) == (
        template(spec.steps[0].template).render({"input": "Hi", "output": "Hello!"})
    )
    assert INTRO not in _user(fake_judge)
    assert "worked_examples" not in export_json(spec)


def test_examples_round_trip_through_json_yaml_and_the_schema(registry):
    spec = load_spec(_tone(EXAMPLES), registry=registry)
    assert load_spec(export_json(spec), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert "WorkedExampleSpec" in schema["$defs"]
    assert "worked_examples" in schema["$defs"]["PromptStepSpec"]["properties"]


def test_the_exported_python_shows_the_judge_the_same_examples(
    registry, import_code, fake_judge, judge_key
):
    spec = with_api_base(
        load_spec(_tone(EXAMPLES, harden_prompt=True), registry=registry), fake_judge.base_url
    )
    code = export_python(spec, registry)
    assert "worked_examples=[" in code
    fake_judge.reply({"verdict": "rude", "reason": "Curt."})
    example = {"input": "Where is my parcel?", "output": "Wait."}
    studio = compile_spec(spec, registry).run_sync(**example)
    studio_sent = _user(fake_judge)
    exported = import_code(code).scorer.run_sync(**example)
    exported_sent = _user(fake_judge)
    assert exported.score == studio.score == 0.0
    assert exported.analyze_prompt == studio.analyze_prompt
    codes = set(CODE.findall(exported_sent))
    assert len(codes) == 1
    assert codes != set(CODE.findall(studio_sent))  # a new code per call
    assert exported_sent.replace(codes.pop(), PLACEHOLDER) == studio.analyze_prompt
    # The examples' judged text is fenced as the run's own values are: 3 example values + 2.
    assert studio.analyze_prompt.count(f"DATA {PLACEHOLDER}>>>") == 5
    assert "The person's note: Warm." in studio.analyze_prompt  # the person's words, unfenced


@pytest.mark.parametrize(
    ("examples", "words"),
    [
        ([{"output": "x"}], "grade"),
        ([{"output": "x", "grade": 1, "verdict": "y"}], "verdict"),
        ([{"output": "x", "grade": 1}] * (MAX_WORKED_EXAMPLES + 1), "worked_examples"),
    ],
)
def test_a_malformed_example_is_refused_with_where_it_is(registry, examples, words):
    with pytest.raises(SpecError) as refused:
        load_spec(_tone(examples), registry=registry)
    assert words in str(refused.value)
    assert "steps" in str(refused.value)
