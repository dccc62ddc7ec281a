"""The dataset a page's dataset picker opens on for a scorer: one whose examples the scorer
judges (agent runs for an agent scorer, examples with expected answers for a scorer that
compares with them…), the one it last ran on first. See
:func:`scorer_runtime.datasets.fit.suited_dataset`. Runs, Review and Trust open on it; when a
person picks one that does not suit the scorer, the pages that score it (Runs, Trust) say why
and offer the one that does.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import streamlit as st

from scorer_runtime.datasets.fit import stored_fit_problems, suited_dataset
from scorer_runtime.store import database_url, version_or_latest
from studio import services, state


def suited(scorer_id: int, version_id: int | None, dataset_ids: Collection[int]) -> int | None:
    """The dataset of ``dataset_ids`` that suits the version (None: its scorer's latest) best;
    None when none suits it."""
    return _suited(database_url(), scorer_id, version_id, tuple(dataset_ids))


@services.cached(ttl=30)
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


def warn_if_unsuited(
    picker: state.Key,
    button: state.Key,
    *,
    scorer_id: int,
    version_ids: Sequence[int],
    dataset_id: int,
    datasets: Mapping[int, str],
) -> None:
    """Below the dataset picker ``picker``: why the dataset chosen does not suit the versions
    (each problem once), and the ``button`` to the one that suits the first best."""
    problems = misfits(tuple(version_ids), dataset_id)
    for problem in problems:
        st.warning(problem, icon=":material/rule:")
    if problems and version_ids:
        offer_suited(
            picker,
            button,
            scorer_id=scorer_id,
            version_id=version_ids[0],
            dataset_id=dataset_id,
            datasets=datasets,
        )


def misfits(version_ids: tuple[int, ...], dataset_id: int) -> list[str]:
    """What goes wrong when the versions score the dataset, each problem once (none: [])."""
    return _misfits(database_url(), version_ids, dataset_id)


@services.cached(ttl=30)
def _misfits(url: str, version_ids: tuple[int, ...], dataset_id: int) -> list[str]:
    found: dict[str, None] = {}
    with services.reading() as session:
        for version_id in version_ids:
            problems = stored_fit_problems(session, version_id=version_id, dataset_id=dataset_id)
            found.update(dict.fromkeys(problems))
    return list(found)


def offer_suited(
    picker: state.Key,
    button: state.Key,
    *,
    scorer_id: int,
    version_id: int | None,
    dataset_id: int,
    datasets: Mapping[int, str],
) -> None:
    """A button that sets the picker ``picker`` to the dataset of ``datasets`` (id → name)
    that suits the version best, when that is another than ``dataset_id``."""
    better = suited(scorer_id, version_id, list(datasets))
    if better is None or better == dataset_id:
        return
    st.button(
        f"Use “{datasets[better]}” instead",
        key=button.name,
        icon=":material/swap_horiz:",
        on_click=state.put,
        args=(picker, better),
    )
