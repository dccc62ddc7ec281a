"""Checking a formula before it ever runs: size, syntax, allowed constructs, known names.

A formula is parsed once into a Python AST and walked against an allow-list. Everything
outside the list (lambda, f-strings, walrus, bit operators, underscore names, unknown
functions, ...) is reported with its position, all problems at once, so a form can show
them together. Only an expression that passes is ever evaluated.
"""

from __future__ import annotations

import ast
import difflib
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.spec.context import CONTEXT_NAMES, OFFERED_NAMES
from scorer_runtime.spec.sandbox.errors import char_column, shorten, where
from scorer_runtime.spec.sandbox.functions import LIST_METHODS, SAFE_FUNCTIONS, TEXT_METHODS

MAX_FORMULA_LENGTH = 2000
"""Longest formula accepted, in characters."""

MAX_FORMULA_NESTING = 50
"""Deepest nesting of a formula's parts (brackets, calls, operators) accepted."""

_EXPRESSIONS = (
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.GeneratorExp,
)
_BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_UNARY = (ast.USub, ast.UAdd, ast.Not)
_FORBIDDEN: dict[type[ast.AST], str] = {
    ast.Lambda: "lambda functions are not allowed",
    ast.NamedExpr: "assignments (:=) are not allowed; a formula only computes a value",
    ast.JoinedStr: "f-strings are not allowed; join text with +, e.g. 'score: ' + str(score)",
    ast.DictComp: "dict comprehensions are not allowed; use a list: [x.name for x in ...]",
    ast.SetComp: "set comprehensions are not allowed; use a list: [x.name for x in ...]",
    ast.Starred: "* unpacking is not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
}
_CONSTANTS = (str, int, float, bool, type(None))
_MARKERS = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
_SPELLINGS = {"true": "True", "false": "False", "null": "None", "none": "None"}
_METHODS = TEXT_METHODS | LIST_METHODS


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a formula, with its 1-based position when it has one."""

    message: str
    line: int | None = None
    column: int | None = None

    def text(self, source: str) -> str:
        """The problem as one line for a person: ``column 7: ...``."""
        if self.line is None or self.column is None:
            return self.message
        return f"{where(source, self.line, self.column)}: {self.message}"


@dataclass(frozen=True)
class ParsedFormula:
    """A formula that passed every check: its source, AST and the context names it reads."""

    source: str
    """The text parsed: the formula, or the formula in brackets when it spans lines."""
    tree: ast.expr
    names: frozenset[str]
    loop_sources: frozenset[int] = frozenset()
    """``id()`` of the nodes after ``in`` in comprehensions (they must give a list)."""
    line_offset: int = 0
    """Lines to subtract from AST line numbers to get the formula's own lines."""


def parse_formula(expression: str) -> tuple[ParsedFormula | None, list[Problem]]:
    """Parse and check ``expression``; the parsed formula only when there is no problem."""
    source = expression.strip()
    if not source:
        return None, [Problem("the formula is empty; write an expression such as len(output)")]
    if len(source) > MAX_FORMULA_LENGTH:
        return None, [
            Problem(
                f"the formula is {len(source):,} characters long; the limit is "
                f"{MAX_FORMULA_LENGTH:,}. Split the work into several steps"
            )
        ]
    tree, text, problem = _parse(source)
    if tree is None:
        return None, [problem or Problem("the formula cannot be read")]
    line_offset = 1 if text is not source else 0
    checker = _Checker(text, line_offset)
    checker.visit(tree.body, 1)
    checker.resolve_names()
    if checker.problems:
        return None, sorted(checker.problems, key=lambda p: (p.line or 0, p.column or 0))
    names, loops = frozenset(checker.context_names), frozenset(checker.loop_sources)
    return ParsedFormula(text, tree.body, names, loops, line_offset), []


def _parse(source: str) -> tuple[ast.Expression | None, str, Problem | None]:
    """The AST and the text it was parsed from, or the problem that stopped parsing."""
    try:
        return _quiet_parse(source, "eval"), source, None
    except SyntaxError as error:
        problem = _syntax_problem(source, error)
    except (RecursionError, MemoryError, ValueError):
        return None, source, Problem("the formula is too complex to read; simplify it")
    if "\n" in source:
        # A formula may span lines, as typed in a text box: parse it inside brackets on
        # lines of their own, so columns stay the same and lines shift by exactly one.
        wrapped = f"(\n{source}\n)"
        try:
            return _quiet_parse(wrapped, "eval"), wrapped, None
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            pass
    return None, source, problem


def _quiet_parse(text: str, mode: str) -> Any:
    """``ast.parse`` without Python's own SyntaxWarnings (``1and 2``: "invalid decimal
    literal") going to the server's log: the formula's problems are reported as Problems."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(text, mode=mode)


def _syntax_problem(source: str, error: SyntaxError) -> Problem:
    """Explain a syntax error; say so plainly when the text is a statement, not an expression."""
    statement = _statement_kind(source)
    if statement is not None:
        return Problem(statement)
    reason = (error.msg or "invalid syntax").rstrip(".")
    if "nested parentheses" in reason or "too many" in reason:
        reason = f"{reason}; the formula is nested too deeply, simplify it"
    else:
        reason += ". Check brackets and quotes, and compare with == (not =)"
    return Problem(reason, error.lineno or 1, error.offset or 1)


def _statement_kind(source: str) -> str | None:
    try:
        body = _quiet_parse(source, "exec").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    if any(isinstance(s, ast.Import | ast.ImportFrom) for s in body):
        return "imports are not allowed: a formula can only use the listed functions"
    if any(isinstance(s, ast.Assign | ast.AugAssign | ast.AnnAssign) for s in body):
        return "assignments are not allowed: a formula is one expression (compare with ==)"
    if len(body) > 1 and all(isinstance(s, ast.Expr) for s in body):
        return "a formula is one expression; remove the ';' or the extra lines"
    return "statements (for, if:, def, ...) are not allowed: a formula is one expression"


@dataclass
class _Checker:
    """Walks the AST once, collecting problems, loaded names and loop variables."""

    source: str
    line_offset: int = 0
    problems: list[Problem] = field(default_factory=list)
    context_names: set[str] = field(default_factory=set)
    loop_names: set[str] = field(default_factory=set)
    loop_sources: set[int] = field(default_factory=set)
    loads: list[ast.Name] = field(default_factory=list)
    too_deep: bool = False

    def add(self, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", None)
        offset = getattr(node, "col_offset", None)
        if isinstance(node, ast.Attribute) and node.end_lineno and node.end_col_offset:
            # Point at the attribute name, not at the start of ``a.b.c``.
            line = node.end_lineno
            offset = node.end_col_offset - len(node.attr.encode("utf-8"))
        if line is None or offset is None:
            self.problems.append(Problem(message))
            return
        column = char_column(self.source, line, offset)
        self.problems.append(Problem(message, line - self.line_offset, column))

    def visit(self, node: ast.AST, depth: int) -> None:
        if depth > MAX_FORMULA_NESTING:
            if not self.too_deep:
                self.too_deep = True
                self.add(node, f"the formula is nested more than {MAX_FORMULA_NESTING} levels "
                         "deep; simplify it or split it into steps")  # fmt: skip
            return
        if not self._check(node, depth):
            return
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _MARKERS):  # operators and load/store carry no code
                self.visit(child, depth + 1)

    def _check(self, node: ast.AST, depth: int) -> bool:
        """Check one node; False when its children must not be walked."""
        if type(node) in _FORBIDDEN:
            self.add(node, _FORBIDDEN[type(node)])
            return False
        if isinstance(node, ast.comprehension):
            return self._check_comprehension(node)
        if isinstance(node, ast.keyword):
            if node.arg is None:
                self.add(node, "** unpacking is not allowed")
            return True
        if not isinstance(node, _EXPRESSIONS):
            self.add(node, f"{type(node).__name__} is not allowed in a formula")
            return False
        return self._check_expression(node, depth)

    def _check_expression(self, node: ast.expr, depth: int) -> bool:
        if isinstance(node, ast.Name):
            if _private(node.id, self, node):
                return False
            if isinstance(node.ctx, ast.Load):
                self.loads.append(node)
        elif isinstance(node, ast.Attribute):
            _private(node.attr, self, node)
        elif isinstance(node, ast.Constant) and not isinstance(node.value, _CONSTANTS):
            self.add(node, f"{type(node.value).__name__} values are not allowed")
        elif isinstance(node, ast.BinOp) and not isinstance(node.op, _BINARY):
            self.add(node, "bit operators (&, |, ^, <<, >>, @) are not allowed; "
                     "use and / or / not")  # fmt: skip
        elif isinstance(node, ast.UnaryOp) and not isinstance(node.op, _UNARY):
            self.add(node, "the ~ operator is not allowed; use not")
        elif isinstance(node, ast.Dict) and any(key is None for key in node.keys):
            self.add(node, "** unpacking is not allowed")
        elif isinstance(node, ast.Call):
            return self._check_call(node, depth)
        return True

    def _check_call(self, node: ast.Call, depth: int) -> bool:
        func = node.func
        if isinstance(func, ast.Name):
            if _private(func.id, self, func):
                return False
            if func.id not in SAFE_FUNCTIONS:
                what = "is data, not a function" if func.id in CONTEXT_NAMES else "is unknown"
                self.add(func, f"the function {func.id!r} {what}. {_hint(func.id, SAFE_FUNCTIONS)}"
                         f"Functions: {', '.join(sorted(SAFE_FUNCTIONS))}")  # fmt: skip
            # Walk the arguments only: the function name is not a value lookup.
            for child in [*node.args, *node.keywords]:
                self.visit(child, depth + 1)
            return False
        if isinstance(func, ast.Attribute):
            if not func.attr.startswith("_") and func.attr not in _METHODS:
                self.add(func, f"'.{func.attr}()' is not available. Text methods: "
                         f"{', '.join(sorted(TEXT_METHODS))}; list methods: "
                         f"{', '.join(sorted(LIST_METHODS))}")  # fmt: skip
            return True
        self.add(node, "only the listed functions and text methods can be called")
        return True  # walk on: what is being called may have problems of its own

    def _check_comprehension(self, node: ast.comprehension) -> bool:
        if node.is_async:
            self.add(node.target, "async comprehensions are not allowed")
            return False
        self.loop_sources.add(id(node.iter))
        targets = (
            node.target.elts if isinstance(node.target, ast.Tuple | ast.List) else [node.target]
        )
        for target in targets:
            if not isinstance(target, ast.Name):
                self.add(target, "a loop variable must be a simple name, e.g. [c.score for c in x]")
            elif not _private(target.id, self, target):
                self.loop_names.add(target.id)
        return True

    def resolve_names(self) -> None:
        """Check the names read, once every loop variable is known."""
        known = set(OFFERED_NAMES) | self.loop_names
        for node in self.loads:
            if node.id in self.loop_names:
                continue
            if node.id in CONTEXT_NAMES:
                self.context_names.add(node.id)
            elif node.id in SAFE_FUNCTIONS:
                self.add(node, f"{node.id!r} is a function; call it: {node.id}(...)")
            elif node.id.lower() in _SPELLINGS:
                self.add(node, f"unknown name {node.id!r}; write {_SPELLINGS[node.id.lower()]}")
            else:
                self.add(node, f"unknown name {node.id!r}. {_hint(node.id, known)}"
                         f"Names you can use: {', '.join(OFFERED_NAMES)}")  # fmt: skip


def _private(name: str, checker: _Checker, node: ast.AST) -> bool:
    """Report a name starting with ``_`` (the way into Python internals); True if it does."""
    if name.startswith("_"):
        checker.add(node, f"names starting with '_' are not allowed ({shorten(name, 40)})")
        return True
    return False


def _hint(name: str, candidates: Iterable[str]) -> str:
    matches = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f"Did you mean {matches[0]!r}? " if matches else ""
