"""Datasets and their examples: create, bulk-add, page through, edit, rename, archive, and
what belongs to a dataset (counts of examples, runs and scores)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert
from sqlmodel import Session, col, select

from scorer_runtime.counts import plural
from scorer_runtime.names import normal_name
from scorer_runtime.store.canonical import canonical_json, jsonable
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.names import checked_new_name
from scorer_runtime.store.tables import (
    DatasetRecord,
    ExampleRecord,
    ScoreRecord,
    utc_now,
)

EXAMPLE_FIELDS = ("input", "output", "ground_truth", "request_context", "tags")
"""The fields of an example, in the order files and tables show them."""


@dataclass(frozen=True, slots=True)
class DatasetInfo:
    """A dataset as the store hands it out: a named set of examples to score."""

    id: int
    name: str
    description: str
    archived_at: datetime | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ExampleInfo:
    """A stored example as the store hands it out: its data, dataset and place in it."""

    id: int
    dataset_id: int
    position: int
    input: Any
    output: Any
    ground_truth: Any
    request_context: dict[str, Any] | None
    tags: list[str] | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ExampleData:
    """One example as plain data, before it is stored (what an import produces)."""

    input: Any = None
    output: Any = None
    ground_truth: Any = None
    request_context: dict[str, Any] | None = None
    tags: list[str] | None = None

    @classmethod
    def of(cls, record: ExampleInfo | ExampleRecord) -> ExampleData:
        """The data of a stored example."""
        return cls(*(getattr(record, name) for name in EXAMPLE_FIELDS))


def create_dataset(session: Session, *, name: str, description: str = "") -> DatasetInfo:
    """A new, empty dataset; the name must be free."""
    name = normal_name(name.strip(" "))
    if not name:
        raise ConflictError("a dataset needs a name")
    if session.exec(select(DatasetRecord.id).where(DatasetRecord.name == name)).first():
        raise ConflictError(f"a dataset named {name!r} already exists; choose another name")
    name = checked_new_name(name, session.exec(select(DatasetRecord.name)).all(), what="dataset")
    record = DatasetRecord(name=name, description=description)
    session.add(record)
    session.flush()
    return info_of(DatasetInfo, record)


def get_dataset(session: Session, *, name: str | None = None, id: int | None = None) -> DatasetInfo:
    """The dataset with ``name`` or ``id``; raises NotFoundError listing the known names."""
    return info_of(DatasetInfo, _dataset(session, name=name, id=id))


def _dataset(session: Session, *, name: str | None = None, id: int | None = None) -> DatasetRecord:
    query = select(DatasetRecord)
    query = (
        query.where(DatasetRecord.id == id)
        if id is not None
        else query.where(DatasetRecord.name == normal_name(name or ""))
    )
    found = session.exec(query).first()
    if found is None:
        known = session.exec(
            select(DatasetRecord.name).where(col(DatasetRecord.archived_at).is_(None))
        )
        raise not_found("dataset", name if id is None else id, known)
    return found


def list_datasets(session: Session, *, include_archived: bool = False) -> list[DatasetInfo]:
    """Datasets by name (archived ones too when asked)."""
    query = select(DatasetRecord).order_by(col(DatasetRecord.name))
    if not include_archived:
        query = query.where(col(DatasetRecord.archived_at).is_(None))
    return [info_of(DatasetInfo, found) for found in session.exec(query).all()]


def example_counts(session: Session) -> dict[int, int]:
    """How many examples each dataset has, by dataset id (datasets without any are absent)."""
    query = select(ExampleRecord.dataset_id, func.count()).group_by(col(ExampleRecord.dataset_id))
    return {int(dataset_id): int(n) for dataset_id, n in session.exec(query).all()}


def archive_dataset(session: Session, *, dataset_id: int, archived: bool = True) -> DatasetInfo:
    """Hide a dataset from lists (or bring it back); examples, runs and scores stay."""
    dataset = _dataset(session, id=dataset_id)
    dataset.archived_at = utc_now() if archived else None
    session.add(dataset)
    session.flush()
    return info_of(DatasetInfo, dataset)


def add_examples(
    session: Session, *, dataset_id: int, examples: Iterable[ExampleData | Mapping[str, Any]]
) -> int:
    """Append examples to a dataset in one bulk insert; returns how many were added."""
    start = session.exec(
        select(func.coalesce(func.max(ExampleRecord.position), -1)).where(
            ExampleRecord.dataset_id == dataset_id
        )
    ).one()
    now = utc_now()
    rows = []
    for offset, example in enumerate(examples, start=int(start) + 1):
        data = asdict(example) if isinstance(example, ExampleData) else dict(example)
        row = {name: jsonable(data.get(name)) for name in EXAMPLE_FIELDS}
        rows.append({**row, "dataset_id": dataset_id, "position": offset, "created_at": now})
    if rows:
        session.execute(insert(ExampleRecord), rows)
    return len(rows)


def example_key(example: ExampleData | Mapping[str, Any]) -> str:
    """What an example says, as one text: its input, output, ground truth, request context and
    tags as they are stored (two examples with the same key say the same thing)."""
    data = asdict(example) if isinstance(example, ExampleData) else dict(example)
    return canonical_json([jsonable(data.get(name)) for name in EXAMPLE_FIELDS])


def stored_example_keys(session: Session, *, dataset_id: int, page: int = 1000) -> Counter[str]:
    """How many of a dataset's examples say each thing (by :func:`example_key`), read page by
    page in the database."""
    found: Counter[str] = Counter()
    columns = [col(getattr(ExampleRecord, name)) for name in EXAMPLE_FIELDS]
    after = -1
    while True:
        query = (
            select(col(ExampleRecord.id), *columns)
            .where(ExampleRecord.dataset_id == dataset_id, col(ExampleRecord.id) > after)
            .order_by(col(ExampleRecord.id))
            .limit(page)
        )
        rows = session.execute(query).all()
        if not rows:
            return found
        for row in rows:
            found[example_key(dict(zip(EXAMPLE_FIELDS, row[1:], strict=True)))] += 1
        after = int(row[0])


@dataclass(frozen=True, slots=True)
class ExampleContent:
    """What finds an example by its content or place: its id, dataset, number in the dataset
    (1-based, in dataset order: the order the examples grid lists them in), input and output."""

    id: int
    dataset_id: int
    number: int
    input: Any
    output: Any


def example_contents(
    session: Session, *, dataset_id: int | None = None, page: int = 1000
) -> Iterable[ExampleContent]:
    """The examples of one dataset (or of every dataset not archived) with their numbers,
    read page by page in the database."""
    query = select(
        col(ExampleRecord.id),
        col(ExampleRecord.dataset_id),
        col(ExampleRecord.input),
        col(ExampleRecord.output),
    )
    if dataset_id is not None:
        query = query.where(ExampleRecord.dataset_id == dataset_id)
    else:
        active = select(DatasetRecord.id).where(col(DatasetRecord.archived_at).is_(None))
        query = query.where(col(ExampleRecord.dataset_id).in_(active))
    numbers: Counter[int] = Counter()
    after = -1
    while rows := session.execute(
        query.where(col(ExampleRecord.id) > after).order_by(col(ExampleRecord.id)).limit(page)
    ).all():
        for example_id, dataset, input, output in rows:
            numbers[dataset] += 1
            yield ExampleContent(int(example_id), int(dataset), numbers[dataset], input, output)
        after = int(rows[-1][0])


def dataset_activity(session: Session, *, dataset_ids: Collection[int]) -> dict[int, datetime]:
    """When each dataset was last made or added to (its creation, or its newest example's),
    in UTC, by id: the dataset a person just made or filled is the newest."""
    newest = func.max(col(ExampleRecord.created_at))
    query = (
        select(col(DatasetRecord.id), col(DatasetRecord.created_at), newest)
        .join(ExampleRecord, col(ExampleRecord.dataset_id) == col(DatasetRecord.id), isouter=True)
        .where(col(DatasetRecord.id).in_(list(dataset_ids)))
        .group_by(col(DatasetRecord.id), col(DatasetRecord.created_at))
    )
    found: dict[int, datetime] = {}
    for dataset_id, created, added in session.execute(query).all():
        times = [_utc(t) for t in (created, added) if t is not None]
        found[int(dataset_id)] = max(times)
    return found


def _utc(time: datetime | str) -> datetime:
    """A stored time as UTC (an aggregate may come back as text or without its zone)."""
    value = datetime.fromisoformat(time) if isinstance(time, str) else time
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def count_examples(session: Session, *, dataset_id: int) -> int:
    """How many examples a dataset has."""
    query = select(func.count(col(ExampleRecord.id))).where(ExampleRecord.dataset_id == dataset_id)
    return int(session.exec(query).one())


def list_examples(
    session: Session, *, dataset_id: int, after_id: int | None = None, limit: int = 100
) -> list[ExampleInfo]:
    """A page of examples in dataset order; pass the last id seen as ``after_id`` for the next."""
    query = select(ExampleRecord).where(ExampleRecord.dataset_id == dataset_id)
    if after_id is not None:
        query = query.where(col(ExampleRecord.id) > after_id)
    found = session.exec(query.order_by(col(ExampleRecord.id)).limit(limit)).all()
    return [info_of(ExampleInfo, example) for example in found]


def update_example(session: Session, *, example_id: int, changes: Mapping[str, Any]) -> ExampleInfo:
    """Change some fields of an example (input, output, ground_truth, request_context, tags)."""
    unknown = sorted(set(changes) - set(EXAMPLE_FIELDS))
    if unknown:
        raise ConflictError(
            f"examples have no field {', '.join(unknown)}; fields: {', '.join(EXAMPLE_FIELDS)}"
        )
    example = session.get(ExampleRecord, example_id)
    if example is None:
        raise not_found("example", example_id)
    for name, value in changes.items():
        setattr(example, name, jsonable(value))
    session.add(example)
    session.flush()
    return info_of(ExampleInfo, example)


def delete_example(session: Session, *, example_id: int) -> None:
    """Delete an example that has no stored scores (scores must keep pointing somewhere)."""
    example = session.get(ExampleRecord, example_id)
    if example is None:
        raise not_found("example", example_id)
    scored = session.exec(
        select(func.count(col(ScoreRecord.id))).where(ScoreRecord.example_id == example_id)
    ).one()
    if scored:
        raise ConflictError(
            f"example {example_id} has {plural(scored, 'stored score')} and cannot be deleted; "
            "archive the dataset and make a new one instead"
        )
    session.delete(example)
    session.flush()


def dataset_names(session: Session) -> set[str]:
    """Every dataset name, archived ones too: an archived dataset keeps its name taken."""
    return set(session.exec(select(DatasetRecord.name)).all())


def update_dataset(
    session: Session, *, dataset_id: int, name: str, description: str
) -> DatasetInfo:
    """Give a dataset a new name and description (both trimmed); the name must be free."""
    dataset = _dataset(session, id=dataset_id)
    name = normal_name(name.strip(" "))
    if not name:
        raise ConflictError("a dataset needs a name")
    if name != dataset.name:
        taken = session.exec(select(DatasetRecord.id).where(DatasetRecord.name == name)).first()
        if taken is not None:
            raise ConflictError(f"a dataset named {name!r} already exists; choose another name")
        others = session.exec(select(DatasetRecord.name).where(DatasetRecord.id != dataset_id))
        name = checked_new_name(name, others.all(), what="dataset")
    dataset.name = name
    dataset.description = description.strip()
    session.add(dataset)
    session.flush()
    return info_of(DatasetInfo, dataset)
