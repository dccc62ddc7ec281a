"""An alignment's runs: a candidate's run is scored by the candidate's spec wherever it is
scored (a runner that takes it over included), and stays out of the runs people started."""

from __future__ import annotations

import asyncio

from scorer_runtime.batch.serve import QueueRunner
from scorer_runtime.runs import RunRequest, plan_run, start_run
from scorer_runtime.store import list_runs, read_session, session_scope
from scorer_runtime.store.alignments import alignment_runs, create_alignment
from scorer_runtime.store.labels import judge_verdicts
from scorer_runtime.store.stability import run_scores
from scorer_runtime.trust.align import plan_alignment, prepare_candidates
from tests.trust.align_world import FIXES, build_world
from tests.trust.conftest import db_url, engine, judge_key

__all__ = ["db_url", "engine", "judge_key"]


def test_a_runner_scores_a_queued_candidate_run_with_the_candidates_spec(
    engine, fake_judge, judge_key
):
    world = build_world(engine, fake_judge)
    with read_session(engine) as session:
        plan = plan_alignment(session, scorer_version_id=world.version_id)
    candidates = asyncio.run(prepare_candidates(engine, plan))
    guided = next(c for c in candidates.items if c.kind == "guidelines")
    with session_scope(engine) as session:
        alignment = create_alignment(
            session,
            scorer_version_id=world.version_id,
            tuning_ids=plan.split.tuning,
            holdout_ids=plan.split.holdout,
        )
    request = RunRequest(
        world.version_id,
        world.dataset_id,
        where="queue",
        max_cost=None,
        alignment_id=alignment.id,
        candidate="guidelines",
        candidate_spec=guided.spec,
    )
    run = start_run(engine, plan_run(engine, request))
    before = len(fake_judge.chat_requests)

    prepared = QueueRunner(engine, say=False)._prepare(run.id)  # as a runner that claimed it
    assert prepared is not None
    asyncio.run(prepared.run())

    asked = fake_judge.chat_requests[before:]
    assert len(asked) == 30
    assert all(FIXES in r.all_content.lower() for r in asked)
    with read_session(engine) as session:
        scores = run_scores(session, run_id=run.id)
        people = list_runs(session, scorer_id=world.scorer_id, repeats=False)
        verdicts = judge_verdicts(
            session, example_ids=world.example_ids, scorer_version_id=world.version_id
        )
        ours = alignment_runs(session, alignment_id=alignment.id)
    assert {s.example_id for s in scores} == set(world.example_ids)
    refunds = [e for e in world.example_ids if "refund" in world.outputs[e]]
    assert all(s.score == 1.0 for s in scores if s.example_id in refunds)
    # The candidate's scores are not the version's: its verdicts are still its own run's.
    assert all(verdicts[e].score == 0.0 for e in refunds)
    assert [r.id for r in ours] == [run.id]
    assert run.id not in {r.id for r in people}
    assert ours[0].candidate == "guidelines"
