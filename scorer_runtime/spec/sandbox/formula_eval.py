"""Evaluating a checked formula with simpleeval, within limits on work, size and numbers.

simpleeval walks the AST (never Python's ``eval``). This subclass narrows it further:
attribute access reads dict keys or allow-listed text methods only, calls reach only the
formula functions, every operator that can grow a value checks the size first, and every
evaluated node is counted against a work budget, so no formula runs unbounded.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from simpleeval import EvalWithCompoundTypes, InvalidExpression, IterableTooLong, NameNotDefined

from scorer_runtime.spec.sandbox.errors import shorten
from scorer_runtime.spec.sandbox.formula_check import ParsedFormula
from scorer_runtime.spec.sandbox.functions import (
    FORMULA_FUNCTIONS,
    LIST_METHODS,
    SAFE_FUNCTIONS,
    TEXT_METHODS,
    FormulaValueError,
    kind_of,
)
from scorer_runtime.spec.sandbox.limits import (
    MAX_INT_BITS,
    MAX_VALUE_SIZE,
    Memo,
    ValueLimitError,
    bounded_add,
    bounded_mod,
    bounded_mult,
    bounded_pow,
    checked_join,
    checked_replace,
    nested_size,
    too_large,
    too_long,
)

MAX_FORMULA_STEPS = 100_000
"""Most parts of a formula evaluated in one call (loops in comprehensions count each time)."""

MAX_FORMULA_WORK = 20_000_000
"""Work budget of one call: one per evaluated part plus the size of every value it gives."""

_READS = (ast.Name, ast.Attribute, ast.Subscript, ast.Constant)
_SIZED = (str, list, tuple, dict, set, frozenset)
_CONTAINERS = (list, tuple, dict, set, frozenset)
_SYMBOLS: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.USub: "-", ast.UAdd: "+", ast.Not: "not",
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}  # fmt: skip
_SIGNATURES = {name: inspect.signature(fn) for name, fn in SAFE_FUNCTIONS.items()}
_USAGE = dict(FORMULA_FUNCTIONS)
_NONE_HINTS = {
    "results": " The step that gives it is not part of this scorer, or gave no result.",
    "step1": " Step 1 is not part of this scorer, or gave no result.",
    "step2": " Step 2 is not part of this scorer, or gave no result.",
    "step3": " Only step 4 can read step 3, and only when step 3 gave a result.",
    "judge_output": " judge_output is only set when a formula turns the judge's answer "
    "into a score (calculate_score).",
    "score": " score is only set in generate_reason.",
    "ground_truth": " This example has no ground truth (expected answer).",
    "request_context": " This example has no request context.",
}


class EvalProblem(Exception):
    """Why evaluation stopped, and at which part of the formula (filled in on the way up)."""

    def __init__(self, message: str, node: ast.AST | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


def _contains(container: Any, item: Any) -> bool:
    if not isinstance(container, (*_SIZED, Mapping)):
        kind = kind_of(container)
        raise EvalProblem(f"'in' needs text, a list or an object on its right; got {kind}")
    if isinstance(container, str) and not isinstance(item, str):
        raise EvalProblem(f"'in' on text needs text on its left; got {kind_of(item)}")
    try:
        return item in container
    except TypeError:  # an unhashable item cannot be a field name or in a set
        return False


OPERATORS: dict[type[ast.AST], Callable[..., Any]] = {
    ast.Add: bounded_add, ast.Sub: operator.sub, ast.Mult: bounded_mult,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: bounded_mod,
    ast.Pow: bounded_pow,
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Gt: operator.gt, ast.Lt: operator.lt,
    ast.GtE: operator.ge, ast.LtE: operator.le, ast.Not: operator.not_, ast.USub: operator.neg,
    ast.UAdd: operator.pos, ast.In: lambda a, b: _contains(b, a),
    ast.NotIn: lambda a, b: not _contains(b, a), ast.Is: operator.is_, ast.IsNot: operator.is_not,
}  # fmt: skip
"""Every operator a formula can use, called as ``op(left, right)``."""


@dataclass(frozen=True, slots=True)
class BoundMethod:
    """An allow-listed method of a text or list value, checked for size before it runs."""

    target: str | list[Any] | tuple[Any, ...]
    name: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target = self.target
        if isinstance(target, str) and self.name == "replace":
            return checked_replace(target, *args, **kwargs)
        if isinstance(target, str) and self.name == "join":
            return checked_join(target, *args, **kwargs)
        return getattr(target, self.name)(*args, **kwargs)


class FormulaEvaluator(EvalWithCompoundTypes):  # type: ignore[misc]  # simpleeval is untyped
    """One evaluation of one parsed formula over one context (not shared between calls)."""

    def __init__(self, parsed: ParsedFormula, context: Mapping[str, Any]) -> None:
        super().__init__(operators=OPERATORS, functions=dict(SAFE_FUNCTIONS), names=dict(context))
        self.parsed = parsed
        self.steps = 0
        self.work = 0
        self.sizes: Memo = {}
        """Nested sizes measured during this evaluation (values cannot change meanwhile)."""

    def run(self) -> Any:
        """Evaluate the formula; raises :class:`EvalProblem` naming the part that failed."""
        return self.eval(self.parsed.source, previously_parsed=self.parsed.tree)

    def text(self, node: ast.AST) -> str:
        """The formula's own text for ``node``, to quote in messages."""
        segment = ast.get_source_segment(self.parsed.source, node) or ast.unparse(node)
        return shorten(segment, 60)

    def _eval(self, node: ast.AST) -> Any:
        self.steps += 1
        if self.steps > MAX_FORMULA_STEPS:
            raise EvalProblem(
                f"the formula takes more than {MAX_FORMULA_STEPS:,} steps; simplify it", node
            )
        try:
            result = self.nodes[type(node)](node)
        except EvalProblem as problem:
            problem.node = problem.node or node
            raise
        except Exception as error:  # every failure becomes one clear message, with its place
            raise EvalProblem(_describe(error), node) from error
        self._charge(node, result)
        return result

    def _charge(self, node: ast.AST, value: Any) -> None:
        size = len(value) if isinstance(value, _SIZED) else 0
        self.work += 1 + size
        if self.work > MAX_FORMULA_WORK:
            raise EvalProblem(_too_much_work(), node)
        if id(node) in self.parsed.loop_sources and not isinstance(value, _SIZED):
            raise EvalProblem(
                f"[... for x in {self.text(node)}] needs a list there; it is {kind_of(value)}", node
            )
        if isinstance(node, _READS):
            return
        if size > MAX_VALUE_SIZE:
            raise too_long(size)
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            raise too_large()
        if isinstance(value, complex):
            raise EvalProblem("the result is not a real number (e.g. a negative number ** 0.5)")

    def _charge_parts(self, node: ast.AST, *values: Any) -> None:
        """Charge the nested size of lists/objects about to be compared, hashed or passed
        to a function: a comparison of two big nested values costs that many steps."""
        for value in values:
            if isinstance(value, _CONTAINERS):
                self.work += nested_size(value, self.sizes)
                if self.work > MAX_FORMULA_WORK:
                    raise EvalProblem(_too_much_work(), node)

    def _eval_dict(self, node: ast.Dict) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:  # ** unpacking, refused when the formula is built
                raise EvalProblem("** unpacking is not allowed", node)
            key = self._eval(key_node)
            self._charge_parts(node, key)
            result[key] = self._eval(value_node)
        return result

    def _eval_set(self, node: ast.Set) -> set[Any]:
        items = [self._eval(item) for item in node.elts]
        self._charge_parts(node, *items)
        return set(items)

    def _eval_binop(self, node: ast.BinOp) -> Any:
        left, right = self._eval(node.left), self._eval(node.right)
        try:
            return self.operators[type(node.op)](left, right)
        except TypeError:
            symbol = _SYMBOLS[type(node.op)]
            raise EvalProblem(
                f"cannot use {symbol} on {kind_of(left)} and {kind_of(right)}", node
            ) from None

    def _eval_unaryop(self, node: ast.UnaryOp) -> Any:
        value = self._eval(node.operand)
        try:
            return self.operators[type(node.op)](value)
        except TypeError:
            symbol = _SYMBOLS[type(node.op)]
            raise EvalProblem(f"cannot use {symbol} on {kind_of(value)}", node) from None

    def _eval_compare(self, node: ast.Compare) -> bool:
        right = self._eval(node.left)
        for op_node, comparator in zip(node.ops, node.comparators, strict=True):
            left, right = right, self._eval(comparator)
            if not isinstance(op_node, ast.Is | ast.IsNot):
                self._charge_parts(node, left, right)
            try:
                if not self.operators[type(op_node)](left, right):
                    return False
            except TypeError:
                symbol = _SYMBOLS[type(op_node)]
                raise EvalProblem(
                    f"cannot compare {kind_of(left)} with {kind_of(right)} using {symbol}", node
                ) from None
        return True

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        value = self._eval(node.value)
        name = node.attr
        if isinstance(value, Mapping):
            if name in value:
                return value[name]
            raise EvalProblem(_missing_field(self.text(node.value), value, name), node)
        if (isinstance(value, str) and name in TEXT_METHODS) or (
            isinstance(value, list | tuple) and name in LIST_METHODS
        ):
            return BoundMethod(value, name)
        path = self.text(node.value)
        if name in TEXT_METHODS | LIST_METHODS:
            works_on = "text" if name in TEXT_METHODS else "lists"
            raise EvalProblem(f"`{path}` is {kind_of(value)}; .{name}() works on {works_on}", node)
        raise EvalProblem(_no_field(path, value, f"field {name!r}"), node)

    def _eval_subscript(self, node: ast.Subscript) -> Any:
        container, key = self._eval(node.value), self._eval(node.slice)
        path = self.text(node.value)
        if isinstance(container, Mapping):
            if isinstance(key, str | int | float | bool | None) and key in container:
                return container[key]
            raise EvalProblem(_missing_field(path, container, key), node)
        if not isinstance(container, str | list | tuple):
            raise EvalProblem(_no_field(path, container, f"item [{self.text(node.slice)}]"), node)
        if isinstance(key, slice):
            return container[key]
        if not isinstance(key, int) or isinstance(key, bool):
            raise EvalProblem(
                f"`{path}` is {kind_of(container)}; pick an item with a whole number, "
                f"e.g. {path}[0] (got {kind_of(key)})",
                node,
            )
        if not -len(container) <= key < len(container):
            unit = "characters" if isinstance(container, str) else "items"
            raise EvalProblem(f"`{path}` has {len(container)} {unit}; there is no [{key}]", node)
        return container[key]

    def _eval_call(self, node: ast.Call) -> Any:
        func: Any
        if isinstance(node.func, ast.Name):
            name = node.func.id
            func = self.functions.get(name)
            if func is None:
                raise EvalProblem(f"unknown function {name!r}", node)
        else:
            func = self._eval(node.func)
            if not isinstance(func, BoundMethod):
                raise EvalProblem(
                    f"`{self.text(node.func)}` is {kind_of(func)}, not a method", node
                )
            name = f".{func.name}"
        args = [self._eval(arg) for arg in node.args]
        kwargs = {str(k.arg): self._eval(k.value) for k in node.keywords}
        target = func.target if isinstance(func, BoundMethod) else None
        self._charge_parts(node, target, *args, *kwargs.values())
        try:
            return func(*args, **kwargs)
        except (EvalProblem, FormulaValueError, ValueLimitError):
            raise
        except (TypeError, ValueError) as error:
            raise EvalProblem(_call_failure(name, args, kwargs, error), node) from error


def _call_failure(name: str, args: list[Any], kwargs: dict[str, Any], error: Exception) -> str:
    """Say whether the call itself was wrong (arguments) or the function failed on them."""
    signature = _SIGNATURES.get(name)
    if signature is not None:
        try:  # only on failure, so a good call pays nothing for this check
            signature.bind(*args, **kwargs)
        except TypeError as wrong:
            return f"{name}() cannot be called like this ({wrong}). Usage: {_USAGE[name]}"
    return f"{name}() failed: {error}"


def _too_much_work() -> str:
    return (
        f"the formula does too much work (over {MAX_FORMULA_WORK:,} units); simplify it "
        "or use a built-in step"
    )


def _describe(error: Exception) -> str:
    """A plain message for an error raised while evaluating."""
    if isinstance(error, FormulaValueError | ValueLimitError):
        return str(error)
    if isinstance(error, ZeroDivisionError):
        return "division by zero; guard it, e.g. a / b if b else 0"
    if isinstance(error, OverflowError):
        return "a number got too large"
    if isinstance(error, IterableTooLong):
        return "the comprehension goes through more than 10,000 items; simplify it"
    if isinstance(error, NameNotDefined):
        return f"unknown name {error.name!r} (loop variables exist only inside their [...])"
    if isinstance(error, RecursionError):
        return "the formula is nested too deeply"
    if isinstance(error, MemoryError):
        return "the formula needs too much memory"
    if isinstance(error, InvalidExpression):
        return str(error)
    return f"{error}" or type(error).__name__


def _missing_field(path: str, mapping: Mapping[Any, Any], key: object) -> str:
    keys = [str(k) for k in mapping]
    if not keys:
        return f"`{path}` is an empty object, so it has no field {key!r}"
    matches = difflib.get_close_matches(str(key), keys, n=1)
    hint = f"Did you mean {matches[0]!r}? " if matches else ""
    shown = ", ".join(sorted(keys)[:20]) + (", ..." if len(keys) > 20 else "")
    return f"`{path}` has no field {key!r}. {hint}Its fields: {shown}"


def _no_field(path: str, value: object, what: str) -> str:
    if value is None:
        root = path.split(".", 1)[0].split("[", 1)[0]
        return f"`{path}` is empty (None), so it has no {what}.{_NONE_HINTS.get(root, '')}"
    if isinstance(value, list | tuple):
        return f"`{path}` is a list; pick an item first, e.g. {path}[0]"
    return f"`{path}` is {kind_of(value)}, so it has no {what}"
