"""Point a scorer at a saved judge profile: the "use this judge" choice of the studio.

A demo scorer comes with its own judge settings (one provider's model and key). A person
without that provider's key picks one of their saved judge profiles instead; the scorer then
names that profile, and its prompt steps reach the judge the profile describes.

What the scorer *asks* of its judge stays with the scorer: its instructions (who the judge
is for this scorer) and what it hides, shortens or refuses (personal data, long prompts,
answer guard). What the profile says about *reaching* a judge comes from the profile: model,
base URL, key, how the answer's shape is asked for, temperature, time limit, retries, prices
and spend cap. The scorer's own settings move onto each prompt step (a step's settings
override the scorer's judge), so the steps see exactly the instructions and processors they
saw before. A step that named another profile names the chosen one.
"""

from __future__ import annotations

from typing import Any

from scorer_runtime.spec.models import JudgeSpec, PromptStepSpec, ScorerSpec

REACHING_FIELDS = (
    "model",
    "api_base",
    "api_key_env",
    "json_prompt_injection",
    "temperature",
    "timeout_s",
    "retry",
    "input_price_per_million",
    "output_price_per_million",
    "default_max_cost",
    "requests_per_minute",
    "tokens_per_minute",
)
"""Judge settings about reaching and paying a judge: these come from the chosen profile."""
_INPUT_PROCESSORS = ("redact_pii", "truncate")


def judge_profile_in_use(spec: ScorerSpec) -> str | None:
    """The saved profile the scorer's judge names, or None (its own settings, or no judge)."""
    return spec.judge if isinstance(spec.judge, str) else None


def asks_a_judge(spec: ScorerSpec) -> bool:
    """Whether any step of the scorer asks the judge (only those can use another judge)."""
    return bool(spec.prompt_steps())


def with_judge_profile(spec: ScorerSpec, profile: str, *, keep_own: bool = True) -> ScorerSpec:
    """``spec`` with its judge replaced by the saved profile ``profile``.

    With ``keep_own`` (the default) the scorer's own instructions and processors move onto
    its prompt steps (a step's own settings win), so each step asks and hides what it did
    before; without it, the profile's instructions and processors apply. A step's own
    settings about reaching a judge (model, key, …) are dropped: the profile reaches it.
    Raises ValueError for a scorer with no step that asks the judge, or an empty name.
    """
    if not profile.strip():
        raise ValueError("choose a saved judge")
    if not asks_a_judge(spec):
        raise ValueError(f"{spec.display_name} asks no judge: no step uses one")
    data = spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
    own = spec.judge if isinstance(spec.judge, JudgeSpec) and keep_own else None
    data["judge"] = profile
    data["steps"] = [
        _step_data(step, dumped, own)
        for step, dumped in zip(spec.steps, data["steps"], strict=True)
    ]
    return ScorerSpec.model_validate(data)


def _step_data(step: object, dumped: dict[str, Any], own: JudgeSpec | None) -> dict[str, Any]:
    if not isinstance(step, PromptStepSpec):
        return dumped
    judge = _step_judge(step.judge, own)
    out = {k: v for k, v in dumped.items() if k != "judge"}
    if judge is not None:
        out["judge"] = judge
    return out


def _step_judge(ref: JudgeSpec | str | None, own: JudgeSpec | None) -> dict[str, Any] | None:
    if isinstance(ref, str):  # a step that named another profile takes the chosen one
        return None
    step = ref.model_dump(mode="json", exclude_unset=True) if ref is not None else {}
    step = {k: v for k, v in step.items() if k not in REACHING_FIELDS and v is not None}
    if own is not None:
        kept = _kept(own)
        # A step that sets its own input processors runs exactly those (they replace the
        # scorer's, never add to them): the scorer's are copied only onto a step with none.
        own_input = any(name in step for name in _INPUT_PROCESSORS)
        for name, value in kept.items():
            if name in _INPUT_PROCESSORS and own_input:
                continue
            step.setdefault(name, value)
    return step or None


def _kept(own: JudgeSpec) -> dict[str, Any]:
    dumped = own.model_dump(mode="json", exclude_unset=True)
    return {k: v for k, v in dumped.items() if k not in REACHING_FIELDS and v is not None}
