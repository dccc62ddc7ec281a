"""Prompt templates (scorer_runtime.spec.templates): rendering, filters, and clear errors."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from scorer_runtime import Judge, PromptStep, ScorerRun, StepResults, create_scorer
from scorer_runtime.spec.context import CONTEXT_NAMES, build_context
from scorer_runtime.spec.templates import (
    MAX_RENDER_CHARS,
    TEMPLATE_FILTERS,
    TEMPLATE_VARIABLES,
    Template,
    TemplateError,
    check_template,
    template,
)

RUN = ScorerRun(
    input="Can I get a refund?",
    output="Yes, within 30 days.",
    run_id="r1",
    ground_truth=None,
    request_context={"locale": "de"},
    extra={"trace_id": "t-9"},
)


def _msg(role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": role, "content": {"format": 2, "parts": parts}}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _tool(call_id: str, name: str, args: dict[str, Any], result: Any = None) -> dict[str, Any]:
    state = "call" if result is None else "result"
    invocation = {"state": state, "toolCallId": call_id, "toolName": name, "args": args}
    if result is not None:
        invocation["result"] = result
    return {"type": "tool-invocation", "toolInvocation": invocation}


AGENT_INPUT = {
    "inputMessages": [_msg("user", [_text("Weather in Paris?")])],
    "rememberedMessages": [
        _msg("user", [_text("Hi")]),
        _msg("assistant", [_text("Hello! How can I help?")]),
    ],
    "systemMessages": [{"role": "system", "content": "You are a weather assistant."}],
    "taggedSystemMessages": {"style": [{"role": "system", "content": "Be brief."}]},
}
AGENT_OUTPUT = [
    _msg(
        "assistant",
        [
            _tool("c1", "geocode", {"city": "Paris"}, {"lat": 48.9}),
            _tool("c2", "weather", {"lat": 48.9}),
            _text("It is sunny in Paris."),
        ],
    )
]


def render(source: str, **kwargs: Any) -> str:
    return template(source)(**({"run": RUN} | kwargs))


# --- Rendering ----------------------------------------------------------------------------


def test_renders_the_context_names() -> None:
    source = (
        "Q: {{ input }}\nA: {{ output }}\nLocale: {{ request_context.locale }} {{ extra.trace_id }}"
    )
    assert render(source) == "Q: Can I get a refund?\nA: Yes, within 30 days.\nLocale: de t-9"


def test_lists_and_objects_render_as_json_and_scalars_plainly() -> None:
    results = StepResults(analyze_step_result={"claims": ["a", "b"], "ok": True, "n": None})
    out = render(
        "{{ results.analyze_step_result }}|{{ results.analyze_step_result.claims }}|"
        "{{ results.analyze_step_result.ok }}|{{ ground_truth }}|{{ 0.5 }}|{{ 'é' }}",
        results=results,
    )
    assert out == '{"claims": ["a", "b"], "ok": true, "n": null}|["a", "b"]|true||0.5|é'


def test_text_is_not_html_escaped_and_blocks_leave_no_blank_lines() -> None:
    source = "Items:\n{% for c in judge_output.claims %}\n  - {{ c }}\n{% endfor %}\nDone <b>&</b>"
    out = template(source)(judge_output={"claims": ["x < y", "a & b"]})
    assert out == "Items:\n  - x < y\n  - a & b\nDone <b>&</b>"


def test_score_and_judge_output_are_injected_by_keyword() -> None:
    prompt = template("{{ score }} {{ judge_output.label }}")
    assert prompt(score=0.5, judge_output={"label": "ok"}) == "0.5 ok"


def test_render_takes_a_ready_context() -> None:
    context = build_context(RUN, StepResults(preprocess_step_result=["a"]))
    assert template("{{ results.preprocess_step_result | join('+') }}").render(context) == "a"


def test_standard_filters_and_tests_work() -> None:
    rendered = template(
        "{{ output | upper | truncate(9, true, '~', 0) }} {{ judge_output.xs | sum }} "
        "{{ judge_output.xs | map('string') | join(',') }} {{ judge_output.xs | max }} "
        "{{ judge_output.items | selectattr('ok') | map(attribute='name') | join(' ') }} "
        "{{ 'a b c' | wordcount }} {{ ground_truth | default('none given', true) }} "
        "{% if judge_output.xs is sequence and 3 is odd %}yes{% endif %} "
        "{{ output | replace('days', 'Tage') }} {{ judge_output.xs | string }} "
        "{{ 'x' ~ 1 ~ none }}|{{ 'l1\nl2' | indent(2) }}"
    )(
        run=RUN,
        judge_output={
            "xs": [3, 1, 2],
            "items": [{"name": "a", "ok": True}, {"name": "b", "ok": False}],
        },
    )
    assert rendered == (
        "YES, WIT~ 6 3,1,2 3 a 3 none given yes Yes, within 30 Tage. [3, 1, 2] x1|l1\n  l2"
    )


def test_text_and_dict_methods_on_the_allow_list_work() -> None:
    out = template(
        "{{ output.lower().split(',')[0] }} {{ request_context.get('tier', 'basic') }} "
        "{% for k, v in request_context.items() %}{{ k }}={{ v }}{% endfor %}"
    )(run=RUN)
    assert out == "yes basic locale=de"


def test_fields_win_over_dict_methods_of_the_same_name() -> None:
    judge_output = {"items": ["a", "b"], "values": 3}
    out = template("{{ judge_output.items | join(',') }} {{ judge_output.values }}")(
        judge_output=judge_output
    )
    assert out == "a,b 3"
    assert template("{{ judge_output.keys() | list }}")(judge_output={"k": 1}) == '["k"]'


def test_printing_a_method_is_an_error_not_a_python_repr() -> None:
    with pytest.raises(TemplateError, match="this prints a method or macro, not a value"):
        template("{{ output.upper }}")(run=RUN)


def test_macros_and_loop_variables_work() -> None:
    source = (
        "{% macro item(n, text) %}{{ n }}. {{ text }}{% endmacro %}"
        "{% for c in judge_output %}{{ item(loop.index, c) }}{% if not loop.last %}; {% endif %}"
        "{% endfor %}"
    )
    assert template(source)(judge_output=["a", "b"]) == "1. a; 2. b"


# --- Agent filters ---------------------------------------------------------------------


def test_agent_filters_read_raw_agent_data() -> None:
    run = ScorerRun(input=AGENT_INPUT, output=AGENT_OUTPUT, run_id="a1")
    out = template(
        "User: {{ input | user_message }}\n"
        "Agent: {{ output | assistant_message }}\n"
        "System: {{ input | system_prompt }}\n"
        "{% for m in input | history %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
        "Tools: {{ output | tool_calls | join(', ') }}\n"
        "Results: {% for r in output | tool_results %}"
        "{{ r.tool_name }} -> {{ r.result }}{% endfor %}"
    )(run=run)
    assert out == (
        "User: Weather in Paris?\n"
        "Agent: It is sunny in Paris.\n"
        "System: You are a weather assistant.\n\nBe brief.\n"
        "user: Hi\nassistant: Hello! How can I help?\nuser: Weather in Paris?\n"
        "Tools: geocode, weather\n"
        'Results: geocode -> {"lat": 48.9}'
    )


def test_json_filter_is_pretty_and_keeps_non_ascii() -> None:
    out = template("{{ judge_output | json }}|{{ judge_output | json(indent=None) }}")(
        judge_output={"städte": ["Köln"]}
    )
    assert out == '{\n  "städte": [\n    "Köln"\n  ]\n}|{"städte": ["Köln"]}'


def test_agent_filters_run_in_an_agent_scorer_against_the_judge(fake_judge) -> None:
    fake_judge.reply({"score": 0.9}, when="Weather in Paris?")
    judge = Judge(
        model="openai/fake-judge",
        api_base=fake_judge.base_url,
        api_key="sk-test",
        instructions="Grade tool use.",
        json_prompt_injection="system",
    )
    prompt = template(
        "The user asked: {{ input | user_message }}\n"
        "The agent called: {{ output | tool_calls | join(', ') }}\n"
        "It answered: {{ output | assistant_message }}"
    )
    scorer = create_scorer(id="tools", description="d", type="agent", judge=judge).generate_score(
        PromptStep(
            description="Grade",
            create_prompt=prompt,
            calculate_score=lambda judge_output: judge_output["score"],
        )
    )
    result = scorer.run_sync(input=AGENT_INPUT, output=AGENT_OUTPUT)
    assert result.score == 0.9
    assert result.generate_score_prompt == (
        "The user asked: Weather in Paris?\n"
        "The agent called: geocode, weather\n"
        "It answered: It is sunny in Paris."
    )
    assert fake_judge.last_request is not None
    assert fake_judge.last_request.last_user_content == result.generate_score_prompt


def test_a_bad_agent_shape_says_which_filter_needed_what() -> None:
    with pytest.raises(TemplateError) as caught:
        template("{{ judge_output | user_message }}")(judge_output={"nothing": 1})
    assert "line 1" in str(caught.value)
    assert "the user_message filter needs agent messages (or text)" in str(caught.value)


# --- Problems found when the template is built ----------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("{{ outptu }}", "line 1: unknown variable 'outptu'. Did you mean 'output'?"),
        ("{{ output | uper }}", "line 1: unknown filter 'uper'. Did you mean 'upper'?"),
        ("{% if output is nmber %}{% endif %}", "unknown test 'nmber'. Did you mean 'number'?"),
        ("a\n{{ output", "line 2: unexpected end of template"),
        ("{% for x in output %}", "Jinja was looking for the following tags: 'endfor' or 'else'"),
        ("{% include 'other.txt' %}", "extends, include and import are not available"),
        ("{% import 'm' as m %}", "extends, include and import are not available"),
        ("{% extends 'base' %}", "extends, include and import are not available"),
        ("{% for x in output recursive %}{{ loop(x) }}{% endfor %}", "recursive loops are not"),
        ("{{ output | format }}", "unknown filter 'format'"),
        ("{{ output | scorer_studio_loop_guard(1) }}", "unknown filter 'scorer_studio_loop_guard'"),
        ("{{ lipsum(5) }}", "unknown variable 'lipsum'"),
        ("{{ namespace() }}", "unknown variable 'namespace'"),
    ],
)  # fmt: skip
def test_check_template_reports_problems_with_lines(source: str, expected: str) -> None:
    problems = check_template(source)
    assert any(expected in p for p in problems), problems


def test_all_problems_are_reported_at_once_in_line_order() -> None:
    problems = check_template("{{ outptu }}\n{{ output | nope }}\n{% include 'x' %}")
    assert [p.split(":")[0] for p in problems] == ["line 1", "line 2", "line 3"]


def test_construction_raises_template_error_with_problems_and_line() -> None:
    with pytest.raises(TemplateError) as caught:
        template("Hello\n{{ outptu }} {{ ground_thruth }}")
    error = caught.value
    assert str(error).startswith("The template `Hello {{ outptu }} {{ ground_thruth }}` has 2")
    assert error.problems[0].startswith("line 2: unknown variable 'ground_thruth'. Did you mean")
    assert error.line == 2
    assert isinstance(error, ValueError)


def test_check_template_is_empty_for_good_templates_and_never_raises() -> None:
    assert check_template("Is this polite? {{ output }}") == []
    assert check_template("{% set x = output %}{{ x }}") == []
    assert check_template(None) == ["a template must be text"]  # type: ignore[arg-type]
    assert check_template("{{ '") != []


# --- Problems found when the template renders ------------------------------------------


@pytest.mark.parametrize(
    ("source", "kwargs", "expected"),
    [
        (
            "{{ results.analyze_step_result.verdict }}",
            {},
            "line 1: a value is empty (None), so it has no 'verdict'",
        ),
        (
            "a\n{{ request_context.tier }}",
            {},
            "at line 2: there is no field 'tier'. Fields there: locale",
        ),
        ("{{ judge_output[3] }}", {"judge_output": [1]}, "the list has 1 items; there is no"),
        ("{{ judge_output.x }}", {"judge_output": [1]}, "a list has no field 'x'; pick an item"),
        ("{{ output.nope }}", {}, "text has no 'nope'"),
        ("{{ 1 / score }}", {"score": 0}, "division by zero"),
        ("{{ judge_output | sum }}", {"judge_output": ["a"]}, "sum adds numbers only; got text"),
        ("{{ output | indent(500) }}", {}, "indent() takes a width of at most 100"),
    ],
)  # fmt: skip
def test_render_errors_name_the_line_and_what_is_missing(
    source: str, kwargs: dict[str, Any], expected: str
) -> None:
    with pytest.raises(TemplateError) as caught:
        render(source, **kwargs)
    message = str(caught.value)
    assert message.startswith("The template failed")
    assert expected in message
    assert "Traceback" not in message
    assert "jinja2" not in message


def test_render_error_in_a_scorer_names_the_step(fake_judge) -> None:
    from scorer_runtime import ScorerRunError

    judge = Judge(model="openai/fake-judge", api_base=fake_judge.base_url, api_key="sk-test")
    scorer = create_scorer(id="s", description="d", judge=judge).generate_score(
        PromptStep(
            description="Grade",
            create_prompt=template("{{ results.analyze_step_result.label }}"),
            calculate_score=lambda judge_output: 1.0,
        )
    )
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(input="q", output="a")
    assert caught.value.failed_step == "generate_score"
    assert isinstance(caught.value.__cause__, TemplateError)
    assert fake_judge.request_count == 0  # nothing was sent


def test_the_rendered_prompt_is_capped() -> None:
    big = "x" * (MAX_RENDER_CHARS + 1)
    with pytest.raises(TemplateError, match="the prompt would be longer than 200,000 characters"):
        template("{{ output }}")(run=ScorerRun(input="", output=big, run_id="r"))
    shortened = template("{{ output | truncate(5000) }}")
    assert len(shortened(run=ScorerRun(input="", output=big, run_id="r"))) == 5000


# --- Identity and help ------------------------------------------------------------------


def test_repr_is_the_call_that_builds_it_and_equality_is_by_text() -> None:
    t = template("Is this polite? {{ output }}")
    assert repr(t) == "template('Is this polite? {{ output }}')"
    assert eval(repr(t), {"template": template}) == t
    assert t == Template("Is this polite? {{ output }}")
    assert hash(t) == hash(template("Is this polite? {{ output }}"))
    assert t.names == {"output"}


def test_pickle_and_deepcopy_rebuild_from_the_text() -> None:
    t = template("{{ output | upper }}")
    for clone in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert clone == t
        assert clone(run=RUN) == "YES, WITHIN 30 DAYS."


def test_help_lists_match_what_templates_can_use() -> None:
    from scorer_runtime.spec.sandbox.template_env import environment
    from scorer_runtime.spec.sandbox.template_guards import INTERNAL_FILTERS

    usable = set(environment().filters) - INTERNAL_FILTERS - {"d"}  # d: alias of default
    assert {name for name, _ in TEMPLATE_FILTERS} == usable
    assert [name for name, _ in TEMPLATE_VARIABLES] == list(CONTEXT_NAMES)
    assert all(description.strip() for _, description in TEMPLATE_FILTERS + TEMPLATE_VARIABLES)


def test_importing_templates_does_not_load_jinja() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import scorer_runtime.spec.templates as t; "
        "print('jinja2' in sys.modules, len(t.TEMPLATE_FILTERS) > 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
