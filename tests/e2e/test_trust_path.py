"""The product manager's trust path replayed in one browser session, with no reload: run a
judge scorer on 40 examples, grade 30 of them on the Review page with the keyboard, read the
agreement on Trust, check stability there, make version 2 in the builder and run it, compare
the versions, approve one, and export it.

After each action every badge, count and interval on screen is checked against what
``scorer_runtime`` computes from the store for the same data (never a hard-coded figure),
and the agreement also against the grades and verdicts the test scripted. The fake judge's
answers are scripted per phase: the stability check flips one verdict of an example nobody
graded, and gives a graded example another verdict than its run did (a repeat measures the
judge's steadiness; it is not a run to measure agreement on).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Locator, expect

from scorer_runtime.batch import summarize_run
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    Engine,
    ExampleData,
    get_scorer,
    graded_scale,
    latest_labels,
    latest_stability_check,
    list_examples,
    list_runs,
    list_versions,
    make_engine,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.trust.ab import ab_report, runs_to_compare
from scorer_runtime.trust.agreement import Agreement, Estimate, measure
from scorer_runtime.trust.policy import VersionTrust, version_trust
from scorer_runtime.trust.stability import StabilityPlan, check_report, plan_stability
from studio import state
from studio.app_pages.trust.logic import STABILITY_HERE
from studio.widgets.common import format_score
from tests.cli.helpers import verdict_spec
from tests.e2e import builder_actions as build
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV
from tests.fakes.openai_server import FakeOpenAIServer
from tests.store.fixtures import make_dataset

pytestmark = pytest.mark.e2e

SCORER = "replay-quality"
TITLE = "Answer quality (replay)"
DATASET = "replay-answers"
EXAMPLES = 40
GRADED = 30
GRADER = "Priya"
PROMPT_V1 = "Grade this answer: "
PROMPT_V2 = "Be strict with every answer. Grade this answer: "
PERSON_DISAGREES = 7
"""The graded example where the person says good and version 1's judge said bad."""
STRICTER = 4
"""The graded example version 2's stricter prompt calls bad (version 1 and the person: good)."""
VERDICT_KEYS = {"good": "1", "bad": "2"}
"""The Review page's number keys of the grades (best first)."""


def _output(i: int) -> str:
    return f"Answer number {i:02d}."


def _judge_v1(i: int) -> str:
    return "good" if i % 2 == 0 else "bad"


def _judge_v2(i: int) -> str:
    return "bad" if i == STRICTER else _judge_v1(i)


def _person(i: int) -> str:
    return "good" if i == PERSON_DISAGREES else _judge_v1(i)


SCORES = {"good": 1.0, "bad": 0.0}


@dataclass(frozen=True)
class Made:
    """What the test stored before the browser opened."""

    scorer_id: int
    dataset_id: int
    example_ids: list[int]
    """In dataset order: example i's output is ``_output(i)``."""


@pytest.fixture
def store(studio_database: str) -> Iterator[Engine]:
    """The studio's database, read by the test as the studio reads it."""
    engine = make_engine(studio_database)
    yield engine
    engine.dispose()


@pytest.fixture
def made(store: Engine, fake_judge: FakeOpenAIServer) -> Made:
    """A good/bad judge scorer (version 1) asking the fake judge, and 40 answers to score."""
    spec = verdict_spec(api_base=fake_judge.base_url, scorer_id=SCORER)
    spec["name"] = TITLE
    spec["judge"]["api_key_env"] = JUDGE_KEY_ENV
    spec["steps"][0]["template"] = PROMPT_V1 + "{{ output }}"
    examples = [ExampleData(input=f"Question {i:02d}", output=_output(i)) for i in range(EXAMPLES)]
    dataset_id = make_dataset(store, DATASET, examples)
    with session_scope(store) as session:
        version = save_scorer_version(session, spec=load_spec(spec), note="First version")
        ids = [e.id for e in list_examples(session, dataset_id=dataset_id, limit=EXAMPLES)]
    return Made(version.scorer_id, dataset_id, ids)


def _script(judge: FakeOpenAIServer, verdict: dict[int, str], *, prefix: str = "") -> None:
    """The judge answers example i's output with ``verdict[i]`` (after any earlier rules)."""
    for i, said in verdict.items():
        judge.reply({"verdict": said}, when=f"{prefix}{_output(i)}")


# -- reading the store ------------------------------------------------------------------------


def _versions(store: Engine, made: Made) -> dict[int, int]:
    """Version number → version id."""
    with read_session(store) as session:
        return {v.version: v.id for v in list_versions(session, scorer_id=made.scorer_id)}


def _trust(store: Engine, version_id: int) -> VersionTrust:
    with read_session(store) as session:
        return version_trust(session, scorer_version_id=version_id)


def _expected_agreement(store: Engine, made: Made, judge: dict[int, str]) -> Agreement:
    """The agreement of the scripted grades with the judge's verdicts in a run."""
    with read_session(store) as session:
        version_id = _versions(store, made)[1]
        scale = graded_scale(session, scorer_version_id=version_id)
    pairs = [(SCORES[_person(i)], SCORES[judge[i]]) for i in range(GRADED)]
    return measure(pairs, scale)


def _stability_plan(store: Engine, made: Made, version_id: int) -> StabilityPlan:
    """The check the Stability tab's form describes with its defaults."""
    with read_session(store) as session:
        return plan_stability(session, scorer_version_id=version_id, dataset_id=made.dataset_id)


# -- on the page ------------------------------------------------------------------------------


def _pick(studio: StudioPage, key: str, label: str) -> None:
    """Pick a scorer by typing its name into the drop-down, then Enter (the list of every
    demo scorer is longer than the open list draws)."""
    box = studio.widget(key).get_by_role("combobox")
    if studio.chosen(key) == label:
        return
    box.click()
    box.fill(label)
    studio.page.get_by_role("option", name=label, exact=True).wait_for()
    studio.rerun(lambda: studio.page.keyboard.press("Enter"))
    expect(box).to_have_value(label)


def _metric(studio: StudioPage, label: str) -> Locator:
    return studio.page.get_by_test_id("stMetric").filter(has_text=label).first


def _metric_value(studio: StudioPage, label: str) -> str:
    return _metric(studio, label).get_by_test_id("stMetricValue").inner_text().strip()


def _cell(studio: StudioPage, label: str) -> Locator:
    """The column holding a metric and the caption under it."""
    return studio.page.get_by_test_id("stColumn").filter(has=_metric(studio, label)).last


def _banner(studio: StudioPage, version: int) -> Locator:
    """The Trust page's verdict on the chosen version (above its tabs)."""
    return studio.page.get_by_test_id("stAlert").filter(has_text=f"Version {version}: ").first


def _two(x: float) -> str:
    return f"{x:.2f}"


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _interval(estimate: Estimate, shown: Callable[[float], str] = _two) -> str:
    """The caption under a figure: its 95 % interval as the page writes it."""
    assert estimate.low is not None
    assert estimate.high is not None
    return f"95 % interval: {shown(estimate.low)} to {shown(estimate.high)}"


def _check_banner(studio: StudioPage, found: VersionTrust) -> None:
    """The verdict above the tabs says the store's badge and every one of its reasons."""
    banner = _banner(studio, found.version)
    expect(banner).to_contain_text(f"Version {found.version}: {found.verdict.words}.")
    for reason in found.verdict.reasons_for(stability_where=STABILITY_HERE):
        expect(banner).to_contain_text(reason)
    _check_badge(studio, found)


def _check_badge(studio: StudioPage, found: VersionTrust) -> None:
    """The version's badge above the Trust page's version picker."""
    badge = f"v{found.version} · {found.verdict.words}"
    expect(studio.page.get_by_text(badge).first).to_be_visible()


def _check_agreement(studio: StudioPage, found: VersionTrust, expected: Agreement) -> None:
    """The Agreement tab's figures are the store's, and the store's are the scripted ones."""
    agreement = found.agreement
    assert agreement.n == expected.n == GRADED
    assert agreement.confusion == expected.confusion
    assert agreement.kappa == expected.kappa
    assert agreement.percent_agreement == expected.percent_agreement
    studio.page.get_by_role("tab", name="Agreement").click()
    assert _metric_value(studio, "Examples graded and scored") == str(agreement.n)
    kappa_label = agreement.kappa_name.capitalize()
    assert agreement.kappa.value is not None
    assert _metric_value(studio, kappa_label) == _two(agreement.kappa.value)
    expect(_cell(studio, kappa_label)).to_contain_text(_interval(agreement.kappa))
    assert agreement.percent_agreement.value is not None
    assert _metric_value(studio, "Same verdict") == _pct(agreement.percent_agreement.value)
    expect(_cell(studio, "Same verdict")).to_contain_text(
        _interval(agreement.percent_agreement, _pct)
    )
    assert agreement.human_pass_rate is not None
    assert agreement.judge_pass_rate is not None
    assert _metric_value(studio, "Pass rate: people / judge") == (
        f"{_pct(agreement.human_pass_rate)} / {_pct(agreement.judge_pass_rate)}"
    )
    expect(studio.page.get_by_text(agreement.reading).first).to_be_visible()
    disagreements = len(found.disagreements())
    expect(
        studio.page.get_by_text(f"Where people and the judge disagree ({disagreements})")
    ).to_be_visible()


# -- the steps a person takes -----------------------------------------------------------------


def _run(studio: StudioPage, made: Made, version: int) -> None:
    """Run the scorer's version (the latest) on the 40 answers from the Runs page."""
    studio.navigate("Runs", title="Runs")
    _pick(studio, state.RUNS_SCORER.name, TITLE)
    assert build.chosen(studio, state.RUNS_VERSION.name).startswith(f"Version {version}")
    studio.select(state.RUNS_DATASET.name, f"{DATASET} ({EXAMPLES} examples)")
    studio.text(f"This run asks the judge {EXAMPLES} times")
    studio.click(state.RUNS_START.name)
    studio.text("Every example of the dataset has a result.", timeout_s=120)
    studio.settle()


def _check_run(studio: StudioPage, store: Engine, made: Made, version: int) -> None:
    """The finished run's numbers on the Runs page, and its version's badge."""
    version_id = _versions(store, made)[version]
    with read_session(store) as session:
        run = list_runs(session, version_id=version_id, dataset_id=made.dataset_id, limit=1)[0]
        mark = graded_scale(session, scorer_version_id=version_id).pass_mark
        summary = summarize_run(session, run_id=run.id, threshold=mark)
    verdicts = [(_judge_v1 if version == 1 else _judge_v2)(i) for i in range(EXAMPLES)]
    assert summary.pass_rate == verdicts.count("good") / EXAMPLES  # as the judge was scripted
    assert summary.mean is not None
    assert summary.pass_rate is not None
    box = studio.widget(state.RUNS_THRESHOLD_SLIDER.child(run.id).name).locator("input")
    expect(box).to_have_value(f"{mark:.2f}")  # never a 0 the browser would send back
    verdict = "Passes at" if summary.verdict == "pass" else "Below the pass mark"
    studio.text(f"{verdict} {mark:g}")
    assert _metric_value(studio, "Mean score") == format_score(summary.mean)
    assert _metric_value(studio, "Pass rate") == _pct(summary.pass_rate)
    found = _trust(store, version_id)
    expect(
        studio.page.get_by_text(f"Version {version}: {found.verdict.words}").first
    ).to_be_visible()


def _grade(studio: StudioPage, made: Made) -> None:
    """Grade the first 30 examples on the Review page, one number key each."""
    studio.navigate("Review", title="Review")
    assert studio.chosen(state.REVIEW_SCORER.name) == TITLE, "Review opens on another scorer"
    assert studio.chosen(state.REVIEW_DATASET.name) == f"{DATASET} ({EXAMPLES} examples)"
    studio.widget(state.REVIEW_GRADER_NAME.name).locator("input").fill(GRADER)
    studio.rerun(studio.page.get_by_role("button", name="Start grading").click)
    studio.text(f"0 of {EXAMPLES} graded")
    studio.screenshot("review ready")
    studio.page.get_by_role("heading", name="Review").click()  # no text box has the keys
    for i in range(GRADED):
        studio.text(f"Example {i + 1} of {EXAMPLES}")
        studio.rerun(lambda i=i: studio.page.keyboard.press(VERDICT_KEYS[_person(i)]))
        studio.text(f"{i + 1} of {EXAMPLES} graded")


def _check_review(studio: StudioPage, store: Engine, made: Made) -> None:
    """The Review page's counts after 30 grades, and the grades stored."""
    last = GRADED - 1
    said = f"The judge said {_judge_v1(last)} (score {SCORES[_judge_v1(last)]:g})."
    expect(studio.page.get_by_text(f"Example {GRADED}: you said {_person(last)}.")).to_contain_text(
        said
    )
    studio.text(f"{GRADED} of {EXAMPLES} graded")
    studio.text(f"Example {GRADED + 1} of {EXAMPLES}")
    studio.text("The judge's verdict is hidden until you grade this example.")
    with read_session(store) as session:
        scorer_id = get_scorer(session, name=SCORER).id
        labels = latest_labels(session, scorer_id=scorer_id, example_ids=made.example_ids)
    assert {made.example_ids.index(k): (v.value, v.labeller) for k, v in labels.items()} == {
        i: (SCORES[_person(i)], GRADER) for i in range(GRADED)
    }


def _stability(studio: StudioPage, plan: StabilityPlan) -> None:
    """Check version 1's stability from the Trust page's Stability tab."""
    studio.page.get_by_role("tab", name="Stability").click()
    studio.text(f"Before you start: {plan.describe()}")
    studio.screenshot("stability form")
    studio.rerun(studio.page.get_by_role("button", name="Check stability").click)
    studio.text(f"Latest check of version {plan.version}.", timeout_s=120)
    studio.settle()


def _check_stability(studio: StudioPage, store: Engine, made: Made, version_id: int) -> None:
    """The Stability tab's flip rate, its interval and the examples compared, as stored."""
    with read_session(store) as session:
        check = latest_stability_check(
            session, scorer_version_id=version_id, dataset_id=made.dataset_id
        )
        assert check is not None
        report = check_report(session, check_id=check.id)
    flips = report.flips
    assert (flips.flipped, flips.compared) == (1, len(check.example_ids)), "the scripted flip"
    assert flips.rate is not None
    assert flips.ci_low is not None
    assert flips.ci_high is not None
    expect(studio.page.get_by_text(report.words()).first).to_be_visible()
    assert _metric_value(studio, "Flip rate") == _pct(flips.rate)
    interval = f"{_pct(flips.ci_low)} to {_pct(flips.ci_high)}"
    assert _metric_value(studio, "95 % interval") == interval
    assert _metric_value(studio, "Examples compared") == str(flips.compared)


def _version_2(studio: StudioPage, made: Made) -> None:
    """Open the scorer in the builder from the Scorers page, make its prompt stricter, save."""
    studio.navigate("Scorers", title="Scorers")
    studio.type(state.SCORERS_SEARCH.name, SCORER)
    studio.click(state.SCORERS_OPEN.child(made.scorer_id).name)
    studio.settle("Build a scorer")
    studio.text(f"Editing {TITLE}")
    gen = _gen(studio)
    build.steps_stage(studio, gen=gen)
    prefix = f"{build.form(gen)}.steps.analyze.judge"
    studio.type(f"{prefix}.template", PROMPT_V2)
    studio.select(f"{prefix}.insert", "The example › output")
    build.save(studio, "Stricter prompt", gen=gen)
    studio.text("Saved version 2")


def _gen(studio: StudioPage) -> int:
    """The builder form's generation on the page (a scorer opened starts a new one)."""
    classes = studio.page.locator("[class*='st-key-builder-form-']").evaluate_all(
        "els => els.map(e => e.className)"
    )
    found = [int(m) for c in classes for m in re.findall(r"st-key-builder-form-(\d+)-", c)]
    assert found, "the builder's form is not on the page"
    return max(found)


def _choose_version(studio: StudioPage, key: str, version: int) -> None:
    """Pick a version in a drop-down by its number, unless it shows that one already."""
    if not re.match(rf"Version {version}\b", studio.chosen(key)):
        studio.select(key, re.compile(rf"^Version {version}\b"))
    assert re.match(rf"Version {version}\b", studio.chosen(key))


def _compare(studio: StudioPage, store: Engine, made: Made) -> None:
    """The Compare versions tab shows version 1 against version 2 as the store has them."""
    ids = _versions(store, made)
    with read_session(store) as session:
        run_a, run_b = runs_to_compare(
            session, version_a=ids[1], version_b=ids[2], dataset_id=made.dataset_id
        )
        assert run_a is not None
        assert run_b is not None
        report = ab_report(session, run_a=run_a, run_b=run_b)
    assert report.compared == EXAMPLES
    assert [made.example_ids.index(d.example_id) for d in report.differences] == [STRICTER]
    studio.page.get_by_role("tab", name="Compare versions").click()
    assert build.chosen(studio, state.TRUST_VERSIONS_A.child(made.scorer_id).name) == "Version 1"
    assert build.chosen(studio, state.TRUST_VERSIONS_B.child(made.scorer_id).name) == "Version 2"
    studio.text(f"{report.compared} examples scored by both versions.")
    studio.text(f"{len(report.differences)} got a different verdict.")
    studio.text(report.test.words())


def _approve(studio: StudioPage, version: int) -> None:
    """Approve the version on the Policy tab (it is trusted: a name is all it needs)."""
    _choose_version(studio, state.TRUST_VERSION.name, version)
    studio.page.get_by_role("tab", name="Policy").click()
    studio.text(f"Approve version {version}")
    studio.type(state.TRUST_APPROVER.name, GRADER)
    studio.rerun(studio.page.get_by_role("button", name="Approve this version").click)
    studio.text(f"Approved version {version}.")
    studio.text(f"Version {version} approved by {GRADER}")


def _export(studio: StudioPage, tmp_path: Path) -> str:
    """Download the Python of the version Export opens on; its text."""
    studio.page.get_by_role("tab", name="Export a scorer").click()
    studio.page.evaluate("() => { delete window.showSaveFilePicker; }")  # a plain download
    with studio.page.expect_download() as started:
        studio.widget(state.EXPORT_DOWNLOAD.name).get_by_role("button").click()
    script = tmp_path / started.value.suggested_filename
    started.value.save_as(script)
    return script.read_text(encoding="utf-8")


# -- the path ---------------------------------------------------------------------------------


def test_the_trust_path_shows_fresh_numbers_after_every_step_without_a_reload(
    studio_page: StudioPage,
    store: Engine,
    made: Made,
    fake_judge: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    studio = studio_page
    v1_verdicts = {i: _judge_v1(i) for i in range(EXAMPLES)}
    _script(fake_judge, v1_verdicts)
    studio.open("/", title="Scorer Studio")

    # A run of version 1 on the 40 answers.
    _run(studio, made, 1)
    _check_run(studio, store, made, 1)
    studio.screenshot("v1 run")
    studio.check()
    v1 = _versions(store, made)[1]

    # Trust before any grade: nothing to measure, "grade 30 more".
    studio.navigate("Trust", title="Trust")
    assert studio.chosen(state.TRUST_SCORER.name) == TITLE, "Trust opens on another scorer"
    before = _trust(store, v1)
    assert (before.agreement.n, before.verdict.badge) == (0, "not_enough_evidence")
    _check_banner(studio, before)
    expect(_banner(studio, 1)).to_contain_text(f"grade {GRADED} more on the Review page")
    studio.text("No example is both graded by a person and scored by this version yet.")
    studio.screenshot("trust before grading")
    studio.check()

    # Grade 30 on the Review page.
    _grade(studio, made)
    _check_review(studio, store, made)
    studio.screenshot("review 30 graded")
    studio.check()

    # Agreement on Trust: the 30 grades, no "grade more", still no stability check.
    studio.navigate("Trust", title="Trust")
    graded = _trust(store, v1)
    assert graded.verdict.badge == "not_enough_evidence"
    assert len(graded.verdict.reasons) == 1  # only the stability check is missing
    expected_v1 = _expected_agreement(store, made, v1_verdicts)
    _check_banner(studio, graded)
    expect(_banner(studio, 1)).not_to_contain_text("graded examples the policy asks for")
    expect(_banner(studio, 1)).to_contain_text("No complete stability check yet")
    _check_agreement(studio, graded, expected_v1)
    studio.screenshot("trust agreement")
    studio.check()

    # A stability check of version 1: one ungraded example flips; a graded one gets another
    # verdict in every repeat than in the run (a repeat is no run to measure agreement on).
    plan = _stability_plan(store, made, v1)
    in_sample = [made.example_ids.index(e) for e in plan.example_ids]
    flipper = next(i for i in in_sample if i >= GRADED and _judge_v1(i) == "good")
    steady_other = next(i for i in in_sample if i < GRADED and _person(i) == _judge_v1(i) == "good")
    fake_judge.reset()
    fake_judge.reply({"verdict": "bad"}, when=_output(flipper), times=1)
    fake_judge.reply({"verdict": "bad"}, when=_output(steady_other))
    _script(fake_judge, v1_verdicts)
    _stability(studio, plan)
    assert fake_judge.request_count == len(plan.example_ids) * plan.repeats
    stable = _trust(store, v1)
    assert stable.verdict.badge == "trusted"
    _check_stability(studio, store, made, v1)
    _check_banner(studio, stable)
    expect(_banner(studio, 1)).not_to_contain_text("No complete stability check")
    _check_agreement(studio, stable, expected_v1)  # unchanged by the repeats
    studio.screenshot("trust after stability")
    studio.check()

    # Version 2: a stricter prompt, saved in the builder and run from the Runs page.
    fake_judge.reset()
    fake_judge.reply({"verdict": "bad"}, when=f"{PROMPT_V2}{_output(STRICTER)}")
    _script(fake_judge, v1_verdicts)
    _version_2(studio, made)
    studio.screenshot("builder v2 saved")
    _run(studio, made, 2)
    _check_run(studio, store, made, 2)
    runs_listed = studio.page.get_by_text(re.compile(r"\(version \d+\) on "))
    expect(runs_listed).to_have_count(2)  # the two versions' runs; the check's repeats are
    # its own, on the Trust page, never in the Runs list
    studio.screenshot("v2 run")
    studio.check()
    v2 = _versions(store, made)[2]

    # Back on Trust: version 2's banner and figures follow its run; both versions compare.
    studio.navigate("Trust", title="Trust")
    _choose_version(studio, state.TRUST_VERSION.name, 2)
    second = _trust(store, v2)
    assert (second.agreement.n, second.verdict.badge) == (GRADED, "not_enough_evidence")
    expected_v2 = _expected_agreement(store, made, {i: _judge_v2(i) for i in range(EXAMPLES)})
    _check_banner(studio, second)
    expect(_banner(studio, 2)).not_to_contain_text("graded examples the policy asks for")
    _check_agreement(studio, second, expected_v2)
    _check_badge(studio, _trust(store, v1))  # beside version 2's
    studio.screenshot("trust v2")
    _compare(studio, store, made)
    studio.screenshot("trust compare")
    studio.check()

    # Approve version 1 (trusted) while version 2 is the latest.
    _approve(studio, 1)
    studio.screenshot("approved")
    studio.check()
    words = _trust(store, v1).verdict.words
    approved, latest = f"Version 1: {words} · approved", f"Version 2: {second.verdict.words}"
    expect(studio.page.get_by_text(f"v1 · {words} · approved").first).to_be_visible()

    # The approval shows wherever a version is picked or listed.
    studio.navigate("Scorers", title="Scorers")
    studio.type(state.SCORERS_SEARCH.name, SCORER)
    studio.text(f"1 scorer matches “{SCORER}”.")
    expect(studio.page.get_by_text(latest).first).to_be_visible()
    expect(studio.page.get_by_text(approved).first).to_be_visible()
    studio.screenshot("scorers approved")
    studio.navigate("Runs", title="Runs")
    assert build.chosen(studio, state.RUNS_VERSION.name).startswith("Version 2")
    expect(studio.page.get_by_text(latest).first).to_be_visible()
    expect(studio.page.get_by_text("· approved")).to_have_count(0)
    _choose_version(studio, state.RUNS_VERSION.name, 1)
    expect(studio.page.get_by_text(approved).first).to_be_visible()
    studio.screenshot("runs approved")
    studio.navigate("Export & import", title="Export & import")
    version = studio.widget(state.EXPORT_VERSION.child(made.scorer_id).name)
    expect(version.get_by_role("combobox")).to_have_value(re.compile(r"^Version 1 "))
    studio.text("Version 1 is the approved one.")
    expect(studio.page.get_by_text(approved).first).to_be_visible()
    code = _export(studio, tmp_path)
    studio.screenshot("export approved")
    assert f'template("{PROMPT_V1}{{{{ output }}}}")' in code, "the export is not version 1's"
    assert "Be strict" not in code
    studio.check()
