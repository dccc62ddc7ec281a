"""A scorer whose judge hides personal data, shortens long prompts and stops on refusals, built
in the studio's forms in a real browser, tried, saved, exported (JSON and Python) and imported
back: the file carries the three settings exactly, and the imported scorer and the exported
code send the judge the very same messages and give the same results."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from scorer_runtime import ScorerRunError
from scorer_runtime.judge.fence import PLACEHOLDER
from scorer_runtime.spec import compile_spec, default_registry
from scorer_runtime.store import make_engine, read_session
from scorer_runtime.store.tables import ScorerRecord, ScorerVersionRecord
from studio import state
from tests.e2e import builder_actions as build
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

NAME = "Private politeness"
B0 = state.BUILDER_FORM.child(0).name
P = f"{B0}.judge.processors"
ANSWER = "Write to jane.doe@example.com about order #55123. " + "We are glad to help. " * 20
REFUSED = "Refuse me: " + ANSWER
MAPPING = {"yes": 1.0, "partial": 0.5, "no": 0.0}


@pytest.fixture
def judge(fake_judge: FakeOpenAIServer) -> FakeOpenAIServer:
    fake_judge.reply({"verdict": "As an AI language model, I cannot grade"}, when="Refuse me")
    fake_judge.reply({"verdict": "yes", "explanation": "Polite."})
    return fake_judge


def _switch_on(studio: StudioPage, key: str) -> None:
    box = studio.widget(key).locator("input[type=checkbox]").first
    if not box.is_checked():
        studio.rerun(lambda: studio.widget(key).locator("label").first.click())


def _processors(studio: StudioPage) -> None:
    """The scorer's judge: hide e-mails, cards and keys (not phones) and order numbers,
    shorten to 200 characters keeping both ends, stop on refusals and on "out of scope"."""
    _switch_on(studio, f"{P}.redact")
    studio.rerun(studio.widget(f"{P}.kind.phone").locator("label").first.click)
    studio.page.get_by_text("Advanced: hide text of your own (patterns)", exact=True).click()
    studio.type(f"{P}.rule.0.name", "order")
    studio.type(f"{P}.rule.0.pattern", "#(")
    studio.text("rule 'order' is not a valid pattern")  # refused in words, at its place
    studio.type(f"{P}.rule.0.pattern", r"#\d{5}")
    _switch_on(studio, f"{P}.shorten")
    studio.type(f"{P}.budget", "0")
    studio.text("the budget must be more than 0 characters")
    studio.type(f"{P}.budget", "200")
    studio.choose(f"{P}.keep", "Both ends (cut out the middle)")
    _switch_on(studio, f"{P}.guard")
    studio.type(f"{P}.phrases", "out of scope")
    studio.type(f"{P}.message", "The judge refused to grade.")
    studio.type(f"{P}.answer", "Sorry, that is out of scope.")
    studio.text("This answer would be stopped")
    studio.screenshot("judge processors")
    studio.check()


def _build_try_and_save(studio: StudioPage, judge: FakeOpenAIServer) -> None:
    build.open_builder(studio)
    build.basics(studio, NAME, "Is the support answer polite? The judge never sees customers.")
    build.judge_here(
        studio,
        model="openai/fake-judge",
        key_env=JUDGE_KEY_ENV,
        base_url=judge.base_url,
        instructions="You grade the politeness of support answers.",
    )
    build.pick(studio, f"{B0}.example.way", "Type one")
    studio.type(f"{B0}.example.output", ANSWER)
    _processors(studio)
    build.steps_stage(studio)
    build.how(studio, "analyze", "Ask the judge")
    build.ask_the_judge(
        studio, "analyze", question="Is it polite?", prompt="Is this polite? {{ output }}"
    )
    build.builtin(studio, "generate_score", "Judge labels · Turn the judge's label into a score")
    build.label_scores(studio, "generate_score", "Step 2, the judge's answer › verdict", MAPPING)
    assert build.try_it(studio) == "1.00"
    sent = judge.last_request.last_user_content if judge.last_request else ""
    assert "jane.doe" not in sent
    assert "[REDACTED:email]" in sent
    assert "[REDACTED:order]" in sent
    assert "…[truncated]" in sent
    studio.text("In the question: Hid 1 e-mail address, shown as [REDACTED:email].")
    studio.screenshot("try it evidence")
    build.save(studio, "With hiding, shortening and stopping")
    studio.check()


def _download(studio: StudioPage, label: str, folder: Path) -> Path:
    studio.choose(state.EXPORT_FORMAT.name, label)
    studio.page.evaluate("() => { delete window.showSaveFilePicker; }")  # a plain download
    with studio.page.expect_download() as started:
        studio.widget(state.EXPORT_DOWNLOAD.name).get_by_role("button").click()
    path = folder / started.value.suggested_filename
    started.value.save_as(path)
    return path


def _export_and_import(studio: StudioPage, folder: Path) -> tuple[Path, Path]:
    studio.navigate("Export & import", title="Export & import")
    assert NAME in build.chosen(studio, state.EXPORT_SCORER.name)
    definition = _download(studio, "JSON definition", folder)
    code = _download(studio, "Python code", folder)
    studio.page.get_by_role("tab", name="Import a scorer file").click()
    uploader = studio.widget(state.EXPORT_UPLOAD.name).locator("input[type=file]")
    studio.rerun(lambda: uploader.set_input_files(definition))
    studio.choose(state.EXPORT_IMPORT_MODE.name, "A new scorer")
    studio.type(state.EXPORT_IMPORT_NAME.name, "private-copy")
    studio.click(state.EXPORT_IMPORT_SAVE.name)
    studio.text("Saved “private-copy” version 1")
    studio.screenshot("imported")
    studio.check()
    return definition, code


def _specs(database_url: str) -> dict[str, dict[str, Any]]:
    engine = make_engine(database_url)
    try:
        with read_session(engine) as session:
            rows = session.exec(
                select(ScorerRecord.name, ScorerVersionRecord.spec).join(
                    ScorerVersionRecord, ScorerVersionRecord.scorer_id == ScorerRecord.id
                )
            ).all()
            return {str(name): dict(spec) for name, spec in rows}
    finally:
        engine.dispose()


def _outcome(spec: dict[str, Any], example: dict[str, Any], judge: FakeOpenAIServer) -> Any:
    """What the scorer gives for the example, and the messages the judge was sent."""
    before = judge.request_count
    try:
        result: Any = compile_spec(spec, default_registry()).run_sync(**example).score
    except ScorerRunError as error:
        result = ("failed", str(error.__cause__ or error))
    return result, _sent(judge, before)


def _sent(judge: FakeOpenAIServer, before: int) -> list[Any]:
    """The messages of the judge's requests after the first ``before``, each call's code for
    the judged text's markers put back to the stand-in (a new scorer's judge marks it)."""
    return [
        [{**m, "content": re.sub(r"DATA [0-9a-f]{16}", f"DATA {PLACEHOLDER}", m["content"])}
         for m in r.json["messages"]]
        for r in judge.chat_requests[before:]
    ]  # fmt: skip


def test_a_scorer_with_all_three_processors_exports_and_imports_the_same(
    studio_page: StudioPage,
    judge: FakeOpenAIServer,
    studio_database: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    studio = studio_page
    studio.open("/", title="Scorer Studio")
    _build_try_and_save(studio, judge)
    definition, code = _export_and_import(studio, tmp_path)

    specs = _specs(studio_database)
    original = next(s for s in specs.values() if s.get("name") == NAME)
    imported = specs["private-copy"]
    processors = {k: original["judge"][k] for k in ("redact_pii", "truncate", "output_guard")}
    assert processors == {
        "redact_pii": {"kinds": ["email", "card", "api_key"], "patterns": {"order": r"#\d{5}"}},
        "truncate": {"max_chars": 200, "keep": "both"},
        "output_guard": {
            "patterns": [*processors["output_guard"]["patterns"][:3], "out of scope"],
            "message": "The judge refused to grade.",
        },
    }
    assert original["judge"]["harden_prompt"] is True  # on for a new judge
    assert imported["judge"]["harden_prompt"] is True
    file_judge = json.loads(definition.read_text())["judge"]
    assert {k: file_judge[k] for k in processors} == processors
    assert {k: imported["judge"][k] for k in processors} == processors

    monkeypatch.setenv(JUDGE_KEY_ENV, "sk-e2e")
    for output in (ANSWER, REFUSED):
        example = {"input": "Where is my order?", "output": output}
        assert _outcome(original, example, judge) == _outcome(imported, example, judge)
    refused = _outcome(imported, {"output": REFUSED}, judge)[0]
    assert refused[0] == "failed"
    assert "The judge refused to grade." in refused[1]

    before = judge.request_count
    done = subprocess.run(
        [sys.executable, str(code), json.dumps({"input": "Where is my order?", "output": ANSWER})],
        capture_output=True,
        text=True,
        check=True,
        timeout=180,
        env={**os.environ, JUDGE_KEY_ENV: "sk-exported-run"},
        cwd=tmp_path,
    )
    assert json.loads(done.stdout)["score"] == 1.0
    exported_sent = _sent(judge, before)
    assert (
        exported_sent
        == _outcome(original, {"input": "Where is my order?", "output": ANSWER}, judge)[1]
    )
