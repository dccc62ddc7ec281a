"""The Improve tab's words: guidelines as a person types them, and the diff they add."""

from __future__ import annotations

from studio.app_pages.trust.improve_logic import added_instructions, read_lines


def test_typed_guidelines_lose_bullets_and_blank_lines_and_keep_their_order():
    typed = "- Refunds are fine.\n\n  * Rude is bad.  \n• Be brief.\n"
    assert read_lines(typed) == ["Refunds are fine.", "Rude is bad.", "Be brief."]
    assert read_lines("  \n") == []


def test_the_diff_shows_the_heading_and_each_guideline_as_added_lines():
    assert added_instructions(["Refunds are fine."]) == (
        "+ Guidelines from people's grades:\n+ - Refunds are fine."
    )
    assert added_instructions([]) == ""
