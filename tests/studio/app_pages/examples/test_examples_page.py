"""The Examples page, driven like a person would: empty state, demo data, import, the grid,
paging, renaming and archiving. Assertions check the page and the database."""

from __future__ import annotations

from sqlmodel import select

from scorer_runtime.store import (
    ExampleData,
    add_examples,
    create_dataset,
    list_examples,
    read_session,
    session_scope,
)
from scorer_runtime.store.tables import DatasetRecord
from studio import state

CSV = "question,answer,expected\nWhat is 2+2?,4,4\nCapital of France?,,Paris\nSay hi,hello,\n"


def _datasets(engine) -> dict[str, DatasetRecord]:
    with read_session(engine) as session:
        return {d.name: d for d in session.exec(select(DatasetRecord)).all()}


def _outputs(engine, dataset_id: int) -> list:
    with read_session(engine) as session:
        return [e.output for e in list_examples(session, dataset_id=dataset_id, limit=1000)]


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    return "\n".join(str(p) for p in parts)


def _dataset(engine, name: str, count: int) -> int:
    with session_scope(engine) as session:
        dataset = create_dataset(session, name=name)
        examples = [ExampleData(input=f"q{i}", output=f"a{i}") for i in range(count)]
        add_examples(session, dataset_id=dataset.id, examples=examples)
        return int(dataset.id)


def test_the_empty_page_teaches_and_loads_the_demo_datasets(studio_db, open_page):
    at = open_page("examples")
    assert "An example is one answer to judge" in _texts(at)
    at.button(key=state.EXAMPLES_LOAD_DEMO.name).click().run()
    assert not at.exception
    assert set(_datasets(studio_db)) == {"agent_tool_runs", "customer_support", "rag_answers"}
    assert "Loaded the demo datasets" in at.toast[0].value
    options = at.selectbox(key=state.EXAMPLES_DATASET.name).options
    assert any(o.startswith("customer_support (") and o.endswith(" examples)") for o in options)


def test_choose_another_dataset(studio_db, open_page):
    _dataset(studio_db, "a", 2)
    other = _dataset(studio_db, "b", 1)
    at = open_page("examples")
    assert at.data_editor[0].value["output"].tolist() == ["a0", "a1"]
    at.selectbox(key=state.EXAMPLES_DATASET.name).set_value(other).run()
    assert at.data_editor[0].value["output"].tolist() == ["a0"]
    assert at.selectbox(key=state.EXAMPLES_DATASET.name).value == other
    at.run()  # a later rerun keeps the choice
    assert at.selectbox(key=state.EXAMPLES_DATASET.name).value == other


def test_import_a_csv_with_mapped_columns_skipping_a_bad_row(studio_db, open_page):
    at = open_page("examples")
    at.button(key=state.EXAMPLES_EMPTY_IMPORT.name).click().run()
    at.file_uploader(key=_uploader()).upload("quiz.csv", CSV.encode(), "text/csv")
    at.run()
    assert not at.exception
    # The columns were recognised, and the bad row is named with its line before importing.
    assert at.selectbox(key=state.EXAMPLES_MAP.child("input").name).value == "question"
    assert at.selectbox(key=state.EXAMPLES_MAP.child("output").name).value == "answer"
    assert at.selectbox(key=state.EXAMPLES_MAP.child("ground_truth").name).value == "expected"
    assert 'line 3: column "answer" (output) is empty' in _texts(at)
    assert at.text_input(key=state.EXAMPLES_IMPORT_NAME.name).value == "quiz"

    at.button(key=state.EXAMPLES_IMPORT_GO.name).click().run()  # all or nothing (the default)
    assert "Nothing was imported from quiz.csv" in _texts(at)
    assert _datasets(studio_db) == {}

    at.radio(key=state.EXAMPLES_IMPORT_MODE.name).set_value("skip").run()
    assert at.button(key=state.EXAMPLES_IMPORT_GO.name).label == "Import 2 examples"
    at.button(key=state.EXAMPLES_IMPORT_GO.name).click().run()
    assert not at.exception
    quiz = _datasets(studio_db)["quiz"]
    assert _outputs(studio_db, quiz.id) == ["4", "hello"]
    text = _texts(at)
    assert "Imported 2 examples from quiz.csv" in text
    assert "line 3" in text


def test_import_adds_rows_to_the_chosen_dataset(studio_db, open_page):
    dataset_id = _dataset(studio_db, "qa", 2)
    at = open_page("examples")
    at.session_state[state.EXAMPLES_TAB.name] = "Import a file"
    at.run()
    at.file_uploader(key=_uploader()).upload(
        "more.jsonl", b'{"input": "q9", "output": "a9"}\n', "application/jsonl"
    )
    at.run()
    at.radio(key=state.EXAMPLES_IMPORT_TARGET.name).set_value("append").run()
    at.button(key=state.EXAMPLES_IMPORT_GO.name).click().run()
    assert not at.exception
    assert _outputs(studio_db, dataset_id) == ["a0", "a1", "a9"]


def _uploader(generation: int = 0) -> str:
    return state.EXAMPLES_IMPORT_UPLOAD.child(generation).name


def test_an_imported_file_leaves_the_screen_and_imported_again_adds_nothing(studio_db, open_page):
    dataset_id = _dataset(studio_db, "qa", 2)
    at = open_page("examples")
    at.session_state[state.EXAMPLES_TAB.name] = "Import a file"
    at.run()
    more = b'{"input": "q9", "output": "a9"}\n{"input": "q0", "output": "a0"}\n'
    at.file_uploader(key=_uploader()).upload("more.jsonl", more, "application/jsonl").run()
    at.radio(key=state.EXAMPLES_IMPORT_TARGET.name).set_value("append").run()
    at.button(key=state.EXAMPLES_IMPORT_GO.name).click().run()
    assert not at.exception
    assert _outputs(studio_db, dataset_id) == ["a0", "a1", "a9"]  # q0/a0 was stored
    assert (
        "Imported 1 example from more.jsonl into dataset qa: 1 new, 1 already stored "
        "(not added again)." in _texts(at)
    )
    # The file is gone from the uploader, and with it the Import button.
    assert at.file_uploader(key=_uploader(1)).value is None
    assert not [b for b in at.button if b.key == state.EXAMPLES_IMPORT_GO.name]

    at.file_uploader(key=_uploader(1)).upload("more.jsonl", more, "application/jsonl").run()
    at.radio(key=state.EXAMPLES_IMPORT_TARGET.name).set_value("append").run()
    at.button(key=state.EXAMPLES_IMPORT_GO.name).click().run()
    assert not at.exception
    assert _outputs(studio_db, dataset_id) == ["a0", "a1", "a9"]
    assert (
        "Nothing added from more.jsonl: its 2 examples are already stored in dataset qa."
        in _texts(at)
    )


def test_create_a_dataset(studio_db, open_page):
    _dataset(studio_db, "qa", 1)
    at = open_page("examples")
    at.text_input(key=state.EXAMPLES_NEW_NAME.name).input("june answers").run()
    at.text_area(key=state.EXAMPLES_NEW_DESCRIPTION.name).input("Sampled in June").run()
    at.button(key=state.EXAMPLES_NEW_CREATE.name).click().run()
    assert not at.exception
    created = _datasets(studio_db)["june answers"]
    assert created.description == "Sampled in June"
    assert at.selectbox(key=state.EXAMPLES_DATASET.name).value == created.id
    at.text_input(key=state.EXAMPLES_NEW_NAME.name).input("qa").run()
    at.button(key=state.EXAMPLES_NEW_CREATE.name).click().run()
    assert "A dataset named 'qa' already exists" in _texts(at)


def _edit(at, edits: dict) -> None:
    key = at.data_editor[0].key
    at.session_state[key] = {"edited_rows": {}, "added_rows": [], "deleted_rows": [], **edits}
    at.run()


def test_edit_add_and_delete_rows_in_the_grid(studio_db, open_page):
    dataset_id = _dataset(studio_db, "qa", 3)
    at = open_page("examples")
    assert at.data_editor[0].value["input"].tolist() == ["q0", "q1", "q2"]
    _edit(
        at,
        {
            "edited_rows": {0: {"output": "better", "tags": "billing, urgent"}},
            "added_rows": [{"input": "new", "output": "fresh"}],
            "deleted_rows": [1],
        },
    )
    at.button(key=state.EXAMPLES_SAVE.name).click().run()
    assert not at.exception
    assert _outputs(studio_db, dataset_id) == ["better", "a2", "fresh"]
    assert at.toast[0].value == "Saved: 1 changed, 1 added, 1 deleted."
    # The editor starts clean on the saved data.
    assert at.data_editor[0].value["output"].tolist() == ["better", "a2", "fresh"]
    # Saving again writes nothing more.
    at.button(key=state.EXAMPLES_SAVE.name).click().run()
    assert _outputs(studio_db, dataset_id) == ["better", "a2", "fresh"]
    assert "Nothing to save" in at.toast[0].value


def test_rows_are_numbered_from_one_with_blank_cells_and_ids_hidden(studio_db, open_page):
    dataset_id = _dataset(studio_db, "qa", 3)
    with session_scope(studio_db) as session:  # ids far from 1..n, as after deletions
        add_examples(session, dataset_id=dataset_id, examples=[ExampleData(output="no input")])
    at = open_page("examples")
    table = at.data_editor[0].value
    assert table.index.tolist() == [1, 2, 3, 4]
    assert "id" not in table.columns
    assert table["input"].tolist() == ["q0", "q1", "q2", ""]
    assert table.map(lambda v: v is None or v != v).sum().sum() == 0, "no missing cells"
    assert at.data_editor[0].proto.placeholder == ""


def test_saving_new_rows_twice_stores_them_once_and_counts_refresh(studio_db, open_page):
    _dataset(studio_db, "other", 2)
    at = open_page("examples")
    at.text_input(key=state.EXAMPLES_NEW_NAME.name).input("fresh").run()
    at.button(key=state.EXAMPLES_NEW_CREATE.name).click().run()
    created = _datasets(studio_db)["fresh"]
    assert at.session_state[state.EXAMPLES_NEW.name] is False, "the popover closes"
    picker = at.selectbox(key=state.EXAMPLES_DATASET.name)
    assert picker.value == created.id
    assert "fresh (0 examples)" in picker.options
    rows = [{"input": f"q{i}", "output": f"a{i}", "ground_truth": f"e{i}"} for i in range(5)]
    _edit(at, {"added_rows": rows})
    first_key = at.data_editor[0].key
    at.button(key=state.EXAMPLES_SAVE.name).click().run()
    assert at.toast[0].value == "Saved: 5 added."
    # The browser may still hold the old editor's edits: sent again, they are not saved.
    at.session_state[first_key] = {"edited_rows": {}, "added_rows": rows, "deleted_rows": []}
    at.button(key=state.EXAMPLES_SAVE.name).click().run()
    assert not at.exception
    assert _outputs(studio_db, created.id) == [f"a{i}" for i in range(5)]
    picker = at.selectbox(key=state.EXAMPLES_DATASET.name)
    assert picker.value == created.id
    assert "fresh (5 examples)" in picker.options
    assert at.data_editor[0].value.index.tolist() == [1, 2, 3, 4, 5]
    assert "Examples 1–5 of 5" in _texts(at)


def test_a_bad_cell_saves_nothing_and_says_where(studio_db, open_page):
    dataset_id = _dataset(studio_db, "qa", 2)
    at = open_page("examples")
    _edit(at, {"edited_rows": {0: {"output": "ok"}, 1: {"request_context": "{oops"}}})
    at.button(key=state.EXAMPLES_SAVE.name).click().run()
    assert not at.exception
    text = _texts(at)
    assert "Nothing was saved: 1 cell needs fixing" in text
    assert "row 2, Request context: is not valid JSON" in text
    assert _outputs(studio_db, dataset_id) == ["a0", "a1"]
    at.button(key=state.EXAMPLES_DISCARD.name).click().run()
    assert "Nothing was saved" not in _texts(at)


def test_large_datasets_are_paged(studio_db, open_page):
    dataset_id = _dataset(studio_db, "big", 120)
    at = open_page("examples")
    assert len(at.data_editor[0].value) == 50
    at.pagination(key=state.EXAMPLES_PAGE.child(dataset_id).name).select(3).run()
    assert not at.exception
    assert at.data_editor[0].value["input"].tolist()[0] == "q100"
    assert "Examples 101–120 of 120" in _texts(at)


def test_rename_then_archive_after_a_question_then_restore(studio_db, open_page):
    dataset_id = _dataset(studio_db, "qa", 4)
    at = open_page("examples")
    at.session_state[state.EXAMPLES_TAB.name] = "Settings"
    at.run()
    at.text_input(key=state.EXAMPLES_RENAME.child(dataset_id).name).input("renamed").run()
    at.button(key=state.EXAMPLES_RENAME_SAVE.name).click().run()
    assert set(_datasets(studio_db)) == {"renamed"}

    at.button(key=state.EXAMPLES_ARCHIVE.name).click().run()
    assert "hides it and its 4 examples" in _texts(at)
    assert _datasets(studio_db)["renamed"].archived_at is None  # only asked so far
    at.button(key=state.EXAMPLES_ARCHIVE_YES.name).click().run()
    assert not at.exception
    assert _datasets(studio_db)["renamed"].archived_at is not None
    assert "There is no dataset to change yet." in _texts(at)
    at.button(key=state.EXAMPLES_RESTORE.child(dataset_id).name).click().run()
    assert _datasets(studio_db)["renamed"].archived_at is None


def test_export_offers_csv_and_jsonl(studio_db, open_page):
    _dataset(studio_db, "qa", 2)
    at = open_page("examples")
    at.session_state[state.EXAMPLES_TAB.name] = "Export"
    at.run()
    assert not at.exception
    keys = {b.key for b in at.download_button}
    assert keys == {state.EXAMPLES_EXPORT_CSV.name, state.EXAMPLES_EXPORT_JSONL.name}
    assert "Download the **2 examples** of **qa**" in _texts(at)
