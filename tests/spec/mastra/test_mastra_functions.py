"""Formula functions and text methods give the same results and failures in Node as in Python."""

from __future__ import annotations

from typing import Any

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import export_mastra
from tests.fakes.openai_server import FakeOpenAIServer
from tests.spec.conftest import with_api_base

CASES: list[tuple[str, list[Any]]] = [
    (
        "min(input)",
        [[3, 1.5, 2], [], "abc", ["b", "a", "é"], [[1, 2], [1], [0, 5]], [1, "a"], [True, 0.5]],
    ),
    ("max(input, default=-1)", [[], [2, 7.5, 7], ["\U0001f600", "\uffff"], [None, 1]]),
    ("min(1, len(input)) + max(0.5, 0.25)", ["ab", ""]),
    ("sum(input)", [[1, 2, 3], [0.1, 0.2], [True, 2], [], "abc", [1, "a"], None]),
    ("any(input)", [[0, "", []], [0, "x"], [], "abc"]),
    ("all(input)", [[], [1, {}], [1, "a"], 5]),
    (
        "int(input)",
        ["3.5", " 42 ", "1_000", "-0", "abc", 3.9, -3.9, True, "1e3", "inf", None, [1], "+7"],
    ),
    (
        "float(input)",
        ["0.75", " 3 ", "1e-5", "-inf", "nan", "1_0.5", ".", "1__0", 7, True, "abc", "2.", ".5"],
    ),
    ("float(input) * 2", ["1.25"]),
    ("input.split()", ["  a b\u3000c  ", "", "one", 5]),
    ("input.split(',')", ["a,,b,", ""]),
    ("input.split(',', 1)", ["a,b,c", "abc"]),
    ("input.split(maxsplit=1)", [" a  b c ", "   "]),
    ("input.split(sep='-', maxsplit=0)", ["a-b"]),
    ("input.split('')", ["abc"]),
    ("input.replace('a', 'o')", ["banana", ""]),
    ("input.replace('a', 'o', 2)", ["banana"]),
    ("input.replace('', '-')", ["a\U0001f600", ""]),
    ("input.replace('', '-', 1)", ["abc"]),
    ("input < 3", [2, 3.5, "a", None, True]),
    ("input > 'b'", ["é", "a", "\U0001f600"]),
    ("input <= [1, 2]", [[1, 1, 5], [1, 2], [1, 2, 0], [1, "x"], "x"]),
    ("bool(input)", [{}, "0", 0.0, [0]]),
    ("get(input, 'a.0.b', 'none')", [{"a": [{"b": 2}]}, {"a": []}, {"a": {"0": {"b": 3}}}, "x"]),
    ("get(input, '-1')", [[1, 2], [], {"-1": 5}]),
    ("get(input, 1)", [[1, 2], {"1": 2}]),
    ("get(input, '--1')", [[1, 2]]),
    ("clamp(input)", [1.5, -2, 0.25, True, "x"]),
    ("clamp(input, 2, 1)", [1]),
    ("count(input, 'a')", ["banana", ["a", "b", "a"], 5]),
    ("count(input, 1)", [[1, True, 2, "1"], "x"]),
    ("count(input, '')", ["a\U0001f600"]),
    ("input // 2", [7, -7, 0, "x"]),
    ("input % -3", [7, -7, 0, 7.5]),
    ("7 // input", [0, -2]),
    ("7.0 // input", [2, -2.5]),
    ("0 < input <= 10", [5, 0, 10, 11, "x"]),
    ("1 < 2 < input.missing", [{}]),
    ("1 > 2 < input.missing", [{}]),
    ("input == 1 == True", [1, 2]),
    ("input[1:3]", ["a\U0001f600bc", [1, 2, 3, 4], {"a": 1}, "x"]),
    ("input[-2:]", ["hello", [1]]),
    ("input[:-1]", ["hello", []]),
    ("input[:2.5]", ["hello"]),
    ("input is None", [None, 0, ""]),
    ("input is not None", [None, False]),
    ("input is True", [True, 1]),
    ("input.lstrip() + '|' + input.rstrip()", ["  a  ", "\u3000b\n"]),
    ("input.removeprefix('ab') + input.removesuffix('')", ["abc", "b"]),
    ("input.removesuffix('bc')", ["abc", "bc"]),
    ("', '.join(input)", [["a", "b"], "xy", {"k": 1}, [1, 2], []]),
    ("input.count('a')", ["banana", ["a", "a"], ""]),
]


def _python(spec: Any, examples: list[dict[str, Any]]) -> list[Any]:
    scorer = compile_spec(spec)
    found: list[Any] = []
    for example in examples:
        try:
            found.append(scorer.run_sync(**example).reason)
        except Exception:
            found.append("error")
    return found


def test_formula_functions_agree_with_python_failures_included(mastra_node: Any) -> None:
    runs, expected = [], []
    for number, (shown, inputs) in enumerate(CASES):
        spec = load_spec(
            {
                "id": f"functions-{number}",
                "description": f"Shows {shown}.",
                "steps": [
                    {"step": "generate_score", "formula": "0.5"},
                    {"step": "generate_reason", "formula": f"str({shown})"},
                ],
            }
        )
        examples = [{"input": value, "output": "x"} for value in inputs]
        runs.append((export_mastra(spec).text, f"functions-{number}", examples))
        expected.append(_python(spec, examples))
    got = mastra_node.score_many(runs)
    for (shown, inputs), theirs, mine in zip(CASES, expected, got, strict=True):
        reasons = ["error" if "error" in g else g["reason"] for g in mine]
        assert list(zip(inputs, reasons, strict=True)) == list(zip(inputs, theirs, strict=True)), (
            shown
        )
    flat = [reason for reasons in expected for reason in reasons]
    assert 20 < flat.count("error") < len(flat) // 2
    assert expected[6][:4] == ["3", "42", "1000", "0"]  # int(): text cut toward zero
    assert expected[1][2] == "\U0001f600"  # max() orders text by code point, as Python


REPLACED = {
    "id": "replace-filter",
    "description": "The replace, default and length filters, comparisons, inline if.",
    "judge": {
        "model": "openai/gpt-4o-mini",
        "api_key_env": "OPENAI_API_KEY",
        "instructions": "You explain scores.",
    },
    "steps": [
        {"step": "generate_score", "formula": "0.5"},
        {
            "step": "generate_reason",
            "description": "Explain",
            "template": "{{ output | replace('a', 'o') }} {{ output | replace('', '-', 2) }} "
            "{{ input | replace(1, 'one') }}\n{{ 'after' if output > 'b' else 'before' }} "
            "{{ input and 'set' }} {{ 'a' in output }} {{ 'z' not in output }}\n"
            "{{ input[5] | default('no 6th') }} {{ input[0] | d('-', true) }} "
            "{{ input | length }} {{ ground_truth.a | default(0) }}",
        },
    ],
}


def test_template_filters_and_comparisons_write_the_same_prompt(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    spec = with_api_base(load_spec(REPLACED), fake_judge.base_url)
    examples = [
        {"input": [1, 21], "output": "banana", "ground_truth": {"a": 2}},
        {"input": "x", "output": "\U0001f600a", "ground_truth": "y"},
        {"input": [0], "output": "a", "ground_truth": None},
    ]
    sent = []
    for run in ("python", "mastra"):
        fake_judge.reset()
        fake_judge.reply("Fine.")
        if run == "python":
            scorer = compile_spec(spec)
            for example in examples:
                scorer.run_sync(**example)
        else:
            got = mastra_node.score(export_mastra(spec).text, "replace-filter", examples)
            assert [g.get("reason") for g in got] == ["Fine."] * 3
        sent.append([r.last_user_content for r in fake_judge.chat_requests])
    assert sent[1] == sent[0]
    assert sent[0][0] == "bonono -b-anana [one, 2one]\nafter set true true\nno 6th 1 2 2"
    assert sent[0][2].endswith("no 6th - 1 0")
