"""A draft's problems in the builder's own words (Streamlit-free, unit-tested without a browser).

:meth:`ScorerDraft.problems` names each problem by its form field (``steps.generate_score.
with.mapping``) and says what is wrong in the spec loader's words, some of them pydantic's
("String should have at least 1 character"). A person filling in the form reads neither: this
module turns a :class:`DraftProblem` into a sentence using the labels the form shows ("Give
the scorer a name.", "Fill in 'Score of each label'."), and says which part of the form it is about
("Step 3, Give the score") and which stage of the builder shows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scorer_runtime.spec import DraftProblem, ScorerDraft, StepRegistry
from scorer_runtime.spec.references import MissingReference
from scorer_runtime.types import STEP_ORDER
from studio.app_pages.builder.forms import param_widgets
from studio.app_pages.builder.logic import STEP_HEADINGS
from studio.words import step_number

_MISSING = (
    "String should have at least 1 character",
    "this parameter is required",
    "Field required",
)
"""The loader's ways of saying a field was left empty."""

_BASICS: Mapping[str, str] = {
    "name": "Give the scorer a name.",
    "id": "Give the scorer a name.",  # the id is made from the name
    "description": "Say in a sentence what the scorer judges.",
}
_STEP_FIELDS: Mapping[str, tuple[str, str]] = {
    # field below a step: (its label in the form, the sentence when it is left empty)
    "description": ("What do you ask the judge?", "Say what you ask the judge."),
    "template": ("The prompt", "Write the prompt the judge reads."),
    "formula": ("Formula", "Write the formula."),
    "output_schema": ("What the judge answers", "Say what the judge answers."),
    "use": ("Check", "Choose a built-in check."),
    "calculate_score": (
        "How does the answer become the score?",
        "Say how the answer becomes the score.",
    ),
    "calculate_score.field": ("Field", "Choose the number field of the answer."),
    "calculate_score.formula": ("Formula", "Write the formula."),
    "calculate_score.with.mapping": ("Score of each label", "Give each label a score."),
    "calculate_score.with.field": ("Label field", "Choose the label field."),
}
_PLAIN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (r"^Input should be a valid integer", "should be a whole number"),
        (r"^Input should be a valid number", "should be a number"),
        (r"^Input should be a valid string", "should be text"),
        (r"^Input should be a valid boolean", "should be yes or no"),
        (r"^Input should be a valid (list|array)", "should be a list"),
        (r"^Input should be a valid (dictionary|object)", "is not written the way it needs"),
        (r"^Input should be greater than or equal to (.+)$", r"should be at least \1"),
        (r"^Input should be less than or equal to (.+)$", r"should be at most \1"),
        (r"^Input should be greater than (.+)$", r"should be more than \1"),
        (r"^Input should be less than (.+)$", r"should be less than \1"),
        (r"^Input should be (.+)$", r"should be \1"),
        (r"^String should have at most (\d+) characters?", r"should be at most \1 characters"),
        (r"^String should match pattern", "uses characters it may not"),
        (r"^Extra inputs are not permitted", "is not a setting here"),
    )
)


@dataclass(frozen=True)
class ProblemWords:
    """One problem as the builder shows it."""

    place: str
    """Which part of the form it is about, in words ("Step 3, Give the score"; "" for the
    scorer's basics and judge, whose sentences say so themselves)."""
    sentence: str
    """What to do, in the form's words ("Fill in ‘Threshold’.")."""
    stage: str
    """The builder stage that shows it: ``basics``, ``judge``, ``steps``, ``retries`` or
    ``save`` (a problem of the whole scorer)."""
    whole: str = ""
    """The problem in one sentence, when place and sentence do not simply join with ':'."""

    def __str__(self) -> str:
        if self.whole:
            return self.whole
        return f"{self.place}: {self.sentence}" if self.place else self.sentence


def reference_words(missing: Iterable[MissingReference]) -> list[ProblemWords]:
    """Values that steps read but the scorer does not have, each in one sentence: "Step 3,
    Give the score, reads 'the judge's answer: verdict', which this scorer does not have at
    this step. It has: solved, polite, explanation."
    """
    found = []
    for ref in missing:
        place = step_place(ref.step)
        found.append(
            ProblemWords(place, f"It {ref.sentence()}", "steps", f"{place}, {ref.sentence()}")
        )
    return found


def step_place(slot: str) -> str:
    """A step in words: ``generate_score`` is "Step 3, Give the score"."""
    if slot not in STEP_HEADINGS:
        return f"Step {slot}"
    heading = STEP_HEADINGS[slot]
    title = re.sub(r"^\d+\.\s*|\s*\(.*\)$", "", heading)
    return f"Step {step_number(slot)}, {title}"


def _missing(message: str) -> bool:
    return message.startswith(_MISSING)


def _plain(message: str) -> str:
    """The loader's message with pydantic's phrasing put plainly."""
    for pattern, words in _PLAIN:
        if pattern.search(message):
            return pattern.sub(words, message, count=1) if "\\" in words else words
    return message


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!", ")")) else text + "."


def _with_label(use: str | None, param: str, registry: StepRegistry) -> str:
    """A built-in parameter's label as the params form shows it."""
    if use is not None and use in registry:
        for widget in param_widgets(registry.get(use).params_schema):
            if widget.name == param:
                return widget.label
    return param.replace("_", " ").capitalize()


def _judge_words(rest: str, message: str) -> str:
    """A problem of a judge's settings (``model``, ``temperature``…)."""
    if rest in ("", "model") and (_missing(message) or "no model" in message):
        return "Choose the judge's model."
    if rest == "instructions" and _missing(message):
        return "Write the judge's instructions."
    if not rest:
        return _sentence(message)
    label = "The judge's " + rest.replace("_", " ").replace(".", " ")
    return _sentence(f"{label} {_plain(message)}")


def _step_words(
    slot: str, rest: str, message: str, draft: ScorerDraft, registry: StepRegistry
) -> str:
    """A problem below one step: ``rest`` is the field below it (``with.mapping``)."""
    step = draft.step(slot) if slot in STEP_ORDER else None
    if rest == "judge" or rest.startswith("judge."):
        if "no model" in message:
            return "Choose the judge's model and write its instructions (stage 2 · Judge)."
        if "no instructions" in message:
            return (
                "This step asks the judge: write the judge's instructions (who the judge is "
                "and how it grades) in stage 2 · Judge."
            )
        return _judge_words(rest.removeprefix("judge").lstrip("."), message)
    for prefix, use in (
        ("with.", step.use if step else None),
        ("calculate_score.with.", _calc_use(step)),
    ):
        param = rest.removeprefix(prefix)
        if rest.startswith(prefix) and "." not in param and rest not in _STEP_FIELDS:
            label = _with_label(use, param, registry)
            if _missing(message):
                return f"Fill in ‘{label}’."
            plain = _plain(message)
            return _sentence(f"{label} {plain}" if plain != message else f"{label}: {message}")
    label, empty = _STEP_FIELDS.get(rest, ("", ""))
    if empty and _missing(message):
        return empty
    if rest == "template":  # the template checker's words already say where, by line
        return _sentence(message)
    if rest == "formula":
        return f"formula: {message}"
    words = label or rest.replace("_", " ").replace(".", ", ")
    plain = _plain(message)
    return _sentence(f"{words}: {plain}" if words else plain)


def _calc_use(step: object) -> str | None:
    calc = getattr(step, "calculate_score", None)
    use = calc.get("use") if isinstance(calc, Mapping) else None
    return use if isinstance(use, str) else None


def problem_words(
    problem: DraftProblem, *, draft: ScorerDraft, registry: StepRegistry
) -> ProblemWords:
    """A draft problem as the person reads it: the form's labels, never a JSON path or
    pydantic's phrasing."""
    field, message = problem.field, problem.message
    if field in _BASICS:
        if _missing(message):
            return ProblemWords("", _BASICS[field], "basics")
        if field == "id":
            return ProblemWords(
                "",
                "The technical id may use letters, digits, '-', '_' and '.', and starts with "
                "a letter or digit.",
                "basics",
            )
        return ProblemWords("", _sentence(f"{field.capitalize()} {_plain(message)}"), "basics")
    if field == "judge" or field.startswith("judge."):
        stage = "retries" if ".retry" in field else "judge"
        return ProblemWords(
            "", _judge_words(field.removeprefix("judge").lstrip("."), message), stage
        )
    found = re.match(r"^steps\.([^.\[]+)\.?(.*)$", field)
    if found:
        slot, rest = found.groups()
        stage = "retries" if ".retry" in rest else "steps"
        sentence = _step_words(slot, rest, message, draft, registry)
        return ProblemWords(step_place(slot), sentence, stage)
    place = "" if not field else field.replace("_", " ").replace(".", ", ").capitalize()
    return ProblemWords(place, _sentence(_plain(message)), "basics" if field == "type" else "save")


def problems_in_words(
    problems: Iterable[DraftProblem], *, draft: ScorerDraft, registry: StepRegistry
) -> list[ProblemWords]:
    """Every problem in words, each sentence once (the id and the name say the same)."""
    seen: set[str] = set()
    found = []
    for problem in problems:
        words = problem_words(problem, draft=draft, registry=registry)
        if str(words) not in seen:
            seen.add(str(words))
            found.append(words)
    return found
