"""Patterns are refused before use when they do not compile or could take super-linear time."""

from __future__ import annotations

import pytest

from scorer_runtime.processors import RedactPII
from scorer_runtime.processors.patterns import check_pattern, pattern_problem


@pytest.mark.parametrize(
    ("pattern", "part"),
    [
        ("(a+)+b", "(a+)+"),
        (r"^(\w+\s?)*$", r"(\w+\s?)*"),
        (r"x(?:(?:ab)*c)+", "(?:(?:ab)*c)+"),
        (r"((a|b)+){2,}", "((a|b)+){2,}"),
        (r"id=([a-z]+\[\])*", r"([a-z]+\[\])*"),
    ],
)
def test_nested_unbounded_repeats_are_refused_at_their_place(pattern, part):
    problem = pattern_problem(pattern)
    assert problem is not None
    assert pattern[problem.start : problem.end] == part
    assert "could take very long" in problem.sentence("Rule 'x'", pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        r"T-\d{3,8}",
        r"(\d{3}-)+\d{4}",  # the inner repeat has a limit
        r"(a{1,50})+",
        r"(?:ab)+",
        r"[(+]+(a)",  # brackets and + inside a class are literal
        r"\(a+\)+",  # escaped parentheses are not a group
        r"(?>a+)+",  # an atomic group does not backtrack
        r"(a+)++",  # nor does a possessive repeat
        r"(?i)as an ai language model",
    ],
)
def test_patterns_that_run_in_linear_time_are_accepted(pattern):
    assert pattern_problem(pattern) is None


def test_a_pattern_that_does_not_compile_says_where():
    problem = pattern_problem("ab(c")
    assert problem is not None
    assert problem.start == 2
    with pytest.raises(ValueError, match=r"Rule 'ticket' is not a valid pattern .*character 3"):
        check_pattern("ab(c", "Rule 'ticket'")
    with pytest.raises(ValueError, match="character 1"):
        check_pattern("*a", "Pattern 1")


def test_redaction_can_keep_only_some_built_in_kinds():
    text = "mail jane@example.com, call +44 20 7946 0958"
    assert RedactPII(kinds=["email"]).redact(text) == "mail [REDACTED:email], call +44 20 7946 0958"
    with pytest.raises(ValueError, match="unknown built-in kinds"):
        RedactPII(kinds=["passport"])
