"""A scorer that asks the fake judge for a verdict (good → 1, bad → 0): what batch tests run."""

from __future__ import annotations

from typing import Any

from scorer_runtime import Judge, PromptStep, Scorer, create_scorer

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["good", "bad"]}},
    "required": ["verdict"],
}


def verdict_scorer(server: Any, model: str = "openai/fake-judge") -> Scorer[Any, Any]:
    """The verdict scorer against ``server`` (a FakeOpenAIServer), under ``model``'s name
    (litellm prices "openai/gpt-4o-mini", not "openai/fake-judge")."""
    judge = Judge(
        model=model,
        api_base=server.base_url,
        api_key="sk-test",
        instructions="You grade answers.",
        json_prompt_injection="system",
        timeout_s=5,
    )
    return (
        create_scorer(id="verdict", description="d", judge=judge)
        .analyze(
            PromptStep(
                description="Judge it",
                create_prompt=lambda run: f"Grade this answer: {run.output}",
                output_schema=VERDICT_SCHEMA,
            )
        )
        .generate_score(lambda results: float(results.analyze_step_result["verdict"] == "good"))
    )
