"""The limits themselves: their words, and the README listing every one of them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from scorer_runtime import limits, safe_json
from scorer_runtime.spec import SpecError, load_spec

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize(
    ("size", "words"),
    [
        (300, "300 bytes"),
        (64 * 1024, "64 KB"),
        (10 * 1024 * 1024, "10 MB"),
        (1536 * 1024, "1.5 MB"),
        (100 * 1024 - 1, "100.0 KB"),
    ],
)
def test_sizes_read_as_people_write_them(size, words):
    assert limits.size_words(size) == words


def test_the_readme_lists_every_limit():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Reliability") :]
    section = section[: section.index("\n## ", 1)]
    assert "Limits on files" in section
    for words in ("1 MB", "64 KB", "256 KB", "16 KB", "64 deep", "128", "100 steps", "50,000"):
        assert words in section, words
    assert str(limits.MAX_NESTING) in section
    assert str(limits.MAX_PROBLEMS_SHOWN) in section


def test_depth_is_measured_without_parsing_and_ignores_brackets_in_text():
    assert safe_json.nesting_offset('["[[[[[[", {"a": "]]]]"}]', 2) is None
    text = "[" * 100_000 + "]" * 100_000
    started = time.process_time()
    assert safe_json.nesting_offset(text, 64) == 64
    assert time.process_time() - started < 1.0


def test_an_alias_bomb_is_refused_before_it_expands():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 11)}]" for i in range(1, 10)]
    text = "\n".join(lines) + "\nid: bomb\ndescription: boom\nsteps: []\n"
    started = time.process_time()
    with pytest.raises(SpecError) as caught:
        load_spec(text)
    assert time.process_time() - started < 1.0
    assert "(line 1)" in str(caught.value)
    assert "anchor" in str(caught.value)


def test_a_spec_without_anchors_still_loads_from_yaml_with_its_types():
    text = (
        "id: plain\ndescription: 'Plain: yes'\nsteps:\n"
        "  - step: generate_score\n    formula: '1.0'\n"
    )
    spec = load_spec(text)
    assert (spec.id, spec.description, len(spec.steps)) == ("plain", "Plain: yes", 1)
