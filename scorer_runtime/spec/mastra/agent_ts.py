"""Tool-call checks of agent scorers as TypeScript over Mastra's own message format.

Mastra hands a scorer of ``type: 'agent'`` the agent's messages as it stores them
(``content.parts`` with ``tool-invocation`` parts, and the older ``content.toolInvocations``);
calls are read as the Python runtime reads them: parts first, older entries not already
seen (by call id), streamed ``partial-call`` invocations left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from scorer_runtime.spec.builtins.agent_checks import (
    MaxToolCallsParams,
    NoToolErrorsParams,
    ToolCalledParams,
    ToolNotCalledParams,
    ToolOrderParams,
)

AGENT_HELPERS: dict[str, str] = {
    "toolCalls": """function toolCalls(output: any, where: string): any[] {
  if (output === null || output === undefined || typeof output === 'string') return []
  const messages = Array.isArray(output) ? output : [output]
  const calls: any[] = []
  const key = (call: any) => call.toolCallId || `${call.toolName}:${JSON.stringify(call.args)}`
  for (const message of messages) {
    if (typeof message === 'string') continue
    if (!message || typeof message !== 'object' || !('role' in message)) {
      return fail(`${where} is not an agent output (a list of messages)`)
    }
    const content = message.content
    if (!content || typeof content !== 'object') continue
    const found = (content.parts ?? [])
      .filter((part: any) => part?.type === 'tool-invocation')
      .map((part: any) => part.toolInvocation)
    const seen = new Set(found.map(key))
    for (const call of content.toolInvocations ?? []) {
      if (!seen.has(key(call))) {
        seen.add(key(call))
        found.push(call)
      }
    }
    calls.push(...found.filter((call: any) => call.state !== 'partial-call'))
  }
  return calls
}""",
    "isToolError": """function isToolError(result: any, keys: string[], prefixes: string[]) {
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    return keys.some((k) => Object.hasOwn(result, k) && truthy(result[k]))
  }
  if (typeof result === 'string') {
    const text = result.trim().toLowerCase()
    return prefixes.some((p) => p !== '' && text.startsWith(p.toLowerCase()))
  }
  return false
}""",
    "isSubsequence": """function isSubsequence(expected: string[], called: string[]): boolean {
  let at = 0
  for (const name of expected) {
    const found = called.indexOf(name, at)
    if (found < 0) return false
    at = found + 1
  }
  return true
}""",
}

AGENT_NEEDS: dict[str, tuple[str, ...]] = {
    "toolCalls": ("fail",),
    "isToolError": ("truthy",),
}


def agent_call(
    use: str, params: Mapping[str, Any], path: Callable[[str], str]
) -> tuple[str, set[str]] | None:
    """The expression for a tool-call check and its helpers; None for another check."""
    values = dict(params)

    def names(field: str) -> str:
        calls = f"toolCalls({path(field)}, {json.dumps(field)})"
        return f"{calls}.map((call: any) => call.toolName)"

    if use == "no_tool_errors":
        p = NoToolErrorsParams.model_validate(values)
        keys, prefixes = json.dumps(p.error_keys), json.dumps(p.error_prefixes)
        calls = f"toolCalls({path(p.field)}, {json.dumps(p.field)})"
        results = f"{calls}.filter((c: any) => c.state === 'result').map((c: any) => c.result)"
        failed = "results.filter((r: any) => isToolError(r, " + f"{keys}, {prefixes})).length"
        score = "1 - failed / results.length" if p.scoring == "fraction" else "failed ? 0 : 1"
        code = (
            f"((results: any[]) => {{ if (results.length === 0) return 1; "
            f"const failed = {failed}; return {score} }})({results})"
        )
        return code, {"toolCalls", "isToolError"}
    if use == "max_tool_calls":
        q = MaxToolCallsParams.model_validate(values)
        called = names(q.field)
        if q.tool is not None:
            called += f".filter((n: string) => n === {json.dumps(q.tool)})"
        return f"({called}.length <= {q.max_calls} ? 1 : 0)", {"toolCalls"}
    if use == "tool_called":
        r = ToolCalledParams.model_validate(values)
        count = f"{names(r.field)}.filter((n: string) => n === {json.dumps(r.tool)}).length"
        return f"({count} >= {r.min_times} ? 1 : 0)", {"toolCalls"}
    if use == "tool_not_called":
        t = ToolNotCalledParams.model_validate(values)
        test = f"{names(t.field)}.some((n: string) => {json.dumps(t.tools)}.includes(n))"
        return f"({test} ? 0 : 1)", {"toolCalls"}
    if use == "tool_order":
        return _tool_order(ToolOrderParams.model_validate(values), names)
    return None


def _tool_order(p: ToolOrderParams, names: Callable[[str], str]) -> tuple[str, set[str]]:
    if p.expected is not None:
        expected = json.dumps(p.expected)
    else:
        parts = p.expected_field.split(".")
        expected = "ctx"
        for part in parts:  # a missing field means nothing to compare with, as in Python
            expected = f"({expected} ?? {{}})[{json.dumps(part)}]"
    called = names(p.field)
    strict = p.mode == "strict"
    test = "equal(called, expected)" if strict else "isSubsequence(expected, called)"
    reason = json.dumps(f"tool_order: there is no {p.expected_field} to compare with")
    wrong = json.dumps(f"tool_order: {p.expected_field!r} should be a list of tool names")
    check = (
        "if (!Array.isArray(expected) || !expected.every((n: any) => typeof n === 'string')) "
        f"return fail({wrong})"
    )
    code = (
        f"((expected: any) => {{ if (expected === null || expected === undefined) "
        f"return notScorable({reason}); {check}; const called = {called}; "
        f"return {test} ? 1 : 0 }})({expected})"
    )
    return code, {"toolCalls", "isSubsequence", "equal", "fail"}
