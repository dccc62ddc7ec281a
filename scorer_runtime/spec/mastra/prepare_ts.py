"""The spec's ``prepare`` options (``filter_run``) as TypeScript over a run's plain data.

Message parts of other types, calls to other tools and the messages before the last N are
dropped as the Python filter drops them: legacy mirrors of dropped part types go too, a
message the filter empties is dropped, one it leaves unchanged is kept as it is.
"""

from __future__ import annotations

import json
import re

from scorer_runtime.spec.models import (
    FilterRunSpec,
    FormulaScoreSpec,
    FormulaStepSpec,
    PromptStepSpec,
    ScorerSpec,
)

MESSAGE_FIELDS_DIFFER = (
    "After its prepare options trim the messages, the studio hands the steps the messages in "
    "its own form (fields such as tool_invocation and input_messages), the Mastra scorer the "
    "messages as Mastra gives them (toolInvocation, inputMessages): a formula or prompt that "
    "reads the input or output other than through user_message, tool_calls or tool_results "
    "sees other field names there."
)

AGENT_FIELDS_DIFFER = (
    "The studio hands an agent scorer's steps the messages in its own form, every field "
    "present (an id of null where none was given, tool_invocations, created_at, a text output "
    "as one assistant message), the Mastra scorer the messages as Mastra gives them "
    "(toolInvocations, createdAt, a text output as text): a formula or prompt that reads the "
    "input or output other than through user_message, tool_calls or tool_results may see "
    "other fields or values there, such as [m.id for m in output]."
)

_THROUGH_FILTER = re.compile(
    r"\b(?:input|output)\s*\|\s*(?:user_message|tool_calls|tool_results)\b"
)
_READ = re.compile(r"\b(?:input|output)\b")

PREPARE_HELPERS: dict[str, str] = {
    "keepMessage": """function keepMessage(message: any, kinds: string[] | null, tools: any): any {
  const content = message.content
  if (typeof content === 'string') return kinds === null || kinds.includes('text') ? message : null
  const before: any[] = content?.parts ?? []
  const keep = (part: any) =>
    (kinds === null || kinds.includes(part?.type)) &&
    (tools === null || part?.type !== 'tool-invocation' ||
      tools.includes(part?.toolInvocation?.toolName))
  const next = { ...content, parts: before.filter(keep) }
  let changed = next.parts.length !== before.length
  const mirrors = { text: 'content', reasoning: 'reasoning', 'tool-invocation': 'toolInvocations' }
  for (const [kind, key] of Object.entries(mirrors)) {
    if (kinds !== null && !kinds.includes(kind) && next[key] != null) {
      delete next[key]
      changed = true
    }
  }
  if (tools !== null && next.toolInvocations?.length) {
    const calls = next.toolInvocations.filter((call: any) => tools.includes(call?.toolName))
    changed ||= calls.length !== next.toolInvocations.length
    next.toolInvocations = calls
  }
  if (!changed) return message
  const left = next.parts.length || next.content || next.toolInvocations?.length
  return left ? { ...message, content: next } : null
}""",
    "keepParts": """function keepParts(
  messages: any, kinds: string[] | null, tools: string[] | null, last = 0,
): any {
  const isMessage = (m: any) => m && typeof m === 'object' && 'role' in m && 'content' in m
  if (!Array.isArray(messages) || !messages.length || !messages.every(isMessage)) return messages
  const kept = kinds === null && tools === null ? [...messages] : messages
    .map((message: any) => keepMessage(message, kinds, tools))
    .filter((message: any) => message !== null)
  return last ? kept.slice(-last) : kept
}""",
    "keepRunParts": """function keepRunParts(
  run: any, kinds: string[] | null, tools: string[] | null, remembered: number, outputs: number,
): any {
  let input = run.input
  if (Array.isArray(input)) input = keepParts(input, kinds, tools)
  else if (input?.inputMessages || input?.rememberedMessages) {
    input = { ...input }
    if (Array.isArray(input.inputMessages)) {
      input.inputMessages = keepParts(input.inputMessages, kinds, tools)
    }
    if (Array.isArray(input.rememberedMessages)) {
      input.rememberedMessages = keepParts(input.rememberedMessages, kinds, tools, remembered)
    }
  }
  return { ...run, input, output: keepParts(run.output, kinds, tools, outputs) }
}""",
}

PREPARE_NEEDS: dict[str, tuple[str, ...]] = {
    "keepParts": ("keepMessage",),
    "keepRunParts": ("keepParts",),
}


def prepare_run(prepare: FilterRunSpec, used: set[str]) -> str:
    """``prepareRun`` doing what the spec's ``prepare`` does; notes the helpers in ``used``."""
    steps = ["(run: any) => {", "    let prepared = { ...run }"]
    if prepare.drop_request_context:
        steps.append("    prepared.requestContext = undefined")
    if prepare.drop_ground_truth:
        steps.append("    prepared.groundTruth = undefined")
    limits = (prepare.max_remembered_messages, prepare.max_output_messages)
    if _trims_messages(prepare):
        used.add("keepRunParts")
        lists = ", ".join(json.dumps(names) for names in (prepare.part_types, prepare.tool_names))
        steps.append(f"    prepared = keepRunParts(prepared, {lists}, {limits[0]}, {limits[1]})")
    return "\n".join([*steps, "    return prepared", "  }"])


def prepare_differences(spec: ScorerSpec) -> list[str]:
    """What differs when a step reads an agent's messages (or trimmed ones) by field name."""
    trims = spec.prepare is not None and _trims_messages(spec.prepare)
    if not trims and spec.type != "agent":
        return []
    texts: list[str] = []
    for step in spec.steps:
        if isinstance(step, FormulaStepSpec):
            texts.append(step.formula)
        elif isinstance(step, PromptStepSpec):
            texts.append(step.template)
            if isinstance(step.calculate_score, FormulaScoreSpec):
                texts.append(step.calculate_score.formula)
    reads = any(_READ.search(_THROUGH_FILTER.sub("", text)) for text in texts)
    if not reads:
        return []
    return [MESSAGE_FIELDS_DIFFER if trims else AGENT_FIELDS_DIFFER]


def _trims_messages(prepare: FilterRunSpec) -> bool:
    limits = prepare.max_remembered_messages or prepare.max_output_messages
    return prepare.part_types is not None or prepare.tool_names is not None or bool(limits)
