"""External scores in the store: one scorer per evaluation name, never offered to run, build or
export; each event a score linked to its span; an event delivered twice stored once."""

from __future__ import annotations

import pytest

from scorer_runtime.runs.start import RunRefusedError, RunRequest, plan_run
from scorer_runtime.saved_scorers import ExternalScorerError, compile_version, load_stored_spec
from scorer_runtime.store import (
    ScoreFilter,
    create_dataset,
    external_scorer_ids,
    get_score,
    get_scorer,
    get_version,
    list_scorers,
    list_scores,
    load_names,
    read_session,
    save_external_scores,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.views import agent_scorer_versions, read_overview, scorer_page
from scorer_runtime.traces import ExternalEvaluation
from tests.store.fixtures import valid_spec

TRACE, SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
NOON_NS = 1_764_936_000_000_000_000


def _event(name: str = "ragas", **fields) -> ExternalEvaluation:
    return ExternalEvaluation(
        **{"trace_id": TRACE, "span_id": SPAN, "name": name, "time_unix_nano": NOON_NS, **fields}
    )


def _stored(engine):
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(), limit=100).rows
        return [get_score(session, score_id=r.id) for r in reversed(rows)]


def test_an_event_is_a_score_of_its_scorer_at_the_time_it_happened(engine):
    with session_scope(engine) as session:
        new = save_external_scores(
            session, evaluations=[_event(score=0.7, label="mostly", explanation="One gap.")]
        )
    assert new == 1
    [score] = _stored(engine)
    assert (score.trace_id, score.span_id, score.score, score.label) == (TRACE, SPAN, 0.7, "mostly")
    assert (score.outcome, score.reason, score.run_id, score.dataset_id) == (
        "scored",
        "One gap.",
        None,
        None,
    )
    assert score.created_at.timestamp() == NOON_NS / 1e9
    with read_session(engine) as session:
        assert get_scorer(session, id=score.scorer_id).name == "ragas (external)"
        assert get_scorer(session, id=score.scorer_id).external_name == "ragas"


def test_the_same_event_twice_or_the_same_response_again_is_stored_once(engine):
    retry = _event(score=0.5)
    same_answer = [_event(score=0.9, response_id="resp-1", time_unix_nano=t) for t in (1, 2)]
    with session_scope(engine) as session:
        first = save_external_scores(session, evaluations=[retry, retry, *same_answer])
    with session_scope(engine) as session:
        again = save_external_scores(session, evaluations=[retry, *same_answer])
    assert (first, again) == (2, 0)
    assert sorted(s.score for s in _stored(engine)) == [0.5, 0.9]


def test_one_scorer_per_evaluation_name_and_ours_keep_their_name(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=valid_spec("ragas"))
        later = _event(score=0.0, time_unix_nano=NOON_NS + 1)
        save_external_scores(session, evaluations=[_event(score=1.0), later])
        save_external_scores(session, evaluations=[_event("ragas\n/tone", label="warm")])
    with session_scope(engine) as session:
        names = load_names(session)
        external = external_scorer_ids(session)
    assert sorted(names.scorers[i] for i in external) == [
        "ragas (external)",
        "ragas tone (external)",  # a line break and a slash are no part of a name
    ]
    assert "ragas" in names.scorers.values()  # our own scorer of the same name is untouched


def test_an_external_scorer_is_never_offered_to_build_run_or_export(engine):
    with session_scope(engine) as session:
        ours = save_scorer_version(session, spec=valid_spec(type="agent"))
        save_external_scores(session, evaluations=[_event(score=0.5)])
        dataset = create_dataset(session, name="faq")
    with read_session(engine) as session:
        [external_id] = external_scorer_ids(session)
        version = get_version(session, scorer_id=external_id)
        assert [s.id for s in list_scorers(session)] == [ours.scorer_id]
        assert external_id in {s.id for s in list_scorers(session, include_external=True)}
        assert [line.scorer_id for line in scorer_page(session).lines] == [ours.scorer_id]
        assert [v.scorer_id for v in agent_scorer_versions(session)] == [ours.scorer_id]
        assert list(load_names(session).live_scorers()) == [ours.scorer_id]
        assert read_overview(session).scorers == 1
        with pytest.raises(ExternalScorerError, match="another tool sent"):
            compile_version(session, version)
        with pytest.raises(ExternalScorerError, match="cannot be run or exported"):
            load_stored_spec(session, version)
    request = RunRequest(scorer_version_id=version.id, dataset_id=dataset.id, where="here")
    with pytest.raises(RunRefusedError, match="another tool sent"):
        plan_run(engine, request)


def test_an_error_type_is_a_failed_outcome_and_not_scorable_round_trips(engine):
    with session_scope(engine) as session:
        save_external_scores(
            session,
            evaluations=[
                _event("a", score=0.3, error_type="timeout"),
                _event("b", error_type="not_scorable", explanation="No answer to judge."),
            ],
        )
    failed, skipped = _stored(engine)
    assert (failed.outcome, failed.score, failed.error) == (
        "step_error",
        None,
        "the other tool could not evaluate this: timeout",
    )
    assert (skipped.outcome, skipped.score, skipped.reason) == (
        "not_scorable",
        None,
        "No answer to judge.",
    )
