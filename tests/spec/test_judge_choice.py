"""Pointing a scorer at a saved judge profile: every demo judge scorer runs with a person's
own judge (here a profile reaching the fake server with no key), and keeps what it asks."""

from __future__ import annotations

import math

import pytest

from scorer_runtime.spec import (
    JudgeSpec,
    PromptStepSpec,
    ScorerSpec,
    compile_spec,
    export_python,
    load_spec,
)
from scorer_runtime.spec.judge_choice import (
    asks_a_judge,
    judge_profile_in_use,
    with_judge_profile,
)

from .conftest import DEMO_REPLIES, demo_examples, demo_spec_paths

JUDGE_SCORERS = [p for p in demo_spec_paths() if asks_a_judge(load_spec(p))]


def _own_judge(base_url: str) -> JudgeSpec:
    """A person's own judge: another model at another address, with its own key variable."""
    return JudgeSpec(
        model="openai/my-local-model",
        api_base=base_url,
        api_key_env="MY_JUDGE_KEY",
        instructions="PROFILE INSTRUCTIONS",
        json_prompt_injection="system",
        timeout_s=10,
    )


def test_every_demo_judge_scorer_is_found():
    names = {p.stem for p in JUDGE_SCORERS}
    assert names == {
        "answer-relevancy",
        "conciseness",
        "faithfulness",
        "hallucination",
        "rubric-judge",
        "tone-politeness",
        "tool-call-accuracy",
    }


@pytest.mark.parametrize("path", JUDGE_SCORERS, ids=[p.stem for p in JUDGE_SCORERS])
def test_a_demo_judge_scorer_scores_with_a_saved_judge_and_no_openai_key(
    path, fake_judge, registry, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_JUDGE_KEY", "local-anything")
    original = load_spec(path, registry=registry)
    spec = with_judge_profile(original, "mine")
    assert judge_profile_in_use(spec) == "mine"
    assert spec.key_envs({"mine": _own_judge(fake_judge.base_url)}) == ["MY_JUDGE_KEY"]
    for when, content in DEMO_REPLIES[spec.id]:
        fake_judge.reply(content, when=when)
    scorer = compile_spec(spec, registry, judge_profiles={"mine": _own_judge(fake_judge.base_url)})
    for example in demo_examples(spec.id, count=2):
        result = scorer.run_sync(**example)
        assert result.score is not None
        assert math.isfinite(result.score)
        assert result.reason
    assert fake_judge.chat_requests
    for request in fake_judge.chat_requests:
        assert request.json["model"] == "my-local-model"
        assert request.headers.get("Authorization", request.headers.get("authorization")) == (
            "Bearer local-anything"
        )
        system = [m["content"] for m in request.json["messages"] if m["role"] == "system"]
        # The scorer's own instructions are kept: the judge still knows what it grades.
        assert isinstance(original.judge, JudgeSpec)
        assert original.judge.instructions is not None
        assert any(original.judge.instructions in text for text in system), spec.id
        assert not any("PROFILE INSTRUCTIONS" in text for text in system)


def test_without_keeping_its_own_the_profile_instructions_apply(fake_judge, registry, monkeypatch):
    monkeypatch.setenv("MY_JUDGE_KEY", "local-anything")
    original = load_spec(
        next(p for p in JUDGE_SCORERS if p.stem == "tone-politeness"), registry=registry
    )
    spec = with_judge_profile(original, "mine", keep_own=False)
    assert all(step.judge is None for step in spec.prompt_steps())
    for when, content in DEMO_REPLIES[spec.id]:
        fake_judge.reply(content, when=when)
    scorer = compile_spec(spec, registry, judge_profiles={"mine": _own_judge(fake_judge.base_url)})
    scorer.run_sync(**demo_examples(spec.id, count=1)[0])
    system = [m["content"] for m in fake_judge.chat_requests[0].json["messages"]]
    assert any("PROFILE INSTRUCTIONS" in text for text in system)


def _spec(judge: object, *step_judges: object) -> ScorerSpec:
    steps: list[dict[str, object]] = [
        {
            "step": name,
            "description": name,
            "template": "Q {{ input }}",
            **({"output_schema": {"type": "object"}} if name != "generate_reason" else {}),
            **({"judge": j} if j is not None else {}),
        }
        for name, j in zip(("analyze", "generate_reason"), step_judges, strict=False)
    ]
    steps.insert(1, {"step": "generate_score", "formula": "1"})
    data: dict[str, object] = {"id": "s", "description": "d", "steps": steps}
    if judge is not None:
        data["judge"] = judge
    return ScorerSpec.model_validate(data)


def test_a_step_keeps_its_own_asking_and_loses_its_own_reaching():
    own = {
        "model": "openai/gpt-4o-mini",
        "api_key_env": "OPENAI_API_KEY",
        "instructions": "Scorer's words",
        "redact_pii": {},
        "output_guard": {"patterns": ["as an ai"]},
        "temperature": 0.3,
    }
    step_a = {
        "model": "anthropic/x",
        "api_key_env": "ANTHROPIC_API_KEY",
        "truncate": {"max_chars": 50},
    }
    spec = with_judge_profile(_spec(own, step_a, "another-profile"), "mine")
    assert spec.judge == "mine"
    analyze, reason = spec.prompt_steps()
    assert isinstance(analyze.judge, JudgeSpec)
    # Reaching settings gone; the step's own input processors still replace the scorer's.
    assert analyze.judge.model is None
    assert analyze.judge.api_key_env is None
    assert analyze.judge.truncate is not None
    assert analyze.judge.redact_pii is None
    assert analyze.judge.instructions == "Scorer's words"
    assert analyze.judge.output_guard is not None
    assert analyze.judge.temperature is None
    # A step that named another profile now uses the chosen one, as it is.
    assert isinstance(reason, PromptStepSpec)
    assert reason.judge is None


def test_a_scorer_naming_a_profile_switches_to_another():
    spec = with_judge_profile(_spec("old", None, None), "new")
    assert spec.judge == "new"
    assert all(step.judge is None for step in spec.prompt_steps())


def test_a_scorer_that_asks_no_judge_cannot_take_one():
    spec = ScorerSpec.model_validate(
        {"id": "f", "description": "d", "steps": [{"step": "generate_score", "formula": "1"}]}
    )
    assert not asks_a_judge(spec)
    with pytest.raises(ValueError, match="asks no judge"):
        with_judge_profile(spec, "mine")
    with pytest.raises(ValueError, match="choose a saved judge"):
        with_judge_profile(_spec("old", None, None), " ")


@pytest.mark.parametrize("name", ["tone-politeness", "tool-call-accuracy"])
def test_a_scorer_on_a_saved_judge_exports_as_code_that_scores_the_same(
    name, fake_judge, registry, monkeypatch, import_code, comparable
):
    monkeypatch.setenv("MY_JUDGE_KEY", "local-anything")
    path = next(p for p in JUDGE_SCORERS if p.stem == name)
    spec = with_judge_profile(load_spec(path, registry=registry), "mine")
    profiles = {"mine": _own_judge(fake_judge.base_url)}
    for when, content in DEMO_REPLIES[name]:
        fake_judge.reply(content, when=when)
    example = demo_examples(name, count=1)[0]
    studio = compile_spec(spec, registry, judge_profiles=profiles).run_sync(**example)
    exported = import_code(export_python(spec, registry, judge_profiles=profiles)).scorer
    assert comparable(exported.run_sync(**example)) == comparable(studio)
    first, second = (r.json["messages"] for r in fake_judge.chat_requests[-2:])
    assert first == second  # the exported code asks the judge exactly what the studio did
