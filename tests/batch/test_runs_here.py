"""A run the command line scores itself is its own: a runner serving the queue on the same
store never claims it, so `run`, `run --api-base`, `stability` and `compare-versions` score in
their own process, exit as they would alone, and send every judge request where the command
said. `run --queue` still goes to the runner."""

from __future__ import annotations

import json

from scorer_runtime.process import this_runner
from scorer_runtime.store import (
    claim_queued,
    create_run,
    get_run,
    list_runs,
    make_engine,
    read_session,
    session_scope,
)
from tests.batch.runner_fixtures import runner_processes, wait_for_runners
from tests.batch.test_queue_runner import _setup
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_spec
from tests.fakes.openai_server import FakeOpenAIServer

__all__ = ["runner_processes"]


def test_a_run_made_here_is_never_in_the_queue(db_url, tmp_path, fake_judge):
    version_id, dataset_id, _ = _setup(db_url, tmp_path, fake_judge.base_url, 2)
    engine = make_engine(db_url)
    with session_scope(engine) as session:
        here = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id, here=True)
        queued = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
    assert (here.status, here.runner) == ("running", this_runner())
    assert here.started_at is not None
    assert here.heartbeat_at is not None
    with session_scope(engine) as session:
        assert claim_queued(session, runner="elsewhere:1") == queued.id
        assert claim_queued(session, runner="elsewhere:1") is None  # never the run made here
    engine.dispose()


def test_run_with_a_runner_alive_scores_here_and_asks_the_api_base_it_was_given(
    db_url, tmp_path, fake_judge, runner_processes, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    _setup(db_url, tmp_path, fake_judge.base_url, 12)
    runner_processes(db_url, env={KEY_ENV: "sk-test"})
    wait_for_runners(db_url, 1)
    fake_judge.reply({"verdict": "good"})
    with FakeOpenAIServer() as chosen:
        chosen.reply({"verdict": "bad"}, when="poor")
        chosen.reply({"verdict": "good"})
        done = cli(db_url, "run", "verdict", "big", "--api-base", chosen.base_url)
        assert done.exit_code == 0, done.output
        assert chosen.request_count == 12
    assert fake_judge.request_count == 0  # the spec's URL was not asked: the runner took nothing
    engine = make_engine(db_url)
    with read_session(engine) as session:
        (run,) = list_runs(session)
        run = get_run(session, run_id=run.id)
    assert (run.status, run.runner, run.done_count) == ("done", this_runner(), 12)
    engine.dispose()


def test_run_queue_with_a_runner_alive_goes_to_the_runner(
    db_url, tmp_path, fake_judge, runner_processes, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    _setup(db_url, tmp_path, fake_judge.base_url, 4)
    worker = runner_processes(db_url, env={KEY_ENV: "sk-test"})
    wait_for_runners(db_url, 1)
    fake_judge.reply({"verdict": "good"})
    done = cli(db_url, "run", "--queue", "verdict", "big")
    assert done.exit_code == 0, done.output
    engine = make_engine(db_url)
    with read_session(engine) as session:
        (run,) = list_runs(session)
    assert (run.status, run.runner.rsplit(":", 1)[1]) == ("done", str(worker.pid))
    engine.dispose()


def test_stability_and_compare_versions_with_a_runner_alive_score_here(
    db_url, tmp_path, fake_judge, runner_processes, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    _setup(db_url, tmp_path, fake_judge.base_url, 6)
    spec = verdict_spec(fake_judge.base_url)
    spec["judge"]["instructions"] = "You grade answers strictly."
    assert (
        cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec, "v2.json"))).exit_code == 0
    )
    runner_processes(db_url, env={KEY_ENV: "sk-test"})
    wait_for_runners(db_url, 1)
    fake_judge.reply({"verdict": "good"})

    checked = cli(db_url, "stability", "verdict", "big", "--repeats", "2", "--json")
    assert checked.exit_code == 0, checked.output
    compared = cli(db_url, "compare-versions", "verdict", "big", "--a", "1", "--b", "2", "--json")
    assert compared.exit_code == 0, compared.output
    assert json.loads(compared.stdout)["b"]["mean_score"] == 1.0
    engine = make_engine(db_url)
    with read_session(engine) as session:
        runs = list_runs(session)
    assert len(runs) == 4  # two repeats, then each version's run
    assert {(r.status, r.runner) for r in runs} == {("done", this_runner())}
    engine.dispose()
