"""A checked formula as a TypeScript expression over the same plain-data context ``ctx``.

The translation walks the formula's syntax tree (the same tree the Python evaluator walks),
so the TypeScript computes the same values: Python truthiness, ``and``/``or`` giving one of
their operands, missing fields and division by zero as errors, text as ``str()`` shows it.
A construct with no translation raises :class:`Untranslatable` naming it.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field

from scorer_runtime.spec.context import STEP_NAMES
from scorer_runtime.spec.formulas import formula
from scorer_runtime.spec.mastra import kinds_ts
from scorer_runtime.spec.mastra.kinds_ts import FLOAT, formula_kind, note_shown


class Untranslatable(ValueError):
    """A part of a formula or template that has no TypeScript translation here."""


_BINARY = {ast.Sub: "-", ast.Pow: "**"}
_ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_FUNCTIONS = {
    "len": "len",
    "mean": "mean",
    "round": "round",
    "contains": "contains",
    "lower": "lower",
    "upper": "upper",
    "strip": "strip",
    "words": "wordCount",
    "abs": "abs",
}
_METHODS = {
    "lower": ("lower", 0, 0),
    "upper": ("upper", 0, 0),
    "strip": ("strip", 0, 0),
    "startswith": ("startsWith", 1, 1),
    "endswith": ("endsWith", 1, 1),
    "replace": ("replaceText", 2, 3),
    "split": ("splitText", 0, 2),
    "lstrip": ("lstrip", 0, 0),
    "rstrip": ("rstrip", 0, 0),
    "removeprefix": ("removePrefix", 1, 1),
    "removesuffix": ("removeSuffix", 1, 1),
    "join": ("joinText", 1, 1),
    "count": ("countOf", 1, 1),
}
"""Text methods with a translation: the helper, and the fewest and most arguments it takes."""
_SPLIT_DEFAULTS = {"sep": "null", "maxsplit": "-1"}
_ONE_ARGUMENT = {
    "sum": ("sumOf", "sumOf({})"),
    "any": ("truths", "truths('any', {}).some((v: any) => truthy(v))"),
    "all": ("truths", "truths('all', {}).every((v: any) => truthy(v))"),
    "int": ("toInt", "toInt({})"),
    "float": ("toFloat", "toFloat({})"),
    "bool": ("truthy", "truthy({})"),
}
"""Functions of one argument: the helper and the code around the argument."""


@dataclass
class FormulaTranslator:
    """Translates formulas; remembers which helpers the translations use."""

    used: set[str] = field(default_factory=set)
    loop_names: list[set[str]] = field(default_factory=list)
    float_paths: set[str] = field(
        default_factory=lambda: {
            "score",
            *(n for n, s in STEP_NAMES.items() if s == "generate_score"),
        }
    )
    """Context paths that hold a Python float (``str`` writes 1.0 there, not 1)."""
    unsure_paths: set[str] = field(default_factory=set)
    """Step results that may hold a whole number or a float, depending on the data."""
    where: str = "A formula"
    step: str = "generate_score"
    agent: bool = False
    differences: list[str] = field(default_factory=list)
    whole_values: dict[str, set[str]] = field(default_factory=dict)
    """Where ``input``, ``output``... are shown whole (a whole float there reads 3)."""
    """What may show differently in Node, in plain words (see :mod:`kinds_ts`)."""

    def differ(self, text: str) -> None:
        if text not in self.differences:
            self.differences.append(text)

    def kind(self, expression: str) -> str:
        """The kind of the formula's value (:data:`kinds_ts.FLOAT`, ``EXACT``...)."""
        tree = formula(expression).parsed.tree
        return formula_kind(self, tree.body if isinstance(tree, ast.Expression) else tree)

    def is_float(self, node: ast.AST) -> bool:
        """Whether Python gives a float here (JavaScript has one number type for both)."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, float)
        if isinstance(node, ast.Name | ast.Attribute | ast.Subscript):
            return ast.unparse(node) in self.float_paths
        if isinstance(node, ast.BinOp):
            either = self.is_float(node.left) or self.is_float(node.right)
            return isinstance(node.op, ast.Div) or either
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, ast.USub | ast.UAdd) and self.is_float(node.operand)
        if isinstance(node, ast.IfExp):
            return self.is_float(node.body) and self.is_float(node.orelse)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name, args = node.func.id, node.args
            if name == "abs" and len(args) == 1:
                return self.is_float(args[0])
            if name in ("min", "max") and not node.keywords:
                one = len(args) == 1 and isinstance(args[0], ast.List)
                items = args[0].elts if isinstance(args[0], ast.List) and one else args
                return bool(items) and (one or len(args) > 1) and all(map(self.is_float, items))
            return name in ("mean", "float") or (
                name == "round" and len(args) == 2 and self.is_float(args[0])
            )
        return False

    def text(self, node: ast.AST, shown: str) -> str:
        """``str(node)`` as the sandbox writes it; ``shown`` names it in a difference."""
        kind = formula_kind(self, node)
        if kind == FLOAT:
            return self.use("floatOrText", f"floatOrText({self.expr(node)})")
        name = node.id if isinstance(node, ast.Name) else None
        loop = name is not None and any(name in names for names in self.loop_names)
        note_shown(self, shown, kind, name, loop)
        if isinstance(node, ast.Attribute | ast.Subscript):
            return self.field(node, "fieldText")
        return self.use("toText", f"toText({self.expr(node)})")

    def translate(self, expression: str) -> str:
        tree = formula(expression).parsed.tree
        body = tree.body if isinstance(tree, ast.Expression) else tree
        return self.expr(body)

    def gives_float(self, expression: str) -> bool:
        """Whether the formula's value is a Python float."""
        tree = formula(expression).parsed.tree
        return self.is_float(tree.body if isinstance(tree, ast.Expression) else tree)

    def use(self, name: str, code: str) -> str:
        self.used.add(name)
        return code

    def expr(self, node: ast.AST) -> str:
        method = getattr(self, f"_{type(node).__name__.lower()}", None)
        if method is None:
            raise Untranslatable(f"the formula part {ast.unparse(node)!r} ({type(node).__name__})")
        code: str = method(node)
        return code

    def _constant(self, node: ast.Constant) -> str:
        if node.value is None:
            return "null"
        if isinstance(node.value, bool):
            return "true" if node.value else "false"
        if isinstance(node.value, int | float | str):
            return json.dumps(node.value)
        raise Untranslatable(f"the value {node.value!r}")

    def _name(self, node: ast.Name) -> str:
        if any(node.id in names for names in self.loop_names):
            return f"v_{node.id}"
        return f"ctx.{node.id}"

    def field(self, node: ast.Attribute | ast.Subscript, helper: str) -> str:
        """``helper(value, key, where)``: ``field`` reads it, ``fieldText`` shows it."""
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            cut = node.slice
            if cut.step is not None:
                raise Untranslatable(f"the slice with a step {ast.unparse(node)!r}")
            ends = [self.expr(end) if end else "null" for end in (cut.lower, cut.upper)]
            code = self.use("sliceOf", f"sliceOf({self.expr(node.value)}, {', '.join(ends)})")
            return self.use("toText", f"toText({code})") if helper == "fieldText" else code
        where = json.dumps(ast.unparse(node.value))
        key = json.dumps(node.attr) if isinstance(node, ast.Attribute) else self.expr(node.slice)
        return self.use(helper, f"{helper}({self.expr(node.value)}, {key}, {where})")

    def _attribute(self, node: ast.Attribute) -> str:
        return self.field(node, "field")

    def _subscript(self, node: ast.Subscript) -> str:
        return self.field(node, "field")

    def _list(self, node: ast.List) -> str:
        return f"[{', '.join(self.expr(item) for item in node.elts)}]"

    def _dict(self, node: ast.Dict) -> str:
        pairs = []
        for key, value in zip(node.keys, node.values, strict=True):
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise Untranslatable(f"the object {ast.unparse(node)!r} (keys must be texts)")
            pairs.append(f"[{json.dumps(key.value)}, {self.expr(value)}]")
        return f"Object.fromEntries([{', '.join(pairs)}])"

    def _ifexp(self, node: ast.IfExp) -> str:
        test = self.use("truthy", f"truthy({self.expr(node.test)})")
        return f"({test} ? {self.expr(node.body)} : {self.expr(node.orelse)})"

    def _boolop(self, node: ast.BoolOp) -> str:
        self.used.add("truthy")
        code = self.expr(node.values[-1])
        for value in reversed(node.values[:-1]):
            keep = "truthy(a)" if isinstance(node.op, ast.Or) else "!truthy(a)"
            code = f"((a) => ({keep} ? a : {code}))({self.expr(value)})"
        return code

    def _unaryop(self, node: ast.UnaryOp) -> str:
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return self.use("truthy", f"!truthy({operand})")
        if isinstance(node.op, ast.USub):
            return f"(-{operand})"
        raise Untranslatable(f"the operator in {ast.unparse(node)!r}")

    def _binop(self, node: ast.BinOp) -> str:
        left, right = self.expr(node.left), self.expr(node.right)
        if isinstance(node.op, ast.Add):
            return self.use("add", f"add({left}, {right})")
        if isinstance(node.op, ast.Mult):
            return self.use("multiply", f"multiply({left}, {right})")
        if isinstance(node.op, ast.Div):
            return self.use("divide", f"divide({left}, {right})")
        if isinstance(node.op, ast.FloorDiv | ast.Mod) and not _is_text(node.left):
            op, part = ("//", 0) if isinstance(node.op, ast.FloorDiv) else ("%", 1)
            return self.use("divMod", f"divMod('{op}', {left}, {right})[{part}]")
        symbol = _BINARY.get(type(node.op))
        if symbol is None:
            raise Untranslatable(f"the operator in {ast.unparse(node)!r}")
        return f"({left} {symbol} {right})"

    def _compare(self, node: ast.Compare) -> str:
        if len(node.ops) == 1:
            return self.test(node.ops[0], self.expr(node.left), self.expr(node.comparators[0]))
        # a < b < c: each value worked out once, stopping at the first false test, as Python
        lines = [f"const k0 = {self.expr(node.left)}"]
        for i, (op, right) in enumerate(zip(node.ops, node.comparators, strict=True)):
            lines.append(f"const k{i + 1} = {self.expr(right)}")
            test = self.test(op, f"k{i}", f"k{i + 1}")
            last = i == len(node.ops) - 1
            lines.append(f"return {test}" if last else f"if (!({test})) return false")
        return f"(() => {{ {'; '.join(lines)} }})()"

    def test(self, op: ast.cmpop, left: str, right: str) -> str:
        """One comparison of two values' code."""
        if isinstance(op, ast.Eq | ast.NotEq):
            code = self.use("equal", f"equal({left}, {right})")
            return code if isinstance(op, ast.Eq) else f"!{code}"
        if isinstance(op, ast.In | ast.NotIn):
            code = self.use("contains", f"contains({right}, {left})")
            return code if isinstance(op, ast.In) else f"!{code}"
        if isinstance(op, ast.Is | ast.IsNot) and right in ("null", "true", "false"):
            return f"(({left} ?? null) {'===' if isinstance(op, ast.Is) else '!=='} {right})"
        symbol = _ORDER.get(type(op))
        if symbol is None:
            raise Untranslatable(f"the comparison {type(op).__name__}")
        return self.use("order", f"(order({json.dumps(repr(symbol))}, {left}, {right}) {symbol} 0)")

    def _method(self, node: ast.Call, func: ast.Attribute) -> str | None:
        """A text method as its helper's call (``split`` also with sep=/maxsplit=)."""
        helper, least, most = _METHODS[func.attr]
        args = [self.expr(a) for a in node.args]
        names = {k.arg for k in node.keywords}
        if names and (helper != "splitText" or not names <= set(_SPLIT_DEFAULTS)):
            return None
        if names:
            given = dict(zip(_SPLIT_DEFAULTS, args, strict=False))
            if names & set(given):
                return None
            given.update({k.arg: self.expr(k.value) for k in node.keywords if k.arg})
            args = [given.get(key, code) for key, code in _SPLIT_DEFAULTS.items()]
        if not least <= len(args) <= most:
            return None
        return self.use(helper, f"{helper}({', '.join([self.expr(func.value), *args])})")

    def _call(self, node: ast.Call) -> str:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _METHODS:
            method = self._method(node, func)
            if method is not None:
                return method
        if not isinstance(node.func, ast.Name):
            raise Untranslatable(f"the method call {ast.unparse(node)!r}")
        name, args = node.func.id, [self.expr(arg) for arg in node.args]
        keywords = {k.arg: self.expr(k.value) for k in node.keywords}
        if name == "not_scorable":
            reason = self.text(node.args[0], ast.unparse(node)) if args else "undefined"
            return f"notScorable({reason})"
        if name == "str" and len(args) == 1 and not keywords:
            return self.text(node.args[0], ast.unparse(node))
        if name == "sum" and kinds_ts.PYTHON >= (3, 12):
            self.differ(f"{self.where}: {kinds_ts.SUM_DIFFERS.format(*kinds_ts.PYTHON)}.")
        if name == "contains" and set(keywords) <= {"ignore_case"}:
            extra = [keywords["ignore_case"]] if keywords else []
            return self.use("contains", f"contains({', '.join(args + extra)})")
        if name in ("min", "max") and set(keywords) <= {"default"}:
            fallback = f", [{keywords['default']}]" if keywords else ""
            wanted = -1 if name == "min" else 1
            code = f"extreme({json.dumps(name)}, [{', '.join(args)}], {wanted}{fallback})"
            return self.use("extreme", code)
        if name in _ONE_ARGUMENT and len(args) == 1 and not keywords:
            helper, code = _ONE_ARGUMENT[name]
            self.used.add("truthy")
            return self.use(helper, code.format(args[0]))
        if name == "get" and 2 <= len(args) <= 3 and not keywords:
            return self.use("getPath", f"getPath({', '.join(args)})")
        if name in ("clamp", "count") and not keywords:
            helper = "countOf" if name == "count" else "clamp"
            return self.use(helper, f"{helper}({', '.join(args)})")
        if name in _FUNCTIONS and not keywords:
            return self.use(_FUNCTIONS[name], f"{_FUNCTIONS[name]}({', '.join(args)})")
        raise Untranslatable(f"the function call {ast.unparse(node)!r}")

    def _listcomp(self, node: ast.ListComp) -> str:
        if len(node.generators) != 1 or not isinstance(node.generators[0].target, ast.Name):
            raise Untranslatable(f"the list {ast.unparse(node)!r} (one 'for x in ...' only)")
        loop = node.generators[0]
        assert isinstance(loop.target, ast.Name)
        source = self.use(
            "list", f"list({self.expr(loop.iter)}, {json.dumps(ast.unparse(loop.iter))})"
        )
        self.loop_names.append({loop.target.id})
        try:
            var = f"v_{loop.target.id}"
            conditions = [self.use("truthy", f"truthy({self.expr(c)})") for c in loop.ifs]
            pick = self.picked(node.elt, var)
        finally:
            self.loop_names.pop()
        keep = " && ".join(conditions) or "true"
        code = f"gather({source}, ({var}: any) => {keep}, {pick})"
        return self.use("gather", code)

    def picked(self, node: ast.AST, var: str) -> str:
        """``(v, i, all) => [item, whole]``: an item of a list made by ``[... for ...]``,
        and whether it is a whole float to show as 3.0 (the marks of the data carried)."""
        head = f"({var}: any, i: number, all: any[]): [any, boolean] =>"
        if isinstance(node, ast.Name) and f"v_{node.id}" == var:
            return self.use("wholeFloat", f"{head} [{var}, wholeFloat(all, i)]")
        kind = formula_kind(self, node)
        sliced = isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
        if isinstance(node, ast.Attribute | ast.Subscript) and kind != FLOAT and not sliced:
            return f"{head} {self.field(node, 'fieldEntry')}"
        whole = "true" if kind == FLOAT else "false"
        return f"{head} [{self.expr(node)}, {whole}]"


def _is_text(node: ast.AST) -> bool:
    """A text written in the formula (``'%s' % x`` formats text: no translation)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
