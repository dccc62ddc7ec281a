"""The judge form: a saved judge profile as form values, and form values as a profile.

A profile is a :class:`~scorer_runtime.spec.JudgeSpec` stored under a name (model, base URL
and where the key is kept in columns, the rest in ``settings``). The form edits every field a judge
spec holds; a setting it does not know (from a newer file) is kept as it is when the form
saves. The retry policy's part of the form (:class:`~studio.widgets.forms.RetryForm`) and the
processors' part (:class:`~studio.widgets.processor_forms.ProcessorsForm`: hide personal
data, shorten long prompts, stop on these answers) are shared with the builder and live in
``studio.widgets``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from scorer_runtime.costs.cap import CapError, read_cap
from scorer_runtime.spec import JudgeSpec
from scorer_runtime.store import (
    ConflictError,
    JudgeProfileInfo,
    Session,
    judge_profile_exists,
    save_judge_profile,
)
from studio.widgets.forms import RetryForm, RetryFormError, retry_form, retry_policy
from studio.widgets.processor_forms import (
    PROCESSOR_FIELDS,
    ProcessorFormError,
    ProcessorsForm,
    processor_settings,
    processors_form,
)
from studio.words import HARDEN_LABEL, KEY_PLACE

JsonMode = Literal["auto", "native", "system", "inline"]
JSON_MODES: dict[JsonMode, tuple[str, str]] = {
    "auto": (
        "Let the studio decide (recommended)",
        "Uses the provider's structured answers when the model is known to support them, "
        "otherwise describes the answer in the prompt.",
    ),
    "native": (
        "Use the provider's structured answers",
        "The provider itself makes the judge answer in the right shape. Works with OpenAI "
        "and other providers that support JSON schemas.",
    ),
    "system": (
        "Describe the answer in the prompt",
        "The shape of the answer is described in the judge's instructions. Works with any "
        "model, including local ones.",
    ),
    "inline": (
        "Describe the answer in the question",
        "Like the previous option, but in the question itself: for models that pay little "
        "attention to instructions.",
    ),
}
_MODE_VALUES: dict[JsonMode, bool | str | None] = {
    "auto": None,
    "native": False,
    "system": "system",
    "inline": "inline",
}
FIELD_LABELS = {
    "name": "Name",
    "model": "Model",
    "api_base": "Base URL",
    "api_key_env": KEY_PLACE,
    "instructions": "Instructions",
    "temperature": "Temperature",
    "timeout_s": "Timeout",
    "input_price_per_million": "Price per 1M input tokens",
    "output_price_per_million": "Price per 1M output tokens",
    "default_max_cost": "Stop a run at $",
    "requests_per_minute": "Requests a minute",
    "tokens_per_minute": "Tokens a minute",
    "json_prompt_injection": "Answer format",
    "harden_prompt": HARDEN_LABEL,
    "retry": "Retries",
    "redact_pii": "Hide personal data",
    "truncate": "Shorten long prompts",
    "output_guard": "Stop on these answers",
}
FORM_FIELDS = frozenset(
    {"model", "api_base", "api_key_env", "instructions", "temperature", "timeout_s"}
    | {"input_price_per_million", "output_price_per_million", "default_max_cost"}
    | {"requests_per_minute", "tokens_per_minute"}
    | {"json_prompt_injection", "harden_prompt", "retry", *PROCESSOR_FIELDS}
)
"""The JudgeSpec fields the form edits; any other setting of a profile is kept as it is."""
MODEL_EXAMPLES = "openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3"


def json_mode_value(mode: JsonMode) -> bool | str | None:
    """A spec's ``json_prompt_injection`` for the form's answer-format choice."""
    return _MODE_VALUES[mode]


def json_mode_of(value: Any) -> JsonMode:
    """The form's answer-format choice for a spec's ``json_prompt_injection``."""
    if value is False:
        return "native"
    if value is True or value == "system":
        return "system"
    return "inline" if value == "inline" else "auto"


@dataclass
class JudgeForm:
    """Everything the judge form holds."""

    name: str = ""
    model: str = ""
    api_base: str = ""
    api_key_env: str = ""
    instructions: str = ""
    temperature: float | None = None
    timeout_s: float | None = 60.0
    input_price: float | None = None
    """Dollars per 1M input tokens (None: litellm's price for the model, if it has one)."""
    output_price: float | None = None
    default_cap: str = ""
    """The default spend cap of a run with this judge, as typed ("": none)."""
    requests_per_minute: int | None = None
    """What the provider allows the key: requests a minute (None: not set, slow down on 429s)."""
    tokens_per_minute: int | None = None
    json_mode: JsonMode = "auto"
    harden_prompt: bool = True
    """Mark the judged text as data: on for a new judge; a judge saved before the setting
    existed opens with it off (what it did), until the box is ticked."""
    retry: RetryForm | None = field(default_factory=RetryForm)
    processors: ProcessorsForm = field(default_factory=ProcessorsForm)
    kept: dict[str, Any] = field(default_factory=dict)
    """Settings of the profile the form has no widget for, saved back unchanged."""


class JudgeFormError(ValueError):
    """Form values that cannot be saved; ``problems`` names each field and what to do."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _problem(error: Mapping[str, Any]) -> str:
    loc = [str(part) for part in error.get("loc", ()) if "-" not in str(part)]
    top = loc[0] if loc else ""
    label = FIELD_LABELS.get(top, top.replace("_", " ").capitalize() or "Judge")
    message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    return f"{label}: {message}"


def form_of_profile(name: str, profile: Mapping[str, Any]) -> JudgeForm:
    """The form of a saved profile (``judge_profile_dict``'s plain data)."""
    spec = JudgeSpec.model_validate(profile)
    return JudgeForm(
        name=name,
        model=spec.model or "",
        api_base=spec.api_base or "",
        api_key_env=spec.api_key_env or "",
        instructions=spec.instructions or "",
        temperature=spec.temperature,
        timeout_s=spec.timeout_s,
        input_price=spec.input_price_per_million,
        output_price=spec.output_price_per_million,
        default_cap="" if spec.default_max_cost is None else f"{spec.default_max_cost:g}",
        requests_per_minute=spec.requests_per_minute,
        tokens_per_minute=spec.tokens_per_minute,
        json_mode=json_mode_of(spec.json_prompt_injection),
        harden_prompt=spec.harden_prompt is True,
        retry=retry_form(profile.get("retry")),
        processors=processors_form(profile),
        kept={k: v for k, v in profile.items() if k not in FORM_FIELDS and v is not None},
    )


def judge_spec(form: JudgeForm) -> JudgeSpec:
    """The judge the form describes; raises JudgeFormError listing every problem."""
    problems = []
    if not form.model.strip():
        problems.append(f"Model: choose the judge's model, e.g. {MODEL_EXAMPLES}")
    base = form.api_base.strip()
    if base and not re.match(r"^https?://\S+$", base):
        problems.append("Base URL: start it with http:// or https://, e.g. http://localhost:11434")
    retry: dict[str, Any] | None = None
    if form.retry is not None:
        try:
            retry = retry_policy(form.retry)
        except RetryFormError as e:
            problems += e.problems
    processors: dict[str, Any] = {}
    try:
        processors = processor_settings(form.processors)
    except ProcessorFormError as e:
        problems += e.problems
    env = form.api_key_env.strip()
    if env and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", env):
        problems.append(
            f"{KEY_PLACE}: write the name of the setting that holds the key (letters, digits "
            "and _, such as OPENAI_API_KEY), never the key itself; paste the key in the box "
            "that appears under it"
        )
        env = ""
    cap = None
    try:
        cap = read_cap(form.default_cap)
    except CapError as e:
        problems.append(f"{FIELD_LABELS['default_max_cost']}: {str(e)[:1].upper()}{str(e)[1:]}")
    data = {
        **form.kept,
        "model": form.model.strip() or None,
        "api_base": base or None,
        "api_key_env": env or None,
        "instructions": form.instructions.strip() or None,
        "temperature": form.temperature,
        "timeout_s": form.timeout_s,
        "input_price_per_million": form.input_price,
        "output_price_per_million": form.output_price,
        "default_max_cost": cap,
        "requests_per_minute": _whole(form.requests_per_minute),
        "tokens_per_minute": _whole(form.tokens_per_minute),
        "json_prompt_injection": _MODE_VALUES[form.json_mode],
        "harden_prompt": True if form.harden_prompt else None,
        "retry": retry,
        **processors,
    }
    try:
        spec = JudgeSpec.model_validate({k: v for k, v in data.items() if v is not None})
    except ValidationError as e:
        problems += [_problem(err) for err in e.errors()]
        raise JudgeFormError(problems) from None
    if problems:
        raise JudgeFormError(problems)
    return spec


def _whole(value: float | None) -> int | float | None:
    """A number box's value as a whole number when it is one (a fraction stays, refused)."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


def save_profile(session: Session, form: JudgeForm, *, new: bool) -> JudgeProfileInfo:
    """Save the form as the profile ``form.name``; ``new`` refuses a name already taken
    (so creating never overwrites another judge). Raises JudgeFormError or ConflictError."""
    name = form.name.strip()
    problems = [] if name else ["Name: give the judge a short name, e.g. gpt-4o-mini-strict"]
    try:
        spec = judge_spec(form)
    except JudgeFormError as e:
        raise JudgeFormError(problems + e.problems) from None
    if problems:
        raise JudgeFormError(problems)
    if new and judge_profile_exists(session, name=name):
        raise ConflictError(
            f"a judge named {name!r} already exists; choose another name, or edit that judge"
        )
    settings = spec.model_dump(
        exclude_none=True,
        exclude_defaults=True,
        mode="json",
        exclude={"model", "api_base", "api_key_env"},
    )
    return save_judge_profile(
        session,
        name=name,
        model=spec.model or "",
        api_base=spec.api_base,
        api_key_env=spec.api_key_env,
        settings=settings,
    )


def kept_in_words(kept: Mapping[str, Any]) -> list[str]:
    """The settings the form keeps without showing them, in words."""
    return [f"sets “{key.replace('_', ' ')}”" for key in kept]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the form was not saved (or tested), in words, with what to do first."""

    title: str
    problems: list[str]
    what_to_do: str


def refusal(
    problems: Sequence[str], *, saving: bool, new: bool, saved: Sequence[str] = ()
) -> Refusal:
    """The words for a form that cannot be saved (``saving``) or tested. A new judge needs a
    name and a model before anything else, its prices included: say so, and that a saved
    judge's settings are changed by choosing it first."""
    listed = [f"{p[:1].upper()}{p[1:]}" for p in problems]
    title = "The judge is not saved yet" if saving else "The judge cannot be tested yet"
    basics = [p for p in listed if p.startswith(("Name:", "Model:"))]
    if new and basics:
        what = (
            "A new judge needs a name and a model before anything else can be saved, its prices "
            "and spend cap included: fill those in first."
            if saving
            else "A new judge needs a model before it can be tested: fill it in first."
        )
        if saved:
            what += (
                " To change a saved judge (its prices, say), choose it in “Judge to edit” "
                "above: " + ", ".join(saved) + "."
            )
        return Refusal(title, listed, what)
    return Refusal(title, listed, "Fix the fields named above and try again; nothing was changed.")
