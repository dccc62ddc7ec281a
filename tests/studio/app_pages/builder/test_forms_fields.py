"""The answer-fields editor ("What the judge answers"): its rows as the judge's answer schema.

Rows come from ``st.data_editor`` as pandas gives them: a cell never filled in is NaN (or
None), never a value the person typed.
"""

from __future__ import annotations

import pandas as pd

from studio.app_pages.builder.forms import answer_schema_from_rows

COLUMNS = ["name", "kind", "description", "choices", "required"]


def _edited(*added: dict) -> list[dict]:
    """The editor's records after rows were added with only some cells filled in."""
    frame = pd.DataFrame(
        [{"name": "verdict", "kind": "one of", "description": "", "choices": "yes, no",
          "required": True}],
        columns=COLUMNS,
    )  # fmt: skip
    return pd.concat([frame, pd.DataFrame(list(added))], ignore_index=True).to_dict("records")


def test_a_name_typed_before_its_kind_is_a_required_text_field_with_no_description():
    schema = answer_schema_from_rows(_edited({"name": "solved"}))
    assert schema == {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["yes", "no"]},
            "solved": {"type": "string"},
        },
        "required": ["verdict", "solved"],
    }
    assert "nan" not in str(schema)


def test_blank_cells_stay_blank_and_a_row_without_a_name_is_left_out():
    rows = _edited({"kind": "number", "description": "ignored"}, {"name": " polite ", "kind": None})
    schema = answer_schema_from_rows(rows)
    assert list(schema["properties"]) == ["verdict", "polite"]
    assert schema["properties"]["polite"] == {"type": "string"}
    assert schema["required"] == ["verdict", "polite"]


def test_an_unticked_required_box_and_typed_values_are_kept():
    rows = _edited(
        {"name": "score", "kind": "number", "description": "0 to 1", "required": False},
        {"name": "tone", "kind": "one of", "choices": "kind, rude", "description": float("nan")},
    )
    schema = answer_schema_from_rows(rows)
    assert schema["properties"]["score"] == {"type": "number", "description": "0 to 1"}
    assert schema["properties"]["tone"] == {"type": "string", "enum": ["kind", "rude"]}
    assert schema["required"] == ["verdict", "tone"]
