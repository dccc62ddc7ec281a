"""compile_spec: specs become runtime scorers, checked against the fake judge over real HTTP."""

from __future__ import annotations

import pytest

from scorer_runtime import ScorerRunError, filter_run
from scorer_runtime.spec import (
    JudgeSpec,
    ScorerSpec,
    SpecError,
    compile_spec,
    formula,
    judge_field,
    template,
)
from scorer_runtime.spec.builtins import keyword_coverage, label_to_score

from .conftest import dataset_rows

VERDICT = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["yes", "partial", "no"]}},
    "required": ["verdict"],
}


def judge(server, **extra):
    return {
        "model": "openai/fake-judge",
        "instructions": "You grade support answers.",
        "api_base": server.base_url,
        "api_key_env": "OPENAI_API_KEY",
        "json_prompt_injection": "system",
        "timeout_s": 5,
        **extra,
    }


def score_step(calculate_score, schema=VERDICT, marker="[score]"):
    return {
        "step": "generate_score",
        "description": "Grade it",
        "template": marker + " Grade: {{ output }}",
        "output_schema": schema,
        "calculate_score": calculate_score,
    }


def spec_with(server, *steps, **judge_extra):
    return {"id": "t", "description": "d", "judge": judge(server, **judge_extra), "steps": steps}


def test_function_steps_are_the_factories_the_export_imports(registry):
    spec = {
        "id": "kw",
        "description": "Mentions the refund policy",
        "steps": [
            {"step": "generate_score", "use": "keyword_coverage", "with": {"keywords": ["refund"]}},
            {"step": "generate_reason", "formula": "'coverage ' + str(score)"},
        ],
    }
    scorer = compile_spec(spec, registry)
    assert scorer.steps[0].call.fn == keyword_coverage(keywords=["refund"])
    assert scorer.steps[1].call.fn == formula("'coverage ' + str(score)")
    result = scorer.run_sync(output="You get a full refund.")
    assert (result.score, result.reason) == (1.0, "coverage 1.0")
    assert scorer.spec == ScorerSpec.model_validate(spec)
    assert (scorer.id, scorer.name, scorer.judge, scorer.type) == ("kw", "kw", None, None)


def test_a_prompt_pipeline_against_the_fake_judge(fake_judge, judge_key, registry):
    fake_judge.reply({"verdict": "partial"}, when="[analyze]")
    fake_judge.reply("Half of it is right.", when="[reason]")
    spec = spec_with(
        fake_judge,
        {
            "step": "analyze",
            "description": "Is it right?",
            "template": "[analyze] Q: {{ input }} A: {{ output }}",
            "output_schema": VERDICT,
        },
        {
            "step": "generate_score",
            "use": "label_to_score",
            "with": {
                "mapping": {"yes": 1, "partial": 0.5, "no": 0},
                "field": "results.analyze_step_result.verdict",
            },
        },
        {"step": "generate_reason", "description": "Why", "template": "[reason] {{ score }}"},
    )
    scorer = compile_spec({**spec, "name": "Right?"}, registry)
    result = scorer.run_sync(input="How long?", output="30 days")
    assert (result.score, result.reason) == (0.5, "Half of it is right.")
    assert result.analyze_step_result == {"verdict": "partial"}
    assert result.analyze_prompt == "[analyze] Q: How long? A: 30 days"
    assert result.generate_reason_prompt == "[reason] 0.5"
    first = fake_judge.chat_requests[0]
    assert first.headers["authorization"] == f"Bearer {judge_key}"
    assert first.json["model"] == "fake-judge"
    system, user = first.json["messages"]
    assert system["content"].startswith("You grade support answers.")
    assert '"verdict"' in system["content"]
    assert user == {"role": "user", "content": "[analyze] Q: How long? A: 30 days"}
    assert scorer.name == "Right?"
    assert scorer.steps[0].prompt.create_prompt == template(
        "[analyze] Q: {{ input }} A: {{ output }}"
    )


@pytest.mark.parametrize(
    ("answer", "score"), [({"score": 0.25}, 0.25), ({"score": "0.8"}, 0.8), ({"score": True}, 1.0)]
)
def test_calculate_score_field_reads_a_number(fake_judge, judge_key, registry, answer, score):
    fake_judge.reply(answer)
    spec = spec_with(fake_judge, score_step({"field": "score"}, schema={"type": "object"}))
    assert compile_spec(spec, registry).run_sync(output="x").score == score


def test_calculate_score_field_errors_say_what_to_fix(fake_judge, judge_key, registry):
    fake_judge.reply({"verdict": "yes"}, when="[a]")
    fake_judge.reply({"score": "high"}, when="[b]")
    schema = {"type": "object", "properties": {"score": {}, "verdict": {}}}
    with pytest.raises(ScorerRunError, match="has no field 'score' \\(it has: verdict\\)"):
        compile_spec(
            spec_with(fake_judge, score_step({"field": "score"}, schema, "[a]")), registry
        ).run_sync(output="x")
    with pytest.raises(ScorerRunError, match="'score' is 'high', not a number"):
        compile_spec(
            spec_with(fake_judge, score_step({"field": "score"}, schema, "[b]")), registry
        ).run_sync(output="x")
    assert repr(judge_field("verdict.score")) == "judge_field('verdict.score')"
    with pytest.raises(ValueError, match="judge_field needs a field name"):
        judge_field("")


def test_calculate_score_formula_and_built_in(fake_judge, judge_key, registry):
    fake_judge.reply({"correct": 3, "total": 4}, when="[f]")
    fake_judge.reply({"verdict": "partial"}, when="[u]")
    by_formula = score_step(
        {"formula": "judge_output.correct / judge_output.total"}, {"type": "object"}, "[f]"
    )
    assert (
        compile_spec(spec_with(fake_judge, by_formula), registry).run_sync(output="x").score == 0.75
    )
    use = {"use": "label_to_score", "with": {"mapping": {"yes": 1, "partial": 0.4, "no": 0}}}
    scorer = compile_spec(spec_with(fake_judge, score_step(use, marker="[u]")), registry)
    assert scorer.run_sync(output="x").score == 0.4
    assert scorer.steps[0].calculate_score.fn == label_to_score(
        mapping={"yes": 1, "partial": 0.4, "no": 0}
    )


def test_a_step_judge_overrides_the_scorer_judge_field_by_field(fake_judge, judge_key, registry):
    fake_judge.reply({"verdict": "yes"})
    fake_judge.reply("fine")
    analyze = {
        "step": "analyze",
        "description": "a",
        "template": "[a] {{ output }}",
        "output_schema": VERDICT,
        "judge": {"model": "openai/strict-judge", "instructions": "Be very strict."},
    }
    reason = {"step": "generate_reason", "description": "r", "template": "[r] why"}
    spec = spec_with(fake_judge, analyze, {"step": "generate_score", "formula": "1"}, reason)
    compile_spec(spec, registry).run_sync(output="ok")
    first, second = fake_judge.chat_requests
    assert first.json["model"] == "strict-judge"
    assert first.json["messages"][0]["content"].startswith("Be very strict.")
    assert first.headers["authorization"] == f"Bearer {judge_key}"  # inherited api_key_env
    assert second.json["model"] == "fake-judge"
    assert second.json["messages"][0]["content"] == "You grade support answers."


def test_retry_policies_retry_one_request(fake_judge, judge_key, registry):
    fake_judge.reply({"verdict": "yes"})
    fake_judge.fault(status=503, times=1)
    use = {"use": "label_to_score", "with": {"mapping": {"yes": 1, "no": 0}}}
    retrying = spec_with(fake_judge, score_step(use), retry={"max_retries": 2, "delay": 0})
    assert compile_spec(retrying, registry).run_sync(output="x").score == 1.0
    assert fake_judge.request_count == 2

    fake_judge.reset()
    fake_judge.reply({"verdict": "yes"})
    fake_judge.fault(status=422, times=1)
    with pytest.raises(ScorerRunError):
        compile_spec(retrying, registry).run_sync(output="x")
    assert fake_judge.request_count == 1  # an invalid request is not retried by default

    fake_judge.reset()
    fake_judge.reply({"verdict": "yes"})
    fake_judge.fault(status=422, times=1)
    matched = spec_with(fake_judge, score_step(use), retry={"delay": 0, "retry_on_status": [422]})
    assert compile_spec(matched, registry).run_sync(output="x").score == 1.0
    assert fake_judge.request_count == 2


def test_redaction_truncation_and_output_guard(fake_judge, judge_key, registry):
    fake_judge.reply({"verdict": "yes"}, when="[ok]")
    fake_judge.reply({"verdict": "As an AI language model I cannot"}, when="[guard]")
    use = {"use": "label_to_score", "with": {"mapping": {"yes": 1}, "default": 0}}
    spec = spec_with(
        fake_judge,
        score_step(use, schema={"type": "object"}, marker="[ok]"),
        redact_pii={},
        truncate={"max_chars": 60},
    )
    compile_spec(spec, registry).run_sync(output="Write to jane.doe@example.com " + "x" * 200)
    sent = fake_judge.last_request.last_user_content
    assert sent.startswith("[ok] Grade: Write to [REDACTED:email]")
    assert len(sent) == 60
    assert sent.endswith("…[truncated]")
    guarded = spec_with(
        fake_judge,
        score_step(use, schema={"type": "object"}, marker="[guard]"),
        output_guard={"patterns": ["as an ai language model"]},
    )
    with pytest.raises(ScorerRunError, match="OutputGuard rejected"):
        compile_spec(guarded, registry).run_sync(output="x")


def test_judge_profiles_are_filled_in(fake_judge, judge_key, registry):
    fake_judge.reply({"verdict": "no"})
    use = {"use": "label_to_score", "with": {"mapping": {"yes": 1, "no": 0}}}
    spec = {"id": "p", "description": "d", "judge": "team", "steps": [score_step(use)]}
    profiles = {"team": JudgeSpec.model_validate(judge(fake_judge))}
    scorer = compile_spec(spec, registry, judge_profiles=profiles)
    assert scorer.run_sync(output="x").score == 0.0
    assert scorer.spec.judge == profiles["team"]
    assert scorer.judge.api_key_env == "OPENAI_API_KEY"
    assert scorer.judge.api_key is None
    with pytest.raises(SpecError, match="no saved judge profile named 'team'"):
        compile_spec(spec, registry, judge_profiles={})
    with pytest.raises(SpecError, match="no saved judge profile named 'team'"):
        compile_spec(spec, registry)


def test_a_missing_key_variable_is_named_at_run_time(fake_judge, monkeypatch, registry):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    use = {"use": "label_to_score", "with": {"mapping": {"yes": 1}}}
    scorer = compile_spec(spec_with(fake_judge, score_step(use)), registry)
    with pytest.raises(ScorerRunError, match="OPENAI_API_KEY"):
        scorer.run_sync(output="x")
    assert fake_judge.request_count == 0


def test_agent_scorers_and_prepare(registry):
    spec = {
        "id": "tools",
        "description": "Calls the expected tools in order",
        "type": "agent",
        "prepare": {"part_types": ["text", "tool-invocation"], "drop_request_context": True},
        "steps": [{"step": "generate_score", "use": "tool_order", "with": {"mode": "subsequence"}}],
    }
    scorer = compile_spec(spec, registry)
    assert scorer.type == "agent"
    assert scorer.prepare_run == filter_run(
        part_types=["text", "tool-invocation"], drop_request_context=True
    )
    (row,) = dataset_rows("agent_tool_runs", 1)
    assert row["tags"] == ["correct"]
    result = scorer.run_sync(
        input=row["input"], output=row["output"], ground_truth=row["ground_truth"]
    )
    assert result.score == 1.0
    reordered = {**row, "ground_truth": list(reversed(row["ground_truth"]))}
    assert scorer.run_sync(**reordered).score == 0.0


def test_an_invalid_spec_does_not_compile(registry):
    spec = {"id": "x", "description": "d", "steps": [{"step": "generate_score", "use": "nope"}]}
    with pytest.raises(SpecError, match=r"steps\[0\]\.use: There is no step named 'nope'"):
        compile_spec(spec, registry)


def test_a_steps_own_input_processors_replace_the_scorers(fake_judge, judge_key, registry):
    fake_judge.reply({"verdict": "yes"})
    use = {"use": "label_to_score", "with": {"mapping": {"yes": 1}, "default": 0}}
    text = "Write to jane.doe@example.com or call +44 20 7946 0958 " + "x" * 200
    step = {**score_step(use, schema={"type": "object"}), "judge": {"truncate": {"max_chars": 90}}}
    spec = spec_with(fake_judge, step, redact_pii={"kinds": ["phone"]})
    compile_spec(spec, registry).run_sync(output=text)
    sent = fake_judge.last_request.last_user_content
    assert "jane.doe@example.com" in sent
    assert "+44 20 7946 0958" in sent
    assert len(sent) == 90
    del step["judge"]
    compile_spec(spec, registry).run_sync(output=text)
    sent = fake_judge.last_request.last_user_content
    # The scorer's own: only the phone kind was chosen, so the e-mail address stays.
    assert "jane.doe@example.com" in sent
    assert "[REDACTED:phone]" in sent
