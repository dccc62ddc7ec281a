"""The scorers page: list and search, open in the builder, duplicate, archive, versions."""

from __future__ import annotations

from scorer_runtime.spec import load_spec
from scorer_runtime.spec.export import spec_data
from scorer_runtime.store import (
    get_scorer,
    latest_version,
    read_session,
    save_scorer_version,
    session_scope,
)
from studio import state


def _names(at) -> list[str]:
    """The scorer names of the cards shown, in order."""
    return [c.value.split("`")[1] for c in at.caption if c.value.startswith("`")]


def _scorer_id(engine, name: str) -> int:
    with read_session(engine) as session:
        return get_scorer(session, name=name).id


def test_empty_page_explains_and_loads_the_demo_scorers(studio_db, demo_scorers, open_page):
    at = open_page("scorers")
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "A *scorer* judges one answer" in text
    at.button(key=state.SCORERS_EMPTY_DEMO.name).click().run()
    assert not at.exception
    assert _names(at) == demo_scorers
    assert any(f"Loaded {len(demo_scorers)} demo scorers" in t.value for t in at.toast)


def test_build_your_first_scorer_goes_to_the_builder(studio_db, open_page):
    at = open_page("scorers")
    at.button(key=state.SCORERS_EMPTY_BUILD.name).click().run()
    assert not at.exception
    assert at.session_state["builder.scorer_id"] is None
    assert not any(t.value == "Scorers" for t in at.title)


def test_search_in_the_database_by_name_and_description(demo_db, demo_scorers, open_page):
    at = open_page("scorers")
    assert _names(at) == demo_scorers
    at.text_input(key=state.SCORERS_SEARCH.name).input("tool order").run()
    assert _names(at) == ["tool-call-accuracy"]  # both words in its description
    assert "1 scorer matches “tool order”." in [c.value for c in at.caption]
    at.text_input(key=state.SCORERS_SEARCH.name).input("100%_nothing").run()
    assert _names(at) == []
    assert any("No scorer matches" in i.value for i in at.info)


def test_card_shows_versions_note_and_last_run(demo_db, open_page):
    at = open_page("scorers")
    at.text_input(key=state.SCORERS_SEARCH.name).input("tone-politeness").run()
    text = " ".join(m.value for m in at.markdown)
    assert "1 version · latest is version 1" in text
    assert "“demo scorer”" in text
    assert "Never run on a dataset yet." in text


def test_open_in_the_builder_sets_the_scorer(demo_db, open_page):
    sid = _scorer_id(demo_db, "conciseness")
    at = open_page("scorers")
    at.button(key=state.SCORERS_OPEN.child(sid).name).click().run()
    assert not at.exception
    assert at.session_state["builder.scorer_id"] == sid
    assert at.session_state[state.CURRENT_SCORER_ID.name] == sid  # other pages open on it


def test_export_makes_the_scorer_the_current_one(demo_db, open_page):
    sid = _scorer_id(demo_db, "conciseness")
    at = open_page("scorers")
    at.button(key=state.SCORERS_EXPORT.child(sid).name).click().run()
    assert not at.exception
    assert at.session_state[state.CURRENT_SCORER_ID.name] == sid


def test_duplicate_asks_for_a_valid_free_name(demo_db, open_page):
    sid = _scorer_id(demo_db, "tone-politeness")
    at = open_page("scorers")
    at.button(key=state.SCORERS_DUPLICATE.child(sid).name).click().run()
    name = at.text_input(key=state.SCORERS_COPY_NAME.child(sid).name)
    assert name.value == "tone-politeness-copy"
    name.input("strict tone!").run()
    assert at.button(key=state.SCORERS_COPY_YES.child(sid).name).disabled
    assert any("Use letters, digits" in c.value for c in at.caption)
    at.text_input(key=state.SCORERS_COPY_NAME.child(sid).name).input("conciseness").run()
    assert any("already exists" in c.value for c in at.caption)
    at.text_input(key=state.SCORERS_COPY_NAME.child(sid).name).input("tone-strict").run()
    at.button(key=state.SCORERS_COPY_YES.child(sid).name).click().run()
    assert not at.exception
    with read_session(demo_db) as session:
        copy_ = get_scorer(session, name="tone-strict")
        version = latest_version(session, scorer_id=copy_.id)
        assert version.spec.id == "tone-strict"
        assert version.note == "copy of tone-politeness"
    assert "tone-strict" in _names(at)


def test_archive_asks_first_and_keeps_everything(demo_db, demo_scorers, open_page):
    sid = _scorer_id(demo_db, "json-format")
    at = open_page("scorers")
    at.button(key=state.SCORERS_ARCHIVE.child(sid).name).click().run()
    warning = " ".join(w.value for w in at.warning)
    assert "Nothing is deleted" in warning
    assert "1 version" in warning
    assert "0 stored scores" in warning
    with read_session(demo_db) as session:
        assert get_scorer(session, id=sid).archived_at is None  # not before the confirmation
    at.button(key=state.SCORERS_ARCHIVE_NO.child(sid).name).click().run()
    assert not at.warning
    at.button(key=state.SCORERS_ARCHIVE.child(sid).name).click().run()
    at.button(key=state.SCORERS_ARCHIVE_YES.child(sid).name).click().run()
    assert not at.exception
    with read_session(demo_db) as session:
        assert get_scorer(session, id=sid).archived_at is not None
    assert "json-format" not in _names(at)
    assert len(_names(at)) == len(demo_scorers) - 1
    at.checkbox(key=state.SCORERS_SHOW_ARCHIVED.name).check().run()
    assert "json-format" in _names(at)
    at.button(key=state.SCORERS_RESTORE.child(sid).name).click().run()
    with read_session(demo_db) as session:
        assert get_scorer(session, id=sid).archived_at is None


def test_versions_and_a_readable_diff(demo_db, open_page):
    with session_scope(demo_db) as session:
        scorer = get_scorer(session, name="tone-politeness")
        spec = spec_data(latest_version(session, scorer_id=scorer.id).spec)
        spec["judge"]["temperature"] = 0.5
        spec["steps"][0]["template"] = spec["steps"][0]["template"].replace(
            "Label the tone", "Grade the tone"
        )
        del spec["steps"][2]  # no explanation step any more
        save_scorer_version(session, spec=load_spec(spec), note="stricter wording")
        sid = scorer.id
    at = open_page("scorers")
    at.button(key=state.SCORERS_VERSIONS.child(sid).name).click().run()
    assert not at.exception
    table = next(df.value for df in at.dataframe if "Version" in df.value.columns)
    assert list(table["Version"]) == [2, 1]
    assert list(table["Note"]) == ["stricter wording", "demo scorer"]
    changes = [m.value for m in at.markdown if "**" in m.value and " — " in m.value]
    assert any("Judge › temperature** — Changed: 0.0 → 0.5" in c for c in changes)
    assert any("Analysis step › prompt** — Changed (see the lines below)" in c for c in changes)
    assert any("Explanation step** — Removed: formula step2.verdict" in c for c in changes)
    diffs = [c.value for c in at.code if c.language == "diff"]
    assert any("-Label the tone" in d and "+Grade the tone" in d for d in diffs)
    at.selectbox(key=state.SCORERS_DIFF_FROM.child(sid).name).select(2).run()
    assert any("are the same" in s.value for s in at.success)


def test_the_list_pages_in_the_database(studio_db, open_page):
    with session_scope(studio_db) as session:
        for n in range(25):
            spec = {
                "id": f"s{n:02d}",
                "description": "d",
                "steps": [{"step": "generate_score", "formula": "1"}],
            }
            save_scorer_version(session, spec=load_spec(spec))
    at = open_page("scorers")
    assert _names(at)[0] == "s00"
    assert len(_names(at)) == 20
    assert any("Page 1 of 2" in c.value for c in at.caption)
    at.button(key=state.SCORERS_NEXT.name).click().run()
    assert _names(at) == ["s20", "s21", "s22", "s23", "s24"]
    at.button(key=state.SCORERS_PREV.name).click().run()
    assert len(_names(at)) == 20


def test_everything_archived_says_where_the_scorers_are(studio_db, open_page):
    from scorer_runtime.store import archive_scorer

    with session_scope(studio_db) as session:
        version = save_scorer_version(
            session,
            spec=load_spec(
                {
                    "id": "old",
                    "description": "d",
                    "steps": [{"step": "generate_score", "formula": "1"}],
                }
            ),
        )
        archive_scorer(session, scorer_id=version.scorer_id)
    at = open_page("scorers")
    assert any("1 archived scorer is hidden" in i.value for i in at.info)
    at.checkbox(key=state.SCORERS_SHOW_ARCHIVED.name).check().run()
    assert _names(at) == ["old"]
