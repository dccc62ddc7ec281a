"""The export & import page: Python / JSON / YAML exports, and imports checked before saving."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import yaml

from scorer_runtime.spec import load_spec
from scorer_runtime.spec.export import spec_data
from scorer_runtime.store import (
    get_scorer,
    latest_version,
    list_scorers,
    list_versions,
    read_session,
    save_scorer_version,
    session_scope,
)
from studio import state
from studio.app_pages.export.logic import check_import, export_file, path_words, run_guide

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
)


def _judge_spec(base_url: str) -> dict:
    return {
        "id": "fake-polite",
        "description": "Polite or not, asked of a fake judge.",
        "judge": {
            "model": "openai/fake-judge",
            "api_base": base_url,
            "api_key_env": "S3_EXPORT_KEY",
            "instructions": "You grade answers.",
            "json_prompt_injection": "system",
        },
        "steps": [
            {
                "step": "analyze",
                "description": "Label the tone",
                "template": "Answer: {{ output }}",
                "output_schema": {
                    "type": "object",
                    "properties": {"verdict": {"type": "string", "enum": ["polite", "rude"]}},
                    "required": ["verdict"],
                },
            },
            {
                "step": "generate_score",
                "use": "label_to_score",
                "with": {
                    "mapping": {"polite": 1, "rude": 0},
                    "field": "results.analyze_step_result.verdict",
                },
            },
        ],
    }


def _select_scorer(at, engine, name: str):
    with read_session(engine) as session:
        sid = get_scorer(session, name=name).id
    at.selectbox(key=state.EXPORT_SCORER.name).select(sid).run()
    return sid


def test_empty_database_offers_to_build_or_import(studio_db, open_page):
    at = open_page("export")
    assert not at.exception
    assert any("no scorer to export yet" in m.value for m in at.markdown)
    assert at.get("file_uploader")


def test_python_export_with_how_to_run_it_runs_as_shown(studio_db, open_page, fake_judge, tmp_path):
    with session_scope(studio_db) as session:
        save_scorer_version(session, spec=load_spec(_judge_spec(fake_judge.base_url)))
    at = open_page("export")
    assert not at.exception
    (python,) = [c for c in at.code if c.language == "python"]
    assert "create_scorer" in python.value
    assert "S3_EXPORT_KEY" in python.value
    steps = " ".join(m.value for m in at.markdown)
    assert "`S3_EXPORT_KEY`" in steps
    (command,) = [c.value for c in at.code if c.language == "bash"]
    assert command.startswith("export S3_EXPORT_KEY=...\npython fake_polite.py '{")
    # Run the file the way the page tells an engineer to.
    (tmp_path / "fake_polite.py").write_text(python.value, encoding="utf-8")
    fake_judge.reply({"verdict": "polite"})
    argv = shlex.split(command.splitlines()[-1])
    env = {
        **os.environ,
        "S3_EXPORT_KEY": "sk-test",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_OFFLINE_MODE": "true",
        "PYTHONPATH": ROOT,
    }
    done = subprocess.run(
        [sys.executable, *argv[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] == 1.0
    assert fake_judge.request_count == 1


def test_json_and_yaml_exports_hold_the_stored_spec(demo_db, open_page):
    at = open_page("export")
    _select_scorer(at, demo_db, "tone-politeness")
    at.radio(key=state.EXPORT_FORMAT.name).set_value("json").run()
    assert not at.exception
    (code,) = [c for c in at.code if c.language == "json"]
    with read_session(demo_db) as session:
        scorer = get_scorer(session, name="tone-politeness")
        stored = spec_data(latest_version(session, scorer_id=scorer.id).spec)
    assert json.loads(code.value) == stored
    at.radio(key=state.EXPORT_FORMAT.name).set_value("yaml").run()
    (code,) = [c for c in at.code if c.language == "yaml"]
    assert yaml.safe_load(code.value) == stored


def test_export_button_on_the_scorers_page_opens_that_scorer(demo_db, open_page):
    at = open_page("scorers")
    with read_session(demo_db) as session:
        sid = get_scorer(session, name="support-style").id
    at.button(key=state.SCORERS_EXPORT.child(sid).name).click().run()
    assert not at.exception
    assert at.selectbox(key=state.EXPORT_SCORER.name).value == sid


BAD_YAML = """\
id: bad one
steps:
  - step: generate_score
    use: no_such_check
"""


def test_import_lists_every_problem_and_saves_nothing(demo_db, demo_scorers, open_page):
    at = open_page("export")
    at.get("file_uploader")[0].set_value(("bad.yaml", BAD_YAML.encode(), "application/x-yaml"))
    at.run()
    assert not at.exception
    assert any("bad.yaml cannot be imported" in e.value for e in at.error)
    problems = [m.value for m in at.markdown if m.value.startswith("- **")]
    assert any(p.startswith("- **Line 1 · Id**") for p in problems)
    assert any("Description**: is required" in p for p in problems)
    assert any("Line 4 · Step 1 › built-in check" in p and "no_such_check" in p for p in problems)
    assert state.EXPORT_IMPORT_SAVE.name not in [b.key for b in at.button]
    with read_session(demo_db) as session:
        assert len(list_scorers(session)) == len(demo_scorers)


def test_upload_text_is_never_taken_for_a_file_path(studio_db, open_page, tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("id: leaked-secret\n")
    at = open_page("export")
    at.get("file_uploader")[0].set_value(("x.yaml", str(secret).encode(), "text/plain"))
    at.run()
    text = " ".join(m.value for m in at.markdown) + " ".join(e.value for e in at.error)
    assert "leaked-secret" not in text
    assert "cannot be imported" in text


def test_import_as_a_new_scorer(demo_db, open_page):
    spec = {
        "id": "shared-check",
        "description": "Says hello",
        "steps": [{"step": "generate_score", "use": "contains", "with": {"values": ["hello"]}}],
    }
    at = open_page("export")
    at.get("file_uploader")[0].set_value(
        ("shared.json", json.dumps(spec).encode(), "application/json")
    )
    at.run()
    assert any("holds a scorer, “shared-check”" in s.value for s in at.success)
    assert at.radio(key=state.EXPORT_IMPORT_MODE.name).value == "new"
    at.text_input(key=state.EXPORT_IMPORT_NAME.name).input("tone-politeness").run()
    assert at.button(key=state.EXPORT_IMPORT_SAVE.name).disabled
    at.text_input(key=state.EXPORT_IMPORT_NAME.name).input("hello-check").run()
    at.button(key=state.EXPORT_IMPORT_SAVE.name).click().run()
    assert not at.exception
    with read_session(demo_db) as session:
        scorer = get_scorer(session, name="hello-check")
        version = latest_version(session, scorer_id=scorer.id)
    assert version.spec.id == "hello-check"
    assert version.note == "imported from shared.json"
    assert any("Saved “hello-check” version 1" in t.value for t in at.toast)


def test_import_as_a_new_version_of_the_scorer_with_its_name(demo_db, open_page):
    with read_session(demo_db) as session:
        scorer = get_scorer(session, name="tone-politeness")
        spec = spec_data(latest_version(session, scorer_id=scorer.id).spec)
    spec["description"] = "Polite, stricter."
    payload = ("tone.yaml", yaml.safe_dump(spec).encode(), "application/x-yaml")
    at = open_page("export")
    at.get("file_uploader")[0].set_value(payload)
    at.run()
    assert at.radio(key=state.EXPORT_IMPORT_MODE.name).value == "version"
    assert at.selectbox(key=state.EXPORT_IMPORT_TARGET.name).value == scorer.id
    at.button(key=state.EXPORT_IMPORT_SAVE.name).click().run()
    assert not at.exception
    with read_session(demo_db) as session:
        versions = list_versions(session, scorer_id=scorer.id)
    assert [v.version for v in versions] == [2, 1]
    assert versions[0].spec.description == "Polite, stricter."
    assert any("This file is exactly version 2 of “tone-politeness”" in i.value for i in at.info)
    at.button(key=state.EXPORT_IMPORT_SAVE.name).click().run()  # the same file again
    assert any("nothing new was saved" in t.value for t in at.toast)
    with read_session(demo_db) as session:
        assert len(list_versions(session, scorer_id=scorer.id)) == 2


def test_path_words():
    assert path_words("steps[2].with.keywords") == "Step 3 › settings › keywords"
    assert path_words("judge.api_key_env") == "Judge › where the key is kept"
    assert path_words("") == "The file as a whole"


def test_check_import_refuses_unreadable_files_plainly():
    binary = check_import(b"\xff\xfe\x00", "x.json")
    assert not binary.ok
    assert "not UTF-8" in binary.problems[0].message
    empty = check_import(b"\n  \n", "x.yaml")
    assert not empty.ok
    assert "the file is empty" in empty.problems[0].message
    not_a_spec = check_import(b"[1, 2]\n", "x.json")
    assert not not_a_spec.ok
    assert not_a_spec.problems[0].where == "Line 1 · The file as a whole"


def test_run_guide_for_a_scorer_without_a_judge():
    spec = load_spec(
        {
            "id": "has.dots-and-dashes",
            "description": "d",
            "steps": [{"step": "generate_score", "use": "json_valid"}],
        }
    )
    guide = run_guide(spec, {})
    assert guide.file_name == "has_dots_and_dashes.py"
    assert guide.key_names == []
    assert not guide.calls_judge
    assert "No key is needed" in " ".join(guide.steps())
    assert guide.command.startswith('python has_dots_and_dashes.py \'{"input"')
    made = export_file(spec, "yaml")
    assert made.file_name == "has.dots-and-dashes.yaml"
    assert made.mime == "application/x-yaml"


def test_export_opens_on_the_scorer_just_edited_by_its_display_name(demo_db, open_page):
    with read_session(demo_db) as session:
        edited = get_scorer(session, name="tone-politeness").id
        other = get_scorer(session, name="support-style").id
    at = open_page("home")
    at.session_state[state.CURRENT_SCORER_ID.name] = edited  # the builder saved it
    at.switch_page("app_pages/export/page.py").run()
    assert not at.exception
    picker = at.selectbox(key=state.EXPORT_SCORER.name)
    assert picker.value == edited
    assert "tone-politeness" not in picker.options  # display names, not ids
    picker.set_value(other).run()
    assert at.session_state[state.CURRENT_SCORER_ID.name] == other
    # Leaving and coming back keeps the pick while the current scorer stays the same.
    at.switch_page("app_pages/home/page.py").run()
    at.switch_page("app_pages/export/page.py").run()
    assert at.selectbox(key=state.EXPORT_SCORER.name).value == other
