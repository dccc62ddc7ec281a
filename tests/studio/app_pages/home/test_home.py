"""The home page: what is stored, the getting-started guide, and which judge keys are set."""

from __future__ import annotations

from scorer_runtime.store import (
    add_scores,
    create_run,
    finish_run,
    get_dataset,
    get_scorer,
    latest_version,
    list_scorers,
    read_session,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)
from studio import state
from studio.app_pages.home.logic import key_names_in_use, key_statuses
from studio.words import KEY_PLACE
from tests.store.fixtures import SCORE_ONE, judge_step, valid_spec

SECRET = "sk-this-value-must-never-show"


def _text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [str(df.value) for df in at.dataframe]
    parts += [w.value for w in at.warning] + [m.label + str(m.value) for m in at.metric]
    return "\n".join(parts)


def _table(at, column: str):
    """The first table on the page with this column, as a DataFrame."""
    return next(df.value for df in at.dataframe if column in df.value.columns)


def test_empty_database_teaches_and_loads_the_demo(studio_db, demo_scorers, open_page):
    at = open_page("home")
    assert not at.exception
    assert "Your studio is empty" in _text(at)
    at.button(key=state.HOME_LOAD_DEMO.name).click().run()
    assert not at.exception
    with read_session(studio_db) as session:
        names = [s.name for s in list_scorers(session)]
    assert "tone-politeness" in names
    assert len(names) == len(demo_scorers)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Scorers"] == str(len(demo_scorers))
    assert metrics["Datasets"] == "3"


def test_getting_started_links_to_the_pages(studio_db, open_page):
    at = open_page("home")
    links = [link.proto.page for link in at.get("page_link")]
    assert links[:3] == ["examples", "builder", "runs"]


def test_judge_keys_show_set_or_not_never_the_value(studio_db, open_page, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("MY_JUDGE_KEY", raising=False)
    with session_scope(studio_db) as session:
        save_judge_profile(
            session, name="house judge", model="openai/gpt-4o-mini", api_key_env="MY_JUDGE_KEY"
        )
    at = open_page("home")
    assert not at.exception
    table = _table(at, KEY_PLACE)
    rows = {row[KEY_PLACE]: row for row in table.to_dict("records")}
    assert rows["OPENAI_API_KEY"]["Set"] == "Set"
    assert rows["ANTHROPIC_API_KEY"]["Set"] == "Not set"
    assert rows["MY_JUDGE_KEY"]["Set"] == "Not set"
    assert "house judge" in rows["MY_JUDGE_KEY"]["Needed by"]
    assert table.iloc[0][KEY_PLACE] == "MY_JUDGE_KEY"  # what is needed comes first
    warning = " ".join(w.value for w in at.warning)
    assert "MY_JUDGE_KEY" in warning
    assert "Judges page" in warning  # where a person gives a key; no shell command
    assert "export" not in warning
    assert "judges" in [link.proto.page for link in at.get("page_link")]
    assert SECRET not in _text(at)


def test_latest_runs_show_status_and_mean(demo_db, open_page):
    with session_scope(demo_db) as session:
        scorer = get_scorer(session, name="keyword-coverage")
        version = latest_version(session, scorer_id=scorer.id)
        dataset = get_dataset(session, name="customer_support")
        run = create_run(session, scorer_version_id=version.id, dataset_id=dataset.id)
        rows = [
            {
                "run_id": run.id,
                "scorer_id": scorer.id,
                "scorer_version_id": version.id,
                "dataset_id": dataset.id,
                "example_id": None,
                "score": s,
                "outcome": "scored",
            }
            for s in (0.5, 1.0)
        ]
        rows.append({**rows[0], "score": None, "outcome": "provider_error"})
        add_scores(session, rows=rows)
        finish_run(session, run_id=run.id, status="done")
    at = open_page("home")
    assert not at.exception
    (line,) = _table(at, "Mean score").to_dict("records")
    assert line["Scorer"] == "keyword-coverage (version 1)"
    assert line["Status"] == "Finished"
    assert line["Mean score"] == "0.75"
    assert "2 scored" in line["Results"]
    assert "1 failed" in line["Results"]


def test_key_statuses_list_well_known_and_named_variables():
    statuses = key_statuses({"GROQ_API_KEY": "x", "EMPTY": " "}, {"EMPTY": ["judge “a”"]})
    by_env = {s.env: s for s in statuses}
    assert by_env["GROQ_API_KEY"].is_set
    assert by_env["GROQ_API_KEY"].provider == "Groq"
    assert not by_env["EMPTY"].is_set  # blank counts as not set
    assert statuses[0].env == "EMPTY"
    assert {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "AZURE_API_KEY"} <= set(
        by_env
    )


def test_key_names_in_use_say_who_names_each_variable(studio_db):
    step_judge = judge_step(
        judge={"model": "openai/x", "instructions": "Grade.", "api_key_env": "SHARED"}
    )
    with session_scope(studio_db) as session:
        save_judge_profile(session, name="fast", model="openai/x", api_key_env="SHARED")
        save_scorer_version(session, spec=valid_spec("tone", steps=[step_judge, SCORE_ONE]))
    with read_session(studio_db) as session:
        named = key_names_in_use(session)
    assert named == {"SHARED": ["judge “fast”", "scorer “tone”"]}
