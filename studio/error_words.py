"""Errors in plain words: what went wrong, and what to do next (Streamlit-free, unit-tested).

The studio never shows a traceback or a Python repr; every error a page catches goes through
:func:`explain`.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer_runtime.errors import ErrorKind, ScorerDefinitionError, ScorerRunError
from studio.words import step_words

_WHAT_TO_DO: dict[ErrorKind, str] = {
    ErrorKind.RATE_LIMITED: (
        "The judge's provider is rate-limiting you. Wait a minute and try again, lower the "
        "concurrency of runs, or add retries to the judge."
    ),
    ErrorKind.SERVER_ERROR: (
        "The judge's provider had a problem on its side. Try again; a retry policy on the "
        "judge handles this automatically."
    ),
    ErrorKind.CONNECTION: (
        "The judge could not be reached. Check the model's base URL and that the server is "
        "running, then try again."
    ),
    ErrorKind.TIMEOUT: (
        "The judge took too long to answer. Try again, or raise the judge's timeout."
    ),
    ErrorKind.AUTH: (
        "The judge's provider refused the API key. Check that the environment variable named "
        "in the judge holds a valid key for this provider."
    ),
    ErrorKind.INVALID_REQUEST: (
        "The provider rejected the request. Check the model name, and whether the model "
        "supports structured answers (turn on 'Describe the answer in the prompt' if not)."
    ),
    ErrorKind.CONTEXT_LENGTH: (
        "The prompt is too long for this model. Shorten the template, trim the run (e.g. keep "
        "fewer remembered messages), or add truncation to the judge."
    ),
    ErrorKind.FORMAT: (
        "The judge did not answer in the expected format. Add 'Answer only with JSON' to the "
        "instructions, or turn on 'Describe the answer in the prompt' for this judge."
    ),
}


@dataclass(frozen=True)
class Explanation:
    """An error for a person: a short title, the detail, and what to do."""

    title: str
    detail: str
    what_to_do: str


def explain(error: BaseException) -> Explanation:
    """Plain words for any error the studio can meet."""
    if isinstance(error, ScorerRunError):
        kind = error.error_kind
        advice = _WHAT_TO_DO.get(kind) if kind else None
        detail = str(error.__cause__ or error)
        return Explanation(
            title=f"The scorer stopped in {step_words(error.failed_step)}",
            detail=detail,
            what_to_do=advice
            or "Check the settings of that step (the message above says what it met).",
        )
    if isinstance(error, ScorerDefinitionError):
        return Explanation("The scorer is not complete yet", str(error), "Fix the step named.")
    name = type(error).__name__
    if name == "SpecError":
        return Explanation(
            "The scorer has problems to fix",
            str(error),
            "Each problem names the field; fix them and try again.",
        )
    if name == "RunRefusedError":
        return Explanation(
            "The run was not started",
            str(error),
            "Add the judge's key, or give the scorer one of your saved judges (its Judge… "
            "button on the Scorers page), or fix the scorer in the builder; then start the run "
            "again.",
        )
    if name in ("FormulaError", "TemplateError"):
        return Explanation(
            "The formula cannot be used" if name == "FormulaError" else "The prompt cannot be used",
            str(error),
            "See the list of variables and functions next to the field.",
        )
    return Explanation(
        "Something went wrong",
        str(error) or name,
        "Try again; if it keeps happening, export the scorer and share it with an engineer.",
    )


# -- stored outcomes (Results, Compare runs; added for the drill-down into one score) ----------

_OUTCOME_TITLES = {
    "step_error": "The scorer stopped in {step}",
    "provider_error": "The judge could not answer in {step}",
    "judge_format_error": "The judge's answer could not be read in {step}",
}


def explain_stored(
    *,
    outcome: str,
    error: str | None,
    failed_step: str | None,
    error_kind: str | None = None,
    not_scorable_reason: str | None = None,
) -> Explanation | None:
    """Plain words for a *stored* result that is not a score (None for a scored result).

    Stored results keep the error as text and its kind as a string, not the exception, so
    :func:`explain` cannot be used; the advice is the same.
    """
    step = step_words(failed_step) if failed_step else "a step"
    if outcome == "scored":
        return None
    if outcome == "not_scorable":
        said = f": {not_scorable_reason}" if not_scorable_reason else "."
        return Explanation(
            "This example could not be scored",
            f"{step[0].upper()}{step[1:]} decided it cannot be scored{said}",
            "Nothing failed: the scorer found the example lacks what it needs. Such examples "
            "are left out of means and pass rates; fix the example if it should be scored.",
        )
    kinds = {k.value: k for k in ErrorKind}
    kind = kinds.get(error_kind or "") or (
        ErrorKind.FORMAT if outcome == "judge_format_error" else None
    )
    advice = _WHAT_TO_DO.get(kind) if kind else None
    if advice is None and outcome == "provider_error":
        advice = _WHAT_TO_DO[ErrorKind.SERVER_ERROR]
    title = _OUTCOME_TITLES.get(outcome, "The scorer stopped in {step}").format(step=step)
    return Explanation(
        title,
        error or "No message was recorded.",
        advice
        or "Open the scorer in the builder and try it on this example: the message above says "
        "what the step met.",
    )
