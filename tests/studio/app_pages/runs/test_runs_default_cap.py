"""The Runs page and the spend cap: the "Stop at $" box starts with the default cap of the
scorer's judge profile, and a run its cap stopped shows "Stopped: budget reached" and can be
resumed (also one stored, before that status existed, as cancelled)."""

from __future__ import annotations

from scorer_runtime.costs.cap import budget_words
from scorer_runtime.store import create_run, finish_run, save_judge_profile, session_scope
from scorer_runtime.store.reservations import mark_lost, reserve_spend
from studio import state

from .test_runs_helpers import KEY_ENV, judge_spec, make_dataset, save_spec


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    return "\n".join(str(p) for p in parts)


def _profile(engine, name: str, base_url: str, **settings) -> None:
    with session_scope(engine) as session:
        save_judge_profile(
            session,
            name=name,
            model="openai/fake-judge",
            api_base=base_url,
            api_key_env=KEY_ENV,
            settings={"instructions": "You grade politeness.", **settings},
        )


def _scorer_on(engine, profile: str, base_url: str, name: str) -> tuple[int, int]:
    spec = judge_spec(base_url, name=name)
    spec["judge"] = profile
    return save_spec(engine, spec)


def test_the_box_starts_with_the_judge_s_default_cap_and_can_be_cleared(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    _profile(studio_db, "capped", fake_judge.base_url, default_max_cost=0.5)
    _profile(studio_db, "open", fake_judge.base_url)
    capped_id, capped_version = _scorer_on(studio_db, "capped", fake_judge.base_url, "capped-s")
    open_id, open_version = _scorer_on(studio_db, "open", fake_judge.base_url, "open-s")
    dataset_id = make_dataset(studio_db, "few", ["Thanks!", "No."])
    at = open_page("runs")
    at.selectbox(key=state.RUNS_SCORER.name).set_value(capped_id).run()
    at.selectbox(key=state.RUNS_DATASET.name).set_value(dataset_id).run()
    assert not at.exception, at.exception
    box = at.text_input(key=state.RUNS_CAP.child(capped_version).name)
    assert box.label == "Stop at $"
    assert box.value == "0.5"
    box.input("").run()  # the person clears it: no cap, and it stays cleared
    assert at.text_input(key=state.RUNS_CAP.child(capped_version).name).value == ""
    at.selectbox(key=state.RUNS_SCORER.name).set_value(open_id).run()
    assert at.text_input(key=state.RUNS_CAP.child(open_version).name).value == ""
    assert not at.exception, at.exception
    assert fake_judge.request_count == 0


def _stopped_run(engine, base_url: str, *, status: str) -> int:
    _, version_id = save_spec(engine, judge_spec(base_url))
    dataset_id = make_dataset(engine, f"d-{status}", ["a", "b", "c"])
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
        finish_run(session, run_id=run_id, status=status, error=budget_words(0.25, 0.25))
    return run_id


def test_a_run_its_cap_stopped_says_so_and_can_be_resumed(studio_db, open_page, fake_judge):
    run_id = _stopped_run(studio_db, fake_judge.base_url, status="stopped")
    at = open_page("runs")
    at.button(key=state.RUNS_OPEN.child(run_id).name).click().run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "**Stopped: budget reached.** $0.2500 spent of the $0.2500 cap." in text
    assert "3 of 3 examples have no result yet" in text
    assert ":orange-badge[Stopped: budget reached]" in text  # in the list of runs
    assert state.RUNS_RESUME.name in [b.key for b in at.button]


def test_a_capped_run_stored_as_cancelled_shows_the_same(studio_db, open_page, fake_judge):
    run_id = _stopped_run(studio_db, fake_judge.base_url, status="cancelled")
    at = open_page("runs")
    at.button(key=state.RUNS_OPEN.child(run_id).name).click().run()
    assert "**Stopped: budget reached.**" in _texts(at)
    assert state.RUNS_RESUME.name in [b.key for b in at.button]


def test_a_scorer_that_never_asks_a_judge_has_no_cost_and_no_cap_box(studio_db, open_page):
    spec = {
        "id": "short-answers",
        "description": "Short answers pass.",
        "steps": [{"step": "generate_score", "formula": "1 if len(output) < 40 else 0"}],
    }
    scorer_id, _ = save_spec(studio_db, spec)
    make_dataset(studio_db, "few", ["Thanks!", "No."])
    at = open_page("runs")
    at.selectbox(key=state.RUNS_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    assert "makes no judge calls and costs nothing" in _texts(at)
    assert "Stop at $" not in [box.label for box in at.text_input]
    assert "Estimating the cost" not in _texts(at)
    assert not at.button(key=state.RUNS_START.name).disabled


def test_a_finished_run_with_a_failure_shows_no_success_mark(
    studio_db, open_page, fake_judge, monkeypatch
):
    import asyncio

    from scorer_runtime.runs import run_batch
    from scorer_runtime.saved_scorers import scorer_source
    from scorer_runtime.store import read_session
    from scorer_runtime.store.scorers import get_version_by_id

    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.fault(status=400, when="Broken", times=None)  # this one's judge call fails
    fake_judge.reply({"verdict": "yes"})
    _, version_id = save_spec(studio_db, judge_spec(fake_judge.base_url))
    dataset_id = make_dataset(studio_db, "one-bad", ["Thanks!", "Broken answer", "Sure."])
    with read_session(studio_db) as session:
        source = scorer_source(session, get_version_by_id(session, version_id=version_id))
    summary = asyncio.run(
        run_batch(
            studio_db,
            source.build(),
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            source=source,
        )
    )
    assert (summary.status, summary.done) == ("done", 3)
    at = open_page("runs")
    assert not at.exception, at.exception
    if state.RUNS_OPEN.child(summary.run_id).name in [b.key for b in at.button]:
        at.button(key=state.RUNS_OPEN.child(summary.run_id).name).click().run()
    text = _texts(at)
    assert ":orange-badge[Finished, 1 failed]" in text  # in the list of runs
    assert "**Finished, 1 failed.** Every example was tried, but 1 of 3 could not be" in text
    # No green check on how it ended (the pass-mark verdict of the scored ones is apart).
    assert [s.icon for s in at.success] == [":material/thumb_up:"]


def test_a_stopped_run_says_what_it_counts_for_answers_lost_when_it_stopped(
    studio_db, open_page, fake_judge
):
    run_id = _stopped_run(studio_db, fake_judge.base_url, status="cancelled")
    with session_scope(studio_db) as session:
        for example_id in (1, 2, 3):  # a runner killed with three answers on their way
            reserve_spend(
                session, run_id=run_id, runner_token="killed", example_id=example_id, amount=0.0004
            )
        mark_lost(session, run_id=run_id)
    at = open_page("runs")
    at.button(key=state.RUNS_OPEN.child(run_id).name).click().run()
    assert not at.exception, at.exception
    assert (
        "**Counted as spent:** $0.0012 counted for 3 judge answers lost when the run stopped "
        "(they may have been paid for, so they count at their worst case). They count against "
        "the run's cap when it resumes."
    ) in _texts(at)
