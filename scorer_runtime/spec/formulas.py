"""Safe formulas: one small expression that computes a score or a value from a run.

A formula is what a non-programmer types instead of Python, e.g. ``step2.score / 10`` or
``1 if contains(output, 'refund', ignore_case=True) else 0``. It reads the plain-data
context of :func:`scorer_runtime.spec.context.build_context` (``input``, ``output``,
``ground_truth``, ``request_context``, ``step1``…``step3``, ``score``, ``judge_output``,
``extra``); object fields read as attributes or items; it can call only the functions in
:data:`FORMULA_FUNCTIONS` and a few text methods.

It is checked when built (syntax, forbidden constructs, unknown names: all problems at
once) and evaluated by simpleeval's AST walker, never Python's ``eval``, with bounds on
length, nesting, numbers, text size and total work. It is deterministic: no randomness,
no clock, no files, no imports.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.results import NotScorable, plain
from scorer_runtime.spec.context import ContextStep
from scorer_runtime.spec.sandbox.errors import FormulaError, char_column, shorten, where
from scorer_runtime.spec.sandbox.formula_check import (
    MAX_FORMULA_LENGTH,
    MAX_FORMULA_NESTING,
    ParsedFormula,
    Problem,
    parse_formula,
)
from scorer_runtime.spec.sandbox.formula_eval import (
    MAX_FORMULA_STEPS,
    MAX_FORMULA_WORK,
    EvalProblem,
    FormulaEvaluator,
)
from scorer_runtime.spec.sandbox.functions import FORMULA_FUNCTIONS, kind_of
from scorer_runtime.spec.sandbox.help import CONTEXT_VARIABLES
from scorer_runtime.spec.sandbox.limits import (
    MAX_RESULT_SIZE,
    MAX_VALUE_SIZE,
    ValueLimitError,
    check_expanded_size,
)

__all__ = [
    "FORMULA_FUNCTIONS",
    "FORMULA_VARIABLES",
    "MAX_FORMULA_LENGTH",
    "MAX_FORMULA_NESTING",
    "MAX_FORMULA_STEPS",
    "MAX_FORMULA_WORK",
    "MAX_VALUE_SIZE",
    "Formula",
    "FormulaError",
    "check_formula",
    "formula",
]

FORMULA_VARIABLES: list[tuple[str, str]] = list(CONTEXT_VARIABLES)
"""(name, description) of every name a formula can read, for the studio's help panel."""


@dataclass(frozen=True)
class Formula(ContextStep):
    """A checked formula, callable as a step: ``formula(run=, results=, ...)`` gives its value.

    Build it with :func:`formula`. As a step it takes the keyword arguments the runtime
    injects (``run``, ``results``, ``score``, ``judge_output``); :meth:`evaluate` takes a
    ready context instead (the studio's preview). Its ``repr`` is the call that builds it.
    """

    expression: str
    parsed: ParsedFormula = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.expression, str):
            raise FormulaError(
                f"a formula must be text, not {kind_of(self.expression)}",
                expression=str(self.expression),
            )
        parsed, problems = parse_formula(self.expression)
        if parsed is None:
            raise _construction_error(self.expression, problems)
        object.__setattr__(self, "parsed", parsed)

    @property
    def names(self) -> frozenset[str]:
        """The context names the formula reads (e.g. ``{"output", "results"}``)."""
        return self.parsed.names

    def evaluate(self, context: Mapping[str, Any]) -> Any:
        """Evaluate on a context from :func:`build_context`; plain data, or ``NotScorable``.

        Raises :class:`FormulaError` saying which part failed and what to do.
        """
        try:
            value = FormulaEvaluator(self.parsed, context).run()
        except EvalProblem as problem:
            raise self._failure(problem) from problem
        if isinstance(value, NotScorable):
            return value
        if callable(value):
            raise self._failure(EvalProblem("the formula gives a function; call it with (...)"))
        try:
            check_expanded_size(value, MAX_RESULT_SIZE)
        except ValueLimitError as error:
            raise self._failure(EvalProblem(str(error))) from error
        return plain(value)

    def _failure(self, problem: EvalProblem) -> FormulaError:
        parsed, quoted = self.parsed, shorten(self.expression.strip())
        node = problem.node
        line = getattr(node, "lineno", None)
        offset = getattr(node, "col_offset", None)
        if node is None or node is parsed.tree or line is None or offset is None:
            message = f"The formula `{quoted}` failed: {problem.message}"
            return FormulaError(message, expression=self.expression, problems=[problem.message])
        column = char_column(parsed.source, line, offset)
        line -= parsed.line_offset
        part = shorten(ast.get_source_segment(parsed.source, node) or ast.unparse(node), 60)
        place = where(self.expression.strip(), line, column)
        return FormulaError(
            f"The formula `{quoted}` failed at `{part}` ({place}): {problem.message}",
            expression=self.expression,
            problems=[problem.message],
            line=line,
            column=column,
        )

    def __repr__(self) -> str:
        return f"formula({self.expression!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Rebuilt from its text (e.g. when sent to a worker process), checked again.
        return (formula, (self.expression,))


def formula(expression: str) -> Formula:
    """Build a :class:`Formula`; raises :class:`FormulaError` listing every problem found.

    >>> formula("clamp(judge_output.score / 10)")(judge_output={"score": 7})
    0.7
    """
    return Formula(expression)


def check_formula(expression: str) -> list[str]:
    """Every problem of ``expression`` as a message with its position; ``[]`` when it is fine.

    For forms that validate everything at once; it never raises.
    """
    if not isinstance(expression, str):
        return [f"a formula must be text, not {kind_of(expression)}"]
    _, problems = parse_formula(expression)
    return [problem.text(expression.strip()) for problem in problems]


def _construction_error(expression: str, problems: list[Problem]) -> FormulaError:
    source = expression.strip()
    texts = [problem.text(source) for problem in problems]
    if len(texts) == 1:
        message = f"The formula `{shorten(source)}` cannot be used: {texts[0]}"
    else:
        listed = "; ".join(f"({i}) {text}" for i, text in enumerate(texts, 1))
        message = f"The formula `{shorten(source)}` has {len(texts)} problems: {listed}"
    first = problems[0]
    return FormulaError(
        message, expression=expression, problems=texts, line=first.line, column=first.column
    )
