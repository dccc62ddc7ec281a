"""The product manager's whole path in a real browser, against the fake judge over real HTTP,
with no path typed anywhere: build "does the support answer solve the problem, and is it
polite?" by choosing fields, try it, save; enter 5 examples in the grid; run; open one score's
steps and the judge's evidence; edit the prompt (version 2); run again; compare the versions;
export the Python and run it (the same scores as the studio)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select

from scorer_runtime.store import make_engine, read_session
from scorer_runtime.store.tables import ExampleRecord, RunRecord, ScoreRecord, ScorerRecord
from studio import state
from tests.e2e import builder_actions as build
from tests.e2e import examples_actions as examples
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

NAME = "Solved and polite"
DATASET = "support-checks"
FIELDS = [
    build.AnswerField("solved", "one of", ("yes", "partly", "no"), "Does it solve the problem?"),
    build.AnswerField("polite", "one of", ("yes", "no")),
    build.AnswerField("explanation", "text"),
]
SOLVED = "Step 2, the judge's answer › solved"
SCORES = {"yes": 1.0, "partly": 0.5, "no": 0.0}
PROMPT_V1 = "Does this answer solve the customer's problem, and is it polite?\nCustomer: "
PROMPT_V2 = "Be strict: a partial answer does not solve it.\nCustomer: "
# (input, output, the judge's verdict on "solved")
EXAMPLES = [
    ("My parcel never arrived, order 1001.", "I sent a replacement today, sorry.", "yes"),
    ("How do I reset my password?", "Click Forgot password on the sign-in page.", "yes"),
    ("Can I get a refund for a broken kettle?", "Refunds are possible, see the FAQ.", "partly"),
    ("The app crashes when I upload a photo.", "Whatever, reinstall it.", "no"),
    ("Do you ship to Norway?", "Yes, we ship to Norway within 5 days.", "yes"),
]
STRICTER = 2
"""The example version 2's stricter prompt judges differently: "partly" becomes "no"."""


def _v1_scores() -> dict[str, float]:
    return {question: SCORES[verdict] for question, _, verdict in EXAMPLES}


def _v2_scores() -> dict[str, float]:
    return {**_v1_scores(), EXAMPLES[STRICTER][0]: SCORES["no"]}


@pytest.fixture
def judge(fake_judge: FakeOpenAIServer) -> FakeOpenAIServer:
    """Verdicts chosen by the example in the prompt; version 2's prompt is stricter on one."""
    stricter = EXAMPLES[STRICTER][0]
    strict = {"solved": "no", "polite": "yes", "explanation": "Strictly, not solved."}
    # The example is marked as data inside the prompt (a new judge hardens its prompt):
    # version 2 is told by its words, the example by its own.
    fake_judge.reply_by(lambda sent: strict if PROMPT_V2 in sent and stricter in sent else None)
    for question, _, verdict in EXAMPLES:
        fake_judge.reply(
            {"solved": verdict, "polite": "yes", "explanation": f"Judged {verdict}."},
            when=question,
        )
    fake_judge.reply({"solved": "yes", "polite": "yes", "explanation": "Fine."})  # Try it
    return fake_judge


def _gen(studio: StudioPage) -> int:
    """The builder form's generation now on the page (a scorer opened or saved starts a new
    one): the highest ``builder.form.<n>`` among the widgets shown."""
    classes = studio.page.locator("[class*='st-key-builder-form-']").evaluate_all(
        "els => els.map(e => e.className)"
    )
    found = [int(m) for c in classes for m in re.findall(r"st-key-builder-form-(\d+)-", c)]
    assert found, "the builder's form is not on the page"
    return max(found)


def _build_and_save(studio: StudioPage, judge: FakeOpenAIServer) -> None:
    build.open_builder(studio)
    build.basics(studio, NAME, "Does the support answer solve the problem, and is it polite?")
    build.judge_here(
        studio,
        model="openai/fake-judge",
        key_env=JUDGE_KEY_ENV,
        base_url=judge.base_url,
        instructions="You grade customer-support answers.",
    )
    build.example_from_dataset(studio, "customer_support")
    build.steps_stage(studio)
    build.how(studio, "analyze", "Ask the judge")
    build.ask_the_judge(
        studio,
        "analyze",
        question="Does the answer solve the problem, politely?",
        prompt=PROMPT_V1,
        fields=["The example › input", "The example › output"],
    )
    build.answer_fields(studio, "analyze", FIELDS)
    build.builtin(studio, "generate_score", "Judge labels · Turn the judge's label into a score")
    build.label_scores(studio, "generate_score", SOLVED, SCORES)
    build.formula(studio, "generate_reason", "", ["Step 2, the judge's answer › explanation"])
    build.retry_policy(studio, retries=2, first_wait_s=0.5)
    studio.screenshot("pm builder before trying")
    studio.check()
    assert build.try_it(studio) == "1.00"
    assert judge.request_count == 1
    build.save(studio, "First version")
    studio.text(f"Editing {NAME}")
    studio.check()


def _enter_examples(studio: StudioPage) -> None:
    examples.open_examples(studio)
    examples.create_dataset(studio, DATASET)
    examples.paste_examples(
        studio, [{"input": q, "output": a, "ground_truth": ""} for q, a, _ in EXAMPLES]
    )
    examples.save(studio)
    studio.text("Saved: 5 added.")
    assert examples.picker_label(studio) == f"{DATASET} (5 examples)"
    studio.screenshot("pm examples")
    studio.check()


def _run(studio: StudioPage, version: int) -> None:
    """Run the scorer being worked on (the Runs page opens on it) on the dataset."""
    studio.navigate("Runs", title="Runs")
    chosen = build.chosen(studio, state.RUNS_SCORER.name)
    assert NAME in chosen, f"the Runs page opens on {chosen!r}, not the scorer just saved"
    studio.select(state.RUNS_DATASET.name, f"{DATASET} (5 examples)")
    assert "asks the judge 5 times" in studio.text("This run asks the judge").inner_text()
    assert f"v{version}" in build.chosen(studio, state.RUNS_VERSION.name) or (
        f"Version {version}" in build.chosen(studio, state.RUNS_VERSION.name)
    )
    studio.click(state.RUNS_START.name)
    studio.text("Every example of the dataset has a result.", timeout_s=180)
    studio.settle()
    studio.screenshot(f"pm run v{version}")
    studio.check()


def _open_one_score(studio: StudioPage) -> None:
    """From the finished run to its results, and one score opened to its steps and the
    judge's evidence; the customer's question leads."""
    studio.click(state.RUNS_RESULTS.name)
    studio.settle("Results")
    menu = studio.open_menu(state.RESULTS_OPEN.name)
    question = EXAMPLES[STRICTER][0]
    option = menu.get_by_role("option", name=re.compile(re.escape(f"“{question}")))
    studio.rerun(option.first.click)
    studio.settle()
    shown = studio.page.get_by_test_id("stText").filter(has_text=question)
    assert shown.first.is_visible(), "the opened result does not show the customer's question"
    studio.text("Answer that was scored")
    steps = studio.page.get_by_test_id("stExpander")  # a step's title: "2. Analyse"
    step = steps.filter(has_text=re.compile(r"[1-4]\. (Prepare|Analyse|Score|Explain)")).first
    step.locator("summary").click()
    studio.text("What the judge was asked")
    studio.text("The judge's answer, exactly as received")
    studio.screenshot("pm one score")
    studio.check()


def _edit_prompt(studio: StudioPage) -> None:
    """Version 2: the same scorer opened in the builder, its judge prompt made stricter."""
    build.open_builder(studio)
    studio.text(f"Editing {NAME}")
    gen = _gen(studio)
    build.steps_stage(studio, gen=gen)
    prefix = f"{build.form(gen)}.steps.analyze.judge"
    studio.type(f"{prefix}.template", PROMPT_V2)
    for label in ("The example › input", "The example › output"):
        studio.select(f"{prefix}.insert", label)
    build.save(studio, "Stricter prompt", gen=gen)
    studio.text("Saved version 2")
    studio.check()


def _compare(studio: StudioPage) -> None:
    studio.navigate("Compare runs", title="Compare runs")
    # It opens on the two versions of the scorer being worked on, on the dataset they ran on.
    build.pick(studio, state.COMPARE_MODE.name, "Two versions of a scorer on one dataset")
    assert NAME in build.chosen(studio, state.COMPARE_SCORER.name)
    assert "Version 1" in build.chosen(studio, state.COMPARE_BEFORE_VERSION.name)
    assert "Version 2" in build.chosen(studio, state.COMPARE_AFTER_VERSION.name)
    verdicts = studio.page.get_by_test_id("stMetric").filter(has_text="Verdicts changed")
    assert verdicts.get_by_test_id("stMetricValue").inner_text() == "1"
    studio.text("1 now fail")
    studio.screenshot("pm compare")
    studio.check()


def _export_and_run(studio: StudioPage, tmp_path: Path) -> dict[str, float]:
    """Download the Python of the version being worked on and score each example with it."""
    studio.navigate("Export & import", title="Export & import")
    assert NAME in build.chosen(studio, state.EXPORT_SCORER.name)
    version = studio.page.locator("[class*='st-key-export-version-'] [role='combobox']").first
    assert "Version 2" in version.evaluate("el => el.value || el.getAttribute('aria-label')")
    studio.page.evaluate("() => { delete window.showSaveFilePicker; }")  # a plain download
    with studio.page.expect_download() as started:
        studio.widget(state.EXPORT_DOWNLOAD.name).get_by_role("button").click()
    script = tmp_path / started.value.suggested_filename
    started.value.save_as(script)
    studio.screenshot("pm export")
    studio.check()
    env = {**os.environ, JUDGE_KEY_ENV: "sk-exported-run"}
    scores = {}
    for question, answer, _ in EXAMPLES:
        done = subprocess.run(
            [sys.executable, str(script), json.dumps({"input": question, "output": answer})],
            capture_output=True,
            text=True,
            check=True,
            timeout=180,
            env=env,
            cwd=tmp_path,
        )
        scores[question] = json.loads(done.stdout)["score"]
    return scores


def _stored_scores(database_url: str) -> list[dict[str, float]]:
    """Each run of the scorer, oldest first: its scores by the example's input."""
    engine = make_engine(database_url)
    try:
        with read_session(engine) as session:
            scorer = session.exec(
                select(ScorerRecord).where(ScorerRecord.name == "solved-and-polite")
            ).one()
            runs = session.exec(
                select(RunRecord).where(RunRecord.scorer_id == scorer.id).order_by(RunRecord.id)
            ).all()
            stored = []
            for run in runs:
                assert run.status == "done"
                rows = session.exec(
                    select(ScoreRecord, ExampleRecord)
                    .join(ExampleRecord, ScoreRecord.example_id == ExampleRecord.id)
                    .where(ScoreRecord.run_id == run.id)
                ).all()
                assert all(score.outcome == "scored" for score, _ in rows)
                stored.append({str(ex.input): float(score.score or 0.0) for score, ex in rows})
            return stored
    finally:
        engine.dispose()


def test_a_product_manager_builds_runs_compares_and_exports(
    studio_page: StudioPage, judge: FakeOpenAIServer, studio_database: str, tmp_path: Path
) -> None:
    studio = studio_page
    studio.open("/", title="Scorer Studio")
    _build_and_save(studio, judge)
    _enter_examples(studio)
    _run(studio, 1)
    _open_one_score(studio)
    _edit_prompt(studio)
    _run(studio, 2)
    _compare(studio)
    exported = _export_and_run(studio, tmp_path)

    first, second = _stored_scores(studio_database)
    assert first == _v1_scores()
    assert second == _v2_scores()
    assert exported == second, "the exported code scores as the studio does"
    assert judge.request_count == 1 + 5 + 5 + 5
