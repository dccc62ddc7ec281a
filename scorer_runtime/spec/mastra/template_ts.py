"""A prompt template as a TypeScript function giving the same text as the Jinja sandbox.

The template is parsed by the same environment that renders it in Python (so
``trim_blocks``/``lstrip_blocks`` have already shaped the literal text), and each node
becomes code appending to one string. Printed values go through ``toText`` like the
sandbox's ``finalize``; a missing field is an error, as with its strict undefined.
"""

from __future__ import annotations

import ast
import json

from jinja2 import nodes

from scorer_runtime.spec.mastra.formula_ts import FormulaTranslator, Untranslatable
from scorer_runtime.spec.mastra.kinds_ts import FLOAT, UNSURE, note_shown, template_kind
from scorer_runtime.spec.sandbox.template_env import environment


class TemplateTranslator:
    """Translates templates to statement lists; shares helper use with a formula translator."""

    def __init__(self, formulas: FormulaTranslator, *, harden: bool = False) -> None:
        self.formulas = formulas
        self.loops: list[str] = []
        self.harden = harden
        """Fence each printed value as data, as a judge with ``harden_prompt`` does."""

    def translate(self, source: str) -> list[str]:
        """Statements that build the prompt in ``out`` from ``ctx`` (for a hardened judge,
        with a fresh ``nonce`` for each prompt)."""
        tree = environment().parse(source)
        lines = self.body(tree.body)
        if self.harden:
            lines.insert(0, self.formulas.use("dataNonce", "const nonce = dataNonce()"))
        return lines

    def body(self, items: list[nodes.Node]) -> list[str]:
        lines: list[str] = []
        for item in items:
            lines += self.statement(item)
        return lines

    def statement(self, node: nodes.Node) -> list[str]:
        if isinstance(node, nodes.Output):
            return [self.printed(child) for child in node.nodes]
        if isinstance(node, nodes.For):
            return self.loop(node)
        if isinstance(node, nodes.If):
            return self.branches(node)
        raise Untranslatable(f"the template block {type(node).__name__}")

    def branches(self, node: nodes.If) -> list[str]:
        """``{% if %}``, its ``{% elif %}`` branches and ``{% else %}`` as one if/else chain."""
        lines: list[str] = []
        for branch in [node, *node.elif_]:
            test = self.formulas.use("truthy", f"truthy({self.expr(branch.test)})")
            lines += [
                f"{'} else ' if lines else ''}if ({test}) {{",
                *_indent(self.body(branch.body)),
            ]
        if node.else_:
            lines += ["} else {", *_indent(self.body(node.else_))]
        return [*lines, "}"]

    def printed(self, node: nodes.Node) -> str:
        """``out += ...`` for one output node; a value (not literal text) fenced when hardened."""
        line = self.output(node)
        if not self.harden or isinstance(node, nodes.TemplateData):
            return line
        value = line.removeprefix("out += ")
        return self.formulas.use("dataFence", f"out += dataFence({value}, nonce)")

    def output(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.TemplateData):
            return f"out += {json.dumps(node.data, ensure_ascii=False)}"
        kind = template_kind(self.loops, self.formulas, node)
        if (_describe(node) in self.formulas.float_paths and not self.loops) or kind == FLOAT:
            return self.formulas.use("floatOrText", f"out += floatOrText({self.expr(node)})")
        name = node.name if isinstance(node, nodes.Name) else None
        if name in self.loops:
            shown = f"shownText(v_{name}, l_{name}, i_{name})"
            return self.formulas.use("shownText", f"out += {shown}")
        if isinstance(node, nodes.Filter) and node.name in ("default", "d"):
            return f"out += {self.shown_default(node)}"
        note_shown(self.formulas, _shown(node), kind, name, False)
        if isinstance(node, nodes.Getattr | nodes.Getitem) and not _is_loop_index(node, self.loops):
            return f"out += {self.field(node, 'fieldText')}"
        return self.formulas.use("toText", f"out += toText({self.expr(node)})")

    def shown_default(self, node: nodes.Filter) -> str:
        """``{{ x | default(v) }}``: x shown as read from its holder (89.0 kept), or v."""
        fallback = node.args[0] if node.args else None
        if isinstance(fallback, nodes.Const) and isinstance(fallback.value, float):
            note_shown(self.formulas, _shown(node), UNSURE, None, False)
        assert node.node is not None
        holder, key = self.default_parts(node.node)
        return self.formulas.use("shownText", f"shownText({self.expr(node)}, {holder}, {key})")

    def loop(self, node: nodes.For) -> list[str]:
        if node.else_ or node.test or node.recursive or not isinstance(node.target, nodes.Name):
            raise Untranslatable("a {% for %} with else, if or recursive")
        name = node.target.name
        where = json.dumps(_describe(node.iter))
        source = self.formulas.use("list", f"list({self.expr(node.iter)}, {where})")
        self.loops.append(name)
        try:
            inner = self.body(node.body)
        finally:
            self.loops.pop()
        head = f"for (const [i_{name}, v_{name}] of l_{name}.entries()) {{"
        block = [f"const l_{name} = {source}", head, *_indent(inner), "}"]
        return ["{", *_indent(block), "}"]

    def expr(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Name):
            return f"v_{node.name}" if node.name in self.loops else f"ctx.{node.name}"
        if isinstance(node, nodes.Const):
            return json.dumps(node.value)
        if isinstance(node, nodes.Getattr) and _is_loop_index(node, self.loops):
            assert isinstance(node.node, nodes.Name)
            return f"(i_{self.loops[-1]} + 1)"
        if isinstance(node, nodes.Getattr | nodes.Getitem):
            return self.field(node, "field")
        if isinstance(node, nodes.Filter):
            return self.filter(node)
        if isinstance(node, nodes.Neg):
            return f"(-{self.expr(node.node)})"
        if isinstance(node, nodes.Not):
            return self.formulas.use("truthy", f"!truthy({self.expr(node.node)})")
        if isinstance(node, nodes.Compare) and len(node.ops) == 1 and node.ops[0].op in _OPS:
            left, right = self.expr(node.expr), self.expr(node.ops[0].expr)
            return self.formulas.test(_OPS[node.ops[0].op], left, right)
        if isinstance(node, nodes.Or | nodes.And):
            self.formulas.used.add("truthy")
            keep = "truthy(a)" if isinstance(node, nodes.Or) else "!truthy(a)"
            right = self.expr(node.right)
            return f"((a: any) => ({keep} ? a : {right}))({self.expr(node.left)})"
        if isinstance(node, nodes.CondExpr) and node.expr2 is not None:
            test = self.formulas.use("truthy", f"truthy({self.expr(node.test)})")
            return f"({test} ? {self.expr(node.expr1)} : {self.expr(node.expr2)})"
        raise Untranslatable(f"the template expression {type(node).__name__}")

    def field(self, node: nodes.Getattr | nodes.Getitem, helper: str) -> str:
        """``helper(value, key, where)``: ``field`` reads it, ``fieldText`` shows it."""
        key = json.dumps(node.attr) if isinstance(node, nodes.Getattr) else self.expr(node.arg)
        where = json.dumps(_describe(node.node))
        return self.formulas.use(helper, f"{helper}({self.expr(node.node)}, {key}, {where})")

    def default(self, node: nodes.Node, args: list[str]) -> str:
        """``x | default(v)``: v where x is missing (only its last step may be missing)."""
        fallback, boolean = (args + ['""', "false"][len(args) :])[:2]
        holder, key = self.default_parts(node)
        return self.formulas.use("fieldOr", f"fieldOr({holder}, {key}, {fallback}, {boolean})")

    def default_parts(self, node: nodes.Node) -> tuple[str, str]:
        """The holder and key a ``default`` filter reads (only its last step may be missing)."""
        if isinstance(node, nodes.Name) and node.name not in self.loops:
            return "ctx", json.dumps(node.name)
        if isinstance(node, nodes.Getattr | nodes.Getitem) and not _is_loop_index(node, self.loops):
            key = json.dumps(node.attr) if isinstance(node, nodes.Getattr) else self.expr(node.arg)
            return self.expr(node.node), key
        raise Untranslatable("the default filter on a value that cannot be missing")

    def filter(self, node: nodes.Filter) -> str:
        assert node.node is not None
        value, args = self.expr(node.node), [self.expr(arg) for arg in node.args]
        if node.kwargs or node.dyn_args or node.dyn_kwargs:
            raise Untranslatable(f"the filter {node.name} with named arguments")
        if node.name == "round":
            self.formulas.used.add("floatText")
            return self.formulas.use(
                "round", f"floatText(round({value}, {args[0] if args else 0}))"
            )
        if node.name == "join":
            joiner = args[0] if args else '""'
            where = json.dumps(_describe(node.node))
            listed = self.formulas.use("list", f"list({value}, {where})")
            shown = "(v: any, i: number, all: any[]) => shownText(v, all, i)"
            joined = f"{listed}.map({shown}).join({joiner})"
            self.formulas.used.add("limitedText")
            return self.formulas.use("shownText", f"limitedText({joined})")
        if node.name in ("default", "d") and len(args) <= 2:
            return self.default(node.node, args)
        if node.name in ("length", "count") and not args:
            return self.formulas.use("len", f"len({value})")
        if node.name == "replace" and 2 <= len(args) <= 3:
            texts = [self.formulas.use("toText", f"toText({code})") for code in [value, *args[:2]]]
            count = args[2] if len(args) == 3 else "-1"
            return self.formulas.use("replaceText", f"replaceText({', '.join(texts)}, {count})")
        agent = _AGENT_FILTERS.get(node.name)
        if agent is not None and not args:
            helper, code = agent
            return self.formulas.use(helper, code.format(value))
        if node.name == "json" and len(args) <= 1:
            indent = args[0] if args else "2"
            return self.formulas.use("prettyJson", f"prettyJson({value}, {indent})")
        raise Untranslatable(f"the template filter {node.name!r}")


_OPS: dict[str, ast.cmpop] = {
    "eq": ast.Eq(), "ne": ast.NotEq(), "lt": ast.Lt(), "lteq": ast.LtE(), "gt": ast.Gt(),
    "gteq": ast.GtE(), "in": ast.In(), "notin": ast.NotIn(),
}  # fmt: skip
"""Jinja's comparison operators as the formula operators they behave as."""

_AGENT_FILTERS = {
    "user_message": ("userMessage", "userMessage({})"),
    "tool_calls": ("toolCalls", "toolCalls({}, 'output').map((call: any) => call.toolName)"),
    "tool_results": ("toolResults", "toolResults({})"),
}


def _is_loop_index(node: nodes.Getattr | nodes.Getitem, loops: list[str]) -> bool:
    return (
        isinstance(node, nodes.Getattr)
        and isinstance(node.node, nodes.Name)
        and node.node.name == "loop"
        and bool(loops)
        and (node.attr == "index")
    )


def _describe(node: nodes.Node) -> str:
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{_describe(node.node)}.{node.attr}"
    return "the value"


def _shown(node: nodes.Node) -> str:
    """``{{ x.y | f }}`` for a difference; ``{{ ... }}`` for a worked-out value."""
    if isinstance(node, nodes.Filter) and node.node is not None:
        return f"{{{{ {_describe(node.node)} | {node.name} }}}}"
    text = _describe(node)
    return f"{{{{ {'...' if text == 'the value' else text} }}}}"


def _indent(lines: list[str]) -> list[str]:
    return [f"  {line}" for line in lines]
