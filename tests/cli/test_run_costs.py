"""``scorer-studio run --estimate`` and ``--max-cost``: what a run costs, and its cap."""

from __future__ import annotations

import pytest

from scorer_runtime.store import get_run, list_runs, make_engine, read_session
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec

OUTPUTS = [f"answer {i} " + "with more words " * (i % 4) for i in range(12)]


@pytest.fixture
def priced(db_url, tmp_path, fake_judge, monkeypatch):
    """The verdict scorer on a priced model, against the fake judge, over 12 answers."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    spec = verdict_spec(fake_judge.base_url)
    spec["judge"]["model"] = "openai/gpt-4o-mini"  # litellm knows its price
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec)))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, OUTPUTS)), "--name", "d")
    fake_judge.reply({"verdict": "good"}, usage="counted", latency_s=0.02)
    return db_url


def _runs(db_url):
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            return list_runs(session)
    finally:
        engine.dispose()


def _run(db_url, run_id):
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            return get_run(session, run_id=run_id)
    finally:
        engine.dispose()


def test_estimate_prints_calls_and_cost_and_makes_no_run(priced, fake_judge):
    result = cli(priced, "run", "verdict", "d", "--estimate")
    assert result.exit_code == 0, result.output
    assert "About 12 judge calls for 12 examples" in result.output
    assert "Cost: about $" in result.output
    assert "at worst $" in result.output
    assert fake_judge.request_count == 0
    assert _runs(priced) == []


def test_estimate_of_an_unpriced_model_says_so(db_url, tmp_path, fake_judge, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)  # no key is needed to estimate
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, verdict_spec(fake_judge.base_url))))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, ["a", "b"])), "--name", "d")
    result = cli(db_url, "run", "verdict", "d", "--estimate")
    assert result.exit_code == 0, result.output
    assert "About 2 judge calls" in result.output
    assert (
        "Price unknown for openai/fake-judge: set a price per 1M tokens on the judge profile"
        in " ".join(result.output.split())
    )


@pytest.mark.parametrize(
    ("cap", "words"),
    [("-2", "must be an amount above $0"), ("lots", "'lots' is not an amount")],
)
def test_a_bad_cap_starts_nothing(priced, fake_judge, cap, words):
    result = cli(priced, "run", "verdict", "d", "--max-cost", cap)
    assert result.exit_code == 2
    assert words in " ".join(result.stderr.split())
    assert _runs(priced) == []
    assert fake_judge.request_count == 0


def test_a_cap_below_one_example_starts_nothing(priced, fake_judge):
    result = cli(priced, "run", "verdict", "d", "--max-cost", "0.0000001")
    assert result.exit_code == 2
    assert "below what one example can cost at worst" in " ".join(result.stderr.split())
    assert _runs(priced) == []
    assert fake_judge.request_count == 0


def test_a_capped_run_stops_and_resumes_with_a_higher_cap(priced, fake_judge):
    estimate = cli(priced, "run", "verdict", "d", "--estimate").output
    assert "at worst" in estimate
    result = cli(priced, "run", "verdict", "d", "--max-cost", "0.00008", "--concurrency", "3")
    assert result.exit_code == 3, result.output  # its own exit status: not 0, 1 or 2
    assert "stopped: budget reached" in result.output  # the summary's status, in words
    said = " ".join(result.stderr.split())
    assert "Run 1 stopped: budget reached; what finished is saved." in said
    assert "scorer-studio run verdict d --resume 1 --max-cost DOLLARS" in said
    stopped = _run(priced, 1)
    assert stopped.status == "stopped"
    assert (stopped.error or "").startswith("stopped: budget reached")
    assert 0 < stopped.done_count < len(OUTPUTS)
    assert stopped.cost <= 0.00008
    assert stopped.max_cost == 0.00008

    again = cli(priced, "run", "verdict", "d", "--resume", "1", "--max-cost", "1")
    assert again.exit_code == 0, again.output
    done = _run(priced, 1)
    assert (done.status, done.done_count, done.max_cost) == ("done", len(OUTPUTS), 1.0)
    assert fake_judge.request_count == len(OUTPUTS)


def test_a_queued_run_with_a_cap_on_an_unpriced_model_is_refused(
    db_url, tmp_path, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")  # the key is there: the cap is what refuses
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, verdict_spec(fake_judge.base_url))))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, ["a"])), "--name", "d")
    result = cli(db_url, "run", "verdict", "d", "--queue", "--max-cost", "1")
    assert result.exit_code == 2
    assert "--allow-unpriced" in result.stderr
    assert _runs(db_url) == []


def test_a_judge_s_default_cap_applies_unless_another_or_none_is_given(
    db_url, tmp_path, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    spec = verdict_spec(fake_judge.base_url)
    spec["judge"].update(model="openai/gpt-4o-mini", default_max_cost=0.00008)
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec)))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, OUTPUTS)), "--name", "d")
    fake_judge.reply({"verdict": "good"}, usage="counted", latency_s=0.02)

    capped = cli(db_url, "run", "verdict", "d", "--concurrency", "3")
    assert capped.exit_code == 3, capped.output
    said = " ".join(capped.output.split())
    assert "Stop at $0.000080: the default cap of the judge for a run" in said
    assert "--max-cost none runs without a cap" in said
    first = _run(db_url, 1)
    assert (first.status, first.max_cost) == ("stopped", 0.00008)
    assert 0 < first.done_count < len(OUTPUTS)

    uncapped = cli(db_url, "run", "verdict", "d", "--max-cost", "none")
    assert uncapped.exit_code == 0, uncapped.output
    assert "default cap" not in uncapped.output
    second = _run(db_url, 2)
    assert (second.status, second.max_cost, second.done_count) == ("done", None, len(OUTPUTS))

    # A resumed run keeps its own cap: still too low for one more example, so nothing starts.
    again = cli(db_url, "run", "verdict", "d", "--resume", "1")
    assert again.exit_code == 2
    assert "below what one example can cost" in " ".join(again.stderr.split())
    assert _run(db_url, 1).done_count == first.done_count
