"""Prompt templates: the text the judge is asked, with placeholders for the run's data.

A template is Jinja2 text such as ``Is this answer polite? {{ output }}`` or, for an agent,
``{{ input | user_message }}``. It reads the plain-data context of
:func:`scorer_runtime.spec.context.build_context` (``input``, ``output``, ``ground_truth``,
``request_context``, ``results``, ``score``, ``judge_output``, ``extra``) and can use the
filters in :data:`TEMPLATE_FILTERS`, including ``user_message``, ``assistant_message``,
``system_prompt``, ``history``, ``tool_calls``, ``tool_results`` and ``json``.

It is rendered in Jinja's immutable sandbox, narrowed further: no ``_`` attributes, only
listed filters and text methods, no includes or imports, bounded loops, text size and
work, and a capped prompt length. A missing variable or field is an error naming it (never
a silent blank). Lists and objects print as JSON, not as Python reprs. Jinja is loaded
only when the first template is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorer_runtime.spec.context import ContextStep
from scorer_runtime.spec.sandbox.errors import shorten
from scorer_runtime.spec.sandbox.help import CONTEXT_VARIABLES, TEMPLATE_FILTERS
from scorer_runtime.spec.sandbox.template_limits import (
    MAX_RANGE,
    MAX_RENDER_CHARS,
    MAX_RENDER_STEPS,
    MAX_RENDER_WORK,
    MAX_TEMPLATE_LENGTH,
)

if TYPE_CHECKING:
    from scorer_runtime.spec.sandbox.template_build import CompiledTemplate, TemplateProblem

__all__ = [
    "MAX_RANGE",
    "MAX_RENDER_CHARS",
    "MAX_RENDER_STEPS",
    "MAX_RENDER_WORK",
    "MAX_TEMPLATE_LENGTH",
    "TEMPLATE_FILTERS",
    "TEMPLATE_VARIABLES",
    "Template",
    "TemplateError",
    "check_template",
    "template",
]

TEMPLATE_VARIABLES: list[tuple[str, str]] = list(CONTEXT_VARIABLES)
"""(name, description) of every variable a template can read, for the studio's help panel."""


class TemplateError(ValueError):
    """A template that cannot be used, or that failed to render for one run.

    Raised when the template is built (syntax, unknown variables or filters, includes:
    every problem found, in ``problems``) and when it renders (a missing field, something
    the sandbox forbids, a limit reached). The message says where and what to do.
    """

    def __init__(
        self, message: str, *, source: str, problems: list[str], line: int | None = None
    ) -> None:
        super().__init__(message)
        self.source = source
        self.problems = problems
        self.line = line
        """1-based template line of the (first) problem, when known."""


@dataclass(frozen=True)
class Template(ContextStep):
    """A checked, compiled prompt template, callable as a step's ``create_prompt``.

    Build it with :func:`template`. As ``create_prompt`` it takes the keyword arguments the
    runtime injects (``run``, ``results``, ``score``); :meth:`render` takes a ready context
    instead (the studio's preview). Its ``repr`` is the call that builds it.
    """

    source: str
    compiled: CompiledTemplate = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.source, str):
            raise TemplateError(
                "a template must be text", source=str(self.source), problems=["not text"]
            )
        from scorer_runtime.spec.sandbox.template_build import compile_template

        compiled, problems = compile_template(self.source)
        if compiled is None:
            raise _construction_error(self.source, problems)
        object.__setattr__(self, "compiled", compiled)

    @property
    def names(self) -> frozenset[str]:
        """The context names the template reads (e.g. ``{"input", "output"}``)."""
        return self.compiled.names

    def evaluate(self, context: Mapping[str, Any]) -> str:
        """The prompt for a context (the pipeline calls the template as ``create_prompt``)."""
        return self.render(context)

    def render(self, context: Mapping[str, Any]) -> str:
        """Render on a context from :func:`build_context`.

        Raises :class:`TemplateError` naming the line and what failed.
        """
        from scorer_runtime.spec.sandbox.template_build import describe_render_error, render

        try:
            return render(self.compiled, context)
        except Exception as error:  # every render failure becomes one clear message
            message, line = describe_render_error(error)
            where = f" at line {line}" if line is not None else ""
            raise TemplateError(
                f"The template failed{where}: {message}",
                source=self.source,
                problems=[message],
                line=line,
            ) from error

    def __repr__(self) -> str:
        return f"template({self.source!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Compiled code cannot be pickled: rebuild from the text (e.g. in a worker process).
        return (template, (self.source,))


def template(source: str) -> Template:
    """Build a :class:`Template`; raises :class:`TemplateError` listing every problem found.

    >>> template("Is this polite? {{ output }}").render({"output": "Thanks!"})
    'Is this polite? Thanks!'
    """
    return Template(source)


def check_template(source: str) -> list[str]:
    """Every problem of ``source`` as a message with its line; ``[]`` when it is fine.

    For forms that validate everything at once; it never raises.
    """
    if not isinstance(source, str):
        return ["a template must be text"]
    from scorer_runtime.spec.sandbox.template_build import compile_template

    _, problems = compile_template(source)
    return [problem.text() for problem in problems]


def _construction_error(source: str, problems: list[TemplateProblem]) -> TemplateError:
    texts = [problem.text() for problem in problems]
    quoted = shorten(source, 60)
    if len(texts) == 1:
        message = f"The template `{quoted}` cannot be used: {texts[0]}"
    else:
        listed = "; ".join(f"({i}) {text}" for i, text in enumerate(texts, 1))
        message = f"The template `{quoted}` has {len(texts)} problems: {listed}"
    return TemplateError(message, source=source, problems=texts, line=problems[0].line)
