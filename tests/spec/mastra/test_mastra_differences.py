"""What the Mastra export cannot make agree is listed, step and construct named; the rest
agrees in Node: whole floats (3 or 3.0), Unicode digits, the sandbox's size limits."""

from __future__ import annotations

from typing import Any

import pytest

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import export_mastra, kinds_ts
from scorer_runtime.spec.mastra.prepare_ts import AGENT_FIELDS_DIFFER
from tests.fakes.openai_server import FakeOpenAIServer
from tests.spec.conftest import with_api_base


def _reason_spec(reason: str, number: int = 0, **extra: Any) -> Any:
    return load_spec(
        {
            "id": f"differences-{number}",
            "description": f"Shows {reason}.",
            "steps": [
                {"step": "generate_score", "formula": "0.5"},
                {"step": "generate_reason", "formula": reason},
            ],
            **extra,
        }
    )


def _python(spec: Any, examples: list[dict[str, Any]]) -> list[Any]:
    scorer = compile_spec(spec)
    found: list[Any] = []
    for example in examples:
        try:
            found.append(scorer.run_sync(**example).reason)
        except Exception:
            found.append("error")
    return found


AGREE: list[tuple[str, list[Any]]] = [
    ("str(int(input))", ["١٢", "３", " -٣ ", "\U0001d7cf\U0001d7d0", "٣.٥", "۱_۰", "x٣"]),
    ("str(float(input))", ["١.٥", "１e２", "٣", "-٠.٥", "٣..٥"]),
    ("str(len(input.replace('a', 'aa')))", ["a" * 500_000, "a" * 500_001]),
    ("str(len('-'.join(input)))", [["a" * 500_000, "b" * 499_999], ["a" * 500_000, "b" * 500_000]]),
    ("str(len(input + input))", ["x" * 500_000, "x" * 500_001, [1] * 500_001]),
    ("input * 2 + ('-' * True)", ["ab", "", 2]),
    ("str([1, [2]] * 2) + str(len([0] * input))", [3, -1, True, 2.5, "a"]),
    ("str(len(input * 500_000))", ["ab", "abc", [1, 2], ["x"] * 3, -1]),
    ("str([x for x in input if x])", [[3.0, 0, 2, 0.0, 2.5]]),
    ("str([v.a for v in input]) + str([v[-1] for v in input])", [[{"a": 1.0}, {"a": 2}]]),
    ("str([x * 1.5 for x in input])", [[2, 1]]),
    ("str(sum([1.5, 2.5])) + str(7.5 // 2) + str(max(1.0, 2.0))", [None]),
    ("str(input.a) + str(input['b'])", [{"a": 89.0, "b": 2}]),
]
"""Formulas whose text agrees in Node (and so lists no difference)."""


def test_digits_limits_and_whole_floats_agree_in_node(mastra_node: Any) -> None:
    runs, expected = [], []
    for number, (reason, inputs) in enumerate(AGREE):
        spec = _reason_spec(reason, number)
        exported = export_mastra(spec)
        assert exported.differences == [], reason
        examples = [{"input": value, "output": "x"} for value in inputs]
        runs.append((exported.text, spec.id, examples))
        expected.append(_python(spec, examples))
    got = mastra_node.score_many(runs)
    for (reason, _), theirs, mine in zip(AGREE, expected, got, strict=True):
        assert ["error" if "error" in g else g["reason"] for g in mine] == theirs, reason
    assert expected[0] == ["12", "3", "-3", "12", "3", "10", "error"]
    assert expected[2] == ["1000000", "error"]
    assert expected[5] == ["abab-", "-", "error"]
    assert expected[6][:3] == ["[1, [2], 1, [2]]3", "[1, [2], 1, [2]]0", "[1, [2], 1, [2]]1"]
    assert expected[7] == ["1000000", "error", "1000000", "error", "error"]
    assert expected[8] == ["[3.0, 2, 2.5]"]
    assert expected[11] == ["4.03.02.0"]


def test_a_number_that_may_read_3_is_listed_and_really_differs(mastra_node: Any) -> None:
    spec = _reason_spec("str(max(1, input))")
    exported = export_mastra(spec)
    assert exported.differences == [
        "The generate_reason step's formula: str(max(1, input)) may read 3 where the studio "
        "reads 3.0 (whether Python makes this number whole or a decimal depends on the data)"
    ]
    examples = [{"input": 2.0, "output": "x"}]
    got = mastra_node.score(exported.text, spec.id, examples)
    assert (_python(spec, examples), got[0]["reason"]) == (["2.0"], "2")


LISTED = [
    ("str(sum(input))", "str(sum(input))"),
    ("str(input // 2)", "str(input // 2)"),
    ("str(input.a * 2)", "str(input.a * 2)"),
    ("str(abs(input.a))", "str(abs(input.a))"),
    ("str(clamp(input))", "str(clamp(input))"),
    ("str(input.a or 1)", "str(input.a or 1)"),
    ("str([x * 2 for x in input])", "str([x * 2 for x in input])"),
    ("str(get(input, 'a'))", "str(get(input, 'a'))"),
    ("str(input[1:])", "str(input[1:])"),
    ("str([1.0, 2])", "str([1.0, 2])"),
    ("not_scorable(min(input))", "not_scorable(min(input))"),
]


@pytest.mark.parametrize(("reason", "named"), LISTED)
def test_each_data_dependent_number_shown_as_text_is_listed(reason: str, named: str) -> None:
    differences = export_mastra(_reason_spec(reason)).differences
    assert len(differences) == 1
    assert differences[0].startswith(f"The generate_reason step's formula: {named} may read 3")


@pytest.mark.parametrize(
    "reason",
    [
        "str(max(1, 2)) + str(len(input)) + str(round(input.a)) + str(input.a)",
        "str(float(input)) + str(mean(input)) + str(input / 2) + str(count(input, 1))",
        "'a' + str(input.b.c) + str([x for x in input]) + str(input[0])",
        "not_scorable('no ' + input.name) if input.none else str('a' + input.b + 'c')",
    ],
)
def test_numbers_that_show_as_in_python_are_not_listed(reason: str) -> None:
    assert export_mastra(_reason_spec(reason)).differences == []


def test_the_whole_input_a_loop_variable_and_a_step_result_shown_are_listed() -> None:
    spec = load_spec(
        {
            "id": "shown-whole",
            "description": "Shows values whole.",
            "judge": {"model": "openai/gpt-4o-mini", "instructions": "Explain."},
            "steps": [
                {"step": "preprocess", "formula": "input.a * 2"},
                {"step": "analyze", "formula": "[str(x) for x in ground_truth]"},
                {"step": "generate_score", "formula": "0.5"},
                {
                    "step": "generate_reason",
                    "description": "Explain",
                    "template": "{{ input }} {{ ground_truth }} {{ step1 }} {{ output.a }} "
                    "{{ output.b | default(0.0) }} {% for x in output.c %}{{ x }}{% endfor %}",
                },
            ],
        }
    )
    differences = export_mastra(spec).differences
    assert len(differences) == 4, differences
    assert "str(x) shows the loop variable x" in differences[0]
    assert differences[0].startswith("The analyze step's formula")
    assert differences[1].startswith("The generate_reason step's prompt: {{ step1 }} may read 3")
    assert differences[2].startswith("The generate_reason step's prompt: {{ output.b | default")
    assert differences[3].startswith(
        "The generate_reason step shows {{ input }} and {{ ground_truth }} as a whole: when the "
        "input or ground truth is itself a number written with a decimal point (3.0)"
    )


WHOLE_PROMPT = {
    "id": "whole-prompt",
    "description": "Whole floats in loops, defaults and constants of a prompt.",
    "judge": {"model": "openai/gpt-4o-mini", "instructions": "You explain scores."},
    "steps": [
        {"step": "generate_score", "formula": "0.5"},
        {
            "step": "generate_reason",
            "description": "Explain",
            "template": "{% for x in input.items %}{{ x }},{% endfor %} {{ input.a | default(1) }} "
            "{{ input.z | d('none') }} {{ 1.0 }}",
        },
    ],
}


def test_whole_floats_in_prompt_loops_and_defaults_are_sent_as_in_python(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    spec = with_api_base(load_spec(WHOLE_PROMPT), fake_judge.base_url)
    exported = export_mastra(spec)
    assert exported.differences == []
    examples = [{"input": {"items": [1.0, 2, 2.5], "a": 3.0}, "output": "x"}]
    sent = []
    for run in ("python", "mastra"):
        fake_judge.reset()
        fake_judge.reply("Fine.")
        if run == "python":
            compile_spec(spec).run_sync(**examples[0])
        else:
            got = mastra_node.score(exported.text, spec.id, examples)
            assert got[0].get("reason") == "Fine."
        sent.append([r.last_user_content for r in fake_judge.chat_requests])
    assert sent[0] == ["1.0,2,2.5, 3.0 none 1.0"]
    assert sent[1] == sent[0]


def test_a_prompt_value_of_either_kind_is_listed() -> None:
    spec = load_spec(
        {
            **WHOLE_PROMPT,
            "steps": [
                {"step": "generate_score", "formula": "0.5"},
                {
                    "step": "generate_reason",
                    "description": "Explain",
                    "template": "{{ input.a if input.a else 2.0 }} {{ -input.a }} {{ 2.0 }}",
                },
            ],
        }
    )
    assert export_mastra(spec).differences == [
        "The generate_reason step's prompt: {{ ... }} may read 3 where the studio reads 3.0 "
        "(whether Python makes this number whole or a decimal depends on the data)"
    ]


def test_an_agent_scorer_reading_messages_by_field_lists_it() -> None:
    agent = _reason_spec("str([m.id for m in output])", type="agent")
    assert export_mastra(agent).differences == [AGENT_FIELDS_DIFFER]
    filtered = _reason_spec("str(len(output))", type="agent")
    assert export_mastra(filtered).differences == [AGENT_FIELDS_DIFFER]
    through = load_spec(
        {
            "id": "through-filters",
            "description": "Reads messages only through the filters.",
            "type": "agent",
            "judge": {"model": "openai/gpt-4o-mini", "instructions": "Explain."},
            "steps": [
                {"step": "generate_score", "formula": "0.5"},
                {
                    "step": "generate_reason",
                    "description": "Explain",
                    "template": "{{ input | user_message }} {{ output | tool_calls | join(', ') }}",
                },
            ],
        }
    )
    assert export_mastra(through).differences == []


def test_sum_is_listed_only_where_the_studio_compensates(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _reason_spec("str(sum([1.5, 2.5]) > 3)")
    monkeypatch.setattr(kinds_ts, "PYTHON", (3, 11))
    assert export_mastra(spec).differences == []
    monkeypatch.setattr(kinds_ts, "PYTHON", (3, 12))
    differences = export_mastra(spec).differences
    assert len(differences) == 1
    start = "The generate_reason step's formula: sum() adds decimals one after another"
    assert differences[0].startswith(start)
    assert "Python 3.12" in differences[0]


def _judged(schema_type: str) -> Any:
    return load_spec(
        {
            "id": "judged-number",
            "description": "Shows a number from the judge's answer.",
            "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade."},
            "steps": [
                {
                    "step": "analyze",
                    "description": "Grade",
                    "template": "Grade: {{ output.text }}",
                    "output_schema": {
                        "type": "object",
                        "properties": {"grade": {"type": schema_type}},
                        "required": ["grade"],
                    },
                },
                {"step": "generate_score", "formula": "0.5"},
                {"step": "generate_reason", "formula": "'Grade ' + str(step2.grade)"},
            ],
        }
    )


def test_a_number_from_the_judges_answer_shown_as_text_is_listed() -> None:
    differences = export_mastra(_judged("number")).differences
    assert differences == [
        "The generate_reason step's formula: str(step2.grade) may read 3 where the studio "
        "reads 3.0 (whether Python makes this number whole or a decimal depends on the data)"
    ]
    assert export_mastra(_judged("string")).differences == []
