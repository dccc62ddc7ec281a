"""An alignment's starting point: a version's graded examples (a person's latest grade and
the version's verdict), whether they are enough, and their split into a tuning part and a
holdout (:mod:`scorer_runtime.trust.align_split`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlmodel import Session

from scorer_runtime.store.labels import examples_by_id, judge_verdicts, latest_labels
from scorer_runtime.store.scorers import get_scorer, get_version_by_id
from scorer_runtime.store.trust import graded_scale
from scorer_runtime.trust.align_split import (
    GradedExample,
    Readiness,
    Split,
    readiness,
    split_graded,
)
from scorer_runtime.trust.scale import Scale


class NotReadyError(ValueError):
    """Too few grades to improve the judge; the message says how many more are needed."""


@dataclass(frozen=True, slots=True)
class AlignPlan:
    """What an alignment works from: the version, its graded examples and their split."""

    scorer_id: int
    scorer_name: str
    scorer_version_id: int
    version: int
    scale: Scale
    graded: Mapping[int, GradedExample]
    split: Split
    dataset_ids: tuple[int, ...]
    """The datasets holding the graded examples (one run per dataset and candidate)."""

    @property
    def runs_per_candidate(self) -> int:
        return len(self.dataset_ids)

    def describe(self) -> str:
        """The split in words."""
        return (
            f"{len(self.graded)} graded examples: {len(self.split.tuning)} to build candidates "
            f"from, {len(self.split.holdout)} held out to measure them on."
        )


def graded_examples(
    session: Session, *, scorer_version_id: int, scale: Scale
) -> dict[int, GradedExample]:
    """The examples a person graded and the version scored, by id (latest grade, latest
    verdict of the version's own runs)."""
    version = get_version_by_id(session, version_id=scorer_version_id)
    labels = latest_labels(session, scorer_id=version.scorer_id)
    verdicts = judge_verdicts(session, example_ids=labels, scorer_version_id=scorer_version_id)
    found = {}
    for example_id, label in sorted(labels.items()):
        verdict = verdicts.get(example_id)
        if verdict is None or verdict.score is None:
            continue
        found[example_id] = GradedExample(
            example_id,
            label.value,
            scale.verdict(label.value),
            label.note,
            verdict.score,
            scale.verdict(label.value) == scale.verdict(verdict.score),
        )
    return found


def alignment_readiness(session: Session, *, scorer_version_id: int) -> Readiness:
    """Whether the version's grades are enough to improve it (what the page shows first)."""
    scale = graded_scale(session, scorer_version_id=scorer_version_id)
    return readiness(graded_examples(session, scorer_version_id=scorer_version_id, scale=scale))


def plan_alignment(session: Session, *, scorer_version_id: int, seed: int = 0) -> AlignPlan:
    """The alignment of a version; :class:`NotReadyError` saying how many more grades are
    needed, ValueError for a version that asks no judge."""
    version = get_version_by_id(session, version_id=scorer_version_id)
    if not version.spec.prompt_steps():
        raise ValueError(
            f"version {version.version} asks no judge: there are no instructions to improve"
        )
    scale = graded_scale(session, scorer_version_id=scorer_version_id)
    graded = graded_examples(session, scorer_version_id=scorer_version_id, scale=scale)
    ready = readiness(graded)
    if not ready.ready:
        raise NotReadyError(ready.words())
    split = split_graded({i: g.grade_label for i, g in graded.items()}, seed=seed)
    examples = examples_by_id(session, example_ids=list(graded))
    return AlignPlan(
        version.scorer_id,
        get_scorer(session, id=version.scorer_id).name,
        scorer_version_id,
        version.version,
        scale,
        graded,
        split,
        tuple(sorted({e.dataset_id for e in examples.values()})),
    )
