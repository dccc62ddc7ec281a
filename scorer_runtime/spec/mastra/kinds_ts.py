"""Whether a number shown as text reads the same in Node as in the studio (3 or 3.0).

Python keeps whole numbers (3) and floats (3.0) apart and shows them differently;
JavaScript has one kind of number. The export shows a value as Python does when it knows the
value is a float (``floatOrText``) or reads it straight from the data (``fieldText`` asks
``readJson``'s marks). Where the kind depends on the data (``max(1, 2.0)``, ``sum(x)``,
``x // 2`` or ``x * 2`` of a field, a whole float that is the entire input) the text may
read 3 where Python reads 3.0: :func:`formula_kind` and :func:`template_kind` find those,
so the export can list them.
"""

from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING

from jinja2 import nodes

from scorer_runtime.types import STEP_ORDER

if TYPE_CHECKING:
    from scorer_runtime.spec.mastra.formula_ts import FormulaTranslator

FLOAT, EXACT, DATA, UNSURE = "float", "exact", "data", "unsure"
"""Certainly a float; shown as in Python; read from the data as it is; either int or float."""

PYTHON = sys.version_info[:2]
"""The Python the studio runs on (its ``sum`` of decimals compensates from 3.12 on)."""
SUM_DIFFERS = (
    "sum() adds decimals one after another, as Python 3.11 does; the studio runs on Python "
    "{}.{}, whose sum() corrects rounding as it adds, so the last digit of a sum of "
    "decimals may differ"
)
WHOLE_FLOAT = (
    "a whole number written with a decimal point (3.0) shows as 3 where the studio shows 3.0"
)
RUN_NAMES = ("input", "output", "ground_truth", "request_context")
_EXACT_CALLS = {
    "str", "len", "lower", "upper", "strip", "words", "contains", "count", "bool", "any",
    "all", "int", "not_scorable",
}  # fmt: skip
_PICKING_CALLS = ("min", "max", "clamp", "abs")
"""Functions whose result is one of their arguments (or has its kind)."""


def merged(kinds: list[str]) -> str:
    """The kind of a value that is one of several (an inline if, ``or``, ``max``)."""
    if all(kind == EXACT for kind in kinds):
        return EXACT
    return FLOAT if all(kind == FLOAT for kind in kinds) else UNSURE


def _root(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def formula_kind(t: FormulaTranslator, node: ast.AST) -> str:
    """The kind of a formula part's value, as far as the formula tells."""
    if t.is_float(node):
        return FLOAT
    if isinstance(node, ast.Constant | ast.Compare):
        return EXACT
    if isinstance(node, ast.Name | ast.Attribute | ast.Subscript):
        return _read_kind(t, node)
    if isinstance(node, ast.BinOp):
        return _binop_kind(t, node)
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            return EXACT
        return merged([formula_kind(t, node.operand)])
    if isinstance(node, ast.IfExp):
        return merged([formula_kind(t, node.body), formula_kind(t, node.orelse)])
    if isinstance(node, ast.BoolOp):
        return merged([formula_kind(t, value) for value in node.values])
    if isinstance(node, ast.List | ast.Dict):
        items = node.elts if isinstance(node, ast.List) else node.values
        return merged([formula_kind(t, item) for item in items if item is not None])
    if isinstance(node, ast.ListComp):
        target = node.generators[0].target if node.generators else None
        t.loop_names.append({target.id} if isinstance(target, ast.Name) else set())
        try:
            return element_kind(t, node.elt)
        finally:
            t.loop_names.pop()
    if isinstance(node, ast.Call):
        return _call_kind(t, node)
    return UNSURE


def _read_kind(t: FormulaTranslator, node: ast.Name | ast.Attribute | ast.Subscript) -> str:
    if isinstance(node, ast.Name):
        if node.id in t.unsure_paths:
            return UNSURE
        loop = any(node.id in names for names in t.loop_names)
        return DATA if loop or node.id in RUN_NAMES else EXACT
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return UNSURE  # a new list: the marks of whole floats in it are not carried
    unsure = _root(node) in t.unsure_paths or ast.unparse(node) in t.unsure_paths
    return UNSURE if unsure else DATA


def _binop_kind(t: FormulaTranslator, node: ast.BinOp) -> str:
    if isinstance(node.op, ast.Add) and (_is_text(node.left) or _is_text(node.right)):
        return EXACT  # text joined to text (a number there fails in both)
    sides = [formula_kind(t, node.left), formula_kind(t, node.right)]
    if isinstance(node.op, ast.Pow):
        power = node.right.value if isinstance(node.right, ast.Constant) else None
        plain = isinstance(power, int) and power >= 0
        sides.append(EXACT if plain else UNSURE)  # 1 ** -1 is 1.0
    return merged(sides)


def _is_text(node: ast.AST) -> bool:
    """Certainly text: a text written in the formula, str(...), or text joined to it."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("str", "lower", "upper", "strip")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_text(node.left) or _is_text(node.right)
    return False


def element_kind(t: FormulaTranslator, node: ast.AST) -> str:
    """An item of ``[... for x in ...]``: the list made carries the marks of the loop
    variable, of fields read and of floats, so those show as in Python."""
    kind = formula_kind(t, node)
    if _is_loop_name(t, node) or kind == FLOAT:
        return EXACT
    if isinstance(node, ast.Attribute | ast.Subscript) and kind == DATA:
        return EXACT
    return EXACT if kind == EXACT else UNSURE


def _is_loop_name(t: FormulaTranslator, node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and any(node.id in names for names in t.loop_names)


def _call_kind(t: FormulaTranslator, node: ast.Call) -> str:
    if not isinstance(node.func, ast.Name):
        return EXACT  # a text method: text, a list of texts, true/false or a count
    name, args = node.func.id, node.args
    if name in _EXACT_CALLS or (name == "round" and len(args) == 1):
        return EXACT
    if name == "round" and args:
        return merged([formula_kind(t, args[0])])
    if name in _PICKING_CALLS or name == "sum":
        items: list[ast.AST] = list(args)
        if name in ("min", "max", "sum") and len(args) == 1:
            one = args[0]
            items = list(one.elts) if isinstance(one, ast.List) else [ast.Name("data")]
        items += [k.value for k in node.keywords]
        if name == "clamp":
            items += [ast.Constant(0)] * (3 - len(args))  # the default bounds 0 and 1
        kinds = [DATA if isinstance(i, ast.Name) and i.id == "data" else formula_kind(t, i)
                 for i in items]  # fmt: skip
        return merged(kinds)
    return UNSURE


def template_kind(loops: list[str], t: FormulaTranslator, node: nodes.Node) -> str:
    """The kind of a template expression's value (``{{ ... }}``)."""
    if isinstance(node, nodes.Const):
        return FLOAT if isinstance(node.value, float) else EXACT
    if isinstance(node, nodes.Compare | nodes.Not):
        return EXACT
    if isinstance(node, nodes.Filter):
        return DATA if node.name in ("default", "d") else EXACT
    if isinstance(node, nodes.Name):
        if node.name in t.float_paths:
            return FLOAT
        if node.name in t.unsure_paths:
            return UNSURE
        return DATA if node.name in loops or node.name in RUN_NAMES else EXACT
    if isinstance(node, nodes.Getattr) and node.attr == "index" and loops:
        inner_name = node.node.name if isinstance(node.node, nodes.Name) else None
        if inner_name == "loop":
            return EXACT
    if isinstance(node, nodes.Getattr | nodes.Getitem):
        inner: nodes.Node = node
        while isinstance(inner, nodes.Getattr | nodes.Getitem):
            inner = inner.node
        if isinstance(inner, nodes.Name) and inner.name in t.unsure_paths:
            return UNSURE
        return DATA
    if isinstance(node, nodes.Neg):
        return merged([template_kind(loops, t, node.node)])
    if isinstance(node, nodes.Or | nodes.And):
        return merged([template_kind(loops, t, side) for side in (node.left, node.right)])
    if isinstance(node, nodes.CondExpr) and node.expr2 is not None:
        return merged([template_kind(loops, t, side) for side in (node.expr1, node.expr2)])
    return UNSURE


def note_shown(t: FormulaTranslator, shown: str, kind: str, name: str | None, loop: bool) -> None:
    """List a value shown as text that may read 3 in Node where the studio shows 3.0."""
    if kind == DATA and name is not None and loop:
        t.differ(f"{t.where}: {shown} shows the loop variable {name}; {WHOLE_FLOAT}")
    elif kind == DATA and name in RUN_NAMES and not (t.agent and name in ("input", "output")):
        t.whole_values.setdefault(name, set()).add(t.step)
    elif kind == UNSURE:
        t.differ(
            f"{t.where}: {shown} may read 3 where the studio reads 3.0 (whether Python makes "
            "this number whole or a decimal depends on the data)"
        )


def whole_value_difference(t: FormulaTranslator) -> list[str]:
    """One entry for every step showing the whole input, output... as text."""
    if not t.whole_values:
        return []
    names = [name for name in RUN_NAMES if name in t.whole_values]
    steps = [step for step in STEP_ORDER if any(step in t.whole_values[n] for n in names)]
    shown = " and ".join(f"{{{{ {name} }}}}" for name in names)
    values = " or ".join(name.replace("_", " ") for name in names)
    if len(steps) > 1:
        which = f"{', '.join(steps[:-1])} and {steps[-1]} steps show"
    else:
        which = f"{steps[0]} step shows"
    return [
        f"The {which} {shown} as a whole: when the {values} is itself a number "
        f"written with a decimal point (3.0), Mastra shows 3 where the studio shows 3.0 "
        "(text, lists and objects holding such numbers show the same)."
    ]
