"""The run-start service (scorer_runtime.runs): a version is compiled once per start, a run
that cannot start is refused in words before anything is stored, the cap is chosen and kept
as asked, and the run is stored where it was asked to run (queued, or owned here)."""

from __future__ import annotations

import pytest

from scorer_runtime.costs.cap import CapError
from scorer_runtime.process import this_runner
from scorer_runtime.runs import RunRefusedError, RunRequest, plan_run, start_run
from scorer_runtime.saved_scorers import ScorerSource
from scorer_runtime.store import (
    list_runs,
    make_engine,
    read_session,
    session_scope,
    set_run_cap,
)
from tests.batch.test_queue_runner import _setup
from tests.cli.helpers import KEY_ENV


@pytest.fixture
def stored(db_url, tmp_path, fake_judge, monkeypatch):
    """The verdict scorer on 6 answers and its engine, the judge's key set."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    version_id, dataset_id, _ = _setup(db_url, tmp_path, fake_judge.base_url, 6)
    engine = make_engine(db_url)
    yield engine, version_id, dataset_id
    engine.dispose()


def _runs(engine):
    with read_session(engine) as session:
        return list_runs(session)


def test_a_start_compiles_the_version_once(stored, monkeypatch):
    engine, version_id, dataset_id = stored
    built = []
    original = ScorerSource.build
    monkeypatch.setattr(ScorerSource, "build", lambda self: built.append(1) or original(self))
    plan = plan_run(engine, RunRequest(version_id, dataset_id, max_cost=1.0, allow_unpriced=True))
    run = start_run(engine, plan)
    assert len(built) == 1
    assert (run.max_cost, run.allow_unpriced) == (1.0, True)


def test_a_run_is_stored_where_it_was_asked_to_run(stored):
    engine, version_id, dataset_id = stored
    queued = start_run(engine, plan_run(engine, RunRequest(version_id, dataset_id, where="queue")))
    here = start_run(engine, plan_run(engine, RunRequest(version_id, dataset_id, where="here")))
    assert (queued.status, queued.runner) == ("queued", None)
    assert (here.status, here.runner) == ("running", this_runner())


def test_a_missing_key_is_refused_in_words_and_nothing_is_stored(stored, monkeypatch):
    engine, version_id, dataset_id = stored
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(RunRefusedError, match=f"The run was not queued: .*{KEY_ENV}.* not set"):
        plan_run(engine, RunRequest(version_id, dataset_id, where="queue"))
    with pytest.raises(RunRefusedError, match=f"{KEY_ENV}.* not set"):
        plan_run(engine, RunRequest(version_id, dataset_id, where="here"))
    assert _runs(engine) == []


def test_a_queued_run_cannot_carry_a_url_only_this_process_knows(stored):
    engine, version_id, dataset_id = stored
    request = RunRequest(version_id, dataset_id, where="queue", api_base="http://127.0.0.1:1")
    with pytest.raises(RunRefusedError, match="scored here"):
        plan_run(engine, request)


def test_a_cap_on_a_model_without_a_price_needs_consent(stored):
    engine, version_id, dataset_id = stored
    with pytest.raises(CapError, match="needs prices"):
        plan_run(engine, RunRequest(version_id, dataset_id, max_cost=1.0))
    allowed = plan_run(
        engine, RunRequest(version_id, dataset_id, max_cost=1.0, allow_unpriced=True)
    )
    assert (allowed.cap, allowed.allow_unpriced) == (1.0, True)
    assert _runs(engine) == []


def test_no_cap_stores_no_consent_to_run_unpriced(stored):
    engine, version_id, dataset_id = stored
    plan = plan_run(engine, RunRequest(version_id, dataset_id, max_cost=None, allow_unpriced=True))
    run = start_run(engine, plan)
    assert (run.max_cost, run.allow_unpriced) == (None, False)


def test_a_resumed_run_keeps_its_own_cap_unless_another_is_given(stored):
    engine, version_id, dataset_id = stored
    first = start_run(engine, plan_run(engine, RunRequest(version_id, dataset_id, max_cost=None)))
    with session_scope(engine) as session:
        stored_run = set_run_cap(session, run_id=first.id, max_cost=2.0, allow_unpriced=True)
    kept = plan_run(engine, RunRequest.resuming(stored_run))
    assert (kept.cap, kept.cap_kept, kept.allow_unpriced) == (2.0, True, True)
    assert start_run(engine, kept).max_cost == 2.0
    lifted = plan_run(engine, RunRequest.resuming(stored_run, max_cost=None))
    assert start_run(engine, lifted).max_cost is None
    assert [r.id for r in _runs(engine)] == [first.id]  # resumed, never a second run
