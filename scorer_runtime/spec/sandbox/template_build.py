"""Compiling a prompt template once (with every problem found) and rendering it in bounds."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import meta, nodes
from jinja2.exceptions import SecurityError, TemplateError, TemplateSyntaxError, UndefinedError

from scorer_runtime.spec.context import CONTEXT_NAMES, OFFERED_NAMES
from scorer_runtime.spec.sandbox.limits import ValueLimitError
from scorer_runtime.spec.sandbox.template_env import PromptEnvironment, environment
from scorer_runtime.spec.sandbox.template_filters import RenderProblem
from scorer_runtime.spec.sandbox.template_guards import (
    INTERNAL_FILTERS,
    GuardRewrite,
    render_budget,
)
from scorer_runtime.spec.sandbox.template_limits import MAX_RENDER_CHARS, MAX_TEMPLATE_LENGTH

_STANDALONE = (nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)


@dataclass(frozen=True)
class TemplateProblem:
    """One thing wrong with a template, with its line when known."""

    message: str
    line: int | None = None

    def text(self) -> str:
        """The problem as one line for a person: ``line 2: ...``."""
        return self.message if self.line is None else f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class CompiledTemplate:
    """A template that passed every check, compiled with its guards in place."""

    template: jinja2.Template
    names: frozenset[str]
    """The context names the template reads."""


def compile_template(source: str) -> tuple[CompiledTemplate | None, list[TemplateProblem]]:
    """Parse, check and compile ``source``; the compiled template only when nothing is wrong."""
    if len(source) > MAX_TEMPLATE_LENGTH:
        return None, [
            TemplateProblem(
                f"the template is {len(source):,} characters long; the limit is "
                f"{MAX_TEMPLATE_LENGTH:,}"
            )
        ]
    env = environment()
    try:
        tree = env.parse(source)
    except TemplateSyntaxError as error:
        return None, [_syntax_problem(error)]
    except (RecursionError, MemoryError):
        return None, [TemplateProblem("the template is nested too deeply; simplify it")]
    problems = _tree_problems(env, tree)
    if problems:
        return None, problems
    used = meta.find_undeclared_variables(tree) & set(CONTEXT_NAMES)
    GuardRewrite().visit(tree)
    tree.set_environment(env)
    try:
        compiled = env.from_string(tree)
    except TemplateSyntaxError as error:
        return None, [_syntax_problem(error)]
    except (RecursionError, MemoryError, SyntaxError):
        message = "the template nests loops, ifs or brackets too deeply; simplify it"
        return None, [TemplateProblem(message)]
    return CompiledTemplate(compiled, frozenset(used)), []


def _syntax_problem(error: TemplateSyntaxError) -> TemplateProblem:
    message = (error.message or "invalid syntax").rstrip(".")
    hint = (
        ". Check that every {{ has its }}, every {% has its %}, and every {% if %} / "
        "{% for %} its {% endif %} / {% endfor %}"
    )
    return TemplateProblem(message + hint, error.lineno)


def _tree_problems(env: PromptEnvironment, tree: nodes.Template) -> list[TemplateProblem]:
    """Everything the template uses that it may not: all at once, in source order."""
    problems: list[TemplateProblem] = []
    for node in tree.find_all(_STANDALONE):
        problems.append(
            TemplateProblem(
                "extends, include and import are not available: a prompt template stands "
                "alone (use a macro instead)",
                node.lineno,
            )
        )
    for loop in tree.find_all(nodes.For):
        if loop.recursive:
            problems.append(TemplateProblem("recursive loops are not available", loop.lineno))
    allowed = sorted(name for name in env.filters if name not in INTERNAL_FILTERS)
    for used in tree.find_all(nodes.Filter):
        if used.name not in allowed:
            problems.append(_unknown("filter", used.name, allowed, used.lineno))
            used.name = "string"  # a stand-in, so variables can still be checked below
    for test in tree.find_all(nodes.Test):
        if test.name not in env.tests:
            problems.append(_unknown("test", test.name, sorted(env.tests), test.lineno))
            test.name = "defined"
    problems += _variable_problems(env, tree)
    return sorted(problems, key=lambda p: p.line or 0)


def _variable_problems(env: PromptEnvironment, tree: nodes.Template) -> list[TemplateProblem]:
    try:
        undeclared = meta.find_undeclared_variables(tree)
    except TemplateError as error:
        return [TemplateProblem(error.message or "the template cannot be compiled")]
    unknown = undeclared - set(CONTEXT_NAMES) - set(env.globals)
    return [
        _unknown("variable", name, OFFERED_NAMES, _first_line(tree, name))
        for name in sorted(unknown)
    ]


def _unknown(what: str, name: str, known: Iterable[str], line: int | None) -> TemplateProblem:
    names = list(known)
    matches = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean {matches[0]!r}?" if matches else ""
    listing = ", ".join(names) if what != "test" else "see the Jinja documentation"
    plural = "Variables" if what == "variable" else f"{what.capitalize()}s"
    return TemplateProblem(f"unknown {what} {name!r}.{hint} {plural}: {listing}", line)


def _first_line(tree: nodes.Template, name: str) -> int | None:
    for node in tree.find_all(nodes.Name):
        if node.name == name:
            return int(node.lineno)
    return None


def render(compiled: CompiledTemplate, context: Mapping[str, Any]) -> str:
    """Render within the budget; the prompt is cut off with an error past the size cap."""
    chunks: list[str] = []
    total = 0
    with render_budget():
        for chunk in compiled.template.generate(dict(context)):
            total += len(chunk)
            if total > MAX_RENDER_CHARS:
                raise RenderProblem(
                    f"the prompt would be longer than {MAX_RENDER_CHARS:,} characters; "
                    "print less data, e.g. {{ output | truncate(5000) }}"
                )
            chunks.append(chunk)
    return "".join(chunks)


def describe_render_error(error: Exception) -> tuple[str, int | None]:
    """A plain message for an error raised while rendering, and the template line."""
    line = _template_line(error)
    if isinstance(error, RenderProblem | ValueLimitError | SecurityError | UndefinedError):
        return str(error), line
    if isinstance(error, RecursionError):
        return "a macro calls itself too deeply", line
    if isinstance(error, ZeroDivisionError):
        return "division by zero; check the number first with {% if ... %}", line
    if isinstance(error, TemplateError):
        return error.message or "the template could not be rendered", line
    return f"{error}" or type(error).__name__, line


def _template_line(error: BaseException) -> int | None:
    """The template line of the innermost template frame in the (rewritten) traceback."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
