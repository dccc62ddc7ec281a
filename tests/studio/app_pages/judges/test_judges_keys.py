"""A key pasted on the Judges page: used at once by the connection test (the fake judge sees
it over real HTTP), remembered in a 0600 .env file only when asked, and never written to the
database or an export."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from scorer_runtime.store import get_judge_profile, judge_profile_dict, read_session
from studio import state
from studio.app_pages.judges.logic.keys import PastedKeyError, remember_key, use_key

KEY_ENV = "STUDIO_PASTED_JUDGE_KEY"
KEY = "sk-pasted-0123456789abcdefXYZ"


@pytest.fixture
def no_key(monkeypatch, tmp_path):
    """The variable unset, the working folder a temporary one (where .env would go)."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    yield
    os.environ.pop(KEY_ENV, None)  # the page sets it in this process's environment


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    return "\n".join(str(p) for p in parts)


def _paste(at, key: str, *, remember: bool = False) -> None:
    at.text_input(key=state.JUDGES_KEY_VALUE.name).input(key)
    if remember:
        at.checkbox(key=state.JUDGES_KEY_REMEMBER.name).check()
    at.button(key=state.JUDGES_KEY_USE.name).click().run()


def _judge_form(at, base_url: str) -> None:
    at.text_input(key=state.JUDGES_NAME.name).input("pasted")
    at.text_input(key=state.JUDGES_MODEL.name).input("openai/fake-judge")
    at.text_input(key=state.JUDGES_API_BASE.name).input(base_url)
    at.text_input(key=state.JUDGES_KEY_ENV.name).input(KEY_ENV)
    at.radio(key=state.JUDGES_JSON_MODE.name).set_value("system")
    at.run()


def test_a_pasted_key_is_used_by_the_test_and_kept_out_of_the_database(
    studio_db, open_page, fake_judge, no_key, tmp_path
):
    fake_judge.reply({"ok": True})
    at = open_page("judges")
    _judge_form(at, fake_judge.base_url)
    at.button(key=state.JUDGES_TEST.name).click().run()
    assert "No key is set in STUDIO_PASTED_JUDGE_KEY" in _texts(at)
    assert "Paste the key" in _texts(at)
    assert fake_judge.request_count == 0

    _paste(at, KEY)
    assert not at.exception
    assert os.environ[KEY_ENV] == KEY
    assert at.text_input(key=state.JUDGES_KEY_VALUE.name).value == ""  # emptied once used
    assert "keeps it in memory until it stops" in _texts(at)
    assert KEY not in _texts(at)
    assert not (tmp_path / ".env").exists()  # not asked to remember it

    at.button(key=state.JUDGES_TEST.name).click().run()
    assert at.success[-1].value.startswith("Connected"), _texts(at)
    assert fake_judge.last_request is not None
    assert fake_judge.last_request.headers["authorization"] == f"Bearer {KEY}"

    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    database = studio_db.url.database
    for path in (database, f"{database}-wal"):
        if os.path.exists(path):
            assert KEY.encode() not in Path(path).read_bytes()
    with read_session(studio_db) as session:  # what an export of the judge would hold
        saved = judge_profile_dict(get_judge_profile(session, name="pasted"))
    assert saved["api_key_env"] == KEY_ENV
    assert KEY not in json.dumps(saved)


def test_remembering_writes_a_private_env_file(studio_db, open_page, no_key, tmp_path):
    (tmp_path / ".env").write_text("OTHER=1\n# a note\n", encoding="utf-8")
    (tmp_path / ".env").chmod(0o644)
    at = open_page("judges")
    at.text_input(key=state.JUDGES_KEY_ENV.name).input(KEY_ENV).run()
    _paste(at, KEY, remember=True)
    assert not at.exception
    env_file = tmp_path / ".env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert env_file.read_text(encoding="utf-8") == f"OTHER=1\n# a note\n{KEY_ENV}='{KEY}'\n"
    assert "also remembered in" in _texts(at)
    assert KEY not in _texts(at)


def test_remember_key_creates_0600_and_updates_in_place(tmp_path):
    path = tmp_path / ".env"
    remember_key(path, "A_KEY", "first-value-123")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    remember_key(path, "B_KEY", "other")
    remember_key(path, "A_KEY", "second-value-456")
    assert path.read_text(encoding="utf-8") == "A_KEY='second-value-456'\nB_KEY='other'\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [".env"]  # no temporary file left


@pytest.mark.parametrize(
    ("env", "key", "says"),
    [
        ("", "sk-1234567890", "Write where the key is kept first"),
        ("OPENAI API KEY", "sk-1234567890", "cannot be a variable name"),
        ("OPENAI_API_KEY", "  ", "Paste the key"),
        ("OPENAI_API_KEY", "sk-12\n34", "line break"),
    ],
)
def test_unusable_names_and_keys_are_said_in_words(env, key, says, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(PastedKeyError, match=says):
        use_key(env, key, remember=True, folder=tmp_path)
    assert "OPENAI_API_KEY" not in os.environ
    assert not (tmp_path / ".env").exists()
