"""The scorer-studio command in-process: runs, thresholds, imports, exports, history, errors."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.money import format_dollars
from scorer_runtime.store import (
    ScoreFilter,
    count_examples,
    example_counts,
    get_dataset,
    get_scorer,
    list_datasets,
    list_runs,
    list_versions,
    make_engine,
    read_session,
    score_stats,
)
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec


@pytest.fixture
def judge_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")


@pytest.fixture
def loaded(db_url, tmp_path, fake_judge, judge_key):
    """A database holding the verdict scorer and a dataset of four answers."""
    spec = write_spec(tmp_path, verdict_spec(fake_judge.base_url))
    assert cli(db_url, "scorers", "import", str(spec)).exit_code == 0
    answers = write_examples(tmp_path, ["fine answer", "poor answer", "fine again", "poor again"])
    done = cli(db_url, "datasets", "import", str(answers), "--name", "answers")
    assert done.exit_code == 0, done.output
    assert "Imported 4 examples from answers.jsonl into dataset answers." in done.output
    fake_judge.reply({"verdict": "bad"}, when="poor")
    fake_judge.reply({"verdict": "good"})
    return db_url


def _engine_stats(db_url, **filters):
    engine = make_engine(db_url)
    with read_session(engine) as session:
        stats = score_stats(session, filter=ScoreFilter(**filters))
    engine.dispose()
    return stats


def test_run_prints_the_summary_and_passes_the_threshold(loaded):
    result = cli(loaded, "run", "verdict", "answers", "--concurrency", "2", "--fail-under", "0.5")
    assert result.exit_code == 0, result.output
    assert "Run 1: scorer verdict v1 on dataset answers (concurrency 2)" in result.output
    assert "4 of 4 have a result" in result.output
    assert "0.500" in result.output
    assert "pass" in result.output
    assert _engine_stats(loaded, run_id=1).count == 4


def test_run_below_the_threshold_exits_1(loaded):
    result = cli(loaded, "run", "verdict", "answers", "--fail-under", "0.75")
    assert result.exit_code == 1
    assert "below the threshold: mean 0.500 < 0.75" in result.stderr


def test_api_base_sends_the_judge_elsewhere(db_url, tmp_path, fake_judge, judge_key):
    # The stored spec points at a dead port; --api-base points the run at the fake judge.
    spec = write_spec(tmp_path, verdict_spec("http://127.0.0.1:9/v1"))
    cli(db_url, "scorers", "import", str(spec))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, ["a", "b"])), "--name", "d")
    fake_judge.reply({"verdict": "good"})
    result = cli(db_url, "run", "verdict", "d", "--api-base", fake_judge.base_url)
    assert result.exit_code == 0, result.output
    assert fake_judge.request_count == 2
    assert _engine_stats(db_url).outcome_counts == {"scored": 2}


def test_history_shows_the_newest_scores(loaded):
    cli(loaded, "run", "verdict", "answers")
    result = cli(loaded, "history", "verdict", "--limit", "3", "--outcome", "scored")
    assert result.exit_code == 0
    assert "Newest scores of verdict" in result.output
    assert result.output.count("scored") == 3
    bad = cli(loaded, "history", "verdict", "--outcome", "great")
    assert bad.exit_code == 2
    assert "unknown outcome great; outcomes: scored" in bad.stderr


def test_importing_a_spec_twice_keeps_one_version_and_export_round_trips(db_url, tmp_path):
    spec = write_spec(tmp_path, verdict_spec())
    first = cli(db_url, "scorers", "import", str(spec))
    again = cli(db_url, "scorers", "import", str(spec))
    assert "Scorer verdict: version 1" in first.output
    assert "version 1" in again.output
    exported = cli(db_url, "scorers", "export", "verdict", "--format", "json")
    assert json.loads(exported.output) == verdict_spec()
    python = cli(db_url, "scorers", "export", "verdict", "--format", "python")
    compile(python.output, "verdict.py", "exec")  # runnable Python, not a repr
    changed = write_spec(tmp_path, {**verdict_spec(), "description": "Is it good enough?"})
    assert "version 2" in cli(db_url, "scorers", "import", str(changed)).output
    shown = cli(db_url, "scorers", "show", "verdict", "--version", "1")
    assert shown.exit_code == 0
    assert '"description": "Is the answer good?"' in shown.output
    engine = make_engine(db_url)
    with read_session(engine) as session:
        versions = list_versions(session, scorer_id=get_scorer(session, name="verdict").id)
    engine.dispose()
    assert [v.version for v in versions] == [2, 1]


def test_a_bad_spec_file_lists_its_problems_without_a_traceback(db_url, tmp_path):
    broken = {**verdict_spec(), "steps": [{"step": "generate_score", "use": "no_such_step"}]}
    result = cli(db_url, "scorers", "import", str(write_spec(tmp_path, broken)))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: The scorer spec verdict.json has")
    assert "no_such_step" in result.stderr
    assert "Traceback" not in result.output


def test_dataset_import_reports_bad_rows_and_skip_imports_the_rest(db_url, tmp_path):
    path = tmp_path / "faq.csv"
    path.write_text("question,answer\nq1,a1\nq2,\nq3,a3\n", encoding="utf-8")
    aborted = cli(db_url, "datasets", "import", str(path), "--map", "input=question")
    assert aborted.exit_code == 2
    assert 'no column "output" for the output; the columns are: question, answer' in aborted.stderr
    mapped = ["--map", "input=question", "--map", "output=answer"]
    bad = cli(db_url, "datasets", "import", str(path), *mapped)
    assert bad.exit_code == 2
    assert 'line 3: column "answer" (output) is empty' in bad.stderr
    ok = cli(db_url, "datasets", "import", str(path), *mapped, "--skip-bad-rows")
    assert ok.exit_code == 0
    assert "Imported 2 examples from faq.csv into dataset faq." in ok.output
    assert 'line 3: column "answer" (output) is empty' in ok.output
    typo = cli(db_url, "datasets", "import", str(path), "--map", "inptu=question")
    assert typo.exit_code == 2
    assert "unknown field 'inptu'" in typo.stderr
    listed = cli(db_url, "datasets", "list")
    assert "faq" in listed.output


def test_a_dataset_import_made_twice_adds_nothing_and_says_so(db_url, tmp_path):
    path = write_examples(tmp_path, ["one", "two", "three"])
    first = cli(db_url, "datasets", "import", str(path), "--name", "trio")
    assert "Imported 3 examples from answers.jsonl into dataset trio." in first.output
    for again in (  # the same command, and the same file added to the dataset
        cli(db_url, "datasets", "import", str(path), "--name", "trio"),
        cli(db_url, "datasets", "import", str(path), "--name", "trio", "--append"),
    ):
        assert again.exit_code == 0, again.output
        assert (
            "Nothing added from answers.jsonl: its 3 examples are already stored in dataset trio."
            in again.output
        )
    grown = write_examples(tmp_path, ["one", "two", "three", "four"], name="more.jsonl")
    refused = cli(db_url, "datasets", "import", str(grown), "--name", "trio")
    assert refused.exit_code == 2
    assert "lacks 1 example of this file" in refused.stderr
    added = cli(db_url, "datasets", "import", str(grown), "--name", "trio", "--append")
    assert (
        "Imported 1 example from more.jsonl into dataset trio: 1 new, 3 already stored "
        "(not added again)." in added.output
    )
    assert "trio" in cli(db_url, "datasets", "list").output
    engine = make_engine(db_url)
    with read_session(engine) as session:
        dataset = get_dataset(session, name="trio")
        assert count_examples(session, dataset_id=dataset.id) == 4
    engine.dispose()


def test_dataset_export_writes_what_was_imported(db_url, tmp_path):
    source = write_examples(tmp_path, ["one", "two"])
    cli(db_url, "datasets", "import", str(source), "--name", "pair")
    out = tmp_path / "pair.jsonl"
    result = cli(db_url, "datasets", "export", "pair", str(out))
    assert result.exit_code == 0
    assert "Wrote 2 examples" in result.output
    assert out.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")


def test_seed_loads_the_demo_data_once(db_url, tmp_path):
    (tmp_path / "scorers").mkdir()
    (tmp_path / "datasets").mkdir()
    write_spec(tmp_path / "scorers", verdict_spec())
    write_examples(tmp_path / "datasets", ["a", "b", "c"], name="demo.jsonl")
    first = cli(db_url, "seed", "--data-dir", str(tmp_path))
    assert first.exit_code == 0
    assert "Seeded 1 scorers (verdict) and 1 datasets (demo)." in first.output
    second = cli(db_url, "seed", "--data-dir", str(tmp_path))
    assert "Nothing to seed" in second.output
    engine = make_engine(db_url)
    with read_session(engine) as session:
        assert [d.name for d in list_datasets(session)] == ["demo"]
        assert list(example_counts(session).values()) == [3]
    engine.dispose()


def test_unknown_names_and_runs_fail_with_one_line(loaded):
    unknown = cli(loaded, "run", "verdikt", "answers")
    assert unknown.exit_code == 2
    assert unknown.stderr == "error: no scorer 'verdikt' (scorers: verdict)\n"
    resume = cli(loaded, "run", "verdict", "answers", "--resume", "42")
    assert resume.exit_code == 2
    assert "no run 42" in resume.stderr


def test_db_upgrade_reports_the_revision(db_url):
    first = cli(db_url, "db", "upgrade")
    assert first.exit_code == 0
    assert "upgraded from empty" in first.output
    again = cli(db_url, "db", "upgrade")
    assert "already up to date" in again.output


def test_an_unreachable_database_is_one_line(tmp_path):
    result = cli("postgresql+psycopg://nobody:secret@127.0.0.1:9/none", "scorers", "list")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: cannot use the database postgresql+psycopg://nobody:***@"
    )
    assert "secret" not in result.stderr


def test_runs_are_listed_with_their_status(loaded):
    cli(loaded, "run", "verdict", "answers")
    engine = make_engine(loaded)
    with read_session(engine) as session:
        runs = list_runs(session)
    engine.dispose()
    assert [(r.status, r.done_count, r.failed_count) for r in runs] == [("done", 4, 0)]


def test_a_missing_judge_key_fails_before_any_run_is_stored(db_url, tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, verdict_spec())))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, ["a"])), "--name", "d")
    result = cli(db_url, "run", "verdict", "d")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: scorer 'verdict', analyze step: the environment variable {KEY_ENV} that "
        "should hold the judge's API key is not set"
    )
    engine = make_engine(db_url)
    with read_session(engine) as session:
        assert list_runs(session) == []
    engine.dispose()


# -- the run's cost says how much of it is known -------------------------------------------


def _cost_cell(output: str) -> str:
    """The value on the cost row of the run's summary table."""
    line = next(t for t in output.splitlines() if t.startswith("│ cost "))
    return line.split("│")[2].strip()


def test_a_run_on_a_model_without_a_price_says_its_cost_is_unknown(loaded):
    result = cli(loaded, "run", "verdict", "answers")
    assert result.exit_code == 0, result.output
    stats = _engine_stats(loaded, run_id=1)
    assert (stats.priced, stats.unpriced) == (0, 4)
    assert _cost_cell(result.output) == "unknown (4 results on an unpriced model)"


def test_a_run_on_a_priced_model_says_what_it_cost(db_url, tmp_path, fake_judge, judge_key):
    spec = verdict_spec(fake_judge.base_url)
    spec["judge"]["model"] = "openai/gpt-4o-mini"  # litellm knows its price
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec)))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, ["a", "b", "c"])), "--name", "d")
    fake_judge.reply({"verdict": "good"})
    result = cli(db_url, "run", "verdict", "d")
    assert result.exit_code == 0, result.output
    stats = _engine_stats(db_url, run_id=1)
    assert (stats.priced, stats.unpriced) == (3, 0)
    assert stats.cost > 0
    assert _cost_cell(result.output) == format_dollars(stats.cost)


def test_a_scorer_without_a_judge_costs_nothing_on_the_command_line(db_url, tmp_path):
    spec = {
        "id": "length",
        "description": "Longer is better.",
        "steps": [{"step": "generate_score", "formula": "min(len(output) / 10, 1)"}],
    }
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec, "length.json")))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, ["a", "bb"])), "--name", "d")
    result = cli(db_url, "run", "length", "d")
    assert result.exit_code == 0, result.output
    assert _cost_cell(result.output) == "$0"
