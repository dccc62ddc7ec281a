"""The Review page's reads (cached) and writes (a grade, an imported file), through the store."""

from __future__ import annotations

import io
from dataclasses import dataclass

from scorer_runtime.datasets import (
    ImportFailure,
    ImportIssue,
    LabelImport,
    csv_records,
    decode_text,
    import_labels,
    write_labels,
)
from scorer_runtime.store import (
    ExampleInfo,
    JudgeVerdict,
    LabelInfo,
    NameBook,
    add_label,
    database_url,
    examples_by_id,
    graded_scale,
    judge_verdicts,
    latest_labels,
    latest_version,
    list_runs,
    list_scorers,
    load_names,
    review_example_ids,
)
from scorer_runtime.trust import Scale
from studio import services

_cached = services.cached(ttl=30)


@dataclass(frozen=True, slots=True)
class ScorerScale:
    """A scorer's latest version (the one people grade against) and its scale."""

    version_id: int
    version: int
    scale: Scale


@dataclass(frozen=True, slots=True)
class Source:
    """The examples being graded: a dataset's, or a run's (whose results are the judge's)."""

    scorer_id: int
    kind: str
    """``dataset`` or ``run``."""
    id: int
    dataset_id: int


def stored_name(scorer_id: int) -> str:
    """The scorer's stored name (unique, no spaces: what a grades file is named after)."""
    return _stored_names(database_url()).get(scorer_id, str(scorer_id))


@_cached
def _stored_names(url: str) -> dict[int, str]:
    with services.reading() as session:
        return {s.id: s.name for s in list_scorers(session)}


def runs(scorer_id: int) -> dict[int, tuple[str, int]]:
    """The scorer's runs, newest first: words and the dataset each ran on."""
    return _runs(database_url(), scorer_id)


@_cached
def _runs(url: str, scorer_id: int) -> dict[int, tuple[str, int]]:
    with services.reading() as session:
        found = list_runs(session, scorer_id=scorer_id, repeats=False)
        names: NameBook = load_names(session)
    return {
        r.id: (
            f"Run {r.id} · {names.version(r.scorer_version_id, with_scorer=False)} on "
            f"{names.dataset(r.dataset_id)} · {r.created_at:%d %b %H:%M}",
            r.dataset_id,
        )
        for r in found
    }


def scorer_scale(scorer_id: int) -> ScorerScale | None:
    """The scale of the scorer's latest version, with the pass mark of its trust policy when
    it sets one, as agreement counts verdicts (None: the scorer has no version)."""
    return _scorer_scale(database_url(), scorer_id)


@_cached
def _scorer_scale(url: str, scorer_id: int) -> ScorerScale | None:
    with services.reading() as session:
        version = latest_version(session, scorer_id=scorer_id)
        if version is None:
            return None
        scale = graded_scale(session, scorer_version_id=version.id)
    return ScorerScale(version.id, version.version, scale)


def example_ids(dataset_id: int) -> list[int]:
    return _example_ids(database_url(), dataset_id)


@_cached
def _example_ids(url: str, dataset_id: int) -> list[int]:
    with services.reading() as session:
        return review_example_ids(session, dataset_id=dataset_id)


def labels(scorer_id: int, dataset_id: int) -> dict[int, LabelInfo]:
    """The latest grade of each of the dataset's examples for the scorer."""
    return _labels(database_url(), scorer_id, dataset_id)


@_cached
def _labels(url: str, scorer_id: int, dataset_id: int) -> dict[int, LabelInfo]:
    with services.reading() as session:
        ids = review_example_ids(session, dataset_id=dataset_id)
        return latest_labels(session, scorer_id=scorer_id, example_ids=ids)


def example(example_id: int) -> ExampleInfo | None:
    with services.reading() as session:
        return examples_by_id(session, example_ids=[example_id]).get(example_id)


def verdict(source: Source, version_id: int, example_id: int) -> JudgeVerdict | None:
    """The judge's latest result of the example: in the run, or by the scorer's latest version."""
    with services.reading() as session:
        found = judge_verdicts(
            session,
            example_ids=[example_id],
            run_id=source.id if source.kind == "run" else None,
            scorer_version_id=None if source.kind == "run" else version_id,
        )
    return found.get(example_id)


def save_grade(*, scorer_id: int, example_id: int, value: float, grader: str, note: str) -> None:
    with services.writing() as session:
        add_label(
            session,
            example_id=example_id,
            scorer_id=scorer_id,
            value=value,
            labeller=grader,
            note=note,
        )


def grades_csv(scorer_id: int) -> str:
    """The latest grade of each graded example as CSV text (the download)."""
    stream = io.StringIO()
    with services.reading() as session:
        write_labels(session, scorer_id=scorer_id, stream=stream)
    return stream.getvalue()


def file_columns(data: bytes, file_name: str) -> list[str]:
    """The column names of an uploaded CSV file's header (none when it cannot be read: the
    import then says why)."""
    try:
        rows = csv_records(decode_text(data, source=file_name))
    except ImportFailure:
        return []
    if isinstance(rows, ImportIssue):
        return []
    return [name.strip() for name in rows[0][1] if name.strip()]


def import_grades(
    scorer_id: int,
    data: bytes,
    file_name: str,
    mapping: dict[str, str],
    *,
    dataset_id: int,
    grader: str,
) -> LabelImport:
    """Import an uploaded grades file, its rows found by id, or by number or content in the
    dataset being graded (``grader``: who graded a file without a grader column); raises
    ImportFailure (nothing written) when unusable."""
    text = decode_text(data, source=file_name)
    with services.writing() as session:
        return import_labels(
            session,
            scorer_id=scorer_id,
            text=text,
            mapping=mapping,
            source=file_name,
            dataset_id=dataset_id,
            grader=grader,
        )
