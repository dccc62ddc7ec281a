"""The dataset a page's dataset picker opens on for a scorer: one whose examples the scorer
judges (agent runs for an agent scorer, examples with expected answers for a scorer that
compares with them…), the one it last ran on first. See
:func:`scorer_runtime.datasets.fit.suited_dataset`. Runs, Review and Trust open on it.
"""

from __future__ import annotations

from collections.abc import Collection

import streamlit as st

from scorer_runtime.datasets.fit import suited_dataset
from scorer_runtime.store import database_url, version_or_latest
from studio import services, state


def suited(scorer_id: int, version_id: int | None, dataset_ids: Collection[int]) -> int | None:
    """The dataset of ``dataset_ids`` that suits the version (None: its scorer's latest) best;
    None when none suits it."""
    return _suited(database_url(), scorer_id, version_id, tuple(dataset_ids))


@st.cache_data(show_spinner=False, ttl=30)
def _suited(
    url: str, scorer_id: int, version_id: int | None, dataset_ids: tuple[int, ...]
) -> int | None:
    with services.reading() as session:
        chosen = version_or_latest(session, scorer_id=scorer_id, version_id=version_id)
        if chosen is None:
            return None
        return suited_dataset(
            session, scorer_id=scorer_id, version_id=chosen, dataset_ids=dataset_ids
        )


def open_on_suited(
    key: state.Key, *, scorer_id: int, version_id: int | None, dataset_ids: Collection[int]
) -> None:
    """Before the picker ``key`` is drawn: when it holds no choice among ``dataset_ids`` yet,
    choose the dataset that suits the scorer, else the first (set, so the browser shows it:
    see :func:`studio.state.choose_valid`); a choice the person made is kept."""
    if state.peek(key) in dataset_ids:
        return
    found = suited(scorer_id, version_id, dataset_ids)
    state.choose_valid(key, [found] if found is not None else list(dataset_ids))
