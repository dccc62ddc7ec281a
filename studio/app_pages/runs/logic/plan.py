"""What a run will do before it starts: how many judge calls, which keys, what is wrong.

Nothing costs money by surprise: the Runs page shows this plan (examples times questions to
the judge, and whether each key variable is set — never its value) before its Start button,
and refuses to start while a problem is listed. Streamlit-free, so it is tested on a real
SQLite file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from scorer_runtime.judge.config import Judge
from scorer_runtime.store import (
    Session,
    count_examples,
    get_dataset,
    get_scorer,
    get_version_by_id,
)
from studio.words import noun, plural, step_words

GoTo = Literal["examples", "builder", "judges"]
"""The page that fixes a problem."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A scorer version on a dataset, as far as starting a run needs to know.

    ``prompt_steps`` are the steps that ask the judge (one call per example each, before
    re-asks and retries); ``key_envs`` the environment variables the judges read keys from;
    ``spec_problems`` why the version cannot be compiled (empty when it can).
    """

    scorer_id: int
    scorer: str
    version_id: int
    version: int
    dataset_id: int
    dataset: str
    examples: int
    prompt_steps: tuple[str, ...] = ()
    key_envs: tuple[str, ...] = ()
    spec_problems: tuple[str, ...] = ()
    default_cap: float | None = None
    """The judge's default spend cap in dollars (its profile's "Stop a run at $")."""
    misfits: tuple[str, ...] = ()
    """Why the dataset's examples are not what the scorer judges, in words (a warning: the
    run may still start)."""

    @property
    def judge_calls(self) -> int:
        """Judge calls for every example: examples times questions (re-asks and retries aside)."""
        return self.examples * len(self.prompt_steps)


@dataclass(frozen=True, slots=True)
class KeyCheck:
    """Whether a key variable is set in the studio's environment (never its value)."""

    env: str
    is_set: bool


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a run cannot start, in plain words, with what to do and where."""

    title: str
    detail: str
    what_to_do: str
    go_to: GoTo | None = None


def read_run_plan(session: Session, *, version_id: int, dataset_id: int) -> RunPlan:
    """Read the version and dataset, compile the version, and list what the run needs."""
    from scorer_runtime.costs.cap import default_cap
    from scorer_runtime.datasets.fit import stored_fit_problems
    from scorer_runtime.saved_scorers import compile_version

    version = get_version_by_id(session, version_id=version_id)
    scorer = get_scorer(session, id=version.scorer_id)
    dataset = get_dataset(session, id=dataset_id)
    assert scorer.id is not None
    assert version.id is not None
    assert dataset.id is not None
    base = RunPlan(
        scorer_id=scorer.id,
        scorer=scorer.name,
        version_id=version.id,
        version=version.version,
        dataset_id=dataset.id,
        dataset=dataset.name,
        examples=count_examples(session, dataset_id=dataset.id),
    )
    misfits = stored_fit_problems(session, version_id=version.id, dataset_id=dataset.id)
    base = replace(base, misfits=tuple(misfits))
    try:
        compiled = compile_version(session, version)
    except ValueError as error:  # SpecError: every problem of the stored spec at once
        found = getattr(error, "problems", None) or [error]
        return replace(base, spec_problems=tuple(str(p) for p in found))
    steps, envs = _judges_of(compiled)
    return replace(base, prompt_steps=steps, key_envs=envs, default_cap=default_cap(compiled))


def _judges_of(scorer: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The steps that ask the judge, and the key variables their judges read.

    Compiling already refused a prompt step whose judge lacks a model or instructions, so
    the key is all that is left to check. This reads the *compiled* scorer, not
    :meth:`ScorerSpec.key_envs`: only the judge each prompt step really calls (the scorer's
    judge overridden by the step's own, profiles resolved) counts, so a scorer judge's key
    that every step replaces, or a scorer without prompt steps, asks for no key here.
    """
    prompt_steps: list[str] = []
    envs: list[str] = []
    for step in scorer.steps:
        if step.prompt is None:
            continue
        prompt_steps.append(step.name)
        judge = (scorer.judge or Judge()).override(step.prompt.judge)
        if judge.api_key is None and judge.api_key_env and judge.api_key_env not in envs:
            envs.append(judge.api_key_env)
    return tuple(prompt_steps), tuple(envs)


def key_checks(plan: RunPlan, environ: Mapping[str, str]) -> list[KeyCheck]:
    """Each key variable the run's judges read, and whether it is set (never its value)."""
    return [KeyCheck(env, bool(environ.get(env, "").strip())) for env in plan.key_envs]


def _steps_in_words(steps: tuple[str, ...]) -> str:
    words = [step_words(s) for s in steps]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def estimate_text(plan: RunPlan, *, remaining: int | None = None) -> str:
    """How many judge calls the run makes, in words ("24 examples times 1 question")."""
    examples = plan.examples if remaining is None else remaining
    if not plan.prompt_steps:
        return (
            "This scorer never asks a judge (it uses only built-in checks and formulas), so "
            "the run makes no judge calls and costs nothing."
        )
    asks = len(plan.prompt_steps)
    calls = examples * asks
    which = "left to score" if remaining is not None else "in the dataset"
    return (
        f"This run asks the judge **{calls:,} times**: {plural(examples, 'example')} {which} × "
        f"{plural(asks, 'question')} each ({_steps_in_words(plan.prompt_steps)}). It can be more "
        "if answers are re-asked or retried; each call may cost money with your provider."
    )


def plan_problems(plan: RunPlan, environ: Mapping[str, str]) -> list[Problem]:
    """Everything that stops this run from starting, each with what to do."""
    problems: list[Problem] = []
    if plan.examples == 0:
        problems.append(
            Problem(
                "The dataset has no examples",
                f"The dataset “{plan.dataset}” is empty, so there is nothing to score.",
                "Add examples on the Examples page (import a CSV or JSONL file, or type them "
                "in), or pick another dataset.",
                "examples",
            )
        )
    if plan.spec_problems:
        problems.append(
            Problem(
                "This scorer version cannot run",
                f"Version {plan.version} of “{plan.scorer}” has problems: "
                + "; ".join(plan.spec_problems),
                "Open the scorer in the builder, fix what is listed and save a new version "
                "(or pick another version).",
                "builder",
            )
        )
    missing = [check.env for check in key_checks(plan, environ) if not check.is_set]
    if missing:
        names = " and ".join(f"`{env}`" for env in missing)
        problems.append(
            Problem(
                "The judge's key is not set",
                f"The judge needs an API key in {names}, and "
                f"{noun(len(missing), 'it is', 'they are')} not set for the studio yet.",
                "Add the key, or let the scorer use one of your saved judges (any provider, "
                "or a model on your computer): the button below opens the place for both. A "
                "key pasted in the studio is used at once, no restart needed.",
                "judges",
            )
        )
    return problems
