"""Whole numbers written with a decimal point (89.0) show in Node exactly as in Python."""

from __future__ import annotations

from typing import Any

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import export_mastra
from tests.fakes.openai_server import FakeOpenAIServer
from tests.spec.conftest import with_api_base

OUTPUTS: list[Any] = [
    {"total": 89.0, "amounts": [1.0, 2.5, 3, 100.0], "neg": -0.0, "n": 3, "deep": {"y": [7.0]}},
    {"total": 89, "amounts": [1, 2.5, 3.0, -4.0], "neg": 0, "n": 3.0, "deep": {"y": [7]}},
]

SHOWN = (
    "str(output.total) + ' ' + str(output['amounts'][-1]) + ' ' + str(output.amounts) + ' ' + "
    "str(output.neg) + ' ' + str(output.n) + ' ' + str(output.deep.y[0]) + ' ' + str(output)"
)

FORMULA = {
    "id": "whole-floats",
    "description": "Numbers of the data shown as text by formulas.",
    "steps": [
        {"step": "generate_score", "formula": "0.5"},
        {"step": "generate_reason", "formula": SHOWN},
    ],
}

TEMPLATE = {
    "id": "whole-floats-prompt",
    "description": "Numbers of the data shown in a prompt.",
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
            "template": "Total {{ output.total }}; amounts {{ output.amounts | join(', ') }}; "
            "last {{ output.amounts[-1] }}; neg {{ output['neg'] }}; n {{ output.n }}\n"
            "{{ output }}\n{{ output | json }}\n{{ output.deep | json(4) }}",
        },
    ],
}


def test_formulas_show_whole_floats_of_the_data_as_python(mastra_node: Any) -> None:
    spec = load_spec(FORMULA)
    examples = [{"output": output} for output in OUTPUTS]
    scorer = compile_spec(spec)
    expected = [scorer.run_sync(**example).reason for example in examples]
    got = mastra_node.score(export_mastra(spec).text, "whole-floats", examples)
    assert [g.get("reason") for g in got] == expected
    assert expected[0] is not None
    assert expected[0].startswith("89.0 100.0 [1.0, 2.5, 3, 100.0]")
    assert expected[1] is not None
    assert expected[1].startswith("89 -4.0 [1, 2.5, 3.0, -4.0] 0 3.0")


def test_prompts_show_whole_floats_of_the_data_as_python(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    spec = with_api_base(load_spec(TEMPLATE), fake_judge.base_url)
    examples = [{"output": output} for output in OUTPUTS]
    sent = []
    for run in ("python", "mastra"):
        fake_judge.reset()
        fake_judge.reply("Fine.")
        if run == "python":
            scorer = compile_spec(spec)
            reasons = [scorer.run_sync(**example).reason for example in examples]
        else:
            got = mastra_node.score(export_mastra(spec).text, "whole-floats-prompt", examples)
            reasons = [g.get("reason") for g in got]
        assert reasons == ["Fine.", "Fine."]
        sent.append([r.last_user_content for r in fake_judge.chat_requests])
    assert sent[1] == sent[0]
    assert sent[0][0].startswith("Total 89.0; amounts 1.0, 2.5, 3, 100.0; last 100.0; neg -0.0")
    assert '"total": 89.0' in sent[0][0]
    assert '"total": 89,' in sent[0][1]
