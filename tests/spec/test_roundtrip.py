"""The round-trip guarantee: spec -> JSON/YAML -> spec is identical, and the exported Python
gives exactly the results of the compiled spec (scores, reasons, step results, prompts, judge
evidence), for the demo scorers and for generated specs, against the fake judge."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer_runtime import ScorerRunError
from scorer_runtime.spec import (
    ScorerSpec,
    compile_spec,
    export_json,
    export_python,
    export_yaml,
    load_spec,
)

from .conftest import ROOT, demo_examples, demo_spec_paths

PATHS = demo_spec_paths()


def outcome(scorer: Any, example: dict[str, Any], comparable: Any) -> Any:
    """The result as comparable data, or the error message when the run failed."""
    try:
        return comparable(scorer.run_sync(**example, run_id="run-1"))
    except ScorerRunError as error:
        return ("failed", str(error), comparable(error.result))


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_demo_specs_round_trip_through_json_and_yaml(path, registry):
    spec = load_spec(path, registry=registry)
    assert load_spec(export_json(spec), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec
    assert export_json(load_spec(export_yaml(spec), registry=registry)) == export_json(spec)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_exported_demo_code_gives_the_compiled_results(
    path, demo_judge, fake_judge, import_code, comparable, registry
):
    spec = demo_judge(load_spec(path, registry=registry))
    compiled = compile_spec(spec, registry)
    exported = import_code(export_python(spec, registry)).scorer
    for example in demo_examples(spec.id):
        start = fake_judge.request_count
        expected = outcome(compiled, example, comparable)
        middle = fake_judge.request_count
        assert outcome(exported, example, comparable) == expected
        sent = [request.json for request in fake_judge.chat_requests[start:]]
        # Both sent the very same requests to the judge.
        assert sent[: middle - start] == sent[middle - start :]


# -- generated specs ----------------------------------------------------------------------------

_CHARS = list("abcdefxyz ABCZ0129.,;:!?-_'\"\\\n\téü—…漢字🎉")
TEXT = st.text(alphabet=st.sampled_from(_CHARS), min_size=1, max_size=40)
WORD = st.text(alphabet=st.sampled_from(list("abcdefxyz-' ")), min_size=1, max_size=12)
NUMBER = st.floats(min_value=0, max_value=1, allow_nan=False).map(lambda x: round(x, 3))

SCHEMAS: list[tuple[dict[str, Any], Any]] = [
    (
        {
            "type": "object",
            "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}},
            "required": ["verdict"],
        },
        {"verdict": "yes"},
    ),
    (
        {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]},
        {"score": 0.25},
    ),
    (
        {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}},
        {"items": ["first", "second"]},
    ),
]


def function_step(step: str) -> st.SearchStrategy[dict[str, Any]]:
    options = [
        st.builds(
            lambda k: {"use": "keyword_coverage", "with": {"keywords": k}},
            st.lists(WORD, min_size=1, max_size=3),
        ),
        st.builds(
            lambda v, m: {"use": "contains", "with": {"values": v, "mode": m}},
            st.lists(WORD, min_size=1, max_size=2),
            st.sampled_from(["any", "all"]),
        ),
        st.builds(
            lambda lo, extra, unit: {
                "use": "length_bounds",
                "with": {"min": lo, "max": lo + extra, "unit": unit},
            },
            st.integers(0, 5),
            st.integers(0, 30),
            st.sampled_from(["words", "characters"]),
        ),
        st.builds(lambda r: {"use": "text_similarity", "with": {"reference": r}}, TEXT),
    ]
    return st.one_of(options).map(lambda d: {"step": step, **d})


def formula_step(step: str) -> st.SearchStrategy[dict[str, Any]]:
    numeric = [
        st.just("len(output) / (len(output) + 1)"),
        st.builds(lambda t: f"1 if contains(output, {t!r}, ignore_case=True) else 0", TEXT),
        st.just("clamp(words(output) / 10)"),
        st.builds(lambda t: f"min(1, count(output, {t!r}))", WORD),
    ]
    if step == "generate_reason":
        options = [
            st.builds(lambda t: f"{t!r} + str(score)", TEXT),
            st.just("'score: ' + str(round(score, 2))"),
        ]
    elif step == "generate_score":
        options = numeric
    else:
        options = [*numeric, st.just("upper(output)"), st.just("[input, output]")]
    return st.one_of(options).map(lambda f: {"step": step, "formula": f})


def template_text(step: str) -> st.SearchStrategy[str]:
    plain = st.text(alphabet=st.sampled_from([c for c in _CHARS if c not in "{}%#"]), max_size=40)
    variables = st.sampled_from(
        ["{{ output }}", "{{ input }}", "{{ ground_truth }}", "{{ results | json }}"]
    )
    return st.builds(lambda a, v, b: f"[[{step}]] {a} {v} {b}", plain, variables, plain)


@st.composite
def prompt_step(draw: Any, step: str) -> tuple[dict[str, Any], Any]:
    """A prompt step, and what the fake judge answers it."""
    data: dict[str, Any] = {
        "step": step,
        "description": draw(TEXT),
        "template": draw(template_text(step)),
    }
    if draw(st.booleans()):
        data["judge"] = draw(
            st.one_of(
                st.builds(lambda i: {"instructions": i}, TEXT),
                st.builds(lambda t: {"temperature": t}, NUMBER),
                st.builds(lambda r: {"redact_pii": r}, redactions()),
                st.builds(lambda t: {"truncate": t}, truncations()),
                st.builds(lambda g: {"output_guard": g}, guards()),
            )
        )
    if step == "generate_reason":
        return data, draw(TEXT)
    if step == "generate_score":
        verdict, score = SCHEMAS[0], SCHEMAS[1]
        schema, calc = draw(
            st.sampled_from(
                [
                    (None, {"field": "score"}),
                    (score, {"field": "score"}),
                    (score, {"formula": "judge_output.score * 2"}),
                    (verdict, {"use": "label_to_score", "with": {"mapping": {"yes": 1, "no": 0}}}),
                    (score, {"use": "clamp", "with": {"field": "judge_output.score", "max": 0.2}}),
                ]
            )
        )
        if schema is not None:
            data["output_schema"] = schema[0]
        data["calculate_score"] = calc
        return data, schema[1] if schema is not None else {"score": 0.5}
    schema, reply = draw(st.sampled_from(SCHEMAS))
    data["output_schema"] = schema
    return data, reply


@st.composite
def judges(draw: Any) -> dict[str, Any]:
    judge: dict[str, Any] = {
        "model": "openai/fake-judge",
        "instructions": draw(TEXT),
        "api_key_env": "OPENAI_API_KEY",
        "json_prompt_injection": draw(st.sampled_from(["system", "inline", True])),
        "timeout_s": 5.0,
    }
    if draw(st.booleans()):
        delay = draw(
            st.one_of(
                st.integers(0, 5),
                st.builds(lambda i: {"initial_ms": i, "max_ms": 10}, st.integers(0, 5)),
            )
        )
        judge["retry"] = {"max_retries": draw(st.integers(0, 3)), "delay": delay}
    if draw(st.booleans()):
        judge["temperature"] = draw(NUMBER)
    if draw(st.booleans()):
        judge["redact_pii"] = draw(redactions())
    if draw(st.booleans()):
        judge["truncate"] = draw(truncations())
    if draw(st.booleans()):
        judge["output_guard"] = draw(guards())
    return judge


@st.composite
def redactions(draw: Any) -> dict[str, Any]:
    """Every option of redact_pii: built-in kinds, extra rules, the replacement text."""
    redact: dict[str, Any] = {}
    if draw(st.booleans()):
        kinds = ["email", "phone", "card", "api_key"]
        redact["kinds"] = draw(st.lists(st.sampled_from(kinds), min_size=1, unique=True))
    if draw(st.booleans()):
        rules = {"ticket": r"T-\d{3,8}", "word": r"(?i)\bsecret\b", "email": r"@\w+"}
        redact["patterns"] = draw(st.dictionaries(st.sampled_from(list(rules)), st.just("")))
        redact["patterns"] = {name: rules[name] for name in redact["patterns"]}
    if draw(st.booleans()):
        redact["replacement"] = draw(st.sampled_from(["***", "<{name} hidden>"]))
    if redact.get("patterns") and "kinds" not in redact and draw(st.booleans()):
        redact["include_defaults"] = False
    return redact


@st.composite
def truncations(draw: Any) -> dict[str, Any]:
    # The start of the prompt (the fake judge's [[step]] marker) always survives the cut.
    unit = draw(st.sampled_from(["max_chars", "max_tokens"]))
    cut: dict[str, Any] = {unit: draw(st.integers(60, 400))}
    if draw(st.booleans()):
        cut["keep"] = draw(st.sampled_from(["head", "both"]))
    if draw(st.booleans()):
        cut["marker"] = draw(st.sampled_from(["[cut]", " … ", ""]))
    return cut


@st.composite
def guards(draw: Any) -> dict[str, Any]:
    # Patterns the fake judge's answers never match (a rejection stops later steps' calls).
    patterns = ["as an ai language model", r"\bnever-said-[0-9]+", "(?i)i cannot help"]
    guard: dict[str, Any] = {
        "patterns": draw(st.lists(st.sampled_from(patterns), min_size=1, unique=True))
    }
    if draw(st.booleans()):
        guard["message"] = draw(st.sampled_from(["The judge refused.", "Blocked {pattern}"]))
    return guard


STEP_SETS = [
    ["generate_score"],
    ["analyze", "generate_score"],
    ["preprocess", "analyze", "generate_score", "generate_reason"],
    ["preprocess", "generate_score", "generate_reason"],
    ["generate_score", "generate_reason"],
]


@st.composite
def generated_specs(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A spec as data, and the fake judge's answer for each prompt step's marker."""
    steps, replies = [], {}
    for step in draw(st.sampled_from(STEP_SETS)):
        kind = draw(st.sampled_from(["function", "formula", "prompt"]))
        if kind == "function" and step != "generate_reason":
            steps.append(draw(function_step(step)))
        elif kind == "prompt":
            data, reply = draw(prompt_step(step))
            steps.append(data)
            replies[f"[[{step}]]"] = reply
        else:
            steps.append(draw(formula_step(step)))
    spec: dict[str, Any] = {
        "id": draw(st.from_regex(r"[a-z][a-z0-9_.-]{0,20}", fullmatch=True)),
        "description": draw(TEXT),
        "steps": steps,
    }
    if draw(st.booleans()):
        spec["name"] = draw(TEXT)
    if replies or draw(st.booleans()):
        spec["judge"] = draw(judges())
    if draw(st.booleans()):
        spec["prepare"] = {"drop_ground_truth": True}
    return spec, replies


EXAMPLES = st.fixed_dictionaries({"input": TEXT, "output": TEXT, "ground_truth": TEXT})


@settings(max_examples=150, deadline=None)
@given(case=generated_specs())
def test_generated_specs_round_trip_through_json_and_yaml(case):
    from scorer_runtime.spec import default_registry

    data, _ = case
    registry = default_registry(plugins=False)
    spec = load_spec(data, registry=registry)
    assert spec == ScorerSpec.model_validate(data)
    assert load_spec(export_json(spec), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=generated_specs(), examples=st.lists(EXAMPLES, min_size=1, max_size=2))
def test_generated_specs_export_to_code_giving_the_same_results(
    case, examples, fake_openai_server, judge_key, import_code, comparable, registry
):
    data, replies = case
    server = fake_openai_server
    server.reset()
    for marker, reply in replies.items():
        server.reply(reply, when=marker)
    if "judge" in data:
        data = {**data, "judge": {**data["judge"], "api_base": server.base_url}}
    spec = load_spec(data, registry=registry)
    compiled = compile_spec(spec, registry)
    exported = import_code(export_python(spec, registry)).scorer
    for example in examples:
        expected = outcome(compiled, example, comparable)
        assert outcome(exported, example, comparable) == expected
    assert server.request_count == 2 * len(replies) * len(examples)


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cases=st.lists(generated_specs(), min_size=15, max_size=15))
def test_generated_exports_are_lint_clean(cases, tmp_path_factory, registry):
    folder = tmp_path_factory.mktemp("exports")
    for index, (data, _) in enumerate(cases):
        (folder / f"scorer_{index}.py").write_text(export_python(data, registry), encoding="utf-8")
    assert_ruff_clean(folder)


def assert_ruff_clean(folder: Any) -> None:
    """``ruff check`` and ``ruff format --check`` pass on ``folder`` with the project config."""
    config = ["--config", str(ROOT / "pyproject.toml"), "--no-cache"]
    for command in (["check", *config], ["format", "--check", "--diff", *config]):
        done = subprocess.run(
            [str(Path(sys.executable).with_name("ruff")), *command, str(folder)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr


ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), min_size=1, max_size=80)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(description=ANY_TEXT, name=ANY_TEXT, keyword=ANY_TEXT, text=ANY_TEXT)
def test_any_text_survives_json_yaml_and_python(
    description, name, keyword, text, import_code, registry
):
    data = {
        "id": "any-text",
        "name": name,
        "description": description,
        "steps": [
            {"step": "preprocess", "use": "contains", "with": {"values": [keyword]}},
            {"step": "generate_score", "formula": "results.preprocess_step_result"},
            {"step": "generate_reason", "formula": f"{text!r}"},
        ],
    }
    spec = load_spec(data, registry=registry)
    assert load_spec(export_json(spec), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec
    scorer = import_code(export_python(spec, registry)).scorer
    assert (scorer.name, scorer.description) == (name, description)
    assert scorer.steps[0].call.fn == compile_spec(spec, registry).steps[0].call.fn
    result = scorer.run_sync(output=f"say {keyword}!")
    assert (result.score, result.reason) == (1.0, text)


PRINTABLE_ANY = st.text(
    alphabet=st.characters(exclude_categories=("Cs", "Co", "Cn")), min_size=1, max_size=150
)


@st.composite
def any_text_specs(draw: Any) -> dict[str, Any]:
    """Specs whose user texts are drawn from (nearly) all of Unicode."""
    template = draw(PRINTABLE_ANY).translate(str.maketrans("{}%#", "()  ")) + " {{ output }}"
    return {
        "id": "any-text",
        "name": draw(PRINTABLE_ANY),
        "description": draw(PRINTABLE_ANY),
        "judge": {"model": "openai/x", "instructions": draw(PRINTABLE_ANY)},
        "steps": [
            {"step": "preprocess", "use": "contains", "with": {"values": [draw(PRINTABLE_ANY)]}},
            {
                "step": "analyze",
                "description": draw(PRINTABLE_ANY),
                "template": template,
                "output_schema": {"title": draw(PRINTABLE_ANY)},
            },
            {"step": "generate_score", "formula": "1"},
            {"step": "generate_reason", "formula": repr(draw(PRINTABLE_ANY))},
        ],
    }


@settings(
    max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(specs=st.lists(any_text_specs(), min_size=40, max_size=40))
def test_exports_of_any_text_are_lint_clean(specs, tmp_path_factory, registry):
    folder = tmp_path_factory.mktemp("any_text_exports")
    for index, data in enumerate(specs):
        (folder / f"scorer_{index}.py").write_text(export_python(data, registry), encoding="utf-8")
    assert_ruff_clean(folder)


def test_a_long_text_with_line_breaks_that_fits_once_wrapped_stays_whole(
    tmp_path_factory, registry
):
    """ruff format joins string pieces that fit on one line: the export must not split them."""
    name = "𮤹ø𡸚;\xa0\x98Ø𧡔 8\x07~ù!\x82\x0fV𮅠\nܿ\x9c86\x81Ú7\r\x9e!\x03\x14¤𫭄Ë²\x8fÛËÖ\x96\x9e"
    data = {
        "id": "any-text",
        "name": name,
        "description": "þµ",
        "judge": {"model": "openai/x", "instructions": "0"},
        "steps": [
            {"step": "preprocess", "use": "contains", "with": {"values": ["0"]}},
            {
                "step": "analyze",
                "description": "0",
                "template": "0 {{ output }}",
                "output_schema": {"title": "0"},
            },
            {"step": "generate_score", "formula": "1"},
        ],
    }
    folder = tmp_path_factory.mktemp("wrapped_export")
    (folder / "scorer.py").write_text(export_python(data, registry), encoding="utf-8")
    assert_ruff_clean(folder)
