"""The builder's example panel opens on an example that suits the scorer (plain text for a text
scorer, an agent run for an agent scorer), and a step has one number everywhere: the builder's
headings, the evidence of a try and the problems all call Analyse step 2."""

from __future__ import annotations

from scorer_runtime.spec import ScorerDraft, StepDraft
from scorer_runtime.store import add_examples, create_dataset, list_datasets, session_scope
from scorer_runtime.types import STEP_ORDER
from studio import state
from studio.app_pages.builder.logic import STEP_HEADINGS, example_dataset
from studio.app_pages.builder.problems import step_place
from studio.words import step_number

B0 = state.BUILDER_FORM.child(0).name
EXAMPLE = f"{B0}.example"


def test_the_dataset_chosen_suits_the_kind_of_scorer() -> None:
    agent_runs = {1: True, 2: False, 3: None, 4: False}
    assert example_dataset("plain", agent_runs, None) == 2
    assert example_dataset("plain", agent_runs, 4) == 4  # the one open on the Examples page
    assert example_dataset("plain", agent_runs, 1) == 2  # open there, but agent runs
    assert example_dataset("plain", agent_runs, 3) == 2  # open there, but empty
    assert example_dataset("agent", agent_runs, 2) == 1
    assert example_dataset("agent", {2: False, 3: None}, None) is None
    assert example_dataset("plain", {}, None) is None


def _dataset_name(at) -> str:
    box = at.selectbox(key=f"{EXAMPLE}.dataset")
    return str(box.options[box.index])


def _shown_example(at) -> str:
    box = at.selectbox(key=f"{EXAMPLE}.row.{at.selectbox(key=f'{EXAMPLE}.dataset').value}")
    return str(box.options[box.index])


def test_a_text_scorer_opens_on_plain_text_and_an_agent_scorer_on_agent_runs(demo_db, open_page):
    at = open_page("builder")
    assert not at.exception, at.exception
    assert at.radio(key=f"{EXAMPLE}.way").value == "dataset"
    assert _dataset_name(at) in ("customer_support", "rag_answers")
    shown = _shown_example(at)
    assert not shown.startswith(("1. {", "1. [")), shown  # a question, not agent JSON
    at.radio(key=f"{B0}.basics.type").set_value("agent").run()
    assert not at.exception, at.exception
    assert _dataset_name(at) == "agent_tool_runs"
    at.radio(key=f"{B0}.basics.type").set_value("plain").run()
    assert _dataset_name(at) in ("customer_support", "rag_answers")


def test_the_dataset_open_on_the_examples_page_is_kept_when_it_suits(demo_db, open_page):
    with session_scope(demo_db) as session:
        names = {d.name: d.id for d in list_datasets(session)}
    for opened, expected in (("rag_answers", "rag_answers"), ("agent_tool_runs", None)):
        at = open_page("builder")
        at.session_state[state.SELECTED_DATASET_ID.name] = names[opened]
        at.session_state[f"{EXAMPLE}.kind"] = "agent"  # as if the scorer's kind had changed
        at.run()
        assert not at.exception, at.exception
        name = _dataset_name(at)
        assert name == expected if expected else name != opened


def test_with_no_suitable_dataset_the_panel_opens_on_typing_one(studio_db, open_page):
    with session_scope(studio_db) as session:
        dataset = create_dataset(session, name="agent runs only")
        run = [{"role": "assistant", "content": "Done."}]
        add_examples(session, dataset_id=dataset.id, examples=[{"input": "Go", "output": run}])
    at = open_page("builder")
    assert not at.exception, at.exception
    assert at.radio(key=f"{EXAMPLE}.way").value == "typed"
    assert at.text_area(key=f"{EXAMPLE}.output").value == ""


def test_a_step_has_one_number_in_the_builder_the_evidence_and_the_problems(
    studio_db, open_page
) -> None:
    assert [step_number(step) for step in STEP_ORDER] == [1, 2, 3, 4]
    assert STEP_HEADINGS["analyze"].startswith("2. ")
    assert step_place("analyze").startswith("Step 2, ")
    draft = ScorerDraft(
        id="",
        name="Length",
        description="How long is the answer?",
        type="plain",
        judge=None,
        steps=[
            StepDraft(step="analyze", formula="len(output)"),
            StepDraft(step="generate_score", formula="1 if step2 > 3 else 0"),
        ],
    )
    at = open_page("builder")
    at.session_state[state.BUILDER_DRAFT.name] = draft
    at.session_state[f"{B0}.stage"] = "steps"
    at.run()
    assert "2. Analyse (optional)" in [s.value for s in at.subheader]
    at.segmented_control(key=f"{B0}.stage").set_value("try").run()
    at.text_area(key=f"{EXAMPLE}.output").input("A long enough answer.").run()
    at.button(key=f"{B0}.try.run").click().run()
    assert not at.exception, at.exception
    labels = [e.label for e in at.expander]
    assert "2. Analyse" in labels
    assert "3. Score" in labels
    assert not any(label.startswith("1. ") for label in labels)
