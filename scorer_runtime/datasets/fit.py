"""Whether a dataset's examples are what a scorer judges, said before a run spends anything.

A scorer runs on any dataset, and a misfit does not fail: an agent scorer given plain answers
finds no tool call to fault and scores every example 1; a scorer that compares with the
expected answer scores nothing on examples that have none. :func:`fit_problems` reads a
sample of the examples and the scorer's spec and says, in words, what would go wrong;
:func:`fit_rank` orders datasets by how well they suit the scorer, and :func:`suited_dataset`
picks the one a form opens on.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from scorer_runtime.spec.builtins.context_values import is_messages
from scorer_runtime.spec.models.scorer import ScorerSpec
from scorer_runtime.spec.models.steps import (
    FieldScoreSpec,
    FormulaScoreSpec,
    FormulaStepSpec,
    PromptStepSpec,
)

if TYPE_CHECKING:
    from sqlmodel import Session

FIT_SAMPLE = 20
"""How many examples (the dataset's first) :func:`fit_problems` reads."""
_NEVER = datetime.min.replace(tzinfo=UTC)


class Example(Protocol):
    """What the check reads of an example (a stored example or its data)."""

    @property
    def output(self) -> Any: ...

    @property
    def ground_truth(self) -> Any: ...


@dataclass(frozen=True, slots=True)
class Shape:
    """What a sample of a dataset's examples holds."""

    sampled: int
    agent_runs: int
    """Examples whose output is an agent's messages (what an agent scorer judges)."""
    with_expected: int
    """Examples with an expected answer (ground truth)."""
    expected: tuple[Any, ...] = ()
    """The expected answers of the sample (those it has)."""


def shape_of(examples: Sequence[Example]) -> Shape:
    """The shape of ``examples`` (a sample of a dataset)."""
    expected = tuple(e.ground_truth for e in examples if e.ground_truth not in (None, "", []))
    agent = sum(is_messages(e.output) for e in examples)
    return Shape(len(examples), agent, len(expected), expected)


def reads_expected(spec: ScorerSpec) -> bool:
    """Whether a step of ``spec`` reads the example's expected answer (``ground_truth``)."""
    from scorer_runtime.spec.formulas import formula
    from scorer_runtime.spec.templates import template
    from scorer_runtime.traces.expected import expected_need

    if expected_need(spec).required:
        return True
    for step in spec.steps:
        texts: list[str] = []
        if isinstance(step, FormulaStepSpec):
            texts.append(step.formula)
        elif isinstance(step, PromptStepSpec):
            try:
                if "ground_truth" in template(step.template).names:
                    return True
            except ValueError:  # the spec's own checks report it
                pass
            score = step.calculate_score
            if isinstance(score, FormulaScoreSpec):
                texts.append(score.formula)
            elif isinstance(score, FieldScoreSpec) and score.field.startswith("ground_truth"):
                return True
        for text in texts:
            try:
                if "ground_truth" in formula(text).names:
                    return True
            except ValueError:
                continue
    return False


def fit_problems(spec: ScorerSpec, shape: Shape, *, scorer: str, dataset: str) -> list[str]:
    """What goes wrong when ``spec`` (called ``scorer``) scores the examples of ``dataset``
    (``shape``: a sample of them), in words with what to do; empty when they fit."""
    if shape.sampled == 0:
        return []
    problems = []
    if spec.type == "agent" and shape.agent_runs * 2 < shape.sampled:
        problems.append(
            f"“{scorer}” judges agent runs (an agent's messages and tool calls), but "
            f"{_share(shape.sampled - shape.agent_runs, shape.sampled)} of “{dataset}” are "
            "plain answers: their scores would say nothing about the agent. Pick a dataset "
            "of agent runs."
        )
    if reads_expected(spec):
        problems += _expected_problems(spec, shape, scorer=scorer, dataset=dataset)
    return problems


def _expected_problems(spec: ScorerSpec, shape: Shape, *, scorer: str, dataset: str) -> list[str]:
    from scorer_runtime.traces.expected import expected_need

    if shape.with_expected * 2 < shape.sampled:
        missing = shape.sampled - shape.with_expected
        return [
            f"“{scorer}” compares each answer with the example's expected answer (ground "
            f"truth), but {_share(missing, shape.sampled)} of “{dataset}” have none: those "
            "cannot be scored. Add expected answers on the Examples page, or pick another "
            "dataset."
        ]
    need = expected_need(spec)
    wrong = sum(need.problem(value) is not None for value in shape.expected)
    if wrong * 2 > len(shape.expected):
        return [
            f"“{scorer}” compares the tools an agent called with the tools expected, in "
            f"order, but the expected answers of “{dataset}” are texts: those cannot be "
            "scored. Pick a dataset whose expected answers list the tools to call."
        ]
    return []


def fits(spec: ScorerSpec, shape: Shape) -> bool:
    """Whether the examples (``shape``) are what ``spec`` judges."""
    return not fit_problems(spec, shape, scorer="", dataset="")


def fit_rank(spec: ScorerSpec, shape: Shape) -> int:
    """How well the examples suit ``spec``, to choose among datasets: 2 when they fit and are
    of the kind it was made for (agent runs for an agent scorer, plain answers for another;
    a plain scorer reads agent runs as their text, which fits less well), 1 when they only
    fit, 0 when they do not (or there are none)."""
    if shape.sampled == 0 or not fits(spec, shape):
        return 0
    agent_runs = shape.agent_runs * 2 >= shape.sampled
    return 2 if agent_runs == (spec.type == "agent") else 1


def _share(count: int, sampled: int) -> str:
    if count == sampled:
        return "the examples" if sampled > 1 else "the example"
    return f"{count} of the first {sampled} examples"


def dataset_shape(session: Session, *, dataset_id: int) -> Shape:
    """The shape of the dataset's first :data:`FIT_SAMPLE` examples."""
    from scorer_runtime.store.datasets import list_examples

    return shape_of(list_examples(session, dataset_id=dataset_id, limit=FIT_SAMPLE))


def stored_fit_problems(session: Session, *, version_id: int, dataset_id: int) -> list[str]:
    """:func:`fit_problems` of a stored scorer version on a stored dataset, each named as the
    studio names it (the spec's name, else the scorer's)."""
    from scorer_runtime.store.datasets import get_dataset
    from scorer_runtime.store.scorers import get_scorer, get_version_by_id

    version = get_version_by_id(session, version_id=version_id)
    said = version.spec.name or get_scorer(session, id=version.scorer_id).name
    dataset = get_dataset(session, id=dataset_id).name
    shape = dataset_shape(session, dataset_id=dataset_id)
    return fit_problems(version.spec, shape, scorer=said, dataset=dataset)


def suited_dataset(
    session: Session, *, scorer_id: int, version_id: int, dataset_ids: Collection[int]
) -> int | None:
    """The dataset (of ``dataset_ids``) a form opens on for the version: of those that suit it
    best, the newest to the person: the one made, added to or scored by the scorer last (a
    dataset just made is the one to run, not a demo the scorer ran on before); None when none
    suits it."""
    from scorer_runtime.store.datasets import dataset_activity
    from scorer_runtime.store.runs import list_runs
    from scorer_runtime.store.scorers import get_version_by_id

    spec = get_version_by_id(session, version_id=version_id).spec
    ranks = {d: fit_rank(spec, dataset_shape(session, dataset_id=d)) for d in dataset_ids}
    best = max(ranks.values(), default=0)
    if not best:
        return None
    latest = dataset_activity(session, dataset_ids=list(ranks))
    for run in list_runs(session, scorer_id=scorer_id, limit=20):
        if not run.of_check and run.dataset_id in latest:
            ran = run.created_at if run.created_at.tzinfo else run.created_at.replace(tzinfo=UTC)
            latest[run.dataset_id] = max(latest[run.dataset_id], ran)
    suited = [d for d, rank in ranks.items() if rank == best]
    return max(suited, key=lambda d: latest.get(d, _NEVER))  # the first of equals
