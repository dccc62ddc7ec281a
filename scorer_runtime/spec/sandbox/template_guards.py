"""Bounding the work of one render: the budget, the guard filters, and the rewrite that
inserts them into a parsed template.

Jinja has no hook for loops, ``~``, list literals or comparisons, so the parsed template
is rewritten to pass them through guard filters: every loop iteration counts as a step
(plus the fixed text its body prints), every ``~`` checks and counts the text it builds,
every list/tuple/dict literal and every compared or sorted value counts its nested size
(``[x] * 1000`` compares like 1000 copies of ``x``). Budgets live in a context variable,
so concurrent renders in threads each have their own.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from jinja2 import nodes, pass_context
from jinja2.runtime import Context
from jinja2.visitor import NodeTransformer

from scorer_runtime.spec.sandbox.functions import to_text
from scorer_runtime.spec.sandbox.limits import MAX_VALUE_SIZE, Memo, nested_size, too_long
from scorer_runtime.spec.sandbox.template_filters import RenderProblem
from scorer_runtime.spec.sandbox.template_limits import MAX_RENDER_STEPS, MAX_RENDER_WORK

LOOP_GUARD = "scorer_studio_loop_guard"
CONCAT_GUARD = "scorer_studio_concat_guard"
SIZE_GUARD = "scorer_studio_size_guard"
COST_GUARD = "scorer_studio_cost_guard"
INTERNAL_FILTERS = frozenset({LOOP_GUARD, CONCAT_GUARD, SIZE_GUARD, COST_GUARD})
"""Filters the guard rewrite inserts; templates may not name them."""

COMPARING_FILTERS = frozenset(
    {"dictsort", "groupby", "map", "max", "min", "reject", "rejectattr", "select"}
    | {"selectattr", "sort", "unique"}
)
"""Filters that may compare or hash the items of their input and arguments (that costs
their nested size)."""

_CONTAINERS = (list, tuple, dict, set, frozenset)
_CONTAINER_NODES = (nodes.List, nodes.Tuple, nodes.Dict)


@dataclass
class RenderBudget:
    """What one render has used so far; raises :class:`RenderProblem` past a limit."""

    steps: int = 0
    work: int = 0
    sizes: Memo = field(default_factory=dict)
    """Nested sizes measured in this render (values cannot change while it runs)."""

    def step(self) -> None:
        """Count one loop iteration or call."""
        self.steps += 1
        if self.steps > MAX_RENDER_STEPS:
            raise RenderProblem(
                f"the template loops or calls more than {MAX_RENDER_STEPS:,} times; "
                "loop over less data"
            )

    def produce(self, chars: int) -> None:
        """Count characters of text produced."""
        self.work += chars
        if self.work > MAX_RENDER_WORK:
            raise RenderProblem(
                f"the template builds more than {MAX_RENDER_WORK:,} characters of text; "
                "print less data, e.g. {{ output | truncate(5000) }}"
            )

    def compare(self, value: Any) -> int:
        """Count the nested size of a list/object built, compared or sorted; return it."""
        if not isinstance(value, _CONTAINERS):
            return 1
        size = nested_size(value, self.sizes)
        self.work += size
        if self.work > MAX_RENDER_WORK:
            raise RenderProblem(
                f"the template builds, compares or sorts more than {MAX_RENDER_WORK:,} parts "
                "of data; work on less data"
            )
        return size


_BUDGET: contextvars.ContextVar[RenderBudget | None] = contextvars.ContextVar(
    "scorer_studio_render_budget", default=None
)


@contextmanager
def render_budget() -> Iterator[RenderBudget]:
    """A fresh budget for the render running inside the ``with`` block."""
    budget = RenderBudget()
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def current_budget() -> RenderBudget:
    """The running render's budget (a fresh one outside a render, so limits still hold)."""
    return _BUDGET.get() or RenderBudget()


# The guards take the context (pass_context) so Jinja never runs them at compile time.


@pass_context
def _loop_guard(context: Context, iterable: Any, cost: int) -> Iterator[Any]:
    budget = current_budget()
    for item in iterable:
        budget.step()
        budget.produce(cost)
        yield item


@pass_context
def _concat_guard(context: Context, parts: list[Any]) -> str:
    texts = [to_text(part) for part in parts]
    size = sum(len(text) for text in texts)
    if size > MAX_VALUE_SIZE:
        raise too_long(size)
    current_budget().produce(size)
    return "".join(texts)


@pass_context
def _size_guard(context: Context, value: Any) -> Any:
    size = current_budget().compare(value)
    if size > MAX_VALUE_SIZE:
        raise RenderProblem(
            f"this list or object would have {size:,} parts, nested ones included; the "
            f"limit is {MAX_VALUE_SIZE:,}"
        )
    return value


@pass_context
def _cost_guard(context: Context, value: Any) -> Any:
    current_budget().compare(value)
    return value


GUARD_FILTERS = {
    LOOP_GUARD: _loop_guard,
    CONCAT_GUARD: _concat_guard,
    SIZE_GUARD: _size_guard,
    COST_GUARD: _cost_guard,
}
"""The guard filters, by the names the rewrite uses."""


def _literal_size(body: list[nodes.Node]) -> int:
    """Characters of fixed text in a loop body, charged on every iteration."""
    size = 0
    for stmt in body:
        for found in stmt.find_all(nodes.TemplateData):
            size += len(found.data)
        for const in stmt.find_all(nodes.Const):
            size += len(const.value) if isinstance(const.value, str) else 0
    return size


def _guarded(node: nodes.Node, guard: str, *args: nodes.Node) -> nodes.Filter:
    return nodes.Filter(node, guard, list(args), [], None, None, lineno=node.lineno)


class GuardRewrite(NodeTransformer):
    """Insert the guard filters into a parsed template (see the module docstring)."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        cost = nodes.Const(1 + _literal_size(node.body), lineno=node.lineno)
        node.iter = _guarded(node.iter, LOOP_GUARD, cost)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _guarded(nodes.List(node.nodes, lineno=node.lineno), CONCAT_GUARD)

    def visit_List(self, node: nodes.List) -> nodes.Node:
        self.generic_visit(node)
        return _guarded(node, SIZE_GUARD)

    def visit_Dict(self, node: nodes.Dict) -> nodes.Node:
        self.generic_visit(node)
        return _guarded(node, SIZE_GUARD)

    def visit_Tuple(self, node: nodes.Tuple) -> nodes.Node:
        self.generic_visit(node)
        return node if node.ctx != "load" else _guarded(node, SIZE_GUARD)

    def visit_Compare(self, node: nodes.Compare) -> nodes.Node:
        self.generic_visit(node)
        node.expr = _guarded(node.expr, COST_GUARD)
        for operand in node.ops:
            operand.expr = _guarded(operand.expr, COST_GUARD)
        return node

    def visit_Test(self, node: nodes.Test) -> nodes.Node:
        self.generic_visit(node)
        node.node = _guarded(node.node, COST_GUARD)
        node.args = [_guarded(arg, COST_GUARD) for arg in node.args]
        return node

    def visit_Filter(self, node: nodes.Filter) -> nodes.Node:
        self.generic_visit(node)
        if node.name in COMPARING_FILTERS and node.node is not None:
            node.node = _guarded(node.node, COST_GUARD)
            node.args = [_guarded(arg, COST_GUARD) for arg in node.args]
        return node
