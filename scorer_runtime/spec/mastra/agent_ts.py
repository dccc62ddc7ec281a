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

from scorer_runtime.agent.normalize import INPUT_KEYS
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
  for (const [messageIndex, message] of messages.entries()) {
    if (typeof message === 'string') continue
    if (!message || typeof message !== 'object' || !('role' in message)) {
      return fail(`${where} is not an agent output (a list of messages)`)
    }
    const content = message.content
    if (!content || typeof content !== 'object') continue
    const found: [any, number | null][] = []
    for (const [partIndex, part] of (content.parts ?? []).entries()) {
      if (part?.type === 'tool-invocation') found.push([part.toolInvocation, partIndex])
    }
    const seen = new Set(found.map(([call]) => key(call)))
    for (const call of content.toolInvocations ?? []) {
      if (!seen.has(key(call))) {
        seen.add(key(call))
        found.push([call, null])
      }
    }
    for (const [call, partIndex] of found) {
      if (call.state !== 'partial-call') calls.push({ ...call, messageIndex, partIndex })
    }
  }
  return calls
}""",
    "toolResults": """function toolResults(output: any): any[] {
  return toolCalls(output, 'output')
    .filter((call: any) => call.state === 'result')
    .map((call: any) => ({
      tool_name: call.toolName,
      tool_call_id: call.toolCallId ?? '',
      args: call.args ?? {},
      result: call.result ?? null,
      state: call.state,
      message_index: call.messageIndex,
      part_index: call.partIndex,
    }))
}""",
    "messageText": """function messageText(message: any): string | null {
  const content = message?.content
  if (typeof content === 'string') return content
  const parts = Array.isArray(content) ? content : content?.parts ?? []
  const texts = parts.filter((p: any) => p?.type === 'text').map((p: any) => p.text)
  return texts.length ? texts.join('\\n') : (content?.content ?? null)
}""",
    "userMessage": """function userMessage(input: any): string | null {
  let messages = typeof input === 'string' || input?.role !== undefined ? [input]
    : Array.isArray(input) ? input : input?.inputMessages ?? input?.input_messages ?? []
  if (!Array.isArray(messages)) messages = [messages]
  const asMessage = (m: any) => (typeof m === 'string' ? { role: 'user', content: m } : m)
  const first = messages.map(asMessage).find((m: any) => m?.role === 'user')
  return first === undefined ? null : messageText(first)
}""",
    "inputKeys": f"const INPUT_KEYS = {json.dumps(sorted(INPUT_KEYS))}",
    "isMessages": """function isMessages(value: any): boolean {
  return Array.isArray(value) && value.length > 0 &&
    value.every((m) => m !== null && typeof m === 'object' && !Array.isArray(m) && 'role' in m)
}""",
    "checkMessage": """const ROLES = ['user', 'assistant', 'system', 'tool']
function checkMessage(message: any, where: string): any {
  // The shapes the Python runtime refuses as messages are refused here too.
  const content = message.content
  const shaped = typeof content === 'string' || Array.isArray(content) ||
    (content !== null && typeof content === 'object')
  const parts = Array.isArray(content) ? content : shaped ? content.parts ?? [] : []
  const textsOk = Array.isArray(parts) &&
    parts.every((p: any) => p?.type !== 'text' || typeof p.text === 'string')
  if (!ROLES.includes(message.role) || !shaped || !textsOk) {
    return fail(`${where} cannot be read as messages: a message needs a role (user, ` +
      'assistant, system or tool) and a content with text')
  }
  return message
}""",
    "messagesText": """function messagesText(messages: any[], where: string): string {
  // As the Python runtime reads them: the assistant's messages, or every message when
  // none is from the assistant; their texts joined by new lines, empty ones left out.
  messages.forEach((m) => checkMessage(m, where))
  const answers = messages.filter((m) => m.role === 'assistant')
  const texts = (answers.length ? answers : messages).map((m) => messageText(m) ?? '')
  return texts.filter((t) => t).join('\\n')
}""",
    "prettyJson": """function prettyJson(value: any, indent = 2, depth = 0, float = false): string {
  const pad = (n: number) => '\\n' + ' '.repeat(indent * n)
  const inner = (v: any, k: string | number) =>
    prettyJson(v, indent, depth + 1, wholeFloat(value, k))
  if (Array.isArray(value) && value.length) {
    const items = value.map((v, i) => pad(depth + 1) + inner(v, i))
    return `[${items.join(',')}${pad(depth)}]`
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length) {
    const items = Object.entries(value).map(
      ([k, v]) => `${pad(depth + 1)}${JSON.stringify(k)}: ${inner(v, k)}`,
    )
    return `{${items.join(',')}${pad(depth)}}`
  }
  return jsonText(value, float)
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
    "toolResults": ("toolCalls",),
    "userMessage": ("messageText",),
    "checkMessage": ("fail",),
    "messagesText": ("checkMessage", "messageText"),
    "prettyJson": ("jsonText", "wholeFloat"),
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
