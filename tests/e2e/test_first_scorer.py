"""A new user's first scorer, end to end in a real browser: build it through the builder's
forms (a judge step and a built-in check), try it on an example, save it, run it on a demo
dataset, and read the results — the chart and one score opened up."""

from __future__ import annotations

import json
import re
import statistics

import pytest
from sqlmodel import select

from scorer_runtime.store import make_engine, read_session
from scorer_runtime.store.tables import RunRecord, ScoreRecord, ScorerRecord, ScorerVersionRecord
from studio import state
from tests.e2e import builder_actions as build
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV, ROOT
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

DATASET = "customer_support"
TEMPLATE = "Is this support answer polite? {{ output }}"
MAPPING = {"yes": 1.0, "partial": 0.5, "no": 0.0}
# The fake judge's verdicts, chosen by what the answer says (first match wins; else "yes").
VERDICTS = [
    ("Calm down", "no"),
    ("Whatever", "no"),
    ("Obviously", "no"),
    ("read the FAQ", "no"),
    ("Our backpacks have a warranty.", "partial"),
]
B0 = state.BUILDER_FORM.child(0).name


def _outputs() -> list[str]:
    path = ROOT / "data" / "datasets" / f"{DATASET}.jsonl"
    return [json.loads(line)["output"] for line in path.read_text().splitlines() if line.strip()]


def _verdict(output: str) -> str:
    return next((verdict for marker, verdict in VERDICTS if marker in output), "yes")


@pytest.fixture
def judge(fake_judge: FakeOpenAIServer) -> FakeOpenAIServer:
    for marker, verdict in VERDICTS:
        fake_judge.reply({"verdict": verdict, "explanation": f"Judged {verdict}."}, when=marker)
    fake_judge.reply({"verdict": "yes", "explanation": "Polite and helpful."})
    return fake_judge


def _build(studio: StudioPage, judge: FakeOpenAIServer) -> None:
    studio.navigate("Build a scorer", title="Build a scorer")
    studio.type(f"{B0}.basics.name", "Polite support answers")
    studio.type(f"{B0}.basics.description", "Whether a support answer is polite.")
    studio.screenshot("builder basics")

    studio.choose(f"{B0}.stage", "2 · Judge")
    studio.type(f"{B0}.judge.settings.model", "openai/fake-judge")
    studio.type(f"{B0}.judge.settings.env", JUDGE_KEY_ENV)
    studio.text("set on this machine")  # the key's variable is set; its value is never shown
    studio.page.get_by_text("More judge settings", exact=True).click()
    studio.type(f"{B0}.judge.settings.base", judge.base_url)
    studio.select(f"{B0}.judge.settings.json", "Describe the answer in the prompt")
    studio.type(f"{B0}.judge.settings.instructions", "You grade the politeness of support answers.")
    studio.screenshot("builder judge")
    studio.check()

    studio.select(f"{B0}.example.dataset", DATASET)
    studio.choose(f"{B0}.stage", "3 · Steps")
    studio.choose(f"{B0}.steps.analyze.how", "Ask the judge")
    studio.type(f"{B0}.steps.analyze.judge.description", "Is the answer polite?")
    studio.type(f"{B0}.steps.analyze.judge.template", TEMPLATE)
    first = _outputs()[0]
    # The preview renders the prompt on the chosen example before anything is sent, the
    # example's answer marked as data (a new scorer's judge hardens its prompt).
    studio.text("Is this support answer polite? <<<DATA")
    studio.text(first[:40])
    studio.choose(f"{B0}.steps.generate_score.how", "Use a built-in check")
    studio.select(
        f"{B0}.steps.generate_score.builtin.use",
        "Judge labels · Turn the judge's label into a score",
    )
    # The label and its scores are chosen, never typed as a path: step 2's verdict.
    build.label_scores(studio, "generate_score", "Step 2, the judge's answer › verdict", MAPPING)
    studio.screenshot("builder steps")
    studio.check()
    assert judge.request_count == 0, "building must not call the judge"


def _try_and_save(studio: StudioPage, judge: FakeOpenAIServer) -> None:
    studio.choose(f"{B0}.stage", "5 · Try it")
    studio.text("Trying makes 1 call to the judge")
    studio.click(f"{B0}.try.run")
    score = studio.page.get_by_test_id("stMetric").filter(has_text="Score")
    assert score.get_by_test_id("stMetricValue").inner_text() == "1.00"
    assert judge.request_count == 1
    assert judge.last_request is not None
    # A new scorer's judge marks the judged text as data, with a new code for each call.
    sent = judge.last_request.last_user_content
    code = re.match(r"Is this support answer polite\? <<<DATA ([0-9a-f]{16})\n", sent)
    assert code is not None, sent
    assert sent.endswith(f"\n{_outputs()[0]}\nDATA {code.group(1)}>>>")
    studio.screenshot("builder try it")

    studio.choose(f"{B0}.stage", "6 · Save")
    studio.type(f"{B0}.save.note", "First version")
    studio.click(f"{B0}.save.save")
    studio.text("Saved version 1")
    studio.screenshot("builder saved")
    studio.check()


def _run(studio: StudioPage, judge: FakeOpenAIServer) -> None:
    link = studio.page.get_by_role("link", name="Run it on a dataset")
    studio.rerun(link.click)
    studio.settle("Runs")
    # The form opens on the scorer just saved (its id is what the Runs page lists).
    box = studio.widget(state.RUNS_SCORER.name).get_by_role("combobox")
    chosen = box.evaluate("el => el.value || el.innerText || el.getAttribute('aria-label') || ''")
    assert re.search(r"Polite support answers|polite-support-answers", chosen), chosen
    examples = len(_outputs())
    studio.select(state.RUNS_DATASET.name, f"{DATASET} ({examples} examples)")
    # What the run will cost in judge calls is said before it starts.
    assert f"asks the judge {examples} times" in studio.text("This run asks the judge").inner_text()
    studio.screenshot("runs before start")
    studio.check()
    studio.click(state.RUNS_START.name)
    studio.text("Every example of the dataset has a result.", timeout_s=120)
    studio.settle()
    studio.screenshot("runs finished")
    studio.check()
    assert judge.request_count == 1 + examples


def _results(studio: StudioPage) -> None:
    studio.click(state.RUNS_RESULTS.name)
    studio.settle("Results")
    chart = studio.chart("How the scores are spread")
    chart.wait_for(state="visible")
    box = chart.bounding_box()
    assert box is not None
    assert box["width"] > 100
    assert box["height"] > 50
    assert chart.locator(".mark-rect path").count() > 0, "the histogram has no bars"
    outputs = _outputs()
    numbers = studio.page.get_by_test_id("stMetric")
    total = numbers.filter(has_text="Results").get_by_test_id("stMetricValue").inner_text()
    mean = numbers.filter(has_text="Mean score").get_by_test_id("stMetricValue").inner_text()
    assert total == str(len(outputs))
    assert mean == f"{statistics.mean(MAPPING[_verdict(o)] for o in outputs):.2f}"
    studio.screenshot("results")
    studio.check()

    menu = studio.open_menu(state.RESULTS_OPEN.name)
    option = menu.get_by_role("option", name=re.compile(r" · result \d+$")).first
    label = option.inner_text()  # e.g. "“How do I …” · Scored 1.00 · result 24"
    found = re.search(r" (\d\.\d\d) · result (\d+)$", label)
    assert found, label
    score, result_id = found.groups()
    studio.rerun(option.click)
    studio.settle(f"Result {result_id}")
    shown = studio.page.get_by_test_id("stMetric").filter(has_text=re.compile(r"^Score"))
    assert shown.get_by_test_id("stMetricValue").inner_text() == score
    steps = studio.page.get_by_test_id("stExpander")  # a step's title: "2. Analyse"
    step = steps.filter(has_text=re.compile(r"[1-4]\. (Prepare|Analyse|Score|Explain)")).first
    step.locator("summary").click()  # opens in the browser only: no script run
    studio.text("What the judge was asked")
    studio.text("The judge's answer, exactly as received")
    studio.screenshot("results one score")
    studio.check()


def test_a_new_user_builds_runs_and_reads_a_scorer(
    studio_page: StudioPage, judge: FakeOpenAIServer, studio_database: str
) -> None:
    studio_page.open("/", title="Scorer Studio")
    studio_page.screenshot("home")
    _build(studio_page, judge)
    _try_and_save(studio_page, judge)
    _run(studio_page, judge)
    _results(studio_page)

    engine = make_engine(studio_database)
    try:
        with read_session(engine) as session:
            scorer = session.exec(
                select(ScorerRecord).where(ScorerRecord.name == "polite-support-answers")
            ).one()
            version = session.exec(
                select(ScorerVersionRecord).where(ScorerVersionRecord.scorer_id == scorer.id)
            ).one()
            run = session.exec(select(RunRecord).where(RunRecord.scorer_id == scorer.id)).one()
            scores = session.exec(select(ScoreRecord).where(ScoreRecord.run_id == run.id)).all()
    finally:
        engine.dispose()
    assert version.note == "First version"
    assert [s["step"] for s in version.spec["steps"]] == ["analyze", "generate_score"]
    assert version.spec["judge"]["api_key_env"] == JUDGE_KEY_ENV
    assert "sk-e2e" not in json.dumps(version.spec)
    assert run.status == "done"
    expected = sorted(MAPPING[_verdict(o)] for o in _outputs())
    assert sorted(s.score or 0.0 for s in scores) == expected
    assert all(s.outcome == "scored" for s in scores)
