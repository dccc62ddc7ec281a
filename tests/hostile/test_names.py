"""Names that look alike or hide what they hold: a Cyrillic "p" in "judge-p1", a zero-width
space, a trailing space, a right-to-left override, a line break, "../../etc/x" and terminal
codes. Each is refused when a scorer, dataset or judge is named, in words naming the
character and where it is, from the command line and the studio; a name that reads like a
saved one is refused too; the same name typed in two Unicode forms is one name."""

from __future__ import annotations

import unicodedata

import pytest
from sqlmodel import select

from scorer_runtime.names import _AS_LATIN, look_alike, name_problem, normal_name, script_of
from scorer_runtime.store import (
    create_dataset,
    list_datasets,
    list_judge_profiles,
    list_scorers,
    make_engine,
    read_session,
    save_judge_profile,
    session_scope,
)
from scorer_runtime.store.tables import DatasetRecord
from studio import state
from tests.cli.helpers import cli, verdict_spec, write_examples, write_spec
from tests.store.fixtures import db_url
from tests.studio.conftest import open_page, studio_db

__all__ = ["db_url", "open_page", "studio_db"]  # fixtures of the tests below

HOSTILE_NAMES = {
    "judge-\u0440" + "1": "mixes Cyrillic letters with Latin ones: '\u0440' (Cyrillic, U+0440) "
    "after 'judge-' looks like a Latin letter",
    "judge-\u200bp1": "holds a zero-width space (U+200B) after 'judge-'",
    "judge-p1 ": "ends with a space",
    " judge-p1": "starts with a space",
    "judge-\u202ep1": "holds a right-to-left override (U+202E) after 'judge-'",
    "judge\np1": "holds a line break (U+000A) after 'judge'",
    "../../etc/x": "holds a slash (/) after '..'; a name is not a path",
    "judge\\p1": "holds a backslash (\\) after 'judge'",
    "\x1b[31mjudge": "holds an escape character (U+001B) at the start",
    "judge\u00a0p1": "holds a no-break space (U+00A0) after 'judge'",
    "judge-p1\u2066": "holds a left-to-right isolate (U+2066) after 'judge-p1'",
    "\u03a4one": "mixes Greek letters with Latin ones: '\u03a4' (Greek, U+03A4) at the start",
    "..": "cannot be only dots",
}


@pytest.mark.parametrize("name", list(HOSTILE_NAMES), ids=ascii)
def test_each_hostile_name_is_refused_naming_the_character(name):
    assert HOSTILE_NAMES[name] in (name_problem(name, what="name") or "")


@pytest.mark.parametrize(
    "name",
    [
        "judge-p1",
        "café",
        "Привет-мир",
        "Καλημέρα",
        "日本語テスト",
        "東京-tokyo",
        "한국어-v2",
        "مرحبا-v1",
    ],
)
def test_names_in_one_alphabet_or_a_usual_mix_are_fine(name):
    assert name_problem(name) is None


def test_look_alikes_in_another_alphabet_or_letter_form_are_found():
    saved = ["judge-p1", "poe", "filter", "tone"]
    assert look_alike("\uff4audge-p1", saved) == "judge-p1"  # a full-width "j"
    assert look_alike("\u0440\u043e\u0435", saved) == "poe"  # all three letters Cyrillic
    assert look_alike("\ufb01lter", saved) == "filter"  # the ligature "fi"
    assert look_alike("Tone", saved) is None  # another case is another name
    assert look_alike("judge-p2", saved) is None
    assert look_alike("judge-p1", saved) is None  # the same name is no look-alike


def test_the_look_alike_table_maps_cyrillic_and_greek_letters_to_latin_ones():
    table = {chr(k): chr(v) for k, v in _AS_LATIN.items() if isinstance(v, int)}
    assert len(table) == len(_AS_LATIN) == 52
    for char, latin in table.items():
        assert script_of(char) in ("CYRILLIC", "GREEK"), unicodedata.name(char)
        assert latin.isascii()
        assert latin.isalpha()
        # capitals stand for capitals, small letters for small ones (palochka aside)
        if char not in "\u04c0":
            assert char.isupper() == latin.isupper(), unicodedata.name(char)


def test_names_are_one_name_in_either_unicode_form():
    assert normal_name("cafe\u0301") == "café"
    assert name_problem("cafe\u0301") is None


# -- the command line ---------------------------------------------------------------------------


def _said(result) -> str:
    return " ".join(result.output.split())


def _scorer_names(url: str) -> list[str]:
    engine = make_engine(url)
    try:
        with read_session(engine) as session:
            return [s.name for s in list_scorers(session, include_archived=True)]
    finally:
        engine.dispose()


@pytest.mark.parametrize("name", list(HOSTILE_NAMES), ids=ascii)
def test_scorers_import_refuses_a_hostile_name(db_url, tmp_path, name):
    spec = write_spec(tmp_path, verdict_spec())
    done = cli(db_url, "scorers", "import", str(spec), "--name", name)
    assert done.exit_code == 2
    said = _said(done)
    assert said.startswith("error: the scorer's name ")
    # what the terminal shows: the character as its code, never obeyed
    assert HOSTILE_NAMES[name].replace("\x1b", "\\x1b").split(" after ")[0] in said
    assert "Traceback" not in done.output
    assert _scorer_names(db_url) == []


def test_three_names_that_read_judge_p1_make_one_scorer(db_url, tmp_path):
    spec = write_spec(tmp_path, verdict_spec())
    assert cli(db_url, "scorers", "import", str(spec), "--name", "judge-p1").exit_code == 0
    for twin in ("judge-\u0440" + "1", "judge-p1\u200b", "\uff4audge-p1"):
        done = cli(db_url, "scorers", "import", str(spec), "--name", twin)
        assert done.exit_code == 2, twin
    full_width = _said(cli(db_url, "scorers", "import", str(spec), "--name", "\uff4audge-p1"))
    assert "reads the same as the scorer 'judge-p1' already saved" in full_width
    assert _scorer_names(db_url) == ["judge-p1"]
    listed = cli(db_url, "scorers", "list").output
    assert listed.count("judge-p1") == 1


def test_a_copy_and_a_dataset_are_refused_a_hostile_name(db_url, tmp_path):
    spec = write_spec(tmp_path, verdict_spec())
    assert cli(db_url, "scorers", "import", str(spec)).exit_code == 0
    copy = cli(db_url, "scorers", "duplicate", "verdict", "verdict\u200bcopy")
    assert copy.exit_code == 2
    assert "holds a zero-width space (U+200B) after 'verdict'" in _said(copy)
    examples = write_examples(tmp_path, ["fine"])
    named = cli(db_url, "datasets", "import", str(examples), "--name", "answers\u202eevil")
    assert named.exit_code == 2
    assert "the dataset's name holds a right-to-left override (U+202E)" in _said(named)
    assert cli(db_url, "datasets", "import", str(examples), "--name", "poe").exit_code == 0
    cyrillic = cli(db_url, "datasets", "import", str(examples), "--name", "\u0440\u043e\u0435")
    assert cyrillic.exit_code == 2
    assert "reads the same as the dataset 'poe' already saved" in _said(cyrillic)


def test_a_name_typed_in_another_unicode_form_finds_the_same_dataset(db_url, tmp_path):
    examples = write_examples(tmp_path, ["fine"])
    assert cli(db_url, "datasets", "import", str(examples), "--name", "café").exit_code == 0
    again = cli(db_url, "datasets", "import", str(examples), "--name", "cafe\u0301")
    assert "already stored in dataset café" in _said(again)  # the same dataset, not a twin
    out = tmp_path / "out.jsonl"
    assert cli(db_url, "datasets", "export", "cafe\u0301", str(out)).exit_code == 0
    assert out.read_text().count("\n") == 1


# -- the studio -----------------------------------------------------------------------------------


def _page_words(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    return " ".join(" ".join(str(p).split()) for p in parts)


def _datasets(engine) -> list[str]:
    with read_session(engine) as session:
        return sorted(d.name for d in list_datasets(session, include_archived=True))


def test_the_examples_page_refuses_look_alike_and_hidden_characters(studio_db, open_page):
    with session_scope(studio_db) as session:
        create_dataset(session, name="judge-p1")
    at = open_page("examples")
    for name, words in (
        ("judge-\u0440" + "1", "mixes Cyrillic letters with Latin ones"),
        ("judge\u200b-p1", "holds a zero-width space (U+200B) after 'judge'"),
        ("\uff4audge-p1", "reads the same as the dataset 'judge-p1' already saved"),
    ):
        at.text_input(key=state.EXAMPLES_NEW_NAME.name).input(name).run()
        at.button(key=state.EXAMPLES_NEW_CREATE.name).click().run()
        assert not at.exception
        assert words in _page_words(at)
    assert _datasets(studio_db) == ["judge-p1"]


def test_the_examples_page_refuses_a_rename_to_a_look_alike(studio_db, open_page):
    with session_scope(studio_db) as session:
        create_dataset(session, name="poe")
        other = create_dataset(session, name="other")
    at = open_page("examples")
    at.selectbox(key=state.EXAMPLES_DATASET.name).set_value(other.id).run()
    at.session_state[state.EXAMPLES_TAB.name] = "Settings"
    at.run()
    at.text_input(key=state.EXAMPLES_RENAME.child(other.id).name).input("\u0440\u043e\u0435").run()
    at.button(key=state.EXAMPLES_RENAME_SAVE.name).click().run()
    assert not at.exception
    assert "reads the same as the dataset 'poe' already saved" in _page_words(at)
    with read_session(studio_db) as session:
        names = session.exec(select(DatasetRecord.name)).all()
    assert sorted(names) == ["other", "poe"]


def test_the_judges_page_refuses_a_hidden_character(studio_db, open_page):
    with session_scope(studio_db) as session:
        save_judge_profile(session, name="strict", model="openai/gpt-4o-mini")
    at = open_page("judges")
    at.selectbox(key=state.JUDGES_PICK.name).set_value("").run()  # a new judge
    at.text_input(key=state.JUDGES_NAME.name).input("str\u200bict").run()
    at.text_input(key=state.JUDGES_MODEL.name).input("openai/gpt-4o-mini").run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    assert "The judge's name holds a zero-width space (U+200B) after 'str'" in _page_words(at)
    with read_session(studio_db) as session:
        assert [p.name for p in list_judge_profiles(session)] == ["strict"]
