"""The Runs page and the judge answer cache: a repeated run says how many of its judge answers
came from the cache and what they saved; the start form's checkbox turns the cache off."""

from __future__ import annotations

from scorer_runtime.money import format_dollars
from scorer_runtime.runs import run_batch
from scorer_runtime.store import get_run, list_runs, read_session

from .test_runs_cost import PRICED, _captions, _runs_page, _scorer, _spec
from .test_runs_helpers import KEY_ENV, make_dataset, save_spec


async def test_a_repeated_run_says_its_answers_came_from_the_cache(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"})
    _, version_id = save_spec(studio_db, _spec(fake_judge.base_url, PRICED))
    dataset_id = make_dataset(studio_db, "answers", ["Hi!", "Hello!", "Hey!"])
    scorer = _scorer(studio_db, version_id, None)
    runs = [
        await run_batch(studio_db, scorer, scorer_version_id=version_id, dataset_id=dataset_id)
        for _ in range(2)
    ]
    assert fake_judge.request_count == 3
    with read_session(studio_db) as session:
        saved = get_run(session, run_id=runs[1].run_id).saved_cost
    assert saved > 0
    first = _captions(_runs_page(open_page, runs[0].run_id))
    assert "0 of 3 judge answers from the cache." in first
    again = _captions(_runs_page(open_page, runs[1].run_id))
    assert f"3 of 3 judge answers from the cache, {format_dollars(saved)} saved." in again


def test_unticking_reuse_queues_a_run_that_asks_the_judge_again(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    save_spec(studio_db, _spec(fake_judge.base_url, PRICED))
    make_dataset(studio_db, "answers", ["Hi!", "Hello!"])
    at = open_page("runs")
    box = next(c for c in at.checkbox if c.label == "Reuse judge answers already given")
    assert box.value is True
    box.uncheck().run()
    next(b for b in at.button if b.label == "Start the run").click().run()
    assert not at.exception, at.exception
    with read_session(studio_db) as session:
        (queued,) = list_runs(session)
        assert get_run(session, run_id=queued.id).use_cache is False
