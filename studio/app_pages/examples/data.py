"""Cached reads for the Examples page, keyed by the database URL and plain arguments.

``services.writing()`` clears these caches after every write, so the page always shows what
the database holds.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from scorer_runtime.datasets import FileFormat
from scorer_runtime.store import database_url, read_session
from scorer_runtime.store.views import DatasetRow, dataset_rows
from studio import services
from studio.app_pages.examples.logic import (
    ArchiveImpact,
    ExamplePage,
    archive_impact,
    example_page,
    export_bytes,
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
