"""The demo agent scorer with no OpenAI key, in a real browser: the Runs page says the key is
missing and leads to the scorer's judge; the person picks their own saved judge there (a new
version), runs it, and the one example whose reason step fails keeps its computed score, shown
as not counted in its evidence."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from sqlmodel import select

from scorer_runtime.store import make_engine, read_session, save_judge_profile, session_scope
from scorer_runtime.store.tables import ScoreRecord, ScorerRecord, ScorerVersionRecord
from studio import state
from tests.e2e import builder_actions as build
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV, StudioServer, running_studio
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

SCORER = "Tool-call accuracy"
DATASET = "agent_tool_runs (23 examples)"
FAILS = "What does order L2206 contain?"
"""The customer question whose reason step the judge refuses (a 400: not retried)."""


@pytest.fixture(scope="module")
def studio(
    studio_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StudioServer]:
    """The studio of a person who has no OpenAI key: only their own judge's key is set."""
    log = tmp_path_factory.mktemp("use-judge-log") / "studio.log"
    with running_studio(
        studio_database, log=log, env={JUDGE_KEY_ENV: "sk-e2e"}, unset=("OPENAI_API_KEY",)
    ) as server:
        yield server


@pytest.fixture
def own_judge(studio_database: str, fake_judge: FakeOpenAIServer) -> FakeOpenAIServer:
    engine = make_engine(studio_database)
    with session_scope(engine) as session:
        save_judge_profile(
            session,
            name="my-judge",
            model="openai/my-local-model",
            api_base=fake_judge.base_url,
            api_key_env=JUDGE_KEY_ENV,
            settings={"json_prompt_injection": "system"},
        )
    engine.dispose()
    fake_judge.fault(status=400, when=FAILS, times=None)
    fake_judge.reply("It looked the order up before answering.", when="Explain the score")
    return fake_judge


def _scorer_rows(database_url: str) -> tuple[list[object], list[ScoreRecord]]:
    engine = make_engine(database_url)
    with read_session(engine) as session:
        scorer = session.exec(
            select(ScorerRecord).where(ScorerRecord.name == "tool-call-accuracy")
        ).one()
        versions = session.exec(
            select(ScorerVersionRecord.spec)
            .where(ScorerVersionRecord.scorer_id == scorer.id)
            .order_by(ScorerVersionRecord.version)
        ).all()
        scores = list(session.exec(select(ScoreRecord).where(ScoreRecord.scorer_id == scorer.id)))
    engine.dispose()
    return list(versions), scores


def _missing_key_leads_to_the_judge(studio: StudioPage) -> None:
    studio.navigate("Runs", title="Runs")
    studio.select(state.RUNS_SCORER.name, SCORER)
    studio.select(state.RUNS_DATASET.name, DATASET)
    studio.text("The judge's key is not set")
    studio.screenshot("runs says the key is missing")
    button = studio.page.get_by_role("button", name="Use one of your judges, or add the key")
    studio.rerun(button.click, timeout_s=90)
    studio.settle("Scorers", timeout_s=90)  # another page's first load: slow on a busy machine
    studio.text("its own judge settings (openai/gpt-4o-mini), not a saved judge", timeout_s=90)
    studio.screenshot("scorers judge panel")
    studio.check()


def _use_own_judge(studio: StudioPage, scorer_id: int) -> None:
    panel = state.SCORERS_JUDGE.child(scorer_id)
    assert studio.chosen(panel.child("pick").name).startswith("my-judge — openai/my-local-model")
    studio.click(panel.child("use").name)
    studio.text("now uses the judge my-judge: saved as version 2", timeout_s=90)
    studio.screenshot("scorer uses my judge")
    studio.check()


def _run(studio: StudioPage) -> None:
    studio.navigate("Runs", title="Runs")
    studio.select(state.RUNS_SCORER.name, SCORER)
    studio.select(state.RUNS_DATASET.name, DATASET)
    assert "2" in build.chosen(studio, state.RUNS_VERSION.name)
    studio.click(state.RUNS_START.name)
    # One example's reason step fails (the planted 400): the run ends "Finished, 1 failed".
    studio.text("Every example was tried, but 1 of 23 could not be scored.", timeout_s=180)
    studio.settle()
    studio.screenshot("run with my judge")
    studio.check()


def _open_the_failed_one(studio: StudioPage) -> None:
    studio.click(state.RUNS_RESULTS.name)
    studio.settle("Results", timeout_s=90)
    menu = studio.open_menu(state.RESULTS_OPEN.name)
    option = menu.get_by_role("option", name=re.compile("Judge unavailable"))  # the one failed
    studio.rerun(option.first.click)
    studio.settle()
    studio.text("Score (not counted)", timeout_s=90)
    studio.text("Computed before a later step failed")
    studio.screenshot("failed example keeps its score")
    studio.check()


def test_the_demo_agent_scorer_runs_with_a_persons_own_judge(
    studio_page: StudioPage, studio_database: str, own_judge: FakeOpenAIServer
) -> None:
    studio = studio_page
    studio.open("/", title="Scorer Studio")
    versions, _ = _scorer_rows(studio_database)
    assert len(versions) == 1
    _missing_key_leads_to_the_judge(studio)
    engine = make_engine(studio_database)
    with read_session(engine) as session:
        scorer_id = session.exec(
            select(ScorerRecord.id).where(ScorerRecord.name == "tool-call-accuracy")
        ).one()
    engine.dispose()
    assert scorer_id is not None
    _use_own_judge(studio, scorer_id)
    versions, _ = _scorer_rows(studio_database)
    assert [v["judge"] for v in versions][-1] == "my-judge"  # type: ignore[index]
    _run(studio)
    _, scores = _scorer_rows(studio_database)
    assert len(scores) == 23
    assert all(r.judge for r in scores)
    requests = own_judge.chat_requests
    assert requests
    assert {r.json["model"] for r in requests} == {"my-local-model"}
    failed = [s for s in scores if s.outcome != "scored"]
    assert [s.failed_step for s in failed] == ["generate_reason"]
    assert failed[0].score is None
    assert failed[0].step_results["generate_score_step_result"] is not None
    _open_the_failed_one(studio)
