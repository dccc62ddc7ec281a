"""Safe formulas (scorer_runtime.spec.formulas): what they compute, and how they fail."""

from __future__ import annotations

import copy
import math
import pickle

import pytest

from scorer_runtime import (
    Judge,
    NotScorable,
    PromptStep,
    ScorerRun,
    ScorerRunError,
    StepResults,
    create_scorer,
)
from scorer_runtime.spec.context import CONTEXT_NAMES, build_context
from scorer_runtime.spec.formulas import (
    FORMULA_FUNCTIONS,
    FORMULA_VARIABLES,
    MAX_FORMULA_LENGTH,
    Formula,
    FormulaError,
    check_formula,
    formula,
)

RUN = ScorerRun(
    input="Can I get a refund?",
    output="Yes, refunds are possible within 30 days.",
    run_id="r1",
    ground_truth="Refunds within 30 days",
    request_context={"locale": "de", "tier": "gold"},
    extra={"trace_id": "t-9"},
)
ANALYSIS = {
    "verdict": "yes",
    "score": 7,
    "claims": [
        {"text": "refunds possible", "supported": True, "score": 1.0},
        {"text": "30 days", "supported": True, "score": 0.5},
        {"text": "free shipping", "supported": False, "score": 0.0},
    ],
}
RESULTS = StepResults(analyze_step_result=ANALYSIS)


def value(expression: str, **kwargs: object) -> object:
    return formula(expression)(**({"run": RUN, "results": RESULTS} | kwargs))


# --- What formulas compute ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("results.analyze_step_result.score * 2", 14),
        ("results['analyze_step_result']['score'] / 10", 0.7),
        ("results.analyze_step_result.claims[1].text", "30 days"),
        ("results.analyze_step_result.claims[-1].supported", False),
        ("len(output)", 41),
        ("words(output)", 7),
        ("1 if contains(output, 'REFUNDS', ignore_case=True) else 0", 1),
        ("contains(output, 'REFUNDS')", False),
        ("contains(request_context, 'locale')", True),
        ("contains(['a', 'b'], 'b')", True),
        ("count(output, 's')", 5),
        ("count([1, 2, 2, 3], 2)", 2),
        ("lower(strip('  Yes '))", "yes"),
        ("upper(request_context.locale)", "DE"),
        ("output.lower().startswith('yes')", True),
        ("output.split(',')[0]", "Yes"),
        ("'-'.join(['a', 'b'])", "a-b"),
        ("output[:3] + '!'", "Yes!"),
        ("mean([c.score for c in results.analyze_step_result.claims])", 0.5),
        ("sum([c.supported for c in results.analyze_step_result.claims])", 2),
        ("len([c for c in results.analyze_step_result.claims if not c.supported])", 1),
        ("all([c.score >= 0 for c in results.analyze_step_result.claims])", True),
        ("any(c.score > 0.9 for c in results.analyze_step_result.claims)", True),
        ("min([3, 1, 2])", 1),
        ("max(0, 1 - len(output) / 20)", 0),
        ("min([], default=0)", 0),
        ("clamp(results.analyze_step_result.score / 5)", 1),
        ("clamp(-2, -1, 1)", -1),
        ("round(2 / 3, 2)", 0.67),
        ("round(2.6)", 3),
        ("abs(-3)", 3),
        ("int('7') + int(2.9)", 9),
        ("float('0.25')", 0.25),
        ("bool('')", False),
        ("str(results.analyze_step_result.claims[0])",
         '{"text": "refunds possible", "supported": true, "score": 1.0}'),
        ("str(None) + str(True) + str(2)", "true2"),
        ("{'yes': 1, 'no': 0}[results.analyze_step_result.verdict]", 1),
        ("get(request_context, 'tier')", "gold"),
        ("get(request_context, 'missing', 'none')", "none"),
        ("get(results, 'analyze_step_result.claims.2.text')", "free shipping"),
        ("extra.trace_id", "t-9"),
        ("ground_truth == 'Refunds within 30 days'", True),
        ("'refund' in input", True),
        ("'de' not in ['en', 'fr']", True),
        ("score is None", True),
        ("2 ** 10 % 1000", 24),
        ("7 // 2 - -1", 4),
        ("(1, 2)", [1, 2]),
        ("{1, 1}", [1]),
    ],
)  # fmt: skip
def test_formula_values(expression: str, expected: object) -> None:
    assert value(expression) == expected


def test_score_and_judge_output_are_injected_by_keyword() -> None:
    f = formula("clamp(judge_output.score / 10) if score is None else score")
    assert f(judge_output={"score": 7}) == pytest.approx(0.7)
    assert f(score=0.25) == 0.25


def test_not_scorable_passes_through_as_the_marker() -> None:
    result = formula("not_scorable('no answer') if not output else 1")(
        run=ScorerRun(input="q", output="", run_id="r")
    )
    assert isinstance(result, NotScorable)
    assert result.reason == "no answer"


def test_evaluate_takes_a_ready_context_and_result_is_plain_data() -> None:
    context = build_context(RUN, RESULTS)
    assert formula("(request_context.locale, [1, 2])").evaluate(context) == ["de", [1, 2]]
    assert formula("results.analyze_step_result").evaluate(context) == ANALYSIS


def test_names_lists_the_context_names_read() -> None:
    f = formula("[c.score for c in results.analyze_step_result.claims] + [len(output)]")
    assert f.names == {"results", "output"}


def test_repr_is_the_call_that_builds_it_and_equality_is_by_text() -> None:
    f = formula("len(output) > 10")
    assert repr(f) == "formula('len(output) > 10')"
    assert eval(repr(f), {"formula": formula}) == f  # the repr really is the building call
    assert f == Formula("len(output) > 10")
    assert hash(f) == hash(formula("len(output) > 10"))
    assert f != formula("len(output) > 11")


def test_pickle_and_deepcopy_rebuild_from_the_text() -> None:
    f = formula("words(output)")
    for clone in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f)):
        assert clone == f
        assert clone(run=RUN) == 7


def test_help_lists_cover_every_function_and_context_name() -> None:
    from scorer_runtime.spec.sandbox.functions import SAFE_FUNCTIONS

    assert {name for name, _ in FORMULA_FUNCTIONS} == set(SAFE_FUNCTIONS)
    assert [name for name, _ in FORMULA_VARIABLES] == list(CONTEXT_NAMES)
    assert all(description.strip() for _, description in FORMULA_FUNCTIONS + FORMULA_VARIABLES)


def test_results_do_not_depend_on_anything_but_the_run() -> None:
    f = formula("mean([c.score * len(output) for c in results.analyze_step_result.claims])")
    assert len({f(run=RUN, results=RESULTS) for _ in range(20)}) == 1


# --- Problems found when the formula is built ------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("len(output) +", "column 1: invalid syntax"),
        ("len(output", "column 4: '(' was never closed"),
        ("outptu", "column 1: unknown name 'outptu'. Did you mean 'output'?"),
        ("lenn(output)", "column 1: the function 'lenn' is unknown. Did you mean 'len'?"),
        ("output(1)", "the function 'output' is data, not a function"),
        ("len", "'len' is a function; call it: len(...)"),
        ("true", "unknown name 'true'; write True"),
        ("import os", "imports are not allowed"),
        ("x = 1", "assignments are not allowed"),
        ("1; 2", "a formula is one expression"),
        ("for x in y: pass", "statements (for, if:, def, ...) are not allowed"),
        ("lambda: 1", "column 1: lambda functions are not allowed"),
        ("(y := 2)", "assignments (:=) are not allowed"),
        ("f'{output}'", "f-strings are not allowed"),
        ("{k: 1 for k in output}", "dict comprehensions are not allowed"),
        ("[*output]", "* unpacking is not allowed"),
        ("max(**request_context)", "** unpacking is not allowed"),
        ("1 | 2", "bit operators"),
        ("~1", "the ~ operator is not allowed"),
        ("output.format(1)", "column 8: '.format()' is not available"),
        ("input.__class__", "column 7: names starting with '_' are not allowed (__class__)"),
        ("[c for (c, d) in output]", None),
        ("[c for c.x in output]", "a loop variable must be a simple name"),
        ("b'x'", "bytes values are not allowed"),
        ("1j", "complex values are not allowed"),
        ("   ", "the formula is empty"),
        ("(lambda: 1)()", "only the listed functions and text methods can be called"),
    ],
)
def test_check_formula_reports_problems_with_positions(
    expression: str, expected: str | None
) -> None:
    problems = check_formula(expression)
    if expected is None:
        assert problems == []
    else:
        assert any(expected in problem for problem in problems), problems


def test_all_problems_are_reported_at_once_in_order() -> None:
    problems = check_formula("outptu + lenn(x) + input.__dict__")
    assert [p.split(":")[0] for p in problems] == [
        "column 1",
        "column 10",
        "column 15",
        "column 26",
    ]
    assert "unknown name 'outptu'" in problems[0]
    assert "the function 'lenn' is unknown" in problems[1]
    assert "unknown name 'x'" in problems[2]
    assert "names starting with '_' are not allowed (__dict__)" in problems[3]


def test_construction_raises_formula_error_with_every_problem_and_the_first_position() -> None:
    with pytest.raises(FormulaError) as caught:
        formula("len(outptu) + \n  zz")
    error = caught.value
    assert str(error).startswith("The formula `len(outptu) + zz` has 2 problems: (1) line 1")
    assert error.problems == [
        "line 1, column 5: unknown name 'outptu'. Did you mean 'output'? Names you can use: "
        "input, output, ground_truth, request_context, step1, step2, step3, score, judge_output, "
        "extra",
        "line 2, column 3: unknown name 'zz'. Names you can use: input, output, ground_truth, "
        "request_context, step1, step2, step3, score, judge_output, extra",
    ]
    assert (error.line, error.column) == (1, 5)
    assert error.expression == "len(outptu) + \n  zz"
    assert isinstance(error, ValueError)


def test_a_formula_may_span_lines() -> None:
    f = formula("clamp(\n  results.analyze_step_result.score / 10\n)\n+ 0")
    assert f(results=RESULTS) == pytest.approx(0.7)
    assert formula("1 +\n  2")(run=RUN) == 3
    with pytest.raises(FormulaError) as caught:
        formula("len(output) +\n  results.analyze_step_result.nope")(run=RUN, results=RESULTS)
    assert "(line 2, column 3)" in str(caught.value)
    assert (caught.value.line, caught.value.column) == (2, 3)


def test_columns_count_characters_not_bytes() -> None:
    assert check_formula("'héllo wörld' + zz")[0].startswith("column 17:")


def test_check_formula_never_raises_on_odd_input() -> None:
    assert check_formula(42) == ["a formula must be text, not a number"]  # type: ignore[arg-type]
    assert check_formula("x" * (MAX_FORMULA_LENGTH + 1))[0].startswith("the formula is 2,001")
    assert check_formula("\x00") != []
    with pytest.raises(FormulaError, match="a formula must be text"):
        formula(None)  # type: ignore[arg-type]


def test_comprehension_loop_variables_are_known_names() -> None:
    assert check_formula("[c.score for c in results.analyze_step_result.claims]") == []
    assert check_formula("[a + b for a, b in [(1, 2)]]") == []


# --- Problems found when the formula runs -----------------------------------------------


@pytest.mark.parametrize(
    ("expression", "kwargs", "expected"),
    [
        (
            "results.analyze_step_result.verdict",
            {"results": StepResults()},
            "`results.analyze_step_result` is empty (None), so it has no field 'verdict'. "
            "The step that gives it is not part of this scorer, or gave no result.",
        ),
        (
            "judge_output.score",
            {},
            "judge_output is only set when a formula turns the judge's answer into a score",
        ),
        ("score * 2", {}, "cannot use * on nothing (None) and a number"),
        (
            "results.analyze_step_result.verdit",
            {},
            "has no field 'verdit'. Did you mean 'verdict'? Its fields: claims, score, verdict",
        ),
        ("request_context['nope']", {}, "`request_context` has no field 'nope'"),
        ("results.analyze_step_result.claims[7]", {}, "has 3 items; there is no [7]"),
        ("results.analyze_step_result.claims.text", {}, "is a list; pick an item first"),
        ("output.missing", {}, "`output` is text, so it has no field 'missing'"),
        ("output['a']", {}, "`output` is text; pick an item with a whole number"),
        ("len(output) / 0", {}, "division by zero; guard it, e.g. a / b if b else 0"),
        ("mean([])", {}, "mean() of an empty list; guard it: mean(x) if x else 0"),
        ("min([])", {}, "min() of an empty list; give a default: min(x, default=0)"),
        ("len(1, 2)", {}, "len() cannot be called like this (too many positional arguments)"),
        ("len(3)", {}, "len() needs text, a list or an object; got a number"),
        ("float('abc')", {}, "could not read 'abc' as a number"),
        ("output < 3", {}, "cannot compare text with a number using <"),
        ("'x' in score", {}, "'in' needs text, a list or an object on its right"),
        ("[x for x in score]", {}, "[... for x in score] needs a list there; it is nothing"),
        ("(-8) ** 0.5", {}, "the result is not a real number"),
        ("output % 2", {}, "% works on numbers only"),
        ("round(1.5, 99)", {}, "round() takes a whole number of digits from -15 to 15"),
        ("output.index('zz')", {}, "`output` is text; .index() works on lists"),
        ("results.analyze_step_result.claims.index(3)", {}, ".index() failed"),
        ("extra.user", {}, "`extra` has no field 'user'. Its fields: trace_id"),
    ],
)
def test_runtime_errors_say_what_failed_and_what_to_do(
    expression: str, kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(FormulaError) as caught:
        value(expression, **kwargs)
    message = str(caught.value)
    assert message.startswith(f"The formula `{expression}` failed")
    assert expected in message
    assert "Traceback" not in message
    assert "NoneType" not in message


def test_runtime_error_points_at_the_failing_part() -> None:
    with pytest.raises(FormulaError) as caught:
        value("len(output) + results.analyze_step_result.nope")
    error = caught.value
    assert "failed at `results.analyze_step_result.nope` (column 15)" in str(error)
    assert (error.line, error.column) == (1, 15)
    assert error.problems[0].startswith("`results.analyze_step_result` has no field 'nope'")


def test_a_formula_that_gives_a_function_is_an_error() -> None:
    # Reachable only through a method: bare function names are refused when built.
    with pytest.raises(FormulaError, match="gives a function"):
        value("output.lower")


# --- Used as steps of a real scorer --------------------------------------------------------


def test_formula_steps_run_in_a_scorer() -> None:
    scorer = (
        create_scorer(id="length", description="d")
        .preprocess(formula("words(output)"))
        .generate_score(formula("clamp(results.preprocess_step_result / 10)"))
        .generate_reason(formula("'score ' + str(score)"))
    )
    result = scorer.run_sync(input="q", output="one two three four five")
    assert result.preprocess_step_result == 5
    assert result.score == 0.5
    assert result.reason == "score 0.5"


def test_formula_failure_in_a_scorer_names_the_step_and_the_formula() -> None:
    scorer = create_scorer(id="s", description="d").generate_score(formula("len(output) / 0"))
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(input="q", output="hi")
    assert caught.value.failed_step == "generate_score"
    assert isinstance(caught.value.__cause__, FormulaError)
    assert "division by zero" in str(caught.value.__cause__)


def test_formula_as_calculate_score_reads_the_judge_answer(fake_judge) -> None:
    fake_judge.reply({"rating": 8, "issues": ["tone"]}, when="Rate")
    judge = Judge(
        model="openai/fake-judge",
        api_base=fake_judge.base_url,
        api_key="sk-test",
        instructions="Rate answers.",
        json_prompt_injection="system",
    )
    scorer = create_scorer(id="rating", description="d", judge=judge).generate_score(
        PromptStep(
            description="Rate the answer",
            create_prompt=lambda run: f"Rate this: {run.output}",
            output_schema={
                "type": "object",
                "properties": {"rating": {"type": "number"}, "issues": {"type": "array"}},
                "required": ["rating"],
            },
            calculate_score=formula(
                "clamp(judge_output.rating / 10 - 0.1 * len(judge_output.issues))"
            ),
        )
    )
    result = scorer.run_sync(input="q", output="fine")
    assert result.score == pytest.approx(0.7)
    assert fake_judge.request_count == 1
    assert math.isfinite(result.score or math.nan)


def test_python_syntax_warnings_stay_out_of_the_log():
    """``1and 2`` makes Python warn "invalid decimal literal" while parsing; a formula's
    problems are reported as problems, never as warnings on the server's log."""
    import warnings

    from scorer_runtime.spec.sandbox.formula_check import parse_formula

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        parsed, problems = parse_formula("1and 2")
        parse_formula("[1for x in [1]] +\n 1")
    assert parsed is not None  # Python reads it as 1 and 2
    assert not problems
    assert [str(w.message) for w in seen] == []
