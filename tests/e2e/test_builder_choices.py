"""A product manager builds "does the support answer solve the problem, and is it polite?" in
a real browser, by choosing: a judge step with three answer fields, a score step that turns
the judge's label into a score, a reason step, a retry policy; tries it on an example against
the fake judge over real HTTP, and saves version 1. No path is typed anywhere."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from scorer_runtime.spec import RetryPolicySpec
from scorer_runtime.store import make_engine, read_session
from scorer_runtime.store.tables import ScorerRecord, ScorerVersionRecord
from tests.e2e import builder_actions as build
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

NAME = "Solved and polite"
FIELDS = [
    build.AnswerField("solved", "one of", ("yes", "partly", "no"), "Does it solve the problem?"),
    build.AnswerField("polite", "one of", ("yes", "no")),
    build.AnswerField("explanation", "text"),
]
SOLVED = "Step 2, the judge's answer › solved"


@pytest.fixture
def judge(fake_judge: FakeOpenAIServer) -> FakeOpenAIServer:
    fake_judge.reply({"solved": "partly", "polite": "yes", "explanation": "Polite, half done."})
    return fake_judge


def test_a_product_manager_builds_a_scorer_by_choosing_fields(
    studio_page: StudioPage, judge: FakeOpenAIServer, studio_database: str
) -> None:
    studio = studio_page
    studio.open("/", title="Scorer Studio")
    build.open_builder(studio)
    studio.text("A new scorer")
    build.basics(studio, NAME, "Does the support answer solve the problem, and is it polite?")
    build.judge_here(
        studio,
        model="openai/fake-judge",
        key_env=JUDGE_KEY_ENV,
        base_url=judge.base_url,
        instructions="You grade customer-support answers.",
    )
    build.example_from_dataset(studio, "customer_support")
    studio.screenshot("judge")
    studio.check()

    build.steps_stage(studio)
    build.how(studio, "analyze", "Ask the judge")
    build.ask_the_judge(
        studio,
        "analyze",
        question="Does the answer solve the problem, politely?",
        prompt="Does this answer solve the customer's problem, and is it polite?\n",
        fields=["The example › input", "The example › output"],
    )
    build.answer_fields(studio, "analyze", FIELDS)
    studio.screenshot("judge step")
    studio.check()

    build.builtin(studio, "generate_score", "Judge labels · Turn the judge's label into a score")
    # Chosen for the person: the judge's first "one of" field, each choice with a score.
    prefix = f"{build.form()}.steps.generate_score.builtin.label_to_score"
    assert SOLVED in build.chosen(studio, f"{prefix}.field")
    build.label_scores(studio, "generate_score", SOLVED, {"yes": 1, "partly": 0.5, "no": 0})
    build.formula(
        studio,
        "generate_reason",
        "",
        fields=["Step 2, the judge's answer › explanation"],
    )
    studio.screenshot("steps")
    studio.check()
    assert judge.request_count == 0, "building must not call the judge"

    build.retry_policy(studio, retries=2, first_wait_s=0.5)
    studio.screenshot("retries")
    score = build.try_it(studio)
    assert score == "0.50"
    assert judge.request_count == 1
    assert judge.last_request is not None
    assert "Does this answer solve the customer's problem" in judge.last_request.last_user_content
    studio.screenshot("try it")
    studio.check()

    build.save(studio, "First version")
    studio.text(f"Editing {NAME}")  # the header names the scorer once it is saved
    studio.screenshot("saved")
    studio.check()

    engine = make_engine(studio_database)
    try:
        with read_session(engine) as session:
            scorer = session.exec(
                select(ScorerRecord).where(ScorerRecord.name == "solved-and-polite")
            ).one()
            version = session.exec(
                select(ScorerVersionRecord).where(ScorerVersionRecord.scorer_id == scorer.id)
            ).one()
    finally:
        engine.dispose()
    spec = version.spec
    assert version.version == 1
    steps = {s["step"]: s for s in spec["steps"]}
    assert list(steps) == ["analyze", "generate_score", "generate_reason"]
    assert steps["analyze"]["output_schema"]["properties"]["solved"]["enum"] == [
        "yes",
        "partly",
        "no",
    ]
    assert steps["generate_score"]["with"] == {
        "mapping": {"yes": 1.0, "partly": 0.5, "no": 0.0},
        "field": "step2.solved",
    }
    assert steps["generate_reason"]["formula"] == "step2.explanation"
    retry = RetryPolicySpec.model_validate(spec["judge"]["retry"])  # defaults are left out
    assert retry.max_retries == 2
    assert "nan" not in json.dumps(spec).lower()
