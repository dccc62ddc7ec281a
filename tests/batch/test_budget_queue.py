"""A queued run with a spend cap, scored by a real runner process: it stops at the cap, saying
so, and ``run --queue`` reports it."""

from __future__ import annotations

import pytest

from scorer_runtime.store import get_run, make_engine, read_session
from tests.batch.runner_fixtures import attached_runner, wait_for_runners
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec

__all__ = ["attached_runner"]

CAP = 0.00008


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("given", ["--max-cost", "the judge's default cap"])
def test_a_queued_run_stops_at_its_cap_in_the_runner(
    db_url, tmp_path, fake_judge, attached_runner, monkeypatch, given
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    spec = verdict_spec(fake_judge.base_url)
    spec["judge"]["model"] = "openai/gpt-4o-mini"  # litellm knows its price
    cap_option = ["--max-cost", str(CAP)]
    if given != "--max-cost":
        spec["judge"]["default_max_cost"] = CAP
        cap_option = []
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec)))
    outputs = [f"answer {i} " + "with more words " * (i % 4) for i in range(12)]
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, outputs)), "--name", "d")
    fake_judge.reply({"verdict": "good"}, usage="counted", latency_s=0.02)
    attached_runner(db_url)
    wait_for_runners(db_url, 1)

    result = cli(db_url, "run", "--queue", "verdict", "d", *cap_option, "--concurrency", "3")

    assert result.exit_code == 3, result.output
    assert "stopped: budget reached" in result.output  # the status, in words
    assert ("the default cap of the judge" in result.output) == (not cap_option)
    assert "Resume it with a higher cap: the Runs page" in " ".join(result.stderr.split())
    engine = make_engine(db_url)
    with read_session(engine) as session:
        run = get_run(session, run_id=1)
    engine.dispose()
    assert (run.status, run.max_cost) == ("stopped", CAP)
    assert (run.error or "").startswith("stopped: budget reached")
    assert 0 < run.done_count < len(outputs)
    assert run.cost <= CAP
    assert fake_judge.request_count == run.done_count
