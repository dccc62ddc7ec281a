"""Ids made from names: one function for the builder's new scorer and the scorers page."""

from __future__ import annotations

import re

from scorer_runtime.ids import id_from_name


def test_an_id_keeps_letters_digits_and_joins_the_rest_with_dashes():
    assert id_from_name("Tone check (v2)") == "tone-check-v2"
    assert id_from_name("Tone & politeness") == "tone-politeness"
    assert id_from_name("  my_scorer.v2  ") == "my_scorer.v2"
    assert id_from_name("x" * 150) == "x" * 100


def test_an_empty_id_gets_a_fresh_one_only_when_asked():
    assert id_from_name("!!!") == ""
    made = id_from_name("!!!", fallback_prefix="scorer")
    assert re.fullmatch(r"scorer-[0-9a-f]{6}", made)
    assert id_from_name("!!!", fallback_prefix="scorer") != made
