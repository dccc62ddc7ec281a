"""The Examples page's reads (cached, keyed by the database URL and plain arguments) and its
writes (datasets made, renamed, archived or restored, the demo datasets, a file imported, the
grid's edits saved), each through ``services.writing()``, which clears the caches after every
write, so the page always shows what the database holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from scorer_runtime.datasets import FileFormat, ImportResult
from scorer_runtime.saved_scorers import load_demo
from scorer_runtime.store import (
    DatasetInfo,
    archive_dataset,
    create_dataset,
    database_url,
    read_session,
    update_dataset,
)
from scorer_runtime.store.views import DatasetRow, dataset_rows
from studio import services
from studio.app_pages.examples.logic import (
    ArchiveImpact,
    ExamplePage,
    GridChanges,
    GridRow,
    GridSaveResult,
    archive_impact,
    example_page,
    export_bytes,
    import_upload,
    save_changes,
)


def datasets(*, include_archived: bool = False) -> list[DatasetRow]:
    """Every dataset (active ones unless asked) with its number of examples."""
    return _datasets(database_url(), include_archived)


@st.cache_data(show_spinner=False)
def _datasets(url: str, include_archived: bool) -> list[DatasetRow]:
    with services.reading() as session:
        return dataset_rows(session, include_archived=include_archived)


def page(dataset_id: int, number: int) -> ExamplePage:
    """Page ``number`` of a dataset's examples."""
    return _page(database_url(), dataset_id, number)


@st.cache_data(show_spinner=False)
def _page(url: str, dataset_id: int, number: int) -> ExamplePage:
    with services.reading() as session:
        return example_page(session, dataset_id=dataset_id, page=number)


def impact(dataset_id: int) -> ArchiveImpact:
    """What archiving the dataset touches (read when the confirmation shows)."""
    with services.reading() as session:
        return archive_impact(session, dataset_id=dataset_id)


def exporter(dataset_id: int, format: FileFormat) -> Callable[[], bytes]:
    """What makes the dataset's file: called when the download starts (on another thread),
    so a large dataset is not read on every rerun."""
    engine = services.engine()

    def make() -> bytes:
        with read_session(engine) as session:
            return export_bytes(session, dataset_id=dataset_id, format=format)

    return make


def create(name: str, description: str) -> DatasetInfo:
    """A new empty dataset (StoreError, in words, when the name is taken or not valid)."""
    with services.writing() as session:
        return create_dataset(session, name=name, description=description)


def rename(dataset_id: int, name: str, description: str) -> None:
    """Give the dataset a new name and description."""
    with services.writing() as session:
        update_dataset(session, dataset_id=dataset_id, name=name, description=description)


def set_archived(dataset_id: int, archived: bool) -> None:
    """Archive the dataset (its examples and results are kept), or restore it."""
    with services.writing() as session:
        archive_dataset(session, dataset_id=dataset_id, archived=archived)


def load_demo_datasets() -> list[str]:
    """Save the demo datasets whose names are free; their names."""
    with services.writing() as session:
        return list(load_demo(session, parts=["datasets"]).datasets)


def import_file(
    content: bytes,
    filename: str,
    *,
    dataset_name: str,
    mapping: Mapping[str, str],
    skip_bad_rows: bool,
    append: bool,
) -> ImportResult:
    """Import an uploaded file into a dataset (see ``logic.import_upload``)."""
    with services.writing() as session:
        return import_upload(
            session,
            data=content,
            filename=filename,
            dataset_name=dataset_name,
            mapping=mapping,
            skip_bad_rows=skip_bad_rows,
            append=append,
        )


def save_grid(
    dataset_id: int, rows: Sequence[GridRow], changes: GridChanges, first_number: int
) -> GridSaveResult:
    """Write the grid's edits of one page (GridSaveError, nothing written, on a bad cell)."""
    with services.writing() as session:
        return save_changes(
            session,
            dataset_id=dataset_id,
            rows=rows,
            changes=changes,
            first_number=first_number,
        )
